//! A report is one window, printed once, even when windows end while it goes out: the
//! POSIX simulator with 100 more tasks (`--many-tasks`: every ID taken, the shared
//! bucket in use) and a console as slow as a 115200-baud UART (`--baud 115200`: the
//! output function busy for the time the bytes take), with windows of 700 ms. A
//! `show_cpu_usage -m` report is then about 4 KB, 0.35 s of console: about half the
//! reports are still going out when their window under way should end (that none of
//! ten does: once in a thousand runs), and every report has at least 0.7 s before the
//! bound (a reader holds a window by one more window at most), twice what it takes,
//! so a loaded host does not push it past. Each answer must be exactly one line of
//! JSON, a whole window (`parse_exact`), and `cli`'s (48-byte pieces, each written
//! again from the engine) the same; and some window must show that a report held it
//! open past its end (longer than 700 ms by more than a tick).
//!
//! The simulator is `build/posix/freertos-sim` (built by `make sim`), or the file
//! named by `CPU_USAGE_SIM`. A missing binary is a failure, never a skip.

use std::process::Command;

use freertos_cpu_usage_report::{parse_exact, Report};
use freertos_cpu_usage_tests::{path_from_env, Console};

const WINDOW_MS: u64 = 700;
/// A window's length when no reader held it, at most (its end falls on the first
/// hook after it, within a tick of 1 ms).
const NOT_HELD_US: u64 = WINDOW_MS * 1000 + 1000;

#[test]
fn reports_are_one_window_while_windows_end_under_them() {
    let sim = path_from_env("CPU_USAGE_SIM", "build/posix/freertos-sim");
    assert!(sim.is_file(), "the POSIX simulator {} does not exist: build it with `make sim`", sim.display());
    let mut cmd = Command::new(&sim);
    cmd.args(["--many-tasks", "--baud", "115200"]);
    let mut console = Console::spawn("POSIX simulator (115200 baud)", cmd);
    console.read_answer(10);
    let answer = console.command(&format!("show_cpu_usage -w {WINDOW_MS}"), 10);
    if !answer.contains("window set to") {
        console.fail(&format!("-w: {answer:?}"));
    }
    // (The first window ends after the one under way, of the length it began with.)
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let mut longest_us = 0;
    for command in ["show_cpu_usage -m"; 10].into_iter().chain(["cli show_cpu_usage -m"; 2]) {
        let answer = console.command(command, 20);
        let json: Vec<&str> = answer.lines().filter(|l| l.starts_with('{')).collect();
        if json.len() != 1 || answer.contains("(cut)") {
            console.fail(&format!("`{command}`: not exactly one JSON line: {answer:?}"));
        }
        match parse_exact(json[0]) {
            Ok(Report::Window(w)) => longest_us = longest_us.max(w.window_us),
            other => console.fail(&format!("`{command}`: not a whole window ({other:?}): {answer:?}")),
        }
    }
    if longest_us <= NOT_HELD_US {
        console.fail(&format!("no window was held open by a report (longest {longest_us} us)"));
    }
    console.exit(10);
}
