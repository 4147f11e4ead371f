/*
 * riscv_virt.h - the devices of QEMU's RISC-V `virt` machine that this port touches, and
 * the port's internal interfaces (the ones the board-independent files of
 * ../bare-metal use are in board.h, which this header includes). The same machine with
 * several harts, ../riscv-virt-smp, builds this directory's device code too (the files
 * board.mk lists there) and includes this header from its own, riscv_virt_smp.h.
 *
 * Addresses and interrupt numbers follow QEMU's hw/riscv/virt.c (the memory map the
 * machine's device tree describes); register layouts follow the SiFive CLINT and PLIC
 * (as QEMU models them), the NS16550A UART, Goldfish's RTC and SiFive's test finisher.
 */
#ifndef RISCV_VIRT_H
#define RISCV_VIRT_H

#include "board.h"

#define VIRT_REG32( addr )             ( *( volatile uint32_t * ) ( addr ) )
#define VIRT_REG8( addr )              ( *( volatile uint8_t * ) ( addr ) )

/* ---- Memory map (QEMU hw/riscv/virt.c) ------------------------------------------
 * 0x00100000 test finisher (exit)      0x00101000 Goldfish RTC
 * 0x02000000 CLINT                     0x0C000000 PLIC
 * 0x10000000 UART0 (NS16550A)          0x80000000 RAM (128 MiB by default; the image
 *                                                 and its stacks use the first 8 MiB,
 *                                                 riscv-virt.ld) */

/* ---- CLINT: the machine timer (mtime, each hart's mtimecmp) and msip -------------
 * One mtime for every hart, counting at 10 MHz of guest time (QEMU's
 * RISCV_ACLINT_DEFAULT_TIMEBASE_FREQ); one 64-bit mtimecmp and one 32-bit msip word per
 * hart, hart 0's first (QEMU's hw/intc/riscv_aclint.c, SiFive layout). */
#define VIRT_CLINT_BASE                0x02000000u
#define VIRT_MSIP_BASE                 VIRT_CLINT_BASE
#define VIRT_MTIMECMP_BASE             ( VIRT_CLINT_BASE + 0x4000u )
#define VIRT_MTIME_BASE                ( VIRT_CLINT_BASE + 0xBFF8u )
#define VIRT_MTIME_HZ                  10000000u
#define VIRT_MSIP0                     VIRT_REG32( VIRT_MSIP_BASE ) /* hart 0's software interrupt */
#define VIRT_MTIMECMP_LOW( hart )      VIRT_REG32( VIRT_MTIMECMP_BASE + 8u * ( hart ) )
#define VIRT_MTIMECMP_HIGH( hart )     VIRT_REG32( VIRT_MTIMECMP_BASE + 8u * ( hart ) + 4u )

/* ---- PLIC (context 0: hart 0 in machine mode) ------------------------------------ */
#define VIRT_PLIC_BASE                 0x0C000000u
#define VIRT_PLIC_PRIORITY( irq )      VIRT_REG32( VIRT_PLIC_BASE + 4u * ( irq ) )
#define VIRT_PLIC_ENABLE0              VIRT_REG32( VIRT_PLIC_BASE + 0x2000u ) /* sources 0..31 */
#define VIRT_PLIC_THRESHOLD            VIRT_REG32( VIRT_PLIC_BASE + 0x200000u )
#define VIRT_PLIC_CLAIM                VIRT_REG32( VIRT_PLIC_BASE + 0x200004u ) /* read: claim; write: complete */

/* PLIC sources (QEMU hw/riscv/virt.h). */
#define VIRT_IRQ_UART0                 10u
#define VIRT_IRQ_RTC                   11u

/* ---- UART0: NS16550A, registers one byte apart --------------------------------- */
#define VIRT_UART0_BASE                0x10000000u
#define UART_RBR                       VIRT_REG8( VIRT_UART0_BASE + 0u ) /* read */
#define UART_THR                       VIRT_REG8( VIRT_UART0_BASE + 0u ) /* write */
#define UART_IER                       VIRT_REG8( VIRT_UART0_BASE + 1u )
#define UART_FCR                       VIRT_REG8( VIRT_UART0_BASE + 2u ) /* write */
#define UART_LCR                       VIRT_REG8( VIRT_UART0_BASE + 3u )
#define UART_MCR                       VIRT_REG8( VIRT_UART0_BASE + 4u )
#define UART_LSR                       VIRT_REG8( VIRT_UART0_BASE + 5u )
#define UART_IER_RX                    ( 1u << 0 ) /* received data available */
#define UART_LCR_8N1                   0x03u
#define UART_MCR_OUT2                  ( 1u << 3 ) /* gates the interrupt line on a PC */
#define UART_LSR_DR                    ( 1u << 0 ) /* a byte is waiting in RBR */
#define UART_LSR_THRE                  ( 1u << 5 ) /* THR can take a byte */
#define UART_LSR_TEMT                  ( 1u << 6 ) /* everything has left */

/* ---- Goldfish RTC: nanoseconds, and an alarm that raises its interrupt ----------
 * Its time follows QEMU's RTC clock: guest (virtual) time with -rtc clock=vm, which
 * board.mk's command lines give, the host's wall clock otherwise. */
#define VIRT_RTC_BASE                  0x00101000u
#define RTC_TIME_LOW                   VIRT_REG32( VIRT_RTC_BASE + 0x00u ) /* latches TIME_HIGH */
#define RTC_TIME_HIGH                  VIRT_REG32( VIRT_RTC_BASE + 0x04u )
#define RTC_ALARM_LOW                  VIRT_REG32( VIRT_RTC_BASE + 0x08u ) /* writing arms the alarm */
#define RTC_ALARM_HIGH                 VIRT_REG32( VIRT_RTC_BASE + 0x0Cu )
#define RTC_IRQ_ENABLED                VIRT_REG32( VIRT_RTC_BASE + 0x10u )
#define RTC_CLEAR_ALARM                VIRT_REG32( VIRT_RTC_BASE + 0x14u )
#define RTC_CLEAR_INTERRUPT            VIRT_REG32( VIRT_RTC_BASE + 0x1Cu )

/* ---- Test finisher: a write ends QEMU with an exit status ------------------------ */
#define VIRT_TEST_BASE                 0x00100000u
#define VIRT_TEST_FINISHER             VIRT_REG32( VIRT_TEST_BASE )
#define VIRT_TEST_PASS                 0x5555u /* exit status 0 */
#define VIRT_TEST_FAIL                 0x3333u /* exit status in bits 16..31 */

/* ---- mcause ----------------------------------------------------------------------- */
#define MCAUSE_INTERRUPT               ( 1u << 31 )
#define MCAUSE_MACHINE_SOFTWARE        ( MCAUSE_INTERRUPT | 3u )
#define MCAUSE_MACHINE_TIMER           ( MCAUSE_INTERRUPT | 7u )
#define MCAUSE_MACHINE_EXTERNAL        ( MCAUSE_INTERRUPT | 11u )

#ifndef __ASSEMBLER__

#define VIRT_CSR_READ( csr )                                          \
    ( {                                                               \
        uint32_t ulCsrValue_;                                         \
        __asm volatile ( "csrr %0, " #csr : "=r" ( ulCsrValue_ ) );   \
        ulCsrValue_;                                                  \
    } )

/* uart.c (the console UART and its input, board.h): interrupts.c calls
 * virt_uart_rx_isr() for PLIC source 10; nonzero: a task woke that should run now. */
int virt_uart_rx_isr( void );

/* Hart `hart`'s mtimecmp set to `value` in two 32-bit writes, never passing through a
 * value below both the old and the new one (which would fire the interrupt early). */
static inline void virt_mtimecmp_write( uint32_t hart, uint64_t value )
{
    VIRT_MTIMECMP_LOW( hart ) = UINT32_MAX;
    VIRT_MTIMECMP_HIGH( hart ) = ( uint32_t ) ( value >> 32 );
    VIRT_MTIMECMP_LOW( hart ) = ( uint32_t ) value;
}

/* clock.c: the machine timer: the kernel's tick on hart 0 (virt_tick_isr(), from
 * interrupts.c; nonzero: switch tasks), and the wall clock of demo.h (port_time_us(),
 * board.h). Tick k is due at virt_tick_origin + k ticks of mtime. */
uint64_t virt_mtime( void );
int virt_tick_isr( void );
extern uint64_t virt_tick_origin;

/* irq_load.c: the RTC interrupt load (PLIC source 11; board.h's board_irq_load). */
void virt_rtc_isr( void );

/* mask_check.c (riscv-virt's demo): the shell command 'irqmask', and the software
 * interrupt it pends. */
void virt_mask_check_command( int argc, char ** argv );
void virt_msip_isr( void );

/* mcycle.c (riscv-virt's demo): the shell command 'mcycle [use]' (the library's other
 * clock). */
void virt_mcycle_command( int argc, char ** argv );

/* interrupts.c: the PLIC set-up (context 0: hart 0). */
void virt_plic_enable( uint32_t irq );
void virt_plic_disable( uint32_t irq );

#endif /* __ASSEMBLER__ */

#endif /* RISCV_VIRT_H */
