//! C strings and arrays in heap blocks of exactly their length, so that a read one
//! byte past what the API allows is caught by AddressSanitizer where it happens.

use std::ffi::c_char;
use std::ptr;

use arbitrary::Arbitrary;

use crate::NAME_LEN;

/// Bytes in a heap block of exactly their length.
pub(crate) fn exact(bytes: Vec<u8>) -> Box<[u8]> {
    let mut v = Vec::with_capacity(bytes.len());
    v.extend_from_slice(&bytes);
    v.into_boxed_slice()
}

/// A task name as the kernel may pass it.
#[derive(Arbitrary, Debug, Clone)]
pub enum TaskName {
    /// No name.
    Null,
    /// A C string (the NUL is added, as the allocation's last byte).
    Str(Vec<u8>),
    /// Exactly `CPU_USAGE_NAME_LEN` bytes and no NUL: the library may read them all
    /// and not one more.
    Full([u8; NAME_LEN]),
}

impl TaskName {
    /// Calls `f` with the name's pointer.
    pub fn with_ptr<R>(&self, f: impl FnOnce(*const c_char) -> R) -> R {
        let block = match self {
            TaskName::Null => return f(ptr::null()),
            TaskName::Str(s) => exact([s.as_slice(), &[0]].concat()),
            TaskName::Full(s) => exact(s.to_vec()),
        };
        f(block.as_ptr().cast())
    }

    /// What the library keeps: up to the first NUL, at most `NAME_LEN` bytes.
    pub fn stored(&self) -> Vec<u8> {
        let s: &[u8] = match self {
            TaskName::Null => &[],
            TaskName::Str(s) => s,
            TaskName::Full(s) => s,
        };
        s.iter().take(NAME_LEN).take_while(|&&b| b != 0).copied().collect()
    }
}

/// Pointers in a heap block of exactly their number.
pub(crate) fn exact_ptrs(ptrs: Vec<*mut c_char>) -> Box<[*mut c_char]> {
    let mut v = Vec::with_capacity(ptrs.len());
    v.extend_from_slice(&ptrs);
    v.into_boxed_slice()
}
