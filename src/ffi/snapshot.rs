//! The last completed window as plain C structs: `cpu_usage_snapshot`, in every
//! build (the minimal one included), for firmware that formats or sends the figures
//! itself.

use core::ffi::c_char;

use super::status::cpu_usage_status as St;
#[cfg(cpu_usage_smp)]
use super::CPU_USAGE_CORES;
use super::{let_go, read_line, with_library, CPU_USAGE_NAME_BUF};
use crate::engine::arith::{self, ShareWalk, Shares};
use crate::engine::{Header, Line, Row, RowKind, NAME_LEN};
use crate::fields::{CField, Figures, Unit, Value, C_FIELDS};
use crate::settings::ApiEngine;

/// One task in a snapshot.
#[repr(C)]
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug)]
pub struct cpu_usage_task_info {
    /// The task's ID; 0 for the tasks sharing the overflow bucket.
    pub id: u32,
    /// Its name, NUL-terminated ("(overflow)" for the shared bucket).
    pub name: [c_char; CPU_USAGE_NAME_BUF],
    /// Share of the window in hundredths of a percent.
    pub usage: u32,
    /// Times switched in during the window (a run going on when it began counts).
    pub switches: u32,
    /// Longest run in one go, in microseconds.
    pub longest_slice_us: u32,
    /// Clock counts in the window.
    pub counts: u32,
    /// The task was deleted (its time in the window still counts).
    pub deleted: bool,
    /// It is the idle task.
    pub idle: bool,
}

impl cpu_usage_task_info {
    /// Fills the figures the field table gives a C field. (Apart from the copy's
    /// loop: its locals are not on the stack while a line is read.)
    #[inline(never)]
    fn fill(&mut self, figures: &Figures<'_>, hz: u32) {
        for &(field, figure, unit) in C_FIELDS.iter() {
            self.set(field, c_value(figure.value(figures), unit, hz));
        }
    }

    /// Sets `field` (a field table's `c_field`) to `value` (a flag: not 0): one arm
    /// per field, which the test below holds to the struct's field names.
    #[inline(always)]
    pub(crate) fn set(&mut self, field: CField, value: u32) {
        match field {
            CField::Counts => self.counts = value,
            CField::Usage => self.usage = value,
            CField::Deleted => self.deleted = value != 0,
            CField::Switches => self.switches = value,
            CField::LongestSliceUs => self.longest_slice_us = value,
        }
    }
}

/// A figure's value in a C struct's `uint32_t`: a number saturated, microseconds from
/// counts (at `hz`), a share in hundredths, a flag 1 or 0, nothing 0.
#[inline(always)]
fn c_value(value: Value, unit: Unit, hz: u32) -> u32 {
    match value {
        Value::Int(v) if unit == Unit::Micros => u32::try_from(arith::counts_to_us(v, hz)).unwrap_or(u32::MAX),
        Value::Int(v) => u32::try_from(v).unwrap_or(u32::MAX),
        Value::Share(h, _) => u32::from(h),
        Value::Flag(b) => u32::from(b),
        Value::Absent | Value::Null => 0,
    }
}

#[cfg(test)]
impl cpu_usage_task_info {
    /// An entry of a caller's array before the snapshot, for the tests.
    pub(crate) const BLANK: cpu_usage_task_info = cpu_usage_task_info {
        id: 0,
        name: [0; CPU_USAGE_NAME_BUF],
        usage: 0,
        switches: 0,
        longest_slice_us: 0,
        counts: 0,
        deleted: false,
        idle: false,
    };
}

/// The rest of a snapshot: shares in hundredths of a percent, adding up (with the
/// tasks' `usage`) to exactly 10000.
#[repr(C)]
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug, Default)]
pub struct cpu_usage_summary_info {
    /// The window's number (windows completed before it).
    pub window: u32,
    /// Its length in microseconds.
    pub window_us: u32,
    /// Tasks in the window (idle and the overflow bucket included), written or not.
    pub tasks: u32,
    /// Tasks written to the caller's array.
    pub written: u32,
    /// Time in interrupt handlers.
    pub interrupts: u32,
    /// Interrupts in the window.
    pub interrupt_count: u32,
    /// Longest interrupt, in microseconds.
    pub longest_interrupt_us: u32,
    /// Time asleep in tickless idle.
    pub sleep: u32,
    /// Time in no task (before the scheduler, or unattributed).
    pub other: u32,
    /// The idle task's share.
    pub idle: u32,
    /// 100% minus idle and sleep.
    pub load: u32,
    /// The load smoothed over about 1 s, 10 s and 60 s; `UINT32_MAX` until known
    /// (and always, in a build without the load averages: the `watchdogs` feature).
    pub load_avg: [u32; 3],
}

/// One core's line in a snapshot (an SMP build, `cpu_usage_snapshot_cores`): shares
/// of that core's time in hundredths of a percent, as `show_cpu_usage` gives them. `busy` is the rest of
/// `idle` and `sleep`, `interrupts` a part of it.
#[cfg(cpu_usage_smp)]
#[repr(C)]
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct cpu_usage_core_info {
    /// Time in tasks and handlers.
    pub busy: u32,
    /// Time in an idle task.
    pub idle: u32,
    /// Time in interrupt handlers.
    pub interrupts: u32,
    /// Time asleep in tickless idle.
    pub sleep: u32,
    /// Interrupts on this core in the window.
    pub interrupt_count: u32,
}

/// Each core's line, where a snapshot of several cores writes them. (One core has
/// none but the summary.)
#[cfg(cpu_usage_smp)]
type CoreLines = [cpu_usage_core_info; CPU_USAGE_CORES];
#[cfg(not(cpu_usage_smp))]
type CoreLines = ();

/// Copies the last completed window into `tasks` (up to `max_tasks` of them, in ID
/// order, the overflow bucket first if used and the idle task marked) and
/// `summary`. Returns how many tasks it wrote (`summary->tasks` says how many there
/// were); or `CPU_USAGE_ERR_NULL` (`summary` NULL, or `tasks` NULL with
/// `max_tasks` not 0) or `CPU_USAGE_ERR_NO_WINDOW`, writing nothing; or
/// `CPU_USAGE_ERR_CHANGED` when the figures changed all the same while it copied
/// (the window is held open while it copies, by at most one more window: only a
/// copy preempted for that long, or a restart, does it), with `tasks` partly
/// written and `summary` not. Interrupts are masked for one task's copy at a time;
/// the shares are those `show_cpu_usage` shows.
///
/// # Safety
/// `tasks` must be writable for `max_tasks` elements; `summary` for one.
#[no_mangle]
pub unsafe extern "C" fn cpu_usage_snapshot(
    tasks: *mut cpu_usage_task_info,
    max_tasks: usize,
    summary: *mut cpu_usage_summary_info,
) -> i32 {
    if summary.is_null() || (tasks.is_null() && max_tasks != 0) {
        return St::CPU_USAGE_ERR_NULL.code();
    }
    let out: &mut [cpu_usage_task_info] = if max_tasks == 0 {
        &mut []
    } else {
        // SAFETY: non-NULL and writable for `max_tasks` elements by the contract.
        unsafe { core::slice::from_raw_parts_mut(tasks, max_tasks) }
    };
    // SAFETY: non-NULL and writable by the contract.
    take(out, unsafe { &mut *summary }, None)
}

/// `cpu_usage_snapshot`, and each core's line of the same window into `cores`
/// (`CPU_USAGE_CORES` of them, in core order), written with `summary`. Returns as
/// `cpu_usage_snapshot` does; `CPU_USAGE_ERR_NULL` also for `cores` NULL.
///
/// # Safety
/// As `cpu_usage_snapshot`; `cores` must be writable for `CPU_USAGE_CORES` elements.
#[cfg(cpu_usage_smp)]
#[no_mangle]
pub unsafe extern "C" fn cpu_usage_snapshot_cores(
    tasks: *mut cpu_usage_task_info,
    max_tasks: usize,
    summary: *mut cpu_usage_summary_info,
    cores: *mut cpu_usage_core_info,
) -> i32 {
    if summary.is_null() || cores.is_null() || (tasks.is_null() && max_tasks != 0) {
        return St::CPU_USAGE_ERR_NULL.code();
    }
    let out: &mut [cpu_usage_task_info] = if max_tasks == 0 {
        &mut []
    } else {
        // SAFETY: non-NULL and writable for `max_tasks` elements by the contract.
        unsafe { core::slice::from_raw_parts_mut(tasks, max_tasks) }
    };
    // SAFETY: non-NULL and writable, `cores` for `CPU_USAGE_CORES` elements, by the
    // contract.
    take(out, unsafe { &mut *summary }, Some(unsafe { &mut *cores.cast::<CoreLines>() }))
}

/// Copies the window into `out` and `summary`, holding it open meanwhile. (Apart,
/// so that a refused call does not reserve its frame.)
#[inline(never)]
fn take(out: &mut [cpu_usage_task_info], summary: &mut cpu_usage_summary_info, cores: Option<&mut CoreLines>) -> i32 {
    // (Not `hold_window`: its loads, each an `Option`, would take more of the caller's
    // stack.)
    let read = with_library(|st| {
        let header = st.engine.header(false)?;
        st.engine.hold();
        #[cfg(feature = "watchdogs")]
        let load_avg = st.engine.load_avg();
        // (Without the load averages: never known.)
        #[cfg(not(feature = "watchdogs"))]
        let load_avg = [u32::MAX; 3];
        Some((header, load_avg, st.config.clock.hz))
    });
    let Some((header, load_avg, hz)) = read else {
        return St::CPU_USAGE_ERR_NO_WINDOW.code();
    };
    // (Out of the critical section: it divides.)
    #[cfg(feature = "watchdogs")]
    let load_avg = load_avg.map(|a| if a.len == 0 { u32::MAX } else { u32::from(arith::pct_of(a.busy, a.len)) });
    let copied = copy(out, &header, load_avg, hz);
    let_go(header.stamp);
    match copied {
        Some((info, lines)) => {
            *summary = info;
            if let Some(cores) = cores {
                *cores = lines;
            }
            info.written as i32
        }
        None => St::CPU_USAGE_ERR_CHANGED.code(),
    }
}

/// Copies the lines of `header`'s window into `out`, one critical section per line,
/// with the smoothed loads' shares `load_avg`; `None` if the figures changed
/// meanwhile.
fn copy(
    out: &mut [cpu_usage_task_info],
    header: &Header,
    load_avg: [u32; 3],
    hz: u32,
) -> Option<(cpu_usage_summary_info, CoreLines)> {
    let shares = Shares::of_total(header.length << ApiEngine::CORES.trailing_zeros());
    let us = |counts: u64| u32::try_from(arith::counts_to_us(counts, hz)).unwrap_or(u32::MAX);
    let mut info = cpu_usage_summary_info {
        window: header.window,
        window_us: us(header.length),
        load_avg,
        ..cpu_usage_summary_info::default()
    };
    let mut lines = ShareWalk::new(shares, 0);
    let mut line = Line::EMPTY;
    // (Several cores: the cores' idle lines summed.)
    let (mut idle, mut idle_share) = (Row { kind: RowKind::Idle, ..Row::EMPTY }, 0u16);
    // (Several cores: each core's idle, interrupts and sleep counts and interrupts.)
    #[cfg(cpu_usage_smp)]
    let mut per_core = [[0u64; 4]; CPU_USAGE_CORES];
    for at in 0..ApiEngine::LINES {
        if !read_line(at, false, header.stamp, &mut line) {
            return None;
        }
        let row = &line.row;
        let (_, share16) = lines.next(row.counts);
        let share = u32::from(share16);
        #[cfg(cpu_usage_smp)]
        if let (Some(core), Some(i)) = (
            per_core.get_mut(usize::from(row.id)),
            [RowKind::Idle, RowKind::Interrupts, RowKind::Sleep].iter().position(|&k| k == row.kind),
        ) {
            core[i] = row.counts;
            if row.kind == RowKind::Interrupts {
                core[3] = row.runs;
            }
        }
        match row.kind {
            _ if !line.shown => {}
            // With several cores, each core's idle line: summed into one entry, after
            // the loop (as the report's idle line).
            RowKind::Idle if ApiEngine::CORES > 1 => {
                idle.add_core(row);
                idle_share += share16;
            }
            RowKind::Task | RowKind::Idle | RowKind::Overflow => {
                info.tasks += 1;
                let Some(slot) = out.get_mut(info.written as usize) else { continue };
                // (Field by field, in place: no entry is built on the stack.)
                // (A byte at a time, NUL-padded: no memset or memcpy in the minimal build.)
                let text: &[u8] = if row.kind == RowKind::Overflow { b"(overflow)" } else { &row.name };
                for (i, dst) in slot.name.iter_mut().enumerate() {
                    *dst = text.get(i).filter(|_| i < NAME_LEN).map_or(0, |&b| b as c_char);
                }
                slot.id = u32::from(row.id);
                slot.fill(&Figures { row, share: share16, bucket_tasks: 0 }, hz);
                slot.idle = row.kind == RowKind::Idle;
                info.written += 1;
                if row.kind == RowKind::Idle {
                    info.idle = share;
                }
            }
            // (With several cores, each core's line: summed.)
            RowKind::Interrupts => {
                info.interrupts += share;
                info.interrupt_count = info.interrupt_count.saturating_add(u32::try_from(row.runs).unwrap_or(u32::MAX));
                info.longest_interrupt_us = info.longest_interrupt_us.max(us(u64::from(row.longest)));
            }
            RowKind::Sleep => info.sleep += share,
            _ => info.other = share,
        }
    }
    if ApiEngine::CORES > 1 {
        info.tasks += 1;
        info.idle = u32::from(idle_share);
        if let Some(slot) = out.get_mut(info.written as usize) {
            for (i, dst) in slot.name.iter_mut().enumerate() {
                *dst = b"IDLE".get(i).map_or(0, |&b| b as c_char);
            }
            idle.id = header.idle;
            slot.id = u32::from(header.idle);
            slot.fill(&Figures { row: &idle, share: idle_share, bucket_tasks: 0 }, hz);
            slot.idle = true;
            info.written += 1;
        }
    }
    info.load = if header.length == 0 { 0 } else { 10_000u32.saturating_sub(info.idle + info.sleep) };
    #[cfg(cpu_usage_smp)]
    let lines = per_core.map(|[idle, interrupts, sleep, runs]| {
        let pct = |counts: u64| u32::from(arith::pct_of(counts, header.length));
        cpu_usage_core_info {
            busy: pct(header.length.saturating_sub(idle).saturating_sub(sleep)),
            idle: pct(idle),
            interrupts: pct(interrupts),
            sleep: pct(sleep),
            interrupt_count: u32::try_from(runs).unwrap_or(u32::MAX),
        }
    });
    #[cfg(not(cpu_usage_smp))]
    let lines = ();
    Some((info, lines))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fields::FIELDS;

    /// The struct's fields by name, as `Debug` writes them (`name: value`), outside
    /// the brackets of an array.
    fn members(info: &cpu_usage_task_info) -> Vec<(String, String)> {
        let text = format!("{info:?}");
        let body = text.split_once('{').map_or("", |(_, b)| b).trim_end_matches('}');
        let (mut out, mut depth, mut item) = (Vec::new(), 0, String::new());
        for c in body.chars().chain([',']) {
            match c {
                '[' => depth += 1,
                ']' => depth -= 1,
                ',' if depth == 0 => {
                    let (name, value) = item.split_once(':').unwrap_or((&item, ""));
                    out.push((name.trim().to_owned(), value.trim().to_owned()));
                    item.clear();
                    continue;
                }
                _ => {}
            }
            item.push(c);
        }
        out
    }

    /// The field table's C fields are exactly the struct's figures (all but `id`,
    /// `name` and `idle`, which say which line it is), and each C field's setter
    /// fills the struct's field of that name, and only that one.
    #[test]
    fn the_field_tables_c_fields_are_the_structs() {
        let blank = members(&cpu_usage_task_info::BLANK);
        let mut struct_fields: Vec<&str> = blank.iter().map(|(n, _)| n.as_str()).collect();
        struct_fields.retain(|n| !["id", "name", "idle"].contains(n));
        let mut table_fields: Vec<&str> = FIELDS.iter().filter_map(|f| Some(f.c_field?.name())).collect();
        struct_fields.sort_unstable();
        table_fields.sort_unstable();
        assert_eq!(struct_fields, table_fields);
        for field in FIELDS.iter().filter_map(|f| f.c_field) {
            let mut info = cpu_usage_task_info::BLANK;
            info.set(field, 7);
            let changed: Vec<(String, String)> = members(&info).into_iter().filter(|m| !blank.contains(m)).collect();
            let value = if field == CField::Deleted { "true" } else { "7" };
            assert_eq!(changed, [(field.name().to_owned(), value.to_owned())], "{field:?}");
        }
    }
}
