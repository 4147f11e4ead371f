/*
 * irq_load.c - a real peripheral interrupt with a known cost, for the library's
 * "interrupts" line: virt's Goldfish RTC alarm (PLIC source 11) at IRQ_LOAD_HZ, each
 * interrupt busy for IRQ_LOAD_WORK_US. Off at boot; the shell's 'irq on|off|status'
 * (../bare-metal/irq_command.c) switches it, as TIMER0 on mps2-an385.
 *
 * Why the expected share is exact: the RTC counts nanoseconds of QEMU's RTC clock,
 * which board.mk's command lines make guest time (-rtc clock=vm), the time mtime counts
 * too. Each alarm is set one period after the previous one (not after the handler), so
 * the interrupts come exactly IRQ_LOAD_PERIOD_NS apart, and the handler is busy for
 * IRQ_LOAD_WORK_MTIME counts of mtime (the library's clock) from its first reading:
 * 1000 / 20000 = 5.00 %, plus the few instructions between the library's enter and
 * exit calls and the work loop. A handler that starts late (interrupts off in a
 * critical section) still does all of its work. Under -icount, instruction count,
 * RTC and mtime agree in every run.
 *
 * Without -rtc clock=vm the RTC follows the host's wall clock: the rate is then 500 Hz
 * of host time, which under -icount is not 500 Hz of guest time.
 */
#include "FreeRTOS.h"
#include "task.h"

#include "riscv_virt.h"

#define IRQ_LOAD_HZ                500u
#define IRQ_LOAD_PERIOD_NS         ( 1000000000u / IRQ_LOAD_HZ )                  /* 2 ms */
#define IRQ_LOAD_WORK_US           100u
#define IRQ_LOAD_WORK_MTIME        ( IRQ_LOAD_WORK_US * ( VIRT_MTIME_HZ / 1000000u ) ) /* 1000 */
#define IRQ_LOAD_PERIOD_MTIME      ( VIRT_MTIME_HZ / IRQ_LOAD_HZ )                   /* 20000 */

/* The expected share of the CPU in hundredths of a percent. */
#define IRQ_LOAD_SHARE_BP          ( ( IRQ_LOAD_WORK_MTIME * 10000u ) / IRQ_LOAD_PERIOD_MTIME )

_Static_assert( 1000000000u % IRQ_LOAD_HZ == 0u, "a whole number of nanoseconds per period" );
_Static_assert( VIRT_MTIME_HZ % IRQ_LOAD_HZ == 0u, "a whole number of mtime counts per period" );
_Static_assert( ( IRQ_LOAD_WORK_MTIME * 10000u ) % IRQ_LOAD_PERIOD_MTIME == 0u, "the expected share shows exactly" );
_Static_assert( IRQ_LOAD_WORK_MTIME < IRQ_LOAD_PERIOD_MTIME / 2u, "the work must leave time for everything else" );

static volatile uint32_t irq_count;

/* Set while the load runs: each alarm then sets the next one. */
static volatile uint8_t alarm_on;

const BoardIrqLoad_t board_irq_load =
{
    .source = "Goldfish RTC alarm",
    .line = "PLIC source ",
    .line_number = VIRT_IRQ_RTC,
    .hz = IRQ_LOAD_HZ,
    .work_us = IRQ_LOAD_WORK_US,
    .share_bp = IRQ_LOAD_SHARE_BP,
};

/* When the next alarm is due, in RTC nanoseconds. */
static uint64_t next_alarm;

/* High, low, high again: right whether TIME_HIGH reads the count afresh or (newer
 * QEMU) what the last TIME_LOW read latched. */
static uint64_t rtc_now( void )
{
    uint32_t high;
    uint32_t low;

    do
    {
        high = RTC_TIME_HIGH;
        low = RTC_TIME_LOW;
    } while( high != RTC_TIME_HIGH );

    return ( ( uint64_t ) high << 32 ) | low;
}

static void rtc_arm( uint64_t at )
{
    RTC_ALARM_HIGH = ( uint32_t ) ( at >> 32 );
    RTC_ALARM_LOW = ( uint32_t ) at; /* arms it; an alarm already due fires at once */
}

/* PLIC source 11 (interrupts.c, which calls the library around it). */
void virt_rtc_isr( void )
{
    uint64_t start = virt_mtime();

    RTC_CLEAR_INTERRUPT = 1u;

    if( alarm_on != 0u )
    {
        next_alarm += IRQ_LOAD_PERIOD_NS;
        rtc_arm( next_alarm );
    }

    while( virt_mtime() - start < IRQ_LOAD_WORK_MTIME )
    {
    }

    irq_count = irq_count + 1u;
}

void board_irq_load_start( void )
{
    RTC_CLEAR_ALARM = 1u;
    RTC_CLEAR_INTERRUPT = 1u;
    RTC_IRQ_ENABLED = 1u;
    virt_plic_enable( VIRT_IRQ_RTC );
    taskENTER_CRITICAL();
    alarm_on = 1u;
    next_alarm = rtc_now() + IRQ_LOAD_PERIOD_NS;
    rtc_arm( next_alarm );
    taskEXIT_CRITICAL();
}

void board_irq_load_stop( void )
{
    taskENTER_CRITICAL();
    alarm_on = 0u;
    RTC_CLEAR_ALARM = 1u;
    RTC_IRQ_ENABLED = 0u;
    RTC_CLEAR_INTERRUPT = 1u;
    virt_plic_disable( VIRT_IRQ_RTC );
    taskEXIT_CRITICAL();
}

uint32_t board_irq_load_count( void )
{
    return irq_count;
}
