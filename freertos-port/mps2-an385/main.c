/*
 * main.c - the mps2-an385 side of demo/demo.h, the kernel's application hooks, and
 * the way out of QEMU.
 *
 * The console has two input sources; output always goes to UART0 (polled).
 * - Interactive (default): input from UART0 (QEMU -serial stdio), interrupt-driven.
 *   QEMU puts a terminal in raw mode without echo, so the port echoes what it reads
 *   (printable characters, line ends, and erasing for backspace/DEL), which is what a
 *   terminal does for the POSIX port. The serial line has no end-of-file: byte 0x04
 *   (EOT, what Ctrl-D sends) reads as PORT_CONSOLE_EOF.
 * - Scripted: when QEMU is given -semihosting-config ...,arg=console=semihosting,
 *   input is read from the host's stdin through semihosting, one byte per request,
 *   without echo, and the end of stdin is PORT_CONSOLE_EOF, as on the POSIX port with
 *   piped input. Each byte arrives at the same guest instruction in every run, so
 *   with -icount the whole run is reproducible, which UART input is not (see
 *   semihosting.c). port_console_getc() then never times out, and a read stops the
 *   whole machine until the host has a byte: the script must end with end-of-file (a
 *   pipe or a file, not a terminal). QEMU's serial port must not read stdin then (a
 *   file chardev on /dev/stdout instead of -serial stdio): port.mk's QEMU_CMD_SCRIPT.
 * Bytes are passed on as they come (CR, LF and CR LF are the shell's business), except
 * 0x04 in both modes. Output is not translated; QEMU leaves the terminal's LF -> CRLF
 * output processing on.
 *
 * Exit: port_exit() and every fatal path end the run through semihosting's
 * SYS_EXIT_EXTENDED, so QEMU's own exit status is the verdict.
 */
#include "demo.h"
#include "mps2_an385.h"

#include "FreeRTOS.h"
#include "task.h"

#define CONSOLE_EOT    0x04

/* Nonzero when the console input comes from the host's stdin through semihosting. */
static uint8_t console_scripted;

const char *const port_name = "mps2-an385 (QEMU Cortex-M3)";

static const DemoPortCommand_t mps2_commands[] =
{
    { "irq", "on|off|status", "TIMER0 interrupts: 500 Hz, 100 us each", mps2_irq_load_command },
    { "irqmask", "", "which IRQs the library's critical section holds off (sets a clock)", mps2_mask_check_command },
};

const DemoPortCommand_t * const port_commands = mps2_commands;
const size_t port_command_count = sizeof( mps2_commands ) / sizeof( mps2_commands[ 0 ] );

void mps2_fatal( const char * what, int code )
{
    __asm volatile ( "cpsid i" ::: "memory" );
    mps2_uart_puts( "\nFATAL " );
    mps2_uart_puts( what );
    mps2_uart_puts( "\n" );
    mps2_exit( code );
}

void mps2_assert_failed( const char * file, int line )
{
    __asm volatile ( "cpsid i" ::: "memory" );
    mps2_uart_puts( "\nASSERT " );
    mps2_uart_puts( file );
    mps2_uart_puts( ":" );
    mps2_uart_put_dec( ( uint32_t ) line );
    mps2_uart_puts( "\n" );
    mps2_exit( MPS2_EXIT_ASSERT );
}

/* ---- demo.h ------------------------------------------------------------------ */

/* Echo for the interactive console, as a terminal in canonical mode would do it. Only
 * erases what it has echoed on the current line, so the prompt stays. */
static void console_echo( int c )
{
    static uint32_t column;
    static uint8_t last_was_cr;
    uint8_t is_cr = ( c == '\r' ) ? 1u : 0u;

    if( ( c == '\r' ) || ( c == '\n' ) )
    {
        if( ( c == '\r' ) || ( last_was_cr == 0u ) )
        {
            mps2_uart_putc( '\n' );
        }

        column = 0u;
    }
    else if( ( c == '\b' ) || ( c == 0x7F ) )
    {
        if( column > 0u )
        {
            mps2_uart_puts( "\b \b" );
            column--;
        }
    }
    else if( ( c == '\t' ) || ( ( c >= 0x20 ) && ( c < 0x7F ) ) )
    {
        mps2_uart_putc( ( char ) c );
        column++;
    }

    last_was_cr = is_cr;
}

int port_console_getc( uint32_t timeout_ms )
{
    int c;

    if( console_scripted != 0u )
    {
        c = mps2_semihosting_stdin_getc();

        if( c < 0 )
        {
            return PORT_CONSOLE_EOF;
        }
    }
    else
    {
        c = mps2_console_rx_getc( timeout_ms );

        if( c < 0 )
        {
            return PORT_CONSOLE_TIMEOUT;
        }

        if( c != CONSOLE_EOT )
        {
            console_echo( c );
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
        while( mps2_uart_tx_full() != 0 )
        {
            vTaskDelay( 1 );
        }

        mps2_uart_putc( s[ i ] );
    }
}

void port_exit( int status )
{
    mps2_exit( status );
}

/* port_time_us() is in clock.c. */

/* ---- Kernel hooks -------------------------------------------------------------- */

/*
 * portSUPPRESS_TICKS_AND_SLEEP() (FreeRTOSConfig.h): the idle task, with the scheduler
 * suspended, when no task is due for at least two ticks. The SysTick is left running,
 * so this sleeps until the next interrupt, the tick at the latest; the kernel catches
 * up on that tick in xTaskResumeAll() and the idle task comes back here if there is
 * still nothing to do. Not the port's own vPortSuppressTicksAndSleep(), which stops
 * the SysTick for several ticks: clock.c and the library's SysTick-extended clock
 * count every tick interrupt.
 *
 * PRIMASK around the check and the wait: a pending interrupt still ends the wait but
 * is taken only after "cpsie i", so one that arrives after the check cannot be slept
 * through.
 *
 * The wait is WFI on silicon (MPS2_IDLE_WFI 1). Under QEMU it is a loop until an
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
#ifndef MPS2_IDLE_WFI
    #define MPS2_IDLE_WFI    0
#endif

#define MPS2_IDLE_POLL_SPINS    32u

#if ( configUSE_TICKLESS_IDLE != 0 )
void mps2_idle_sleep( uint32_t expected_idle_ticks )
{
    ( void ) expected_idle_ticks;

    __asm volatile ( "cpsid i" ::: "memory" );

    if( eTaskConfirmSleepModeStatus() != eAbortSleep )
    {
        #if ( MPS2_IDLE_WFI == 1 )
            __asm volatile ( "dsb" ::: "memory" );
            __asm volatile ( "wfi" );
            __asm volatile ( "isb" );
        #else
            /* A register read is slow for QEMU (it leaves the translated code), so
             * it looks every MPS2_IDLE_POLL_SPINS turns of a loop in RAM: an
             * interrupt is taken a few microseconds late at most, never lost. */
            while( ( SCB_ICSR & SCB_ICSR_VECTPENDING_MASK ) == 0u )
            {
                for( volatile uint32_t spin = 0u; spin < MPS2_IDLE_POLL_SPINS; spin++ )
                {
                }
            }
        #endif
    }

    __asm volatile ( "cpsie i" ::: "memory" );
}
#endif /* configUSE_TICKLESS_IDLE */

void vApplicationStackOverflowHook( TaskHandle_t task, char * name )
{
    ( void ) task;
    __asm volatile ( "cpsid i" ::: "memory" );
    mps2_uart_puts( "\nFATAL stack overflow in task " );
    mps2_uart_puts( name );
    mps2_uart_puts( "\n" );
    mps2_exit( MPS2_EXIT_STACK_OVERFLOW );
}

void vApplicationMallocFailedHook( void )
{
    mps2_fatal( "FreeRTOS heap exhausted (configTOTAL_HEAP_SIZE)", MPS2_EXIT_MALLOC_FAILED );
}

int main( void )
{
    /* Keep interrupts at or below the kernel's priority masked until the first task
     * starts (the kernel also leaves them masked after its first API call): the UART
     * ISR must not run before there is a task to wake. */
    portDISABLE_INTERRUPTS();

    mps2_uart_init();

    if( mps2_semihosting_cmdline_has( "console=semihosting" ) && mps2_semihosting_stdin_open() )
    {
        console_scripted = 1u;
    }
    else
    {
        mps2_console_rx_init();
    }

    demo_start();
    vTaskStartScheduler();

    /* Only if the idle task could not be created. */
    mps2_fatal( "vTaskStartScheduler returned", MPS2_EXIT_SCHEDULER_RETURNED );
}
