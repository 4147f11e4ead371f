//! The accounting engine: pure logic, no raw pointers, no FFI, no FreeRTOS types.
//!
//! This file holds the engine's data and its settings; `hot_path.rs` what the hooks
//! run on every switch, tick, interrupt and sleep, and the rollover of windows;
//! `task.rs` the tasks' creation and deletion; `watchdog.rs` the watchdogs' settings
//! and alerts; `pool.rs` the task-ID pool; `read.rs` the readers' view; `arith.rs`
//! the arithmetic of window lengths and shares.
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
//! Index `i` in `0..=IDS` is ID `i`'s: 0 the bucket shared by tasks created when every
//! ID is taken, `1..=IDS` the tasks'; then interrupts, sleep and "other" (the time
//! before the first task), and on several cores more (see "Cores"). So a switch can
//! store a task's ID as the slot it charges, once it has checked that the ID is at
//! most `IDS`. A slot's index is also its line's
//! position in every report (`read.rs`, "Positions") and its number in the event
//! trace's dump: one numbering of the buckets everywhere.
//!
//! # Cores
//! An engine for `CORES` cores (a power of two, 1 unless said otherwise) keeps each
//! core's running state apart (`Run`: its last reading, what it charges, its
//! interrupts and sleep) and shares the rest: the windows, the tasks' slots and the
//! ID pool. Every hook names its core, `k`; with one core that is 0, known when the
//! engine is compiled, and the code is what it was before there were cores. Each
//! core has its own slots of interrupts and sleep, and with several cores one of idle
//! time too: the idle tasks have no core of their own (they migrate), so they all
//! carry one ID, [`Engine::IDLE`], which charges the idle slot of the core that
//! switches it in. A task's slot takes its time on every core it runs on. The window
//! ends at the same instant on every core: the hook that closes it charges every
//! core up to that instant (a loop over the cores, not the tasks), so each window's
//! lines add up to the cores times its length, and each core's interrupts, sleep and
//! idle are exactly its own. The engine does not lock: the caller runs one hook at a
//! time, on whatever core, and reads the clock inside that (on a multi-core build the
//! library's hooks and readers run under the kernel's ISR lock: `ffi::hooks`).
//!
//! With several cores, slot `IDS + 1 + k` is core `k`'s interrupts, `IDS + 1 + CORES
//! + k` its sleep, then "other", then the idle slots (see [`slots_beside_tasks`]).
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
//! with everything they call, are in `hot_path.rs`, top to bottom. They do no allocation,
//! no division, no floating point, no loop over tasks, and have no panic path: every
//! index is checked with `get`, every sum wraps. Rollover is a constant amount of work
//! (multiplications included, no division) in whichever hook first sees the window
//! elapsed.
//!
//! Each hook has a common path, a few dozen instructions, and a slow one (`#[cold]`,
//! not inlined) for everything else. What keeps the common paths short: the common
//! switch checks only that the ID switched in is in range, not that its task lives
//! (a dead or unused slot has no time in the window under way, so nothing charges it
//! on a common path, and every slow path first charges such a slot's time to ID 0:
//! `forget_dead`; `DIED` covers the window a task with time in it died in), and
//! stores it as the slot to charge ("Slots"); the charged slot and the flags, side by
//! side, are read as one word and checked with one compare (`charged_and_flags`); a
//! run that is its slot's longest so far, and a slot's first charge in a window,
//! take a short path of their own (`switch_in_less_common`), and a run over the
//! slice watchdog's limit the slow switch; an interrupt's common enter leaves the
//! task's run before it to be worked out only if a slow path needs it (`LAZY`), and
//! its common exit moves the task's run start on by the handler's time.

use core::sync::atomic::{compiler_fence, Ordering};

pub mod arith;
mod hot_path;
mod pool;
mod read;
mod readout;
mod task;
#[cfg(feature = "watchdogs")]
mod watchdog;

use pool::IdPool;
#[cfg(test)]
pub(crate) use read::gather::Summary;
pub use read::{Header, Line, Seat, Stamp};
pub use readout::Layout;
#[cfg(feature = "watchdogs")]
use watchdog::Watch;
#[cfg(feature = "watchdogs")]
pub use watchdog::{Alert, AlertKind};

pub use crate::settings::NAME_LEN;

/// The most task IDs an engine can have: the ID pool's summary word has one bit per
/// 32 IDs.
pub const MAX_IDS: usize = 1024;

/// ID of the shared bucket for tasks beyond capacity.
pub const OVERFLOW_ID: u32 = 0;
/// The most cores an engine can have.
pub const MAX_CORES: usize = 8;

/// Slots besides the task IDs' on `cores` cores: the shared bucket, "other", and each
/// core's interrupts and sleep; with several cores also each core's idle time (see
/// "Cores"). 4 on one core.
pub const fn slots_beside_tasks(cores: usize) -> usize {
    2 + 2 * cores + if cores > 1 { cores } else { 0 }
}

/// The engine with `ids` task IDs (and `cores` cores, 1 if not given):
/// [`Engine`]`<ids, ids + 4, ids / 32 rounded up>` on one core. Stable Rust cannot
/// size an array by an expression of a generic parameter, so the slot count and the
/// ID pool's word count are parameters of their own, which follow from the others;
/// [`Engine::new`] checks that they do when it is compiled.
macro_rules! engine_for {
    ($ids:expr) => {
        $crate::engine::engine_for!($ids, 1)
    };
    ($ids:expr, $cores:expr) => {
        $crate::engine::Engine<
            { $ids },
            { $ids + $crate::engine::slots_beside_tasks($cores) },
            { ($ids as usize).div_ceil(32) },
            { $cores },
        >
    };
}
pub(crate) use engine_for;

/// Largest window, in clock counts: elapsed times are compared modulo 2^32, and a
/// window must close before its start could be mistaken for a later time.
pub const MAX_WINDOW_COUNTS: u32 = 1 << 31;

/// The most counts a clock reading may lie before the last one and still be taken
/// as a step back (no time passed) rather than as a jump forward of nearly 2^32
/// counts: a SysTick-extended clock read racing its interrupt, or a timer read
/// across a carry, steps back by up to a tick. A stall must then stay shorter than
/// 2^32 - 2^24 counts to be measured (at 100 MHz: 42.78 s, not 42.95 s).
pub const MAX_STEP_BACK: u32 = 1 << 24;

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
#[repr(C)] // what a switch updates side by side, for paired loads and stores
struct Acct {
    counts: u32,
    runs: u32,
    /// Longest run.
    longest: u32,
    /// Window of the last charge: `counts`, `runs` and `longest` are its figures,
    /// the `prev_*` ones those of the window before it.
    window: u32,
    prev_counts: u32,
    prev_runs: u32,
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
        // A debugger reads the published figures while the hooks run (`readout.rs`):
        // it takes `counts..longest` while `window` is the old one, `prev_*` once it
        // is the new one, so they are stored in that order. (No instruction: it only
        // keeps the compiler from moving the stores.)
        compiler_fence(Ordering::Release);
        self.window = to;
        compiler_fence(Ordering::Release);
        self.counts = 0;
        self.runs = 0;
        self.longest = 0;
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
    Free = 0,
    Alive = 1,
    /// Deleted itself and is still running until the next switch.
    Dying = 2,
    /// Deleted; its ID is quarantined until its windows are gone.
    Dead = 3,
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

    /// Its task exists (a task that deleted itself runs until the next switch).
    fn is_live(&self) -> bool {
        matches!(self.state, TaskState::Alive | TaskState::Dying)
    }
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

    /// Takes in `other`, another core's line of the same kind (several cores): the
    /// counts and runs summed, the longest run the longer. The busiest window of a
    /// sum of lines is none of theirs: no peak.
    pub fn add_core(&mut self, other: &Row) {
        self.counts = self.counts.wrapping_add(other.counts);
        self.runs = self.runs.wrapping_add(other.runs);
        self.longest = self.longest.max(other.longest);
        self.peak_len = 0;
    }
}

/// Occupancy of the ID pool. `used + quarantined + free == capacity` always; anything
/// else is a leaked ID.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SlotStats {
    /// IDs in all (the engine's `IDS`; `CPU_USAGE_MAX_TASKS` for the C API's).
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
/// bias). Both are 16-bit fixed point. (`repr(C)`: the read-out gives a debugger
/// the offset of the three, and this order.)
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
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

/// `Engine::phase`.
const STARTED: u8 = 1;
const SCHEDULING: u8 = 2;

/// `Engine::flags`: anything set sends every hook down its slow path.
const DYING: u16 = 1;
const IN_ISR: u16 = 2;
const ASLEEP: u16 = 4;
/// A task switched in inside a handler (or a sleep) whose run has not begun yet.
const PENDING: u16 = 8;
/// A run going on began before the window under way: its counts before that are in
/// `*_carry`, which the fast paths do not add.
const LONG: u16 = 16;
/// A task with time in the window under way died in it: until the window closes,
/// switches check the liveness of the task switched in (see `Engine::switch_in`).
const DIED: u16 = 32;
/// An interrupt entered on the fast path, with no slow path since: `isr_below` is
/// not stored yet (it is `run_carry` plus `isr_start - run_start`; see
/// `Engine::isr_enter`).
const LAZY: u16 = 64;
/// Every flag but `LONG` and `DIED`, which an interrupt's common paths go on with.
/// (Listed, not `!(LONG | DIED)`: a mask that fits an instruction's immediate.)
const BUT_LONG_DIED: u16 = DYING | IN_ISR | ASLEEP | PENDING | LAZY;

/// One core's running state: who is charged since when. The hooks of a core change
/// only its own (and a rollover every core's: see "Cores").
#[derive(Clone, Copy)]
#[repr(C)] // fields in this order: what the hooks touch first, at small offsets
struct Run {
    /// The last clock reading: the hooks never let it go back (see "Clocks that step
    /// back").
    last: u32,
    /// Counts left in the window under way after `last`: it ends at `last + left`,
    /// `win_len` after its start, or later while a reader holds it (see "Readers
    /// hold the rollover"). Kept beside `last`, so that the common paths check the
    /// window with the difference they need anyway, `now - last < left` (which a
    /// reading earlier than `last` also fails), and take it off `left` as they
    /// store `now` in `last`.
    left: u32,
    /// Start of the running task's run, moved on by the interrupts and sleep inside
    /// it so that `now - run_start` is the task's own time.
    run_start: u32,
    /// Slot being charged now.
    charged: u16,
    /// `DYING`: the running task deleted itself (release its ID at the next switch);
    /// `IN_ISR`, `ASLEEP`: `charged` is the interrupt or sleep slot, and `task` the
    /// task switched in; and the others above. Right after `charged`, which the
    /// common switch reads together with it (`charged_and_flags`: one load, one
    /// compare).
    flags: u16,
    /// Counts of a run before its start field (saturated), set when a window closes
    /// during the run: lengths are measured from the window's start at most, so
    /// they never wrap. Non-zero only with `LONG`.
    run_carry: u32,
    isr_carry: u32,
    sleep_carry: u32,
    /// The task switched in, while `charged` is not it.
    task: u16,
    /// Interrupt handlers nested in the one that `IN_ISR` says runs (0 while at most
    /// one runs; at most 255, deeper than interrupt priorities let handlers nest).
    isr_depth: u8,
    isr_start: u32,
    /// Own time of the run below the outermost interrupt (the task's, or the
    /// sleep's), when the interrupt began.
    isr_below: u32,
    sleep_start: u32,
    /// The idle task's own run time when it fell asleep.
    sleep_task_run: u32,
}

impl Run {
    /// Charging the shared bucket (which `restart` moves to "other"), nothing under way.
    const START: Run = Run {
        last: 0,
        left: 0,
        run_start: 0,
        charged: OVERFLOW_ID as u16,
        flags: 0,
        run_carry: 0,
        isr_carry: 0,
        sleep_carry: 0,
        task: OVERFLOW_ID as u16,
        isr_depth: 0,
        isr_start: 0,
        isr_below: 0,
        sleep_start: 0,
        sleep_task_run: 0,
    };
}

/// The whole accounting state, for `IDS` task IDs (`SLOTS` and `WORDS` follow from
/// it: name the type with `engine_for!`). The C API keeps one instance in a static
/// (`crate::settings::ApiEngine`); tests make their own, of every size. It starts all
/// zero, so that static costs RAM only.
#[repr(C)] // fields in this order: what the hooks touch first, at small offsets
pub struct Engine<const IDS: usize, const SLOTS: usize, const WORDS: usize, const CORES: usize = 1> {
    /// Each core's running state (see "Cores"), core 0's first: on one core, what
    /// the hooks touch first is at the smallest offsets.
    run: [Run; CORES],
    win_start: u32,
    win_len: u32,
    /// Number of the window under way, from 0 at (re)start; `window - 1` is published.
    window: u32,
    /// Changes to the since-start figures besides a window's end (wrapping): with
    /// `window` and `restarts`, what a since-start reader's lines must be of (see
    /// `Stamp`). (16 bits: a report lasts far fewer than 65536 creates.) Only the
    /// shell reads since start.
    #[cfg(feature = "shell")]
    changes: u16,
    /// Next slot `refresh_one` visits.
    refresh: u16,
    /// Readers holding the window under way open (see "Readers hold the rollover");
    /// 0 again when it closes. (Here, beside `refresh`: no padding in any build.)
    hold: u8,
    /// Restarts so far (wrapping): with `window`, what a window's reader checks.
    restarts: u8,
    /// `STARTED`: accounting has started; `SCHEDULING`: so has the scheduler, and
    /// the IDs kept for its own tasks are for all.
    phase: u8,
    /// With several cores, the core of the hook whose slow path runs (see
    /// `Engine::pass_core`).
    slow_core: u8,
    /// Length of the published window: `win_len`, or longer after a stall (see
    /// `roll_over`); 0 until a window has completed since accounting (re)started.
    pub_len: u32,
    /// The read-out's sequence counter (see `readout.rs`): odd while a rollover or a
    /// restart changes what the published window's figures are, even otherwise.
    seq: u32,
    /// The idle task's ID, 0 until the scheduler starts.
    idle: u16,
    /// Tasks sharing the overflow bucket now; and those that shared it at any time
    /// in the window under way and in the published one (the bucket's line is about
    /// its window, not about the moment it is read). Only the shell's report says
    /// how many tasks a window's bucket had: the minimal build keeps no count of them.
    overflow_tasks: u16,
    #[cfg(feature = "shell")]
    overflow_in_window: [u16; 2],
    /// Tasks that shared the bucket at any time since accounting (re)started.
    #[cfg(feature = "shell")]
    overflow_since_start: u16,
    /// Since-boot time of tasks whose slots were taken by new tasks.
    #[cfg(feature = "shell")]
    retired: Sum64,
    /// The smoothed loads and their smoothing factors (`SMOOTH_ONE` = 1); the
    /// factors after the loads, so that the 8-byte loads need no padding before.
    /// And the watchdogs, which judge the load. (The `watchdogs` feature.)
    #[cfg(feature = "watchdogs")]
    load_avg: [Smoothed; 3],
    #[cfg(feature = "watchdogs")]
    smooth: [u32; 3],
    #[cfg(feature = "watchdogs")]
    watch: Watch,
    pool: IdPool<IDS, WORDS>,
    acct: [Acct; SLOTS],
    meta: [Meta; IDS],
}

impl<const IDS: usize, const SLOTS: usize, const WORDS: usize, const CORES: usize> Engine<IDS, SLOTS, WORDS, CORES> {
    /// The task IDs: `1..=IDS`.
    pub const IDS: usize = IDS;
    /// The cores: `0..CORES`.
    pub const CORES: usize = CORES;
    /// Slot of the bucket shared (under ID 0) by tasks beyond capacity.
    pub(crate) const OVERFLOW: usize = OVERFLOW_ID as usize;
    /// Slot of the time in interrupt handlers (core 0's; core `k`'s is `ISR + k`).
    pub(crate) const ISR: usize = IDS + 1;
    /// Slot of the time the idle task slept (core 0's; core `k`'s is `SLEEP + k`).
    pub(crate) const SLEEP: usize = IDS + 1 + CORES;
    /// Slot of the time before the first task ("other"). (A zeroed engine charges
    /// the shared bucket instead: `restart` moves that here.)
    pub(crate) const OTHER: usize = IDS + 1 + 2 * CORES;
    /// With several cores, slot of core 0's idle time (core `k`'s is `IDLE + k`), and
    /// the ID the idle tasks have (see "Cores"). With one, `SLOTS`: no such slot.
    pub const IDLE: usize = IDS + 2 + 2 * CORES;
    /// `k & CORE_MASK` is a core's index in `run`, whatever `k` (a power of two:
    /// no bounds check, no panic path).
    const CORE_MASK: usize = CORES - 1;

    /// IDs kept, until the scheduler starts, for the tasks the kernel creates then:
    /// the idle task and the timer service task (only the idle task's with a single
    /// ID).
    pub const KEPT_FOR_KERNEL: usize = if IDS >= 2 { 2 } else { 1 };

    /// What the code assumes of the parameters, checked when an engine is compiled.
    const VALID: () = {
        assert!(IDS >= 1, "an engine needs at least one task ID");
        // Slot indices (IDs, the shared bucket, interrupts, sleep) are kept in 16 bits,
        // and the ID pool's summary word has one bit per word of 32 IDs.
        assert!(IDS <= MAX_IDS, "an engine has at most 1024 task IDs");
        assert!(CORES.is_power_of_two() && CORES <= MAX_CORES, "an engine has 1, 2, 4 or 8 cores");
        assert!(
            SLOTS == IDS + slots_beside_tasks(CORES),
            "SLOTS must follow from IDS and CORES: name the type with engine_for!"
        );
        assert!(WORDS == IDS.div_ceil(32), "WORDS must be IDS / 32 rounded up: name the type with engine_for!");
    };

    /// An engine with every ID free, not yet started, with windows of `win_len` counts
    /// (`Engine::new(0)`: set the window before starting).
    pub const fn new(win_len: u32) -> Self {
        let () = Self::VALID;
        Engine {
            acct: [Acct::ZERO; SLOTS],
            meta: [Meta::FREE; IDS],
            pool: IdPool::EMPTY,
            run: [Run::START; CORES],
            phase: 0,
            slow_core: 0,
            win_start: 0,
            win_len,
            pub_len: 0,
            seq: 0,
            window: 0,
            refresh: 0,
            idle: 0,
            overflow_tasks: 0,
            #[cfg(feature = "shell")]
            overflow_in_window: [0; 2],
            hold: 0,
            restarts: 0,
            #[cfg(feature = "shell")]
            overflow_since_start: 0,
            #[cfg(feature = "shell")]
            changes: 0,
            #[cfg(feature = "shell")]
            retired: Sum64([0; 2]),
            #[cfg(feature = "watchdogs")]
            smooth: [0; 3],
            #[cfg(feature = "watchdogs")]
            load_avg: [Smoothed { busy: 0, len: 0 }; 3],
            #[cfg(feature = "watchdogs")]
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
        self.seq_step();
        for a in self.acct.iter_mut() {
            *a = Acct { window: long_ago, ..Acct::ZERO };
        }
        for m in self.meta.iter_mut() {
            m.mark = long_ago;
            m.short_lived = false;
        }
        self.window = 0;
        self.restarts = self.restarts.wrapping_add(1);
        #[cfg(feature = "shell")]
        {
            self.retired = Sum64::default();
        }
        self.pub_len = 0;
        #[cfg(feature = "shell")]
        {
            self.overflow_in_window = [self.overflow_tasks; 2];
        }
        #[cfg(feature = "shell")]
        {
            self.overflow_since_start = self.overflow_tasks;
        }
        self.win_start = now;
        self.hold = 0;
        let (win_len, overflow_tasks) = (self.win_len, self.overflow_tasks);
        for r in self.run.iter_mut() {
            r.last = now;
            r.left = win_len;
            r.run_start = now;
            (r.run_carry, r.isr_carry, r.sleep_carry) = (0, 0, 0);
            r.isr_start = now;
            r.isr_below = 0;
            r.sleep_start = now;
            r.sleep_task_run = 0;
            // Whatever the hooks were in the middle of (a clock change comes from a
            // task, so no interrupt or sleep is under way for real), the task runs on.
            if r.flags & (IN_ISR | ASLEEP) != 0 {
                r.charged = r.task;
            }
            // The shared bucket charged while no task shares it: nothing has run yet
            // (the engine starts zeroed), or a stale ID was switched in. No task
            // runs: "other".
            if usize::from(r.charged) == Self::OVERFLOW && overflow_tasks == 0 {
                r.charged = Self::OTHER as u16;
            }
            r.flags &= DYING;
            r.isr_depth = 0;
        }
        #[cfg(feature = "watchdogs")]
        self.restart_watch();
        self.phase |= STARTED;
        self.seq_step();
    }

    /// The smoothed loads start again; the watchdogs keep their settings.
    #[cfg(feature = "watchdogs")]
    fn restart_watch(&mut self) {
        self.load_avg = [Smoothed::default(); 3];
        self.watch = Watch {
            load_pct: self.watch.load_pct,
            load_windows: self.watch.load_windows,
            slice_inv: self.watch.slice_inv,
            ..Watch::OFF
        };
    }

    /// Sets the window length in counts (`1..=MAX_WINDOW_COUNTS`, checked by the
    /// caller). It applies to the window under way: if that is already longer, it
    /// closes at the next hook.
    pub fn set_window(&mut self, len: u32) {
        self.win_len = len.clamp(1, MAX_WINDOW_COUNTS);
        // (If a core's last reading lies past the new end, the window ends there.)
        let (win_start, win_len) = (self.win_start, self.win_len);
        for r in self.run.iter_mut() {
            r.left = win_len.saturating_sub(r.last.wrapping_sub(win_start));
        }
    }

    /// Sets the weights of the three smoothed loads: the share of the old value kept
    /// at each rollover, in `SMOOTH_ONE`ths (e^(-window/period) for a period of
    /// about 1 s, 10 s and 60 s). Values past `SMOOTH_ONE` are taken as it.
    #[cfg(feature = "watchdogs")]
    pub fn set_smoothing(&mut self, keep: [u32; 3]) {
        self.smooth = keep.map(|k| k.min(SMOOTH_ONE));
    }
}

/// The engine's tests, compiled once for each capacity below, each instance naming
/// its engine `Engine` and its number of IDs `IDS`: `tests.rs` (scenarios on a
/// simulated clock), `capacity_tests.rs` (the ID pool, the shared bucket, the IDs kept
/// for the kernel), `model_tests.rs` (random sequences against a reference model,
/// `cases` of them unless `PROPTEST_CASES` says otherwise), `long_run_tests.rs`
/// (weeks of counter wraps). One ID: every task after the first shares the bucket,
/// so only the tests that need no two tasks with IDs of their own run there. 32: the
/// default build's, one word of the ID pool's bitmap. 256, and 1024: the most, 32
/// words and every bit of the summary word.
///
/// A model sequence costs about the square of the IDs (each ends by filling the pool,
/// with a full check after every create): the counts keep the other capacities' runs
/// together about as long as the 32-ID one, which, named to sort second, starts
/// early, so that on two cores the four take little longer than it alone.
#[cfg(test)]
macro_rules! tests_at_capacities {
    ($($module:ident: $ids:literal IDs, $cases:literal cases: $($suite:ident)+;)*) => {$(
        mod $module {
            use super::*;

            type Engine = engine_for!($ids);
            const IDS: usize = $ids;
            #[allow(dead_code)]
            const SLOTS: usize = IDS + slots_beside_tasks(1);
            #[allow(dead_code)]
            const OVERFLOW: usize = Engine::OVERFLOW;
            #[allow(dead_code)]
            const ISR: usize = Engine::ISR;
            #[allow(dead_code)]
            const SLEEP: usize = Engine::SLEEP;
            const KEPT_FOR_KERNEL: usize = Engine::KEPT_FOR_KERNEL;
            /// Sequences of the model-based test.
            const MODEL_CASES: u32 = $cases;

            mod support {
                include!("test_support.rs");
            }
            $(
                mod $suite {
                    include!(concat!(stringify!($suite), ".rs"));
                }
            )+
        }
    )*};
}

/// The engine's tests on several cores (`smp_tests.rs`), for each core count below,
/// with 8 task IDs (so that tasks beyond them share the bucket).
#[cfg(test)]
macro_rules! tests_on_cores {
    ($($module:ident: $cores:literal cores;)*) => {$(
        mod $module {
            type Engine = engine_for!(8, $cores);
            const CORES: usize = $cores;

            include!("smp_tests.rs");
        }
    )*};
}

#[cfg(test)]
tests_on_cores! {
    cores_2: 2 cores;
    cores_4: 4 cores;
}

#[cfg(test)]
tests_at_capacities! {
    ids_0001: 1 IDs, 2000 cases: capacity_tests model_tests;
    ids_0032: 32 IDs, 2000 cases: tests capacity_tests model_tests long_run_tests;
    ids_0256: 256 IDs, 40 cases: tests capacity_tests model_tests long_run_tests;
    ids_1024: 1024 IDs, 4 cases: tests capacity_tests model_tests long_run_tests;
}
