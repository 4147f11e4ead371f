//! freertos-cpu-usage: per-task CPU usage for FreeRTOS, from the kernel's trace hooks:
//! a C static library, and a crate for Rust firmware.
//!
//! **From Rust**, [`api`] is the way in: the last window or the figures since start
//! as Rust values, the report into any `core::fmt::Write`, the window's length and
//! the watchdogs. The kernel calls the library through the hooks header
//! (`include/freertos_cpu_usage_hooks.h`, at the end of the kernel's configuration:
//! the `freertos-cpu-usage-build` crate adds it to a `freertos-build` kernel build).
//!
//! Inside: the kernel's trace hooks call [`ffi`]'s hook functions on every task
//! switch, tick, create and delete. The [`engine`] charges each slice of time to the
//! task that used it and publishes completed windows; [`report`] turns a copy of them
//! into text or JSON for the `show_cpu_usage` shell command. `arch` supplies the
//! default clock and the critical section for the core and FreeRTOS port the library
//! is built for. `trace` is the optional event trace, linked only into firmware built
//! with `CPU_USAGE_TRACE`.
//!
//! Layout: `engine/` is pure logic (no pointers, no FFI), `report/` is pure
//! formatting, `ffi/` is the only place with `extern "C"` exports (the hooks alone in
//! `ffi/hooks.rs`), `arch/` holds what differs between a hosted (POSIX) and a
//! bare-metal (Cortex-M) build.
//!
//! Cargo features: `shell` (default) adds [`report`] and the shell commands; `trace`
//! adds `trace` and the traced hooks. Without default features the library is the
//! minimal build: hooks, engine, configuration and `cpu_usage_snapshot`. The C archive
//! adds `panic-handler` and `critical-section-impl`, which Rust firmware has of its own.

#![cfg_attr(not(test), no_std)]
#![deny(missing_docs)]

pub mod api;
mod arch;
pub mod engine;
pub mod ffi;
pub mod fields;
#[cfg(feature = "shell")]
pub mod report;
pub mod settings;
#[cfg(feature = "trace")]
pub mod trace;

/// `critical-section`, for the documentation's examples (`api::doc_example_window`).
#[doc(hidden)]
pub use critical_section as __critical_section;

/// The C archive's panic handler (feature `panic-handler`). The library has no
/// reachable panic (the hot path is written without one, and a test checks the
/// symbols); this handler only satisfies the linker.
#[cfg(all(feature = "panic-handler", not(test)))]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    arch::halt()
}

/// The host's precompiled `core` is built for unwinding and names this symbol in its
/// unwind tables. With `panic = "abort"` nothing ever unwinds, so nothing calls it; it
/// only has to exist for the C linker. (Bare-metal targets' `core` does not need it.)
#[cfg(all(feature = "panic-handler", not(test), unix))]
#[no_mangle]
pub extern "C" fn rust_eh_personality() {}
