/*
 * clock_step.c - the simulator's 'clockstep' command: the library's clock read through
 * one that, once in 97 readings, reads a given number of counts early, as real clocks
 * do (a SysTick-extended count read racing its interrupt, a timer read across a
 * carry). The library takes such a reading as no time passed: every window must still
 * add up exactly, and no figure may leave its window (tests/tests/clock_step.rs).
 *
 * 'clockstep <counts>' puts the stepping clock in (which restarts accounting, as any
 * cpu_usage_set_clock() does); 'clockstep off' puts the library's own clock back.
 */

#include <stdlib.h>
#include <string.h>

#include "FreeRTOS.h"
#include "freertos_cpu_usage.h"

#include "demo.h"
#include "clock_step.h"

/* Every how many readings one is early. */
#define clockstepEVERY    97U

/* The clock the library read before, and its rate: put back by 'clockstep off'. */
static uint32_t ( * prvOwnClock )( void ) = NULL;
static uint32_t ulOwnHz = 0U;
static uint32_t ulStepCounts = 0U;
static uint32_t ulReadings = 0U;

/* Called by the library only, one reading at a time (inside its critical section). */
static uint32_t prvSteppingClock( void )
{
    uint32_t ulNow = prvOwnClock();

    ulReadings++;

    if( ( ulReadings % clockstepEVERY ) == 0U )
    {
        ulNow -= ulStepCounts;
    }

    return ulNow;
}

void posix_cmd_clockstep( int argc,
                          char ** argv )
{
    char * pcEnd = NULL;
    unsigned long ulCounts;
    int32_t lStatus;

    if( ( argc == 2 ) && ( strcmp( argv[ 1 ], "off" ) == 0 ) )
    {
        if( prvOwnClock != NULL )
        {
            lStatus = cpu_usage_set_clock( prvOwnClock, ulOwnHz );
            prvOwnClock = NULL;
            demo_print( ( lStatus == 0 ) ? "clockstep: off\n" : "clockstep: the library refused its own clock\n" );
            return;
        }

        demo_print( "clockstep: off\n" );
        return;
    }

    ulCounts = ( argc == 2 ) ? strtoul( argv[ 1 ], &pcEnd, 10 ) : 0UL;

    if( ( argc != 2 ) || ( pcEnd == argv[ 1 ] ) || ( *pcEnd != '\0' ) || ( ulCounts == 0UL ) || ( ulCounts > 0xFFFFFFUL ) )
    {
        demo_print( "usage: clockstep <counts 1..16777215>|off\n" );
        return;
    }

    ulStepCounts = ( uint32_t ) ulCounts;

    if( prvOwnClock == NULL )
    {
        prvOwnClock = cpu_usage_clock_read;
        ulOwnHz = cpu_usage_clock_hz();
    }

    lStatus = cpu_usage_set_clock( prvSteppingClock, ulOwnHz );

    if( lStatus != 0 )
    {
        prvOwnClock = NULL;
        demo_print( "clockstep: the library refused the clock\n" );
        return;
    }

    demo_print( "clockstep: one reading in 97 is " );
    demo_print_uint( ulStepCounts, 0 );
    demo_print( " counts early\n" );
}
