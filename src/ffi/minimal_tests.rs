//! The minimal build (`--no-default-features`) through its C API, on a simulated clock:
//! the hooks charge every count, and `cpu_usage_snapshot` gives the window exactly
//! (counts adding up to its length, shares to 100.00%). Compiled only without the
//! `shell` feature; the default build's tests are in `tests.rs`.

use super::status::cpu_usage_status as St;
use super::*;
use core::ffi::c_void;
use core::sync::atomic::{AtomicU32, Ordering};

static NOW: AtomicU32 = AtomicU32::new(0);

unsafe extern "C" fn fake_clock() -> u32 {
    NOW.load(Ordering::Relaxed)
}

fn advance(counts: u32) {
    NOW.fetch_add(counts, Ordering::Relaxed);
}

#[test]
fn the_minimal_build_accounts_every_count_of_a_window() {
    assert_eq!(cpu_usage_set_window_ms(100), 0);
    assert_eq!(cpu_usage_set_clock(Some(fake_clock), 1_000_000), 0);
    let mut summary = cpu_usage_summary_info::default();
    // SAFETY: no array, and a summary to write.
    assert_eq!(
        unsafe { cpu_usage_snapshot(core::ptr::null_mut(), 0, &mut summary) },
        St::CPU_USAGE_ERR_NO_WINDOW.code()
    );
    // Three workers and the idle task; the window is 100,000 counts.
    let tcbs = [0x100usize, 0x200, 0x300, 0x400].map(|a| a as *mut c_void);
    // SAFETY: hooks called as the kernel would, one at a time.
    let ids = unsafe {
        let ids = tcbs.map(|tcb| cpu_usage_hook_task_create(tcb, c"task".as_ptr()));
        cpu_usage_hook_scheduler_start(ids[3], 0, 0);
        // Each worker runs 10,000 counts per place in line, with an interrupt of 333.
        for (i, &id) in ids.iter().take(3).enumerate() {
            cpu_usage_hook_task_switched_in(cpu_usage_clock_read(), id);
            advance(10_000 * (i as u32 + 1));
            cpu_usage_hook_isr_enter();
            advance(333);
            cpu_usage_hook_isr_exit();
        }
        // Then the idle task, past the window's end; ticks close it.
        cpu_usage_hook_task_switched_in(cpu_usage_clock_read(), ids[3]);
        for _ in 0..100 {
            advance(1000);
            cpu_usage_hook_tick();
        }
        ids
    };
    let mut tasks = [cpu_usage_task_info::BLANK; 8];
    // SAFETY: arrays of the sizes given.
    let n = unsafe { cpu_usage_snapshot(tasks.as_mut_ptr(), tasks.len(), &mut summary) };
    assert_eq!(n, 4, "{summary:?}");
    assert_eq!(summary.window_us, 100_000);
    let counts: u32 = tasks.iter().map(|t| t.counts).sum::<u32>();
    let isr_counts = 3 * 333;
    assert_eq!(counts + isr_counts, 100_000, "every count of the window is charged once");
    assert_eq!(tasks[..4].iter().map(|t| t.counts).collect::<Vec<_>>(), [10_000, 20_000, 30_000, 40_000 - isr_counts]);
    assert_eq!(summary.interrupt_count, 3);
    let shares: u32 = tasks.iter().map(|t| t.usage).sum::<u32>() + summary.interrupts + summary.sleep + summary.other;
    assert_eq!(shares, 10_000, "the shares add up to 100.00%");
    assert!(tasks[3].idle && tasks[3].id == ids[3]);
    assert_eq!(summary.load, 10_000 - tasks[3].usage);
}
