//! The read-out block, `cpu_usage_readout`, and the window a reader of the target's
//! memory makes of what it points at: the one description of its layout on the host
//! (the firmware's is `src/ffi/readout.rs`; the prose, `docs/readout.md`).
//!
//! A reader takes the block (from the firmware's ELF, where it is constant, and
//! from the target, to check it is that firmware), then, as one read of the target,
//! the sequence counter, the engine's bytes ([`Block::engine_span`]), the clock
//! rate and the sequence counter again; if both counters are the same even number,
//! [`Block::window`] makes the report `show_cpu_usage -m -d` would have printed of
//! that window (every figure but the smoothed loads, which the block does not
//! point at, and the clock's name).

use std::fmt;

use crate::types::{DeletedTasks, Idle, IdlePart, InWindow, Slots, Task, TaskPart, Window, WindowHead};

/// The block's symbol in the firmware.
pub const SYMBOL: &str = "cpu_usage_readout";
/// `magic`: `CPUR` in a little-endian target's memory.
pub const MAGIC: u32 = u32::from_le_bytes(*b"CPUR");
/// The version this reader knows.
pub const VERSION: u16 = 1;
/// Bytes of the block before its two addresses.
pub const FIXED_SIZE: usize = 88;

/// Why a block or a read cannot be used, in words for the user.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadBlock(pub String);

impl fmt::Display for BadBlock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BadBlock {}

/// The read-out block, field by field (offsets in bytes; see `docs/readout.md`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    /// Task IDs.
    pub ids: u16,
    /// Bytes of a task name.
    pub name_len: u16,
    /// Cores counted.
    pub cores: u16,
    /// Slot records: report lines.
    pub lines: u16,
    /// In the engine: the sequence counter, the window under way, the published
    /// window's length, the idle task's ID, the bucket's tasks now and in the
    /// published window, the slot records, the task records.
    pub seq: u32,
    /// See `seq`.
    pub window: u32,
    /// See `seq`.
    pub pub_len: u32,
    /// See `seq`.
    pub idle: u32,
    /// See `seq`.
    pub overflow_now: u32,
    /// See `seq`.
    pub overflow_published: u32,
    /// See `seq`.
    pub acct: u32,
    /// See `seq`.
    pub meta: u32,
    /// Bytes of a slot record.
    pub acct_size: u16,
    /// In a slot record: counts, runs, longest, window, prev_counts, prev_runs,
    /// prev_longest.
    pub acct_fields: [u16; 7],
    /// Bytes of a task record.
    pub meta_size: u16,
    /// In a task record: name, mark, state, short_lived.
    pub meta_fields: [u16; 4],
    /// In the engine: the three smoothed loads (each busy counts then window
    /// counts, `u64`); `None` in a build without them.
    pub load_avg: Option<u32>,
    /// The engine's address.
    pub engine: u64,
    /// The clock rate's address.
    pub clock_hz: u64,
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    b.get(at..at + 2).map_or(0, |s| u16::from_le_bytes([s[0], s[1]]))
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    b.get(at..at + 4).map_or(0, |s| u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from(u32_at(b, at)) | u64::from(u32_at(b, at + 4)) << 32
}

fn addr_at(b: &[u8], at: usize, size: usize) -> u64 {
    match size {
        8 => u64_at(b, at),
        _ => u64::from(u32_at(b, at)),
    }
}

/// Bytes of the three smoothed loads.
const LOAD_AVG_SIZE: usize = 3 * 16;

/// `part` of `whole` in hundredths of a percent as the firmware gives a smoothed
/// load: rounded down, 10000 only when `part` is all of `whole`, both scaled down
/// to 50 bits first.
fn hundredths_of(part: u64, whole: u64) -> u16 {
    if part >= whole {
        return 10_000;
    }
    let shift = (64 - whole.leading_zeros()).saturating_sub(50);
    ((part >> shift) * 10_000 / (whole >> shift)).min(9_999) as u16
}

impl Block {
    /// The block from its bytes (little-endian), checked: magic, version, size, and
    /// every record inside the engine's span.
    pub fn parse(b: &[u8]) -> Result<Block, BadBlock> {
        if b.len() < FIXED_SIZE || u32_at(b, 0) != MAGIC {
            return Err(BadBlock(format!(
                "no read-out block: `{SYMBOL}` does not start with the magic number \"CPUR\""
            )));
        }
        let version = u16_at(b, 4);
        if version != VERSION {
            return Err(BadBlock(format!(
                "read-out block version {version}, this viewer reads version {VERSION}: use the viewer built with that firmware's library"
            )));
        }
        let (size, addr_size) = (usize::from(u16_at(b, 6)), usize::from(u16_at(b, 16)));
        if !matches!(addr_size, 4 | 8) || size != FIXED_SIZE + 2 * addr_size || b.len() < size {
            return Err(BadBlock(format!(
                "read-out block of {size} bytes with {addr_size}-byte addresses: not a layout of version {VERSION}"
            )));
        }
        let f16 = |at: usize| u16_at(b, at);
        let block = Block {
            ids: f16(8),
            name_len: f16(10),
            cores: f16(12),
            lines: f16(14),
            seq: u32_at(b, 20),
            window: u32_at(b, 24),
            pub_len: u32_at(b, 28),
            idle: u32_at(b, 32),
            overflow_now: u32_at(b, 36),
            overflow_published: u32_at(b, 40),
            acct: u32_at(b, 44),
            meta: u32_at(b, 48),
            acct_size: f16(52),
            acct_fields: std::array::from_fn(|i| f16(54 + 2 * i)),
            meta_size: f16(68),
            meta_fields: std::array::from_fn(|i| f16(70 + 2 * i)),
            load_avg: Some(u32_at(b, 80)).filter(|&at| at != u32::MAX),
            engine: addr_at(b, FIXED_SIZE, addr_size),
            clock_hz: addr_at(b, FIXED_SIZE + addr_size, addr_size),
        };
        if block.cores != 1 {
            return Err(BadBlock(format!(
                "a build of {} cores: this viewer reads one core's read-out only",
                block.cores
            )));
        }
        if usize::from(block.lines) != usize::from(block.ids) + 4
            || block.acct_fields.iter().any(|&f| usize::from(f) + 4 > usize::from(block.acct_size))
            || usize::from(block.meta_fields[0]) + usize::from(block.name_len) > usize::from(block.meta_size)
            || block.meta_fields[1..].iter().any(|&f| f >= block.meta_size)
        {
            return Err(BadBlock("read-out block with records that do not fit their sizes".into()));
        }
        Ok(block)
    }

    /// Bytes of the engine a reader reads, from `engine`: up to the last task record.
    pub fn engine_span(&self) -> usize {
        let acct_end = self.acct as usize + usize::from(self.lines) * usize::from(self.acct_size);
        let meta_end = self.meta as usize + usize::from(self.ids) * usize::from(self.meta_size);
        let load_avg_end = self.load_avg.map_or(0, |at| at as usize + LOAD_AVG_SIZE);
        [acct_end, meta_end, load_avg_end, self.seq as usize + 4, self.window as usize + 4, self.pub_len as usize + 4]
            .into_iter()
            .chain([self.idle, self.overflow_now, self.overflow_published].map(|f| f as usize + 2))
            .max()
            .unwrap_or(0)
    }

    /// The sequence counter in the engine's bytes.
    pub fn seq_of(&self, engine: &[u8]) -> u32 {
        u32_at(engine, self.seq as usize)
    }

    /// The last completed window in the engine's bytes (`engine_span` of them, read
    /// with the counter even and unchanged) with a clock of `hz`, as `show_cpu_usage
    /// -m -d` reports it; `None` before the first window has completed.
    pub fn window(&self, engine: &[u8], hz: u32) -> Option<Window> {
        let pub_len = u32_at(engine, self.pub_len as usize);
        if pub_len == 0 {
            return None;
        }
        let under_way = u32_at(engine, self.window as usize);
        let window = under_way.wrapping_sub(1);
        let idle_id = u16_at(engine, self.idle as usize);
        let ids = usize::from(self.ids);
        let total = u64::from(pub_len) * u64::from(self.cores);
        let upto = |sum: u64| if total == 0 { 0 } else { (u128::from(sum) * 10_000 / u128::from(total)) as u64 };
        let pct = |h: u64| h as f64 / 100.0;
        let us = |counts: u64| if hz == 0 { 0 } else { (u128::from(counts) * 1_000_000 / u128::from(hz)) as u64 };
        let mut w = Window {
            mode: "window".into(),
            head: WindowHead {
                window: u64::from(window),
                window_us: us(u64::from(pub_len)),
                window_counts: u64::from(pub_len),
            },
            clock: "readout".into(),
            clock_hz: u64::from(hz),
            slots: Slots { capacity: u32::from(self.ids), ..Slots::default() },
            deleted: DeletedTasks { deleted_tasks: 0 },
            load_avg_pct: self.load_avg.map_or([None; 3], |at| {
                std::array::from_fn(|i| {
                    let at = at as usize + 16 * i;
                    let (busy, len) = (u64_at(engine, at), u64_at(engine, at + 8));
                    (len != 0).then(|| pct(u64::from(hundredths_of(busy, len))))
                })
            }),
            ..Window::default()
        };
        w.slots.overflow_tasks = u32::from(u16_at(engine, self.overflow_now as usize));
        let (mut before, mut given) = (0u64, 0u64);
        let (mut idle_h, mut sleep_h) = (0u64, 0u64);
        for at in 0..usize::from(self.lines) {
            let rec = self.acct as usize + at * usize::from(self.acct_size);
            let f = |i: usize| u32_at(engine, rec + usize::from(self.acct_fields[i]));
            let (counts, runs, longest) = if f(3) == under_way {
                (f(4), f(5), f(6))
            } else if f(3) == window {
                (f(0), f(1), f(2))
            } else {
                (0, 0, 0)
            };
            let counts = u64::from(counts);
            before += counts;
            let share = upto(before) - given;
            given += share;
            let (runs, longest_us) = (u64::from(runs), us(u64::from(longest)));
            match at {
                0 => {
                    let tasks = u32::from(u16_at(engine, self.overflow_published as usize));
                    if counts != 0 || tasks != 0 {
                        w.tasks.push(Task {
                            id: 0,
                            name: "(overflow)".into(),
                            counts,
                            part: TaskPart { usage_pct: pct(share), deleted: false, tasks: Some(tasks) },
                            switches: runs,
                            longest_slice_us: longest_us,
                            history: InWindow {},
                        });
                    }
                }
                at if at <= ids => {
                    let m = self.meta as usize + (at - 1) * usize::from(self.meta_size);
                    let name_at = m + usize::from(self.meta_fields[0]);
                    let name = engine.get(name_at..name_at + usize::from(self.name_len)).unwrap_or_default();
                    let name: String = name.iter().take_while(|&&c| c != 0).map(|&c| char::from(c)).collect();
                    let mark = u32_at(engine, m + usize::from(self.meta_fields[1]));
                    let state = engine.get(m + usize::from(self.meta_fields[2])).copied().unwrap_or(0);
                    let short_lived = engine.get(m + usize::from(self.meta_fields[3])).is_some_and(|&b| b != 0);
                    let (shown, seat_used, quarantined) = match state {
                        1 | 2 => (mark != under_way, true, false),
                        3 => {
                            let shown = under_way.wrapping_sub(mark) <= 1 && !(short_lived && mark == under_way);
                            (shown, false, under_way.wrapping_sub(mark) < 2)
                        }
                        _ => (false, false, false),
                    };
                    match (seat_used, quarantined) {
                        (true, _) => w.slots.used += 1,
                        (false, true) => w.slots.quarantined += 1,
                        _ => w.slots.free += 1,
                    }
                    if !shown {
                        continue;
                    }
                    if at == usize::from(idle_id) {
                        idle_h = share;
                        w.idle = Some(Idle {
                            id: at as u32,
                            name,
                            counts,
                            part: IdlePart {},
                            switches: runs,
                            longest_slice_us: longest_us,
                            history: InWindow {},
                        });
                    } else {
                        let deleted = state == 3 && mark != under_way;
                        w.tasks.push(Task {
                            id: at as u32,
                            name,
                            counts,
                            part: TaskPart { usage_pct: pct(share), deleted, tasks: None },
                            switches: runs,
                            longest_slice_us: longest_us,
                            history: InWindow {},
                        });
                    }
                }
                at if at == ids + 1 => {
                    (w.interrupts_counts, w.interrupts_pct) = (counts, pct(share));
                    (w.interrupts, w.longest_interrupt_us) = (runs, longest_us);
                }
                at if at == ids + 2 => {
                    sleep_h = share;
                    (w.sleep_counts, w.sleep_pct, w.sleeps) = (counts, pct(share), runs);
                }
                _ => (w.other_counts, w.other_pct) = (counts, pct(share)),
            }
        }
        w.idle_pct = pct(idle_h);
        w.load_pct = pct(10_000u64.saturating_sub(idle_h + sleep_h));
        Some(w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A block of version 1 for 2 IDs, 4-byte addresses, with records laid out as
    /// the firmware's are.
    fn block_bytes() -> Vec<u8> {
        let mut b = vec![0u8; FIXED_SIZE + 8];
        let put16 = |b: &mut Vec<u8>, at: usize, v: u16| b[at..at + 2].copy_from_slice(&v.to_le_bytes());
        let put32 = |b: &mut Vec<u8>, at: usize, v: u32| b[at..at + 4].copy_from_slice(&v.to_le_bytes());
        put32(&mut b, 0, MAGIC);
        put16(&mut b, 4, VERSION);
        put16(&mut b, 6, 96);
        for (at, v) in [(8, 2), (10, 4), (12, 1), (14, 6), (16, 4)] {
            put16(&mut b, at, v);
        }
        for (at, v) in [(20, 0), (24, 4), (28, 8), (32, 12), (36, 14), (40, 14), (44, 16), (48, 16 + 6 * 28)] {
            put32(&mut b, at, v);
        }
        put16(&mut b, 52, 28);
        for i in 0..7 {
            put16(&mut b, 54 + 2 * i, 4 * i as u16);
        }
        put16(&mut b, 68, 12);
        for (i, v) in [0u16, 4, 8, 9].into_iter().enumerate() {
            put16(&mut b, 70 + 2 * i, v);
        }
        put32(&mut b, 80, 16 + 6 * 28 + 2 * 12);
        put32(&mut b, 88, 0x2000_0000);
        put32(&mut b, 92, 0x2000_1000);
        b
    }

    #[test]
    fn a_block_is_checked_before_use() {
        let b = block_bytes();
        let block = Block::parse(&b).unwrap();
        assert_eq!((block.ids, block.engine, block.clock_hz), (2, 0x2000_0000, 0x2000_1000));
        let mut wrong = b.clone();
        wrong[0] = b'X';
        assert!(Block::parse(&wrong).unwrap_err().0.contains("magic"));
        let mut newer = b.clone();
        newer[4] = 2;
        assert!(Block::parse(&newer).unwrap_err().0.contains("version 2"));
    }

    /// Lines read by the rule of the window they were charged in: the task charged
    /// in the window under way has moved its figures to `prev_*`.
    #[test]
    fn the_window_is_read_from_both_places_of_the_records() {
        let block = Block::parse(&block_bytes()).unwrap();
        let mut e = vec![0u8; block.engine_span()];
        let put32 = |e: &mut Vec<u8>, at: usize, v: u32| e[at..at + 4].copy_from_slice(&v.to_le_bytes());
        put32(&mut e, 4, 10); // window 10 under way: 9 published
        put32(&mut e, 8, 1000);
        e[12] = 2; // the idle task is ID 2
        let rec = |slot: usize| 16 + slot * 28;
        // ID 1: charged in 10, so 9's figures are prev_*.
        for (i, v) in [5, 1, 5, 10, 250, 3, 100].into_iter().enumerate() {
            put32(&mut e, rec(1) + 4 * i, v);
        }
        // ID 2 (idle): last charged in 9.
        for (i, v) in [700, 2, 400, 9].into_iter().enumerate() {
            put32(&mut e, rec(2) + 4 * i, v);
        }
        // Interrupts: 50 counts in 9.
        for (i, v) in [50, 7, 10, 9].into_iter().enumerate() {
            put32(&mut e, rec(3) + 4 * i, v);
        }
        let meta = 16 + 6 * 28;
        e[meta..meta + 2].copy_from_slice(b"w1");
        e[meta + 8] = 1;
        e[meta + 12..meta + 16].copy_from_slice(b"IDLE");
        e[meta + 12 + 8] = 1;
        // Smoothed loads: 30 %, none yet, all.
        let avg = 16 + 6 * 28 + 2 * 12;
        for (i, (busy, len)) in [(3u64 << 16, 10u64 << 16), (0, 0), (7, 7)].into_iter().enumerate() {
            e[avg + 16 * i..][..8].copy_from_slice(&busy.to_le_bytes());
            e[avg + 16 * i + 8..][..8].copy_from_slice(&len.to_le_bytes());
        }
        let w = block.window(&e, 1_000_000).unwrap();
        assert_eq!(w.load_avg_pct, [Some(30.0), None, Some(100.0)]);
        assert_eq!(w.window, 9);
        assert_eq!(w.tasks.len(), 1);
        assert_eq!((w.tasks[0].name.as_str(), w.tasks[0].counts, w.tasks[0].switches), ("w1", 250, 3));
        assert_eq!(w.tasks[0].usage_pct, 25.0);
        assert_eq!(w.idle.as_ref().map(|i| i.counts), Some(700));
        assert_eq!((w.interrupts_counts, w.interrupts), (50, 7));
        assert_eq!((w.idle_pct, w.load_pct), (70.0, 30.0));
        w.check().unwrap();
    }
}
