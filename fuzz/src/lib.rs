//! What the fuzz targets share: a clock the input drives ([`clock`]), an output that
//! captures ([`output`]), a reset of the library's global state ([`reset`]), C
//! strings placed at the very end of their allocations ([`cstr`]), the command's
//! options written out from its help ([`options`]), and the checks every report must
//! pass ([`reports`], [`table`]): the report's contract is the
//! `freertos_cpu_usage_report` crate's, shared with the viewer and the system tests.
//!
//! The library has one process-wide state and libFuzzer runs inputs one after the
//! other on one thread, so each input starts with [`reset`], which brings that state
//! back to the same point whatever the inputs before it did: otherwise a failure
//! found after a thousand inputs would not reproduce from its own.
//!
//! Strings handed to the library are copied into heap blocks of exactly their
//! length (AddressSanitizer is on), so a read one byte past what the API allows is
//! reported where it happens.

pub mod clock;
pub mod cstr;
pub mod options;
pub mod output;
pub mod reports;
pub mod reset;
pub mod table;

use freertos_cpu_usage::ffi::*;

pub use clock::{advance, fake_clock, now, restarted, set_now, since_restart, unread, window_counts, Windows};
pub use cstr::TaskName;
pub use freertos_cpu_usage::settings::{MAX_TASKS, NAME_LEN};
pub use freertos_cpu_usage_report::{name_bytes, SinceStart, Window};
pub use options::{json_quote, refusal_message, spec_options, Arg, Argc, Argv, Expect, OptionArg, Refusal};
pub use output::{capture, take_captured};
pub use reports::{
    check_format_call, check_json, check_json_of, check_text, format, json_with, last_window, since_start, BufLen,
};
pub use reset::{reset, tcb};

/// The status codes, as C sees them.
pub const OK: i32 = cpu_usage_status::CPU_USAGE_OK as i32;
pub const ERR_NULL: i32 = cpu_usage_status::CPU_USAGE_ERR_NULL as i32;
pub const ERR_OPTION: i32 = cpu_usage_status::CPU_USAGE_ERR_OPTION as i32;
pub const ERR_WINDOW: i32 = cpu_usage_status::CPU_USAGE_ERR_WINDOW as i32;
pub const ERR_CLOCK: i32 = cpu_usage_status::CPU_USAGE_ERR_CLOCK as i32;
pub const ERR_NO_WINDOW: i32 = cpu_usage_status::CPU_USAGE_ERR_NO_WINDOW as i32;
pub const ERR_NO_OUTPUT: i32 = cpu_usage_status::CPU_USAGE_ERR_NO_OUTPUT as i32;
pub const ERR_TASK_ID: i32 = cpu_usage_status::CPU_USAGE_ERR_TASK_ID as i32;
pub const ERR_RANGE: i32 = cpu_usage_status::CPU_USAGE_ERR_RANGE as i32;
pub const ERR_FOLLOW: i32 = cpu_usage_status::CPU_USAGE_ERR_FOLLOW as i32;
pub const ERR_CHANGED: i32 = cpu_usage_status::CPU_USAGE_ERR_CHANGED as i32;
/// Every documented code.
pub const CODES: [i32; 11] = [
    OK,
    ERR_NULL,
    ERR_OPTION,
    ERR_WINDOW,
    ERR_CLOCK,
    ERR_NO_WINDOW,
    ERR_NO_OUTPUT,
    ERR_TASK_ID,
    ERR_RANGE,
    ERR_FOLLOW,
    ERR_CHANGED,
];

/// Panics unless `status` is a documented code with its own description.
pub fn assert_documented(status: i32, what: &str) {
    assert!(CODES.contains(&status), "{what} returned {status}, not a documented status code");
    // SAFETY: the library returns a static C string for any code.
    let text = unsafe { std::ffi::CStr::from_ptr(cpu_usage_status_str(status)) };
    assert_ne!(text.to_bytes(), b"unknown status code", "{what}: no description for {status}");
}

/// Longest argument the library reads (documented: "shell arguments up to 64 bytes").
pub const MAX_ARG_LEN: usize = 64;
/// Most arguments after the command name.
pub const MAX_ARGS: usize = 8;
/// Longest window accepted, in milliseconds.
pub const MAX_WINDOW_MS: u32 = 3_600_000;
/// Longest window accepted, in clock counts.
pub const MAX_WINDOW_COUNTS: u64 = 1 << 31;
/// Clock frequency after [`reset`].
pub const BASE_HZ: u32 = 1_000_000;

/// The library's critical section (built with `external-critical-section` here: its
/// own calls the FreeRTOS port, and there is no kernel). Hooks and readers all run on
/// libFuzzer's one thread, so there is nothing to exclude.
struct OneThread;
critical_section::set_impl!(OneThread);

// SAFETY: one thread; nothing runs between acquire and release but the section.
unsafe impl critical_section::Impl for OneThread {
    unsafe fn acquire() -> critical_section::RawRestoreState {
        0
    }

    unsafe fn release(_: critical_section::RawRestoreState) {}
}
