//! What the application needs of QEMU's mps2-an385 besides the core and the kernel:
//! the console on the CMSDK APB UART0 (polled output), a free-running CMSDK APB TIMER1
//! that the workloads time their burns with, and the way out of QEMU (Arm
//! semihosting). Addresses as in `freertos-port/mps2-an385/mps2_board.h`, from QEMU's
//! `hw/arm/mps2.c`.

use core::fmt;
use core::ptr::{read_volatile, write_volatile};

/// The system clock, which drives the core, SysTick and the APB peripherals.
pub const SYSCLK_HZ: u32 = 25_000_000;

const UART0_DATA: *mut u32 = 0x4000_4000 as *mut u32;
const UART0_STATE: *const u32 = 0x4000_4004 as *const u32;
const UART0_CTRL: *mut u32 = 0x4000_4008 as *mut u32;
const UART0_BAUDDIV: *mut u32 = 0x4000_4010 as *mut u32;
const UART_STATE_TXFULL: u32 = 1 << 0;
const UART_CTRL_TXEN: u32 = 1 << 0;
/// 115200 baud from the system clock on hardware; QEMU ignores the rate, but the
/// CMSDK UART wants a divisor of at least 16.
const UART_BAUDDIV: u32 = SYSCLK_HZ / 115_200;

const TIMER1_CTRL: *mut u32 = 0x4000_1000 as *mut u32;
const TIMER1_VALUE: *mut u32 = 0x4000_1004 as *mut u32;
const TIMER1_RELOAD: *mut u32 = 0x4000_1008 as *mut u32;
const TIMER_CTRL_EN: u32 = 1 << 0;

/// UART0's transmitter, polled: usable from any context, before the scheduler and
/// in the panic handler too. Each `\n` goes out as `\r\n`, for a terminal in raw mode
/// (QEMU's `-serial stdio`).
pub struct Uart0;

impl Uart0 {
    /// The transmitter, enabled. (QEMU's model never completes a byte written while
    /// the transmitter is off: its TXFULL stays set.)
    pub fn new() -> Uart0 {
        // SAFETY: UART0's registers, which only this module touches.
        unsafe {
            if read_volatile(UART0_CTRL) & UART_CTRL_TXEN == 0 {
                write_volatile(UART0_BAUDDIV, UART_BAUDDIV);
                write_volatile(UART0_CTRL, read_volatile(UART0_CTRL) | UART_CTRL_TXEN);
            }
        }
        Uart0
    }

    fn put(&mut self, byte: u8) {
        self.flush();
        // SAFETY: as in `new`.
        unsafe { write_volatile(UART0_DATA, u32::from(byte)) };
    }

    /// Waits until the transmitter has taken the last byte.
    pub fn flush(&mut self) {
        // SAFETY: as in `new`.
        while unsafe { read_volatile(UART0_STATE) } & UART_STATE_TXFULL != 0 {}
    }
}

impl fmt::Write for Uart0 {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        for byte in s.bytes() {
            if byte == b'\n' {
                self.put(b'\r');
            }
            self.put(byte);
        }
        Ok(())
    }
}

/// Starts TIMER1 counting at the system clock, forever: its whole 32-bit range, then
/// again. Not SysTick, which the kernel and the library's clock use: the workloads
/// time themselves with a clock of their own.
pub fn start_cycle_counter() {
    // SAFETY: TIMER1's registers, which only this module touches.
    unsafe {
        write_volatile(TIMER1_CTRL, 0);
        write_volatile(TIMER1_RELOAD, u32::MAX);
        write_volatile(TIMER1_VALUE, u32::MAX);
        write_volatile(TIMER1_CTRL, TIMER_CTRL_EN);
    }
}

/// System clock cycles since [`start_cycle_counter`], modulo 2^32 (TIMER1 counts down:
/// its complement counts up).
pub fn cycles() -> u32 {
    // SAFETY: as in `start_cycle_counter`; a read has no side effect.
    !unsafe { read_volatile(TIMER1_VALUE) }
}

/// Ends the QEMU run with `status` as QEMU's exit status (semihosting's
/// SYS_EXIT_EXTENDED, as `freertos-port/bare-metal/cortex-m/semihosting.c` does). QEMU must
/// run with `-semihosting-config enable=on`; without it the request is a HardFault.
pub fn exit(status: u32) -> ! {
    const SYS_EXIT_EXTENDED: u32 = 0x20;
    const ADP_STOPPED_APPLICATION_EXIT: u32 = 0x2_0026;
    Uart0::new().flush();
    let block = [ADP_STOPPED_APPLICATION_EXIT, status];
    // SAFETY: a semihosting request: r0 the operation, r1 its argument block, which
    // the host reads while the core is stopped.
    unsafe {
        core::arch::asm!("bkpt #0xab", inout("r0") SYS_EXIT_EXTENDED => _, in("r1") block.as_ptr(), options(nostack));
    }
    // Only if the host ignored the request.
    loop {
        core::hint::spin_loop();
    }
}
