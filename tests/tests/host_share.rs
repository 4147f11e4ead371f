//! The simulator says when the host does not give it the core it needs: pinned with
//! `taskset` to one CPU beside a busy loop pinned to the same CPU, it gets about half
//! of that CPU, and every report must then carry its note: a table starts with its
//! `note: ` line, and a report in JSON (`-m`, each of a follow's, `cli`'s) is still
//! exactly one line, the note its `"note"` member, read by the report's own types
//! (`freertos_cpu_usage_report::parse_exact`). The help and an argument error are no
//! report, and get no note. `host` must give the share the process really got in a
//! window, as the test measures it from outside over that window.
//!
//! And the note is about the report's own window, whenever the report is asked for:
//! the simulator is stopped (SIGSTOP) for 300 ms early in a window, and that window's
//! report, asked for most of a window after it ended, must account for the stop.
//!
//! Why the simulator needs a whole core: on FreeRTOS's POSIX port only the thread of
//! the task FreeRTOS has running goes, and the idle task spins unless it sleeps in
//! tickless idle, so while awake the simulator keeps one core busy. Time the host
//! holds back is charged by the library (which reads the wall clock) to the task
//! FreeRTOS had running.
//!
//! The note's threshold is the simulator's accuracy, `boards::POSIX_DUTY_TOLERANCE_PP`
//! (1.5 points): held-back time moves the shares by at most as much, so up to 1.5
//! points of it no share leaves the bound the tests hold the simulator to, and beyond
//! one can. The simulator's `host` command states the threshold it uses, and this test
//! holds it to that constant.
//!
//! The simulator is `build/posix/freertos-sim` (built by `make sim`), or the file
//! named by `CPU_USAGE_SIM`. A missing binary, or a missing `taskset` (util-linux),
//! is a failure, never a skip.

use std::process::{Child, Command, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

use freertos_cpu_usage_report::{parse_exact, Note, Report};
use freertos_cpu_usage_tests::{boards, path_from_env, Console};

/// The window the test sets, in ms: long against the misalignment of the test's span
/// and the simulator's (see `SHARE_TOLERANCE_PP`).
const WINDOW_MS: u64 = 2000;

/// How far the simulator's own figure of the share of a core its task threads got in
/// a window (awake share times the share of a core while awake) may be from the
/// process's CPU time as the test reads it in `/proc` from just after the window began
/// to just after it ended, in percentage points of the wall time:
/// - the test's span starts and ends when a follow's report reaches it, up to a
///   follow step (a tenth of the window: 200 ms) after the window's end, plus the time
///   the starved shell and the test take to answer (tens of ms); the simulator's span
///   is the window and the 10 ms or so either side until it saw it begin and end. At
///   about half a core, a misalignment of up to 200 ms at each end is up to 5 points
///   of 2 s;
/// - `/proc` counts the port's tick thread, which the simulator leaves out: about 2 %
///   of a core;
/// - `/proc` reads in 10 ms steps: 1 point over 2 s.
///
/// 5 + 2 + 1 = 8 points, for a process getting about half a core.
const SHARE_TOLERANCE_PP: f64 = 8.0;

/// How long the simulator is stopped early in a window (`a_stall_is_in_its_windows_note`).
const STOP_MS: u64 = 300;

/// The CPUs this process may run on, from `/proc/self/status`.
fn allowed_cpus() -> Vec<u32> {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status (Linux)");
    let list = status
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
        .expect("Cpus_allowed_list in /proc/self/status")
        .trim();
    let mut cpus = Vec::new();
    for part in list.split(',') {
        let (a, b) = part.split_once('-').unwrap_or((part, part));
        cpus.extend(a.parse::<u32>().unwrap()..=b.parse::<u32>().unwrap());
    }
    cpus
}

/// A busy loop pinned to one CPU, ended with the test.
struct Hog(Child);

impl Hog {
    fn start(cpu: u32) -> Hog {
        let child = Command::new("taskset")
            .args(["-c", &cpu.to_string(), "sh", "-c", "while :; do :; done"])
            .stdin(Stdio::null())
            .spawn()
            .expect("taskset not found (Debian package util-linux)");
        Hog(child)
    }
}

impl Drop for Hog {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The number before `what` in `text`, e.g. `61.2` from "... 61.2% of a core ...".
fn number_before(text: &str, what: &str) -> f64 {
    let at = text.find(what).unwrap_or_else(|| panic!("no {what:?} in {text:?}"));
    let word = text[..at].split_whitespace().last().unwrap_or("");
    word.trim_end_matches('%').parse().unwrap_or_else(|_| panic!("no number before {what:?} in {text:?}"))
}

/// The answer to `command`, which asks for `reports` reports in JSON: exactly that many
/// lines, each a report held to the whole contract and carrying a note that says more
/// than the threshold was held back. Returns the notes.
fn notes_in_json(console: &mut Console, command: &str, reports: usize) -> Vec<Note> {
    let answer = console.command(command, 30);
    let lines: Vec<&str> = answer.lines().collect();
    if lines.len() != reports {
        console.fail(&format!("`{command}`: {} lines, not {reports} of JSON:\n{answer}", lines.len()));
    }
    let mut notes = Vec::new();
    for line in lines {
        let note = match parse_exact(line) {
            Ok(Report::Window(w)) => w.note,
            Ok(Report::SinceStart(s)) => s.note,
            Ok(other) => console.fail(&format!("`{command}`: not a report of figures: {other:?}")),
            Err(e) => console.fail(&format!("`{command}`: {e}\n{line}")),
        };
        let Some(note) = note else {
            console.fail(&format!("`{command}` on a starved simulator: a report without its note:\n{line}"));
        };
        // The figures and the sentence are one measurement: points of the window.
        let said = number_before(&note.text, "points high");
        let held = 100.0 * note.held_back_us as f64 / (WINDOW_MS * 1000) as f64;
        assert!(held > boards::POSIX_DUTY_TOLERANCE_PP, "`{command}`: {note:?}");
        assert!(
            (said - held).abs() <= 0.06,
            "`{command}`: the text says {said} points, the figures {held:.3}: {note:?}"
        );
        assert!(note.span_us >= WINDOW_MS * 1000 && note.held_back_us <= note.awake_us, "{note:?}");
        assert!(note.text.starts_with("in window #") && note.text.contains("% of a core"), "{note:?}");
        notes.push(note);
    }
    notes
}

#[test]
fn a_simulator_sharing_its_core_says_so() {
    let sim = path_from_env("CPU_USAGE_SIM", "build/posix/freertos-sim");
    assert!(sim.is_file(), "the POSIX simulator {} does not exist: build it with `make sim`", sim.display());
    // The last CPU allowed: the first is where other work tends to land.
    let cpu = *allowed_cpus().last().expect("at least one CPU");

    let _hog = Hog::start(cpu);
    let mut command = Command::new("taskset");
    command.args(["-c", &cpu.to_string()]).arg(&sim);
    let mut console = Console::spawn("POSIX simulator beside a busy loop", command);
    console.read_answer(30);
    console.command(&format!("show_cpu_usage -w {WINDOW_MS}"), 30);

    // Two whole windows beside the hog; then one more measured from outside too.
    sleep(Duration::from_millis(2 * WINDOW_MS));

    // The threshold the simulator uses is the tests' bound on its shares.
    let host = console.command("host", 30);
    // "... points held back (a report notes more than 1.5)"
    let threshold = number_before(&host, ")\n");
    assert_eq!(threshold, boards::POSIX_DUTY_TOLERANCE_PP, "the simulator notes above {threshold} points: {host}");
    let report = console.command("show_cpu_usage", 30);
    let Some(note) = report.lines().find(|l| l.starts_with("note: ")) else {
        console.fail(&format!("sharing its CPU with a busy loop, the simulator printed no note:\n{report}"));
    };
    let first = report.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    assert_eq!(first, note, "the note comes before the report:\n{report}");
    let core = number_before(note, "% of a core");
    let high = number_before(note, "points high");
    println!("{note}");
    assert!(core < 100.0 && high > boards::POSIX_DUTY_TOLERANCE_PP, "{note}");

    // In JSON the note is a member of each report's one line: `-m`, since start, each
    // report of a follow, and through FreeRTOS+CLI's callback (then `cli`'s own line).
    let notes = notes_in_json(&mut console, "show_cpu_usage -m", 1);
    println!("-m: {:?}", notes[0]);
    notes_in_json(&mut console, "show_cpu_usage -c -m", 1);
    notes_in_json(&mut console, "show_cpu_usage -m -f 2", 2);
    let cli = console.command("cli show_cpu_usage -m", 30);
    match cli.lines().collect::<Vec<_>>().as_slice() {
        [json, calls] if calls.starts_with("cli: ") => match parse_exact(json) {
            Ok(Report::Window(w)) if w.note.is_some() => {}
            other => console.fail(&format!("`cli show_cpu_usage -m`: {other:?}\n{json}")),
        },
        _ => console.fail(&format!("`cli show_cpu_usage -m`: not a line of JSON and cli's own:\n{cli}")),
    }

    // No note where there are no figures: the help, and what is wrong with an argument.
    for (command, first) in [
        ("show_cpu_usage -h", "usage: show_cpu_usage "),
        ("show_cpu_usage -m -h", "usage: show_cpu_usage "),
        ("show_cpu_usage -x", "show_cpu_usage: unknown option \"-x\""),
        ("show_cpu_usage -m -n x", "show_cpu_usage: -n \"x\": not a number"),
        ("cli show_cpu_usage -x", "show_cpu_usage: unknown option \"-x\""),
    ] {
        let answer = console.command(command, 30);
        let noted = answer.lines().any(|l| l.starts_with("note: ")) || answer.contains("\"note\"");
        if !answer.starts_with(first) || noted {
            console.fail(&format!("`{command}` must start with {first:?} and have no note:\n{answer}"));
        }
    }

    // One window measured from outside: from just after it began (a follow's report
    // of the window before it) to just after it ended (the next report).
    console.command("show_cpu_usage -m -f 2", 30);
    let (cpu0, t0) = (console.cpu_time().expect("/proc/<pid>/stat"), Instant::now());
    console.command("show_cpu_usage -m -f 2", 30);
    let (cpu1, t1) = (console.cpu_time().expect("/proc/<pid>/stat"), Instant::now());
    let host = console.command("host", 30);
    let measured = 100.0 * (cpu1 - cpu0).as_secs_f64() / (t1 - t0).as_secs_f64();
    let awake = number_before(&host, "% of the time");
    let core = number_before(&host, "% of a core while awake");
    let said = awake * core / 100.0;
    println!("{host}the process got {measured:.1} % of a core by /proc; the simulator says {said:.1} %");
    assert!(
        (said - measured).abs() <= SHARE_TOLERANCE_PP,
        "the simulator's share of a core ({said:.1} %) is not the one measured from outside ({measured:.1} %): {host}"
    );
    console.exit(30);
}

/// The JSON report in `answer`, held to the whole contract.
fn window_in(console: &mut Console, answer: &str) -> freertos_cpu_usage_report::Window {
    let line = answer.lines().find(|l| l.starts_with('{')).unwrap_or("");
    match parse_exact(line) {
        Ok(Report::Window(w)) => *w,
        other => console.fail(&format!("not a window's report ({other:?}): {answer}")),
    }
}

/// `host`'s figures of window `index`: how many milliseconds of it, at most, the host
/// held back ("at most 12.3 points held back" of its length).
fn held_back_ms(console: &mut Console, index: u64) -> f64 {
    let host = console.command("host", 30);
    if !host.starts_with(&format!("host: window #{index}, ")) {
        console.fail(&format!("`host` after window #{index}: {host}"));
    }
    let window_ms = number_before(&host, "ms (measured over");
    number_before(&host, "points held back") * window_ms / 100.0
}

/// A stall of the host that lands early in a window is in that window's figures, even
/// when its report is asked for most of a window after it ended (when the last second
/// before the report no longer holds the stall). The simulator is stopped (SIGSTOP)
/// for `STOP_MS` right after a follow's report of window k, so within the first tenths
/// of a second of window k + 1; about 0.7 s into window k + 2 the test asks for
/// window k + 1's report and `host`'s figures, and again for window k + 2 (in case
/// the stop ran into it). Wherever FreeRTOS was awake, the stop is time held back;
/// where it was in tickless sleep, the library counts it as sleep (the idle task's
/// wait lasts until the tick after the stop). So the two windows' held-back time and
/// sleep together hold the stop, whatever else the host did meanwhile (which only adds
/// to either).
#[test]
fn a_stall_is_in_its_windows_note() {
    let sim = path_from_env("CPU_USAGE_SIM", "build/posix/freertos-sim");
    assert!(sim.is_file(), "the POSIX simulator {} does not exist: build it with `make sim`", sim.display());
    let mut console = Console::spawn("POSIX simulator, stopped for a while", Command::new(&sim));
    console.read_answer(30);
    // Window k, reported by the follow as it ends: window k + 1 is under way.
    let answer = console.command("show_cpu_usage -m -f 2", 30);
    let ended = Instant::now();
    let k = window_in(&mut console, answer.lines().last().unwrap_or("")).head.window;
    let pid = console.pid() as libc::pid_t;
    // SAFETY: signals to the simulator, this test's child.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGSTOP) }, 0, "SIGSTOP");
    sleep(Duration::from_millis(STOP_MS));
    // SAFETY: as above.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGCONT) }, 0, "SIGCONT");
    let mut accounted_ms = 0.0;
    // 0.7 s into the window after each (window k ended just before `ended`).
    for (index, at_ms) in [(k + 1, 1700), (k + 2, 2700)] {
        sleep(Duration::from_millis(at_ms).saturating_sub(ended.elapsed()));
        let answer = console.command("show_cpu_usage -m", 30);
        let w = window_in(&mut console, &answer);
        if w.head.window != index {
            console.fail(&format!("expected the report of window #{index}, got #{}: {answer}", w.head.window));
        }
        let held_ms = held_back_ms(&mut console, index);
        let sleep_ms = 1000.0 * w.sleep_counts as f64 / w.clock_hz as f64;
        println!("window #{index}: at most {held_ms:.1} ms held back, {sleep_ms:.1} ms asleep; note {:?}", w.note);
        if held_ms > boards::POSIX_DUTY_TOLERANCE_PP * w.head.window_us as f64 / 100_000.0 && w.note.is_none() {
            console.fail(&format!("window #{index}: {held_ms:.1} ms held back and no note: {answer}"));
        }
        accounted_ms += held_ms + sleep_ms;
    }
    if accounted_ms < (STOP_MS - 5) as f64 {
        console.fail(&format!(
            "stopped for {STOP_MS} ms early in window #{}, and windows #{} and #{} account for {accounted_ms:.1} ms held \
             back or asleep",
            k + 1,
            k + 1,
            k + 2
        ));
    }
    console.exit(30);
}
