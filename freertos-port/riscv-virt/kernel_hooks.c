/*
 * kernel_hooks.c - the kernel's application hooks (stack overflow, heap exhausted, the
 * tickless-idle sleep) and the port's fatal paths (virt_fatal, the target of
 * configASSERT), each ending the QEMU run with its own exit status (riscv_virt.h).
 */
#include "FreeRTOS.h"
#include "task.h"

#include "riscv_virt.h"

/* ---- Fatal paths ---------------------------------------------------------------- */

void virt_fatal( const char * what, int code )
{
    __asm volatile ( "csrc mstatus, 8" ::: "memory" );
    virt_uart_puts( "\nFATAL " );
    virt_uart_puts( what );
    virt_uart_puts( "\n" );
    virt_exit( code );
}

void virt_assert_failed( const char * file, int line )
{
    __asm volatile ( "csrc mstatus, 8" ::: "memory" );
    virt_uart_puts( "\nASSERT " );
    virt_uart_puts( file );
    virt_uart_puts( ":" );
    virt_uart_put_dec( ( uint32_t ) line );
    virt_uart_puts( "\n" );
    virt_exit( VIRT_EXIT_ASSERT );
}

/* ---- Kernel hooks -------------------------------------------------------------- */

/*
 * portSUPPRESS_TICKS_AND_SLEEP() (FreeRTOSConfig.h): the idle task, with the scheduler
 * suspended, when no task is due for at least two ticks. The machine timer keeps
 * running, so this sleeps in WFI until the next interrupt, the tick at the latest, as
 * on mps2-an385.
 *
 * mstatus.MIE off around the check and the wait: WFI still wakes for an interrupt that
 * is pending and enabled in mie whatever MIE says, and the interrupt is taken once MIE
 * is set again, so none that arrives after the check is slept through.
 *
 * Unlike mps2-an385 (whose kernel_hooks.c polls instead: QEMU 7.2's Cortex-M3 model
 * loses SysTick interrupts across WFI under -icount), QEMU 7.2's RISC-V model keeps
 * every tick: with -icount shift=5,sleep=off guest time jumps to the next timer event
 * while the hart waits, and each 1 s window still holds exactly 1000 tick interrupts
 * (measured with every workload at 0 %, sleep 78 %). The run stays deterministic, and
 * an idle guest costs the host nothing.
 */
void virt_idle_sleep( uint32_t expected_idle_ticks )
{
    ( void ) expected_idle_ticks;

    __asm volatile ( "csrc mstatus, 8" ::: "memory" );

    if( eTaskConfirmSleepModeStatus() != eAbortSleep )
    {
        __asm volatile ( "wfi" ::: "memory" );
    }

    __asm volatile ( "csrs mstatus, 8" ::: "memory" );
}

void vApplicationStackOverflowHook( TaskHandle_t task, char * name )
{
    ( void ) task;
    __asm volatile ( "csrc mstatus, 8" ::: "memory" );
    virt_uart_puts( "\nFATAL stack overflow in task " );
    virt_uart_puts( name );
    virt_uart_puts( "\n" );
    virt_exit( VIRT_EXIT_STACK_OVERFLOW );
}

void vApplicationMallocFailedHook( void )
{
    virt_fatal( "FreeRTOS heap exhausted (configTOTAL_HEAP_SIZE)", VIRT_EXIT_MALLOC_FAILED );
}
