/*
 * host.c - what the board-independent files (board.h) ask of the host, QEMU, on this
 * board.
 *
 * The way out: virt's SiFive test finisher. A write of 0x5555 ends the run with exit
 * status 0, a write of 0x3333 | status << 16 with that status, so QEMU's own exit
 * status is the verdict, as semihosting's is on the Arm ports.
 *
 * No semihosting: the run has no command line and the host's stdin is not reachable,
 * so ../bare-metal/main.c's console is always the interactive one, on the UART.
 */
#include "riscv_virt.h"

void board_exit( int status )
{
    uint32_t code = ( uint32_t ) status & 0xFFFFu;

    __asm volatile ( "csrc mstatus, 8" ::: "memory" );
    board_uart_flush();
    VIRT_TEST_FINISHER = ( code == 0u ) ? VIRT_TEST_PASS : ( ( code << 16 ) | VIRT_TEST_FAIL );

    for( ; ; )
    {
    }
}

int board_semihosting_cmdline_has( const char * word )
{
    ( void ) word;
    return 0;
}

int board_semihosting_stdin_open( void )
{
    return 0;
}

int board_semihosting_stdin_getc( void )
{
    return -1;
}
