//! End to end: the viewer drives the POSIX simulator through its shell (`--exec`),
//! follows 5 windows of 250 ms, records them, plots them as PNG and SVG, and turns
//! the event trace it took meanwhile into Perfetto JSON. The outputs are checked
//! against each other: the record has the 5 windows, the PNG decodes to the plot's
//! size with many colours, the SVG names the tasks, and for each recorded window
//! that the trace covers, every task's time in the Perfetto timeline equals the
//! counts the device reported for it.
//!
//! Tolerance of that last check: the timeline's times are microseconds written with
//! enough decimals to tell clock counts apart (`perfetto::decimals`); each event's
//! duration is the difference of two rounded times, so a task's sum is within one
//! unit of the last decimal per event of the exact figure. Nothing else may differ:
//! both come from the same hooks reading the same clock.

use std::path::{Path, PathBuf};
use std::process::Command;

use cpu_usage_top::perfetto;
use cpu_usage_top::window::{parse_line, Line, Window};

fn simulator() -> PathBuf {
    let sim = Path::new(env!("CARGO_MANIFEST_DIR")).join("../build/posix/freertos-sim");
    assert!(sim.exists(), "{} is missing: build it with `make sim` (`make test` does)", sim.display());
    sim
}

#[test]
fn the_viewer_records_plots_and_traces_the_simulator() {
    let dir = std::env::temp_dir().join(format!("cpu-usage-top-e2e-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (record, png, svg, trace) =
        (dir.join("run.jsonl"), dir.join("run.png"), dir.join("run.svg"), dir.join("trace.json"));
    let out = Command::new(env!("CARGO_BIN_EXE_cpu-usage-top"))
        .arg("--exec")
        .arg(simulator())
        .args(["--no-ui", "--windows", "5", "--window-ms", "250", "--record"])
        .arg(&record)
        .arg("--plot")
        .arg(&png)
        .arg("--plot")
        .arg(&svg)
        .arg("--perfetto")
        .arg(&trace)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "viewer failed: {stderr}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(stdout.lines().filter(|l| l.starts_with("window ")).count(), 5, "{stdout}");

    // The record: 5 windows, in order.
    let windows: Vec<Window> = std::fs::read_to_string(&record)
        .unwrap()
        .lines()
        .map(|l| match parse_line(l) {
            Line::Window(w) => *w,
            other => panic!("not a window in the record: {other:?}"),
        })
        .collect();
    assert_eq!(windows.len(), 5);
    assert!(windows.windows(2).all(|p| p[1].window > p[0].window), "window numbers rise");
    for w in &windows {
        assert!(w.task("work40").is_some(), "window {} has work40", w.window);
    }

    // The PNG: the plot's size, and the bands' colours.
    let decoder = png::Decoder::new(std::fs::File::open(&png).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let mut pixels = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut pixels).unwrap();
    assert_eq!((info.width, info.height), cpu_usage_top::plot::DEFAULT_SIZE);
    let step = info.color_type.samples();
    let colours: std::collections::BTreeSet<&[u8]> = pixels[..info.buffer_size()].chunks(step).collect();
    assert!(colours.len() > 10, "only {} colours", colours.len());

    // The SVG: a document that names the tasks.
    let svg = std::fs::read_to_string(&svg).unwrap();
    assert!(svg.trim_start().starts_with("<svg") && svg.trim_end().ends_with("</svg>"), "not an SVG");
    for name in ["work10", "work25", "work40"] {
        assert!(svg.contains(name), "the SVG does not name {name}");
    }

    // The timeline: well-formed events, and the device's counts in every window it covers.
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&trace).unwrap()).unwrap();
    let events = json["traceEvents"].as_array().expect("traceEvents");
    for e in events {
        assert!(e["ph"].is_string() && e["pid"].is_u64() && e["tid"].is_u64(), "{e}");
        if e["ph"] == "X" {
            assert!(e["ts"].as_f64().unwrap() >= 0.0 && e["dur"].as_f64().unwrap() >= 0.0, "{e}");
        }
    }
    let marks = perfetto::window_marks(&json);
    let mut compared = 0;
    for w in &windows {
        let (Some(&start), Some(&end)) = (marks.get(&w.window), marks.get(&(w.window + 1))) else { continue };
        let sums = perfetto::durations_in(&json, start, end);
        let unit = 10f64.powi(-(perfetto::decimals(w.clock_hz) as i32));
        let us = |counts: u64| counts as f64 * 1e6 / w.clock_hz as f64;
        let capacity = u64::from(w.slots.capacity);
        let idle = w.idle.as_ref().expect("the idle task");
        let expected = w
            .tasks
            .iter()
            .map(|t| (u64::from(t.id), t.name.as_str(), t.counts))
            .chain([(u64::from(idle.id), "idle", idle.counts)])
            .chain([(capacity + 1, "interrupts", w.interrupts_counts), (capacity + 2, "sleep", w.sleep_counts)]);
        for (tid, name, counts) in expected {
            let (got, n) = sums.get(&tid).copied().unwrap_or((0.0, 0));
            let within = unit * (n as f64 + 1.0);
            assert!(
                (got - us(counts)).abs() <= within,
                "window {}: {name} (tid {tid}) {got} µs in the timeline, {} µs reported ({counts} counts)",
                w.window,
                us(counts)
            );
        }
        compared += 1;
    }
    assert!(compared >= 1, "the trace covers none of the recorded windows (marks {:?})", marks.keys());
    eprintln!("{compared} of the 5 windows checked against the timeline");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The viewer's last line on stderr, `cpu-usage-top: <how it ended>`.
fn ending(stderr: &str) -> &str {
    stderr.lines().rev().find_map(|l| l.strip_prefix("cpu-usage-top: ")).unwrap_or_else(|| panic!("{stderr}"))
}

#[test]
fn line_mode_quits_on_q_and_counts_in_words() {
    use std::io::{BufRead, BufReader, Write};
    use std::process::Stdio;
    use std::time::{Duration, Instant};

    // One window asked for: "1 window", not "1 windows".
    let out = Command::new(env!("CARGO_BIN_EXE_cpu-usage-top"))
        .arg("--exec")
        .arg(simulator())
        .args(["--no-ui", "--windows", "1", "--window-ms", "250"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(ending(&stderr), "1 window read, 0 garbage lines skipped");

    // No count: it runs until q and Enter on its standard input (a terminal in line
    // mode hands over whole lines; a pipe does the same).
    let mut viewer = Command::new(env!("CARGO_BIN_EXE_cpu-usage-top"))
        .arg("--exec")
        .arg(simulator())
        .args(["--no-ui", "--window-ms", "250"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(viewer.stdout.take().unwrap()).lines();
    let first = lines.next().expect("a window line").unwrap();
    assert!(first.starts_with("window "), "{first}");
    writeln!(viewer.stdin.as_mut().unwrap(), "q").unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    let status = loop {
        if let Some(status) = viewer.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = viewer.kill();
            panic!("the viewer did not quit on q in line mode");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(viewer.stderr.as_mut().unwrap(), &mut stderr).unwrap();
    assert!(status.success(), "{status}: {stderr}");
    // After the first window, maybe a second one: the count and its noun agree.
    let ended = ending(&stderr);
    let n: u64 = ended
        .strip_prefix("quit after ")
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{ended:?}"));
    assert!(n >= 1, "{ended}");
    assert_eq!(ended, format!("quit after {n} {}", if n == 1 { "window" } else { "windows" }));
}

#[test]
fn help_says_how_to_quit() {
    let out = Command::new(env!("CARGO_BIN_EXE_cpu-usage-top")).arg("--help").output().unwrap();
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert!(help.contains("In the terminal UI: q, Esc or Ctrl-C"), "{help}");
    assert!(help.contains("q then Enter, or Ctrl-C"), "{help}");
}

#[test]
fn line_mode_passes_the_device_notes_and_alerts_to_stderr() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("line-mode-notes");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("run.jsonl");
    let window = include_str!("data/windows.jsonl").lines().next().unwrap();
    let note = "note: over the last 1.0 s the host gave the simulator 61.2% of a core while it was awake";
    let alert = "watchdog: slice 10.020 ms > 10.000 ms by task 3 \"work40\" in window #10";
    std::fs::write(&path, format!("watchdog: load off; slice off\n> {note}\n{window}\n{alert}\n")).unwrap();
    let out =
        Command::new(env!("CARGO_BIN_EXE_cpu-usage-top")).arg("--replay").arg(&path).arg("--no-ui").output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains(&format!("cpu-usage-top: device: {note}\n")), "{stderr}");
    assert!(stderr.contains(&format!("cpu-usage-top: device: {alert}\n")), "{stderr}");
    assert!(!stderr.contains("load off"), "the watchdogs' settings are no alert: {stderr}");
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 1, "one window line");
}

#[test]
fn line_mode_says_how_many_cores_the_shares_are_of() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("line-mode-cores");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("run.jsonl");
    // Window 0 of two cores, then window 1 of the recording of one.
    let two = include_str!("../../report-schema/samples/two-cores-window.json").trim_end();
    let one = include_str!("data/windows.jsonl").lines().nth(1).unwrap();
    std::fs::write(&path, format!("{two}\n{one}\n")).unwrap();
    let out =
        Command::new(env!("CARGO_BIN_EXE_cpu-usage-top")).arg("--replay").arg(&path).arg("--no-ui").output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    assert_eq!(
        lines[0],
        "window 0 (1000 ms on 2 cores): load 50.00% (1s 50.00, 10s 50.00, 60s 50.00), interrupts 2.50%, sleep 0.00%: \
         A 30.00%, B 17.50%"
    );
    assert!(lines[1].starts_with("window 1 (1000 ms): load "), "{stdout}");
}
