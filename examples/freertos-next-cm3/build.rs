//! Builds the FreeRTOS kernel (freertos-next's sources, the ARM_CM3 port that
//! freertos-build picks for thumbv7m-none-eabi) with freertos-cpu-usage's hooks, and
//! tells the linker where the board's memory is.

use freertos_build::prelude::*;

fn main() {
    // cortex-m-rt's link.x includes memory.x from the linker's search path: this
    // directory's. (The link argument here rather than in .cargo/config.toml, so that
    // the image links however cargo is started: the tests build it from the
    // repository's root.)
    let here = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    println!("cargo:rustc-link-search={here}");
    println!("cargo:rerun-if-changed=memory.x");
    println!("cargo:rustc-link-arg-bins=-Tlink.x");

    let mut b = freertos_build::Builder::new();
    // mps2-an385's system clock, which drives the core and SysTick: the library's
    // clock on QEMU (whose DWT cycle counter does not count) is SysTick-extended, at
    // configCPU_CLOCK_HZ.
    b.cpu_clock(25.MHz());
    b.heap_size(64 * 1024);
    // In words. Task creation and deletion call the library's hooks on the calling
    // task's stack.
    b.minimal_stack_size(256);
    // The AN385 NVIC has 3 priority bits: the kernel at the lowest (7 << 5 = 0xE0), and
    // interrupts at 5 << 5 = 0xA0 and below may call the kernel. The library's
    // critical section raises BASEPRI to the same 0xA0, as the kernel's does.
    b.interrupt_priority_bits(3, 5, 7);
    // Stack overflow: the kernel calls vApplicationStackOverflowHook (src/main.rs).
    b.check_for_stack_overflow(2);
    // The last line of the kernel's configuration: the library's hooks.
    freertos_cpu_usage_build::add_hooks(&mut b);
    b.compile().unwrap_or_else(|e| panic!("building the FreeRTOS kernel: {e:?}"));
}
