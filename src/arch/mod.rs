//! What differs between the targets the library is built for: the default clock, the
//! default output, the critical section on top of the FreeRTOS port, and what to do
//! if the impossible happens.
//!
//! - hosted (`unix`): the FreeRTOS POSIX port. Clock: `CLOCK_MONOTONIC`; output:
//!   standard output; critical section: the port's `vPortEnterCritical`, which
//!   blocks the tick signal.
//! - bare metal (`target_os = "none"`, Arm M-profile): the FreeRTOS GCC/ARM_CM3 port
//!   and its relatives. Clock: the DWT cycle counter, or a SysTick-extended count
//!   where the core has no working DWT; output: none until the firmware sets one;
//!   critical section: what the kernel masks, saved and restored, so it nests and
//!   works from interrupts too: BASEPRI up to `configMAX_SYSCALL_INTERRUPT_PRIORITY`
//!   on ARMv7-M and ARMv8-M Mainline once the scheduler has started, PRIMASK before
//!   that and on ARMv6-M and ARMv8-M Baseline (`mask.rs` has the token).
//! - bare metal, RISC-V RV32: the FreeRTOS GCC/RISC-V port. Clock: the machine timer's
//!   `mtime` at `configMTIME_BASE_ADDRESS` (or the core's `mcycle`, which the firmware
//!   can choose with `cpu_usage_clock_mcycle`); output: none until the firmware sets
//!   one; critical section: `mstatus.MIE` cleared and restored (`riscv.rs`).

/// A free-running 32-bit counter and its frequency.
#[derive(Clone, Copy)]
pub struct Clock {
    /// Reads the counter; called from the kernel's hooks, so it must be fast and
    /// callable with interrupts masked.
    pub read: unsafe extern "C" fn() -> u32,
    /// Counts per second.
    pub hz: u32,
    /// What the report calls it.
    pub name: ClockName,
}

impl Clock {
    /// What the library keeps of the clock beside the function it reads.
    pub const fn rate(&self) -> ClockRate {
        ClockRate { hz: self.hz, name: self.name }
    }
}

/// A clock's frequency and name (its function is `cpu_usage_clock_read`).
#[derive(Clone, Copy)]
pub struct ClockRate {
    /// Counts per second.
    pub hz: u32,
    /// What the report calls it.
    pub name: ClockName,
}

/// The clocks the report can name; one byte in RAM instead of a string reference.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum ClockName {
    /// `CLOCK_MONOTONIC` (hosted).
    #[cfg(unix)]
    Monotonic,
    /// The DWT cycle counter (Cortex-M).
    #[cfg(all(target_os = "none", target_arch = "arm"))]
    DwtCyccnt,
    /// The SysTick-extended count (Cortex-M).
    #[cfg(all(target_os = "none", target_arch = "arm"))]
    Systick,
    /// The machine timer's `mtime` (RISC-V).
    #[cfg(all(target_os = "none", target_arch = "riscv32"))]
    Mtime,
    /// The core's cycle counter `mcycle` (RISC-V, where there is no `mtime`).
    #[cfg(all(target_os = "none", target_arch = "riscv32"))]
    Mcycle,
    /// Set by the application with `cpu_usage_set_clock`.
    Custom,
}

impl ClockName {
    /// The name in reports.
    #[cfg(feature = "shell")]
    pub fn as_str(self) -> &'static str {
        match self {
            #[cfg(unix)]
            ClockName::Monotonic => "monotonic",
            #[cfg(all(target_os = "none", target_arch = "arm"))]
            ClockName::DwtCyccnt => "dwt-cyccnt",
            #[cfg(all(target_os = "none", target_arch = "arm"))]
            ClockName::Systick => "systick",
            #[cfg(all(target_os = "none", target_arch = "riscv32"))]
            ClockName::Mtime => "mtime",
            #[cfg(all(target_os = "none", target_arch = "riscv32"))]
            ClockName::Mcycle => "mcycle",
            ClockName::Custom => "custom",
        }
    }
}

/// What a critical section's `acquire` hands its `release`: `critical-section`'s
/// restore state.
#[allow(dead_code)]
type Token = critical_section::RawRestoreState;

#[cfg(unix)]
mod hosted;
#[cfg(unix)]
pub use hosted::*;

#[cfg(any(test, all(target_os = "none", target_arch = "arm", feature = "critical-section-impl")))]
mod mask;

#[cfg(all(target_os = "none", target_arch = "arm"))]
mod cortex_m;
#[cfg(all(target_os = "none", target_arch = "arm"))]
pub use cortex_m::*;

#[cfg(all(target_os = "none", target_arch = "riscv32"))]
mod riscv;
#[cfg(all(cpu_usage_smp, target_os = "none", target_arch = "arm", feature = "critical-section-impl"))]
use cortex_m::cs;
#[cfg(all(cpu_usage_smp, target_os = "none", target_arch = "riscv32", feature = "critical-section-impl"))]
use riscv::cs;
#[cfg(all(target_os = "none", target_arch = "riscv32"))]
pub use riscv::*;

/// Several cores (an SMP kernel): the library's critical section is this core's
/// interrupt mask (the one-core section: `cs`) and then the kernel's ISR lock, taken
/// as the kernel's own interrupt-safe critical sections take it
/// (`vTaskEnterCriticalFromISR`, nesting on the core that holds it). The kernel holds
/// that lock around the switch, the tick, creates and deletes, and the hooks header
/// takes it around the other hooks: so a reader on one core never meets a hook
/// half-way on another. Before the scheduler starts the kernel takes no lock (one core
/// runs), and the mask alone is the section.
#[cfg(all(cpu_usage_smp, target_os = "none", feature = "critical-section-impl"))]
mod smp {
    use super::Token;
    use core::sync::atomic::{AtomicU32, Ordering::Relaxed};

    #[allow(non_snake_case)]
    extern "C" {
        fn vTaskEnterCriticalFromISR() -> u32;
        fn vTaskExitCriticalFromISR(saved: u32);
    }

    /// What `vTaskEnterCriticalFromISR` returned, for its exit: written and read only
    /// with the lock held. (Always the masked state: the core's mask is taken first,
    /// so one value serves the outermost section and the ones nested in it.)
    static KERNEL_SAVED: AtomicU32 = AtomicU32::new(0);

    struct SmpCs;
    critical_section::set_impl!(SmpCs);

    // Not inlined: readers and setters call one copy.
    unsafe impl critical_section::Impl for SmpCs {
        #[inline(never)]
        unsafe fn acquire() -> Token {
            // SAFETY: this core's mask, then the kernel's lock, as its own sections.
            unsafe {
                let token = super::cs::acquire();
                KERNEL_SAVED.store(vTaskEnterCriticalFromISR(), Relaxed);
                token
            }
        }

        #[inline(never)]
        unsafe fn release(token: Token) {
            // SAFETY: undoes `acquire`, in the opposite order.
            unsafe {
                vTaskExitCriticalFromISR(KERNEL_SAVED.load(Relaxed));
                super::cs::release(token);
            }
        }
    }
}

/// Unit tests run on the host without a FreeRTOS port: a real lock stands in for
/// the port's critical section.
#[cfg(test)]
mod test_cs {
    use super::Token;
    use std::cell::Cell;
    use std::sync::{Condvar, Mutex};

    static HELD: Mutex<bool> = Mutex::new(false);
    static FREED: Condvar = Condvar::new();
    std::thread_local!(static DEPTH: Cell<u32> = const { Cell::new(0) });

    struct TestCs;
    critical_section::set_impl!(TestCs);

    unsafe impl critical_section::Impl for TestCs {
        unsafe fn acquire() -> Token {
            if DEPTH.get() == 0 {
                let mut held = HELD.lock().unwrap_or_else(|e| e.into_inner());
                while *held {
                    held = FREED.wait(held).unwrap_or_else(|e| e.into_inner());
                }
                *held = true;
            }
            DEPTH.set(DEPTH.get() + 1);
            0
        }

        unsafe fn release(_: Token) {
            DEPTH.set(DEPTH.get() - 1);
            if DEPTH.get() == 0 {
                *HELD.lock().unwrap_or_else(|e| e.into_inner()) = false;
                FREED.notify_one();
            }
        }
    }
}
