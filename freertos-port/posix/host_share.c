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
 * A thread of our own (not a FreeRTOS task: the kernel neither sees nor schedules it)
 * samples every hostSAMPLE_MS the wall time, the tickless sleep so far and the CPU
 * time of the task threads: the process's, less the sampler's own and the port's
 * tick thread's, which run beside the task threads (the tick thread alone takes
 * about 2 % of a core: 1.9 % measured on a 2-core host). Over the last window
 * (cpu_usage_window_ms()), the time the host held back is the awake time (wall less
 * sleep) less that CPU time.
 * board_report_note(), which the demo calls as each report goes out (demo/note.c),
 * says so when that is more than the simulator's accuracy allows: a line before a
 * table, a "note" member in a report of JSON (its figures in microseconds, as
 * report-schema's `Note` reads them); the `host` command prints the figures at any
 * time.
 */
#define _POSIX_C_SOURCE    200809L

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
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

/* How often the sampler looks: fine enough that the span measured is the window to
 * within 5 % at the default 1 s window, and cheap (20 wake-ups a second, a few
 * microseconds each). */
#define hostSAMPLE_MS    50U

/* Samples kept: 25.6 s of history. A longer window is measured over what is kept,
 * and the line says over how long. */
#define hostSAMPLES      512U

/*
 * The note appears when the host held back more than this, in tenths of percentage
 * points of the span measured.
 *
 * Why 1.5 points: the simulator's shares are trusted to 1.5 points (the system tests'
 * bound on the POSIX port, tests/src/ports.rs). Time held back lands in the share of
 * the task FreeRTOS had running, so it moves the shares by that much at most: up to
 * 1.5 points of it, every share stays within the bound; beyond, one can leave it. The
 * measurement needs no margin of its own: the CPU times (the kernel's per-thread
 * run time) and the sleep (timed around the wait) are nanosecond counts, and the span
 * is the window to within a sample (5 % of a 1 s window), which scales a figure of
 * 1.5 points by less than 0.1.
 */
#define hostNOTE_TENTHS_PP    15U

typedef struct HostSample
{
    uint64_t ullWallNs;  /* CLOCK_MONOTONIC */
    uint64_t ullCpuNs;   /* the task threads' CPU time */
    uint64_t ullSleptNs; /* tickless sleep so far */
} HostSample_t;

/* What one span measured: in microseconds (at most 2^32 - 1, over an hour: the span
 * is at most the samples kept, 25.6 s while the sampler keeps its pace), and in
 * tenths of a percent. */
typedef struct HostShare
{
    uint32_t ulSpanUs;         /* the span measured */
    uint32_t ulAwakeUs;        /* of it, outside tickless sleep */
    uint32_t ulHeldBackUs;     /* of that, without a core */
    uint32_t ulSpanMs;         /* the span, rounded */
    uint32_t ulAwakeTenths;    /* of the span, outside tickless sleep */
    uint32_t ulCoreTenths;     /* of a core, while awake (at most 1000) */
    uint32_t ulHeldBackTenths; /* of the span: awake without a core */
} HostShare_t;

static HostSample_t xSamples[ hostSAMPLES ];
static uint32_t ulSampleCount = 0U; /* ever taken; the newest is at (count - 1) % size */
static pthread_mutex_t xSamplesLock = PTHREAD_MUTEX_INITIALIZER;

/* Written by the idle task, read by the sampler: atomic. */
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

/* Called by the sampler only (its own CPU time is the calling thread's). pdFALSE
 * until the scheduler has started the tick thread: before, there is nothing to say,
 * and the task threads' time would change meaning when it appears. */
static BaseType_t prvSampleNow( HostSample_t * pxSample )
{
    const uint64_t ullTickNs = prvTickThreadCpuNs();
    const uint64_t ullOwnNs = prvClockNs( CLOCK_THREAD_CPUTIME_ID );
    const uint64_t ullProcessNs = prvClockNs( CLOCK_PROCESS_CPUTIME_ID );

    if( lTickThreadId == 0 )
    {
        return pdFALSE;
    }

    pxSample->ullSleptNs = __atomic_load_n( &ullSleptNs, __ATOMIC_RELAXED );
    pxSample->ullCpuNs = ullProcessNs - configMIN( ullProcessNs, ullTickNs + ullOwnNs );
    pxSample->ullWallNs = prvClockNs( CLOCK_MONOTONIC );

    return pdTRUE;
}
/*-----------------------------------------------------------*/

void vHostShareSlept( uint64_t ullNs )
{
    ( void ) __atomic_fetch_add( &ullSleptNs, ullNs, __ATOMIC_RELAXED );
}
/*-----------------------------------------------------------*/

static void * prvSampler( void * pvArgument )
{
    struct timespec xPeriod;
    HostSample_t xSample;

    ( void ) pvArgument;

    xPeriod.tv_sec = 0;
    xPeriod.tv_nsec = ( long ) hostSAMPLE_MS * 1000000L;

    for( ; ; )
    {
        if( prvSampleNow( &xSample ) == pdTRUE )
        {
            ( void ) pthread_mutex_lock( &xSamplesLock );
            {
                xSamples[ ulSampleCount % hostSAMPLES ] = xSample;
                ulSampleCount++;
            }
            ( void ) pthread_mutex_unlock( &xSamplesLock );
        }

        /* Relative: a late wake-up only moves the next sample, each is stamped. */
        ( void ) clock_nanosleep( CLOCK_MONOTONIC, 0, &xPeriod, NULL );
    }

    return NULL;
}
/*-----------------------------------------------------------*/

void vHostShareStart( void )
{
    pthread_t xThread;
    pthread_attr_t xAttr;
    sigset_t xAll;
    sigset_t xBefore;

    /* Every signal blocked in the sampler (it inherits this mask): the port's tick
     * and resume signals are meant for FreeRTOS threads only. */
    ( void ) sigfillset( &xAll );
    ( void ) pthread_sigmask( SIG_SETMASK, &xAll, &xBefore );
    ( void ) pthread_attr_init( &xAttr );
    ( void ) pthread_attr_setdetachstate( &xAttr, PTHREAD_CREATE_DETACHED );

    /* Without the sampler there are no samples: no note, and `host` says there is
     * no history yet. Not worth stopping the simulator for. */
    ( void ) pthread_create( &xThread, &xAttr, prvSampler, NULL );

    ( void ) pthread_attr_destroy( &xAttr );
    ( void ) pthread_sigmask( SIG_SETMASK, &xBefore, NULL );
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

    /* a and b are spans of at most the history kept (25.6 s, under 2^35 ns), so
     * a * 1000 fits easily. */
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

/* The figures over the last ulSpanMs (or over the history kept, if shorter). Returns
 * pdFALSE when there is no history yet. */
static BaseType_t prvMeasure( uint32_t ulSpanMs,
                              HostShare_t * pxShare )
{
    const uint64_t ullSpanNs = ( uint64_t ) ulSpanMs * 1000000ULL;
    HostSample_t xNow;
    HostSample_t xFrom;
    uint32_t ulKept;
    uint32_t ulBack;
    uint64_t ullWall;
    uint64_t ullAwake;
    uint64_t ullCpu;

    ( void ) pthread_mutex_lock( &xSamplesLock );
    {
        if( ulSampleCount == 0U )
        {
            ( void ) pthread_mutex_unlock( &xSamplesLock );
            return pdFALSE;
        }

        /* Up to the newest sample: at most hostSAMPLE_MS old. */
        ulKept = ( ulSampleCount < hostSAMPLES ) ? ulSampleCount : hostSAMPLES;
        xNow = xSamples[ ( ulSampleCount - 1U ) % hostSAMPLES ];

        /* The newest sample at least a span old, else the oldest kept. */
        xFrom = xSamples[ ( ulSampleCount - ulKept ) % hostSAMPLES ];

        for( ulBack = 1U; ulBack <= ulKept; ulBack++ )
        {
            const HostSample_t * pxSample = &xSamples[ ( ulSampleCount - ulBack ) % hostSAMPLES ];

            if( ( xNow.ullWallNs - pxSample->ullWallNs ) >= ullSpanNs )
            {
                xFrom = *pxSample;
                break;
            }
        }
    }
    ( void ) pthread_mutex_unlock( &xSamplesLock );

    ullWall = xNow.ullWallNs - xFrom.ullWallNs;

    if( ullWall < ( ( uint64_t ) hostSAMPLE_MS * 1000000ULL ) )
    {
        return pdFALSE;
    }

    ullAwake = ullWall - configMIN( ullWall, xNow.ullSleptNs - xFrom.ullSleptNs );
    ullCpu = ( xNow.ullCpuNs > xFrom.ullCpuNs ) ? configMIN( ullAwake, xNow.ullCpuNs - xFrom.ullCpuNs ) : 0U;

    pxShare->ulSpanUs = prvMicros( ullWall );
    pxShare->ulAwakeUs = prvMicros( ullAwake );
    pxShare->ulHeldBackUs = prvMicros( ullAwake - ullCpu );
    pxShare->ulSpanMs = ( uint32_t ) ( ( ullWall + 500000ULL ) / 1000000ULL );
    pxShare->ulAwakeTenths = prvTenths( ullAwake, ullWall );
    pxShare->ulCoreTenths = ( ullAwake == 0U ) ? 1000U : prvTenths( ullCpu, ullAwake );
    pxShare->ulHeldBackTenths = prvTenths( ullAwake - ullCpu, ullWall );

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

static void prvPrintSpan( const HostShare_t * pxShare )
{
    demo_print( "over the last " );
    prvPrintTenths( ( pxShare->ulSpanMs + 50U ) / 100U );
    demo_print( " s" );
}
/*-----------------------------------------------------------*/

/* The note's sentence; pcShare names the shares it is about. */
static void prvPrintNote( const HostShare_t * pxShare,
                          const char * pcShare )
{
    prvPrintSpan( pxShare );
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
 * would escape). */
void board_report_note( int json )
{
    HostShare_t xShare;

    if( prvMeasure( cpu_usage_window_ms(), &xShare ) == pdFALSE )
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

    if( prvMeasure( cpu_usage_window_ms(), &xShare ) == pdFALSE )
    {
        demo_print( "host: no history yet\n" );
        return;
    }

    demo_print( "host: " );
    prvPrintSpan( &xShare );
    demo_print( ": awake " );
    prvPrintTenths( xShare.ulAwakeTenths );
    demo_print( "% of the time, given " );
    prvPrintTenths( xShare.ulCoreTenths );
    demo_print( "% of a core while awake, " );
    prvPrintTenths( xShare.ulHeldBackTenths );
    demo_print( " points held back (a report notes more than " );
    prvPrintTenths( hostNOTE_TENTHS_PP );
    demo_print( ")\n" );
}
/*-----------------------------------------------------------*/

static const DemoPortCommand_t xPosixCommands[] =
{
    { "host",      "",                "the share of a host core the simulator gets",        prvCmdHost          },
    { "clockstep", "<counts>|off",    "one clock reading in 97 that many counts early",     posix_cmd_clockstep },
};

const DemoPortCommand_t * const port_commands = xPosixCommands;
const size_t port_command_count = sizeof( xPosixCommands ) / sizeof( xPosixCommands[ 0 ] );
