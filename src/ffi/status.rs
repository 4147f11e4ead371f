//! The status codes every function returns, and their texts.

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
    /// The figures changed before a report of them was out: it took longer than the
    /// one more window a reader may hold its window open for (try a longer window,
    /// fewer lines or a faster console), or accounting restarted, or (since start) a
    /// new task took a deleted task's ID. The report is cut there, never repeated.
    CPU_USAGE_ERR_CHANGED = -7010,
}

use cpu_usage_status as St;

impl St {
    /// Every code, for [`St::from_code`].
    #[cfg(feature = "shell")]
    const ALL: [St; 11] = [
        St::CPU_USAGE_OK,
        St::CPU_USAGE_ERR_NULL,
        St::CPU_USAGE_ERR_OPTION,
        St::CPU_USAGE_ERR_WINDOW,
        St::CPU_USAGE_ERR_CLOCK,
        St::CPU_USAGE_ERR_NO_WINDOW,
        St::CPU_USAGE_ERR_NO_OUTPUT,
        St::CPU_USAGE_ERR_TASK_ID,
        St::CPU_USAGE_ERR_RANGE,
        St::CPU_USAGE_ERR_FOLLOW,
        St::CPU_USAGE_ERR_CHANGED,
    ];

    /// The code as C gets it.
    pub(crate) fn code(self) -> i32 {
        self as i32
    }

    /// The status with this code, if any.
    #[cfg(feature = "shell")]
    pub(crate) fn from_code(code: i32) -> Option<St> {
        St::ALL.iter().copied().find(|s| s.code() == code)
    }

    /// Its text, NUL-terminated.
    #[cfg(feature = "shell")]
    pub(crate) fn text(self) -> &'static [u8] {
        match self {
            St::CPU_USAGE_OK => b"ok\0",
            St::CPU_USAGE_ERR_NULL => b"a required pointer was NULL\0",
            St::CPU_USAGE_ERR_OPTION => b"unknown option\0",
            St::CPU_USAGE_ERR_WINDOW => b"window length out of range (1 ms to 1 hour, at most 2^31 clock counts)\0",
            St::CPU_USAGE_ERR_CLOCK => b"clock frequency is 0\0",
            St::CPU_USAGE_ERR_NO_WINDOW => b"no completed window yet\0",
            St::CPU_USAGE_ERR_NO_OUTPUT => b"no output set (call cpu_usage_set_output)\0",
            St::CPU_USAGE_ERR_TASK_ID => b"not the ID of a live task\0",
            St::CPU_USAGE_ERR_RANGE => b"threshold out of range\0",
            St::CPU_USAGE_ERR_FOLLOW => b"follow mode (-f) needs show_cpu_usage and cpu_usage_set_follow_wait()\0",
            St::CPU_USAGE_ERR_CHANGED => {
                b"the figures changed before the report was out (cut): use a longer window (-w), fewer lines (-n) or a faster console\0"
            }
        }
    }

    /// Its text without the NUL.
    #[cfg(feature = "shell")]
    pub(crate) fn message(self) -> &'static [u8] {
        let text = self.text();
        text.get(..text.len().saturating_sub(1)).unwrap_or(text)
    }
}

/// A short English description of a status code, never NULL. (The `shell`
/// feature: a minimal build has the codes, in this header, not their texts.)
#[cfg(feature = "shell")]
#[no_mangle]
pub extern "C" fn cpu_usage_status_str(status: i32) -> *const core::ffi::c_char {
    let text = St::from_code(status).map_or(b"unknown status code\0".as_slice(), St::text);
    text.as_ptr().cast()
}
