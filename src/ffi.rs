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
//! `freertos_cpu_usage_hooks.h` from inside the kernel, which calls them with
//! interrupts masked up to the kernel's priority (from the tick interrupt, the
//! context switch, or task creation and deletion inside a kernel critical section).
//! They are the only writers of the accounting state. Every other function that
//! touches that state does so inside a critical section (`critical-section`, whose
//! implementation this library provides on top of the FreeRTOS port), and formats
//! reports only after copying what it needs out of it.

use core::cell::UnsafeCell;
use core::ffi::{c_char, c_int, c_void};
use core::mem::MaybeUninit;

use crate::engine::{Engine, Row, MAX_WINDOW_COUNTS, NAME_LEN, OVERFLOW_ID};
use crate::port::{self, Clock, ClockName};
use crate::report::{self, BadArgs, ClockInfo, Options, Sink, REPORT_ROWS};

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

struct State<'a> {
    engine: &'a mut Engine,
    config: &'a mut Config,
}

/// What the application chose; small, so its non-zero defaults cost little flash.
struct Config {
    clock: Clock,
    window_ms: u32,
    output: Option<OutputFn>,
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
            self.engine.set_window(counts.unwrap_or(MAX_WINDOW_COUNTS));
            self.engine.restart(now);
        }
    }
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
    st.engine.tick(now);
}

/// `traceSTARTING_SCHEDULER`: the idle task's ID, and `configCPU_CLOCK_HZ` for the
/// default clock of a bare-metal build. Windows start here.
///
/// # Safety
/// Called by the hooks header from inside the kernel.
#[no_mangle]
pub unsafe extern "C" fn cpu_usage_hook_scheduler_start(idle_id: u32, cpu_hz: u32) {
    // SAFETY: a hook.
    let st = unsafe { state() };
    // A clock the application chose (named Custom) is kept.
    if st.config.clock.name != ClockName::Custom {
        let clock = port::clock_at_scheduler_start(cpu_hz);
        if let Some(counts) = window_counts(st.config.window_ms, clock.hz) {
            st.config.clock = clock;
            st.engine.set_window(counts);
        }
    }
    st.engine.scheduler_start(idle_id);
    let now = st.now();
    st.engine.restart(now);
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
    with_state(|st| {
        let Some(counts) = window_counts(st.config.window_ms, hz) else {
            return St::CPU_USAGE_ERR_WINDOW.code();
        };
        st.config.clock = Clock { read, hz, name: ClockName::Custom };
        st.engine.set_window(counts);
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
    with_state(|st| {
        if st.config.clock.hz == 0 {
            // No clock yet (bare metal before the scheduler starts): checked then.
            if ms == 0 || ms > MAX_WINDOW_MS {
                return St::CPU_USAGE_ERR_WINDOW.code();
            }
        } else {
            let Some(counts) = window_counts(ms, st.config.clock.hz) else {
                return St::CPU_USAGE_ERR_WINDOW.code();
            };
            st.engine.set_window(counts);
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
        _ => b"unknown status code\0",
    };
    text.as_ptr().cast()
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

/// Parses `argv[1..argc]`. Every argument is checked before any is parsed, so that a
/// NULL `argv` (with `argc` above 1) or NULL argument is `CPU_USAGE_ERR_NULL`, and
/// more than `MAX_ARGS` arguments, or one of `MAX_ARG_LEN` bytes with no NUL,
/// `CPU_USAGE_ERR_OPTION`, whatever the arguments before it. The arguments are read
/// in place, twice, rather than copied into a list.
///
/// # Safety
/// `argv[0..argc]` must be readable when `argv` is not NULL.
unsafe fn read_args(argc: c_int, argv: *const *const c_char) -> Result<Result<Options, BadArgs>, St> {
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
    // SAFETY: as above; every argument was just found to be good.
    Ok(report::parse((1..last).map(|i| unsafe { arg(argv, i) }.unwrap_or(&[]))))
}

/// Writes the report the arguments ask for into `sink`. Returns 0 or a status.
fn report(sink: &mut dyn Sink, args: Result<Result<Options, BadArgs>, St>) -> i32 {
    let opts = match args {
        Ok(Ok(opts)) => opts,
        Ok(Err(bad)) => {
            report::write_error(sink, &bad);
            return St::CPU_USAGE_ERR_OPTION.code();
        }
        Err(status) => {
            sink.put(b"show_cpu_usage: bad arguments: ");
            // SAFETY: the status strings are static and NUL-terminated.
            let text = unsafe { core::ffi::CStr::from_ptr(cpu_usage_status_str(status.code())) };
            sink.put(text.to_bytes());
            sink.put(b"\n");
            return status.code();
        }
    };
    if opts.help {
        report::write_usage(sink);
        return St::CPU_USAGE_OK.code();
    }
    let mut rows = [Row::EMPTY; REPORT_ROWS];
    // Copy inside the critical section; format after it.
    let mut clock = ClockInfo { hz: 0, name: "" };
    let mut window_ms = 0;
    let summary = with_state(|st| {
        clock = ClockInfo { hz: st.config.clock.hz, name: st.config.clock.name.as_str() };
        window_ms = st.config.window_ms;
        if opts.cumulative {
            Some(st.engine.read_cumulative(&mut rows))
        } else {
            st.engine.read_window(&mut rows)
        }
    });
    match summary {
        Some(summary) => {
            report::write_report(sink, opts, clock, &summary, &mut rows);
            St::CPU_USAGE_OK.code()
        }
        None => {
            report::write_no_window(sink, opts, window_ms);
            St::CPU_USAGE_ERR_NO_WINDOW.code()
        }
    }
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
    let output = with_state(|st| st.config.output);
    let mut sink = LineSink { line: [MaybeUninit::uninit(); 128], len: 0, output, failed: false };
    // SAFETY: forwarded contract.
    let status = report(&mut sink, unsafe { read_args(argc, argv.cast_const().cast()) });
    sink.flush();
    if sink.failed {
        return St::CPU_USAGE_ERR_NO_OUTPUT.code();
    }
    status
}

/// Text into a caller's buffer.
struct BufSink<'a> {
    buf: &'a mut [u8],
    needed: usize,
}

impl Sink for BufSink<'_> {
    fn put(&mut self, bytes: &[u8]) {
        for &b in bytes {
            // The last byte of the buffer is kept for the NUL.
            if self.needed + 1 < self.buf.len() {
                if let Some(slot) = self.buf.get_mut(self.needed) {
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
    let mut sink = BufSink { buf, needed: 0 };
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

#[cfg(test)]
mod tests;
