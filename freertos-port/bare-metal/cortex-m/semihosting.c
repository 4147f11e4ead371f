/*
 * semihosting.c - the few Arm semihosting requests the port makes of QEMU
 * (-semihosting-config enable=on,target=native): exit with a status, read the
 * command line, and read the host's stdin.
 *
 * A request is BKPT 0xAB with the operation in r0 and an argument block in r1. QEMU
 * serves it while the guest is stopped, so with -icount no virtual time passes: a
 * byte read this way arrives at the same guest instruction in every run. That is
 * what makes the scripted console (main.c) deterministic, which the UART is not:
 * QEMU feeds the UART the next input byte whenever its I/O thread gets to it.
 *
 * Without semihosting enabled, BKPT escalates to a HardFault (and the fault handler's
 * own exit request to a lockup): always run with it enabled.
 */
#include "board.h"

#include <string.h>

#define SYS_OPEN                        0x01u
#define SYS_READ                        0x06u
#define SYS_GET_CMDLINE                 0x15u
#define SYS_EXIT_EXTENDED               0x20u
#define ADP_STOPPED_APPLICATION_EXIT    0x20026u
#define OPEN_MODE_READ                  0u /* "r": on ":tt", the host's stdin */

static int32_t stdin_handle = -1;

/* No call may sit between loading r0/r1 and the BKPT, hence its own function. */
static uint32_t semihosting_call( uint32_t operation, void * argument )
{
    register uint32_t r0 __asm( "r0" ) = operation;
    register void * r1 __asm( "r1" ) = argument;

    __asm volatile ( "bkpt 0xab" : "+r" ( r0 ) : "r" ( r1 ) : "memory" );
    return r0;
}

void board_exit( int status )
{
    uint32_t block[ 2 ] = { ADP_STOPPED_APPLICATION_EXIT, ( uint32_t ) status };

    board_uart_flush();
    ( void ) semihosting_call( SYS_EXIT_EXTENDED, block );

    /* Only reached if the host ignored the request. */
    for( ; ; )
    {
    }
}

int board_semihosting_cmdline_has( const char * word )
{
    char line[ 256 ];
    uint32_t block[ 2 ] = { ( uint32_t ) line, sizeof( line ) };
    size_t word_len = strlen( word );

    /* QEMU answers with the arg= values of -semihosting-config joined by spaces, or
     * the kernel's file name; it fails if the line does not fit. */
    if( semihosting_call( SYS_GET_CMDLINE, block ) != 0u )
    {
        return 0;
    }

    line[ sizeof( line ) - 1u ] = '\0';

    for( const char * p = line; *p != '\0'; )
    {
        size_t len = 0u;

        while( ( p[ len ] != '\0' ) && ( p[ len ] != ' ' ) )
        {
            len++;
        }

        if( ( len == word_len ) && ( strncmp( p, word, len ) == 0 ) )
        {
            return 1;
        }

        p += len;

        while( *p == ' ' )
        {
            p++;
        }
    }

    return 0;
}

int board_semihosting_stdin_open( void )
{
    static const char console_name[] = ":tt";
    uint32_t block[ 3 ] = { ( uint32_t ) console_name, OPEN_MODE_READ, sizeof( console_name ) - 1u };

    stdin_handle = ( int32_t ) semihosting_call( SYS_OPEN, block );
    return stdin_handle >= 0;
}

int board_semihosting_stdin_getc( void )
{
    uint8_t c;
    uint32_t block[ 3 ] = { ( uint32_t ) stdin_handle, ( uint32_t ) &c, 1u };

    /* One byte per request: how many bytes a longer read returns depends on how the
     * host pipe was filled, and would make the guest's path depend on it. The
     * answer is the number of bytes NOT read, so nonzero is end of input. */
    if( ( stdin_handle < 0 ) || ( semihosting_call( SYS_READ, block ) != 0u ) )
    {
        return -1;
    }

    return c;
}
