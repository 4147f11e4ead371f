//! The report as text or JSON, written byte by byte into a [`Sink`].
//!
//! Each line is a template whose `{x}` holes name a figure by one letter (the list is
//! on `Report::field`). One small interpreter, instead of a call per fragment and
//! per number, keeps both report formats in little flash, and the templates read like
//! the output they produce.

use super::{apportion, counts_to_us, div_rem, BadArgs, Options};
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
struct Out<'s>(&'s mut dyn Sink);

impl Out<'_> {
    fn put(&mut self, bytes: &[u8]) {
        self.0.put(bytes);
    }

    // Not inlined: a call here is smaller than the virtual call it makes.
    #[inline(never)]
    fn byte(&mut self, b: u8) {
        self.0.put(&[b]);
    }

    /// `value` in decimal, right-aligned in `width` columns filled with `fill`.
    /// Digits go out from the highest, so no buffer is needed.
    #[inline(never)]
    fn num(&mut self, value: u64, width: usize, fill: u8) {
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
    }

    /// Hundredths of a percent as `12.34`, the whole part right-aligned in `width`.
    fn pct(&mut self, hundredths: u16, width: usize) {
        let (whole, frac) = div_rem(u64::from(hundredths), 100);
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
            self.pct(row.pct, 3);
            self.byte(b'%');
        }
    }

    /// Microseconds as `1234.567 ms` or, from 100 s on, `123.456 s`.
    fn duration(&mut self, us: u64) {
        let (ms, us_frac) = div_rem(us, 1_000);
        let (whole, frac, unit) = if us >= 100_000_000 {
            let (secs, ms_frac) = div_rem(ms, 1_000);
            (secs, ms_frac, " s")
        } else {
            (ms, us_frac, " ms")
        };
        self.num(whole, 0, b' ');
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
    fn json_str(&mut self, bytes: &[u8]) {
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

/// One report being written: where to, and the figures its templates show.
struct Report<'s> {
    out: Out<'s>,
    summary: &'s Summary,
    clock: ClockInfo<'s>,
    /// The length covered, in microseconds.
    us: u64,
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
    ///   tasks sharing ID 0; `-` the table's rule;
    /// - of `row`: `i` ID, `n` name as JSON, `c` counts, `p` share, `d` deleted
    ///   (`true`/`false`); and as table columns: `I` ID, `N` name, `P` usage, `D`
    ///   `  deleted` or nothing.
    #[inline(never)]
    fn field(&mut self, code: u8, row: &Row) {
        let s = self.summary;
        let number = match code {
            b'w' => u64::from(s.window),
            b'l' => s.length,
            b't' => self.us,
            b'h' => u64::from(self.clock.hz),
            b'm' => u64::from(s.slots.capacity),
            b'u' => u64::from(s.slots.used),
            b'q' => u64::from(s.slots.quarantined),
            b'f' => u64::from(s.slots.free),
            b'o' => u64::from(s.slots.overflow_tasks),
            b'i' => u64::from(row.id),
            b'c' => row.counts,
            b'I' => return self.out.num(u64::from(row.id), 4, b' '),
            b'T' => return self.out.duration(self.us),
            b'k' => return self.out.json_str(self.clock.name.as_bytes()),
            b'K' => return self.out.put(self.clock.name.as_bytes()),
            b'-' => return (0..NAME_LEN + 14).for_each(|_| self.out.byte(b'-')),
            b'n' => return self.out.json_str(name_of(row)),
            b'N' => return self.out.name_cell(name_of(row)),
            b'p' => return self.out.pct(row.pct, 0),
            b'P' => return self.out.usage(row),
            b'd' => return self.out.put(if row.deleted { b"true" } else { b"false" }),
            b'D' => return self.out.put(if row.deleted { b"  deleted" } else { b"" }),
            _ => return,
        };
        self.out.num(number, 0, b' ');
    }
}

/// The first row of a kind (not inlined: one search loop in flash for four uses).
#[inline(never)]
fn find(rows: &[Row], kind: RowKind) -> Option<&Row> {
    rows.iter().find(|r| r.kind == kind)
}

/// Writes a report. `rows[..summary.rows]` hold the engine's rows; the rest of
/// `rows` must have room for the two summary lines ("other", and "deleted" since
/// start), which are appended here.
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
    apportion(rows);
    let rows: &[Row] = rows;
    let none = &Row::EMPTY;
    let other = find(rows, RowKind::Other).unwrap_or(&NO_OTHER);
    let deleted = find(rows, RowKind::Deleted).unwrap_or(&NO_DELETED);
    let idle = find(rows, RowKind::Idle);
    // "load" is 100% - idle, and its cell follows the rule of every other: `0` when
    // nothing but idle ran (or no time passed), `<0.01%` when too little to show.
    let busy = summary.length.saturating_sub(idle.map_or(0, |r| r.counts));
    let load_pct = if busy == 0 { 0 } else { 10_000u16.saturating_sub(idle.map_or(0, |r| r.pct)) };
    let load = Row { counts: busy, pct: load_pct, name: LOAD, ..Row::EMPTY };
    let us = counts_to_us(summary.length, clock.hz);
    let r = &mut Report { out: Out(sink), summary, clock, us };

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
        const TASK: &str = ",{\"id\":{i},\"name\":{n},\"counts\":{c},\"usage_pct\":{p},\"deleted\":{d}}";
        let mut comma = 1; // the first task goes without its leading comma
        for row in rows.iter().filter(|r| matches!(r.kind, RowKind::Task | RowKind::Overflow)) {
            r.fmt(TASK.get(comma..).unwrap_or(TASK), row);
            comma = 0;
        }
        if opts.cumulative {
            r.fmt("],\"deleted_counts\":{c},\"deleted_pct\":{p}", deleted);
        } else {
            r.out.put(b"]");
        }
        match idle {
            Some(row) => r.fmt(",\"idle\":{\"id\":{i},\"name\":{n},\"counts\":{c}}", row),
            None => r.out.put(b",\"idle\":null"),
        }
        r.fmt(",\"other_counts\":{c},\"other_pct\":{p}", other);
        r.fmt(",\"idle_pct\":{p}", idle.unwrap_or(none));
        r.fmt(",\"load_pct\":{p}}\n", &load);
        return;
    }

    r.fmt(
        if opts.cumulative { "CPU usage since start: {T} ({w} windows)" } else { "CPU usage, window #{w}: {T}" },
        none,
    );
    r.fmt(", clock {K} {h} Hz\n  ID  {N}   USAGE\n", &HEADING);
    for row in rows.iter().filter(|r| r.kind == RowKind::Task) {
        r.fmt("{I}  {N} {P}{D}\n", row);
    }
    if let Some(row) = find(rows, RowKind::Overflow) {
        r.fmt("   0  {N} {P}  tasks without an ID: {o}\n", row);
    }
    if opts.cumulative {
        r.fmt("      {N} {P}\n", deleted);
    }
    r.fmt("  {-}\n", none);
    match idle {
        Some(row) => r.fmt("{I}  {N} {P}  idle\n", row),
        None => r.out.put(b"      idle: not known until the scheduler starts\n"),
    }
    r.fmt("      {N} {P}  not in any task\n", other);
    r.fmt("      {N} {P}  100% - idle\nIDs: {u} used, {q} quarantined, {f} free of {m}\n", &load);
}

/// The command's help.
pub fn write_usage(sink: &mut dyn Sink) {
    sink.put(
        b"usage: show_cpu_usage [-m] [-c] [-h]\n\
          \x20 (none)  CPU usage per task in the last completed window\n\
          \x20 -m      the same as one line of JSON\n\
          \x20 -c      since start instead of the last window\n\
          \x20 -h      this help\n",
    );
}

/// An argument the command does not know, then the help.
pub fn write_error(sink: &mut dyn Sink, bad: &BadArgs) {
    let out = &mut Out(sink);
    out.put(b"show_cpu_usage: unknown option ");
    out.json_str(bad.text());
    out.put(b"\n");
    write_usage(sink);
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
