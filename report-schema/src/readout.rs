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

use crate::types::{CoreLine, DeletedTasks, Idle, IdlePart, InWindow, Slots, Task, TaskPart, Window, WindowHead};

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

/// `part` of `whole` in hundredths of a percent, as the firmware gives a smoothed
/// load and a core's figures (its `pct_of`): rounded down, 10000 only when `part` is
/// all of `whole`, 0 of nothing; both scaled down to 50 bits first.
fn hundredths_of(part: u64, whole: u64) -> u64 {
    if whole == 0 {
        return 0;
    }
    if part >= whole {
        return 10_000;
    }
    let shift = (64 - whole.leading_zeros()).saturating_sub(50);
    ((part >> shift) * 10_000 / (whole >> shift)).min(9_999)
}

/// Slot records besides the task IDs' (`1..=ids`): the shared bucket, each core's
/// interrupts and sleep, "other", and with several cores each core's idle time (the
/// engine's `slots_beside_tasks`; `docs/readout.md`, "Reading one window").
fn lines_beside_tasks(cores: u16) -> usize {
    let cores = usize::from(cores);
    2 + 2 * cores + if cores > 1 { cores } else { 0 }
}

/// Lines of one kind on every core (interrupts, sleep, idle time) summed, as the
/// firmware sums them into one line of its report: counts, shares and runs added,
/// the longest run the longest.
#[derive(Clone, Copy, Default)]
struct Summed {
    counts: u64,
    hundredths: u64,
    runs: u64,
    longest: u64,
}

impl Summed {
    fn add(&mut self, counts: u64, hundredths: u64, runs: u64, longest: u64) {
        self.counts += counts;
        self.hundredths += hundredths;
        self.runs += runs;
        self.longest = self.longest.max(longest);
    }
}

/// One core's own lines, for its `per_core` entry.
#[derive(Clone, Copy, Default)]
struct OnCore {
    idle: u64,
    interrupts: u64,
    interrupt_runs: u64,
    sleep: u64,
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
        if block.cores == 0
            || usize::from(block.lines) != usize::from(block.ids) + lines_beside_tasks(block.cores)
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
    ///
    /// The lines are the engine's slots in their order: the shared bucket, the task
    /// IDs, each core's interrupts, each core's sleep, "other", and with several
    /// cores each core's idle time. Each line's share is handed out in that order
    /// (cumulative rounding over all the cores' time), and the report sums a kind of
    /// line over the cores as the firmware does: so every figure is the firmware's.
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
        let upto = |sum: u64| {
            if total == 0 {
                0
            } else {
                (u128::from(sum.min(total)) * 10_000 / u128::from(total)) as u64
            }
        };
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
                    (len != 0).then(|| pct(hundredths_of(busy, len)))
                })
            }),
            ..Window::default()
        };
        w.slots.overflow_tasks = u32::from(u16_at(engine, self.overflow_now as usize));
        // Where each kind of line begins (each core's, core 0's first).
        let cores = usize::from(self.cores);
        let (interrupts_at, sleep_at, other_at) = (ids + 1, ids + 1 + cores, ids + 1 + 2 * cores);
        let (mut interrupts, mut sleep, mut idle) = (Summed::default(), Summed::default(), Summed::default());
        let mut on_core = vec![OnCore::default(); cores];
        let (mut before, mut given) = (0u64, 0u64);
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
            let (runs, longest) = (u64::from(runs), u64::from(longest));
            let longest_us = us(longest);
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
                    // (On one core the idle task has an ID of the pool; with several,
                    // the idle tasks' time is in the idle lines after "other".)
                    if at == usize::from(idle_id) {
                        idle.add(counts, share, runs, longest);
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
                at if at < sleep_at => {
                    interrupts.add(counts, share, runs, longest);
                    if let Some(c) = on_core.get_mut(at - interrupts_at) {
                        (c.interrupts, c.interrupt_runs) = (counts, runs);
                    }
                }
                at if at < other_at => {
                    sleep.add(counts, share, runs, longest);
                    if let Some(c) = on_core.get_mut(at - sleep_at) {
                        c.sleep = counts;
                    }
                }
                at if at == other_at => (w.other_counts, w.other_pct) = (counts, pct(share)),
                at => {
                    idle.add(counts, share, runs, longest);
                    if let Some(c) = on_core.get_mut(at - other_at - 1) {
                        c.idle = counts;
                    }
                }
            }
        }
        (w.interrupts_counts, w.interrupts_pct) = (interrupts.counts, pct(interrupts.hundredths));
        (w.interrupts, w.longest_interrupt_us) = (interrupts.runs, us(interrupts.longest));
        (w.sleep_counts, w.sleep_pct, w.sleeps) = (sleep.counts, pct(sleep.hundredths), sleep.runs);
        if cores > 1 {
            // The idle tasks' line: their one ID (past the pool's), named as the
            // firmware names it, and every core's idle time.
            w.idle = Some(Idle {
                id: u32::from(idle_id),
                name: "IDLE".chars().take(usize::from(self.name_len)).collect(),
                counts: idle.counts,
                part: IdlePart {},
                switches: idle.runs,
                longest_slice_us: us(idle.longest),
                history: InWindow {},
            });
            w.cores = Some(u32::from(self.cores));
            // Each core's figures are shares of that core's time, the window's length.
            let span = u64::from(pub_len);
            let core_line = |(k, c): (usize, &OnCore)| CoreLine {
                core: k as u32,
                busy_pct: pct(hundredths_of(span.saturating_sub(c.idle).saturating_sub(c.sleep), span)),
                idle_pct: pct(hundredths_of(c.idle, span)),
                interrupts_pct: pct(hundredths_of(c.interrupts, span)),
                sleep_pct: pct(hundredths_of(c.sleep, span)),
                interrupts: c.interrupt_runs,
            };
            w.per_core = Some(on_core.iter().enumerate().map(core_line).collect());
        }
        w.idle_pct = pct(idle.hundredths);
        // 100% less idle and sleep as shown; 0.00 when nothing else ran.
        let busy = total.saturating_sub(idle.counts + sleep.counts);
        w.load_pct = if busy == 0 { 0.0 } else { pct(10_000u64.saturating_sub(idle.hundredths + sleep.hundredths)) };
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

    /// `block_bytes` for two cores: 2 + 2 + 3 × 2 slot records (the bucket, the two
    /// IDs, each core's interrupts, each core's sleep, "other", each core's idle
    /// time), the task records after them, then the smoothed loads.
    fn two_core_block_bytes() -> Vec<u8> {
        let mut b = block_bytes();
        b[12..14].copy_from_slice(&2u16.to_le_bytes());
        b[14..16].copy_from_slice(&10u16.to_le_bytes());
        b[48..52].copy_from_slice(&(16u32 + 10 * 28).to_le_bytes());
        // The smoothed loads after the task records.
        b[80..84].copy_from_slice(&(16u32 + 10 * 28 + 2 * 12).to_le_bytes());
        b
    }

    #[test]
    fn a_block_of_several_cores_has_their_lines() {
        let block = Block::parse(&two_core_block_bytes()).unwrap();
        assert_eq!((block.cores, block.lines), (2, 10));
        // One line too few or too many for 2 IDs on 2 cores, or no core at all.
        for (at, v) in [(14, 9u16), (14, 11), (14, 6), (12, 0)] {
            let mut b = two_core_block_bytes();
            b[at..at + 2].copy_from_slice(&v.to_le_bytes());
            assert!(Block::parse(&b).unwrap_err().0.contains("do not fit"), "{at}: {v}");
        }
    }

    /// Two cores: every line's share handed out in the engine's order over both
    /// cores' time, the cores' interrupts, sleep and idle time summed into one line
    /// each (their shares summed, so the idle line is 53.34 where its counts alone
    /// would round to 53.33), and each core's figures of its own time, rounded down.
    #[test]
    fn a_window_of_two_cores_is_the_firmwares_report() {
        let block = Block::parse(&two_core_block_bytes()).unwrap();
        let mut e = vec![0u8; block.engine_span()];
        let put32 = |e: &mut Vec<u8>, at: usize, v: u32| e[at..at + 4].copy_from_slice(&v.to_le_bytes());
        put32(&mut e, 4, 10); // window 10 under way: 9 published
        put32(&mut e, 8, 3001); // on each core
        e[12] = 8; // the idle tasks' ID: 2 IDs + 2 + 2 × 2 cores
        let rec = |slot: usize| 16 + slot * 28;
        // (slot, [counts, runs, longest]) charged in window 9; the idle time of core 1
        // charged in 10 too, so its figures of 9 are in prev_*.
        for (slot, figures) in [
            (1, [1234, 4, 600]),
            (2, [1200, 3, 700]),
            (3, [13, 5, 9]),
            (4, [7, 2, 5]),
            (5, [300, 1, 300]),
            (7, [47, 0, 0]),
            (8, [1201, 3, 800]),
        ] {
            for (i, v) in figures.into_iter().chain([9]).enumerate() {
                put32(&mut e, rec(slot) + 4 * i, v);
            }
        }
        for (i, v) in [20, 1, 20, 10, 2000, 2, 1500].into_iter().enumerate() {
            put32(&mut e, rec(9) + 4 * i, v);
        }
        let meta = 16 + 10 * 28;
        e[meta..meta + 2].copy_from_slice(b"w1");
        e[meta + 8] = 1;
        e[meta + 12..meta + 14].copy_from_slice(b"w2");
        e[meta + 12 + 8] = 1;
        let w = block.window(&e, 1_000_000).unwrap();
        let json = serde_json::to_string(&w).unwrap();
        assert_eq!(
            json,
            concat!(
                r#"{"mode":"window","window":9,"window_us":3001,"window_counts":3001,"clock":"readout","clock_hz":1000000,"#,
                r#""cores":2,"tasks":["#,
                r#"{"id":1,"name":"w1","counts":1234,"usage_pct":20.55,"deleted":false,"switches":4,"longest_slice_us":600},"#,
                r#"{"id":2,"name":"w2","counts":1200,"usage_pct":20.00,"deleted":false,"switches":3,"longest_slice_us":700}],"#,
                r#""slots":{"capacity":2,"used":2,"quarantined":0,"free":0,"overflow_tasks":0},"#,
                r#""deleted_tasks":0,"deleted_counts":0,"deleted_pct":0.00,"#,
                r#""idle":{"id":8,"name":"IDLE","counts":3201,"switches":5,"longest_slice_us":1500},"#,
                r#""interrupts_counts":20,"interrupts_pct":0.33,"interrupts":7,"longest_interrupt_us":9,"#,
                r#""sleep_counts":300,"sleep_pct":5.00,"sleeps":1,"other_counts":47,"other_pct":0.78,"#,
                r#""idle_pct":53.34,"load_pct":41.66,"#,
                r#""per_core":["#,
                r#"{"core":0,"busy_pct":49.98,"idle_pct":40.01,"interrupts_pct":0.43,"sleep_pct":9.99,"interrupts":5},"#,
                r#"{"core":1,"busy_pct":33.35,"idle_pct":66.64,"interrupts_pct":0.23,"sleep_pct":0.00,"interrupts":2}],"#,
                r#""load_avg_pct":[null,null,null]}"#
            )
        );
        w.check().unwrap();
    }

    /// A core's figures are each rounded down on its own, 100.00 only for all of the
    /// core's time; and with nothing but idle time and sleep the load is 0.00.
    #[test]
    fn a_core_all_idle_reads_100_and_no_load() {
        let block = Block::parse(&two_core_block_bytes()).unwrap();
        let mut e = vec![0u8; block.engine_span()];
        let put32 = |e: &mut Vec<u8>, at: usize, v: u32| e[at..at + 4].copy_from_slice(&v.to_le_bytes());
        put32(&mut e, 4, 1);
        put32(&mut e, 8, 1000);
        e[12] = 8;
        let rec = |slot: usize| 16 + slot * 28;
        for (slot, counts) in [(6, 1), (8, 1000), (9, 999)] {
            for (i, v) in [counts, 1, counts, 0].into_iter().enumerate() {
                put32(&mut e, rec(slot) + 4 * i, v);
            }
        }
        let w = block.window(&e, 1000).unwrap();
        let cores = w.per_core.clone().unwrap();
        assert_eq!([cores[0].idle_pct, cores[0].busy_pct], [100.0, 0.0]);
        assert_eq!([cores[1].idle_pct, cores[1].sleep_pct, cores[1].busy_pct], [99.9, 0.1, 0.0]);
        assert_eq!((w.idle_pct, w.sleep_pct, w.load_pct), (99.95, 0.05, 0.0));
        w.check().unwrap();
    }
}
