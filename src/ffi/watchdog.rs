//! The watchdogs: a load held above a threshold, a task running too long in one go.
//! Their thresholds and the callback come with the `watchdogs` feature (in the
//! default build, and on top of the minimal one); the shell command that sets and
//! shows them with the `shell` feature.

#[cfg(feature = "shell")]
use core::ffi::c_int;
use core::ffi::{c_char, c_void};

#[cfg(feature = "shell")]
use super::sink;
use super::status::cpu_usage_status as St;
use super::{with_library, Library, CPU_USAGE_NAME_BUF};
use crate::engine::{arith, Alert, AlertKind, NAME_LEN};
#[cfg(feature = "shell")]
use crate::report::{self, BadArgs, Sink, WatchCmd};

/// Which watchdog tripped.
#[repr(C)]
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum cpu_usage_alert_kind {
    /// The load stayed above its threshold for the windows set.
    CPU_USAGE_ALERT_LOAD = 1,
    /// A task ran longer in one go than the slice threshold.
    CPU_USAGE_ALERT_SLICE = 2,
}

/// What a watchdog saw, passed to the callback set with
/// `cpu_usage_watchdog_set_callback`.
#[repr(C)]
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug)]
pub struct cpu_usage_alert {
    /// Which watchdog.
    pub kind: cpu_usage_alert_kind,
    /// The window that completed the trip (as `show_cpu_usage` numbers them).
    pub window: u32,
    /// Load: that window's load in hundredths of a percent. Slice: the run's
    /// length in microseconds.
    pub value: u32,
    /// The threshold crossed, in the same unit as `value`.
    pub threshold: u32,
    /// Slice: the task's ID (0 for tasks sharing the overflow bucket). Load: 0.
    pub task_id: u32,
    /// Slice: the task's name, NUL-terminated. Load: empty.
    pub task_name: [c_char; CPU_USAGE_NAME_BUF],
}

/// The application's watchdog callback.
pub(super) type AlertFn = unsafe extern "C" fn(alert: *const cpu_usage_alert, ctx: *mut c_void);

/// Calls the application's watchdog callback for each tripped watchdog (from the
/// tick hook; out of its line: it runs once per trip).
#[cold]
#[inline(never)]
pub(super) fn deliver_alerts(st: Library<'_>) {
    let Some(callback) = st.config.alert else {
        // Nobody to tell: drop them, so they are not delivered late.
        while st.engine.take_alert().is_some() {}
        return;
    };
    let hz = st.config.clock.hz;
    let load_pct = st.engine.watchdogs().0;
    let mut pending = [None; 2];
    for p in pending.iter_mut() {
        *p = st.engine.take_alert().map(|a| alert_for_c(&a, hz, load_pct));
    }
    let ctx = st.config.alert_ctx;
    for alert in pending.iter().flatten() {
        // SAFETY: the application's function, given a pointer valid for the call.
        unsafe { callback(alert, ctx) };
    }
}

fn alert_for_c(a: &Alert, hz: u32, load_pct: u32) -> cpu_usage_alert {
    // The tasks sharing ID 0 have no name of their own: they are "(overflow)", as
    // in the reports.
    let name: &[u8] = if a.kind == AlertKind::Slice && a.id == 0 { b"(overflow)" } else { &a.name };
    let mut task_name = [0 as c_char; CPU_USAGE_NAME_BUF];
    for (dst, &src) in task_name.iter_mut().zip(name.iter().take(NAME_LEN)) {
        *dst = src as c_char;
    }
    let us = |counts: u32| u32::try_from(arith::counts_to_us(u64::from(counts), hz)).unwrap_or(u32::MAX);
    match a.kind {
        AlertKind::Load => cpu_usage_alert {
            kind: cpu_usage_alert_kind::CPU_USAGE_ALERT_LOAD,
            window: a.window,
            value: u32::from(arith::pct_of(u64::from(a.value), u64::from(a.limit))),
            threshold: load_pct,
            task_id: 0,
            task_name,
        },
        AlertKind::Slice => cpu_usage_alert {
            kind: cpu_usage_alert_kind::CPU_USAGE_ALERT_SLICE,
            window: a.window,
            value: us(a.value),
            threshold: us(a.limit),
            task_id: u32::from(a.id),
            task_name,
        },
    }
}

/// Turns the load watchdog on: it trips when the load (everything but idle and
/// sleep) is above `pct_hundredths` (hundredths of a percent: 8000 is 80%) for
/// `windows` windows in a row, and again only after a window at or below it.
/// `windows` 0 turns it off. Returns 0 or `CPU_USAGE_ERR_RANGE` (above 10000).
/// (The `watchdogs` feature.)
#[no_mangle]
pub extern "C" fn cpu_usage_watchdog_set_load(pct_hundredths: u32, windows: u32) -> i32 {
    if pct_hundredths > 10_000 {
        return St::CPU_USAGE_ERR_RANGE.code();
    }
    with_library(|st| st.engine.set_load_watchdog(pct_hundredths, windows));
    St::CPU_USAGE_OK.code()
}

/// Turns the slice watchdog on: it trips when a task runs longer than `us`
/// microseconds in one go (interrupts and sleep inside the run not counted), in a
/// window after one where none did. 0 turns it off. Returns 0 or
/// `CPU_USAGE_ERR_RANGE` (longer than the clock's 32-bit range). (The `watchdogs`
/// feature.)
#[no_mangle]
pub extern "C" fn cpu_usage_watchdog_set_slice_us(us: u32) -> i32 {
    with_library(|mut st| {
        let old = st.config.slice_us;
        st.config.slice_us = us;
        if st.apply_slice_watchdog() {
            St::CPU_USAGE_OK.code()
        } else {
            st.config.slice_us = old;
            St::CPU_USAGE_ERR_RANGE.code()
        }
    })
}

/// Sets the function called when a watchdog trips, with `ctx` passed back; NULL
/// stops the calls (tripped watchdogs are then dropped). It is called from the
/// tick interrupt (within a tick of the window's end, as `vApplicationTickHook`
/// is): keep it short and use only the `FromISR` kernel API there; of this
/// library's functions it may call the `cpu_usage_watchdog_set_*` ones (to turn a
/// watchdog off, say). The slice watchdog names the tasks sharing ID 0
/// "(overflow)". Returns 0. (The `watchdogs` feature.)
#[no_mangle]
pub extern "C" fn cpu_usage_watchdog_set_callback(
    callback: Option<unsafe extern "C" fn(alert: *const cpu_usage_alert, ctx: *mut c_void)>,
    ctx: *mut c_void,
) -> i32 {
    with_library(|st| {
        st.config.alert = callback;
        st.config.alert_ctx = ctx;
    });
    St::CPU_USAGE_OK.code()
}

// ---- The shell command (the `shell` feature) ----------------------------------------

/// The shell command `cpu_usage_watchdog` (the `shell` feature): `load <pct> <windows>`, `slice <us>`,
/// `load off`, `slice off`, `off`, or nothing to print the settings (it prints
/// them after a change too). Output goes where `show_cpu_usage`'s does. Returns 0,
/// or prints what is wrong and returns `CPU_USAGE_ERR_OPTION`,
/// `CPU_USAGE_ERR_NULL`, `CPU_USAGE_ERR_RANGE` or `CPU_USAGE_ERR_NO_OUTPUT`.
///
/// # Safety
/// As `show_cpu_usage`.
#[cfg(feature = "shell")]
#[no_mangle]
pub unsafe extern "C" fn cpu_usage_watchdog(argc: c_int, argv: *mut *mut c_char) -> c_int {
    // SAFETY: forwarded contract.
    unsafe {
        sink::command(argc, argv, b"cpu_usage_watchdog", |out, args| run(out, report::parse_watchdog(args.words())))
    }
}

#[cfg(feature = "shell")]
fn run(out: &mut dyn Sink, cmd: Result<WatchCmd, BadArgs>) -> i32 {
    let status = match cmd {
        Err(bad) => {
            report::write_watchdog_error(out, &bad);
            return St::CPU_USAGE_ERR_OPTION.code();
        }
        Ok(WatchCmd::Status) => 0,
        Ok(WatchCmd::Off) => {
            cpu_usage_watchdog_set_load(0, 0);
            cpu_usage_watchdog_set_slice_us(0)
        }
        Ok(WatchCmd::Load(load)) => {
            let (pct, windows) = load.unwrap_or((0, 0));
            cpu_usage_watchdog_set_load(pct, windows)
        }
        Ok(WatchCmd::Slice(us)) => cpu_usage_watchdog_set_slice_us(us.unwrap_or(0)),
    };
    if status != 0 {
        sink::write_bad_args(out, b"cpu_usage_watchdog", St::CPU_USAGE_ERR_RANGE);
        return status;
    }
    let (load, slice_us) = with_library(|st| {
        let (pct, windows, _) = st.engine.watchdogs();
        ((windows != 0).then_some((pct, windows)), (st.config.slice_us != 0).then_some(st.config.slice_us))
    });
    report::write_watchdog_status(out, load, slice_us);
    0
}
