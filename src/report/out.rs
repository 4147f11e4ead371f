//! What a report is written with: the [`Sink`] it goes to, and the cells of numbers,
//! shares, durations and names, each formatted right to left into a small buffer
//! ([`Cell`]) so that it goes out in one piece. Integers only: no float, no
//! `core::fmt`, no panic path.

use core::mem::MaybeUninit;

use super::div_rem;
use crate::engine::{Row, RowKind, NAME_LEN};

/// Where formatted bytes go: a caller's buffer, or the output callback in pieces.
pub trait Sink {
    /// Appends bytes.
    fn put(&mut self, bytes: &[u8]);

    /// Appends bytes that end no line (no `\n` among them): the cells, which are
    /// most of a report's bytes, go out without a look for a line's end.
    fn put_in_line(&mut self, bytes: &[u8]) {
        self.put(bytes);
    }

    /// A report begins here (after what answered its options, such as `-w`).
    fn begin(&mut self) {}

    /// The report begun is void: its figures changed before it was out (see
    /// `CPU_USAGE_ERR_CHANGED`). A buffer drops it; a line already partly out is
    /// ended. What follows says why; the report is never written twice.
    fn void(&mut self);

    /// The report's task line `n` (from 0, in the order printed) begins: what to do
    /// with it. A sink that hands a long report out in pieces
    /// (`cpu_usage_cli_command`) skips the lines an earlier piece gave out, whose
    /// length it knows, and stops the report once its piece is full.
    fn task_line(&mut self, n: u32) -> Go {
        let _ = n;
        Go::Write
    }
}

/// What a report does with a task line (see [`Sink::task_line`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Go {
    /// Write it.
    Write,
    /// Count it, but write nothing: its text went out before.
    Skip,
    /// Stop the report: nothing more of it is wanted now.
    Stop,
}

/// Bytes of a [`Cell`]: a 64-bit number, a point, three decimals and a unit.
pub(super) const CELL: usize = 32;

/// One cell of a report (a number, a share, a duration), written right to left
/// into a small buffer so that it goes out in one piece.
pub(super) struct Cell {
    /// `buf[at..]` is written; the rest is never read, so it is left uninitialised.
    buf: [MaybeUninit<u8>; CELL],
    at: usize,
}

impl Cell {
    pub(super) fn new() -> Cell {
        Cell { buf: [MaybeUninit::uninit(); CELL], at: CELL }
    }

    /// Puts `b` in front (nothing once the cell is full).
    pub(super) fn byte(&mut self, b: u8) {
        // (At 0, `at - 1` wraps past the end: no slot.)
        let at = self.at.wrapping_sub(1);
        if let Some(slot) = self.buf.get_mut(at) {
            slot.write(b);
            self.at = at;
        }
    }

    /// Puts `bytes` in front.
    pub(super) fn put(&mut self, bytes: &[u8]) {
        for &b in bytes.iter().rev() {
            self.byte(b);
        }
    }

    /// Puts `value` in decimal in front, with at least `min` digits (zeros in
    /// front). The digits of the low 32 bits come from a division by the constant
    /// 10 (a multiplication); above 32 bits (rare), from `div_rem`
    /// ([`Cell::wide_digits`]).
    #[inline(never)]
    pub(super) fn digits(&mut self, value: u64, min: usize) {
        let end = self.at;
        let mut low = match u32::try_from(value) {
            Ok(low) => low,
            Err(_) => self.wide_digits(value),
        };
        loop {
            self.byte(b'0' + (low % 10) as u8);
            low /= 10;
            if low == 0 {
                break;
            }
        }
        let start = end.saturating_sub(min);
        while self.at > start {
            self.byte(b'0');
        }
    }

    /// The last digits of `value`, which is past 32 bits, in front, until what is
    /// left fits 32 bits: returned. Each digit is a long division by 10 in 16-bit
    /// steps (a remainder below 10, shifted 16 bits left with the next 16 bits in,
    /// still fits 32 bits), so each step is a division by the constant 10, a
    /// multiplication. (Apart from `digits`, and calling nothing: under every cell
    /// printed, a 64-bit division's registers and call would be on the stack.)
    #[inline(never)]
    #[cold]
    fn wide_digits(&mut self, value: u64) -> u32 {
        let (mut hi, mut lo) = ((value >> 32) as u32, value as u32);
        while hi != 0 {
            let r = hi % 10;
            hi /= 10;
            let mid = (r << 16) | (lo >> 16);
            let low = ((mid % 10) << 16) | (lo & 0xffff);
            lo = ((mid / 10) << 16) | (low / 10);
            self.byte(b'0' + (low % 10) as u8);
        }
        lo
    }

    /// Hundredths as `12.34` in front.
    pub(super) fn pct(&mut self, hundredths: u64) {
        let (whole, frac) = div_rem(hundredths, 100);
        self.digits(frac, 2);
        self.byte(b'.');
        self.digits(whole, 1);
    }

    /// Puts `fill` in front until the cell is `width` bytes long (or full).
    pub(super) fn pad(&mut self, width: usize, fill: u8) {
        let start = CELL.saturating_sub(width);
        while self.at > start {
            self.byte(fill);
        }
    }

    pub(super) fn bytes(&self) -> &[u8] {
        let written = self.buf.get(self.at..).unwrap_or(&[]);
        // SAFETY: `buf[at..]` was written (`at` only goes down, past written bytes).
        unsafe { core::slice::from_raw_parts(written.as_ptr().cast::<u8>(), written.len()) }
    }
}

/// The sink with the number and text formatting the figures need.
pub(super) struct Out<'s>(pub(super) &'s mut dyn Sink);

impl Out<'_> {
    pub(super) fn put(&mut self, bytes: &[u8]) {
        self.0.put(bytes);
    }

    /// Bytes that end no line: see [`Sink::put_in_line`].
    fn put_in_line(&mut self, bytes: &[u8]) {
        self.0.put_in_line(bytes);
    }

    // Not inlined: a call here is smaller than the virtual call it makes.
    #[inline(never)]
    pub(super) fn byte(&mut self, b: u8) {
        self.0.put(&[b]);
    }

    /// `n` times the byte `b` (a space, `0` or `-`), in pieces of up to 16.
    #[inline(never)]
    pub(super) fn fill(&mut self, b: u8, n: usize) {
        let piece: &[u8; 16] = match b {
            b'0' => b"0000000000000000",
            b'-' => b"----------------",
            _ => b"                ",
        };
        let mut left = n;
        while left > 0 {
            let now = left.min(piece.len());
            self.put_in_line(piece.get(..now).unwrap_or(&[]));
            left -= now;
        }
    }

    /// `value` in decimal, right-aligned in `width` columns filled with `fill`;
    /// returns the columns written.
    #[inline(always)]
    pub(super) fn num(&mut self, value: u64, width: usize, fill: u8) -> usize {
        self.num_in(b"", value, width, fill, b"")
    }

    /// `lead`, `value` as [`Out::num`] puts it, then `tail` (a few bytes each), in
    /// one piece; returns the columns of the number. (A cell's separators go out
    /// with it: one call of the sink per cell, not three.)
    #[inline(never)]
    pub(super) fn num_in(&mut self, lead: &[u8], value: u64, width: usize, fill: u8, tail: &[u8]) -> usize {
        let mut cell = Cell::new();
        cell.put(tail);
        let end = cell.at;
        cell.digits(value, 1);
        if width > end {
            // Wider than the cell: filled in front of it.
            self.put_in_line(lead);
            self.fill(fill, width - end);
            cell.pad(CELL, fill);
            self.put_in_line(cell.bytes());
            return width;
        }
        let start = end - width;
        while cell.at > start {
            cell.byte(fill);
        }
        let columns = end - cell.at;
        cell.put(lead);
        self.put_in_line(cell.bytes());
        columns
    }

    /// `lead` (a few bytes), then `cell` right-aligned in `width` columns filled
    /// with `fill`, in one piece (a cell wider than a `Cell` is filled in front of
    /// it); returns the columns of the cell. (Inlined: a call more deep under every
    /// cell.)
    #[inline(always)]
    pub(super) fn cell(&mut self, lead: &[u8], cell: &mut Cell, width: usize, fill: u8) -> usize {
        if width > CELL {
            self.put_in_line(lead);
            self.fill(fill, width - CELL);
        }
        cell.pad(width, fill);
        let columns = cell.bytes().len().max(width);
        if width <= CELL {
            cell.put(lead);
        }
        self.put_in_line(cell.bytes());
        columns
    }

    /// A number with no padding.
    pub(super) fn int(&mut self, value: u64) {
        self.num(value, 0, b' ');
    }

    /// Hundredths of a percent as `12.34`, the whole part right-aligned in `width`.
    #[inline(never)]
    pub(super) fn pct(&mut self, hundredths: u64, width: usize) {
        let mut cell = Cell::new();
        cell.pct(hundredths);
        self.cell(b"", &mut cell, width + 3, b' ');
    }

    /// `lead`, then a share for the table, `12.34%` right-aligned in `width`:
    /// `<0.01%` for a share of something that rounds to nothing, `0` for nothing at
    /// all.
    #[inline(never)]
    pub(super) fn share(&mut self, lead: &[u8], hundredths: u16, something: bool, width: usize) {
        let mut cell = Cell::new();
        if !something {
            cell.put(b"0");
        } else if hundredths == 0 {
            cell.put(b"<0.01%");
        } else {
            cell.put(b"%");
            cell.pct(u64::from(hundredths));
        }
        self.cell(lead, &mut cell, width, b' ');
    }

    /// `lead`, then microseconds as `1234.567 ms` or, from 100 s on, `123.456 s`,
    /// right-aligned in `width` columns.
    #[inline(never)]
    pub(super) fn duration(&mut self, lead: &[u8], us: u64, width: usize) {
        let (ms, us_frac) = div_rem(us, 1_000);
        let (whole, frac, unit) = if us >= 100_000_000 {
            let (secs, ms_frac) = div_rem(ms, 1_000);
            (secs, ms_frac, " s")
        } else {
            (ms, us_frac, " ms")
        };
        let mut cell = Cell::new();
        cell.put(unit.as_bytes());
        cell.digits(frac, 3);
        cell.put(b".");
        cell.digits(whole, 1);
        self.cell(lead, &mut cell, width, b' ');
    }

    /// A name for the table (as [`name_of`] gives it, or a label): printable ASCII
    /// as is, anything else as `?`, cut to and padded to `NAME_LEN` columns;
    /// `(no name)` if empty.
    #[inline(never)]
    pub(super) fn name_cell(&mut self, name: &[u8]) {
        let name: &[u8] = if name.is_empty() { b"(no name)" } else { name };
        let name = name.get(..NAME_LEN).unwrap_or(name);
        let mut cell = [b' '; NAME_LEN];
        for (c, &b) in cell.iter_mut().zip(name) {
            *c = if (0x20..0x7f).contains(&b) { b } else { b'?' };
        }
        self.put_in_line(&cell);
    }

    /// A JSON string: quotes, backslashes and every byte outside printable ASCII
    /// escaped, so the line stays valid JSON and valid ASCII whatever the name holds.
    #[inline(never)]
    pub(super) fn json_str(&mut self, bytes: &[u8]) {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        self.byte(b'"');
        for &b in bytes {
            match b {
                b'"' | b'\\' => self.put(&[b'\\', b]),
                0x20..=0x7e => self.byte(b),
                _ => {
                    let hi = HEX.get(usize::from(b >> 4)).copied().unwrap_or(b'0');
                    let lo = HEX.get(usize::from(b & 15)).copied().unwrap_or(b'0');
                    self.put(&[b'\\', b'u', b'0', b'0', hi, lo]);
                }
            }
        }
        self.byte(b'"');
    }

    /// `,"key":` and a number.
    #[inline(never)]
    pub(super) fn key_int(&mut self, key: &[u8], value: u64) {
        self.key(key);
        self.int(value);
    }

    /// `,"key":` and a share, `12.34`.
    #[inline(never)]
    pub(super) fn key_pct(&mut self, key: &[u8], hundredths: u16) {
        self.key(key);
        self.pct(u64::from(hundredths), 0);
    }

    /// `,"key":`.
    #[inline(never)]
    pub(super) fn key(&mut self, key: &[u8]) {
        self.put(b",\"");
        self.put(key);
        self.put(b"\":");
    }
}

/// A name up to its first NUL, at most `NAME_LEN` bytes.
pub(super) fn trim(name: &[u8]) -> &[u8] {
    let name = name.get(..NAME_LEN).unwrap_or(name);
    let end = name.iter().position(|&b| b == 0).unwrap_or(name.len());
    name.get(..end).unwrap_or(&[])
}

/// A row's name in the report: the summary lines are named by their label.
pub(super) fn name_of(row: &Row) -> &[u8] {
    match row.kind {
        RowKind::Overflow => b"(overflow)",
        RowKind::Other => b"other",
        RowKind::Interrupts => b"interrupts",
        RowKind::Sleep => b"sleep",
        RowKind::Task | RowKind::Idle => trim(&row.name),
    }
}
