//! The report as text or JSON, written byte by byte into a [`Sink`].
//!
//! Each line is a template whose `{x}` holes name a figure by one letter (the list is
//! on `Report::field`). One small interpreter, instead of a call per fragment and
//! per number, keeps both report formats in little flash, and the templates read like
//! the output they produce.
//!
//! `-s` and `-n` reorder and cut the rows in place, before the apportionment, so that
//! the lines shown (the "more" line included) are what adds up to 100.00%: each line
//! is then within a hundredth of its exact share, which a sum of rounded shares would
//! not be.

use super::args::Problem;
use super::{apportion, counts_to_us, div_rem, pct_of, BadArgs, Options};
use crate::engine::{Row, RowKind, Summary, NAME_LEN};

/// Where formatted bytes go: a caller's buffer, or the output callback line by line.
pub trait Sink {
    /// Appends bytes.
    fn put(&mut self, bytes: &[u8]);
}

/// The clock the figures were counted with.
#[derive(Clone, Copy, Debug)]
pub struct ClockInfo<'a> {
    /// Counts per second; 0 if no clock is set.
    pub hz: u32,
    /// Its name in the report.
    pub name: &'a str,
}

/// The sink with the number and text formatting the figures need.
pub(super) struct Out<'s>(pub(super) &'s mut dyn Sink);

impl Out<'_> {
    pub(super) fn put(&mut self, bytes: &[u8]) {
        self.0.put(bytes);
    }

    // Not inlined: a call here is smaller than the virtual call it makes.
    #[inline(never)]
    fn byte(&mut self, b: u8) {
        self.0.put(&[b]);
    }

    /// `value` in decimal, right-aligned in `width` columns filled with `fill`;
    /// returns the columns written. Digits go out from the highest, so no buffer is
    /// needed.
    #[inline(never)]
    pub(super) fn num(&mut self, value: u64, width: usize, fill: u8) -> usize {
        let tenth = div_rem(value, 10).0;
        let mut unit: u64 = 1;
        let mut len = 1;
        while unit <= tenth {
            unit *= 10;
            len += 1;
        }
        for _ in len..width {
            self.byte(fill);
        }
        let mut rest = value;
        loop {
            let (digit, r) = div_rem(rest, unit);
            self.byte(b'0' + digit as u8);
            rest = r;
            if unit < 10 {
                break;
            }
            unit = div_rem(unit, 10).0;
        }
        len.max(width)
    }

    /// Hundredths of a percent as `12.34`, the whole part right-aligned in `width`.
    pub(super) fn pct(&mut self, hundredths: u64, width: usize) {
        let (whole, frac) = div_rem(hundredths, 100);
        self.num(whole, width, b' ');
        self.byte(b'.');
        self.num(frac, 2, b'0');
    }

    /// A usage cell for the table, right-aligned in 7 columns: `12.34%`, `<0.01%` for
    /// a non-zero share that rounds to nothing, `0` for none.
    fn usage(&mut self, row: &Row) {
        if row.counts == 0 {
            self.num(0, 7, b' ');
        } else if row.pct == 0 {
            self.put(b" <0.01%");
        } else {
            self.pct(u64::from(row.pct), 3);
            self.byte(b'%');
        }
    }

    /// Microseconds as `1234.567 ms` or, from 100 s on, `123.456 s`, right-aligned
    /// in `width` columns.
    fn duration(&mut self, us: u64, width: usize) {
        let (ms, us_frac) = div_rem(us, 1_000);
        let (whole, frac, unit) = if us >= 100_000_000 {
            let (secs, ms_frac) = div_rem(ms, 1_000);
            (secs, ms_frac, " s")
        } else {
            (ms, us_frac, " ms")
        };
        self.num(whole, width.saturating_sub(4 + unit.len()), b' ');
        self.byte(b'.');
        self.num(frac, 3, b'0');
        self.put(unit.as_bytes());
    }

    /// A name for the table: printable ASCII as is, anything else as `?`, cut to and
    /// padded to `NAME_LEN` columns; `(no name)` if empty.
    fn name_cell(&mut self, name: &[u8]) {
        let name = trim(name);
        let shown = if name.is_empty() { 9 } else { name.len() };
        if name.is_empty() {
            self.put(b"(no name)");
        }
        for &b in name {
            self.byte(if (0x20..0x7f).contains(&b) { b } else { b'?' });
        }
        for _ in shown..NAME_LEN {
            self.byte(b' ');
        }
    }

    /// A JSON string: quotes, backslashes and every byte outside printable ASCII
    /// escaped, so the line stays valid JSON and valid ASCII whatever the name holds.
    pub(super) fn json_str(&mut self, bytes: &[u8]) {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        self.byte(b'"');
        for &b in bytes {
            match b {
                b'"' | b'\\' => self.put(&[b'\\', b]),
                0x20..=0x7e => self.byte(b),
                _ => {
                    let hi = HEX.get(usize::from(b >> 4)).copied().unwrap_or(b'0');
                    let lo = HEX.get(usize::from(b & 15)).copied().unwrap_or(b'0');
                    self.put(&[b'\\', b'u', b'0', b'0', hi, lo]);
                }
            }
        }
        self.byte(b'"');
    }
}

/// A name up to its first NUL, at most `NAME_LEN` bytes.
fn trim(name: &[u8]) -> &[u8] {
    let name = name.get(..NAME_LEN).unwrap_or(name);
    let end = name.iter().position(|&b| b == 0).unwrap_or(name.len());
    name.get(..end).unwrap_or(&[])
}

/// A label as a row's name (cut to `NAME_LEN`, as the table shows it), at compile
/// time.
const fn named(label: &str) -> [u8; NAME_LEN] {
    let mut name = [0; NAME_LEN];
    let mut i = 0;
    while i < label.len() && i < NAME_LEN {
        name[i] = label.as_bytes()[i];
        i += 1;
    }
    name
}

/// The table's heading, in a row so that it goes through the name column.
const HEADING: Row = Row { name: named("TASK"), ..Row::EMPTY };
/// The name of the "load" line (not a row of the engine's, so not known by its kind).
const LOAD: [u8; NAME_LEN] = named("load");

/// A row's name in the report: the summary lines are named by their label (which
/// the table cuts to `NAME_LEN`, and JSON does not).
fn name_of(row: &Row) -> &[u8] {
    match row.kind {
        RowKind::Overflow => b"(overflow)",
        RowKind::Other => b"other",
        RowKind::Interrupts => b"interrupts",
        RowKind::Sleep => b"sleep",
        RowKind::Deleted => b"(deleted tasks)",
        RowKind::Task | RowKind::Idle => trim(&row.name),
    }
}

/// Summary lines for a caller's array that had no room for them: shown as zero.
const NO_OTHER: Row = Row::summary(RowKind::Other, 0);
const NO_DELETED: Row = Row::summary(RowKind::Deleted, 0);
const NO_INTERRUPTS: Row = Row::summary(RowKind::Interrupts, 0);
const NO_SLEEP: Row = Row::summary(RowKind::Sleep, 0);

/// Extra columns of `-l`: runs (`  ` and 8) and longest run (`  ` and 11).
const LONG_COLUMNS: usize = 23;

/// One report being written: where to, and the figures its templates show.
struct Report<'s> {
    out: Out<'s>,
    summary: &'s Summary,
    clock: ClockInfo<'s>,
    opts: Options,
    /// The length covered, in microseconds.
    us: u64,
    /// Tasks summed on the "more" line (`-n`).
    more: u32,
}

impl Report<'_> {
    /// Writes `template`, each `{x}` replaced by figure `x` (see `field`) of the
    /// report or of `row`. (Not inlined, nor is `field`: one copy for every line.)
    #[inline(never)]
    fn fmt(&mut self, template: &str, row: &Row) {
        let mut rest = template.as_bytes();
        let mut i = 0;
        while let Some(&b) = rest.get(i) {
            if let (b'{', Some(&code), Some(b'}')) = (b, rest.get(i + 1), rest.get(i + 2)) {
                self.out.put(rest.get(..i).unwrap_or(&[]));
                self.field(code, row);
                rest = rest.get(i + 3..).unwrap_or(&[]);
                i = 0;
            } else {
                i += 1;
            }
        }
        self.out.put(rest);
    }

    /// Writes the figure named `code`:
    /// - of the report: `w` window number (windows completed, since start), `l` length
    ///   in counts, `t` in microseconds, `T` as a duration; `k` clock name as JSON, `K`
    ///   as is, `h` its Hz; IDs `m` in all, `u` used, `q` quarantined, `f` free, `o`
    ///   tasks sharing ID 0; `j` tasks on the "more" line, `M` that line's label as a
    ///   name cell; `-` the table's rule;
    /// - of `row`: `i` ID, `n` name as JSON, `c` counts, `p` share, `d` deleted
    ///   (`true`/`false`), `r` runs, `x` longest run in microseconds; and, `null` when
    ///   there is none, `W` the longest run's window, `e` the peak window's share and
    ///   `v` its number, `a` the share of a smoothed load (a row whose `counts` are its
    ///   length); as table columns: `I` ID, `N` name, `P` usage, `D` `  deleted` or
    ///   nothing, `R` runs, `L` longest run, `X` longest run unaligned, `A` a smoothed
    ///   load or `-`.
    #[inline(never)]
    fn field(&mut self, code: u8, row: &Row) {
        let s = self.summary;
        let out = &mut self.out;
        let number = match code {
            b'w' => Some(u64::from(s.window)),
            b'l' => Some(s.length),
            b't' => Some(self.us),
            b'h' => Some(u64::from(self.clock.hz)),
            b'm' => Some(u64::from(s.slots.capacity)),
            b'u' => Some(u64::from(s.slots.used)),
            b'q' => Some(u64::from(s.slots.quarantined)),
            b'f' => Some(u64::from(s.slots.free)),
            b'o' => Some(u64::from(s.slots.overflow_tasks)),
            b'j' => Some(u64::from(self.more)),
            b'i' => Some(u64::from(row.id)),
            b'c' => Some(row.counts),
            b'r' => Some(row.runs),
            b'x' => Some(counts_to_us(u64::from(row.longest), self.clock.hz)),
            b'W' | b'e' | b'v' | b'a' => {
                let known = match code {
                    b'W' => row.longest != 0,
                    b'a' => row.counts != 0,
                    _ => row.peak_len != 0,
                };
                match code {
                    _ if !known => out.put(b"null"),
                    b'e' => out.pct(u64::from(pct_of(u64::from(row.peak), u64::from(row.peak_len))), 0),
                    b'a' => out.pct(u64::from(row.pct), 0),
                    _ => {}
                }
                match code {
                    b'W' if known => Some(u64::from(row.longest_window)),
                    b'v' if known => Some(u64::from(row.peak_window)),
                    _ => None,
                }
            }
            b'I' => {
                out.num(u64::from(row.id), 4, b' ');
                None
            }
            b'R' => {
                out.put(b"  ");
                out.num(row.runs, 8, b' ');
                None
            }
            b'L' | b'X' => {
                let width = if code == b'L' { 11 } else { 0 };
                if code == b'L' {
                    out.put(b"  ");
                }
                // No run at all is `0`, as a usage cell with no time; a run too short
                // for a microsecond is `0.000 ms`.
                if row.longest == 0 {
                    out.num(0, width, b' ');
                } else {
                    out.duration(counts_to_us(u64::from(row.longest), self.clock.hz), width);
                }
                None
            }
            b'A' => {
                out.byte(b' ');
                if row.counts == 0 {
                    out.byte(b'-');
                } else {
                    out.pct(u64::from(row.pct), 2);
                    out.byte(b'%');
                }
                None
            }
            b'M' => {
                out.byte(b'(');
                let digits = out.num(u64::from(self.more), 0, b' ');
                let label: &[u8] = if self.more == 1 { b" more task)" } else { b" more tasks)" };
                out.put(label);
                // Not cut to the name column, unlike a name: the count must show.
                for _ in (1 + digits + label.len())..NAME_LEN {
                    out.byte(b' ');
                }
                None
            }
            b'T' => {
                out.duration(self.us, 0);
                None
            }
            b'k' => {
                out.json_str(self.clock.name.as_bytes());
                None
            }
            b'K' => {
                out.put(self.clock.name.as_bytes());
                None
            }
            b'-' => {
                let extra = if self.opts.long { LONG_COLUMNS } else { 0 };
                (0..NAME_LEN + 14 + extra).for_each(|_| out.byte(b'-'));
                None
            }
            b'n' => {
                out.json_str(name_of(row));
                None
            }
            b'N' => {
                out.name_cell(name_of(row));
                None
            }
            b'p' => {
                out.pct(u64::from(row.pct), 0);
                None
            }
            b'P' => {
                out.usage(row);
                None
            }
            b'd' => {
                out.put(if row.deleted { b"true" } else { b"false" });
                None
            }
            b'D' => {
                out.put(if row.deleted { b"  deleted" } else { b"" });
                None
            }
            _ => None,
        };
        if let Some(n) = number {
            out.num(n, 0, b' ');
        }
    }

    /// The smoothed loads, each through its template as a row whose counts are its
    /// length (0: not known yet).
    #[inline(never)]
    fn averages(&mut self, templates: [&str; 3]) {
        for (a, template) in self.summary.load_avg.iter().zip(templates) {
            self.fmt(template, &Row { counts: a.len, pct: pct_of(a.busy, a.len), ..Row::EMPTY });
        }
    }

    /// A task's cells after its name: usage, and with `-l` its runs and longest run
    /// (since start, with that run's window and the task's busiest window).
    fn cells(&mut self, row: &Row) {
        self.fmt(" {P}", row);
        if self.opts.long {
            self.fmt("{R}{L}", row);
            if self.opts.cumulative {
                if row.longest != 0 {
                    self.fmt(" in #{W}", row);
                }
                if row.peak_len != 0 {
                    self.fmt("  peak {e}% in #{v}", row);
                }
            }
        }
    }
}

/// The first row of a kind (not inlined: one search loop in flash for every use).
#[inline(never)]
fn find(rows: &[Row], kind: RowKind) -> Option<&Row> {
    rows.iter().find(|r| r.kind == kind)
}

/// Where a row goes when sorting: the engine's order of kinds, with the idle task
/// ahead of the others (it is shown apart anyway).
fn rank(kind: RowKind) -> u8 {
    match kind {
        RowKind::Overflow => 0,
        RowKind::Idle => 1,
        RowKind::Task => 2,
        RowKind::Interrupts => 3,
        RowKind::Sleep => 4,
        RowKind::Other => 5,
        RowKind::Deleted => 6,
    }
}

/// `a` goes before `b`: by kind, then tasks by usage, largest first, then by ID.
fn before(a: &Row, b: &Row) -> bool {
    let (ra, rb) = (rank(a.kind), rank(b.kind));
    if ra != rb {
        return ra < rb;
    }
    a.counts > b.counts || (a.counts == b.counts && a.id < b.id)
}

/// `-s`: the task rows by usage. An insertion sort in place: no allocation, no
/// panic path, and the rows arrive almost in order of kind already; it is
/// quadratic, like the apportionment, and runs outside the critical section.
#[inline(never)]
fn sort_tasks(rows: &mut [Row]) {
    for i in 1..rows.len() {
        let mut j = i;
        while let (Some(a), Some(b)) = (j.checked_sub(1).and_then(|k| rows.get(k)), rows.get(j)) {
            if !before(b, a) {
                break;
            }
            j -= 1;
            swap(rows, j, j + 1);
        }
    }
}

/// Swaps rows `i` and `j > i`, if both are there. (Not inlined: one copy of a row
/// swap for the sort and the cut.)
#[inline(never)]
fn swap(rows: &mut [Row], i: usize, j: usize) {
    if let Some((first, rest)) = rows.get_mut(i..=j).and_then(|r| r.split_first_mut()) {
        if let Some(last) = rest.last_mut() {
            core::mem::swap(first, last);
        }
    }
}

/// `-n top`: keeps the first `top` task rows (and every other row) at the front of
/// `rows`, in order, and sums the tasks after them into one task row right after
/// the rows kept (only its counts tell: the "more" line shows nothing else). Returns
/// the rows kept and the tasks summed.
#[inline(never)]
fn cut(rows: &mut [Row], top: Option<u16>) -> (usize, u32) {
    let Some(top) = top else { return (rows.len(), 0) };
    let (mut kept, mut tasks, mut summed, mut counts) = (0, 0u16, 0u32, 0u64);
    for i in 0..rows.len() {
        let Some(row) = rows.get(i) else { break };
        if row.kind == RowKind::Task {
            if tasks >= top {
                counts = counts.saturating_add(row.counts);
                summed += 1;
                continue;
            }
            tasks += 1;
        }
        // Rows kept move down by swapping with the rows summed, which are done with:
        // a copy within the slice would link a memmove.
        swap(rows, kept, i);
        kept += 1;
    }
    // What is left past the rows kept is the task rows summed: the first of them
    // becomes the sum.
    if let Some(row) = rows.get_mut(kept) {
        row.counts = counts;
    }
    (kept, summed)
}

/// Writes a report. `rows[..summary.rows]` hold the engine's rows; the rest of
/// `rows` must have room for the two summary lines ("other", and "deleted" since
/// start), which are appended here. The rows are reordered (`-s`) and cut (`-n`) in
/// place.
pub fn write_report(sink: &mut dyn Sink, opts: Options, clock: ClockInfo<'_>, summary: &Summary, rows: &mut [Row]) {
    // The summary lines take part in the apportionment, so that all lines add up to
    // exactly 100%.
    let mut n = summary.rows;
    let mut append = |kind, counts| {
        if let Some(r) = rows.get_mut(n) {
            *r = Row::summary(kind, counts);
            n += 1;
        }
    };
    append(RowKind::Other, summary.other);
    if opts.cumulative {
        append(RowKind::Deleted, summary.deleted);
    }
    let rows = rows.get_mut(..n).unwrap_or(&mut []);
    if opts.sort {
        sort_tasks(rows);
    }
    let (kept, more) = cut(rows, opts.top);
    let rows = rows.get_mut(..kept + usize::from(more != 0)).unwrap_or(&mut []);
    apportion(rows);
    let rows: &[Row] = rows;
    let more_row = rows.get(kept).filter(|_| more != 0);
    let rows = rows.get(..kept).unwrap_or(rows);
    let none = &Row::EMPTY;
    let other = find(rows, RowKind::Other).unwrap_or(&NO_OTHER);
    let deleted = find(rows, RowKind::Deleted).unwrap_or(&NO_DELETED);
    let interrupts = find(rows, RowKind::Interrupts).unwrap_or(&NO_INTERRUPTS);
    let sleep = find(rows, RowKind::Sleep).unwrap_or(&NO_SLEEP);
    let idle = find(rows, RowKind::Idle);
    let idle_or_none = idle.unwrap_or(none);
    // "load" is 100% - idle - sleep, from the shares shown so that the line says
    // exactly that, and its cell follows the rule of every other: `0` when nothing
    // else ran (or no time passed), `<0.01%` when too little to show.
    let busy = summary.length.saturating_sub(idle_or_none.counts).saturating_sub(sleep.counts);
    let load_pct = if busy == 0 { 0 } else { 10_000u16.saturating_sub(idle_or_none.pct).saturating_sub(sleep.pct) };
    let load = Row { counts: busy, pct: load_pct, name: LOAD, ..Row::EMPTY };
    let us = counts_to_us(summary.length, clock.hz);
    let r = &mut Report { out: Out(sink), summary, clock, opts, us, more };

    if opts.json {
        r.fmt(
            if opts.cumulative {
                "{\"mode\":\"cumulative\",\"windows\":{w},\"uptime_us\":{t},\"uptime_counts\":{l}"
            } else {
                "{\"mode\":\"window\",\"window\":{w},\"window_us\":{t},\"window_counts\":{l}"
            },
            none,
        );
        r.fmt(
            ",\"clock\":{k},\"clock_hz\":{h},\"slots\":{\"capacity\":{m},\"used\":{u},\
             \"quarantined\":{q},\"free\":{f},\"overflow_tasks\":{o}},\"tasks\":[",
            none,
        );
        // What every task object ends with, the idle task's included.
        let tail = if opts.cumulative {
            ",\"switches\":{r},\"longest_slice_us\":{x},\"longest_slice_window\":{W},\
             \"peak_pct\":{e},\"peak_window\":{v}}"
        } else {
            ",\"switches\":{r},\"longest_slice_us\":{x}}"
        };
        const TASK: &str = ",{\"id\":{i},\"name\":{n},\"counts\":{c},\"usage_pct\":{p},\"deleted\":{d}";
        let mut comma = 1; // the first task goes without its leading comma
        for row in rows.iter().filter(|r| matches!(r.kind, RowKind::Task | RowKind::Overflow)) {
            r.fmt(TASK.get(comma..).unwrap_or(TASK), row);
            r.fmt(tail, row);
            comma = 0;
        }
        r.out.put(b"]");
        if let Some(row) = more_row {
            r.fmt(",\"more_tasks\":{\"count\":{j},\"counts\":{c},\"usage_pct\":{p}}", row);
        }
        if opts.cumulative {
            r.fmt(",\"deleted_counts\":{c},\"deleted_pct\":{p}", deleted);
        }
        match idle {
            Some(row) => {
                r.fmt(",\"idle\":{\"id\":{i},\"name\":{n},\"counts\":{c}", row);
                r.fmt(tail, row);
            }
            None => r.out.put(b",\"idle\":null"),
        }
        r.fmt(
            ",\"interrupts_counts\":{c},\"interrupts_pct\":{p},\"interrupts\":{r},\"longest_interrupt_us\":{x}",
            interrupts,
        );
        r.fmt(",\"sleep_counts\":{c},\"sleep_pct\":{p},\"sleeps\":{r}", sleep);
        r.fmt(",\"other_counts\":{c},\"other_pct\":{p}", other);
        r.fmt(",\"idle_pct\":{p}", idle_or_none);
        r.fmt(",\"load_pct\":{p}", &load);
        r.averages([",\"load_avg_pct\":[{a}", ",{a}", ",{a}]}\n"]);
        return;
    }

    r.fmt(
        if opts.cumulative { "CPU usage since start: {T} ({w} windows)" } else { "CPU usage, window #{w}: {T}" },
        none,
    );
    r.fmt(", clock {K} {h} Hz\n  ID  {N}   USAGE", &HEADING);
    r.out.put(if opts.long { b"      RUNS      LONGEST\n" } else { b"\n" });
    for row in rows.iter().filter(|r| r.kind == RowKind::Task) {
        r.fmt("{I}  {N}", row);
        r.cells(row);
        r.fmt("{D}\n", row);
    }
    if let Some(row) = more_row {
        r.fmt("      {M} {P}\n", row);
    }
    if let Some(row) = find(rows, RowKind::Overflow) {
        r.fmt("   0  {N}", row);
        r.cells(row);
        r.fmt("  tasks without an ID: {o}\n", row);
    }
    if opts.cumulative {
        r.fmt("      {N} {P}\n", deleted);
    }
    r.fmt("  {-}\n", none);
    match idle {
        Some(row) => {
            r.fmt("{I}  {N}", row);
            r.cells(row);
            r.out.put(b"  idle\n");
        }
        None => r.out.put(b"      idle: not known until the scheduler starts\n"),
    }
    r.fmt("      {N} {P}  {r} interrupts, longest {X}\n", interrupts);
    r.fmt("      {N} {P}  asleep in tickless idle\n", sleep);
    r.fmt("      {N} {P}  kernel and unattributed\n", other);
    r.fmt("      {N} {P}  100% - idle - sleep\n", &load);
    r.averages(["load avg   1 s{A}", "  10 s{A}", "  60 s{A}\n"]);
    r.fmt("IDs: {u} used, {q} quarantined, {f} free of {m}\n", none);
}

/// The command's help.
pub fn write_usage(sink: &mut dyn Sink) {
    sink.put(
        b"usage: show_cpu_usage [-m] [-c] [-s] [-n N] [-l] [-w MS] [-f [N]] [-h]\n\
          \x20 (none)  CPU usage per task in the last completed window\n\
          \x20 -m      the same as one line of JSON\n\
          \x20 -c      since start instead of the last window\n\
          \x20 -s      tasks sorted by usage, largest first\n\
          \x20 -n N    only the first N tasks, the others summed on one line\n\
          \x20 -l      runs (times switched in) and longest run of each task\n\
          \x20 -w MS   windows of MS ms (1 to 3600000), from the window under way\n\
          \x20 -f [N]  follow: a report per completed window, N of them or until input\n\
          \x20 -h      this help\n",
    );
}

/// What is wrong with an argument, on one line after `command`: `unknown` and the
/// argument when it is no option, else the option, what is wrong with its value and
/// the values accepted.
pub(super) fn write_problem(out: &mut Out<'_>, command: &[u8], unknown: &[u8], bad: &BadArgs) {
    out.put(command);
    if bad.problem == Problem::Unknown {
        out.put(unknown);
        out.json_str(bad.text());
    } else {
        out.put(bad.option.as_bytes());
        if bad.problem == Problem::MissingValue {
            out.put(b": missing value");
        } else {
            out.byte(b' ');
            out.json_str(bad.text());
            out.put(if bad.problem == Problem::NotANumber { b": not a number" } else { b": out of range" });
        }
        let [lo, hi] = bad.range;
        out.put(b" (");
        out.num(u64::from(lo), 0, b' ');
        out.put(b" to ");
        out.num(u64::from(hi), 0, b' ');
        out.byte(b')');
    }
    out.byte(b'\n');
}

/// What is wrong with the arguments, then the help.
pub fn write_error(sink: &mut dyn Sink, bad: &BadArgs) {
    write_problem(&mut Out(sink), b"show_cpu_usage: ", b"unknown option ", bad);
    write_usage(sink);
}

/// `-w`: the new window length was applied.
pub fn write_window_set(sink: &mut dyn Sink, ms: u32) {
    let out = &mut Out(sink);
    out.put(b"window set to ");
    out.num(u64::from(ms), 0, b' ');
    out.put(b" ms (from the window under way)\n");
}

/// No window has completed yet since accounting started.
pub fn write_no_window(sink: &mut dyn Sink, opts: Options, window_ms: u32) {
    let out = &mut Out(sink);
    let (before, after): (&[u8], &[u8]) = if opts.json {
        (b"{\"mode\":\"window\",\"error\":\"no completed window yet\",\"window_ms\":", b"}\n")
    } else {
        (b"no completed window yet: the first ends ", b" ms after start\n")
    };
    out.put(before);
    out.num(u64::from(window_ms), 0, b' ');
    out.put(after);
}
