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
//! piece (`out.rs`). The table is written by `text/table.rs`, the JSON by
//! `text/json.rs`, from the walks here.
//!
//! Shares are handed out in the engine's order of lines, whatever the order printed
//! ([`Shares`]): so a task reads the same in every report of a window (sorted or not,
//! text or JSON, or `cpu_usage_snapshot`), every line is within a hundredth of its
//! exact share, the lines add up to exactly 100.00%, and a line that sums tasks (the
//! "more" and deleted lines) is the sum of their shares.

mod json;
mod table;

use json::task_tail;
use table::cells;

use super::out::{name_of, Out, Sink};
use super::{counts_to_us, pct_of, Options};
use crate::engine::arith::{ShareWalk, Shares};
use crate::engine::{Header, Line, Row, RowKind, Seat, SlotStats};
use crate::settings::{ApiEngine, MAX_TASKS};

/// The figures changed while a report read them (a window completed, or a task was
/// created or deleted): what was written is of no one moment, and must be written
/// again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Changed;

/// Where a report's lines come from: the engine, one line per critical section.
pub trait Source {
    /// The line at position `at` (see `Engine::LINES`), if the figures are still
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
                if let Some(sum) = self.summary.get_mut(at.wrapping_sub(ApiEngine::INTERRUPTS_AT)) {
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
        for at in 0..ApiEngine::LINES {
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
        let line = self.src.line(ApiEngine::INTERRUPTS_AT + which)?;
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
