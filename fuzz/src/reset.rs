//! Bringing the library back to one state before each input.

use std::ffi::c_void;
use std::sync::Once;

use freertos_cpu_usage::ffi::*;

use crate::{capture, fake_clock, restarted, set_now, since_start, take_captured, BASE_HZ, MAX_TASKS, OK};

/// A TCB address: the library never dereferences it, only checks it for NULL.
pub fn tcb(id: u32) -> *mut c_void {
    (0x1000 + 0x100 * id as usize) as *mut c_void
}

static INIT: Once = Once::new();

/// Brings the library to the same state whatever ran before: the fake clock at
/// `start` and `BASE_HZ`, a 1000 ms window, no task (none alive, none sharing ID 0,
/// every ID free with the pool in one fixed order), no idle task, no window completed,
/// the output captured.
pub fn reset(start: u32) {
    INIT.call_once(|| assert_eq!(cpu_usage_set_output(Some(capture)), OK));
    assert_eq!(cpu_usage_set_output(Some(capture)), OK);
    // A 1 ms window is valid at every clock of 1 kHz or more, a 1000 ms one at every
    // clock slower; either is valid at `BASE_HZ`.
    if cpu_usage_set_window_ms(1) != OK {
        assert_eq!(cpu_usage_set_window_ms(1000), OK);
    }
    set_now(start);
    assert_eq!(cpu_usage_set_clock(Some(fake_clock), BASE_HZ), OK);
    assert_eq!(cpu_usage_set_window_ms(1000), OK);
    // SAFETY: hooks called one at a time, as the kernel does.
    unsafe {
        // Ends the last slice of a task that deleted itself, if one runs. ID 0 is no
        // live task's: from here on time runs on the shared bucket until the next
        // switch-in, the same after every reset.
        cpu_usage_hook_task_switched_in(cpu_usage_clock_read(), 0);
        for id in 1..=MAX_TASKS as u32 {
            let _ = cpu_usage_hook_task_delete(tcb(id), id);
        }
        let overflow = since_start().slots.overflow_tasks;
        for _ in 0..overflow {
            assert_eq!(cpu_usage_hook_task_delete(tcb(0), 0), OK);
        }
        // Every deleted ID is now waiting in quarantine, in an order that depends on
        // the past. Two windows later (a restart) all of them are ready; taking every
        // ID and giving them back in ID order leaves the same pool every time. (With
        // the scheduler started: until then two IDs are kept for the kernel's tasks.)
        cpu_usage_hook_scheduler_start(0, 0, 0);
        assert_eq!(cpu_usage_set_clock(Some(fake_clock), BASE_HZ), OK);
        for expected in 1..=MAX_TASKS as u32 {
            let id = cpu_usage_hook_task_create(tcb(expected), c"reset".as_ptr());
            assert_ne!(id, 0, "an ID leaked: after deleting every task, only {} could be taken", expected - 1);
        }
        for id in 1..=MAX_TASKS as u32 {
            assert_eq!(cpu_usage_hook_task_delete(tcb(id), id), OK);
        }
        // No idle task; a restart, which also makes the quarantine ready.
        cpu_usage_hook_scheduler_start(0, 0, 0);
    }
    restarted();
    take_captured();
    let slots = since_start().slots;
    assert_eq!(slots.used, 0);
    assert_eq!(slots.free as usize, MAX_TASKS);
}
