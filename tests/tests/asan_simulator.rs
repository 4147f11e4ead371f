//! The POSIX simulator built with AddressSanitizer and UndefinedBehaviorSanitizer
//! (`build/posix-asan/freertos-sim`, from `make test-build`), through a session that
//! uses every shell command and churns a few hundred tasks through the ID pool.
//!
//! The sanitizers are built to abort on their first report (board.mk), and
//! LeakSanitizer checks the heap at exit, so the verdict is the exit status after
//! `exit`. Shares are not checked here: the sanitizers slow the kernel and the churn
//! enough to overload the simulated CPU, which `e2e_posix` covers on the plain build.

use std::process::Command;
use std::thread;
use std::time::Duration;

use freertos_cpu_usage_tests::scenario::{ask_json, Churn};
use freertos_cpu_usage_tests::{path_from_env, Console, Deadline};

#[test]
fn sanitizers_stay_quiet_through_a_session() {
    let sim = path_from_env("CPU_USAGE_ASAN_SIM", "build/posix-asan/freertos-sim");
    assert!(sim.is_file(), "{} does not exist: build it with `make test-build`", sim.display());
    let mut console = Console::spawn("ASan simulator", Command::new(&sim));
    console.read_answer(20);

    let deadline = Deadline::after_secs(30);
    loop {
        let status: Churn = ask_json(&mut console, "churn -m status", 10);
        if status.created >= 300 {
            break;
        }
        if deadline.passed() {
            console.fail("churn created fewer than 300 tasks in 30 s");
        }
        thread::sleep(Duration::from_millis(500));
    }
    for line in [
        "tasks",
        "tasks -m",
        "show_cpu_usage",
        "show_cpu_usage -m",
        "show_cpu_usage -c",
        "show_cpu_usage -mc",
        "show_cpu_usage -h",
        "show_cpu_usage -q",
        "show_cpu_usage -",
        "cpu_usage_watchdog load 10 1",
        "cpu_usage_watchdog slice 100",
        "cpu_usage_watchdog slice 0",
        "cpu_usage_watchdog",
        "snapshot",
        "snapshot -m",
        "cli show_cpu_usage -m",
        "cli show_cpu_usage -s -l -n 3",
        "cli show_cpu_usage -w",
        "cli no-such-command",
        "cli",
        "load work10 50",
        "load nosuchtask 5",
        "load work10 101",
        "churn off",
        "tick30 on",
        "sampled",
        "sampled -m",
        "tick30 status",
        "tick30 -m status",
        "tick30 sideways",
        "no-such-command",
    ] {
        console.command(line, 10);
    }
    // tick30 wakes on every tick for a while, with the tick hook's sampling beside it;
    // then off, so that the idle task sleeps again (tickless idle) while churn winds
    // down.
    thread::sleep(Duration::from_millis(500));
    // The watchdogs have had windows to trip in; their alerts were printed by now.
    console.command("cpu_usage_watchdog off", 10);
    console.command("sampled", 10);
    console.command("tick30 off", 10);
    thread::sleep(Duration::from_millis(2500));
    let report = console.command("show_cpu_usage -m", 10);
    if !report.contains("\"quarantined\":0,") || !report.contains("\"overflow_tasks\":0}") {
        console.fail("IDs still held two windows after churn stopped");
    }
    console.exit(20);
}
