/*
 * console.c - the demo's output: text and numbers gathered into whole lines, so that a
 * line reaches the console in one port_console_write().
 *
 * No libc beyond <string.h>: the Cortex-M build has no printf to spare. Only the shell
 * task prints (the console may only be written by it).
 */
#include <string.h>

#include "demo_internal.h"

static char cOut[ 128 ];
static size_t xOutLength = 0U;

void demo_print_flush( void )
{
    if( xOutLength > 0U )
    {
        port_console_write( cOut, xOutLength );
        xOutLength = 0U;
    }
}
/*-----------------------------------------------------------*/

void demo_print_char( char c )
{
    if( xOutLength == sizeof( cOut ) )
    {
        demo_print_flush();
    }

    cOut[ xOutLength++ ] = c;

    if( c == '\n' )
    {
        demo_print_flush();
    }
}
/*-----------------------------------------------------------*/

void demo_print( const char * s )
{
    while( *s != '\0' )
    {
        demo_print_char( *s++ );
    }
}
/*-----------------------------------------------------------*/

void demo_print_pad( size_t xCount )
{
    while( xCount-- > 0U )
    {
        demo_print_char( ' ' );
    }
}
/*-----------------------------------------------------------*/

void demo_print_field( const char * pcText,
                       size_t xWidth )
{
    size_t xLength = strlen( pcText );

    demo_print( pcText );
    demo_print_pad( ( xLength < xWidth ) ? ( xWidth - xLength ) : 0U );
}
/*-----------------------------------------------------------*/

void demo_print_uint( uint32_t value,
                      size_t width )
{
    char cDigits[ 10 ];
    size_t xDigits = 0U;

    do
    {
        cDigits[ xDigits++ ] = ( char ) ( '0' + ( value % 10U ) );
        value /= 10U;
    } while( value > 0U );

    demo_print_pad( ( xDigits < width ) ? ( width - xDigits ) : 0U );

    while( xDigits > 0U )
    {
        demo_print_char( cDigits[ --xDigits ] );
    }
}
/*-----------------------------------------------------------*/

void demo_print_hundredths( uint32_t ulHundredths,
                            size_t xWidth )
{
    demo_print_uint( ulHundredths / 100U, xWidth );
    demo_print_char( '.' );
    demo_print_char( ( char ) ( '0' + ( ( ulHundredths / 10U ) % 10U ) ) );
    demo_print_char( ( char ) ( '0' + ( ulHundredths % 10U ) ) );
}
/*-----------------------------------------------------------*/

void demo_print_millis( uint32_t ulMicros,
                        size_t xWidth )
{
    uint32_t ulFraction = ulMicros % 1000U;

    demo_print_uint( ulMicros / 1000U, xWidth );
    demo_print_char( '.' );
    demo_print_char( ( char ) ( '0' + ( ulFraction / 100U ) ) );
    demo_print_char( ( char ) ( '0' + ( ( ulFraction / 10U ) % 10U ) ) );
    demo_print_char( ( char ) ( '0' + ( ulFraction % 10U ) ) );
}
/*-----------------------------------------------------------*/

size_t demo_print_name( const char * pcName )
{
    size_t xLength = 0U;

    while( ( xLength < ( size_t ) CPU_USAGE_NAME_LEN ) && ( pcName[ xLength ] != '\0' ) )
    {
        demo_print_char( pcName[ xLength++ ] );
    }

    return xLength;
}
/*-----------------------------------------------------------*/

void demo_print_json_string( const char * pcText,
                             size_t xMax )
{
    static const char cHex[] = "0123456789abcdef";
    size_t x;
    char c;

    demo_print_char( '"' );

    for( x = 0U; ( x < xMax ) && ( pcText[ x ] != '\0' ); x++ )
    {
        c = pcText[ x ];

        if( ( c == '"' ) || ( c == '\\' ) )
        {
            demo_print_char( '\\' );
            demo_print_char( c );
        }
        else if( ( unsigned char ) c < 0x20U )
        {
            demo_print( "\\u00" );
            demo_print_char( cHex[ ( ( unsigned char ) c >> 4 ) & 0xFU ] );
            demo_print_char( cHex[ ( unsigned char ) c & 0xFU ] );
        }
        else
        {
            /* Bytes above 0x7F go as they are: the kernel's names are the
             * firmware's, UTF-8 if anything. */
            demo_print_char( c );
        }
    }

    demo_print_char( '"' );
}
/*-----------------------------------------------------------*/

void demo_print_json_key( const char * pcKey,
                          BaseType_t xFirst )
{
    if( xFirst == pdFALSE )
    {
        demo_print_char( ',' );
    }

    demo_print_char( '"' );
    demo_print( pcKey );
    demo_print( "\":" );
}
/*-----------------------------------------------------------*/
