/*
 * main.c - the riscv-virt side of demo/demo.h, and main().
 *
 * The console is UART0 (QEMU -serial stdio): output polled, input interrupt-driven
 * (uart.c). QEMU puts a terminal in raw mode without echo, so the port echoes what it
 * reads (printable characters, line ends, and erasing for backspace/DEL), as
 * mps2-an385's interactive console does. The serial line has no end of file: byte
 * 0x04 (EOT, what Ctrl-D sends) reads as PORT_CONSOLE_EOF.
 *
 * Exit: port_exit() and every fatal path end the run through the test finisher
 * (exit.c), so QEMU's own exit status is the verdict.
 */
#include "FreeRTOS.h"
#include "task.h"

#include "demo.h"
#include "riscv_virt.h"

#define CONSOLE_EOT    0x04

const char *const port_name = "riscv-virt (QEMU RV32IMAC)";

static const DemoPortCommand_t virt_commands[] =
{
    { "irq", "on|off|status", "RTC alarm interrupts: 500 Hz, 100 us each", virt_irq_load_command },
    { "irqmask", "", "what the library's critical section does to mstatus.MIE (sets a clock)", virt_mask_check_command },
    { "mcycle", "[use]", "mcycle's rate against mtime; 'use': the library counts with it", virt_mcycle_command },
};

const DemoPortCommand_t * const port_commands = virt_commands;
const size_t port_command_count = sizeof( virt_commands ) / sizeof( virt_commands[ 0 ] );

/* ---- demo.h ------------------------------------------------------------------ */

/* Echo, as a terminal in canonical mode would do it. Only erases what it has echoed on
 * the current line, so the prompt stays. */
static void console_echo( int c )
{
    static uint32_t column;
    static uint8_t last_was_cr;
    uint8_t is_cr = ( c == '\r' ) ? 1u : 0u;

    if( ( c == '\r' ) || ( c == '\n' ) )
    {
        if( ( c == '\r' ) || ( last_was_cr == 0u ) )
        {
            virt_uart_putc( '\n' );
        }

        column = 0u;
    }
    else if( ( c == '\b' ) || ( c == 0x7F ) )
    {
        if( column > 0u )
        {
            virt_uart_puts( "\b \b" );
            column--;
        }
    }
    else if( ( c == '\t' ) || ( ( c >= 0x20 ) && ( c < 0x7F ) ) )
    {
        virt_uart_putc( ( char ) c );
        column++;
    }

    last_was_cr = is_cr;
}

int port_console_getc( uint32_t timeout_ms )
{
    int c = virt_console_rx_getc( timeout_ms );

    if( c < 0 )
    {
        return PORT_CONSOLE_TIMEOUT;
    }

    if( c == CONSOLE_EOT )
    {
        return PORT_CONSOLE_EOF;
    }

    console_echo( c );
    return c;
}

void port_console_write( const char * s, size_t n )
{
    /* The shell task gives up the CPU while the host is slow to read its output, as it
     * would with an interrupt-driven UART, rather than spinning: a report backed up on
     * the host side must not show as one long run of the shell. */
    for( size_t i = 0; i < n; i++ )
    {
        while( virt_uart_tx_full() != 0 )
        {
            vTaskDelay( 1 );
        }

        virt_uart_putc( s[ i ] );
    }
}

void port_exit( int status )
{
    virt_exit( status );
}

/* port_time_us() is in clock.c. */

/* ---- main() -------------------------------------------------------------------- */

int main( void )
{
    /* start.S leaves mstatus.MIE clear; the first task sets it. */
    virt_uart_init();
    virt_console_rx_init();

    demo_start();
    vTaskStartScheduler();

    /* Only if the idle task could not be created. */
    virt_fatal( "vTaskStartScheduler returned", VIRT_EXIT_SCHEDULER_RETURNED );
}
