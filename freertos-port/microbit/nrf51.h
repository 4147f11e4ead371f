/*
 * nrf51.h - the few registers of QEMU's microbit machine (nRF51822: Cortex-M0 at
 * 16 MHz, 256 KiB of flash at 0x0, 16 KiB of RAM at 0x20000000) that this port
 * touches, and its own interfaces (the ones the shared files use are in board.h).
 *
 * Register layouts follow the ARMv6-M Architecture Reference Manual (NVIC, SysTick)
 * and Nordic's nRF51 Series Reference Manual v3.0 (UART, TIMER). Addresses and
 * interrupt numbers follow QEMU's hw/arm/nrf51_soc.c, hw/char/nrf51_uart.c and
 * hw/timer/nrf51_timer.c, which is what the image runs on: a peripheral's IRQ is bits
 * 12..16 of its base address, its ID on the nRF51.
 */
#ifndef NRF51_H
#define NRF51_H

#include "board.h"
#include "cortex_m.h"

#define NRF51_REG( addr )              ( *( volatile uint32_t * ) ( addr ) )

/* ---- NVIC (ARMv6-M: 32 IRQs, 2 priority bits, priority registers by word only) --- */
#define NVIC_ISER0                     NRF51_REG( 0xE000E100u )
#define NVIC_ICER0                     NRF51_REG( 0xE000E180u )
#define NVIC_ISPR0                     NRF51_REG( 0xE000E200u )
#define NVIC_ICPR0                     NRF51_REG( 0xE000E280u )
#define NVIC_IPR( irq )                NRF51_REG( 0xE000E400u + 4u * ( ( irq ) / 4u ) )

/* ---- Peripherals: a task is triggered by writing 1, an event is cleared by
 * writing 0, and an interrupt line stays up while an enabled event is set. ---- */

/* UART0 (nRF51 RM chapter 29): one byte at a time through TXD and RXD. */
#define UART0_BASE                     0x40002000u
#define UART0_TASKS_STARTRX            NRF51_REG( UART0_BASE + 0x000u )
#define UART0_TASKS_STARTTX            NRF51_REG( UART0_BASE + 0x008u )
#define UART0_EVENTS_RXDRDY            NRF51_REG( UART0_BASE + 0x108u )
#define UART0_EVENTS_TXDRDY            NRF51_REG( UART0_BASE + 0x11Cu )
#define UART0_INTENSET                 NRF51_REG( UART0_BASE + 0x304u )
#define UART0_INTENCLR                 NRF51_REG( UART0_BASE + 0x308u )
#define UART0_ENABLE                   NRF51_REG( UART0_BASE + 0x500u )
#define UART0_PSELTXD                  NRF51_REG( UART0_BASE + 0x50Cu )
#define UART0_PSELRXD                  NRF51_REG( UART0_BASE + 0x514u )
#define UART0_RXD                      NRF51_REG( UART0_BASE + 0x518u )
#define UART0_TXD                      NRF51_REG( UART0_BASE + 0x51Cu )
#define UART0_BAUDRATE                 NRF51_REG( UART0_BASE + 0x524u )
#define UART_INT_RXDRDY                ( 1u << 2 )
#define UART_ENABLE_ENABLED            4u
#define UART_BAUDRATE_115200           0x01D7E000u
/* The micro:bit's USB serial bridge: TX on P0.24, RX on P0.25 (QEMU ignores pins). */
#define MICROBIT_PIN_UART_TX           24u
#define MICROBIT_PIN_UART_RX           25u

/* TIMER0..2 (nRF51 RM chapter 18): an up-counter on the 16 MHz clock divided by
 * 2^PRESCALER, BITMODE bits wide. Its value cannot be read directly: TASKS_CAPTURE[n]
 * copies it into CC[n]. A COMPARE[n] event comes when it reaches CC[n]; SHORTS can
 * clear it then, which makes a period of CC[n] counts. */
#define TIMER_BASE( n )                ( 0x40008000u + 0x1000u * ( n ) )
#define TIMER_TASKS_START( n )         NRF51_REG( TIMER_BASE( n ) + 0x000u )
#define TIMER_TASKS_STOP( n )          NRF51_REG( TIMER_BASE( n ) + 0x004u )
#define TIMER_TASKS_CLEAR( n )         NRF51_REG( TIMER_BASE( n ) + 0x00Cu )
#define TIMER_TASKS_CAPTURE( n, cc )   NRF51_REG( TIMER_BASE( n ) + 0x040u + 4u * ( cc ) )
#define TIMER_EVENTS_COMPARE( n, cc )  NRF51_REG( TIMER_BASE( n ) + 0x140u + 4u * ( cc ) )
#define TIMER_SHORTS( n )              NRF51_REG( TIMER_BASE( n ) + 0x200u )
#define TIMER_INTENSET( n )            NRF51_REG( TIMER_BASE( n ) + 0x304u )
#define TIMER_INTENCLR( n )            NRF51_REG( TIMER_BASE( n ) + 0x308u )
#define TIMER_MODE( n )                NRF51_REG( TIMER_BASE( n ) + 0x504u )
#define TIMER_BITMODE( n )             NRF51_REG( TIMER_BASE( n ) + 0x508u )
#define TIMER_PRESCALER( n )           NRF51_REG( TIMER_BASE( n ) + 0x510u )
#define TIMER_CC( n, cc )              NRF51_REG( TIMER_BASE( n ) + 0x540u + 4u * ( cc ) )
#define TIMER_MODE_TIMER               0u
#define TIMER_BITMODE_32               3u
#define TIMER_SHORTS_COMPARE0_CLEAR    ( 1u << 0 )
#define TIMER_INT_COMPARE0             ( 1u << 16 )

/* The timers' clock before the prescaler, and the core's (HCLK): both 16 MHz. */
#define NRF51_TIMER_CLOCK_HZ           16000000u
#define NRF51_HCLK_HZ                  16000000u

/* External interrupt numbers (the peripheral's ID). */
#define NRF51_IRQ_UART0                2u
#define NRF51_IRQ_TIMER0               8u
/* Driven by no device of QEMU's model: pended by software for 'irqmask'. */
#define NRF51_IRQ_MASK_CHECK_URGENT    30u
#define NRF51_IRQ_MASK_CHECK_LOW       31u
#define NRF51_EXTERNAL_IRQS            32u

#ifndef __ASSEMBLER__

/* A priority for an external interrupt: 0x00, 0x40, 0x80 or 0xC0 (2 bits). ARMv6-M
 * gives the priority registers word access only, hence a read-modify-write. */
static inline void nrf51_nvic_set_priority( uint32_t irq, uint8_t priority )
{
    uint32_t shift = 8u * ( irq % 4u );

    NVIC_IPR( irq ) = ( NVIC_IPR( irq ) & ~( 0xFFu << shift ) ) | ( ( uint32_t ) priority << shift );
}

/* startup.c: bytes at the bottom of the main stack never used since reset. */
uint32_t microbit_main_stack_unused( void );

/* clock.c: starts port_time_us()'s timer and microbit_cycles()'; the latter counts
 * the 16 MHz clock, 32 bits, read like port_time_us(). */
void microbit_clock_init( void );
uint32_t microbit_cycles( void );

#endif /* __ASSEMBLER__ */

#endif /* NRF51_H */
