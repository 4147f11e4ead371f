/*
 * mps2_an385.h - the registers the MPS2 board code touches, and the board code's
 * internal interfaces (the ones the board-independent files use, which microbit
 * shares too, are in board.h). The board code in this directory (startup, UART, SysTick
 * clock, TIMER0 load, semihosting...) is shared by every QEMU MPS2 port: the core's
 * registers are architected (SCB, NVIC, SysTick) and the UART and timer are the same
 * CMSDK APB blocks on every MPS2 FPGA image. What differs from one image to another
 * (base addresses, interrupt numbers, clock, the kernel port's handler names) comes
 * from the port's mps2_board.h: this directory's for mps2-an385, and for another
 * board the one in its own directory, which comes first on the include path.
 *
 * Register layouts follow the ARMv7-M and ARMv8-M Architecture Reference Manuals
 * (SCB, NVIC, SysTick) and the Cortex-M System Design Kit TRM, DDI0479 (APB UART,
 * APB timer).
 */
#ifndef MPS2_AN385_H
#define MPS2_AN385_H

#include "board.h"
#include "cortex_m.h"

/* Angle brackets: a quoted include would find this directory's mps2_board.h first
 * (the including file's own directory), whichever board is being built. */
#include <mps2_board.h>

#define MPS2_REG( addr )               ( *( volatile uint32_t * ) ( addr ) )

/* ---- System control block --------------------------------------------------- */
#define SCB_SHCSR                      MPS2_REG( 0xE000ED24u )
#define SCB_CPACR                      MPS2_REG( 0xE000ED88u ) /* cores with an FPU */
#define SCB_CPACR_CP10_CP11_FULL       ( 0xFu << 20 )

/* ---- NVIC ------------------------------------------------------------------- */
#define NVIC_ISER0                     MPS2_REG( 0xE000E100u )
#define NVIC_ICER0                     MPS2_REG( 0xE000E180u )
#define NVIC_ISPR0                     MPS2_REG( 0xE000E200u )
#define NVIC_ICPR0                     MPS2_REG( 0xE000E280u )
#define NVIC_IPR_BYTE( irq )           ( *( volatile uint8_t * ) ( 0xE000E400u + ( irq ) ) )
/* Any IRQ number: the register of 32 that holds it, and its bit there. */
#define NVIC_WORD( reg0, irq )         MPS2_REG( ( reg0 ) + 4u * ( ( uint32_t ) ( irq ) >> 5 ) )
#define NVIC_BIT( irq )                ( 1u << ( ( uint32_t ) ( irq ) & 31u ) )
#define NVIC_ENABLE( irq )             ( NVIC_WORD( 0xE000E100u, irq ) = NVIC_BIT( irq ) )
#define NVIC_DISABLE( irq )            ( NVIC_WORD( 0xE000E180u, irq ) = NVIC_BIT( irq ) )
#define NVIC_PEND( irq )               ( NVIC_WORD( 0xE000E200u, irq ) = NVIC_BIT( irq ) )
#define NVIC_UNPEND( irq )             ( NVIC_WORD( 0xE000E280u, irq ) = NVIC_BIT( irq ) )

/* ---- SysTick ---------------------------------------------------------------- */
#define SYST_CSR                       MPS2_REG( 0xE000E010u )
#define SYST_RVR                       MPS2_REG( 0xE000E014u )
#define SYST_CVR                       MPS2_REG( 0xE000E018u )
#define SYST_CSR_ENABLE                ( 1u << 0 )
#define SYST_CSR_TICKINT               ( 1u << 1 )
#define SYST_CSR_CLKSOURCE             ( 1u << 2 ) /* 1 = processor clock */

/* ---- CMSDK APB UART0 (UART0_BASE: mps2_board.h) ----------------------------- */
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

/* ---- CMSDK APB TIMER0 (TIMER0_BASE: mps2_board.h) ----------------------------
 * DDI0479: a 32-bit down-counter on PCLK, which is MPS2_SYSCLK_HZ here. VALUE counts
 * down to 0, raises the interrupt and reloads RELOAD on the next clock, so the period
 * is RELOAD + 1 clocks. Writing RELOAD also loads VALUE (QEMU). */
#define TIMER0_CTRL                    MPS2_REG( TIMER0_BASE + 0x00u )
#define TIMER0_VALUE                   MPS2_REG( TIMER0_BASE + 0x04u )
#define TIMER0_RELOAD                  MPS2_REG( TIMER0_BASE + 0x08u )
#define TIMER0_INTCLEAR                MPS2_REG( TIMER0_BASE + 0x0Cu ) /* write 1 to clear */
#define TIMER_CTRL_EN                  ( 1u << 0 )
#define TIMER_CTRL_IRQEN               ( 1u << 3 )

/* What every board header must give. */
#if !defined( MPS2_SYSCLK_HZ ) || !defined( UART0_BASE ) || !defined( TIMER0_BASE ) ||     \
    !defined( MPS2_IRQ_UART0_RX ) || !defined( MPS2_IRQ_TIMER0 ) ||                        \
    !defined( MPS2_IRQ_MASK_CHECK_ABOVE ) || !defined( MPS2_IRQ_MASK_CHECK_AT ) ||         \
    !defined( MPS2_EXTERNAL_IRQS ) || !defined( MPS2_PORT_NAME ) ||                        \
    !defined( MPS2_KERNEL_SVC_HANDLER ) || !defined( MPS2_KERNEL_PENDSV_HANDLER ) ||       \
    !defined( MPS2_KERNEL_SYSTICK_HANDLER )
    #error "mps2_board.h is incomplete: see freertos-port/mps2-an385/mps2_board.h for what it defines"
#endif

#ifndef __ASSEMBLER__

/* clock.c: the SysTick vector (counts the tick, then the kernel's handler). */
void mps2_systick_handler( void );

/* clock.c: the SysTick-extended clock; see the comment at the top of clock.c. Cycles
 * since the scheduler started (port_time_us() is its microseconds: board.h). */
uint64_t mps2_clock_cycles( void );

#endif /* __ASSEMBLER__ */

#endif /* MPS2_AN385_H */
