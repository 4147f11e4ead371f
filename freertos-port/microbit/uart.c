/*
 * uart.c - the console on the nRF51's UART0.
 *
 * Output is polled: it works from any context (faults, asserts, before the scheduler)
 * and keeps the order of bytes simple. Input is interrupt-driven into the stream
 * buffer of ../bare-metal/console_rx.c, so the shell task blocks instead of spinning.
 *
 * How the nRF51 UART behaves (nRF51 RM chapter 29; QEMU's hw/char/nrf51_uart.c), which
 * shapes the code below:
 * - One byte goes out at a time: after a write to TXD, the next may only be written
 *   once EVENTS_TXDRDY is set. QEMU drops a byte written before that (while the host
 *   is slow to take the previous one), so every write waits for the event of the
 *   one before, which tx_busy remembers.
 * - EVENTS_RXDRDY says a byte waits in RXD. The event is cleared before RXD is read:
 *   reading RXD hands the UART the next byte, whose event must not be wiped out.
 * - The interrupt line stays up while an enabled event is set. When the stream buffer
 *   is full, the handler therefore leaves the byte in the UART and disables the RXDRDY
 *   interrupt (uart_rx_hold); the reader enables it again once it has made room. The UART holds
 *   back the host's input meanwhile (QEMU offers it a byte only when it has room in
 *   its 6-byte FIFO), so no byte is lost.
 */
#include "nrf51.h"

#include "FreeRTOS.h"
#include "task.h"

/* More urgent than SysTick and PendSV (0xC0, the lowest of the four levels), so input
 * is taken promptly. On ARMv6-M the kernel masks every interrupt with PRIMASK, so any
 * level may call FromISR APIs and the library's hooks. */
#define UART_RX_IRQ_PRIORITY     0x80u

/* The longest command line the test sends is under 50 bytes; more input waits in the
 * UART (see above). */
#define RX_BUFFER_BYTES          64u

/* A byte was written to TXD and its TXDRDY event has not been seen yet. */
static volatile uint8_t tx_busy;

void board_uart_init( void )
{
    UART0_PSELTXD = MICROBIT_PIN_UART_TX;
    UART0_PSELRXD = MICROBIT_PIN_UART_RX;
    UART0_BAUDRATE = UART_BAUDRATE_115200;
    UART0_ENABLE = UART_ENABLE_ENABLED;
    UART0_EVENTS_TXDRDY = 0u;
    UART0_TASKS_STARTTX = 1u;
    tx_busy = 0u;
}

int board_uart_tx_full( void )
{
    return ( tx_busy != 0u ) && ( UART0_EVENTS_TXDRDY == 0u );
}

void board_uart_putc( char c )
{
    if( tx_busy != 0u )
    {
        while( UART0_EVENTS_TXDRDY == 0u )
        {
        }
    }

    UART0_EVENTS_TXDRDY = 0u;
    tx_busy = 1u;
    UART0_TXD = ( uint8_t ) c;
}

/* Wait until the last byte has gone, so nothing is lost when the run ends right after. */
void board_uart_flush( void )
{
    if( tx_busy != 0u )
    {
        while( UART0_EVENTS_TXDRDY == 0u )
        {
        }
    }
}

static int uart_rx_ready( void )
{
    return UART0_EVENTS_RXDRDY != 0u;
}

/* The event is cleared first: reading RXD hands the UART the next byte. */
static uint8_t uart_rx_take( void )
{
    UART0_EVENTS_RXDRDY = 0u;
    return ( uint8_t ) UART0_RXD;
}

static void uart_rx_hold( void )
{
    UART0_INTENCLR = UART_INT_RXDRDY;
}

/* The line is still up for the byte left in the UART. */
static void uart_rx_release( void )
{
    UART0_INTENSET = UART_INT_RXDRDY;
}

static const BoardConsoleRx_t uart_rx =
{
    uart_rx_ready, uart_rx_take, uart_rx_hold, uart_rx_release
};

void board_console_rx_init( void )
{
    board_console_rx_attach( &uart_rx, RX_BUFFER_BYTES );

    nrf51_nvic_set_priority( NRF51_IRQ_UART0, UART_RX_IRQ_PRIORITY );
    UART0_EVENTS_RXDRDY = 0u;
    UART0_INTENSET = UART_INT_RXDRDY;
    UART0_TASKS_STARTRX = 1u;
    NVIC_ISER0 = 1u << NRF51_IRQ_UART0;
}

/* IRQ2, named in the vector table in startup.c. */
void UART0_IRQHandler( void )
{
    /* Its time goes to the "interrupts" line; portYIELD_FROM_ISR() below ends it. */
    CPU_USAGE_ISR_ENTER();

    portYIELD_FROM_ISR( board_console_rx_drain() ? pdTRUE : pdFALSE );
}
