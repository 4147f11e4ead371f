//! freertos-cpu-usage against the kernel's own run-time statistics, in one process.
//!
//! The demo (its workloads, churn and shell) runs on the FreeRTOS POSIX port with
//! `configGENERATE_RUN_TIME_STATS` on, the kernel counting each task's run time in
//! nanoseconds of CLOCK_MONOTONIC (`freertos-port/posix`, `DEMO_RUN_TIME_STATS=1`).
//! The library counts with the very same clock: `cpu_usage_set_clock` gets the low 32
//! bits of CLOCK_MONOTONIC in nanoseconds at 1 GHz (it wraps every 4.3 s; the tick
//! hook reads it every millisecond, so no wrap is missed). The kernel's counter is
//! that clock minus a constant taken when the demo's main starts, so both measure the
//! same differences.
//!
//! The demo runs with `--many-tasks`: after its own tasks, 100 that only wait are
//! created before the scheduler starts, as FreeRTOS's full demos do, so every one of
//! the 32 IDs is taken when `vTaskStartScheduler()` creates the idle task and the timer
//! service task. Both must still have an ID of their own, the idle task its line,
//! agreeing with the kernel's figure, and the load must be the kernel's 100 % minus
//! idle.
//!
//! After about 4 s a checker task suspends the scheduler and takes both views at the
//! same instant: every live task's `ulRunTimeCounter` with the ID the library stored
//! in it (`uxTaskGetTaskNumber`), and the library's since-start counts
//! (`show_cpu_usage -c -m`). Every task with more than 1 % of the run must agree
//! within 0.5 % (relative).
//!
//! Where the two may differ, and by how much:
//! - Each context switch: the kernel reads the clock just after
//!   `traceTASK_SWITCHED_OUT`, the library in `traceTASK_SWITCHED_IN`, after the
//!   kernel has picked the next task. Both charge everything between two of their
//!   readings to the task that ran, so the two books differ by the few instructions
//!   between those two reads, at each end of a slice: well under 0.1 µs per switch,
//!   some thousands of switches a second, so under 0.1 % of a task's time. 0.5 %
//!   leaves room for a slow host, not for a wrong attribution.
//! - Where each starts: the library's figures start when the scheduler starts; the
//!   kernel's counter starts at the demo's main, and it credits everything until the
//!   first switch-out to the first task that runs (`ulTaskSwitchedInTime` starts at
//!   0). That fixed offset (the time the demo takes to create its tasks) would land on
//!   whichever task runs first, so the checker is given the highest priority to be
//!   that task, with the timer service task (the kernel starts with one of the two):
//!   both block at once and stay under 1 % of the run, and the printed difference for
//!   the one that ran first shows the offset. Every other task starts from the same
//!   instant in both.
//! - Where each ends: the library's since-start figures run to the end of its last
//!   completed window, the kernel's to the snapshot. The checker sets windows of
//!   1 ms a few ticks before it, so at most the last millisecond is missing from the
//!   library's side: 0.25 % of a task with 10 % of a 4 s run at worst.
//! - Sleep: the idle task's tickless sleep is a line of its own for the library and
//!   idle time for the kernel, so the idle task is compared with idle + sleep.
//! - Churned tasks: deleted ones are forgotten by the kernel (the library keeps their
//!   time apart), and live ones beyond the 32 IDs share ID 0: only live tasks with
//!   their own ID are compared.
//!
//! The process prints one line per compared task and `N passed, M failed`, and exits
//! with 0 or 1 (through the demo's `port_exit`: the POSIX scheduler never returns).
//! A watchdog ends it with a failure if no verdict comes within a minute.

use std::ffi::{c_char, c_void, CStr};

use freertos_cpu_usage::ffi::{cpu_usage_format, cpu_usage_set_clock, cpu_usage_set_window_ms};
use freertos_cpu_usage_tests::in_process::{self, kernel::*, monotonic_ns_low32, say};
use serde_json::Value;

/// How long the workloads run before the comparison, in ticks (ms, or a little more
/// since the POSIX tick lags the host).
const RUN_TICKS: TickType_t = 4000;

/// Tasks below this share of the run are not compared: a few microseconds of switch
/// slivers are already a large fraction of their time.
const MIN_SHARE: f64 = 0.01;

/// Largest relative difference allowed between the two counts of a task.
const TOLERANCE: f64 = 0.005;

/// The watchdog's limit, in seconds: the run takes about 4.
const WATCHDOG_SECS: u64 = 60;

/// One live task in the kernel's books.
struct KernelTask {
    id: u64,
    name: String,
    run_time: u64,
}

/// Both views, taken with the scheduler suspended.
struct Snapshot {
    tasks: Vec<KernelTask>,
    total_run_time: u64,
    report: Result<String, String>,
}

fn take_snapshot() -> Snapshot {
    let mut tasks = Vec::new();
    let mut total_run_time = 0u64;
    // Allocated before the scheduler is suspended: a few spare rows for tasks created
    // in between.
    // SAFETY: a kernel query, callable from a task.
    let capacity = unsafe { uxTaskGetNumberOfTasks() } as usize + 16;
    let mut status: Vec<TaskStatus_t> = Vec::with_capacity(capacity);
    let mut report = vec![0u8; 16 * 1024];
    let mut argv: [*mut c_char; 4] = [
        c"show_cpu_usage".as_ptr().cast_mut(),
        c"-c".as_ptr().cast_mut(),
        c"-m".as_ptr().cast_mut(),
        std::ptr::null_mut(),
    ];

    // SAFETY: suspending the scheduler from a task; resumed below.
    unsafe { vTaskSuspendAll() };
    // SAFETY: `status` has room for `capacity` rows; the kernel fills at most that.
    let filled =
        unsafe { uxTaskGetSystemState(status.as_mut_ptr(), capacity as UBaseType_t, &mut total_run_time) } as usize;
    // SAFETY: the kernel initialised the first `filled` rows.
    unsafe { status.set_len(filled.min(capacity)) };
    for s in &status {
        if s.eCurrentState == eTaskState_eDeleted {
            continue;
        }
        // SAFETY: with the scheduler suspended the task cannot be freed: its handle
        // and name stay valid until the resume.
        let (id, name) = unsafe { (uxTaskGetTaskNumber(s.xHandle) as u64, CStr::from_ptr(s.pcTaskName)) };
        tasks.push(KernelTask { id, name: name.to_string_lossy().into_owned(), run_time: s.ulRunTimeCounter });
    }
    // SAFETY: the buffer is writable for its length; argv holds 3 C strings.
    let n = unsafe { cpu_usage_format(report.as_mut_ptr().cast(), report.len(), 3, argv.as_mut_ptr()) };
    // SAFETY: paired with the suspend above.
    unsafe { xTaskResumeAll() };

    let report = if n < 0 || n as usize >= report.len() {
        Err(format!("cpu_usage_format -c -m returned {n}"))
    } else {
        Ok(String::from_utf8_lossy(&report[..n as usize]).into_owned())
    };
    Snapshot { tasks, total_run_time, report }
}

/// The library's since-start counts by ID, with each task's name. The idle task's
/// row also gets the time it spent in tickless sleep and in interrupts that came
/// during that sleep: the library shows both on lines of their own, the kernel
/// charges them to the idle task, which is running all along. (The POSIX port calls
/// no interrupt hooks, so interrupts are 0 here; the sum keeps that explicit.)
fn library_counts(report: &Value) -> Result<Vec<(u64, String, u64)>, String> {
    let mut rows = Vec::new();
    let tasks = report["tasks"].as_array().ok_or("no tasks array")?;
    for t in tasks {
        let id = t["id"].as_u64().ok_or_else(|| format!("no id in {t}"))?;
        let name = t["name"].as_str().ok_or_else(|| format!("no name in {t}"))?.to_string();
        let counts = t["counts"].as_u64().ok_or_else(|| format!("no counts in {t}"))?;
        rows.push((id, name, counts));
    }
    let idle = &report["idle"];
    let id = idle["id"].as_u64().ok_or_else(|| format!("no id in {idle}"))?;
    let name = idle["name"].as_str().ok_or_else(|| format!("no name in {idle}"))?.to_string();
    let counts = idle["counts"].as_u64().ok_or_else(|| format!("no counts in {idle}"))?;
    let sleep = report["sleep_counts"].as_u64().ok_or("no sleep_counts")?;
    let isr = report["interrupts_counts"].as_u64().ok_or("no interrupts_counts")?;
    if isr != 0 {
        return Err(format!("interrupts_counts is {isr}: the POSIX port calls no interrupt hooks"));
    }
    rows.push((id, name, counts + sleep));
    Ok(rows)
}

/// Checks passed and failed so far.
#[derive(Default)]
struct Tally {
    passed: u32,
    failed: u32,
}

impl Tally {
    fn fail(&mut self, what: String) {
        say(&format!("FAIL {what}"));
        self.failed += 1;
    }
}

/// Compares the two views.
fn compare(snapshot: &Snapshot) -> Tally {
    let mut t = Tally::default();
    let report = match snapshot.report.as_ref().map(|r| serde_json::from_str::<Value>(r)) {
        Ok(Ok(json)) => json,
        Ok(Err(e)) => {
            t.fail(format!("the library's report is not JSON: {e}"));
            return t;
        }
        Err(e) => {
            t.fail(e.clone());
            return t;
        }
    };
    let lib = match library_counts(&report) {
        Ok(rows) => rows,
        Err(e) => {
            t.fail(format!("the library's report: {e}"));
            return t;
        }
    };
    let total = snapshot.total_run_time as f64;
    say(&format!(
        "kernel run time {:.3} s, library uptime {:.3} s",
        total / 1e9,
        report["uptime_counts"].as_u64().unwrap_or(0) as f64 / 1e9
    ));
    let shared = snapshot.tasks.iter().filter(|t| t.id == 0).count();
    if shared > 0 {
        say(&format!("  {shared} live churn tasks share ID 0: not compared"));
    }
    let mut own: Vec<&KernelTask> = snapshot.tasks.iter().filter(|t| t.id != 0).collect();
    own.sort_by_key(|t| t.id);
    for task in own {
        let share = task.run_time as f64 / total;
        let lib_row = lib.iter().find(|(id, _, _)| *id == task.id);
        let shown = match lib_row {
            Some((_, _, counts)) => format!("{counts}"),
            None => "-".to_string(),
        };
        say(&format!(
            "  id {:>2} {:<16} kernel {:>11} ns  library {:>11}  ({:.2} % of the run)",
            task.id,
            task.name,
            task.run_time,
            shown,
            share * 100.0
        ));
        if share <= MIN_SHARE {
            continue;
        }
        let Some((_, name, counts)) = lib_row else {
            t.fail(format!(
                "{} (id {}) has {:.2} % of the run but the library does not list it",
                task.name,
                task.id,
                share * 100.0
            ));
            continue;
        };
        if *name != task.name {
            t.fail(format!("id {} is {:?} for the kernel but {:?} for the library", task.id, task.name, name));
            continue;
        }
        let diff = (*counts as f64 - task.run_time as f64) / task.run_time as f64;
        if diff.abs() > TOLERANCE {
            t.fail(format!(
                "{}: library {} ns, kernel {} ns: {:+.3} %, more than {} %",
                task.name,
                counts,
                task.run_time,
                diff * 100.0,
                TOLERANCE * 100.0
            ));
        } else {
            t.passed += 1;
        }
    }
    check_idle_and_load(&mut t, snapshot, &report);
    // The demo's three workloads, the idle task and more are above 1 %: fewer compared
    // tasks means the comparison did not happen.
    let compared = t.passed + t.failed;
    if compared < 4 {
        t.fail(format!("only {compared} tasks had more than 1 % of the run"));
    }
    t
}

/// The idle task has its own ID, the report's idle line is it, and the report's load
/// is the kernel's: 100 % minus the idle task's share of the run.
///
/// Tolerance: the idle task's counts agree within `TOLERANCE` (relative, checked
/// above), and the two runs' lengths differ by at most the library's last 1 ms window
/// (see the module comment), 0.025 % of a 4 s run; the report rounds to 0.01 pp.
fn check_idle_and_load(t: &mut Tally, snapshot: &Snapshot, report: &Value) {
    let Some(idle) = snapshot.tasks.iter().find(|k| k.name == "IDLE") else {
        t.fail("the kernel lists no IDLE task".to_string());
        return;
    };
    if idle.id == 0 {
        t.fail("the idle task has no ID of its own: it shares the overflow bucket".to_string());
        return;
    }
    match report["idle"]["id"].as_u64() {
        Some(id) if id == idle.id => t.passed += 1,
        other => t.fail(format!("the report's idle line is {other:?}, the idle task's ID is {}", idle.id)),
    }
    // The timer service task, created with it after every other, has its own ID too.
    match snapshot.tasks.iter().find(|k| k.name == "Tmr Svc") {
        Some(timer) if timer.id != 0 && timer.id != idle.id => t.passed += 1,
        Some(timer) => t.fail(format!("the timer service task has ID {}", timer.id)),
        None => t.fail("the kernel lists no timer service task (configUSE_TIMERS 1)".to_string()),
    }
    let idle_share = idle.run_time as f64 / snapshot.total_run_time as f64;
    let kernel_load = 100.0 * (1.0 - idle_share);
    let Some(load) = report["load_pct"].as_f64() else {
        t.fail(format!("no load_pct in the report: {}", report["load_pct"]));
        return;
    };
    let bound = 100.0 * (TOLERANCE * idle_share + 0.00025) + 0.01;
    say(&format!("  load: library {load:.2} %, kernel {kernel_load:.2} % (bound {bound:.3} pp)"));
    if (load - kernel_load).abs() > bound {
        t.fail(format!("load: library {load:.2} %, kernel 100 % - idle = {kernel_load:.2} %, more than {bound:.3} pp"));
    } else {
        t.passed += 1;
    }
}

unsafe extern "C" fn checker(_: *mut c_void) {
    // SAFETY: a task delaying itself.
    unsafe { vTaskDelay(RUN_TICKS) };
    // The library's since-start figures run to the end of the last completed window:
    // with windows of 1 ms, that is within a millisecond of the snapshot (see the
    // module comment).
    assert_eq!(cpu_usage_set_window_ms(1), 0, "cpu_usage_set_window_ms(1)");
    // SAFETY: a task delaying itself.
    unsafe { vTaskDelay(3) };
    let verdict = std::panic::catch_unwind(|| {
        let snapshot = take_snapshot();
        compare(&snapshot)
    });
    let Tally { passed, failed } = verdict.unwrap_or(Tally { passed: 0, failed: 1 });
    in_process::finish(passed, failed)
}

fn main() {
    // The shell's stdin stays open (and silent) for the whole run.
    std::mem::forget(in_process::prepare(WATCHDOG_SECS));
    let status = cpu_usage_set_clock(Some(monotonic_ns_low32), 1_000_000_000);
    assert_eq!(status, 0, "cpu_usage_set_clock(CLOCK_MONOTONIC ns, 1 GHz) = {status}");

    // Highest priority: the first task to run (see the module comment).
    // SAFETY: creating a task before the scheduler starts; the name is a C string.
    let created = unsafe {
        xTaskCreate(
            Some(checker),
            c"checker".as_ptr(),
            (configMINIMAL_STACK_SIZE * 4) as StackType_t,
            std::ptr::null_mut(),
            (configMAX_PRIORITIES - 1) as UBaseType_t,
            std::ptr::null_mut(),
        )
    };
    assert_eq!(created, 1, "xTaskCreate(checker) failed");
    in_process::run_demo(&[c"--many-tasks"])
}
