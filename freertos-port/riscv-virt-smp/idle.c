/*
 * idle.c - what a hart does when it has no task to run: wait in WFI for the next
 * interrupt, from the kernel's idle hooks (SMP runs one idle task per hart: the
 * "active" one, configUSE_IDLE_HOOK, and the passive ones, configUSE_PASSIVE_IDLE_HOOK,
 * on whichever harts they land).
 *
 * Safe because nothing a hart must act on comes without an interrupt to it: hart 0
 * has the tick; a task made ready for another hart comes with the kernel's
 * portYIELD_CORE(), the software interrupt that wakes it. Interrupts are on in an idle
 * task, so WFI returns into the handler and the switch happens there.
 *
 * The time it buys: under -icount a waiting hart takes no instructions (guest time
 * jumps to the next event with sleep=off), and without -icount its host thread sleeps
 * instead of spinning on a host shared with other work.
 */
#include "FreeRTOS.h"
#include "task.h"

void vApplicationIdleHook( void )
{
    __asm volatile ( "wfi" ::: "memory" );
}

void vApplicationPassiveIdleHook( void )
{
    __asm volatile ( "wfi" ::: "memory" );
}
