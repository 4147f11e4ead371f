/*
 * commands.c - the shell's command table, and the commands that steer the workloads
 * (load, churn, tick30, sampled), help and exit. The commands that read figures are in
 * readouts.c, the library's own (show_cpu_usage, cpu_usage_watchdog, cpu_usage_trace,
 * cli) in integration.c.
 *
 * The commands a program reads print a table (or a line) for a person and, with -m
 * (as show_cpu_usage -m), one line of JSON instead; the system tests read them with
 * the types of tests/src/scenario/demo_json.rs.
 */
#include <stdint.h>
#include <string.h>

#include "demo_internal.h"

BaseType_t demo_json_option( int * pargc,
                             char ** argv )
{
    BaseType_t xFound = pdFALSE;
    int i;
    int j = 1;

    for( i = 1; i < *pargc; i++ )
    {
        if( strcmp( argv[ i ], "-m" ) == 0 )
        {
            xFound = pdTRUE;
        }
        else
        {
            argv[ j++ ] = argv[ i ];
        }
    }

    argv[ j ] = NULL;
    *pargc = j;

    return xFound;
}
/*-----------------------------------------------------------*/

DemoSwitch_t demo_parse_switch( int argc,
                                char ** argv,
                                const char * usage )
{
    const char * pcArg = ( argc == 2 ) ? argv[ 1 ] : "";

    if( strcmp( pcArg, "on" ) == 0 )
    {
        return DEMO_SWITCH_ON;
    }

    if( strcmp( pcArg, "off" ) == 0 )
    {
        return DEMO_SWITCH_OFF;
    }

    if( strcmp( pcArg, "status" ) == 0 )
    {
        return DEMO_SWITCH_STATUS;
    }

    demo_print( usage );
    demo_print( "\n" );

    return DEMO_SWITCH_USAGE;
}
/*-----------------------------------------------------------*/

/* "on" sets *pxOn and wakes xTask, "off" clears it (the task notices at its next
 * round). pdFALSE, usage printed, for anything else; pdTRUE when the command should
 * go on to print its status. */
static BaseType_t prvOnOffStatus( int argc,
                                  char ** argv,
                                  const char * pcUsage,
                                  volatile BaseType_t * pxOn,
                                  TaskHandle_t xTask )
{
    switch( demo_parse_switch( argc, argv, pcUsage ) )
    {
        case DEMO_SWITCH_ON:
            *pxOn = pdTRUE;
            ( void ) xTaskNotifyGive( xTask );
            return pdTRUE;

        case DEMO_SWITCH_OFF:
            *pxOn = pdFALSE;
            return pdTRUE;

        case DEMO_SWITCH_STATUS:
            return pdTRUE;

        default:
            return pdFALSE;
    }
}
/*-----------------------------------------------------------*/

static void prvCmdHelp( int argc,
                        char ** argv );

static void prvHelpLine( const char * pcName,
                         const char * pcArgs,
                         const char * pcHelp )
{
    size_t xWidth = strlen( pcName );

    demo_print( "  " );
    demo_print( pcName );

    if( pcArgs[ 0 ] != '\0' )
    {
        demo_print_char( ' ' );
        demo_print( pcArgs );
        xWidth += 1U + strlen( pcArgs );
    }

    demo_print_pad( ( xWidth < 34U ) ? ( 34U - xWidth ) : 1U );
    demo_print( pcHelp );
    demo_print_char( '\n' );
}
/*-----------------------------------------------------------*/

static void prvCmdHelp( int argc,
                        char ** argv )
{
    size_t x;

    ( void ) argc;
    ( void ) argv;

    for( x = 0U; x < xDemoCommandCount; x++ )
    {
        prvHelpLine( xDemoCommands[ x ].pcName, xDemoCommands[ x ].pcArgs, xDemoCommands[ x ].pcHelp );
    }

    for( x = 0U; x < port_command_count; x++ )
    {
        prvHelpLine( port_commands[ x ].pcName, port_commands[ x ].pcArgs, port_commands[ x ].pcHelp );
    }

    demo_print( "-m: one line of JSON instead of the table. Keys: arrows, Home/End, Backspace, Ctrl-U, Ctrl-C, Ctrl-D.\n" );
}
/*-----------------------------------------------------------*/

/* A plain decimal 0..100: no sign, no spaces, no fraction. pdFALSE otherwise. */
static BaseType_t prvParsePercent( const char * pcText,
                                   uint32_t * pulValue )
{
    uint32_t ulValue = 0U;
    size_t xDigits = 0U;

    for( ; *pcText != '\0'; pcText++ )
    {
        if( ( *pcText < '0' ) || ( *pcText > '9' ) || ( ++xDigits > 3U ) )
        {
            return pdFALSE;
        }

        ulValue = ( ulValue * 10U ) + ( uint32_t ) ( *pcText - '0' );
    }

    if( ( xDigits == 0U ) || ( ulValue > 100U ) )
    {
        return pdFALSE;
    }

    *pulValue = ulValue;

    return pdTRUE;
}
/*-----------------------------------------------------------*/

static void prvPrintWorkload( const DemoWorkload_t * pxLoad )
{
    demo_print( pxLoad->pcName );
    demo_print( ": " );
    demo_print_uint( pxLoad->ulDutyPct, 0U );
    demo_print( "%\n" );
}
/*-----------------------------------------------------------*/

static void prvCmdLoad( int argc,
                        char ** argv )
{
    DemoWorkload_t * pxLoad = NULL;
    uint32_t ulPercent;
    size_t x;

    if( argc == 1 )
    {
        for( x = 0U; x < demoWORKLOAD_COUNT; x++ )
        {
            prvPrintWorkload( &xDemoWorkloads[ x ] );
        }

        return;
    }

    if( argc != 3 )
    {
        demo_print( "usage: load [<task> <percent>]\n" );
        return;
    }

    for( x = 0U; x < demoWORKLOAD_COUNT; x++ )
    {
        if( strcmp( argv[ 1 ], xDemoWorkloads[ x ].pcName ) == 0 )
        {
            pxLoad = &xDemoWorkloads[ x ];
        }
    }

    if( pxLoad == NULL )
    {
        demo_print( "load: no workload '" );
        demo_print( argv[ 1 ] );
        demo_print( "' (work10, work25 or work40)\n" );
        return;
    }

    if( prvParsePercent( argv[ 2 ], &ulPercent ) == pdFALSE )
    {
        demo_print( "load: percent must be a whole number from 0 to 100, not '" );
        demo_print( argv[ 2 ] );
        demo_print( "'\n" );
        return;
    }

    /* One aligned word: the workload reads either the old or the new duty. */
    pxLoad->ulDutyPct = ulPercent;
    prvPrintWorkload( pxLoad );
}
/*-----------------------------------------------------------*/

/* A JSON member with a number, after the first. */
static void prvJsonUInt( const char * pcKey,
                         uint32_t ulValue )
{
    demo_print_json_key( pcKey, pdFALSE );
    demo_print_uint( ulValue, 0U );
}
/*-----------------------------------------------------------*/

static void prvCmdChurn( int argc,
                         char ** argv )
{
    const BaseType_t xJson = demo_json_option( &argc, argv );
    const char * pcOn;
    DemoChurnCounts_t xCounts;

    /* Off, the churn task deletes its waiting children on its next round and then
     * sleeps; self-deleting children finish on their own. */
    if( prvOnOffStatus( argc, argv, "usage: churn [-m] on|off|status", &xDemoChurnOn, xDemoChurnTask ) == pdFALSE )
    {
        return;
    }

    demo_churn_counts( &xCounts );
    pcOn = ( xDemoChurnOn != pdFALSE ) ? "on" : "off";

    if( xJson == pdTRUE )
    {
        demo_print( "{\"churn\":\"" );
        demo_print( pcOn );
        demo_print( "\"" );
        prvJsonUInt( "created", xCounts.ulCreated );
        prvJsonUInt( "deleted", xCounts.ulDeleted );
        prvJsonUInt( "alive", xCounts.ulCreated - xCounts.ulDeleted );
        prvJsonUInt( "create_failures", xCounts.ulCreateFailures );
        demo_print( "}\n" );
        return;
    }

    demo_print( "churn: " );
    demo_print( pcOn );
    demo_print( ", created " );
    demo_print_uint( xCounts.ulCreated, 0U );
    demo_print( ", deleted " );
    demo_print_uint( xCounts.ulDeleted, 0U );
    demo_print( ", alive " );
    demo_print_uint( xCounts.ulCreated - xCounts.ulDeleted, 0U );

    if( xCounts.ulCreateFailures > 0U )
    {
        demo_print( ", create failures " );
        demo_print_uint( xCounts.ulCreateFailures, 0U );
    }

    demo_print_char( '\n' );
}
/*-----------------------------------------------------------*/

static void prvCmdTick30( int argc,
                          char ** argv )
{
    const BaseType_t xJson = demo_json_option( &argc, argv );
    const char * pcOn;
    DemoTick30Stats_t xStats;

    /* Off, it notices at its next activation, within a tick. */
    if( prvOnOffStatus( argc, argv, "usage: tick30 [-m] on|off|status", &xDemoTick30On, xDemoTick30Task ) == pdFALSE )
    {
        return;
    }

    /* The latency figures cover the time since the last 'tick30' command. */
    demo_tick30_take( &xStats );
    pcOn = ( xDemoTick30On != pdFALSE ) ? "on" : "off";

    if( xJson == pdTRUE )
    {
        demo_print( "{\"tick30\":\"" );
        demo_print( pcOn );
        demo_print( "\"" );
        prvJsonUInt( "duty_pct", demoTICK30_DUTY_PCT );
        prvJsonUInt( "activations", xStats.ulActivations );

        /* Without an activation since the last command there is no latency to give. */
        if( xStats.ulLatencyCount > 0U )
        {
            prvJsonUInt( "latency_mean_us", xStats.ulLatencySumUs / xStats.ulLatencyCount );
            prvJsonUInt( "latency_max_us", xStats.ulLatencyMaxUs );
            prvJsonUInt( "overrun_us", xStats.ulOverrunUs );
        }

        demo_print( "}\n" );
        return;
    }

    demo_print( "tick30: " );
    demo_print( pcOn );
    demo_print( ", busy for the first " );
    demo_print_uint( demoTICK30_DUTY_PCT, 0U );
    demo_print( "% of every tick period, activations " );
    demo_print_uint( xStats.ulActivations, 0U );

    if( xStats.ulLatencyCount > 0U )
    {
        demo_print( ", running after the tick: mean " );
        demo_print_uint( xStats.ulLatencySumUs / xStats.ulLatencyCount, 0U );
        demo_print( " us, max " );
        demo_print_uint( xStats.ulLatencyMaxUs, 0U );
        demo_print( " us, past its share: " );
        demo_print_uint( xStats.ulOverrunUs, 0U );
        demo_print( " us in all" );
    }

    demo_print_char( '\n' );
}
/*-----------------------------------------------------------*/

/* Part of total in tenths of a percent, rounded; 32-bit arithmetic only. */
static uint32_t prvPermille( uint32_t ulPart,
                             uint32_t ulTotal )
{
    /* Keep ulPart * 1000 within 32 bits (over an hour of 1 kHz ticks between reads). */
    while( ulTotal > 4000000U )
    {
        ulPart >>= 1;
        ulTotal >>= 1;
    }

    return ( ulTotal == 0U ) ? 0U : ( ( ulPart * 1000U ) + ( ulTotal / 2U ) ) / ulTotal;
}
/*-----------------------------------------------------------*/

static void prvCmdSampled( int argc,
                           char ** argv )
{
    const BaseType_t xJson = demo_json_option( &argc, argv );
    uint32_t ulTicks[ demoSAMPLED_ROWS ];
    uint32_t ulTotal = 0U;
    uint32_t ulPermille;
    size_t x;

    demo_sampled_take( ulTicks );

    for( x = 0U; x < demoSAMPLED_ROWS; x++ )
    {
        ulTotal += ulTicks[ x ];
    }

    if( xJson == pdTRUE )
    {
        demo_print( "{\"sampled\":{\"ticks\":" );
        demo_print_uint( ulTotal, 0U );
        demo_print( ",\"rows\":[" );
    }
    else
    {
        demo_print( "tick-sampled over the last " );
        demo_print_uint( ulTotal, 0U );
        demo_print( " ticks (each tick charged whole to the task running when it fired):\n" );
    }

    for( x = 0U; x < demoSAMPLED_ROWS; x++ )
    {
        ulPermille = prvPermille( ulTicks[ x ], ulTotal );

        if( xJson == pdTRUE )
        {
            demo_print( ( x == 0U ) ? "{" : ",{" );
            demo_print_json_key( "name", pdTRUE );
            demo_print_json_string( pcDemoSampledNames[ x ], 32U );
            demo_print_json_key( "pct", pdFALSE );
        }
        else
        {
            demo_print( "  " );
            demo_print_field( pcDemoSampledNames[ x ], 14U );
        }

        demo_print_uint( ulPermille / 10U, ( xJson == pdTRUE ) ? 0U : 4U );
        demo_print_char( '.' );
        demo_print_uint( ulPermille % 10U, 0U );

        if( xJson == pdTRUE )
        {
            prvJsonUInt( "ticks", ulTicks[ x ] );
            demo_print_char( '}' );
        }
        else
        {
            demo_print( "%" );
            demo_print_uint( ulTicks[ x ], 9U );
            demo_print( " ticks\n" );
        }
    }

    if( xJson == pdTRUE )
    {
        demo_print( "]}}\n" );
    }
}
/*-----------------------------------------------------------*/

/*-----------------------------------------------------------*/

static void prvCmdExit( int argc,
                        char ** argv )
{
    ( void ) argc;
    ( void ) argv;

    port_exit( 0 );
}
/*-----------------------------------------------------------*/

const DemoCommand_t xDemoCommands[] =
{
    { "help",           "",                  "this list",                                 prvCmdHelp              },
    { "show_cpu_usage", "[options]",         "per-task CPU usage ('show_cpu_usage -h')",  demo_cmd_show_cpu_usage },
    { "tasks",          "[-m]",              "all tasks: library ID, state, stack",       demo_cmd_tasks            },
    { "load",           "[<task> <percent>]", "show or set a workload's duty (0..100)",   prvCmdLoad              },
    { "churn",          "[-m] on|off|status", "the task-churn generator",                 prvCmdChurn             },
    { "tick30",         "[-m] on|off|status", "busy for the first 30% of every tick",     prvCmdTick30            },
    { "sampled",        "[-m]",              "tick-sampled shares since the last one",    prvCmdSampled           },
    { "cpu_usage_watchdog", "[load <pct> <n>|slice <us>|off]", "alerts on high load or long runs", demo_cmd_watchdog },
    { "snapshot",       "[-m]",              "the last window, from cpu_usage_snapshot()", demo_cmd_snapshot         },
    #if defined( CPU_USAGE_TRACE ) && ( CPU_USAGE_TRACE == 1 )
        { "cpu_usage_trace", "start|stop|dump|status", "the event trace (a timeline for Perfetto)", demo_cmd_trace },
    #endif
    { "cli",            "<command line>",    "run it as FreeRTOS+CLI would (48-byte pieces)", demo_cmd_cli        },
    #if ( configGENERATE_RUN_TIME_STATS == 1 )
        { "kernel_stats", "[-m]",            "the kernel's run-time stats and the library's since start, at one instant", demo_cmd_kernel_stats },
    #endif
    #if defined( DEMO_STAND_IN_TRACER ) && ( DEMO_STAND_IN_TRACER == 1 )
        { "tracer",     "",                  "the stand-in tracer's counts and the kernel's, at one instant (JSON)", demo_cmd_tracer },
    #endif
    { "exit",           "",                  "end the run",                               prvCmdExit              },
};

const size_t xDemoCommandCount = sizeof( xDemoCommands ) / sizeof( xDemoCommands[ 0 ] );
