// Model-based property tests of the engine.
//
// The model is written for clarity, not speed, and shares nothing with the engine's
// mechanics. Time is a `u64` that never wraps (the engine sees it truncated to 32
// bits). Every stretch between two hooks is kept as a segment (from, to, who); a
// window is a pair of boundaries, and its figures are the overlaps of the segments
// with it. A run's length is what its slot was charged since the run began (a
// difference of two since-start totals), so the model never subtracts interrupts or
// sleep from anything. Tasks are a plain list with the window they were born and
// died in; the ID pool is a set of free IDs and a queue of (ID, window of death).
// There are no lazy counters, window numbers modulo 2^32, bitmaps or links: where
// model and engine agree, it is because both do what the module docs say.
//
// What the model takes from the docs as the specification:
// - a window closes at the first hook that sees it has run its length; it ends at
//   `start + length`, or at the last reading if that is later (the window was
//   shortened), or at the hook's own reading if the hook came two or more lengths
//   after the start (a stall: nobody saw the next window, so none is invented);
// - a window shows every task that existed during it (born in or before it, not
//   dead before it), marked deleted if it died in or before it (not after: a report
//   is of the window's end); since start shows the tasks that existed at the end of
//   the last completed window;
// - a create first returns at most one ID to the free set: the longest-quarantined,
//   if it died two or more windows ago; then it takes the lowest free ID, or 0;
// - time inside the outermost interrupt handler is charged to interrupts (nested
//   enters and exits only count the depth, and an exit at depth 0 does nothing);
//   time between a sleep's begin and end, outside handlers, to sleep; the rest to the
//   task switched in (to "other" before the first);
// - a run is one go of one slot: a task from its switch-in (switched in inside a
//   handler or a sleep: from when that ends) to its next switch; an interrupt from
//   the outermost enter to its exit; a sleep from begin to end. Its length is what
//   the slot was charged in between. A window counts the runs that end in it and
//   those still going on when it closes, with their length then; a length of 2^32
//   counts or more reads as `u32::MAX` (a `u32` figure, saturated: see
//   `a_run_longer_than_the_counter_saturates` in tests.rs);
// - since start: runs summed over the windows; the longest run and the earliest
//   window that had it; the completed window with the largest share, the earliest
//   of equals (exactly so while every window has had the length the run started
//   with: the engine then takes the length set now, see `Model::regular`);
// - at each close, busy = length - idle - sleep goes into three exponentially
//   weighted averages in 16-bit fixed point; the load watchdog trips at the `K`-th
//   window in a row above its threshold, and the slice watchdog at a window with a
//   task's run over the limit after a window without one, naming the longest (the
//   idle task's runs are not slices: see `the_idle_task_running_long_is_not_a_slice`
//   in tests.rs).
//
// Clock contract: the engine compares times modulo 2^32 against the start of the
// window under way, so no hook may come 2^32 counts or more after that start. Windows
// are at most 2^31 counts, so any gap below 2^31 is safe; the generated steps are
// capped at the exact limit (see `Model::max_step`). "At most one wrap between two
// hooks" is not enough: a hook 2^32 - 500 counts after one at 900 into a 1000-count
// window finds the window 400 counts old, so neither closes it nor absorbs the stall.

use super::*;
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet, VecDeque};

const CAP: u32 = IDS as u32;
const WRAP: u64 = 1 << 32;

// ---- The model ----------------------------------------------------------------------

/// Who a stretch of time is charged to.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Who {
    Other,
    /// ID 0: tasks created when every ID was taken, and switch-ins of unknown IDs.
    Overflow,
    /// A task with its own ID, by index into `Model::tasks`.
    Task(usize),
    Isr,
    Sleep,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Life {
    Alive,
    /// Deleted itself, still running until the next switch.
    Dying,
    Dead,
}

struct Task {
    id: u32,
    name: [u8; NAME_LEN],
    born: usize,
    /// Window of death: of the delete, or of the next switch after a self-delete.
    died: Option<usize>,
    life: Life,
}

impl Task {
    fn existed_in(&self, window: usize) -> bool {
        self.born <= window && self.died.map_or(true, |d| d >= window)
    }

    /// It is in the since-start report with window `window` under way: it existed
    /// at the end of the window before; before any window has completed, it lives.
    fn in_since_start(&self, window: usize) -> bool {
        if window == 0 {
            return self.life != Life::Dead;
        }
        self.born < window && self.died.map_or(true, |d| d >= window)
    }
}

struct Segment {
    from: u64,
    to: u64,
    who: Who,
}

/// The runs of one slot in one window: how many, and the longest (as the engine
/// shows it, saturated).
#[derive(Clone, Copy, Default, Debug)]
struct Runs {
    count: u64,
    longest: u64,
}

/// One slot's since-start figures over the completed windows.
#[derive(Clone, Copy, Default)]
struct Since {
    runs: u64,
    longest: u64,
    longest_window: usize,
    /// Counts, length and number of the window with the largest share.
    peak: Option<(u64, u64, usize)>,
}

/// A report line as plain data (the peak is checked apart: see `Model::regular`).
#[derive(Clone, Copy, PartialEq, Eq)]
struct Line {
    kind: RowKind,
    id: u16,
    name: [u8; NAME_LEN],
    counts: u64,
    deleted: bool,
    runs: u64,
    longest: u32,
    longest_window: u32,
}

impl std::fmt::Debug for Line {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let end = self.name.iter().position(|&b| b == 0).unwrap_or(NAME_LEN);
        let name = String::from_utf8_lossy(&self.name[..end]);
        let deleted = if self.deleted { " (deleted)" } else { "" };
        let (kind, id, counts, runs) = (self.kind, self.id, self.counts, self.runs);
        let (longest, window) = (self.longest, self.longest_window);
        write!(f, "{kind:?} {id} {name:?}{deleted}: {counts} counts, {runs} runs, longest {longest} in window {window}")
    }
}

/// Fails with the first row that differs, not two whole reports.
fn assert_lines(got: &[Row], want: &[(Line, Who)], what: &str) {
    let got = lines(got);
    let want: Vec<Line> = want.iter().map(|l| l.0).collect();
    if got != want {
        let at = got.iter().zip(&want).position(|(g, w)| g != w).unwrap_or(got.len().min(want.len()));
        panic!(
            "{what}: {} rows, want {}; row {at} is\n  {:?}\nwant\n  {:?}",
            got.len(),
            want.len(),
            got.get(at),
            want.get(at)
        );
    }
}

/// Which watchdog, in a build without them: the model judges the windows all the
/// same, and the engine must trip nothing.
#[cfg(not(feature = "watchdogs"))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AlertKind {
    Load,
    Slice,
}

/// An alert the engine must hand out; a slice alert may name any of the slots whose
/// runs tie for the longest.
#[derive(Debug)]
#[cfg_attr(not(feature = "watchdogs"), allow(dead_code))]
struct WantAlert {
    kind: AlertKind,
    window: u32,
    value: u32,
    limit: u32,
    named: Vec<(u16, [u8; NAME_LEN])>,
}

/// The settings a run starts with.
#[derive(Clone, Debug)]
struct Setup {
    start: u32,
    win_len: u32,
    idle: bool,
    /// Tasks the application creates before the scheduler starts (and so before the
    /// idle task): past the IDs there are, the idle task lands in the overflow
    /// bucket and must leave it as the scheduler starts.
    before: usize,
    /// No window change and no stall: every window has the same length, so the
    /// since-start peaks must be exact.
    steady: bool,
    smooth: [u32; 3],
    /// Load watchdog: hundredths of a percent, windows (0: off).
    load_watch: (u32, u32),
    slice_watch: Option<u32>,
}

struct Model {
    start: u64,
    /// Time of the last hook.
    last: u64,
    win_len: u64,
    /// `bounds[k]` is where window `k` starts; the last entry is the window under way.
    bounds: Vec<u64>,
    /// Figures of every completed window, taken from the segments when it closed.
    closed: Vec<BTreeMap<Who, u64>>,
    segments: Vec<Segment>,
    totals: BTreeMap<Who, u64>,
    tasks: Vec<Task>,
    /// What is switched in, if anything: who is charged, and the task if it is one.
    running: Option<(Who, Option<usize>)>,
    free: BTreeSet<u32>,
    quarantine: VecDeque<(u32, usize)>,
    idle: u32,
    /// The scheduler has started: the IDs kept for the kernel's tasks are for all.
    scheduling: bool,
    /// Interrupt nesting depth, and whether a sleep is under way.
    isr_depth: u32,
    asleep: bool,
    /// Runs under way, each with its slot's since-start total when it began. The
    /// task's is `None` before the first switch, and while a task switched in inside
    /// a handler or a sleep waits for it to end.
    task_run: Option<(Who, u64)>,
    isr_run: Option<u64>,
    sleep_run: Option<u64>,
    /// Runs per slot in every window; the last entry is the window under way.
    runs: Vec<BTreeMap<Who, Runs>>,
    /// Since-start figures over the completed windows.
    since: BTreeMap<Who, Since>,
    /// Every window so far had the length set at the start, which is still set: the
    /// engine's since-start peak is then exact. (Otherwise it divides a window that
    /// was not folded right after it by the length set now, as its docs say.)
    regular: bool,
    /// Every window length that has been set.
    nominal: BTreeSet<u64>,
    /// Slots charged (if only 0 counts) or ending a run in each window: a slot's
    /// window is folded into its since-start figures when it is next charged, with
    /// its exact length if that is in the window right after it.
    touched: Vec<BTreeSet<Who>>,
    smooth: [u32; 3],
    load_avg: [Smoothed; 3],
    load_watch: (u32, u32),
    /// Windows in a row above the load threshold, up to the last completed one.
    load_streak: u32,
    slice_watch: Option<u32>,
    /// The last completed window had a task's run over the slice limit.
    slice_before: bool,
    /// Alerts tripped by the last hook, in the order `take_alert` hands them out.
    alerts: Vec<WantAlert>,
}

/// What the engine keeps of a name: up to the first NUL, at most `NAME_LEN` bytes.
fn stored_name(name: &[u8]) -> [u8; NAME_LEN] {
    let mut out = [0; NAME_LEN];
    for (i, &b) in name.iter().enumerate() {
        if b == 0 || i == NAME_LEN {
            break;
        }
        out[i] = b;
    }
    out
}

/// A length as a `u32` figure shows it.
fn saturated(len: u64) -> u64 {
    len.min(u64::from(u32::MAX))
}

impl Model {
    fn new(setup: &Setup) -> Model {
        let start = u64::from(setup.start);
        let win_len = u64::from(setup.win_len);
        Model {
            start,
            last: start,
            win_len,
            bounds: vec![start],
            closed: Vec::new(),
            segments: Vec::new(),
            totals: BTreeMap::new(),
            tasks: Vec::new(),
            running: None,
            free: (1..=CAP).collect(),
            quarantine: VecDeque::new(),
            idle: 0,
            scheduling: false,
            isr_depth: 0,
            asleep: false,
            task_run: None,
            isr_run: None,
            sleep_run: None,
            runs: vec![BTreeMap::new()],
            since: BTreeMap::new(),
            regular: true,
            nominal: BTreeSet::from([win_len]),
            touched: vec![BTreeSet::new()],
            smooth: setup.smooth.map(|k| k.min(SMOOTH_ONE)),
            load_avg: [Smoothed::default(); 3],
            load_watch: setup.load_watch,
            load_streak: 0,
            slice_watch: setup.slice_watch,
            slice_before: false,
            alerts: Vec::new(),
        }
    }

    fn window(&self) -> usize {
        self.bounds.len() - 1
    }

    fn win_start(&self) -> u64 {
        self.bounds[self.window()]
    }

    /// The longest step from `base` to the next hook that keeps within the clock
    /// contract: less than 2^32 counts from the window's start, and less than 2^32
    /// minus `MAX_STEP_BACK` from the last reading (more reads as a step back).
    fn max_step(&self, base: u64) -> u64 {
        WRAP - 1 - u64::from(MAX_STEP_BACK) - (base - self.win_start())
    }

    /// Counts per `Who` between `from` and `to`.
    fn figures(&self, from: u64, to: u64) -> BTreeMap<Who, u64> {
        let mut out = BTreeMap::new();
        // Segments are in time order; only the last few can reach into recent windows.
        for s in self.segments.iter().rev() {
            if s.to <= from {
                break;
            }
            let (lo, hi) = (s.from.max(from), s.to.min(to));
            if hi > lo {
                *out.entry(s.who).or_insert(0) += hi - lo;
            }
        }
        out
    }

    fn paused(&self) -> bool {
        self.isr_depth > 0 || self.asleep
    }

    /// Who the time is charged to now.
    fn charged(&self) -> Who {
        if self.isr_depth > 0 {
            Who::Isr
        } else if self.asleep {
            Who::Sleep
        } else {
            self.running.map_or(Who::Other, |r| r.0)
        }
    }

    fn charge_until(&mut self, t: u64) {
        if t > self.last {
            let who = self.charged();
            self.segments.push(Segment { from: self.last, to: t, who });
            *self.totals.entry(who).or_insert(0) += t - self.last;
            self.last = t;
        }
    }

    /// A run of `who` that lasted `len` counts ends, or goes on past a window's end:
    /// it counts in the window under way. ("Other" is not a slot anybody sees.)
    fn note_run(&mut self, who: Who, len: u64) {
        if who == Who::Other {
            return;
        }
        self.touched.last_mut().unwrap().insert(who);
        let r = self.runs.last_mut().unwrap().entry(who).or_default();
        r.count += 1;
        r.longest = r.longest.max(saturated(len));
    }

    /// Any hook at `now`: close the window under way if it has run its length, then
    /// charge the time since the last hook.
    fn hook(&mut self, now: u64) {
        let w = self.win_start();
        assert!(now >= self.last && now - w < WRAP - u64::from(MAX_STEP_BACK), "test bug: clock contract broken");
        if now - w >= self.win_len {
            let end = if now - w < 2 * self.win_len { (w + self.win_len).max(self.last) } else { now };
            self.charge_until(end);
            self.close(end);
        }
        self.charge_until(now);
        let who = self.charged();
        self.touched.last_mut().unwrap().insert(who);
    }

    /// The window under way ends at `end` (charged up to there).
    fn close(&mut self, end: u64) {
        let k = self.window();
        let start = self.bounds[k];
        let len = end - start;
        // Runs still going on count here, with their length so far.
        let going_on: Vec<(Who, u64)> =
            [self.task_run, self.isr_run.map(|base| (Who::Isr, base)), self.sleep_run.map(|base| (Who::Sleep, base))]
                .into_iter()
                .flatten()
                .collect();
        for (who, base) in going_on {
            self.note_run(who, self.total(who) - base);
        }
        let figures = self.figures(start, end);
        let fig = |who| figures.get(&who).copied().unwrap_or(0);
        self.regular &= len == self.win_len && self.nominal.len() == 1;

        // Smoothed loads.
        let idle_task = self.tasks.iter().position(|t| self.idle != 0 && t.id == self.idle);
        let busy = len - idle_task.map_or(0, |i| fig(Who::Task(i))) - fig(Who::Sleep);
        for (avg, &keep) in self.load_avg.iter_mut().zip(self.smooth.iter()) {
            let (keep, one) = (u128::from(keep), 1u128 << 16);
            let ewma = |old: u64, new: u64| -> u64 {
                let v = (u128::from(old) * keep + (u128::from(new) << 16) * (one - keep)) >> 16;
                u64::try_from(v).unwrap()
            };
            *avg = Smoothed { busy: ewma(avg.busy, busy), len: ewma(avg.len, len) };
        }

        // Watchdogs.
        let (pct, windows) = self.load_watch;
        if windows != 0 {
            if u128::from(busy) * 10_000 > u128::from(pct) * u128::from(len) {
                self.load_streak += 1;
                if self.load_streak == windows {
                    let (window, value, limit, named) = (k as u32, busy as u32, len as u32, vec![(0, [0; NAME_LEN])]);
                    self.alerts.push(WantAlert { kind: AlertKind::Load, window, value, limit, named });
                }
            } else {
                self.load_streak = 0;
            }
        }
        // The idle task running long is an idle system, not a task hogging the CPU.
        let idle = idle_task.map_or(Who::Other, Who::Task);
        let task_runs: Vec<(Who, u64)> = self.runs[k]
            .iter()
            .filter(|&(&who, _)| matches!(who, Who::Task(_) | Who::Overflow) && who != idle)
            .map(|(&who, r)| (who, r.longest))
            .collect();
        let longest = task_runs.iter().map(|r| r.1).max().unwrap_or(0);
        let over = self.slice_watch.is_some_and(|limit| longest > u64::from(limit));
        if over && !self.slice_before {
            let named = task_runs
                .iter()
                .filter(|r| r.1 == longest)
                .map(|r| match r.0 {
                    Who::Task(i) => (self.tasks[i].id as u16, self.tasks[i].name),
                    _ => (OVERFLOW_ID as u16, [0; NAME_LEN]),
                })
                .collect();
            let (window, value, limit) = (k as u32, longest as u32, self.slice_watch.unwrap());
            self.alerts.push(WantAlert { kind: AlertKind::Slice, window, value, limit, named });
        }
        self.slice_before = over;

        // Since start.
        let whos: BTreeSet<Who> = figures.keys().chain(self.runs[k].keys()).copied().collect();
        for who in whos {
            let (counts, runs) = (fig(who), self.runs[k].get(&who).copied().unwrap_or_default());
            let s = self.since.entry(who).or_default();
            s.runs += runs.count;
            if runs.longest > s.longest {
                (s.longest, s.longest_window) = (runs.longest, k);
            }
            let larger = match s.peak {
                None => true,
                Some((c, l, _)) => u128::from(counts) * u128::from(l) > u128::from(c) * u128::from(len),
            };
            if counts != 0 && larger {
                s.peak = Some((counts, len, k));
            }
        }
        self.bounds.push(end);
        self.closed.push(figures);
        self.runs.push(BTreeMap::new());
        self.touched.push(BTreeSet::new());
    }

    /// The task switched in begins its run if nothing holds it back any more.
    fn resume(&mut self) {
        if !self.paused() && self.task_run.is_none() {
            if let Some((who, _)) = self.running {
                self.task_run = Some((who, self.total(who)));
            }
        }
    }

    /// After the hook: `who` is switched in; the run of the one before ends.
    fn switch_in(&mut self, who: (Who, Option<usize>)) {
        if let Some((old, base)) = self.task_run.take() {
            self.note_run(old, self.total(old) - base);
        }
        self.running = Some(who);
        self.resume();
    }

    /// After the hook: the outermost interrupt handler begins (or ends, below).
    fn isr_begin(&mut self) {
        self.isr_depth = 1;
        self.isr_run = Some(self.total(Who::Isr));
    }

    fn isr_end(&mut self) {
        let base = self.isr_run.take().unwrap();
        self.note_run(Who::Isr, self.total(Who::Isr) - base);
        self.isr_depth = 0;
        self.resume();
    }

    fn sleep_begin(&mut self) {
        self.asleep = true;
        self.sleep_run = Some(self.total(Who::Sleep));
    }

    fn sleep_end(&mut self) {
        let base = self.sleep_run.take().unwrap();
        self.note_run(Who::Sleep, self.total(Who::Sleep) - base);
        self.asleep = false;
        self.resume();
    }

    fn create(&mut self, name: &[u8]) -> u32 {
        let k = self.window();
        if let Some(&(id, died)) = self.quarantine.front() {
            if k - died >= 2 {
                self.quarantine.pop_front();
                self.free.insert(id);
            }
        }
        // Until the scheduler starts, the highest IDs wait for the kernel's tasks.
        let kept = |id: u32| id as usize > IDS - KEPT_FOR_KERNEL;
        let id = match self.free.first() {
            Some(&id) if self.scheduling || !kept(id) => self.free.pop_first().unwrap(),
            _ => OVERFLOW_ID,
        };
        if id != OVERFLOW_ID {
            // What the quarantine is for: no task that existed in the published window
            // or the one under way may have had this ID.
            for t in self.tasks.iter().filter(|t| t.id == id) {
                let shown = t.existed_in(k) || (k > 0 && t.existed_in(k - 1));
                assert!(!shown, "ID {id} handed out in window {k} while its task (died {:?}) is shown", t.died);
            }
        }
        self.tasks.push(Task { id, name: stored_name(name), born: k, died: None, life: Life::Alive });
        id
    }

    /// Task `i` stops existing now.
    fn kill(&mut self, i: usize) {
        let k = self.window();
        let t = &mut self.tasks[i];
        t.life = Life::Dead;
        t.died = Some(k);
        if t.id != OVERFLOW_ID {
            self.quarantine.push_back((t.id, k));
        }
    }

    /// Who a switch-in of `id` charges: the live task holding it, else ID 0.
    fn resolve(&self, id: u32) -> (Who, Option<usize>) {
        let holder =
            (id != OVERFLOW_ID).then(|| self.tasks.iter().position(|t| t.id == id && t.life == Life::Alive)).flatten();
        match holder {
            Some(i) => (Who::Task(i), Some(i)),
            None => (Who::Overflow, None),
        }
    }

    fn live_overflow_tasks(&self) -> u32 {
        self.tasks.iter().filter(|t| t.id == OVERFLOW_ID && t.life == Life::Alive).count() as u32
    }

    /// Tasks in the overflow bucket at any time in window `k` (the minimal build
    /// keeps no such count: those in it now).
    fn overflow_in(&self, k: usize) -> u32 {
        if cfg!(not(feature = "shell")) {
            return self.live_overflow_tasks();
        }
        self.tasks.iter().filter(|t| t.id == OVERFLOW_ID && t.existed_in(k)).count() as u32
    }

    /// Tasks in the overflow bucket at any time since start (the minimal build: those
    /// in it now).
    fn overflow_ever(&self) -> u32 {
        if cfg!(not(feature = "shell")) {
            return self.live_overflow_tasks();
        }
        self.tasks.iter().filter(|t| t.id == OVERFLOW_ID).count() as u32
    }

    /// A kernel task `i` (idle, timer) as the scheduler starts: out of the overflow
    /// bucket into an ID of its own, which the IDs kept for it guarantee.
    fn kernel_task(&mut self, i: usize) -> u32 {
        if self.tasks[i].id == OVERFLOW_ID && !self.scheduling {
            self.tasks[i].id = self.free.pop_first().expect("an ID kept for the kernel's tasks");
        }
        self.tasks[i].id
    }

    fn kind(&self, id: u32) -> RowKind {
        if id == self.idle && id != OVERFLOW_ID {
            RowKind::Idle
        } else {
            RowKind::Task
        }
    }

    fn slots(&self) -> SlotStats {
        let k = self.window();
        let used = self.tasks.iter().filter(|t| t.id != OVERFLOW_ID && t.life != Life::Dead).count() as u32;
        let waiting = self.quarantine.iter().filter(|&&(_, died)| k - died < 2).count() as u32;
        let ready = self.quarantine.len() as u32 - waiting;
        let free = self.free.len() as u32 + ready;
        assert_eq!(used + waiting + free, CAP, "model bug: pool does not add up");
        SlotStats { capacity: CAP, used, quarantined: waiting, free, overflow_tasks: self.live_overflow_tasks() }
    }

    /// Own-ID tasks that existed during window `k`, with their indices, in ID order.
    fn shown_in(&self, k: usize) -> Vec<(u32, usize)> {
        let mut shown: Vec<(u32, usize)> = (0..self.tasks.len())
            .filter(|&i| self.tasks[i].id != OVERFLOW_ID && self.tasks[i].existed_in(k))
            .map(|i| (self.tasks[i].id, i))
            .collect();
        shown.sort();
        for pair in shown.windows(2) {
            assert_ne!(pair[0].0, pair[1].0, "two tasks under ID {} in window {k}", pair[0].0);
        }
        shown
    }

    /// A line of a window report or the since-start one, and the slot behind it.
    fn line(&self, who: Who, kind: RowKind, counts: u64, runs: Runs, longest_window: usize) -> (Line, Who) {
        let (id, name, deleted) = match who {
            // Deleted as of the last completed window's end: not a deletion after it.
            Who::Task(i) => {
                let t = &self.tasks[i];
                (t.id as u16, t.name, t.life == Life::Dead && t.died.is_some_and(|d| d < self.window()))
            }
            _ => (0, [0; NAME_LEN], false),
        };
        let (runs, longest, longest_window) = (runs.count, runs.longest as u32, longest_window as u32);
        (Line { kind, id, name, counts, deleted, runs, longest, longest_window }, who)
    }

    /// The rows the engine must publish for completed window `k`.
    fn window_lines(&self, k: usize) -> Vec<(Line, Who)> {
        let fig = |who| self.closed[k].get(&who).copied().unwrap_or(0);
        let runs = |who| self.runs[k].get(&who).copied().unwrap_or_default();
        let mut lines = Vec::new();
        let overflow = fig(Who::Overflow);
        if overflow != 0 || self.overflow_in(k) != 0 {
            lines.push(self.line(Who::Overflow, RowKind::Overflow, overflow, runs(Who::Overflow), k));
        }
        for (id, i) in self.shown_in(k) {
            let who = Who::Task(i);
            lines.push(self.line(who, self.kind(id), fig(who), runs(who), k));
        }
        lines.push(self.line(Who::Isr, RowKind::Interrupts, fig(Who::Isr), runs(Who::Isr), k));
        lines.push(self.line(Who::Sleep, RowKind::Sleep, fig(Who::Sleep), runs(Who::Sleep), k));
        lines
    }

    fn total(&self, who: Who) -> u64 {
        self.totals.get(&who).copied().unwrap_or(0)
    }

    /// A slot's since-start runs, longest run and its window: the completed windows.
    fn since_start(&self, who: Who) -> (Runs, usize) {
        let s = self.since.get(&who).copied().unwrap_or_default();
        (Runs { count: s.runs, longest: s.longest }, s.longest_window)
    }

    /// A slot's counts in the completed windows.
    fn completed(&self, who: Who) -> u64 {
        self.closed.iter().map(|f| f.get(&who).copied().unwrap_or(0)).sum()
    }

    /// Since-start rows, and the time of tasks that no longer exist.
    fn cumulative_lines(&self) -> (Vec<(Line, Who)>, u64) {
        let mut lines = Vec::new();
        let mut push = |who, kind| {
            let (runs, window) = self.since_start(who);
            lines.push(self.line(who, kind, self.completed(who), runs, window));
        };
        if self.completed(Who::Overflow) != 0 || self.overflow_ever() != 0 {
            push(Who::Overflow, RowKind::Overflow);
        }
        let mut existing: Vec<(u32, usize)> = Vec::new();
        let mut deleted = 0;
        for (i, t) in self.tasks.iter().enumerate() {
            if t.id == OVERFLOW_ID {
                continue;
            }
            // Tasks that existed at the end of the last completed window: not one born
            // after it, and one that died after it.
            let k = self.window();
            if t.in_since_start(k) {
                existing.push((t.id, i));
            } else {
                deleted += self.completed(Who::Task(i));
            }
        }
        existing.sort();
        for (id, i) in existing {
            push(Who::Task(i), self.kind(id));
        }
        push(Who::Isr, RowKind::Interrupts);
        push(Who::Sleep, RowKind::Sleep);
        (lines, deleted)
    }

    /// Checks a since-start row's peak against the model's. Exact while `regular`;
    /// otherwise the engine may have divided a window by the length set when it was
    /// folded, so only the window and its counts are exact, and the length is the
    /// window's own if the slot was folded (charged) in the next window or that is
    /// the window under way, else one that was set.
    fn check_peak(&self, who: Who, row: &Row) {
        let got = (u64::from(row.peak), u64::from(row.peak_len), row.peak_window as usize);
        let want = self.since.get(&who).and_then(|s| s.peak);
        if self.regular {
            assert_eq!(got, want.unwrap_or((0, 0, 0)), "peak of {who:?}");
            return;
        }
        let Some(_) = want else {
            assert_eq!(got, (0, 0, 0), "peak of {who:?}, which never had a count in a completed window");
            return;
        };
        let (counts, len, k) = got;
        assert!(k < self.window(), "peak of {who:?} in window {k}, not completed");
        assert_eq!(counts, self.closed[k].get(&who).copied().unwrap_or(0), "peak of {who:?}: counts of window {k}");
        assert!(counts != 0, "peak of {who:?}: window {k} without counts");
        let true_len = self.bounds[k + 1] - self.bounds[k];
        if k + 1 == self.window() || self.touched[k + 1].contains(&who) {
            assert_eq!(len, true_len, "peak of {who:?}: length of window {k}, folded in the next window");
        } else {
            assert!(len == true_len || self.nominal.contains(&len), "peak of {who:?}: length {len} of window {k}");
        }
    }
}

fn lines(rows: &[Row]) -> Vec<Line> {
    rows.iter()
        .map(|r| Line {
            kind: r.kind,
            id: r.id,
            name: r.name,
            counts: r.counts,
            deleted: r.deleted,
            runs: r.runs,
            longest: r.longest,
            longest_window: r.longest_window,
        })
        .collect()
}

// ---- Operations -----------------------------------------------------------------------

/// Time to the next hook, resolved against the state when it is applied.
#[derive(Clone, Copy, Debug)]
enum Step {
    /// A few counts, or none.
    Small(u16),
    /// `n` whole windows and a fraction of one: rollovers, splits and stalls.
    Windows(u8, u32),
    /// Anything up to the clock contract's limit.
    Huge(u32),
    /// To `delta` counts from the end of the window under way (`n` = 0), or from two
    /// lengths after its start (`n` = 1): the off-by-ones of rollover and stall.
    Boundary(u8, i8),
    /// No time passes, but the clock reads this many counts (1 to `MAX_STEP_BACK`)
    /// before the last reading: a clock that steps back.
    Back(u32),
}

/// A task to switch in.
#[derive(Clone, Copy, Debug)]
enum Pick {
    /// A live task (own ID or ID 0), by index among them.
    Live(usize),
    /// A raw ID: 0, out of range, or anything.
    Raw(u32),
    /// The ID of a deleted task (which may have been given to a new one since).
    Stale(usize),
}

#[derive(Clone, Copy, Debug)]
enum WinLen {
    /// Clamped by the engine to `1..=MAX_WINDOW_COUNTS`.
    Raw(u32),
    Small(u16),
    /// At most what has elapsed of the window under way.
    BelowElapsed(u32),
}

#[derive(Clone, Debug)]
enum Op {
    Tick(Step),
    Create(Vec<u8>, Step),
    /// Several creates at one instant: fills the pool and spills into ID 0.
    CreateMany(u16, Step),
    /// Another task or the kernel deletes a task that is not running.
    Delete(usize, Step),
    /// The running task deletes itself; its last switch comes later.
    SelfDelete(Step),
    /// A delete with an ID that is not a live task's.
    DeleteUnknown(usize, Step),
    /// Switch in a task (or an ID that is not a live task's): what ran until now
    /// is charged up to here. Inside a handler too, as ports that switch there do.
    SwitchIn(Pick, Step),
    SetWindow(WinLen),
    /// An interrupt handler begins (nested in another, if one is under way).
    IsrEnter(Step),
    /// An interrupt handler ends; with none under way, an exit the engine ignores.
    IsrExit(Step),
    /// The task switched in sleeps (outside handlers only, as the kernel does).
    SleepBegin(Step),
    /// The sleep ends; with none under way, an end the engine ignores.
    SleepEnd(Step),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        8 => any::<u32>().prop_map(|f| Step::Windows(0, f)),
        2 => (0u16..64).prop_map(Step::Small),
        2 => any::<u32>().prop_map(|f| Step::Windows(1, f)),
        1 => (2u8..4, any::<u32>()).prop_map(|(n, f)| Step::Windows(n, f)),
        1 => any::<u32>().prop_map(Step::Huge),
        2 => (0u8..2, -1i8..=1).prop_map(|(n, d)| Step::Boundary(n, d)),
        2 => prop_oneof![1u32..=64, Just(MAX_STEP_BACK), 1..=MAX_STEP_BACK].prop_map(Step::Back),
    ]
}

fn name() -> impl Strategy<Value = Vec<u8>> {
    let byte = prop_oneof![4 => b'a'..=b'z', 1 => Just(0u8), 1 => any::<u8>()];
    prop::collection::vec(byte, 0..NAME_LEN + 8)
}

fn pick() -> impl Strategy<Value = Pick> {
    let raw = prop_oneof![Just(OVERFLOW_ID), Just(CAP + 1), Just(u32::MAX), Just((1 << 16) | 1), any::<u32>()];
    prop_oneof![
        6 => any::<usize>().prop_map(Pick::Live),
        1 => raw.prop_map(Pick::Raw),
        1 => any::<usize>().prop_map(Pick::Stale),
    ]
}

fn win_len() -> impl Strategy<Value = WinLen> {
    prop_oneof![
        any::<u32>().prop_map(WinLen::Raw),
        (1u16..3000).prop_map(WinLen::Small),
        any::<u32>().prop_map(WinLen::BelowElapsed),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => step().prop_map(Op::Tick),
        3 => (name(), step()).prop_map(|(n, s)| Op::Create(n, s)),
        1 => (1u16..=IDS.min(20) as u16 + 2, step()).prop_map(|(n, s)| Op::CreateMany(n, s)),
        3 => (any::<usize>(), step()).prop_map(|(i, s)| Op::Delete(i, s)),
        1 => step().prop_map(Op::SelfDelete),
        1 => (any::<usize>(), step()).prop_map(|(i, s)| Op::DeleteUnknown(i, s)),
        9 => (pick(), step()).prop_map(|(p, s)| Op::SwitchIn(p, s)),
        1 => win_len().prop_map(Op::SetWindow),
        2 => step().prop_map(Op::IsrEnter),
        5 => step().prop_map(Op::IsrExit),
        2 => step().prop_map(Op::SleepBegin),
        2 => step().prop_map(Op::SleepEnd),
    ]
}

fn setup() -> impl Strategy<Value = Setup> {
    let start = prop_oneof![Just(0u32), (u32::MAX - 5000)..=u32::MAX, any::<u32>()];
    let win_len = prop_oneof![
        8 => 1u32..=3000,
        1 => Just(1u32),
        1 => Just(MAX_WINDOW_COUNTS),
        1 => 1u32..=MAX_WINDOW_COUNTS,
    ];
    let keep = prop_oneof![Just(0), Just(SMOOTH_ONE), 0..=SMOOTH_ONE, any::<u32>()];
    let load_watch = prop_oneof![
        1 => Just((0u32, 0u32)),
        3 => (0u32..=10_000, 1u32..4),
        1 => (any::<u32>(), any::<u32>()),
    ];
    let slice_watch = prop_oneof![Just(None), (0u32..3000).prop_map(Some), any::<u32>().prop_map(Some)];
    let before = prop_oneof![3 => Just(0usize), 1 => 0..IDS + 3];
    (start, win_len, any::<bool>(), before, any::<bool>(), [keep.clone(), keep.clone(), keep], load_watch, slice_watch)
        .prop_map(|(start, win_len, idle, before, steady, smooth, load_watch, slice_watch)| Setup {
            start,
            win_len,
            idle,
            before,
            steady,
            smooth,
            load_watch,
            slice_watch,
        })
}

// ---- Engine and model side by side ------------------------------------------------------

struct Sim {
    e: Engine,
    m: Model,
    steady: bool,
    /// Time of the last hook the engine ignored (it reads no clock), if later than
    /// the model's last: the clock given to hooks never goes back.
    floor: u64,
    /// The engine's published figures, summed over every window so far.
    window_sums: BTreeMap<Who, u64>,
    windows_read: usize,
    /// The next hook's clock reads this many counts before its time (`Step::Back`).
    back: std::cell::Cell<u32>,
}

impl Sim {
    fn new(setup: &Setup) -> Sim {
        // As the C API starts it: window and watchdogs first, then start.
        let mut e = Engine::new(0);
        e.set_window(setup.win_len);
        #[cfg(feature = "watchdogs")]
        {
            e.set_smoothing(setup.smooth);
            e.set_load_watchdog(setup.load_watch.0, setup.load_watch.1);
            e.set_slice_watchdog(setup.slice_watch);
        }
        e.restart(setup.start);
        let m = Model::new(setup);
        let floor = m.start;
        let mut sim = Sim { e, m, steady: setup.steady, floor, window_sums: BTreeMap::new(), windows_read: 0, back: 0.into() };
        sim.check();
        for _ in 0..setup.before {
            sim.create_at(sim.m.last, b"early");
        }
        if setup.idle {
            let created = sim.create_at(sim.m.last, b"IDLE");
            let id = sim.e.kernel_task(0, created, b"IDLE", false);
            let i = sim.m.tasks.len() - 1;
            assert_eq!(id, sim.m.kernel_task(i), "the idle task's ID as the scheduler starts");
            assert_ne!(id, OVERFLOW_ID, "the idle task without an ID of its own");
            sim.e.scheduler_start(id);
            sim.m.idle = id;
            sim.m.scheduling = true;
            sim.hooked(None);
        }
        sim
    }

    fn after(&self, step: Step) -> u64 {
        let len = self.m.win_len;
        let base = self.m.last.max(self.floor);
        if let Step::Back(back) = step {
            // The engine's last reading is the model's last hook's.
            self.back.set(back);
            return self.m.last;
        }
        let raw = match step {
            Step::Small(n) => u64::from(n),
            Step::Windows(n, f) => u64::from(n) * len + u64::from(f) % len,
            Step::Huge(n) => u64::from(n),
            Step::Boundary(n, delta) => {
                let target = self.m.win_start() + (u64::from(n) + 1) * len;
                target.saturating_add_signed(i64::from(delta)).saturating_sub(base)
            }
            Step::Back(_) => 0,
        };
        let mut max = self.m.max_step(base);
        if self.steady {
            // Never two lengths past the window's start: no stall.
            max = max.min(self.m.win_start() + 2 * len - 1 - base);
        }
        base + raw.min(max)
    }

    /// The clock reading a hook at `now` gets: `now`, or earlier after `Step::Back`.
    fn reading(&self, now: u64) -> u32 {
        (now as u32).wrapping_sub(self.back.take())
    }

    /// After a hook: the alerts it tripped, and everything the engine shows.
    fn hooked(&mut self, tick_says: Option<bool>) {
        let want = std::mem::take(&mut self.m.alerts);
        self.check_alerts(tick_says, &want);
        self.check();
    }

    /// The alerts a hook tripped are those of the model.
    #[cfg(feature = "watchdogs")]
    fn check_alerts(&mut self, tick_says: Option<bool>, want: &[WantAlert]) {
        if let Some(pending) = tick_says {
            assert_eq!(pending, !want.is_empty(), "tick's answer: alerts pending");
        }
        let got: Vec<Alert> = std::iter::from_fn(|| self.e.take_alert()).collect();
        assert_eq!(got.len(), want.len(), "alerts: got {got:?}, want {want:?}");
        for (g, w) in got.iter().zip(want) {
            assert_eq!((g.kind, g.window, g.value, g.limit), (w.kind, w.window, w.value, w.limit), "alert {g:?}");
            assert!(w.named.contains(&(g.id, g.name)), "alert {g:?} names none of {:?}", w.named);
        }
    }

    /// Without the watchdogs, no tick says that one tripped.
    #[cfg(not(feature = "watchdogs"))]
    fn check_alerts(&mut self, tick_says: Option<bool>, _: &[WantAlert]) {
        assert_ne!(tick_says, Some(true), "a tick says an alert is pending, in a build without watchdogs");
    }

    /// A hook the engine must ignore: it changes nothing.
    fn ignored_at(&mut self, now: u64, hook: fn(&mut Engine, usize, u32)) {
        { let r = self.reading(now); hook(&mut self.e, 0, r) };
        self.floor = now;
        self.hooked(None);
    }

    fn tick_at(&mut self, now: u64) {
        let pending = self.e.tick(0, self.reading(now));
        self.m.hook(now);
        self.hooked(Some(pending));
    }

    fn create_at(&mut self, now: u64, name: &[u8]) -> u32 {
        let id = self.e.task_create(0, self.reading(now), name);
        self.m.hook(now);
        let want = self.m.create(name);
        assert_eq!(id, want, "create returned the wrong ID");
        self.hooked(None);
        id
    }

    fn delete_at(&mut self, now: u64, i: usize) {
        let id = self.m.tasks[i].id;
        assert_eq!(self.e.task_delete(0, self.reading(now), id), Ok(()));
        self.m.hook(now);
        let running = self.m.running.and_then(|r| r.1) == Some(i);
        if running && id != OVERFLOW_ID {
            self.m.tasks[i].life = Life::Dying;
        } else {
            self.m.kill(i);
        }
        self.hooked(None);
    }

    fn switch_in_at(&mut self, now: u64, id: u32, who: (Who, Option<usize>)) {
        self.e.switch_in(0, self.reading(now), id);
        self.m.hook(now);
        // A task that deleted itself has had its last switch.
        if let Some((_, Some(i))) = self.m.running {
            if self.m.tasks[i].life == Life::Dying {
                self.m.kill(i);
            }
        }
        self.m.switch_in(who);
        self.hooked(None);
    }

    fn isr_enter_at(&mut self, now: u64) {
        if self.m.isr_depth > 0 {
            // Nested: only the depth changes.
            self.e.isr_enter(0, self.reading(now));
            self.m.isr_depth += 1;
            self.floor = now;
            self.hooked(None);
            return;
        }
        self.e.isr_enter(0, self.reading(now));
        self.m.hook(now);
        self.m.isr_begin();
        self.hooked(None);
    }

    fn isr_exit_at(&mut self, now: u64) {
        match self.m.isr_depth {
            0 => self.ignored_at(now, Engine::isr_exit),
            1 => {
                self.e.isr_exit(0, self.reading(now));
                self.m.hook(now);
                self.m.isr_end();
                self.hooked(None);
            }
            _ => {
                self.m.isr_depth -= 1;
                self.ignored_at(now, Engine::isr_exit);
            }
        }
    }

    fn sleep_begin_at(&mut self, now: u64) {
        self.e.sleep_begin(0, self.reading(now));
        self.m.hook(now);
        self.m.sleep_begin();
        self.hooked(None);
    }

    fn sleep_end_at(&mut self, now: u64) {
        self.e.sleep_end(0, self.reading(now));
        self.m.hook(now);
        self.m.sleep_end();
        self.hooked(None);
    }

    fn live(&self) -> Vec<usize> {
        (0..self.m.tasks.len()).filter(|&i| self.m.tasks[i].life == Life::Alive).collect()
    }

    fn run(&mut self, op: &Op) {
        match *op {
            Op::Tick(s) => self.tick_at(self.after(s)),
            Op::Create(ref name, s) => {
                self.create_at(self.after(s), name);
            }
            Op::CreateMany(n, s) => {
                let now = self.after(s);
                for k in 0..n {
                    self.create_at(now, &[b'm', b'0' + (k % 10) as u8]);
                }
            }
            Op::Delete(pick, s) => {
                let running = self.m.running.and_then(|r| r.1);
                let idle = self.m.idle;
                let candidates: Vec<usize> = self
                    .live()
                    .into_iter()
                    .filter(|&i| Some(i) != running && (idle == 0 || self.m.tasks[i].id != idle))
                    .collect();
                match candidates.get(pick % candidates.len().max(1)) {
                    Some(&i) => self.delete_at(self.after(s), i),
                    None => self.tick_at(self.after(s)),
                }
            }
            Op::SelfDelete(s) => match self.m.running {
                // Not from a handler, nor asleep: a task deletes itself while it runs.
                Some((_, Some(i)))
                    if self.m.tasks[i].life == Life::Alive
                        && !self.m.paused()
                        && (self.m.idle == 0 || self.m.tasks[i].id != self.m.idle) =>
                {
                    self.delete_at(self.after(s), i)
                }
                _ => self.tick_at(self.after(s)),
            },
            Op::DeleteUnknown(pick, s) => {
                let mut ids = vec![CAP + 1, u32::MAX, (1 << 16) | 1];
                ids.extend(self.m.tasks.iter().filter(|t| t.life != Life::Alive && t.id != OVERFLOW_ID).map(|t| t.id));
                let id = ids[pick % ids.len()];
                let now = self.after(s);
                if self.m.resolve(id).1.is_some() {
                    // Given to a live task since: not unknown.
                    self.tick_at(now);
                } else {
                    assert_eq!(self.e.task_delete(0, self.reading(now), id), Err(HookError::UnknownId), "ID {id}");
                    self.m.hook(now);
                    self.hooked(None);
                }
            }
            Op::SwitchIn(pick, s) => {
                let (id, who) = match pick {
                    Pick::Live(n) => {
                        let live = self.live();
                        match live.get(n % live.len().max(1)) {
                            Some(&i) if self.m.tasks[i].id == OVERFLOW_ID => (OVERFLOW_ID, (Who::Overflow, Some(i))),
                            Some(&i) => (self.m.tasks[i].id, (Who::Task(i), Some(i))),
                            None => (CAP + 1, (Who::Overflow, None)),
                        }
                    }
                    Pick::Raw(id) => (id, self.m.resolve(id)),
                    Pick::Stale(n) => {
                        let stale: Vec<u32> = self
                            .m
                            .tasks
                            .iter()
                            .filter(|t| t.life == Life::Dead && t.id != OVERFLOW_ID)
                            .map(|t| t.id)
                            .collect();
                        let id = stale.get(n % stale.len().max(1)).copied().unwrap_or(OVERFLOW_ID);
                        (id, self.m.resolve(id))
                    }
                };
                let now = self.after(s);
                if self.m.asleep && self.m.isr_depth == 0 {
                    // The kernel switches only once the idle task has woken.
                    self.sleep_end_at(now);
                }
                self.switch_in_at(now, id, who);
            }
            Op::SetWindow(len) => {
                if self.steady {
                    return;
                }
                let len = match len {
                    WinLen::Raw(n) => n,
                    WinLen::Small(n) => u32::from(n),
                    WinLen::BelowElapsed(f) => {
                        let elapsed = (self.m.last - self.m.win_start()) as u32;
                        1 + f % elapsed.max(1)
                    }
                };
                self.e.set_window(len);
                self.m.win_len = u64::from(len.clamp(1, MAX_WINDOW_COUNTS));
                self.m.nominal.insert(self.m.win_len);
                self.m.regular &= self.m.nominal.len() == 1;
                self.check();
            }
            Op::IsrEnter(s) => self.isr_enter_at(self.after(s)),
            Op::IsrExit(s) => self.isr_exit_at(self.after(s)),
            Op::SleepBegin(s) => {
                let now = self.after(s);
                if self.m.paused() {
                    self.tick_at(now);
                } else {
                    self.sleep_begin_at(now);
                }
            }
            Op::SleepEnd(s) => {
                let now = self.after(s);
                match (self.m.asleep, self.m.isr_depth) {
                    (true, 0) => self.sleep_end_at(now),
                    (false, _) => self.ignored_at(now, Engine::sleep_end),
                    // Not from a handler.
                    (true, _) => self.tick_at(now),
                }
            }
        }
    }

    /// Everything the engine shows must be what the model says, after every hook.
    fn check(&mut self) {
        let m = &self.m;
        let k = m.window();
        let mut rows = [Row::EMPTY; IDS + 4];

        match self.e.read_window(&mut rows) {
            None => assert_eq!(k, 0, "no published window after {k} rollovers"),
            Some(s) => {
                assert!(k > 0, "a published window before any rollover");
                let p = k - 1;
                let got = &rows[..s.rows];
                assert_eq!((s.window as usize, s.rows_missing), (p, 0));
                let sum = got.iter().map(|r| r.counts).sum::<u64>() + s.other;
                assert_eq!(sum, s.length, "window {p} does not add up");
                assert_eq!(s.length, m.bounds[p + 1] - m.bounds[p], "length of window {p}");
                assert_eq!(s.other, m.closed[p].get(&Who::Other).copied().unwrap_or(0), "other in window {p}");
                let want = m.window_lines(p);
                assert_lines(got, &want, &format!("rows of window {p}"));
                for r in got {
                    // In a window report, the peak is the window itself.
                    let peak = (u64::from(r.peak), u64::from(r.peak_len), r.peak_window as usize);
                    assert_eq!(peak, (r.counts, s.length, p), "peak fields of {:?} {} in window {p}", r.kind, r.id);
                }
                assert_eq!(s.slots, m.slots());
                assert_eq!(s.overflow_tasks, m.overflow_in(p), "tasks in the overflow bucket in window {p}");
                #[cfg(feature = "watchdogs")]
                assert_eq!(s.load_avg, m.load_avg, "smoothed loads");
                // Each window is read once, right after the hook that closed it.
                if self.windows_read == p {
                    for (r, (_, who)) in got.iter().zip(&want) {
                        *self.window_sums.entry(*who).or_insert(0) += r.counts;
                    }
                    *self.window_sums.entry(Who::Other).or_insert(0) += s.other;
                    self.windows_read += 1;
                }
            }
        }
        assert_eq!(self.windows_read, k, "a window was closed without being seen");

        if !cfg!(feature = "shell") {
            return; // (the minimal build keeps no since-start figures)
        }
        let s = self.e.read_cumulative(&mut rows);
        let got = &rows[..s.rows];
        assert_eq!((s.window as usize, s.rows_missing), (k, 0));
        assert_eq!(s.length, m.bounds[k] - m.bounds[0], "since-start total is not the completed windows' time");
        let sum = got.iter().map(|r| r.counts).sum::<u64>() + s.other + s.deleted;
        assert_eq!(sum, s.length, "since-start figures do not add up");
        let (want, deleted) = m.cumulative_lines();
        assert_lines(got, &want, "since-start rows");
        for (r, (_, who)) in got.iter().zip(&want) {
            m.check_peak(*who, r);
        }
        assert_eq!((s.other, s.deleted), (m.completed(Who::Other), deleted));
        assert_eq!(s.slots, m.slots());
        assert_eq!(s.overflow_tasks, m.overflow_ever(), "tasks in the overflow bucket since start");
        #[cfg(feature = "watchdogs")]
        assert_eq!(s.load_avg, m.load_avg, "smoothed loads");

        // Since start = the engine's own windows so far.
        let windows_and_now = |who| self.window_sums.get(&who).copied().unwrap_or(0);
        assert_eq!(s.other, windows_and_now(Who::Other));
        let mut dead = 0;
        let k = m.window();
        for (i, t) in m.tasks.iter().enumerate().filter(|(_, t)| t.id != OVERFLOW_ID) {
            if !t.in_since_start(k) {
                dead += windows_and_now(Who::Task(i));
            }
        }
        for (r, (_, who)) in got.iter().zip(&want) {
            assert_eq!(r.counts, windows_and_now(*who), "{who:?} since start");
        }
        assert_eq!(s.deleted, dead);
    }

    /// Ends every handler and sleep, deletes everything, lets two windows pass, and
    /// checks that the pool is back where it started and every ID can be had again.
    fn finish(&mut self) {
        while self.m.isr_depth > 0 {
            self.isr_exit_at(self.after(Step::Small(1)));
        }
        if self.m.asleep {
            self.sleep_end_at(self.after(Step::Small(1)));
        }
        // Switch in an ID that is no task's (charged to ID 0), so no task is running.
        if self.m.running.is_some() {
            self.switch_in_at(self.after(Step::Small(1)), CAP + 1, self.m.resolve(CAP + 1));
        }
        for i in self.live() {
            self.delete_at(self.after(Step::Small(1)), i);
        }
        for _ in 0..2 {
            let end = (self.m.win_start() + self.m.win_len).max(self.after(Step::Small(0)));
            self.tick_at(end);
        }
        let baseline = SlotStats { capacity: CAP, used: 0, quarantined: 0, free: CAP, overflow_tasks: 0 };
        assert_eq!(self.m.slots(), baseline);
        // (Without a scheduler, the IDs kept for its tasks stay kept.)
        let for_all = if self.m.scheduling { CAP } else { CAP - KEPT_FOR_KERNEL as u32 };
        let mut ids = BTreeSet::new();
        for _ in 0..for_all {
            ids.insert(self.create_at(self.m.last, b"again"));
        }
        assert_eq!(ids, (1..=for_all).collect::<BTreeSet<u32>>());
        assert_eq!(self.create_at(self.m.last, b"one more"), OVERFLOW_ID);
    }
}

proptest! {
    // MODEL_CASES sequences (2,000 at 32 IDs) of 1 to 199 operations (about 250 hooks
    // each, every one followed by the full check, alerts included). A check reads
    // every line, and the end of each sequence fills the whole pool, a check after
    // each create: a sequence costs about the square of the IDs, so the larger
    // engines run fewer (see `tests_at_capacities!` in mod.rs). PROPTEST_CASES sets
    // the count for a deeper run, best with --release.
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(MODEL_CASES),
        // ChaCha, the default, takes a third of the time in the debug profile.
        rng_algorithm: proptest::test_runner::RngAlgorithm::XorShift,
        ..ProptestConfig::default()
    })]

    #[test]
    fn engine_agrees_with_the_model(setup in setup(), ops in prop::collection::vec(op(), 1..200)) {
        let mut sim = Sim::new(&setup);
        for op in &ops {
            sim.run(op);
        }
        sim.finish();
    }
}

/// The common switch checks only that an ID is in range (see `Engine::switch_in`):
/// a deleted task's ID switched in again must still charge neither the dead task's
/// line, in the window it died in (`run` counts) or a later one, nor the task that
/// takes its slot afterwards; its time goes to ID 0, and every window adds up.
fn stale_id_case(run: u32, later: bool, stale_len: u32) {
    use super::support::{counts, started, window, LEN};
    let mut e = started(0);
    let a = e.task_create(0, 1, b"a");
    assert_eq!(a, 1, "the first task takes the first ID");
    e.switch_in(0, 10, a);
    e.switch_in(0, 10 + run, OVERFLOW_ID);
    assert_eq!(e.task_delete(0, 12 + run, a), Ok(()));
    // The stale switch: in the window the task died in, or in the next one.
    let at = if later { LEN + 10 } else { 14 + run };
    if later {
        // The next window runs, and the task running was charged in it: the stale
        // switch takes the common path.
        e.tick(0, LEN + 5);
        e.switch_in(0, LEN + 7, OVERFLOW_ID);
    }
    e.switch_in(0, at, a);
    e.switch_in(0, at + stale_len, OVERFLOW_ID);
    e.tick(0, LEN + 450);
    let (_, rows) = window(&e);
    assert_eq!(counts(&rows, a), u64::from(run), "the dead task's line is its own run alone");
    e.tick(0, 2 * LEN + 5);
    let (_, rows) = window(&e);
    assert_eq!(counts(&rows, a), 0, "the window after the death charges the dead task nothing");
    e.tick(0, 3 * LEN + 5);
    e.tick(0, 4 * LEN + 5);
    // The ID leaves quarantine and goes to a new task, while a stale switch-in of
    // it is running: none of that time is the new task's.
    let t = 5 * LEN + 10;
    e.tick(0, t - 5);
    e.switch_in(0, t - 3, OVERFLOW_ID);
    e.switch_in(0, t, a);
    let mut b = OVERFLOW_ID;
    for _ in 0..=IDS {
        b = e.task_create(0, t + stale_len / 2, b"b");
        if b == a {
            break;
        }
    }
    assert_eq!(b, a, "the dead task's ID is reused");
    e.switch_in(0, t + stale_len, OVERFLOW_ID);
    e.tick(0, 6 * LEN + 5);
    let (_, rows) = window(&e);
    assert_eq!(counts(&rows, b), 0, "the slot's new task never ran");
}

#[test]
fn a_stale_id_charges_neither_the_dead_task_nor_the_next_holder_of_its_slot() {
    for run in [1, 200, 480] {
        for later in [false, true] {
            for stale_len in [1, 100, 400] {
                stale_id_case(run, later, stale_len);
            }
        }
    }
}
