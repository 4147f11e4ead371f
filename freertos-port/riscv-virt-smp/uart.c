/*
 * uart.c - the console on virt's NS16550A UART0, shared by the harts (board.h's
 * board_uart_* and board_console_rx_*; ../bare-metal/uart_text.c writes text with it).
 *
 * Output is polled, as on riscv-virt, and works from any context; here every hart may
 * call it. Each byte is written under a lock with the hart's interrupts masked (the
 * port's recursive lock, so a fault report from inside a write still gets out),
 * so two harts never both find THR empty and write one byte over the other: the bytes
 * all arrive whole. Whole lines are the firmware's business: one task owns the console
 * in each image (the demo's shell task, the self-check's checker task), and the
 * fatal paths, which may print from any hart, end the run.
 *
 * Input is ../riscv-virt/uart.c's: the PLIC's source 10, on hart 0 only, into the stream
 * buffer of ../bare-metal/console_rx.c; FIFOs off, so no byte is lost.
 */
#include "FreeRTOS.h"

#include "riscv_virt_smp.h"

#define RX_BUFFER_BYTES    256u

static PortSpinlock_t uart_lock;

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

void board_uart_putc( char c )
{
    UBaseType_t mask = portSET_INTERRUPT_MASK();
    BaseType_t hart = portGET_CORE_ID();

    vPortSpinlockTake( &uart_lock, hart );

    while( ( UART_LSR & UART_LSR_THRE ) == 0u )
    {
    }

    UART_THR = ( uint8_t ) c;
    vPortSpinlockGive( &uart_lock, hart );
    portCLEAR_INTERRUPT_MASK( mask );
}

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
    virt_plic_enable( VIRT_IRQ_UART0 );
    UART_IER = UART_IER_RX;
}

/* PLIC source 10, on hart 0 (interrupts.c). */
int virt_uart_rx_isr( void )
{
    return board_console_rx_drain();
}
