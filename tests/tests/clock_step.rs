//! A clock that steps back, on the POSIX simulator: `clockstep 15625` reads the
//! library's clock through one that, once in 97 readings, reads 15,625 counts (1 ms,
//! a tick) early, as a SysTick-extended clock read racing its interrupt does. The
//! library takes such a reading as no time passed, so every window still adds up
//! exactly (the report's own invariants, `parse_exact`), and no figure leaves its
//! window: no line has more counts than the window, and no run (a task's, an
//! interrupt's) is longer than the window. Without that, a step back reads as a jump
//! of nearly 2^32 counts: a run of 274 s in a 1 s window.
//!
//! The simulator is `build/posix/freertos-sim` (built by `make sim`), or the file
//! named by `CPU_USAGE_SIM`. A missing binary is a failure, never a skip.

use std::process::Command;

use freertos_cpu_usage_report::{parse_exact, Report};
use freertos_cpu_usage_tests::{path_from_env, Console};

/// Windows read with the stepping clock.
const WINDOWS: usize = 4;

#[test]
fn a_clock_that_steps_back_leaves_every_window_whole() {
    let sim = path_from_env("CPU_USAGE_SIM", "build/posix/freertos-sim");
    assert!(sim.is_file(), "the POSIX simulator {} does not exist: build it with `make sim`", sim.display());
    let mut console = Console::spawn("POSIX simulator", Command::new(&sim));
    console.read_answer(10);

    let answer = console.command("clockstep 15625", 10);
    if !answer.contains("one reading in 97 is 15625 counts early") {
        console.fail(&format!("clockstep: {answer:?}"));
    }
    // (The new clock restarts accounting: follow mode waits for the first window.)
    let answer = console.command(&format!("show_cpu_usage -m -f {WINDOWS}"), 20);
    let reports: Vec<&str> = answer.lines().filter(|l| l.starts_with('{')).collect();
    if reports.len() != WINDOWS {
        console.fail(&format!("{WINDOWS} reports, one JSON line each: {answer:?}"));
    }
    for line in reports {
        let w = match parse_exact(line) {
            Ok(Report::Window(w)) => w,
            other => console.fail(&format!("not a whole window ({other:?}): {line}")),
        };
        let mut runs: Vec<(&str, u64)> = w.tasks.iter().map(|t| (t.name.as_str(), t.longest_slice_us)).collect();
        runs.extend(w.idle.iter().map(|i| (i.name.as_str(), i.longest_slice_us)));
        runs.push(("interrupts", w.longest_interrupt_us));
        for (name, us) in runs {
            if us > w.window_us {
                console.fail(&format!("{name}: a run of {us} us in a window of {} us: {line}", w.window_us));
            }
        }
        let mut counts: Vec<(&str, u64)> = w.tasks.iter().map(|t| (t.name.as_str(), t.counts)).collect();
        counts.extend(w.idle.iter().map(|i| (i.name.as_str(), i.counts)));
        counts.extend([("interrupts", w.interrupts_counts), ("sleep", w.sleep_counts), ("other", w.other_counts)]);
        for (name, c) in counts {
            if c > w.window_counts {
                console.fail(&format!("{name}: {c} counts in a window of {}: {line}", w.window_counts));
            }
        }
    }
    console.command("clockstep off", 10);
    console.exit(10);
}
