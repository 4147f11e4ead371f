/*
 * irq_load.c - a real peripheral interrupt with a known cost, for the library's
 * "interrupts" line: TIMER0 (IRQ8) at IRQ_LOAD_HZ, each interrupt busy for
 * IRQ_LOAD_WORK_COUNTS of the timer's own 16 MHz counts. Off at boot; the shell's
 * 'irq on|off|status' (../bare-metal/irq_command.c) switches it. The same load as mps2-an385's, on the nRF51 timer.
 *
 * Why the expected share is exact: the work is measured on TIMER0's counter, on the
 * same 16 MHz clock that times the interrupts and (as the core clock, HCLK) the
 * library's SysTick-extended clock, so the handler is busy for IRQ_LOAD_WORK_COUNTS
 * counts in every period of IRQ_LOAD_PERIOD_COUNTS: 1600 / 32000 = 5.00 %, plus the few
 * instructions between the library's enter and exit calls and the work loop. The
 * period is exact: COMPARE[0] clears the counter through SHORTS, so it counts
 * 0 .. PERIOD - 1 and starts again, with no interrupt latency in it. The work is
 * counted from the handler's first reading, not from the compare, so a handler that
 * starts late (interrupts masked by a critical section) still does all of it. Under
 * QEMU's -icount, instruction count and timer agree in every run.
 *
 * The counter is read by capturing it into CC[1] (nrf51.h); CC[0] holds the period.
 *
 * The share is of the time the library sees: tasks interrupted by it lose that time
 * to the "interrupts" line. A workload that burns a share of the wall time (demo/workloads.c)
 * therefore shows its duty times (1 - 5 %) while this runs.
 */
#include "nrf51.h"

#include "FreeRTOS.h"
#include "task.h"

#define IRQ_LOAD_TIMER             0u
#define IRQ_LOAD_HZ                500u
#define IRQ_LOAD_PERIOD_COUNTS     ( NRF51_TIMER_CLOCK_HZ / IRQ_LOAD_HZ ) /* 32000 */
#define IRQ_LOAD_WORK_COUNTS       1600u                                 /* 100 us */
#define IRQ_LOAD_WORK_US           ( IRQ_LOAD_WORK_COUNTS / ( NRF51_TIMER_CLOCK_HZ / 1000000u ) )

/* The expected share of the CPU in hundredths of a percent. */
#define IRQ_LOAD_SHARE_BP          ( ( IRQ_LOAD_WORK_COUNTS * 10000u ) / IRQ_LOAD_PERIOD_COUNTS )

/* As urgent as the UART: more than SysTick and PendSV, so it can interrupt the tick
 * handler (the library counts nested handlers once). On ARMv6-M the kernel and the
 * library mask every level with PRIMASK, so any level may call the library's hooks. */
#define IRQ_LOAD_PRIORITY          0x80u

_Static_assert( NRF51_TIMER_CLOCK_HZ % IRQ_LOAD_HZ == 0u, "a whole number of timer counts per period" );
_Static_assert( ( IRQ_LOAD_WORK_COUNTS * 10000u ) % IRQ_LOAD_PERIOD_COUNTS == 0u, "the expected share shows exactly" );
_Static_assert( IRQ_LOAD_WORK_COUNTS < IRQ_LOAD_PERIOD_COUNTS / 2u, "the work must leave time for everything else" );
_Static_assert( NRF51_TIMER_CLOCK_HZ == NRF51_HCLK_HZ, "the timer counts the core's clock, the library's clock" );

static volatile uint32_t irq_count;

const BoardIrqLoad_t board_irq_load =
{
    .source = "TIMER0",
    .line = "IRQ",
    .line_number = NRF51_IRQ_TIMER0,
    .hz = IRQ_LOAD_HZ,
    .work_us = IRQ_LOAD_WORK_US,
    .share_bp = IRQ_LOAD_SHARE_BP,
};

static uint32_t timer_now( void )
{
    TIMER_TASKS_CAPTURE( IRQ_LOAD_TIMER, 1u ) = 1u;
    return TIMER_CC( IRQ_LOAD_TIMER, 1u );
}

/* IRQ8, named in the vector table in startup.c. */
void TIMER0_IRQHandler( void )
{
    uint32_t start;
    uint32_t now;
    uint32_t elapsed;

    CPU_USAGE_ISR_ENTER();

    start = timer_now();
    TIMER_EVENTS_COMPARE( IRQ_LOAD_TIMER, 0u ) = 0u;

    /* The counter runs up to PERIOD - 1 and restarts at 0: the counts elapsed are
     * now - start, or now + PERIOD - start once it has restarted. */
    do
    {
        now = timer_now();
        elapsed = ( now >= start ) ? ( now - start ) : ( now + IRQ_LOAD_PERIOD_COUNTS - start );
    } while( elapsed < IRQ_LOAD_WORK_COUNTS );

    irq_count = irq_count + 1u;

    /* The event is cleared before the handler returns (a read on the peripheral bus
     * completes the write), or the line would raise the interrupt again. */
    ( void ) TIMER_EVENTS_COMPARE( IRQ_LOAD_TIMER, 0u );

    /* Nothing to wake, so no portYIELD_FROM_ISR(), which would end it as well. */
    CPU_USAGE_ISR_EXIT();
}

void board_irq_load_start( void )
{
    TIMER_TASKS_STOP( IRQ_LOAD_TIMER ) = 1u;
    TIMER_MODE( IRQ_LOAD_TIMER ) = TIMER_MODE_TIMER;
    TIMER_BITMODE( IRQ_LOAD_TIMER ) = TIMER_BITMODE_32;
    TIMER_PRESCALER( IRQ_LOAD_TIMER ) = 0u;
    TIMER_CC( IRQ_LOAD_TIMER, 0u ) = IRQ_LOAD_PERIOD_COUNTS;
    TIMER_SHORTS( IRQ_LOAD_TIMER ) = TIMER_SHORTS_COMPARE0_CLEAR;
    TIMER_TASKS_CLEAR( IRQ_LOAD_TIMER ) = 1u;
    TIMER_EVENTS_COMPARE( IRQ_LOAD_TIMER, 0u ) = 0u;
    NVIC_ICPR0 = 1u << NRF51_IRQ_TIMER0;
    nrf51_nvic_set_priority( NRF51_IRQ_TIMER0, IRQ_LOAD_PRIORITY );
    TIMER_INTENSET( IRQ_LOAD_TIMER ) = TIMER_INT_COMPARE0;
    NVIC_ISER0 = 1u << NRF51_IRQ_TIMER0;
    TIMER_TASKS_START( IRQ_LOAD_TIMER ) = 1u;
}

void board_irq_load_stop( void )
{
    TIMER_TASKS_STOP( IRQ_LOAD_TIMER ) = 1u;
    NVIC_ICER0 = 1u << NRF51_IRQ_TIMER0;
    TIMER_INTENCLR( IRQ_LOAD_TIMER ) = TIMER_INT_COMPARE0;
    TIMER_EVENTS_COMPARE( IRQ_LOAD_TIMER, 0u ) = 0u;
    NVIC_ICPR0 = 1u << NRF51_IRQ_TIMER0;
}

uint32_t board_irq_load_count( void )
{
    return irq_count;
}
