//! Turning a copy of the engine's figures into the `show_cpu_usage` text and JSON.
//!
//! Pure formatting: it runs after the copy, outside the critical section, and uses
//! integer fixed point only (no float, no `core::fmt`, no panic path). Percentages
//! are hundredths of a percent, apportioned by largest remainder so that the lines
//! of a report add up to exactly 100.00%, as the counts behind them add up exactly
//! to the window. The `cpu_usage_watchdog` command's arguments and texts are here
//! too, under the same rules.

mod args;
mod text;
mod watchdog;

pub use args::{parse, BadArgs, Options, Problem};
pub use text::{write_error, write_no_window, write_report, write_usage, write_window_set, ClockInfo, Sink};
pub use watchdog::{parse_watchdog, write_watchdog_error, write_watchdog_status, write_watchdog_usage, WatchCmd};

use crate::engine::{Row, MAX_TASKS};

/// Rows a report needs: every task, the shared bucket, interrupts, sleep, and the
/// summary lines ("other", and "deleted" since start).
pub const REPORT_ROWS: usize = MAX_TASKS + 5;

/// Fills in each row's `pct`, its share of the rows' total in hundredths of a
/// percent, so that the shares add up to exactly 10000: each row gets the floor of
/// its share, and the hundredths left over go to the rows with the largest
/// remainders (the earlier row first on a tie).
pub fn apportion(rows: &mut [Row]) {
    let total = rows.iter().fold(0u64, |sum, r| sum.saturating_add(r.counts));
    // Scale down so that counts × 10000 cannot overflow (only past 2^50 counts).
    let shift = (64 - total.leading_zeros()).saturating_sub(50);
    let total = rows.iter().fold(0u64, |sum, r| sum.wrapping_add(r.counts >> shift));
    let shares = Shares { shift, total };
    // (With a total of 0 every share is (0, 0), and nothing is left to give.)
    let mut left: usize = if total == 0 { 0 } else { 10_000 };
    // Each row's remainder, worked out once: the ranking below compares every row
    // with every other, and a 64-bit division costs a hundred instructions here.
    let mut rems = [0u64; REPORT_ROWS];
    for (i, r) in rows.iter_mut().enumerate() {
        let (q, rest) = shares.of(r.counts);
        // (A share is 10000 at most.)
        r.pct = q as u16;
        if let Some(rem) = rems.get_mut(i) {
            *rem = rest;
        }
        left = left.saturating_sub(q as usize);
    }
    // (Rows past REPORT_ROWS, which the library never makes, are worked out again.)
    let rem = |rows: &[Row], j: usize| match rems.get(j) {
        Some(&rem) => rem,
        None => rows.get(j).map_or(0, |r| shares.of(r.counts).1),
    };
    // Fewer hundredths are left than rows with a remainder, and each such row gets
    // one at most: a row gets one if fewer than `left` rows come before it in the
    // order "larger remainder, then lower index".
    for i in 0..rows.len() {
        let mine = rem(rows, i);
        if mine == 0 {
            continue;
        }
        let ahead = (0..rows.len())
            .filter(|&j| {
                let other = rem(rows, j);
                other > mine || (other == mine && j < i)
            })
            .count();
        if let (true, Some(r)) = (ahead < left, rows.get_mut(i)) {
            r.pct += 1;
        }
    }
}

/// How a count becomes a share of the total.
struct Shares {
    shift: u32,
    total: u64,
}

impl Shares {
    /// `counts`' share of the total in hundredths of a percent: (floor, remainder).
    /// (Not inlined: `apportion` needs it in two places.)
    #[inline(never)]
    fn of(&self, counts: u64) -> (u64, u64) {
        div_rem((counts >> self.shift) * 10_000, self.total)
    }
}

/// `part` as a share of `whole` in hundredths of a percent, rounded down, at most
/// 10000 (100.00%); 0 when `whole` is 0. (Past 2^50 both are scaled down first, as
/// in [`apportion`], which can put it a hundredth off; never 100.00% when `part`
/// is less than `whole`.)
pub fn pct_of(part: u64, whole: u64) -> u16 {
    if whole == 0 {
        return 0;
    }
    if part >= whole {
        return 10_000;
    }
    // Scale both down so that part × 10000 cannot overflow; `whole` keeps 50 bits,
    // so it stays above 0.
    let shift = (64 - whole.leading_zeros()).saturating_sub(50);
    div_rem((part >> shift) * 10_000, whole >> shift).0.min(9_999) as u16
}

/// Microseconds in `counts` of a clock at `hz` (0 without a clock), without
/// overflow in between (the result wraps past 2^64 us, half a million years).
pub fn counts_to_us(counts: u64, hz: u32) -> u64 {
    let (secs, rest) = div_rem(counts, u64::from(hz));
    secs.wrapping_mul(1_000_000).wrapping_add(div_rem(rest * 1_000_000, u64::from(hz)).0)
}

/// `(n / d, n % d)`, and `(0, 0)` when `d` is 0.
///
/// Every 64-bit division of the library goes through here. Cortex-M3 divides 32-bit
/// numbers in hardware but has no 64-bit divide: left to the compiler, `/` on `u64`
/// links a general routine of almost 1 KiB. The reports divide a few hundred
/// numbers at most, outside any critical section, so one bit at a time is plenty;
/// numbers that fit 32 bits (most of them) take the hardware divide.
#[inline(never)]
pub(crate) fn div_rem(n: u64, d: u64) -> (u64, u64) {
    if d == 0 {
        return (0, 0);
    }
    if let (Ok(n32), Ok(d32)) = (u32::try_from(n), u32::try_from(d)) {
        let q = n32.checked_div(d32).unwrap_or(0);
        return (u64::from(q), u64::from(n32 - q.wrapping_mul(d32)));
    }
    // Long division, one bit of `n` per step from its highest set bit down; the bits
    // of the quotient shift in where those of `n` shift out.
    let skip = n.leading_zeros();
    // (wrapping: shifting 0 by 64 is still 0, and then no step runs.)
    let mut q = n.wrapping_shl(skip);
    let mut r: u64 = 0;
    for _ in skip..64 {
        // `r < d`, so `r` doubled fits 65 bits: the 65th is the carry.
        let carry = r >> 63 != 0;
        r = (r << 1) | (q >> 63);
        q <<= 1;
        if carry || r >= d {
            r = r.wrapping_sub(d);
            q |= 1;
        }
    }
    (q, r)
}

#[cfg(test)]
mod tests;
