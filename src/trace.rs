//! The optional event trace: a ring of the moments the charged slot changes (task
//! switches, interrupt entries and exits, sleeps), with a marker at every window
//! boundary, printed as ASCII lines by the `cpu_usage_trace` shell command.
//!
//! # Off unless built in
//! The code is in every build of the library and linked into none that does not ask
//! for it. Firmware that defines `CPU_USAGE_TRACE` to 1 before the hooks header gets
//! hook macros that call the `cpu_usage_hook_*_traced` functions (`ffi.rs`): each runs
//! the normal hook, then [`record`]. Firmware without it calls exactly the functions
//! it called before this module existed, and `--gc-sections` drops the ring and this
//! code. (The shell command refers to the ring: register it in traced builds only.)
//!
//! # What an event is
//! `(ts, from, to)`: at clock reading `ts`, the engine stopped charging slot `from`
//! and started charging slot `to`. `ts` is the engine's own reading of the hook that
//! made the change, so the time between two events is exactly what the engine
//! charged to the slot in between. Besides these:
//! - a window marker at the exact instant the engine closed a window (the end it
//!   charged up to, not the hook's reading), with the number of the window that
//!   starts there, as `show_cpu_usage` numbers it (its JSON's `"window"`). Window N
//!   is the time from marker N to marker N + 1, and each slot's time in it, summed
//!   from the events, is that window's counts exactly;
//! - a point (`from == to`) where recording starts and where it stops, at the last
//!   clock reading of the engine, so that the slot running at the start and the end
//!   of the trace is known.
//!
//! Slots are the engine's indices, which are also the reports' positions of their
//! lines, stored and dumped as they are: tasks `1..=MAX_TASKS`, 0 for the tasks
//! sharing the overflow bucket, then interrupts (`MAX_TASKS + 1`), sleep (`+ 2`) and
//! no task at all (`+ 3`).
//!
//! # A full ring
//! The oldest event is overwritten (a flight recorder: what led up to the moment
//! the trace is dumped or stopped is what one looks at), and counted as lost.
//!
//! # Timestamps
//! 32-bit readings, dumped as differences from the previous event. Consecutive
//! events are always less than 2^32 counts apart: a window is at most 2^31 counts,
//! the tick hook closes it within a tick of its end, and its marker is an event.
//! So the markers are the keep-alive, and the host unwraps the differences exactly.
//!
//! # Hot path
//! [`record`] is O(1): a few loads and compares, and a store of 8 bytes when the
//! charged slot changed. No allocation, no division, no floating point, no loop, no
//! panic path (every index is checked with `get_mut`). Window markers, one per
//! window, take a cold path.
//!
//! # Dump format
//! ASCII lines of at most 110 bytes, each ending in `*` and the XOR of every byte
//! before the `*` as two lowercase hex digits (so that a line garbled on a serial
//! line is caught):
//!
//! ```text
//! cpu_usage_trace v1 hz=<Hz> ids=<MAX_TASKS> events=<n> lost=<n> t0=<hex>*hh
//! N <id> <name>*hh                                 one per slot with a name
//! E <index> <event> <event> ...*hh                 events, oldest first
//! end events=<n>*hh
//! ```
//!
//! - `hz` is the clock's frequency; `lost` the events overwritten since the start;
//!   `t0` the clock reading of the first event dumped, in hex; the header ends with
//!   ` restarted` when recording stopped because accounting restarted (a clock
//!   change), which breaks the timeline.
//! - `N` lines name the slots: `0 (overflow)`, each task ID with its name at dump time
//!   (a dead task's as long as its ID was not reused), `MAX_TASKS + 1 (interrupts)`,
//!   `+ 2 (sleep)`, `+ 3 (other)`. A name is up to `CPU_USAGE_NAME_LEN` bytes, bytes
//!   outside printable ASCII as `?`.
//! - `E` lines: `<index>` is the position of the line's first event (from 0), then
//!   space-separated events, each `<dt>.<from>.<to>` (a change, or a point when
//!   `from == to`) or `<dt>.w<window>` (a marker); `dt` is the difference from the
//!   previous event in lowercase hex (0 for the first), the rest decimal.
//! - `end` repeats the number of events.

use core::cell::UnsafeCell;
use core::sync::atomic::{AtomicBool, Ordering};

use crate::engine::NAME_LEN;
use crate::report::Sink;
use crate::settings::{ApiEngine, MAX_TASKS, TRACE_EVENTS};

/// The C API's engine's slots of the shared bucket, "other", interrupts and sleep.
const OVERFLOW: usize = ApiEngine::OVERFLOW;
const OTHER: usize = ApiEngine::OTHER;
const ISR: usize = ApiEngine::ISR;
const SLEEP: usize = ApiEngine::SLEEP;

/// `Event::from` of a window marker: no slot has this index.
const MARK: u16 = u16::MAX;

/// The dump's number of the interrupts slot (its index); sleep and "other" follow it.
pub const INTERRUPTS_ID: u32 = ISR as u32;
/// The dump's number of the sleep slot.
pub const SLEEP_ID: u32 = SLEEP as u32;
/// The dump's number of "other": no task switched in.
pub const OTHER_ID: u32 = OTHER as u32;

// The event trace follows one core so far.
#[cfg(cpu_usage_smp)]
compile_error!("the `trace` feature is for one core so far: build with CPU_USAGE_CORES 1, or without it");

// The reports' and the dump's numbers are the slots' (see the module's docs).
#[cfg(not(cpu_usage_smp))]
const _: () = assert!(ISR == MAX_TASKS + 1 && SLEEP == MAX_TASKS + 2 && OTHER == MAX_TASKS + 3 && OVERFLOW == 0);

/// One event, 8 bytes: a change of charged slot, a start or stop point (`from ==
/// to`), or a window marker (`from == MARK`, `to` the window number's low 16 bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct Event {
    /// Clock reading.
    pub ts: u32,
    /// Engine slot index charged before.
    pub from: u16,
    /// Engine slot index charged after.
    pub to: u16,
}

impl Event {
    const ZERO: Event = Event { ts: 0, from: 0, to: 0 };
}

/// The events, `N` at most, the oldest overwritten. All zero when stopped and
/// empty, so that its static is in `.bss`.
pub struct Ring<const N: usize> {
    events: [Event; N],
    /// Where the next event goes.
    head: usize,
    /// Events kept.
    len: usize,
    /// Events overwritten since the start (saturating).
    lost: u32,
    /// Recording.
    on: bool,
    /// The engine's window number at the last marker, or at the start.
    last_mark: u32,
    /// Recording stopped because accounting restarted.
    restarted: bool,
}

impl<const N: usize> Ring<N> {
    /// Stopped and empty.
    pub const EMPTY: Self =
        Ring { events: [Event::ZERO; N], head: 0, len: 0, lost: 0, on: false, last_mark: 0, restarted: false };

    /// Clears the ring and starts recording, with a point at the engine's last
    /// reading (a later one could lie past a window end not yet seen by a hook).
    pub fn start(&mut self, engine: &ApiEngine) {
        let (window, _, last) = engine.trace_clock(0);
        *self = Ring { events: self.events, last_mark: window, on: true, ..Ring::EMPTY };
        let slot = engine.charged_slot(0);
        self.push(Event { ts: last, from: slot, to: slot });
    }

    /// Stops recording, with a point at the engine's last reading. False if it was
    /// not recording.
    pub fn stop(&mut self, engine: &ApiEngine) -> bool {
        if !self.on {
            return false;
        }
        let (_, _, last) = engine.trace_clock(0);
        let slot = engine.charged_slot(0);
        self.push(Event { ts: last, from: slot, to: slot });
        self.on = false;
        true
    }

    /// Whether it is recording.
    pub fn is_on(&self) -> bool {
        self.on
    }

    /// `(events kept, events lost, stopped by a restart)`.
    pub fn counts(&self) -> (usize, u32, bool) {
        (self.len, self.lost, self.restarted)
    }

    /// The `i`-th event kept, oldest first.
    pub fn get(&self, i: usize) -> Option<Event> {
        if i >= self.len {
            return None;
        }
        let oldest = if self.head >= self.len { self.head - self.len } else { self.head + N - self.len };
        let at = oldest + i;
        self.events.get(if at >= N { at - N } else { at }).copied()
    }

    /// Records what a hook changed: the window it closed, if any, then the change of
    /// charged slot from `from`, if any. (Hot path.)
    #[inline(always)]
    pub fn note(&mut self, engine: &ApiEngine, from: u16) {
        if !self.on {
            return;
        }
        let (window, win_start, last) = engine.trace_clock(0);
        if window != self.last_mark {
            self.mark_window(window, win_start);
        }
        let to = engine.charged_slot(0);
        if to != from && self.on {
            self.push(Event { ts: last, from, to });
        }
    }

    /// A window closed at `start` of window `window` (once per window).
    #[cold]
    #[inline(never)]
    fn mark_window(&mut self, window: u32, start: u32) {
        if window == self.last_mark.wrapping_add(1) {
            self.last_mark = window;
            self.push(Event { ts: start, from: MARK, to: window as u16 });
        } else {
            // Accounting restarted (a clock change): what follows is on another
            // timeline, and window numbers started again.
            self.on = false;
            self.restarted = true;
        }
    }

    #[inline(always)]
    fn push(&mut self, e: Event) {
        if let Some(slot) = self.events.get_mut(self.head) {
            *slot = e;
        }
        self.head += 1;
        if self.head >= N {
            self.head = 0;
        }
        if self.len < N {
            self.len += 1;
        } else {
            self.lost = self.lost.saturating_add(1);
        }
    }

    /// The full window number of a marker holding its low 16 bits: the newest
    /// marker is window `last_mark`, and the ring holds fewer than 2^16 of them.
    fn window_of(&self, low: u16) -> u32 {
        self.last_mark.wrapping_sub(u32::from((self.last_mark as u16).wrapping_sub(low)))
    }
}

/// A slot's number in the dump: its index (as the reports number IDs and lines).
pub fn dump_id(slot: u16) -> u32 {
    u32::from(slot)
}

// ---- The ring of the library ------------------------------------------------------

struct Global(UnsafeCell<Ring<TRACE_EVENTS>>);

// SAFETY: written by the hooks (one writer, interrupts masked) and by the shell
// command inside a critical section; read by a dump while stopped (see `ring`).
unsafe impl Sync for Global {}

static RING: Global = Global(UnsafeCell::new(Ring::EMPTY));

/// The traced tick hook has run: the firmware was built with `CPU_USAGE_TRACE`. (Set
/// by the tick, which runs every tick anyway, rather than by every switch.)
static SEEN: AtomicBool = AtomicBool::new(false);

/// A dump is reading the ring: it must not be started meanwhile.
pub(crate) static DUMPING: AtomicBool = AtomicBool::new(false);

/// Records what the hook that just ran changed, given the slot charged before it.
///
/// # Safety
/// Only from a traced hook, right after the normal one (interrupts masked).
#[inline(always)]
pub(crate) unsafe fn record(engine: &ApiEngine, from: u16) {
    let ring = RING.0.get();
    // `on` first, alone: a dump reads the events of the stopped ring without a
    // critical section, and no reference to the whole ring may be made meanwhile.
    // SAFETY: a hook is the only writer; reading one field.
    if unsafe { !(*ring).on } {
        return;
    }
    // SAFETY: recording, so no dump is reading; a hook, so nothing else writes.
    unsafe { (*ring).note(engine, from) };
}

/// The library's ring.
///
/// # Safety
/// Inside a critical section; or, to read a stopped ring, while holding `DUMPING`.
pub(crate) unsafe fn ring() -> &'static mut Ring<TRACE_EVENTS> {
    // SAFETY: exclusive by the caller's contract.
    unsafe { &mut *RING.0.get() }
}

/// Notes that the traced tick hook ran.
#[inline(always)]
pub(crate) fn tick_seen() {
    SEEN.store(true, Ordering::Relaxed);
}

/// Whether the traced tick hook has run.
pub(crate) fn hooks_seen() -> bool {
    SEEN.load(Ordering::Relaxed)
}

// ---- The shell command's words and text ---------------------------------------------

/// What `cpu_usage_trace` was asked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceCmd {
    /// Clear and start recording.
    Start,
    /// Stop recording.
    Stop,
    /// Stop and print the events.
    Dump,
    /// Print the state.
    Status,
}

/// The command's one word (none: `status`); `None` if it is not one of them.
pub fn parse_trace(word: Option<&[u8]>) -> Option<TraceCmd> {
    match word {
        None | Some(b"status") => Some(TraceCmd::Status),
        Some(b"start") => Some(TraceCmd::Start),
        Some(b"stop") => Some(TraceCmd::Stop),
        Some(b"dump") => Some(TraceCmd::Dump),
        Some(_) => None,
    }
}

/// The usage line.
pub fn write_trace_usage(sink: &mut dyn Sink) {
    sink.put(b"usage: cpu_usage_trace start|stop|dump|status\n");
}

/// `cpu_usage_trace: on, <n> of <capacity> events, <n> lost`, and why nothing is
/// recorded when nothing can be.
pub fn write_trace_status<const N: usize>(sink: &mut dyn Sink, ring: &Ring<N>, hooks_seen: bool) {
    let mut line = Line::new();
    let (len, lost, restarted) = ring.counts();
    line.put(if ring.is_on() { b"cpu_usage_trace: on, " } else { b"cpu_usage_trace: off, " });
    line.dec(len as u32);
    line.put(b" of ");
    line.dec(N as u32);
    line.put(b" events, ");
    line.dec(lost);
    line.put(b" lost");
    if restarted {
        line.put(b"; stopped: accounting restarted");
    }
    line.put(b"\n");
    sink.put(line.text());
    if !hooks_seen {
        sink.put(b"cpu_usage_trace: no traced hook has run: define CPU_USAGE_TRACE 1 before including freertos_cpu_usage_hooks.h\n");
    }
}

/// Longest text of a line before its `*hh`.
const LINE_MAX: usize = 106;
/// An `E` line takes another event while it has this much room: the longest event is
/// `ffffffff.w4294967295`, 20 bytes and a space.
const EVENT_ROOM: usize = 21;

/// One line being written, with its checksum.
struct Line {
    buf: [u8; LINE_MAX + 4],
    len: usize,
}

impl Line {
    fn new() -> Line {
        Line { buf: [0; LINE_MAX + 4], len: 0 }
    }

    fn put(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if let Some(slot) = self.buf.get_mut(self.len) {
                *slot = b;
                self.len += 1;
            }
        }
    }

    fn dec(&mut self, mut v: u32) {
        let mut digits = [0u8; 10];
        let mut n = 0;
        loop {
            if let Some(d) = digits.get_mut(n) {
                *d = b'0' + (v % 10) as u8;
            }
            n += 1;
            v /= 10;
            if v == 0 {
                break;
            }
        }
        for i in (0..n).rev() {
            self.put(digits.get(i..=i).unwrap_or(&[]));
        }
    }

    fn hex(&mut self, v: u32) {
        let mut shift = 28;
        while shift > 0 && v >> shift == 0 {
            shift -= 4;
        }
        loop {
            let nibble = ((v >> shift) & 0xf) as usize;
            self.put(b"0123456789abcdef".get(nibble..=nibble).unwrap_or(&[]));
            if shift == 0 {
                break;
            }
            shift -= 4;
        }
    }

    fn room(&self) -> usize {
        LINE_MAX.saturating_sub(self.len)
    }

    fn text(&self) -> &[u8] {
        self.buf.get(..self.len).unwrap_or(&[])
    }

    /// Appends `*hh` and the newline, writes the line, and starts the next one.
    fn end(&mut self, sink: &mut dyn Sink) {
        let sum = self.text().iter().fold(0u8, |x, &b| x ^ b);
        let hex = b"0123456789abcdef";
        let tail = [b'*', hex[usize::from(sum >> 4)], hex[usize::from(sum & 0xf)], b'\n'];
        self.len = self.len.min(LINE_MAX);
        self.put(&tail);
        sink.put(self.text());
        self.len = 0;
    }
}

/// Prints the ring (stopped) in the dump format of the module comment. `name(id)`
/// gives task `id`'s name (`1..=MAX_TASKS`), if it has one.
pub fn write_dump<const N: usize>(
    sink: &mut dyn Sink,
    ring: &Ring<N>,
    hz: u32,
    mut name: impl FnMut(usize) -> Option<[u8; NAME_LEN]>,
) {
    let (len, lost, restarted) = ring.counts();
    let mut line = Line::new();
    line.put(b"cpu_usage_trace v1 hz=");
    line.dec(hz);
    line.put(b" ids=");
    line.dec(MAX_TASKS as u32);
    line.put(b" events=");
    line.dec(len as u32);
    line.put(b" lost=");
    line.dec(lost);
    line.put(b" t0=");
    line.hex(ring.get(0).map_or(0, |e| e.ts));
    if restarted {
        line.put(b" restarted");
    }
    line.end(sink);

    let mut named = |line: &mut Line, id: u32, text: &[u8]| {
        line.put(b"N ");
        line.dec(id);
        line.put(b" ");
        for &b in text.iter().take_while(|&&b| b != 0) {
            line.put(&[if (0x20..0x7f).contains(&b) { b } else { b'?' }]);
        }
        line.end(sink);
    };
    named(&mut line, 0, b"(overflow)");
    for id in 1..=MAX_TASKS {
        if let Some(text) = name(id) {
            named(&mut line, id as u32, &text);
        }
    }
    named(&mut line, INTERRUPTS_ID, b"(interrupts)");
    named(&mut line, SLEEP_ID, b"(sleep)");
    named(&mut line, OTHER_ID, b"(other)");

    let mut prev = ring.get(0).map_or(0, |e| e.ts);
    for i in 0..len {
        let Some(e) = ring.get(i) else { break };
        if line.len == 0 {
            line.put(b"E ");
            line.dec(i as u32);
        }
        line.put(b" ");
        line.hex(e.ts.wrapping_sub(prev));
        prev = e.ts;
        if e.from == MARK {
            line.put(b".w");
            line.dec(ring.window_of(e.to));
        } else {
            line.put(b".");
            line.dec(dump_id(e.from));
            line.put(b".");
            line.dec(dump_id(e.to));
        }
        if line.room() < EVENT_ROOM || i + 1 == len {
            line.end(sink);
        }
    }
    line.put(b"end events=");
    line.dec(len as u32);
    line.end(sink);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Row, RowKind};

    struct Text(Vec<u8>);

    impl Sink for Text {
        fn put(&mut self, bytes: &[u8]) {
            self.0.extend_from_slice(bytes);
        }

        fn void(&mut self) {
            self.0.clear();
        }
    }

    fn ev(ts: u32, from: u16, to: u16) -> Event {
        Event { ts, from, to }
    }

    fn all<const N: usize>(ring: &Ring<N>) -> Vec<Event> {
        (0..ring.counts().0).map(|i| ring.get(i).unwrap()).collect()
    }

    #[test]
    fn a_full_ring_overwrites_the_oldest_and_counts_them_lost() {
        let mut ring = Ring::<4>::EMPTY;
        ring.on = true;
        for t in 0..3 {
            ring.push(ev(t, 1, 2));
        }
        assert_eq!(ring.counts(), (3, 0, false));
        assert_eq!(all(&ring), vec![ev(0, 1, 2), ev(1, 1, 2), ev(2, 1, 2)]);
        for t in 3..10 {
            ring.push(ev(t, 1, 2));
        }
        assert_eq!(ring.counts(), (4, 6, false));
        assert_eq!(all(&ring).iter().map(|e| e.ts).collect::<Vec<_>>(), vec![6, 7, 8, 9]);
        assert_eq!(ring.get(4), None);
        // Exactly full, with the head back at 0.
        let mut ring = Ring::<4>::EMPTY;
        for t in 0..4 {
            ring.push(ev(t, 1, 2));
        }
        assert_eq!((ring.head, ring.counts()), (0, (4, 0, false)));
        assert_eq!(all(&ring).iter().map(|e| e.ts).collect::<Vec<_>>(), vec![0, 1, 2, 3]);
    }

    #[test]
    fn start_clears_and_stop_ends_with_a_point() {
        let mut e = ApiEngine::new(1000);
        e.restart(100);
        let a = e.task_create(0, 100, b"a");
        e.switch_in(0, 150, a);
        let mut ring = Ring::<4>::EMPTY;
        for t in 0..9 {
            ring.push(ev(t, 1, 2));
        }
        ring.start(&e);
        assert_eq!(ring.counts(), (1, 0, false));
        assert_eq!(all(&ring), vec![ev(150, a as u16, a as u16)]);
        assert!(ring.stop(&e));
        assert!(!ring.stop(&e), "already stopped");
        assert_eq!(all(&ring), vec![ev(150, a as u16, a as u16); 2]);
        // Stopped, hooks record nothing.
        let from = e.charged_slot(0);
        e.switch_in(0, 200, a);
        ring.note(&e, from);
        assert_eq!(ring.counts().0, 2);
    }

    #[test]
    fn window_numbers_are_rebuilt_from_16_bits() {
        let mut ring = Ring::<16>::EMPTY;
        ring.last_mark = 0x1_0002;
        assert_eq!(ring.window_of(2), 0x1_0002);
        assert_eq!(ring.window_of(0xffff), 0xffff);
        assert_eq!(ring.window_of(0xfff0), 0xfff0);
        ring.last_mark = 5;
        assert_eq!(ring.window_of(1), 1);
    }

    /// A scenario through the engine with every hook traced: the time of each slot
    /// between two markers, summed from the events, is the engine's figure for that
    /// window exactly.
    #[test]
    fn slot_times_between_markers_are_the_windows_counts() {
        let mut e = ApiEngine::new(1000);
        e.restart(0);
        let mut ring = Ring::<512>::EMPTY;
        let a = e.task_create(0, 0, b"a");
        let b = e.task_create(0, 0, b"b");
        let idle = e.task_create(0, 0, b"IDLE");
        e.scheduler_start(idle);
        ring.start(&e);
        let mut t = 0u32;
        let traced = |e: &mut ApiEngine, ring: &mut Ring<512>, f: &dyn Fn(&mut ApiEngine)| {
            let from = e.charged_slot(0);
            f(e);
            ring.note(e, from);
        };
        for round in 0..40u32 {
            t += 37 + round % 5;
            traced(&mut e, &mut ring, &|e| e.switch_in(0, t, a));
            t += 11;
            traced(&mut e, &mut ring, &|e| e.isr_enter(0, t));
            t += 3;
            traced(&mut e, &mut ring, &|e| e.isr_exit(0, t));
            t += 50;
            traced(&mut e, &mut ring, &|e| {
                e.tick(0, t);
            });
            t += 20 + round;
            traced(&mut e, &mut ring, &|e| e.switch_in(0, t, b));
            t += 5;
            traced(&mut e, &mut ring, &|e| e.switch_in(0, t, idle));
            t += 9;
            traced(&mut e, &mut ring, &|e| e.sleep_begin(0, t));
            t += 40;
            traced(&mut e, &mut ring, &|e| e.sleep_end(0, t));
            // The last window closes before the trace is cut: check it.
            if round == 20 {
                let mut rows = [Row::EMPTY; 40];
                let s = e.read_window(&mut rows).unwrap();
                let events = all(&ring);
                let sums = sum_window(&events, s.window);
                let rows = &rows[..s.rows];
                for r in rows {
                    let slot = match r.kind {
                        RowKind::Interrupts => ISR,
                        RowKind::Sleep => SLEEP,
                        RowKind::Overflow => OVERFLOW,
                        _ => usize::from(r.id),
                    };
                    assert_eq!(sums[slot], r.counts, "window {} slot {slot}", s.window);
                }
                assert_eq!(sums.iter().sum::<u64>(), s.length);
                assert!(rows.iter().all(|r| r.counts != 0 || r.kind == RowKind::Overflow));
            }
        }
        assert!(ring.counts().0 > 100);
        assert_eq!(ring.counts().1, 0);
    }

    /// Each engine slot's counts in window `w`: from marker `w` to marker `w + 1`.
    fn sum_window(events: &[Event], w: u32) -> Vec<u64> {
        let mut sums = vec![0u64; MAX_TASKS + 4];
        let (mut inside, mut charged, mut prev) = (false, 0usize, 0u32);
        for e in events {
            if inside {
                sums[charged] += u64::from(e.ts.wrapping_sub(prev));
            }
            prev = e.ts;
            if e.from == MARK {
                if inside && e.to == (w + 1) as u16 {
                    return sums;
                }
                inside |= e.to == w as u16;
            } else {
                charged = usize::from(e.to);
            }
        }
        panic!("window {w} is not complete in the trace");
    }

    #[test]
    fn a_restart_stops_recording() {
        let mut e = ApiEngine::new(1000);
        e.restart(0);
        let a = e.task_create(0, 0, b"a");
        let mut ring = Ring::<16>::EMPTY;
        for _ in 0..3 {
            let from = e.charged_slot(0);
            e.tick(0, e.trace_clock(0).2 + 1000);
            ring.note(&e, from);
        }
        ring.start(&e);
        e.switch_in(0, 3500, a);
        e.restart(4000);
        let from = e.charged_slot(0);
        e.tick(0, 4100);
        ring.note(&e, from);
        assert!(!ring.is_on());
        assert_eq!(ring.counts(), (1, 0, true));
    }

    /// Every line ends in its checksum and is short; returns the lines without it.
    fn lines(text: &[u8]) -> Vec<String> {
        let text = std::str::from_utf8(text).unwrap();
        assert!(text.ends_with('\n'));
        text.lines()
            .map(|l| {
                assert!(l.len() <= LINE_MAX + 3, "{l}");
                let (body, sum) = l.rsplit_once('*').unwrap();
                let x = body.bytes().fold(0u8, |x, b| x ^ b);
                assert_eq!(sum, format!("{x:02x}"), "{l}");
                body.to_string()
            })
            .collect()
    }

    #[test]
    fn the_dump_encoding() {
        let mut ring = Ring::<8>::EMPTY;
        ring.on = true;
        ring.last_mark = 0x1_0001;
        ring.push(ev(0xffff_fff0, 1, 1));
        ring.push(ev(0xffff_fff8, 1, ISR as u16));
        ring.push(ev(0xffff_ffff, MARK, 0));
        ring.push(ev(0x10, ISR as u16, OVERFLOW as u16));
        ring.push(ev(0x20, OVERFLOW as u16, SLEEP as u16));
        ring.push(ev(0x30, SLEEP as u16, OTHER as u16));
        ring.push(ev(0x40, MARK, 1));
        ring.stop_at(0x40, OTHER as u16);
        let mut out = Text(Vec::new());
        write_dump(&mut out, &ring, 1_000_000, |id| (id == 1).then_some(*b"work\x01\0\0\0\0\0\0\0\0\0\0\0"));
        let m = MAX_TASKS;
        assert_eq!(
            lines(&out.0),
            vec![
                format!("cpu_usage_trace v1 hz=1000000 ids={m} events=8 lost=0 t0=fffffff0"),
                "N 0 (overflow)".to_string(),
                "N 1 work?".to_string(),
                format!("N {} (interrupts)", m + 1),
                format!("N {} (sleep)", m + 2),
                format!("N {} (other)", m + 3),
                format!(
                    "E 0 0.1.1 8.1.{i} 7.w65536 11.{i}.0 10.0.{s} 10.{s}.{o} 10.w65537 0.{o}.{o}",
                    i = m + 1,
                    s = m + 2,
                    o = m + 3
                ),
                "end events=8".to_string(),
            ]
        );
    }

    #[test]
    fn long_dumps_are_cut_into_short_lines() {
        let mut ring = Ring::<64>::EMPTY;
        ring.on = true;
        for i in 0..70u32 {
            ring.push(ev(i.wrapping_mul(0x9e37_79b9), (i % 3) as u16, ((i + 1) % 3) as u16));
        }
        let mut out = Text(Vec::new());
        write_dump(&mut out, &ring, 25_000_000, |_| None);
        let lines = lines(&out.0);
        assert!(lines[0].contains(" events=64 lost=6 "), "{}", lines[0]);
        let mut next = 0;
        for l in lines.iter().filter(|l| l.starts_with("E ")) {
            let mut words = l.split(' ').skip(1);
            assert_eq!(words.next().unwrap().parse::<usize>().unwrap(), next, "{l}");
            next += words.count();
        }
        assert_eq!(next, 64);
        assert_eq!(lines.last().unwrap(), "end events=64");
    }

    #[test]
    fn words() {
        assert_eq!(parse_trace(None), Some(TraceCmd::Status));
        assert_eq!(parse_trace(Some(b"start")), Some(TraceCmd::Start));
        assert_eq!(parse_trace(Some(b"stop")), Some(TraceCmd::Stop));
        assert_eq!(parse_trace(Some(b"dump")), Some(TraceCmd::Dump));
        assert_eq!(parse_trace(Some(b"status")), Some(TraceCmd::Status));
        assert_eq!(parse_trace(Some(b"STOP")), None);
        assert_eq!(parse_trace(Some(b"")), None);
    }

    impl<const N: usize> Ring<N> {
        fn stop_at(&mut self, ts: u32, slot: u16) {
            self.push(ev(ts, slot, slot));
            self.on = false;
        }
    }
}
