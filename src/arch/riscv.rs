//! Bare-metal build: RV32 cores (riscv32imac, riscv32imc, riscv32i...) under FreeRTOS's
//! GCC/RISC-V port, where everything, tasks included, runs in machine mode.
//!
//! Default clock: the machine timer's `mtime`, its low 32 bits read in one load, at
//! `configCPU_CLOCK_HZ`. Why that and not the core's cycle counter `mcycle`:
//! - The frequency is known. FreeRTOS's RISC-V port programs its tick on `mtime`, in
//!   steps of `configCPU_CLOCK_HZ / configTICK_RATE_HZ`, so on that port
//!   `configCPU_CLOCK_HZ` is the machine timer's rate whatever the core runs at (SiFive's
//!   HiFive1 demo sets it to 32768, the timer's crystal, with the core at 16 MHz or
//!   more): a firmware whose tick is right has given the library the right `mtime`
//!   frequency. Nothing in the kernel's configuration tells `mcycle`'s.
//! - `mtime` runs at a fixed rate while the core sleeps in `wfi` or changes its clock;
//!   `mcycle` stops with the core's clock on many cores, so a window of sleep would
//!   shrink to nothing. Under QEMU 7.2, `mcycle` counts the host's CPU ticks, or with
//!   `-icount` nanoseconds of guest time: neither is a rate the firmware can name in
//!   advance, whereas `virt`'s `mtime` is 10 MHz of guest time in both cases.
//! - The price is resolution: `mtime` often runs slower than the core (10 MHz on
//!   QEMU's `virt`, 32768 Hz on the FE310). Where that is too coarse and the core
//!   does not stop its clock, the firmware passes `cpu_usage_clock_mcycle` and the core
//!   clock to `cpu_usage_set_clock()`.
//!
//! The address of `mtime` is `configMTIME_BASE_ADDRESS`, which the RISC-V port requires
//! in FreeRTOSConfig.h; the hooks header passes it when the scheduler starts. Where it
//! is 0 (no memory-mapped machine timer: the port's tick then comes from a timer of
//! the chip's own), the default is `mcycle` at `configCPU_CLOCK_HZ` if it advances,
//! else no clock until the firmware sets one.
//!
//! Critical section: `mstatus.MIE` cleared and restored, which is all FreeRTOS's
//! RISC-V port masks (it has no interrupt priorities of its own; a PLIC's or CLIC's
//! thresholds are the chip's business).

use super::{Clock, ClockName};
use core::ptr::read_volatile;
use core::sync::atomic::{AtomicUsize, Ordering};

/// Where `mtime` is: written once by the scheduler-start hook, before the clock that
/// reads it is installed.
static MTIME: AtomicUsize = AtomicUsize::new(0);

/// The low 32 bits of `mtime`. A 32-bit load of the low word is one access on RV32 and
/// needs no high-word retry: the engine takes the difference of two readings modulo
/// 2^32, and reads the clock on every tick, far more often than it wraps.
unsafe extern "C" fn mtime_low() -> u32 {
    // SAFETY: installed only once MTIME holds the address the kernel's configuration
    // gives for the machine timer, which the port's own tick uses.
    unsafe { read_volatile(MTIME.load(Ordering::Relaxed) as *const u32) }
}

/// The low 32 bits of `mcycle`: every RISC-V core in machine mode can read it (the
/// privileged architecture defines it; a core may tie it to 0, which
/// `clock_at_scheduler_start` notices).
pub fn mcycle_low() -> u32 {
    let cycles: u32;
    // SAFETY: reads a machine-mode CSR; no memory is touched.
    unsafe { core::arch::asm!("csrr {}, mcycle", out(reg) cycles, options(nomem, nostack, preserves_flags)) };
    cycles
}

unsafe extern "C" fn mcycle_clock() -> u32 {
    mcycle_low()
}

/// Before the scheduler starts there is no clock: its address and rate come then.
unsafe extern "C" fn no_clock() -> u32 {
    0
}

/// No clock until the scheduler starts (the machine timer's address is not known
/// before); it reads 0 meanwhile.
pub const DEFAULT_CLOCK: Clock = Clock { read: no_clock, hz: 0, name: ClockName::Mtime };

/// No default output on bare metal: the firmware sets one.
#[cfg(feature = "shell")]
pub fn default_output(_bytes: &[u8]) -> bool {
    false
}

/// Nothing to count: `mtime` counts by itself.
#[inline(always)]
pub fn on_isr_enter() {}

/// Nothing to count: `mtime` counts by itself.
#[inline(always)]
pub fn on_tick() {}

/// `mtime` at `port_setting` (the hooks header's `configMTIME_BASE_ADDRESS`) if there
/// is one; else `mcycle` if it advances; else no clock (rate 0, which the caller does
/// not install).
pub fn clock_at_scheduler_start(cpu_hz: u32, port_setting: u32) -> Clock {
    if port_setting != 0 {
        MTIME.store(port_setting as usize, Ordering::Relaxed);
        return Clock { read: mtime_low, hz: cpu_hz, name: ClockName::Mtime };
    }
    let first = mcycle_low();
    for _ in 0..64 {
        core::hint::spin_loop();
    }
    let hz = if mcycle_low() != first { cpu_hz } else { 0 };
    Clock { read: mcycle_clock, hz, name: ClockName::Mcycle }
}

/// Stops everything: only reachable through a bug (the panic handler).
#[cfg(feature = "panic-handler")]
pub fn halt() -> ! {
    loop {
        // SAFETY: an illegal instruction: the trap goes to the firmware's exception
        // handler (FreeRTOS's freertos_risc_v_application_exception_handler), where a
        // debugger or the firmware sees it.
        unsafe { core::arch::asm!("unimp") };
    }
}

/// Nothing to keep: the RISC-V port has no interrupt mask level, only `mstatus.MIE`.
#[inline(always)]
pub fn set_interrupt_mask_level(_port_setting: u32) {}

/// Clears `mstatus.MIE` and puts back what it was. The token is 1 when interrupts were
/// enabled at acquire, so that release enables them again; 0 otherwise (a section
/// inside another, inside a kernel critical section, or in a trap handler, where the
/// hart cleared MIE on entry), and release leaves them off. (On several cores this
/// is the section's own hart's part: `super::smp`.)
#[cfg(feature = "critical-section-impl")]
pub(super) mod cs {
    use super::super::Token;
    /// `mstatus.MIE`, bit 3: the instructions below clear and set it by its value, 8.
    const MSTATUS_MIE: usize = 1 << 3;

    #[cfg(not(cpu_usage_smp))]
    struct MachineInterruptCs;
    #[cfg(not(cpu_usage_smp))]
    critical_section::set_impl!(MachineInterruptCs);

    #[cfg(not(cpu_usage_smp))]
    unsafe impl critical_section::Impl for MachineInterruptCs {
        unsafe fn acquire() -> Token {
            // SAFETY: forwarded contract.
            unsafe { acquire() }
        }

        unsafe fn release(token: Token) {
            // SAFETY: forwarded contract.
            unsafe { release(token) }
        }
    }

    /// Masks this hart's interrupts: returns the token for `release`.
    ///
    /// # Safety
    /// As `critical_section::Impl::acquire`.
    #[inline(always)]
    pub(crate) unsafe fn acquire() -> Token {
        let mstatus: usize;
        // SAFETY: atomically reads mstatus and clears MIE (machine mode, where the
        // library runs); not `nomem`, so that no access of the section is moved
        // before it.
        unsafe { core::arch::asm!("csrrci {}, mstatus, 8", out(reg) mstatus, options(nostack, preserves_flags)) };
        Token::from(mstatus & MSTATUS_MIE != 0)
    }

    /// Puts back what `acquire` masked.
    ///
    /// # Safety
    /// As `critical_section::Impl::release`.
    #[inline(always)]
    pub(crate) unsafe fn release(token: Token) {
        if token != 0 {
            // SAFETY: enables interrupts that were enabled at acquire; not `nomem`,
            // so that no access of the section is moved after it.
            unsafe { core::arch::asm!("csrsi mstatus, 8", options(nostack, preserves_flags)) };
        }
    }
}
