//! C API tests through the exported functions, on a simulated clock.
//!
//! The library has one global state, so these tests take a lock and reset what they
//! change. The same API is exercised from C under ASan/UBSan by the harness crate.

use super::*;
use core::sync::atomic::{AtomicU32, Ordering};
use std::ffi::CString;
use std::sync::Mutex;

static SERIAL: Mutex<()> = Mutex::new(());
static NOW: AtomicU32 = AtomicU32::new(0);

unsafe extern "C" fn fake_clock() -> u32 {
    NOW.load(Ordering::Relaxed)
}

const HZ: u32 = 1_000_000;

fn lock() -> std::sync::MutexGuard<'static, ()> {
    let guard = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    assert_eq!(cpu_usage_set_window_ms(1000), 0);
    assert_eq!(cpu_usage_set_clock(Some(fake_clock), HZ), 0);
    guard
}

fn format(args: &[&str]) -> (i32, String) {
    let owned: Vec<CString> = args.iter().map(|a| CString::new(*a).unwrap()).collect();
    let mut argv: Vec<*mut c_char> = owned.iter().map(|a| a.as_ptr().cast_mut()).collect();
    let mut buf = vec![0u8; 8192];
    // SAFETY: valid buffer and argv for the call.
    let n = unsafe { cpu_usage_format(buf.as_mut_ptr().cast(), buf.len(), argv.len() as c_int, argv.as_mut_ptr()) };
    let end = buf.iter().position(|&b| b == 0).unwrap();
    (n, String::from_utf8(buf[..end].to_vec()).unwrap())
}

fn advance(counts: u32) {
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
        cpu_usage_hook_task_switched_in(tcb, id);
        cpu_usage_hook_scheduler_start(idle, 0);
        advance(250_000);
        cpu_usage_hook_task_switched_in(0x2000 as *mut c_void, idle);
        for _ in 0..750 {
            advance(1000);
            cpu_usage_hook_tick();
        }
        let (status, json) = format(&["show_cpu_usage", "-m"]);
        assert_eq!(status as usize, json.len());
        assert!(json.contains("{\"id\":1,\"name\":\"worker\",\"counts\":250000,\"usage_pct\":25.00,\"deleted\":false}"), "{json}");
        assert!(json.contains("\"idle_pct\":75.00,\"load_pct\":25.00}"), "{json}");
        assert_eq!(cpu_usage_hook_task_delete(tcb, id), 0);
        assert_eq!(cpu_usage_hook_task_delete(tcb, id), St::CPU_USAGE_ERR_TASK_ID.code());
        assert_eq!(cpu_usage_hook_task_delete(core::ptr::null_mut(), idle), St::CPU_USAGE_ERR_NULL.code());
        assert_eq!(cpu_usage_hook_task_delete(0x2000 as *mut c_void, idle), 0);
    }
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
        assert_eq!(cpu_usage_format(buf.as_mut_ptr().cast(), buf.len(), 2, with_null.as_mut_ptr()), St::CPU_USAGE_ERR_NULL.code());
        assert_eq!(cpu_usage_format(buf.as_mut_ptr().cast(), buf.len(), 2, core::ptr::null_mut()), St::CPU_USAGE_ERR_NULL.code());
        // argc 0 or 1 needs no argv at all.
        for argc in [0, 1] {
            let status = cpu_usage_format(buf.as_mut_ptr().cast(), buf.len(), argc, core::ptr::null_mut());
            assert_ne!(status, St::CPU_USAGE_ERR_NULL.code());
        }
    }
}

#[test]
fn status_strings_exist_for_every_code() {
    for code in [0, -7001, -7002, -7003, -7004, -7005, -7006, -7007, 12345] {
        // SAFETY: never NULL, always NUL-terminated.
        let text = unsafe { core::ffi::CStr::from_ptr(cpu_usage_status_str(code)) };
        assert!(!text.to_bytes().is_empty());
    }
    assert_eq!(cpu_usage_abi_version(), crate::engine::ABI_VERSION);
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
