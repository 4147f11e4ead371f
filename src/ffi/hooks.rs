//! The hooks: what the kernel's trace macros call (`freertos_cpu_usage_hooks.h`).
//!
//! This is the hot path's C side. Each hook reads the clock once and hands the
//! reading to the engine ([`crate::engine`], where the accounting reads top to
//! bottom); none allocates, divides, loops over tasks or can panic. The kernel calls
//! them with interrupts masked up to its priority, so they run one at a time and are
//! the only writers of the accounting state.

use core::ffi::{c_char, c_void};

use super::library;
use super::status::cpu_usage_status as St;
#[cfg(feature = "watchdogs")]
use super::watchdog;
use crate::arch::{self, ClockName};
use crate::engine::{arith, NAME_LEN, OVERFLOW_ID};
use crate::settings::ApiEngine;

/// `traceTASK_CREATE`: returns the new task's ID (0 if every ID is taken, or if
/// `tcb` is NULL). `name` is read up to `CPU_USAGE_NAME_LEN` bytes; NULL means no
/// name.
///
/// # Safety
/// Called by the hooks header from inside the kernel. `name`, if not NULL, points to
/// at least `CPU_USAGE_NAME_LEN` readable bytes or to a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn cpu_usage_hook_task_create(tcb: *mut c_void, name: *const c_char) -> u32 {
    if tcb.is_null() {
        return OVERFLOW_ID;
    }
    // SAFETY: the caller's contract.
    let copy = unsafe { name_of(name) };
    // SAFETY: a hook.
    let mut st = unsafe { library() };
    let now = st.now();
    st.start_if_needed(now);
    st.engine.task_create(core(), now, &copy)
}

/// `traceTASK_DELETE`, with the ID the task got at creation. Returns 0, or
/// `CPU_USAGE_ERR_TASK_ID` if the ID is not a live task's (nothing changes then).
///
/// # Safety
/// Called by the hooks header from inside the kernel.
#[no_mangle]
pub unsafe extern "C" fn cpu_usage_hook_task_delete(tcb: *mut c_void, id: u32) -> i32 {
    if tcb.is_null() {
        return St::CPU_USAGE_ERR_NULL.code();
    }
    // SAFETY: a hook.
    let st = unsafe { library() };
    let now = st.now();
    match st.engine.task_delete(core(), now, id) {
        Ok(()) => St::CPU_USAGE_OK.code(),
        Err(_) => St::CPU_USAGE_ERR_TASK_ID.code(),
    }
}

/// `traceTASK_SWITCHED_IN`: the task with this ID runs from `now` on; the one that ran
/// until now is charged up to `now`, a reading of `cpu_usage_clock_read()` the
/// hooks header takes just before (so that the commonest hook calls nothing: it
/// saves no registers around a call).
///
/// # Safety
/// Called by the hooks header from inside the kernel.
#[no_mangle]
pub unsafe extern "C" fn cpu_usage_hook_task_switched_in(now: u32, id: u32) {
    // SAFETY: a hook.
    let st = unsafe { library() };
    st.engine.switch_in(core(), now, id);
}

/// `traceTASK_INCREMENT_TICK`: reads the clock at least once per tick.
///
/// # Safety
/// Called by the hooks header from the tick interrupt.
#[no_mangle]
pub unsafe extern "C" fn cpu_usage_hook_tick() {
    arch::on_tick();
    // SAFETY: a hook.
    let st = unsafe { library() };
    let now = st.now();
    if st.engine.tick(core(), now) {
        #[cfg(feature = "watchdogs")]
        watchdog::deliver_alerts(st);
    }
}

/// An interrupt handler starts: `traceISR_ENTER` and `CPU_USAGE_ISR_ENTER()`. Its
/// time, up to the matching exit, is charged to interrupts, not to the task it
/// interrupted; in nested handlers only the outermost counts.
///
/// # Safety
/// Called by the hooks header's macros, with interrupts masked up to the kernel's
/// priority.
#[no_mangle]
pub unsafe extern "C" fn cpu_usage_hook_isr_enter() {
    arch::on_isr_enter();
    // SAFETY: a hook.
    let st = unsafe { library() };
    // (No check that accounting has started: what the engine does before, the
    // start discards.)
    let now = st.now();
    st.engine.isr_enter(core(), now);
}

/// An interrupt handler ends: `traceISR_EXIT`, `traceISR_EXIT_TO_SCHEDULER` and
/// `CPU_USAGE_ISR_EXIT()`. An exit without an enter is ignored.
///
/// # Safety
/// As `cpu_usage_hook_isr_enter`.
#[no_mangle]
pub unsafe extern "C" fn cpu_usage_hook_isr_exit() {
    // SAFETY: a hook.
    let st = unsafe { library() };
    let now = st.now();
    st.engine.isr_exit(core(), now);
}

/// `traceLOW_POWER_IDLE_BEGIN`: the idle task goes to sleep; until it wakes, time
/// is charged to sleep rather than to idle.
///
/// # Safety
/// Called by the hooks header from the idle task (with the scheduler suspended),
/// with interrupts masked up to the kernel's priority.
#[no_mangle]
pub unsafe extern "C" fn cpu_usage_hook_sleep_begin() {
    // SAFETY: a hook.
    unsafe { once_started(ApiEngine::sleep_begin) };
}

/// `traceLOW_POWER_IDLE_END`: the idle task woke up.
///
/// # Safety
/// As `cpu_usage_hook_sleep_begin`.
#[no_mangle]
pub unsafe extern "C" fn cpu_usage_hook_sleep_end() {
    // SAFETY: a hook.
    unsafe { once_started(ApiEngine::sleep_end) };
}

/// Gives an interrupt or sleep hook's event to the engine at the clock's reading,
/// once accounting has started (an interrupt may come before the scheduler does).
///
/// # Safety
/// Only from a hook.
#[inline(always)]
unsafe fn once_started(event: fn(&mut ApiEngine, usize, u32)) {
    // SAFETY: a hook, by the caller's contract.
    let st = unsafe { library() };
    if st.engine.is_started() {
        let now = st.now();
        event(st.engine, core(), now);
    }
}

/// `traceSTARTING_SCHEDULER`, for the idle task and the timer service task, before
/// `cpu_usage_hook_scheduler_start`: returns the ID the task keeps, which the hooks
/// header stores in its TCB. A task that got an ID at creation keeps it; one that
/// shares the overflow bucket (the application created more tasks than IDs before
/// the scheduler started) takes one of the IDs the library keeps for these two.
/// `running` is non-zero for the task the scheduler starts with. `name` as for
/// `cpu_usage_hook_task_create`.
///
/// # Safety
/// Called by the hooks header from inside the kernel.
#[no_mangle]
pub unsafe extern "C" fn cpu_usage_hook_kernel_task(
    tcb: *mut c_void,
    id: u32,
    name: *const c_char,
    running: u32,
) -> u32 {
    if tcb.is_null() {
        return id;
    }
    // SAFETY: the caller's contract.
    let copy = unsafe { name_of(name) };
    // SAFETY: a hook.
    let st = unsafe { library() };
    st.engine.kernel_task(core(), id, &copy, running != 0)
}

/// The core a hook runs on: the C API's engine has one.
#[inline(always)]
fn core() -> usize {
    0
}

/// A task's name as the engine keeps it: up to `NAME_LEN` bytes, NUL-padded.
///
/// # Safety
/// `name` is NULL, or points to at least `NAME_LEN` readable bytes or to a
/// NUL-terminated string.
unsafe fn name_of(name: *const c_char) -> [u8; NAME_LEN] {
    let mut copy = [0u8; NAME_LEN];
    if !name.is_null() {
        for (i, dst) in copy.iter_mut().enumerate() {
            // SAFETY: within the bound the caller guarantees; stops at the NUL.
            let b = unsafe { *name.cast::<u8>().add(i) };
            if b == 0 {
                break;
            }
            *dst = b;
        }
    }
    copy
}

/// `traceSTARTING_SCHEDULER`: the idle task's ID, `configCPU_CLOCK_HZ` for the
/// default clock of a bare-metal build, and the one setting of the FreeRTOS port the
/// library needs (0 where there is none):
/// - Cortex-M: `configMAX_SYSCALL_INTERRUPT_PRIORITY`, for the critical section: from
///   here on, on cores with BASEPRI (Cortex-M3, M4, M7, M33...), it masks only the
///   interrupts at or below that priority, as the kernel does; with 0, or before this
///   call, and on other cores, it masks all of them.
/// - RISC-V: `configMTIME_BASE_ADDRESS`, where the default clock, the machine timer's
///   `mtime`, is (`configCPU_CLOCK_HZ` being its rate on that port).
///
/// Windows start here.
///
/// # Safety
/// Called by the hooks header from inside the kernel.
#[no_mangle]
pub unsafe extern "C" fn cpu_usage_hook_scheduler_start(idle_id: u32, cpu_hz: u32, port_setting: u32) {
    arch::set_interrupt_mask_level(port_setting);
    // SAFETY: a hook.
    let mut st = unsafe { library() };
    // A clock the application chose (named Custom) is kept.
    if st.config.clock.name != ClockName::Custom {
        let clock = arch::clock_at_scheduler_start(cpu_hz, port_setting);
        if let Some(counts) = arith::window_counts(st.config.window_ms, clock.hz) {
            st.install_clock(clock);
            st.set_window(counts, st.config.window_ms);
        }
    }
    st.engine.scheduler_start(idle_id);
    let now = st.now();
    st.engine.restart(now);
}

// ---- Traced hooks (the `trace` feature; firmware with CPU_USAGE_TRACE 1) --------------
//
// The hooks again, each followed by a record of what it changed in the event trace
// (`crate::trace`). The hooks header calls these instead of the others when the
// firmware defines CPU_USAGE_TRACE to 1.

/// Runs `hook`, then records the window it closed and the change of charged slot
/// it made, if any.
///
/// # Safety
/// Only from a hook.
#[cfg(feature = "trace")]
#[inline(always)]
unsafe fn traced<R>(hook: impl FnOnce() -> R) -> R {
    // SAFETY: a hook; each reference to the state ends before the next is made.
    let from = unsafe { library() }.engine.charged_slot(core());
    let result = hook();
    // SAFETY: as above.
    unsafe { crate::trace::record(library().engine, from) };
    result
}

/// Defines `<hook>_traced` for each hook: the same arguments, the hook, then the
/// trace's record (and `before`, if given, first).
macro_rules! traced_hooks {
    ($($hook:ident => $name:ident($($arg:ident: $ty:ty),*) $(-> $ret:ty)? $(, before $before:path)?;)*) => {$(
        #[doc = concat!("`", stringify!($hook), "`, traced.")]
        ///
        /// # Safety
        #[doc = concat!("As `", stringify!($hook), "`.")]
        #[cfg(feature = "trace")]
        #[no_mangle]
        pub unsafe extern "C" fn $name($($arg: $ty),*) $(-> $ret)? {
            $($before();)?
            // SAFETY: forwarded contract.
            unsafe { traced(|| $hook($($arg),*)) }
        }
    )*};
}

traced_hooks! {
    cpu_usage_hook_task_create => cpu_usage_hook_task_create_traced(tcb: *mut c_void, name: *const c_char) -> u32;
    cpu_usage_hook_task_delete => cpu_usage_hook_task_delete_traced(tcb: *mut c_void, id: u32) -> i32;
    cpu_usage_hook_task_switched_in => cpu_usage_hook_task_switched_in_traced(now: u32, id: u32);
    cpu_usage_hook_tick => cpu_usage_hook_tick_traced(), before crate::trace::tick_seen;
    cpu_usage_hook_isr_enter => cpu_usage_hook_isr_enter_traced();
    cpu_usage_hook_isr_exit => cpu_usage_hook_isr_exit_traced();
    cpu_usage_hook_sleep_begin => cpu_usage_hook_sleep_begin_traced();
    cpu_usage_hook_sleep_end => cpu_usage_hook_sleep_end_traced();
}
