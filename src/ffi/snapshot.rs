//! The last completed window as plain C structs: `cpu_usage_snapshot`, in every
//! build (the minimal one included), for firmware that formats or sends the figures
//! itself.

use core::ffi::c_char;

use super::status::cpu_usage_status as St;
use super::{with_state, CPU_USAGE_NAME_BUF};
use crate::engine::{arith, Row, RowKind, NAME_LEN, REPORT_ROWS};

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
    /// The load smoothed over about 1 s, 10 s and 60 s; `UINT32_MAX` until known.
    pub load_avg: [u32; 3],
}

/// Copies the last completed window into `tasks` (up to `max_tasks` of them, in ID
/// order, the overflow bucket first if used and the idle task marked) and
/// `summary`. Returns how many tasks it wrote (`summary->tasks` says how many there
/// were); or `CPU_USAGE_ERR_NULL` (`summary` NULL, or `tasks` NULL with
/// `max_tasks` not 0) or `CPU_USAGE_ERR_NO_WINDOW`, writing nothing.
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
    let mut rows = [Row::EMPTY; REPORT_ROWS];
    let mut hz = 0;
    let Some(s) = with_state(|st| {
        hz = st.config.clock.hz;
        st.engine.read_window(&mut rows)
    }) else {
        return St::CPU_USAGE_ERR_NO_WINDOW.code();
    };
    let n = s.rows;
    if let Some(slot) = rows.get_mut(n) {
        *slot = Row::summary(RowKind::Other, s.other);
    }
    let all = rows.get_mut(..n + 1).unwrap_or(&mut []);
    arith::apportion(all);
    let us = |counts: u64| u32::try_from(arith::counts_to_us(counts, hz)).unwrap_or(u32::MAX);
    let pct_of = |kind| all.iter().find(|r| r.kind == kind).map_or(0, |r| u32::from(r.pct));
    let count_of = |kind| all.iter().find(|r| r.kind == kind).copied().unwrap_or(Row::EMPTY);
    let out: &mut [cpu_usage_task_info] = if max_tasks == 0 {
        &mut []
    } else {
        // SAFETY: non-NULL and writable for `max_tasks` elements by the contract.
        unsafe { core::slice::from_raw_parts_mut(tasks, max_tasks) }
    };
    let mut listed = 0u32;
    let mut written = 0usize;
    for row in all.iter().filter(|r| matches!(r.kind, RowKind::Task | RowKind::Idle | RowKind::Overflow)) {
        listed += 1;
        let Some(slot) = out.get_mut(written) else { continue };
        let mut name = [0 as c_char; CPU_USAGE_NAME_BUF];
        let text: &[u8] = if row.kind == RowKind::Overflow { b"(overflow)" } else { &row.name };
        for (dst, &src) in name.iter_mut().zip(text.iter().take(NAME_LEN)) {
            *dst = src as c_char;
        }
        *slot = cpu_usage_task_info {
            id: u32::from(row.id),
            name,
            usage: u32::from(row.pct),
            switches: u32::try_from(row.runs).unwrap_or(u32::MAX),
            longest_slice_us: us(u64::from(row.longest)),
            counts: u32::try_from(row.counts).unwrap_or(u32::MAX),
            deleted: row.deleted,
            idle: row.kind == RowKind::Idle,
        };
        written += 1;
    }
    let isr = count_of(RowKind::Interrupts);
    let idle = pct_of(RowKind::Idle);
    let sleep = pct_of(RowKind::Sleep);
    let info = cpu_usage_summary_info {
        window: s.window,
        window_us: us(s.length),
        tasks: listed,
        written: written as u32,
        interrupts: u32::from(isr.pct),
        interrupt_count: u32::try_from(isr.runs).unwrap_or(u32::MAX),
        longest_interrupt_us: us(u64::from(isr.longest)),
        sleep,
        other: pct_of(RowKind::Other),
        idle,
        load: if s.length == 0 { 0 } else { 10_000u32.saturating_sub(idle + sleep) },
        load_avg: s.load_avg.map(|a| {
            if a.len == 0 {
                u32::MAX
            } else {
                arith::div_rem(a.busy.min(a.len) * 10_000, a.len).0 as u32
            }
        }),
    };
    // SAFETY: non-NULL and writable by the contract.
    unsafe { *summary = info };
    written as i32
}
