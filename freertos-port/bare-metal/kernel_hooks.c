/*
 * kernel_hooks.c - what every image of a bare-metal QEMU board needs besides its main()
 * (board.h): the kernel's application hooks (stack overflow, heap exhausted) and the
 * port's fatal paths (board_fatal, the target of configASSERT), each ending the QEMU
 * run with its own exit status (board.h). The demo (main.c) and the minimal build's
 * example (snapshot_main.c) both link it. The tickless-idle wait is the board's
 * (board_idle_sleep: cortex-m/idle_sleep.c on the Arm boards).
 */
#include "board.h"

#include "FreeRTOS.h"
#include "task.h"

/* ---- Fatal paths ---------------------------------------------------------------- */

void board_fatal( const char * what, int code )
{
    board_interrupts_off();
    board_uart_puts( "\nFATAL " );
    board_uart_puts( what );
    board_uart_puts( "\n" );
    board_exit( code );
}

void board_assert_failed( const char * file, int line )
{
    board_interrupts_off();
    board_uart_puts( "\nASSERT " );
    board_uart_puts( file );
    board_uart_puts( ":" );
    board_uart_put_dec( ( uint32_t ) line );
    board_uart_puts( "\n" );
    board_exit( BOARD_EXIT_ASSERT );
}

/* ---- Kernel hooks -------------------------------------------------------------- */

void vApplicationStackOverflowHook( TaskHandle_t task, char * name )
{
    ( void ) task;
    board_interrupts_off();
    board_uart_puts( "\nFATAL stack overflow in task " );
    board_uart_puts( name );
    board_uart_puts( "\n" );
    board_exit( BOARD_EXIT_STACK_OVERFLOW );
}

void vApplicationMallocFailedHook( void )
{
    board_fatal( "FreeRTOS heap exhausted (configTOTAL_HEAP_SIZE)", BOARD_EXIT_MALLOC_FAILED );
}
