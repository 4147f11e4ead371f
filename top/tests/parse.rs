//! The console line reader on lines recorded from the simulator
//! (`data/windows.jsonl`, ten consecutive `show_cpu_usage -m` windows), and on the
//! same lines after a serial line has had its way with them: cut short, bytes
//! flipped, glued to a prompt, split across reads, interleaved with the shell's text.

use cpu_usage_top::window::{parse_line, Line, LineReader, Window};

const RECORDED: &str = include_str!("data/windows.jsonl");

fn recorded() -> Vec<&'static str> {
    RECORDED.lines().collect()
}

fn window(line: &str) -> Window {
    match parse_line(line) {
        Line::Window(w) => *w,
        other => panic!("not a window: {other:?}\n{line}"),
    }
}

#[test]
fn recorded_windows_read_whole_and_add_up() {
    for line in recorded() {
        let w = window(line);
        // The device's own invariant, as read: every count of the window is somewhere.
        let idle = w.idle.as_ref().expect("the idle task").counts;
        let tasks: u64 = w.tasks.iter().map(|t| t.counts).sum();
        let more = w.more_tasks.as_ref().map_or(0, |m| m.counts);
        assert_eq!(
            tasks + more + idle + w.interrupts_counts + w.sleep_counts + w.other_counts,
            w.window_counts,
            "window {}",
            w.window
        );
        assert_eq!(w.mode, "window");
        assert!(w.task("work40").is_some());
        assert_eq!(w.slots.used + w.slots.quarantined + w.slots.free, w.slots.capacity);
    }
    let numbers: Vec<u64> = recorded().iter().map(|l| window(l).window).collect();
    assert_eq!(numbers, (0..10).collect::<Vec<u64>>());
}

#[test]
fn a_prompt_before_the_report_and_a_crlf_after_it_are_not_part_of_it() {
    let line = recorded()[3];
    assert_eq!(window(&format!("> {line}\r")), window(line));
}

#[test]
fn every_truncation_of_a_report_is_garbage_never_a_window() {
    let line = recorded()[5];
    let start = line.find('{').unwrap();
    for end in (start + 1)..line.len() {
        match parse_line(&line[..end]) {
            Line::Garbage(_) => {}
            other => panic!("cut at {end} read as {other:?}"),
        }
    }
}

#[test]
fn corrupted_bytes_give_garbage_or_a_window_never_a_panic() {
    // A bit flipped at every position: what still parses is a window with the same
    // shape (a digit that became another digit), everything else is garbage.
    let line = recorded()[7].as_bytes();
    let mut garbage = 0;
    for i in 0..line.len() {
        for bit in [0x01u8, 0x20, 0x80] {
            let mut bytes = line.to_vec();
            bytes[i] ^= bit;
            let text = String::from_utf8_lossy(&bytes);
            match parse_line(&text) {
                Line::Garbage(why) => {
                    assert!(!why.is_empty());
                    garbage += 1;
                }
                Line::Window(w) => assert_eq!(w.tasks.len(), window(recorded()[7]).tasks.len()),
                Line::Text(_) => assert_eq!(line[i], b'{', "only losing the first brace makes it text"),
            }
        }
    }
    assert!(garbage > line.len(), "most flips break the report ({garbage} of {})", 3 * line.len());
}

#[test]
fn reports_that_are_not_windows_are_told_apart() {
    assert!(matches!(parse_line("freertos-cpu-usage demo on POSIX simulator"), Line::Text(_)));
    assert!(matches!(parse_line("> "), Line::Text(_)));
    // Before the first window, or a since-start report: not a window, not garbage either
    // for the first; the second is a report of another kind.
    let none = r#"{"mode":"window","error":"no completed window yet","window_ms":1000}"#;
    assert!(matches!(parse_line(none), Line::Text(_)));
    let cumulative = r#"{"mode":"cumulative","windows":2,"uptime_us":1}"#;
    assert!(matches!(parse_line(cumulative), Line::Garbage(why) if why.contains("cumulative")));
    assert!(matches!(parse_line(r#"{"window":3}"#), Line::Garbage(_)));
    // A watchdog alert (the demo prints it as a JSON line): shell text, not garbage.
    let alert = r#"{"watchdog":"load","load_pct":81.02,"threshold_pct":80.00,"window":4}"#;
    assert!(matches!(parse_line(alert), Line::Text(t) if t == alert));
    let bad_field = recorded()[0].replace("\"window_us\":1000000", "\"window_us\":\"soon\"");
    assert!(matches!(parse_line(&bad_field), Line::Garbage(why) if why.contains("bad field")));
}

#[test]
fn the_reader_joins_lines_split_across_reads_and_counts_garbage() {
    let mut stream = String::new();
    stream.push_str("> show_cpu_usage -m -f\n");
    stream.push_str(recorded()[0]);
    stream.push('\n');
    stream.push_str(&recorded()[1][..200]); // a report cut by a reset of the device
    stream.push('\n');
    stream.push_str(
        "{\"watchdog\":\"slice\",\"slice_us\":10020,\"threshold_us\":10000,\"task_id\":3,\"task\":\"work40\",\"window\":2}\r\n",
    );
    stream.push_str(recorded()[2]);
    stream.push_str("\r\n");
    stream.push_str(&recorded()[3][..50]); // still under way when the bytes stop
    for chunk in [1usize, 7, 64, 4096] {
        let mut reader = LineReader::default();
        let lines: Vec<Line> = stream.as_bytes().chunks(chunk).flat_map(|c| reader.feed(c)).collect();
        let windows: Vec<u64> = lines
            .iter()
            .filter_map(|l| match l {
                Line::Window(w) => Some(w.window),
                _ => None,
            })
            .collect();
        assert_eq!(windows, [0, 2], "chunks of {chunk}");
        assert_eq!(reader.garbage, 1, "chunks of {chunk}");
        assert!(reader.last_garbage.is_some());
        let texts = lines.iter().filter(|l| matches!(l, Line::Text(_))).count();
        assert_eq!(texts, 2, "the command echo and the alert, chunks of {chunk}");
    }
}

#[test]
fn an_endless_line_is_cut_not_hoarded() {
    let mut reader = LineReader::default();
    let noise = vec![b'{'; 1 << 20];
    assert!(reader.feed(&noise).is_empty());
    let lines = reader.feed(b"\n");
    assert!(matches!(lines.as_slice(), [Line::Garbage(_)]));
    // The next report reads normally.
    let mut next = recorded()[4].as_bytes().to_vec();
    next.push(b'\n');
    assert!(matches!(reader.feed(&next).as_slice(), [Line::Window(_)]));
}

#[test]
fn the_watchdog_settings_line_is_read_and_nothing_else() {
    use cpu_usage_top::window::{parse_watchdogs, Watchdogs};
    let both = parse_watchdogs("> watchdog: load > 72.50% for 3 windows; slice > 5000 us\r");
    assert_eq!(both, Some(Watchdogs { load_pct: Some(72.5), slice_us: Some(5000) }));
    let one = parse_watchdogs("watchdog: load > 80.00% for 1 window; slice off");
    assert_eq!(one, Some(Watchdogs { load_pct: Some(80.0), slice_us: None }));
    assert_eq!(parse_watchdogs("watchdog: load off; slice off"), Some(Watchdogs::default()));
    // An alert, a cut line, the shell's own text: not settings.
    for line in [
        "watchdog: slice 10.020 ms > 10.000 ms by task 3 \"work40\" in window #10",
        "watchdog: load 81.02% > 80.00% in window #4",
        "watchdog: load > 72.50% for 3 win",
        "cpu_usage_watchdog",
    ] {
        assert_eq!(parse_watchdogs(line), None, "{line}");
    }
}

#[test]
fn the_top_tasks_keep_every_count() {
    let w = window(recorded()[2]);
    let all: u64 = w.tasks.iter().map(|t| t.counts).sum::<u64>() + w.more_tasks.as_ref().map_or(0, |m| m.counts);
    for n in [0, 1, 3, w.tasks.len(), w.tasks.len() + 5] {
        let top = w.top(n);
        assert_eq!(top.tasks.len(), n.min(w.tasks.len()));
        assert!(top.tasks.windows(2).all(|p| p[0].counts >= p[1].counts), "largest first");
        let kept: u64 = top.tasks.iter().map(|t| t.counts).sum();
        let more = top.more_tasks.as_ref().map_or(0, |m| m.counts);
        assert_eq!(kept + more, all, "top {n}: nothing lost");
        if n < w.tasks.len() {
            assert_eq!(top.more_tasks.as_ref().unwrap().count as usize, w.tasks.len() - n);
        }
    }
    assert_eq!(w.top(3).tasks[0].name, "work40");
}

#[test]
fn a_window_of_two_cores_reads_with_each_cores_line() {
    // The library built for two cores (`report-schema/samples`); its since-start
    // report is of another kind, as on one core.
    let line = include_str!("../../report-schema/samples/two-cores-window.json").trim_end();
    let w = window(&format!("> {line}\r"));
    assert_eq!((w.cores, w.cores()), (Some(2), 2));
    // Counts of both cores: twice the window.
    let idle = w.idle.as_ref().expect("both idle tasks on one line").counts;
    let tasks: u64 = w.tasks.iter().map(|t| t.counts).sum();
    assert_eq!(tasks + idle + w.interrupts_counts + w.sleep_counts + w.other_counts, 2 * w.window_counts);
    let busy: Vec<(u32, f64, u64)> =
        w.per_core.as_deref().unwrap().iter().map(|c| (c.core, c.busy_pct, c.interrupts)).collect();
    assert_eq!(busy, [(0, 60.0, 0), (1, 40.0, 1)]);
    let since_start = include_str!("../../report-schema/samples/two-cores-since-start.json").trim_end();
    assert!(matches!(parse_line(since_start), Line::Garbage(why) if why.contains("cumulative")));
    // Split across reads, between two windows of one core.
    let stream = format!("{}\n{line}\r\n{}\n", recorded()[0], recorded()[1]);
    let mut reader = LineReader::default();
    let cores: Vec<u32> = stream
        .as_bytes()
        .chunks(7)
        .flat_map(|c| reader.feed(c))
        .map(|l| match l {
            Line::Window(w) => w.cores(),
            other => panic!("not a window: {other:?}"),
        })
        .collect();
    assert_eq!((cores, reader.garbage), (vec![1, 2, 1], 0));
    assert_eq!(window(recorded()[0]).per_core, None);
}
