//! freertos-cpu-usage: per-task CPU usage for FreeRTOS, as a C static library.
//!
//! The kernel's trace hooks (`include/freertos_cpu_usage_hooks.h`) call into
//! [`ffi`]'s hook functions on every task switch, tick, create and delete. The
//! [`engine`] charges each slice of time to the task that used it and publishes
//! completed windows; [`report`] turns a copy of them into text or JSON for the
//! `show_cpu_usage` shell command. `arch` supplies the default clock and the
//! critical section for the core and FreeRTOS port the library is built for. [`trace`] is
//! the optional event trace, linked only into firmware built with `CPU_USAGE_TRACE`.
//!
//! Layout: `engine/` is pure logic (no pointers, no FFI), `report/` is pure
//! formatting, `ffi/` is the only place with `extern "C"` exports (the hooks alone in
//! `ffi/hooks.rs`), `arch/` holds what differs between a hosted (POSIX) and a
//! bare-metal (Cortex-M) build.
//!
//! Cargo features: `shell` (default) adds [`report`] and the shell commands; `trace`
//! adds [`trace`] and the traced hooks. Without default features the library is the
//! minimal build: hooks, engine, configuration and `cpu_usage_snapshot`.

#![cfg_attr(not(any(test, feature = "std")), no_std)]
#![deny(missing_docs)]

mod arch;
pub mod engine;
pub mod ffi;
pub mod fields;
#[cfg(feature = "shell")]
pub mod report;
pub mod settings;
#[cfg(feature = "trace")]
pub mod trace;

/// The product library has no reachable panic (the hot path is written without
/// one, and a test checks the symbols); this handler only satisfies the linker.
#[cfg(not(any(test, feature = "std")))]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    arch::halt()
}

/// The host's precompiled `core` is built for unwinding and names this symbol in its
/// unwind tables. With `panic = "abort"` nothing ever unwinds, so nothing calls it; it
/// only has to exist for the C linker. (Bare-metal targets' `core` does not need it.)
#[cfg(all(not(any(test, feature = "std")), unix))]
#[no_mangle]
pub extern "C" fn rust_eh_personality() {}
