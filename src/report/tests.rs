//! Report tests: exact text for known figures.

use super::*;
use crate::engine::{Row, RowKind, SlotStats, Summary, NAME_LEN};

struct Text(Vec<u8>);

impl Sink for Text {
    fn put(&mut self, bytes: &[u8]) {
        self.0.extend_from_slice(bytes);
    }
}

fn task(id: u16, name: &str, counts: u64) -> Row {
    let mut n = [0u8; NAME_LEN];
    n[..name.len()].copy_from_slice(name.as_bytes());
    Row { counts, name: n, id, kind: RowKind::Task, deleted: false, pct: 0, ..Row::EMPTY }
}

fn pcts(counts: &[u64]) -> Vec<u16> {
    let mut rows: Vec<Row> = counts.iter().map(|&c| task(1, "t", c)).collect();
    apportion(&mut rows);
    rows.iter().map(|r| r.pct).collect()
}

#[test]
fn shares_add_up_to_exactly_one_hundred_percent() {
    assert_eq!(pcts(&[1, 1, 1]), [3334, 3333, 3333]);
    assert_eq!(pcts(&[1000, 0, 3000]), [2500, 0, 7500]);
    assert_eq!(pcts(&[0, 0]), [0, 0]);
    assert_eq!(pcts(&[1, 999_999]), [0, 10_000]);
    for counts in [&[7u64, 11, 13, 17, 19, 23, 29][..], &[u64::MAX / 3, u64::MAX / 3, 5], &[1; 40]] {
        assert_eq!(pcts(counts).iter().map(|&p| u32::from(p)).sum::<u32>(), 10_000, "{counts:?}");
    }
}

#[test]
fn microseconds_from_counts_do_not_overflow() {
    assert_eq!(counts_to_us(15_625_000, 15_625_000), 1_000_000);
    assert_eq!(counts_to_us(1, 1_000_000), 1);
    assert_eq!(counts_to_us(u64::MAX, 1_000_000_000), u64::MAX / 1000);
    assert_eq!(counts_to_us(5, 0), 0);
}

#[test]
fn options_parse_alone_and_combined() {
    let parse_all = |args: &[&str]| parse(args.iter().map(|a| a.as_bytes()));
    assert_eq!(parse_all(&[]), Ok(Options::default()));
    assert_eq!(parse_all(&["-mc"]), Ok(Options { json: true, cumulative: true, help: false }));
    assert_eq!(parse_all(&["-m", "-h"]), Ok(Options { json: true, cumulative: false, help: true }));
    assert_eq!(parse_all(&["-x"]).unwrap_err().text(), b"-x");
    assert_eq!(parse_all(&["-"]).unwrap_err().text(), b"-");
    assert_eq!(parse_all(&["m"]).unwrap_err().text(), b"m");
    assert_eq!(parse_all(&[""]).unwrap_err().text(), b"");
    let long = "-mmmmmmmmmmmmmmmmmmmmmmmmmmmmmmz";
    assert_eq!(parse_all(&[long]).unwrap_err().text(), &long.as_bytes()[..24]);
}

fn sample() -> (Summary, [Row; REPORT_ROWS]) {
    let mut rows = [Row::EMPTY; REPORT_ROWS];
    rows[0] = Row::summary(RowKind::Overflow, 200);
    rows[1] = task(1, "work10", 10_020);
    rows[2] = Row { kind: RowKind::Idle, ..task(2, "IDLE", 30_000) };
    rows[3] = Row { deleted: true, ..task(3, "churn-\"7\"\u{1}", 3) };
    rows[4] = task(4, "", 50_000);
    let summary = Summary {
        window: 41,
        length: 100_000,
        other: 9_777,
        deleted: 0,
        rows: 5,
        rows_missing: 0,
        slots: SlotStats { capacity: 32, used: 4, quarantined: 1, free: 27, overflow_tasks: 2 },
        ..Summary::default()
    };
    (summary, rows)
}

fn render(opts: Options) -> String {
    let (summary, mut rows) = sample();
    let mut out = Text(Vec::new());
    write_report(&mut out, opts, ClockInfo { hz: 100_000, name: "test" }, &summary, &mut rows);
    String::from_utf8(out.0).unwrap()
}

#[test]
fn window_table() {
    let expected = "\
CPU usage, window #41: 1000.000 ms, clock test 100000 Hz
  ID  TASK               USAGE
   1  work10            10.02%
   3  churn-\"7\"?        <0.01%  deleted
   4  (no name)         50.00%
   0  (overflow)         0.20%  tasks without an ID: 2
  ------------------------------
   2  IDLE              30.00%  idle
      other              9.78%  not in any task
      load              70.00%  100% - idle
IDs: 4 used, 1 quarantined, 27 free of 32
";
    assert_eq!(render(Options::default()), expected);
}

#[test]
fn window_json() {
    let expected = concat!(
        "{\"mode\":\"window\",\"window\":41,\"window_us\":1000000,\"window_counts\":100000,",
        "\"clock\":\"test\",\"clock_hz\":100000,",
        "\"slots\":{\"capacity\":32,\"used\":4,\"quarantined\":1,\"free\":27,\"overflow_tasks\":2},",
        "\"tasks\":[{\"id\":0,\"name\":\"(overflow)\",\"counts\":200,\"usage_pct\":0.20,\"deleted\":false},",
        "{\"id\":1,\"name\":\"work10\",\"counts\":10020,\"usage_pct\":10.02,\"deleted\":false},",
        "{\"id\":3,\"name\":\"churn-\\\"7\\\"\\u0001\",\"counts\":3,\"usage_pct\":0.00,\"deleted\":true},",
        "{\"id\":4,\"name\":\"\",\"counts\":50000,\"usage_pct\":50.00,\"deleted\":false}],",
        "\"idle\":{\"id\":2,\"name\":\"IDLE\",\"counts\":30000},",
        "\"other_counts\":9777,\"other_pct\":9.78,\"idle_pct\":30.00,\"load_pct\":70.00}\n"
    );
    assert_eq!(render(Options { json: true, ..Options::default() }), expected);
}

#[test]
fn cumulative_json_has_the_deleted_line() {
    let text = render(Options { json: true, cumulative: true, help: false });
    assert!(text.starts_with("{\"mode\":\"cumulative\",\"windows\":41,\"uptime_us\":1000000,"), "{text}");
    assert!(text.contains(",\"deleted_counts\":0,\"deleted_pct\":0.00,"), "{text}");
}

#[test]
fn usage_and_errors() {
    let mut out = Text(Vec::new());
    write_error(&mut out, &parse([&b"-q"[..]]).unwrap_err());
    let text = String::from_utf8(out.0).unwrap();
    assert!(text.starts_with("show_cpu_usage: unknown option \"-q\"\nusage: show_cpu_usage [-m] [-c] [-h]\n"), "{text}");
    let mut out = Text(Vec::new());
    write_no_window(&mut out, Options { json: true, ..Options::default() }, 250);
    assert_eq!(out.0, b"{\"mode\":\"window\",\"error\":\"no completed window yet\",\"window_ms\":250}\n");
}

#[test]
fn division_matches_the_hardware_one() {
    let values =
        [0, 1, 9, 10, 99, 1_000_000, u64::from(u32::MAX), 1 << 32, (1 << 50) + 7, 1 << 63, u64::MAX - 1, u64::MAX];
    let divisors =
        [1, 3, 10, 1_000, 15_625_000, u64::from(u32::MAX), 1 << 32, 10_000_000_000_000_000_000, 1 << 63, u64::MAX];
    for n in values {
        for d in divisors {
            assert_eq!(div_rem(n, d), (n / d, n % d), "{n} / {d}");
        }
        assert_eq!(div_rem(n, 0), (0, 0));
    }
}

/// The largest-remainder rule written plainly, with 128-bit arithmetic: the model
/// `apportion` must agree with.
fn reference_pcts(counts: &[u64]) -> Vec<u16> {
    let total = counts.iter().fold(0u64, |s, &c| s.saturating_add(c));
    let shift = (64 - total.leading_zeros()).saturating_sub(50);
    let total: u128 = counts.iter().map(|&c| u128::from(c >> shift)).sum();
    if total == 0 {
        return vec![0; counts.len()];
    }
    let shares: Vec<(u128, u128)> = counts
        .iter()
        .map(|&c| (u128::from(c >> shift) * 10_000 / total, u128::from(c >> shift) * 10_000 % total))
        .collect();
    let mut pcts: Vec<u16> = shares.iter().map(|&(q, _)| q as u16).collect();
    let left = 10_000 - shares.iter().map(|&(q, _)| q).sum::<u128>();
    let mut order: Vec<usize> = (0..counts.len()).filter(|&i| shares[i].1 != 0).collect();
    order.sort_by_key(|&i| (core::cmp::Reverse(shares[i].1), i));
    for &i in order.iter().take(left as usize) {
        pcts[i] += 1;
    }
    pcts
}

#[test]
fn apportionment_matches_a_reference_model() {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for case in 0..20_000 {
        let len = (next() % REPORT_ROWS as u64) as usize;
        let counts: Vec<u64> = (0..len)
            .map(|_| match next() % 5 {
                0 => 0,
                1 => next() % 1000,
                2 => next() % (1 << 32),
                3 => next() / 64,
                _ => next() >> (next() % 64),
            })
            .collect();
        assert_eq!(pcts(&counts), reference_pcts(&counts), "case {case}: {counts:?}");
    }
}

#[test]
fn big_numbers_and_long_durations() {
    let (mut summary, mut rows) = sample();
    rows[1].counts = u64::MAX / 2;
    summary.length = 1_000_000_000_007; // 10_000_000.000_070 s at 100 kHz
    let mut out = Text(Vec::new());
    let opts = Options { json: true, cumulative: true, help: false };
    write_report(&mut out, opts, ClockInfo { hz: 100_000, name: "test" }, &summary, &mut rows);
    let json = String::from_utf8(out.0).unwrap();
    assert!(json.contains("\"uptime_us\":10000000000070,\"uptime_counts\":1000000000007,"), "{json}");
    assert!(json.contains("\"name\":\"work10\",\"counts\":9223372036854775807,\"usage_pct\":100.00,"), "{json}");
    let (summary, mut rows) = sample();
    let mut out = Text(Vec::new());
    let summary = Summary { length: 12_345_678_900, ..summary };
    write_report(&mut out, Options::default(), ClockInfo { hz: 100_000, name: "test" }, &summary, &mut rows);
    let text = String::from_utf8(out.0).unwrap();
    assert!(text.starts_with("CPU usage, window #41: 123456.789 s, clock test 100000 Hz\n"), "{text}");
}
