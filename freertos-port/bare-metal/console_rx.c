/*
 * console_rx.c - the console input every bare-metal board shares: a stream buffer
 * that the board's receive interrupt fills and board_console_rx_getc() empties, so the
 * shell task blocks instead of polling (and the idle task can sleep between
 * keystrokes). The board keeps the UART's registers (board.h: BoardConsoleRx_t).
 *
 * Input never loses a byte. The QEMU models of the boards' UARTs hand over the next
 * input byte only once the previous one has been read, and hold back the host's input
 * meanwhile. So when the buffer is full, the receive handler leaves the byte in the
 * UART, has the board quiet its interrupt, and notes the stall; the reader, once it
 * has taken a byte and so made room, has the board let the interrupt take the byte
 * left there.
 */
#include "FreeRTOS.h"
#include "stream_buffer.h"
#include "task.h"

#include "board.h"

static const BoardConsoleRx_t * rx_uart;
static StreamBufferHandle_t rx_buffer;

/* Set by the handler when it left a byte in the UART because rx_buffer was full. */
static volatile uint8_t rx_stalled;

void board_console_rx_attach( const BoardConsoleRx_t * uart,
                              size_t bytes )
{
    rx_uart = uart;
    rx_buffer = xStreamBufferCreate( bytes, 1 );
    configASSERT( rx_buffer != NULL );
}

int board_console_rx_drain( void )
{
    BaseType_t woken = pdFALSE;

    while( rx_uart->ready() )
    {
        if( xStreamBufferSpacesAvailable( rx_buffer ) == 0u )
        {
            rx_uart->hold();
            rx_stalled = 1u;
            break;
        }

        uint8_t c = rx_uart->take();
        ( void ) xStreamBufferSendFromISR( rx_buffer, &c, 1, &woken );
    }

    return woken != pdFALSE;
}

int board_console_rx_getc( uint32_t timeout_ms )
{
    uint8_t c;

    if( xStreamBufferReceive( rx_buffer, &c, 1, pdMS_TO_TICKS( timeout_ms ) ) == 0u )
    {
        return -1;
    }

    if( rx_stalled != 0u )
    {
        /* There is room now: let the interrupt take the byte left in the UART. */
        rx_stalled = 0u;
        rx_uart->release();
    }

    return c;
}
