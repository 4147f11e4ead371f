/*
 * main.c - demo.h's console and exit for every bare-metal QEMU board (board.h), and
 * main() of the demo image. The board gives the UART, port_time_us(), port_name and
 * its shell commands (mps2-an385: commands.c); the kernel's application hooks and the
 * fatal paths are in kernel_hooks.c.
 *
 * The console has two input sources; output always goes to the board's UART (polled).
 * - Interactive (default): input from the UART (QEMU -serial stdio), interrupt-driven.
 *   QEMU puts a terminal in raw mode without echo: port_console_is_terminal() says so,
 *   and the demo's shell echoes and edits the line itself. The serial line has no
 *   end-of-file: byte 0x04 (EOT, what Ctrl-D sends) reads as PORT_CONSOLE_EOF.
 * - Scripted: when QEMU is given -semihosting-config ...,arg=console=semihosting,
 *   input is read from the host's stdin through semihosting, one byte per request,
 *   without echo, and the end of stdin is PORT_CONSOLE_EOF, as on the POSIX port with
 *   piped input. Each byte arrives at the same guest instruction in every run, so
 *   with -icount the whole run is reproducible, which UART input is not (see
 *   cortex-m/semihosting.c). A board without semihosting (riscv-virt) has the
 *   interactive console only. port_console_getc() then never times out, and a read stops the
 *   whole machine until the host has a byte: the script must end with end-of-file (a
 *   pipe or a file, not a terminal). QEMU's serial port must not read stdin then (a
 *   file chardev on /dev/stdout instead of -serial stdio): board.mk's QEMU_CMD_SCRIPT.
 * Bytes are passed on as they come (CR, LF and CR LF are the shell's business), except
 * 0x04 in both modes. Output is not translated; QEMU leaves the terminal's LF -> CRLF
 * output processing on.
 *
 * Exit: port_exit() and every fatal path end the run through board_exit() (on the Arm
 * boards semihosting's SYS_EXIT_EXTENDED), so QEMU's own exit status is the verdict.
 */
#include "demo.h"
#include "board.h"

#include "FreeRTOS.h"
#include "task.h"

#define CONSOLE_EOT    0x04

/* Nonzero when the console input comes from the host's stdin through semihosting. */
static uint8_t console_scripted;

/* ---- demo.h ------------------------------------------------------------------ */

int port_console_is_terminal( void )
{
    /* The UART is a person's terminal (QEMU puts it in raw mode, without echo); the
     * semihosting script is not. */
    return ( console_scripted == 0u ) ? 1 : 0;
}

int port_console_getc( uint32_t timeout_ms )
{
    int c;

    if( console_scripted != 0u )
    {
        c = board_semihosting_stdin_getc();

        if( c < 0 )
        {
            return PORT_CONSOLE_EOF;
        }
    }
    else
    {
        c = board_console_rx_getc( timeout_ms );

        if( c < 0 )
        {
            return PORT_CONSOLE_TIMEOUT;
        }
    }

    return ( c == CONSOLE_EOT ) ? PORT_CONSOLE_EOF : c;
}

void port_console_write( const char * s, size_t n )
{
    /* The shell task gives up the CPU while the host is slow to read its output,
     * as it would with an interrupt-driven UART, rather than spinning: a report
     * backed up on the host side must not show as one long run of the shell. */
    for( size_t i = 0; i < n; i++ )
    {
        while( board_uart_tx_full() != 0 )
        {
            vTaskDelay( 1 );
        }

        board_uart_putc( s[ i ] );
    }
}

void port_exit( int status )
{
    board_exit( status );
}

/* port_time_us() is the board's (mps2-an385: clock.c). */

/* ---- main() -------------------------------------------------------------------- */

/* board.h: the board's own tasks, next to the demo's. None on most boards;
 * mps2-an386 adds its floating-point check (cm4f.c). */
__attribute__( ( weak ) ) void board_start( void )
{
}

int main( void )
{
    /* Keep interrupts at or below the kernel's priority masked until the first task
     * starts (the kernel also leaves them masked after its first API call): the UART
     * ISR must not run before there is a task to wake. */
    portDISABLE_INTERRUPTS();

    board_init();

    if( board_semihosting_cmdline_has( "console=semihosting" ) && board_semihosting_stdin_open() )
    {
        console_scripted = 1u;
    }
    else
    {
        board_console_rx_init();
    }

    demo_start();

    if( board_semihosting_cmdline_has( "many-tasks" ) )
    {
        demo_add_waiting_tasks();
    }

    board_start();
    vTaskStartScheduler();

    /* Only if the idle task could not be created. */
    board_fatal( "vTaskStartScheduler returned", BOARD_EXIT_SCHEDULER_RETURNED );
}
