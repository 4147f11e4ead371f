/*
 * note.c - the board's note on its figures, where the reader of a report finds it: a
 * line of its own before a table, a member of the object in a report of JSON.
 *
 * A board can know something about how far its figures can be trusted that the
 * library cannot (the POSIX simulator: whether the host gave it the core it needs;
 * board_report_note() in demo.h). The library writes its reports straight to the
 * console through the output function integration.c sets, demo_note_write(), which
 * passes every byte on to port_console_write() unchanged, except that
 *
 *  - before a line that starts a table ("CPU usage"), the board's note line goes out;
 *  - in a line that is a report in JSON ({"mode":"window","window": or
 *    {"mode":"cumulative",), the board's "note" member goes in before the object's
 *    closing brace, so that -m stays one line of JSON per report.
 *
 * Nothing else is touched: the help, the argument errors, "window set to", the
 * answer before the first window and the other commands' output have no figures for
 * a note to qualify. The board is asked as each report goes out, so that each report
 * of a follow (-f) carries the note of its own time.
 *
 * This lives here, not in the library: the note is the board's, and the library's
 * report writer stays the same for every firmware. The text is read as it streams,
 * in whatever pieces the library writes: only the start of a line (until it is told
 * from a report's start) and a closing brace (until the next byte says whether the
 * line ends there) are held back. A line of JSON has no raw line end inside it (the
 * library writes a control character in a name as \u00XX), so a brace followed by a
 * line end closes the report's object. Shell task only, like all output.
 */
#include "demo_internal.h"

/* The starts of the lines that begin a report (none the start of another). */
typedef struct NoteHead
{
    const char * pcText;
    BaseType_t xJson;
} NoteHead_t;

static const NoteHead_t xHeads[] =
{
    { "CPU usage",                       pdFALSE },
    { "{\"mode\":\"window\",\"window\":", pdTRUE  },
    { "{\"mode\":\"cumulative\",",       pdTRUE  },
};

#define noteHEADS        ( sizeof( xHeads ) / sizeof( xHeads[ 0 ] ) )
#define noteALL_HEADS    ( ( 1U << noteHEADS ) - 1U )

typedef enum
{
    noteLINE_START, /* its first bytes are held until they tell */
    noteLINE_JSON,  /* a report in JSON */
    noteLINE_OTHER  /* anything else, a table's first line included */
} NoteLine_t;

static NoteLine_t eLine = noteLINE_START;
/* At the start of a line: the heads it may still be (a bit each), and how many of its
 * bytes are held. Those are the first bytes of each of these heads, so they are not
 * kept: they are written from a head when they go. */
static unsigned int uxMaybe = noteALL_HEADS;
static size_t xHeld = 0U;
/* In a JSON report: a '}' written by the library and not yet passed on. */
static BaseType_t xBraceHeld = pdFALSE;

/*-----------------------------------------------------------*/

/* The board's note, if it has one, in the form asked for. */
static void prvBoardNote( BaseType_t xJson )
{
    board_report_note( ( xJson == pdTRUE ) ? 1 : 0 );
    demo_print_flush();
}
/*-----------------------------------------------------------*/

/* Writes the bytes held at the start of the line, and starts looking again. */
static void prvLetGo( void )
{
    size_t x;

    for( x = 0U; ( x < noteHEADS ) && ( xHeld > 0U ); x++ )
    {
        if( ( uxMaybe & ( 1U << x ) ) != 0U )
        {
            port_console_write( xHeads[ x ].pcText, xHeld );
            xHeld = 0U;
        }
    }

    xHeld = 0U;
    uxMaybe = noteALL_HEADS;
}
/*-----------------------------------------------------------*/

/* One byte at the start of a line: pdTRUE when it is taken (held, or written with the
 * head it completes), pdFALSE when the line is no report's (what was held is written)
 * and c is left for the rest of the line. */
static BaseType_t prvStartByte( char c )
{
    unsigned int uxStill = 0U;
    size_t x;

    /* (A head still possible is longer than what is held: its next byte is no NUL.) */
    for( x = 0U; x < noteHEADS; x++ )
    {
        if( ( ( uxMaybe & ( 1U << x ) ) != 0U ) && ( xHeads[ x ].pcText[ xHeld ] == c ) )
        {
            uxStill |= 1U << x;
        }
    }

    if( uxStill == 0U )
    {
        prvLetGo();
        eLine = noteLINE_OTHER;
        return pdFALSE;
    }

    uxMaybe = uxStill;
    xHeld++;

    for( x = 0U; x < noteHEADS; x++ )
    {
        if( ( ( uxMaybe & ( 1U << x ) ) != 0U ) && ( xHeads[ x ].pcText[ xHeld ] == '\0' ) )
        {
            if( xHeads[ x ].xJson == pdTRUE )
            {
                eLine = noteLINE_JSON;
            }
            else
            {
                prvBoardNote( pdFALSE );
                eLine = noteLINE_OTHER;
            }

            prvLetGo();
            break;
        }
    }

    return pdTRUE;
}
/*-----------------------------------------------------------*/

/* Where the first a or b is in s[0..n), or n. */
static size_t prvFind( const char * s,
                       size_t n,
                       char a,
                       char b )
{
    size_t x;

    for( x = 0U; ( x < n ) && ( s[ x ] != a ) && ( s[ x ] != b ); x++ )
    {
    }

    return x;
}
/*-----------------------------------------------------------*/

void demo_note_write( const char * s,
                      size_t n )
{
    size_t xRun;

    while( n > 0U )
    {
        if( eLine == noteLINE_START )
        {
            if( prvStartByte( *s ) == pdTRUE )
            {
                s++;
                n--;
            }

            continue;
        }

        if( ( eLine == noteLINE_JSON ) && ( xBraceHeld == pdTRUE ) )
        {
            /* A line end after it: the report's object closes here. */
            if( *s == '\n' )
            {
                prvBoardNote( pdTRUE );
            }

            port_console_write( "}", 1U );
            xBraceHeld = pdFALSE;
        }

        /* Up to the next byte that matters, in one write. */
        xRun = ( eLine == noteLINE_JSON ) ? prvFind( s, n, '}', '\n' ) : prvFind( s, n, '\n', '\n' );

        if( xRun > 0U )
        {
            port_console_write( s, xRun );
            s += xRun;
            n -= xRun;
        }

        if( n > 0U )
        {
            if( *s == '}' )
            {
                xBraceHeld = pdTRUE;
            }
            else
            {
                port_console_write( s, 1U );
                eLine = noteLINE_START;
            }

            s++;
            n--;
        }
    }
}
/*-----------------------------------------------------------*/

void demo_note_flush( void )
{
    if( xBraceHeld == pdTRUE )
    {
        port_console_write( "}", 1U );
        xBraceHeld = pdFALSE;
    }

    prvLetGo();
    eLine = noteLINE_START;
}
/*-----------------------------------------------------------*/
