/*
 * main.c - freertos-cpu-usage in an application of its own on FreeRTOS's POSIX port:
 * the sample FreeRTOSConfig.h beside it, the kernel's files as the Makefile lists
 * them, and the library's archive. Nothing else is needed: on a hosted build the
 * library's clock is CLOCK_MONOTONIC and its output standard output.
 *
 * A worker wakes every 10 ticks with vTaskDelayUntil() and keeps the CPU for 2.5 ms of
 * the wall clock each time: 25% if a tick lasted 1 ms. On this port it lasts longer
 * (the tick thread sleeps a tick period between ticks, then sends a signal), so the
 * library, which counts with the wall clock, shows the worker below 25%. The reporter
 * prints three windows, says how long the ticks really were, and ends the run.
 */
#define _POSIX_C_SOURCE    200809L

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "FreeRTOS.h"
#include "task.h"

#include "freertos_cpu_usage.h"

#define WORK_PERIOD_TICKS    10U
#define WORK_BURN_NS         2500000ULL
#define WINDOWS              3U

static uint64_t prvWallNs( void )
{
    struct timespec xNow;

    ( void ) clock_gettime( CLOCK_MONOTONIC, &xNow );

    return ( ( uint64_t ) xNow.tv_sec * 1000000000ULL ) + ( uint64_t ) xNow.tv_nsec;
}

static void prvWorker( void * pvParameters )
{
    TickType_t xWake = xTaskGetTickCount();
    uint64_t ullEnd;

    ( void ) pvParameters;

    for( ; ; )
    {
        ullEnd = prvWallNs() + WORK_BURN_NS;

        while( prvWallNs() < ullEnd )
        {
        }

        ( void ) xTaskDelayUntil( &xWake, WORK_PERIOD_TICKS );
    }
}

static void prvReporter( void * pvParameters )
{
    /* show_cpu_usage() takes argv as main() and shells give it, char **, and only
     * reads it: a table of string literals is char *[] in C, and a const one is cast. */
    static char * pcTable[] = { "show_cpu_usage", NULL };
    static const char * const pcJson[] = { "show_cpu_usage", "-m", NULL };
    const TickType_t xStartTicks = xTaskGetTickCount();
    const uint64_t ullStartNs = prvWallNs();
    TickType_t xTicks;
    uint32_t x;

    ( void ) pvParameters;

    for( x = 0U; x < WINDOWS; x++ )
    {
        /* A window is 1 s of the library's clock: the wall clock. */
        vTaskDelay( pdMS_TO_TICKS( 1000U ) );
        ( void ) show_cpu_usage( 1, pcTable );
    }

    ( void ) show_cpu_usage( 2, ( char ** ) pcJson );

    xTicks = xTaskGetTickCount() - xStartTicks;
    printf( "ticks: %lu in %lu ms of wall time\n", ( unsigned long ) xTicks,
            ( unsigned long ) ( ( prvWallNs() - ullStartNs ) / 1000000ULL ) );
    ( void ) fflush( stdout );

    vTaskEndScheduler();
}

void vAssertCalled( const char * pcFile,
                    int iLine )
{
    fprintf( stderr, "assertion failed: %s:%d\n", pcFile, iLine );
    abort();
}

int main( void )
{
    ( void ) xTaskCreate( prvWorker, "worker", configMINIMAL_STACK_SIZE, NULL, tskIDLE_PRIORITY + 1U, NULL );
    ( void ) xTaskCreate( prvReporter, "reporter", configMINIMAL_STACK_SIZE * 4U, NULL, tskIDLE_PRIORITY + 2U, NULL );
    vTaskStartScheduler();

    return 0;
}
