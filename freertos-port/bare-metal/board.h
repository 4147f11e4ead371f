/*
 * board.h - what the board-independent files of the bare-metal QEMU demos expect of a
 * board, and what they give it.
 *
 * The board-independent files live here, in freertos-port/bare-metal/ (README.md), and
 * every bare-metal QEMU board lists them in its build (bare-metal.mk) rather than keeping
 * copies:
 *   main.c          demo.h's console, exit and main() of the demo image
 *   kernel_hooks.c  the kernel's application hooks and the fatal paths (board_fatal,
 *                   configASSERT's board_assert_failed)
 *   uart_text.c     text and numbers over board_uart_putc()
 *   console_rx.c    console input: the stream buffer between the board's UART
 *                   interrupt and board_console_rx_getc()
 *   irq_command.c   the shell's 'irq on|off|status' over the board's interrupt load
 *   mask_probe.c    how the boards' 'irqmask' gets inside the library's critical section
 *   snapshot_main.c main() of snapshot.elf, the minimal build's example (no demo)
 * and, for the Arm boards only, in cortex-m/:
 *   semihosting.c   exit with a status, the command line, the host's stdin
 *   syscalls.c      what newlib-nano needs
 *   idle_sleep.c    the tickless-idle wait
 *   exceptions.c    from reset to main(), and the report of an unexpected exception
 * A board (freertos-port/<board>/) provides the rest: the functions marked "board"
 * below, port_time_us(), port_name and port_commands (demo.h), its vector table and
 * startup, and its FreeRTOSConfig.h (whose portSUPPRESS_TICKS_AND_SLEEP() may be
 * board_idle_sleep() and configASSERT() board_assert_failed()). Its own header includes
 * this one.
 */
#ifndef BOARD_H
#define BOARD_H

/* ---- Exit codes of fatal errors detected by the port -------------------------
 * QEMU's exit status is the status given to board_exit(). The demo owns the small
 * numbers (0 = pass); the port's own verdicts sit well above them. */
#define BOARD_EXIT_ASSERT               101
#define BOARD_EXIT_FAULT                102
#define BOARD_EXIT_STACK_OVERFLOW       103
#define BOARD_EXIT_MALLOC_FAILED        104
#define BOARD_EXIT_SCHEDULER_RETURNED   105

#ifndef __ASSEMBLER__

#include <stddef.h>
#include <stdint.h>

/* Every interrupt off, whatever its priority, for the fatal paths: nothing may run
 * between the report and the exit. */
static inline void board_interrupts_off( void )
{
    #if defined( __arm__ )
        __asm volatile ( "cpsid i" ::: "memory" );
    #elif defined( __riscv )
        __asm volatile ( "csrc mstatus, 8" ::: "memory" ); /* mstatus.MIE */
    #else
        #error "board.h: board_interrupts_off() does not know this architecture"
    #endif
}

/* Board: everything main() needs set up first (the console UART, port_time_us()'s
 * timer), with interrupts masked, before the kernel runs. */
void board_init( void );

/* Board: the console UART. Output is polled and works from any context (faults,
 * asserts, before the scheduler); tx_full is nonzero while the transmitter cannot take
 * another byte (the host is slow to read); flush waits until the last byte has gone. */
void board_uart_init( void );
void board_uart_putc( char c );
int board_uart_tx_full( void );
void board_uart_flush( void );

/* Console input, interrupt-driven into a stream buffer. Board: init, before the
 * scheduler starts, calls board_console_rx_attach() and enables the UART's receive
 * interrupt, whose handler calls board_console_rx_drain(). console_rx.c: getc returns
 * a byte, or -1 after timeout_ms without one. */
void board_console_rx_init( void );
int board_console_rx_getc( uint32_t timeout_ms );

/* Board: the UART's side of the console input, for console_rx.c. */
typedef struct BoardConsoleRx
{
    int ( * ready )( void );    /* nonzero while a received byte waits in the UART */
    uint8_t ( * take )( void ); /* reads that byte, which hands the UART the next */
    void ( * hold )( void );    /* the buffer is full: the byte stays in the UART, and
                                 * its interrupt must not come again for it */
    void ( * release )( void ); /* there is room again: the interrupt may take it */
} BoardConsoleRx_t;

/* console_rx.c: the buffer of `bytes`, filled from `uart`. */
void board_console_rx_attach( const BoardConsoleRx_t * uart, size_t bytes );

/* console_rx.c: from the receive interrupt's handler: moves the bytes the UART holds
 * into the buffer, as many as fit; nonzero if that woke a task (portYIELD_FROM_ISR()'s
 * argument). */
int board_console_rx_drain( void );

/* uart_text.c: text and numbers over board_uart_putc(). */
void board_uart_write( const char * s, size_t n );
void board_uart_puts( const char * s );
void board_uart_put_hex( uint32_t value );
void board_uart_put_dec( uint32_t value );

/* Board (Arm: cortex-m/semihosting.c): end the QEMU run with an exit status, after
 * board_uart_flush(); never returns. */
void board_exit( int status ) __attribute__( ( noreturn ) );

/* Board (Arm: cortex-m/semihosting.c): the run's command line and the host's stdin,
 * the scripted console's pieces (main.c). getc returns -1 at end of input. A board
 * without semihosting answers 0 to all three (its console is the UART alone). */
int board_semihosting_cmdline_has( const char * word );
int board_semihosting_stdin_open( void );
int board_semihosting_stdin_getc( void );

/* kernel_hooks.c: print "FATAL <what>" and exit with code. Callable from any context. */
void board_fatal( const char * what, int code ) __attribute__( ( noreturn ) );

/* kernel_hooks.c: the target of configASSERT(). */
void board_assert_failed( const char * file, int line ) __attribute__( ( noreturn ) );

/* Board, optional: its own tasks, created after the demo's, before the scheduler
 * starts (main.c has a weak one that creates none). */
void board_start( void );

/* Board (Arm: cortex-m/idle_sleep.c): portSUPPRESS_TICKS_AND_SLEEP()
 * (configUSE_TICKLESS_IDLE 2), the idle task's wait for the next interrupt. */
void board_idle_sleep( uint32_t expected_idle_ticks );

/* Board (demo.h's, declared here too for the images without the demo): microseconds
 * of a free-running clock, wrapping at 2^32. */
uint32_t port_time_us( void );

/* ---- The interrupt load (demo images) --------------------------------------------
 * Board: a peripheral interrupt at board_irq_load.hz, each one busy for work_us, whose
 * handler calls the library's CPU_USAGE_ISR_ENTER() and _EXIT(): what the shell's
 * 'irq on|off|status' (irq_command.c) switches. start is called only when the load is
 * off, stop whenever the shell asks; count is the interrupts taken since boot. */
typedef struct BoardIrqLoad
{
    const char * source;  /* what raises it: "TIMER0" */
    const char * line;    /* its interrupt line, before the number: "IRQ" */
    uint32_t line_number; /* 8: "TIMER0 (IRQ8)" */
    uint32_t hz;
    uint32_t work_us;
    uint32_t share_bp;    /* the expected share of the CPU, hundredths of a percent */
} BoardIrqLoad_t;

extern const BoardIrqLoad_t board_irq_load;
void board_irq_load_start( void );
void board_irq_load_stop( void );
uint32_t board_irq_load_count( void );

/* irq_command.c: 'irq on|off|status', for the board's port_commands (demo.h). */
void board_irq_load_command( int argc, char ** argv );

/* ---- The 'irqmask' probe (demo images) --------------------------------------------
 * The board's 'irqmask' (cortex-m/mask_check.c on the Arm boards) shows what the
 * library's critical section masks on its core; mask_probe.c gets it inside that
 * section. What to do there, once (pend interrupts, record which ran and the mask
 * registers): the 'irqmask' command's, cortex-m/mask_check.c on the Arm boards. Board:
 * the counts of the clock the library gets meanwhile (the default clock's, at
 * configCPU_CLOCK_HZ). */
void board_mask_probe_inside( void );
uint32_t board_mask_probe_clock( void );

/* mask_probe.c: nonzero if board_mask_probe_inside() ran inside the library's
 * critical section; *status is cpu_usage_set_clock()'s. _failed prints the verdict
 * when it did not. */
int board_mask_probe( int32_t * status );
void board_mask_probe_failed( int32_t status );

#endif /* __ASSEMBLER__ */

#endif /* BOARD_H */
