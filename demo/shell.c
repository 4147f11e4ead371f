/*
 * shell.c - the demo's shell: a line editor with a short history on the console, the
 * split of a line into words, the dispatch to the command tables (commands.c and the
 * board's), and the watchdog alerts (alerts.c) printed between lines.
 *
 * Keys (the VT100/ANSI sequences a terminal sends, ESC [ x and ESC O x alike):
 * Left/Right, Home/End (also Ctrl-A/Ctrl-E), Backspace, Delete, Ctrl-U (erase to the
 * start of the line), Ctrl-K (to its end), Up/Down (history), Ctrl-C (drop the line),
 * Ctrl-D on an empty line (end of input). On a terminal (port_console_is_terminal())
 * the shell echoes and redraws the line itself; piped or scripted input is edited the
 * same way but nothing is echoed, so a program sees only the answers, one prompt per
 * command.
 *
 * A line longer than demoLINE_MAX - 1 characters is refused whole: from the first
 * character without room to the line's end everything is dropped, and the answer is
 * "line too long" with nothing run. Running what fitted would run another command
 * than the one sent (a cut `show_cpu_usage ... -w 25000` sets a 25 ms window).
 */
#include <stdint.h>
#include <string.h>

#include "demo_internal.h"

/* How long the shell waits for a console byte before it looks for watchdog alerts
 * again: an alert reaches the console at most this long after the tick that raised it.
 * (The POSIX board polls its stdin every 10 ms in any case.) */
#define demoSHELL_POLL_MS    10U

/* Bytes of history: the lines typed, each with its NUL, newest last, the oldest
 * dropped to make room (1,024: eight lines of the longest, more of the usual). A board
 * short of RAM sets fewer in FreeRTOSConfig.h (microbit: 256); 0 turns history off. */
#ifndef demoSHELL_HISTORY_BYTES
    #define demoSHELL_HISTORY_BYTES    1024U
#endif

#define demoKEY_CTRL_A       0x01
#define demoKEY_CTRL_C       0x03
#define demoKEY_CTRL_D       0x04
#define demoKEY_CTRL_E       0x05
#define demoKEY_BACKSPACE    0x08
#define demoKEY_CTRL_K       0x0B
#define demoKEY_CTRL_U       0x15
#define demoKEY_ESC          0x1B
#define demoKEY_DEL          0x7F

static const char cPrompt[] = "> ";

/* ---- The line being typed ------------------------------------------------------------ */

static char cLine[ demoLINE_MAX ];
static size_t xLength = 0U;
static size_t xCursor = 0U;
/* The line ran out of room: the rest of it up to its end is dropped, and it is
 * refused rather than run cut. */
static BaseType_t xTooLong = pdFALSE;
/* pdTRUE while the shell reads a line (the prompt and cLine are on the screen). */
static BaseType_t xReading = pdFALSE;
/* The console echoes nothing itself: the shell echoes and redraws. */
static BaseType_t xTerminal = pdFALSE;
/* Piped input: the prompt is the last thing printed (an alert ends its line first). */
static BaseType_t xPromptOpen = pdFALSE;

#if ( demoSHELL_HISTORY_BYTES > 0U )
    static char cHistory[ demoSHELL_HISTORY_BYTES ];
    static size_t xHistoryUsed = 0U;
#endif
/* The history line shown (1: the newest), 0 for a new line. */
static size_t xHistoryAt = 0U;

/*-----------------------------------------------------------*/

/* The prompt and the line being typed, the cursor where it was. */
static void prvDrawLine( void )
{
    size_t x;

    demo_print( cPrompt );

    for( x = 0U; x < xLength; x++ )
    {
        demo_print_char( cLine[ x ] );
    }

    /* Erase whatever a longer line left to the right. */
    demo_print( "\x1b[K" );

    for( x = xCursor; x < xLength; x++ )
    {
        demo_print_char( '\b' );
    }
}
/*-----------------------------------------------------------*/

/*
 * Prints the alerts demo_alert_queue() has kept, oldest first, then how many found no
 * room. Called before each prompt, and while a line is read each time the console has
 * been quiet for demoSHELL_POLL_MS.
 *
 * While a line is read, on a terminal, the line is erased first, and the prompt and
 * the line are drawn again after the alerts, the cursor where it was. With piped input
 * (no echo) the alerts wait until the line is empty, and start with a newline that
 * ends the prompt's line; the prompt is not printed again, so a program driving the
 * shell sees exactly one prompt per command, and the alert lines at the start of the
 * next answer.
 */
static void prvPrintAlerts( void )
{
    cpu_usage_alert xAlert;
    uint32_t ulLost;
    BaseType_t xTaken;
    BaseType_t xPrinted = pdFALSE;

    if( ( xReading == pdTRUE ) && ( xTerminal == pdFALSE ) && ( xLength > 0U ) )
    {
        return;
    }

    for( ; ; )
    {
        xTaken = demo_alert_take( &xAlert, &ulLost );

        if( ( xTaken == pdFALSE ) && ( ulLost == 0U ) )
        {
            break;
        }

        if( ( xPrinted == pdFALSE ) && ( xReading == pdTRUE ) && ( xTerminal == pdTRUE ) )
        {
            demo_print( "\r\x1b[K" );
        }
        else if( xPromptOpen == pdTRUE )
        {
            demo_print_char( '\n' );
            xPromptOpen = pdFALSE;
        }

        xPrinted = pdTRUE;

        demo_alert_print( ( xTaken == pdTRUE ) ? &xAlert : NULL, ulLost );
    }

    if( ( xPrinted == pdTRUE ) && ( xReading == pdTRUE ) && ( xTerminal == pdTRUE ) )
    {
        prvDrawLine();
    }

    demo_print_flush();
}
/*-----------------------------------------------------------*/

/*
 * The console byte that ended a 'show_cpu_usage -f' (follow mode), kept for the
 * shell's next line; PORT_CONSOLE_TIMEOUT when there is none.
 */
static int iConsoleHeld = PORT_CONSOLE_TIMEOUT;

static int prvConsoleGetc( uint32_t ulTimeoutMs )
{
    int c = iConsoleHeld;

    if( c == PORT_CONSOLE_TIMEOUT )
    {
        c = port_console_getc( ulTimeoutMs );
    }
    else
    {
        iConsoleHeld = PORT_CONSOLE_TIMEOUT;
    }

    return c;
}
/*-----------------------------------------------------------*/

/*
 * The library's follow mode waits here between reports (shell task): watchdog alerts
 * are printed meanwhile, and any input, or the console closing, ends the follow. The
 * byte is kept for the shell, so the line typed to stop it still runs.
 */
int demo_follow_wait( uint32_t ulMs )
{
    int c = prvConsoleGetc( ulMs );

    if( c == PORT_CONSOLE_TIMEOUT )
    {
        prvPrintAlerts();
        return 0;
    }

    iConsoleHeld = c;
    return 1;
}
/*-----------------------------------------------------------*/

/* ---- History ------------------------------------------------------------------------ */

#if ( demoSHELL_HISTORY_BYTES > 0U )

/* The n-th newest line (1: the newest), NULL past the oldest. */
    static const char * prvHistoryLine( size_t xNth )
    {
        size_t xEnd = xHistoryUsed;
        size_t xStart = 0U;
        size_t x;

        for( x = 0U; x < xNth; x++ )
        {
            if( xEnd == 0U )
            {
                return NULL;
            }

            /* xEnd - 1 is the line's NUL; its first byte follows the previous NUL. */
            xStart = xEnd - 1U;

            while( ( xStart > 0U ) && ( cHistory[ xStart - 1U ] != '\0' ) )
            {
                xStart--;
            }

            xEnd = xStart;
        }

        return ( xNth == 0U ) ? NULL : &cHistory[ xStart ];
    }

    static void prvHistoryAdd( void )
    {
        const char * pcNewest = prvHistoryLine( 1U );
        size_t xOldest;

        if( ( xLength == 0U ) || ( ( xLength + 1U ) > sizeof( cHistory ) ) ||
            ( ( pcNewest != NULL ) && ( strlen( pcNewest ) == xLength ) &&
              ( memcmp( pcNewest, cLine, xLength ) == 0 ) ) )
        {
            return;
        }

        while( ( xHistoryUsed + xLength + 1U ) > sizeof( cHistory ) )
        {
            xOldest = strlen( cHistory ) + 1U;
            memmove( cHistory, &cHistory[ xOldest ], xHistoryUsed - xOldest );
            xHistoryUsed -= xOldest;
        }

        memcpy( &cHistory[ xHistoryUsed ], cLine, xLength );
        cHistory[ xHistoryUsed + xLength ] = '\0';
        xHistoryUsed += xLength + 1U;
    }

#else /* if ( demoSHELL_HISTORY_BYTES > 0U ) */

    static const char * prvHistoryLine( size_t xNth )
    {
        ( void ) xNth;
        return NULL;
    }

    static void prvHistoryAdd( void )
    {
    }

#endif /* if ( demoSHELL_HISTORY_BYTES > 0U ) */
/*-----------------------------------------------------------*/

/* ---- Editing ------------------------------------------------------------------------- */

/* The line changed from xFrom on, the terminal's cursor being there: the rest of the
 * line again, then back to xCursor. */
static void prvRedrawFrom( size_t xFrom )
{
    size_t x;

    if( xTerminal == pdFALSE )
    {
        return;
    }

    for( x = xFrom; x < xLength; x++ )
    {
        demo_print_char( cLine[ x ] );
    }

    demo_print( "\x1b[K" );

    for( x = xCursor; x < xLength; x++ )
    {
        demo_print_char( '\b' );
    }
}
/*-----------------------------------------------------------*/

/* Moves the cursor to xTo. */
static void prvMoveTo( size_t xTo )
{
    while( xCursor > xTo )
    {
        xCursor--;

        if( xTerminal == pdTRUE )
        {
            demo_print_char( '\b' );
        }
    }

    while( xCursor < xTo )
    {
        if( xTerminal == pdTRUE )
        {
            demo_print_char( cLine[ xCursor ] );
        }

        xCursor++;
    }
}
/*-----------------------------------------------------------*/

/* Removes xCount characters from xAt on; the cursor ends at xAt. */
static void prvDelete( size_t xAt,
                       size_t xCount )
{
    prvMoveTo( xAt );
    memmove( &cLine[ xAt ], &cLine[ xAt + xCount ], xLength - xAt - xCount );
    xLength -= xCount;
    prvRedrawFrom( xAt );
}
/*-----------------------------------------------------------*/

static void prvInsert( char c )
{
    if( xLength >= ( sizeof( cLine ) - 1U ) )
    {
        /* Full: the terminal's bell, and the line is refused at its end. */
        if( xTerminal == pdTRUE )
        {
            demo_print_char( '\a' );
        }

        xTooLong = pdTRUE;
        return;
    }

    memmove( &cLine[ xCursor + 1U ], &cLine[ xCursor ], xLength - xCursor );
    cLine[ xCursor ] = c;
    xLength++;
    xCursor++;

    if( xTerminal == pdTRUE )
    {
        demo_print_char( c );

        if( xCursor < xLength )
        {
            prvRedrawFrom( xCursor );
        }
    }
}
/*-----------------------------------------------------------*/

/* Replaces the line with the xNth newest of the history (0: an empty line). */
static void prvRecall( size_t xNth )
{
    const char * pcLine = prvHistoryLine( xNth );

    if( ( xNth > 0U ) && ( pcLine == NULL ) )
    {
        return;
    }

    xHistoryAt = xNth;
    xLength = ( pcLine == NULL ) ? 0U : strlen( pcLine );
    memcpy( cLine, ( pcLine == NULL ) ? "" : pcLine, xLength );
    xCursor = xLength;

    if( xTerminal == pdTRUE )
    {
        demo_print_char( '\r' );
        prvDrawLine();
    }
}
/*-----------------------------------------------------------*/

/* The end of an escape sequence: its final byte and first number (0 if none). */
static void prvEscape( char cFinal,
                       uint32_t ulNumber )
{
    if( cFinal == '~' )
    {
        /* ESC [ n ~: 1 and 7 Home, 4 and 8 End, 3 Delete. */
        cFinal = ( ( ulNumber == 1U ) || ( ulNumber == 7U ) ) ? 'H' :
                 ( ( ulNumber == 4U ) || ( ulNumber == 8U ) ) ? 'F' :
                 ( ulNumber == 3U ) ? 'P' : '\0';
    }

    switch( cFinal )
    {
        case 'A':
            prvRecall( xHistoryAt + 1U );
            break;

        case 'B':

            if( xHistoryAt > 0U )
            {
                prvRecall( xHistoryAt - 1U );
            }

            break;

        case 'C':
            prvMoveTo( ( xCursor < xLength ) ? ( xCursor + 1U ) : xCursor );
            break;

        case 'D':
            prvMoveTo( ( xCursor > 0U ) ? ( xCursor - 1U ) : 0U );
            break;

        case 'H':
            prvMoveTo( 0U );
            break;

        case 'F':
            prvMoveTo( xLength );
            break;

        case 'P':

            if( xCursor < xLength )
            {
                prvDelete( xCursor, 1U );
            }

            break;

        default:
            /* Other keys (function keys, Alt-...) do nothing. */
            break;
    }
}
/*-----------------------------------------------------------*/

/*
 * Reads one line into cLine (NUL-terminated). Returns its length, or -1 when the
 * console closed with nothing pending. CR, LF and CR LF all end a line.
 */
static int prvReadLine( void )
{
    static BaseType_t xClosed = pdFALSE;
    static BaseType_t xLastWasCR = pdFALSE;
    /* An escape sequence under way: 0 none, 1 after ESC, 2 after ESC [ or ESC O. */
    uint8_t ucEscape = 0U;
    uint32_t ulNumber = 0U;
    int c;

    if( xClosed == pdTRUE )
    {
        return -1;
    }

    xLength = 0U;
    xCursor = 0U;
    xHistoryAt = 0U;
    xTooLong = pdFALSE;
    xReading = pdTRUE;
    xPromptOpen = ( xTerminal == pdFALSE ) ? pdTRUE : pdFALSE;

    for( ; ; )
    {
        demo_print_flush();
        c = prvConsoleGetc( demoSHELL_POLL_MS );

        if( c == PORT_CONSOLE_TIMEOUT )
        {
            prvPrintAlerts();
            continue;
        }

        if( ( c == PORT_CONSOLE_EOF ) || ( ( c == demoKEY_CTRL_D ) && ( xLength == 0U ) ) )
        {
            /* A last line without a newline still runs; the next call reports EOF. */
            xClosed = pdTRUE;

            if( xLength == 0U )
            {
                xReading = pdFALSE;
                return -1;
            }

            break;
        }

        /* Refused: only the line's end, or Ctrl-C dropping it, counts now. */
        if( ( xTooLong == pdTRUE ) && ( c != '\r' ) && ( c != '\n' ) && ( c != demoKEY_CTRL_C ) )
        {
            if( ( xTerminal == pdTRUE ) && ( c >= 0x20 ) && ( c < 0x7F ) )
            {
                demo_print_char( '\a' );
            }

            xLastWasCR = pdFALSE;
            continue;
        }

        if( ucEscape == 1U )
        {
            ucEscape = ( ( c == '[' ) || ( c == 'O' ) ) ? 2U : 0U;
            ulNumber = 0U;
            continue;
        }

        if( ucEscape == 2U )
        {
            if( ( c >= '0' ) && ( c <= '9' ) )
            {
                ulNumber = ( ulNumber < 1000U ) ? ( ( ulNumber * 10U ) + ( uint32_t ) ( c - '0' ) ) : ulNumber;
            }
            else if( c != ';' )
            {
                ucEscape = 0U;
                prvEscape( ( char ) c, ulNumber );
            }

            continue;
        }

        if( ( c == '\n' ) && ( xLastWasCR == pdTRUE ) )
        {
            xLastWasCR = pdFALSE;
            continue;
        }

        xLastWasCR = ( c == '\r' ) ? pdTRUE : pdFALSE;

        if( ( c == '\r' ) || ( c == '\n' ) )
        {
            prvMoveTo( xLength );
            break;
        }

        switch( c )
        {
            case demoKEY_ESC:
                ucEscape = 1U;
                break;

            case demoKEY_BACKSPACE:
            case demoKEY_DEL:

                if( xCursor > 0U )
                {
                    prvDelete( xCursor - 1U, 1U );
                }

                break;

            case demoKEY_CTRL_A:
                prvMoveTo( 0U );
                break;

            case demoKEY_CTRL_E:
                prvMoveTo( xLength );
                break;

            case demoKEY_CTRL_U:
                prvDelete( 0U, xCursor );
                break;

            case demoKEY_CTRL_K:
                prvDelete( xCursor, xLength - xCursor );
                break;

            case demoKEY_CTRL_C:
                /* The line is dropped, as a shell does. */
                prvMoveTo( xLength );
                xLength = 0U;
                xTooLong = pdFALSE;

                if( xTerminal == pdTRUE )
                {
                    demo_print( "^C" );
                }

                c = '\n';
                break;

            default:

                /* A tab is a blank to the tokeniser, and one column on the screen. */
                if( ( c == '\t' ) || ( ( c >= 0x20 ) && ( c < 0x7F ) ) )
                {
                    prvInsert( ( c == '\t' ) ? ' ' : ( char ) c );
                }

                /* Other control characters are dropped. */
                break;
        }

        if( c == '\n' )
        {
            break;
        }
    }

    xReading = pdFALSE;
    xPromptOpen = pdFALSE;

    if( xTerminal == pdTRUE )
    {
        demo_print_char( '\n' );
    }

    if( xTooLong == pdTRUE )
    {
        demo_print( "line too long (at most " );
        demo_print_uint( demoLINE_MAX - 1U, 0U );
        demo_print( " characters): nothing run\n" );
        xLength = 0U;
    }

    cLine[ xLength ] = '\0';
    prvHistoryAdd();

    return ( int ) xLength;
}
/*-----------------------------------------------------------*/

/* Splits cLine in place on blanks. Returns argc, or -1 if there are too many words. */
static int prvTokenise( char ** argv )
{
    char * pc = cLine;
    int argc = 0;

    for( ; ; )
    {
        while( ( *pc == ' ' ) || ( *pc == '\t' ) )
        {
            *pc++ = '\0';
        }

        if( *pc == '\0' )
        {
            break;
        }

        if( argc == ( int ) demoARGS_MAX )
        {
            return -1;
        }

        argv[ argc++ ] = pc;

        while( ( *pc != '\0' ) && ( *pc != ' ' ) && ( *pc != '\t' ) )
        {
            pc++;
        }
    }

    /* C's convention, which the library's argument parser may rely on. */
    argv[ argc ] = NULL;

    return argc;
}
/*-----------------------------------------------------------*/

static void prvExecute( void )
{
    char * argv[ demoARGS_MAX + 1U ];
    int argc = prvTokenise( argv );
    size_t x;

    if( argc < 0 )
    {
        demo_print( "too many words (at most " );
        demo_print_uint( demoARGS_MAX, 0U );
        demo_print( ")\n" );
        return;
    }

    if( argc == 0 )
    {
        return;
    }

    for( x = 0U; x < xDemoCommandCount; x++ )
    {
        if( strcmp( argv[ 0 ], xDemoCommands[ x ].pcName ) == 0 )
        {
            xDemoCommands[ x ].pxRun( argc, argv );
            demo_print_flush();
            return;
        }
    }

    for( x = 0U; x < port_command_count; x++ )
    {
        if( strcmp( argv[ 0 ], port_commands[ x ].pcName ) == 0 )
        {
            port_commands[ x ].pxRun( argc, argv );
            demo_print_flush();
            return;
        }
    }

    demo_print( "unknown command '" );
    demo_print( argv[ 0 ] );
    demo_print( "' (type 'help')\n" );
}
/*-----------------------------------------------------------*/

static void prvBanner( void )
{
    size_t x;

    demo_print( "freertos-cpu-usage demo on " );
    demo_print( port_name );
    demo_print( "\nworkloads work10, work25, work40; churn " );
    demo_print( ( xDemoChurnOn != pdFALSE ) ? "on" : "off" );
    demo_print( "; tick30 " );
    demo_print( ( xDemoTick30On != pdFALSE ) ? "on" : "off" );
    demo_print( "\ncommands:" );

    for( x = 0U; x < xDemoCommandCount; x++ )
    {
        demo_print_char( ' ' );
        demo_print( xDemoCommands[ x ].pcName );
    }

    for( x = 0U; x < port_command_count; x++ )
    {
        demo_print_char( ' ' );
        demo_print( port_commands[ x ].pcName );
    }

    demo_print_char( '\n' );
    demo_integration_warnings();
}
/*-----------------------------------------------------------*/

static void prvShellTask( void * pvParameters )
{
    ( void ) pvParameters;

    /* The idle task exists now that the scheduler runs. */
    demo_sampled_set_idle( xTaskGetIdleTaskHandle() );
    xTerminal = ( port_console_is_terminal() != 0 ) ? pdTRUE : pdFALSE;

    prvBanner();

    for( ; ; )
    {
        prvPrintAlerts();
        demo_print( cPrompt );

        if( prvReadLine() < 0 )
        {
            /* End the prompt's line so the host shell's prompt starts clean. */
            demo_print_char( '\n' );
            port_exit( 0 );
        }

        prvExecute();
    }
}
/*-----------------------------------------------------------*/

void demo_shell_create( UBaseType_t uxPriority,
                        configSTACK_DEPTH_TYPE uxStackWords,
                        TaskHandle_t * pxTask )
{
    BaseType_t xCreated = xTaskCreate( prvShellTask, "shell", uxStackWords, NULL, uxPriority, pxTask );

    configASSERT( xCreated == pdPASS );
    ( void ) xCreated;
}
/*-----------------------------------------------------------*/
