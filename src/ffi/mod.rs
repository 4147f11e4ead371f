//! The C boundary: every `extern "C"` function of the library, and nothing else.
//!
//! One module per concern, the hot path apart:
//! - [`hooks`]: what the kernel calls, from its trace macros (the hot path: read it
//!   top to bottom there, with [`crate::engine`]);
//! - [`config`]: clock, window, output and ABI version;
//! - [`status`]: the status codes and their texts;
//! - with the `watchdogs` feature: [`watchdog`], the watchdogs' thresholds and
//!   callback (and, with the `shell` feature, their shell command);
//! - [`snapshot`]: the last window as C structs;
//! - [`readout`]: the read-out block, where a debugger finds the last window;
//! - with the `shell` feature: [`shell`] (`show_cpu_usage`, `cpu_usage_format`) and
//!   [`cli`] (FreeRTOS+CLI); with `trace`: `trace_cmd` (`cpu_usage_trace`);
//! - `args` and `sink` (private): the argument checks and the output sinks every
//!   command shares.
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
//! writers of the accounting state. Every other function that touches that state
//! does so inside a critical section (`critical-section`, whose implementation this
//! library provides on top of the FreeRTOS port), one short one at a time: readers
//! take what one line needs, and format it after.

use core::cell::UnsafeCell;
#[cfg(feature = "watchdogs")]
use core::ffi::c_void;

use crate::arch::{self, Clock, ClockRate};
use crate::engine::arith::{self, DEFAULT_WINDOW_MS};
use crate::engine::{Header, Line, Smoothed, Stamp, MAX_WINDOW_COUNTS};
use crate::settings::ApiEngine;

#[cfg(feature = "shell")]
mod args;
#[cfg(feature = "shell")]
pub mod cli;
pub mod config;
pub mod hooks;
pub mod readout;
#[cfg(feature = "shell")]
pub mod shell;
#[cfg(feature = "shell")]
mod sink;
pub mod snapshot;
pub mod status;
#[cfg(feature = "trace")]
pub mod trace_cmd;
#[cfg(feature = "watchdogs")]
pub mod watchdog;

#[cfg(feature = "shell")]
pub use cli::*;
pub use config::*;
pub use hooks::*;
pub use readout::*;
#[cfg(feature = "shell")]
pub use shell::*;
pub use snapshot::*;
pub use status::*;
#[cfg(feature = "trace")]
pub use trace_cmd::*;
#[cfg(feature = "watchdogs")]
pub use watchdog::*;

/// Bytes of a task name in the C structs, its NUL included (the header defines it
/// as `CPU_USAGE_NAME_LEN + 1`).
pub const CPU_USAGE_NAME_BUF: usize = crate::engine::NAME_LEN + 1;

/// Cores of the kernel, each with its line in a snapshot of an SMP build (the header
/// defines it from the build's setting).
pub const CPU_USAGE_CORES: usize = crate::settings::CORES;

/// The library's two statics, the accounting engine and the application's choices,
/// borrowed together.
struct Library<'a> {
    engine: &'a mut ApiEngine,
    config: &'a mut Config,
}

/// What the application chose; small, so its non-zero defaults cost little flash.
struct Config {
    /// The rate and name of `cpu_usage_clock_read`.
    clock: ClockRate,
    window_ms: u32,
    #[cfg(feature = "shell")]
    output: Option<config::OutputFn>,
    #[cfg(feature = "watchdogs")]
    alert: Option<watchdog::AlertFn>,
    #[cfg(feature = "watchdogs")]
    alert_ctx: *mut c_void,
    /// The slice watchdog's threshold in microseconds (0: off), kept to convert
    /// again when the clock changes.
    #[cfg(feature = "watchdogs")]
    slice_us: u32,
    #[cfg(feature = "shell")]
    follow_wait: Option<config::FollowWaitFn>,
}

/// One piece of the accounting state, shared between the hooks (the single writer,
/// which the kernel runs with interrupts masked) and readers (inside a critical
/// section).
struct Shared<T>(UnsafeCell<T>);

// SAFETY: all access follows the discipline described in the module comment.
unsafe impl<T> Sync for Shared<T> {}

/// All zero, so it lives in `.bss`.
static ENGINE: Shared<ApiEngine> = Shared(UnsafeCell::new(ApiEngine::new(0)));

static CONFIG: Shared<Config> = Shared(UnsafeCell::new(Config {
    clock: arch::DEFAULT_CLOCK.rate(),
    window_ms: DEFAULT_WINDOW_MS,
    #[cfg(feature = "shell")]
    output: None,
    #[cfg(feature = "watchdogs")]
    alert: None,
    #[cfg(feature = "watchdogs")]
    alert_ctx: core::ptr::null_mut(),
    #[cfg(feature = "watchdogs")]
    slice_us: 0,
    #[cfg(feature = "shell")]
    follow_wait: None,
}));

/// The clock every hook reads: the target's default until the scheduler starts, or
/// the one `cpu_usage_set_clock()` set. The switch hook's macro reads it itself and
/// passes the reading in, so that the hook calls nothing. Not for the application
/// to set: `cpu_usage_set_clock()` sets it together with its frequency.
#[no_mangle]
pub static mut cpu_usage_clock_read: unsafe extern "C" fn() -> u32 = arch::DEFAULT_CLOCK.read;

/// The library's statics.
///
/// # Safety
/// Only from a hook (the kernel masks interrupts around them) or inside a critical
/// section, and the references must not outlive that.
unsafe fn library() -> Library<'static> {
    // SAFETY: exclusive by the caller's contract.
    unsafe { Library { engine: &mut *ENGINE.0.get(), config: &mut *CONFIG.0.get() } }
}

/// Runs `f` on the library's statics inside a critical section.
fn with_library<R>(f: impl FnOnce(Library<'_>) -> R) -> R {
    // SAFETY: inside the critical section neither hooks nor other readers run.
    critical_section::with(|_| f(unsafe { library() }))
}

/// Sets `flag` if it was clear, and says whether it did: a reader claims something
/// only one task at a time may use. Tested and set in a critical section, not with
/// an atomic swap, which ARMv6-M (Cortex-M0) lacks.
#[cfg(feature = "shell")]
fn claim(flag: &core::sync::atomic::AtomicBool) -> bool {
    use core::sync::atomic::Ordering::Relaxed;
    critical_section::with(|_| {
        !flag.load(Relaxed) && {
            flag.store(true, Relaxed);
            true
        }
    })
}

/// The reader that held its window with `stamp` (see `Engine::hold`) is done.
pub(crate) fn let_go(stamp: Stamp) {
    with_library(|st| st.engine.let_go(stamp));
}

/// The header of the last completed window (or, `since_start`, of the figures up to
/// its end), the smoothed loads (`None` until known, and always without the
/// `watchdogs` feature) and the clock's rate, read in one critical section that also
/// holds the window under way open until `let_go(header.stamp)`; `None` before the
/// first window has completed.
pub(crate) fn hold_window(since_start: bool) -> Option<(Header, [Option<Smoothed>; 3], u32)> {
    with_library(|st| {
        let header = st.engine.header(since_start)?;
        st.engine.hold();
        #[cfg(feature = "watchdogs")]
        let load_avg = st.engine.load_avg().map(|a| (a.len != 0).then_some(a));
        #[cfg(not(feature = "watchdogs"))]
        let load_avg = [None; 3];
        Some((header, load_avg, st.config.clock.hz))
    })
}

/// Reads the line at position `at` (see `Engine::LINES`) into `line`, in a critical
/// section of its own, if the figures are still those stamped `stamp`; says whether
/// it did. (Into the caller's place, not returned: one copy of a line on the stack.)
#[inline(never)]
pub(crate) fn read_line(at: usize, since_start: bool, stamp: Stamp, line: &mut Line) -> bool {
    with_library(|st| {
        let same = st.engine.still(stamp, since_start);
        if same {
            st.engine.read_line(at, since_start, line);
        }
        same
    })
}

impl Library<'_> {
    fn now(&self) -> u32 {
        // SAFETY: a clock function given by the port or checked non-NULL by
        // cpu_usage_set_clock, changed only with the library held (as `self` is).
        unsafe { cpu_usage_clock_read() }
    }

    /// Reads `clock` from now on.
    fn install_clock(&mut self, clock: Clock) {
        // SAFETY: with the library held, no hook runs.
        unsafe { cpu_usage_clock_read = clock.read };
        self.config.clock = clock.rate();
    }

    /// Starts accounting on first use, with the window in force.
    fn start_if_needed(&mut self, now: u32) {
        if !self.engine.is_started() {
            let counts = arith::window_counts(self.config.window_ms, self.config.clock.hz);
            self.set_window(counts.unwrap_or(MAX_WINDOW_COUNTS), self.config.window_ms);
            self.engine.restart(now);
        }
    }

    /// Windows of `counts` clock counts, `ms` milliseconds: the smoothing weights
    /// follow the window length.
    fn set_window(&mut self, counts: u32, ms: u32) {
        self.engine.set_window(counts);
        #[cfg(feature = "watchdogs")]
        {
            self.engine.set_smoothing(arith::smoothing_for(ms));
            self.apply_slice_watchdog();
        }
        #[cfg(not(feature = "watchdogs"))]
        let _ = ms;
    }

    /// Gives the engine the slice threshold in counts of the clock in use. False if
    /// it does not fit 32 bits (the watchdog is then off).
    #[cfg(feature = "watchdogs")]
    fn apply_slice_watchdog(&mut self) -> bool {
        let us = self.config.slice_us;
        if us == 0 {
            self.engine.set_slice_watchdog(None);
            return true;
        }
        let fits = arith::us_to_counts(us, self.config.clock.hz);
        // No clock yet (bare metal before the scheduler starts): set then.
        self.engine.set_slice_watchdog(fits.filter(|_| self.config.clock.hz != 0).map(|c| c.max(1)));
        fits.is_some()
    }
}

#[cfg(all(test, not(feature = "shell")))]
mod minimal_tests;
#[cfg(all(test, cpu_usage_smp))]
mod smp_tests;
#[cfg(all(test, feature = "shell"))]
mod tests;
