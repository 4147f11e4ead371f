/*
 * mps2_an385.h - the few registers of QEMU's mps2-an385 board (Cortex-M3, ARM AN385
 * FPGA image) that this port touches, and its own interfaces (the ones the shared
 * files use are in board.h).
 *
 * Register layouts follow the ARMv7-M Architecture Reference Manual (SCB, NVIC,
 * SysTick) and the Cortex-M System Design Kit TRM, DDI0479 (APB UART). Addresses and
 * interrupt numbers follow QEMU's hw/arm/mps2.c, which is what the image runs on.
 */
#ifndef MPS2_AN385_H
#define MPS2_AN385_H

#include "board.h"

#define MPS2_REG( addr )               ( *( volatile uint32_t * ) ( addr ) )

/* ---- Memory map (QEMU hw/arm/mps2.c, AN385) ----------------------------------
 * 0x00000000 4 MiB ZBT SSRAM1: the "flash" the ELF is loaded into (it is RAM on
 *                              QEMU, but the image treats it as read-only code).
 * 0x20000000 4 MiB ZBT SSRAM2/3: data, bss, heaps, main stack.
 * The linker script mps2-an385.ld carries the same numbers. */

/* ---- System control block --------------------------------------------------- */
#define SCB_SHCSR                      MPS2_REG( 0xE000ED24u )
#define SCB_CFSR                       MPS2_REG( 0xE000ED28u )
#define SCB_HFSR                       MPS2_REG( 0xE000ED2Cu )
#define SCB_MMFAR                      MPS2_REG( 0xE000ED34u )
#define SCB_BFAR                       MPS2_REG( 0xE000ED38u )

/* ---- NVIC ------------------------------------------------------------------- */
#define NVIC_ISER0                     MPS2_REG( 0xE000E100u )
#define NVIC_ICER0                     MPS2_REG( 0xE000E180u )
#define NVIC_ISPR0                     MPS2_REG( 0xE000E200u )
#define NVIC_ICPR0                     MPS2_REG( 0xE000E280u )
#define NVIC_IPR_BYTE( irq )           ( *( volatile uint8_t * ) ( 0xE000E400u + ( irq ) ) )

/* ---- SysTick ---------------------------------------------------------------- */
#define SYST_CSR                       MPS2_REG( 0xE000E010u )
#define SYST_RVR                       MPS2_REG( 0xE000E014u )
#define SYST_CVR                       MPS2_REG( 0xE000E018u )
#define SYST_CSR_ENABLE                ( 1u << 0 )
#define SYST_CSR_TICKINT               ( 1u << 1 )
#define SYST_CSR_CLKSOURCE             ( 1u << 2 ) /* 1 = processor clock */

/* ---- CMSDK APB UART0 -------------------------------------------------------- */
#define UART0_BASE                     0x40004000u
#define UART0_DATA                     MPS2_REG( UART0_BASE + 0x00u )
#define UART0_STATE                    MPS2_REG( UART0_BASE + 0x04u )
#define UART0_CTRL                     MPS2_REG( UART0_BASE + 0x08u )
#define UART0_INTSTATUS                MPS2_REG( UART0_BASE + 0x0Cu ) /* write 1 to clear */
#define UART0_BAUDDIV                  MPS2_REG( UART0_BASE + 0x10u )
#define UART_STATE_TXFULL              ( 1u << 0 )
#define UART_STATE_RXFULL              ( 1u << 1 )
#define UART_CTRL_TXEN                 ( 1u << 0 )
#define UART_CTRL_RXEN                 ( 1u << 1 )
#define UART_CTRL_RXIE                 ( 1u << 3 )
#define UART_INT_RX                    ( 1u << 1 )

/* ---- CMSDK APB TIMER0 (DDI0479: a 32-bit down-counter on the 25 MHz PCLK) ------
 * VALUE counts down to 0, raises the interrupt and reloads RELOAD on the next clock,
 * so the period is RELOAD + 1 clocks. Writing RELOAD also loads VALUE (QEMU). */
#define TIMER0_BASE                    0x40000000u
#define TIMER0_CTRL                    MPS2_REG( TIMER0_BASE + 0x00u )
#define TIMER0_VALUE                   MPS2_REG( TIMER0_BASE + 0x04u )
#define TIMER0_RELOAD                  MPS2_REG( TIMER0_BASE + 0x08u )
#define TIMER0_INTCLEAR                MPS2_REG( TIMER0_BASE + 0x0Cu ) /* write 1 to clear */
#define TIMER_CTRL_EN                  ( 1u << 0 )
#define TIMER_CTRL_IRQEN               ( 1u << 3 )

/* External interrupt numbers: UART0 RX is IRQ0, UART0 TX IRQ1 (unused here), TIMER0
 * IRQ8; IRQ30 and IRQ31, which no device of QEMU's model drives, are pended by
 * software for the 'irqmask' check (mask_check.c). */
#define MPS2_IRQ_UART0_RX              0u
#define MPS2_IRQ_TIMER0                8u
#define MPS2_IRQ_MASK_CHECK_ABOVE      30u
#define MPS2_IRQ_MASK_CHECK_AT         31u

/* The system clock that drives the core, SysTick and the APB peripherals. */
#define MPS2_SYSCLK_HZ                 25000000u

#ifndef __ASSEMBLER__

/* clock.c: the SysTick-extended clock; see the comment at the top of clock.c. Cycles
 * since the scheduler started (port_time_us() is its microseconds: board.h). */
uint64_t mps2_clock_cycles( void );

/* irq_load.c: the TIMER0 interrupt load and its shell command. */
void mps2_irq_load_command( int argc, char ** argv );

/* mask_check.c: the shell command 'irqmask' (what the library's critical section masks). */
void mps2_mask_check_command( int argc, char ** argv );

#endif /* __ASSEMBLER__ */

#endif /* MPS2_AN385_H */
