//! Integer arithmetic on the engine's figures: window lengths and smoothing weights
//! from milliseconds, shares in hundredths of a percent, counts to microseconds.
//!
//! None of it runs in a hook: the window arithmetic runs when the window or the clock
//! changes, the rest in the readers. No floating point, and no 64-bit division by the
//! compiler's routine (almost 1 KiB of flash on a Cortex-M3, which divides only 32-bit
//! numbers in hardware): every 64-bit division goes through [`div_rem`].

use super::MAX_WINDOW_COUNTS;

/// Default window length.
pub const DEFAULT_WINDOW_MS: u32 = 1000;
/// Longest window accepted: an hour (a longer one is no longer "live"); the clock
/// may allow less (2^31 counts: see [`max_window_ms`]).
pub const MAX_WINDOW_MS: u32 = 3_600_000;

/// The periods of the smoothed loads: about 1 s, 10 s and 60 s, as Linux's load
/// averages have 1, 5 and 15 minutes.
pub const SMOOTHING_MS: [u32; 3] = [1_000, 10_000, 60_000];

/// Window length in counts of a clock at `hz`, if it is between 1 and
/// `MAX_WINDOW_COUNTS` and `ms` is between 1 and `MAX_WINDOW_MS`.
pub const fn window_counts(ms: u32, hz: u32) -> Option<u32> {
    if ms == 0 || ms > MAX_WINDOW_MS {
        return None;
    }
    // ms × hz / 1000 without a 64-bit division: with hz = 1000 q + r, it is
    // ms × q + ms × r / 1000 exactly, and ms × r < 2^32 because ms is at most an hour.
    let (q, r) = (hz / 1000, hz % 1000);
    let counts = ms as u64 * q as u64 + (ms * r / 1000) as u64;
    if counts == 0 || counts > MAX_WINDOW_COUNTS as u64 {
        None
    } else {
        Some(counts as u32)
    }
}

/// The longest window a clock at `hz` allows, in milliseconds: `MAX_WINDOW_MS`, or
/// less when 2^31 counts of the clock are less than an hour (about 137 s at
/// 15.6 MHz, 85 s at 25 MHz). `MAX_WINDOW_MS` without a clock (`hz` 0).
pub fn max_window_ms(hz: u32) -> u32 {
    if hz == 0 {
        return MAX_WINDOW_MS;
    }
    // The largest ms with window_counts(ms, hz) <= 2^31: 2^31 × 1000 / hz, rounded
    // down, is at most that (the counts round down too) and one more is past it.
    let ms = div_rem(u64::from(MAX_WINDOW_COUNTS) * 1000 + 999, u64::from(hz)).0;
    let ms = u32::try_from(ms).unwrap_or(u32::MAX).min(MAX_WINDOW_MS);
    if window_counts(ms, hz).is_some() {
        ms
    } else {
        ms.saturating_sub(1)
    }
}

/// The weight a smoothed load keeps at each window of `window_ms`, to forget with
/// a time constant of `period_ms`: e^(-window/period) in 16-bit fixed point.
/// e^-x is (1 - x/1024)^1024, within 0.05% for x up to 1, by ten squarings in
/// 30-bit fixed point.
pub fn smoothing_keep(window_ms: u32, period_ms: u32) -> u32 {
    const ONE: u64 = 1 << 30;
    let step = div_rem(u64::from(window_ms) << 20, u64::from(period_ms)).0;
    let mut y = ONE.saturating_sub(step);
    for _ in 0..10 {
        y = (y * y) >> 30;
    }
    (y >> 14) as u32
}

/// The three smoothing weights for windows of `window_ms`.
pub fn smoothing_for(window_ms: u32) -> [u32; 3] {
    SMOOTHING_MS.map(|period| smoothing_keep(window_ms, period))
}

/// `part` as a share of `whole` in hundredths of a percent, rounded down, at most
/// 10000 (100.00%); 0 when `whole` is 0. (Past 2^50 both are scaled down first,
/// which can put it a hundredth off; never 100.00% when `part` is less than
/// `whole`.)
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

/// `counts` of a clock at `hz`, from `us` microseconds (rounded down); `None` past
/// 32 bits.
pub fn us_to_counts(us: u32, hz: u32) -> Option<u32> {
    u32::try_from(div_rem(u64::from(us) * u64::from(hz), 1_000_000).0).ok()
}

/// `(n / d, n % d)`, and `(0, 0)` when `d` is 0.
///
/// Every 64-bit division of the library goes through here, outside any critical
/// section. Numbers that fit 32 bits (most of them) take the hardware divide, inline
/// (a report divides a few times per line); the others `div_rem_wide`.
#[inline]
pub fn div_rem(n: u64, d: u64) -> (u64, u64) {
    if let (Ok(n32), Ok(d32)) = (u32::try_from(n), u32::try_from(d)) {
        return match n32.checked_div(d32) {
            Some(q) => (u64::from(q), u64::from(n32 - q.wrapping_mul(d32))),
            None => (0, 0),
        };
    }
    div_rem_wide(n, d)
}

/// [`div_rem`] of numbers that do not both fit 32 bits: in digits of a few bits,
/// one hardware divide each, for a divisor that fits 28 bits; one bit at a time
/// otherwise (rare: a total of more than 2^28 counts as divisor).
#[inline(never)]
fn div_rem_wide(n: u64, d: u64) -> (u64, u64) {
    if d == 0 {
        return (0, 0);
    }
    if let Ok(d32) = u32::try_from(d) {
        // A divisor below 2^(32 - k) leaves a remainder that, shifted left by k bits
        // with the next k bits of `n` in, still fits 32 bits: long division in digits
        // of k bits, one hardware division each. A clock's rate (below 2^28, 268 MHz)
        // as divisor takes 5 to 10 steps instead of 64 - 32 and more, a microsecond
        // or thousand as divisor 3 or 4.
        let k = d32.leading_zeros();
        if k >= 4 {
            let bits = 64 - n.leading_zeros();
            // Digits from the highest, whose low bit is at `pos`: the first digit
            // holds the bits left over above whole digits (`pos` < `bits` ≤ 64).
            let mut pos = (bits + k - 1).checked_div(k).unwrap_or(0) * k;
            let (mut q, mut r) = (0u64, 0u32);
            while pos >= k {
                pos -= k;
                let digit = (n >> pos) as u32 & ((1u32 << k) - 1);
                let cur = (r << k) | digit;
                let qd = cur.checked_div(d32).unwrap_or(0);
                r = cur - qd.wrapping_mul(d32);
                q = (q << k) | u64::from(qd);
            }
            return (q, u64::from(r));
        }
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

/// Shares of one total in hundredths of a percent that add up to exactly 10000,
/// for lines taken in one fixed order: a line gets the difference of the
/// rounded-down shares of the running sums before and after it (cumulative
/// rounding). So the lines add up to exactly 100.00%, a line with no counts gets 0,
/// each line is within a hundredth of its exact share (the floor or the ceiling of
/// it), and a line's share depends only on the counts before it in that order, not
/// on any other line or the order the lines are printed in.
#[derive(Clone, Copy, Debug)]
pub struct Shares {
    /// The total, scaled down by `shift` so that it fits 50 bits.
    total: u64,
    shift: u32,
}

impl Shares {
    /// Shares of `total` counts.
    pub fn of_total(total: u64) -> Shares {
        let shift = (64 - total.leading_zeros()).saturating_sub(50);
        Shares { total: total >> shift, shift }
    }

    /// The share of the line of `counts` that comes after `before` counts.
    pub fn of(&self, before: u64, counts: u64) -> u16 {
        self.upto(before.saturating_add(counts)).saturating_sub(self.upto(before))
    }

    /// The rounded-down share of the first `sum` counts, `⌊sum × 10000 / total⌋`
    /// (0 of no total): guessed from the 18 high bits of both with one 32-bit
    /// division, then put right.
    ///
    /// The guess is within one of the share: scaled down by the same power of two to
    /// `s` and `t` (`t` ≥ 2^17, or nothing was cut), `sum / total` lies between
    /// `s / (t + 1)` and `(s + 1) / t`, each less than `1 / t` from `s / t`, and
    /// 10000 / 2^17 < 1. So one step up or down puts it right, which the exact
    /// products (below 2^64: `sum` ≤ `total` < 2^50) tell.
    #[inline(never)]
    pub fn upto(&self, sum: u64) -> u16 {
        // `total` and `sum` scaled down further to 18 bits, for the guess.
        let coarse = (64 - self.total.leading_zeros()).saturating_sub(18);
        let small = (self.total >> coarse) as u32;
        if small == 0 {
            return 0;
        }
        let sum = (sum >> self.shift).min(self.total);
        let scaled = sum * 10_000;
        // (`sum >> coarse` ≤ `small` < 2^18, times 10000 < 2^32.)
        let guess = ((sum >> coarse) as u32 * 10_000).checked_div(small).unwrap_or(0);
        let mut share = u64::from(guess.min(10_000));
        if share * self.total > scaled {
            share -= 1;
        } else if (share + 1) * self.total <= scaled {
            share += 1;
        }
        share as u16
    }
}

/// Lines taken one after the other in that fixed order: each gets the counts before
/// it and its share (so no line is divided twice).
#[derive(Clone, Copy, Debug)]
pub struct ShareWalk {
    shares: Shares,
    before: u64,
    given: u16,
}

impl ShareWalk {
    /// Lines of `shares`' total, after `start` counts that are no line.
    pub fn new(shares: Shares, start: u64) -> ShareWalk {
        ShareWalk { shares, before: start, given: shares.upto(start) }
    }

    /// The next line, of `counts`: the counts before it, and its share.
    pub fn next(&mut self, counts: u64) -> (u64, u16) {
        let before = self.before;
        self.before = before.wrapping_add(counts);
        let upto = self.shares.upto(self.before);
        let share = upto.saturating_sub(self.given);
        self.given = upto;
        (before, share)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_add_up_and_stay_within_a_hundredth() {
        let lines = [1u64, 0, 3, 333, 12, 9_651, 7, 0];
        let total: u64 = lines.iter().sum();
        let shares = Shares::of_total(total);
        let (mut sum, mut before) = (0u64, 0u64);
        for &c in &lines {
            let got = u64::from(shares.of(before, c));
            before += c;
            let exact = c as f64 * 10_000.0 / total as f64;
            assert!((got as f64 - exact).abs() < 1.0, "{c}: {got} vs {exact}");
            if c == 0 {
                assert_eq!(got, 0);
            }
            sum += got;
        }
        assert_eq!(sum, 10_000);
    }

    #[test]
    fn a_share_is_the_rounded_down_quotient() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = || {
            // (xorshift: any spread of magnitudes will do)
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for _ in 0..200_000 {
            let total = next() >> (next() % 64);
            let sum = if total == 0 { 0 } else { next() % (total.saturating_add(1)).max(1) };
            let shares = Shares::of_total(total);
            let shift = (64 - total.leading_zeros()).saturating_sub(50);
            let want = if total == 0 { 0 } else { u128::from(sum >> shift) * 10_000 / u128::from(total >> shift) };
            assert_eq!(u128::from(shares.upto(sum)), want, "{sum} of {total}");
        }
        for total in [1u64, 2, 3, 9_999, 10_000, 10_001, (1 << 18) - 1, 1 << 18, (1 << 18) + 1, u64::MAX] {
            let shares = Shares::of_total(total);
            assert_eq!(shares.upto(total), 10_000);
            assert_eq!(shares.upto(0), 0);
            assert_eq!(shares.upto(u64::MAX), 10_000);
        }
    }

    #[test]
    fn shares_of_huge_totals_add_up() {
        let lines = [u64::MAX / 3, u64::MAX / 3 - 5, u64::MAX / 3 + 5];
        let total = lines.iter().fold(0u64, |a, &b| a.wrapping_add(b));
        let shares = Shares::of_total(total);
        let mut before = 0u64;
        let sum: u64 = lines
            .iter()
            .map(|&c| {
                before = before.wrapping_add(c);
                u64::from(shares.of(before - c, c))
            })
            .sum();
        assert_eq!(sum, 10_000);
    }

    #[test]
    fn div_rem_is_the_quotient_and_remainder() {
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        // Every size of divisor (the digit-wise path below 2^28, the bit-wise one
        // above) against every size of dividend, and the edges of each.
        let edges =
            [0u64, 1, 2, 3, 9, 10, 999, 1_000, 1_000_000, 25_000_000, (1 << 28) - 1, 1 << 28, u64::from(u32::MAX)];
        for _ in 0..200_000 {
            let n = next() >> (next() % 64);
            let d = next() >> (next() % 64);
            for (n, d) in
                [(n, d), (n, edges[(d % 13) as usize]), (edges[(n % 13) as usize], d), (u64::MAX, d), (n, u64::MAX)]
            {
                let want = n.checked_div(d).map_or((0, 0), |q| (q, n % d));
                assert_eq!(div_rem(n, d), want, "{n} / {d}");
            }
        }
    }

    #[test]
    fn the_longest_window_follows_the_clock() {
        for hz in [1u32, 1000, 15_625_000, 20_000_000, 25_000_000, u32::MAX] {
            let ms = max_window_ms(hz);
            assert!(window_counts(ms, hz).is_some(), "{hz} Hz: {ms} ms");
            assert!(ms == MAX_WINDOW_MS || window_counts(ms + 1, hz).is_none(), "{hz} Hz: {ms} ms");
        }
        assert_eq!(max_window_ms(15_625_000), 137_438);
        assert_eq!(max_window_ms(0), MAX_WINDOW_MS);
    }
}
