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
//! A report runs on its caller's stack (the shell task's), so it keeps little there:
//! one line at a time, read in place; the lines after the tasks (idle, interrupts,
//! sleep, other) and the smoothed loads read again when printed, not kept from the
//! walk; and each part (the walks before the tasks, the tasks, what follows them)
//! in a frame of its own, so that no part's locals lie under another's calls.
//!
//! Shares are handed out in the engine's order of lines, whatever the order printed
//! ([`Shares`]): so a task reads the same in every report of a window (sorted or not,
//! text or JSON, or `cpu_usage_snapshot`), every line is within a hundredth of its
//! exact share, the lines add up to exactly 100.00%, and a line that sums tasks (the
//! "more" and deleted lines) is the sum of their shares.

mod cells;
mod json;
mod table;

use cells::{line as line_out, Kind};

use super::out::{name_of, Go, Out, Sink};
use super::{counts_to_us, pct_of, Options};
use crate::engine::arith::{ShareWalk, Shares};
use crate::engine::NAME_LEN;
use crate::engine::{Header, Line, Row, RowKind, Seat, SlotStats, Smoothed};
use crate::fields::Figures;
use crate::settings::{ApiEngine, MAX_TASKS};

/// The cores the report's figures are of: with several, shares are of all of them
/// (every report's lines add up to 100%), and each core has a line of its own.
const CORES: usize = ApiEngine::CORES;

/// The figures changed while a report read them (a window completed, or a task was
/// created or deleted): what was written is of no one moment, and must be written
/// again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Changed;

/// Where a report's lines come from: the engine, one line per critical section.
pub trait Source {
    /// Reads the line at position `at` (see `Engine::LINES`) into `line`, if the
    /// figures are still those of the report's header. (Into the reader's place: a
    /// line returned would be copied on the way, on the reader's stack.)
    fn line(&mut self, at: usize, line: &mut Line) -> Result<(), Changed>;

    /// The smoothed loads (`Engine::load_avg`), if the figures are still those of
    /// the report's header. (Read when printed, last: not kept with the header.)
    fn load_avg(&mut self) -> Result<[Smoothed; 3], Changed>;
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

/// What the first walk found. The lines printed after the tasks (idle, interrupts,
/// sleep, other) are read again then, so only the counts before each are kept, for
/// their shares.
#[derive(Default)]
struct Survey {
    slots: SlotStats,
    /// The task lines (the shared bucket's included).
    tasks: Sum,
    /// The lines summed as deleted tasks.
    deleted: Sum,
    /// The idle task's position (0: none; with several cores, the first core's idle
    /// line, the others' after it) and the counts before its line.
    idle_at: usize,
    idle_before: u64,
    /// The counts before the interrupts' line (sleep and "other" follow it).
    summary_before: u64,
}

impl Survey {
    /// Starts again: nothing counted yet, but the tasks whose IDs new tasks took
    /// (they come first). (In place: a survey built and copied would be on the
    /// walk's stack twice.)
    fn start(&mut self, header: &Header, shares: Shares) {
        *self = Survey::default();
        self.slots.capacity = MAX_TASKS as u32;
        self.slots.overflow_tasks = header.overflow_now;
        self.deleted.time(header.retired, shares.of(0, header.retired));
    }

    /// Counts the line at `at`, after `before` counts, of `share`.
    fn count(&mut self, at: usize, line: &Line, before: u64, share: u16, opts: &Options) {
        match line.seat {
            Seat::None => {}
            Seat::Free => self.slots.free += 1,
            Seat::Used => self.slots.used += 1,
            Seat::Quarantined => self.slots.quarantined += 1,
        }
        let counts = line.row.counts;
        match part(line, opts) {
            Part::Task => self.tasks.add(counts, share),
            // (With several cores, the first of the cores' idle lines.)
            Part::Idle if self.idle_at == 0 => {
                self.idle_at = at;
                self.idle_before = before;
            }
            Part::Idle => {}
            // (A line not shown is no task of the report, only its time.)
            Part::Deleted if !line.shown => self.deleted.time(counts, share),
            Part::Deleted => self.deleted.add(counts, share),
            Part::Summary => {
                if at == ApiEngine::INTERRUPTS_AT {
                    self.summary_before = before;
                }
            }
        }
    }
}

/// One core's line (several cores): shares of that core's time, and its interrupts.
struct CoreFigures {
    busy: u16,
    idle: u16,
    interrupts: u16,
    sleep: u16,
    isr_runs: u64,
}

/// One report being written: where to, from where, and what the first walk found.
struct Report<'s> {
    out: Out<'s>,
    src: &'s mut dyn Source,
    opts: &'s Options,
    clock: ClockInfo<'s>,
    header: &'s Header,
    /// The counts covered (since start: summed from the lines), which the shares
    /// are of ([`Report::shares`]).
    length: u64,
    /// The task lines printed (once `tasks` has run): kept here, not handed on, so
    /// that it is not copied into the frames after it.
    printed: Sum,
    /// What a walk found (see `Report::walk`), once `surveyed`.
    survey: Survey,
    surveyed: bool,
    /// The sink wants no more of the report ([`Go::Stop`]).
    stopped: bool,
}

/// A task picked for a sorted report: its counts, its share (handed out in the
/// engine's order by the walk that picked it) and its position. (Packed to 4-byte
/// alignment, 12 bytes, not 16: a batch of them is on the stack under every line
/// printed. Its fields are only ever copied, never borrowed.)
#[derive(Clone, Copy)]
#[repr(C, packed(4))]
struct Pick {
    counts: u64,
    share: u16,
    at: u16,
}

impl Pick {
    /// Goes before `other` in a sorted report: busier, or as busy with a lower ID.
    fn before(&self, other: &Pick) -> bool {
        self.counts > other.counts || (self.counts == other.counts && self.at < other.at)
    }
}

impl Report<'_> {
    /// The walks a report needs before its tasks: since start, the length, which is
    /// what the lines add up to; sorted, the sums (in ID order they are taken on the
    /// way).
    #[inline(never)]
    fn before_tasks(&mut self) -> Result<(), Changed> {
        let mut line = Line::EMPTY;
        if self.opts.cumulative {
            let mut length = self.header.retired;
            self.walk(false, &mut line, |_, _, line, _, _| length = length.wrapping_add(line.row.counts))?;
            self.length = length;
        }
        if self.opts.sort || self.opts.top.is_some() {
            self.walk(true, &mut line, |_, _, _, _, _| {})?;
        }
        Ok(())
    }

    /// Reads every line in the engine's order into `line` (the caller's, which may
    /// have a use for it after the walk), with the counts before it and its share;
    /// `survey`: and takes the survey on the way (which starts anew).
    /// (Inlined into each caller, with `each`: a frame and a call less under every
    /// line printed, for a few hundred bytes of flash.)
    #[inline(always)]
    fn walk(
        &mut self,
        survey: bool,
        line: &mut Line,
        mut each: impl FnMut(&mut Out<'_>, usize, &Line, u64, u16),
    ) -> Result<(), Changed> {
        let shares = self.shares();
        let mut lines = ShareWalk::new(shares, self.header.retired);
        if survey {
            self.survey.start(self.header, shares);
        }
        for at in 0..ApiEngine::LINES {
            self.src.line(at, line)?;
            let (before, share) = lines.next(line.row.counts);
            if survey {
                self.survey.count(at, line, before, share, self.opts);
            }
            each(&mut self.out, at, line, before, share);
        }
        self.surveyed |= survey;
        Ok(())
    }

    /// Prints every task line, in ID order or sorted, up to `-n`; returns what it
    /// printed.
    #[inline(always)]
    fn tasks(&mut self) -> Result<Sum, Changed> {
        if !self.opts.sort && self.opts.top.is_none() {
            return self.in_order();
        }
        self.sorted(true)
    }

    /// Every task line in ID order, the survey taken on the way (unless a walk of
    /// its own took it).
    #[inline(never)]
    fn in_order(&mut self) -> Result<Sum, Changed> {
        let mut printed = Sum::default();
        let (opts, clock, header) = (self.opts, self.clock, self.header);
        let (mut first, mut stopped) = (true, false);
        let mut line = Line::EMPTY;
        // (Once the sink stops the report, the walk goes on for the survey alone.)
        self.walk(!self.surveyed, &mut line, |out, _, line, _, share| {
            if part(line, opts) != Part::Task || stopped {
                return;
            }
            match out.0.task_line(printed.lines) {
                Go::Stop => {
                    stopped = true;
                    return;
                }
                Go::Skip => {}
                Go::Write => task(out, opts, clock, header, &line.row, share, first),
            }
            first = false;
            printed.add(line.row.counts, share);
        })?;
        self.stopped = stopped;
        Ok(printed)
    }

    /// The task lines busiest first, up to `-n`: each walk picks the next [`BATCH`]
    /// after those printed. (Apart from `tasks`, so that its batch is on the stack
    /// only when sorting.) One line, read into by the walks and by the printing in
    /// turn: a line of each would be two on the stack under the walks.
    #[inline(never)]
    fn sorted(&mut self, mut first: bool) -> Result<Sum, Changed> {
        let mut printed = Sum::default();
        let limit = self.opts.top.map_or(u32::MAX, u32::from);
        let mut after: Option<Pick> = None;
        let mut batch = [Pick { counts: 0, share: 0, at: 0 }; BATCH];
        let mut line = Line::EMPTY;
        while printed.lines < limit && !self.stopped {
            let n = self.pick(after, &mut batch, &mut line)?;
            if n == 0 {
                break;
            }
            let picked = batch.get(..n).unwrap_or(&[]);
            self.print_picks(picked, limit, &mut line, &mut printed, &mut first, &mut after)?;
        }
        Ok(printed)
    }

    /// Puts the busiest tasks after `after` (all, if `None`) into `batch`, busiest
    /// first, and says how many; `line`: where the walk reads each line. (Apart from
    /// `sorted`, so that the walk's locals are on the stack only while it walks, not
    /// while the batch is printed.)
    #[inline(never)]
    fn pick(&mut self, after: Option<Pick>, batch: &mut [Pick; BATCH], line: &mut Line) -> Result<usize, Changed> {
        let opts = self.opts;
        let mut n = 0;
        self.walk(false, line, |_, at, line, _, share| {
            let pick = Pick { counts: line.row.counts, share, at: at as u16 };
            if part(line, opts) != Part::Task || after.is_some_and(|a| !a.before(&pick)) {
                return;
            }
            // Insertion in order; the last falls out when the batch is full. (Only
            // the first `n` are read: what the batch held before does not matter.)
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
        Ok(n)
    }

    /// Prints the tasks `picked` (up to `limit` in all), reading each line again
    /// into `line`; `after` becomes the last printed. (Inlined into `sorted`: a frame
    /// of its own would be one more under every cell printed.)
    #[inline(always)]
    fn print_picks(
        &mut self,
        picked: &[Pick],
        limit: u32,
        line: &mut Line,
        printed: &mut Sum,
        first: &mut bool,
        after: &mut Option<Pick>,
    ) -> Result<(), Changed> {
        for pick in picked {
            if printed.lines >= limit {
                break;
            }
            let share = pick.share;
            match self.out.0.task_line(printed.lines) {
                Go::Stop => {
                    self.stopped = true;
                    break;
                }
                Go::Skip => {}
                Go::Write => {
                    self.src.line(usize::from(pick.at), line)?;
                    task(&mut self.out, self.opts, self.clock, self.header, &line.row, share, *first);
                }
            }
            *first = false;
            printed.add(pick.counts, share);
            *after = Some(*pick);
        }
        Ok(())
    }

    /// Reads the idle task's line again into `line`, and gives its counts and
    /// share; `None` without an idle task. With several cores, the cores' idle lines
    /// summed, as the idle tasks' line.
    #[inline(always)]
    fn idle(&mut self, line: &mut Line) -> Result<Option<Sum>, Changed> {
        let at = self.survey.idle_at;
        if at == 0 {
            return Ok(None);
        }
        let mut walk = ShareWalk::new(self.shares(), self.survey.idle_before);
        let idle = self.lines_summed(at, CORES, &mut walk, line)?;
        if CORES > 1 {
            line.row.name = [0; NAME_LEN];
            for (dst, src) in line.row.name.iter_mut().zip(b"IDLE") {
                *dst = *src;
            }
            line.row.id = self.header.idle;
        }
        Ok(Some(idle))
    }

    /// Reads the `lines` lines from `at` into `line`, summed (counts, runs, the
    /// longest run: `Row::add_core`), each's share the next of `walk`; gives their
    /// counts and shares. (With one core, `lines` is 1.)
    #[inline(always)]
    fn lines_summed(&mut self, at: usize, lines: usize, walk: &mut ShareWalk, line: &mut Line) -> Result<Sum, Changed> {
        self.src.line(at, line)?;
        let counts = line.row.counts;
        let mut sum = Sum::default();
        sum.add(counts, walk.next(counts).1);
        if CORES > 1 {
            let mut row = line.row;
            for next in at + 1..at + lines {
                self.src.line(next, line)?;
                let counts = line.row.counts;
                sum.time(counts, walk.next(counts).1);
                row.add_core(&line.row);
            }
            line.row = row;
        }
        Ok(sum)
    }

    /// The idle task's line, table or JSON (or what says it is not known yet). (The
    /// lines after it read it again for its counts and share: kept, they would sit in
    /// the report's frame under every part.)
    #[inline(never)]
    fn idle_line(&mut self) -> Result<(), Changed> {
        let mut line = Line::EMPTY;
        let Some(idle) = self.idle(&mut line)? else {
            self.out.put(if self.opts.json {
                b",\"idle\":null"
            } else {
                b"      idle: not known until the scheduler starts\n"
            });
            return Ok(());
        };
        let figures = Figures { row: &line.row, share: idle.share(), bucket_tasks: 0 };
        line_out(&mut self.out, self.opts, self.clock.hz, &figures, Kind::Idle);
        Ok(())
    }

    /// Shares of the lines after the tasks: interrupts, sleep, other, in this order
    /// ([`Report::summary`]).
    fn summaries(&self) -> ShareWalk {
        ShareWalk::new(self.shares(), self.survey.summary_before)
    }

    /// Reads the line of interrupts, sleep or other (`which` 0, 1, 2, in this order
    /// on `walk`) again into `line`, and gives its counts and share. With several
    /// cores, the cores' interrupts (or sleep) summed: each core has its line, and
    /// "other" is one.
    #[inline(always)]
    fn summary(&mut self, walk: &mut ShareWalk, which: usize, line: &mut Line) -> Result<Sum, Changed> {
        // (Each core's interrupts, then each core's sleep, then one "other".)
        let lines = if which == 2 { 1 } else { CORES };
        self.lines_summed(ApiEngine::INTERRUPTS_AT + which * CORES, lines, walk, line)
    }

    /// Core `k`'s figures (several cores), read into `line` one at a time: its idle,
    /// interrupts and sleep, and its busy time (all but idle and sleep), each a share
    /// of the core's time.
    fn core(&mut self, k: usize, line: &mut Line) -> Result<CoreFigures, Changed> {
        let span = self.span();
        let mut read = |src: &mut dyn Source, at: usize| -> Result<(u64, u64), Changed> {
            src.line(at, line)?;
            Ok((line.row.counts, line.row.runs))
        };
        let (idle, _) = read(self.src, ApiEngine::IDLE + k)?;
        let (isr, isr_runs) = read(self.src, ApiEngine::INTERRUPTS_AT + k)?;
        let (sleep, _) = read(self.src, ApiEngine::SLEEP_AT + k)?;
        let busy = span.saturating_sub(idle).saturating_sub(sleep);
        Ok(CoreFigures {
            busy: pct_of(busy, span),
            idle: pct_of(idle, span),
            interrupts: pct_of(isr, span),
            sleep: pct_of(sleep, span),
            isr_runs,
        })
    }

    /// The time the report is of: its length, or with several cores what each core
    /// had of it (the lines add up to the cores times that).
    fn span(&self) -> u64 {
        self.length >> CORES.trailing_zeros()
    }

    /// The shares of the report's length. (Worked out again where needed, a shift:
    /// kept, they would sit in every frame under the report's.)
    fn shares(&self) -> Shares {
        Shares::of_total(self.length)
    }

    /// "load": 100% - idle - sleep, from the shares shown, so that the line says
    /// exactly that; a share of something only if anything else ran.
    fn load(&self, idle: Sum, sleep: Sum) -> (u16, bool) {
        let busy = self.length.wrapping_sub(idle.counts).wrapping_sub(sleep.counts);
        if busy == 0 {
            return (0, false);
        }
        (10_000u16.saturating_sub(idle.share()).saturating_sub(sleep.share()), true)
    }
}

/// One task line: a table row, or an object of the JSON's `tasks` (`first`: without
/// the comma before it).
fn task(out: &mut Out<'_>, opts: &Options, clock: ClockInfo<'_>, header: &Header, row: &Row, share: u16, first: bool) {
    #[cfg(test)]
    TASK_LINES_WRITTEN.with(|n| n.set(n.get() + 1));
    let figures = Figures { row, share, bucket_tasks: header.overflow_tasks };
    line_out(out, opts, clock.hz, &figures, if first { Kind::First } else { Kind::Task });
}

#[cfg(test)]
std::thread_local! {
    /// Task lines this thread's reports wrote (for the tests of
    /// `cpu_usage_cli_command`, which must not write a line again for each piece).
    pub(crate) static TASK_LINES_WRITTEN: core::cell::Cell<u64> = const { core::cell::Cell::new(0) };
}

/// Writes a report of `header` and the lines `src` gives. `Err(Changed)` when the
/// figures changed while it was written: what it wrote is then void. `pool`: the
/// ID pool's figures to print, which are of now, not of the window: `None` to print
/// those read, which it is then set to (so that a report written again for its next
/// piece prints the same). (Inlined into its callers, which hold the header: one
/// frame for both under the report.)
#[inline(always)]
pub fn write_report(
    sink: &mut dyn Sink,
    opts: &Options,
    clock: ClockInfo<'_>,
    header: &Header,
    src: &mut dyn Source,
    pool: &mut Option<SlotStats>,
) -> Result<(), Changed> {
    let mut r = Report {
        out: Out(sink),
        src,
        opts,
        clock,
        header,
        // (A window's lines add up to its length on every core.)
        length: header.length << CORES.trailing_zeros(),
        printed: Sum::default(),
        survey: Survey::default(),
        surveyed: false,
        stopped: false,
    };
    r.before_tasks()?;
    // Each part apart, so that no part's locals are on the stack under another's
    // calls.
    if opts.json {
        r.json_head();
    } else {
        r.table_head();
    }
    r.printed = r.tasks()?;
    match pool {
        Some(pinned) => r.survey.slots = *pinned,
        None => *pool = Some(r.survey.slots),
    }
    if r.stopped {
        return Ok(());
    }
    if opts.json {
        r.json_tail();
    } else {
        r.table_tail();
    }
    // (Each part in a frame of its own, the idle task's line too: it is written one
    // frame under this one, not under the others'.)
    r.idle_line()?;
    if opts.json {
        r.json_rest()
    } else {
        r.table_rest()
    }
}
