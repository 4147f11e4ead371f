//! The C boundary: every `extern "C"` function of the library, and nothing else.
//!
//! Conventions (the same for every function):
//! - Everything C sees is named `cpu_usage_<thing>_<verb>` (plus the shell command
//!   `show_cpu_usage`); status codes are the negative `CPU_USAGE_ERR_*` values of
//!   [`cpu_usage_status`], passed as plain integers.
//! - Every pointer and length is checked on entry. A buffer is followed by its
//!   length, is never overrun, is NUL-terminated when its length is not zero, and the
//!   return value says how long the full text is (as `snprintf` does).
//! - C strings coming in are read up to a fixed bound, so an unterminated one cannot
//!   make the library read past it: task names up to `CPU_USAGE_NAME_LEN` bytes,
//!   shell arguments up to 64.
//!
//! The `cpu_usage_hook_*` functions are called by the macros of
//! `freertos_cpu_usage_hooks.h` with interrupts masked up to the kernel's priority:
//! from the tick interrupt, the context switch, task creation and deletion inside a
//! kernel critical section, interrupt handlers (the macros mask around the call),
//! and the idle task going to sleep (inside a critical section). They are the only
//! writers of the accounting state. Every other function that
//! touches that state does so inside a critical section (`critical-section`, whose
//! implementation this library provides on top of the FreeRTOS port), and formats
//! reports only after copying what it needs out of it.

use core::cell::UnsafeCell;
use core::ffi::{c_char, c_int, c_long, c_void};
use core::mem::MaybeUninit;
use core::sync::atomic::{AtomicBool, Ordering};

use crate::engine::{Alert, AlertKind, Engine, Row, RowKind, Summary, MAX_WINDOW_COUNTS, NAME_LEN, OVERFLOW_ID};
use crate::port::{self, Clock, ClockName};
use crate::report::{self, BadArgs, ClockInfo, Options, Sink, WatchCmd, REPORT_ROWS};
use crate::trace;

/// Status codes. Functions return them as `int`/`int32_t`: 0 for success, one of the
/// negative values otherwise.
#[repr(C)]
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum cpu_usage_status {
    /// Success.
    CPU_USAGE_OK = 0,
    /// A required pointer was NULL.
    CPU_USAGE_ERR_NULL = -7001,
    /// An argument of the shell command is not one of its options.
    CPU_USAGE_ERR_OPTION = -7002,
    /// The window length is 0, longer than an hour, or too long for the clock.
    CPU_USAGE_ERR_WINDOW = -7003,
    /// The clock frequency is 0.
    CPU_USAGE_ERR_CLOCK = -7004,
    /// No window has completed yet.
    CPU_USAGE_ERR_NO_WINDOW = -7005,
    /// No output is set and the build has no default (bare metal).
    CPU_USAGE_ERR_NO_OUTPUT = -7006,
    /// A hook was given an ID that is not a live task's.
    CPU_USAGE_ERR_TASK_ID = -7007,
    /// A watchdog threshold is out of range (a load above 100%, a slice too long
    /// for the clock).
    CPU_USAGE_ERR_RANGE = -7008,
    /// Follow mode (`-f`) needs `show_cpu_usage` (not a buffer) and a console wait
    /// function set with `cpu_usage_set_follow_wait`.
    CPU_USAGE_ERR_FOLLOW = -7009,
}

use cpu_usage_status as St;

impl St {
    fn code(self) -> i32 {
        self as i32
    }
}

/// Default window length.
const DEFAULT_WINDOW_MS: u32 = 1000;
/// Longest window accepted: an hour (a longer one is no longer "live").
const MAX_WINDOW_MS: u32 = 3_600_000;
/// Longest shell argument read.
const MAX_ARG_LEN: usize = 64;

/// Window length in counts, if it is between 1 and `MAX_WINDOW_COUNTS`.
const fn window_counts(ms: u32, hz: u32) -> Option<u32> {
    if ms == 0 || ms > MAX_WINDOW_MS {
        return None;
    }
    // ms × hz / 1000 without a 64-bit division (a Cortex-M3 has only a 32-bit one,
    // and the general 64-bit routine costs almost 1 KiB of flash): with
    // hz = 1000 q + r, it is ms × q + ms × r / 1000 exactly, and ms × r < 2^32
    // because ms is at most an hour.
    let (q, r) = (hz / 1000, hz % 1000);
    let counts = ms as u64 * q as u64 + (ms * r / 1000) as u64;
    if counts == 0 || counts > MAX_WINDOW_COUNTS as u64 {
        None
    } else {
        Some(counts as u32)
    }
}

type OutputFn = unsafe extern "C" fn(s: *const c_char, n: usize);
/// Waits up to `ms` milliseconds for console input; nonzero when some arrived.
type FollowWaitFn = unsafe extern "C" fn(ms: u32) -> c_int;
type AlertFn = unsafe extern "C" fn(alert: *const cpu_usage_alert, ctx: *mut c_void);

/// Bytes of a task name in the C structs, its NUL included (the header defines it
/// as `CPU_USAGE_NAME_LEN + 1`).
pub const CPU_USAGE_NAME_BUF: usize = NAME_LEN + 1;

/// Which watchdog tripped.
#[repr(C)]
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum cpu_usage_alert_kind {
    /// The load stayed above its threshold for the windows set.
    CPU_USAGE_ALERT_LOAD = 1,
    /// A task ran longer in one go than the slice threshold.
    CPU_USAGE_ALERT_SLICE = 2,
}

/// What a watchdog saw, passed to the callback set with
/// `cpu_usage_watchdog_set_callback`.
#[repr(C)]
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug)]
pub struct cpu_usage_alert {
    /// Which watchdog.
    pub kind: cpu_usage_alert_kind,
    /// The window that completed the trip (as `show_cpu_usage` numbers them).
    pub window: u32,
    /// Load: that window's load in hundredths of a percent. Slice: the run's
    /// length in microseconds.
    pub value: u32,
    /// The threshold crossed, in the same unit as `value`.
    pub threshold: u32,
    /// Slice: the task's ID (0 for tasks sharing the overflow bucket). Load: 0.
    pub task_id: u32,
    /// Slice: the task's name, NUL-terminated. Load: empty.
    pub task_name: [c_char; CPU_USAGE_NAME_BUF],
}

struct State<'a> {
    engine: &'a mut Engine,
    config: &'a mut Config,
}

/// What the application chose; small, so its non-zero defaults cost little flash.
struct Config {
    clock: Clock,
    window_ms: u32,
    output: Option<OutputFn>,
    alert: Option<AlertFn>,
    alert_ctx: *mut c_void,
    /// The slice watchdog's threshold in microseconds (0: off), kept to convert
    /// again when the clock changes.
    slice_us: u32,
    follow_wait: Option<FollowWaitFn>,
}

/// One piece of the accounting state, shared between the hooks (the single writer,
/// which the kernel runs with interrupts masked) and readers (inside a critical
/// section).
struct Shared<T>(UnsafeCell<T>);

// SAFETY: all access follows the discipline described in the module comment.
unsafe impl<T> Sync for Shared<T> {}

/// All zero, so it lives in `.bss`.
static ENGINE: Shared<Engine> = Shared(UnsafeCell::new(Engine::new(0)));

static CONFIG: Shared<Config> = Shared(UnsafeCell::new(Config {
    clock: port::DEFAULT_CLOCK,
    window_ms: DEFAULT_WINDOW_MS,
    output: None,
    alert: None,
    alert_ctx: core::ptr::null_mut(),
    slice_us: 0,
    follow_wait: None,
}));

/// The state.
///
/// # Safety
/// Only from a hook (the kernel masks interrupts around them) or inside a critical
/// section, and the references must not outlive that.
unsafe fn state() -> State<'static> {
    // SAFETY: exclusive by the caller's contract.
    unsafe { State { engine: &mut *ENGINE.0.get(), config: &mut *CONFIG.0.get() } }
}

fn with_state<R>(f: impl FnOnce(State<'_>) -> R) -> R {
    // SAFETY: inside the critical section neither hooks nor other readers run.
    critical_section::with(|_| f(unsafe { state() }))
}

impl State<'_> {
    fn now(&self) -> u32 {
        // SAFETY: a clock function given by the port or checked non-NULL by
        // cpu_usage_set_clock.
        unsafe { (self.config.clock.read)() }
    }

    /// Starts accounting on first use, with the window in force.
    fn start_if_needed(&mut self, now: u32) {
        if !self.engine.is_started() {
            let counts = window_counts(self.config.window_ms, self.config.clock.hz);
            self.set_window(counts.unwrap_or(MAX_WINDOW_COUNTS), self.config.window_ms);
            self.engine.restart(now);
        }
    }

    /// Windows of `counts` clock counts, `ms` milliseconds: the smoothing weights
    /// follow the window length.
    fn set_window(&mut self, counts: u32, ms: u32) {
        self.engine.set_window(counts);
        self.engine.set_smoothing(SMOOTHING_MS.map(|period| smoothing_keep(ms, period)));
        self.apply_slice_watchdog();
    }

    /// Gives the engine the slice threshold in counts of the clock in use. False if
    /// it does not fit 32 bits (the watchdog is then off).
    fn apply_slice_watchdog(&mut self) -> bool {
        let us = self.config.slice_us;
        if us == 0 {
            self.engine.set_slice_watchdog(None);
            return true;
        }
        let counts = report::div_rem(u64::from(us) * u64::from(self.config.clock.hz), 1_000_000).0;
        let fits = u32::try_from(counts).ok();
        // No clock yet (bare metal before the scheduler starts): set then.
        self.engine.set_slice_watchdog(fits.filter(|_| self.config.clock.hz != 0).map(|c| c.max(1)));
        fits.is_some()
    }
}

/// The periods of the smoothed loads: about 1 s, 10 s and 60 s, as Linux's load
/// averages have 1, 5 and 15 minutes.
const SMOOTHING_MS: [u32; 3] = [1_000, 10_000, 60_000];

/// The weight a smoothed load keeps at each window of `window_ms`, to forget with
/// a time constant of `period_ms`: e^(-window/period) in 16-bit fixed point.
/// Integer only (it runs when the window changes, never in a hook): e^-x is
/// (1 - x/1024)^1024, within 0.05% for x up to 1, by ten squarings in 30-bit fixed
/// point.
fn smoothing_keep(window_ms: u32, period_ms: u32) -> u32 {
    const ONE: u64 = 1 << 30;
    let step = report::div_rem(u64::from(window_ms) << 20, u64::from(period_ms)).0;
    let mut y = ONE.saturating_sub(step);
    for _ in 0..10 {
        y = (y * y) >> 30;
    }
    (y >> 14) as u32
}

// ---- Hooks -------------------------------------------------------------------------

/// `traceTASK_CREATE`: returns the new task's ID (0 if every ID is taken, or if
/// `tcb` is NULL). `name` is read up to `CPU_USAGE_NAME_LEN` bytes; NULL means no
/// name.
///
/// # Safety
/// Called by the hooks header from inside the kernel. `name`, if not NULL, points to
/// at least `CPU_USAGE_NAME_LEN` readable bytes or to a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn cpu_usage_hook_task_create(tcb: *mut c_void, name: *const c_char) -> u32 {
    if tcb.is_null() {
        return OVERFLOW_ID;
    }
    let mut copy = [0u8; NAME_LEN];
    if !name.is_null() {
        for (i, dst) in copy.iter_mut().enumerate() {
            // SAFETY: within the bound the caller guarantees; stops at the NUL.
            let b = unsafe { *name.cast::<u8>().add(i) };
            if b == 0 {
                break;
            }
            *dst = b;
        }
    }
    // SAFETY: a hook.
    let mut st = unsafe { state() };
    let now = st.now();
    st.start_if_needed(now);
    st.engine.task_create(now, &copy)
}

/// `traceTASK_DELETE`, with the ID the task got at creation. Returns 0, or
/// `CPU_USAGE_ERR_TASK_ID` if the ID is not a live task's (nothing changes then).
///
/// # Safety
/// Called by the hooks header from inside the kernel.
#[no_mangle]
pub unsafe extern "C" fn cpu_usage_hook_task_delete(tcb: *mut c_void, id: u32) -> i32 {
    if tcb.is_null() {
        return St::CPU_USAGE_ERR_NULL.code();
    }
    // SAFETY: a hook.
    let st = unsafe { state() };
    let now = st.now();
    match st.engine.task_delete(now, id) {
        Ok(()) => St::CPU_USAGE_OK.code(),
        Err(_) => St::CPU_USAGE_ERR_TASK_ID.code(),
    }
}

/// `traceTASK_SWITCHED_IN`: the task with this ID runs from now on; the one that ran
/// until now is charged up to here.
///
/// # Safety
/// Called by the hooks header from inside the kernel.
#[no_mangle]
pub unsafe extern "C" fn cpu_usage_hook_task_switched_in(tcb: *mut c_void, id: u32) {
    // The ID alone identifies the task; the TCB is in the signature for future hooks.
    let _ = tcb;
    // SAFETY: a hook.
    let st = unsafe { state() };
    let now = st.now();
    st.engine.switch_in(now, id);
}

/// `traceTASK_INCREMENT_TICK`: reads the clock at least once per tick.
///
/// # Safety
/// Called by the hooks header from the tick interrupt.
#[no_mangle]
pub unsafe extern "C" fn cpu_usage_hook_tick() {
    port::on_tick();
    // SAFETY: a hook.
    let st = unsafe { state() };
    let now = st.now();
    if st.engine.tick(now) {
        deliver_alerts(st);
    }
}

/// An interrupt handler starts: `traceISR_ENTER` and `CPU_USAGE_ISR_ENTER()`. Its
/// time, up to the matching exit, is charged to interrupts, not to the task it
/// interrupted; in nested handlers only the outermost counts.
///
/// # Safety
/// Called by the hooks header's macros, with interrupts masked up to the kernel's
/// priority.
#[no_mangle]
pub unsafe extern "C" fn cpu_usage_hook_isr_enter() {
    port::on_isr_enter();
    // SAFETY: a hook.
    unsafe { once_started(Engine::isr_enter) };
}

/// An interrupt handler ends: `traceISR_EXIT`, `traceISR_EXIT_TO_SCHEDULER` and
/// `CPU_USAGE_ISR_EXIT()`. An exit without an enter is ignored.
///
/// # Safety
/// As `cpu_usage_hook_isr_enter`.
#[no_mangle]
pub unsafe extern "C" fn cpu_usage_hook_isr_exit() {
    // SAFETY: a hook.
    unsafe { once_started(Engine::isr_exit) };
}

/// `traceLOW_POWER_IDLE_BEGIN`: the idle task goes to sleep; until it wakes, time
/// is charged to sleep rather than to idle.
///
/// # Safety
/// Called by the hooks header from the idle task (with the scheduler suspended),
/// with interrupts masked up to the kernel's priority.
#[no_mangle]
pub unsafe extern "C" fn cpu_usage_hook_sleep_begin() {
    // SAFETY: a hook.
    unsafe { once_started(Engine::sleep_begin) };
}

/// `traceLOW_POWER_IDLE_END`: the idle task woke up.
///
/// # Safety
/// As `cpu_usage_hook_sleep_begin`.
#[no_mangle]
pub unsafe extern "C" fn cpu_usage_hook_sleep_end() {
    // SAFETY: a hook.
    unsafe { once_started(Engine::sleep_end) };
}

/// Gives an interrupt or sleep hook's event to the engine at the clock's reading,
/// once accounting has started (an interrupt may come before the scheduler does).
///
/// # Safety
/// Only from a hook.
#[inline(always)]
unsafe fn once_started(event: fn(&mut Engine, u32)) {
    // SAFETY: a hook, by the caller's contract.
    let st = unsafe { state() };
    if st.engine.is_started() {
        let now = st.now();
        event(st.engine, now);
    }
}

/// Calls the application's watchdog callback for each tripped watchdog. (Out of
/// the tick hook's line: it runs once per trip.)
#[cold]
#[inline(never)]
fn deliver_alerts(st: State<'_>) {
    let Some(callback) = st.config.alert else {
        // Nobody to tell: drop them, so they are not delivered late.
        while st.engine.take_alert().is_some() {}
        return;
    };
    let hz = st.config.clock.hz;
    let load_pct = st.engine.watchdogs().0;
    let mut pending = [None; 2];
    for p in pending.iter_mut() {
        *p = st.engine.take_alert().map(|a| alert_for_c(&a, hz, load_pct));
    }
    let ctx = st.config.alert_ctx;
    for alert in pending.iter().flatten() {
        // SAFETY: the application's function, given a pointer valid for the call.
        unsafe { callback(alert, ctx) };
    }
}

fn alert_for_c(a: &Alert, hz: u32, load_pct: u32) -> cpu_usage_alert {
    // The tasks sharing ID 0 have no name of their own: they are "(overflow)", as
    // in the reports.
    let name: &[u8] = if a.kind == AlertKind::Slice && a.id == 0 { b"(overflow)" } else { &a.name };
    let mut task_name = [0 as c_char; CPU_USAGE_NAME_BUF];
    for (dst, &src) in task_name.iter_mut().zip(name.iter().take(NAME_LEN)) {
        *dst = src as c_char;
    }
    let us = |counts: u32| u32::try_from(report::counts_to_us(u64::from(counts), hz)).unwrap_or(u32::MAX);
    match a.kind {
        AlertKind::Load => cpu_usage_alert {
            kind: cpu_usage_alert_kind::CPU_USAGE_ALERT_LOAD,
            window: a.window,
            value: u32::from(report::pct_of(u64::from(a.value), u64::from(a.limit))),
            threshold: load_pct,
            task_id: 0,
            task_name,
        },
        AlertKind::Slice => cpu_usage_alert {
            kind: cpu_usage_alert_kind::CPU_USAGE_ALERT_SLICE,
            window: a.window,
            value: us(a.value),
            threshold: us(a.limit),
            task_id: u32::from(a.id),
            task_name,
        },
    }
}

/// `traceSTARTING_SCHEDULER`: the idle task's ID, and `configCPU_CLOCK_HZ` for the
/// default clock of a bare-metal build. Windows start here.
///
/// # Safety
/// Called by the hooks header from inside the kernel.
#[no_mangle]
pub unsafe extern "C" fn cpu_usage_hook_scheduler_start(idle_id: u32, cpu_hz: u32) {
    // SAFETY: a hook.
    let mut st = unsafe { state() };
    // A clock the application chose (named Custom) is kept.
    if st.config.clock.name != ClockName::Custom {
        let clock = port::clock_at_scheduler_start(cpu_hz);
        if let Some(counts) = window_counts(st.config.window_ms, clock.hz) {
            st.config.clock = clock;
            st.set_window(counts, st.config.window_ms);
        }
    }
    st.engine.scheduler_start(idle_id);
    let now = st.now();
    st.engine.restart(now);
}

// ---- Traced hooks (CPU_USAGE_TRACE 1) -----------------------------------------------
//
// The hooks again, each followed by a record of what it changed in the event trace
// (`crate::trace`). The hooks header calls these instead of the others when the
// firmware defines CPU_USAGE_TRACE to 1; firmware that does not never links them.

/// Runs `hook`, then records the window it closed and the change of charged slot
/// it made, if any.
///
/// # Safety
/// Only from a hook.
#[inline(always)]
unsafe fn traced<R>(hook: impl FnOnce() -> R) -> R {
    // SAFETY: a hook; each reference to the state ends before the next is made.
    let from = unsafe { state() }.engine.charged_slot();
    let result = hook();
    // SAFETY: as above.
    unsafe { trace::record(state().engine, from) };
    result
}

/// `cpu_usage_hook_task_create`, traced.
///
/// # Safety
/// As `cpu_usage_hook_task_create`.
#[no_mangle]
pub unsafe extern "C" fn cpu_usage_hook_task_create_traced(tcb: *mut c_void, name: *const c_char) -> u32 {
    // SAFETY: forwarded contract.
    unsafe { traced(|| cpu_usage_hook_task_create(tcb, name)) }
}

/// `cpu_usage_hook_task_delete`, traced.
///
/// # Safety
/// As `cpu_usage_hook_task_delete`.
#[no_mangle]
pub unsafe extern "C" fn cpu_usage_hook_task_delete_traced(tcb: *mut c_void, id: u32) -> i32 {
    // SAFETY: forwarded contract.
    unsafe { traced(|| cpu_usage_hook_task_delete(tcb, id)) }
}

/// `cpu_usage_hook_task_switched_in`, traced.
///
/// # Safety
/// As `cpu_usage_hook_task_switched_in`.
#[no_mangle]
pub unsafe extern "C" fn cpu_usage_hook_task_switched_in_traced(tcb: *mut c_void, id: u32) {
    // SAFETY: forwarded contract.
    unsafe { traced(|| cpu_usage_hook_task_switched_in(tcb, id)) }
}

/// `cpu_usage_hook_tick`, traced.
///
/// # Safety
/// As `cpu_usage_hook_tick`.
#[no_mangle]
pub unsafe extern "C" fn cpu_usage_hook_tick_traced() {
    trace::tick_seen();
    // SAFETY: forwarded contract.
    unsafe { traced(|| cpu_usage_hook_tick()) }
}

/// `cpu_usage_hook_isr_enter`, traced.
///
/// # Safety
/// As `cpu_usage_hook_isr_enter`.
#[no_mangle]
pub unsafe extern "C" fn cpu_usage_hook_isr_enter_traced() {
    // SAFETY: forwarded contract.
    unsafe { traced(|| cpu_usage_hook_isr_enter()) }
}

/// `cpu_usage_hook_isr_exit`, traced.
///
/// # Safety
/// As `cpu_usage_hook_isr_exit`.
#[no_mangle]
pub unsafe extern "C" fn cpu_usage_hook_isr_exit_traced() {
    // SAFETY: forwarded contract.
    unsafe { traced(|| cpu_usage_hook_isr_exit()) }
}

/// `cpu_usage_hook_sleep_begin`, traced.
///
/// # Safety
/// As `cpu_usage_hook_sleep_begin`.
#[no_mangle]
pub unsafe extern "C" fn cpu_usage_hook_sleep_begin_traced() {
    // SAFETY: forwarded contract.
    unsafe { traced(|| cpu_usage_hook_sleep_begin()) }
}

/// `cpu_usage_hook_sleep_end`, traced.
///
/// # Safety
/// As `cpu_usage_hook_sleep_end`.
#[no_mangle]
pub unsafe extern "C" fn cpu_usage_hook_sleep_end_traced() {
    // SAFETY: forwarded contract.
    unsafe { traced(|| cpu_usage_hook_sleep_end()) }
}

// ---- Configuration -----------------------------------------------------------------

/// Counts time with `read`, a free-running 32-bit counter at `hz` counts per second
/// that the hooks read with interrupts masked. Restarts all figures (tasks keep their
/// IDs). Returns 0, `CPU_USAGE_ERR_NULL`, `CPU_USAGE_ERR_CLOCK` (hz is 0) or
/// `CPU_USAGE_ERR_WINDOW` (the window would be longer than 2^31 counts of it).
#[no_mangle]
pub extern "C" fn cpu_usage_set_clock(read: Option<unsafe extern "C" fn() -> u32>, hz: u32) -> i32 {
    let Some(read) = read else { return St::CPU_USAGE_ERR_NULL.code() };
    if hz == 0 {
        return St::CPU_USAGE_ERR_CLOCK.code();
    }
    with_state(|mut st| {
        let Some(counts) = window_counts(st.config.window_ms, hz) else {
            return St::CPU_USAGE_ERR_WINDOW.code();
        };
        st.config.clock = Clock { read, hz, name: ClockName::Custom };
        st.set_window(counts, st.config.window_ms);
        let now = st.now();
        st.engine.restart(now);
        St::CPU_USAGE_OK.code()
    })
}

/// Sets the window length (default 1000 ms), from 1 ms to an hour and at most 2^31
/// counts of the clock. It applies to the window under way. Returns 0 or
/// `CPU_USAGE_ERR_WINDOW` (nothing changes then).
#[no_mangle]
pub extern "C" fn cpu_usage_set_window_ms(ms: u32) -> i32 {
    with_state(|mut st| {
        if st.config.clock.hz == 0 {
            // No clock yet (bare metal before the scheduler starts): checked then.
            if ms == 0 || ms > MAX_WINDOW_MS {
                return St::CPU_USAGE_ERR_WINDOW.code();
            }
        } else {
            let Some(counts) = window_counts(ms, st.config.clock.hz) else {
                return St::CPU_USAGE_ERR_WINDOW.code();
            };
            st.set_window(counts, ms);
        }
        st.config.window_ms = ms;
        St::CPU_USAGE_OK.code()
    })
}

/// The window length in milliseconds.
#[no_mangle]
pub extern "C" fn cpu_usage_window_ms() -> u32 {
    with_state(|st| st.config.window_ms)
}

/// Lets `show_cpu_usage -f` (follow mode) run: `wait` waits up to `ms` milliseconds
/// for input on the console the command runs from, leaving it unread for the shell,
/// and returns nonzero when some arrived (or the console closed). Follow mode calls
/// it from the shell's task between reports, so it may block that task; it stops at
/// the first nonzero. NULL turns follow mode off again. Returns 0.
#[no_mangle]
pub extern "C" fn cpu_usage_set_follow_wait(wait: Option<unsafe extern "C" fn(ms: u32) -> c_int>) -> i32 {
    with_state(|st| st.config.follow_wait = wait);
    St::CPU_USAGE_OK.code()
}

/// Sends `show_cpu_usage`'s output to `write`, which gets `n` bytes at `s` (not
/// NUL-terminated), a line or less at a time, from the calling task. Returns 0 or
/// `CPU_USAGE_ERR_NULL`.
#[no_mangle]
pub extern "C" fn cpu_usage_set_output(write: Option<unsafe extern "C" fn(s: *const c_char, n: usize)>) -> i32 {
    match write {
        Some(write) => with_state(|st| {
            st.config.output = Some(write);
            St::CPU_USAGE_OK.code()
        }),
        None => St::CPU_USAGE_ERR_NULL.code(),
    }
}

/// `CPU_USAGE_ABI_VERSION` of the library linked: `(major << 16) | (minor << 8) |
/// patch`. Compare it with the header's macro to catch a header/library mismatch.
#[no_mangle]
pub extern "C" fn cpu_usage_abi_version() -> u32 {
    crate::engine::ABI_VERSION
}

/// A short English description of a status code, never NULL.
#[no_mangle]
pub extern "C" fn cpu_usage_status_str(status: i32) -> *const c_char {
    let text: &'static [u8] = match status {
        0 => b"ok\0",
        -7001 => b"a required pointer was NULL\0",
        -7002 => b"unknown option\0",
        -7003 => b"window length out of range (1 ms to 1 hour, at most 2^31 clock counts)\0",
        -7004 => b"clock frequency is 0\0",
        -7005 => b"no completed window yet\0",
        -7006 => b"no output set (call cpu_usage_set_output)\0",
        -7007 => b"not the ID of a live task\0",
        -7008 => b"threshold out of range\0",
        -7009 => b"follow mode (-f) needs show_cpu_usage and cpu_usage_set_follow_wait()\0",
        _ => b"unknown status code\0",
    };
    text.as_ptr().cast()
}

// ---- Watchdogs ---------------------------------------------------------------------

/// Turns the load watchdog on: it trips when the load (everything but idle and
/// sleep) is above `pct_hundredths` (hundredths of a percent: 8000 is 80%) for
/// `windows` windows in a row, and again only after a window at or below it.
/// `windows` 0 turns it off. Returns 0 or `CPU_USAGE_ERR_RANGE` (above 10000).
#[no_mangle]
pub extern "C" fn cpu_usage_watchdog_set_load(pct_hundredths: u32, windows: u32) -> i32 {
    if pct_hundredths > 10_000 {
        return St::CPU_USAGE_ERR_RANGE.code();
    }
    with_state(|st| st.engine.set_load_watchdog(pct_hundredths, windows));
    St::CPU_USAGE_OK.code()
}

/// Turns the slice watchdog on: it trips when a task runs longer than `us`
/// microseconds in one go (interrupts and sleep inside the run not counted), in a
/// window after one where none did. 0 turns it off. Returns 0 or
/// `CPU_USAGE_ERR_RANGE` (longer than the clock's 32-bit range).
#[no_mangle]
pub extern "C" fn cpu_usage_watchdog_set_slice_us(us: u32) -> i32 {
    with_state(|mut st| {
        let old = st.config.slice_us;
        st.config.slice_us = us;
        if st.apply_slice_watchdog() {
            St::CPU_USAGE_OK.code()
        } else {
            st.config.slice_us = old;
            St::CPU_USAGE_ERR_RANGE.code()
        }
    })
}

/// Sets the function called when a watchdog trips, with `ctx` passed back; NULL
/// stops the calls (tripped watchdogs are then dropped). It is called from the
/// tick interrupt (within a tick of the window's end, as `vApplicationTickHook`
/// is): keep it short and use only the `FromISR` kernel API there; of this
/// library's functions it may call the `cpu_usage_watchdog_set_*` ones (to turn a
/// watchdog off, say). The slice watchdog names the tasks sharing ID 0
/// "(overflow)". Returns 0.
#[no_mangle]
pub extern "C" fn cpu_usage_watchdog_set_callback(
    callback: Option<unsafe extern "C" fn(alert: *const cpu_usage_alert, ctx: *mut c_void)>,
    ctx: *mut c_void,
) -> i32 {
    with_state(|st| {
        st.config.alert = callback;
        st.config.alert_ctx = ctx;
    });
    St::CPU_USAGE_OK.code()
}

// ---- Reports -----------------------------------------------------------------------

/// Most arguments the command takes after its name.
const MAX_ARGS: usize = 8;

/// `argv[i]` up to its NUL: `CPU_USAGE_ERR_NULL` if it is NULL, `CPU_USAGE_ERR_OPTION`
/// if it has no NUL within `MAX_ARG_LEN` bytes.
///
/// # Safety
/// `argv[i]` must be readable, and a C string or NULL; the caller's strings outlive
/// the call, which is as long as the slice is used.
unsafe fn arg<'a>(argv: *const *const c_char, i: usize) -> Result<&'a [u8], St> {
    // SAFETY: readable by the caller's contract.
    let arg = unsafe { *argv.add(i) };
    if arg.is_null() {
        return Err(St::CPU_USAGE_ERR_NULL);
    }
    let mut len = 0;
    // SAFETY: reads byte by byte, stopping at the NUL or the bound.
    while len < MAX_ARG_LEN && unsafe { *arg.add(len) } != 0 {
        len += 1;
    }
    if len == MAX_ARG_LEN {
        return Err(St::CPU_USAGE_ERR_OPTION);
    }
    // SAFETY: `len` bytes were just read.
    Ok(unsafe { core::slice::from_raw_parts(arg.cast::<u8>(), len) })
}

/// Checks `argv[1..argc]` before any is parsed, so that a NULL `argv` (with `argc`
/// above 1) or NULL argument is `CPU_USAGE_ERR_NULL`, and more than `MAX_ARGS`
/// arguments, or one of `MAX_ARG_LEN` bytes with no NUL, `CPU_USAGE_ERR_OPTION`,
/// whatever the arguments before it. Returns `argc` as an index bound. The
/// arguments are then read in place, twice, rather than copied into a list.
///
/// # Safety
/// `argv[0..argc]` must be readable when `argv` is not NULL.
unsafe fn check_args(argc: c_int, argv: *const *const c_char) -> Result<usize, St> {
    let last = usize::try_from(argc).unwrap_or(0);
    if last > 1 && argv.is_null() {
        return Err(St::CPU_USAGE_ERR_NULL);
    }
    for i in 1..last {
        // SAFETY: i < argc, readable by the caller's contract.
        unsafe { arg(argv, i) }?;
        if i > MAX_ARGS {
            return Err(St::CPU_USAGE_ERR_OPTION);
        }
    }
    Ok(last)
}

/// Parses `argv[1..argc]` as `show_cpu_usage`'s options, after `check_args`.
///
/// # Safety
/// As `check_args`.
unsafe fn read_args(argc: c_int, argv: *const *const c_char) -> Result<Result<Options, BadArgs>, St> {
    // SAFETY: forwarded contract.
    let last = unsafe { check_args(argc, argv) }?;
    // SAFETY: as above; every argument was just found to be good.
    Ok(report::parse((1..last).map(|i| unsafe { arg(argv, i) }.unwrap_or(&[]))))
}

/// What a report shows, copied out of the engine inside one critical section, so
/// that everything in it is of one moment.
struct ReportCopy {
    rows: [Row; REPORT_ROWS],
    /// `None` before the first window has completed (window reports only).
    summary: Option<Summary>,
    clock: ClockInfo<'static>,
    window_ms: u32,
}

impl ReportCopy {
    const EMPTY: ReportCopy =
        ReportCopy { rows: [Row::EMPTY; REPORT_ROWS], summary: None, clock: ClockInfo { hz: 0, name: "" }, window_ms: 0 };

    /// Takes the figures `opts` asks for.
    fn take(&mut self, opts: &Options) {
        with_state(|st| {
            self.clock = ClockInfo { hz: st.config.clock.hz, name: st.config.clock.name.as_str() };
            self.window_ms = st.config.window_ms;
            self.summary = if opts.cumulative {
                Some(st.engine.read_cumulative(&mut self.rows))
            } else {
                st.engine.read_window(&mut self.rows)
            };
        });
    }

    /// Writes the report of the copy. Returns 0 or `CPU_USAGE_ERR_NO_WINDOW`. The
    /// report sorts, cuts and rounds the rows in place: write a copy once only (or
    /// see `write_again`).
    fn write(&mut self, sink: &mut dyn Sink, opts: Options) -> i32 {
        match &self.summary {
            Some(summary) => {
                report::write_report(sink, opts, self.clock, summary, &mut self.rows);
                St::CPU_USAGE_OK.code()
            }
            None => {
                report::write_no_window(sink, opts, self.window_ms);
                St::CPU_USAGE_ERR_NO_WINDOW.code()
            }
        }
    }
}

impl ReportCopy {
    /// Copies the figures `opts` asks for inside the critical section, then writes
    /// their report after it. Returns as `write`.
    fn report(sink: &mut dyn Sink, opts: Options) -> i32 {
        let mut copy = ReportCopy::EMPTY;
        copy.take(&opts);
        copy.write(sink, opts)
    }

    /// Writes the report of the copy, leaving the copy as it is (for
    /// `cpu_usage_cli_command`, which writes the same report at every call).
    fn write_again(&self, sink: &mut dyn Sink, opts: Options) -> i32 {
        let mut once = ReportCopy { rows: self.rows, summary: self.summary, clock: self.clock, window_ms: self.window_ms };
        once.write(sink, opts)
    }
}

/// What the arguments ask for: `Ok` with the options of a report; `Err` with the
/// status once the text that answers them (help, or what is wrong) is written.
/// `can_follow`: `-f` is possible here (else it is refused before anything is done).
fn options(sink: &mut dyn Sink, args: Result<Result<Options, BadArgs>, St>, can_follow: bool) -> Result<Options, i32> {
    let opts = match args {
        Ok(Ok(opts)) => opts,
        Ok(Err(bad)) => {
            report::write_error(sink, &bad);
            return Err(St::CPU_USAGE_ERR_OPTION.code());
        }
        Err(status) => {
            write_bad_args(sink, b"show_cpu_usage", status);
            return Err(status.code());
        }
    };
    if opts.help {
        report::write_usage(sink);
        return Err(St::CPU_USAGE_OK.code());
    }
    if opts.follow.is_some() && !can_follow {
        write_bad_args(sink, b"show_cpu_usage", St::CPU_USAGE_ERR_FOLLOW);
        return Err(St::CPU_USAGE_ERR_FOLLOW.code());
    }
    if let Some(ms) = opts.window_ms {
        let status = cpu_usage_set_window_ms(ms);
        if status != St::CPU_USAGE_OK.code() {
            write_bad_args(sink, b"show_cpu_usage", St::CPU_USAGE_ERR_WINDOW);
            return Err(status);
        }
        report::write_window_set(sink, ms);
    }
    Ok(opts)
}

/// Writes the report the arguments ask for into `sink`. Returns 0 or a status.
/// `-f` is refused (see `show_cpu_usage`).
fn report(sink: &mut dyn Sink, args: Result<Result<Options, BadArgs>, St>) -> i32 {
    match options(sink, args, false) {
        Ok(opts) => ReportCopy::report(sink, opts),
        Err(status) => status,
    }
}

/// `<command>: bad arguments: <why>`.
fn write_bad_args(sink: &mut dyn Sink, command: &[u8], status: St) {
    sink.put(command);
    sink.put(b": bad arguments: ");
    // SAFETY: the status strings are static and NUL-terminated.
    let text = unsafe { core::ffi::CStr::from_ptr(cpu_usage_status_str(status.code())) };
    sink.put(text.to_bytes());
    sink.put(b"\n");
}

/// Lines of output, passed to the output function as they complete.
struct LineSink {
    /// `line[..len]` is written; the rest is never read, so it is left uninitialised
    /// (zeroing it would link a 174-byte memclr for nothing else).
    line: [MaybeUninit<u8>; 128],
    len: usize,
    output: Option<OutputFn>,
    failed: bool,
}

impl LineSink {
    fn flush(&mut self) {
        let len = self.len.min(self.line.len());
        // SAFETY: `put` has written `line[..len]`.
        let line = unsafe { core::slice::from_raw_parts(self.line.as_ptr().cast::<u8>(), len) };
        if !line.is_empty() {
            match self.output {
                // SAFETY: the application's function, given a valid pointer and length.
                Some(write) => unsafe { write(line.as_ptr().cast(), line.len()) },
                None => self.failed |= !port::default_output(line),
            }
        }
        self.len = 0;
    }
}

impl Sink for LineSink {
    fn put(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if let Some(slot) = self.line.get_mut(self.len) {
                slot.write(b);
                self.len += 1;
            }
            if b == b'\n' || self.len == self.line.len() {
                self.flush();
            }
        }
    }
}

/// The shell command: prints the last completed window (or, with `-c`, the figures
/// since start; with `-m`, as one line of JSON) to the output set by
/// `cpu_usage_set_output` (standard output on a hosted build). `argv[0]` is the
/// command's name. Returns 0; or prints what is wrong and the usage and returns
/// `CPU_USAGE_ERR_OPTION` or `CPU_USAGE_ERR_NULL`; or `CPU_USAGE_ERR_NO_WINDOW`
/// before the first window completes; or `CPU_USAGE_ERR_NO_OUTPUT`.
///
/// # Safety
/// `argv[0..argc]`, when `argv` is not NULL, must be readable pointers to C strings
/// (or NULL, which is refused).
#[no_mangle]
pub unsafe extern "C" fn show_cpu_usage(argc: c_int, argv: *mut *mut c_char) -> c_int {
    let (output, wait) = with_state(|st| (st.config.output, st.config.follow_wait));
    let mut sink = LineSink { line: [MaybeUninit::uninit(); 128], len: 0, output, failed: false };
    // SAFETY: forwarded contract.
    let args = unsafe { read_args(argc, argv.cast_const().cast()) };
    let status = match (options(&mut sink, args, wait.is_some()), wait) {
        (Ok(opts), Some(wait)) if opts.follow.is_some() => follow(&mut sink, opts, wait),
        (Ok(opts), _) => ReportCopy::report(&mut sink, opts),
        (Err(status), _) => status,
    };
    sink.flush();
    if sink.failed {
        return St::CPU_USAGE_ERR_NO_OUTPUT.code();
    }
    status
}

/// Follow mode: a report each time a window completes (the last completed one at
/// once, if any), until `opts.follow` reports are written (0: no limit) or `wait`
/// says input arrived. Between reports it waits on the console in steps of a tenth
/// of the window (10 to 100 ms), so a report follows its window's end within a step;
/// windows that complete within one step are reported once, by the last of them
/// (the window numbers then skip). Returns 0, or `CPU_USAGE_ERR_NO_OUTPUT`.
fn follow(sink: &mut LineSink, opts: Options, wait: FollowWaitFn) -> i32 {
    let mut last = None;
    let mut left = opts.follow.unwrap_or(0);
    loop {
        let (mark, window_ms) = with_state(|st| (st.engine.window_mark(), st.config.window_ms));
        if mark.is_some() && mark != last {
            last = mark;
            ReportCopy::report(sink, opts);
            sink.flush();
            if sink.failed {
                return St::CPU_USAGE_ERR_NO_OUTPUT.code();
            }
            if left == 1 {
                return St::CPU_USAGE_OK.code();
            }
            left = left.saturating_sub(1);
        }
        // SAFETY: the application's function.
        if unsafe { wait((window_ms / 10).clamp(10, 100)) } != 0 {
            return St::CPU_USAGE_OK.code();
        }
    }
}

/// Text into a caller's buffer, from byte `skip` of the text on.
struct BufSink<'a> {
    buf: &'a mut [u8],
    /// Bytes of text so far, those skipped included.
    needed: usize,
    skip: usize,
}

impl Sink for BufSink<'_> {
    fn put(&mut self, bytes: &[u8]) {
        for &b in bytes {
            // The last byte of the buffer is kept for the NUL.
            let at = self.needed.wrapping_sub(self.skip);
            if self.needed >= self.skip && at + 1 < self.buf.len() {
                if let Some(slot) = self.buf.get_mut(at) {
                    *slot = b;
                }
            }
            self.needed += 1;
        }
    }
}

/// The same text as `show_cpu_usage`, into `buf`: at most `len - 1` bytes and a NUL.
/// Returns the length of the whole text (without the NUL), so a return value of
/// `len` or more means it was cut; or a negative status, with the error message in
/// `buf`. `buf` may be NULL only when `len` is 0, to ask for the length.
///
/// # Safety
/// `buf` must be writable for `len` bytes; `argv` as for `show_cpu_usage`.
#[no_mangle]
pub unsafe extern "C" fn cpu_usage_format(buf: *mut c_char, len: usize, argc: c_int, argv: *mut *mut c_char) -> c_int {
    if buf.is_null() && len != 0 {
        return St::CPU_USAGE_ERR_NULL.code();
    }
    let buf: &mut [u8] = if len == 0 {
        &mut []
    } else {
        // SAFETY: non-NULL and writable for `len` bytes by the caller's contract.
        unsafe { core::slice::from_raw_parts_mut(buf.cast::<u8>(), len) }
    };
    let mut sink = BufSink { buf, needed: 0, skip: 0 };
    // SAFETY: forwarded contract.
    let status = report(&mut sink, unsafe { read_args(argc, argv.cast_const().cast()) });
    let end = sink.needed.min(sink.buf.len().saturating_sub(1));
    if let Some(nul) = sink.buf.get_mut(end) {
        *nul = 0;
    }
    if status != 0 {
        return status;
    }
    c_int::try_from(sink.needed).unwrap_or(c_int::MAX)
}

// ---- FreeRTOS+CLI -----------------------------------------------------------------

/// Longest command line read by `cpu_usage_cli_command`.
const MAX_CMDLINE: usize = 256;

/// The arguments of a command line, after its first word (the command's name):
/// split at spaces, each read in place.
fn cmdline_args(line: &[u8]) -> Result<Result<Options, BadArgs>, St> {
    let words = || line.split(|&b| b == b' ').filter(|w| !w.is_empty()).skip(1);
    if words().count() > MAX_ARGS || words().any(|w| w.len() >= MAX_ARG_LEN) {
        return Err(St::CPU_USAGE_ERR_OPTION);
    }
    Ok(report::parse(words()))
}

/// A report being handed out by `cpu_usage_cli_command`: the copy it is of, and
/// how far it has got. Only linked into firmware that uses the function. (The copy
/// starts uninitialised, so that the static is in `.bss` and costs no flash.)
struct CliReport {
    /// Initialised when `copied` is set.
    copy: MaybeUninit<ReportCopy>,
    /// The report under way is of `copy` (not help or an error).
    copied: bool,
    /// Bytes handed out so far; 0: no report under way.
    offset: usize,
    /// A hash of the command line of the report under way: another line starts
    /// another report.
    line: u32,
}

static CLI: Shared<CliReport> =
    Shared(UnsafeCell::new(CliReport { copy: MaybeUninit::uninit(), copied: false, offset: 0, line: 0 }));

/// FNV-1a: tells command lines apart.
fn line_hash(line: &[u8]) -> u32 {
    line.iter().fold(0x811c_9dc5, |h: u32, &b| (h ^ u32::from(b)).wrapping_mul(0x0100_0193))
}

/// Set while a call of `cpu_usage_cli_command` uses `CLI`.
static CLI_BUSY: AtomicBool = AtomicBool::new(false);

/// `show_cpu_usage` as a FreeRTOS+CLI command (`pdCOMMAND_LINE_CALLBACK`): register
/// it with `FreeRTOS_CLIRegisterCommand` under the name `show_cpu_usage` and
/// `cExpectedNumberOfParameters` -1. `cmdline` is the whole line typed, options
/// as for `show_cpu_usage`. Writes at most `len - 1` bytes of the report and a NUL
/// into `out`, and returns 1 (`pdTRUE`) while more is to come: FreeRTOS+CLI then
/// calls again with the same line, and the report goes on where it stopped. Returns
/// 0 (`pdFALSE`) with the last piece. The figures are copied at the first call, so
/// the pieces are all of one moment, however long the console takes in between;
/// each call formats the report again from that copy up to its piece, so give it a
/// buffer of a few hundred bytes rather than a few dozen. `len` must be at least 2.
/// One task at a time: a second caller meanwhile gets a line saying so.
///
/// # Safety
/// `out` must be writable for `len` bytes; `cmdline`, if not NULL, a C string.
#[no_mangle]
pub unsafe extern "C" fn cpu_usage_cli_command(out: *mut c_char, len: usize, cmdline: *const c_char) -> c_long {
    if out.is_null() || len < 2 {
        if let (false, Some(nul)) = (out.is_null(), len.checked_sub(1)) {
            // SAFETY: writable for `len` bytes, and `len` is 1.
            unsafe { *out.add(nul) = 0 };
        }
        return 0;
    }
    // SAFETY: non-NULL and writable for `len` bytes by the caller's contract.
    let buf = unsafe { core::slice::from_raw_parts_mut(out.cast::<u8>(), len) };
    let mut line_len = 0;
    // SAFETY: reads byte by byte, stopping at the NUL or the bound.
    while !cmdline.is_null() && line_len < MAX_CMDLINE && unsafe { *cmdline.add(line_len) } != 0 {
        line_len += 1;
    }
    let line: &[u8] = if cmdline.is_null() {
        b""
    } else {
        // SAFETY: `line_len` bytes were just read.
        unsafe { core::slice::from_raw_parts(cmdline.cast::<u8>(), line_len) }
    };
    if CLI_BUSY.swap(true, Ordering::Acquire) {
        let mut sink = BufSink { buf, needed: 0, skip: 0 };
        sink.put(b"show_cpu_usage: busy (another task is reading a report)\n");
        let given = sink.needed;
        finish_cli(&mut sink, given);
        return 0;
    }
    // SAFETY: CLI_BUSY gives this call the only reference.
    let cli = unsafe { &mut *CLI.0.get() };
    let args = if line_len == MAX_CMDLINE { Err(St::CPU_USAGE_ERR_OPTION) } else { cmdline_args(line) };
    let hash = line_hash(line);
    if hash != cli.line {
        // Not the line of the report under way (or none is): start afresh.
        cli.offset = 0;
        cli.line = hash;
    }
    let mut sink = BufSink { buf, needed: 0, skip: cli.offset };
    match args {
        Ok(Ok(opts)) if cli.offset != 0 && cli.copied => {
            // SAFETY: initialised by the call that gave out the first piece.
            let copy = unsafe { cli.copy.assume_init_mut() };
            // The same text again, from the same copy (the window is set already).
            if let Some(ms) = opts.window_ms {
                report::write_window_set(&mut sink, ms);
            }
            copy.write_again(&mut sink, opts);
        }
        args => {
            // A new report (or help, or what is wrong, which depend on the line
            // alone): answer the options, and copy the figures once.
            cli.copied = false;
            if let Ok(opts) = options(&mut sink, args, false) {
                let copy = cli.copy.write(ReportCopy::EMPTY);
                copy.take(&opts);
                copy.write_again(&mut sink, opts);
                cli.copied = true;
            }
        }
    }
    let room = sink.buf.len() - 1;
    let given = sink.needed.saturating_sub(cli.offset).min(room);
    let more = cli.offset + given < sink.needed;
    finish_cli(&mut sink, given);
    cli.offset = if more { cli.offset + given } else { 0 };
    CLI_BUSY.store(false, Ordering::Release);
    c_long::from(more)
}

/// NUL-terminates a piece of `cpu_usage_cli_command`'s output `given` bytes long.
fn finish_cli(sink: &mut BufSink<'_>, given: usize) {
    let end = given.min(sink.buf.len().saturating_sub(1));
    if let Some(nul) = sink.buf.get_mut(end) {
        *nul = 0;
    }
}

// ---- Snapshot ----------------------------------------------------------------------

/// One task in a snapshot.
#[repr(C)]
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug)]
pub struct cpu_usage_task_info {
    /// The task's ID; 0 for the tasks sharing the overflow bucket.
    pub id: u32,
    /// Its name, NUL-terminated ("(overflow)" for the shared bucket).
    pub name: [c_char; CPU_USAGE_NAME_BUF],
    /// Share of the window in hundredths of a percent.
    pub usage: u32,
    /// Times switched in during the window (a run going on when it began counts).
    pub switches: u32,
    /// Longest run in one go, in microseconds.
    pub longest_slice_us: u32,
    /// Clock counts in the window.
    pub counts: u32,
    /// The task was deleted (its time in the window still counts).
    pub deleted: bool,
    /// It is the idle task.
    pub idle: bool,
}

/// The rest of a snapshot: shares in hundredths of a percent, adding up (with the
/// tasks' `usage`) to exactly 10000.
#[repr(C)]
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug, Default)]
pub struct cpu_usage_summary_info {
    /// The window's number (windows completed before it).
    pub window: u32,
    /// Its length in microseconds.
    pub window_us: u32,
    /// Tasks in the window (idle and the overflow bucket included), written or not.
    pub tasks: u32,
    /// Tasks written to the caller's array.
    pub written: u32,
    /// Time in interrupt handlers.
    pub interrupts: u32,
    /// Interrupts in the window.
    pub interrupt_count: u32,
    /// Longest interrupt, in microseconds.
    pub longest_interrupt_us: u32,
    /// Time asleep in tickless idle.
    pub sleep: u32,
    /// Time in no task (before the scheduler, or unattributed).
    pub other: u32,
    /// The idle task's share.
    pub idle: u32,
    /// 100% minus idle and sleep.
    pub load: u32,
    /// The load smoothed over about 1 s, 10 s and 60 s; `UINT32_MAX` until known.
    pub load_avg: [u32; 3],
}

/// Copies the last completed window into `tasks` (up to `max_tasks` of them, in ID
/// order, the overflow bucket first if used and the idle task marked) and
/// `summary`. Returns how many tasks it wrote (`summary->tasks` says how many there
/// were); or `CPU_USAGE_ERR_NULL` (`summary` NULL, or `tasks` NULL with
/// `max_tasks` not 0) or `CPU_USAGE_ERR_NO_WINDOW`, writing nothing.
///
/// # Safety
/// `tasks` must be writable for `max_tasks` elements; `summary` for one.
#[no_mangle]
pub unsafe extern "C" fn cpu_usage_snapshot(
    tasks: *mut cpu_usage_task_info,
    max_tasks: usize,
    summary: *mut cpu_usage_summary_info,
) -> i32 {
    if summary.is_null() || (tasks.is_null() && max_tasks != 0) {
        return St::CPU_USAGE_ERR_NULL.code();
    }
    let mut rows = [Row::EMPTY; REPORT_ROWS];
    let mut hz = 0;
    let Some(s) = with_state(|st| {
        hz = st.config.clock.hz;
        st.engine.read_window(&mut rows)
    }) else {
        return St::CPU_USAGE_ERR_NO_WINDOW.code();
    };
    let n = s.rows;
    if let Some(slot) = rows.get_mut(n) {
        *slot = Row::summary(RowKind::Other, s.other);
    }
    let all = rows.get_mut(..n + 1).unwrap_or(&mut []);
    report::apportion(all);
    let us = |counts: u64| u32::try_from(report::counts_to_us(counts, hz)).unwrap_or(u32::MAX);
    let pct_of = |kind| all.iter().find(|r| r.kind == kind).map_or(0, |r| u32::from(r.pct));
    let count_of = |kind| all.iter().find(|r| r.kind == kind).copied().unwrap_or(Row::EMPTY);
    let out: &mut [cpu_usage_task_info] = if max_tasks == 0 {
        &mut []
    } else {
        // SAFETY: non-NULL and writable for `max_tasks` elements by the contract.
        unsafe { core::slice::from_raw_parts_mut(tasks, max_tasks) }
    };
    let mut listed = 0u32;
    let mut written = 0usize;
    for row in all.iter().filter(|r| matches!(r.kind, RowKind::Task | RowKind::Idle | RowKind::Overflow)) {
        listed += 1;
        let Some(slot) = out.get_mut(written) else { continue };
        let mut name = [0 as c_char; CPU_USAGE_NAME_BUF];
        let text: &[u8] = if row.kind == RowKind::Overflow { b"(overflow)" } else { &row.name };
        for (dst, &src) in name.iter_mut().zip(text.iter().take(NAME_LEN)) {
            *dst = src as c_char;
        }
        *slot = cpu_usage_task_info {
            id: u32::from(row.id),
            name,
            usage: u32::from(row.pct),
            switches: u32::try_from(row.runs).unwrap_or(u32::MAX),
            longest_slice_us: us(u64::from(row.longest)),
            counts: u32::try_from(row.counts).unwrap_or(u32::MAX),
            deleted: row.deleted,
            idle: row.kind == RowKind::Idle,
        };
        written += 1;
    }
    let isr = count_of(RowKind::Interrupts);
    let idle = pct_of(RowKind::Idle);
    let sleep = pct_of(RowKind::Sleep);
    let info = cpu_usage_summary_info {
        window: s.window,
        window_us: us(s.length),
        tasks: listed,
        written: written as u32,
        interrupts: u32::from(isr.pct),
        interrupt_count: u32::try_from(isr.runs).unwrap_or(u32::MAX),
        longest_interrupt_us: us(u64::from(isr.longest)),
        sleep,
        other: pct_of(RowKind::Other),
        idle,
        load: if s.length == 0 { 0 } else { 10_000u32.saturating_sub(idle + sleep) },
        load_avg: s.load_avg.map(|a| {
            if a.len == 0 {
                u32::MAX
            } else {
                report::div_rem(a.busy.min(a.len) * 10_000, a.len).0 as u32
            }
        }),
    };
    // SAFETY: non-NULL and writable by the contract.
    unsafe { *summary = info };
    written as i32
}

// ---- The watchdog shell command ----------------------------------------------------

/// The shell command `cpu_usage_watchdog`: `load <pct> <windows>`, `slice <us>`,
/// `load off`, `slice off`, `off`, or nothing to print the settings (it prints
/// them after a change too). Output goes where `show_cpu_usage`'s does. Returns 0,
/// or prints what is wrong and returns `CPU_USAGE_ERR_OPTION`,
/// `CPU_USAGE_ERR_NULL`, `CPU_USAGE_ERR_RANGE` or `CPU_USAGE_ERR_NO_OUTPUT`.
///
/// # Safety
/// As `show_cpu_usage`.
#[no_mangle]
pub unsafe extern "C" fn cpu_usage_watchdog(argc: c_int, argv: *mut *mut c_char) -> c_int {
    let output = with_state(|st| st.config.output);
    let mut sink = LineSink { line: [MaybeUninit::uninit(); 128], len: 0, output, failed: false };
    // SAFETY: forwarded contract; every argument is checked before any is parsed.
    let status = match unsafe { check_args(argc, argv.cast_const().cast()) } {
        Err(status) => {
            write_bad_args(&mut sink, b"cpu_usage_watchdog", status);
            status.code()
        }
        Ok(last) => {
            // SAFETY: as above; every argument was just found to be good.
            let args = (1..last).map(|i| unsafe { arg(argv.cast_const().cast(), i) }.unwrap_or(&[]));
            watchdog_command(&mut sink, report::parse_watchdog(args))
        }
    };
    sink.flush();
    if sink.failed {
        return St::CPU_USAGE_ERR_NO_OUTPUT.code();
    }
    status
}

fn watchdog_command(sink: &mut dyn Sink, cmd: Result<WatchCmd, BadArgs>) -> i32 {
    let status = match cmd {
        Err(bad) => {
            report::write_watchdog_error(sink, &bad);
            return St::CPU_USAGE_ERR_OPTION.code();
        }
        Ok(WatchCmd::Status) => 0,
        Ok(WatchCmd::Off) => {
            cpu_usage_watchdog_set_load(0, 0);
            cpu_usage_watchdog_set_slice_us(0)
        }
        Ok(WatchCmd::Load(load)) => {
            let (pct, windows) = load.unwrap_or((0, 0));
            cpu_usage_watchdog_set_load(pct, windows)
        }
        Ok(WatchCmd::Slice(us)) => cpu_usage_watchdog_set_slice_us(us.unwrap_or(0)),
    };
    if status != 0 {
        write_bad_args(sink, b"cpu_usage_watchdog", St::CPU_USAGE_ERR_RANGE);
        return status;
    }
    let (load, slice_us) = with_state(|st| {
        let (pct, windows, _) = st.engine.watchdogs();
        ((windows != 0).then_some((pct, windows)), (st.config.slice_us != 0).then_some(st.config.slice_us))
    });
    report::write_watchdog_status(sink, load, slice_us);
    0
}

// ---- The event trace shell command -------------------------------------------------

/// The shell command `cpu_usage_trace`: `start` (clear and record), `stop`, `dump`
/// (stop and print the events, in the format of the README's "Event trace"),
/// `status` or nothing (the state). Output goes where `show_cpu_usage`'s does.
/// Records only in firmware built with `CPU_USAGE_TRACE` 1 (`status` says when no
/// traced hook has run); a full trace loses its oldest events. Returns 0, or prints
/// what is wrong and returns `CPU_USAGE_ERR_OPTION` (a word it does not know, or
/// `start` while another task prints a dump), `CPU_USAGE_ERR_NULL` or
/// `CPU_USAGE_ERR_NO_OUTPUT`.
///
/// # Safety
/// As `show_cpu_usage`.
#[no_mangle]
pub unsafe extern "C" fn cpu_usage_trace(argc: c_int, argv: *mut *mut c_char) -> c_int {
    let output = with_state(|st| st.config.output);
    let mut sink = LineSink { line: [MaybeUninit::uninit(); 128], len: 0, output, failed: false };
    // SAFETY: forwarded contract; every argument is checked before any is read.
    let status = match unsafe { check_args(argc, argv.cast_const().cast()) } {
        Err(status) => {
            write_bad_args(&mut sink, b"cpu_usage_trace", status);
            status.code()
        }
        Ok(last) => {
            // SAFETY: as above; the argument was just found to be good.
            let word = (last == 2).then(|| unsafe { arg(argv.cast_const().cast(), 1) }.unwrap_or(&[]));
            match trace::parse_trace(word).filter(|_| last <= 2) {
                Some(cmd) => trace_command(&mut sink, cmd),
                None => {
                    write_bad_args(&mut sink, b"cpu_usage_trace", St::CPU_USAGE_ERR_OPTION);
                    trace::write_trace_usage(&mut sink);
                    St::CPU_USAGE_ERR_OPTION.code()
                }
            }
        }
    };
    sink.flush();
    if sink.failed {
        return St::CPU_USAGE_ERR_NO_OUTPUT.code();
    }
    status
}

fn trace_command(sink: &mut dyn Sink, cmd: trace::TraceCmd) -> i32 {
    use trace::TraceCmd;
    // Nobody may start the ring while a dump reads it outside the critical section.
    if trace::DUMPING.swap(true, Ordering::Acquire) {
        sink.put(b"cpu_usage_trace: busy (another task is printing a dump)\n");
        return St::CPU_USAGE_ERR_OPTION.code();
    }
    // SAFETY (each `trace::ring()`): inside the critical section, or, for the dump,
    // reading the stopped ring while holding DUMPING.
    let hz = with_state(|st| {
        let ring = unsafe { trace::ring() };
        match cmd {
            TraceCmd::Start => ring.start(st.engine),
            TraceCmd::Stop | TraceCmd::Dump => {
                ring.stop(st.engine);
            }
            TraceCmd::Status => {}
        }
        st.config.clock.hz
    });
    let ring = unsafe { trace::ring() };
    if cmd == TraceCmd::Dump {
        trace::write_dump(sink, ring, hz, |id| with_state(|st| st.engine.slot_name(id)));
    } else {
        trace::write_trace_status(sink, ring, trace::hooks_seen());
    }
    trace::DUMPING.store(false, Ordering::Release);
    St::CPU_USAGE_OK.code()
}

#[cfg(test)]
mod tests;
