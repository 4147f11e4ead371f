//! The output given to the library: what it prints, captured.

use std::ffi::c_char;
use std::sync::Mutex;

static CAPTURED: Mutex<Vec<u8>> = Mutex::new(Vec::new());

/// The output given to the library. Documented: `n` bytes, "a line or less at a
/// time"; the library's line buffer is 128 bytes.
///
/// # Safety
/// `s` must point to `n` readable bytes.
pub unsafe extern "C" fn capture(s: *const c_char, n: usize) {
    assert!(!s.is_null(), "output called with NULL");
    assert!((1..=128).contains(&n), "output called with {n} bytes");
    // SAFETY: the library passes `n` readable bytes.
    let bytes = unsafe { std::slice::from_raw_parts(s.cast::<u8>(), n) };
    let newline = bytes.iter().position(|&b| b == b'\n');
    assert!(newline.is_none_or(|i| i == n - 1), "more than a line in one call: {bytes:?}");
    CAPTURED.lock().unwrap_or_else(|e| e.into_inner()).extend_from_slice(bytes);
}

/// Takes what the output received since the last call.
pub fn take_captured() -> Vec<u8> {
    std::mem::take(&mut *CAPTURED.lock().unwrap_or_else(|e| e.into_inner()))
}
