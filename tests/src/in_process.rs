//! Running the demo's FreeRTOS POSIX build inside a test process, for tests that need
//! the kernel's API from Rust (`kernel_cross_check`, `soak`).
//!
//! The kernel, the POSIX port, the demo and its port glue are compiled by build.rs
//! into `libcu_cross_check.a` (with the kernel's run-time stats on, and the glue's
//! `main` renamed `posix_demo_main`); [`kernel`] holds bindgen's declarations of the
//! task API under that configuration. The demo's console is sent to /dev/null and its
//! shell reads a pipe that never ends, so the process speaks only through [`say`], and
//! ends through the demo's `port_exit` (the POSIX scheduler never returns).

use std::ffi::{c_char, c_int, CStr};
use std::fs::File;
use std::io::Write;
use std::mem::ManuallyDrop;
use std::os::fd::{AsRawFd, FromRawFd};
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::Duration;

/// The kernel's task API, as compiled into the test archive.
#[allow(non_upper_case_globals, non_camel_case_types, non_snake_case, dead_code, missing_docs, clippy::all)]
pub mod kernel {
    include!(concat!(env!("OUT_DIR"), "/kernel_api.rs"));
}

#[link(name = "cu_cross_check", kind = "static")]
extern "C" {
    /// freertos-port/posix/main.c's `main`, renamed by the build script: sets the
    /// kernel's run-time counter base, creates the demo's tasks (and with
    /// `--many-tasks` 100 more that wait), starts the scheduler.
    fn posix_demo_main(argc: c_int, argv: *const *const c_char) -> c_int;
}

extern "C" {
    fn clock_gettime(clock: c_int, ts: *mut Timespec) -> c_int;
    fn dup(fd: c_int) -> c_int;
    fn dup2(from: c_int, to: c_int) -> c_int;
    fn _exit(status: c_int) -> !;
}

#[repr(C)]
struct Timespec {
    tv_sec: i64,
    tv_nsec: i64,
}

const CLOCK_MONOTONIC: c_int = 1;

/// The original standard output: the demo's console is sent to /dev/null.
static OUT_FD: AtomicI32 = AtomicI32::new(1);

/// Prints a line on the test's standard output.
pub fn say(line: &str) {
    // SAFETY: OUT_FD is a descriptor this process owns for its whole life; the File
    // is never dropped, so it is never closed.
    let mut out = ManuallyDrop::new(unsafe { File::from_raw_fd(OUT_FD.load(Ordering::Relaxed)) });
    let _ = out.write_all(format!("{line}\n").as_bytes());
}

/// CLOCK_MONOTONIC in nanoseconds, its low 32 bits: a clock for the library at 1 GHz
/// (it wraps every 4.3 s; the tick hook reads it every millisecond).
pub extern "C" fn monotonic_ns_low32() -> u32 {
    let mut ts = Timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: a valid timespec; CLOCK_MONOTONIC always exists.
    unsafe { clock_gettime(CLOCK_MONOTONIC, &mut ts) };
    (ts.tv_sec as u64).wrapping_mul(1_000_000_000).wrapping_add(ts.tv_nsec as u64) as u32
}

/// Ends the process with the verdict line `N passed, M failed` and a matching status.
/// Callable from a task: goes through the demo's `port_exit`, which masks the tick.
pub fn finish(passed: u32, failed: u32) -> ! {
    say(&format!("{passed} passed, {failed} failed"));
    // SAFETY: ends the process; never returns.
    unsafe { kernel::port_exit(if failed == 0 { 0 } else { 1 }) };
    // SAFETY: not reached; _exit ends the process without running anything else.
    unsafe { _exit(1) }
}

/// Sends the demo's console to /dev/null, gives its shell a stdin that never ends, and
/// starts a watchdog that fails the run after `watchdog_secs`. Returns the write end
/// of that stdin: what is written there, the shell reads as typed commands.
pub fn prepare(watchdog_secs: u64) -> std::io::PipeWriter {
    let null = File::options().write(true).open("/dev/null").expect("cannot open /dev/null");
    // SAFETY: plain descriptor calls on descriptors this process owns.
    unsafe {
        let saved = dup(1);
        assert!(saved >= 0, "dup(1) failed");
        OUT_FD.store(saved, Ordering::Relaxed);
        assert!(dup2(null.as_raw_fd(), 1) >= 0, "dup2 to stdout failed");
    }
    let (reader, writer) = std::io::pipe().expect("cannot create a pipe");
    // SAFETY: as above.
    unsafe { assert!(dup2(reader.as_raw_fd(), 0) >= 0, "dup2 to stdin failed") };

    // Not a FreeRTOS thread: the port's tick signal is sent to task threads only.
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_secs(watchdog_secs));
        say(&format!("FAIL watchdog: no verdict within {watchdog_secs} s"));
        say("0 passed, 1 failed");
        // SAFETY: ends the process at once; the scheduler's threads may hold locks.
        unsafe { _exit(1) }
    });
    writer
}

/// Creates the demo's tasks and runs the scheduler, with the simulator's command-line
/// `options` (`c"--many-tasks"`); returns only if it cannot start.
pub fn run_demo(options: &[&CStr]) -> ! {
    let mut argv: Vec<*const c_char> = vec![c"freertos-sim".as_ptr()];
    argv.extend(options.iter().map(|o| o.as_ptr()));
    argv.push(std::ptr::null());
    // SAFETY: the demo's main, with argc C strings and a NULL after them, which live
    // as long as the process (main never returns unless the scheduler cannot start).
    let code = unsafe { posix_demo_main(options.len() as c_int + 1, argv.as_ptr()) };
    say(&format!("FAIL the scheduler did not start (posix_demo_main returned {code})"));
    say("0 passed, 1 failed");
    std::process::exit(1);
}
