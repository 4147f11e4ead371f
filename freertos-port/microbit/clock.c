/*
 * clock.c - port_time_us(): TIMER1 counting microseconds, 32 bits wide, so it wraps
 * at 2^32 exactly as demo.h asks, with nothing to extend. And microbit_cycles():
 * TIMER2 counting the 16 MHz clock, 32 bits, the clock 'irqmask' gives the library.
 *
 * The demo's workloads burn their share against this clock, and the library measures
 * them with its own (the SysTick-extended count, the core has no DWT), so the two
 * are independent: a different peripheral and a different frequency, the same
 * 16 MHz source.
 *
 * The counter cannot be read directly: TASKS_CAPTURE[0] copies it into CC[0], which is
 * then read. Two registers, no lock: if an interrupt captures in between, the task
 * reads the interrupt's later value, which is still a time between its own capture
 * and its read. So it is safe from tasks and interrupts alike (the tick hook calls
 * it). No CC register is compared against: no interrupt, no event in use.
 */
#include "demo.h"
#include "nrf51.h"

#include "FreeRTOS.h"

#define CLOCK_TIMER          1u
#define CLOCK_PRESCALER      4u /* 16 MHz / 2^4 = 1 MHz */
#define CYCLES_TIMER         2u

_Static_assert( ( NRF51_TIMER_CLOCK_HZ >> CLOCK_PRESCALER ) == 1000000u, "TIMER1 counts microseconds" );

static void free_running_start( uint32_t timer,
                                uint32_t prescaler )
{
    TIMER_TASKS_STOP( timer ) = 1u;
    TIMER_INTENCLR( timer ) = 0xFFFFFFFFu;
    TIMER_SHORTS( timer ) = 0u;
    TIMER_MODE( timer ) = TIMER_MODE_TIMER;
    TIMER_BITMODE( timer ) = TIMER_BITMODE_32;
    TIMER_PRESCALER( timer ) = prescaler;
    TIMER_TASKS_CLEAR( timer ) = 1u;
    TIMER_TASKS_START( timer ) = 1u;
}

void microbit_clock_init( void )
{
    free_running_start( CLOCK_TIMER, CLOCK_PRESCALER );
    free_running_start( CYCLES_TIMER, 0u );
}

uint32_t port_time_us( void )
{
    TIMER_TASKS_CAPTURE( CLOCK_TIMER, 0u ) = 1u;
    return TIMER_CC( CLOCK_TIMER, 0u );
}

uint32_t microbit_cycles( void )
{
    TIMER_TASKS_CAPTURE( CYCLES_TIMER, 0u ) = 1u;
    return TIMER_CC( CYCLES_TIMER, 0u );
}

/* board.h: the library's clock once 'irqmask' has run: TIMER2's count of the core's
 * 16 MHz, at configCPU_CLOCK_HZ (the report names it "custom"). */
_Static_assert( configCPU_CLOCK_HZ == NRF51_HCLK_HZ, "the probe's clock, TIMER2, counts at configCPU_CLOCK_HZ" );

uint32_t board_mask_probe_clock( void )
{
    return microbit_cycles();
}
