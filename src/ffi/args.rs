//! The shell commands' arguments: C strings from `argv`, or words of a command line,
//! each checked before any is read, and read in place (never copied).

use core::ffi::{c_char, c_int};

use super::status::cpu_usage_status as St;

/// Most arguments a command takes after its name.
const MAX_ARGS: usize = 8;
/// Longest argument read.
const MAX_ARG_LEN: usize = 64;
/// Longest command line read (FreeRTOS+CLI).
pub(super) const MAX_CMDLINE: usize = 256;

/// `argv[1..argc]`, every argument found readable, NUL-terminated within
/// `MAX_ARG_LEN` bytes, and at most `MAX_ARGS` of them.
#[derive(Clone, Copy)]
pub(super) struct Argv {
    argv: *const *const c_char,
    argc: usize,
}

impl Argv {
    /// Checks `argv[1..argc]` before any is parsed, so that a NULL `argv` (with
    /// `argc` above 1) or NULL argument is `CPU_USAGE_ERR_NULL`, and more than
    /// `MAX_ARGS` arguments, or one of `MAX_ARG_LEN` bytes with no NUL,
    /// `CPU_USAGE_ERR_OPTION`, whatever the arguments before it.
    ///
    /// # Safety
    /// `argv[0..argc]` must be readable when `argv` is not NULL, each a C string or
    /// NULL, and they must outlive the `Argv`.
    pub(super) unsafe fn check(argc: c_int, argv: *mut *mut c_char) -> Result<Argv, St> {
        let argc = usize::try_from(argc).unwrap_or(0);
        let argv = argv.cast_const().cast::<*const c_char>();
        if argc > 1 && argv.is_null() {
            return Err(St::CPU_USAGE_ERR_NULL);
        }
        for i in 1..argc {
            // SAFETY: i < argc, readable by the caller's contract.
            unsafe { arg(argv, i) }?;
            if i > MAX_ARGS {
                return Err(St::CPU_USAGE_ERR_OPTION);
            }
        }
        Ok(Argv { argv, argc })
    }

    /// The arguments after the command's name.
    #[cfg(feature = "trace")]
    pub(super) fn len(&self) -> usize {
        self.argc.saturating_sub(1)
    }

    /// The arguments after the command's name, in order.
    pub(super) fn words(&self) -> impl Iterator<Item = &[u8]> + Clone + '_ {
        // SAFETY: every argument was found good by `check`, and outlives `self`.
        (1..self.argc).map(|i| unsafe { arg(self.argv, i) }.unwrap_or(&[]))
    }
}

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

/// A C string of at most `max` bytes before its NUL, read in place: `None` if
/// `text` is NULL, and the first `max` bytes if it is longer (the caller tells by
/// the length).
///
/// # Safety
/// `text`, if not NULL, must be readable up to its NUL or `max` bytes, and outlive
/// the slice.
pub(super) unsafe fn c_str<'a>(text: *const c_char, max: usize) -> Option<&'a [u8]> {
    if text.is_null() {
        return None;
    }
    let mut len = 0;
    // SAFETY: reads byte by byte, stopping at the NUL or the bound.
    while len < max && unsafe { *text.add(len) } != 0 {
        len += 1;
    }
    // SAFETY: `len` bytes were just read.
    Some(unsafe { core::slice::from_raw_parts(text.cast::<u8>(), len) })
}

/// The words of a command line after its first (the command's name), split at
/// spaces: `CPU_USAGE_ERR_OPTION` if there are more than `MAX_ARGS` or one is
/// `MAX_ARG_LEN` bytes or longer, as for `argv`.
pub(super) fn cmdline_words(line: &[u8]) -> Result<impl Iterator<Item = &[u8]> + Clone + '_, St> {
    let words = line.split(|&b| b == b' ').filter(|w| !w.is_empty()).skip(1);
    if words.clone().count() > MAX_ARGS || words.clone().any(|w| w.len() >= MAX_ARG_LEN) {
        return Err(St::CPU_USAGE_ERR_OPTION);
    }
    Ok(words)
}
