/*
 * uart.c - the console on the CMSDK APB UART0 of the MPS2 board (UART0_BASE and its RX
 * interrupt: mps2_board.h).
 *
 * Output is polled: it works from any context (faults, asserts, before the scheduler)
 * and keeps the order of bytes simple. Input is interrupt-driven into the stream
 * buffer of ../bare-metal/console_rx.c, which never loses a byte: QEMU hands the UART
 * the next input byte only once the previous one has been read from DATA, so when the
 * buffer is full the ISR leaves the byte in the UART (the input stream is simply held
 * back); the reader pends the interrupt again once it has made room.
 *
 * How QEMU's model behaves (hw/char/cmsdk-apb-uart.c), which shapes the code below:
 * - An RX interrupt is raised only for a byte that arrives while RXIE is set, so RXEN
 *   and RXIE are enabled together and IRQ0 is pended once by hand, in case a byte was
 *   latched earlier.
 * - The interrupt line follows INTSTATUS, so the ISR clears it before draining DATA;
 *   a byte landing during the drain either gets read by the loop or re-raises the
 *   interrupt, never both lost.
 * - TX with TXEN clear never completes (TXFULL stays set), so every output path makes
 *   sure the transmitter is enabled rather than trusting that init ran.
 */
#include "mps2_an385.h"

#include "FreeRTOS.h"
#include "task.h"

/* QEMU ignores the rate; on hardware this gives 115200 baud from PCLK (the system
 * clock). */
#define UART_BAUD                115200u
#define UART_BAUDDIV             ( MPS2_SYSCLK_HZ / UART_BAUD )

/* Numerically >= configMAX_SYSCALL_INTERRUPT_PRIORITY so the ISR may use FromISR
 * APIs, and more urgent than SysTick/PendSV so input is taken promptly. */
#define UART_RX_IRQ_PRIORITY     0xC0u

#define RX_BUFFER_BYTES          256u

_Static_assert( UART_BAUDDIV >= 16u, "the CMSDK UART needs a divisor of at least 16" );
_Static_assert( UART_RX_IRQ_PRIORITY >= configMAX_SYSCALL_INTERRUPT_PRIORITY,
                "the UART ISR calls FromISR APIs: its priority must be maskable by the kernel" );

static void uart_enable_tx( void )
{
    if( ( UART0_CTRL & UART_CTRL_TXEN ) == 0u )
    {
        UART0_BAUDDIV = UART_BAUDDIV;
        UART0_CTRL |= UART_CTRL_TXEN;
    }
}

void board_uart_init( void )
{
    UART0_BAUDDIV = UART_BAUDDIV;
    UART0_CTRL = UART_CTRL_TXEN;
}

int board_uart_tx_full( void )
{
    return ( UART0_STATE & UART_STATE_TXFULL ) != 0u;
}

void board_uart_putc( char c )
{
    uart_enable_tx();

    while( ( UART0_STATE & UART_STATE_TXFULL ) != 0u )
    {
    }

    UART0_DATA = ( uint8_t ) c;
}

/* Wait until the last byte has left the transmit register, so nothing is lost when
 * the run ends right after. */
void board_uart_flush( void )
{
    if( ( UART0_CTRL & UART_CTRL_TXEN ) == 0u )
    {
        return;
    }

    while( ( UART0_STATE & UART_STATE_TXFULL ) != 0u )
    {
    }
}

static int uart_rx_ready( void )
{
    return ( UART0_STATE & UART_STATE_RXFULL ) != 0u;
}

static uint8_t uart_rx_take( void )
{
    return ( uint8_t ) UART0_DATA;
}

/* Nothing to do: the ISR cleared INTSTATUS before draining, and a byte left in DATA
 * raises no interrupt of its own. */
static void uart_rx_hold( void )
{
}

static void uart_rx_release( void )
{
    NVIC_PEND( MPS2_IRQ_UART0_RX );
}

static const BoardConsoleRx_t uart_rx =
{
    uart_rx_ready, uart_rx_take, uart_rx_hold, uart_rx_release
};

void board_console_rx_init( void )
{
    board_console_rx_attach( &uart_rx, RX_BUFFER_BYTES );

    NVIC_IPR_BYTE( MPS2_IRQ_UART0_RX ) = UART_RX_IRQ_PRIORITY;
    UART0_INTSTATUS = UART_INT_RX;
    UART0_CTRL |= UART_CTRL_RXEN | UART_CTRL_RXIE;
    NVIC_ENABLE( MPS2_IRQ_UART0_RX );
    NVIC_PEND( MPS2_IRQ_UART0_RX ); /* drain whatever is already latched */
}

/* UART0 RX, named in the vector table in startup.c. */
void UART0RX_Handler( void )
{
    /* Its time goes to the "interrupts" line; portYIELD_FROM_ISR() below ends it. */
    CPU_USAGE_ISR_ENTER();

    UART0_INTSTATUS = UART_INT_RX;
    portYIELD_FROM_ISR( board_console_rx_drain() ? pdTRUE : pdFALSE );
}
