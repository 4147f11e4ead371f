/*
 * idle_sleep.c - the tickless-idle wait (board.h's board_idle_sleep, the target of
 * portSUPPRESS_TICKS_AND_SLEEP() in FreeRTOSConfig.h). The kernel's other hooks and
 * the fatal paths are ../bare-metal/kernel_hooks.c's.
 */
#include "FreeRTOS.h"
#include "task.h"

#include "riscv_virt.h"

/*
 * The idle task, with the scheduler suspended, when no task is due for at least two
 * ticks. The machine timer keeps running, so this sleeps in WFI until the next
 * interrupt, the tick at the latest, as on mps2-an385.
 *
 * mstatus.MIE off around the check and the wait: WFI still wakes for an interrupt that
 * is pending and enabled in mie whatever MIE says, and the interrupt is taken once MIE
 * is set again, so none that arrives after the check is slept through.
 *
 * Unlike the Arm boards (whose ../bare-metal/cortex-m/idle_sleep.c polls instead: QEMU
 * 7.2's Cortex-M3 model loses SysTick interrupts across WFI under -icount), QEMU 7.2's
 * RISC-V model keeps every tick: with -icount shift=5,sleep=off guest time jumps to
 * the next timer event while the hart waits, and each 1 s window still holds exactly
 * 1000 tick interrupts (measured with every workload at 0 %, sleep 78 %). The run stays
 * deterministic, and an idle guest costs the host nothing.
 */
void board_idle_sleep( uint32_t expected_idle_ticks )
{
    ( void ) expected_idle_ticks;

    __asm volatile ( "csrc mstatus, 8" ::: "memory" );

    if( eTaskConfirmSleepModeStatus() != eAbortSleep )
    {
        __asm volatile ( "wfi" ::: "memory" );
    }

    __asm volatile ( "csrs mstatus, 8" ::: "memory" );
}
