/*
 * main.c - examples/cmake-posix: three workloads and a reporter on FreeRTOS's POSIX
 * port, with freertos-cpu-usage linked through CMake.
 *
 * Each workload burns its share of every 10 ms period (10, 25 and 40%; the port's tick
 * runs slower than the wall clock, so a period lasts longer than 10 ms and each share
 * reads lower than that). The reporter, below them, waits for three 250 ms windows and
 * prints each as one line of JSON (show_cpu_usage -m), then the last one as the shell's
 * table (show_cpu_usage) and as figures read with cpu_usage_snapshot(), and ends the
 * process with status 0. On the POSIX port the library's clock is CLOCK_MONOTONIC and
 * its output standard output: nothing to set up but the window.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "FreeRTOS.h"
#include "task.h"

#include "freertos_cpu_usage.h"

#define WINDOW_MS     250u
#define REPORTS       3u
#define PERIOD_TICKS  pdMS_TO_TICKS( 10 )

static uint64_t prvNowUs( void )
{
    struct timespec xNow;

    ( void ) clock_gettime( CLOCK_MONOTONIC, &xNow );
    return ( uint64_t ) xNow.tv_sec * 1000000u + ( uint64_t ) xNow.tv_nsec / 1000u;
}

/* Burns its percent of each 10 ms period, then sleeps to the next period. */
static void prvWorkload( void * pvPercent )
{
    const uint64_t ullBurnUs = ( uint64_t ) ( uintptr_t ) pvPercent * 100u;
    TickType_t xWake = xTaskGetTickCount();

    for( ; ; )
    {
        const uint64_t ullStart = prvNowUs();

        while( prvNowUs() - ullStart < ullBurnUs )
        {
        }

        ( void ) xTaskDelayUntil( &xWake, PERIOD_TICKS );
    }
}

static void prvShow( char * pcOption )
{
    static char cName[] = "show_cpu_usage";
    char * pcArgv[] = { cName, pcOption, NULL };

    ( void ) show_cpu_usage( pcOption == NULL ? 1 : 2, pcArgv );
    ( void ) fflush( stdout );
}

static void prvReporter( void * pvUnused )
{
    static char cJson[] = "-m";
    cpu_usage_summary_info xSummary;
    cpu_usage_task_info xTasks[ 8 ];
    uint32_t ulShown = 0;

    ( void ) pvUnused;

    while( ulShown < REPORTS )
    {
        vTaskDelay( pdMS_TO_TICKS( 10 ) );

        /* A window completed since the last one shown: print it. */
        if( ( cpu_usage_snapshot( xTasks, 8, &xSummary ) >= 0 ) && ( xSummary.window > ulShown ) )
        {
            prvShow( cJson );
            ulShown = xSummary.window;
        }
    }

    prvShow( NULL );

    int32_t lWritten = cpu_usage_snapshot( xTasks, 8, &xSummary );

    for( int32_t i = 0; i < lWritten; i++ )
    {
        printf( "snapshot: %s %u.%02u%%\n", xTasks[ i ].name, ( unsigned ) ( xTasks[ i ].usage / 100u ),
                ( unsigned ) ( xTasks[ i ].usage % 100u ) );
    }

    printf( "snapshot: load %u.%02u%% of window %u\ndone\n", ( unsigned ) ( xSummary.load / 100u ),
            ( unsigned ) ( xSummary.load % 100u ), ( unsigned ) xSummary.window );

    /* The port's tick is a signal: mask it before exit() takes stdio's locks. */
    portDISABLE_INTERRUPTS();
    ( void ) fflush( stdout );
    exit( 0 );
}

int main( void )
{
    const uint32_t ulAbi = cpu_usage_abi_version();

    printf( "cmake-posix: window %u ms, library %u.%u.%u\n", WINDOW_MS, ( unsigned ) ( ulAbi >> 16 ),
            ( unsigned ) ( ( ulAbi >> 8 ) & 0xFFu ), ( unsigned ) ( ulAbi & 0xFFu ) );
    ( void ) fflush( stdout );
    ( void ) cpu_usage_set_window_ms( WINDOW_MS );

    /* The reporter below the workloads: it never holds one up. */
    ( void ) xTaskCreate( prvWorkload, "work10", configMINIMAL_STACK_SIZE, ( void * ) 10, 2, NULL );
    ( void ) xTaskCreate( prvWorkload, "work25", configMINIMAL_STACK_SIZE, ( void * ) 25, 2, NULL );
    ( void ) xTaskCreate( prvWorkload, "work40", configMINIMAL_STACK_SIZE, ( void * ) 40, 2, NULL );
    ( void ) xTaskCreate( prvReporter, "reporter", 4 * configMINIMAL_STACK_SIZE, NULL, 1, NULL );

    vTaskStartScheduler();
    return 1;
}
