/*
 * irq_load.c - a real peripheral interrupt with a known cost, for the library's
 * "interrupts" line: CMSDK APB TIMER0 at IRQ_LOAD_HZ, each interrupt busy for 100 us,
 * IRQ_LOAD_WORK_COUNTS of the timer's own counts (the system clock: 2500 at 25 MHz on
 * mps2-an385, 2000 at 20 MHz on mps2-an505). Off at boot; the shell's
 * 'irq on|off|status' (../bare-metal/irq_command.c) switches it.
 *
 * Why the expected share is exact: the work is measured on TIMER0's VALUE, the same
 * system clock that times the interrupts and (as the core clock) the library's
 * SysTick-based clock, so the handler is busy for IRQ_LOAD_WORK_COUNTS counts in every
 * period of IRQ_LOAD_PERIOD_COUNTS (2500 / 50000 at 25 MHz): 5.00 %, plus the few
 * instructions between the library's enter and exit calls and the work loop (under
 * 0.05 pp). The work is counted from the handler's first reading, not from the
 * timer's reload, so a handler that starts late (interrupts masked by a critical
 * section) still does all of it. Under QEMU's -icount, instruction count and timer
 * agree in every run.
 *
 * The share is of the time the library sees: tasks interrupted by it lose that time
 * to the "interrupts" line. A workload that burns a share of the wall time (demo/workloads.c)
 * therefore shows its duty times (1 - 5 %) while this runs.
 */
#include "mps2_an385.h"

#include "FreeRTOS.h"
#include "task.h"

#define IRQ_LOAD_HZ                500u
#define IRQ_LOAD_WORK_US           100u
#define IRQ_LOAD_PERIOD_COUNTS     ( MPS2_SYSCLK_HZ / IRQ_LOAD_HZ )
#define IRQ_LOAD_WORK_COUNTS       ( IRQ_LOAD_WORK_US * ( MPS2_SYSCLK_HZ / 1000000u ) )

/* The expected share of the CPU in hundredths of a percent. */
#define IRQ_LOAD_SHARE_BP          ( ( IRQ_LOAD_WORK_COUNTS * 10000u ) / IRQ_LOAD_PERIOD_COUNTS )

/* Maskable by the kernel (numerically >= configMAX_SYSCALL_INTERRUPT_PRIORITY), as the
 * library's hooks require, and as urgent as the UART: more than SysTick and PendSV, so
 * it can interrupt the tick handler (the library counts nested handlers once). */
#define IRQ_LOAD_PRIORITY          0xC0u

_Static_assert( MPS2_SYSCLK_HZ % IRQ_LOAD_HZ == 0u, "a whole number of timer counts per period" );
_Static_assert( MPS2_SYSCLK_HZ % 1000000u == 0u, "a whole number of timer counts per microsecond" );
_Static_assert( ( IRQ_LOAD_WORK_COUNTS * 10000u ) % IRQ_LOAD_PERIOD_COUNTS == 0u, "the expected share shows exactly" );
_Static_assert( IRQ_LOAD_WORK_COUNTS < IRQ_LOAD_PERIOD_COUNTS / 2u, "the work must leave time for everything else" );
_Static_assert( IRQ_LOAD_PRIORITY >= configMAX_SYSCALL_INTERRUPT_PRIORITY,
                "the handler calls the library's hooks: its priority must be maskable by the kernel" );
_Static_assert( IRQ_LOAD_PRIORITY <= 0xFFu, "an NVIC priority is one byte" );

static volatile uint32_t irq_count;

const BoardIrqLoad_t board_irq_load =
{
    .source = "TIMER0",
    .line = "IRQ",
    .line_number = MPS2_IRQ_TIMER0,
    .hz = IRQ_LOAD_HZ,
    .work_us = IRQ_LOAD_WORK_US,
    .share_bp = IRQ_LOAD_SHARE_BP,
};

/* TIMER0's IRQ, named in the vector table in startup.c. */
void TIMER0_Handler( void )
{
    uint32_t start;
    uint32_t now;
    uint32_t elapsed;

    CPU_USAGE_ISR_ENTER();

    start = TIMER0_VALUE;
    TIMER0_INTCLEAR = 1u;

    /* VALUE counts down and reloads to PERIOD - 1 after 0: the counts elapsed are
     * start - now, or start + PERIOD - now once it has reloaded. */
    do
    {
        now = TIMER0_VALUE;
        elapsed = ( start >= now ) ? ( start - now ) : ( start + IRQ_LOAD_PERIOD_COUNTS - now );
    } while( elapsed < IRQ_LOAD_WORK_COUNTS );

    irq_count = irq_count + 1u;

    /* Nothing to wake, so no portYIELD_FROM_ISR(), which would end it as well. */
    CPU_USAGE_ISR_EXIT();
}

void board_irq_load_start( void )
{
    TIMER0_CTRL = 0u;
    TIMER0_RELOAD = IRQ_LOAD_PERIOD_COUNTS - 1u;
    TIMER0_VALUE = IRQ_LOAD_PERIOD_COUNTS - 1u;
    TIMER0_INTCLEAR = 1u;
    NVIC_UNPEND( MPS2_IRQ_TIMER0 );
    NVIC_IPR_BYTE( MPS2_IRQ_TIMER0 ) = ( uint8_t ) IRQ_LOAD_PRIORITY;
    NVIC_ENABLE( MPS2_IRQ_TIMER0 );
    TIMER0_CTRL = TIMER_CTRL_EN | TIMER_CTRL_IRQEN;
}

void board_irq_load_stop( void )
{
    TIMER0_CTRL = 0u;
    NVIC_DISABLE( MPS2_IRQ_TIMER0 );
    TIMER0_INTCLEAR = 1u;
    NVIC_UNPEND( MPS2_IRQ_TIMER0 );
}

uint32_t board_irq_load_count( void )
{
    return irq_count;
}
