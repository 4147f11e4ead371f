//! Where a debugger finds the published window in an engine's memory, without any
//! code on the target: the offsets the C API's read-out block (`ffi::readout`)
//! publishes, so that a host reads the lines itself instead of the target copying
//! them (a copy of every line at rollover would be a loop over the tasks).
//!
//! What the host does with them is `Engine::read_line` for a window, in its own
//! code (`report-schema`'s `readout`, `docs/readout.md`):
//! - a slot's published `(counts, runs, longest)` are `prev_*` when its `window`
//!   is the engine's, `counts..longest` when it is one less, else zero
//!   (`Acct::published`);
//! - a task's line is shown by its `state`, `mark` and `short_lived`, as
//!   `read_line` says.
//!
//! # Reading while the hooks run
//! The published figures change in two ways only. A rollover or a restart changes
//! which window is published: both step `seq` before and after (odd in between), so
//! a reader that sees it odd, or changed from the start of its read to the end,
//! reads again. And a slot's first charge in a window moves its published figures
//! from `counts..longest` to `prev_*` (`Acct::fold`): it writes `prev_*`, then
//! `window`, then clears the others, so a reader that stops the core anywhere sees
//! the figures in one place or the other, and one that reads a record in address
//! order while the core runs does too (`counts..longest` come before `window`,
//! `prev_*` after it). Nothing else the hooks write changes a published figure.

use core::mem::{offset_of, size_of};

use super::{Acct, Engine, Meta};

/// Byte offsets and sizes in an engine, for a reader outside the program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// The sequence counter (`u32`).
    pub seq: u32,
    /// The window under way (`u32`); the published one is one less.
    pub window: u32,
    /// The published window's length in clock counts (`u32`; 0: none yet).
    pub pub_len: u32,
    /// The idle task's ID (`u16`; 0 before the scheduler starts).
    pub idle: u32,
    /// Tasks sharing the overflow bucket now (`u16`).
    pub overflow_now: u32,
    /// Tasks that shared it in the published window (`u16`; in the minimal build,
    /// which keeps no such count, those now: what its reports say).
    pub overflow_published: u32,
    /// The slots' records, one per report line (`Engine::LINES`).
    pub acct: u32,
    /// Bytes of a slot's record.
    pub acct_size: u16,
    /// In a slot's record (each `u32`): counts, runs, longest run of its last
    /// window, that window's number, then counts, runs, longest run of the window
    /// before it.
    pub acct_fields: [u16; 7],
    /// The task IDs' records, ID 1's first.
    pub meta: u32,
    /// Bytes of a task's record.
    pub meta_size: u16,
    /// In a task's record: its name (`NAME_LEN` bytes, NUL-padded), its mark (`u32`:
    /// window of birth while it lives, of death once dead), its state (`u8`: 0 free,
    /// 1 alive, 2 deleting itself, 3 dead), and whether it died in the window it was
    /// born in (`u8`, 0 or 1).
    pub meta_fields: [u16; 4],
    /// The three smoothed loads (`[Smoothed; 3]`: each busy counts, then window
    /// counts, `u64`s in 16-bit fixed point); `u32::MAX` in a build without them
    /// (no `watchdogs` feature).
    pub load_avg: u32,
}

impl<const IDS: usize, const SLOTS: usize, const WORDS: usize, const CORES: usize> Engine<IDS, SLOTS, WORDS, CORES> {
    /// This engine's [`Layout`].
    pub const LAYOUT: Layout = Layout {
        seq: offset_of!(Self, seq) as u32,
        window: offset_of!(Self, window) as u32,
        pub_len: offset_of!(Self, pub_len) as u32,
        idle: offset_of!(Self, idle) as u32,
        overflow_now: offset_of!(Self, overflow_tasks) as u32,
        #[cfg(feature = "shell")]
        overflow_published: (offset_of!(Self, overflow_in_window) + size_of::<u16>()) as u32,
        #[cfg(not(feature = "shell"))]
        overflow_published: offset_of!(Self, overflow_tasks) as u32,
        acct: offset_of!(Self, acct) as u32,
        acct_size: size_of::<Acct>() as u16,
        acct_fields: [
            offset_of!(Acct, counts) as u16,
            offset_of!(Acct, runs) as u16,
            offset_of!(Acct, longest) as u16,
            offset_of!(Acct, window) as u16,
            offset_of!(Acct, prev_counts) as u16,
            offset_of!(Acct, prev_runs) as u16,
            offset_of!(Acct, prev_longest) as u16,
        ],
        meta: offset_of!(Self, meta) as u32,
        meta_size: size_of::<Meta>() as u16,
        meta_fields: [
            offset_of!(Meta, name) as u16,
            offset_of!(Meta, mark) as u16,
            offset_of!(Meta, state) as u16,
            offset_of!(Meta, short_lived) as u16,
        ],
        #[cfg(feature = "watchdogs")]
        load_avg: offset_of!(Self, load_avg) as u32,
        #[cfg(not(feature = "watchdogs"))]
        load_avg: u32::MAX,
    };

    /// The read-out's sequence counter now (see the module's docs).
    pub fn seq(&self) -> u32 {
        self.seq
    }
}

#[cfg(test)]
mod tests {
    use super::super::{engine_for, TaskState};
    use super::*;

    type E = engine_for!(4);

    /// The bytes of an engine, as a debugger would read them.
    fn bytes(e: &E) -> &[u8] {
        // SAFETY: a plain struct read as bytes, for its lifetime.
        unsafe { core::slice::from_raw_parts((e as *const E).cast::<u8>(), size_of::<E>()) }
    }

    fn u32_at(b: &[u8], at: usize) -> u32 {
        u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
    }

    /// The states' numbers are the layout's.
    #[test]
    fn the_task_states_are_numbered_as_documented() {
        assert_eq!(
            [TaskState::Free, TaskState::Alive, TaskState::Dying, TaskState::Dead].map(|s| s as u8),
            [0, 1, 2, 3]
        );
    }

    /// Each task's published counts, read from the bytes by the layout's rule, are
    /// the report's, and the sequence counter is even between rollovers and stepped
    /// twice by each.
    #[test]
    fn the_bytes_read_by_the_layout_are_the_published_window() {
        let mut e = E::new(1000);
        e.restart(0);
        let a = e.task_create(0, 0, b"a");
        e.switch_in(0, 0, a);
        e.switch_in(0, 300, 0);
        let seq = e.seq();
        e.tick(0, 1000);
        assert_eq!(e.seq(), seq + 2);
        assert!(e.seq().is_multiple_of(2));
        let l = E::LAYOUT;
        let b = bytes(&e);
        let window = u32_at(b, l.window as usize);
        assert_eq!(u32_at(b, l.pub_len as usize), 1000);
        for at in 0..E::LINES {
            let rec = l.acct as usize + at * usize::from(l.acct_size);
            let f = |i: usize| u32_at(b, rec + usize::from(l.acct_fields[i]));
            let counts = if f(3) == window {
                f(4)
            } else if f(3) == window.wrapping_sub(1) {
                f(0)
            } else {
                0
            };
            assert_eq!(u64::from(counts), e.line(at, false).row.counts, "line {at}");
        }
        let m = l.meta as usize + (a as usize - 1) * usize::from(l.meta_size);
        assert_eq!(&b[m + usize::from(l.meta_fields[0])..][..1], b"a");
        assert_eq!(b[m + usize::from(l.meta_fields[2])], 1);
        #[cfg(feature = "watchdogs")]
        for (i, avg) in e.load_avg().iter().enumerate() {
            let at = l.load_avg as usize + 16 * i;
            let u64_at = |at: usize| u64::from(u32_at(b, at)) | u64::from(u32_at(b, at + 4)) << 32;
            assert_eq!((u64_at(at), u64_at(at + 8)), (avg.busy, avg.len), "smoothed load {i}");
            assert_ne!(avg.len, 0);
        }
        #[cfg(not(feature = "watchdogs"))]
        assert_eq!(l.load_avg, u32::MAX);
    }
}
