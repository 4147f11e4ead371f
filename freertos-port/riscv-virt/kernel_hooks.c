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
 * running, so this sleeps until the next interrupt, the tick at the latest, as on
 * mps2-an385.
 *
 * mstatus.MIE off around the check and the wait: an interrupt that becomes pending
 * after the check still ends the wait (mip shows it whatever MIE says) and is taken
 * after MIE is set again, so none is slept through.
 *
 * The wait is WFI on silicon (VIRT_IDLE_WFI 1). Under QEMU it is a loop that looks at
 * mip & mie, as mps2-an385's looks at the NVIC: there QEMU 7.2 with -icount lost timer
 * interrupts across WFI (guest time jumps to the next timer event while the core is
 * halted; mps2-an385/kernel_hooks.c has the measurements). A loop executes
 * instructions, so guest time runs with the instruction count as everywhere else.
 */
#ifndef VIRT_IDLE_WFI
    #define VIRT_IDLE_WFI    0
#endif

#define VIRT_IDLE_POLL_SPINS    32u

void virt_idle_sleep( uint32_t expected_idle_ticks )
{
    ( void ) expected_idle_ticks;

    __asm volatile ( "csrc mstatus, 8" ::: "memory" );

    if( eTaskConfirmSleepModeStatus() != eAbortSleep )
    {
        #if ( VIRT_IDLE_WFI == 1 )
            __asm volatile ( "wfi" ::: "memory" );
        #else
            while( ( VIRT_CSR_READ( mip ) & VIRT_CSR_READ( mie ) ) == 0u )
            {
                for( volatile uint32_t spin = 0u; spin < VIRT_IDLE_POLL_SPINS; spin++ )
                {
                }
            }
        #endif
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
