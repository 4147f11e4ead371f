//! The C example, `examples/c-posix`: the library in a C application of its own on
//! FreeRTOS's POSIX port, built with the example's Makefile as a user builds it (the
//! kernel's files it lists, its sample `FreeRTOSConfig.h`, the hooks header before the
//! closing `#endif`, the archive `make lib` builds) and run.
//!
//! Its own code is compiled with `-Wall -Wextra -Werror`: `show_cpu_usage()` called with
//! a table of string literals (`char *[]`) and with a `const char *const []` cast to
//! `char **`, the two ways the README gives, must compile without a warning. Its output
//! is held to what it promises: three table reports naming the worker, then one report
//! in JSON held to the report's whole contract (the worker's longest run at least its
//! 2.5 ms burn, its share at most its 25% and the edge of a window and a busy host's
//! 1.5 points), then how many ticks passed in how much wall time, and exit status 0 (`vTaskEndScheduler()` returns to `main`). The ticks
//! can only be slower than the wall clock on this port, never faster: the tick thread
//! sleeps a whole tick period between two ticks (the README's note on the POSIX port).

use std::path::{Path, PathBuf};
use std::process::Command;

use freertos_cpu_usage_report::{parse_exact, Report};
use freertos_cpu_usage_tests::{path_from_env, repo_root, run};

/// The example's directory, from the repository root.
const EXAMPLE: &str = "examples/c-posix";

/// The windows it prints as tables (`WINDOWS` in its `main.c`).
const WINDOWS: usize = 3;

/// The worker's burn, each time it wakes (`WORK_BURN_NS` in its `main.c`), and its
/// share if a tick lasted 1 ms (every `WORK_PERIOD_TICKS`, 10).
const WORK_BURN_US: u64 = 2_500;
const WORK_SHARE_PCT: f64 = 25.0;

/// The kernel the tests build with (`freertos-next`'s sources), as make finds it too.
fn kernel_dir() -> PathBuf {
    Path::new(env!("CU_KERNEL_INCLUDE")).parent().expect("the kernel's include/ has a parent").to_path_buf()
}

#[test]
fn c_application_on_the_posix_port() {
    let lib = path_from_env("CPU_USAGE_LIB", "target/release/libfreertos_cpu_usage.a");
    assert!(lib.is_file(), "{} does not exist: build it with `make lib` (or `make test-build`)", lib.display());
    let build = repo_root().join("build/c-posix");
    let mut make = Command::new("make");
    make.current_dir(repo_root().join(EXAMPLE))
        .arg(format!("KERNEL_DIR={}", kernel_dir().display()))
        .arg(format!("LIB={}", lib.display()))
        .arg(format!("BUILD={}", build.display()));
    let built = run(make, 300).unwrap_or_else(|e| panic!("cannot build {EXAMPLE}: {e}"));
    assert!(built.status.success(), "{EXAMPLE} does not build ({}):\n{}{}", built.status, built.stdout, built.stderr);

    let ran = run(Command::new(build.join("c-posix")), 60).unwrap_or_else(|e| panic!("{EXAMPLE}: {e}"));
    let out = &ran.stdout;
    assert!(ran.status.success(), "{EXAMPLE} ended with {}:\n{out}{}", ran.status, ran.stderr);

    let tables: Vec<&str> = out.lines().filter(|l| l.starts_with("CPU usage, window #")).collect();
    assert_eq!(tables.len(), WINDOWS, "{WINDOWS} table reports expected:\n{out}");
    let workers = out.lines().filter(|l| l.split_whitespace().nth(1) == Some("worker")).count();
    assert_eq!(workers, WINDOWS, "each table names the worker:\n{out}");

    let json = out.lines().find(|l| l.starts_with('{')).unwrap_or_else(|| panic!("no report in JSON:\n{out}"));
    let worker = match parse_exact(json) {
        Ok(Report::Window(w)) => w
            .tasks
            .iter()
            .find(|t| t.name == "worker")
            .cloned()
            .unwrap_or_else(|| panic!("the JSON report names the worker: {json}")),
        other => panic!("the JSON line is not a window's report ({other:?}): {json}"),
    };
    // Each activation keeps the CPU for 2.5 ms of the wall clock, by which the
    // library counts: its longest run is at least that. And it wakes at most once in
    // 10 ticks of at least 1 ms: at most 25% of a window, plus one activation more at
    // the window's edge (0.25) and what the README allows a busy host (1.5 points).
    assert!(worker.longest_slice_us >= WORK_BURN_US, "the worker's longest run is under its burn: {json}");
    assert!(
        worker.usage_pct > 0.0 && worker.usage_pct <= WORK_SHARE_PCT + 0.25 + 1.5,
        "the worker reads {}%, above its {WORK_SHARE_PCT}% at most: {json}",
        worker.usage_pct
    );

    // "ticks: 3002 in 3214 ms of wall time"
    let ticks = out.lines().find_map(|l| l.strip_prefix("ticks: ")).unwrap_or_else(|| panic!("no ticks line:\n{out}"));
    let words: Vec<&str> = ticks.split_whitespace().collect();
    let (Some(ticks), Some(ms)) =
        (words.first().and_then(|w| w.parse::<u64>().ok()), words.get(2).and_then(|w| w.parse::<u64>().ok()))
    else {
        panic!("the ticks line is not `ticks: N in M ms of wall time`: {ticks}");
    };
    println!("{ticks} ticks of 1 ms in {ms} ms of wall time");
    assert!(ticks >= 3000 && ms + 2 >= ticks, "ticks ran faster than the wall clock: {ticks} in {ms} ms");
}
