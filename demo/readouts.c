/*
 * readouts.c - the demo's commands that read figures from the library's plain-C API
 * and from the kernel: snapshot (cpu_usage_snapshot()), tasks (every task's library
 * ID), kernel_stats (the kernel's own run-time stats beside the library's) and, in the
 * tracer variant, tracer (another trace tool's counts).
 *
 * Each prints a table for a person and, with -m, one line of JSON instead (tracer:
 * JSON only, since only tests read it).
 */
#include <stdint.h>
#include <string.h>

#include "demo_internal.h"

#if defined( DEMO_STAND_IN_TRACER ) && ( DEMO_STAND_IN_TRACER == 1 )
    #include "stand_in_tracer.h"
#endif

#if ( configGENERATE_RUN_TIME_STATS == 1 )

/* Room for `show_cpu_usage -c -m` at 32 IDs, the most a report lists, each task at
 * its longest. */
    #define demoKERNEL_STATS_REPORT_LEN    12288U
#endif

/* cpu_usage_snapshot()'s copy: every ID's task and the overflow bucket. Static,
 * because it is too large for the shell's stack on Cortex-M. */
static cpu_usage_task_info xSnapshotTasks[ CPU_USAGE_MAX_TASKS + 1U ];

/*
 * The last completed window through the plain-C API, cpu_usage_snapshot(), printed
 * from its structs alone: what an application does that keeps the figures (a log, a
 * display, a telemetry frame) rather than print the library's report.
 */
static void prvSnapshotTable( const cpu_usage_summary_info * pxSummary,
                              size_t xRows )
{
    const cpu_usage_task_info * pxTask;
    size_t xNameLength;
    size_t x;

    demo_print( "snapshot of window #" );
    demo_print_uint( pxSummary->window, 0U );
    demo_print( ": " );
    demo_print_millis( pxSummary->window_us, 0U );
    demo_print( " ms, " );
    demo_print_uint( pxSummary->tasks, 0U );
    demo_print( " tasks\n  ID  TASK               USAGE  SWITCHES      LONGEST\n" );

    for( x = 0U; x < xRows; x++ )
    {
        pxTask = &xSnapshotTasks[ x ];
        demo_print_uint( pxTask->id, 4U );
        demo_print( "  " );
        xNameLength = demo_print_name( pxTask->name );
        demo_print_pad( ( xNameLength < 16U ) ? ( 16U - xNameLength ) : 1U );
        demo_print_hundredths( pxTask->usage, 3U );
        demo_print_char( '%' );
        demo_print_uint( pxTask->switches, 10U );
        demo_print_millis( pxTask->longest_slice_us, 6U );
        demo_print( " ms" );
        demo_print( pxTask->idle ? "  idle" : "" );
        demo_print( pxTask->deleted ? "  deleted" : "" );
        demo_print_char( '\n' );
    }

    if( pxSummary->written < pxSummary->tasks )
    {
        demo_print( "  (" );
        demo_print_uint( pxSummary->tasks - pxSummary->written, 0U );
        demo_print( " more tasks not copied)\n" );
    }

    demo_print( "interrupts " );
    demo_print_hundredths( pxSummary->interrupts, 0U );
    demo_print( "% (" );
    demo_print_uint( pxSummary->interrupt_count, 0U );
    demo_print( ", longest " );
    demo_print_millis( pxSummary->longest_interrupt_us, 0U );
    demo_print( " ms), sleep " );
    demo_print_hundredths( pxSummary->sleep, 0U );
    demo_print( "%, other " );
    demo_print_hundredths( pxSummary->other, 0U );
    demo_print( "%, idle " );
    demo_print_hundredths( pxSummary->idle, 0U );
    demo_print( "%, load " );
    demo_print_hundredths( pxSummary->load, 0U );
    demo_print( "%\nload avg" );

    for( x = 0U; x < 3U; x++ )
    {
        demo_print( ( x == 0U ) ? " 1 s " : ( ( x == 1U ) ? ", 10 s " : ", 60 s " ) );

        if( pxSummary->load_avg[ x ] == UINT32_MAX )
        {
            demo_print_char( '-' );
        }
        else
        {
            demo_print_hundredths( pxSummary->load_avg[ x ], 0U );
            demo_print_char( '%' );
        }
    }

    demo_print_char( '\n' );
}
/*-----------------------------------------------------------*/

/* The same structs as one JSON line: the summary's fields under their C names
 * (shares in percent with a _pct suffix), the tasks as "rows". */
static void prvSnapshotJson( const cpu_usage_summary_info * pxSummary,
                             size_t xRows )
{
    const cpu_usage_task_info * pxTask;
    size_t x;

    demo_print_json_key( "window", pdTRUE );
    demo_print_uint( pxSummary->window, 0U );
    demo_print_json_key( "window_us", pdFALSE );
    demo_print_uint( pxSummary->window_us, 0U );
    demo_print_json_key( "tasks", pdFALSE );
    demo_print_uint( pxSummary->tasks, 0U );
    demo_print_json_key( "written", pdFALSE );
    demo_print_uint( pxSummary->written, 0U );
    demo_print_json_key( "rows", pdFALSE );

    for( x = 0U; x < xRows; x++ )
    {
        pxTask = &xSnapshotTasks[ x ];
        demo_print( ( x == 0U ) ? "[{" : ",{" );
        demo_print_json_key( "id", pdTRUE );
        demo_print_uint( pxTask->id, 0U );
        demo_print_json_key( "name", pdFALSE );
        demo_print_json_string( pxTask->name, CPU_USAGE_NAME_LEN );
        demo_print_json_key( "usage_pct", pdFALSE );
        demo_print_hundredths( pxTask->usage, 0U );
        demo_print_json_key( "switches", pdFALSE );
        demo_print_uint( pxTask->switches, 0U );
        demo_print_json_key( "longest_slice_us", pdFALSE );
        demo_print_uint( pxTask->longest_slice_us, 0U );
        demo_print_json_key( "idle", pdFALSE );
        demo_print( pxTask->idle ? "true" : "false" );
        demo_print_json_key( "deleted", pdFALSE );
        demo_print( pxTask->deleted ? "true" : "false" );
        demo_print_char( '}' );
    }

    demo_print( ( xRows == 0U ) ? "[]" : "]" );

    {
        const struct
        {
            const char * pcKey;
            uint32_t ulHundredths;
        }
        xShares[] =
        {
            { "interrupts_pct", pxSummary->interrupts },
            { "sleep_pct",      pxSummary->sleep      },
            { "other_pct",      pxSummary->other      },
            { "idle_pct",       pxSummary->idle       },
            { "load_pct",       pxSummary->load       },
        };

        for( x = 0U; x < ( sizeof( xShares ) / sizeof( xShares[ 0 ] ) ); x++ )
        {
            demo_print_json_key( xShares[ x ].pcKey, pdFALSE );
            demo_print_hundredths( xShares[ x ].ulHundredths, 0U );
        }
    }

    demo_print_json_key( "interrupts", pdFALSE );
    demo_print_uint( pxSummary->interrupt_count, 0U );
    demo_print_json_key( "longest_interrupt_us", pdFALSE );
    demo_print_uint( pxSummary->longest_interrupt_us, 0U );
    demo_print_json_key( "load_avg_pct", pdFALSE );

    for( x = 0U; x < 3U; x++ )
    {
        demo_print( ( x == 0U ) ? "[" : "," );

        if( pxSummary->load_avg[ x ] == UINT32_MAX )
        {
            demo_print( "null" );
        }
        else
        {
            demo_print_hundredths( pxSummary->load_avg[ x ], 0U );
        }
    }

    demo_print( "]" );
}
/*-----------------------------------------------------------*/

void demo_cmd_snapshot( int argc,
                            char ** argv )
{
    cpu_usage_summary_info xSummary;
    const BaseType_t xJson = demo_json_option( &argc, argv );
    int32_t lWritten;

    lWritten = cpu_usage_snapshot( xSnapshotTasks, sizeof( xSnapshotTasks ) / sizeof( xSnapshotTasks[ 0 ] ),
                                   &xSummary );

    if( lWritten < 0 )
    {
        demo_print( ( xJson == pdTRUE ) ? "{\"error\":\"" : "snapshot: " );
        demo_print( cpu_usage_status_str( lWritten ) );
        demo_print( ( xJson == pdTRUE ) ? "\"}\n" : "\n" );
        return;
    }

    if( xJson == pdTRUE )
    {
        demo_print( "{\"snapshot\":{" );
        prvSnapshotJson( &xSummary, ( size_t ) lWritten );
        demo_print( "}}\n" );
    }
    else
    {
        prvSnapshotTable( &xSummary, ( size_t ) lWritten );
    }
}
/*-----------------------------------------------------------*/
static const char * prvStateName( eTaskState eState )
{
    switch( eState )
    {
        case eRunning:
            return "running";

        case eReady:
            return "ready";

        case eBlocked:
            return "blocked";

        case eSuspended:
            return "suspended";

        case eDeleted:
            return "deleted";

        default:
            return "?";
    }
}
/*-----------------------------------------------------------*/

typedef struct DemoTaskRow
{
    uint32_t ulId;
    eTaskState eState;
    UBaseType_t uxPriority;
    configSTACK_DEPTH_TYPE uxStackFree;
    #if ( configGENERATE_RUN_TIME_STATS == 1 )
        configRUN_TIME_COUNTER_TYPE xRunTime;
    #endif
    char cName[ configMAX_TASK_NAME_LEN ];
} DemoTaskRow_t;

/*
 * A copy of every task's state, sorted by library ID so it lines up with
 * show_cpu_usage. The caller frees *ppxRows (NULL when out of memory).
 *
 * Everything is copied with the scheduler suspended: printing may block the shell, and
 * a task deleted meanwhile would leave TaskStatus_t pointing at a freed TCB (its name,
 * its handle).
 */
static UBaseType_t prvCollectTasks( DemoTaskRow_t ** ppxRows,
                                    UBaseType_t * puxTasks,
                                    configRUN_TIME_COUNTER_TYPE * pxTotalRunTime,
                                    char * pcReport,
                                    size_t xReportLen )
{
    TaskStatus_t * pxStatus;
    DemoTaskRow_t * pxRows;
    DemoTaskRow_t xRow;
    UBaseType_t uxTasks;
    UBaseType_t uxRows = 0U;
    UBaseType_t ux;
    UBaseType_t uxSorted;

    vTaskSuspendAll();
    {
        uxTasks = uxTaskGetNumberOfTasks();
        pxStatus = ( TaskStatus_t * ) pvPortMalloc( uxTasks * sizeof( TaskStatus_t ) );
        pxRows = ( DemoTaskRow_t * ) pvPortMalloc( uxTasks * sizeof( DemoTaskRow_t ) );

        if( ( pxStatus != NULL ) && ( pxRows != NULL ) )
        {
            uxRows = uxTaskGetSystemState( pxStatus, uxTasks, pxTotalRunTime );

            /* The library's since-start figures at the same instant (they run to the
             * end of its last completed window). */
            if( pcReport != NULL )
            {
                char cCommand[] = "show_cpu_usage";
                char cSinceStart[] = "-c";
                char cJson[] = "-m";
                char * pcArgv[] = { cCommand, cSinceStart, cJson, NULL };

                if( cpu_usage_format( pcReport, xReportLen, 3, pcArgv ) < 0 )
                {
                    pcReport[ 0 ] = '\0';
                }
            }

            for( ux = 0U; ux < uxRows; ux++ )
            {
                pxRows[ ux ].ulId = CPU_USAGE_TASK_ID( pxStatus[ ux ].xHandle );
                pxRows[ ux ].eState = pxStatus[ ux ].eCurrentState;
                pxRows[ ux ].uxPriority = pxStatus[ ux ].uxCurrentPriority;
                pxRows[ ux ].uxStackFree = pxStatus[ ux ].usStackHighWaterMark;
                #if ( configGENERATE_RUN_TIME_STATS == 1 )
                    pxRows[ ux ].xRunTime = pxStatus[ ux ].ulRunTimeCounter;
                #endif
                ( void ) strncpy( pxRows[ ux ].cName, pxStatus[ ux ].pcTaskName, configMAX_TASK_NAME_LEN - 1U );
                pxRows[ ux ].cName[ configMAX_TASK_NAME_LEN - 1U ] = '\0';
            }
        }
    }
    ( void ) xTaskResumeAll();

    if( pxStatus == NULL )
    {
        vPortFree( pxRows );
        pxRows = NULL;
    }

    vPortFree( pxStatus );

    /* Insertion sort: a few dozen rows. */
    for( uxSorted = 1U; uxSorted < uxRows; uxSorted++ )
    {
        xRow = pxRows[ uxSorted ];

        for( ux = uxSorted; ( ux > 0U ) && ( pxRows[ ux - 1U ].ulId > xRow.ulId ); ux-- )
        {
            pxRows[ ux ] = pxRows[ ux - 1U ];
        }

        pxRows[ ux ] = xRow;
    }

    *ppxRows = pxRows;
    *puxTasks = uxTasks;

    return uxRows;
}
/*-----------------------------------------------------------*/
static void prvTaskRowJson( const DemoTaskRow_t * pxRow,
                            BaseType_t xFirst )
{
    demo_print( ( xFirst == pdTRUE ) ? "{" : ",{" );
    demo_print_json_key( "id", pdTRUE );
    demo_print_uint( pxRow->ulId, 0U );
    demo_print_json_key( "name", pdFALSE );
    demo_print_json_string( pxRow->cName, sizeof( pxRow->cName ) );
}
/*-----------------------------------------------------------*/

void demo_cmd_tasks( int argc,
                         char ** argv )
{
    const BaseType_t xJson = demo_json_option( &argc, argv );
    DemoTaskRow_t * pxRows;
    UBaseType_t uxTasks;
    UBaseType_t uxRows;
    UBaseType_t ux;

    uxRows = prvCollectTasks( &pxRows, &uxTasks, NULL, NULL, 0U );

    if( pxRows == NULL )
    {
        demo_print( ( xJson == pdTRUE ) ? "{\"error\":\"out of memory\"}\n" : "tasks: out of memory\n" );
        return;
    }

    demo_print( ( xJson == pdTRUE ) ? "{\"tasks\":[" : "  id  name             state      prio  stack free (words)\n" );

    for( ux = 0U; ux < uxRows; ux++ )
    {
        if( xJson == pdTRUE )
        {
            prvTaskRowJson( &pxRows[ ux ], ( ux == 0U ) ? pdTRUE : pdFALSE );
            demo_print_json_key( "state", pdFALSE );
            demo_print_json_string( prvStateName( pxRows[ ux ].eState ), 16U );
            demo_print_json_key( "priority", pdFALSE );
            demo_print_uint( ( uint32_t ) pxRows[ ux ].uxPriority, 0U );
            demo_print_json_key( "stack_free_words", pdFALSE );
            demo_print_uint( ( uint32_t ) pxRows[ ux ].uxStackFree, 0U );
            demo_print_char( '}' );
        }
        else
        {
            demo_print_uint( pxRows[ ux ].ulId, 4U );
            demo_print( "  " );
            demo_print_field( pxRows[ ux ].cName, 17U );
            demo_print_field( prvStateName( pxRows[ ux ].eState ), 9U );
            demo_print_uint( ( uint32_t ) pxRows[ ux ].uxPriority, 6U );
            demo_print_uint( ( uint32_t ) pxRows[ ux ].uxStackFree, 7U );
            demo_print_char( '\n' );
        }
    }

    vPortFree( pxRows );

    if( xJson == pdTRUE )
    {
        demo_print( "],\"count\":" );
        demo_print_uint( ( uint32_t ) uxTasks, 0U );
        demo_print( "}\n" );
    }
    else
    {
        demo_print_uint( ( uint32_t ) uxTasks, 0U );
        demo_print( " tasks\n" );
    }
}
/*-----------------------------------------------------------*/

#if ( configGENERATE_RUN_TIME_STATS == 1 )

/* The kernel's own counters, for comparison: cumulative since boot, and a deleted
 * task's time disappears with it, which is what freertos-cpu-usage does differently.
 * Both taken at one instant; with -m, {"kernel":[...],"library":<show_cpu_usage -c -m>}. */
    void demo_cmd_kernel_stats( int argc,
                                   char ** argv )
    {
        const BaseType_t xJson = demo_json_option( &argc, argv );
        DemoTaskRow_t * pxRows;
        configRUN_TIME_COUNTER_TYPE xTotal = 0U;
        configRUN_TIME_COUNTER_TYPE xHundredths;
        char * pcReport;
        UBaseType_t uxTasks;
        UBaseType_t uxRows;
        UBaseType_t ux;

        pcReport = ( char * ) pvPortMalloc( demoKERNEL_STATS_REPORT_LEN );

        if( pcReport == NULL )
        {
            demo_print( "kernel_stats: out of memory\n" );
            return;
        }

        uxRows = prvCollectTasks( &pxRows, &uxTasks, &xTotal, pcReport, demoKERNEL_STATS_REPORT_LEN );

        if( pxRows == NULL )
        {
            vPortFree( pcReport );
            demo_print( "kernel_stats: out of memory\n" );
            return;
        }

        /* Hundredths of a percent from a divided total, so that no product can
         * overflow. */
        xTotal /= 10000U;

        if( xJson == pdTRUE )
        {
            demo_print( "{\"kernel\":[" );
        }

        for( ux = 0U; ( ux < uxRows ) && ( xTotal > 0U ); ux++ )
        {
            xHundredths = pxRows[ ux ].xRunTime / xTotal;

            if( xJson == pdTRUE )
            {
                prvTaskRowJson( &pxRows[ ux ], ( ux == 0U ) ? pdTRUE : pdFALSE );
                demo_print_json_key( "run_time_pct", pdFALSE );
            }
            else
            {
                demo_print_uint( pxRows[ ux ].ulId, 4U );
                demo_print( "  " );
                demo_print_field( pxRows[ ux ].cName, 17U );
            }

            demo_print_uint( ( uint32_t ) ( xHundredths / 100U ), ( xJson == pdTRUE ) ? 0U : 3U );
            demo_print_char( '.' );
            demo_print_char( ( char ) ( '0' + ( ( xHundredths / 10U ) % 10U ) ) );
            demo_print_char( ( char ) ( '0' + ( xHundredths % 10U ) ) );
            demo_print( ( xJson == pdTRUE ) ? "}" : "%\n" );
        }

        /* What the library says, taken at the same instant (a JSON object, ending
         * with a newline). */
        demo_print( ( xJson == pdTRUE ) ? "],\"library\":" : "library: " );

        if( xJson == pdTRUE )
        {
            size_t xLength = strlen( pcReport );

            while( ( xLength > 0U ) && ( pcReport[ xLength - 1U ] == '\n' ) )
            {
                pcReport[ --xLength ] = '\0';
            }

            demo_print( ( xLength > 0U ) ? pcReport : "null" );
            demo_print( "}\n" );
        }
        else
        {
            demo_print( pcReport );
        }

        vPortFree( pcReport );
        vPortFree( pxRows );
    }

#endif /* configGENERATE_RUN_TIME_STATS */
/*-----------------------------------------------------------*/

#if defined( DEMO_STAND_IN_TRACER ) && ( DEMO_STAND_IN_TRACER == 1 )

/* The tracer variant's other trace tool (demo/stand-in-tracer/), which shares the
 * kernel's trace macros with the library: what it counted, and the kernel's tick count
 * and number of tasks to check it against, all read in one critical section. One JSON
 * line: only tests read it. */
    void demo_cmd_tracer( int argc,
                              char ** argv )
    {
        StandInTracer_t xCounts;
        TickType_t xTicks;
        UBaseType_t uxTasks;
        size_t x;

        ( void ) argc;
        ( void ) argv;

        taskENTER_CRITICAL();
        {
            xCounts = xStandInTracer;
            xTicks = xTaskGetTickCount();
            uxTasks = uxTaskGetNumberOfTasks();
        }
        taskEXIT_CRITICAL();

        {
            const struct
            {
                const char * pcName;
                uint32_t ulValue;
            }
            xFields[] =
            {
                { "creates",                xCounts.ulCreates             },
                { "deletes",                xCounts.ulDeletes             },
                { "switch_ins",             xCounts.ulSwitchIns           },
                { "switch_outs",            xCounts.ulSwitchOuts          },
                { "handle_mismatches",      xCounts.ulHandleMismatches    },
                { "ticks",                  xCounts.ulTicks               },
                { "scheduler_starts",       xCounts.ulSchedulerStarts     },
                { "isr_enters",             xCounts.ulIsrEnters           },
                { "isr_exits",              xCounts.ulIsrExits            },
                { "isr_exits_to_scheduler", xCounts.ulIsrExitsToScheduler },
                { "sleeps",                 xCounts.ulSleeps              },
                { "wakes",                  xCounts.ulWakes               },
            };

            demo_print( "{\"tracer\":{" );

            for( x = 0U; x < ( sizeof( xFields ) / sizeof( xFields[ 0 ] ) ); x++ )
            {
                demo_print_json_key( xFields[ x ].pcName, ( x == 0U ) ? pdTRUE : pdFALSE );
                demo_print_uint( xFields[ x ].ulValue, 0U );
            }
        }

        demo_print( "},\"kernel\":{\"ticks\":" );
        demo_print_uint( ( uint32_t ) xTicks, 0U );
        demo_print( ",\"tasks\":" );
        demo_print_uint( ( uint32_t ) uxTasks, 0U );
        demo_print( "}}\n" );
    }

#endif /* DEMO_STAND_IN_TRACER */