//! The hooks: what the kernel's trace macros call (`freertos_cpu_usage_hooks.h`).
//!
//! This is the hot path's C side. Each hook reads the clock once and hands the
//! reading to the engine ([`crate::engine`], where the accounting reads top to
//! bottom); none allocates, divides, loops over tasks or can panic. The kernel calls
//! them with interrupts masked up to its priority, so they run one at a time and are
//! the only writers of the accounting state (on several cores, with its ISR lock
//! held too: see "Several cores" below).

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
    // SAFETY: forwarded contract; one core.
    unsafe { task_create_on(0, tcb, name) }
}

/// `cpu_usage_hook_task_create` on core `k`.
///
/// # Safety
/// As `cpu_usage_hook_task_create`.
#[inline(always)]
unsafe fn task_create_on(k: usize, tcb: *mut c_void, name: *const c_char) -> u32 {
    if tcb.is_null() {
        return OVERFLOW_ID;
    }
    // SAFETY: the caller's contract.
    let copy = unsafe { name_of(name) };
    // SAFETY: a hook.
    let mut st = unsafe { library() };
    let now = st.now();
    st.start_if_needed(now);
    st.engine.task_create(k, now, &copy)
}

/// `traceTASK_DELETE`, with the ID the task got at creation. Returns 0, or
/// `CPU_USAGE_ERR_TASK_ID` if the ID is not a live task's (nothing changes then).
///
/// # Safety
/// Called by the hooks header from inside the kernel.
#[no_mangle]
pub unsafe extern "C" fn cpu_usage_hook_task_delete(tcb: *mut c_void, id: u32) -> i32 {
    // SAFETY: forwarded contract; one core.
    unsafe { task_delete_on(0, tcb, id) }
}

/// `cpu_usage_hook_task_delete` on core `k`.
///
/// # Safety
/// As `cpu_usage_hook_task_delete`.
#[inline(always)]
unsafe fn task_delete_on(k: usize, tcb: *mut c_void, id: u32) -> i32 {
    if tcb.is_null() {
        return St::CPU_USAGE_ERR_NULL.code();
    }
    // SAFETY: a hook.
    let st = unsafe { library() };
    let now = st.now();
    match st.engine.task_delete(k, now, id) {
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
    st.engine.switch_in(0, now, id);
}

/// `traceTASK_INCREMENT_TICK`: reads the clock at least once per tick.
///
/// # Safety
/// Called by the hooks header from the tick interrupt.
#[no_mangle]
pub unsafe extern "C" fn cpu_usage_hook_tick() {
    // SAFETY: forwarded contract; one core.
    unsafe { tick_on(0) }
}

/// `cpu_usage_hook_tick` on core `k`.
///
/// # Safety
/// As `cpu_usage_hook_tick`.
#[inline(always)]
unsafe fn tick_on(k: usize) {
    arch::on_tick();
    // SAFETY: a hook.
    let st = unsafe { library() };
    let now = st.now();
    if st.engine.tick(k, now) {
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
    // SAFETY: forwarded contract; one core.
    unsafe { isr_enter_on(0) }
}

/// `cpu_usage_hook_isr_enter` on core `k`.
///
/// # Safety
/// As `cpu_usage_hook_isr_enter`.
#[inline(always)]
unsafe fn isr_enter_on(k: usize) {
    arch::on_isr_enter();
    // SAFETY: a hook.
    let st = unsafe { library() };
    // (No check that accounting has started: what the engine does before, the
    // start discards.)
    let now = st.now();
    st.engine.isr_enter(k, now);
}

/// `cpu_usage_hook_isr_enter` on core `k` at the clock's reading `now`.
///
/// # Safety
/// As `cpu_usage_hook_isr_enter`.
#[cfg(cpu_usage_smp)]
#[inline(always)]
unsafe fn isr_enter_at(k: usize, now: u32) {
    arch::on_isr_enter();
    // SAFETY: a hook.
    unsafe { library() }.engine.isr_enter(k, now);
}

/// An interrupt handler ends: `traceISR_EXIT`, `traceISR_EXIT_TO_SCHEDULER` and
/// `CPU_USAGE_ISR_EXIT()`. An exit without an enter is ignored.
///
/// # Safety
/// As `cpu_usage_hook_isr_enter`.
#[no_mangle]
pub unsafe extern "C" fn cpu_usage_hook_isr_exit() {
    // SAFETY: forwarded contract; one core.
    unsafe { isr_exit_on(0) }
}

/// `cpu_usage_hook_isr_exit` on core `k`.
///
/// # Safety
/// As `cpu_usage_hook_isr_exit`.
#[inline(always)]
unsafe fn isr_exit_on(k: usize) {
    // SAFETY: a hook.
    let st = unsafe { library() };
    let now = st.now();
    st.engine.isr_exit(k, now);
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
    unsafe { once_started(0, ApiEngine::sleep_begin) };
}

/// `traceLOW_POWER_IDLE_END`: the idle task woke up.
///
/// # Safety
/// As `cpu_usage_hook_sleep_begin`.
#[no_mangle]
pub unsafe extern "C" fn cpu_usage_hook_sleep_end() {
    // SAFETY: a hook.
    unsafe { once_started(0, ApiEngine::sleep_end) };
}

/// Gives a sleep hook's event on core `k` to the engine at the clock's reading, once
/// accounting has started.
///
/// # Safety
/// Only from a hook.
#[inline(always)]
unsafe fn once_started(k: usize, event: fn(&mut ApiEngine, usize, u32)) {
    // SAFETY: a hook, by the caller's contract.
    let st = unsafe { library() };
    if st.engine.is_started() {
        let now = st.now();
        event(st.engine, k, now);
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
    st.engine.kernel_task(0, id, &copy, running != 0)
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
    super::readout::keep();
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

// ---- Several cores (a build with CPU_USAGE_CORES > 1) -----------------------------------
//
// On an SMP kernel (configNUMBER_OF_CORES > 1) the hooks header calls these instead,
// with the core the macro runs on (`portGET_CORE_ID()`). Each does what its one-core
// twin does, on that core's running state. They run one at a time: the kernel holds
// its ISR lock around the switch, the tick, creates and deletes, and the hooks header
// takes it (`taskENTER_CRITICAL_FROM_ISR()`) around the interrupt and sleep hooks,
// which the kernel calls without it; the library's readers take it too (`arch`). So
// each reads the clock, one clock for all cores, after every hook before it.

/// `cpu_usage_hook_task_create` on core `core`.
///
/// # Safety
/// As `cpu_usage_hook_task_create`, on an SMP kernel.
#[cfg(cpu_usage_smp)]
#[no_mangle]
pub unsafe extern "C" fn cpu_usage_hook_smp_task_create(core: u32, tcb: *mut c_void, name: *const c_char) -> u32 {
    // SAFETY: forwarded contract.
    unsafe { task_create_on(core as usize, tcb, name) }
}

/// `cpu_usage_hook_task_delete` on core `core` (the task may run on another: it is
/// charged there until that core switches it out).
///
/// # Safety
/// As `cpu_usage_hook_task_delete`, on an SMP kernel.
#[cfg(cpu_usage_smp)]
#[no_mangle]
pub unsafe extern "C" fn cpu_usage_hook_smp_task_delete(core: u32, tcb: *mut c_void, id: u32) -> i32 {
    // SAFETY: forwarded contract.
    unsafe { task_delete_on(core as usize, tcb, id) }
}

/// `cpu_usage_hook_task_switched_in` on core `core`. (The hooks header reads the clock
/// inside the kernel's lock, which the switch holds.)
///
/// # Safety
/// As `cpu_usage_hook_task_switched_in`, on an SMP kernel.
#[cfg(cpu_usage_smp)]
#[no_mangle]
pub unsafe extern "C" fn cpu_usage_hook_smp_task_switched_in(core: u32, now: u32, id: u32) {
    // SAFETY: a hook.
    let st = unsafe { library() };
    st.engine.switch_in(core as usize, now, id);
}

/// `cpu_usage_hook_tick` on core `core`.
///
/// # Safety
/// As `cpu_usage_hook_tick`, on an SMP kernel.
#[cfg(cpu_usage_smp)]
#[no_mangle]
pub unsafe extern "C" fn cpu_usage_hook_smp_tick(core: u32) {
    // SAFETY: forwarded contract.
    unsafe { tick_on(core as usize) }
}

/// `cpu_usage_hook_isr_enter` on core `core`, at the clock's reading `now`: its
/// interrupts line. The hooks header reads the clock before it takes the kernel's
/// ISR lock, so that time spent waiting for the lock is not the handler's. (A
/// reading older than the core's last event, as when a nested handler came in
/// between, counts as that event's time.)
///
/// # Safety
/// As `cpu_usage_hook_isr_enter`, on an SMP kernel, with the kernel's ISR lock held.
#[cfg(cpu_usage_smp)]
#[no_mangle]
pub unsafe extern "C" fn cpu_usage_hook_smp_isr_enter(core: u32, now: u32) {
    // SAFETY: forwarded contract.
    unsafe { isr_enter_at(core as usize, now) }
}

/// `cpu_usage_hook_isr_exit` on core `core`, at the clock's reading `now` (taken
/// as for `cpu_usage_hook_smp_isr_enter`).
///
/// # Safety
/// As `cpu_usage_hook_isr_exit`, on an SMP kernel, with the kernel's ISR lock held.
#[cfg(cpu_usage_smp)]
#[no_mangle]
pub unsafe extern "C" fn cpu_usage_hook_smp_isr_exit(core: u32, now: u32) {
    // SAFETY: a hook, by the caller's contract.
    unsafe { library() }.engine.isr_exit(core as usize, now);
}

/// `cpu_usage_hook_sleep_begin` on core `core`, at the clock's reading `now` (taken
/// as for `cpu_usage_hook_smp_isr_enter`): its sleep line.
///
/// # Safety
/// As `cpu_usage_hook_sleep_begin`, on an SMP kernel, with the kernel's ISR lock held.
#[cfg(cpu_usage_smp)]
#[no_mangle]
pub unsafe extern "C" fn cpu_usage_hook_smp_sleep_begin(core: u32, now: u32) {
    // SAFETY: a hook.
    unsafe { once_started_at(core as usize, now, ApiEngine::sleep_begin) };
}

/// `cpu_usage_hook_sleep_end` on core `core`, at the clock's reading `now`.
///
/// # Safety
/// As `cpu_usage_hook_sleep_end`, on an SMP kernel, with the kernel's ISR lock held.
#[cfg(cpu_usage_smp)]
#[no_mangle]
pub unsafe extern "C" fn cpu_usage_hook_smp_sleep_end(core: u32, now: u32) {
    // SAFETY: a hook.
    unsafe { once_started_at(core as usize, now, ApiEngine::sleep_end) };
}

/// Gives a sleep hook's event on core `k` at the reading `now` to the engine, once
/// accounting has started.
///
/// # Safety
/// Only from a hook.
#[cfg(cpu_usage_smp)]
#[inline(always)]
unsafe fn once_started_at(k: usize, now: u32, event: fn(&mut ApiEngine, usize, u32)) {
    // SAFETY: a hook, by the caller's contract.
    let st = unsafe { library() };
    if st.engine.is_started() {
        event(st.engine, k, now);
    }
}

/// `traceSTARTING_SCHEDULER`, for each idle task of an SMP kernel (one per core, none
/// bound to a core), before `cpu_usage_hook_scheduler_start`: returns the ID it keeps,
/// the one all idle tasks share, which charges the idle line of the core that runs it.
/// `name` as for `cpu_usage_hook_task_create` (not kept: the idle lines are the cores').
///
/// # Safety
/// Called by the hooks header from inside the kernel.
#[cfg(cpu_usage_smp)]
#[no_mangle]
pub unsafe extern "C" fn cpu_usage_hook_smp_idle_task(tcb: *mut c_void, id: u32, name: *const c_char) -> u32 {
    if tcb.is_null() {
        return id;
    }
    // SAFETY: the caller's contract.
    let copy = unsafe { name_of(name) };
    // SAFETY: a hook.
    let st = unsafe { library() };
    st.engine.idle_task(0, id, &copy, false)
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
    let from = unsafe { library() }.engine.charged_slot(0);
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
