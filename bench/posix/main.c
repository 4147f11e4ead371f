/*
 * main.c - the context-switch benchmark on FreeRTOS's POSIX port.
 *
 *     bench-switch <tasks> <switches>
 *
 * <tasks> tasks at one priority take turns: each runs, counts one switch and calls
 * taskYIELD(), which hands the CPU to the next (with one task, back to itself). After
 * <switches> yields in all, the task that made the last one ends the process. No
 * tick ever switches (configUSE_TIME_SLICING 0, no task blocks), so
 * vTaskSwitchContext() runs exactly <switches> times from taskYIELD(): bench/run.sh
 * divides its inclusive instruction count (callgrind) by its calls.
 *
 * The same source builds the four variants of bench/posix/FreeRTOSConfig.h.
 */
#define _POSIX_C_SOURCE    200809L

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "FreeRTOS.h"
#include "task.h"

#if ( BENCH_ACCOUNTING >= 2 )
    #include "freertos_cpu_usage.h"
#endif

static unsigned long ulSwitches;
static unsigned long ulDone;

#if ( BENCH_ACCOUNTING == 1 ) || ( BENCH_ACCOUNTING == 2 )

/* The one clock of the comparison: the kernel's run-time stats read it (variant 1)
 * and the library reads it (variant 2, through cpu_usage_set_clock()), so both pay
 * the same instructions per read and the overheads differ only by what each does
 * with the time. It computes what the library's default hosted clock computes
 * (src/arch/hosted.rs, monotonic_64ns): CLOCK_MONOTONIC in 64 ns units, 32 bits;
 * variant 3 measures that one. */
    uint32_t ulBenchClock( void )
    {
        struct timespec xNow;

        ( void ) clock_gettime( CLOCK_MONOTONIC, &xNow );

        return ( uint32_t ) ( ( ( ( uint64_t ) xNow.tv_sec * 1000000000ULL ) +
                                ( uint64_t ) xNow.tv_nsec ) >> 6 );
    }

#endif

/* ulBenchClock's rate. */
#define BENCH_CLOCK_HZ    15625000u

static void prvYielder( void * pvParameters )
{
    ( void ) pvParameters;

    for( ; ; )
    {
        if( ulDone >= ulSwitches )
        {
            /* The tick must not switch this thread out inside exit(). */
            portDISABLE_INTERRUPTS();
            exit( EXIT_SUCCESS );
        }

        ulDone++;
        taskYIELD();
    }
}

int main( int argc,
          char ** argv )
{
    long lTasks;

    if( argc != 3 )
    {
        fprintf( stderr, "usage: %s <tasks> <switches>\n", argv[ 0 ] );
        return 2;
    }

    lTasks = strtol( argv[ 1 ], NULL, 10 );
    ulSwitches = strtoul( argv[ 2 ], NULL, 10 );

    if( ( lTasks < 1 ) || ( lTasks > 1000 ) )
    {
        fprintf( stderr, "tasks: 1 to 1000\n" );
        return 2;
    }

    #if ( BENCH_ACCOUNTING == 2 )
        if( cpu_usage_set_clock( ulBenchClock, BENCH_CLOCK_HZ ) != 0 )
        {
            fprintf( stderr, "cpu_usage_set_clock failed\n" );
            return 1;
        }
    #endif

    #if ( BENCH_ACCOUNTING >= 2 )

        /* One window for the whole run (the longest the clock allows is 137 s), so
         * that no rollover, which depends on how long valgrind takes, falls into
         * the counts: they stay the same from run to run. The rollover's own cost
         * is in the Cortex-M3 figures. */
        if( cpu_usage_set_window_ms( 100000 ) != 0 )
        {
            fprintf( stderr, "cpu_usage_set_window_ms failed\n" );
            return 1;
        }
    #endif

    for( long i = 0; i < lTasks; i++ )
    {
        char cName[ configMAX_TASK_NAME_LEN ];

        ( void ) snprintf( cName, sizeof( cName ), "y%d", ( int ) i );

        if( xTaskCreate( prvYielder, cName, configMINIMAL_STACK_SIZE, NULL,
                         tskIDLE_PRIORITY + 1, NULL ) != pdPASS )
        {
            fprintf( stderr, "xTaskCreate failed\n" );
            return 1;
        }
    }

    vTaskStartScheduler();
    fprintf( stderr, "vTaskStartScheduler() returned\n" );

    return 1;
}
