//! The invariants of a report, which every reader checks: what the library promises
//! about its figures whatever the firmware does, so that a report that breaks one is
//! a bug in the library (or a line garbled on its way).
//!
//! Exact, not within a tolerance: counts are integers, and shares are whole
//! hundredths that the library apportions from the counts (cumulative rounding over
//! the lines in ID order), so that they add up to exactly 100.00. A share is read as
//! the nearest binary fraction of its two-decimal text and turned back into whole
//! hundredths ([`crate::wire::hundredths_of`]); nothing is compared in floating point.
//!
//! With several cores (`cores`), the shares are of all the cores' time: the lines'
//! counts add up to the cores times the length, and their shares to 100.00 as on
//! one core. Each core's own line (`per_core`) is rounded down on its own, of that
//! core's time; its invariants bound the cores' shares by the report's counts, which
//! are the cores' summed.

use std::collections::BTreeSet;
use std::fmt;

use crate::types::{CoreLine, Idle, MoreTasks, Note, SinceStart, Slots, Task, TaskHistory, Window};
use crate::wire::{hundredths_of, is_hundredths, name_bytes};

/// One promise of the report's contract.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Invariant {
    /// The line is a JSON report of the kind expected: every field there, of its type.
    Shape,
    /// Read into the types and written out again, the report is its own text byte
    /// for byte: no field unknown, missing or out of place, every share with two
    /// decimals, every name quoted as the device quotes it.
    Text,
    /// The length in microseconds is the length in counts at the clock's rate
    /// (rounded down; 0 without a clock); a window is not empty; a since-start report
    /// has a length exactly when a window has completed.
    Length,
    /// The counts of the lines (tasks, the "more" line, the deleted tasks, idle,
    /// interrupts, sleep, other) add up to the length exactly (with several cores,
    /// the cores times the length).
    Counts,
    /// Every share is a whole number of hundredths from 0.00 to 100.00, and the
    /// lines' shares add up to exactly 100.00 (0.00 when the length is 0).
    Shares,
    /// Each line's share is the floor or the ceiling of its exact share (a line that
    /// sums k tasks: within k hundredths).
    Rounding,
    /// `load_pct` is 100.00 − `idle_pct` − `sleep_pct`, or 0.00 when nothing but idle
    /// and sleep had time.
    Load,
    /// The ID pool: used + quarantined + free = capacity.
    Pool,
    /// IDs: none twice (the idle task's included), none past the capacity, 0 named
    /// `(overflow)` (the shared bucket), the idle task's from 1; no more tasks on the
    /// lines than IDs and the bucket. With several cores the idle tasks share one ID
    /// past the capacity (none of the pool's); with one, the idle task's is the
    /// pool's.
    Ids,
    /// Only the overflow bucket has a `tasks` field, and it is never deleted.
    Overflow,
    /// Deleted tasks: listed one by one in a window report only; time on the
    /// deleted line only when a task was deleted.
    Deleted,
    /// The tasks' order (by ID, or by counts, largest first, ties by ID) and the
    /// "more" line of `-n N`: at least one task, none busier than the last shown.
    Listing,
    /// A line with time has runs; interrupt time has interrupts, sleep has sleeps;
    /// every name stands for bytes.
    Runs,
    /// Since start, each line's history: a longest run has its window, a peak has its
    /// window (a completed one) and is a share; the idle tasks of several cores,
    /// summed, have no peak.
    History,
    /// Several cores: `cores` is absent (one core) or 2 or more, and `per_core` is
    /// there exactly then, one line per core in core order. Each core's shares are
    /// hundredths, rounded down from its counts of its own time: busy + idle + sleep
    /// is 100.00 less at most 0.02 (all 0.00 when the length is 0), interrupts are
    /// within busy, and summed over the cores, each share is bounded by the report's
    /// counts (busy: all but idle and sleep); the cores' interrupts add up to the
    /// report's.
    Cores,
    /// The board's note, when there is one (the demo's promise, not the library's:
    /// [`crate::Note`]): a text, and of its span, the awake time at most the span
    /// and the time held back at most the awake time.
    Note,
    /// A window the event trace holds whole: each slot's time in it, summed from the
    /// trace's events, is the window report's counts for that slot, and the time
    /// between its markers its `window_counts` ([`crate::trace::Trace::check_window`]).
    Trace,
}

impl Invariant {
    /// The promise, in a few words.
    pub fn what(self) -> &'static str {
        match self {
            Invariant::Shape => "a report of the kind expected",
            Invariant::Text => "the report's own text when written out again",
            Invariant::Length => "the length in microseconds and in counts agree",
            Invariant::Counts => "the lines' counts add up to the length exactly",
            Invariant::Shares => "the shares are hundredths adding up to exactly 100.00",
            Invariant::Rounding => "each share within a hundredth of its counts' share",
            Invariant::Load => "load is 100% - idle - sleep",
            Invariant::Pool => "the ID pool adds up to its capacity",
            Invariant::Ids => "one line per ID, within the capacity",
            Invariant::Overflow => "the overflow bucket is the only line with tasks",
            Invariant::Deleted => "deleted tasks where they may be",
            Invariant::Listing => "the tasks in order, the rest summed right",
            Invariant::Runs => "time has runs, names are bytes",
            Invariant::History => "since start, each line's history is placed",
            Invariant::Cores => "each core's line, adding up to the report's",
            Invariant::Note => "the board's note has a text and parts within its span",
            Invariant::Trace => "the trace's time in a window is the window's counts",
        }
    }
}

/// A report that breaks an invariant: which, and how.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Broken {
    /// The invariant broken.
    pub invariant: Invariant,
    /// The figures that break it.
    pub detail: String,
}

impl fmt::Display for Broken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?} ({}): {}", self.invariant, self.invariant.what(), self.detail)
    }
}

impl std::error::Error for Broken {}

fn broken<T>(invariant: Invariant, detail: impl Into<String>) -> Result<T, Broken> {
    Err(Broken { invariant, detail: detail.into() })
}

fn ensure(ok: bool, invariant: Invariant, detail: impl FnOnce() -> String) -> Result<(), Broken> {
    if ok {
        Ok(())
    } else {
        broken(invariant, detail())
    }
}

/// How a report was asked for, for the invariants that depend on it
/// ([`Window::check_shown`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Shown {
    /// `-s`: by counts, largest first (`-n` sorts too).
    pub sorted: bool,
    /// `-n N`: the N busiest, the rest summed.
    pub top: Option<u16>,
    /// `-d`: a window's deleted tasks one by one.
    pub deleted: bool,
}

/// A report of either kind, as the invariants see it.
struct View<'a, H: TaskHistory> {
    since_start: bool,
    mode: &'a str,
    /// The length in counts and its name.
    length: (u64, &'static str),
    /// The length in microseconds and its name.
    us: (u64, &'static str),
    clock_hz: u64,
    /// `cores` as written (absent: one).
    cores: Option<u32>,
    per_core: Option<&'a [CoreLine]>,
    /// Windows completed (since start only).
    windows: u64,
    tasks: &'a [Task<H>],
    slots: &'a Slots,
    more: Option<&'a MoreTasks>,
    /// Tasks summed on the deleted line (window only).
    deleted_tasks: Option<u32>,
    deleted_counts: u64,
    deleted_pct: f64,
    idle: Option<&'a Idle<H>>,
    idle_pct: f64,
    /// (name, counts, share, events: interrupts or sleeps).
    summary: [(&'static str, u64, f64, Option<u64>); 3],
    load_pct: f64,
    load_avg_pct: [Option<f64>; 3],
    note: Option<&'a Note>,
}

/// One line of a report for the sums: what, counts, hundredths, tasks in it.
struct Line {
    what: String,
    counts: u64,
    hundredths: u64,
    tasks: u64,
}

impl<H: TaskHistory> View<'_, H> {
    fn check(&self) -> Result<(), Broken> {
        use Invariant::*;
        let expected_mode = if self.since_start { "cumulative" } else { "window" };
        ensure(self.mode == expected_mode, Shape, || format!("mode {:?}, not {expected_mode:?}", self.mode))?;

        let ((length, length_key), (us, us_key)) = (self.length, self.us);
        let expected_us =
            if self.clock_hz == 0 { 0 } else { u128::from(length) * 1_000_000 / u128::from(self.clock_hz) };
        ensure(u128::from(us) == expected_us, Length, || {
            format!("{us_key} {us} for {length_key} {length} at {} Hz: {expected_us} expected", self.clock_hz)
        })?;
        if self.since_start {
            ensure((length == 0) == (self.windows == 0), Length, || {
                format!("{} windows of {length} counts", self.windows)
            })?;
        } else {
            ensure(length >= 1, Length, || "an empty window".into())?;
        }
        ensure(self.cores.map_or(true, |n| n >= 2), Cores, || format!("cores {:?}: absent on one core", self.cores))?;
        let cores = self.cores.unwrap_or(1);
        // What the lines add up to, and their shares are of.
        let whole = u128::from(length) * u128::from(cores);

        let s = self.slots;
        ensure(
            u64::from(s.used) + u64::from(s.quarantined) + u64::from(s.free) == u64::from(s.capacity),
            Pool,
            || format!("used {} + quarantined {} + free {} != capacity {}", s.used, s.quarantined, s.free, s.capacity),
        )?;

        let mut lines = Vec::new();
        let mut ids = BTreeSet::new();
        for t in self.tasks {
            let what = format!("task {} {:?}", t.id, t.name);
            ensure(t.id <= s.capacity, Ids, || format!("{what}: ID past the capacity {}", s.capacity))?;
            ensure(ids.insert(t.id), Ids, || format!("{what}: a second line with ID {}", t.id))?;
            // (A task may be named "(overflow)" too: the name says nothing of the ID.)
            ensure(t.id != 0 || t.name == "(overflow)", Ids, || format!("{what}: ID 0 is the (overflow) line"))?;
            ensure((t.id == 0) == t.tasks.is_some(), Overflow, || format!("{what}: tasks {:?}", t.tasks))?;
            ensure(!(t.id == 0 && t.deleted), Overflow, || format!("{what}: the bucket deleted"))?;
            ensure(!(t.deleted && self.since_start), Deleted, || format!("{what}: listed deleted since start"))?;
            self.runs(&what, &t.name, t.counts, t.switches)?;
            self.history(&what, &t.history, t.longest_slice_us)?;
            lines.push(line(what, t.counts, t.usage_pct, 1)?);
        }
        let by_id = self.tasks.windows(2).all(|p| p[0].id < p[1].id);
        let by_counts =
            self.tasks.windows(2).all(|p| p[0].counts > p[1].counts || p[0].counts == p[1].counts && p[0].id < p[1].id);
        ensure(by_id || by_counts, Listing, || {
            let order: Vec<(u32, u64)> = self.tasks.iter().map(|t| (t.id, t.counts)).collect();
            format!("neither by ID nor by counts: (ID, counts) {order:?}")
        })?;
        let mut tasks_in_lines = self.tasks.len() as u64;
        if let Some(more) = self.more {
            ensure(more.count >= 1, Listing, || "a \"more\" line of 0 tasks".into())?;
            ensure(by_counts, Listing, || "a \"more\" line after tasks not by counts".into())?;
            // None of them busier than the last one shown.
            let least = self.tasks.last().map_or(0, |t| t.counts);
            ensure(u128::from(more.counts) <= u128::from(least) * u128::from(more.count), Listing, || {
                format!("{} more tasks of {} counts, the last shown has {least}", more.count, more.counts)
            })?;
            tasks_in_lines += u64::from(more.count);
            lines.push(line("the \"more\" line".into(), more.counts, more.usage_pct, u64::from(more.count))?);
        }
        match self.deleted_tasks {
            Some(n) => {
                ensure(n > 0 || self.deleted_counts == 0, Deleted, || {
                    format!("{} counts of no deleted task", self.deleted_counts)
                })?;
                tasks_in_lines += u64::from(n);
                lines.push(line("the deleted line".into(), self.deleted_counts, self.deleted_pct, u64::from(n))?);
            }
            // Since start: the tasks whose IDs were taken, any number of each ID.
            None => lines.push(line(
                "the deleted line".into(),
                self.deleted_counts,
                self.deleted_pct,
                u64::from(s.capacity) + 1,
            )?),
        }
        match self.idle {
            Some(idle) => {
                let what = format!("idle task {} {:?}", idle.id, idle.name);
                if cores == 1 {
                    ensure((1..=s.capacity).contains(&idle.id), Ids, || {
                        format!("{what}: ID out of 1..={}", s.capacity)
                    })?;
                } else {
                    ensure(idle.id > s.capacity, Ids, || {
                        format!("{what}: on {cores} cores, an ID of the pool's 1..={}, not past it", s.capacity)
                    })?;
                    ensure(idle.history.peak_window().is_none(), History, || {
                        format!("{what}: the idle tasks of {cores} cores summed, with a peak")
                    })?;
                }
                ensure(ids.insert(idle.id), Ids, || format!("{what}: its ID is also a task's"))?;
                self.runs(&what, &idle.name, idle.counts, idle.switches)?;
                self.history(&what, &idle.history, idle.longest_slice_us)?;
                lines.push(line(what, idle.counts, self.idle_pct, 1)?);
            }
            None => lines.push(line("idle (none)".into(), 0, self.idle_pct, 1)?),
        }
        // (With several cores, the idle tasks' ID is none of the pool's.)
        let with_idle = tasks_in_lines + u64::from(self.idle.is_some() && cores == 1);
        ensure(with_idle <= u64::from(s.capacity) + 1, Ids, || {
            format!("{with_idle} tasks on the lines, for {} IDs and the bucket", s.capacity)
        })?;
        for (name, counts, pct, _) in self.summary {
            lines.push(line(name.into(), counts, pct, 1)?);
        }

        let counts: u128 = lines.iter().map(|l| u128::from(l.counts)).sum();
        ensure(counts == whole, Counts, || {
            let parts: Vec<String> = lines.iter().map(|l| format!("{} {}", l.what, l.counts)).collect();
            let expected = if cores == 1 {
                format!("{length_key} is {length}")
            } else {
                format!("{cores} cores times {length_key} {length} is {whole}")
            };
            format!("{} = {counts}, but {expected}", parts.join(" + "))
        })?;
        let total: u64 = lines.iter().map(|l| l.hundredths).sum();
        let expected = if length > 0 { 10_000 } else { 0 };
        ensure(total == expected, Shares, || {
            format!("the shares add up to {}.{:02}, not {}.00", total / 100, total % 100, expected / 100)
        })?;
        if whole > 0 {
            // |share − exact| < 1 hundredth: |share × whole − counts × 10000| < whole;
            // for a line of k tasks, < k × whole. (Past 2^50 counts the library
            // scales the counts down first: one more hundredth of slack.)
            let slack = if whole >= 1 << 50 { 2 } else { 1 };
            for l in &lines {
                let (shown, exact) = (u128::from(l.hundredths) * whole, u128::from(l.counts) * 10_000);
                ensure(shown.abs_diff(exact) < u128::from(l.tasks.max(1)) * slack * whole, Rounding, || {
                    format!("{}: {} hundredths for {} of {whole} counts", l.what, l.hundredths, l.counts)
                })?;
            }
        }

        for (name, counts, _, events) in self.summary {
            if let Some(n) = events {
                ensure(counts == 0 || n >= 1, Runs, || format!("{name}: {counts} counts in {n} of them"))?;
            }
        }

        let idle_counts = self.idle.map_or(0, |i| i.counts);
        let (sleep_counts, sleep_pct) = (self.summary[1].1, self.summary[1].2);
        // (Counts add up: idle and sleep are within the length.)
        let busy = whole.saturating_sub(u128::from(idle_counts)).saturating_sub(u128::from(sleep_counts));
        let load = if busy == 0 {
            0
        } else {
            10_000u64.saturating_sub(hundredths_of(self.idle_pct)).saturating_sub(hundredths_of(sleep_pct))
        };
        ensure(is_hundredths(self.load_pct) && hundredths_of(self.load_pct) == load, Load, || {
            format!("load_pct {} with idle {} and sleep {}", self.load_pct, self.idle_pct, sleep_pct)
        })?;
        self.cores_lines(cores, length, idle_counts)?;
        for a in self.load_avg_pct.iter().flatten() {
            ensure(is_hundredths(*a), Shares, || format!("load_avg_pct {:?}", self.load_avg_pct))?;
        }
        if let Some(n) = self.note {
            ensure(!n.text.is_empty() && n.held_back_us <= n.awake_us && n.awake_us <= n.span_us, Note, || {
                format!("note {n:?}")
            })?;
        }
        Ok(())
    }

    /// `per_core`, of a report on `cores` cores of `span` counts each, whose idle
    /// tasks had `idle_counts` together.
    fn cores_lines(&self, cores: u32, span: u64, idle_counts: u64) -> Result<(), Broken> {
        use Invariant::Cores;
        let Some(lines) = self.per_core else {
            return ensure(cores == 1, Cores, || format!("no per_core on {cores} cores"));
        };
        ensure(cores > 1, Cores, || "per_core on one core".into())?;
        ensure(lines.len() == cores as usize, Cores, || format!("{} per_core lines on {cores} cores", lines.len()))?;
        // The cores' hundredths of busy, idle, interrupts, sleep, summed.
        let mut sums = [0u64; 4];
        let mut interrupts = 0u64;
        for (k, c) in lines.iter().enumerate() {
            let what = format!("per_core line {k} (core {})", c.core);
            ensure(c.core as usize == k, Cores, || format!("{what}: out of core order"))?;
            let shares = [c.busy_pct, c.idle_pct, c.interrupts_pct, c.sleep_pct];
            for (name, pct) in ["busy", "idle", "interrupts", "sleep"].iter().zip(shares) {
                ensure(is_hundredths(pct), Cores, || format!("{what}: {name} {pct} is not hundredths of 0 to 100"))?;
            }
            let [busy, idle, isr, sleep] = shares.map(hundredths_of);
            // Three parts of the core's time, each rounded down: 100.00 less under
            // 0.03. (Past 2^50 counts the library scales the counts down first: a
            // hundredth more.)
            let range = match span {
                0 => 0..=0,
                s if s >= 1 << 50 => 9_997..=10_000,
                _ => 9_998..=10_000,
            };
            let sum = busy + idle + sleep;
            ensure(range.contains(&sum), Cores, || {
                format!("{what}: busy {busy} + idle {idle} + sleep {sleep} hundredths is {sum}")
            })?;
            ensure(isr <= busy, Cores, || format!("{what}: interrupts {isr} hundredths, busy {busy}"))?;
            for (a, b) in sums.iter_mut().zip([busy, idle, isr, sleep]) {
                *a += b;
            }
            interrupts = interrupts.saturating_add(c.interrupts);
        }
        let (isr_counts, isr_runs) = (self.summary[0].1, self.summary[0].3.unwrap_or(0));
        ensure(interrupts == isr_runs, Cores, || {
            format!("the cores' interrupts add up to {interrupts}, not {isr_runs}")
        })?;
        // Each core's share is its counts' share of `span` rounded down, so the
        // cores' together, times `span`, are within `cores` hundredths below the
        // report's counts (× 10000).
        let (sleep_counts, all) = (self.summary[1].1, u128::from(span) * u128::from(cores));
        let busy_counts = all.saturating_sub(u128::from(idle_counts)).saturating_sub(u128::from(sleep_counts));
        let counts = [busy_counts, u128::from(idle_counts), u128::from(isr_counts), u128::from(sleep_counts)];
        let slack = if span >= 1 << 50 { 2 } else { 1 };
        let (span, n) = (u128::from(span), u128::from(cores));
        for ((name, hundredths), counts) in ["busy", "idle", "interrupts", "sleep"].iter().zip(sums).zip(counts) {
            let (shown, exact) = (u128::from(hundredths) * span, counts * 10_000);
            let within = if span == 0 {
                hundredths == 0
            } else {
                shown <= exact + (slack - 1) * n * span && exact < shown + slack * n * span
            };
            ensure(within, Cores, || {
                format!(
                    "the cores' {name} shares add up to {hundredths} hundredths of {span} counts, for {counts} counts"
                )
            })?;
        }
        Ok(())
    }

    /// A task's (or the idle task's) runs and name.
    fn runs(&self, what: &str, name: &str, counts: u64, switches: u64) -> Result<(), Broken> {
        ensure(counts == 0 || switches >= 1, Invariant::Runs, || format!("{what}: {counts} counts in no run"))?;
        ensure(name_bytes(name).is_some(), Invariant::Runs, || format!("{what}: a name that is not bytes"))
    }

    fn history(&self, what: &str, history: &H, longest_slice_us: u64) -> Result<(), Broken> {
        match history.broken(longest_slice_us, self.windows) {
            Some(why) => broken(Invariant::History, format!("{what}: {why}")),
            None => Ok(()),
        }
    }
}

fn line(what: String, counts: u64, pct: f64, tasks: u64) -> Result<Line, Broken> {
    ensure(is_hundredths(pct), Invariant::Shares, || format!("{what}: share {pct} is not hundredths of 0 to 100"))?;
    Ok(Line { what, counts, hundredths: hundredths_of(pct), tasks })
}

impl Window {
    fn view(&self) -> View<'_, crate::types::InWindow> {
        View {
            since_start: false,
            mode: &self.mode,
            length: (self.window_counts, "window_counts"),
            us: (self.window_us, "window_us"),
            clock_hz: self.clock_hz,
            cores: self.cores,
            per_core: self.per_core.as_deref(),
            windows: 0,
            tasks: &self.tasks,
            slots: &self.slots,
            more: self.more_tasks.as_ref(),
            deleted_tasks: Some(self.deleted.deleted_tasks),
            deleted_counts: self.deleted_counts,
            deleted_pct: self.deleted_pct,
            idle: self.idle.as_ref(),
            idle_pct: self.idle_pct,
            summary: [
                ("interrupts", self.interrupts_counts, self.interrupts_pct, Some(self.interrupts)),
                ("sleep", self.sleep_counts, self.sleep_pct, Some(self.sleeps)),
                ("other", self.other_counts, self.other_pct, None),
            ],
            load_pct: self.load_pct,
            load_avg_pct: self.load_avg_pct,
            note: self.note.as_ref(),
        }
    }

    /// Every invariant a window report keeps whatever options asked for it.
    pub fn check(&self) -> Result<(), Broken> {
        self.view().check()
    }

    /// The invariants that depend on the options it was asked with: the order, `-n`'s
    /// number of tasks and its "more" line (only when N are shown), `-d`.
    pub fn check_shown(&self, shown: Shown) -> Result<(), Broken> {
        check_shown(&self.view(), shown)?;
        ensure(!self.tasks.iter().any(|t| t.deleted) || shown.deleted, Invariant::Deleted, || {
            "a deleted task listed without -d".into()
        })?;
        ensure(!shown.deleted || self.deleted.deleted_tasks == 0, Invariant::Deleted, || {
            format!("-d and {} deleted tasks summed", self.deleted.deleted_tasks)
        })
    }
}

impl SinceStart {
    fn view(&self) -> View<'_, crate::types::History> {
        View {
            since_start: true,
            mode: &self.mode,
            length: (self.uptime_counts, "uptime_counts"),
            us: (self.uptime_us, "uptime_us"),
            clock_hz: self.clock_hz,
            cores: self.cores,
            per_core: self.per_core.as_deref(),
            windows: self.windows,
            tasks: &self.tasks,
            slots: &self.slots,
            more: self.more_tasks.as_ref(),
            deleted_tasks: None,
            deleted_counts: self.deleted_counts,
            deleted_pct: self.deleted_pct,
            idle: self.idle.as_ref(),
            idle_pct: self.idle_pct,
            summary: [
                ("interrupts", self.interrupts_counts, self.interrupts_pct, Some(self.interrupts)),
                ("sleep", self.sleep_counts, self.sleep_pct, Some(self.sleeps)),
                ("other", self.other_counts, self.other_pct, None),
            ],
            load_pct: self.load_pct,
            load_avg_pct: self.load_avg_pct,
            note: self.note.as_ref(),
        }
    }

    /// Every invariant a since-start report keeps whatever options asked for it.
    pub fn check(&self) -> Result<(), Broken> {
        self.view().check()
    }

    /// As [`Window::check_shown`] (`-d` changes nothing since start).
    pub fn check_shown(&self, shown: Shown) -> Result<(), Broken> {
        check_shown(&self.view(), shown)
    }
}

fn check_shown<H: TaskHistory>(v: &View<'_, H>, shown: Shown) -> Result<(), Broken> {
    let sorted = shown.sorted || shown.top.is_some();
    let in_order = |a: &Task<H>, b: &Task<H>| {
        if sorted {
            a.counts > b.counts || a.counts == b.counts && a.id < b.id
        } else {
            a.id < b.id
        }
    };
    ensure(v.tasks.windows(2).all(|p| in_order(&p[0], &p[1])), Invariant::Listing, || {
        let order: Vec<(u32, u64)> = v.tasks.iter().map(|t| (t.id, t.counts)).collect();
        format!("(ID, counts) {order:?} not {}", if sorted { "by counts" } else { "by ID" })
    })?;
    if let Some(n) = shown.top {
        ensure(v.tasks.len() <= usize::from(n), Invariant::Listing, || format!("{} tasks for -n {n}", v.tasks.len()))?;
    }
    ensure(v.more.is_none() || shown.top.is_some_and(|n| v.tasks.len() == usize::from(n)), Invariant::Listing, || {
        format!("a \"more\" line after {} tasks ({shown:?})", v.tasks.len())
    })
}
