/*
 * idle_sleep.c - the tickless-idle wait of the Arm boards (board.h's board_idle_sleep).
 */
#include "board.h"
#include "cortex_m.h"

#include "FreeRTOS.h"
#include "task.h"

/*
 * portSUPPRESS_TICKS_AND_SLEEP() (FreeRTOSConfig.h): the idle task, with the scheduler
 * suspended, when no task is due for at least two ticks. The SysTick is left running,
 * so this sleeps until the next interrupt, the tick at the latest; the kernel catches
 * up on that tick in xTaskResumeAll() and the idle task comes back here if there is
 * still nothing to do. Not the port's own vPortSuppressTicksAndSleep(), which stops
 * the SysTick for several ticks: the library's SysTick-extended clock (and
 * mps2-an385's clock.c) count every tick interrupt.
 *
 * PRIMASK around the check and the wait: a pending interrupt still ends the wait but
 * is taken only after "cpsie i", so one that arrives after the check cannot be slept
 * through.
 *
 * The wait is WFI on silicon (BOARD_IDLE_WFI 1). Under QEMU it is a loop until an
 * interrupt is pending (ICSR.VECTPENDING, which PRIMASK does not hide), because QEMU
 * 7.2 with -icount shift=5,sleep=off loses SysTick interrupts across WFI: while the
 * core is halted, guest time jumps ahead to timer events, and one SysTick interrupt
 * often ends two periods. Measured with TIMER1 as a reference clock: with WFI, up to
 * 70 % of the intervals between SysTick interrupts of a mostly idle system were two
 * periods long (with PRIMASK set around it or not); with this loop, or an idle task
 * that spins, none. Every tick-counting clock (the kernel's, clock.c's, the library's
 * SysTick-extended one) then loses those periods: TIMER0 at 500 Hz came out at 800 to
 * 900 interrupts per 1000 ticks. The loop executes instructions, so guest time runs
 * with the instruction count as everywhere else and the run stays deterministic; the
 * library sees the same sleep_begin / sleep_end either way.
 */
#ifndef BOARD_IDLE_WFI
    #define BOARD_IDLE_WFI    0
#endif

#define BOARD_IDLE_POLL_SPINS    32u

#if ( configUSE_TICKLESS_IDLE != 0 )
void board_idle_sleep( uint32_t expected_idle_ticks )
{
    ( void ) expected_idle_ticks;

    __asm volatile ( "cpsid i" ::: "memory" );

    if( eTaskConfirmSleepModeStatus() != eAbortSleep )
    {
        #if ( BOARD_IDLE_WFI == 1 )
            __asm volatile ( "dsb" ::: "memory" );
            __asm volatile ( "wfi" );
            __asm volatile ( "isb" );
        #else
            /* A register read is slow for QEMU (it leaves the translated code), so
             * it looks every BOARD_IDLE_POLL_SPINS turns of a loop in RAM: an
             * interrupt is taken a few microseconds late at most, never lost. */
            while( ( CORTEX_M_ICSR & CORTEX_M_ICSR_VECTPENDING_MASK ) == 0u )
            {
                for( volatile uint32_t spin = 0u; spin < BOARD_IDLE_POLL_SPINS; spin++ )
                {
                }
            }
        #endif
    }

    __asm volatile ( "cpsie i" ::: "memory" );
}
#endif /* configUSE_TICKLESS_IDLE */
