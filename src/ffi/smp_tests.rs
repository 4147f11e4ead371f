//! The C API on several cores (a build with `CPU_USAGE_CORES=2`: `make test` runs
//! these with it): the SMP hooks as the hooks header calls them, and the report, in
//! shares of all cores, with each core's line.

use super::tests::{advance, format, lock, snapshot, NOW};
use super::*;
use core::sync::atomic::Ordering;

/// Two tasks on two cores over one window of 1 000 000 counts (1 MHz, 1000 ms): A runs
/// 600 000 on core 0, B 400 000 on core 1 with an interrupt of 50 000 inside, then
/// each core idles.
#[test]
fn a_window_of_two_cores_in_shares_of_both() {
    let _g = lock();
    assert_eq!(ApiEngine::CORES, 2, "built with CPU_USAGE_CORES=2");
    let tcb = |n: usize| n as *mut c_void;
    // SAFETY: hooks called as the kernel and the hooks header would, one at a time.
    unsafe {
        let a = cpu_usage_hook_smp_task_create(0, tcb(0x100), c"A".as_ptr());
        let b = cpu_usage_hook_smp_task_create(0, tcb(0x200), c"B".as_ptr());
        let idle0 = cpu_usage_hook_smp_task_create(0, tcb(0x300), c"IDLE0".as_ptr());
        let idle1 = cpu_usage_hook_smp_task_create(0, tcb(0x400), c"IDLE1".as_ptr());
        // The kernel switches in core 0's idle task before it starts the scheduler.
        cpu_usage_hook_smp_task_switched_in(0, cpu_usage_clock_read(), idle0);
        let idle = cpu_usage_hook_smp_idle_task(tcb(0x300), idle0, c"IDLE0".as_ptr());
        assert_eq!(cpu_usage_hook_smp_idle_task(tcb(0x400), idle1, c"IDLE1".as_ptr()), idle);
        cpu_usage_hook_scheduler_start(idle, 0, 0);
        // Windows start here; the IDs the idle tasks gave back are free again.
        let start = NOW.load(Ordering::Relaxed);
        cpu_usage_hook_smp_task_switched_in(0, start, a);
        cpu_usage_hook_smp_task_switched_in(1, start, b);
        advance(300_000);
        cpu_usage_hook_smp_isr_enter(1, cpu_usage_clock_read());
        advance(50_000);
        // The header reads the clock, then waits for the kernel's ISR lock: the wait
        // is not the handler's.
        let exit_read = cpu_usage_clock_read();
        advance(10_000);
        cpu_usage_hook_smp_isr_exit(1, exit_read);
        advance(40_000);
        cpu_usage_hook_smp_task_switched_in(1, cpu_usage_clock_read(), idle);
        advance(200_000);
        cpu_usage_hook_smp_task_switched_in(0, cpu_usage_clock_read(), idle);
        advance(400_100);
        cpu_usage_hook_smp_tick(0);
    }
    let (n, text) = format(&["show_cpu_usage"]);
    assert!(n > 0, "{text}");
    let line = |start: &str| {
        text.lines()
            .find(|l| l.trim_start().starts_with(start))
            .unwrap_or_else(|| panic!("no {start:?} line in\n{text}"))
    };
    assert!(text.starts_with("CPU usage, window #0: 1000.000 ms on 2 cores,"), "{text}");
    assert!(text.lines().next().unwrap().ends_with(" 1000000 Hz; shares of all cores"), "{text}");
    // Shares of both cores' 2 000 000 counts.
    assert!(line("1  A").contains("30.00%"), "{text}");
    assert!(line("2  B").contains("17.50%"), "{text}");
    assert!(line("interrupts").contains(" 2.50%"), "{text}");
    assert!(line("load").contains("50.00%"), "{text}");
    let idle_line = text.lines().find(|l| l.contains("IDLE")).unwrap();
    assert!(idle_line.contains("50.00%"), "{text}");
    // Each core's line, of that core's 1 000 000 counts.
    assert!(line("core 0").contains("60.00%  busy; idle 40.00%, interrupts 0, sleep 0"), "{text}");
    assert!(line("core 1").contains("40.00%  busy; idle 60.00%, interrupts 5.00%, sleep 0"), "{text}");

    let (n, json) = format(&["show_cpu_usage", "-m"]);
    assert!(n > 0, "{json}");
    for member in [
        "\"window_counts\":1000000,",
        "\"cores\":2,",
        "\"interrupts_pct\":2.50,",
        "\"idle_pct\":50.00,\"load_pct\":50.00,",
        "\"per_core\":[{\"core\":0,\"busy_pct\":60.00,\"idle_pct\":40.00,\"interrupts_pct\":0.00,\"sleep_pct\":0.00,\"interrupts\":0},\
         {\"core\":1,\"busy_pct\":40.00,\"idle_pct\":60.00,\"interrupts_pct\":5.00,\"sleep_pct\":0.00,\"interrupts\":1}]",
    ] {
        assert!(json.contains(member), "no {member} in {json}");
    }

    // The C structs: the same shares, the cores' idle lines summed into one entry.
    let (n, tasks, summary) = snapshot();
    assert_eq!((n, summary.tasks, summary.written), (3, 3, 3));
    assert_eq!((summary.idle, summary.interrupts, summary.sleep, summary.load), (5000, 250, 0, 5000));
    assert_eq!((summary.interrupt_count, summary.longest_interrupt_us), (1, 50_000));
    let usage: Vec<(u32, u32, bool)> = tasks.iter().map(|t| (t.id, t.usage, t.idle)).collect();
    assert_eq!(usage, [(1, 3000, false), (2, 1750, false), (ApiEngine::IDLE as u32, 5000, true)]);
    assert_eq!(tasks[2].counts, 1_000_000);
    // Each core's line, as the report's, with the same window.
    let mut cores = [cpu_usage_core_info::default(); 2];
    let mut again = cpu_usage_summary_info::default();
    // SAFETY: a summary and two cores' lines, no tasks.
    let n = unsafe { cpu_usage_snapshot_cores(core::ptr::null_mut(), 0, &mut again, cores.as_mut_ptr()) };
    assert_eq!((n, again.window, again.load, again.tasks), (0, summary.window, 5000, 3));
    let line = |busy, idle, interrupts, interrupt_count| cpu_usage_core_info {
        busy,
        idle,
        interrupts,
        sleep: 0,
        interrupt_count,
    };
    assert_eq!(cores, [line(6000, 4000, 0, 0), line(4000, 6000, 500, 1)]);
    // SAFETY: NULL for the cores is refused before anything is read.
    let refused = unsafe { cpu_usage_snapshot_cores(core::ptr::null_mut(), 0, &mut again, core::ptr::null_mut()) };
    assert_eq!(refused, cpu_usage_status::CPU_USAGE_ERR_NULL.code());

    // The Rust API: the same shares, the cores' idle lines summed, each core's line.
    let usage = crate::api::Usage::last_window().unwrap();
    let shares: Vec<(u16, u16)> = usage.tasks().iter().map(|t| (t.id(), t.share().hundredths())).collect();
    assert_eq!(shares, [(1, 3000), (2, 1750)]);
    assert_eq!((usage.idle().share().hundredths(), usage.interrupts().share().hundredths()), (5000, 250));
    assert_eq!((usage.counts(), usage.length_us()), (2_000_000, 1_000_000));
    let core1 = usage.cores()[1];
    assert_eq!((core1.busy.hundredths(), core1.idle.hundredths(), core1.interrupts.hundredths()), (4000, 6000, 500));
}
