//! Bare-metal build: Arm M-profile cores under the FreeRTOS GCC/ARM_CM3 port (and
//! the CM4F/CM7 ports, which share its hooks).
//!
//! Default clock: the DWT cycle counter, one count per CPU cycle, read in one load.
//! Some cores have no DWT, and QEMU's model of it neither counts nor keeps writes; at
//! scheduler start the counter is tried, and if it does not advance the library
//! falls back to a SysTick-extended count: the counter's reloads times the SysTick
//! period, plus how far the current period has run. Both count CPU cycles,
//! so their frequency is `configCPU_CLOCK_HZ`, which the hooks header passes in.
//! The SysTick count assumes SysTick interrupts every tick: with tickless idle
//! (`configUSE_TICKLESS_IDLE`), which reprograms it, set a clock of your own.

use super::{Clock, ClockName};
use core::ptr::{read_volatile, write_volatile};
use core::sync::atomic::{AtomicU32, Ordering};

const DEMCR: *mut u32 = 0xE000_EDFC as *mut u32;
const DEMCR_TRCENA: u32 = 1 << 24;
const DWT_CTRL: *mut u32 = 0xE000_1000 as *mut u32;
const DWT_CYCCNT: *mut u32 = 0xE000_1004 as *mut u32;
const DWT_LAR: *mut u32 = 0xE000_1FB0 as *mut u32;
const DWT_LAR_KEY: u32 = 0xC5AC_CE55;
const SYST_RVR: *const u32 = 0xE000_E014 as *const u32;
const SYST_CVR: *const u32 = 0xE000_E018 as *const u32;
const SYST_CSR: *const u32 = 0xE000_E010 as *const u32;
const SYST_CSR_COUNTFLAG: u32 = 1 << 16;

/// Reloads of the SysTick counter, for the SysTick-extended clock.
static TICKS: AtomicU32 = AtomicU32::new(0);

unsafe extern "C" fn dwt_cycles() -> u32 {
    // SAFETY: DWT_CYCCNT is a readable register on cores that have a DWT.
    unsafe { read_volatile(DWT_CYCCNT) }
}

/// `TICKS × (RVR + 1) + (RVR − CVR)`, modulo 2^32, where `TICKS` counts the
/// counter's reloads. They are counted here, by whichever reading first sees
/// `COUNTFLAG` (set by the hardware when the counter reaches 0, cleared by reading
/// the control register), not by the tick interrupt: a reading taken in a handler
/// that runs before the tick's (an interrupt that preempts the SysTick handler's
/// first instructions, or the handler's own `traceISR_ENTER`) would otherwise be a
/// whole period behind the one before it. The hooks that read the clock run one at
/// a time with interrupts masked, so the count needs no atomic update, and the tick
/// hook reads it every period, so no reload goes unseen.
unsafe extern "C" fn systick_cycles() -> u32 {
    // SAFETY: the SysTick registers exist on every M-profile core.
    unsafe {
        let reload = read_volatile(SYST_RVR);
        let mut ticks = TICKS.load(Ordering::Relaxed);
        let mut value = read_volatile(SYST_CVR);
        if read_volatile(SYST_CSR) & SYST_CSR_COUNTFLAG != 0 {
            // The counter reached 0 since the last reading, perhaps after `value`
            // was read: read it again, after the reload it is the new period's.
            ticks = ticks.wrapping_add(1);
            TICKS.store(ticks, Ordering::Relaxed);
            value = read_volatile(SYST_CVR);
            if value == 0 {
                // Not reloaded yet: the last count of the period just counted.
                return ticks.wrapping_mul(reload.wrapping_add(1)).wrapping_sub(1);
            }
        }
        ticks.wrapping_mul(reload.wrapping_add(1)).wrapping_add(reload.wrapping_sub(value))
    }
}

/// No clock until the scheduler starts (the CPU frequency is not known before).
pub const DEFAULT_CLOCK: Clock = Clock { read: systick_cycles, hz: 0, name: ClockName::Systick };

/// No default output on bare metal: the firmware sets one.
#[cfg(feature = "shell")]
pub fn default_output(_bytes: &[u8]) -> bool {
    false
}

/// Nothing to count: the SysTick-extended clock counts reloads as it reads them.
#[inline(always)]
pub fn on_isr_enter() {}

/// Nothing to count: the SysTick-extended clock counts reloads as it reads them.
#[inline(always)]
pub fn on_tick() {}

/// Enables the DWT cycle counter and keeps it if it advances; otherwise SysTick. (The
/// port setting, `configMAX_SYSCALL_INTERRUPT_PRIORITY` here, is the critical section's.)
pub fn clock_at_scheduler_start(cpu_hz: u32, _port_setting: u32) -> Clock {
    // SAFETY: architected debug registers; writes are ignored where absent.
    let advances = unsafe {
        write_volatile(DEMCR, read_volatile(DEMCR) | DEMCR_TRCENA);
        write_volatile(DWT_LAR, DWT_LAR_KEY); // only Cortex-M7 locks the DWT
        write_volatile(DWT_CYCCNT, 0);
        write_volatile(DWT_CTRL, read_volatile(DWT_CTRL) | 1);
        let first = read_volatile(DWT_CYCCNT);
        for _ in 0..64 {
            core::hint::spin_loop();
        }
        read_volatile(DWT_CYCCNT) != first
    };
    if advances {
        return Clock { read: dwt_cycles, hz: cpu_hz, name: ClockName::DwtCyccnt };
    }
    // The SysTick count starts again here: reloads seen before (firmware that ran
    // SysTick with a period of its own, before the port set it up) are not of the
    // period it has from now on. This reading and those until the port sets SysTick
    // up are of the old period: the first after may lie up to one old period before
    // them, which the engine takes as no time passed (`MAX_STEP_BACK` is more than
    // SysTick's 24 bits count), so the clock starts counting for real then.
    TICKS.store(0, Ordering::Relaxed);
    // SAFETY: reading the control register only clears COUNTFLAG.
    unsafe { read_volatile(SYST_CSR) };
    Clock { read: systick_cycles, hz: cpu_hz, name: ClockName::Systick }
}

/// Stops everything: only reachable through a bug (the panic handler).
#[cfg(feature = "panic-handler")]
pub fn halt() -> ! {
    loop {
        // SAFETY: a permanently undefined instruction: escalates to HardFault,
        // where a debugger or the firmware's fault handler sees it.
        unsafe { core::arch::asm!("udf #0") };
    }
}

/// Tells the critical section the BASEPRI level to raise to: the
/// `configMAX_SYSCALL_INTERRUPT_PRIORITY` the hooks header passes when the scheduler
/// starts (0: PRIMASK). Only cores with BASEPRI keep it.
#[inline(always)]
pub fn set_interrupt_mask_level(max_syscall_priority: u32) {
    #[cfg(all(cpu_usage_basepri, feature = "critical-section-impl"))]
    cs::LEVEL.store(super::mask::basepri_level(max_syscall_priority), core::sync::atomic::Ordering::Relaxed);
    #[cfg(not(all(cpu_usage_basepri, feature = "critical-section-impl")))]
    let _ = max_syscall_priority;
}

/// Masks what FreeRTOS masks (`super::mask` says which mask when, and how the token
/// encodes it). Nests, and is correct from tasks and from interrupts at or below the
/// kernel's priority.
#[cfg(feature = "critical-section-impl")]
pub(super) mod cs {
    use super::super::mask::Taken;
    use super::super::Token;

    /// The BASEPRI level to raise to; 0 (PRIMASK) until the scheduler starts. Written
    /// once by the scheduler-start hook, with interrupts masked.
    #[cfg(cpu_usage_basepri)]
    pub(super) static LEVEL: core::sync::atomic::AtomicU8 = core::sync::atomic::AtomicU8::new(0);

    #[cfg(not(cpu_usage_smp))]
    struct FreeRtosMaskCs;
    #[cfg(not(cpu_usage_smp))]
    critical_section::set_impl!(FreeRtosMaskCs);

    // Not inlined: see `acquire`.
    #[cfg(not(cpu_usage_smp))]
    unsafe impl critical_section::Impl for FreeRtosMaskCs {
        #[inline(never)]
        unsafe fn acquire() -> Token {
            // SAFETY: forwarded contract.
            unsafe { acquire() }
        }

        #[inline(never)]
        unsafe fn release(token: Token) {
            // SAFETY: forwarded contract.
            unsafe { release(token) }
        }
    }

    /// Masks what the kernel masks: returns the token for `release`. (Inlined into its
    /// one caller, the section's `acquire`, or on several cores `super::smp`'s, which
    /// is not inlined: readers and setters call it, since with two masks to choose
    /// from a copy in each would cost some 40 bytes of flash, and the hooks (the hot
    /// path) never take the section.)
    ///
    /// # Safety
    /// As `critical_section::Impl::acquire`.
    #[inline(always)]
    pub(crate) unsafe fn acquire() -> Token {
        #[cfg(cpu_usage_basepri)]
        {
            let level = LEVEL.load(core::sync::atomic::Ordering::Relaxed);
            if level != 0 {
                // SAFETY: the library runs privileged, from tasks and from handlers
                // at or below the kernel's priority (the hooks header's contract).
                return unsafe { raise_basepri(level) }.encode();
            }
        }
        let primask: u32;
        // SAFETY: reads PRIMASK, then masks interrupts; no memory is touched.
        unsafe {
            core::arch::asm!("mrs {}, PRIMASK", out(reg) primask, options(nomem, nostack, preserves_flags));
            core::arch::asm!("cpsid i", options(nostack, preserves_flags));
        }
        // Interrupts were enabled if PRIMASK was clear.
        Taken::Primask { were_enabled: primask & 1 == 0 }.encode()
    }

    /// Puts back what `acquire` masked.
    ///
    /// # Safety
    /// As `critical_section::Impl::release`.
    #[inline(always)]
    pub(crate) unsafe fn release(token: Token) {
        match Taken::decode(token) {
            // SAFETY: re-enables interrupts that were enabled at acquire.
            Taken::Primask { were_enabled: true } => unsafe {
                core::arch::asm!("cpsie i", options(nostack, preserves_flags));
            },
            Taken::Primask { were_enabled: false } => {}
            Taken::Basepri { previous } => {
                // SAFETY: puts back the BASEPRI read at acquire.
                #[cfg(cpu_usage_basepri)]
                unsafe {
                    core::arch::asm!("msr BASEPRI, {}", in(reg) u32::from(previous), options(nostack, preserves_flags));
                }
                // Never taken where the core has no BASEPRI.
                #[cfg(not(cpu_usage_basepri))]
                let _ = previous;
            }
        }
    }

    /// Raises BASEPRI to `level` as the kernel's `ulPortRaiseBASEPRI()` does (read,
    /// write, `isb`, `dsb`), but through `BASEPRI_MAX`, which never lowers it: a caller
    /// that already masks more keeps its mask. Returns what to put back.
    ///
    /// Cortex-M7 r0p1 (erratum 837070) may still take a masked interrupt on the one
    /// instruction after the write; the kernel's ARM_CM7/r0p1 port brackets the write
    /// with `cpsid i`/`cpsie i` for that. Here that instruction is the `isb`, so such a
    /// handler ends before the section's first access, as if it had come just before
    /// the section; no bracket (which would unmask a caller's PRIMASK) is needed.
    ///
    /// # Safety
    /// Privileged code, from a task or a handler at or below the kernel's priority.
    #[cfg(cpu_usage_basepri)]
    #[inline(always)]
    unsafe fn raise_basepri(level: u8) -> Taken {
        let previous: u32;
        // SAFETY: by the caller's contract; not `nomem`, so that no access of the
        // section is moved before it.
        unsafe {
            core::arch::asm!(
                "mrs {previous}, BASEPRI",
                "msr BASEPRI_MAX, {level}",
                "isb",
                "dsb",
                previous = out(reg) previous,
                level = in(reg) u32::from(level),
                options(nostack, preserves_flags),
            );
        }
        Taken::Basepri { previous: previous as u8 }
    }
}
