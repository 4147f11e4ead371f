//! The accounting engine: pure logic, no raw pointers, no FFI, no FreeRTOS types.
//!
//! Time is a free-running 32-bit counter. Every hook passes the counter's reading
//! (`now`); the engine charges the counts since the previous reading to whoever held
//! the CPU in between: the task last switched in, an interrupt handler, the idle task
//! asleep, or "other" when none of these (before the scheduler starts). A task's time
//! runs from its switch-in to the next task's switch-in, so the kernel's own few
//! dozen instructions of choosing the next task count with the task switched out
//! (the kernel's run-time stats, which read their counter before choosing, give them
//! to the task switched in): one clock reading and one charge per context switch. Every count is charged exactly once, so for every window the buckets add
//! up to the window's length exactly. Differences are taken modulo 2^32, and the tick
//! hook reads the counter at least once per tick, so a counter wrap between two
//! readings neither loses nor doubles time.
//!
//! # Slots
//! Index 0 is "other"; indices `1..=MAX_TASKS` are task IDs; then the bucket shared
//! (under ID 0) by tasks created when every ID is taken; then interrupts; then sleep.
//!
//! # Runs
//! A run is what a slot did in one go: a task from its switch-in to its switch-out
//! (minus the interrupts and sleep inside it, which are not its time), one interrupt
//! from its outermost entry to its exit, one sleep. Each window counts the runs that
//! touched it and the longest of them (a run still going when a window closes counts
//! in that window with its length so far, and again in the window where it ends), so
//! a task hogging the CPU shows in every window it hogs.
//!
//! # Windows without clearing
//! The window under way (number `Engine::window`) accumulates while the one before it
//! is published. Rollover only bumps `window`: it never loops over the slots. Each slot remembers the window of its last
//! charge (`Acct::window`) and shifts its counters the next time it is charged, so a
//! slot that has not run for a while reads as zero without anybody clearing it. That
//! shift (`fold`) is also when the window just left is added to the since-start
//! figures: total, runs, longest run and peak window. Stored window numbers are
//! pulled forward one slot per rollover (`refresh_one`), so after 2^32 windows a
//! number can never come round and look recent again.
//!
//! # Hot path
//! [`Engine::switch_in`] and [`Engine::tick`], and the interrupt and sleep hooks,
//! with everything they call, are in this file, top to bottom. They do no allocation,
//! no division, no floating point, no loop over tasks, and have no panic path: every
//! index is checked with `get`, every sum wraps. Rollover is a constant amount of work
//! (multiplications included, no division) in whichever hook first sees the window
//! elapsed.

pub mod arith;
mod pool;
mod read;

use pool::Pool;
#[cfg(test)]
pub(crate) use read::gather::Summary;
pub use read::{Header, Line, Seat, Stamp, INTERRUPTS_AT, LINES, OTHER_AT, SLEEP_AT};

include!(concat!(env!("OUT_DIR"), "/config.rs"));

/// ID of the shared bucket for tasks beyond capacity.
pub const OVERFLOW_ID: u32 = 0;
/// Slot indices: "other" first, so that a zeroed engine charges it; then the task
/// IDs, each at its own index; then the shared bucket, interrupts and sleep.
pub(crate) const OTHER: usize = 0;
pub(crate) const OVERFLOW: usize = MAX_TASKS + 1;
pub(crate) const ISR: usize = MAX_TASKS + 2;
pub(crate) const SLEEP: usize = MAX_TASKS + 3;
const SLOTS: usize = MAX_TASKS + 4;

/// IDs kept, until the scheduler starts, for the tasks the kernel creates then: the
/// idle task and the timer service task (only the idle task's with a single ID).
pub const KEPT_FOR_KERNEL: usize = if MAX_TASKS >= 2 { 2 } else { 1 };

/// Largest window, in clock counts: elapsed times are compared modulo 2^32, and a
/// window must close before its start could be mistaken for a later time.
pub const MAX_WINDOW_COUNTS: u32 = 1 << 31;

/// Fixed-point one for the smoothing factors: they are 16-bit fractions.
pub const SMOOTH_ONE: u32 = 1 << 16;

/// A 64-bit sum kept as two words, so that the engine needs only 4-byte alignment
/// (its static then packs with its neighbours on a 32-bit target).
#[cfg(feature = "shell")]
#[derive(Clone, Copy, Default)]
struct Sum64([u32; 2]);

#[cfg(feature = "shell")]
impl Sum64 {
    fn get(self) -> u64 {
        (u64::from(self.0[1]) << 32) | u64::from(self.0[0])
    }

    fn add(&mut self, v: u32) {
        let (lo, carry) = self.0[0].overflowing_add(v);
        self.0 = [lo, self.0[1].wrapping_add(u32::from(carry))];
    }

    fn set(&mut self, v: u64) {
        self.0 = [v as u32, (v >> 32) as u32];
    }
}

/// One slot's figures: the last two windows it was charged in, and since start.
#[derive(Clone, Copy)]
struct Acct {
    /// Window of the last charge: `counts`, `runs` and `longest` are its figures,
    /// the `prev_*` ones those of the window before it.
    window: u32,
    counts: u32,
    prev_counts: u32,
    runs: u32,
    prev_runs: u32,
    /// Longest run.
    longest: u32,
    prev_longest: u32,
    /// Since start, every window before `window` (`fold` adds its figures when
    /// the slot moves on to a new window). Only the shell reads them (`-c`): the
    /// minimal build keeps none.
    #[cfg(feature = "shell")]
    total: Sum64,
    #[cfg(feature = "shell")]
    runs_total: Sum64,
    /// Longest run of those windows, and its window.
    #[cfg(feature = "shell")]
    longest_ever: u32,
    #[cfg(feature = "shell")]
    longest_ever_window: u32,
    /// Busiest of those windows: its counts and length (compared by cross
    /// multiplication, so no division), and its number.
    #[cfg(feature = "shell")]
    peak: u32,
    #[cfg(feature = "shell")]
    peak_len: u32,
    #[cfg(feature = "shell")]
    peak_window: u32,
}

impl Acct {
    const ZERO: Acct = Acct {
        window: 0,
        counts: 0,
        prev_counts: 0,
        runs: 0,
        prev_runs: 0,
        longest: 0,
        prev_longest: 0,
        #[cfg(feature = "shell")]
        total: Sum64([0; 2]),
        #[cfg(feature = "shell")]
        runs_total: Sum64([0; 2]),
        #[cfg(feature = "shell")]
        longest_ever: 0,
        #[cfg(feature = "shell")]
        longest_ever_window: 0,
        #[cfg(feature = "shell")]
        peak: 0,
        #[cfg(feature = "shell")]
        peak_len: 0,
        #[cfg(feature = "shell")]
        peak_window: 0,
    };

    /// The published window's `(counts, runs, longest run)`: that before window
    /// `under_way`.
    fn published(&self, under_way: u32) -> (u32, u32, u32) {
        if self.window == under_way {
            (self.prev_counts, self.prev_runs, self.prev_longest)
        } else if self.window == under_way.wrapping_sub(1) {
            (self.counts, self.runs, self.longest)
        } else {
            (0, 0, 0)
        }
    }

    /// Since start, the window under way included.
    #[cfg(feature = "shell")]
    fn total_with_current(&self) -> u64 {
        self.total.get().wrapping_add(u64::from(self.counts))
    }

    /// Adds window `self.window`, `len` counts long, to the since-start figures and
    /// moves the slot on to window `to`.
    fn fold(&mut self, to: u32, len: u32) {
        #[cfg(feature = "shell")]
        self.fold_since_start(len);
        #[cfg(not(feature = "shell"))]
        let _ = len;
        let recent = self.window == to.wrapping_sub(1);
        self.prev_counts = if recent { self.counts } else { 0 };
        self.prev_runs = if recent { self.runs } else { 0 };
        self.prev_longest = if recent { self.longest } else { 0 };
        self.counts = 0;
        self.runs = 0;
        self.longest = 0;
        self.window = to;
    }

    /// Adds window `self.window`, `len` counts long, to the since-start figures.
    #[cfg(feature = "shell")]
    fn fold_since_start(&mut self, len: u32) {
        self.total.add(self.counts);
        self.runs_total.add(self.runs);
        if self.longest > self.longest_ever {
            self.longest_ever = self.longest;
            self.longest_ever_window = self.window;
        }
        if self.is_peak(self.counts, len) {
            self.peak = self.counts;
            self.peak_len = len;
            self.peak_window = self.window;
        }
    }

    /// `counts` of `len` is a larger share than the peak so far (the first share
    /// that is not zero is).
    #[cfg(feature = "shell")]
    fn is_peak(&self, counts: u32, len: u32) -> bool {
        counts != 0
            && (self.peak_len == 0
                || u64::from(counts) * u64::from(self.peak_len) > u64::from(self.peak) * u64::from(len))
    }
}

/// Where a task slot is in its life.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(u8)]
enum TaskState {
    /// Never used, or its quarantine is over.
    Free,
    Alive,
    /// Deleted itself and is still running until the next switch.
    Dying,
    /// Deleted; its ID is quarantined until its windows are gone.
    Dead,
}

/// A task slot's identity. `mark` is the window of birth while the task lives and of
/// death once it is dead, which is all the readers and the quarantine need.
#[derive(Clone, Copy)]
pub(crate) struct Meta {
    name: [u8; NAME_LEN],
    mark: u32,
    state: TaskState,
    /// The task died in the window it was born in.
    short_lived: bool,
    /// Quarantine FIFO link: next slot index plus one, 0 at the end.
    next: u16,
}

impl Meta {
    pub(crate) const FREE: Meta =
        Meta { name: [0; NAME_LEN], mark: 0, state: TaskState::Free, short_lived: false, next: 0 };
}

/// What a report line is about.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum RowKind {
    /// A task with its own ID. (Not 0, so that an array of blank rows is not all zero
    /// bytes: the compiler fills it with a short loop instead of linking a memclr.)
    Task = 1,
    /// The idle task.
    Idle,
    /// The shared bucket of tasks beyond capacity (ID 0).
    Overflow,
    /// Time in interrupt handlers; runs are interrupts.
    Interrupts,
    /// Time the idle task slept (tickless idle); runs are sleeps.
    Sleep,
    /// Time no task was switched in.
    Other,
}

/// One line of a report, copied out of the engine.
#[derive(Clone, Copy, Debug)]
pub struct Row {
    /// Clock counts in the window (or since start).
    pub counts: u64,
    /// Runs in the window (or since start): times switched in, interrupts, sleeps.
    pub runs: u64,
    /// Longest run, in counts, and the window it was in.
    pub longest: u32,
    /// Window of `longest`.
    pub longest_window: u32,
    /// Since start: counts and length of the window with the largest share, and its
    /// number (`peak_len` 0: none yet). In a window report, the window itself.
    pub peak: u32,
    /// Length of the peak window.
    pub peak_len: u32,
    /// Number of the peak window.
    pub peak_window: u32,
    /// Task name bytes, NUL-padded.
    pub name: [u8; NAME_LEN],
    /// Task ID; 0 for the shared bucket and the summary lines.
    pub id: u16,
    /// What the line is about.
    pub kind: RowKind,
    /// The task has been deleted.
    pub deleted: bool,
}

impl Row {
    /// A blank row, for callers sizing their arrays.
    pub const EMPTY: Row = Row {
        counts: 0,
        runs: 0,
        longest: 0,
        longest_window: 0,
        peak: 0,
        peak_len: 0,
        peak_window: 0,
        name: [0; NAME_LEN],
        id: 0,
        kind: RowKind::Task,
        deleted: false,
    };

    /// A summary line with no name.
    pub const fn summary(kind: RowKind, counts: u64) -> Row {
        Row { counts, kind, ..Row::EMPTY }
    }
}

/// Occupancy of the ID pool. `used + quarantined + free == capacity` always; anything
/// else is a leaked ID.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SlotStats {
    /// IDs in all (`CPU_USAGE_MAX_TASKS`).
    pub capacity: u32,
    /// IDs held by existing tasks (including a deleted task still running).
    pub used: u32,
    /// IDs of deleted tasks whose windows are still shown.
    pub quarantined: u32,
    /// IDs a new task can take.
    pub free: u32,
    /// Existing tasks sharing ID 0 because every ID was taken.
    pub overflow_tasks: u32,
}

/// A smoothed load: busy counts over window counts, each exponentially weighted
/// over the windows (the same weights on both, so the ratio carries no start-up
/// bias). Both are 16-bit fixed point.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Smoothed {
    /// Weighted busy counts.
    pub busy: u64,
    /// Weighted window counts (0 before the first window).
    pub len: u64,
}

/// Why a hook's request was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HookError {
    /// The ID is not that of an existing task.
    UnknownId,
}

/// What a watchdog saw.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AlertKind {
    /// Load stayed above its threshold for the windows asked.
    Load,
    /// A run was longer than the threshold.
    Slice,
}

/// Where each watchdog's alert waits in `Watch::alerts`: load first.
/// `Watch::slice_over`: the window under way had a run over the limit.
const SLICE_NOW: u8 = 1;
/// `Watch::slice_over`: the window before had.
const SLICE_BEFORE: u8 = 2;

const LOAD_ALERT: usize = 0;
const SLICE_ALERT: usize = 1;

/// A watchdog that tripped, waiting to be delivered (see [`Engine::take_alert`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Alert {
    /// Which watchdog.
    pub kind: AlertKind,
    /// The window that completed the trip.
    pub window: u32,
    /// Load: the window's busy counts. Slice: the run's length in counts.
    pub value: u32,
    /// Load: the window's length in counts. Slice: the threshold in counts.
    pub limit: u32,
    /// Slice: the task's ID (0 for the shared bucket; interrupts and sleep never
    /// trip it). Load: 0.
    pub id: u16,
    /// Slice: the task's name.
    pub name: [u8; NAME_LEN],
}

impl Alert {
    const NONE: Alert = Alert { kind: AlertKind::Load, window: 0, value: 0, limit: 0, id: 0, name: [0; NAME_LEN] };
}

/// The watchdogs' settings and state; all of it is touched only at rollover and
/// on a new longest run.
#[derive(Clone, Copy)]
struct Watch {
    /// Load threshold in hundredths of a percent, and the windows in a row it must
    /// be exceeded; `windows` 0 is off.
    load_pct: u32,
    load_windows: u32,
    /// Windows in a row above the threshold so far.
    load_streak: u32,
    /// Longest acceptable run in counts, bit-inverted so that 0 (all-zero state)
    /// means off: a run is over the limit when `run > !slice_inv`.
    slice_inv: u32,
    /// Whether the window under way ([`SLICE_NOW`]) and the one before
    /// ([`SLICE_BEFORE`]) had a run over the limit (one byte: the watchdog's state
    /// then fits a word less).
    slice_over: u8,
    /// The longest over-limit run of the window under way.
    slice_slot: u16,
    slice_len: u32,
    /// Tripped, not yet taken: load, slice.
    /// (Not `Option`s: `None` would be a non-zero byte, and the engine's static
    /// would move from `.bss` to `.data`, costing its whole size in flash.)
    alerts: [Alert; 2],
    /// Bit `1 << i`: `alerts[i]` is pending.
    pending: u8,
}

impl Watch {
    const OFF: Watch = Watch {
        load_pct: 0,
        load_windows: 0,
        load_streak: 0,
        slice_inv: 0,
        slice_over: 0,
        slice_slot: 0,
        slice_len: 0,
        alerts: [Alert::NONE; 2],
        pending: 0,
    };
}

/// `Engine::phase`.
const STARTED: u8 = 1;
const SCHEDULING: u8 = 2;

/// `Engine::flags`: anything set sends every hook down its slow path.
const DYING: u8 = 1;
const IN_ISR: u8 = 2;
const ASLEEP: u8 = 4;
/// A task switched in inside a handler (or a sleep) whose run has not begun yet.
const PENDING: u8 = 8;
/// A run going on began before the window under way: its counts before that are in
/// `*_carry`, which the fast paths do not add.
const LONG: u8 = 16;

/// The whole accounting state. One instance lives in a static; tests make their own.
/// It starts all zero, so that static costs RAM only.
#[repr(C)] // fields in this order: what the hooks touch first, at small offsets
pub struct Engine {
    last: u32,
    win_start: u32,
    win_len: u32,
    /// Number of the window under way, from 0 at (re)start; `window - 1` is published.
    window: u32,
    /// Slot being charged now.
    charged: u16,
    /// `DYING`: the running task deleted itself (release its ID at the next switch);
    /// `IN_ISR`, `ASLEEP`: `charged` is the interrupt or sleep slot, and `task` the
    /// task switched in.
    flags: u8,
    /// `STARTED`: accounting has started; `SCHEDULING`: so has the scheduler, and
    /// the IDs kept for its own tasks are for all.
    phase: u8,
    /// Start of the running task's run, moved on by the interrupts and sleep inside
    /// it so that `now - run_start` is the task's own time.
    run_start: u32,
    /// Counts of a run before its start field (saturated), set when a window closes
    /// during the run: lengths are measured from the window's start at most, so
    /// they never wrap. Non-zero only with `LONG`.
    run_carry: u32,
    isr_carry: u32,
    sleep_carry: u32,
    /// The task switched in, while `charged` is not it.
    task: u16,
    /// Interrupt nesting depth.
    isr_depth: u16,
    isr_start: u32,
    /// Own time of the run below the outermost interrupt (the task's, or the
    /// sleep's), when the interrupt began.
    isr_below: u32,
    sleep_start: u32,
    /// The idle task's own run time when it fell asleep.
    sleep_task_run: u32,
    /// Tasks created and deleted, and restarts, so far (wrapping): with `window`, what
    /// a reader's lines must be of (`Stamp`). (16 bits: a report lasts far fewer
    /// than 65536 creates and deletes.)
    changes: u16,
    /// Next slot `refresh_one` visits.
    refresh: u16,
    /// Length of the published window: `win_len`, or longer after a stall (see
    /// `roll_over`); 0 until a window has completed since accounting (re)started.
    pub_len: u32,
    /// The idle task's ID, 0 until the scheduler starts.
    idle: u16,
    /// Tasks sharing the overflow bucket now; and those that shared it at any time
    /// in the window under way and in the published one (the bucket's line is about
    /// its window, not about the moment it is read).
    overflow_tasks: u16,
    overflow_in_window: [u16; 2],
    /// Tasks that shared the bucket at any time since accounting (re)started.
    #[cfg(feature = "shell")]
    overflow_since_start: u16,
    /// Since-boot time of tasks whose slots were taken by new tasks.
    #[cfg(feature = "shell")]
    retired: Sum64,
    /// The smoothed loads and their smoothing factors (`SMOOTH_ONE` = 1); the
    /// factors after the loads, so that the 8-byte loads need no padding before.
    load_avg: [Smoothed; 3],
    smooth: [u32; 3],
    watch: Watch,
    pool: Pool,
    acct: [Acct; SLOTS],
    meta: [Meta; MAX_TASKS],
}

impl Engine {
    /// An engine with every ID free, not yet started, with windows of `win_len` counts
    /// (`Engine::new(0)`: set the window before starting).
    pub const fn new(win_len: u32) -> Self {
        Engine {
            acct: [Acct::ZERO; SLOTS],
            meta: [Meta::FREE; MAX_TASKS],
            pool: Pool::EMPTY,
            charged: OTHER as u16,
            flags: 0,
            phase: 0,
            last: 0,
            win_start: 0,
            win_len,
            pub_len: 0,
            window: 0,
            run_start: 0,
            run_carry: 0,
            isr_carry: 0,
            sleep_carry: 0,
            task: OTHER as u16,
            isr_depth: 0,
            isr_start: 0,
            isr_below: 0,
            sleep_start: 0,
            sleep_task_run: 0,
            refresh: 0,
            idle: 0,
            overflow_tasks: 0,
            overflow_in_window: [0; 2],
            #[cfg(feature = "shell")]
            overflow_since_start: 0,
            changes: 0,
            #[cfg(feature = "shell")]
            retired: Sum64([0; 2]),
            smooth: [0; 3],
            load_avg: [Smoothed { busy: 0, len: 0 }; 3],
            watch: Watch::OFF,
        }
    }

    /// Whether accounting has started.
    pub fn is_started(&self) -> bool {
        self.phase & STARTED != 0
    }

    /// At least one window has completed since accounting (re)started.
    fn published(&self) -> bool {
        self.pub_len != 0
    }

    /// Starts accounting at `now`, or restarts it (after a clock change): every time
    /// figure starts again from zero; tasks keep their IDs and names, the watchdogs
    /// their settings.
    pub fn restart(&mut self, now: u32) {
        // Window numbers start again at 0, and every stored one is set two windows
        // before that, which reads as nothing recent: empty counters, tasks born long
        // ago, and dead tasks whose quarantine is over (their windows are discarded).
        let long_ago = 0u32.wrapping_sub(2);
        for a in self.acct.iter_mut() {
            *a = Acct { window: long_ago, ..Acct::ZERO };
        }
        for m in self.meta.iter_mut() {
            m.mark = long_ago;
            m.short_lived = false;
        }
        self.window = 0;
        self.changes = self.changes.wrapping_add(1);
        #[cfg(feature = "shell")]
        {
            self.retired = Sum64::default();
        }
        self.pub_len = 0;
        self.overflow_in_window = [self.overflow_tasks; 2];
        #[cfg(feature = "shell")]
        {
            self.overflow_since_start = self.overflow_tasks;
        }
        self.last = now;
        self.win_start = now;
        self.run_start = now;
        (self.run_carry, self.isr_carry, self.sleep_carry) = (0, 0, 0);
        self.flags &= !LONG;
        self.isr_start = now;
        self.isr_below = 0;
        self.sleep_start = now;
        self.sleep_task_run = 0;
        // Whatever the hooks were in the middle of (a clock change comes from a task,
        // so no interrupt or sleep is under way for real), the task runs on.
        if self.flags & (IN_ISR | ASLEEP) != 0 {
            self.charged = self.task;
        }
        self.flags &= DYING;
        self.isr_depth = 0;
        self.load_avg = [Smoothed::default(); 3];
        self.watch = Watch {
            load_pct: self.watch.load_pct,
            load_windows: self.watch.load_windows,
            slice_inv: self.watch.slice_inv,
            ..Watch::OFF
        };
        self.phase |= STARTED;
    }

    /// Sets the window length in counts (`1..=MAX_WINDOW_COUNTS`, checked by the
    /// caller). It applies to the window under way: if that is already longer, it
    /// closes at the next hook.
    pub fn set_window(&mut self, len: u32) {
        self.win_len = len.clamp(1, MAX_WINDOW_COUNTS);
    }

    /// Sets the weights of the three smoothed loads: the share of the old value kept
    /// at each rollover, in `SMOOTH_ONE`ths (e^(-window/period) for a period of
    /// about 1 s, 10 s and 60 s). Values past `SMOOTH_ONE` are taken as it.
    pub fn set_smoothing(&mut self, keep: [u32; 3]) {
        self.smooth = keep.map(|k| k.min(SMOOTH_ONE));
    }

    /// Trips the load watchdog when the load (everything but idle and sleep) is above
    /// `pct_hundredths` for `windows` windows in a row; `windows` 0 turns it off.
    pub fn set_load_watchdog(&mut self, pct_hundredths: u32, windows: u32) {
        self.watch.load_pct = pct_hundredths;
        self.watch.load_windows = windows;
        self.watch.load_streak = 0;
    }

    /// Trips the slice watchdog on a task's run longer than `counts`; `None` turns it
    /// off.
    /// The runs of the window under way count already: one over the new limit that
    /// is not its task's longest would otherwise go unseen until the next window.
    pub fn set_slice_watchdog(&mut self, counts: Option<u32>) {
        self.watch.slice_inv = !counts.unwrap_or(u32::MAX);
        self.watch.slice_over &= !SLICE_NOW;
        let Some(limit) = counts else { return };
        for slot in 1..=OVERFLOW {
            let Some(&a) = self.acct.get(slot) else { continue };
            if a.window == self.window && a.longest > limit {
                self.slice_over(slot, a.longest);
            }
        }
    }

    /// The watchdog settings: `(load hundredths, windows, slice limit)`.
    pub fn watchdogs(&self) -> (u32, u32, Option<u32>) {
        let w = &self.watch;
        (w.load_pct, w.load_windows, (w.slice_inv != 0).then_some(!w.slice_inv))
    }

    /// Takes a tripped watchdog's alert, if any (load first).
    pub fn take_alert(&mut self) -> Option<Alert> {
        let w = &mut self.watch;
        let i = w.pending.trailing_zeros() as usize;
        let alert = w.alerts.get(i).copied().filter(|_| w.pending != 0)?;
        w.pending &= w.pending - 1;
        Some(alert)
    }

    // ---- Hot path ---------------------------------------------------------------

    /// Task `id` is being switched in (`traceTASK_SWITCHED_IN`): the task running
    /// until now is charged up to `now`, and its run ends. An ID that is not a live
    /// task's (corrupted, or set by `vTaskSetTaskNumber`) is charged to ID 0.
    #[inline]
    pub fn switch_in(&mut self, now: u32, id: u32) {
        // The common case: nothing but a task was running, the window runs on, and
        // the task was already charged in it.
        if self.flags == 0 && now.wrapping_sub(self.win_start) < self.win_len {
            let (window, last, run) = (self.window, self.last, now.wrapping_sub(self.run_start));
            if let Some(a) = self.acct.get_mut(usize::from(self.charged)) {
                if a.window == window {
                    a.counts = a.counts.wrapping_add(now.wrapping_sub(last));
                    a.runs = a.runs.wrapping_add(1);
                    if run > a.longest {
                        a.longest = run;
                        if run > !self.watch.slice_inv {
                            self.slice_over(usize::from(self.charged), run);
                        }
                    }
                    self.last = now;
                    self.run_start = now;
                    self.charged = self.slot_of(id);
                    return;
                }
            }
        }
        self.switch_in_slow(now, id);
    }

    /// A tick (`traceTASK_INCREMENT_TICK`): keeps readings less than a counter wrap
    /// apart and closes windows when nothing switches. Returns true when a watchdog
    /// has tripped ([`Engine::take_alert`]).
    #[inline]
    pub fn tick(&mut self, now: u32) -> bool {
        if !self.charge_fast(now) {
            self.advance(now);
        }
        self.watch.pending != 0
    }

    /// An interrupt handler starts. Only the outermost of nested ones counts: its
    /// time, from here to its exit, is charged to interrupts, not to what it
    /// interrupted.
    #[inline]
    pub fn isr_enter(&mut self, now: u32) {
        // The common case: a task was running (not asleep, not in a handler) and was
        // already charged in this window, which runs on. (Its run may have begun
        // windows ago, as the idle task's does in an idle system: `LONG`.)
        if self.flags & !LONG == 0 && self.charge_fast(now) {
            self.isr_below = self.run_carry.saturating_add(now.wrapping_sub(self.run_start));
            self.task = self.charged;
            self.charged = ISR as u16;
            self.isr_start = now;
            self.flags |= IN_ISR;
            self.isr_depth = 1;
            return;
        }
        self.isr_enter_slow(now);
    }

    #[cold]
    #[inline(never)]
    fn isr_enter_slow(&mut self, now: u32) {
        if self.isr_depth == 0 {
            self.advance(now);
            // (The carry stays, and with it `LONG`: the exit must resume the run
            // through `resumed`.)
            self.isr_below = if self.flags & ASLEEP != 0 {
                self.sleep_carry.saturating_add(now.wrapping_sub(self.sleep_start))
            } else {
                self.run_carry.saturating_add(now.wrapping_sub(self.run_start))
            };
            if self.flags & ASLEEP == 0 {
                self.task = self.charged;
            }
            self.charged = ISR as u16;
            self.isr_start = now;
            self.flags |= IN_ISR;
        }
        self.isr_depth = self.isr_depth.saturating_add(1);
    }

    /// An interrupt handler ends (an exit with no handler under way is ignored).
    #[inline]
    pub fn isr_exit(&mut self, now: u32) {
        // The common case: the outermost handler of a task (not of a sleep) ends,
        // in the window it began in.
        if self.flags & !LONG == IN_ISR && self.isr_depth == 1 && self.isr_carry == 0 && self.charge_fast(now) {
            let run = now.wrapping_sub(self.isr_start);
            if let Some(a) = self.acct.get_mut(ISR) {
                a.runs = a.runs.wrapping_add(1);
                if run > a.longest {
                    a.longest = run;
                }
            }
            self.isr_depth = 0;
            self.flags &= !IN_ISR;
            self.charged = self.task;
            (self.run_start, self.run_carry) = self.resumed(now, self.isr_below);
            self.sync_long();
            return;
        }
        self.isr_exit_slow(now);
    }

    #[cold]
    #[inline(never)]
    fn isr_exit_slow(&mut self, now: u32) {
        match self.isr_depth {
            0 => return,
            1 => {}
            _ => {
                self.isr_depth -= 1;
                return;
            }
        }
        self.isr_depth = 0;
        self.advance(now);
        self.note_run(ISR, self.isr_carry.saturating_add(now.wrapping_sub(self.isr_start)));
        self.isr_carry = 0;
        self.flags &= !IN_ISR;
        let (start, carry) = self.resumed(now, self.isr_below);
        if self.flags & ASLEEP != 0 {
            self.charged = SLEEP as u16;
            (self.sleep_start, self.sleep_carry) = (start, carry);
        } else {
            self.charged = self.task;
            (self.run_start, self.run_carry) = (start, carry);
            self.flags &= !PENDING;
        }
        self.sync_long();
    }

    /// The idle task goes to sleep (`traceLOW_POWER_IDLE_BEGIN`): the time until it
    /// wakes is sleep, not idle.
    pub fn sleep_begin(&mut self, now: u32) {
        if self.flags & (ASLEEP | IN_ISR) != 0 {
            return;
        }
        self.advance(now);
        self.task = self.charged;
        self.sleep_task_run = self.run_carry.saturating_add(now.wrapping_sub(self.run_start));
        self.sleep_start = now;
        self.charged = SLEEP as u16;
        self.flags |= ASLEEP;
    }

    /// The idle task woke up (`traceLOW_POWER_IDLE_END`).
    pub fn sleep_end(&mut self, now: u32) {
        if self.flags & (ASLEEP | IN_ISR) != ASLEEP {
            return;
        }
        self.advance(now);
        self.note_run(SLEEP, self.sleep_carry.saturating_add(now.wrapping_sub(self.sleep_start)));
        self.sleep_carry = 0;
        self.flags &= !(ASLEEP | PENDING);
        self.charged = self.task;
        (self.run_start, self.run_carry) = self.resumed(now, self.sleep_task_run);
        self.sync_long();
    }

    /// Where a run that has had `own` counts by `now` starts again, and its counts
    /// before that: not before the window's start, so that measuring it from there
    /// cannot wrap before the window closes.
    fn resumed(&self, now: u32, own: u32) -> (u32, u32) {
        let into = now.wrapping_sub(self.win_start);
        if own <= into {
            (now.wrapping_sub(own), 0)
        } else {
            (self.win_start, own - into)
        }
    }

    /// `LONG` is set exactly while a carry is not zero.
    fn sync_long(&mut self) {
        if self.run_carry | self.isr_carry | self.sleep_carry != 0 {
            self.flags |= LONG;
        } else {
            self.flags &= !LONG;
        }
    }

    /// The common case of a tick, in as few instructions as it takes: the window
    /// runs on and the running slot was already charged in it, so the counts since
    /// the last reading are one add. Returns false, having changed nothing, when the
    /// full path (`advance`) is needed: at most twice per slot and window.
    #[inline(always)]
    fn charge_fast(&mut self, now: u32) -> bool {
        if now.wrapping_sub(self.win_start) >= self.win_len {
            return false;
        }
        let window = self.window;
        let last = self.last;
        match self.acct.get_mut(usize::from(self.charged)) {
            Some(a) if a.window == window => {
                a.counts = a.counts.wrapping_add(now.wrapping_sub(last));
                self.last = now;
                true
            }
            _ => false,
        }
    }

    /// Where task `id` is charged: its own slot if it is a live task's ID, else ID 0.
    #[inline(always)]
    fn slot_of(&self, id: u32) -> u16 {
        match self.meta.get((id as usize).wrapping_sub(1)) {
            Some(m) if m.state == TaskState::Alive => id as u16,
            _ => OVERFLOW as u16,
        }
    }

    /// A switch that closes a window, charges a slot for the first time in one,
    /// follows a task that deleted itself, or happens inside an interrupt handler.
    #[cold]
    #[inline(never)]
    fn switch_in_slow(&mut self, now: u32, id: u32) {
        self.advance(now);
        let paused = self.flags & (IN_ISR | ASLEEP) != 0;
        let out = usize::from(if paused { self.task } else { self.charged });
        // The task's own time: up to the interrupt (or sleep) it is paused in.
        let run = if self.flags & ASLEEP != 0 {
            self.sleep_task_run
        } else if paused {
            self.isr_below
        } else {
            self.run_carry.saturating_add(now.wrapping_sub(self.run_start))
        };
        // A task switched in inside a handler and out again before it ended never ran.
        if self.flags & PENDING == 0 {
            self.note_run(out, run);
        }
        self.run_carry = 0;
        if self.flags & DYING != 0 {
            // The task switched out deleted itself: this was its last switch.
            self.flags &= !DYING;
            self.release(out);
        }
        let next = self.slot_of(id);
        if paused {
            // A port that switches inside the handler: the new task's run starts
            // when the handler (or sleep) ends.
            self.task = next;
            if self.flags & ASLEEP == 0 {
                // (Asleep, it is the sleep's own time, and the sleep goes on.)
                self.isr_below = 0;
            }
            self.sleep_task_run = 0;
            self.flags |= PENDING;
        } else {
            self.charged = next;
            self.run_start = now;
        }
        self.sync_long();
    }

    /// Charges the counts since the last reading to the current slot, closing the
    /// window first if it has elapsed.
    #[cold]
    #[inline(never)]
    fn advance(&mut self, now: u32) {
        if now.wrapping_sub(self.win_start) >= self.win_len {
            self.roll_over(now);
        }
        let d = now.wrapping_sub(self.last);
        self.last = now;
        self.credit(usize::from(self.charged), d);
    }

    /// Adds `d` counts to a slot in the window under way, moving the slot on to it
    /// first if its figures are of an earlier window.
    fn credit(&mut self, slot: usize, d: u32) {
        let window = self.window;
        let old = self.acct.get(slot).map_or(window, |a| a.window);
        let len = self.len_of(old);
        if let Some(a) = self.acct.get_mut(slot) {
            if a.window != window {
                a.fold(window, len);
            }
            a.counts = a.counts.wrapping_add(d);
        }
    }

    /// The length of window `window` if it is the published one; otherwise the length
    /// set now, which is what every window had unless it was changed or a stall
    /// stretched one (see `peak` in the README).
    fn len_of(&self, window: u32) -> u32 {
        if window == self.window.wrapping_sub(1) && self.published() {
            self.pub_len
        } else {
            self.win_len
        }
    }

    /// One run of a slot ended (or a window closes while it goes on): counted, and
    /// kept if it is the window's longest.
    fn note_run(&mut self, slot: usize, run: u32) {
        self.credit(slot, 0);
        let limit = !self.watch.slice_inv;
        if let Some(a) = self.acct.get_mut(slot) {
            a.runs = a.runs.wrapping_add(1);
            if run > a.longest {
                a.longest = run;
                if run > limit {
                    self.slice_over(slot, run);
                }
            }
        }
    }

    /// A run is over the slice watchdog's limit: if it is a task's, remember the
    /// longest such run of the window. (Interrupts, sleep and the time before the
    /// first task are not slices.)
    #[cold]
    #[inline(never)]
    fn slice_over(&mut self, slot: usize, run: u32) {
        // (Nor is the idle task's: it running long is an idle system.)
        if slot == OTHER || slot > OVERFLOW || slot == usize::from(self.idle) {
            return;
        }
        let w = &mut self.watch;
        if w.slice_over & SLICE_NOW == 0 || run > w.slice_len {
            w.slice_over |= SLICE_NOW;
            w.slice_len = run;
            w.slice_slot = slot as u16;
        }
    }

    /// Closes the window under way. It ends exactly `win_len` after its start, and the
    /// counts up to that point are charged to it; the rest go to the next window. If
    /// no hook ran for more than a whole further window (interrupts masked that long),
    /// the closing window takes the whole stall instead: no window is invented that
    /// nobody saw, and the published length says how long it really was.
    #[cold]
    #[inline(never)]
    fn roll_over(&mut self, now: u32) {
        let elapsed = now.wrapping_sub(self.win_start);
        let mut len = if elapsed.wrapping_sub(self.win_len) < self.win_len { self.win_len } else { elapsed };
        // After a shorter window was set, the last reading may lie past the new end.
        let since_last = self.last.wrapping_sub(self.win_start);
        if since_last > len {
            len = since_last;
        }
        let end = self.win_start.wrapping_add(len);
        let d = end.wrapping_sub(self.last);
        self.last = end;
        self.credit(usize::from(self.charged), d);
        self.note_runs_going_on(end);
        self.close_watch(len);
        self.pub_len = len;
        self.overflow_in_window = [self.overflow_tasks, self.overflow_in_window[0]];
        self.win_start = end;
        self.window = self.window.wrapping_add(1);
        self.refresh_one();
    }

    /// The runs still going on at the end of a window count in it, with their
    /// length so far: the task's, and the sleep's and interrupt's it is paused in.
    fn note_runs_going_on(&mut self, end: u32) {
        let in_isr = self.flags & IN_ISR != 0;
        let asleep = self.flags & ASLEEP != 0;
        // Each run going on is measured from `end` on, with its length so far carried.
        if in_isr {
            let run = self.isr_carry.saturating_add(end.wrapping_sub(self.isr_start));
            (self.isr_start, self.isr_carry) = (end, run);
            self.note_run(ISR, run);
        }
        if asleep {
            let sleep = if in_isr {
                self.isr_below
            } else {
                let run = self.sleep_carry.saturating_add(end.wrapping_sub(self.sleep_start));
                (self.sleep_start, self.sleep_carry) = (end, run);
                run
            };
            self.note_run(SLEEP, sleep);
        }
        let (task, run) = if asleep {
            (self.task, self.sleep_task_run)
        } else if in_isr {
            (self.task, self.isr_below)
        } else if usize::from(self.charged) != OTHER {
            let run = self.run_carry.saturating_add(end.wrapping_sub(self.run_start));
            (self.run_start, self.run_carry) = (end, run);
            (self.charged, run)
        } else {
            (self.charged, 0)
        };
        self.sync_long();
        // A task switched in inside a handler has no run before the handler ends.
        if self.phase & STARTED != 0 && usize::from(task) != OTHER && self.flags & PENDING == 0 {
            self.note_run(usize::from(task), run);
        }
    }

    /// The window under way (`len` counts) closes: the smoothed loads take it in and
    /// the watchdogs judge it.
    fn close_watch(&mut self, len: u32) {
        let window = self.window;
        let in_window = |a: Option<&Acct>| a.map_or(0, |a| if a.window == window { a.counts } else { 0 });
        let idle = if self.idle == 0 { 0 } else { in_window(self.acct.get(usize::from(self.idle))) };
        let asleep = in_window(self.acct.get(SLEEP));
        let busy = len.saturating_sub(idle).saturating_sub(asleep);
        for (avg, &keep) in self.load_avg.iter_mut().zip(self.smooth.iter()) {
            let keep = u64::from(keep);
            let take = u64::from(SMOOTH_ONE) - keep;
            // 16-bit fractions of counts below 2^32: every product stays below 2^64.
            avg.busy = (avg.busy * keep + (u64::from(busy) << 16) * take) >> 16;
            avg.len = (avg.len * keep + (u64::from(len) << 16) * take) >> 16;
        }

        let w = &mut self.watch;
        if w.load_windows != 0 {
            let over = u64::from(busy) * 10_000 > u64::from(w.load_pct) * u64::from(len);
            if !over {
                w.load_streak = 0;
            } else if w.load_streak < w.load_windows {
                w.load_streak += 1;
                if w.load_streak == w.load_windows {
                    w.alerts[LOAD_ALERT] =
                        Alert { kind: AlertKind::Load, window: window, value: busy, limit: len, ..Alert::NONE };
                    w.pending |= 1 << LOAD_ALERT;
                }
            }
        }
        if w.slice_over == SLICE_NOW {
            let slot = usize::from(w.slice_slot);
            let id = if slot == OVERFLOW { OVERFLOW_ID as u16 } else { slot as u16 };
            let name = self.meta.get(slot.wrapping_sub(1)).map_or([0; NAME_LEN], |m| m.name);
            let w = &mut self.watch;
            w.alerts[SLICE_ALERT] =
                Alert { kind: AlertKind::Slice, window: window, value: w.slice_len, limit: !w.slice_inv, id, name };
            w.pending |= 1 << SLICE_ALERT;
        }
        let w = &mut self.watch;
        w.slice_over = if w.slice_over & SLICE_NOW != 0 { SLICE_BEFORE } else { 0 };
    }

    /// Moves one slot's figures on to at most two windows back (which reads the same:
    /// nothing recent, and the since-start figures complete), visiting every slot
    /// once per `SLOTS` rollovers, so stored window numbers always stay within a few
    /// thousand of `window`.
    fn refresh_one(&mut self) {
        let oldest = self.window.wrapping_sub(2);
        let i = usize::from(self.refresh);
        self.refresh = if i + 1 >= SLOTS { 0 } else { i as u16 + 1 };
        let win_len = self.win_len;
        if let Some(a) = self.acct.get_mut(i) {
            if self.window.wrapping_sub(a.window) > 2 {
                a.fold(oldest, win_len);
            }
        }
        if let Some(m) = self.meta.get_mut(i.wrapping_sub(1)) {
            if self.window.wrapping_sub(m.mark) > 2 {
                m.mark = oldest;
            }
        }
    }

    /// Puts a dead task's ID in quarantine, stamped with the window it died in.
    fn release(&mut self, slot: usize) {
        let window = self.window;
        let Some(m) = self.meta.get_mut(slot.wrapping_sub(1)) else { return };
        m.short_lived = m.mark == window;
        m.mark = window;
        m.state = TaskState::Dead;
        self.pool.quarantine(slot.wrapping_sub(1) as u16, &mut self.meta);
    }

    // ---- Task lifecycle (not per switch; still O(1)) ----------------------------

    /// A task was created (`traceTASK_CREATE`): returns its ID, 0 if every ID is
    /// taken (the task then shares the overflow bucket). Until the scheduler starts,
    /// the last [`KEPT_FOR_KERNEL`] IDs are kept for the idle and timer tasks, which
    /// the kernel creates last ([`Engine::kernel_task`]).
    pub fn task_create(&mut self, now: u32, name: &[u8]) -> u32 {
        self.advance(now);
        self.changes = self.changes.wrapping_add(1);
        let window = self.window;
        // An ID whose last windows are gone leaves quarantine: at most one per create,
        // which is enough, because a create only ever needs one.
        if let Some(i) = self.pool.oldest() {
            if self.meta.get(i).is_some_and(|m| window.wrapping_sub(m.mark) >= 2) {
                self.pool.release_oldest(&self.meta);
                if let Some(m) = self.meta.get_mut(i) {
                    m.state = TaskState::Free;
                }
            }
        }
        match self.pool.take() {
            Some(i) if self.phase & SCHEDULING != 0 || i < MAX_TASKS - KEPT_FOR_KERNEL => self.seat(i, name),
            taken => {
                if let Some(i) = taken {
                    self.pool.put(i);
                }
                self.overflow_tasks = self.overflow_tasks.saturating_add(1);
                self.overflow_in_window[0] = self.overflow_in_window[0].saturating_add(1);
                #[cfg(feature = "shell")]
                {
                    self.overflow_since_start = self.overflow_since_start.saturating_add(1);
                }
                OVERFLOW_ID
            }
        }
    }

    /// Gives slot index `i`, just taken from the pool, to a new task called `name`:
    /// returns its ID.
    fn seat(&mut self, i: usize, name: &[u8]) -> u32 {
        let window = self.window;
        let slot = i + 1;
        #[cfg(feature = "shell")]
        if let Some(a) = self.acct.get(slot) {
            let retired = self.retired.get().wrapping_add(a.total_with_current());
            self.retired.set(retired);
        }
        if let Some(a) = self.acct.get_mut(slot) {
            *a = Acct { window: window.wrapping_sub(2), ..Acct::ZERO };
        }
        if let Some(m) = self.meta.get_mut(i) {
            let mut stored = [0u8; NAME_LEN];
            for (dst, src) in stored.iter_mut().zip(name.iter().take_while(|&&b| b != 0)) {
                *dst = *src;
            }
            *m = Meta { name: stored, mark: window, state: TaskState::Alive, short_lived: false, next: 0 };
        }
        slot as u32
    }

    /// One of the kernel's own tasks (the idle task, the timer service task), with
    /// the ID it got at creation, as the scheduler starts: returns the ID it keeps
    /// from now on. One that landed in the overflow bucket, because the application
    /// created more tasks than IDs before starting the scheduler, takes one of the
    /// IDs kept for it, so the idle line and the load are always right.
    /// `running`: the kernel has already switched it in (the first task to run), so
    /// it is charged under its new ID from here.
    pub fn kernel_task(&mut self, id: u32, name: &[u8], running: bool) -> u32 {
        if id != OVERFLOW_ID || self.phase & SCHEDULING != 0 {
            return id;
        }
        let Some(i) = self.pool.take() else { return id };
        self.changes = self.changes.wrapping_add(1);
        // It never ran there: as if it had had its ID from the start.
        self.overflow_tasks = self.overflow_tasks.saturating_sub(1);
        self.overflow_in_window[0] = self.overflow_in_window[0].saturating_sub(1);
        #[cfg(feature = "shell")]
        {
            self.overflow_since_start = self.overflow_since_start.saturating_sub(1);
        }
        let id = self.seat(i, name);
        if running {
            let slot = id as u16;
            if self.flags & (IN_ISR | ASLEEP) != 0 {
                self.task = slot;
            } else {
                self.charged = slot;
            }
        }
        id
    }

    /// A task was deleted (`traceTASK_DELETE`). Its time stays in the windows it ran
    /// in, marked deleted. A task deleting itself keeps running (and being charged)
    /// until the next switch, which is when its ID enters quarantine.
    pub fn task_delete(&mut self, now: u32, id: u32) -> Result<(), HookError> {
        self.advance(now);
        self.changes = self.changes.wrapping_add(1);
        if id == OVERFLOW_ID {
            self.overflow_tasks = self.overflow_tasks.saturating_sub(1);
            return Ok(());
        }
        let slot = id as usize;
        let running = if self.flags & (IN_ISR | ASLEEP) != 0 { self.task } else { self.charged };
        match self.meta.get_mut(slot.wrapping_sub(1)) {
            Some(m) if m.state == TaskState::Alive => {
                if usize::from(running) == slot {
                    m.state = TaskState::Dying;
                    self.flags |= DYING;
                } else {
                    self.release(slot);
                }
                Ok(())
            }
            _ => Err(HookError::UnknownId),
        }
    }

    /// The scheduler is starting; `idle_id` is the idle task's ID (never 0 after
    /// [`Engine::kernel_task`]). Accounting restarts next ([`Engine::restart`]).
    pub fn scheduler_start(&mut self, idle_id: u32) {
        self.idle = u16::try_from(idle_id).unwrap_or(0);
        self.phase |= SCHEDULING;
    }

    // ---- For the event trace (`crate::trace`) -------------------------------------

    /// The slot being charged now (a slot index, see "Slots").
    #[cfg(feature = "trace")]
    #[inline(always)]
    pub(crate) fn charged_slot(&self) -> u16 {
        self.charged
    }

    /// The window under way, its start, and the last clock reading: every hook that
    /// changes the charged slot or closes a window reads the clock, and leaves its
    /// reading here.
    #[cfg(feature = "trace")]
    #[inline(always)]
    pub(crate) fn trace_clock(&self) -> (u32, u32, u32) {
        (self.window, self.win_start, self.last)
    }

    /// Task `id`'s name, also after its death; `None` for an ID never used.
    #[cfg(feature = "trace")]
    pub(crate) fn slot_name(&self, id: usize) -> Option<[u8; NAME_LEN]> {
        let m = self.meta.get(id.wrapping_sub(1))?;
        (m.state != TaskState::Free || m.name[0] != 0).then_some(m.name)
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod model_tests;
