//! The read-out block, `cpu_usage_readout`: what a debugger needs to read the last
//! completed window straight out of the target's memory, with no code running for it
//! (`cpu-usage-top --gdb`), in every build, the minimal one included.
//!
//! It is constant (flash): a magic number, its version, the build's sizes, and where
//! the engine keeps the published window, with the offsets of every field a reader
//! needs (the engine's [`crate::engine::Layout`], whose docs say how a
//! reader takes the figures and why what it reads is one window). Nothing in it
//! depends on a Rust symbol name or on how Rust lays out a type: a reader needs the
//! symbol `cpu_usage_readout` and this struct, which is `#[repr(C)]` of fixed-size
//! integers and, last, two addresses of the target's pointer size. Its layout, field
//! by field: `docs/readout.md`, and `report-schema`'s `readout` module.

use core::ffi::c_void;
use core::mem::size_of;

use super::{CONFIG, ENGINE};
use crate::engine::{Layout, NAME_LEN};
use crate::settings::ApiEngine;

/// `cpu_usage_readout.magic`: the bytes `CPUR` in a little-endian target's memory.
pub const CPU_USAGE_READOUT_MAGIC: u32 = u32::from_le_bytes(*b"CPUR");

/// `cpu_usage_readout.version`: changes whenever a field moves or changes meaning.
pub const CPU_USAGE_READOUT_VERSION: u16 = 1;

/// The read-out block's type: see the module's docs and `docs/readout.md`. All the
/// offsets are in bytes: `engine_*` from `engine`, `acct_*` in a slot's record,
/// `meta_*` in a task's record.
#[repr(C)]
#[allow(non_camel_case_types)]
#[derive(Debug)]
pub struct cpu_usage_readout_block {
    /// `0x52555043`, the bytes `CPUR` in a little-endian memory ([`CPU_USAGE_READOUT_MAGIC`]).
    pub magic: u32,
    /// 1 ([`CPU_USAGE_READOUT_VERSION`]): changes whenever a field moves or changes meaning.
    pub version: u16,
    /// Bytes of this block.
    pub size: u16,
    /// Task IDs (`CPU_USAGE_MAX_TASKS`).
    pub ids: u16,
    /// Bytes of a task name (`CPU_USAGE_NAME_LEN`).
    pub name_len: u16,
    /// Cores counted (`CPU_USAGE_CORES`).
    pub cores: u16,
    /// Lines of a report, one per slot record (the IDs, 0 first, then each core's
    /// interrupts, each core's sleep, "other", and with several cores each core's idle).
    pub lines: u16,
    /// Bytes of each of the two addresses at the end.
    pub addr_size: u16,
    /// Padding, 0.
    pub reserved: u16,
    /// The sequence counter (`u32`): odd while the published window changes.
    pub engine_seq: u32,
    /// The window under way (`u32`); the published one is one less.
    pub engine_window: u32,
    /// The published window's length in clock counts (`u32`; 0: none yet).
    pub engine_pub_len: u32,
    /// The idle task's ID (`u16`; with several cores, the one ID the idle tasks
    /// share, which has no task record).
    pub engine_idle: u32,
    /// Tasks sharing the overflow bucket now (`u16`).
    pub engine_overflow_now: u32,
    /// Tasks that shared it in the published window (`u16`).
    pub engine_overflow_published: u32,
    /// The first of `lines` slot records.
    pub engine_acct: u32,
    /// The first of `ids` task records (ID 1's).
    pub engine_meta: u32,
    /// Bytes of a slot record.
    pub acct_size: u16,
    /// `counts`, `runs`, `longest`, `window`, `prev_counts`, `prev_runs`,
    /// `prev_longest` (each `u32`).
    pub acct_fields: [u16; 7],
    /// Bytes of a task record.
    pub meta_size: u16,
    /// `name` (`name_len` bytes), `mark` (`u32`), `state` (`u8`), `short_lived` (`u8`).
    pub meta_fields: [u16; 4],
    /// Padding, 0.
    pub reserved2: u16,
    /// The three smoothed loads, over about 1, 10 and 60 s: each two `u64`, busy
    /// counts then window counts (16-bit fixed point; the load is their ratio, none
    /// while the second is 0); `0xFFFFFFFF` in a build without them.
    pub engine_load_avg: u32,
    /// 0.
    pub reserved3: u32,
    /// The engine.
    pub engine: *const c_void,
    /// The clock's rate in counts per second (`u32`).
    pub clock_hz: *const u32,
}

// SAFETY: constant; its addresses are only published, never dereferenced here.
unsafe impl Sync for cpu_usage_readout_block {}

const LAYOUT: Layout = ApiEngine::LAYOUT;

/// The read-out block (see the module's docs). Kept in the image by
/// `cpu_usage_hook_scheduler_start`, which reads its magic number.
#[no_mangle]
pub static cpu_usage_readout: cpu_usage_readout_block = cpu_usage_readout_block {
    magic: CPU_USAGE_READOUT_MAGIC,
    version: CPU_USAGE_READOUT_VERSION,
    size: size_of::<cpu_usage_readout_block>() as u16,
    ids: ApiEngine::IDS as u16,
    name_len: NAME_LEN as u16,
    cores: ApiEngine::CORES as u16,
    lines: ApiEngine::LINES as u16,
    addr_size: size_of::<*const c_void>() as u16,
    reserved: 0,
    engine_seq: LAYOUT.seq,
    engine_window: LAYOUT.window,
    engine_pub_len: LAYOUT.pub_len,
    engine_idle: LAYOUT.idle,
    engine_overflow_now: LAYOUT.overflow_now,
    engine_overflow_published: LAYOUT.overflow_published,
    engine_acct: LAYOUT.acct,
    engine_meta: LAYOUT.meta,
    acct_size: LAYOUT.acct_size,
    acct_fields: LAYOUT.acct_fields,
    meta_size: LAYOUT.meta_size,
    meta_fields: LAYOUT.meta_fields,
    reserved2: 0,
    engine_load_avg: LAYOUT.load_avg,
    reserved3: 0,
    engine: ENGINE.0.get().cast_const().cast(),
    // SAFETY: only the address of the field is taken, nothing is read.
    clock_hz: unsafe { &raw const (*CONFIG.0.get()).clock.hz },
};

/// Keeps the block in the image: the linker drops what nothing refers to.
#[inline(always)]
pub(crate) fn keep() {
    // SAFETY: a valid, aligned static.
    let _ = unsafe { core::ptr::read_volatile(&cpu_usage_readout.magic) };
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The block is the size its layout document gives it on this target, and its
    /// addresses are the engine's and the clock rate's.
    #[test]
    fn the_block_describes_the_engine() {
        let b = &cpu_usage_readout;
        assert_eq!(b.magic.to_le_bytes(), *b"CPUR");
        assert_eq!(usize::from(b.size), 88 + 2 * size_of::<usize>());
        assert_eq!(b.engine, ENGINE.0.get().cast_const().cast());
        // SAFETY: reads the clock rate, as a debugger would.
        let hz = unsafe { *b.clock_hz };
        // SAFETY: the same field, read through the static.
        assert_eq!(hz, unsafe { (*CONFIG.0.get()).clock.hz });
    }
}
