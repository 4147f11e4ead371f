//! Hosted build: the FreeRTOS POSIX port on Linux (or another Unix).

use super::{Clock, ClockName};

#[repr(C)]
struct Timespec {
    tv_sec: core::ffi::c_long,
    tv_nsec: core::ffi::c_long,
}

#[cfg(target_os = "linux")]
const CLOCK_MONOTONIC: i32 = 1;
#[cfg(not(target_os = "linux"))]
const CLOCK_MONOTONIC: i32 = 6; // macOS and the BSDs that use it

#[cfg_attr(any(test, not(feature = "panic-handler")), allow(dead_code))]
extern "C" {
    fn clock_gettime(clock: i32, ts: *mut Timespec) -> i32;
    #[cfg(feature = "shell")]
    fn write(fd: i32, buf: *const u8, count: usize) -> isize;
    fn abort() -> !;
}

/// `CLOCK_MONOTONIC` in units of 64 ns (15.625 MHz): a shift, not a division, and
/// a 32-bit count that wraps every 275 s, far longer than a tick.
///
/// Every switch reads it, so it is no more than the call and the arithmetic: the
/// timespec is not zeroed first (clock_gettime writes both fields), nor is the
/// result checked (it cannot fail, see below). The kernel's own run-time stats in
/// the POSIX benchmark read the same instructions (bench/posix/main.c).
unsafe extern "C" fn monotonic_64ns() -> u32 {
    let mut ts = core::mem::MaybeUninit::<Timespec>::uninit();
    // SAFETY: `ts` is valid to write a timespec to. clock_gettime fails only for a
    // clock the system lacks (EINVAL) or a bad pointer (EFAULT); every system this
    // build runs on has CLOCK_MONOTONIC (it is what the FreeRTOS POSIX port's own
    // timing uses), and the pointer is good, so it returns 0 having written both
    // fields: `ts` is initialised.
    let ts = unsafe {
        clock_gettime(CLOCK_MONOTONIC, ts.as_mut_ptr());
        ts.assume_init()
    };
    let ns = (ts.tv_sec as u64).wrapping_mul(1_000_000_000).wrapping_add(ts.tv_nsec as u64);
    (ns >> 6) as u32
}

/// The clock used until the application sets another.
pub const DEFAULT_CLOCK: Clock = Clock { read: monotonic_64ns, hz: 15_625_000, name: ClockName::Monotonic };

/// Where reports go until the application sets an output: standard output.
#[cfg(feature = "shell")]
pub fn default_output(bytes: &[u8]) -> bool {
    let mut rest = bytes;
    while !rest.is_empty() {
        // SAFETY: the pointer and length describe `rest`, which is valid to read.
        let n = unsafe { write(1, rest.as_ptr(), rest.len()) };
        if n <= 0 {
            // EINTR (the tick signal) is retried; anything else drops the line.
            if n < 0 && errno_is_eintr() {
                continue;
            }
            return false;
        }
        rest = rest.get(n as usize..).unwrap_or(&[]);
    }
    true
}

#[cfg(all(feature = "shell", target_os = "linux"))]
fn errno_is_eintr() -> bool {
    extern "C" {
        fn __errno_location() -> *mut i32;
    }
    // SAFETY: glibc and musl return the calling thread's errno.
    unsafe { *__errno_location() == 4 }
}

#[cfg(all(feature = "shell", not(target_os = "linux")))]
fn errno_is_eintr() -> bool {
    false
}

/// Called on every tick before the clock is read; the hosted clock needs nothing.
#[inline(always)]
pub fn on_tick() {}

/// Nothing to count on a hosted build: the clock is the host's.
#[inline(always)]
pub fn on_isr_enter() {}

/// Chooses the default clock once the scheduler starts; on a hosted build it is
/// always `CLOCK_MONOTONIC`.
pub fn clock_at_scheduler_start(_cpu_hz: u32, _port_setting: u32) -> Clock {
    DEFAULT_CLOCK
}

/// Stops everything: only reachable through a bug (and unused where std panics).
#[cfg_attr(any(test, not(feature = "panic-handler")), allow(dead_code))]
pub fn halt() -> ! {
    // SAFETY: abort() takes no arguments and does not return.
    unsafe { abort() }
}

/// Nothing to keep: the POSIX port has no interrupt priorities, and its critical
/// section masks the same signals from a task whatever the kernel's configuration.
#[inline(always)]
pub fn set_interrupt_mask_level(_max_syscall_priority: u32) {}

/// The POSIX port's critical section blocks the tick signal (and the port's other
/// signals) for the calling task's thread and nests through the port's own
/// counter, so no restore state is needed (the token is always 0).
#[cfg(all(feature = "critical-section-impl", not(test)))]
mod cs {
    use super::super::Token;
    extern "C" {
        fn vPortEnterCritical();
        fn vPortExitCritical();
    }

    struct FreeRtosPosixCs;
    critical_section::set_impl!(FreeRtosPosixCs);

    unsafe impl critical_section::Impl for FreeRtosPosixCs {
        unsafe fn acquire() -> Token {
            // SAFETY: the port's function, callable from any task and before start.
            unsafe { vPortEnterCritical() };
            0
        }

        unsafe fn release(_: Token) {
            // SAFETY: paired with the acquire above by the critical-section contract.
            unsafe { vPortExitCritical() };
        }
    }
}
