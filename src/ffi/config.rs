//! What the application chooses: the clock, the window, where the shell's output
//! goes, and the ABI version to check the header against.

#[cfg(feature = "shell")]
use core::ffi::{c_char, c_int};

use super::status::cpu_usage_status as St;
use super::with_library;
use crate::arch::{Clock, ClockName};
use crate::engine::arith;

/// Where the shell commands' output goes: `n` bytes at `s`.
#[cfg(feature = "shell")]
pub(super) type OutputFn = unsafe extern "C" fn(s: *const c_char, n: usize);
/// Waits up to `ms` milliseconds for console input; nonzero when some arrived.
#[cfg(feature = "shell")]
pub(super) type FollowWaitFn = unsafe extern "C" fn(ms: u32) -> c_int;

/// Counts time with `read`, a free-running 32-bit counter at `hz` counts per second
/// that the hooks read with interrupts masked. On several cores it must be one clock
/// for all of them (a global timer, not a core's cycle counter). Restarts all figures
/// (tasks keep their IDs). Returns 0, `CPU_USAGE_ERR_NULL`, `CPU_USAGE_ERR_CLOCK` (hz is 0) or
/// `CPU_USAGE_ERR_WINDOW` (the window would be longer than 2^31 counts of it).
#[no_mangle]
pub extern "C" fn cpu_usage_set_clock(read: Option<unsafe extern "C" fn() -> u32>, hz: u32) -> i32 {
    let Some(read) = read else { return St::CPU_USAGE_ERR_NULL.code() };
    if hz == 0 {
        return St::CPU_USAGE_ERR_CLOCK.code();
    }
    with_library(|mut st| {
        let Some(counts) = arith::window_counts(st.config.window_ms, hz) else {
            return St::CPU_USAGE_ERR_WINDOW.code();
        };
        st.install_clock(Clock { read, hz, name: ClockName::Custom });
        st.set_window(counts, st.config.window_ms);
        let now = st.now();
        st.engine.restart(now);
        St::CPU_USAGE_OK.code()
    })
}

/// The frequency of the clock the library counts with, in counts per second: the
/// target's default clock, or the one `cpu_usage_set_clock()` set; 0 while none is
/// known (bare metal before the scheduler starts). An application that wraps the
/// clock in `cpu_usage_clock_read` gives it back with this rate.
#[no_mangle]
pub extern "C" fn cpu_usage_clock_hz() -> u32 {
    with_library(|st| st.config.clock.hz)
}

/// RISC-V: the low 32 bits of the core's cycle counter `mcycle`, a clock for
/// `cpu_usage_set_clock()` at the core clock's frequency. The default clock there is
/// the machine timer's `mtime` at `configCPU_CLOCK_HZ` (its rate on FreeRTOS's RISC-V
/// port), which keeps counting while the core sleeps; `mcycle` counts finer but, on
/// many cores, stops in `wfi`, so choose it for a firmware that does not sleep.
#[cfg(all(target_os = "none", target_arch = "riscv32"))]
#[no_mangle]
pub extern "C" fn cpu_usage_clock_mcycle() -> u32 {
    crate::arch::mcycle_low()
}

/// Sets the window length (default 1000 ms), from 1 ms to an hour and at most 2^31
/// counts of the clock. It applies to the window under way. Returns 0 or
/// `CPU_USAGE_ERR_WINDOW` (nothing changes then).
#[no_mangle]
pub extern "C" fn cpu_usage_set_window_ms(ms: u32) -> i32 {
    with_library(|mut st| {
        if st.config.clock.hz == 0 {
            // No clock yet (bare metal before the scheduler starts): checked then.
            if ms == 0 || ms > arith::MAX_WINDOW_MS {
                return St::CPU_USAGE_ERR_WINDOW.code();
            }
        } else {
            let Some(counts) = arith::window_counts(ms, st.config.clock.hz) else {
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
    with_library(|st| st.config.window_ms)
}

/// Lets `show_cpu_usage -f` (follow mode) run: `wait` waits up to `ms` milliseconds
/// for input on the console the command runs from, leaving it unread for the shell,
/// and returns nonzero when some arrived (or the console closed). Follow mode calls
/// it from the shell's task between reports, so it may block that task; it stops at
/// the first nonzero. NULL turns follow mode off again. Returns 0. (The `shell`
/// feature.)
#[cfg(feature = "shell")]
#[no_mangle]
pub extern "C" fn cpu_usage_set_follow_wait(wait: Option<unsafe extern "C" fn(ms: u32) -> c_int>) -> i32 {
    with_library(|st| st.config.follow_wait = wait);
    St::CPU_USAGE_OK.code()
}

/// Sends `show_cpu_usage`'s output to `write`, which gets `n` bytes at `s` (not
/// NUL-terminated), a line or less at a time, from the calling task. Returns 0 or
/// `CPU_USAGE_ERR_NULL`. (The `shell` feature.)
#[cfg(feature = "shell")]
#[no_mangle]
pub extern "C" fn cpu_usage_set_output(write: Option<unsafe extern "C" fn(s: *const c_char, n: usize)>) -> i32 {
    match write {
        Some(write) => with_library(|st| {
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
    crate::settings::ABI_VERSION
}
