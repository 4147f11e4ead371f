/*
 * clock.c - the CLINT's machine timer: the kernel's tick, and demo.h's wall clock.
 *
 * The tick. FreeRTOS's RISC-V port would program mtimecmp itself and take the timer
 * interrupt in portASM.S, which calls the kernel without any trace hook: the library
 * would never see the tick as an interrupt (its time would go to whichever task it
 * interrupted). This port builds the kernel with the RISCV_no_extensions chip header,
 * so portASM.S hands the timer interrupt to interrupts.c like any other, and the tick is
 * done here, between the library's enter and exit. vPortSetupTimerInterrupt() replaces
 * the port's weak one with the same schedule: the next compare value is always the
 * previous one plus one tick, so ticks stay exactly configCPU_CLOCK_HZ /
 * configTICK_RATE_HZ counts apart however late a handler runs.
 *
 * The wall clock is mtime itself, in microseconds: 10 counts each, read as one 64-bit
 * value (high, low, high again), so it is exact and monotonic from any context.
 */
#include "FreeRTOS.h"
#include "task.h"

#include "demo.h"
#include "riscv_virt.h"

#define MTIME_PER_TICK    ( configCPU_CLOCK_HZ / configTICK_RATE_HZ )
#define MTIME_PER_US      ( configCPU_CLOCK_HZ / 1000000u )

_Static_assert( configCPU_CLOCK_HZ == VIRT_MTIME_HZ, "the port's tick counts the CLINT's mtime" );
_Static_assert( configCPU_CLOCK_HZ % configTICK_RATE_HZ == 0u, "a tick must be a whole number of mtime counts" );
_Static_assert( configCPU_CLOCK_HZ % 1000000u == 0u, "a microsecond must be a whole number of mtime counts" );

#define MTIME_LOW          VIRT_REG32( VIRT_MTIME_BASE )
#define MTIME_HIGH         VIRT_REG32( VIRT_MTIME_BASE + 4u )
#define MTIMECMP_LOW       VIRT_REG32( VIRT_MTIMECMP_BASE )
#define MTIMECMP_HIGH      VIRT_REG32( VIRT_MTIMECMP_BASE + 4u )

/* The compare value of the next tick. */
static uint64_t next_tick;

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

/* A 64-bit compare value in two 32-bit writes, never passing through a value below
 * both the old and the new one (which would fire the interrupt early). */
static void mtimecmp_write( uint64_t value )
{
    MTIMECMP_LOW = UINT32_MAX;
    MTIMECMP_HIGH = ( uint32_t ) ( value >> 32 );
    MTIMECMP_LOW = ( uint32_t ) value;
}

/* Called by the port's xPortStartScheduler(), which then enables the timer and
 * external interrupts in mie. */
void vPortSetupTimerInterrupt( void )
{
    next_tick = virt_mtime() + MTIME_PER_TICK;
    mtimecmp_write( next_tick );
}

/* The machine timer interrupt (interrupts.c, which calls the library around it). */
int virt_tick_isr( void )
{
    next_tick += MTIME_PER_TICK;
    mtimecmp_write( next_tick );

    return xTaskIncrementTick() != pdFALSE;
}

uint32_t port_time_us( void )
{
    return ( uint32_t ) ( virt_mtime() / MTIME_PER_US );
}
