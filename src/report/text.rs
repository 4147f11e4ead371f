//! The report as text or JSON, written a line at a time into a [`Sink`] straight from
//! the engine's lines ([`Source`]): no report holds all of its lines.
//!
//! A window's report in ID order walks the lines once: it prints the tasks and takes
//! the survey on the way (the ID pool, the summed lines, idle, interrupts: all printed
//! after the tasks). A sorted report takes the survey in a walk of its own, then
//! prints the tasks a few at a time: each walk picks the next [`BATCH`] busiest after
//! those printed. A since-start report first sums its length (the total its shares are
//! of). Every walk reads the same figures, or the source says they changed and the
//! report starts again. Each cell (a number, a share, a duration) goes out in one
//! piece ([`Cell`]).
//!
//! Shares are handed out in the engine's order of lines, whatever the order printed
//! ([`Shares`]): so a task reads the same in every report of a window (sorted or not,
//! text or JSON, or `cpu_usage_snapshot`), every line is within a hundredth of its
//! exact share, the lines add up to exactly 100.00%, and a line that sums tasks (the
//! "more" and deleted lines) is the sum of their shares.

use core::mem::MaybeUninit;

use super::args::Problem;
use super::{counts_to_us, div_rem, pct_of, BadArgs, Options};
use crate::engine::arith::{ShareWalk, Shares};
use crate::engine::{Header, Line, Row, RowKind, Seat, SlotStats, INTERRUPTS_AT, LINES, MAX_TASKS, NAME_LEN};

/// Where formatted bytes go: a caller's buffer, or the output callback line by line.
pub trait Sink {
    /// Appends bytes.
    fn put(&mut self, bytes: &[u8]);

    /// The report written so far is void (its figures changed under it) and is
    /// written again: a buffer forgets it; lines already out say so.
    fn restart(&mut self);
}

/// The figures changed while a report read them (a window completed, or a task was
/// created or deleted): what was written is of no one moment, and must be written
/// again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Changed;

/// Where a report's lines come from: the engine, one line per critical section.
pub trait Source {
    /// The line at position `at` (see `engine::LINES`), if the figures are still
    /// those of the report's header.
    fn line(&mut self, at: usize) -> Result<Line, Changed>;
}

/// The clock the figures were counted with.
#[derive(Clone, Copy, Debug)]
pub struct ClockInfo<'a> {
    /// Counts per second; 0 if no clock is set.
    pub hz: u32,
    /// Its name in the report.
    pub name: &'a str,
}

/// Bytes of a [`Cell`]: a 64-bit number, a point, three decimals and a unit.
const CELL: usize = 32;

/// One cell of a report (a number, a share, a duration), written right to left
/// into a small buffer so that it goes out in one piece.
struct Cell {
    /// `buf[at..]` is written; the rest is never read, so it is left uninitialised.
    buf: [MaybeUninit<u8>; CELL],
    at: usize,
}

impl Cell {
    fn new() -> Cell {
        Cell { buf: [MaybeUninit::uninit(); CELL], at: CELL }
    }

    /// Puts `b` in front (nothing once the cell is full).
    fn byte(&mut self, b: u8) {
        // (At 0, `at - 1` wraps past the end: no slot.)
        let at = self.at.wrapping_sub(1);
        if let Some(slot) = self.buf.get_mut(at) {
            slot.write(b);
            self.at = at;
        }
    }

    /// Puts `bytes` in front.
    fn put(&mut self, bytes: &[u8]) {
        for &b in bytes.iter().rev() {
            self.byte(b);
        }
    }

    /// Puts `value` in decimal in front, with at least `min` digits (zeros in
    /// front). The digits of the low 32 bits come from a division by the constant
    /// 10 (a multiplication); above 32 bits (rare), from `div_rem`.
    #[inline(never)]
    fn digits(&mut self, value: u64, min: usize) {
        let end = self.at;
        let mut rest = value;
        while rest > u64::from(u32::MAX) {
            let (q, digit) = div_rem(rest, 10);
            self.byte(b'0' + digit as u8);
            rest = q;
        }
        let mut low = rest as u32;
        loop {
            self.byte(b'0' + (low % 10) as u8);
            low /= 10;
            if low == 0 {
                break;
            }
        }
        let start = end.saturating_sub(min);
        while self.at > start {
            self.byte(b'0');
        }
    }

    /// Hundredths as `12.34` in front.
    fn pct(&mut self, hundredths: u64) {
        let (whole, frac) = div_rem(hundredths, 100);
        self.digits(frac, 2);
        self.byte(b'.');
        self.digits(whole, 1);
    }

    /// Puts `fill` in front until the cell is `width` bytes long (or full).
    fn pad(&mut self, width: usize, fill: u8) {
        let start = CELL.saturating_sub(width);
        while self.at > start {
            self.byte(fill);
        }
    }

    fn bytes(&self) -> &[u8] {
        let written = self.buf.get(self.at..).unwrap_or(&[]);
        // SAFETY: `buf[at..]` was written (`at` only goes down, past written bytes).
        unsafe { core::slice::from_raw_parts(written.as_ptr().cast::<u8>(), written.len()) }
    }
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

    /// `n` times the byte `b` (a space, `0` or `-`), in pieces of up to 16.
    #[inline(never)]
    fn fill(&mut self, b: u8, n: usize) {
        let piece: &[u8; 16] = match b {
            b'0' => b"0000000000000000",
            b'-' => b"----------------",
            _ => b"                ",
        };
        let mut left = n;
        while left > 0 {
            let now = left.min(piece.len());
            self.put(piece.get(..now).unwrap_or(&[]));
            left -= now;
        }
    }

    /// `value` in decimal, right-aligned in `width` columns filled with `fill`;
    /// returns the columns written.
    #[inline(never)]
    pub(super) fn num(&mut self, value: u64, width: usize, fill: u8) -> usize {
        let mut cell = Cell::new();
        cell.digits(value, 1);
        self.cell(&mut cell, width, fill)
    }

    /// `cell` right-aligned in `width` columns filled with `fill`, in one piece (a
    /// cell wider than a `Cell` is filled in front of it); returns the columns
    /// written.
    fn cell(&mut self, cell: &mut Cell, width: usize, fill: u8) -> usize {
        if width > CELL {
            self.fill(fill, width - CELL);
        }
        cell.pad(width, fill);
        let written = cell.bytes();
        self.put(written);
        written.len().max(width)
    }

    /// A number with no padding.
    fn int(&mut self, value: u64) {
        self.num(value, 0, b' ');
    }

    /// Hundredths of a percent as `12.34`, the whole part right-aligned in `width`.
    #[inline(never)]
    pub(super) fn pct(&mut self, hundredths: u64, width: usize) {
        let mut cell = Cell::new();
        cell.pct(hundredths);
        self.cell(&mut cell, width + 3, b' ');
    }

    /// A share for the table, `12.34%` right-aligned in `width`: `<0.01%` for a
    /// share of something that rounds to nothing, `0` for nothing at all.
    #[inline(never)]
    fn share(&mut self, hundredths: u16, something: bool, width: usize) {
        let mut cell = Cell::new();
        if !something {
            cell.put(b"0");
        } else if hundredths == 0 {
            cell.put(b"<0.01%");
        } else {
            cell.put(b"%");
            cell.pct(u64::from(hundredths));
        }
        self.cell(&mut cell, width, b' ');
    }

    /// Microseconds as `1234.567 ms` or, from 100 s on, `123.456 s`, right-aligned
    /// in `width` columns.
    #[inline(never)]
    fn duration(&mut self, us: u64, width: usize) {
        let (ms, us_frac) = div_rem(us, 1_000);
        let (whole, frac, unit) = if us >= 100_000_000 {
            let (secs, ms_frac) = div_rem(ms, 1_000);
            (secs, ms_frac, " s")
        } else {
            (ms, us_frac, " ms")
        };
        let mut cell = Cell::new();
        cell.put(unit.as_bytes());
        cell.digits(frac, 3);
        cell.put(b".");
        cell.digits(whole, 1);
        self.cell(&mut cell, width, b' ');
    }

    /// A name for the table: printable ASCII as is, anything else as `?`, cut to and
    /// padded to `NAME_LEN` columns; `(no name)` if empty.
    #[inline(never)]
    fn name_cell(&mut self, name: &[u8]) {
        let name = trim(name);
        let name: &[u8] = if name.is_empty() { b"(no name)" } else { name };
        let name = name.get(..NAME_LEN).unwrap_or(name);
        let mut cell = [b' '; NAME_LEN];
        for (c, &b) in cell.iter_mut().zip(name) {
            *c = if (0x20..0x7f).contains(&b) { b } else { b'?' };
        }
        self.put(&cell);
    }

    /// A JSON string: quotes, backslashes and every byte outside printable ASCII
    /// escaped, so the line stays valid JSON and valid ASCII whatever the name holds.
    #[inline(never)]
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

    /// `,"key":` and a number.
    #[inline(never)]
    fn key_int(&mut self, key: &[u8], value: u64) {
        self.key(key);
        self.int(value);
    }

    /// `,"key":` and a share, `12.34`.
    #[inline(never)]
    fn key_pct(&mut self, key: &[u8], hundredths: u16) {
        self.key(key);
        self.pct(u64::from(hundredths), 0);
    }

    /// `,"key":`.
    #[inline(never)]
    fn key(&mut self, key: &[u8]) {
        self.put(b",\"");
        self.put(key);
        self.put(b"\":");
    }
}

/// A name up to its first NUL, at most `NAME_LEN` bytes.
fn trim(name: &[u8]) -> &[u8] {
    let name = name.get(..NAME_LEN).unwrap_or(name);
    let end = name.iter().position(|&b| b == 0).unwrap_or(name.len());
    name.get(..end).unwrap_or(&[])
}

/// A row's name in the report: the summary lines are named by their label.
fn name_of(row: &Row) -> &[u8] {
    match row.kind {
        RowKind::Overflow => b"(overflow)",
        RowKind::Other => b"other",
        RowKind::Interrupts => b"interrupts",
        RowKind::Sleep => b"sleep",
        RowKind::Task | RowKind::Idle => trim(&row.name),
    }
}

/// Extra columns of `-l`: runs (`  ` and 8) and longest run (`  ` and 11).
const LONG_COLUMNS: usize = 23;

/// Tasks picked per walk when the report is sorted: the report holds this many
/// lines' counts at a time, not every line's.
pub const BATCH: usize = 8;

/// How a line takes part in a report.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    /// A line of its own among the tasks (the shared bucket included).
    Task,
    /// The idle task, shown apart.
    Idle,
    /// Summed on the deleted tasks' line (so is a line the report does not show).
    Deleted,
    /// Interrupts, sleep and "other".
    Summary,
}

fn part(line: &Line, opts: &Options) -> Part {
    if !line.shown {
        return Part::Deleted;
    }
    match line.row.kind {
        RowKind::Idle => Part::Idle,
        RowKind::Task if line.row.deleted && (opts.cumulative || !opts.deleted) => Part::Deleted,
        RowKind::Task | RowKind::Overflow => Part::Task,
        _ => Part::Summary,
    }
}

/// A line's counts and share, summed.
#[derive(Clone, Copy, Default)]
struct Sum {
    lines: u32,
    counts: u64,
    share: u32,
}

impl Sum {
    /// A line.
    fn add(&mut self, counts: u64, share: u16) {
        self.lines += 1;
        self.time(counts, share);
    }

    /// Time that is no line of the report.
    fn time(&mut self, counts: u64, share: u16) {
        self.counts = self.counts.wrapping_add(counts);
        self.share += u32::from(share);
    }

    fn less(self, other: Sum) -> Sum {
        Sum {
            lines: self.lines.saturating_sub(other.lines),
            counts: self.counts.wrapping_sub(other.counts),
            share: self.share.saturating_sub(other.share),
        }
    }

    fn share(self) -> u16 {
        self.share.min(10_000) as u16
    }
}

/// What the first walk found.
#[derive(Default)]
struct Survey {
    slots: SlotStats,
    /// The task lines (the shared bucket's included).
    tasks: Sum,
    /// The lines summed as deleted tasks.
    deleted: Sum,
    /// The idle task's position (0: none) and figures.
    idle_at: usize,
    idle: Sum,
    /// Interrupts, sleep, other.
    summary: [Sum; 3],
}

impl Survey {
    /// Nothing counted yet, but the tasks whose IDs new tasks took: they come first.
    fn new(header: &Header, shares: Shares) -> Survey {
        let mut s = Survey {
            slots: SlotStats {
                capacity: MAX_TASKS as u32,
                overflow_tasks: header.overflow_now,
                ..SlotStats::default()
            },
            ..Survey::default()
        };
        s.deleted.time(header.retired, shares.of(0, header.retired));
        s
    }

    /// Counts the line at `at`, of `share`.
    fn count(&mut self, at: usize, line: &Line, share: u16, opts: &Options) {
        match line.seat {
            Seat::None => {}
            Seat::Free => self.slots.free += 1,
            Seat::Used => self.slots.used += 1,
            Seat::Quarantined => self.slots.quarantined += 1,
        }
        let counts = line.row.counts;
        match part(line, opts) {
            Part::Task => self.tasks.add(counts, share),
            Part::Idle => {
                self.idle.add(counts, share);
                self.idle_at = at;
            }
            // (A line not shown is no task of the report, only its time.)
            Part::Deleted if !line.shown => self.deleted.time(counts, share),
            Part::Deleted => self.deleted.add(counts, share),
            Part::Summary => {
                if let Some(sum) = self.summary.get_mut(at.wrapping_sub(INTERRUPTS_AT)) {
                    sum.add(counts, share);
                }
            }
        }
    }
}

/// One report being written: where to, from where, and what the first walk found.
struct Report<'s> {
    out: Out<'s>,
    src: &'s mut dyn Source,
    opts: Options,
    clock: ClockInfo<'s>,
    header: &'s Header,
    /// The counts covered (since start: summed from the lines).
    length: u64,
    shares: Shares,
    /// What a walk found (see `Report::walk`), once `surveyed`.
    survey: Survey,
    surveyed: bool,
}

/// A task picked for a sorted report: its counts, the counts before it in the
/// engine's order (for its share), and its position.
#[derive(Clone, Copy)]
struct Pick {
    counts: u64,
    before: u64,
    at: u16,
}

impl Pick {
    /// Goes before `other` in a sorted report: busier, or as busy with a lower ID.
    fn before(&self, other: &Pick) -> bool {
        self.counts > other.counts || (self.counts == other.counts && self.at < other.at)
    }
}

impl Report<'_> {
    /// Reads every line in the engine's order, with the counts before it and its
    /// share; `survey`: and takes the survey on the way (which starts anew).
    #[inline(never)]
    fn walk(
        &mut self,
        survey: bool,
        each: &mut dyn FnMut(&mut Out<'_>, usize, &Line, u64, u16),
    ) -> Result<(), Changed> {
        let mut lines = ShareWalk::new(self.shares, self.header.retired);
        if survey {
            self.survey = Survey::new(self.header, self.shares);
        }
        for at in 0..LINES {
            let line = self.src.line(at)?;
            let (before, share) = lines.next(line.row.counts);
            if survey {
                self.survey.count(at, &line, share, &self.opts);
            }
            each(&mut self.out, at, &line, before, share);
        }
        self.surveyed |= survey;
        Ok(())
    }

    /// Prints every task line, in ID order or sorted, up to `-n`; returns what it
    /// printed.
    #[inline(never)]
    fn tasks(&mut self) -> Result<Sum, Changed> {
        let mut printed = Sum::default();
        let (opts, clock, header) = (self.opts, self.clock, self.header);
        let mut first = true;
        if !opts.sort && opts.top.is_none() {
            // The survey is taken on the way, unless a walk of its own took it.
            self.walk(!self.surveyed, &mut |out, _, line, _, share| {
                if part(line, &opts) == Part::Task {
                    task(out, &opts, clock, header, &line.row, share, first);
                    first = false;
                    printed.add(line.row.counts, share);
                }
            })?;
            return Ok(printed);
        }
        self.sorted(first)
    }

    /// The task lines busiest first, up to `-n`: each walk picks the next [`BATCH`]
    /// after those printed. (Apart from `tasks`, so that its batch is on the stack
    /// only when sorting.)
    #[inline(never)]
    fn sorted(&mut self, mut first: bool) -> Result<Sum, Changed> {
        let mut printed = Sum::default();
        let (shares, opts, clock, header) = (self.shares, self.opts, self.clock, self.header);
        let limit = opts.top.map_or(u32::MAX, u32::from);
        let mut after: Option<Pick> = None;
        while printed.lines < limit {
            // The next busiest tasks after those printed.
            let mut batch = [Pick { counts: 0, before: 0, at: 0 }; BATCH];
            let mut n = 0;
            self.walk(false, &mut |_, at, line, before, _| {
                let pick = Pick { counts: line.row.counts, before, at: at as u16 };
                if part(line, &opts) != Part::Task || after.is_some_and(|a| !a.before(&pick)) {
                    return;
                }
                // Insertion in order; the last falls out when the batch is full.
                let mut i = n;
                while i > 0 && batch.get(i - 1).is_some_and(|b| pick.before(b)) {
                    i -= 1;
                }
                if i >= BATCH {
                    return;
                }
                let mut j = n.min(BATCH - 1);
                while j > i {
                    if let Some(moved) = batch.get(j - 1).copied() {
                        if let Some(slot) = batch.get_mut(j) {
                            *slot = moved;
                        }
                    }
                    j -= 1;
                }
                if let Some(slot) = batch.get_mut(i) {
                    *slot = pick;
                }
                n = (n + 1).min(BATCH);
            })?;
            if n == 0 {
                break;
            }
            for pick in batch.iter().take(n) {
                if printed.lines >= limit {
                    break;
                }
                let line = self.src.line(usize::from(pick.at))?;
                let share = shares.of(pick.before, pick.counts);
                task(&mut self.out, &opts, clock, header, &line.row, share, first);
                first = false;
                printed.add(pick.counts, share);
                after = Some(*pick);
            }
        }
        Ok(printed)
    }

    /// A line of interrupts, sleep or other, read again for its runs.
    fn summary_line(&mut self, which: usize) -> Result<(Row, Sum), Changed> {
        let line = self.src.line(crate::engine::INTERRUPTS_AT + which)?;
        Ok((line.row, self.survey.summary.get(which).copied().unwrap_or_default()))
    }

    /// The idle task's line, if it has one.
    fn idle(&mut self) -> Result<Option<Row>, Changed> {
        match self.survey.idle_at {
            0 => Ok(None),
            at => Ok(Some(self.src.line(at)?.row)),
        }
    }

    /// "load": 100% - idle - sleep, from the shares shown, so that the line says
    /// exactly that; a share of something only if anything else ran.
    fn load(&self) -> (u16, bool) {
        let (idle, sleep) = (self.survey.idle, self.survey.summary[1]);
        let busy = self.length.wrapping_sub(idle.counts).wrapping_sub(sleep.counts);
        if busy == 0 {
            return (0, false);
        }
        (10_000u16.saturating_sub(idle.share()).saturating_sub(sleep.share()), true)
    }

    #[inline(never)]
    fn json(&mut self) -> Result<(), Changed> {
        let (h, clock, cumulative) = (self.header, self.clock, self.opts.cumulative);
        let out = &mut self.out;
        if cumulative {
            out.put(b"{\"mode\":\"cumulative\"");
            out.key_int(b"windows", u64::from(h.window));
            out.key_int(b"uptime_us", counts_to_us(self.length, clock.hz));
            out.key_int(b"uptime_counts", self.length);
        } else {
            out.put(b"{\"mode\":\"window\"");
            out.key_int(b"window", u64::from(h.window));
            out.key_int(b"window_us", counts_to_us(h.length, clock.hz));
            out.key_int(b"window_counts", h.length);
        }
        out.key(b"clock");
        out.json_str(clock.name.as_bytes());
        out.key_int(b"clock_hz", u64::from(clock.hz));
        out.put(b",\"tasks\":[");
        let printed = self.tasks()?;
        let out = &mut self.out;
        out.put(b"]");
        // (After the tasks: the walk that prints them counts the IDs.)
        let slots = self.survey.slots;
        out.put(b",\"slots\":{\"capacity\":");
        out.int(u64::from(slots.capacity));
        out.key_int(b"used", u64::from(slots.used));
        out.key_int(b"quarantined", u64::from(slots.quarantined));
        out.key_int(b"free", u64::from(slots.free));
        out.key_int(b"overflow_tasks", u64::from(slots.overflow_tasks));
        out.put(b"}");
        let more = self.survey.tasks.less(printed);
        if more.lines != 0 {
            out.put(b",\"more_tasks\":{\"count\":");
            out.int(u64::from(more.lines));
            out.key_int(b"counts", more.counts);
            out.key_pct(b"usage_pct", more.share());
            out.put(b"}");
        }
        let deleted = self.survey.deleted;
        if !cumulative {
            out.key_int(b"deleted_tasks", u64::from(deleted.lines));
        }
        out.key_int(b"deleted_counts", deleted.counts);
        out.key_pct(b"deleted_pct", deleted.share());
        match self.idle()? {
            Some(row) => {
                let out = &mut self.out;
                out.put(b",\"idle\":{\"id\":");
                out.int(u64::from(row.id));
                out.key(b"name");
                out.json_str(name_of(&row));
                out.key_int(b"counts", row.counts);
                task_tail(out, cumulative, clock, &row);
            }
            None => self.out.put(b",\"idle\":null"),
        }
        let (isr, isr_sum) = self.summary_line(0)?;
        let (sleep, sleep_sum) = self.summary_line(1)?;
        let (_, other) = self.summary_line(2)?;
        let (load, _) = self.load();
        let idle = self.survey.idle.share();
        let out = &mut self.out;
        out.key_int(b"interrupts_counts", isr.counts);
        out.key_pct(b"interrupts_pct", isr_sum.share());
        out.key_int(b"interrupts", isr.runs);
        out.key_int(b"longest_interrupt_us", counts_to_us(u64::from(isr.longest), clock.hz));
        out.key_int(b"sleep_counts", sleep.counts);
        out.key_pct(b"sleep_pct", sleep_sum.share());
        out.key_int(b"sleeps", sleep.runs);
        out.key_int(b"other_counts", other.counts);
        out.key_pct(b"other_pct", other.share());
        out.key_pct(b"idle_pct", idle);
        out.key_pct(b"load_pct", load);
        out.put(b",\"load_avg_pct\":");
        for (i, a) in h.load_avg.iter().enumerate() {
            out.put(if i == 0 { b"[" } else { b"," });
            if a.len == 0 {
                out.put(b"null");
            } else {
                out.pct(u64::from(pct_of(a.busy, a.len)), 0);
            }
        }
        out.put(b"]}\n");
        Ok(())
    }

    #[inline(never)]
    fn table(&mut self) -> Result<(), Changed> {
        let (h, clock, opts) = (self.header, self.clock, self.opts);
        let out = &mut self.out;
        let us = counts_to_us(self.length, clock.hz);
        if opts.cumulative {
            out.put(b"CPU usage since start: ");
            out.duration(us, 0);
            out.put(b" (");
            out.int(u64::from(h.window));
            out.put(b" windows)");
        } else {
            out.put(b"CPU usage, window #");
            out.int(u64::from(h.window));
            out.put(b": ");
            out.duration(us, 0);
        }
        out.put(b", clock ");
        out.put(clock.name.as_bytes());
        out.byte(b' ');
        out.int(u64::from(clock.hz));
        out.put(b" Hz\n  ID  ");
        out.name_cell(b"TASK");
        out.put(if opts.long { b"   USAGE      RUNS      LONGEST\n" } else { b"   USAGE\n" });
        let printed = self.tasks()?;
        let more = self.survey.tasks.less(printed);
        let deleted = self.survey.deleted;
        let out = &mut self.out;
        if more.lines != 0 {
            out.put(b"      (");
            let digits = out.num(u64::from(more.lines), 0, b' ');
            let label: &[u8] = if more.lines == 1 { b" more task)" } else { b" more tasks)" };
            out.put(label);
            // Not cut to the name column, unlike a name: the count must show.
            out.fill(b' ', NAME_LEN.saturating_sub(1 + digits + label.len()));
            out.byte(b' ');
            out.share(more.share(), more.counts != 0, 7);
            out.byte(b'\n');
        }
        if opts.cumulative || deleted.lines != 0 {
            out.put(b"      (");
            let mut columns = 1;
            if !opts.cumulative {
                columns += out.num(u64::from(deleted.lines), 0, b' ') + 1;
                out.byte(b' ');
            }
            // ("(N deleted)" in a window: the count and the label fit the name column.)
            let label: &[u8] = if opts.cumulative { b"deleted tasks)" } else { b"deleted)" };
            out.put(label);
            out.fill(b' ', NAME_LEN.saturating_sub(columns + label.len()));
            out.byte(b' ');
            out.share(deleted.share(), deleted.counts != 0, 7);
            out.byte(b'\n');
        }
        out.put(b"  ");
        out.fill(b'-', NAME_LEN + 14 + if opts.long { LONG_COLUMNS } else { 0 });
        out.byte(b'\n');
        match self.idle()? {
            Some(row) => {
                let share = self.survey.idle.share();
                let out = &mut self.out;
                out.num(u64::from(row.id), 4, b' ');
                out.put(b"  ");
                out.name_cell(name_of(&row));
                cells(out, &opts, clock, &row, share);
                out.put(b"  idle\n");
            }
            None => self.out.put(b"      idle: not known until the scheduler starts\n"),
        }
        let (isr, isr_sum) = self.summary_line(0)?;
        let (_, sleep) = self.summary_line(1)?;
        let (_, other) = self.summary_line(2)?;
        let (load, busy) = self.load();
        let out = &mut self.out;
        let summary: [(&[u8], Sum, &[u8]); 3] = [
            (b"interrupts", isr_sum, b""),
            (b"sleep", sleep, b"  asleep in tickless idle\n"),
            (b"other", other, b"  kernel and unattributed\n"),
        ];
        for (name, sum, text) in summary {
            out.put(b"      ");
            out.name_cell(name);
            out.byte(b' ');
            out.share(sum.share(), sum.counts != 0, 7);
            out.put(text);
            if name == b"interrupts" {
                out.put(b"  ");
                out.int(isr.runs);
                out.put(b" interrupts, longest ");
                longest(out, clock, &isr, 0);
                out.byte(b'\n');
            }
        }
        out.put(b"      ");
        out.name_cell(b"load");
        out.byte(b' ');
        out.share(load, busy, 7);
        out.put(b"  100% - idle - sleep\n");
        for (i, a) in h.load_avg.iter().enumerate() {
            out.put(match i {
                0 => b"load avg   1 s ",
                1 => b"  10 s ",
                _ => b"  60 s ",
            });
            if a.len == 0 {
                out.byte(b'-');
            } else {
                out.share(pct_of(a.busy, a.len), a.busy != 0, 6);
            }
        }
        // The pool as it is now (the figures above are of the window or since start).
        out.put(b"\nIDs now: ");
        let slots = self.survey.slots;
        out.int(u64::from(slots.used));
        out.put(b" used, ");
        out.int(u64::from(slots.quarantined));
        out.put(b" quarantined, ");
        out.int(u64::from(slots.free));
        out.put(b" free of ");
        out.int(u64::from(slots.capacity));
        out.put(b"; tasks without one: ");
        out.int(u64::from(slots.overflow_tasks));
        out.byte(b'\n');
        Ok(())
    }
}

/// A longest run: `0` for none, a duration otherwise (`0.000 ms` for a run too
/// short for a microsecond), right-aligned in `width`.
fn longest(out: &mut Out<'_>, clock: ClockInfo<'_>, row: &Row, width: usize) {
    if row.longest == 0 {
        out.num(0, width, b' ');
    } else {
        out.duration(counts_to_us(u64::from(row.longest), clock.hz), width);
    }
}

/// A task's cells after its name: usage, and with `-l` its runs and longest run
/// (since start, with that run's window and the task's busiest window).
#[inline(never)]
fn cells(out: &mut Out<'_>, opts: &Options, clock: ClockInfo<'_>, row: &Row, share: u16) {
    out.byte(b' ');
    out.share(share, row.counts != 0, 7);
    if !opts.long {
        return;
    }
    out.put(b"  ");
    out.num(row.runs, 8, b' ');
    out.put(b"  ");
    longest(out, clock, row, 11);
    if opts.cumulative {
        if row.longest != 0 {
            out.put(b" in #");
            out.int(u64::from(row.longest_window));
        }
        if row.peak_len != 0 {
            out.put(b"  peak ");
            out.share(pct_of(u64::from(row.peak), u64::from(row.peak_len)), row.peak != 0, 0);
            out.put(b" in #");
            out.int(u64::from(row.peak_window));
        }
    }
}

/// What every task object of the JSON ends with, the idle task's included.
#[inline(never)]
fn task_tail(out: &mut Out<'_>, cumulative: bool, clock: ClockInfo<'_>, row: &Row) {
    out.key_int(b"switches", row.runs);
    out.key_int(b"longest_slice_us", counts_to_us(u64::from(row.longest), clock.hz));
    if cumulative {
        let known = |out: &mut Out<'_>, key: &[u8], known: bool, value: u64| {
            out.key(key);
            if known {
                out.int(value);
            } else {
                out.put(b"null");
            }
        };
        known(out, b"longest_slice_window", row.longest != 0, u64::from(row.longest_window));
        out.key(b"peak_pct");
        if row.peak_len == 0 {
            out.put(b"null");
        } else {
            out.pct(u64::from(pct_of(u64::from(row.peak), u64::from(row.peak_len))), 0);
        }
        known(out, b"peak_window", row.peak_len != 0, u64::from(row.peak_window));
    }
    out.byte(b'}');
}

/// One task line: a table row, or an object of the JSON's `tasks` (`first`: without
/// the comma before it).
#[inline(never)]
fn task(out: &mut Out<'_>, opts: &Options, clock: ClockInfo<'_>, header: &Header, row: &Row, share: u16, first: bool) {
    if opts.json {
        out.put(if first { b"{\"id\":" } else { b",{\"id\":" });
        out.int(u64::from(row.id));
        out.key(b"name");
        out.json_str(name_of(row));
        out.key_int(b"counts", row.counts);
        out.key_pct(b"usage_pct", share);
        out.key(b"deleted");
        out.put(if row.deleted { b"true" } else { b"false" });
        if row.kind == RowKind::Overflow {
            out.key_int(b"tasks", u64::from(header.overflow_tasks));
        }
        task_tail(out, opts.cumulative, clock, row);
        return;
    }
    out.num(u64::from(row.id), 4, b' ');
    out.put(b"  ");
    out.name_cell(name_of(row));
    cells(out, opts, clock, row, share);
    if row.deleted {
        out.put(b"  deleted");
    }
    if row.kind == RowKind::Overflow {
        // Of the window shown (or since start), not of the moment it is printed.
        out.put(if opts.cumulative {
            b"  tasks without an ID since start: "
        } else {
            b"  tasks without an ID in the window: "
        });
        out.int(u64::from(header.overflow_tasks));
    }
    out.byte(b'\n');
}

/// Writes a report of `header` and the lines `src` gives. `Err(Changed)` when the
/// figures changed while it was written: what it wrote is then to be dropped or
/// followed by the report again.
pub fn write_report(
    sink: &mut dyn Sink,
    opts: Options,
    clock: ClockInfo<'_>,
    header: &Header,
    src: &mut dyn Source,
) -> Result<(), Changed> {
    let mut r = Report {
        out: Out(sink),
        src,
        opts,
        clock,
        header,
        length: header.length,
        shares: Shares::of_total(header.length),
        survey: Survey::default(),
        surveyed: false,
    };
    if opts.cumulative {
        // Since start, the length is what the lines add up to.
        let mut length = header.retired;
        r.walk(false, &mut |_, _, line, _, _| length = length.wrapping_add(line.row.counts))?;
        (r.length, r.shares) = (length, Shares::of_total(length));
    }
    // A sorted report needs the sums before its tasks; in ID order they are taken on
    // the way.
    if opts.sort || opts.top.is_some() {
        r.walk(true, &mut |_, _, _, _, _| {})?;
    }
    if opts.json {
        r.json()
    } else {
        r.table()
    }
}

/// The command's help; `longest_ms` is the longest window the clock in use allows
/// (see `arith::max_window_ms`).
pub fn write_usage(sink: &mut dyn Sink, longest_ms: u32) {
    sink.put(
        b"usage: show_cpu_usage [-m] [-c] [-s] [-n N] [-d] [-l] [-w MS] [-f [N]] [-h]\n\
          \x20 (none)  CPU usage per task in the last completed window\n\
          \x20 -m      the same as one line of JSON\n\
          \x20 -c      since start (to the end of the last window) instead\n\
          \x20 -s      tasks sorted by usage, largest first\n\
          \x20 -n N    only the N busiest tasks, the others summed on one line\n\
          \x20 -d      the tasks deleted in the window one by one, not summed\n\
          \x20 -l      runs (times switched in) and longest run of each task\n\
          \x20 -w MS   windows of MS ms (1 to ",
    );
    Out(sink).num(u64::from(longest_ms), 0, b' ');
    sink.put(
        b"), from the window under way\n\
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

/// What is wrong with the arguments, then the help (`longest_ms` as for
/// `write_usage`).
pub fn write_error(sink: &mut dyn Sink, bad: &BadArgs, longest_ms: u32) {
    write_problem(&mut Out(sink), b"show_cpu_usage: ", b"unknown option ", bad);
    write_usage(sink, longest_ms);
}

/// `-w`: a window longer than the clock allows (`longest_ms`), in the words of the
/// argument errors, then the help.
pub fn write_window_refused(sink: &mut dyn Sink, ms: u32, longest_ms: u32) {
    let out = &mut Out(sink);
    out.put(b"show_cpu_usage: -w \"");
    out.int(u64::from(ms));
    out.put(b"\": out of range (1 to ");
    out.int(u64::from(longest_ms));
    out.put(b")\n");
    write_usage(sink, longest_ms);
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
