//! freertos-cpu-usage in a freertos-next application, on FreeRTOS's POSIX port.
//!
//! Three tasks burn a known share of the time (10, 25 and 40 %), and a reporter task
//! prints each window's figures through the library's Rust API: a line for people
//! (from `Usage`) and the report in JSON (from `Report`), for as many windows as the
//! first argument (or `WINDOWS` in the environment) asks, 5 by default. Then the
//! process exits with status 0.
//!
//! `cargo run --manifest-path examples/freertos-next-posix/Cargo.toml -- 5`

use std::time::{Duration as WallTime, Instant};

use freertos_cpu_usage::api::{self, Report, Usage};
use freertos_next::{CriticalRegion, CurrentTask, Duration, FreeRtosUtils, Task, TaskPriority};

/// The tasks that burn, and the share of the time each burns, in percent.
const WORKLOADS: [(&str, u32); 3] = [("work10", 10), ("work25", 25), ("work40", 40)];

/// How often a workload wakes up to burn its share.
const PERIOD_MS: u32 = 10;

/// The library's window: each report covers this much time.
const WINDOW_MS: u32 = 500;

fn main() {
    let windows: u32 = std::env::args()
        .nth(1)
        .or_else(|| std::env::var("WINDOWS").ok())
        .map_or(5, |n| n.parse().expect("the number of windows to print: a whole number"));

    for (name, duty) in WORKLOADS {
        Task::new()
            .name(name)
            .priority(TaskPriority(1))
            .start(move |_| workload(duty))
            .expect("creating a workload task");
    }
    // Above the workloads, so that it prints as soon as a window is complete.
    Task::new()
        .name("report")
        .priority(TaskPriority(2))
        .start(move |_| reporter(windows))
        .expect("creating the reporter task");

    FreeRtosUtils::start_scheduler();
}

/// Wakes every `PERIOD_MS` and burns `duty` percent of the wall time since it last
/// woke. The duty is defined against the wall clock, which the library also counts
/// with, rather than against ticks: on the POSIX port the tick lags behind the host's
/// clock whenever the host is busy, and a burn delays the next wake-up.
fn workload(duty: u32) -> ! {
    let mut last = Instant::now();
    loop {
        CurrentTask::delay(Duration::ms(PERIOD_MS));
        let now = Instant::now();
        burn((now - last) * duty / 100);
        last = now;
    }
}

/// Keeps the CPU for `budget` of wall time.
///
/// With the scheduler suspended: the workloads share a priority, and the kernel
/// slices the time between them at each tick, so another one could otherwise run in
/// the middle of the burn and lengthen it (the reporter waits the few milliseconds).
/// Should the host hold this thread back during the burn, that time counts as burnt,
/// as the library also charges it to this task: the share stays right.
fn burn(budget: WallTime) {
    Task::suspend_all();
    let start = Instant::now();
    while start.elapsed() < budget {}
    // SAFETY: matches the `suspend_all` above.
    unsafe { Task::resume_all() };
}

/// Sets the window, prints `windows` windows and ends the process.
fn reporter(windows: u32) -> ! {
    api::set_window_ms(WINDOW_MS).expect("a window of 500 ms is in range");
    let mut json = String::with_capacity(4096);
    let mut printed = None;
    let mut count = 0;
    while count < windows {
        CurrentTask::delay(Duration::ms(20));
        // No window yet (the first ends WINDOW_MS after the scheduler started), or
        // the figures changed while they were read: ask again later.
        let Ok(usage) = Usage::last_window() else { continue };
        if printed == Some(usage.window()) {
            continue;
        }
        json.clear();
        let written = Report::json().write_to(&mut json);
        // `Report` reads the last window again: it is `usage`'s only if no window
        // ended in between.
        if written.is_err() || Usage::last_window().map(|u| u.window()) != Ok(usage.window()) {
            continue;
        }
        println!("{}", summary(&usage));
        print!("{json}");
        printed = Some(usage.window());
        count += 1;
    }
    // The tick signal must not switch this thread out inside exit(), which takes the
    // C library's locks: mask it, as the kernel's critical sections do.
    let _masked = CriticalRegion::enter();
    std::process::exit(0);
}

/// One line for people: each task's share, the idle task's and the load.
fn summary(usage: &Usage) -> String {
    let mut line = format!("window {} ({} ms):", usage.window(), usage.length_us() / 1000);
    for task in usage.tasks() {
        line += &format!(" {} {},", task.name(), task.share());
    }
    line + &format!(" idle {}; load {}", usage.idle().share(), usage.load())
}

/// Whether the caller runs in an interrupt handler, which freertos-next asks the port
/// (its critical section takes the `FromISR` form there) and which FreeRTOS's POSIX
/// port does not define. There, the only "interrupt" is the tick signal's handler,
/// which runs kernel code only: Rust code always runs in a task (or in `main` before
/// the scheduler starts), so the answer is always no.
#[no_mangle]
extern "C" fn xPortIsInsideInterrupt() -> core::ffi::c_long {
    0
}
