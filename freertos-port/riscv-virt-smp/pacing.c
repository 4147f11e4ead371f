/*
 * pacing.c - the pacing timers of harts 1 and up: each takes its own machine timer
 * once a tick, staggered (hart h at h / configNUMBER_OF_CORES of a tick after hart 0's
 * tick), and does nothing there but set the next one: no kernel call, no switch. The
 * tick itself, hart 0's, and the wall clock are ../riscv-virt/clock.c's, which this
 * board builds as riscv-virt does.
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
 * interrupt per tick per hart, which nothing sees but the time it takes.
 */
#include "FreeRTOS.h"

#include "riscv_virt_smp.h"

#define MTIME_PER_TICK    ( configCPU_CLOCK_HZ / configTICK_RATE_HZ )
#define PACING_PHASE      ( MTIME_PER_TICK / configNUMBER_OF_CORES )

/* The next compare value of each hart's pacing timer; hart h is its only writer. */
static uint64_t next_pacing[ configNUMBER_OF_CORES ];

/* The port's vPortSecondaryHartStart(), on hart `hart` (1 and up), before its first
 * task: the first compare value, then MTIE in this hart's mie. */
void vPortSetupSecondaryHart( BaseType_t hart )
{
    uint32_t h = ( uint32_t ) hart;

    next_pacing[ h ] = virt_mtime() + PACING_PHASE * h;
    virt_mtimecmp_write( h, next_pacing[ h ] );
    __asm volatile ( "csrs mie, %0" :: "r" ( 1u << 7 ) );
}

/* The machine timer of hart 1 and up (../riscv-virt/interrupts.c). A hart held up past
 * a whole period (by the host, without -icount) starts again from now. */
void virt_smp_pacing_isr( uint32_t hart )
{
    uint64_t now = virt_mtime();

    next_pacing[ hart ] += MTIME_PER_TICK;

    if( next_pacing[ hart ] <= now )
    {
        next_pacing[ hart ] = now + MTIME_PER_TICK;
    }

    virt_mtimecmp_write( hart, next_pacing[ hart ] );
}
