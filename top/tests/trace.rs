//! The event trace reader and the Perfetto converter, on a dump recorded from the
//! POSIX simulator (`tests/data/sim_trace_dump.txt`: `show_cpu_usage -w 200`,
//! `cpu_usage_trace start`, 1.5 s later `show_cpu_usage -m`, whose answer is
//! `tests/data/sim_trace_window.json`, then `cpu_usage_trace dump`), and on cut and
//! garbled copies of it.

use std::collections::BTreeMap;

use cpu_usage_top::perfetto;
use cpu_usage_top::trace::{self, Kind, Trace};
use cpu_usage_top::window::{parse_line, Line, Window};

const DUMP: &str = include_str!("data/sim_trace_dump.txt");
const WINDOW: &str = include_str!("data/sim_trace_window.json");

fn recorded() -> Trace {
    trace::parse(DUMP).unwrap_or_else(|e| panic!("{e}"))
}

fn window() -> Window {
    match parse_line(WINDOW) {
        Line::Window(w) => *w,
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_recorded_dump_reads() {
    let t = recorded();
    assert_eq!((t.hz, t.ids, t.lost, t.t0, t.restarted), (15_625_000, 32, 64, 0x46de_2a5a, false));
    assert_eq!(t.events.len(), 1024);
    assert_eq!(t.names[&0], "(overflow)");
    assert_eq!(t.names[&1], "work10");
    assert_eq!(t.names[&7], "IDLE");
    assert_eq!(t.name(t.interrupts_id()), "(interrupts)");
    assert_eq!(t.name(t.sleep_id()), "(sleep)");
    assert_eq!(t.name(t.other_id()), "(other)");
    assert_eq!(t.events[0].t, 0);
    assert!(t.events.windows(2).all(|e| e[0].t <= e[1].t));
    let windows: Vec<u32> = t.windows().iter().map(|w| w.window).collect();
    assert_eq!(windows, vec![1, 2, 3, 4, 5, 6]);
    // Windows of 200 ms at 15.625 MHz.
    assert!(t.windows().iter().all(|w| w.end - w.start == 3_125_000));
    // The dump ends with the point where recording stopped.
    let last = t.events.last().unwrap().kind;
    assert!(matches!(last, Kind::Switch { from, to } if from == to), "{last:?}");
}

#[test]
fn a_window_summed_from_the_trace_is_the_report_exactly() {
    let t = recorded();
    let w = window();
    let tw = t.windows().into_iter().find(|x| u64::from(x.window) == w.window).expect("the window is in the trace");
    assert_eq!(tw.end - tw.start, w.window_counts);
    assert_eq!(t.slot_counts(tw.start, tw.end), t.report_counts(&w));
    assert_eq!(t.check_window(&w), Ok(Some(tw)));
    // One count moved from a slot to another: the contract's check names the window.
    let mut moved = w.clone();
    moved.tasks[0].counts += 1;
    moved.idle.as_mut().expect("the idle task").counts -= 1;
    let e = t.check_window(&moved).unwrap_err();
    assert!(e.to_string().contains(&format!("window {}", w.window)), "{e}");
}

#[test]
fn carriage_returns_and_text_around_are_ignored() {
    let crlf = format!("$ cpu_usage_trace dump\r\n{}> ", DUMP.replace('\n', "\r\n"));
    assert_eq!(trace::parse(&crlf).unwrap(), recorded());
}

#[test]
fn a_cut_dump_is_an_error_never_a_panic() {
    let lines = DUMP.lines().count();
    for cut in (0..DUMP.len() - 1).step_by(7) {
        let e = trace::parse(&DUMP[..cut]).expect_err(&format!("cut at byte {cut}"));
        assert!(e.line >= 1 && e.line <= lines, "{e}");
    }
    // Cut at a line end: the end line is what is missing.
    let whole_lines: Vec<&str> = DUMP.lines().collect();
    let cut = whole_lines[..100].join("\n") + "\n";
    let e = trace::parse(&cut).unwrap_err();
    assert!(e.what.contains("without its end line"), "{e}");
}

#[test]
fn a_garbled_line_is_named() {
    let lines: Vec<&str> = DUMP.lines().collect();
    let at = lines.iter().enumerate().filter(|(_, l)| l.starts_with("E ")).nth(20).unwrap().0;
    // One character changed: the checksum catches it.
    let mut garbled = lines.clone();
    let changed = garbled[at].replacen('.', ",", 1);
    garbled[at] = &changed;
    let e = trace::parse(&garbled.join("\n")).unwrap_err();
    assert_eq!(e.line, at + 1, "{e}");
    assert!(e.what.contains("checksum"), "{e}");
    // A line lost: the next line's index says so.
    let mut dropped = lines.clone();
    dropped.remove(at);
    let e = trace::parse(&dropped.join("\n")).unwrap_err();
    assert_eq!(e.line, at + 1, "{e}");
    assert!(e.what.contains("lines are missing"), "{e}");
    // A wrong count in the header, with a right checksum.
    let header = lines[0].split_once('*').unwrap().0.replace("events=1024", "events=1023");
    let header = header.trim_start_matches("> ");
    let sum = header.bytes().fold(0u8, |x, b| x ^ b);
    let mut recounted = lines.clone();
    let fixed = format!("{header}*{sum:02x}");
    recounted[0] = &fixed;
    let e = trace::parse(&recounted.join("\n")).unwrap_err();
    assert!(e.what.contains("more events than") || e.what.contains("events read"), "{e}");
    // An event that leaves a slot that was not running, with a right checksum.
    let body = lines[at].split_once('*').unwrap().0;
    let (first, rest) = body.split_at(body.find(' ').unwrap() + 1);
    let (index, events) = rest.split_once(' ').unwrap();
    let mut words: Vec<String> = events.split(' ').map(str::to_owned).collect();
    let k = words.iter().position(|w| w.matches('.').count() == 2).unwrap();
    let parts: Vec<&str> = words[k].split('.').collect();
    let other = if parts[1] == "5" { "6" } else { "5" };
    words[k] = format!("{}.{other}.{}", parts[0], parts[2]);
    let body = format!("{first}{index} {}", words.join(" "));
    let sum = body.bytes().fold(0u8, |x, b| x ^ b);
    let line = format!("{body}*{sum:02x}");
    let mut inconsistent = lines.clone();
    inconsistent[at] = &line;
    let e = trace::parse(&inconsistent.join("\n")).unwrap_err();
    assert_eq!(e.line, at + 1, "{e}");
    assert!(e.what.contains("was running"), "{e}");
}

#[test]
fn random_damage_never_panics() {
    let bytes = DUMP.as_bytes();
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..2000 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let mut copy = bytes.to_vec();
        let at = (seed as usize) % copy.len();
        match (seed >> 32) % 3 {
            0 => copy[at] = (seed >> 40) as u8 & 0x7f,
            1 => {
                copy.remove(at);
            }
            _ => copy.insert(at, b"0123456789abcdef.w *E\n"[(seed >> 40) as usize % 22]),
        }
        let _ = trace::parse(&String::from_utf8_lossy(&copy));
    }
}

#[test]
fn decimals_keep_every_count_apart() {
    assert_eq!(perfetto::decimals(1_000), 0);
    assert_eq!(perfetto::decimals(1_000_000), 1);
    assert_eq!(perfetto::decimals(15_625_000), 3);
    assert_eq!(perfetto::decimals(25_000_000), 3);
    assert_eq!(perfetto::decimals(400_000_000), 4);
}

/// Checks what Perfetto needs of the JSON, and returns it parsed.
fn well_formed(text: &str) -> serde_json::Value {
    let json: serde_json::Value = serde_json::from_str(text).expect("the converter writes JSON");
    let events = json["traceEvents"].as_array().expect("traceEvents");
    let mut tracks: BTreeMap<u64, Vec<(f64, f64)>> = BTreeMap::new();
    let mut named = std::collections::BTreeSet::new();
    for e in events {
        for key in ["ph", "ts", "pid", "tid"] {
            assert!(e.get(key).is_some(), "no {key} in {e}");
        }
        let tid = e["tid"].as_u64().unwrap();
        match e["ph"].as_str().unwrap() {
            "X" => {
                let dur = e["dur"].as_f64().expect("dur");
                assert!(dur >= 0.0, "{e}");
                tracks.entry(tid).or_default().push((e["ts"].as_f64().unwrap(), dur));
            }
            "M" => {
                if e["name"] == "thread_name" {
                    named.insert(tid);
                }
            }
            // Window boundaries, and the mark of events lost before the first one.
            "i" => assert!(
                e["name"].as_str().unwrap().starts_with("window ")
                    || (e["args"]["lost"].as_u64().is_some_and(|n| n > 0) && e["ts"].as_f64() == Some(0.0)),
                "{e}"
            ),
            other => panic!("unexpected ph {other}"),
        }
    }
    for (tid, spans) in &mut tracks {
        assert!(named.contains(tid), "track {tid} has no name");
        spans.sort_by(|a, b| a.0.total_cmp(&b.0));
        for pair in spans.windows(2) {
            // Times are decimals of at most 3 places: far coarser than the float error.
            assert!(pair[0].0 + pair[0].1 <= pair[1].0 + 1e-6, "track {tid}: {pair:?} overlap");
        }
    }
    json
}

#[test]
fn the_perfetto_json_is_well_formed_and_adds_up() {
    let t = recorded();
    let json = well_formed(&perfetto::to_json(&t));
    let w = window();
    let marks = perfetto::window_marks(&json);
    let (start, end) = (marks[&w.window], marks[&(w.window + 1)]);
    let unit = 10f64.powi(-(perfetto::decimals(t.hz) as i32));
    let sums = perfetto::durations_in(&json, start, end);
    let want = t.report_counts(&w);
    assert_eq!(sums.keys().copied().collect::<Vec<_>>(), want.keys().map(|&k| u64::from(k)).collect::<Vec<_>>());
    for (id, counts) in want {
        let exact = counts as f64 * 1e6 / t.hz as f64;
        let (got, n) = sums[&u64::from(id)];
        // Each event's start and end are rounded to the unit: at most a unit per event.
        assert!((got - exact).abs() <= n as f64 * unit + 1e-6, "slot {id}: {got} µs vs {exact} µs ({n} events)");
    }
}

#[test]
fn an_empty_trace_converts() {
    let body = "cpu_usage_trace v1 hz=1000000 ids=4 events=0 lost=0 t0=0";
    let end = "end events=0";
    let sum = |s: &str| s.bytes().fold(0u8, |x, b| x ^ b);
    let text = format!("{body}*{:02x}\n{end}*{:02x}\n", sum(body), sum(end));
    let t = trace::parse(&text).unwrap();
    assert!(t.events.is_empty() && t.windows().is_empty());
    well_formed(&perfetto::to_json(&t));
}

#[test]
fn events_lost_to_the_ring_are_said_in_the_timeline() {
    let t = recorded();
    assert_eq!(t.lost, 64);
    let note = perfetto::lost_note(&t).unwrap();
    assert_eq!(note, "64 events lost before the first one: the device's trace ring overflowed");
    let json = well_formed(&perfetto::to_json(&t));
    let events = json["traceEvents"].as_array().unwrap();
    let marks: Vec<&serde_json::Value> = events.iter().filter(|e| e["args"]["lost"].is_u64()).collect();
    assert_eq!(marks.len(), 1, "one mark of the loss");
    assert_eq!((marks[0]["ph"].as_str(), marks[0]["s"].as_str()), (Some("i"), Some("g")), "a global instant");
    assert_eq!((marks[0]["ts"].as_f64(), marks[0]["args"]["lost"].as_u64()), (Some(0.0), Some(64)));
    assert_eq!(marks[0]["name"], note.as_str());
    let process = events.iter().find(|e| e["name"] == "process_name").unwrap();
    assert_eq!(process["args"]["name"], "freertos-cpu-usage (15625000 Hz), 64 earlier events lost");

    // A dump that lost nothing says nothing of it.
    let whole = Trace { lost: 0, ..t };
    assert_eq!(perfetto::lost_note(&whole), None);
    let json = well_formed(&perfetto::to_json(&whole));
    assert!(json["traceEvents"].as_array().unwrap().iter().all(|e| e["args"]["lost"].is_null()));
    assert_eq!(
        perfetto::lost_note(&Trace { lost: 1, ..whole }).unwrap(),
        "1 event lost before the first one: the device's trace ring overflowed"
    );
}

#[test]
fn the_viewer_says_on_stderr_how_many_events_were_lost() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("trace-lost");
    std::fs::create_dir_all(&dir).unwrap();
    let (dump, out) = (dir.join("dump.txt"), dir.join("trace.json"));
    std::fs::write(&dump, DUMP).unwrap();
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_cpu-usage-top"))
        .arg("--trace-input")
        .arg(&dump)
        .arg("--perfetto")
        .arg(&out)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stderr}");
    assert!(
        stderr.contains("cpu-usage-top: 64 events lost before the first one: the device's trace ring overflowed"),
        "{stderr}"
    );
    well_formed(&std::fs::read_to_string(&out).unwrap());
}
