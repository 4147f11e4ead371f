//! Report tests: exact text for known figures.

use super::*;
use crate::engine::{Header, Line, Row, RowKind, Seat, Smoothed, Stamp, NAME_LEN};
use crate::settings::{ApiEngine, MAX_TASKS};

/// Positions of the C API's engine's lines, the only engine a report reads.
const LINES: usize = ApiEngine::LINES;
const INTERRUPTS_AT: usize = ApiEngine::INTERRUPTS_AT;
const SLEEP_AT: usize = ApiEngine::SLEEP_AT;
const OTHER_AT: usize = ApiEngine::OTHER_AT;

struct Text(Vec<u8>);

impl Sink for Text {
    fn put(&mut self, bytes: &[u8]) {
        self.0.extend_from_slice(bytes);
    }

    fn void(&mut self) {
        self.0.clear();
    }
}

fn task(id: u16, name: &str, counts: u64) -> Row {
    let mut n = [0u8; NAME_LEN];
    n[..name.len()].copy_from_slice(name.as_bytes());
    Row { counts, name: n, id, kind: RowKind::Task, deleted: false, ..Row::EMPTY }
}

/// Shares of lines taken in order.
fn pcts(counts: &[u64]) -> Vec<u16> {
    let total = counts.iter().fold(0u64, |s, &c| s.saturating_add(c));
    let shares = Shares::of_total(total);
    let mut before = 0u64;
    counts
        .iter()
        .map(|&c| {
            let share = shares.of(before, c);
            before = before.saturating_add(c);
            share
        })
        .collect()
}

#[test]
fn shares_add_up_to_exactly_one_hundred_percent() {
    assert_eq!(pcts(&[1, 1, 1]), [3333, 3333, 3334]);
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
        deleted: letters.contains('d'),
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
        write_error(&mut out, &parse_all(args).unwrap_err(), 3_600_000);
        let text = String::from_utf8(out.0).unwrap();
        let (first, rest) = text.split_once('\n').unwrap();
        assert!(
            rest.starts_with("usage: show_cpu_usage [-m] [-c] [-s] [-n N] [-d] [-l] [-w MS] [-f [N]] [-h]\n"),
            "{text}"
        );
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

/// Lines as the engine gives them: `rows` at their positions, shown, every other
/// ID free and not shown.
fn lines_of(rows: &[Row], other: u64) -> Vec<Line> {
    let mut lines: Vec<Line> = (0..LINES)
        .map(|at| Line { row: Row { id: at as u16, ..Row::EMPTY }, shown: false, seat: Seat::Free })
        .collect();
    lines[0] = Line { row: Row::summary(RowKind::Overflow, 0), shown: false, seat: Seat::None };
    for (at, kind) in [(INTERRUPTS_AT, RowKind::Interrupts), (SLEEP_AT, RowKind::Sleep), (OTHER_AT, RowKind::Other)] {
        lines[at] = Line { row: Row::summary(kind, 0), shown: true, seat: Seat::None };
    }
    lines[OTHER_AT].row.counts = other;
    for row in rows {
        let at = match row.kind {
            RowKind::Overflow => 0,
            RowKind::Interrupts => INTERRUPTS_AT,
            RowKind::Sleep => SLEEP_AT,
            _ => usize::from(row.id),
        };
        let seat = match row.kind {
            RowKind::Task | RowKind::Idle if row.deleted => Seat::Quarantined,
            RowKind::Task | RowKind::Idle => Seat::Used,
            _ => Seat::None,
        };
        lines[at] = Line { row: *row, shown: true, seat };
    }
    lines
}

/// The lines of a report, from memory; `Changed` at read `change_at`, if any.
struct Fake {
    lines: Vec<Line>,
    reads: usize,
    change_at: Option<usize>,
}

impl Source for Fake {
    fn line(&mut self, at: usize, line: &mut Line) -> Result<(), Changed> {
        self.reads += 1;
        if Some(self.reads) == self.change_at {
            return Err(Changed);
        }
        *line = self.lines[at];
        Ok(())
    }

    fn load_avg(&mut self) -> Result<[Smoothed; 3], Changed> {
        self.reads += 1;
        if Some(self.reads) == self.change_at {
            return Err(Changed);
        }
        Ok(LOAD_AVG)
    }
}

/// The smoothed loads of every report here.
const LOAD_AVG: [Smoothed; 3] =
    [Smoothed { busy: 7_712 << 16, len: 10_000 << 16 }, Smoothed { busy: 76, len: 100 }, Smoothed { busy: 0, len: 0 }];

/// A header whose window had `overflow_tasks` tasks in the shared bucket, one more
/// than it has now (so that a report mixing the two shows it).
fn header(length: u64, overflow_tasks: u32, idle: u16) -> Header {
    Header {
        stamp: Stamp::ZERO,
        window: 41,
        length,
        retired: 0,
        overflow_tasks,
        overflow_now: overflow_tasks.saturating_sub(1),
        idle,
    }
}

/// A window of 100000 counts at 100 kHz (one count is 10 us) with every kind of
/// line; ID 5 is a task created in the window under way (not shown), ID 3 a task
/// deleted in the window.
fn sample() -> (Header, Vec<Line>) {
    let rows = [
        busy(Row::summary(RowKind::Overflow, 200), 3, 150, (300, 100_000)),
        busy(task(1, "work10", 10_020), 12, 2_500, (45_000, 100_000)),
        busy(Row { kind: RowKind::Idle, ..task(2, "IDLE", 25_000) }, 20, 4_000, (90_000, 100_000)),
        busy(Row { deleted: true, ..task(3, "churn-\"7\"\u{1}", 3) }, 1, 3, (0, 0)),
        busy(task(4, "", 45_000), 7, 12_345, (99_999, 100_000)),
        busy(Row::summary(RowKind::Interrupts, 1_230), 456, 12, (0, 0)),
        busy(Row::summary(RowKind::Sleep, 5_000), 9, 1_000, (0, 0)),
    ];
    let mut lines = lines_of(&rows, 13_547);
    lines[5].seat = Seat::Used;
    (header(100_000, 3, 2), lines)
}

fn render_with(opts: Options, header: &Header, lines: &[Line]) -> String {
    let mut out = Text(Vec::new());
    let mut src = Fake { lines: lines.to_vec(), reads: 0, change_at: None };
    write_report(&mut out, &opts, ClockInfo { hz: 100_000, name: "test" }, header, &mut src, &mut None).unwrap();
    String::from_utf8(out.0).unwrap()
}

fn render(opts: Options) -> String {
    let (header, lines) = sample();
    render_with(opts, &header, &lines)
}

/// An expected text written for 32 IDs, for the capacity this build has: the
/// sample's IDs past 5 are free.
fn at_capacity(text: &str) -> String {
    let (cap, free) = (MAX_TASKS, MAX_TASKS - 5);
    text.replace("27 free of 32", &format!("{free} free of {cap}"))
        .replace("\"capacity\":32,", &format!("\"capacity\":{cap},"))
        .replace("\"free\":27,", &format!("\"free\":{free},"))
}

#[test]
fn window_table() {
    let expected = "\
CPU usage, window #41: 1000.000 ms, clock test 100000 Hz
  ID  TASK               USAGE
   0  (overflow)         0.20%  tasks without an ID in the window: 3
   1  work10            10.02%
   4  (no name)         45.00%
      (1 deleted)       <0.01%
  ------------------------------
   2  IDLE              25.00%  idle
      interrupts         1.23%  456 interrupts, longest 0.120 ms
      sleep              5.00%  asleep in tickless idle
      other             13.55%  kernel and unattributed
      load              70.00%  100% - idle - sleep
load avg   1 s 77.12%  10 s 76.00%  60 s -
IDs now: 4 used, 1 quarantined, 27 free of 32; tasks without one: 2
";
    assert_eq!(render(Options::default()), at_capacity(expected));
}

#[test]
fn window_table_with_runs_and_deleted_tasks() {
    let expected = "\
CPU usage, window #41: 1000.000 ms, clock test 100000 Hz
  ID  TASK               USAGE      RUNS      LONGEST
   0  (overflow)         0.20%         3     1.500 ms  tasks without an ID in the window: 3
   1  work10            10.02%        12    25.000 ms
   3  churn-\"7\"?        <0.01%         1     0.030 ms  deleted
   4  (no name)         45.00%         7   123.450 ms
  -----------------------------------------------------
   2  IDLE              25.00%        20    40.000 ms  idle
      interrupts         1.23%  456 interrupts, longest 0.120 ms
      sleep              5.00%  asleep in tickless idle
      other             13.55%  kernel and unattributed
      load              70.00%  100% - idle - sleep
load avg   1 s 77.12%  10 s 76.00%  60 s -
IDs now: 4 used, 1 quarantined, 27 free of 32; tasks without one: 2
";
    assert_eq!(render(flags("ld")), at_capacity(expected));
}

#[test]
fn window_json() {
    let expected = at_capacity(include_str!("../../report-schema/samples/window.json"));
    assert_eq!(render(flags("m")), expected);
    // -l changes nothing in JSON: the runs are always there.
    assert_eq!(render(flags("ml")), expected);
    // -d lists the deleted task among the others.
    let listed = at_capacity(include_str!("../../report-schema/samples/window-deleted-listed.json"));
    assert_eq!(render(flags("md")), listed);
}

/// The sample as a since-start report: the deleted task is no longer shown, its time
/// and that of a task whose ID was taken are summed.
fn since_start() -> (Header, Vec<Line>) {
    let (mut header, mut lines) = sample();
    lines[3].shown = false;
    header.retired = 7;
    lines[OTHER_AT].row.counts -= 7;
    (header, lines)
}

#[test]
fn cumulative_table_with_runs() {
    let expected = "\
CPU usage since start: 1000.000 ms (41 windows), clock test 100000 Hz
  ID  TASK               USAGE      RUNS      LONGEST
   0  (overflow)         0.20%         3     1.500 ms in #17  peak 0.30% in #3  tasks without an ID since start: 3
   1  work10            10.02%        12    25.000 ms in #17  peak 45.00% in #3
   4  (no name)         45.00%         7   123.450 ms in #17  peak 99.99% in #3
      (deleted tasks)    0.01%
  -----------------------------------------------------
   2  IDLE              25.00%        20    40.000 ms in #17  peak 90.00% in #3  idle
      interrupts         1.23%  456 interrupts, longest 0.120 ms
      sleep              5.00%  asleep in tickless idle
      other             13.54%  kernel and unattributed
      load              70.00%  100% - idle - sleep
load avg   1 s 77.12%  10 s 76.00%  60 s -
IDs now: 4 used, 1 quarantined, 27 free of 32; tasks without one: 2
";
    let (header, lines) = since_start();
    assert_eq!(render_with(flags("cl"), &header, &lines), at_capacity(expected));
    // Without -l: the window report's lines, and the deleted tasks' line.
    let plain = render_with(flags("c"), &header, &lines);
    assert!(plain.starts_with("CPU usage since start: 1000.000 ms (41 windows), clock test 100000 Hz\n"));
    assert!(plain.contains(
        "   4  (no name)         45.00%\n      (deleted tasks)    0.01%\n  ------------------------------\n"
    ));
    // A tiny peak reads as every tiny share does.
    let (header, mut lines) = since_start();
    lines[1].row.peak = 1;
    assert!(render_with(flags("cl"), &header, &lines).contains("25.000 ms in #17  peak <0.01% in #3\n"));
}

#[test]
fn cumulative_json() {
    let expected = include_str!("../../report-schema/samples/since-start.json");
    let (header, lines) = since_start();
    assert_eq!(render_with(flags("cm"), &header, &lines), at_capacity(expected));
}

/// The lines of a table between the column titles and the rule.
fn task_lines(text: &str) -> Vec<&str> {
    text.lines().skip(2).take_while(|l| !l.starts_with("  ---")).collect()
}

#[test]
fn sorted_by_usage_ties_by_id() {
    assert_eq!(
        task_lines(&render(flags("sd"))),
        [
            "   4  (no name)         45.00%",
            "   1  work10            10.02%",
            "   0  (overflow)         0.20%  tasks without an ID in the window: 3",
            "   3  churn-\"7\"?        <0.01%  deleted",
        ]
    );
    // Equal usage: by ID. The idle task stays apart.
    let (head, mut lines) = sample();
    lines[1].row.counts = 45_000;
    lines[4].row.counts = 10_020;
    lines[3].row.counts = 10_020;
    lines[OTHER_AT].row.counts -= 10_017;
    let text = render_with(flags("sd"), &head, &lines);
    assert_eq!(
        task_lines(&text).join("\n"),
        "   1  work10            45.00%\n   3  churn-\"7\"?        10.02%  deleted\n   4  (no name)         10.02%\n   0  (overflow)         0.20%  tasks without an ID in the window: 3"
    );
    // More tasks than a walk picks: every one once, busiest first.
    let rows: Vec<Row> = (1..=20u16).map(|id| task(id, "t", u64::from(id % 7) * 100)).collect();
    let total: u64 = rows.iter().map(|r| r.counts).sum();
    let lines = lines_of(&rows, 100_000 - total);
    let text = render_with(flags("s"), &header(100_000, 0, 0), &lines);
    let ids: Vec<u16> = task_lines(&text).iter().map(|l| l[..4].trim().parse().unwrap()).collect();
    let mut expected: Vec<u16> = (1..=20).collect();
    expected.sort_by_key(|&id| (core::cmp::Reverse(id % 7), id));
    assert_eq!(ids, expected, "{text}");
}

#[test]
fn top_tasks_and_the_rest_on_one_line() {
    // The busiest task, then the two others summed.
    assert_eq!(
        task_lines(&render(Options { top: Some(1), ..flags("l") })),
        [
            "   4  (no name)         45.00%         7   123.450 ms",
            "      (2 more tasks)    10.22%",
            "      (1 deleted)       <0.01%",
        ]
    );
    // The two busiest, and the one left.
    assert_eq!(
        task_lines(&render(Options { top: Some(2), ..flags("s") })),
        [
            "   4  (no name)         45.00%",
            "   1  work10            10.02%",
            "      (1 more task)      0.20%",
            "      (1 deleted)       <0.01%",
        ]
    );
    // Nothing to cut: no "more" line, but sorted.
    assert_eq!(render(Options { top: Some(3), ..flags("") }), render(flags("s")));
    assert_eq!(render(Options { top: Some(3), ..flags("m") }), render(flags("ms")));
    let json = render(Options { top: Some(2), ..flags("m") });
    assert!(
        json.contains(&at_capacity(
            "\"tasks\":[{\"id\":4,\"name\":\"\",\"counts\":45000,\"usage_pct\":45.00,\"deleted\":false,\
         \"switches\":7,\"longest_slice_us\":123450},\
         {\"id\":1,\"name\":\"work10\",\"counts\":10020,\"usage_pct\":10.02,\"deleted\":false,\
         \"switches\":12,\"longest_slice_us\":25000}],\
         \"slots\":{\"capacity\":32,\"used\":4,\"quarantined\":1,\"free\":27,\"overflow_tasks\":2},\
         \"more_tasks\":{\"count\":1,\"counts\":200,\"usage_pct\":0.20},\"deleted_tasks\":1,"
        )),
        "{json}"
    );
    let (header, lines) = since_start();
    let json = render_with(Options { top: Some(1), ..flags("cm") }, &header, &lines);
    assert!(
        json.contains("\"overflow_tasks\":2},\"more_tasks\":{\"count\":2,\"counts\":10220,\"usage_pct\":10.22},\"deleted_counts\":10,"),
        "{json}"
    );
}

#[test]
fn figures_that_change_while_read_are_refused() {
    let (header, lines) = sample();
    for change_at in 1..(3 * LINES) {
        let mut out = Text(Vec::new());
        let mut src = Fake { lines: lines.clone(), reads: 0, change_at: Some(change_at) };
        let done =
            write_report(&mut out, &flags("s"), ClockInfo { hz: 100_000, name: "test" }, &header, &mut src, &mut None);
        // Every read is checked: a change at any of them stops the report.
        assert_eq!(done.is_err(), change_at <= src.reads, "change at read {change_at} of {}", src.reads);
    }
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
    write_usage(&mut out, 137_438);
    let text = String::from_utf8(out.0).unwrap();
    for option in ["-m ", "-c ", "-s ", "-n N ", "-d ", "-l ", "-w MS ", "-h "] {
        assert!(text.contains(&format!("\n  {option}")), "{option}: {text}");
    }
    assert!(text.lines().all(|l| l.len() <= 80), "{text}");
    // The longest window is the clock's.
    assert!(text.contains("\n  -w MS   windows of MS ms (1 to 137438), from the window under way\n"));
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

/// Cumulative rounding written plainly, with 128-bit arithmetic: the model `Shares`
/// must agree with.
fn reference_pcts(counts: &[u64]) -> Vec<u16> {
    let total = counts.iter().fold(0u64, |s, &c| s.saturating_add(c));
    let shift = (64 - total.leading_zeros()).saturating_sub(50);
    let scaled = u128::from(total >> shift);
    let upto = |sum: u64| (u128::from(sum >> shift).min(scaled) * 10_000).checked_div(scaled).unwrap_or(0);
    let mut before = 0u64;
    counts
        .iter()
        .map(|&c| {
            let after = before.saturating_add(c);
            let share = upto(after) - upto(before);
            before = after;
            share as u16
        })
        .collect()
}

#[test]
fn shares_match_a_reference_model() {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for case in 0..20_000 {
        let len = (next() % LINES as u64) as usize;
        let counts: Vec<u64> = (0..len)
            .map(|_| match next() % 5 {
                0 => 0,
                1 => next() % 1000,
                2 => next() % (1 << 32),
                3 => next() / 64,
                _ => next() >> (next() % 64),
            })
            .collect();
        let got = pcts(&counts);
        assert_eq!(got, reference_pcts(&counts), "case {case}: {counts:?}");
        let total = counts.iter().fold(0u64, |s, &c| s.saturating_add(c));
        if total != 0 && total != u64::MAX {
            assert_eq!(got.iter().map(|&p| u32::from(p)).sum::<u32>(), 10_000, "case {case}: {counts:?}");
        }
    }
}

#[test]
fn big_numbers_and_long_durations() {
    // Since start, the length is what the lines add up to.
    let (header, mut lines) = sample();
    lines[1].row.counts = 1_000_000_000_007 - (100_000 - 10_020); // 10_000_000.000_070 s at 100 kHz
    let json = render_with(flags("mc"), &header, &lines);
    assert!(json.contains("\"uptime_us\":10000000000070,\"uptime_counts\":1000000000007,"), "{json}");
    // A line past its window's length (which the engine never gives) is all of it.
    let (mut header, mut lines) = sample();
    lines[1].row.counts = u64::MAX / 2;
    header.length = 1_000_000_000_007;
    let json = render_with(flags("m"), &header, &lines);
    assert!(json.contains("\"name\":\"work10\",\"counts\":9223372036854775807,\"usage_pct\":100.00,"), "{json}");
    let (mut header, lines) = sample();
    header.length = 12_345_678_900;
    let text = render_with(Options::default(), &header, &lines);
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

/// Random reports (every kind of line, with and without -c, -s, -n, -d): the lines
/// shown add up to exactly 100.00% and to the length covered; every line's share is
/// the one cumulative rounding gives it in the engine's order of lines (a reference
/// model), and a line that sums tasks has the sum of their shares; load is 100% -
/// idle - sleep; the tasks shown are the N busiest (or all, in ID order), and the
/// others are on the "more" line; the table shows the same lines as the JSON.
#[test]
fn random_reports_add_up() {
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let (mut cuts, mut sorted, mut grouped) = (0, 0, 0);
    for case in 0..3_000 {
        let counts = |next: &mut dyn FnMut() -> u64| match next() % 6 {
            0 => 0,
            1 => next() % 10,
            2 => next() % 100_000,
            3 => next() % (1 << 32),
            4 => next() >> 20,
            _ => next() >> (next() % 64),
        };
        let cumulative = next() % 2 == 0;
        let mut rows = Vec::new();
        if next() % 2 == 0 {
            rows.push(Row::summary(RowKind::Overflow, counts(&mut next)));
        }
        let tasks = (next() % (MAX_TASKS as u64 + 1)) as usize;
        let idle = if tasks > 0 && next() % 4 != 0 { (next() % tasks as u64) as usize + 1 } else { 0 };
        for id in 1..=tasks {
            let kind = if id == idle { RowKind::Idle } else { RowKind::Task };
            let deleted = kind == RowKind::Task && next() % 5 == 0;
            rows.push(Row {
                kind,
                deleted,
                runs: next() % 1000,
                longest: next() as u32,
                ..task(id as u16, "t", counts(&mut next))
            });
        }
        rows.push(Row::summary(RowKind::Interrupts, counts(&mut next)));
        rows.push(Row::summary(RowKind::Sleep, counts(&mut next)));
        let other = counts(&mut next);
        let retired = if cumulative { counts(&mut next) } else { 0 };
        let mut lines = lines_of(&rows, other);
        if cumulative {
            // Since start, a deleted task is no line of its own: only its time.
            for line in lines.iter_mut().filter(|l| l.row.deleted) {
                line.shown = false;
            }
        }
        let length = lines.iter().fold(retired, |sum, l| sum.saturating_add(l.row.counts));
        if length == u64::MAX {
            continue; // (saturated: no such report)
        }
        let header = Header { retired, window: 7, ..header(length, 0, idle as u16) };
        let opts = Options {
            cumulative,
            sort: next() % 2 == 0,
            top: if next() % 3 == 0 { None } else { Some((next() % (tasks as u64 + 2)).max(1) as u16) },
            deleted: next() % 2 == 0,
            ..Options::default()
        };
        let json = render_with(Options { json: true, ..opts }, &header, &lines);
        let ctx = format!("case {case}: {opts:?}, {json}");

        // The reference: every line's share in the engine's order, retired time first.
        let order: Vec<u64> = core::iter::once(retired).chain(lines.iter().map(|l| l.row.counts)).collect();
        let reference = reference_pcts(&order);
        let share_of = |at: usize| u64::from(reference[at + 1]);
        let grouped_here = |l: &Line| !l.shown || (l.row.deleted && (cumulative || !opts.deleted));
        let mut listed: Vec<usize> = (0..LINES)
            .filter(|&at| matches!(lines[at].row.kind, RowKind::Task | RowKind::Overflow))
            .filter(|&at| lines[at].shown && !grouped_here(&lines[at]))
            .collect();
        if opts.sort || opts.top.is_some() {
            listed.sort_by_key(|&at| (core::cmp::Reverse(lines[at].row.counts), at));
        }
        let shown = opts.top.map_or(listed.len(), |t| listed.len().min(usize::from(t)));

        // The tasks shown, in order, with their shares.
        let ids: Vec<u64> = json_values(&json, "id").iter().map(|v| v.parse().unwrap()).collect();
        let task_pcts: Vec<u64> = json_values(&json, "usage_pct").into_iter().map(hundredths).collect();
        let expected_ids: Vec<u64> =
            listed[..shown].iter().map(|&at| at as u64).chain((idle != 0).then_some(idle as u64)).collect();
        assert_eq!(ids, expected_ids, "{ctx}");
        for (i, &at) in listed[..shown].iter().enumerate() {
            assert_eq!(task_pcts[i], share_of(at), "share of line {at}: {ctx}");
        }
        let mut pct: u64 = task_pcts[..shown].iter().sum();
        // The "more" line: the others, and the sum of their shares.
        let cut = shown < listed.len();
        assert_eq!(json_values(&json, "more_tasks").len(), usize::from(cut), "{ctx}");
        if cut {
            let rest = &listed[shown..];
            assert_eq!(json_number(&json, "count"), rest.len() as u64, "{ctx}");
            let more = rest.iter().map(|&at| share_of(at)).sum::<u64>();
            assert_eq!(task_pcts[shown], more, "{ctx}");
            pct += more;
            cuts += 1;
        }
        sorted += usize::from(opts.top.is_some() && shown > 2);
        // The deleted tasks' line.
        let members: Vec<usize> = (0..LINES).filter(|&at| grouped_here(&lines[at]) && lines[at].row.id != 0).collect();
        let deleted_pct = reference[0] as u64 + members.iter().map(|&at| share_of(at)).sum::<u64>();
        assert_eq!(json_number(&json, "deleted_pct"), deleted_pct, "{ctx}");
        let deleted_counts = retired + members.iter().map(|&at| lines[at].row.counts).sum::<u64>();
        assert_eq!(json_number(&json, "deleted_counts"), deleted_counts, "{ctx}");
        grouped += usize::from(!cumulative && members.iter().any(|&at| lines[at].shown));
        pct += deleted_pct;
        // Idle and the summary lines.
        let idle_pct = json_number(&json, "idle_pct");
        assert_eq!(idle_pct, if idle == 0 { 0 } else { share_of(idle) }, "{ctx}");
        for (name, at) in [("interrupts", INTERRUPTS_AT), ("sleep", SLEEP_AT), ("other", OTHER_AT)] {
            assert_eq!(json_number(&json, &format!("{name}_pct")), share_of(at), "{name}: {ctx}");
            assert_eq!(json_number(&json, &format!("{name}_counts")), lines[at].row.counts, "{name}: {ctx}");
            pct += share_of(at);
        }
        pct += idle_pct;
        assert_eq!(pct, if length == 0 { 0 } else { 10_000 }, "{ctx}");
        let idle_counts = if idle == 0 { 0 } else { lines[idle].row.counts };
        let sleep = lines[SLEEP_AT].row;
        let load = if length - idle_counts - sleep.counts == 0 { 0 } else { 10_000 - idle_pct - share_of(SLEEP_AT) };
        assert_eq!(json_number(&json, "load_pct"), load, "{ctx}");

        // The table: one line per task shown, the "more" line, the deleted line, and
        // the summary lines.
        let table = render_with(opts, &header, &lines);
        let tasks_in_table = task_lines(&table);
        let deleted_line = cumulative || members.iter().any(|&at| lines[at].shown);
        assert_eq!(tasks_in_table.len(), shown + usize::from(cut) + usize::from(deleted_line), "{table}");
        // The rule, idle, interrupts, sleep, other, load, load avg, IDs.
        assert_eq!(table.lines().count(), 2 + tasks_in_table.len() + 8, "{table}");
    }
    assert!(cuts > 500 && sorted > 500 && grouped > 300, "{cuts} cut, {sorted} sorted, {grouped} grouped");
}

#[test]
fn a_cell_writes_every_number_in_decimal() {
    use super::out::Cell;
    let values = [
        0,
        1,
        9,
        10,
        99_999,
        u64::from(u32::MAX),
        1 << 32,
        (1 << 32) + 1,
        10_000_000_000,
        (1 << 50) + 7,
        12_345_678_901_234_567_890,
        u64::MAX - 1,
        u64::MAX,
    ];
    for v in values {
        for min in [1, 3, 12, 25] {
            let mut cell = Cell::new();
            cell.digits(v, min);
            assert_eq!(core::str::from_utf8(cell.bytes()).unwrap(), format!("{v:0min$}"), "{v}, {min} digits");
        }
    }
}
