/*
 * integration.c - freertos-cpu-usage wired into a firmware: what your firmware needs.
 *
 * Three things, and only the first two are required:
 *
 *  1. FreeRTOSConfig.h, at its end, after every setting, before the closing #endif
 *     of its include guard (the library's trace hooks; it fails with #error and the
 *     fix when placed before a setting it needs, or outside FreeRTOSConfig.h):
 *
 *         #include "freertos_cpu_usage_hooks.h"
 *
 *         #endif
 *
 *     (freertos-port/mps2-an385/FreeRTOSConfig.h shows it in place.)
 *
 *  2. Before vTaskStartScheduler(), where the report goes: a function that writes n
 *     bytes to your console (demo_integration_start() below).
 *
 *  3. A shell command that hands its argc/argv to show_cpu_usage() (demo_cmd_show_cpu_usage()
 *     below); or, with FreeRTOS+CLI, cpu_usage_cli_command registered as the command
 *     "show_cpu_usage" (the 'cli' command below shows how FreeRTOS+CLI calls it).
 *
 * The rest of this file is optional: the watchdog's alerts, the follow mode's wait
 * and the event trace command. Everything else in demo/ is the demo's own machinery
 * (workloads to measure, a shell to type in) that your firmware already has in some
 * form.
 */
#include <string.h>

#include "demo_internal.h"

/* Kept for the banner: only the shell task may write to the console, and nothing runs
 * yet when these are called. */
static int32_t lOutputStatus = CPU_USAGE_OK;
static int32_t lAlertStatus = CPU_USAGE_OK;

/*
 * The library's watchdog callback, called from the tick interrupt when a watchdog
 * trips. It may neither print nor block: the alert is copied into a queue that the
 * shell prints from (shell.c). *pxAlert is valid only during the call.
 */
static void prvWatchdogAlert( const cpu_usage_alert * pxAlert,
                              void * pvContext )
{
    ( void ) pvContext;
    demo_alert_queue( pxAlert );
}
/*-----------------------------------------------------------*/

void demo_integration_start( void )
{
    /* 2. The report's output: the console's write function. (The demo's goes through
     * demo_note_write(), which passes every byte on to port_console_write() and puts
     * the board's note into the reports, note.c: a firmware without a note of its own
     * passes its console's write function.) */
    lOutputStatus = cpu_usage_set_output( demo_note_write );

    /* Optional: alerts on high load or long runs ('cpu_usage_watchdog'), and what the
     * follow mode ('show_cpu_usage -f') does between reports. */
    lAlertStatus = cpu_usage_watchdog_set_callback( prvWatchdogAlert, NULL );
    ( void ) cpu_usage_set_follow_wait( demo_follow_wait ); /* cannot fail */
}
/*-----------------------------------------------------------*/

void demo_integration_warnings( void )
{
    if( lOutputStatus != CPU_USAGE_OK )
    {
        demo_print( "warning: cpu_usage_set_output: " );
        demo_print( cpu_usage_status_str( lOutputStatus ) );
        demo_print( "\n" );
    }

    if( lAlertStatus != CPU_USAGE_OK )
    {
        demo_print( "warning: cpu_usage_watchdog_set_callback: " );
        demo_print( cpu_usage_status_str( lAlertStatus ) );
        demo_print( "\n" );
    }
}
/*-----------------------------------------------------------*/

/* A board with nothing to say about its figures prints nothing. */
__attribute__( ( weak ) ) void board_report_note( int json )
{
    ( void ) json;
}
/*-----------------------------------------------------------*/

/* After a library command: the library explains its own failures (bad options, no
 * window completed yet) through the output; only without an output is it mute. */
static void prvLibraryStatus( const char * pcCommand,
                              int iStatus )
{
    demo_note_flush();

    if( iStatus == CPU_USAGE_ERR_NO_OUTPUT )
    {
        demo_print( pcCommand );
        demo_print( ": " );
        demo_print( cpu_usage_status_str( ( int32_t ) iStatus ) );
        demo_print( "\n" );
    }
}
/*-----------------------------------------------------------*/

/* 3. The shell command: argc/argv as the shell split the line, argv[0] its name. */
void demo_cmd_show_cpu_usage( int argc,
                              char ** argv )
{
    demo_print_flush(); /* the report goes straight to the output */
    prvLibraryStatus( argv[ 0 ], show_cpu_usage( argc, argv ) );
}
/*-----------------------------------------------------------*/

/* The watchdogs' settings; their alerts come through prvWatchdogAlert(). */
void demo_cmd_watchdog( int argc,
                        char ** argv )
{
    prvLibraryStatus( argv[ 0 ], cpu_usage_watchdog( argc, argv ) );
}
/*-----------------------------------------------------------*/

/* The event trace, for a timeline in Perfetto (cpu-usage-top --perfetto). Only in
 * firmware built with CPU_USAGE_TRACE 1 (FreeRTOSConfig.h, before the hooks header),
 * so that the others do not link its ring. */
#if defined( CPU_USAGE_TRACE ) && ( CPU_USAGE_TRACE == 1 )
    void demo_cmd_trace( int argc,
                         char ** argv )
    {
        demo_print_flush();
        prvLibraryStatus( argv[ 0 ], cpu_usage_trace( argc, argv ) );
    }
#endif
/*-----------------------------------------------------------*/

/* ---- FreeRTOS+CLI's way: the 'cli' command ------------------------------------------ */

/* The output buffer: deliberately small, so that a report takes many calls, as with a
 * FreeRTOS+CLI console whose output buffer is small. The bound on the calls only keeps
 * a misbehaving callback from hanging the shell. */
#define demoCLI_PIECE_LEN     48U
#define demoCLI_MAX_PIECES    1000U

/* What a FreeRTOS+CLI build registers (FreeRTOS_CLIRegisterCommand()): the name and
 * the pdCOMMAND_LINE_CALLBACK. */
typedef struct DemoCliCommand
{
    const char * pcCommand;
    long ( * pxCommandInterpreter )( char * pcWriteBuffer,
                                     size_t xWriteBufferLen,
                                     const char * pcCommandString );
} DemoCliCommand_t;

static const DemoCliCommand_t xCliCommands[] =
{
    { "show_cpu_usage", cpu_usage_cli_command },
};

#define demoCLI_COMMAND_COUNT    ( sizeof( xCliCommands ) / sizeof( xCliCommands[ 0 ] ) )

/* The registered commands' names, for the messages. */
static void prvCliNames( void )
{
    size_t x;

    for( x = 0U; x < demoCLI_COMMAND_COUNT; x++ )
    {
        demo_print( ( x == 0U ) ? "" : ", " );
        demo_print( xCliCommands[ x ].pcCommand );
    }
}
/*-----------------------------------------------------------*/

/*
 * What FreeRTOS+CLI's console task does with a line: find the command by its first
 * word, then call its callback with the whole line and a small output buffer, writing
 * out each piece, until the callback returns pdFALSE. A last line (not from
 * FreeRTOS+CLI) says how many calls it took.
 */
void demo_cmd_cli( int argc,
                   char ** argv )
{
    char cPiece[ demoCLI_PIECE_LEN ];
    char cCommandLine[ demoLINE_MAX ];
    const DemoCliCommand_t * pxCommand = NULL;
    size_t xLength = 0U;
    size_t xWord;
    uint32_t ulCalls = 0U;
    long lMore;
    char cLast = '\n';
    int i;

    if( argc < 2 )
    {
        demo_print( "usage: cli <command> [<arguments>] (commands: " );
        prvCliNames();
        demo_print( ")\n" );
        return;
    }

    /* The line again, without "cli": its words fit, since the whole line did. */
    for( i = 1; i < argc; i++ )
    {
        xWord = strlen( argv[ i ] );

        if( ( xLength + 1U + xWord ) >= sizeof( cCommandLine ) )
        {
            demo_print( "cli: line too long\n" );
            return;
        }

        if( i > 1 )
        {
            cCommandLine[ xLength++ ] = ' ';
        }

        memcpy( &cCommandLine[ xLength ], argv[ i ], xWord );
        xLength += xWord;
    }

    cCommandLine[ xLength ] = '\0';

    for( i = 0; i < ( int ) demoCLI_COMMAND_COUNT; i++ )
    {
        if( strcmp( argv[ 1 ], xCliCommands[ i ].pcCommand ) == 0 )
        {
            pxCommand = &xCliCommands[ i ];
        }
    }

    if( pxCommand == NULL )
    {
        /* Not FreeRTOS+CLI's own answer, whose 'help' would be the demo shell's. */
        demo_print( "cli: no command '" );
        demo_print( argv[ 1 ] );
        demo_print( "' registered with FreeRTOS+CLI here (registered: " );
        prvCliNames();
        demo_print( "); the demo's own commands run without 'cli'\n" );
        return;
    }

    /* Each piece goes out as it comes, through demo_note_write() as the library's
     * own output does, so that a report gets the board's note here too (note.c). */
    demo_print_flush();

    do
    {
        lMore = pxCommand->pxCommandInterpreter( cPiece, sizeof( cPiece ), cCommandLine );
        ulCalls++;

        xWord = strlen( cPiece );
        demo_note_write( cPiece, xWord );

        if( xWord > 0U )
        {
            cLast = cPiece[ xWord - 1U ];
        }
    } while( ( lMore != 0 ) && ( ulCalls < demoCLI_MAX_PIECES ) );

    demo_note_flush();

    if( cLast != '\n' )
    {
        demo_print( "\n" );
    }

    demo_print( ( lMore != 0 ) ? "cli: stopped after " : "cli: " );
    demo_print_uint( ulCalls, 0U );
    demo_print( " calls with a " );
    demo_print_uint( demoCLI_PIECE_LEN, 0U );
    demo_print( "-byte buffer\n" );
}
/*-----------------------------------------------------------*/
