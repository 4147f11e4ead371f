//! Soak: task churn through the ID pool, with every published window checked.
//!
//! The demo runs on the FreeRTOS POSIX port (see `in_process`) with 100 ms windows,
//! with its own churn turned off, and two tasks of this test beside it:
//! - churn (priority 2): every tick, a batch of children (sizes cycling 1, 8, 40, 15,
//!   so the 32 IDs run out every few batches and the shared bucket is used); half of
//!   them delete themselves after a short spin, the others block until churn deletes
//!   them on its next round; churn waits while more than 80 tasks exist, so that the
//!   idle task can free the self-deleted ones. It stops after `CPU_USAGE_SOAK_CYCLES` creations
//!   (default 5,000; `make soak` runs 100,000).
//! - checker (highest priority): reads the last window (`show_cpu_usage -m -d`) every
//!   10 ms, and checks every window exactly once: the counts add up to the window's
//!   length exactly, IDs are unique, and `used + quarantined + free == capacity`. A
//!   window it did not see is a failure too.
//!
//! At the end (churn stopped, its last children gone, three more windows) the pool
//! must be back at its baseline: every live task holds its own ID, nothing is
//! quarantined or shares ID 0, and the rest is free. The process prints
//! `N passed, M failed`.

use std::ffi::{c_char, c_void};
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use freertos_cpu_usage::ffi::{cpu_usage_format, cpu_usage_set_clock, cpu_usage_set_window_ms, cpu_usage_status};
use freertos_cpu_usage_report::Window;
use freertos_cpu_usage_tests::in_process::{self, kernel::*, monotonic_ns_low32, say};
use freertos_cpu_usage_tests::scenario;

const WINDOW_MS: u32 = 100;
const BATCHES: [u32; 4] = [1, 8, 40, 15];
const CHILD_SPIN_NS: u32 = 20_000;

/// A child's parameter when it waits to be deleted (never dereferenced).
const WAITS: *mut c_void = std::ptr::dangling_mut();

static CREATED: AtomicU32 = AtomicU32::new(0);
static FAILED_CREATES: AtomicU32 = AtomicU32::new(0);
static CHURN_DONE: AtomicBool = AtomicBool::new(false);

fn cycles() -> u32 {
    std::env::var("CPU_USAGE_SOAK_CYCLES").ok().and_then(|v| v.parse().ok()).unwrap_or(5_000)
}

/// Task functions that may end in `vTaskDelete`: the POSIX port ends a deleted task's
/// thread with `pthread_exit`/`pthread_cancel`, a forced unwind, which may only cross
/// Rust frames declared "C-unwind" (a plain "C" frame aborts the process).
type TaskFn = unsafe extern "C-unwind" fn(*mut c_void);

fn task_fn(f: TaskFn) -> TaskFunction_t {
    // SAFETY: "C-unwind" and "C" functions share one calling convention; only what
    // happens to an unwind crossing them differs.
    Some(unsafe { std::mem::transmute::<TaskFn, unsafe extern "C" fn(*mut c_void)>(f) })
}

unsafe extern "C-unwind" fn child(waits: *mut c_void) {
    let start = monotonic_ns_low32();
    while monotonic_ns_low32().wrapping_sub(start) < CHILD_SPIN_NS {}
    if waits.is_null() {
        // SAFETY: a task deleting itself.
        unsafe { vTaskDelete(std::ptr::null_mut()) };
    }
    loop {
        // SAFETY: blocks until churn deletes this task.
        unsafe { vTaskDelay(TickType_t::MAX) };
    }
}

unsafe extern "C-unwind" fn churn(_: *mut c_void) {
    let target = cycles();
    let mut waiting: Vec<TaskHandle_t> = Vec::with_capacity(64);
    let mut round = 0usize;
    while CREATED.load(Ordering::Relaxed) < target {
        for handle in waiting.drain(..) {
            // SAFETY: a blocked child created below; only churn deletes it.
            unsafe { vTaskDelete(handle) };
        }
        // The idle task frees self-deleted tasks (and the port joins their threads):
        // let it catch up, or the host runs out of threads.
        // SAFETY: kernel query and delay from a task.
        while unsafe { uxTaskGetNumberOfTasks() } > 80 {
            unsafe { vTaskDelay(1) };
        }
        let batch = BATCHES[round % BATCHES.len()];
        round += 1;
        for i in 0..batch {
            let mut handle: TaskHandle_t = std::ptr::null_mut();
            let waits = i % 2 == 1;
            // SAFETY: creating a task; the name is a C string, the handle is written.
            let ok = unsafe {
                xTaskCreate(
                    task_fn(child),
                    c"soak-child".as_ptr(),
                    configMINIMAL_STACK_SIZE as StackType_t,
                    if waits { WAITS } else { std::ptr::null_mut() },
                    2,
                    &mut handle,
                )
            };
            if ok == 1 {
                CREATED.fetch_add(1, Ordering::Relaxed);
                if waits {
                    waiting.push(handle);
                }
            } else {
                FAILED_CREATES.fetch_add(1, Ordering::Relaxed);
            }
        }
        // SAFETY: lets the children run, and the idle task free the self-deleted.
        unsafe { vTaskDelay(1) };
    }
    for handle in waiting.drain(..) {
        // SAFETY: as above.
        unsafe { vTaskDelete(handle) };
    }
    CHURN_DONE.store(true, Ordering::Relaxed);
    // SAFETY: done: churn deletes itself.
    unsafe { vTaskDelete(std::ptr::null_mut()) };
}

/// The last completed window with every task on a line of its own, the deleted ones
/// too (`-d`), held to the report's whole contract (exact sums, one line per ID, the
/// pool adding up, ...).
fn last_window() -> Result<Option<Window>, String> {
    let mut text = vec![0u8; 16 * 1024];
    let mut argv: [*mut c_char; 3] =
        [c"show_cpu_usage".as_ptr().cast_mut(), c"-m".as_ptr().cast_mut(), c"-d".as_ptr().cast_mut()];
    // SAFETY: the buffer is writable for its length; argv holds 3 C strings.
    let n = unsafe { cpu_usage_format(text.as_mut_ptr().cast(), text.len(), 3, argv.as_mut_ptr()) };
    if n == cpu_usage_status::CPU_USAGE_ERR_NO_WINDOW as i32 {
        return Ok(None);
    }
    if n < 0 || n as usize >= text.len() {
        return Err(format!("cpu_usage_format -m -d returned {n}"));
    }
    let text = std::str::from_utf8(&text[..n as usize]).map_err(|e| format!("not ASCII: {e}"))?;
    match scenario::report_in(text, "show_cpu_usage -m -d")? {
        Some(report) => report.window().map(Some).ok_or_else(|| format!("not a window: {text}")),
        None => Ok(None),
    }
}

unsafe extern "C-unwind" fn checker(_: *mut c_void) {
    let mut passed = 0u32;
    let mut failed = 0u32;
    let mut fail = |what: String| {
        say(&format!("FAIL {what}"));
        failed += 1;
    };
    let mut seen: Option<u64> = None;
    let mut overflow_seen = false;
    let mut quiet_windows = 0;
    loop {
        // SAFETY: a task delaying itself.
        unsafe { vTaskDelay(10) };
        let w = match last_window() {
            Ok(Some(w)) => w,
            Ok(None) if seen.is_none() => continue, // no window completed yet
            Ok(None) => {
                fail("no completed window after one was read".into());
                break;
            }
            Err(e) => {
                fail(e);
                break;
            }
        };
        let n = w.window;
        match seen {
            Some(last) if n == last => continue,
            Some(last) if n != last + 1 => fail(format!("windows {} to {} were not seen", last + 1, n - 1)),
            _ => {}
        }
        seen = Some(n);
        // (Checked as read.)
        passed += 1;
        // Tasks sharing ID 0 when the window was read, or time the window charged to
        // ID 0: the tasks of a batch beyond the 32 IDs live about a tick, so a read may
        // well fall between batches, but their time stays in the window.
        let bucket_ran = w.tasks.iter().any(|t| t.id == 0 && t.counts > 0);
        overflow_seen |= bucket_ran || w.slots.overflow_tasks > 0;
        if CHURN_DONE.load(Ordering::Relaxed) {
            quiet_windows += 1;
            if quiet_windows > 3 {
                break;
            }
        }
    }
    say(&format!(
        "{} tasks created ({} creations refused for lack of heap), {passed} windows checked",
        CREATED.load(Ordering::Relaxed),
        FAILED_CREATES.load(Ordering::Relaxed)
    ));
    if !overflow_seen {
        fail("no window had tasks sharing ID 0: churn never ran out of IDs".into());
    }
    // Back at baseline: every live task has its own ID, nothing else is held.
    // SAFETY: a kernel query.
    let live = unsafe { uxTaskGetNumberOfTasks() } as u64;
    match last_window() {
        Ok(Some(w)) => {
            let s = &w.slots;
            let got = (u64::from(s.used), s.quarantined, s.overflow_tasks, u64::from(s.free));
            let want = (live, 0, 0, u64::from(s.capacity).saturating_sub(live));
            if got == want {
                passed += 1;
            } else {
                fail(format!(
                    "pool not at baseline with {live} live tasks: (used, quarantined, overflow, free) = {got:?}"
                ));
            }
        }
        Ok(None) => fail("no completed window at the end".into()),
        Err(e) => fail(e),
    }
    in_process::finish(passed, failed)
}

fn main() {
    let target = cycles();
    // About 3,000 creations a second on a 2-core host, and a margin for a slow one.
    let mut shell = in_process::prepare(60 + u64::from(target) / 500);
    // This test churns; the demo's own churn would keep IDs busy at the end.
    shell.write_all(b"churn off\n").expect("cannot type into the demo's shell");
    std::mem::forget(shell);
    say(&format!("soak: {target} task creations, {WINDOW_MS} ms windows"));
    assert_eq!(cpu_usage_set_clock(Some(monotonic_ns_low32), 1_000_000_000), 0);
    assert_eq!(cpu_usage_set_window_ms(WINDOW_MS), 0);
    for (name, entry, priority) in
        [(c"soak-checker", checker as TaskFn, configMAX_PRIORITIES - 1), (c"soak-churn", churn, 2)]
    {
        // SAFETY: creating a task before the scheduler starts.
        let ok = unsafe {
            xTaskCreate(
                task_fn(entry),
                name.as_ptr(),
                (configMINIMAL_STACK_SIZE * 4) as StackType_t,
                std::ptr::null_mut(),
                priority as UBaseType_t,
                std::ptr::null_mut(),
            )
        };
        assert_eq!(ok, 1, "xTaskCreate({name:?}) failed");
    }
    in_process::run_demo(&[])
}
