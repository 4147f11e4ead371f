/*
 * clock.c - the machine timer: the kernel's tick on hart 0, and demo.h's wall clock.
 *
 * mtime is one counter for every hart (10 MHz of guest time), so any hart reads the
 * same clock; each hart has its own mtimecmp, and only hart 0's is programmed: the tick
 * is hart 0's interrupt alone (the port enables MTIE on hart 0 only), as tasks.c
 * expects of SMP ("core 0 has the responsibility to increment the tick"). The schedule
 * is ../riscv-virt/clock.c's: each compare value is the previous one plus one tick, so
 * ticks stay exactly configCPU_CLOCK_HZ / configTICK_RATE_HZ counts apart however late
 * a handler runs, and a hart 0 held up (by the host, without -icount) catches up.
 *
 * xTaskIncrementTick() touches the ready lists and may ask other harts to yield, which
 * in SMP must happen inside the kernel's ISR lock: taskENTER_CRITICAL_FROM_ISR() takes
 * it. The switch it may ask for on hart 0 happens after that section ends (the port's
 * dispatch, after the handler returns).
 */
#include "FreeRTOS.h"
#include "task.h"

#include "demo.h"
#include "riscv_virt_smp.h"

#define MTIME_PER_TICK    ( configCPU_CLOCK_HZ / configTICK_RATE_HZ )
#define MTIME_PER_US      ( configCPU_CLOCK_HZ / 1000000u )

_Static_assert( configCPU_CLOCK_HZ == VIRT_MTIME_HZ, "the tick counts the CLINT's mtime" );
_Static_assert( configCPU_CLOCK_HZ % configTICK_RATE_HZ == 0u, "a tick must be a whole number of mtime counts" );
_Static_assert( configCPU_CLOCK_HZ % 1000000u == 0u, "a microsecond must be a whole number of mtime counts" );

#define MTIME_LOW          VIRT_REG32( VIRT_MTIME_BASE )
#define MTIME_HIGH         VIRT_REG32( VIRT_MTIME_BASE + 4u )
/* Hart 0's compare register, the first of the CLINT's per-hart array. */
#define MTIMECMP0_LOW      VIRT_REG32( VIRT_MTIMECMP_BASE )
#define MTIMECMP0_HIGH     VIRT_REG32( VIRT_MTIMECMP_BASE + 4u )

/* The compare value of the next tick; hart 0's handler is its only writer. */
static uint64_t next_tick;

/* mtime when the tick started: tick k is due at virt_smp_tick_origin + k ticks. */
uint64_t virt_smp_tick_origin;

uint64_t virt_mtime( void )
{
    uint32_t high;
    uint32_t low;

    do
    {
        high = MTIME_HIGH;
        low = MTIME_LOW;
    } while( high != MTIME_HIGH );

    return ( ( uint64_t ) high << 32 ) | low;
}

/* Never through a value below both the old and the new one (an early interrupt). */
static void mtimecmp0_write( uint64_t value )
{
    MTIMECMP0_LOW = UINT32_MAX;
    MTIMECMP0_HIGH = ( uint32_t ) ( value >> 32 );
    MTIMECMP0_LOW = ( uint32_t ) value;
}

/* The port's xPortStartScheduler(), on hart 0, which then enables MTIE there. */
void vPortSetupTimerInterrupt( void )
{
    virt_smp_tick_origin = virt_mtime();
    next_tick = virt_smp_tick_origin + MTIME_PER_TICK;
    mtimecmp0_write( next_tick );
}

/* Hart 0's machine timer interrupt (interrupts.c). */
int virt_smp_tick_isr( void )
{
    UBaseType_t saved;
    BaseType_t switch_needed;

    next_tick += MTIME_PER_TICK;
    mtimecmp0_write( next_tick );

    saved = taskENTER_CRITICAL_FROM_ISR();
    switch_needed = xTaskIncrementTick();
    taskEXIT_CRITICAL_FROM_ISR( saved );

    return switch_needed != pdFALSE;
}

/* ---- The pacing timers of harts 1 and up ---------------------------------------------
 * Each of the other harts takes its own machine timer once a tick, staggered (hart h
 * at h / configNUMBER_OF_CORES of a tick after hart 0's), and does nothing there but
 * set the next one: no kernel call, no switch.
 *
 * What they are for: under -icount QEMU 7.2 runs the harts in turn in one thread, and
 * a hart's turn lasts until the next timer event, whatever the other harts are
 * waiting for. With the tick as the only event, a busy hart would take a whole tick
 * period at a time, hart 0 would get a turn once every configNUMBER_OF_CORES ticks,
 * and once its tick's compare value is spent and not yet set again there would be no
 * event ahead at all: QEMU then lets the running hart go on for its 100 ms round-robin
 * kick, tasks on the other harts wait that long, and hart 0 falls behind its ticks.
 * With an event every 1 / configNUMBER_OF_CORES of a tick, every hart's turn is that
 * short, each hart gets its turn every tick, and an event is always ahead (each hart
 * sets its own next one). On hardware (or QEMU without -icount) they are one short
 * interrupt per tick per hart, which nothing sees but the time it takes. */
#define PACING_PHASE    ( MTIME_PER_TICK / configNUMBER_OF_CORES )

/* The next compare value of each hart's pacing timer; hart h is its only writer. */
static uint64_t next_pacing[ configNUMBER_OF_CORES ];

static void mtimecmp_write( uint32_t hart, uint64_t value )
{
    VIRT_REG32( VIRT_MTIMECMP_BASE + 8u * hart ) = UINT32_MAX;
    VIRT_REG32( VIRT_MTIMECMP_BASE + 8u * hart + 4u ) = ( uint32_t ) ( value >> 32 );
    VIRT_REG32( VIRT_MTIMECMP_BASE + 8u * hart ) = ( uint32_t ) value;
}

/* The port's vPortSecondaryHartStart(), on hart `hart` (1 and up), before its first
 * task: the first compare value, then MTIE in this hart's mie. */
void vPortSetupSecondaryHart( BaseType_t hart )
{
    uint32_t h = ( uint32_t ) hart;

    next_pacing[ h ] = virt_mtime() + PACING_PHASE * h;
    mtimecmp_write( h, next_pacing[ h ] );
    __asm volatile ( "csrs mie, %0" :: "r" ( 1u << 7 ) );
}

/* The machine timer of hart 1 and up (interrupts.c). A hart held up past a whole
 * period (by the host, without -icount) starts again from now. */
void virt_smp_pacing_isr( uint32_t hart )
{
    uint64_t now = virt_mtime();

    next_pacing[ hart ] += MTIME_PER_TICK;

    if( next_pacing[ hart ] <= now )
    {
        next_pacing[ hart ] = now + MTIME_PER_TICK;
    }

    mtimecmp_write( hart, next_pacing[ hart ] );
}

uint32_t port_time_us( void )
{
    return ( uint32_t ) ( virt_mtime() / MTIME_PER_US );
}
