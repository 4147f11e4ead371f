//! C API tests through the exported functions, on a simulated clock.
//!
//! The library has one global state, so these tests take a lock and reset what they
//! change. The same API is exercised from C under ASan/UBSan by the harness crate.

use super::status::cpu_usage_status as St;
use super::*;
use crate::engine::arith::{smoothing_keep, window_counts, MAX_WINDOW_MS};
use crate::engine::MAX_WINDOW_COUNTS;
use core::ffi::{c_char, c_int};
use core::sync::atomic::{AtomicU32, Ordering};
use std::ffi::CString;
use std::sync::Mutex;

static SERIAL: Mutex<()> = Mutex::new(());
pub(super) static NOW: AtomicU32 = AtomicU32::new(0);

pub(super) unsafe extern "C" fn fake_clock() -> u32 {
    NOW.load(Ordering::Relaxed)
}

const HZ: u32 = 1_000_000;

pub(super) fn lock() -> std::sync::MutexGuard<'static, ()> {
    let guard = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    assert_eq!(cpu_usage_set_window_ms(1000), 0);
    assert_eq!(cpu_usage_set_clock(Some(fake_clock), HZ), 0);
    guard
}

pub(super) fn format(args: &[&str]) -> (i32, String) {
    let owned: Vec<CString> = args.iter().map(|a| CString::new(*a).unwrap()).collect();
    let mut argv: Vec<*mut c_char> = owned.iter().map(|a| a.as_ptr().cast_mut()).collect();
    let mut buf = vec![0u8; 8192];
    // SAFETY: valid buffer and argv for the call.
    let n = unsafe { cpu_usage_format(buf.as_mut_ptr().cast(), buf.len(), argv.len() as c_int, argv.as_mut_ptr()) };
    let end = buf.iter().position(|&b| b == 0).unwrap();
    (n, String::from_utf8(buf[..end].to_vec()).unwrap())
}

pub(super) fn advance(counts: u32) {
    NOW.fetch_add(counts, Ordering::Relaxed);
}

#[test]
fn windows_are_rejected_when_zero_huge_or_too_long_for_the_clock() {
    let _g = lock();
    assert_eq!(cpu_usage_set_window_ms(0), St::CPU_USAGE_ERR_WINDOW.code());
    assert_eq!(cpu_usage_set_window_ms(3_600_001), St::CPU_USAGE_ERR_WINDOW.code());
    assert_eq!(cpu_usage_set_window_ms(u32::MAX), St::CPU_USAGE_ERR_WINDOW.code());
    assert_eq!(cpu_usage_window_ms(), 1000, "a refused window changes nothing");
    // At 1 MHz a window may be 2^31 counts: 2147 s.
    assert_eq!(cpu_usage_set_window_ms(2_147_483), 0);
    assert_eq!(cpu_usage_set_window_ms(2_147_484), St::CPU_USAGE_ERR_WINDOW.code());
    assert_eq!(cpu_usage_set_window_ms(1), 0);
    assert_eq!(cpu_usage_window_ms(), 1);
    // A clock too fast for the window in force is refused, and changes nothing.
    assert_eq!(cpu_usage_set_window_ms(2000), 0);
    assert_eq!(cpu_usage_set_clock(Some(fake_clock), 2_000_000_000), St::CPU_USAGE_ERR_WINDOW.code());
    assert_eq!(cpu_usage_set_clock(None, HZ), St::CPU_USAGE_ERR_NULL.code());
    assert_eq!(cpu_usage_set_clock(Some(fake_clock), 0), St::CPU_USAGE_ERR_CLOCK.code());
    assert_eq!(cpu_usage_clock_hz(), HZ, "a refused clock changes nothing");
    assert_eq!(cpu_usage_set_clock(Some(fake_clock), 4 * HZ), 0);
    assert_eq!(cpu_usage_clock_hz(), 4 * HZ);
    assert_eq!(cpu_usage_set_clock(Some(fake_clock), HZ), 0);
    assert_eq!(cpu_usage_set_output(None), St::CPU_USAGE_ERR_NULL.code());
    assert_eq!(cpu_usage_set_window_ms(1000), 0);
}

#[test]
fn a_report_of_hooked_tasks() {
    let _g = lock();
    let name = CString::new("worker").unwrap();
    let tcb = 0x1000 as *mut c_void;
    // SAFETY: hooks called as the kernel would, one at a time.
    unsafe {
        let id = cpu_usage_hook_task_create(tcb, name.as_ptr());
        let idle = cpu_usage_hook_task_create(0x2000 as *mut c_void, c"IDLE".as_ptr());
        cpu_usage_hook_task_switched_in(cpu_usage_clock_read(), id);
        cpu_usage_hook_scheduler_start(idle, 0, 0);
        advance(250_000);
        cpu_usage_hook_task_switched_in(cpu_usage_clock_read(), idle);
        for _ in 0..750 {
            advance(1000);
            cpu_usage_hook_tick();
        }
        let (status, json) = format(&["show_cpu_usage", "-m"]);
        assert_eq!(status as usize, json.len());
        assert!(
            json.contains(&format!(
                "{{\"id\":{id},\"name\":\"worker\",\"counts\":250000,\"usage_pct\":25.00,\"deleted\":false,\
                 \"switches\":1,\"longest_slice_us\":250000}}"
            )),
            "{json}"
        );
        assert!(json.contains("\"idle_pct\":75.00,\"load_pct\":25.00,\"load_avg_pct\":[25.00,25.00,25.00]}"), "{json}");
        assert_eq!(cpu_usage_hook_task_delete(tcb, id), 0);
        assert_eq!(cpu_usage_hook_task_delete(tcb, id), St::CPU_USAGE_ERR_TASK_ID.code());
        assert_eq!(cpu_usage_hook_task_delete(core::ptr::null_mut(), idle), St::CPU_USAGE_ERR_NULL.code());
        assert_eq!(cpu_usage_hook_task_delete(0x2000 as *mut c_void, idle), 0);
    }
}

#[test]
fn the_rust_api_reads_what_the_report_shows() {
    use crate::api::{Report, Usage};
    let _g = lock();
    let tcb = 0x1100 as *mut c_void;
    // SAFETY: hooks called as the kernel would, one at a time.
    let (id, idle) = unsafe {
        let id = cpu_usage_hook_task_create(tcb, c"worker".as_ptr());
        let idle = cpu_usage_hook_task_create(0x2100 as *mut c_void, c"IDLE".as_ptr());
        cpu_usage_hook_task_switched_in(cpu_usage_clock_read(), id);
        cpu_usage_hook_scheduler_start(idle, 0, 0);
        advance(250_000);
        cpu_usage_hook_task_switched_in(cpu_usage_clock_read(), idle);
        advance(750_000);
        cpu_usage_hook_tick();
        (id, idle)
    };
    let usage = Usage::last_window().unwrap();
    let tasks = usage.tasks();
    // (Tasks other tests left alive have their lines, and no time.)
    let worker = tasks.iter().find(|t| u32::from(t.id()) == id).expect("the worker's line");
    assert!(tasks.iter().all(|t| t.id() == worker.id() || t.counts() == 0), "{tasks:?}");
    assert_eq!((u32::from(worker.id()), worker.name(), worker.counts()), (id, "worker", 250_000));
    assert_eq!((worker.share().hundredths(), worker.runs(), worker.longest_run_us()), (2500, 1, 250_000));
    assert_eq!((usage.idle().share().hundredths(), usage.load().hundredths()), (7500, 2500));
    assert_eq!((usage.counts(), usage.length_us(), usage.window()), (1_000_000, 1_000_000, 0));
    assert_eq!(usage.cores()[0].busy.hundredths(), 2500);
    assert_eq!(usage.load_avg().map(|a| a.map(|s| s.hundredths())), [Some(2500); 3]);
    assert_eq!(worker.share().to_string(), "25.00%");
    // The report, as the shell's.
    let mut json = String::new();
    Report::json().write_to(&mut json).unwrap();
    assert_eq!(json, format(&["show_cpu_usage", "-m"]).1);
    // Since start, a deleted task is summed with the tasks no longer listed.
    // SAFETY: as above.
    unsafe {
        assert_eq!(cpu_usage_hook_task_delete(tcb, id), 0);
        advance(1_000_000);
        cpu_usage_hook_tick();
    }
    let since = Usage::since_start().unwrap();
    assert!(since.tasks().iter().all(|t| u32::from(t.id()) != id && t.counts() == 0), "{:?}", since.tasks());
    assert_eq!((since.unlisted().counts(), since.idle().counts()), (250_000, 1_750_000));
    assert_eq!(since.unlisted().share().hundredths() + since.idle().share().hundredths(), 10_000);
    // SAFETY: as above.
    unsafe { assert_eq!(cpu_usage_hook_task_delete(0x2100 as *mut c_void, idle), 0) };
}

#[test]
fn buffers_get_snprintf_semantics() {
    let _g = lock();
    let (full_len, full) = format(&["show_cpu_usage", "-h"]);
    assert!(full_len > 20 && full.len() == full_len as usize);
    let arg0 = CString::new("show_cpu_usage").unwrap();
    let arg1 = CString::new("-h").unwrap();
    let mut argv = [arg0.as_ptr().cast_mut(), arg1.as_ptr().cast_mut()];
    for len in [1usize, 2, 7, full_len as usize, full_len as usize + 1] {
        let mut buf = vec![0xAAu8; len + 8];
        // SAFETY: buf is writable for `len` bytes (and more, to catch an overrun).
        let n = unsafe { cpu_usage_format(buf.as_mut_ptr().cast(), len, 2, argv.as_mut_ptr()) };
        assert_eq!(n, full_len, "len {len}");
        let kept = (len - 1).min(full_len as usize);
        assert_eq!(&buf[..kept], &full.as_bytes()[..kept]);
        assert_eq!(buf[kept], 0, "NUL-terminated at {kept}");
        assert!(buf[len..].iter().all(|&b| b == 0xAA), "nothing written past len {len}");
    }
    // SAFETY: NULL with length 0 asks for the length only; NULL with a length is refused.
    unsafe {
        assert_eq!(cpu_usage_format(core::ptr::null_mut(), 0, 2, argv.as_mut_ptr()), full_len);
        assert_eq!(cpu_usage_format(core::ptr::null_mut(), 5, 2, argv.as_mut_ptr()), St::CPU_USAGE_ERR_NULL.code());
    }
}

#[test]
fn bad_arguments_are_reported_not_followed() {
    let _g = lock();
    let (status, text) = format(&["show_cpu_usage", "-z"]);
    assert_eq!(status, St::CPU_USAGE_ERR_OPTION.code());
    assert!(text.starts_with("show_cpu_usage: unknown option \"-z\"\nusage:"), "{text}");
    let mut buf = [0u8; 256];
    let long = [b'-'; 100]; // no NUL within the 64 bytes the library reads
    let mut argv = [c"show_cpu_usage".as_ptr().cast_mut(), long.as_ptr().cast_mut().cast()];
    // SAFETY: `long` is readable for 100 bytes; the library stops at 64.
    let status = unsafe { cpu_usage_format(buf.as_mut_ptr().cast(), buf.len(), 2, argv.as_mut_ptr()) };
    assert_eq!(status, St::CPU_USAGE_ERR_OPTION.code());
    let mut with_null = [c"show_cpu_usage".as_ptr().cast_mut(), core::ptr::null_mut()];
    // SAFETY: NULL arguments are refused before use.
    unsafe {
        assert_eq!(
            cpu_usage_format(buf.as_mut_ptr().cast(), buf.len(), 2, with_null.as_mut_ptr()),
            St::CPU_USAGE_ERR_NULL.code()
        );
        assert_eq!(
            cpu_usage_format(buf.as_mut_ptr().cast(), buf.len(), 2, core::ptr::null_mut()),
            St::CPU_USAGE_ERR_NULL.code()
        );
        // argc 0 or 1 needs no argv at all.
        for argc in [0, 1] {
            let status = cpu_usage_format(buf.as_mut_ptr().cast(), buf.len(), argc, core::ptr::null_mut());
            assert_ne!(status, St::CPU_USAGE_ERR_NULL.code());
        }
    }
}

#[test]
fn status_strings_exist_for_every_code() {
    for code in [0, -7001, -7002, -7003, -7004, -7005, -7006, -7007, -7008, -7009, 12345] {
        // SAFETY: never NULL, always NUL-terminated.
        let text = unsafe { core::ffi::CStr::from_ptr(cpu_usage_status_str(code)) };
        assert!(!text.to_bytes().is_empty());
    }
    assert_eq!(cpu_usage_abi_version(), crate::settings::ABI_VERSION);
}

#[test]
fn window_counts_are_exact_without_a_64_bit_division() {
    for ms in [0, 1, 7, 999, 1000, 1001, 2_147_483, 2_147_484, MAX_WINDOW_MS, MAX_WINDOW_MS + 1, u32::MAX] {
        for hz in [0, 1, 999, 1000, 1001, 32_768, 1_000_000, 25_000_000, 999_999_999, 2_000_000_000, u32::MAX] {
            let counts = u64::from(ms) * u64::from(hz) / 1000;
            let valid = ms != 0 && ms <= MAX_WINDOW_MS && counts != 0 && counts <= u64::from(MAX_WINDOW_COUNTS);
            assert_eq!(window_counts(ms, hz), valid.then_some(counts as u32), "{ms} ms at {hz} Hz");
        }
    }
}

#[test]
fn every_argument_is_checked_before_any_is_parsed() {
    let _g = lock();
    let mut buf = [0u8; 512];
    let mut bad_then_null = [c"show_cpu_usage".as_ptr().cast_mut(), c"-z".as_ptr().cast_mut(), core::ptr::null_mut()];
    let mut nine = [c"-m".as_ptr().cast_mut(); 10];
    // SAFETY: readable argv arrays of the lengths given; NULL entries are refused before use.
    unsafe {
        let status = cpu_usage_format(buf.as_mut_ptr().cast(), buf.len(), 3, bad_then_null.as_mut_ptr());
        assert_eq!(status, St::CPU_USAGE_ERR_NULL.code());
        let status = cpu_usage_format(buf.as_mut_ptr().cast(), buf.len(), 9, nine.as_mut_ptr());
        // (No window has completed since `lock` set the clock.)
        assert_eq!(status, St::CPU_USAGE_ERR_NO_WINDOW.code(), "8 arguments are fine");
        let status = cpu_usage_format(buf.as_mut_ptr().cast(), buf.len(), 10, nine.as_mut_ptr());
        assert_eq!(status, St::CPU_USAGE_ERR_OPTION.code(), "9 are too many");
    }
    let text = String::from_utf8_lossy(&buf[..buf.iter().position(|&b| b == 0).unwrap()]).into_owned();
    assert_eq!(text, "show_cpu_usage: bad arguments: unknown option\n");
}

static ALERTS: Mutex<Vec<cpu_usage_alert>> = Mutex::new(Vec::new());

unsafe extern "C" fn record_alert(alert: *const cpu_usage_alert, ctx: *mut c_void) {
    assert_eq!(ctx as usize, 0x5a5a, "the context comes back");
    // SAFETY: the library passes a valid alert for the call.
    ALERTS.lock().unwrap_or_else(|e| e.into_inner()).push(unsafe { *alert });
}

/// One window of 1 s at 1 MHz, from scheduler start: worker 250 ms (an interrupt of
/// 50 ms inside it), then idle 400 ms and asleep 290 ms (an interrupt of 10 ms
/// inside the sleep). Returns (worker, idle) IDs.
fn interrupts_and_sleep_window() -> (u32, u32) {
    let worker_tcb = 0x3000 as *mut c_void;
    let idle_tcb = 0x4000 as *mut c_void;
    // SAFETY: hooks called as the kernel would, one at a time.
    unsafe {
        let worker = cpu_usage_hook_task_create(worker_tcb, c"worker2".as_ptr());
        let idle = cpu_usage_hook_task_create(idle_tcb, c"IDLE".as_ptr());
        cpu_usage_hook_task_switched_in(cpu_usage_clock_read(), worker);
        cpu_usage_hook_scheduler_start(idle, 0, 0);
        advance(100_000);
        cpu_usage_hook_isr_enter();
        advance(50_000);
        cpu_usage_hook_isr_exit();
        advance(150_000);
        cpu_usage_hook_task_switched_in(cpu_usage_clock_read(), idle);
        advance(100_000);
        cpu_usage_hook_sleep_begin();
        advance(200_000);
        cpu_usage_hook_isr_enter();
        advance(10_000);
        cpu_usage_hook_isr_exit();
        advance(90_000);
        cpu_usage_hook_sleep_end();
        for _ in 0..300 {
            advance(1000);
            cpu_usage_hook_tick();
        }
        (worker, idle)
    }
}

pub(super) fn snapshot() -> (i32, Vec<cpu_usage_task_info>, cpu_usage_summary_info) {
    let mut tasks = vec![cpu_usage_task_info::BLANK; crate::settings::MAX_TASKS + 1];
    let mut summary = cpu_usage_summary_info::default();
    // SAFETY: arrays of the sizes given.
    let n = unsafe { cpu_usage_snapshot(tasks.as_mut_ptr(), tasks.len(), &mut summary) };
    tasks.truncate(n.max(0) as usize);
    (n, tasks, summary)
}

fn cleanup(ids: &[(usize, u32)]) {
    for &(tcb, id) in ids {
        // SAFETY: a hook, as the kernel would call it.
        assert_eq!(unsafe { cpu_usage_hook_task_delete(tcb as *mut c_void, id) }, 0);
    }
}

#[test]
fn interrupts_and_sleep_are_charged_apart_from_tasks() {
    let _g = lock();
    let (worker, idle) = interrupts_and_sleep_window();
    let (n, tasks, s) = snapshot();
    assert!(n >= 2);
    let w = tasks.iter().find(|t| t.id == worker).unwrap();
    let i = tasks.iter().find(|t| t.id == idle).unwrap();
    assert_eq!((w.usage, w.counts, w.switches, w.longest_slice_us), (2500, 250_000, 1, 250_000));
    assert!(i.idle && !w.idle);
    // The idle task's run goes on at the window's end: 100 ms before its sleep, 300 after.
    assert_eq!((i.usage, i.switches, i.longest_slice_us), (4000, 1, 400_000));
    assert_eq!((s.interrupts, s.interrupt_count, s.longest_interrupt_us), (600, 2, 50_000));
    assert_eq!((s.sleep, s.idle, s.load, s.window_us, s.window), (2900, 4000, 3100, 1_000_000, 0));
    let all: u32 = tasks.iter().map(|t| t.usage).sum::<u32>() + s.interrupts + s.sleep + s.other;
    assert_eq!(all, 10_000, "every share adds up to 100.00%");
    // One window in, every average is that window's load.
    assert_eq!(s.load_avg, [3100; 3]);
    cleanup(&[(0x3000, worker), (0x4000, idle)]);
}

#[test]
fn snapshot_refuses_null_and_counts_what_did_not_fit() {
    let _g = lock();
    let mut summary = cpu_usage_summary_info::default();
    // SAFETY: NULL pointers are refused before use.
    unsafe {
        assert_eq!(cpu_usage_snapshot(core::ptr::null_mut(), 0, core::ptr::null_mut()), St::CPU_USAGE_ERR_NULL.code());
        assert_eq!(cpu_usage_snapshot(core::ptr::null_mut(), 3, &mut summary), St::CPU_USAGE_ERR_NULL.code());
        assert_eq!(cpu_usage_snapshot(core::ptr::null_mut(), 0, &mut summary), St::CPU_USAGE_ERR_NO_WINDOW.code());
    }
    let (worker, idle) = interrupts_and_sleep_window();
    // SAFETY: no array, length 0: only the summary.
    let n = unsafe { cpu_usage_snapshot(core::ptr::null_mut(), 0, &mut summary) };
    assert_eq!(n, 0);
    assert!(summary.tasks >= 2 && summary.written == 0);
    cleanup(&[(0x3000, worker), (0x4000, idle)]);
}

#[test]
fn interrupt_and_sleep_hooks_before_start_or_unmatched_change_nothing() {
    let _g = lock();
    let (worker, idle) = interrupts_and_sleep_window();
    let (_, before) = format(&["show_cpu_usage", "-m"]);
    // SAFETY: hooks, one at a time; stray calls as a misbehaving port might make.
    unsafe {
        cpu_usage_hook_isr_exit();
        cpu_usage_hook_sleep_end();
    }
    let (_, after) = format(&["show_cpu_usage", "-m"]);
    assert_eq!(before, after);
    cleanup(&[(0x3000, worker), (0x4000, idle)]);
}

/// Hands the report out in pieces of `len - 1` bytes, as FreeRTOS+CLI asks for it.
fn cli_pieces(line: &std::ffi::CStr, len: usize, between: impl Fn()) -> (String, usize) {
    let mut text = String::new();
    let mut calls = 0;
    loop {
        let mut buf = vec![0xAAu8; len + 4];
        // SAFETY: writable for `len` bytes; a C string.
        let more = unsafe { cpu_usage_cli_command(buf.as_mut_ptr().cast(), len, line.as_ptr()) };
        let end = buf.iter().position(|&b| b == 0).unwrap();
        assert!(end < len && buf[len..].iter().all(|&b| b == 0xAA), "stays within the buffer");
        text.push_str(std::str::from_utf8(&buf[..end]).unwrap());
        calls += 1;
        if more == 0 {
            return (text, calls);
        }
        between();
    }
}

#[test]
fn the_cli_command_hands_a_long_report_out_in_pieces() {
    let _g = lock();
    let (worker, idle) = interrupts_and_sleep_window();
    let (_, whole) = format(&["show_cpu_usage", "-m"]);
    let (text, calls) = cli_pieces(c"show_cpu_usage -m", 50, || {});
    assert_eq!(text, whole);
    assert_eq!(calls, whole.len().div_ceil(49));
    let (text, _) = cli_pieces(c"show_cpu_usage   -m  ", 4096, || {});
    assert_eq!(text, whole, "extra spaces are fine, and one call is enough");
    // A window's end, and a task coming and going, between two pieces: the report
    // is of its window all the same (held open until the last piece), and that
    // window then closes at the next hook, as much longer as it was held.
    let churn = |window_ends: bool| {
        if window_ends {
            advance(1_500_000);
        }
        // SAFETY: hooks, one at a time.
        unsafe {
            cpu_usage_hook_tick();
            let id = cpu_usage_hook_task_create(0x5000 as *mut c_void, c"late".as_ptr());
            assert_eq!(cpu_usage_hook_task_delete(0x5000 as *mut c_void, id), 0);
        }
    };
    let (_, before) = format(&["show_cpu_usage", "-m"]);
    let calls = std::cell::Cell::new(0);
    let (text, _) = cli_pieces(c"show_cpu_usage -m", 64, || churn(calls.replace(calls.get() + 1) == 0));
    assert_eq!(text, before, "one window, whole, once");
    advance(10);
    // SAFETY: a hook.
    unsafe { cpu_usage_hook_tick() };
    let (_, after) = format(&["show_cpu_usage", "-m"]);
    let window = |json: &str| json.split("\"window\":").nth(1).and_then(|w| w.split(',').next()).map(str::to_owned);
    let counts =
        |json: &str| json.split("\"window_counts\":").nth(1).and_then(|w| w.split(',').next()).map(str::to_owned);
    assert_eq!(window(&after).unwrap().parse::<u32>().unwrap(), window(&before).unwrap().parse::<u32>().unwrap() + 1);
    assert!(counts(&after).unwrap().parse::<u64>().unwrap() > 1_000_000, "the held window is longer: {after}");
    // A reader holds its window by one more window at most: past that, the window
    // closes, and the report is cut there with one line saying so, never repeated.
    let (text, _) = cli_pieces(c"show_cpu_usage -m", 64, || churn(true));
    let cut = "show_cpu_usage: the figures changed before the report was out (cut): use a longer window (-w), fewer lines (-n) or a faster console\n";
    assert!(text.ends_with(cut) && text.matches("{\"mode\"").count() == 1, "{text}");
    let partial = &text[..text.len() - cut.len()];
    assert!(partial.ends_with('\n') && partial.lines().count() == 1, "the line cut is ended: {text}");
    // Sorted and cut: every piece is of the same text (the copy is not sorted in
    // place for the next).
    let (_, sorted) = format(&["show_cpu_usage", "-s", "-n", "1", "-l"]);
    assert_eq!(cli_pieces(c"show_cpu_usage -s -n 1 -l", 30, || {}).0, sorted);
    // Help and errors longer than a piece come in pieces too.
    let (_, help) = format(&["show_cpu_usage", "-h"]);
    assert_eq!(cli_pieces(c"show_cpu_usage -h", 20, || {}).0, help);
    let (_, bad) = format(&["show_cpu_usage", "-w", "0"]);
    assert_eq!(cli_pieces(c"show_cpu_usage -w 0", 20, || {}).0, bad);
    // A report left half-way is dropped by another command line.
    let mut buf = [0u8; 32];
    // SAFETY: writable for 32 bytes; a C string.
    assert_eq!(unsafe { cpu_usage_cli_command(buf.as_mut_ptr().cast(), 32, c"show_cpu_usage -m".as_ptr()) }, 1);
    let (text, _) = cli_pieces(c"show_cpu_usage", 4096, || {});
    assert!(text.starts_with("CPU usage"), "{text}");
    // `-w` sets the window once, and its line is in the text once.
    let (text, _) = cli_pieces(c"show_cpu_usage -w 1000 -m", 40, || {});
    assert!(text.starts_with("window set to 1000 ms") && text.matches("window set").count() == 1, "{text}");
    let (text, _) = cli_pieces(c"show_cpu_usage -z", 512, || {});
    assert!(text.starts_with("show_cpu_usage: unknown option"), "{text}");
    // No room to make progress: an empty string, and done.
    let mut one = [0xAAu8; 1];
    // SAFETY: writable for 1 byte.
    assert_eq!(unsafe { cpu_usage_cli_command(one.as_mut_ptr().cast(), 1, c"show_cpu_usage".as_ptr()) }, 0);
    assert_eq!(one[0], 0);
    // SAFETY: NULL buffer: nothing written.
    assert_eq!(unsafe { cpu_usage_cli_command(core::ptr::null_mut(), 10, core::ptr::null()) }, 0);
    cleanup(&[(0x3000, worker), (0x4000, idle)]);
}

/// Every report, handed out in pieces of any size, is the report `cpu_usage_format`
/// writes; and each piece writes the task lines of its own text, not every line
/// before it again: at most the lines of the report and two more per piece (the
/// line a piece takes up in, and the one that ends past it).
#[test]
fn the_cli_command_writes_each_task_line_about_once_whatever_the_pieces() {
    let _g = lock();
    let (worker, idle) = interrupts_and_sleep_window();
    // Twenty more tasks, each with its own run time, two of them deleted in the
    // window; then a window closes.
    let mut tasks = Vec::new();
    // SAFETY: hooks called as the kernel would, one at a time.
    unsafe {
        for i in 0..20usize {
            let tcb = 0x9000 + 0x100 * i;
            let name = CString::new(format!("task{i:02}")).unwrap();
            let id = cpu_usage_hook_task_create(tcb as *mut c_void, name.as_ptr());
            cpu_usage_hook_task_switched_in(cpu_usage_clock_read(), id);
            advance(1_000 * (i as u32 + 1));
            tasks.push((tcb, id));
        }
        cpu_usage_hook_task_switched_in(cpu_usage_clock_read(), idle);
        for &(tcb, id) in tasks.get(3..5).unwrap() {
            assert_eq!(cpu_usage_hook_task_delete(tcb as *mut c_void, id), 0);
        }
        for _ in 0..1000 {
            advance(1000);
            cpu_usage_hook_tick();
        }
    }
    let lines_written = || crate::report::TASK_LINES_WRITTEN.with(|n| n.get());
    for options in ["", "-m", "-l", "-c", "-c -m -l", "-s", "-n 5", "-s -m -d", "-n 3 -c"] {
        let args: Vec<&str> = std::iter::once("show_cpu_usage").chain(options.split_whitespace()).collect();
        let before = lines_written();
        let (status, whole) = format(&args);
        assert_eq!(status as usize, whole.len(), "{options}: {whole}");
        let lines = lines_written() - before;
        assert!(lines >= 3, "`{options}` lists tasks: {whole}");
        let line = CString::new(format!("show_cpu_usage {options}")).unwrap();
        for len in [2, 7, 50, 64, 129, 700, 8192] {
            let before = lines_written();
            let (text, calls) = cli_pieces(&line, len, || {});
            assert_eq!(text, whole, "`{options}` in pieces of {}", len - 1);
            let written = lines_written() - before;
            assert!(
                written <= lines + 2 * calls as u64,
                "`{options}` in {calls} pieces of {}: {written} task lines written for a report of {lines}",
                len - 1
            );
        }
    }
    cleanup(&[(0x3000, worker), (0x4000, idle)]);
    let live: Vec<_> = tasks.iter().enumerate().filter(|(i, _)| !(3..5).contains(i)).map(|(_, &t)| t).collect();
    cleanup(&live);
}

#[test]
fn watchdogs_call_back_once_per_crossing() {
    let _g = lock();
    ALERTS.lock().unwrap().clear();
    assert_eq!(cpu_usage_watchdog_set_load(10_001, 1), St::CPU_USAGE_ERR_RANGE.code());
    // 2000 s of a 4 MHz clock do not fit 32 bits (of a 1 MHz clock, any u32 does).
    assert_eq!(cpu_usage_set_clock(Some(fake_clock), 4 * HZ), 0);
    assert_eq!(cpu_usage_watchdog_set_slice_us(2_000_000_000), St::CPU_USAGE_ERR_RANGE.code());
    assert_eq!(cpu_usage_watchdog_set_slice_us(1_000_000_000), 0);
    assert_eq!(cpu_usage_set_clock(Some(fake_clock), HZ), 0);
    assert_eq!(cpu_usage_watchdog_set_load(3000, 2), 0);
    assert_eq!(cpu_usage_watchdog_set_slice_us(100_000), 0);
    assert_eq!(cpu_usage_watchdog_set_callback(Some(record_alert), 0x5a5a as *mut c_void), 0);
    let (worker, idle) = interrupts_and_sleep_window();
    {
        let alerts = ALERTS.lock().unwrap();
        // The first window: load 31% > 30%, once so far (2 windows needed); the
        // worker's 250 ms run is over 100 ms (the idle task's 400 ms are not a
        // slice: an idle system is not a hog).
        assert_eq!(alerts.len(), 1, "{alerts:?}");
        let a = alerts[0];
        assert_eq!(
            (a.kind, a.window, a.value, a.threshold),
            (cpu_usage_alert_kind::CPU_USAGE_ALERT_SLICE, 0, 250_000, 100_000)
        );
        assert_eq!(a.task_id, worker);
        let name: Vec<u8> = a.task_name.iter().take_while(|&&c| c != 0).map(|&c| c as u8).collect();
        assert_eq!(name, b"worker2");
    }
    // SAFETY: hooks, one at a time. A second window like the first: the task ran
    // 250 ms again, so the load is 31% again.
    unsafe {
        cpu_usage_hook_task_switched_in(cpu_usage_clock_read(), worker);
        advance(310_000);
        cpu_usage_hook_task_switched_in(cpu_usage_clock_read(), idle);
        for _ in 0..690 {
            advance(1000);
            cpu_usage_hook_tick();
        }
    }
    {
        let alerts = ALERTS.lock().unwrap();
        assert_eq!(alerts.len(), 2, "the slice watchdog does not fire again in a row: {alerts:?}");
        let a = alerts[1];
        assert_eq!(
            (a.kind, a.window, a.value, a.threshold, a.task_id),
            (cpu_usage_alert_kind::CPU_USAGE_ALERT_LOAD, 1, 3100, 3000, 0)
        );
    }
    assert_eq!(cpu_usage_watchdog_set_load(0, 0), 0);
    assert_eq!(cpu_usage_watchdog_set_slice_us(0), 0);
    assert_eq!(cpu_usage_watchdog_set_callback(None, core::ptr::null_mut()), 0);
    cleanup(&[(0x3000, worker), (0x4000, idle)]);
}

#[test]
fn smoothing_weights_are_e_to_the_minus_window_over_period() {
    for (window, period) in
        [(1000u32, 1000u32), (1000, 10_000), (1000, 60_000), (100, 1000), (5000, 1000), (1, 60_000), (3_600_000, 1000)]
    {
        let exact = (-(f64::from(window) / f64::from(period))).exp() * 65536.0;
        let got = f64::from(smoothing_keep(window, period));
        assert!((got - exact).abs() <= 0.0005 * 65536.0, "{window}/{period}: {got} vs {exact}");
    }
}

/// Runs a shell command of the library with `args` (its name first), its output
/// collected.
fn shell(command: unsafe extern "C" fn(c_int, *mut *mut c_char) -> c_int, args: &[&str]) -> (i32, String) {
    static OUT: Mutex<String> = Mutex::new(String::new());
    unsafe extern "C" fn collect(s: *const c_char, n: usize) {
        // SAFETY: the library passes `n` readable bytes.
        let bytes = unsafe { core::slice::from_raw_parts(s.cast::<u8>(), n) };
        OUT.lock().unwrap().push_str(std::str::from_utf8(bytes).unwrap());
    }
    OUT.lock().unwrap().clear();
    assert_eq!(cpu_usage_set_output(Some(collect)), 0);
    let owned: Vec<CString> = args.iter().map(|a| CString::new(*a).unwrap()).collect();
    let mut argv: Vec<*mut c_char> = owned.iter().map(|a| a.as_ptr().cast_mut()).collect();
    // SAFETY: a valid argv for the call.
    let status = unsafe { command(argv.len() as c_int, argv.as_mut_ptr()) };
    let text = OUT.lock().unwrap().clone();
    (status, text)
}

fn watchdog_cmd(args: &[&str]) -> (i32, String) {
    shell(cpu_usage_watchdog, args)
}

#[test]
fn the_watchdog_command_sets_and_shows_the_thresholds() {
    let _g = lock();
    assert_eq!(watchdog_cmd(&["cpu_usage_watchdog", "load", "72.5", "3"]).0, 0);
    assert_eq!(watchdog_cmd(&["cpu_usage_watchdog", "slice", "5000"]).0, 0);
    let (status, text) = watchdog_cmd(&["cpu_usage_watchdog"]);
    assert_eq!(status, 0);
    assert_eq!(text, "watchdog: load > 72.50% for 3 windows; slice > 5000 us\n");
    let (status, text) = watchdog_cmd(&["cpu_usage_watchdog", "load", "101", "1"]);
    assert_eq!(status, St::CPU_USAGE_ERR_OPTION.code(), "{text}");
    let (status, text) = watchdog_cmd(&["cpu_usage_watchdog", "off"]);
    assert_eq!((status, text.as_str()), (0, "watchdog: load off; slice off\n"));
    // SAFETY: NULL argv with arguments is refused.
    assert_eq!(unsafe { cpu_usage_watchdog(2, core::ptr::null_mut()) }, St::CPU_USAGE_ERR_NULL.code());
}

#[test]
fn the_window_option_sets_the_window() {
    let _g = lock();
    let (status, text) = format(&["show_cpu_usage", "-w", "250"]);
    assert_eq!(status, St::CPU_USAGE_ERR_NO_WINDOW.code(), "{text}");
    assert!(text.starts_with("window set to 250 ms"), "{text}");
    assert_eq!(cpu_usage_window_ms(), 250);
    // 3000 s of the 1 MHz clock are more than 2^31 counts: refused, and nothing changes.
    // The error and the help say the clock's longest window.
    let (status, text) = format(&["show_cpu_usage", "-w", "3000000"]);
    assert_eq!(status, St::CPU_USAGE_ERR_WINDOW.code(), "{text}");
    assert!(text.starts_with("show_cpu_usage: -w \"3000000\": out of range (1 to 2147483)\nusage:"), "{text}");
    assert_eq!(cpu_usage_window_ms(), 250);
    let (_, text) = format(&["show_cpu_usage", "-w", "9999999"]);
    assert!(text.starts_with("show_cpu_usage: -w \"9999999\": out of range (1 to 2147483)\nusage:"), "{text}");
    let (_, text) = format(&["show_cpu_usage", "-h"]);
    assert!(text.contains("  -w MS   windows of MS ms (1 to 2147483), from"), "{text}");
    assert_eq!(cpu_usage_set_window_ms(1000), 0);
}

/// Calls of the follow wait so far, and after how many it reports input.
static WAITS: AtomicU32 = AtomicU32::new(0);
static INPUT_AFTER: AtomicU32 = AtomicU32::new(u32::MAX);

/// A console wait that lets `ms` of simulated time pass (a tick a millisecond).
unsafe extern "C" fn wait_simulated(ms: u32) -> c_int {
    if WAITS.fetch_add(1, Ordering::Relaxed) + 1 >= INPUT_AFTER.load(Ordering::Relaxed) {
        return 1;
    }
    for _ in 0..ms {
        advance(HZ / 1000);
        // SAFETY: a hook, as the tick would call it.
        unsafe { cpu_usage_hook_tick() };
    }
    0
}

/// The window numbers of the JSON lines in `text`, which must hold nothing else.
fn window_numbers(text: &str) -> Vec<u64> {
    text.lines()
        .map(|line| {
            let at = line.find("\"window\":").unwrap_or_else(|| panic!("not a window report: {line}")) + 9;
            line[at..].split(',').next().unwrap().parse().unwrap()
        })
        .collect()
}

#[test]
fn follow_mode_reports_each_window_until_the_count_or_input() {
    let _g = lock();
    // Before the wait function is set, and wherever it cannot run, -f is refused.
    assert_eq!(cpu_usage_set_follow_wait(None), 0);
    let (status, text) = shell(show_cpu_usage, &["show_cpu_usage", "-m", "-f"]);
    assert_eq!(status, St::CPU_USAGE_ERR_FOLLOW.code(), "{text}");
    assert_eq!(cpu_usage_set_follow_wait(Some(wait_simulated)), 0);
    let (status, text) = format(&["show_cpu_usage", "-f", "2"]);
    assert_eq!(status, St::CPU_USAGE_ERR_FOLLOW.code(), "{text}");

    let (worker, idle) = interrupts_and_sleep_window();
    assert_eq!(cpu_usage_set_window_ms(100), 0);
    // `-f 3`: the last completed window at once, then the next two, consecutive.
    INPUT_AFTER.store(u32::MAX, Ordering::Relaxed);
    WAITS.store(0, Ordering::Relaxed);
    let (status, text) = shell(show_cpu_usage, &["show_cpu_usage", "-f", "3", "-m"]);
    assert_eq!(status, 0, "{text}");
    let numbers = window_numbers(&text);
    assert_eq!(numbers.len(), 3, "{text}");
    assert_eq!(numbers[2] - numbers[0], 2, "{text}");
    // Windows of 100 ms, waits of 10 ms: about ten waits a window.
    let waits = WAITS.load(Ordering::Relaxed);
    assert!((18..=21).contains(&waits), "{waits} waits");

    // `-f` alone: until input, which arrives at the 35th wait (3 more windows).
    INPUT_AFTER.store(35, Ordering::Relaxed);
    WAITS.store(0, Ordering::Relaxed);
    let (status, text) = shell(show_cpu_usage, &["show_cpu_usage", "-m", "-f"]);
    assert_eq!(status, 0, "{text}");
    let numbers = window_numbers(&text);
    assert_eq!(numbers.len(), 4, "{text}");
    assert!(numbers.windows(2).all(|w| w[1] == w[0] + 1), "{text}");
    assert_eq!(WAITS.load(Ordering::Relaxed), 35);

    // `-f` reads its count only from a number: `-f -m` follows until input, in JSON.
    INPUT_AFTER.store(1, Ordering::Relaxed);
    let (status, text) = shell(show_cpu_usage, &["show_cpu_usage", "-f", "-m"]);
    assert_eq!((status, window_numbers(&text).len()), (0, 1), "{text}");
    let (status, text) = shell(show_cpu_usage, &["show_cpu_usage", "-f", "0"]);
    assert_eq!(status, St::CPU_USAGE_ERR_OPTION.code(), "{text}");

    assert_eq!(cpu_usage_set_follow_wait(None), 0);
    assert_eq!(cpu_usage_set_window_ms(1000), 0);
    cleanup(&[(0x3000, worker), (0x4000, idle)]);
}

/// `show_cpu_usage` while windows end as it prints: the report is of its window,
/// whole and once (the window is held open until its last line); past the bound of
/// one more window, it is cut with one line saying so, never written again.
#[test]
fn show_cpu_usage_prints_one_window_whatever_ends_while_it_prints() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static OUT: Mutex<String> = Mutex::new(String::new());
    /// Lines out so far, and every how many lines a window's worth of time passes
    /// (0: never).
    static LINES: AtomicUsize = AtomicUsize::new(0);
    static EVERY: AtomicUsize = AtomicUsize::new(0);
    static ONCE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    unsafe extern "C" fn changing(s: *const c_char, n: usize) {
        // SAFETY: the library passes `n` readable bytes.
        let bytes = unsafe { core::slice::from_raw_parts(s.cast::<u8>(), n) };
        OUT.lock().unwrap().push_str(std::str::from_utf8(bytes).unwrap());
        let line = LINES.fetch_add(1, Ordering::SeqCst) + 1;
        let every = EVERY.load(Ordering::SeqCst);
        if every != 0 && line % every == 0 {
            if ONCE.load(Ordering::SeqCst) {
                EVERY.store(0, Ordering::SeqCst);
            }
            advance(1_000_000);
            // SAFETY: the tick hook, alone.
            unsafe { cpu_usage_hook_tick() };
        }
    }
    let run = |every: usize, once: bool| {
        OUT.lock().unwrap().clear();
        ONCE.store(once, Ordering::SeqCst);
        LINES.store(0, Ordering::SeqCst);
        EVERY.store(every, Ordering::SeqCst);
        assert_eq!(cpu_usage_set_output(Some(changing)), 0);
        let argv: Vec<CString> = ["show_cpu_usage", "-l"].iter().map(|a| CString::new(*a).unwrap()).collect();
        let mut argv: Vec<*mut c_char> = argv.iter().map(|a| a.as_ptr().cast_mut()).collect();
        // SAFETY: a valid argv for the call.
        let status = unsafe { show_cpu_usage(argv.len() as c_int, argv.as_mut_ptr()) };
        EVERY.store(0, Ordering::SeqCst);
        (status, OUT.lock().unwrap().clone())
    };
    let _g = lock();
    interrupts_and_sleep_window();
    let (_, whole) = format(&["show_cpu_usage", "-l"]);
    let lines = whole.lines().count();
    // A window's time passes after the third line: the report is the window's all
    // the same, and that window closes at the next hook after it.
    let (status, text) = run(3, true);
    assert_eq!((status, text.as_str()), (0, whole.as_str()));
    advance(10);
    // SAFETY: a hook.
    unsafe { cpu_usage_hook_tick() };
    let (_, next) = format(&["show_cpu_usage", "-l"]);
    assert!(whole.starts_with("CPU usage, window #0:") && next.starts_with("CPU usage, window #1:"), "{next}");
    // A window's time every few lines, more than the report may hold its window:
    // cut, with one line saying so.
    let (status, text) = run(lines / 3, false);
    assert_eq!(status, St::CPU_USAGE_ERR_CHANGED.code(), "{text}");
    let cut = "show_cpu_usage: the figures changed before the report was out (cut): use a longer window (-w), fewer lines (-n) or a faster console\n";
    let (report, why) = text.split_at(text.len() - cut.len());
    assert_eq!(why, cut, "{text}");
    assert_eq!(text.matches("CPU usage, window").count(), 1, "{text}");
    assert!(report.ends_with('\n') && report.lines().count() < lines, "{text}");
}
