//! `cpu_usage_format(buf, len, argc, argv)`, through the real `extern "C"` function.
//!
//! Each input sets up a small system (tasks with random names, some run time, maybe
//! a completed window), then calls the formatter with a random `argv` (random bytes,
//! NULLs, unterminated strings at the very end of their allocations, random `argc`)
//! and a random buffer (NULL, 0 bytes, or any size). Checked:
//! - nothing is written past `len` (canary bytes after the buffer), nothing at all
//!   through a NULL buffer;
//! - the result is NUL-terminated when `len > 0`, and is a prefix of the text a large
//!   enough buffer gets; the value returned is that text's length, or the negative
//!   status the arguments call for (with its message);
//! - the text is printable ASCII; the JSON reports parse and their lines add up to
//!   the window exactly, their percentages to 100.00; a report agrees with the same
//!   report listing every task (same shares, the "more" and deleted lines the sums
//!   of the tasks they hold); a table agrees with the JSON of the same report;
//! - the window report is the last window closed, the since-start one every window
//!   closed, and the window under way has the rest of the time.

#![no_main]

use arbitrary::Arbitrary;
use freertos_cpu_usage::ffi::*;
use freertos_cpu_usage_fuzz::*;
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Debug)]
struct Task {
    name: TaskName,
    /// Counts it runs for.
    runs: u16,
    /// Times its run is repeated, in thousands of counts.
    kilo: u8,
    delete: bool,
}

#[derive(Arbitrary, Debug)]
struct Input {
    /// Where the clock starts (near a wrap, often).
    start: u32,
    tasks: Vec<Task>,
    /// Which task is the idle task, if any.
    idle: Option<u8>,
    /// Counts after each task's tick, before the next switch-in.
    gap: u16,
    /// Run past the end of the first window.
    complete: bool,
    argv: Argv,
    buf: BufLen,
}

fuzz_target!(|input: Input| {
    reset(input.start);
    // The windows closed, for the since-start figures (1000 ms at BASE_HZ).
    let mut windows = Windows::new(u64::from(BASE_HZ));
    let mut ids = Vec::new();
    // SAFETY: hooks called one at a time, as the kernel does; names valid for the call.
    unsafe {
        for (i, t) in input.tasks.iter().take(MAX_TASKS + 3).enumerate() {
            windows.hook();
            let id = t.name.with_ptr(|name| cpu_usage_hook_task_create(tcb(i as u32 + 1), name));
            ids.push(id);
        }
        let idle = input.idle.and_then(|i| ids.get(usize::from(i))).copied().unwrap_or(0);
        cpu_usage_hook_scheduler_start(idle, 0, 0);
        windows.restart();
        for (t, &id) in input.tasks.iter().zip(&ids) {
            windows.hook();
            cpu_usage_hook_task_switched_in(cpu_usage_clock_read(), id);
            advance(u32::from(t.runs) + 1000 * u32::from(t.kilo));
            windows.hook();
            cpu_usage_hook_tick();
            advance(u32::from(input.gap));
            if t.delete {
                windows.hook();
                assert!(matches!(cpu_usage_hook_task_delete(tcb(id), id), OK | ERR_TASK_ID));
            }
        }
        if input.complete {
            advance(BASE_HZ);
            windows.hook();
            cpu_usage_hook_tick();
        }
    }
    let (status, _) = check_format_call(&input.argv, input.buf);
    assert_documented(status.min(0), "cpu_usage_format");
    // The same in both modes, whatever the arguments asked for: the JSON reports.
    let window = last_window();
    let cumulative = since_start();
    // (A `-w` in the arguments changes the window under way only: no hook ran since.)
    windows.check(window.as_ref(), &cumulative);
});
