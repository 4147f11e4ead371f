//! The Rust example, `examples/freertos-next-posix`: a freertos-next application on
//! FreeRTOS's POSIX port that takes the library as any Rust application does (a
//! dependency without the C archive's features, the build helper's one line in its
//! `build.rs`), built here as a user builds it and run for `WINDOWS` windows.
//!
//! It is built with `cargo build --locked` into `target/examples` (its own workspace,
//! its own committed `Cargo.lock`), so that a change of the library that breaks a Rust
//! application, or its lock file, fails here. Its output is held to what it promises:
//! for each window, one line from `Usage` and the same window's JSON from `Report`,
//! the JSON held to the report's whole contract (`parse_exact`: the lines add up to
//! the window exactly, the shares to 100.00), the two agreeing share for share, the
//! windows consecutive, each at least the window's length, all of them within the
//! run's wall time; then exit status 0. Each workload's share, averaged over the
//! windows after the first, must be within the simulator's tolerance of its duty.
//!
//! The run takes about 5 s (`WINDOWS` windows of 500 ms); the build, up to a few
//! minutes on a cold `target/examples`, a few seconds once it is warm.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use freertos_cpu_usage_report::{parse_exact, Report, Window};
use freertos_cpu_usage_tests::{boards, repo_root, run, Deadline};
use serde_json::Value;

/// The example's manifest, from the repository root.
const MANIFEST: &str = "examples/freertos-next-posix/Cargo.toml";

/// Windows the example prints: the first, which holds the start-up, and eight more
/// to average (4 s, more than the 3 s the scenario averages on the simulator).
const WINDOWS: usize = 9;

/// The example's window (`WINDOW_MS` in its `main.rs`).
const WINDOW_MS: u64 = 500;

/// The example's workloads and their duties in percent (`WORKLOADS` in its
/// `main.rs`), and its reporter.
const WORKLOADS: [(&str, f64); 3] = [("work10", 10.0), ("work25", 25.0), ("work40", 40.0)];
const REPORTER: &str = "report";

/// How far a workload's mean share may be from its duty, in percentage points, before
/// what the host held back is added: the simulator's bound
/// (`boards::POSIX_DUTY_TOLERANCE_PP`, 1.5), which holds here for the same reasons.
/// The example's workloads burn their duty of the wall time since their last
/// activation, as the demo's do, each burn whole with the scheduler suspended; the
/// library charges the same wall time. What is left: the burns cut by the first and
/// last window's edges (4 ms at most, 0.1 pp of 4 s), and what a task does outside
/// its burn (its wake-up, the hand-off between the threads of the POSIX port), which
/// is charged to it and not counted as burnt, so shares only read high. Measured on a
/// quiet 2-core host: +0.0 to +0.4 pp; with the host holding back 5 to 21 pp of the
/// process's core, up to +1.7 pp.
const DUTY_TOLERANCE_PP: f64 = boards::POSIX_DUTY_TOLERANCE_PP;

/// The longest the example may run: it exits by itself after `WINDOWS` windows; this
/// only stops a hang.
const RUN_LIMIT_SECS: u64 = 60;

/// The example's executable, built (or found up to date) by cargo as a user builds it.
fn build_example() -> PathBuf {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(repo_root()).args([
        "build",
        "--manifest-path",
        MANIFEST,
        "--target-dir",
        "target/examples",
        "--locked",
        "--message-format=json-render-diagnostics",
    ]);
    // A cold build (the kernel, cbindgen for the library's header) takes a minute or
    // two on 2 cores.
    let out = run(cmd, 900).unwrap_or_else(|e| panic!("cannot build the example: {e}"));
    assert!(
        out.status.success(),
        "building {MANIFEST} failed ({}). If cargo says the lock file needs updating, the \
         library's dependencies changed: run `cargo update --manifest-path {MANIFEST}` \
         and commit its Cargo.lock.\n{}",
        out.status,
        out.stderr
    );
    out.stdout
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == "freertos-next-posix")
        .find_map(|m| m["executable"].as_str().map(PathBuf::from))
        .unwrap_or_else(|| panic!("cargo reported no executable for the example:\n{}", out.stdout))
}

/// What a run of the example printed, and what it took.
struct Ran {
    stdout: String,
    stderr: String,
    /// Its wait status.
    status: i32,
    /// Wall time from start to exit.
    wall: Duration,
    /// CPU time its threads used, all of them (the port's tick thread too).
    cpu: Duration,
}

/// Runs `exe` with `args` to its end, killed after `limit_secs`; its CPU time from
/// the kernel's account of the reaped process (`wait4`).
// (The child is reaped by wait4, not by `Child::wait`, which gives no CPU time.)
#[allow(clippy::zombie_processes)]
fn run_measured(exe: &Path, args: &[String], limit_secs: u64) -> Ran {
    let started = Instant::now();
    let mut child = Command::new(exe)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", exe.display()));
    let drain = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = pipe.read_to_string(&mut text);
            text
        })
    };
    let out = drain(Box::new(child.stdout.take().expect("piped")));
    let err = drain(Box::new(child.stderr.take().expect("piped")));
    let pid = child.id() as libc::pid_t;
    let deadline = Deadline::after_secs(limit_secs);
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value of the plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let mut killed = false;
    loop {
        let flags = if killed { 0 } else { libc::WNOHANG };
        // SAFETY: `pid` is our child, not reaped yet (only this loop waits for it);
        // both pointers are valid to write.
        let reaped = unsafe { libc::wait4(pid, &mut status, flags, &mut usage) };
        if reaped == pid {
            break;
        }
        assert!(reaped == 0, "wait4 on the example: {}", std::io::Error::last_os_error());
        if deadline.passed() {
            let _ = child.kill();
            killed = true;
        } else {
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    let wall = started.elapsed();
    let (stdout, stderr) = (out.join().unwrap_or_default(), err.join().unwrap_or_default());
    assert!(
        !killed,
        "the example was still running after {limit_secs} s\n--- stdout ---\n{stdout}\n--- stderr ---\n{stderr}"
    );
    let time = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    Ran { stdout, stderr, status, wall, cpu: time(usage.ru_utime) + time(usage.ru_stime) }
}

/// The shares of a summary line, `window 3 (500 ms): work10 10.02%, ... idle 24.97%; load 75.03%`,
/// by name (the idle task's as `idle`, the load as `load`), in hundredths.
fn summary_shares(line: &str) -> Option<(u64, Vec<(String, u64)>)> {
    let (head, rest) = line.split_once(':')?;
    let window = head.strip_prefix("window ")?.split_whitespace().next()?.parse().ok()?;
    let mut shares = Vec::new();
    for item in rest.split([',', ';']).map(str::trim).filter(|s| !s.is_empty()) {
        let (name, pct) = item.rsplit_once(' ')?;
        let (whole, frac) = pct.strip_suffix('%')?.split_once('.')?;
        shares.push((name.to_string(), whole.parse::<u64>().ok()? * 100 + frac.parse::<u64>().ok()?));
    }
    Some((window, shares))
}

/// The same shares from the window's JSON, in hundredths.
fn json_shares(w: &Window) -> Vec<(String, u64)> {
    let hundredths = |pct: f64| (pct * 100.0).round() as u64;
    let mut shares: Vec<(String, u64)> = w.tasks.iter().map(|t| (t.name.clone(), hundredths(t.usage_pct))).collect();
    shares.push(("idle".into(), hundredths(w.idle_pct)));
    shares.push(("load".into(), hundredths(w.load_pct)));
    shares
}

#[test]
fn rust_example_on_posix_reports_its_duties() {
    let exe = build_example();
    let ran = run_measured(&exe, &[WINDOWS.to_string()], RUN_LIMIT_SECS);
    let shown = format!("--- stdout ---\n{}\n--- stderr ---\n{}", ran.stdout, ran.stderr);
    assert!(
        libc::WIFEXITED(ran.status) && libc::WEXITSTATUS(ran.status) == 0,
        "the example did not exit with status 0 (wait status {:#x})\n{shown}",
        ran.status
    );

    // Each window: its summary line, then its JSON line, nothing else.
    let lines: Vec<&str> = ran.stdout.lines().collect();
    assert_eq!(lines.len(), 2 * WINDOWS, "{WINDOWS} windows of two lines each expected\n{shown}");
    let mut windows: Vec<Window> = Vec::new();
    for pair in lines.chunks(2) {
        let (summary, json) = (pair[0], pair[1]);
        let w = match parse_exact(json) {
            Ok(Report::Window(w)) => *w,
            Ok(other) => panic!("not a window's report: {other:?}\n{shown}"),
            Err(e) => panic!("a report breaks the contract: {e}\n{json}\n{shown}"),
        };
        let (number, shares) =
            summary_shares(summary).unwrap_or_else(|| panic!("not a summary line: {summary:?}\n{shown}"));
        // Usage and Report read the same window: the same number, the same shares.
        assert_eq!(number, w.head.window, "the summary and the JSON are of different windows\n{summary}\n{json}");
        assert_eq!(shares, json_shares(&w), "Usage and Report disagree on one window\n{summary}\n{json}");
        let names: Vec<&str> = w.tasks.iter().map(|t| t.name.as_str()).collect();
        let expected: Vec<&str> = WORKLOADS.iter().map(|(n, _)| *n).chain([REPORTER]).collect();
        assert_eq!(names, expected, "the tasks of window {}\n{json}", w.head.window);
        assert!(w.idle.is_some(), "window {} has no idle task\n{json}", w.head.window);
        windows.push(w);
    }

    // Windows follow one another, each at least the window's length (a reader holds
    // the window under way open a little), and together they fit in the run.
    let nominal = WINDOW_MS * windows[0].clock_hz / 1000;
    for (a, b) in windows.iter().zip(&windows[1..]) {
        assert_eq!(b.head.window, a.head.window + 1, "windows printed out of order or twice\n{shown}");
    }
    for w in &windows {
        assert!(w.head.window_counts >= nominal, "window {} shorter than {WINDOW_MS} ms: {:?}", w.head.window, w.head);
    }
    let covered_us: u64 = windows.iter().map(|w| w.head.window_us).sum();
    assert!(
        covered_us as u128 <= ran.wall.as_micros(),
        "the windows add up to {covered_us} µs, more than the run's {} µs",
        ran.wall.as_micros()
    );

    // The time the host held back from the example (FreeRTOS's POSIX port keeps one
    // core busy: its idle task spins), all charged to the windows measured: a stall
    // lands in whatever task was running and moves a share by at most that much
    // (DUTY_TOLERANCE_PP says the rest). The CPU time counts the port's tick thread
    // too (measured 1.5 % of a core), so a starved run is allowed a little less.
    let measured = &windows[1..];
    let measured_us: u64 = measured.iter().map(|w| w.head.window_us).sum();
    let held_back = ran.wall.saturating_sub(ran.cpu);
    let held_pp = 100.0 * held_back.as_micros() as f64 / measured_us as f64;
    let tolerance = DUTY_TOLERANCE_PP + held_pp;
    println!(
        "run {:.2} s, CPU {:.2} s: {held_pp:.2} pp held back; tolerance {tolerance:.2} pp",
        ran.wall.as_secs_f64(),
        ran.cpu.as_secs_f64()
    );
    let mut failures = Vec::new();
    for (name, duty) in WORKLOADS {
        let each: Vec<f64> = measured.iter().map(|w| w.task(name).map_or(0.0, |t| t.usage_pct)).collect();
        let mean = each.iter().sum::<f64>() / each.len() as f64;
        println!("{name}: duty {duty:.0} %, mean {mean:.2} % over {} windows: {each:?}", each.len());
        if (mean - duty).abs() > tolerance {
            failures.push(format!("{name}: {mean:.2} % for a duty of {duty} % (tolerance {tolerance:.2} pp)"));
        }
    }
    assert!(failures.is_empty(), "{}\n{shown}", failures.join("\n"));
}
