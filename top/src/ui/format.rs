//! How numbers read on the screen.

/// A bar of `pct` percent of `width` cells, in eighths of a cell.
pub(super) fn bar(pct: f64, width: usize) -> String {
    const PARTS: [&str; 8] = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"];
    let eighths = (pct.clamp(0.0, 100.0) / 100.0 * width as f64 * 8.0).round() as usize;
    let eighths = eighths.min(width * 8);
    let mut s = "█".repeat(eighths / 8);
    s.push_str(PARTS[eighths % 8]);
    s
}

/// The last `width` values as a sparkline of eighth blocks, the newest at the right
/// edge, scaled to their largest (at least 1%, so that a task that barely runs stays
/// low); blank where 0.
pub(super) fn spark(series: &[f64], width: usize) -> String {
    const LEVELS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
    let tail = &series[series.len().saturating_sub(width)..];
    let top = tail.iter().copied().fold(1.0f64, f64::max);
    let line: String = tail
        .iter()
        .map(|&v| if v <= 0.0 { ' ' } else { LEVELS[((v / top * 8.0).ceil() as usize).clamp(1, 8) - 1] })
        .collect();
    format!("{line:>width$}")
}

/// Percent as hundredths, the device's own resolution.
pub(super) fn hundredths(pct: f64) -> u64 {
    (pct.max(0.0) * 100.0).round() as u64
}

/// A duration in microseconds, to 10 µs below 100 ms.
pub(super) fn fmt_us(us: u64) -> String {
    match us {
        0..=999 => format!("{us} µs"),
        1_000..=99_999 => format!("{}.{:02} ms", us / 1_000, us % 1_000 / 10),
        100_000..=999_999 => format!("{}.{} ms", us / 1_000, us % 1_000 / 100),
        _ => format!("{}.{:02} s", us / 1_000_000, us % 1_000_000 / 10_000),
    }
}

/// A window length: whole seconds or milliseconds when it is one.
pub(super) fn fmt_window(us: u64) -> String {
    // Remainders kept apart: the workspace's Rust 1.80 has no `is_multiple_of`.
    let (sub_s, sub_ms) = (us % 1_000_000, us % 1_000);
    if us > 0 && sub_s == 0 {
        format!("{} s", us / 1_000_000)
    } else if us > 0 && sub_ms == 0 {
        format!("{} ms", us / 1_000)
    } else {
        fmt_us(us)
    }
}

/// A clock rate, exact: `15.625 MHz`, `32.768 kHz`.
pub(super) fn fmt_hz(hz: u64) -> String {
    let (unit, scale) = match hz {
        1_000_000.. => ("MHz", 1_000_000),
        1_000.. => ("kHz", 1_000),
        _ => return format!("{hz} Hz"),
    };
    let frac = format!("{:0width$}", hz % scale, width = if scale == 1_000_000 { 6 } else { 3 });
    let frac = frac.trim_end_matches('0');
    if frac.is_empty() {
        format!("{} {unit}", hz / scale)
    } else {
        format!("{}.{frac} {unit}", hz / scale)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_and_rates_read_well() {
        assert_eq!(fmt_us(0), "0 µs");
        assert_eq!(fmt_us(999), "999 µs");
        assert_eq!(fmt_us(1_234), "1.23 ms");
        assert_eq!(fmt_us(10_020), "10.02 ms");
        assert_eq!(fmt_us(123_456), "123.4 ms");
        assert_eq!(fmt_us(2_500_000), "2.50 s");
        assert_eq!(fmt_window(1_000_000), "1 s");
        assert_eq!(fmt_window(100_000), "100 ms");
        assert_eq!(fmt_window(1_500), "1.50 ms");
        assert_eq!(fmt_hz(15_625_000), "15.625 MHz");
        assert_eq!(fmt_hz(72_000_000), "72 MHz");
        assert_eq!(fmt_hz(32_768), "32.768 kHz");
        assert_eq!(fmt_hz(500), "500 Hz");
    }

    #[test]
    fn sparks_scale_to_their_largest_and_keep_the_last() {
        assert_eq!(spark(&[0.0, 10.0, 20.0, 40.0], 4), " ▂▄█");
        assert_eq!(spark(&[0.2, 0.5], 4), "  ▂▄", "below 1% scaled to 1%, the newest on the right");
        assert_eq!(spark(&[5.0; 30], 10), "█".repeat(10));
        assert_eq!(spark(&[], 3), "   ");
    }

    #[test]
    fn bars_are_in_eighths_and_never_overflow() {
        assert_eq!(bar(0.0, 10), "");
        assert_eq!(bar(50.0, 10), "█████");
        assert_eq!(bar(5.0, 10), "▌");
        assert_eq!(bar(100.0, 4), "████");
        assert_eq!(bar(250.0, 4), "████");
        assert_eq!(bar(-3.0, 4), "");
    }
}
