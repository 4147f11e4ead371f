//! Turning a copy of the engine's figures into the `show_cpu_usage` text and JSON.
//!
//! Pure formatting: it runs after the copy, outside the critical section, and uses
//! integer fixed point only (no float, no `core::fmt`, no panic path). Percentages
//! are hundredths of a percent, apportioned by largest remainder so that the lines
//! of a report add up to exactly 100.00%, as the counts behind them add up exactly
//! to the window.

mod args;
mod text;

pub use args::{parse, BadArgs, Options};
pub use text::{write_error, write_no_window, write_report, write_usage, ClockInfo, Sink};

use crate::engine::{Row, MAX_TASKS};

/// Rows a report needs: every task, the shared bucket, and the summary lines.
pub const REPORT_ROWS: usize = MAX_TASKS + 3;

/// Fills in each row's `pct`, its share of the rows' total in hundredths of a
/// percent, so that the shares add up to exactly 10000: each row gets the floor of
/// its share, and the hundredths left over go to the rows with the largest
/// remainders.
pub fn apportion(rows: &mut [Row]) {
    let total = rows.iter().fold(0u64, |sum, r| sum.saturating_add(r.counts));
    // Scale down so that counts × 10000 cannot overflow (only past 2^50 counts).
    let shift = (64 - total.leading_zeros()).saturating_sub(50);
    let total = rows.iter().fold(0u64, |sum, r| sum + (r.counts >> shift));
    if total == 0 {
        rows.iter_mut().for_each(|r| r.pct = 0);
        return;
    }
    // (checked_* only because the compiler cannot see that `total` is not 0 here.)
    let share = |counts: u64| {
        let c = (counts >> shift) * 10_000;
        (c.checked_div(total).unwrap_or(0), c.checked_rem(total).unwrap_or(0))
    };
    let mut given: u64 = 0;
    for r in rows.iter_mut() {
        let (q, _) = share(r.counts);
        r.pct = q as u16;
        given += q;
    }
    // Fewer hundredths are left than rows with a remainder; each row gets one at most.
    let mut bumped = [false; REPORT_ROWS];
    let mut left = 10_000u64.saturating_sub(given);
    while left > 0 {
        let best = rows
            .iter()
            .enumerate()
            .filter(|(i, r)| share(r.counts).1 != 0 && !bumped.get(*i).copied().unwrap_or(true))
            .max_by_key(|(i, r)| (share(r.counts).1, core::cmp::Reverse(*i)));
        let Some((i, _)) = best else { break };
        if let (Some(r), Some(b)) = (rows.get_mut(i), bumped.get_mut(i)) {
            r.pct += 1;
            *b = true;
        }
        left -= 1;
    }
}

/// Microseconds in `counts` of a clock at `hz`, without overflow.
pub fn counts_to_us(counts: u64, hz: u32) -> u64 {
    let hz = u64::from(hz);
    let (Some(secs), Some(rest)) = (counts.checked_div(hz), counts.checked_rem(hz)) else {
        return 0; // no clock
    };
    secs * 1_000_000 + (rest * 1_000_000).checked_div(hz).unwrap_or(0)
}

#[cfg(test)]
mod tests;
