//! The Rust API: the figures as Rust values, the report into any
//! [`core::fmt::Write`], the window's length and the watchdogs. Safe, `no_std`, no
//! allocation; what the C API gives, for Rust firmware that links this crate as a
//! dependency.
//!
//! The kernel still calls the library through the hooks header (README, "From
//! Rust"); this module reads what the hooks counted. Any use of it links the hooks
//! in (a firmware that never calls it needs `use freertos_cpu_usage as _;`).
//!
//! ```
//! # freertos_cpu_usage::doc_example_window!();
//! use freertos_cpu_usage::api::Usage;
//!
//! let usage = Usage::last_window()?;
//! for task in usage.tasks() {
//!     // blink 25.00%, net 10.00%
//!     println!("{} {}", task.name(), task.share());
//! }
//! assert_eq!(usage.tasks()[0].share().hundredths(), 2500);
//! assert_eq!(usage.idle().share().hundredths(), 6500);
//! assert_eq!(usage.load().hundredths(), 3500);
//! # Ok::<(), freertos_cpu_usage::api::Error>(())
//! ```
//!
//! Every function takes the library's critical section for a moment at a time (one
//! line of the window per section), so it runs in a task, never in a handler, like
//! `show_cpu_usage`.

use core::fmt;

use crate::engine::arith::{self, ShareWalk, Shares};
use crate::engine::{Line, RowKind, NAME_LEN};
use crate::ffi::{self, cpu_usage_status as St};
use crate::settings::{ApiEngine, MAX_TASKS};

/// Task lines a [`Usage`] holds: every ID's, and the overflow bucket's.
pub const TASK_LINES: usize = MAX_TASKS + 1;

/// What a call could not do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// No window has completed yet (the first one ends a window's length after the
    /// scheduler started).
    NoWindow,
    /// The figures changed while they were read: the library restarted, or the
    /// reader was held up for more than a window. Reading again gives the next
    /// window's.
    Changed,
    /// A window length out of range: 1 ms to an hour, and at most 2^31 counts of the
    /// clock.
    Window,
    /// A watchdog's threshold out of range.
    Range,
    /// The [`fmt::Write`] given refused the text.
    Write,
}

impl Error {
    /// The error a C API status stands for; `None` for `CPU_USAGE_OK`.
    fn from_status(code: i32) -> Option<Error> {
        Some(match code {
            c if c == St::CPU_USAGE_OK.code() => return None,
            c if c == St::CPU_USAGE_ERR_NO_WINDOW.code() => Error::NoWindow,
            c if c == St::CPU_USAGE_ERR_WINDOW.code() => Error::Window,
            c if c == St::CPU_USAGE_ERR_RANGE.code() => Error::Range,
            c if c == St::CPU_USAGE_ERR_NO_OUTPUT.code() => Error::Write,
            _ => Error::Changed,
        })
    }

    fn result(code: i32) -> Result<(), Error> {
        Error::from_status(code).map_or(Ok(()), Err)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Error::NoWindow => "no completed window yet",
            Error::Changed => "the figures changed while they were read",
            Error::Window => "window length out of range (1 ms to 1 hour, at most 2^31 clock counts)",
            Error::Range => "threshold out of range",
            Error::Write => "the output refused the text",
        })
    }
}

/// A share of the time a [`Usage`] covers, in hundredths of a percent: 10000 is
/// 100%. Shown as `12.34%`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Share(u16);

impl Share {
    /// The share in hundredths of a percent (0 to 10000).
    pub const fn hundredths(self) -> u16 {
        self.0
    }
}

impl fmt::Display for Share {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{:02}%", self.0 / 100, self.0 % 100)
    }
}

/// Time that is no task's: idle, interrupts, sleep, other, or tasks no longer listed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Time {
    counts: u64,
    share: Share,
    runs: u64,
    longest_us: u64,
}

impl Time {
    const ZERO: Time = Time { counts: 0, share: Share(0), runs: 0, longest_us: 0 };

    /// Clock counts.
    pub const fn counts(&self) -> u64 {
        self.counts
    }

    /// Its share.
    pub const fn share(&self) -> Share {
        self.share
    }

    /// Interrupts: handlers run; sleep: times asleep; else 0.
    pub const fn runs(&self) -> u64 {
        self.runs
    }

    /// Interrupts: the longest handler, in microseconds; else 0.
    pub const fn longest_us(&self) -> u64 {
        self.longest_us
    }

    fn add(&mut self, line: &Line, share: u16, hz: u32) {
        let row = &line.row;
        self.counts += row.counts;
        self.share.0 += share;
        self.runs += row.runs;
        self.longest_us = self.longest_us.max(arith::counts_to_us(u64::from(row.longest), hz));
    }
}

/// One task's line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Task {
    id: u16,
    name: [u8; NAME_LEN],
    counts: u64,
    share: Share,
    runs: u64,
    longest_us: u64,
    deleted: bool,
    overflow: bool,
}

impl Task {
    const EMPTY: Task = Task {
        id: 0,
        name: [0; NAME_LEN],
        counts: 0,
        share: Share(0),
        runs: 0,
        longest_us: 0,
        deleted: false,
        overflow: false,
    };

    /// Its ID, as the reports show it; 0 for the tasks sharing the overflow bucket.
    pub const fn id(&self) -> u16 {
        self.id
    }

    /// Its name as the library keeps it (`CPU_USAGE_NAME_LEN` bytes at most; up to
    /// the first byte that is not UTF-8); `(overflow)` for the shared bucket.
    pub fn name(&self) -> &str {
        if self.overflow {
            return "(overflow)";
        }
        name_str(&self.name)
    }

    /// Its name's bytes, as the kernel gave them.
    pub fn name_bytes(&self) -> &[u8] {
        name_bytes(&self.name)
    }

    /// Clock counts it ran.
    pub const fn counts(&self) -> u64 {
        self.counts
    }

    /// Its share.
    pub const fn share(&self) -> Share {
        self.share
    }

    /// Times it was switched in (a run going on when the window began counts).
    pub const fn runs(&self) -> u64 {
        self.runs
    }

    /// Its longest run in one go, in microseconds.
    pub const fn longest_run_us(&self) -> u64 {
        self.longest_us
    }

    /// It was deleted (its time still counts where it ran).
    pub const fn is_deleted(&self) -> bool {
        self.deleted
    }

    /// It is the overflow bucket: the tasks created while every ID was taken.
    pub const fn is_overflow(&self) -> bool {
        self.overflow
    }
}

/// A name as the library keeps it: up to its first NUL.
fn name_bytes(name: &[u8; NAME_LEN]) -> &[u8] {
    let end = name.iter().position(|&b| b == 0).unwrap_or(NAME_LEN);
    &name[..end]
}

/// A name as text: up to its first NUL, or its first byte that is not UTF-8.
fn name_str(name: &[u8; NAME_LEN]) -> &str {
    let bytes = name_bytes(name);
    core::str::from_utf8(bytes).unwrap_or_else(|e| {
        // SAFETY: `valid_up_to` bytes are UTF-8.
        unsafe { core::str::from_utf8_unchecked(bytes.get_unchecked(..e.valid_up_to())) }
    })
}

/// One core's line (a build for several cores): shares of that core's time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Core {
    /// Tasks and handlers: what idle and sleep leave.
    pub busy: Share,
    /// An idle task.
    pub idle: Share,
    /// Interrupt handlers.
    pub interrupts: Share,
    /// Tickless idle.
    pub sleep: Share,
}

impl Core {
    const ZERO: Core = Core { busy: Share(0), idle: Share(0), interrupts: Share(0), sleep: Share(0) };
}

/// The figures of one window, or since start: every line adds up to exactly 100.00%
/// (on several cores, shares of all cores). About 50 bytes a task line
/// ([`TASK_LINES`] of them): a value to keep in a static, or in a task with the stack
/// for it, and refresh in place ([`Usage::read_last_window`]).
#[derive(Clone, Copy, Debug)]
pub struct Usage {
    window: u32,
    length: u64,
    length_us: u64,
    tasks: [Task; TASK_LINES],
    len: usize,
    idle: Time,
    interrupts: Time,
    sleep: Time,
    other: Time,
    unlisted: Time,
    load: Share,
    load_avg: [Option<Share>; 3],
    cores: [Core; ApiEngine::CORES],
}

impl Usage {
    /// No figures: a place to read them into, with [`Usage::read_last_window`].
    pub const EMPTY: Usage = Usage {
        window: 0,
        length: 0,
        length_us: 0,
        tasks: [Task::EMPTY; TASK_LINES],
        len: 0,
        idle: Time::ZERO,
        interrupts: Time::ZERO,
        sleep: Time::ZERO,
        other: Time::ZERO,
        unlisted: Time::ZERO,
        load: Share(0),
        load_avg: [None; 3],
        cores: [Core::ZERO; ApiEngine::CORES],
    };

    /// The last completed window, as `show_cpu_usage` reports it. (The value is
    /// returned by copy: where stack is short, keep one `Usage` and refresh it with
    /// [`Usage::read_last_window`].)
    pub fn last_window() -> Result<Usage, Error> {
        let mut usage = Usage::EMPTY;
        usage.read_last_window().map(|()| usage)
    }

    /// Reads the last completed window into `self`, in place: no copy of the figures
    /// on the stack. On an error they are of no one window: read again.
    ///
    /// ```
    /// # freertos_cpu_usage::doc_example_window!();
    /// use freertos_cpu_usage::api::Usage;
    ///
    /// static mut USAGE: Usage = Usage::EMPTY; // or a task's own, once
    /// # #[allow(static_mut_refs)]
    /// let usage = unsafe { &mut USAGE }; // one task reads and refreshes it
    /// usage.read_last_window()?;
    /// assert_eq!(usage.tasks()[1].name(), "net");
    /// # Ok::<(), freertos_cpu_usage::api::Error>(())
    /// ```
    pub fn read_last_window(&mut self) -> Result<(), Error> {
        self.read(false)
    }

    /// Everything since accounting started, up to the last window's end, as
    /// `show_cpu_usage -c` reports it: tasks deleted are summed in
    /// [`Usage::unlisted`]. (The `shell` feature.)
    ///
    /// ```
    /// # freertos_cpu_usage::doc_example_window!();
    /// let since = freertos_cpu_usage::api::Usage::since_start()?;
    /// assert!(since.length_us() >= 100_000);
    /// # Ok::<(), freertos_cpu_usage::api::Error>(())
    /// ```
    #[cfg(feature = "shell")]
    pub fn since_start() -> Result<Usage, Error> {
        let mut usage = Usage::EMPTY;
        usage.read_since_start().map(|()| usage)
    }

    /// [`Usage::since_start`] into `self`, in place. (The `shell` feature.)
    #[cfg(feature = "shell")]
    pub fn read_since_start(&mut self) -> Result<(), Error> {
        self.read(true)
    }

    /// The window's number (windows completed before it); since start, the windows
    /// completed.
    pub const fn window(&self) -> u32 {
        self.window
    }

    /// Clock counts covered: the window's length (on several cores, times the cores).
    pub const fn counts(&self) -> u64 {
        self.length
    }

    /// The time covered, in microseconds (on several cores, of one core).
    pub const fn length_us(&self) -> u64 {
        self.length_us
    }

    /// The tasks, in ID order (the overflow bucket first, if used); not the idle
    /// task, which is [`Usage::idle`].
    pub fn tasks(&self) -> &[Task] {
        &self.tasks[..self.len]
    }

    /// The idle task (on several cores, the idle tasks of every core).
    pub const fn idle(&self) -> Time {
        self.idle
    }

    /// Interrupt handlers (bracketed by the port's or the firmware's hooks).
    pub const fn interrupts(&self) -> Time {
        self.interrupts
    }

    /// Tickless idle.
    pub const fn sleep(&self) -> Time {
        self.sleep
    }

    /// No task: before the scheduler started, or not accounted to one.
    pub const fn other(&self) -> Time {
        self.other
    }

    /// Tasks no longer listed: since start, those deleted; in a window, those
    /// deleted before it ended that the report no longer shows.
    pub const fn unlisted(&self) -> Time {
        self.unlisted
    }

    /// 100% less idle and sleep.
    pub const fn load(&self) -> Share {
        self.load
    }

    /// The load smoothed over about 1 s, 10 s and 60 s, as of the window's end;
    /// `None` until known, and always without the `watchdogs` feature.
    pub const fn load_avg(&self) -> [Option<Share>; 3] {
        self.load_avg
    }

    /// Each core's line: one on a build for one core.
    pub fn cores(&self) -> &[Core] {
        &self.cores
    }

    /// Reads a window's lines (or, `since_start`, the figures up to its end) into
    /// `self`, with the window under way held open meanwhile.
    fn read(&mut self, since_start: bool) -> Result<(), Error> {
        let (header, load_avg, hz) = ffi::hold_window(since_start).ok_or(Error::NoWindow)?;
        let read = self.lines(since_start, &header, hz);
        ffi::let_go(header.stamp);
        read.ok_or(Error::Changed)?;
        // (Out of the critical section: it divides.)
        self.load_avg = load_avg.map(|a| a.map(|a| Share(arith::pct_of(a.busy, a.len))));
        Ok(())
    }

    fn lines(&mut self, since_start: bool, header: &crate::engine::Header, hz: u32) -> Option<()> {
        let cores = ApiEngine::CORES;
        let mut line = Line::EMPTY;
        // Since start, the length is what the lines add up to, with the retired IDs'.
        let length = if since_start {
            let mut sum = header.retired;
            for at in 0..ApiEngine::LINES {
                ffi::read_line(at, true, header.stamp, &mut line).then_some(())?;
                sum += line.row.counts;
            }
            sum
        } else {
            header.length << cores.trailing_zeros()
        };
        let shares = Shares::of_total(length);
        let usage = self;
        usage.window = header.window;
        usage.length = length;
        usage.length_us = arith::counts_to_us(length >> cores.trailing_zeros(), hz);
        usage.len = 0;
        (usage.idle, usage.interrupts, usage.sleep, usage.other) = (Time::ZERO, Time::ZERO, Time::ZERO, Time::ZERO);
        usage.unlisted =
            Time { counts: header.retired, share: Share(shares.upto(header.retired)), runs: 0, longest_us: 0 };
        let mut per_core = [[0u64; 3]; ApiEngine::CORES];
        let mut walk = ShareWalk::new(shares, header.retired);
        for at in 0..ApiEngine::LINES {
            ffi::read_line(at, since_start, header.stamp, &mut line).then_some(())?;
            let (_, share) = walk.next(line.row.counts);
            let row = &line.row;
            let core = per_core.get_mut(usize::from(row.id));
            match row.kind {
                _ if !line.shown || (since_start && row.deleted) => usage.unlisted.add(&line, share, hz),
                RowKind::Task | RowKind::Overflow => {
                    if let Some(task) = usage.tasks.get_mut(usage.len) {
                        *task = Task {
                            id: row.id,
                            name: row.name,
                            counts: row.counts,
                            share: Share(share),
                            runs: row.runs,
                            longest_us: arith::counts_to_us(u64::from(row.longest), hz),
                            deleted: row.deleted,
                            overflow: row.kind == RowKind::Overflow,
                        };
                        usage.len += 1;
                    }
                }
                RowKind::Idle => {
                    usage.idle.add(&line, share, hz);
                    usage.idle.runs = 0;
                    usage.idle.longest_us = 0;
                    // (One core: the idle task's line is core 0's.)
                    if let Some(c) = if cores > 1 { core } else { per_core.get_mut(0) } {
                        c[0] = row.counts;
                    }
                }
                RowKind::Interrupts => {
                    usage.interrupts.add(&line, share, hz);
                    if let Some(c) = core {
                        c[1] = row.counts;
                    }
                }
                RowKind::Sleep => {
                    usage.sleep.add(&line, share, hz);
                    if let Some(c) = core {
                        c[2] = row.counts;
                    }
                }
                _ => usage.other.add(&line, share, hz),
            }
        }
        usage.load = Share(if length == 0 { 0 } else { 10_000 - usage.idle.share.0 - usage.sleep.share.0 });
        let span = length >> cores.trailing_zeros();
        for (line, &[idle, interrupts, sleep]) in usage.cores.iter_mut().zip(per_core.iter()) {
            let share = |counts: u64| Share(arith::pct_of(counts, span));
            *line = Core {
                busy: share(span.saturating_sub(idle).saturating_sub(sleep)),
                idle: share(idle),
                interrupts: share(interrupts),
                sleep: share(sleep),
            };
        }
        Some(())
    }
}

/// The window's length in milliseconds.
pub fn window_ms() -> u32 {
    ffi::cpu_usage_window_ms()
}

/// Sets the window's length in milliseconds, from the window under way on: it ends
/// once it is this long (at the next hook, a tick at the latest, if it already is),
/// and the next ones are this long.
///
/// ```
/// # freertos_cpu_usage::doc_example_window!();
/// use freertos_cpu_usage::api::{self, Error};
///
/// api::set_window_ms(500)?;
/// assert_eq!(api::window_ms(), 500);
/// assert_eq!(api::set_window_ms(0), Err(Error::Window));
/// # Ok::<(), Error>(())
/// ```
pub fn set_window_ms(ms: u32) -> Result<(), Error> {
    Error::result(ffi::cpu_usage_set_window_ms(ms))
}

/// A report as `show_cpu_usage` prints it, built option by option, written with
/// [`Report::write_to`] into any [`fmt::Write`] (the `shell` feature).
///
/// ```
/// # freertos_cpu_usage::doc_example_window!();
/// use freertos_cpu_usage::api::Report;
///
/// // In no_std firmware, any fmt::Write: a heapless::String, a UART writer...
/// let mut text = String::new();
/// Report::table().sorted().write_to(&mut text)?;
/// assert!(text.starts_with("CPU usage, window #0: 100.000 ms"));
///
/// let mut json = String::new();
/// Report::json().write_to(&mut json)?;
/// assert!(json.contains("\"name\":\"blink\""));
/// # Ok::<(), freertos_cpu_usage::api::Error>(())
/// ```
#[cfg(feature = "shell")]
#[derive(Clone, Copy, Debug)]
pub struct Report {
    opts: crate::report::Options,
}

#[cfg(feature = "shell")]
impl Report {
    /// The table (`show_cpu_usage`).
    pub fn table() -> Report {
        Report { opts: crate::report::Options::default() }
    }

    /// One line of JSON (`show_cpu_usage -m`), as `report-schema` describes it.
    pub fn json() -> Report {
        Report { opts: crate::report::Options { json: true, ..Default::default() } }
    }

    /// Since start instead of the last window (`-c`).
    pub fn since_start(mut self) -> Report {
        self.opts.cumulative = true;
        self
    }

    /// Tasks busiest first (`-s`).
    pub fn sorted(mut self) -> Report {
        self.opts.sort = true;
        self
    }

    /// Only the `n` busiest tasks, the rest summed on one line (`-n`).
    pub fn top(mut self, n: u16) -> Report {
        self.opts.top = Some(n);
        self
    }

    /// Each task's runs and longest run (`-l`).
    pub fn long(mut self) -> Report {
        self.opts.long = true;
        self
    }

    /// The tasks deleted in the window one by one (`-d`).
    pub fn deleted_one_by_one(mut self) -> Report {
        self.opts.deleted = true;
        self
    }

    /// Writes the report into `out`. On [`Error::Changed`], what was written ends
    /// with a line saying so.
    pub fn write_to(&self, out: &mut dyn fmt::Write) -> Result<(), Error> {
        let mut sink = FmtSink { out, failed: false };
        let status = ffi::shell::report(&mut sink, &self.opts);
        if sink.failed {
            return Err(Error::Write);
        }
        Error::result(status)
    }
}

/// A report's bytes into a [`fmt::Write`] (they are ASCII: names are escaped).
#[cfg(feature = "shell")]
struct FmtSink<'a> {
    out: &'a mut dyn fmt::Write,
    failed: bool,
}

#[cfg(feature = "shell")]
impl crate::report::Sink for FmtSink<'_> {
    fn put(&mut self, bytes: &[u8]) {
        let text = core::str::from_utf8(bytes).unwrap_or("?");
        self.failed |= self.out.write_str(text).is_err();
    }

    fn void(&mut self) {}
}

/// The watchdogs, with a Rust function told when one trips (the `watchdogs`
/// feature).
///
/// ```
/// # freertos_cpu_usage::doc_example_window!();
/// use freertos_cpu_usage::api::watchdog::{self, Alert, Kind};
///
/// fn tripped(alert: &Alert) {
///     // Called in the tick interrupt: keep it short, FromISR calls only.
///     if alert.kind == Kind::Slice {
///         let _ = (alert.task_name(), alert.value);
///     }
/// }
///
/// watchdog::set_callback(Some(tripped));
/// watchdog::set_load(8000, 3)?; // above 80.00% for 3 windows in a row
/// watchdog::set_slice_us(Some(20_000))?; // a run over 20 ms
/// # Ok::<(), freertos_cpu_usage::api::Error>(())
/// ```
#[cfg(feature = "watchdogs")]
pub mod watchdog {
    use core::ffi::c_void;
    use core::sync::atomic::{AtomicUsize, Ordering};

    use super::Error;
    use crate::engine::NAME_LEN;
    use crate::ffi::{self, cpu_usage_alert, cpu_usage_alert_kind};

    /// Which watchdog tripped.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Kind {
        /// The load stayed above its threshold for the windows set.
        Load,
        /// A task ran longer in one go than the slice limit.
        Slice,
    }

    /// What a watchdog saw.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct Alert {
        /// Which watchdog.
        pub kind: Kind,
        /// The window that completed the trip.
        pub window: u32,
        /// Load: that window's load in hundredths of a percent. Slice: the run's
        /// length in microseconds.
        pub value: u32,
        /// The threshold crossed, in the same unit.
        pub threshold: u32,
        /// Slice: the task's ID (0 for the overflow bucket). Load: 0.
        pub task_id: u16,
        name: [u8; NAME_LEN],
    }

    impl Alert {
        /// Slice: the task's name (`(overflow)` for the overflow bucket). Load: empty.
        pub fn task_name(&self) -> &str {
            super::name_str(&self.name)
        }
    }

    /// Turns the load watchdog on: it trips when the load is above `hundredths`
    /// (8000 is 80%) for `windows` windows in a row; `windows` 0 turns it off.
    /// [`Error::Range`] above 10000.
    pub fn set_load(hundredths: u16, windows: u32) -> Result<(), Error> {
        Error::result(ffi::cpu_usage_watchdog_set_load(u32::from(hundredths), windows))
    }

    /// Turns the slice watchdog on: it trips when a task runs longer than `us`
    /// microseconds in one go; `None` turns it off. [`Error::Range`] beyond the
    /// clock's 32-bit range.
    pub fn set_slice_us(us: Option<u32>) -> Result<(), Error> {
        Error::result(ffi::cpu_usage_watchdog_set_slice_us(us.unwrap_or(0)))
    }

    /// The function told when a watchdog trips, `None` for none (tripped watchdogs
    /// are then dropped). It is called from the tick interrupt, within a tick of the
    /// window's end: keep it short, and use only the `FromISR` kernel API there.
    pub fn set_callback(callback: Option<fn(&Alert)>) {
        CALLBACK.store(callback.map_or(0, |f| f as usize), Ordering::Relaxed);
        let trampoline = callback.map(|_| call as unsafe extern "C" fn(*const cpu_usage_alert, *mut c_void));
        ffi::cpu_usage_watchdog_set_callback(trampoline, core::ptr::null_mut());
    }

    /// The Rust callback, as an address (0: none).
    static CALLBACK: AtomicUsize = AtomicUsize::new(0);

    /// The C callback that calls the Rust one.
    unsafe extern "C" fn call(alert: *const cpu_usage_alert, _: *mut c_void) {
        let callback = CALLBACK.load(Ordering::Relaxed);
        // SAFETY: the library passes a valid alert for the call.
        let (Some(alert), true) = (unsafe { alert.as_ref() }, callback != 0) else { return };
        // SAFETY: stored from a `fn(&Alert)` by `set_callback`, never anything else.
        let callback: fn(&Alert) = unsafe { core::mem::transmute::<usize, fn(&Alert)>(callback) };
        let mut name = [0u8; NAME_LEN];
        for (dst, &src) in name.iter_mut().zip(alert.task_name.iter()) {
            // (`c_char` is `i8` on some targets.)
            #[allow(clippy::unnecessary_cast)]
            let byte = src as u8;
            *dst = byte;
        }
        callback(&Alert {
            kind: match alert.kind {
                cpu_usage_alert_kind::CPU_USAGE_ALERT_LOAD => Kind::Load,
                cpu_usage_alert_kind::CPU_USAGE_ALERT_SLICE => Kind::Slice,
            },
            window: alert.window,
            value: alert.value,
            threshold: alert.threshold,
            task_id: alert.task_id as u16,
            name,
        });
    }
}

/// For the examples of this module's documentation, on the host: a library with a
/// clock of its own and one completed window of 100 ms, in which `blink` (ID 1) ran
/// 25 ms, `net` (ID 2) 10 ms and the idle task the rest; and a critical section.
/// Not for firmware.
#[doc(hidden)]
#[macro_export]
macro_rules! doc_example_window {
    () => {
        use ::core::sync::atomic::{AtomicU32, Ordering::Relaxed};
        use $crate::ffi::*;
        static NOW: AtomicU32 = AtomicU32::new(0);
        unsafe extern "C" fn clock() -> u32 {
            NOW.load(Relaxed)
        }
        struct Cs;
        $crate::__critical_section::set_impl!(Cs);
        unsafe impl $crate::__critical_section::Impl for Cs {
            unsafe fn acquire() -> $crate::__critical_section::RawRestoreState {
                0
            }
            unsafe fn release(_: $crate::__critical_section::RawRestoreState) {}
        }
        let mut at = |counts: u32, id: u32| {
            NOW.fetch_add(counts, Relaxed);
            // SAFETY: the hooks as the kernel calls them, one at a time.
            unsafe { cpu_usage_hook_task_switched_in(NOW.load(Relaxed), id) };
        };
        assert_eq!(cpu_usage_set_clock(Some(clock), 1_000_000), 0);
        assert_eq!(cpu_usage_set_window_ms(100), 0);
        // SAFETY: as above; the names are C strings.
        let (blink, net, idle) = unsafe {
            (
                cpu_usage_hook_task_create(8 as *mut _, c"blink".as_ptr()),
                cpu_usage_hook_task_create(16 as *mut _, c"net".as_ptr()),
                cpu_usage_hook_task_create(24 as *mut _, c"IDLE".as_ptr()),
            )
        };
        at(0, idle);
        // SAFETY: as above.
        unsafe { cpu_usage_hook_scheduler_start(idle, 0, 0) };
        at(0, blink);
        at(25_000, idle);
        at(40_000, net);
        at(10_000, idle);
        NOW.fetch_add(25_000, Relaxed);
        // SAFETY: as above.
        unsafe { cpu_usage_hook_tick() };
    };
}
