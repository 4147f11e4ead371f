/*
 * clock.c - the CLINT's machine timer: the kernel's tick, and demo.h's wall clock. Both
 * virt boards build it: riscv-virt (one hart) and ../riscv-virt-smp (several), whose
 * other harts' timers are its pacing.c's.
 *
 * The tick. FreeRTOS's RISC-V port would program mtimecmp itself and take the timer
 * interrupt in portASM.S, which calls the kernel without any trace hook: the library
 * would never see the tick as an interrupt (its time would go to whichever task it
 * interrupted). This port builds the kernel with the RISCV_no_extensions chip header,
 * so portASM.S hands the timer interrupt to interrupts.c like any other, and the tick is
 * done here, between the library's enter and exit. vPortSetupTimerInterrupt() replaces
 * the port's weak one with the same schedule: the next compare value is always the
 * previous one plus one tick, so ticks stay exactly configCPU_CLOCK_HZ /
 * configTICK_RATE_HZ counts apart however late a handler runs, and a hart held up (by
 * the host, without -icount) catches up.
 *
 * With several harts the tick is hart 0's mtimecmp alone (the SMP port enables MTIE on
 * hart 0 only), as tasks.c expects of SMP ("core 0 has the responsibility to increment
 * the tick"). xTaskIncrementTick() touches the ready lists and may ask other harts to
 * yield, which in SMP must happen inside the kernel's ISR lock:
 * taskENTER_CRITICAL_FROM_ISR() takes it. The switch it may ask for happens after that
 * section ends (the port's dispatch, after the handler returns). On one hart the same
 * call only masks interrupts, which the kernel's RISC-V port does not do in a handler
 * (portSET_INTERRUPT_MASK_FROM_ISR() is 0: the handler runs with MIE clear already), so
 * it compiles to nothing.
 *
 * The wall clock is mtime itself, in microseconds: 10 counts each, read as one 64-bit
 * value (high, low, high again), so it is exact and monotonic from any context. mtime
 * is one counter for every hart, so every hart reads the same clock.
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

/* The hart whose mtimecmp is the tick. */
#define TICK_HART          0u

/* The compare value of the next tick; the tick's handler is its only writer. */
static uint64_t next_tick;

/* mtime when the tick started: tick k is due at virt_tick_origin + k ticks (the SMP
 * self-check holds the tick count against it). */
uint64_t virt_tick_origin;

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

/* Called by the port's xPortStartScheduler() (on hart 0), which then enables the timer
 * and external interrupts in mie there. */
void vPortSetupTimerInterrupt( void )
{
    virt_tick_origin = virt_mtime();
    next_tick = virt_tick_origin + MTIME_PER_TICK;
    virt_mtimecmp_write( TICK_HART, next_tick );
}

/* The tick's machine timer interrupt (interrupts.c, which calls the library around
 * it). */
int virt_tick_isr( void )
{
    UBaseType_t saved;
    BaseType_t switch_needed;

    next_tick += MTIME_PER_TICK;
    virt_mtimecmp_write( TICK_HART, next_tick );

    saved = taskENTER_CRITICAL_FROM_ISR();
    switch_needed = xTaskIncrementTick();
    taskEXIT_CRITICAL_FROM_ISR( saved );

    return switch_needed != pdFALSE;
}

uint32_t port_time_us( void )
{
    return ( uint32_t ) ( virt_mtime() / MTIME_PER_US );
}
