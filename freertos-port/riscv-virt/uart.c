/*
 * uart.c - the console on virt's NS16550A UART0 (board.h's board_uart_* and
 * board_console_rx_*; ../bare-metal/uart_text.c writes text and numbers with it). Both
 * virt boards build it: riscv-virt, and ../riscv-virt-smp, whose harts share the UART.
 *
 * Output is polled: it works from any context (faults, asserts, before the scheduler).
 * Input is interrupt-driven (PLIC source 10, taken on hart 0) into the stream buffer of
 * ../bare-metal/console_rx.c, so the shell task blocks instead of polling, and the
 * idle task can sleep between keystrokes.
 *
 * The FIFOs stay off (16450 mode): QEMU's model then hands the UART the next input byte
 * only once the previous one has been read, so no byte is lost. When the stream buffer
 * is full the handler leaves the byte in the UART and turns the receive interrupt off
 * (the PLIC's line is level-triggered: the byte would raise it again at once); the
 * reader turns it back on once it has made room, and the byte raises it then.
 *
 * Several harts: every hart may write, so each byte is written under a lock with the
 * hart's interrupts masked (the port's recursive lock, so a fault report from inside a
 * write still gets out), and two harts never both find THR empty and write one byte
 * over the other: the bytes all arrive whole. Whole lines are the firmware's business:
 * one task owns the console in each image (the demo's shell task, the self-check's
 * checker task), and the fatal paths, which may print from any hart, end the run.
 */
#include "FreeRTOS.h"

#include "riscv_virt.h"

#define RX_BUFFER_BYTES    256u

/* board.h: all that needs setting up before the kernel runs (mtime counts from
 * reset, and the kernel port starts the tick). */
void board_init( void )
{
    board_uart_init();
}

void board_uart_init( void )
{
    UART_IER = 0u;
    UART_FCR = 0u;
    UART_LCR = UART_LCR_8N1;
    UART_MCR = UART_MCR_OUT2;
}

int board_uart_tx_full( void )
{
    return ( UART_LSR & UART_LSR_THRE ) == 0u;
}

static void uart_tx( char c )
{
    while( ( UART_LSR & UART_LSR_THRE ) == 0u )
    {
    }

    UART_THR = ( uint8_t ) c;
}

#if ( configNUMBER_OF_CORES == 1 )

void board_uart_putc( char c )
{
    uart_tx( c );
}

#else /* several harts */

static PortSpinlock_t uart_lock;

void board_uart_putc( char c )
{
    UBaseType_t mask = portSET_INTERRUPT_MASK();
    BaseType_t hart = portGET_CORE_ID();

    vPortSpinlockTake( &uart_lock, hart );
    uart_tx( c );
    vPortSpinlockGive( &uart_lock, hart );
    portCLEAR_INTERRUPT_MASK( mask );
}

#endif /* configNUMBER_OF_CORES */

/* Wait until the last byte has left, so nothing is lost when the run ends right after. */
void board_uart_flush( void )
{
    while( ( UART_LSR & UART_LSR_TEMT ) == 0u )
    {
    }
}

static int uart_rx_ready( void )
{
    return ( UART_LSR & UART_LSR_DR ) != 0u;
}

static uint8_t uart_rx_take( void )
{
    return UART_RBR;
}

static void uart_rx_hold( void )
{
    UART_IER = 0u;
}

/* The byte left in the UART raises the interrupt again. */
static void uart_rx_release( void )
{
    UART_IER = UART_IER_RX;
}

static const BoardConsoleRx_t uart_rx =
{
    uart_rx_ready, uart_rx_take, uart_rx_hold, uart_rx_release
};

void board_console_rx_init( void )
{
    board_console_rx_attach( &uart_rx, RX_BUFFER_BYTES );

    /* Interrupts stay off in mstatus until the first task runs. */
    virt_plic_enable( VIRT_IRQ_UART0 );
    UART_IER = UART_IER_RX;
}

/* PLIC source 10, on hart 0 (interrupts.c). */
int virt_uart_rx_isr( void )
{
    return board_console_rx_drain();
}
