//! Report tests: exact text for known figures.

use super::*;
use crate::engine::{Row, RowKind, SlotStats, Smoothed, Summary, NAME_LEN};

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

/// Flags by letter, for the parser's expectations.
fn flags(letters: &str) -> Options {
    Options {
        json: letters.contains('m'),
        cumulative: letters.contains('c'),
        help: letters.contains('h'),
        sort: letters.contains('s'),
        long: letters.contains('l'),
        ..Options::default()
    }
}

fn parse_all(args: &[&str]) -> Result<Options, BadArgs> {
    parse(args.iter().map(|a| a.as_bytes()))
}

/// A refusal as (problem, argument named, option): what the message is made of.
fn refusal(args: &[&str]) -> (Problem, String, &'static str) {
    let bad = parse_all(args).unwrap_err();
    (bad.problem, String::from_utf8(bad.text().to_vec()).unwrap(), bad.option)
}

#[test]
fn options_parse_alone_and_combined() {
    assert_eq!(parse_all(&[]), Ok(Options::default()));
    for letters in ["m", "c", "h", "s", "l", "mc", "ms", "sl", "mcshl", "lls"] {
        assert_eq!(parse_all(&[&format!("-{letters}")]), Ok(flags(letters)), "-{letters}");
    }
    assert_eq!(parse_all(&["-m", "-h"]), Ok(flags("mh")));
    assert_eq!(parse_all(&["-s", "-l", "-c"]), Ok(flags("slc")));
}

#[test]
fn options_with_values() {
    let top = |n| Options { top: Some(n), ..Options::default() };
    assert_eq!(parse_all(&["-n5"]), Ok(top(5)));
    assert_eq!(parse_all(&["-n", "5"]), Ok(top(5)));
    assert_eq!(parse_all(&["-n", "65535"]), Ok(top(65535)));
    assert_eq!(parse_all(&["-n", "007"]), Ok(top(7)));
    assert_eq!(parse_all(&["-sn", "3", "-m"]), Ok(Options { top: Some(3), ..flags("sm") }));
    assert_eq!(parse_all(&["-msn3"]), Ok(Options { top: Some(3), ..flags("ms") }));
    assert_eq!(parse_all(&["-n1", "-n", "2"]), Ok(top(2)), "the last one counts");
    let window = |ms| Options { window_ms: Some(ms), ..Options::default() };
    assert_eq!(parse_all(&["-w250"]), Ok(window(250)));
    assert_eq!(parse_all(&["-w", "1"]), Ok(window(1)));
    assert_eq!(parse_all(&["-w", "3600000"]), Ok(window(3_600_000)));
    assert_eq!(
        parse_all(&["-lw", "100", "-n", "4", "-c"]),
        Ok(Options { window_ms: Some(100), top: Some(4), ..flags("lc") })
    );
    // `-f`'s count is optional: a following argument is its count only if it starts
    // with a digit.
    let follow = |n| Options { follow: Some(n), ..Options::default() };
    assert_eq!(parse_all(&["-f"]), Ok(follow(0)));
    assert_eq!(parse_all(&["-f5"]), Ok(follow(5)));
    assert_eq!(parse_all(&["-f", "1000000"]), Ok(follow(1_000_000)));
    assert_eq!(parse_all(&["-mf"]), Ok(Options { follow: Some(0), ..flags("m") }));
    assert_eq!(parse_all(&["-f", "-m"]), Ok(Options { follow: Some(0), ..flags("m") }));
    assert_eq!(parse_all(&["-mf", "3", "-s"]), Ok(Options { follow: Some(3), ..flags("ms") }));
}

#[test]
fn options_refused_say_why() {
    use Problem::*;
    let s = |t: &str| t.to_string();
    assert_eq!(refusal(&["-x"]), (Unknown, s("-x"), ""));
    assert_eq!(refusal(&["-mx"]), (Unknown, s("-mx"), ""));
    assert_eq!(refusal(&["-"]), (Unknown, s("-"), ""));
    assert_eq!(refusal(&["m"]), (Unknown, s("m"), ""));
    assert_eq!(refusal(&[""]), (Unknown, s(""), ""));
    assert_eq!(refusal(&["-m", "5"]), (Unknown, s("5"), ""));
    let long = "-mmmmmmmmmmmmmmmmmmmmmmmmmmmmmmz";
    assert_eq!(refusal(&[long]), (Unknown, s(&long[..24]), ""));
    assert_eq!(refusal(&["-n"]), (MissingValue, s("-n"), "-n"));
    assert_eq!(refusal(&["-m", "-sn"]), (MissingValue, s("-sn"), "-n"));
    assert_eq!(refusal(&["-w"]), (MissingValue, s("-w"), "-w"));
    assert_eq!(refusal(&["-n", "x"]), (NotANumber, s("x"), "-n"));
    assert_eq!(refusal(&["-n5s"]), (NotANumber, s("5s"), "-n"), "a value option ends its group");
    assert_eq!(refusal(&["-n", "-m"]), (NotANumber, s("-m"), "-n"), "the next argument is the value");
    assert_eq!(refusal(&["-n", ""]), (NotANumber, s(""), "-n"));
    assert_eq!(refusal(&["-n", "+5"]), (NotANumber, s("+5"), "-n"));
    assert_eq!(refusal(&["-n", "2.5"]), (NotANumber, s("2.5"), "-n"));
    assert_eq!(refusal(&["-n", "0"]), (OutOfRange, s("0"), "-n"));
    assert_eq!(refusal(&["-n", "65536"]), (OutOfRange, s("65536"), "-n"));
    assert_eq!(refusal(&["-n", "99999999999999999999999999"]), (OutOfRange, s("999999999999999999999999"), "-n"));
    assert_eq!(refusal(&["-w0"]), (OutOfRange, s("0"), "-w"));
    assert_eq!(refusal(&["-w", "3600001"]), (OutOfRange, s("3600001"), "-w"));
    assert_eq!(refusal(&["-x", "-n"]), (Unknown, s("-x"), ""), "the first fault is named");
    assert_eq!(refusal(&["-f", "0"]), (OutOfRange, s("0"), "-f"));
    assert_eq!(refusal(&["-f", "1000001"]), (OutOfRange, s("1000001"), "-f"));
    assert_eq!(refusal(&["-f", "5x"]), (NotANumber, s("5x"), "-f"));
    assert_eq!(refusal(&["-f", "x"]), (Unknown, s("x"), ""), "not a count: an argument of its own");
}

#[test]
fn option_errors_are_explained() {
    let message = |args: &[&str]| {
        let mut out = Text(Vec::new());
        write_error(&mut out, &parse_all(args).unwrap_err());
        let text = String::from_utf8(out.0).unwrap();
        let (first, rest) = text.split_once('\n').unwrap();
        assert!(rest.starts_with("usage: show_cpu_usage [-m] [-c] [-s] [-n N] [-l] [-w MS] [-f [N]] [-h]\n"), "{text}");
        first.to_string()
    };
    assert_eq!(message(&["-q"]), "show_cpu_usage: unknown option \"-q\"");
    assert_eq!(message(&["-sn"]), "show_cpu_usage: -n: missing value (1 to 65535)");
    assert_eq!(message(&["-n", "five"]), "show_cpu_usage: -n \"five\": not a number (1 to 65535)");
    assert_eq!(message(&["-w", "0"]), "show_cpu_usage: -w \"0\": out of range (1 to 3600000)");
}

/// A row with the figures of `-l`: runs, longest run and its window, peak window.
fn busy(row: Row, runs: u64, longest: u32, peak: (u32, u32)) -> Row {
    Row { runs, longest, longest_window: 17, peak: peak.0, peak_len: peak.1, peak_window: 3, ..row }
}

/// A window of 100000 counts at 100 kHz (one count is 10 us) with every kind of line.
fn sample() -> (Summary, [Row; REPORT_ROWS]) {
    let mut rows = [Row::EMPTY; REPORT_ROWS];
    rows[0] = busy(Row::summary(RowKind::Overflow, 200), 3, 150, (300, 100_000));
    rows[1] = busy(task(1, "work10", 10_020), 12, 2_500, (45_000, 100_000));
    rows[2] = busy(Row { kind: RowKind::Idle, ..task(2, "IDLE", 25_000) }, 20, 4_000, (90_000, 100_000));
    rows[3] = busy(Row { deleted: true, ..task(3, "churn-\"7\"\u{1}", 3) }, 1, 3, (0, 0));
    rows[4] = busy(task(4, "", 45_000), 7, 12_345, (99_999, 100_000));
    rows[5] = busy(Row::summary(RowKind::Interrupts, 1_230), 456, 12, (0, 0));
    rows[6] = busy(Row::summary(RowKind::Sleep, 5_000), 9, 1_000, (0, 0));
    let summary = Summary {
        window: 41,
        length: 100_000,
        other: 13_547,
        deleted: 0,
        rows: 7,
        rows_missing: 0,
        slots: SlotStats { capacity: 32, used: 4, quarantined: 1, free: 27, overflow_tasks: 2 },
        load_avg: [
            Smoothed { busy: 7_712 << 16, len: 10_000 << 16 },
            Smoothed { busy: 76, len: 100 },
            Smoothed { busy: 0, len: 0 },
        ],
    };
    (summary, rows)
}

fn render_with(opts: Options, summary: &Summary, rows: &mut [Row]) -> String {
    let mut out = Text(Vec::new());
    write_report(&mut out, opts, ClockInfo { hz: 100_000, name: "test" }, summary, rows);
    String::from_utf8(out.0).unwrap()
}

fn render(opts: Options) -> String {
    let (summary, mut rows) = sample();
    render_with(opts, &summary, &mut rows)
}

#[test]
fn window_table() {
    let expected = "\
CPU usage, window #41: 1000.000 ms, clock test 100000 Hz
  ID  TASK               USAGE
   1  work10            10.02%
   3  churn-\"7\"?        <0.01%  deleted
   4  (no name)         45.00%
   0  (overflow)         0.20%  tasks without an ID: 2
  ------------------------------
   2  IDLE              25.00%  idle
      interrupts         1.23%  456 interrupts, longest 0.120 ms
      sleep              5.00%  asleep in tickless idle
      other             13.55%  kernel and unattributed
      load              70.00%  100% - idle - sleep
load avg   1 s 77.12%  10 s 76.00%  60 s -
IDs: 4 used, 1 quarantined, 27 free of 32
";
    assert_eq!(render(Options::default()), expected);
}

#[test]
fn window_table_with_runs() {
    let expected = "\
CPU usage, window #41: 1000.000 ms, clock test 100000 Hz
  ID  TASK               USAGE      RUNS      LONGEST
   1  work10            10.02%        12    25.000 ms
   3  churn-\"7\"?        <0.01%         1     0.030 ms  deleted
   4  (no name)         45.00%         7   123.450 ms
   0  (overflow)         0.20%         3     1.500 ms  tasks without an ID: 2
  -----------------------------------------------------
   2  IDLE              25.00%        20    40.000 ms  idle
      interrupts         1.23%  456 interrupts, longest 0.120 ms
      sleep              5.00%  asleep in tickless idle
      other             13.55%  kernel and unattributed
      load              70.00%  100% - idle - sleep
load avg   1 s 77.12%  10 s 76.00%  60 s -
IDs: 4 used, 1 quarantined, 27 free of 32
";
    assert_eq!(render(flags("l")), expected);
}

#[test]
fn window_json() {
    let expected = concat!(
        "{\"mode\":\"window\",\"window\":41,\"window_us\":1000000,\"window_counts\":100000,",
        "\"clock\":\"test\",\"clock_hz\":100000,",
        "\"slots\":{\"capacity\":32,\"used\":4,\"quarantined\":1,\"free\":27,\"overflow_tasks\":2},",
        "\"tasks\":[{\"id\":0,\"name\":\"(overflow)\",\"counts\":200,\"usage_pct\":0.20,\"deleted\":false,",
        "\"switches\":3,\"longest_slice_us\":1500},",
        "{\"id\":1,\"name\":\"work10\",\"counts\":10020,\"usage_pct\":10.02,\"deleted\":false,",
        "\"switches\":12,\"longest_slice_us\":25000},",
        "{\"id\":3,\"name\":\"churn-\\\"7\\\"\\u0001\",\"counts\":3,\"usage_pct\":0.00,\"deleted\":true,",
        "\"switches\":1,\"longest_slice_us\":30},",
        "{\"id\":4,\"name\":\"\",\"counts\":45000,\"usage_pct\":45.00,\"deleted\":false,",
        "\"switches\":7,\"longest_slice_us\":123450}],",
        "\"idle\":{\"id\":2,\"name\":\"IDLE\",\"counts\":25000,\"switches\":20,\"longest_slice_us\":40000},",
        "\"interrupts_counts\":1230,\"interrupts_pct\":1.23,\"interrupts\":456,\"longest_interrupt_us\":120,",
        "\"sleep_counts\":5000,\"sleep_pct\":5.00,\"sleeps\":9,",
        "\"other_counts\":13547,\"other_pct\":13.55,\"idle_pct\":25.00,\"load_pct\":70.00,",
        "\"load_avg_pct\":[77.12,76.00,null]}\n"
    );
    assert_eq!(render(flags("m")), expected);
    // -l changes nothing in JSON: the runs are always there.
    assert_eq!(render(flags("ml")), expected);
}

#[test]
fn cumulative_table_with_runs() {
    let expected = "\
CPU usage since start: 1000.000 ms (41 windows), clock test 100000 Hz
  ID  TASK               USAGE      RUNS      LONGEST
   1  work10            10.02%        12    25.000 ms in #17  peak 45.00% in #3
   3  churn-\"7\"?        <0.01%         1     0.030 ms in #17  deleted
   4  (no name)         45.00%         7   123.450 ms in #17  peak 99.99% in #3
   0  (overflow)         0.20%         3     1.500 ms in #17  peak 0.30% in #3  tasks without an ID: 2
      (deleted tasks)        0
  -----------------------------------------------------
   2  IDLE              25.00%        20    40.000 ms in #17  peak 90.00% in #3  idle
      interrupts         1.23%  456 interrupts, longest 0.120 ms
      sleep              5.00%  asleep in tickless idle
      other             13.55%  kernel and unattributed
      load              70.00%  100% - idle - sleep
load avg   1 s 77.12%  10 s 76.00%  60 s -
IDs: 4 used, 1 quarantined, 27 free of 32
";
    assert_eq!(render(flags("cl")), expected);
    // Without -l: the window report's lines, and the deleted tasks' line.
    let plain = render(flags("c"));
    assert!(plain.starts_with("CPU usage since start: 1000.000 ms (41 windows), clock test 100000 Hz\n"));
    assert!(plain.contains("   4  (no name)         45.00%\n   0  (overflow)         0.20%  tasks without an ID: 2\n"));
    assert!(plain.contains("\n      (deleted tasks)        0\n  ------------------------------\n"));
}

#[test]
fn cumulative_json() {
    let expected = concat!(
        "{\"mode\":\"cumulative\",\"windows\":41,\"uptime_us\":1000000,\"uptime_counts\":100000,",
        "\"clock\":\"test\",\"clock_hz\":100000,",
        "\"slots\":{\"capacity\":32,\"used\":4,\"quarantined\":1,\"free\":27,\"overflow_tasks\":2},",
        "\"tasks\":[{\"id\":0,\"name\":\"(overflow)\",\"counts\":200,\"usage_pct\":0.20,\"deleted\":false,",
        "\"switches\":3,\"longest_slice_us\":1500,\"longest_slice_window\":17,\"peak_pct\":0.30,\"peak_window\":3},",
        "{\"id\":1,\"name\":\"work10\",\"counts\":10020,\"usage_pct\":10.02,\"deleted\":false,",
        "\"switches\":12,\"longest_slice_us\":25000,\"longest_slice_window\":17,\"peak_pct\":45.00,\"peak_window\":3},",
        "{\"id\":3,\"name\":\"churn-\\\"7\\\"\\u0001\",\"counts\":3,\"usage_pct\":0.00,\"deleted\":true,",
        "\"switches\":1,\"longest_slice_us\":30,\"longest_slice_window\":17,\"peak_pct\":null,\"peak_window\":null},",
        "{\"id\":4,\"name\":\"\",\"counts\":45000,\"usage_pct\":45.00,\"deleted\":false,",
        "\"switches\":7,\"longest_slice_us\":123450,\"longest_slice_window\":17,\"peak_pct\":99.99,\"peak_window\":3}],",
        "\"deleted_counts\":0,\"deleted_pct\":0.00,",
        "\"idle\":{\"id\":2,\"name\":\"IDLE\",\"counts\":25000,\"switches\":20,\"longest_slice_us\":40000,",
        "\"longest_slice_window\":17,\"peak_pct\":90.00,\"peak_window\":3},",
        "\"interrupts_counts\":1230,\"interrupts_pct\":1.23,\"interrupts\":456,\"longest_interrupt_us\":120,",
        "\"sleep_counts\":5000,\"sleep_pct\":5.00,\"sleeps\":9,",
        "\"other_counts\":13547,\"other_pct\":13.55,\"idle_pct\":25.00,\"load_pct\":70.00,",
        "\"load_avg_pct\":[77.12,76.00,null]}\n"
    );
    assert_eq!(render(flags("cm")), expected);
}

/// The lines of a table between the column titles and the rule.
fn task_lines(text: &str) -> Vec<&str> {
    text.lines().skip(2).take_while(|l| !l.starts_with("  ---")).collect()
}

#[test]
fn sorted_by_usage_ties_by_id() {
    assert_eq!(
        task_lines(&render(flags("s"))),
        [
            "   4  (no name)         45.00%",
            "   1  work10            10.02%",
            "   3  churn-\"7\"?        <0.01%  deleted",
            "   0  (overflow)         0.20%  tasks without an ID: 2",
        ]
    );
    // Equal usage: by ID. The idle task and the shared bucket stay where they are.
    let (summary, mut rows) = sample();
    rows[1].counts = 45_000;
    rows[4].counts = 10_020;
    rows[3].counts = 10_020;
    let summary = Summary { other: summary.other - 10_017, ..summary };
    let lines = task_lines(&render_with(flags("s"), &summary, &mut rows)).join("\n");
    assert_eq!(
        lines,
        "   1  work10            45.00%\n   3  churn-\"7\"?        10.02%  deleted\n   4  (no name)         10.02%\n   0  (overflow)         0.20%  tasks without an ID: 2"
    );
}

#[test]
fn top_tasks_and_the_rest_on_one_line() {
    // In ID order: the first task, then the two others summed.
    assert_eq!(
        task_lines(&render(Options { top: Some(1), ..flags("l") })),
        [
            "   1  work10            10.02%        12    25.000 ms",
            "      (2 more tasks)    45.00%",
            "   0  (overflow)         0.20%         3     1.500 ms  tasks without an ID: 2",
        ]
    );
    // Sorted: the two largest, and the one left.
    assert_eq!(
        task_lines(&render(Options { top: Some(2), ..flags("s") })),
        [
            "   4  (no name)         45.00%",
            "   1  work10            10.02%",
            "      (1 more task)     <0.01%",
            "   0  (overflow)         0.20%  tasks without an ID: 2",
        ]
    );
    // Nothing to cut: no "more" line.
    assert_eq!(render(Options { top: Some(3), ..flags("") }), render(flags("")));
    assert_eq!(render(Options { top: Some(3), ..flags("m") }), render(flags("m")));
    let json = render(Options { top: Some(2), ..flags("sm") });
    assert!(
        json.contains(
            "\"tasks\":[{\"id\":0,\"name\":\"(overflow)\",\"counts\":200,\"usage_pct\":0.20,\"deleted\":false,\
         \"switches\":3,\"longest_slice_us\":1500},\
         {\"id\":4,\"name\":\"\",\"counts\":45000,\"usage_pct\":45.00,\"deleted\":false,\
         \"switches\":7,\"longest_slice_us\":123450},\
         {\"id\":1,\"name\":\"work10\",\"counts\":10020,\"usage_pct\":10.02,\"deleted\":false,\
         \"switches\":12,\"longest_slice_us\":25000}],\
         \"more_tasks\":{\"count\":1,\"counts\":3,\"usage_pct\":0.00},\"idle\":"
        ),
        "{json}"
    );
    let json = render(Options { top: Some(1), ..flags("cm") });
    assert!(json.contains("}],\"more_tasks\":{\"count\":2,\"counts\":45003,\"usage_pct\":45.00},\"deleted_counts\":0,"));
}

#[test]
fn no_window_yet_and_window_set() {
    let mut out = Text(Vec::new());
    write_no_window(&mut out, flags("m"), 250);
    assert_eq!(out.0, b"{\"mode\":\"window\",\"error\":\"no completed window yet\",\"window_ms\":250}\n");
    let mut out = Text(Vec::new());
    write_no_window(&mut out, flags(""), 250);
    assert_eq!(out.0, b"no completed window yet: the first ends 250 ms after start\n");
    let mut out = Text(Vec::new());
    write_window_set(&mut out, 100);
    assert_eq!(out.0, b"window set to 100 ms (from the window under way)\n");
}

#[test]
fn usage_lists_every_option() {
    let mut out = Text(Vec::new());
    write_usage(&mut out);
    let text = String::from_utf8(out.0).unwrap();
    for option in ["-m ", "-c ", "-s ", "-n N ", "-l ", "-w MS ", "-h "] {
        assert!(text.contains(&format!("\n  {option}")), "{option}: {text}");
    }
    assert!(text.lines().all(|l| l.len() <= 80), "{text}");
}

#[test]
fn shares_of_a_whole() {
    assert_eq!(pct_of(1, 3), 3333);
    assert_eq!(pct_of(2, 3), 6666);
    assert_eq!(pct_of(0, 0), 0);
    assert_eq!(pct_of(5, 0), 0);
    assert_eq!(pct_of(0, 5), 0);
    assert_eq!(pct_of(7, 7), 10_000);
    assert_eq!(pct_of(8, 7), 10_000);
    assert_eq!(pct_of(u64::MAX - 1, u64::MAX), 9_999);
    assert_eq!(pct_of(1 << 60, 1 << 61), 5_000);
    assert_eq!(pct_of(u64::MAX / 3, u64::MAX), 3_333);
}

fn watch(args: &[&str]) -> Result<WatchCmd, BadArgs> {
    parse_watchdog(args.iter().map(|a| a.as_bytes()))
}

#[test]
fn watchdog_arguments() {
    use WatchCmd::*;
    assert_eq!(watch(&[]), Ok(Status));
    assert_eq!(watch(&["off"]), Ok(Off));
    assert_eq!(watch(&["load", "80", "3"]), Ok(Load(Some((8_000, 3)))));
    assert_eq!(watch(&["load", "72.5", "1"]), Ok(Load(Some((7_250, 1)))));
    assert_eq!(watch(&["load", "0.05", "2"]), Ok(Load(Some((5, 2)))));
    assert_eq!(watch(&["load", "0", "4294967295"]), Ok(Load(Some((0, u32::MAX)))));
    assert_eq!(watch(&["load", "100.00", "1"]), Ok(Load(Some((10_000, 1)))));
    assert_eq!(watch(&["load", "off"]), Ok(Load(None)));
    assert_eq!(watch(&["slice", "5000"]), Ok(Slice(Some(5_000))));
    assert_eq!(watch(&["slice", "4294967295"]), Ok(Slice(Some(u32::MAX))));
    assert_eq!(watch(&["slice", "off"]), Ok(Slice(None)));
}

#[test]
fn watchdog_arguments_refused_say_why() {
    use Problem::*;
    let refused = |args: &[&str]| {
        let bad = watch(args).unwrap_err();
        (bad.problem, String::from_utf8(bad.text().to_vec()).unwrap(), bad.option)
    };
    let s = |t: &str| t.to_string();
    assert_eq!(refused(&["on"]), (Unknown, s("on"), ""));
    assert_eq!(refused(&["LOAD"]), (Unknown, s("LOAD"), ""));
    assert_eq!(refused(&["off", "x"]), (Unknown, s("x"), ""));
    assert_eq!(refused(&["load", "off", "3"]), (Unknown, s("3"), ""));
    assert_eq!(refused(&["load", "80", "3", "3"]), (Unknown, s("3"), ""));
    assert_eq!(refused(&["slice", "5", "6"]), (Unknown, s("6"), ""));
    assert_eq!(refused(&["load"]), (MissingValue, s("load"), "load"));
    assert_eq!(refused(&["load", "80"]), (MissingValue, s("load"), "windows"));
    assert_eq!(refused(&["slice"]), (MissingValue, s("slice"), "slice"));
    assert_eq!(refused(&["load", "x", "1"]), (NotANumber, s("x"), "load"));
    assert_eq!(refused(&["load", "72.555", "1"]), (NotANumber, s("72.555"), "load"));
    assert_eq!(refused(&["load", "72.", "1"]), (NotANumber, s("72."), "load"));
    assert_eq!(refused(&["load", ".5", "1"]), (NotANumber, s(".5"), "load"));
    assert_eq!(refused(&["load", "1.2.3", "1"]), (NotANumber, s("1.2.3"), "load"));
    assert_eq!(refused(&["load", "80", "1.5"]), (NotANumber, s("1.5"), "windows"));
    assert_eq!(refused(&["load", "100.01", "1"]), (OutOfRange, s("100.01"), "load"));
    assert_eq!(refused(&["load", "80", "0"]), (OutOfRange, s("0"), "windows"));
    assert_eq!(refused(&["slice", "0"]), (OutOfRange, s("0"), "slice"));
    assert_eq!(refused(&["slice", "4294967296"]), (OutOfRange, s("4294967296"), "slice"));
    assert_eq!(refused(&["slice", "-5"]), (NotANumber, s("-5"), "slice"));
}

#[test]
fn watchdog_texts() {
    let text = |f: &dyn Fn(&mut Text)| {
        let mut out = Text(Vec::new());
        f(&mut out);
        String::from_utf8(out.0).unwrap()
    };
    assert_eq!(
        text(&|o| write_watchdog_status(o, Some((8_000, 3)), Some(5_000))),
        "watchdog: load > 80.00% for 3 windows; slice > 5000 us\n"
    );
    assert_eq!(text(&|o| write_watchdog_status(o, None, None)), "watchdog: load off; slice off\n");
    assert_eq!(
        text(&|o| write_watchdog_status(o, Some((7_250, 1)), None)),
        "watchdog: load > 72.50% for 1 window; slice off\n"
    );
    let usage = text(&|o| write_watchdog_usage(o));
    assert!(usage
        .starts_with("usage: cpu_usage_watchdog [load <pct> <windows> | load off | slice <us> | slice off | off]\n"));
    let error = |args: &[&str]| text(&|o| write_watchdog_error(o, &watch(args).unwrap_err()));
    assert_eq!(error(&["on"]), format!("cpu_usage_watchdog: unexpected argument \"on\"\n{usage}"));
    assert!(
        error(&["load", "101", "1"]).starts_with("cpu_usage_watchdog: load \"101\": out of range (0 to 100)\nusage: ")
    );
    assert!(error(&["load", "80"]).starts_with("cpu_usage_watchdog: windows: missing value (1 to 4294967295)\n"));
    assert!(error(&["slice", "5us"]).starts_with("cpu_usage_watchdog: slice \"5us\": not a number (1 to 4294967295)\n"));
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
    let opts = flags("mc");
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

/// Every `"key":value` of a JSON report, as written.
fn json_values<'a>(json: &'a str, key: &str) -> Vec<&'a str> {
    let pattern = format!("\"{key}\":");
    json.match_indices(&pattern)
        .map(|(at, _)| {
            let rest = &json[at + pattern.len()..];
            &rest[..rest.find([',', '}', ']']).unwrap()]
        })
        .collect()
}

/// A percentage as written (`12.34`) in hundredths.
fn hundredths(text: &str) -> u64 {
    let (whole, frac) = text.split_once('.').unwrap_or_else(|| panic!("{text}"));
    assert_eq!(frac.len(), 2, "{text}");
    whole.parse::<u64>().unwrap() * 100 + frac.parse::<u64>().unwrap()
}

/// The one value of `key`, as a number (hundredths for a percentage).
fn json_number(json: &str, key: &str) -> u64 {
    let values = json_values(json, key);
    assert_eq!(values.len(), 1, "{key} in {json}");
    if key.ends_with("_pct") {
        hundredths(values[0])
    } else {
        values[0].parse().unwrap()
    }
}

/// Random reports (every kind of line, with and without -c, -s, -n): the lines shown
/// add up to exactly 100.00% and to the length covered, each within a hundredth of
/// its exact share; load is 100% - idle - sleep; the tasks shown are the first N in
/// the order asked for, and the others are on the "more" line; the table shows the
/// same lines as the JSON.
#[test]
fn random_reports_add_up() {
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let (mut cuts, mut sorted) = (0, 0);
    for case in 0..3_000 {
        let mut rows = [Row::EMPTY; REPORT_ROWS];
        let mut n = 0;
        let counts = |next: &mut dyn FnMut() -> u64| match next() % 6 {
            0 => 0,
            1 => next() % 10,
            2 => next() % 100_000,
            3 => next() % (1 << 32),
            4 => next() >> 20,
            _ => next() >> (next() % 64),
        };
        if next() % 2 == 0 {
            rows[n] = Row::summary(RowKind::Overflow, counts(&mut next));
            n += 1;
        }
        let tasks = (next() % (crate::engine::MAX_TASKS as u64 + 1)) as usize;
        let idle = if tasks > 0 && next() % 4 != 0 { (next() % tasks as u64) as usize + 1 } else { 0 };
        for id in 1..=tasks {
            let kind = if id == idle { RowKind::Idle } else { RowKind::Task };
            rows[n] =
                Row { kind, runs: next() % 1000, longest: next() as u32, ..task(id as u16, "t", counts(&mut next)) };
            n += 1;
        }
        rows[n] = Row::summary(RowKind::Interrupts, counts(&mut next));
        rows[n + 1] = Row::summary(RowKind::Sleep, counts(&mut next));
        n += 2;
        let cumulative = next() % 2 == 0;
        let other = counts(&mut next);
        let deleted = if cumulative { counts(&mut next) } else { 0 };
        let length = rows.iter().fold(other + deleted, |sum, r| sum.saturating_add(r.counts));
        if length == u64::MAX {
            continue; // (saturated: no such report)
        }
        let summary = Summary { window: 7, length, other, deleted, rows: n, rows_missing: 0, ..Summary::default() };
        let sort = next() % 2 == 0;
        let top = match next() % 3 {
            0 => None,
            _ => Some((next() % (tasks as u64 + 2)).max(1) as u16),
        };
        let opts = Options { cumulative, sort, top, ..Options::default() };
        let original = rows;
        let json = render_with(Options { json: true, ..opts }, &summary, &mut rows.clone());
        let ctx = format!("case {case}: {opts:?}, {json}");

        // Every line: (counts, hundredths).
        let mut lines: Vec<(u64, u64)> = Vec::new();
        let task_counts = json_values(&json, "counts");
        let task_pcts: Vec<u64> = json_values(&json, "usage_pct").into_iter().map(hundredths).collect();
        let has_idle = idle != 0;
        // "counts" are the tasks', then the "more" line's, then the idle task's.
        assert_eq!(task_counts.len(), task_pcts.len() + usize::from(has_idle), "{ctx}");
        for (c, &p) in task_counts.iter().zip(&task_pcts) {
            lines.push((c.parse().unwrap(), p));
        }
        let idle_pct = json_number(&json, "idle_pct");
        if has_idle {
            lines.push((task_counts.last().unwrap().parse().unwrap(), idle_pct));
        } else {
            assert_eq!(idle_pct, 0, "{ctx}");
        }
        let mut summary_line = |name: &str| {
            let line = (json_number(&json, &format!("{name}_counts")), json_number(&json, &format!("{name}_pct")));
            lines.push(line);
            line
        };
        summary_line("interrupts");
        let sleep = summary_line("sleep");
        summary_line("other");
        if cumulative {
            summary_line("deleted");
        }
        let total: u64 = lines.iter().map(|l| l.0).sum();
        assert_eq!(total, length, "{ctx}");
        let pct: u64 = lines.iter().map(|l| l.1).sum();
        assert_eq!(pct, if length == 0 { 0 } else { 10_000 }, "{ctx}");
        let shift = (64 - length.leading_zeros()).saturating_sub(50);
        for &(c, p) in &lines {
            let exact = u128::from(c >> shift) * 10_000 / u128::from(length >> shift).max(1);
            assert!(u128::from(p) == exact || u128::from(p) == exact + 1, "{c} of {length} as {p}: {ctx}");
        }
        let idle_counts = if has_idle { lines[task_pcts.len()].0 } else { 0 };
        let load = if length - idle_counts - sleep.0 == 0 { 0 } else { 10_000 - idle_pct - sleep.1 };
        assert_eq!(json_number(&json, "load_pct"), load, "{ctx}");

        // The tasks shown, in order, and the others summed.
        let mut expected: Vec<&Row> = original[..n].iter().filter(|r| r.kind == RowKind::Task).collect();
        if sort {
            expected.sort_by_key(|r| (core::cmp::Reverse(r.counts), r.id));
        }
        let shown = top.map_or(expected.len(), |t| expected.len().min(usize::from(t)));
        let mut task_ids: Vec<u64> = json_values(&json, "id").iter().map(|v| v.parse().unwrap()).collect();
        if has_idle {
            assert_eq!(task_ids.pop(), Some(idle as u64), "{ctx}");
        }
        // The shared bucket comes first, if shown.
        let overflow = usize::from(task_ids.first() == Some(&0));
        assert_eq!(overflow, usize::from(original[0].kind == RowKind::Overflow), "{ctx}");
        task_ids.drain(..overflow);
        let expected_ids: Vec<u64> = expected[..shown].iter().map(|r| u64::from(r.id)).collect();
        assert_eq!(task_ids, expected_ids, "{ctx}");
        let cut = shown < expected.len();
        assert_eq!(json_values(&json, "more_tasks").len(), usize::from(cut), "{ctx}");
        if cut {
            assert_eq!(json_number(&json, "count"), (expected.len() - shown) as u64, "{ctx}");
            let summed: u64 = expected[shown..].iter().map(|r| r.counts).sum();
            assert_eq!(task_counts[overflow + shown], summed.to_string(), "{ctx}");
            cuts += 1;
        }
        sorted += usize::from(sort && shown > 2);

        // The table: one line per task shown, the "more" line, and the summary lines.
        let table = render_with(opts, &summary, &mut rows);
        let tasks_in_table = task_lines(&table);
        assert_eq!(
            tasks_in_table.len(),
            shown + usize::from(shown < expected.len()) + overflow + usize::from(cumulative),
            "{table}"
        );
        // The rule, idle, interrupts, sleep, other, load, load avg, IDs.
        assert_eq!(table.lines().count(), 2 + tasks_in_table.len() + 8, "{table}");
    }
    assert!(cuts > 500 && sorted > 500, "{cuts} cut, {sorted} sorted");
}
