//! The types and invariants on reports the library wrote (`samples/`: a window, with
//! and without `-d`, and a since-start report of known figures, which the library's
//! own tests produce byte for byte; a window the POSIX simulator printed, and one it
//! printed with its note, on a host core shared with a busy loop; a window and a
//! since-start report of a library built for two cores); then each invariant broken
//! in turn, by the smallest change to a good report.

use super::*;

// The library's reports of known figures at 32 IDs, which its own tests
// (src/report/tests.rs) produce byte for byte, and a window the POSIX simulator
// printed with `-m` during churn (the bucket in use, every ID taken).
const WINDOW: &str = include_str!("../samples/window.json");
/// The same window with `-d`: the deleted task listed, its name escaped.
const WINDOW_D: &str = include_str!("../samples/window-deleted-listed.json");
const SINCE_START: &str = include_str!("../samples/since-start.json");
const SIMULATOR: &str = include_str!("../samples/simulator-window.json");
/// A window the simulator printed with `-m` while it had about half a host core: its
/// note is the object's last member.
const SIMULATOR_NOTE: &str = include_str!("../samples/simulator-window-note.json");
/// The library built with `CPU_USAGE_CORES=2`, 32 IDs: in a window of 1000000
/// counts, A ran 600000 on core 0, B 350000 on core 1 with one interrupt of 50000;
/// the rest idle. Since start: the same, one window.
const TWO_CORES: &str = include_str!("../samples/two-cores-window.json");
const TWO_CORES_SINCE_START: &str = include_str!("../samples/two-cores-since-start.json");

fn window(text: &str) -> Window {
    parse_exact(text).unwrap_or_else(|e| panic!("{e}\n{text}")).window().expect("a window")
}

/// `text` with its first `from` replaced by `to` (which must be there).
fn with(text: &str, from: &str, to: &str) -> String {
    assert!(text.contains(from), "{from} is not in the sample");
    text.replacen(from, to, 1)
}

/// The invariant `text` breaks, read exactly.
fn broken(text: &str) -> Broken {
    match parse_exact(text) {
        Ok(r) => panic!("accepted: {r:?}\n{text}"),
        Err(e) => e,
    }
}

fn assert_breaks(text: &str, invariant: Invariant, words: &str) {
    let e = broken(text);
    assert_eq!(e.invariant, invariant, "{e}");
    assert!(e.to_string().contains(words), "{e} does not say {words:?}");
}

#[test]
fn the_librarys_reports_read_exactly() {
    let w = window(WINDOW);
    assert_eq!(
        (w.window, w.window_us, w.window_counts, w.clock.as_str(), w.clock_hz),
        (41, 1_000_000, 100_000, "test", 100_000)
    );
    assert_eq!(w.tasks.len(), 3);
    assert_eq!((w.tasks[0].id, w.tasks[0].tasks, w.tasks[1].tasks), (0, Some(3), None));
    assert_eq!((w.tasks[1].usage_pct, w.tasks[1].switches, w.tasks[1].longest_slice_us), (10.02, 12, 25_000));
    assert_eq!(w.slots, Slots { capacity: 32, used: 4, quarantined: 1, free: 27, overflow_tasks: 2 });
    assert_eq!((w.deleted.deleted_tasks, w.deleted_counts, w.deleted_pct), (1, 3, 0.0));
    assert_eq!(w.idle.as_ref().map(|i| (i.id, i.name.as_str(), i.counts)), Some((2, "IDLE", 25_000)));
    assert_eq!((w.interrupts_counts, w.interrupts_pct, w.interrupts, w.longest_interrupt_us), (1230, 1.23, 456, 120));
    assert_eq!((w.sleep_counts, w.sleep_pct, w.sleeps), (5000, 5.0, 9));
    assert_eq!((w.other_counts, w.other_pct, w.idle_pct, w.load_pct), (13_547, 13.55, 25.0, 70.0));
    assert_eq!(w.load_avg_pct, [Some(77.12), Some(76.0), None]);
    w.check_shown(Shown::default()).unwrap();
    assert!(w.more_tasks.is_none());

    let d = window(WINDOW_D);
    assert_eq!(name_bytes(&d.tasks[2].name).unwrap(), b"churn-\"7\"\x01");
    assert!(d.tasks[2].deleted);
    d.check_shown(Shown { deleted: true, ..Shown::default() }).unwrap();
    let e = d.check_shown(Shown::default()).unwrap_err();
    assert_eq!(e.invariant, Invariant::Deleted, "{e}");

    let s = parse_exact(SINCE_START).unwrap().since_start().expect("since start");
    assert_eq!((s.windows, s.uptime_us, s.uptime_counts), (41, 1_000_000, 100_000));
    let h = &s.tasks[2].history;
    assert_eq!((h.longest_slice_window, h.peak_pct, h.peak_window), (Some(17), Some(99.99), Some(3)));
    assert_eq!(s.idle.as_ref().unwrap().history.peak_pct, Some(90.0));
    s.check_shown(Shown::default()).unwrap();

    window(SIMULATOR).check_shown(Shown::default()).unwrap();
    let none = r#"{"mode":"window","error":"no completed window yet","window_ms":250}"#;
    assert_eq!(
        parse_exact(none).unwrap(),
        Report::NoWindow(NoWindow { mode: "window".into(), error: "no completed window yet".into(), window_ms: 250 })
    );
}

#[test]
fn the_simulators_note_is_the_last_member_and_only_there_when_it_has_one() {
    let w = window(SIMULATOR_NOTE);
    w.check_shown(Shown::default()).unwrap();
    let note = w.note.as_ref().expect("the note");
    assert_eq!((note.span_us, note.awake_us, note.held_back_us), (1_007_070, 964_110, 458_900));
    assert!(note.text.starts_with("over the last 1.0 s the host gave the simulator 52.4% of a core"), "{note:?}");
    assert!(note.text.ends_with("a share can read up to 45.6 points high (README: Accuracy)"), "{note:?}");
    assert!(SIMULATOR_NOTE.ends_with(",\"held_back_us\":458900}}"));
    // Without one, there is no member at all (not `null`).
    assert_eq!(window(SIMULATOR).note, None);
    assert_breaks(&with(SIMULATOR, "]}", "],\"note\":null}"), Invariant::Text, "differs");
    // Its place and its fields are the contract too.
    let text = format!("\"text\":\"{}\"", note.text);
    let text_last = with(
        &with(SIMULATOR_NOTE, &format!("{text},"), ""),
        "\"held_back_us\":458900}",
        &format!("\"held_back_us\":458900,{text}}}"),
    );
    assert_breaks(&text_last, Invariant::Text, "differs");
    assert_breaks(&with(SIMULATOR_NOTE, &format!("{text},"), ""), Invariant::Shape, "missing field `text`");
    let at = SIMULATOR_NOTE.find(",\"note\":").unwrap();
    let member = &SIMULATOR_NOTE[at + 1..SIMULATOR_NOTE.len() - 1];
    let note_first = format!("{{{member},{}}}", &SIMULATOR_NOTE[1..at]);
    assert_breaks(&note_first, Invariant::Text, "differs");
    // Read leniently (a viewer), a field of the note these types do not know is ignored.
    assert!(parse(&with(SIMULATOR_NOTE, "\"held_back_us\"", "\"stolen_us\":1,\"held_back_us\"")).is_ok());
}

#[test]
fn a_note_whose_parts_exceed_its_span_breaks_note() {
    assert_breaks(
        &with(SIMULATOR_NOTE, "\"held_back_us\":458900", "\"held_back_us\":964111"),
        Invariant::Note,
        "held_back_us: 964111",
    );
    assert_breaks(&with(SIMULATOR_NOTE, "\"awake_us\":964110", "\"awake_us\":1007071"), Invariant::Note, "");
    let mut w = window(SIMULATOR_NOTE);
    w.note.as_mut().unwrap().text.clear();
    assert_eq!(w.check().unwrap_err().invariant, Invariant::Note);
    // The same on a since-start report.
    let object = SINCE_START.trim_end().strip_suffix('}').unwrap();
    let with_note = |note: &str| format!("{object},\"note\":{note}}}");
    let note = "{\"text\":\"x\",\"span_us\":10,\"awake_us\":5,\"held_back_us\":5}";
    assert!(parse_exact(&with_note(note)).unwrap().since_start().unwrap().note.is_some());
    assert_breaks(&with_note(&note.replace("\"awake_us\":5", "\"awake_us\":11")), Invariant::Note, "awake_us: 11");
}

#[test]
fn a_report_of_the_other_kind_or_no_report_is_told_apart() {
    assert!(matches!(parse(SINCE_START), Ok(Report::SinceStart(_))));
    assert_breaks(&with(WINDOW, "\"mode\":\"window\"", "\"mode\":\"hourly\""), Invariant::Shape, "hourly");
    assert_breaks("{\"window\":3}", Invariant::Shape, "no \"mode\"");
    assert_breaks(&WINDOW[..200], Invariant::Shape, "not a JSON object");
    assert_breaks(&with(WINDOW, "\"window_us\":1000000", "\"window_us\":\"soon\""), Invariant::Shape, "bad field");
    // Counts are whole: every clock count is charged exactly once.
    assert_breaks(&with(WINDOW, "\"counts\":10020", "\"counts\":10020.5"), Invariant::Shape, "bad field");
    assert_breaks(&with(WINDOW, "\"counts\":10020", "\"counts\":-10020"), Invariant::Shape, "bad field");
}

#[test]
fn a_report_that_is_not_its_own_text_written_back_breaks_text() {
    // A share without its two decimals, a field unknown, one missing, two swapped, a
    // name quoted otherwise, a second line.
    assert_breaks(&with(WINDOW, "\"sleep_pct\":5.00", "\"sleep_pct\":5.0"), Invariant::Text, "5.0");
    assert_breaks(&with(WINDOW, "\"sleeps\":9,", "\"sleeps\":9,\"naps\":2,"), Invariant::Text, "naps");
    assert_breaks(&with(WINDOW, "\"longest_interrupt_us\":120,", ""), Invariant::Shape, "missing field");
    assert_breaks(
        &with(WINDOW, "\"usage_pct\":10.02,\"deleted\":false,", "\"usage_pct\":10.02,"),
        Invariant::Text,
        "differs",
    );
    let swapped = with(
        WINDOW,
        "\"window_us\":1000000,\"window_counts\":100000",
        "\"window_counts\":100000,\"window_us\":1000000",
    );
    assert_breaks(&swapped, Invariant::Text, "differs");
    // (Byte 0xe9 is written `\u00e9`, never as UTF-8.)
    let escaped = window(&with(WINDOW_D, "\\u0001", "\\u0001\\u00e9"));
    assert_eq!(name_bytes(&escaped.tasks[2].name).unwrap(), b"churn-\"7\"\x01\xe9");
    let e = broken(&with(WINDOW_D, "\\u0001", "\\u0001é"));
    assert_eq!(e.invariant, Invariant::Text, "{e}");
    assert_breaks(&format!("{WINDOW}{WINDOW}"), Invariant::Text, "more than one line");
    // A since-start report's history must be there, null or not.
    assert_breaks(&with(SINCE_START, ",\"peak_pct\":0.30,\"peak_window\":3", ""), Invariant::Shape, "peak_pct");
    assert_breaks(&with(SINCE_START, ",\"longest_slice_window\":17", ""), Invariant::Text, "differs");
    // (Read leniently, all of these are reports.)
    assert!(parse(&with(WINDOW, "\"sleeps\":9,", "\"sleeps\":9,\"naps\":2,")).is_ok());
}

#[test]
fn one_count_too_many_breaks_counts() {
    assert_breaks(
        &with(WINDOW, "\"sleep_counts\":5000", "\"sleep_counts\":5001"),
        Invariant::Counts,
        "window_counts is 100000",
    );
    assert_breaks(
        &with(WINDOW, "\"interrupts_counts\":1230", "\"interrupts_counts\":1231"),
        Invariant::Counts,
        "interrupts 1231",
    );
    assert_breaks(
        &with(SINCE_START, "\"deleted_counts\":10", "\"deleted_counts\":9"),
        Invariant::Counts,
        "uptime_counts",
    );
}

#[test]
fn a_hundredth_off_breaks_shares_or_rounding() {
    // Shares add up to exactly 100.00: no tolerance, they are whole hundredths.
    assert_breaks(
        &with(WINDOW, "\"idle_pct\":25.00,\"load_pct\":70.00", "\"idle_pct\":24.99,\"load_pct\":70.01"),
        Invariant::Shares,
        "99.99",
    );
    assert_breaks(&with(SIMULATOR, "\"idle_pct\":2.35", "\"idle_pct\":2.25"), Invariant::Shares, "not 100.00");
    // Moved from one line to another, the sum holds but a line is a hundredth past
    // its exact share.
    let moved =
        with(&with(WINDOW, "\"usage_pct\":10.02", "\"usage_pct\":10.03"), "\"other_pct\":13.55", "\"other_pct\":13.54");
    assert_breaks(&moved, Invariant::Rounding, "task 1");
    // A third decimal, or past 100.
    let mut w = window(WINDOW);
    w.tasks[1].usage_pct = 10.025;
    assert_eq!(w.check().unwrap_err().invariant, Invariant::Shares);
    w.tasks[1].usage_pct = 100.01;
    assert_eq!(w.check().unwrap_err().invariant, Invariant::Shares);
}

#[test]
fn a_load_that_is_not_100_less_idle_and_sleep_breaks_load() {
    let mut w = window(WINDOW);
    w.load_pct = 70.01;
    assert_eq!(w.check().unwrap_err().invariant, Invariant::Load);
    let mut w = window(WINDOW);
    w.load_avg_pct[2] = Some(1.001);
    assert_eq!(w.check().unwrap_err().invariant, Invariant::Shares);
}

#[test]
fn the_length_in_microseconds_is_the_counts_at_the_clock() {
    assert_breaks(
        &with(WINDOW, "\"window_us\":1000000", "\"window_us\":1000001"),
        Invariant::Length,
        "1000000 expected",
    );
    assert_breaks(&with(SIMULATOR, "\"clock_hz\":15625000", "\"clock_hz\":15625001"), Invariant::Length, "");
    let mut s = parse(SINCE_START).unwrap().since_start().unwrap();
    s.windows = 0;
    assert_eq!(s.check().unwrap_err().invariant, Invariant::Length);
}

#[test]
fn a_leaked_id_breaks_the_pool() {
    assert_breaks(&with(SIMULATOR, "\"free\":0", "\"free\":1"), Invariant::Pool, "capacity 32");
}

#[test]
fn ids_are_unique_and_within_the_pool() {
    assert_breaks(&with(WINDOW, "{\"id\":4,", "{\"id\":2,"), Invariant::Ids, "also a task's");
    assert_breaks(&with(WINDOW, "{\"id\":4,", "{\"id\":33,"), Invariant::Ids, "past the capacity");
    assert_breaks(&with(WINDOW, "\"name\":\"(overflow)\"", "\"name\":\"bucket\""), Invariant::Ids, "(overflow)");
    let mut w = window(WINDOW);
    w.tasks[2].id = 1;
    assert_eq!(w.check().unwrap_err().invariant, Invariant::Ids);
}

#[test]
fn the_overflow_bucket_alone_counts_tasks() {
    assert_breaks(
        &with(WINDOW, "\"deleted\":false,\"tasks\":3,", "\"deleted\":false,"),
        Invariant::Overflow,
        "tasks None",
    );
    let mut w = window(WINDOW);
    w.tasks[1].tasks = Some(1);
    assert_eq!(w.check().unwrap_err().invariant, Invariant::Overflow);
    w.tasks[1].tasks = None;
    w.tasks[0].deleted = true;
    assert_eq!(w.check().unwrap_err().invariant, Invariant::Overflow);
}

#[test]
fn deleted_tasks_only_where_they_may_be() {
    let mut w = window(WINDOW);
    w.deleted.deleted_tasks = 0;
    assert_eq!(w.check().unwrap_err().invariant, Invariant::Deleted);
    let mut s = parse(SINCE_START).unwrap().since_start().unwrap();
    s.tasks[1].deleted = true;
    assert_eq!(s.check().unwrap_err().invariant, Invariant::Deleted);
}

#[test]
fn time_without_runs_breaks_runs() {
    assert_breaks(&with(WINDOW, "\"switches\":12", "\"switches\":0"), Invariant::Runs, "no run");
    assert_breaks(&with(WINDOW, "\"sleeps\":9", "\"sleeps\":0"), Invariant::Runs, "sleep");
    assert_breaks(&with(WINDOW, "\"interrupts\":456", "\"interrupts\":0"), Invariant::Runs, "interrupts");
    let mut w = window(WINDOW);
    w.tasks[1].name = "wörk10\u{2603}".into();
    assert_eq!(w.check().unwrap_err().invariant, Invariant::Runs);
}

#[test]
fn a_history_out_of_place_breaks_history() {
    let s = SINCE_START;
    assert_breaks(
        &with(s, "\"longest_slice_window\":17,\"peak_pct\":45.00", "\"longest_slice_window\":null,\"peak_pct\":45.00"),
        Invariant::History,
        "in no window",
    );
    assert_breaks(
        &with(s, "\"peak_pct\":45.00,\"peak_window\":3", "\"peak_pct\":45.00,\"peak_window\":null"),
        Invariant::History,
        "both or neither",
    );
    assert_breaks(
        &with(s, "\"peak_pct\":45.00,\"peak_window\":3", "\"peak_pct\":45.00,\"peak_window\":41"),
        Invariant::History,
        "of 41 completed",
    );
    assert_breaks(
        &with(s, "\"longest_slice_window\":17,\"peak_pct\":45.00", "\"longest_slice_window\":42,\"peak_pct\":45.00"),
        Invariant::History,
        "after the 41",
    );
    // The window under way may hold the longest run.
    window_free(&with(
        s,
        "\"longest_slice_window\":17,\"peak_pct\":45.00",
        "\"longest_slice_window\":41,\"peak_pct\":45.00",
    ));
}

fn window_free(text: &str) {
    parse_exact(text).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn the_listing_follows_the_options() {
    let w = window(SIMULATOR);
    // By ID, not by counts.
    let e = w.check_shown(Shown { sorted: true, ..Shown::default() }).unwrap_err();
    assert_eq!(e.invariant, Invariant::Listing, "{e}");
    // Neither order at all.
    let mut shuffled = w.clone();
    shuffled.tasks.swap(0, 4);
    assert_eq!(shuffled.check().unwrap_err().invariant, Invariant::Listing);

    // What the viewer makes of -n: what the device would have written.
    for n in 1..=w.tasks.len() {
        let top = w.top(n);
        top.check().unwrap_or_else(|e| panic!("top {n}: {e}"));
        top.check_shown(Shown { top: Some(n as u16), ..Shown::default() }).unwrap_or_else(|e| panic!("top {n}: {e}"));
        let again = parse_exact(&serde_json::to_string(&top).unwrap()).unwrap().window().unwrap();
        assert_eq!(again, top);
    }
    let top = w.top(3);
    assert_eq!(top.more_tasks.as_ref().map(|m| (m.count, m.usage_pct)), Some((4, 9.0)));
    let e = top.check_shown(Shown { top: Some(4), ..Shown::default() }).unwrap_err();
    assert_eq!(e.invariant, Invariant::Listing, "a \"more\" line with fewer than N shown: {e}");
    let e = top.check_shown(Shown { top: Some(2), ..Shown::default() }).unwrap_err();
    assert_eq!(e.invariant, Invariant::Listing, "more than N: {e}");
    let mut busier = top.clone();
    if let Some(m) = busier.more_tasks.as_mut() {
        m.counts = busier.tasks[2].counts * 4 + 1;
    }
    let e = busier.check().unwrap_err();
    assert!(matches!(e.invariant, Invariant::Listing), "{e}");
    let mut none = top;
    if let Some(m) = none.more_tasks.as_mut() {
        m.count = 0;
    }
    assert_eq!(none.check().unwrap_err().invariant, Invariant::Listing);
}

#[test]
fn numbers_are_written_as_the_device_writes_them() {
    assert_eq!(pct_text(12.3), "12.30");
    assert_eq!(pct_text(0.0), "0.00");
    assert_eq!(pct_text(100.0), "100.00");
    assert_eq!(hundredths_of(42.67), 4267);
    let mut w = window(WINDOW);
    w.tasks[1].name = "a\"b\\c\u{7f}\u{ff}".into();
    let text = serde_json::to_string(&w).unwrap();
    assert!(text.contains(r#""name":"a\"b\\c\u007f\u00ff""#), "{text}");
    assert_eq!(parse_exact(&text).unwrap().window().unwrap(), w);
}

#[test]
fn a_trace_agrees_with_its_window_or_says_where_not() {
    // Two slots and a window of 100 counts: 1 runs 30, 2 runs 70.
    let lines = [
        "cpu_usage_trace v1 hz=1000 ids=2 events=5 lost=0 t0=0",
        "N 1 a",
        "N 2 b",
        "E 0 0.1.1 0.w7 1e.1.2 46.2.1 0.w8",
        "end events=5",
    ];
    let text: String = lines.iter().map(|l| format!("{l}*{:02x}\n", l.bytes().fold(0u8, |x, b| x ^ b))).collect();
    let t = trace::parse(&text).unwrap();
    assert_eq!(t.windows(), [trace::TraceWindow { window: 7, start: 0, end: 100 }]);
    let mut w = window(WINDOW);
    w.window = 7;
    w.window_counts = 100;
    w.tasks = vec![
        Task { id: 1, name: "a".into(), counts: 30, ..Task::default() },
        Task { id: 2, name: "b".into(), counts: 70, ..Task::default() },
    ];
    w.idle = None;
    (w.interrupts_counts, w.sleep_counts, w.other_counts) = (0, 0, 0);
    assert_eq!(t.check_window(&w).unwrap().map(|tw| tw.end), Some(100));
    w.tasks[1].counts = 69;
    let e = t.check_window(&w).unwrap_err();
    assert_eq!(e.invariant, Invariant::Trace, "{e}");
    w.window_counts = 101;
    assert!(t.check_window(&w).unwrap_err().detail.contains("between its markers"));
    w.window = 8;
    assert_eq!(t.check_window(&w), Ok(None), "window 8 has no end marker");
}

#[test]
fn reports_of_two_cores_read_exactly() {
    let w = window(TWO_CORES);
    assert_eq!((w.cores, w.cores(), w.window_counts, w.window_us), (Some(2), 2, 1_000_000, 1_000_000));
    // Shares of both cores' time: A's 600000 of 2000000.
    let shares: Vec<(&str, u64, f64)> = w.tasks.iter().map(|t| (t.name.as_str(), t.counts, t.usage_pct)).collect();
    assert_eq!(shares, [("A", 600_000, 30.0), ("B", 350_000, 17.5)]);
    // Both idle tasks on one line, under the ID they share, past the 32 of the pool.
    assert_eq!(w.idle.as_ref().map(|i| (i.id, i.name.as_str(), i.counts)), Some((38, "IDLE", 1_000_000)));
    assert_eq!((w.idle_pct, w.interrupts_pct, w.interrupts, w.load_pct), (50.0, 2.5, 1, 50.0));
    // Each core's shares are of its own time.
    let core = |k: u32, busy: f64, idle: f64, interrupts_pct: f64, interrupts: u64| CoreLine {
        core: k,
        busy_pct: busy,
        idle_pct: idle,
        interrupts_pct,
        sleep_pct: 0.0,
        interrupts,
    };
    let per_core = [core(0, 60.0, 40.0, 0.0, 0), core(1, 40.0, 60.0, 5.0, 1)];
    assert_eq!(w.per_core.as_deref(), Some(&per_core[..]));
    w.check_shown(Shown::default()).unwrap();
    for n in 1..=2 {
        let top = w.top(n);
        top.check_shown(Shown { top: Some(n as u16), ..Shown::default() }).unwrap_or_else(|e| panic!("top {n}: {e}"));
    }

    let s = parse_exact(TWO_CORES_SINCE_START).unwrap().since_start().expect("since start");
    assert_eq!((s.cores, s.windows, s.uptime_counts), (Some(2), 1, 1_000_000));
    assert_eq!(s.per_core.as_deref(), Some(&per_core[..]));
    // The summed idle line has no busiest window of its own; a task's peak is a
    // share of both cores.
    let idle = s.idle.as_ref().unwrap();
    assert_eq!((idle.id, idle.history.peak_pct, idle.history.peak_window), (38, None, None));
    assert_eq!(s.tasks[0].history.peak_pct, Some(30.0));
    s.check_shown(Shown::default()).unwrap();

    // One core: neither field, not even `null`.
    let one = window(WINDOW);
    assert_eq!((one.cores, one.cores(), one.per_core), (None, 1, None));
    assert!(!WINDOW.contains("cores"));
}

#[test]
fn two_cores_lines_add_up_to_twice_the_length() {
    assert_breaks(
        &with(TWO_CORES, "\"other_counts\":0", "\"other_counts\":1"),
        Invariant::Counts,
        "2 cores times window_counts 1000000 is 2000000",
    );
    assert_breaks(
        &with(TWO_CORES_SINCE_START, "\"counts\":350000", "\"counts\":349999"),
        Invariant::Counts,
        "2 cores times uptime_counts 1000000 is 2000000",
    );
    // Read as one core's, the same lines are twice too many.
    let mut w = window(TWO_CORES);
    (w.cores, w.per_core) = (None, None);
    w.idle.as_mut().unwrap().id = 3;
    assert_eq!(w.check().unwrap_err().invariant, Invariant::Counts);
    // The load is of all the cores too: 100 - idle - sleep.
    let mut w = window(TWO_CORES);
    w.load_pct = 49.99;
    assert_eq!(w.check().unwrap_err().invariant, Invariant::Load);
}

#[test]
fn the_idle_tasks_of_several_cores_share_an_id_past_the_pool() {
    assert_breaks(&with(TWO_CORES, "{\"id\":38,", "{\"id\":3,"), Invariant::Ids, "not past it");
    assert_breaks(&with(TWO_CORES, "{\"id\":38,", "{\"id\":32,"), Invariant::Ids, "not past it");
    // On one core, the idle task's ID is the pool's.
    assert_breaks(&with(WINDOW, "{\"id\":2,", "{\"id\":33,"), Invariant::Ids, "out of 1..=32");
    // Since start, the summed line has no peak.
    assert_breaks(
        &with(TWO_CORES_SINCE_START, "\"peak_pct\":null,\"peak_window\":null", "\"peak_pct\":50.00,\"peak_window\":0"),
        Invariant::History,
        "with a peak",
    );
    // It takes none of the pool's IDs: every ID and the bucket on the lines, and
    // the idle line besides.
    let mut w = window(TWO_CORES);
    w.slots = Slots { capacity: 2, used: 2, quarantined: 0, free: 0, overflow_tasks: 1 };
    let bucket = Task {
        id: 0,
        name: "(overflow)".into(),
        part: TaskPart { tasks: Some(1), ..TaskPart::default() },
        ..Task::default()
    };
    w.tasks.insert(0, bucket);
    w.check().unwrap();
}

#[test]
fn each_core_has_its_line_in_core_order() {
    let core1 = ",{\"core\":1,\"busy_pct\":40.00,\"idle_pct\":60.00,\"interrupts_pct\":5.00,\"sleep_pct\":0.00,\"interrupts\":1}";
    assert_breaks(&with(TWO_CORES, core1, ""), Invariant::Cores, "1 per_core lines on 2 cores");
    assert_breaks(&with(TWO_CORES_SINCE_START, core1, ""), Invariant::Cores, "1 per_core lines on 2 cores");
    let at = TWO_CORES.find(",\"per_core\":").unwrap();
    let end = TWO_CORES.find(",\"load_avg_pct\"").unwrap();
    let without = format!("{}{}", &TWO_CORES[..at], &TWO_CORES[end..]);
    assert_breaks(&without, Invariant::Cores, "no per_core on 2 cores");
    // On one core, neither: not `"cores":1`, and no line per core.
    assert_breaks(&with(TWO_CORES, "\"cores\":2", "\"cores\":1"), Invariant::Cores, "absent on one core");
    let mut one = window(WINDOW);
    one.per_core = window(TWO_CORES).per_core;
    let e = one.check().unwrap_err();
    assert_eq!(e.invariant, Invariant::Cores, "{e}");
    assert!(e.detail.contains("per_core on one core"), "{e}");
    // Numbered in core order.
    let swapped = with(&with(TWO_CORES, "{\"core\":0,", "{\"core\":9,"), "{\"core\":1,", "{\"core\":0,");
    assert_breaks(&swapped, Invariant::Cores, "out of core order");
}

#[test]
fn a_cores_shares_off_break_cores() {
    // Busy, idle and sleep are the core's time, each rounded down.
    assert_breaks(
        &with(TWO_CORES, "\"busy_pct\":60.00", "\"busy_pct\":59.97"),
        Invariant::Cores,
        "busy 5997 + idle 4000 + sleep 0 hundredths is 9997",
    );
    assert_breaks(&with(TWO_CORES, "\"busy_pct\":60.00", "\"busy_pct\":60.01"), Invariant::Cores, "is 10001");
    // Within the rounding on each core, but more than the report's counts.
    let moved = with(TWO_CORES, "\"busy_pct\":60.00,\"idle_pct\":40.00", "\"busy_pct\":60.01,\"idle_pct\":39.99");
    assert_breaks(&moved, Invariant::Cores, "the cores' busy shares add up to 10001 hundredths");
    assert_breaks(
        &with(TWO_CORES, "\"interrupts_pct\":5.00", "\"interrupts_pct\":4.90"),
        Invariant::Cores,
        "the cores' interrupts shares add up to 490 hundredths of 1000000 counts, for 50000 counts",
    );
    // Interrupts are busy time.
    assert_breaks(
        &with(
            TWO_CORES,
            "\"interrupts_pct\":0.00,\"sleep_pct\":0.00,\"interrupts\":0",
            "\"interrupts_pct\":60.01,\"sleep_pct\":0.00,\"interrupts\":0",
        ),
        Invariant::Cores,
        "interrupts 6001 hundredths, busy 6000",
    );
    // Hundredths from 0 to 100.
    let mut w = window(TWO_CORES);
    w.per_core.as_mut().unwrap()[1].idle_pct = 100.01;
    assert_eq!(w.check().unwrap_err().invariant, Invariant::Cores);
    w.per_core.as_mut().unwrap()[1].idle_pct = 60.005;
    assert_eq!(w.check().unwrap_err().invariant, Invariant::Cores);
    // The cores' interrupts are the report's.
    assert_breaks(
        &with(TWO_CORES_SINCE_START, "\"sleep_pct\":0.00,\"interrupts\":1}", "\"sleep_pct\":0.00,\"interrupts\":2}"),
        Invariant::Cores,
        "the cores' interrupts add up to 2, not 1",
    );
}
