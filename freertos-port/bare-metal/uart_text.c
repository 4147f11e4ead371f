/*
 * uart_text.c - text and decimal or hexadecimal numbers on the console, over the
 * board's polled board_uart_putc() (board.h), so they work from any context: faults,
 * asserts, before the scheduler. Numbers are written digit by digit: no printf.
 */
#include "board.h"

void board_uart_write( const char * s, size_t n )
{
    for( size_t i = 0; i < n; i++ )
    {
        board_uart_putc( s[ i ] );
    }
}

void board_uart_puts( const char * s )
{
    while( *s != '\0' )
    {
        board_uart_putc( *s++ );
    }
}

void board_uart_put_hex( uint32_t value )
{
    static const char digits[] = "0123456789abcdef";

    board_uart_puts( "0x" );

    for( int shift = 28; shift >= 0; shift -= 4 )
    {
        board_uart_putc( digits[ ( value >> shift ) & 0xFu ] );
    }
}

void board_uart_put_dec( uint32_t value )
{
    char buf[ 10 ];
    size_t n = 0;

    do
    {
        buf[ n++ ] = ( char ) ( '0' + ( value % 10u ) );
        value /= 10u;
    } while( value != 0u );

    while( n > 0u )
    {
        board_uart_putc( buf[ --n ] );
    }
}
