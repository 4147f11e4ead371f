//! The report as text or JSON, written byte by byte into a [`Sink`].

use super::{apportion, counts_to_us, BadArgs, Options};
use crate::engine::{Row, RowKind, SlotStats, Summary, NAME_LEN};

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

struct Out<'s, S: Sink + ?Sized>(&'s mut S);

impl<S: Sink + ?Sized> Out<'_, S> {
    fn s(&mut self, text: &str) -> &mut Self {
        self.0.put(text.as_bytes());
        self
    }

    fn n(&mut self, value: u64) -> &mut Self {
        let mut digits = [0u8; 20];
        let mut i = digits.len();
        let mut v = value;
        loop {
            i -= 1;
            if let Some(d) = digits.get_mut(i) {
                *d = b'0' + (v % 10) as u8;
            }
            v /= 10;
            if v == 0 || i == 0 {
                break;
            }
        }
        self.0.put(digits.get(i..).unwrap_or(&[]));
        self
    }

    /// `value` right-aligned in `width` columns.
    fn n_right(&mut self, value: u64, width: usize) -> &mut Self {
        let mut len = 1;
        let mut v = value;
        while v >= 10 {
            v /= 10;
            len += 1;
        }
        self.pad(width.saturating_sub(len)).n(value)
    }

    fn pad(&mut self, spaces: usize) -> &mut Self {
        for _ in 0..spaces {
            self.0.put(b" ");
        }
        self
    }

    /// Hundredths of a percent as `12.34`.
    fn pct(&mut self, hundredths: u16) -> &mut Self {
        let h = u64::from(hundredths);
        self.n(h / 100).s(".");
        if h % 100 < 10 {
            self.s("0");
        }
        self.n(h % 100)
    }

    /// A usage cell for the table, right-aligned in 7 columns: `12.34%`, `<0.01%` for
    /// a non-zero share that rounds to nothing, `0` for none.
    fn pct_cell(&mut self, row: &Row) -> &mut Self {
        if row.counts == 0 {
            self.pad(6).s("0")
        } else if row.pct == 0 {
            self.s(" <0.01%")
        } else {
            let width = if row.pct >= 10_000 { 6 } else if row.pct >= 1_000 { 5 } else { 4 };
            self.pad(6 - width).pct(row.pct).s("%")
        }
    }

    /// A name for the table: printable ASCII as is, anything else as `?`, padded.
    fn name_cell(&mut self, name: &[u8; NAME_LEN], width: usize) -> &mut Self {
        let name = trim(name);
        if name.is_empty() {
            return self.s("(no name)").pad(width.saturating_sub(9));
        }
        for &b in name {
            let shown = if (0x20..0x7f).contains(&b) { b } else { b'?' };
            self.0.put(&[shown]);
        }
        self.pad(width.saturating_sub(name.len()))
    }

    /// A JSON string: quotes, backslashes and every byte outside printable ASCII
    /// escaped, so the line stays valid JSON and valid ASCII whatever the name holds.
    fn json_str(&mut self, bytes: &[u8]) -> &mut Self {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        self.s("\"");
        for &b in bytes {
            match b {
                b'"' => self.0.put(b"\\\""),
                b'\\' => self.0.put(b"\\\\"),
                0x20..=0x7e => self.0.put(&[b]),
                _ => {
                    let hi = HEX.get(usize::from(b >> 4)).copied().unwrap_or(b'0');
                    let lo = HEX.get(usize::from(b & 15)).copied().unwrap_or(b'0');
                    self.0.put(&[b'\\', b'u', b'0', b'0', hi, lo]);
                }
            }
        }
        self.s("\"")
    }

    /// Microseconds as `1234.567 ms` or, from 100 s on, `123.456 s`.
    fn duration(&mut self, us: u64) -> &mut Self {
        let (whole, frac, unit) =
            if us >= 100_000_000 { (us / 1_000_000, (us / 1_000) % 1_000, " s") } else { (us / 1_000, us % 1_000, " ms") };
        self.n(whole).s(".");
        if frac < 100 {
            self.s("0");
        }
        if frac < 10 {
            self.s("0");
        }
        self.n(frac).s(unit)
    }

    fn bool(&mut self, b: bool) -> &mut Self {
        self.s(if b { "true" } else { "false" })
    }
}

fn trim(name: &[u8; NAME_LEN]) -> &[u8] {
    let end = name.iter().position(|&b| b == 0).unwrap_or(NAME_LEN);
    name.get(..end).unwrap_or(&[])
}

/// Writes a report. `rows[..summary.rows]` hold the engine's rows; the rest of
/// `rows` must have room for the two summary lines ("other", and "deleted" since
/// start), which are appended here.
pub fn write_report(
    sink: &mut dyn Sink,
    opts: Options,
    clock: ClockInfo<'_>,
    summary: &Summary,
    rows: &mut [Row],
) {
    let mut n = summary.rows;
    let mut push = |row: Row| {
        if let Some(slot) = rows.get_mut(n) {
            *slot = row;
            n += 1;
        }
    };
    push(Row::summary(RowKind::Other, summary.other));
    if opts.cumulative {
        push(Row::summary(RowKind::Deleted, summary.deleted));
    }
    let rows = rows.get_mut(..n).unwrap_or(&mut []);
    apportion(rows);
    let idle = rows.iter().find(|r| r.kind == RowKind::Idle).copied();
    let idle_pct = idle.map_or(0, |r| r.pct);
    let find = |kind| rows.iter().find(|r| r.kind == kind).copied().unwrap_or(Row::summary(kind, 0));
    let other = find(RowKind::Other);
    let deleted = find(RowKind::Deleted);
    let us = counts_to_us(summary.length, clock.hz);
    let out = &mut Out(sink);

    if opts.json {
        out.s("{\"mode\":").s(if opts.cumulative { "\"cumulative\"" } else { "\"window\"" });
        if opts.cumulative {
            out.s(",\"windows\":").n(u64::from(summary.window)).s(",\"uptime_us\":").n(us);
            out.s(",\"uptime_counts\":").n(summary.length);
        } else {
            out.s(",\"window\":").n(u64::from(summary.window)).s(",\"window_us\":").n(us);
            out.s(",\"window_counts\":").n(summary.length);
        }
        out.s(",\"clock\":").json_str(clock.name.as_bytes()).s(",\"clock_hz\":").n(u64::from(clock.hz));
        json_slots(out, &summary.slots);
        out.s(",\"tasks\":[");
        let mut first = true;
        for r in rows.iter().filter(|r| matches!(r.kind, RowKind::Task | RowKind::Overflow)) {
            out.s(if first { "{\"id\":" } else { ",{\"id\":" });
            first = false;
            out.n(u64::from(r.id)).s(",\"name\":");
            if r.kind == RowKind::Overflow {
                out.json_str(b"(overflow)");
            } else {
                out.json_str(trim(&r.name));
            }
            out.s(",\"counts\":").n(r.counts).s(",\"usage_pct\":").pct(r.pct);
            out.s(",\"deleted\":").bool(r.deleted).s("}");
        }
        out.s("]");
        if opts.cumulative {
            out.s(",\"deleted_counts\":").n(deleted.counts).s(",\"deleted_pct\":").pct(deleted.pct);
        }
        out.s(",\"idle\":");
        match idle {
            Some(r) => {
                out.s("{\"id\":").n(u64::from(r.id)).s(",\"name\":").json_str(trim(&r.name));
                out.s(",\"counts\":").n(r.counts).s("}")
            }
            None => out.s("null"),
        };
        out.s(",\"other_counts\":").n(other.counts).s(",\"other_pct\":").pct(other.pct);
        out.s(",\"idle_pct\":").pct(idle_pct).s(",\"load_pct\":").pct(10_000u16.saturating_sub(idle_pct));
        out.s("}\n");
        return;
    }

    if opts.cumulative {
        out.s("CPU usage since start: ").duration(us).s(" (").n(u64::from(summary.window)).s(" windows)");
    } else {
        out.s("CPU usage, window #").n(u64::from(summary.window)).s(": ").duration(us);
    }
    out.s(", clock ").s(clock.name).s(" ").n(u64::from(clock.hz)).s(" Hz\n");
    out.s("  ID  TASK").pad(NAME_LEN.saturating_sub(4)).s("   USAGE\n");
    for r in rows.iter().filter(|r| r.kind == RowKind::Task) {
        out.n_right(u64::from(r.id), 4).s("  ").name_cell(&r.name, NAME_LEN).s(" ").pct_cell(r);
        if r.deleted {
            out.s("  deleted");
        }
        out.s("\n");
    }
    let label = |out: &mut Out<'_, dyn Sink + '_>, text: &str, row: &Row| {
        out.s("      ").name_cell(&pad_name(text), NAME_LEN).s(" ").pct_cell(row);
    };
    if let Some(r) = rows.iter().find(|r| r.kind == RowKind::Overflow) {
        out.n_right(0, 4).s("  ").name_cell(&pad_name("(overflow)"), NAME_LEN).s(" ").pct_cell(r);
        out.s("  ").n(u64::from(summary.slots.overflow_tasks)).s(" tasks share ID 0\n");
    }
    if opts.cumulative {
        label(out, "(deleted tasks)", &deleted);
        out.s("\n");
    }
    out.s("  ");
    for _ in 0..NAME_LEN + 14 {
        out.s("-");
    }
    out.s("\n");
    match idle {
        Some(r) => {
            out.n_right(u64::from(r.id), 4).s("  ").name_cell(&r.name, NAME_LEN).s(" ").pct_cell(&r).s("  idle\n")
        }
        None => out.s("      idle: not known until the scheduler starts\n"),
    };
    label(out, "other", &other);
    out.s("  not in any task\n");
    let load = Row { counts: 1, pct: 10_000u16.saturating_sub(idle_pct), ..Row::EMPTY };
    label(out, "load", &load);
    out.s("  100% - idle\n");
    let s = &summary.slots;
    out.s("IDs: ").n(u64::from(s.used)).s(" used, ").n(u64::from(s.quarantined)).s(" quarantined, ");
    out.n(u64::from(s.free)).s(" free of ").n(u64::from(s.capacity)).s("\n");
}

fn pad_name(text: &str) -> [u8; NAME_LEN] {
    let mut name = [0u8; NAME_LEN];
    for (dst, src) in name.iter_mut().zip(text.as_bytes()) {
        *dst = *src;
    }
    name
}

fn json_slots<S: Sink + ?Sized>(out: &mut Out<'_, S>, s: &SlotStats) {
    out.s(",\"slots\":{\"capacity\":").n(u64::from(s.capacity)).s(",\"used\":").n(u64::from(s.used));
    out.s(",\"quarantined\":").n(u64::from(s.quarantined)).s(",\"free\":").n(u64::from(s.free));
    out.s(",\"overflow_tasks\":").n(u64::from(s.overflow_tasks)).s("}");
}

/// The command's help.
pub fn write_usage(sink: &mut dyn Sink) {
    Out(sink).s(
        "usage: show_cpu_usage [-m] [-c] [-h]\n\
         \x20 (none)  CPU usage per task in the last completed window\n\
         \x20 -m      the same as one line of JSON\n\
         \x20 -c      since start instead of the last window\n\
         \x20 -h      this help\n",
    );
}

/// An argument the command does not know, then the help.
pub fn write_error(sink: &mut dyn Sink, bad: &BadArgs) {
    Out(sink).s("show_cpu_usage: unknown option ").json_str(bad.text()).s("\n");
    write_usage(sink);
}

/// No window has completed yet since accounting started.
pub fn write_no_window(sink: &mut dyn Sink, opts: Options, window_ms: u32) {
    let out = &mut Out(sink);
    if opts.json {
        out.s("{\"mode\":\"window\",\"error\":\"no completed window yet\",\"window_ms\":").n(u64::from(window_ms)).s("}\n");
    } else {
        out.s("no completed window yet: the first ends ").n(u64::from(window_ms)).s(" ms after start\n");
    }
}
