//! The serde types of `show_cpu_usage -m` (a window) and `show_cpu_usage -c -m` (since
//! start): every field the library writes, in the order it writes them, so that a
//! report read into these types and written out again is the device's line byte for
//! byte ([`crate::parse_exact`]).
//!
//! Units: `*_counts` are ticks of the clock the library counts with (`clock`,
//! `clock_hz` per second); `*_us` are microseconds, rounded down from counts; `*_pct`
//! are percent with exactly two decimals, apportioned so that the lines of a report
//! add up to exactly 100.00; a window number counts windows completed since the
//! figures started, from 0.
//!
//! Several cores (`cores`, absent on one): the lengths are one core's, and every
//! share of the report is of all the cores' time, the length times the cores (the
//! lines' counts add up to that), except in `per_core`, whose shares are each of one
//! core's time ([`CoreLine`]).
//!
//! A field that earlier firmware did not write (the deleted tasks' line, the bucket's
//! `tasks`, the runs) reads as 0 or absent when missing, so that a viewer still reads
//! such a device; [`crate::parse_exact`] and the invariants require it.

use serde::{Deserialize, Serialize};

use crate::wire;

/// Fields only a since-start report has, on every task and on the idle task: where
/// the task's history is, over every completed window. A window report has none
/// ([`InWindow`]).
pub trait TaskHistory: Clone + std::fmt::Debug + Default + PartialEq {
    /// What is wrong with these fields of a line whose longest run is
    /// `longest_slice_us`, in a report of `windows` completed windows (since start).
    fn broken(&self, longest_slice_us: u64, windows: u64) -> Option<String> {
        let _ = (longest_slice_us, windows);
        None
    }

    /// The busiest window's number, where the line has one.
    fn peak_window(&self) -> Option<u64> {
        None
    }
}

/// A window report's task: no history fields.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct InWindow {}

impl TaskHistory for InWindow {}

/// A since-start report's task history.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct History {
    /// The window in which the longest run (`longest_slice_us`) happened; `null` when
    /// the task never ran. It may be the window under way (numbered `windows`): a run
    /// counts when it ends.
    pub longest_slice_window: Option<u64>,
    /// The task's busiest completed window: its share of that window, in percent
    /// (rounded down); `null` before a window has completed with the task in it.
    #[serde(with = "wire::opt_pct")]
    pub peak_pct: Option<f64>,
    /// The number of that busiest window; `null` exactly when `peak_pct` is.
    pub peak_window: Option<u64>,
}

impl TaskHistory for History {
    fn peak_window(&self) -> Option<u64> {
        self.peak_window
    }

    fn broken(&self, longest_slice_us: u64, windows: u64) -> Option<String> {
        if self.longest_slice_window.is_none() && longest_slice_us != 0 {
            return Some(format!("a longest run of {longest_slice_us} us in no window"));
        }
        // (The longest run may be in the window under way, numbered `windows`.)
        if self.longest_slice_window.is_some_and(|w| w > windows) {
            return Some(format!(
                "longest run in window {:?}, after the {windows} reported",
                self.longest_slice_window
            ));
        }
        if self.peak_pct.is_none() != self.peak_window.is_none() {
            return Some(format!("peak_pct {:?} in window {:?}: both or neither", self.peak_pct, self.peak_window));
        }
        if self.peak_pct.is_some_and(|p| !wire::is_hundredths(p)) {
            return Some(format!("peak_pct {:?} is not a share with two decimals", self.peak_pct));
        }
        // A peak is a completed window's: numbered from 0 to `windows` - 1.
        if self.peak_window.is_some_and(|w| w >= windows) {
            return Some(format!("peak in window {:?}, of {windows} completed", self.peak_window));
        }
        None
    }
}

/// One line of a report: a task, the shared overflow bucket (ID 0), with `-d` a task
/// deleted in the window ([`Task`]), or the idle task ([`Idle`]). The figures are
/// those of the library's field table (`freertos_cpu_usage::fields`), in its
/// order; `P` holds the ones only a task's line has (its share, whether deleted, the
/// bucket's tasks), which sit between `counts` and `switches`, and `H` the since-start
/// history. (`P`'s fields read as the line's own: `task.usage_pct`.)
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Line<P: LinePart = TaskPart, H: TaskHistory = InWindow> {
    /// The library's ID: `1..=slots.capacity`; 0 is the bucket shared by the tasks that
    /// got no ID of their own. (With several cores, the idle tasks' one ID is past
    /// the capacity.)
    pub id: u32,
    /// The task's name as the kernel gave it, at most `CPU_USAGE_NAME_LEN` bytes; each
    /// byte outside printable ASCII is written `\u00XX`, so every character here is
    /// one byte ([`crate::name_bytes`]). `(overflow)` for ID 0; FreeRTOS's `IDLE` for
    /// the idle task, unless configured otherwise.
    #[serde(with = "wire::name")]
    pub name: String,
    /// Clock counts charged to the task in the span reported (the idle task's: awake).
    pub counts: u64,
    /// What only a task's line has (nothing on the idle task's).
    #[serde(flatten)]
    pub part: P,
    /// Runs (times switched in) in the span: a run going on at a window's end counts
    /// in that window.
    #[serde(default)]
    pub switches: u64,
    /// The longest run in the span, in microseconds (rounded down), interrupts taken
    /// out.
    #[serde(default)]
    pub longest_slice_us: u64,
    /// Since start only: where its history is.
    #[serde(flatten)]
    pub history: H,
}

/// What a kind of line has besides the figures every line has: [`TaskPart`] or
/// [`IdlePart`].
pub trait LinePart: Clone + std::fmt::Debug + Default + PartialEq {}

/// A task's line: its share, whether deleted, and the bucket's tasks.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TaskPart {
    /// Its share of the span, in percent: within a hundredth of `counts` over the
    /// span's length (times the cores), the same in every report of the span.
    #[serde(with = "wire::pct")]
    pub usage_pct: f64,
    /// Deleted during the window (listed with `-d`; never since start).
    #[serde(default)]
    pub deleted: bool,
    /// The overflow bucket only: how many tasks shared it in the span reported (not
    /// now: `slots.overflow_tasks` is now).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tasks: Option<u32>,
}

impl LinePart for TaskPart {}

/// The idle task's line has nothing more: its share is the report's `idle_pct`
/// (time awake and idle; asleep is `sleep_pct`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IdlePart {}

impl LinePart for IdlePart {}

/// A task's line (or the bucket's).
pub type Task<H = InWindow> = Line<TaskPart, H>;

/// The idle task's line (kept out of `tasks`).
pub type Idle<H = InWindow> = Line<IdlePart, H>;

impl<P: LinePart, H: TaskHistory> std::ops::Deref for Line<P, H> {
    type Target = P;

    fn deref(&self) -> &P {
        &self.part
    }
}

impl<P: LinePart, H: TaskHistory> std::ops::DerefMut for Line<P, H> {
    fn deref_mut(&mut self) -> &mut P {
        &mut self.part
    }
}

/// The ID pool, as it is when the report is printed (not as it was in the window).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Slots {
    /// IDs in all (`CPU_USAGE_MAX_TASKS`).
    pub capacity: u32,
    /// Held by live tasks.
    pub used: u32,
    /// Held back after a delete until the windows the dead task had time in are no
    /// longer reported.
    pub quarantined: u32,
    /// Ready to hand out.
    pub free: u32,
    /// Live tasks without an ID of their own, sharing ID 0.
    pub overflow_tasks: u32,
}

/// The tasks a `-n N` report summed on one line, the N busiest being listed.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MoreTasks {
    /// How many tasks.
    pub count: u32,
    /// Their clock counts together.
    pub counts: u64,
    /// Their share together, in percent: the sum of their shares.
    #[serde(with = "wire::pct")]
    pub usage_pct: f64,
}

/// What the board says about how far a report's figures can be trusted, as the last
/// member of the report's object (`"note"`); absent when it has nothing to say. The
/// library writes no note: the demo's shell puts the board's into each report as it
/// goes out (`demo/note.c`), and only the POSIX simulator has one, when the host held
/// back the core it needs for more than its 1.5-point accuracy in the report's window,
/// at most (`freertos-port/posix/host_share.c`). Time held back is charged to the task
/// that FreeRTOS had running, so a share can read high by up to `held_back_us` over
/// the window's length.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Note {
    /// The note for people: the line the table starts with, without its `note: `.
    pub text: String,
    /// The span measured, in microseconds: the window the note is about (the report's,
    /// named in `text`) and the few milliseconds either side until the simulator saw
    /// it begin and end.
    pub span_us: u64,
    /// Of the span, the time outside tickless sleep, in microseconds.
    pub awake_us: u64,
    /// Of the awake time, the time the host gave the simulator no core, in
    /// microseconds: at least the time held back in the window.
    pub held_back_us: u64,
}

/// What a window report and a since-start report differ in: the figures at the
/// head ([`WindowHead`], [`SinceStartHead`]), the deleted tasks' count (a window's
/// only) and the lines' history. (The head's fields read as the report's own:
/// `window.window_us`.)
pub trait Span: Clone + std::fmt::Debug + Default + PartialEq + Serialize + serde::de::DeserializeOwned {
    /// The deleted tasks' count, where the report has one.
    type Deleted: Clone + std::fmt::Debug + Default + PartialEq + Serialize + serde::de::DeserializeOwned;
    /// The lines' history fields.
    type History: TaskHistory + Serialize + serde::de::DeserializeOwned;
}

/// The head of `show_cpu_usage -m`: the last completed window.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WindowHead {
    /// The window's number: windows completed since the figures started, from 0.
    pub window: u64,
    /// Its length in microseconds (rounded down from `window_counts`).
    pub window_us: u64,
    /// Its length in clock counts: what the lines' counts add up to, exactly.
    pub window_counts: u64,
}

impl Span for WindowHead {
    type Deleted = DeletedTasks;
    type History = InWindow;
}

/// The head of `show_cpu_usage -c -m`: every completed window since the figures
/// started (at scheduler start, or a clock change).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SinceStartHead {
    /// Windows completed: the span ends with the last of them.
    pub windows: u64,
    /// The span's length in microseconds (rounded down from `uptime_counts`).
    pub uptime_us: u64,
    /// The span's length in clock counts: what the lines' counts add up to, exactly.
    pub uptime_counts: u64,
}

impl Span for SinceStartHead {
    type Deleted = NoCount;
    type History = History;
}

/// A window's deleted tasks summed on one line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeletedTasks {
    /// Tasks deleted in the window and summed on one line (0 with `-d`, which lists
    /// them).
    #[serde(default)]
    pub deleted_tasks: u32,
}

/// Since start, the deleted tasks are not counted (only their time is).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NoCount {}

/// `show_cpu_usage -m` ([`Window`]) or `show_cpu_usage -c -m` ([`SinceStart`]).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(bound = "")]
pub struct Usage<S: Span> {
    /// `"window"` or `"cumulative"`.
    pub mode: String,
    /// The span: its number or the windows in it, its length.
    #[serde(flatten)]
    pub head: S,
    /// The clock's name (`monotonic`, `systick`, `dwt-cyccnt`, `mtime`, ...).
    #[serde(with = "wire::name")]
    pub clock: String,
    /// The clock's counts per second; 0 if no clock is set.
    pub clock_hz: u64,
    /// The cores the library counts (`CPU_USAGE_CORES`, the kernel's
    /// `configNUMBER_OF_CORES`): 2 or more, absent on one core ([`Usage::cores`]
    /// reads absent as 1). With several, every share of the report is a share of all
    /// the cores' time, the span's length times the cores: the lines still add up to
    /// exactly 100.00, and their counts to the cores times the length. The length
    /// (`window_counts`, `uptime_counts` and their `_us`) stays one core's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cores: Option<u32>,
    /// Every task with a line of its own, the idle task apart: in ID order, or with
    /// `-s` / `-n N` by counts, largest first, ties by ID. Since start: each live ID,
    /// and the dead whose ID was not yet reused, with its history.
    pub tasks: Vec<Task<S::History>>,
    /// The ID pool now.
    pub slots: Slots,
    /// With `-n N`, the tasks past the N busiest; absent when none is left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub more_tasks: Option<MoreTasks>,
    /// A window's count of the deleted tasks summed on one line.
    #[serde(flatten)]
    pub deleted: S::Deleted,
    /// Counts of the deleted tasks summed (since start: those no longer listed, dead
    /// and their ID reused) together.
    #[serde(default)]
    pub deleted_counts: u64,
    /// Their share together, in percent.
    #[serde(default, with = "wire::pct")]
    pub deleted_pct: f64,
    /// The idle task; `null` before the scheduler started. With several cores, the
    /// idle tasks of every core on one line: their time summed, under the ID they all
    /// share (past `slots.capacity`, no ID of the pool), named `IDLE`, and since start
    /// with no peak (the busiest window of a sum is none of its parts').
    pub idle: Option<Idle<S::History>>,
    /// Clock counts in interrupt handlers (charged to no task), every core's.
    pub interrupts_counts: u64,
    /// Their share, in percent.
    #[serde(with = "wire::pct")]
    pub interrupts_pct: f64,
    /// Interrupt entries, on every core.
    pub interrupts: u64,
    /// The longest interrupt (on any core), in microseconds (rounded down).
    pub longest_interrupt_us: u64,
    /// Clock counts asleep in tickless idle, every core's.
    pub sleep_counts: u64,
    /// Their share, in percent.
    #[serde(with = "wire::pct")]
    pub sleep_pct: f64,
    /// Times an idle task went to sleep.
    pub sleeps: u64,
    /// Clock counts with no task switched in (the kernel before the scheduler, and
    /// what no hook attributed).
    pub other_counts: u64,
    /// Their share, in percent.
    #[serde(with = "wire::pct")]
    pub other_pct: f64,
    /// The idle task's share, awake, in percent (`idle.counts`'s share).
    #[serde(with = "wire::pct")]
    pub idle_pct: f64,
    /// 100 − `idle_pct` − `sleep_pct`; 0.00 when nothing else ran.
    #[serde(with = "wire::pct")]
    pub load_pct: f64,
    /// With several cores (`cores`), each core's figures in core order, as shares of
    /// that core's time; absent on one core.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_core: Option<Vec<CoreLine>>,
    /// The load smoothed over about 1, 10 and 60 s (exponential weights set on the
    /// device), in percent; `null` for a weight that has taken in nothing yet (since
    /// start too: the averages now).
    #[serde(with = "wire::pct3")]
    pub load_avg_pct: [Option<f64>; 3],
    /// The board's note on these figures (about the last window), if it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<Note>,
}

/// One core's figures in a report of several cores (`per_core`): each share is of
/// that core's time alone (the window's length, or the time since start), rounded
/// down to hundredths on its own, so that `busy_pct` + `idle_pct` + `sleep_pct` is
/// 100.00 less at most 0.02 of rounding. (The report's other shares are of all the
/// cores' time, apportioned to add up exactly.)
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CoreLine {
    /// The core's number: `0..cores`, the kernel's `portGET_CORE_ID()`.
    pub core: u32,
    /// Busy: the core's time neither idle nor asleep (tasks, interrupts, and what no
    /// task had), in percent.
    #[serde(with = "wire::pct")]
    pub busy_pct: f64,
    /// Its idle task awake, in percent.
    #[serde(with = "wire::pct")]
    pub idle_pct: f64,
    /// In interrupt handlers, in percent (part of `busy_pct`).
    #[serde(with = "wire::pct")]
    pub interrupts_pct: f64,
    /// Asleep in tickless idle, in percent.
    #[serde(with = "wire::pct")]
    pub sleep_pct: f64,
    /// Interrupt entries on the core: the cores' add up to the report's
    /// `interrupts`.
    pub interrupts: u64,
}

impl<S: Span> std::ops::Deref for Usage<S> {
    type Target = S;

    fn deref(&self) -> &S {
        &self.head
    }
}

impl<S: Span> std::ops::DerefMut for Usage<S> {
    fn deref_mut(&mut self) -> &mut S {
        &mut self.head
    }
}

/// `show_cpu_usage -m`: the last completed window.
pub type Window = Usage<WindowHead>;

/// `show_cpu_usage -c -m`: every completed window since the figures started, the
/// tasks with their history.
pub type SinceStart = Usage<SinceStartHead>;

/// `show_cpu_usage -m` before the first window has completed.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NoWindow {
    /// `"window"`.
    pub mode: String,
    /// `"no completed window yet"`.
    pub error: String,
    /// The window length in force, in milliseconds: the first window ends that long
    /// after start.
    pub window_ms: u64,
}

/// Whatever `show_cpu_usage -m` (with or without `-c`) answers.
#[derive(Clone, Debug, PartialEq)]
pub enum Report {
    /// A completed window.
    Window(Box<Window>),
    /// Since start (`-c`).
    SinceStart(Box<SinceStart>),
    /// No window has completed yet.
    NoWindow(NoWindow),
}

impl<S: Span> Usage<S> {
    /// The cores counted: `cores`, or 1 when absent.
    pub fn cores(&self) -> u32 {
        self.cores.unwrap_or(1)
    }

    /// The task with this name, if it has a line (the first, if two share it).
    pub fn task(&self, name: &str) -> Option<&Task<S::History>> {
        self.tasks.iter().find(|t| t.name == name)
    }
}

impl Window {
    /// The window as `-n N` would have reported it: the `n` busiest tasks (ties by
    /// ID), the rest summed into `more_tasks` (with any the device had summed). A
    /// summed share is the sum of the hundredths of the tasks in it, as on the device.
    pub fn top(&self, n: usize) -> Window {
        let mut w = self.clone();
        w.tasks.sort_by(|a, b| b.counts.cmp(&a.counts).then(a.id.cmp(&b.id)));
        if w.tasks.len() > n {
            let rest = w.tasks.split_off(n);
            let more = w.more_tasks.get_or_insert_with(MoreTasks::default);
            let mut hundredths = wire::hundredths_of(more.usage_pct);
            for t in rest {
                more.count += 1;
                more.counts += t.counts;
                hundredths += wire::hundredths_of(t.usage_pct);
            }
            more.usage_pct = hundredths as f64 / 100.0;
        }
        w
    }
}
