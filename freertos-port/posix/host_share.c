/*
 * host_share.c - whether the host gives the simulator the core it needs, said where
 * the user reads the figures.
 *
 * On this port only the thread of the task FreeRTOS has running goes; the others wait
 * on condition variables, and the idle task spins unless it sleeps in tickless idle
 * (vPosixIdleSleep()). So a healthy simulator keeps exactly one host core busy
 * whenever it is awake. When the host gives it less (other processes on its core, a
 * hypervisor taking the virtual CPU), its threads stop wherever they are; the library
 * reads the wall clock, so the time the host held back is charged to whichever task
 * FreeRTOS had running, and that task's share reads high by as much.
 *
 * What is measured is the window a report shows, not a span near it: a burst of host
 * load at the start of a window that a report shows half a window later is in the
 * report's note. The board cannot see the library's window ends, but it can see the
 * window's number change: around each window's end (from a little before the end its
 * start predicts, until the number has changed) the console's poll (the shell task's,
 * every 10 ms) reads the number (cpu_usage_snapshot(), nothing copied) between two
 * samples of the wall time, the tickless sleep so far and the CPU time of the task
 * threads (the process's, less the port's tick thread's, which runs beside them:
 * about 2 % of a core). A sample taken before a reading that still shows the old
 * number is before the window's end; one taken after a reading that shows the new
 * number is after it. So the window lies inside the span from the last sample before
 * its start to the first after its end (a report takes one, the window being over),
 * and the time held back in that span, the awake time (wall less sleep) less the CPU
 * time, is at least the time held back in the window: an upper bound, which the
 * polls keep within about 10 ms of time at each end.
 *
 * board_report_note(), which the demo calls as each report goes out (demo/note.c),
 * says so when that bound is more than the simulator's accuracy allows: a line before
 * a table, a "note" member in a report of JSON (its figures in microseconds, as
 * report-schema's `Note` reads them); the `host` command prints the figures of the
 * last window at any time.
 *
 * The number is read with a reader of the library, which holds the window under way
 * open while it reads (microseconds): a window whose end falls inside one is that
 * much longer, and says so, as with any report. Only the polls near a window's end
 * read it, a few a window.
 */
#define _POSIX_C_SOURCE    200809L

#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "FreeRTOS.h"

#include "demo.h"
#include "freertos_cpu_usage.h"
#include "clock_step.h"
#include "host_share.h"

/* The polls start reading the window's number this long before the end its start
 * predicts: a few console polls (10 ms apart, later when the host is busy). */
#define hostMARGIN_NS    50000000ULL

/* The polls that read the number: a few around each window's end, so these cover the
 * last tens of windows, and always the last one whole. */
#define hostPOLLS        128U

/*
 * The note appears when the host held back more than this, in tenths of percentage
 * points of the window.
 *
 * Why 1.5 points: the simulator's shares are trusted to 1.5 points (the system tests'
 * bound on the POSIX port, tests/src/boards.rs). Time held back lands in the share of
 * the task FreeRTOS had running, so it moves the shares by that much at most: up to
 * 1.5 points of it, no share reads more than 1.5 points above the time its task ran;
 * beyond, one can. The figure is an upper bound: the span measured holds the window
 * and up to a poll's interval of time at each end.
 */
#define hostNOTE_TENTHS_PP    15U

typedef struct HostSample
{
    uint64_t ullWallNs;  /* CLOCK_MONOTONIC */
    uint64_t ullCpuNs;   /* the task threads' CPU time */
    uint64_t ullSleptNs; /* tickless sleep so far */
} HostSample_t;

/* One poll that read the window's number: a sample before the reading and one after.
 * lWindows is the windows completed at the reading (-1: before the scheduler, the
 * first window not begun). Window n is under way while lWindows is n. */
typedef struct HostPoll
{
    HostSample_t xBefore;
    HostSample_t xAfter;
    int32_t lWindows;
    uint32_t ulLastWindowUs; /* the last completed window's length, the library's */
} HostPoll_t;

/* What the span around one window measured: in microseconds (at most 2^32 - 1, over an
 * hour), and in tenths of a percent. */
typedef struct HostShare
{
    uint32_t ulWindow;         /* its number */
    uint32_t ulWindowUs;       /* its length, the library's */
    uint32_t ulSpanUs;         /* the span measured, which holds it */
    uint32_t ulAwakeUs;        /* of the span, outside tickless sleep */
    uint32_t ulHeldBackUs;     /* of that, without a core */
    uint32_t ulAwakeTenths;    /* of the span, outside tickless sleep */
    uint32_t ulCoreTenths;     /* of a core, while awake (at most 1000) */
    uint32_t ulHeldBackTenths; /* of the window: awake without a core, at most */
} HostShare_t;

/* The shell task's alone (the console's polls, the reports, `host`), but for the
 * first, taken in main() before the scheduler starts. */
static HostPoll_t xPolls[ hostPOLLS ];
static uint32_t ulPollCount = 0U; /* ever taken; the newest is at (count - 1) % size */

/* Written by the idle task, read by the shell task: atomic. */
static uint64_t ullSleptNs = 0U;

/*-----------------------------------------------------------*/

static uint64_t prvClockNs( clockid_t xClock )
{
    struct timespec xNow;

    ( void ) clock_gettime( xClock, &xNow );

    return ( ( uint64_t ) xNow.tv_sec * 1000000000ULL ) + ( uint64_t ) xNow.tv_nsec;
}
/*-----------------------------------------------------------*/

/* The port's tick thread names itself so (port.c, prvTimerTickHandler()). */
#define hostTICK_THREAD_NAME    "Scheduler timer"

/* Its ID, once found (the sampler starts before the scheduler, which starts it). */
static long lTickThreadId = 0;

/* Reads a small /proc file into pcBuffer (NUL-terminated); the length, or -1. */
static long prvReadProc( const char * pcPath,
                         char * pcBuffer,
                         size_t xSize )
{
    const int iFile = open( pcPath, O_RDONLY );
    ssize_t xRead;

    if( iFile < 0 )
    {
        return -1;
    }

    xRead = read( iFile, pcBuffer, xSize - 1U );
    ( void ) close( iFile );

    if( xRead < 0 )
    {
        return -1;
    }

    pcBuffer[ xRead ] = '\0';

    return ( long ) xRead;
}
/*-----------------------------------------------------------*/

static long prvFindTickThread( void )
{
    DIR * pxTasks = opendir( "/proc/self/task" );
    struct dirent * pxEntry;
    char cPath[ 64 ];
    char cName[ 32 ];
    long lFound = 0;

    if( pxTasks == NULL )
    {
        return 0;
    }

    while( ( lFound == 0 ) && ( ( pxEntry = readdir( pxTasks ) ) != NULL ) )
    {
        if( pxEntry->d_name[ 0 ] == '.' )
        {
            continue;
        }

        ( void ) snprintf( cPath, sizeof( cPath ), "/proc/self/task/%.20s/comm", pxEntry->d_name );

        if( ( prvReadProc( cPath, cName, sizeof( cName ) ) > 0 ) &&
            ( strncmp( cName, hostTICK_THREAD_NAME "\n", sizeof( hostTICK_THREAD_NAME ) ) == 0 ) )
        {
            lFound = strtol( pxEntry->d_name, NULL, 10 );
        }
    }

    ( void ) closedir( pxTasks );

    return lFound;
}
/*-----------------------------------------------------------*/

/* The tick thread's CPU time so far: the first field of its schedstat, in ns (0
 * where the kernel keeps no schedstat: the figures then count the tick thread as a
 * task thread, and read about 2 points of a core short of what the host held back). */
static uint64_t prvTickThreadCpuNs( void )
{
    char cPath[ 64 ];
    char cStat[ 96 ];

    if( lTickThreadId == 0 )
    {
        lTickThreadId = prvFindTickThread();
    }

    ( void ) snprintf( cPath, sizeof( cPath ), "/proc/self/task/%ld/schedstat", lTickThreadId );

    if( ( lTickThreadId == 0 ) || ( prvReadProc( cPath, cStat, sizeof( cStat ) ) <= 0 ) )
    {
        return 0U;
    }

    return strtoull( cStat, NULL, 10 );
}
/*-----------------------------------------------------------*/

/* The sample now. The CPU time of the process is its threads': the task threads'
 * (this one among them: the shell's), the port's tick thread's, which is left out, and
 * main()'s, which waits in the port once the scheduler runs. Before, there is no tick
 * thread yet and main() is the program. */
static void prvSampleNow( HostSample_t * pxSample )
{
    const uint64_t ullTickNs = prvTickThreadCpuNs();
    const uint64_t ullProcessNs = prvClockNs( CLOCK_PROCESS_CPUTIME_ID );

    pxSample->ullSleptNs = __atomic_load_n( &ullSleptNs, __ATOMIC_RELAXED );
    pxSample->ullCpuNs = ullProcessNs - configMIN( ullProcessNs, ullTickNs );
    pxSample->ullWallNs = prvClockNs( CLOCK_MONOTONIC );
}
/*-----------------------------------------------------------*/

void vHostShareSlept( uint64_t ullNs )
{
    ( void ) __atomic_fetch_add( &ullSleptNs, ullNs, __ATOMIC_RELAXED );
}
/*-----------------------------------------------------------*/

static const HostPoll_t * prvPoll( uint32_t ulBack )
{
    return &xPolls[ ( ulPollCount - 1U - ulBack ) % hostPOLLS ];
}

static uint32_t prvPollsKept( void )
{
    return ( ulPollCount < hostPOLLS ) ? ulPollCount : hostPOLLS;
}
/*-----------------------------------------------------------*/

/* Windows completed so far (0 before the first), read with a reader of the library;
 * *pulWindowUs: the last one's length. -1 when the reading failed (a window completed
 * while it read). */
static int32_t prvWindowsCompleted( uint32_t * pulWindowUs )
{
    cpu_usage_summary_info xSummary;
    const int32_t lStatus = cpu_usage_snapshot( NULL, 0U, &xSummary );

    *pulWindowUs = 0U;

    if( lStatus == CPU_USAGE_ERR_NO_WINDOW )
    {
        return 0;
    }

    if( lStatus < 0 )
    {
        return -1;
    }

    *pulWindowUs = xSummary.window_us;

    return ( int32_t ) ( xSummary.window + 1U );
}
/*-----------------------------------------------------------*/

/* A poll that reads the window's number between two samples, kept if the reading
 * succeeded (pdTRUE). */
static BaseType_t prvPollNow( void )
{
    HostPoll_t * const pxPoll = &xPolls[ ulPollCount % hostPOLLS ];

    prvSampleNow( &pxPoll->xBefore );
    pxPoll->lWindows = prvWindowsCompleted( &pxPoll->ulLastWindowUs );
    prvSampleNow( &pxPoll->xAfter );

    if( pxPoll->lWindows < 0 )
    {
        return pdFALSE;
    }

    ulPollCount++;

    return pdTRUE;
}
/*-----------------------------------------------------------*/

void vHostShareStart( void )
{
    /* Before the scheduler: before the first window begins, as if it had seen a
     * window fewer than none. */
    prvSampleNow( &xPolls[ 0 ].xBefore );
    xPolls[ 0 ].xAfter = xPolls[ 0 ].xBefore;
    xPolls[ 0 ].lWindows = -1;
    xPolls[ 0 ].ulLastWindowUs = 0U;
    ulPollCount = 1U;
}
/*-----------------------------------------------------------*/

void vHostSharePoll( void )
{
    const uint64_t ullNow = prvClockNs( CLOCK_MONOTONIC );
    const uint64_t ullWindowNs = ( uint64_t ) cpu_usage_window_ms() * 1000000ULL;
    const int32_t lNow = prvPoll( 0U )->lWindows;
    uint32_t ulBack;
    uint64_t ullStart = 0U;

    /* The window under way began after the last poll that saw fewer windows completed:
     * it ends a window's length after that at the earliest. */
    for( ulBack = 0U; ulBack < prvPollsKept(); ulBack++ )
    {
        if( prvPoll( ulBack )->lWindows < lNow )
        {
            ullStart = prvPoll( ulBack )->xBefore.ullWallNs;
            break;
        }
    }

    if( ( ullNow + hostMARGIN_NS ) >= ( ullStart + ullWindowNs ) )
    {
        ( void ) prvPollNow();
    }
}
/*-----------------------------------------------------------*/

/* Tenths of a percent of a over b (0 when b is 0), at most 1000. */
static uint32_t prvTenths( uint64_t a,
                           uint64_t b )
{
    uint64_t ullTenths;

    if( b == 0U )
    {
        return 0U;
    }

    /* a and b are spans of at most hours (under 2^44 ns), so a * 1000 fits easily. */
    ullTenths = ( ( a * 1000U ) + ( b / 2U ) ) / b;

    return ( ullTenths > 1000U ) ? 1000U : ( uint32_t ) ullTenths;
}
/*-----------------------------------------------------------*/

/* Nanoseconds as whole microseconds (rounded down, as the library's are), at most
 * 2^32 - 1; rounded down, a part is never more than its whole. */
static uint32_t prvMicros( uint64_t ullNs )
{
    const uint64_t ullUs = ullNs / 1000U;

    return ( ullUs > UINT32_MAX ) ? UINT32_MAX : ( uint32_t ) ullUs;
}
/*-----------------------------------------------------------*/

/* The figures of the last completed window, after a poll now (which ends the span:
 * the window is over). Returns pdFALSE when there is no completed window, or no poll
 * kept from before it began (a window longer than the polls kept cover). */
static BaseType_t prvMeasure( HostShare_t * pxShare )
{
    const HostPoll_t * pxFrom = NULL;
    const HostPoll_t * pxTo;
    uint32_t ulWindowUs;
    uint32_t ulBack;
    uint32_t ulTry;
    int32_t lWindow;
    uint64_t ullWall;
    uint64_t ullAwake;
    uint64_t ullCpu;

    /* (A reading fails when a window completes while it reads: then the next one
     * sees it.) */
    for( ulTry = 0U; ( ulTry < 3U ) && ( prvPollNow() == pdFALSE ); ulTry++ )
    {
    }

    pxTo = prvPoll( 0U );
    lWindow = pxTo->lWindows - 1;
    ulWindowUs = pxTo->ulLastWindowUs;

    if( lWindow < 0 )
    {
        return pdFALSE;
    }

    /* The first poll after the window ended (the oldest that saw it completed), and
     * the last before it began (the newest that saw fewer windows). The readings only
     * grow, newest last. */
    for( ulBack = 1U; ulBack < prvPollsKept(); ulBack++ )
    {
        if( prvPoll( ulBack )->lWindows > lWindow )
        {
            pxTo = prvPoll( ulBack );
        }
        else if( prvPoll( ulBack )->lWindows < lWindow )
        {
            pxFrom = prvPoll( ulBack );
            break;
        }
    }

    if( pxFrom == NULL )
    {
        return pdFALSE;
    }

    /* The span: from the sample before that reading to the one after this one. */
    ullWall = pxTo->xAfter.ullWallNs - pxFrom->xBefore.ullWallNs;
    ullAwake = ullWall - configMIN( ullWall, pxTo->xAfter.ullSleptNs - pxFrom->xBefore.ullSleptNs );
    ullCpu = ( pxTo->xAfter.ullCpuNs > pxFrom->xBefore.ullCpuNs ) ?
             configMIN( ullAwake, pxTo->xAfter.ullCpuNs - pxFrom->xBefore.ullCpuNs ) : 0U;

    pxShare->ulWindow = ( uint32_t ) lWindow;
    pxShare->ulWindowUs = ulWindowUs;
    pxShare->ulSpanUs = prvMicros( ullWall );
    pxShare->ulAwakeUs = prvMicros( ullAwake );
    pxShare->ulHeldBackUs = prvMicros( ullAwake - ullCpu );
    pxShare->ulAwakeTenths = prvTenths( ullAwake, ullWall );
    pxShare->ulCoreTenths = ( ullAwake == 0U ) ? 1000U : prvTenths( ullCpu, ullAwake );
    /* Of the window, whose shares it moves: at most all of it. */
    pxShare->ulHeldBackTenths = prvTenths( ullAwake - ullCpu, ( uint64_t ) ulWindowUs * 1000U );

    return pdTRUE;
}
/*-----------------------------------------------------------*/

static void prvPrintTenths( uint32_t ulTenths )
{
    demo_print_uint( ulTenths / 10U, 0U );
    demo_print( "." );
    demo_print_uint( ulTenths % 10U, 0U );
}
/*-----------------------------------------------------------*/

/* The note's sentence; pcShare names the shares it is about. */
static void prvPrintNote( const HostShare_t * pxShare,
                          const char * pcShare )
{
    demo_print( "in window #" );
    demo_print_uint( pxShare->ulWindow, 0U );
    demo_print( " the host gave the simulator " );
    prvPrintTenths( pxShare->ulCoreTenths );
    demo_print( "% of a core while it was awake (it needs all of one): " );
    demo_print( pcShare );
    demo_print( " can read up to " );
    prvPrintTenths( pxShare->ulHeldBackTenths );
    demo_print( " points high (README: Accuracy)" );
}
/*-----------------------------------------------------------*/

/* Strong definition of the demo's hook, called as each report goes out: a line before
 * the table, or the "note" member of the JSON (the sentence has no character JSON
 * would escape). The report is of the last completed window, which the reader holds
 * as it is until the report is out (by one more window at most: a report of JSON
 * written slower than that gets the note of the window after it, which it names). */
void board_report_note( int json )
{
    HostShare_t xShare;

    if( prvMeasure( &xShare ) == pdFALSE )
    {
        return;
    }

    if( xShare.ulHeldBackTenths <= hostNOTE_TENTHS_PP )
    {
        return;
    }

    if( json == 0 )
    {
        demo_print( "note: " );
        prvPrintNote( &xShare, "a share below" );
        demo_print( "\n" );
        return;
    }

    demo_print( ",\"note\":{\"text\":\"" );
    prvPrintNote( &xShare, "a share" );
    demo_print( "\",\"span_us\":" );
    demo_print_uint( xShare.ulSpanUs, 0U );
    demo_print( ",\"awake_us\":" );
    demo_print_uint( xShare.ulAwakeUs, 0U );
    demo_print( ",\"held_back_us\":" );
    demo_print_uint( xShare.ulHeldBackUs, 0U );
    demo_print( "}" );
}
/*-----------------------------------------------------------*/

static void prvCmdHost( int argc,
                        char ** argv )
{
    HostShare_t xShare;

    ( void ) argc;
    ( void ) argv;

    if( prvMeasure( &xShare ) == pdFALSE )
    {
        demo_print( "host: no window measured yet\n" );
        return;
    }

    demo_print( "host: window #" );
    demo_print_uint( xShare.ulWindow, 0U );
    demo_print( ", " );
    demo_print_uint( xShare.ulWindowUs / 1000U, 0U );
    demo_print( " ms (measured over " );
    demo_print_uint( xShare.ulSpanUs / 1000U, 0U );
    demo_print( " ms): awake " );
    prvPrintTenths( xShare.ulAwakeTenths );
    demo_print( "% of the time, given " );
    prvPrintTenths( xShare.ulCoreTenths );
    demo_print( "% of a core while awake, at most " );
    prvPrintTenths( xShare.ulHeldBackTenths );
    demo_print( " points held back (a report notes more than " );
    prvPrintTenths( hostNOTE_TENTHS_PP );
    demo_print( ")\n" );
}
/*-----------------------------------------------------------*/

static const DemoPortCommand_t xPosixCommands[] =
{
    { "host",      "",                "the share of a host core the simulator got in the last window", prvCmdHost          },
    { "clockstep", "<counts>|off",    "one clock reading in 97 that many counts early",     posix_cmd_clockstep },
};

const DemoPortCommand_t * const port_commands = xPosixCommands;
const size_t port_command_count = sizeof( xPosixCommands ) / sizeof( xPosixCommands[ 0 ] );
