/*
 * uart.c - the console on virt's NS16550A UART0 (board.h's board_uart_* and
 * board_console_rx_*; ../bare-metal/uart_text.c writes text and numbers with it).
 *
 * Output is polled: it works from any context (faults, asserts, before the scheduler).
 * Input is interrupt-driven (PLIC source 10) into a stream buffer, so the shell task
 * blocks instead of polling, and the idle task can sleep between keystrokes.
 *
 * The FIFOs stay off (16450 mode): QEMU's model then hands the UART the next input byte
 * only once the previous one has been read, so no byte is lost. When the stream buffer
 * is full the handler leaves the byte in the UART and turns the receive interrupt off
 * (the PLIC's line is level-triggered: the byte would raise it again at once); the
 * reader turns it back on once it has made room, and the byte raises it then.
 */
#include "FreeRTOS.h"
#include "stream_buffer.h"
#include "task.h"

#include "riscv_virt.h"

#define RX_BUFFER_BYTES    256u

static StreamBufferHandle_t rx_buffer;

/* Set by the handler when it left a byte in the UART because rx_buffer was full. */
static volatile uint8_t rx_stalled;

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

void board_uart_putc( char c )
{
    while( ( UART_LSR & UART_LSR_THRE ) == 0u )
    {
    }

    UART_THR = ( uint8_t ) c;
}

/* Wait until the last byte has left, so nothing is lost when the run ends right after. */
void board_uart_flush( void )
{
    while( ( UART_LSR & UART_LSR_TEMT ) == 0u )
    {
    }
}

void board_console_rx_init( void )
{
    rx_buffer = xStreamBufferCreate( RX_BUFFER_BYTES, 1 );
    configASSERT( rx_buffer != NULL );

    /* Interrupts stay off in mstatus until the first task runs. */
    virt_plic_enable( VIRT_IRQ_UART0 );
    UART_IER = UART_IER_RX;
}

/* PLIC source 10 (interrupts.c). */
int virt_uart_rx_isr( void )
{
    BaseType_t woken = pdFALSE;

    while( ( UART_LSR & UART_LSR_DR ) != 0u )
    {
        if( xStreamBufferSpacesAvailable( rx_buffer ) == 0u )
        {
            rx_stalled = 1u;
            UART_IER = 0u;
            break;
        }

        uint8_t c = UART_RBR;
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
        /* There is room now: the byte left in the UART raises the interrupt again. */
        rx_stalled = 0u;
        UART_IER = UART_IER_RX;
    }

    return c;
}
