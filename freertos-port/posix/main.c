/*
 * main.c - the POSIX simulator's side of demo.h, and the hooks FreeRTOSConfig.h asks for.
 *
 * On this port every FreeRTOS task is a host pthread, and only the thread of the task
 * FreeRTOS considers running is allowed to go; the others wait on a condition variable.
 * Two consequences shape this file:
 *
 *  - A task must never block its pthread in the host kernel while it is the running
 *    task: FreeRTOS would go on charging that time to it (the shell would show 100 %
 *    CPU while waiting for a key) and no other task could run meanwhile. The console
 *    is therefore polled, with a one-tick vTaskDelay() between polls. The one
 *    deliberate exception is the idle task's tickless sleep (vPosixIdleSleep()),
 *    which blocks only until the next tick and is reported as "sleep".
 *  - The tick is a SIGALRM installed without SA_RESTART, so a system call that sleeps
 *    (a write to a full pipe, say) can return EINTR at any time and must be retried.
 *  - A thread the tick switches out stays parked wherever it was, even inside the C
 *    library holding one of its locks; see __wrap_vPortCancelThread() for the one place
 *    where that deadlocked the demo.
 */
#define _POSIX_C_SOURCE    200809L

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "FreeRTOS.h"
#include "task.h"

#include "demo.h"
#include "host_share.h"

/* Its one command of its own, `host`, is in host_share.c. */
const char * const port_name = "POSIX simulator (FreeRTOS " tskKERNEL_VERSION_NUMBER ")";

/*-----------------------------------------------------------*/

static uint64_t prvMonotonicNs( void )
{
    struct timespec xNow;

    /* CLOCK_MONOTONIC cannot fail with a valid pointer on Linux; it is also
     * async-signal-safe, which matters because the run-time counter is read from the
     * context switch, inside the tick's signal handler. */
    ( void ) clock_gettime( CLOCK_MONOTONIC, &xNow );

    return ( ( uint64_t ) xNow.tv_sec * 1000000000ULL ) + ( uint64_t ) xNow.tv_nsec;
}
/*-----------------------------------------------------------*/

uint32_t port_time_us( void )
{
    /* Truncation is the documented behaviour: the demo only ever subtracts two
     * readings in uint32_t arithmetic, which stays right across the wrap. */
    return ( uint32_t ) ( prvMonotonicNs() / 1000ULL );
}
/*-----------------------------------------------------------*/

#if ( configGENERATE_RUN_TIME_STATS == 1 )

/* The kernel never reads the counter before the first switch: it assumes it starts at
 * zero with the scheduler and credits the first task with the whole reading. Counting
 * from main() keeps the host's uptime out of that task's figure. */
    static uint64_t ullRunTimeBaseNs = 0U;

    uint64_t ullMainRunTimeCounterNs( void )
    {
        return prvMonotonicNs() - ullRunTimeBaseNs;
    }

#endif
/*-----------------------------------------------------------*/

/*
 * The console on a terminal, set up as a UART console is: every key reaches the
 * demo's shell as the byte it sends, as it is typed, and the shell echoes and edits
 * the line itself (demo/shell.c). So, of the terminal's line discipline:
 *  - no canonical mode and no echo (ICANON, ECHO): the shell edits;
 *  - no signal keys (ISIG): Ctrl-C reaches the shell as 0x03 and drops the line, as on
 *    QEMU; Ctrl-\ (0x1c, SIGQUIT) and Ctrl-Z (0x1a) are control characters the shell
 *    drops, where a stray one would end or stop the simulator. The run ends with
 *    Ctrl-D on an empty line or `exit`;
 *  - no flow control (IXON): Ctrl-S would hold the output until Ctrl-Q, a simulator
 *    that looks hung; the shell drops both;
 *  - no IEXTEN (Ctrl-V, Ctrl-O).
 * Output processing stays: the demo writes "\n", the terminal shows CR LF.
 *
 * The settings come back on every way out: exit() (port_exit(), the end of main())
 * through atexit(), and every signal whose default is to end the process, caught
 * here, the settings restored, and then handed to whoever had it before (the default
 * action, or the sanitizers' report in the posix-asan build). Piped stdin is left
 * alone.
 */
static struct termios xTerminalWas;
static volatile sig_atomic_t xTerminalRaw = 0;

static void prvTerminalRestore( void )
{
    if( xTerminalRaw != 0 )
    {
        ( void ) tcsetattr( STDIN_FILENO, TCSANOW, &xTerminalWas );
        xTerminalRaw = 0;
    }
}

/* The signals that end the process by default (SIGKILL and SIGSTOP cannot be caught;
 * SIGALRM and SIGUSR1 are the port's tick and resume). */
static const int iTerminalSignals[] =
{
    SIGHUP, SIGINT, SIGQUIT, SIGILL, SIGABRT, SIGBUS, SIGFPE, SIGSEGV, SIGPIPE, SIGTERM,
    SIGUSR2, SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF
};
#define posixTERMINAL_SIGNALS    ( sizeof( iTerminalSignals ) / sizeof( iTerminalSignals[ 0 ] ) )
static struct sigaction xTerminalSignalWas[ posixTERMINAL_SIGNALS ];

/* Restores the terminal (tcsetattr() is async-signal-safe) and gives the signal to the
 * handler before ours. A fault the CPU raised (a bad address, a bad instruction, a
 * division by zero) comes again when this returns, to that handler, which so sees the
 * real fault; any other signal is raised again, and arrives once this returns (it is
 * blocked meanwhile). */
static void prvTerminalSignal( int iSignal,
                               siginfo_t * pxInfo,
                               void * pvContext )
{
    size_t x;
    BaseType_t xFault;

    ( void ) pvContext;

    prvTerminalRestore();

    for( x = 0U; x < posixTERMINAL_SIGNALS; x++ )
    {
        if( iTerminalSignals[ x ] == iSignal )
        {
            ( void ) sigaction( iSignal, &xTerminalSignalWas[ x ], NULL );
        }
    }

    xFault = ( ( iSignal == SIGSEGV ) || ( iSignal == SIGBUS ) || ( iSignal == SIGILL ) || ( iSignal == SIGFPE ) ) &&
             ( pxInfo != NULL ) && ( pxInfo->si_code > 0 );

    if( xFault == pdFALSE )
    {
        ( void ) raise( iSignal );
    }
}

static void prvTerminalSetUp( void )
{
    struct termios xRaw;
    struct sigaction xAction;
    size_t x;

    if( ( isatty( STDIN_FILENO ) == 0 ) || ( tcgetattr( STDIN_FILENO, &xTerminalWas ) != 0 ) )
    {
        return;
    }

    memset( &xAction, 0, sizeof( xAction ) );
    xAction.sa_sigaction = prvTerminalSignal;
    xAction.sa_flags = SA_SIGINFO;
    ( void ) sigemptyset( &xAction.sa_mask );

    for( x = 0U; x < posixTERMINAL_SIGNALS; x++ )
    {
        ( void ) sigaction( iTerminalSignals[ x ], &xAction, &xTerminalSignalWas[ x ] );
    }

    ( void ) atexit( prvTerminalRestore );

    xRaw = xTerminalWas;
    xRaw.c_lflag &= ~( tcflag_t ) ( ICANON | ECHO | ISIG | IEXTEN );
    xRaw.c_iflag &= ~( tcflag_t ) ( IXON );
    xRaw.c_cc[ VMIN ] = 1;
    xRaw.c_cc[ VTIME ] = 0;

    if( tcsetattr( STDIN_FILENO, TCSANOW, &xRaw ) == 0 )
    {
        xTerminalRaw = 1;
    }
}

int port_console_is_terminal( void )
{
    return ( xTerminalRaw != 0 ) ? 1 : 0;
}
/*-----------------------------------------------------------*/

/* How often the shell looks at stdin. Each look is two context switches, and on this
 * port a switch is a hand-off between host threads: when the host is busy, the new
 * thread starts late, and that delay is charged (rightly, as FreeRTOS sees it) to the
 * task switched in. Looking 100 times a second instead of at every tick keeps that
 * noise off the workloads; 10 ms is still instant at a keyboard. */
#define posixCONSOLE_POLL_MS    10U

int port_console_getc( uint32_t timeout_ms )
{
    const TickType_t xStart = xTaskGetTickCount();
    const TickType_t xWait = pdMS_TO_TICKS( timeout_ms );
    struct pollfd xStdin;
    unsigned char ucByte;
    ssize_t xRead;
    int iReady;

    for( ; ; )
    {
        /* stdin stays a blocking descriptor (it is shared with the parent shell, which
         * would inherit O_NONBLOCK); a zero-timeout poll() tells whether read() will
         * return at once. */
        xStdin.fd = STDIN_FILENO;
        xStdin.events = POLLIN;
        xStdin.revents = 0;
        iReady = poll( &xStdin, 1, 0 );

        if( iReady > 0 )
        {
            /* POLLNVAL: stdin was closed before we started; treat it as end of input. */
            if( ( xStdin.revents & POLLNVAL ) != 0 )
            {
                return PORT_CONSOLE_EOF;
            }

            /* POLLIN or POLLHUP/POLLERR: read() returns data, 0 at end of file, or the
             * error, without sleeping. */
            xRead = read( STDIN_FILENO, &ucByte, 1 );

            if( xRead == 1 )
            {
                return ( int ) ucByte;
            }

            if( ( xRead < 0 ) && ( errno == EINTR ) )
            {
                continue;
            }

            /* EAGAIN: someone else made the shared descriptor non-blocking and took
             * the byte first; wait as if nothing had been ready. */
            if( ( xRead == 0 ) || ( errno != EAGAIN ) )
            {
                return PORT_CONSOLE_EOF;
            }
        }
        else if( ( iReady < 0 ) && ( errno != EINTR ) )
        {
            return PORT_CONSOLE_EOF;
        }

        if( ( xTaskGetTickCount() - xStart ) >= xWait )
        {
            return PORT_CONSOLE_TIMEOUT;
        }

        /* Around a window's end, host_share.c sees where the window ended. */
        vHostSharePoll();
        vTaskDelay( pdMS_TO_TICKS( posixCONSOLE_POLL_MS ) );
    }
}
/*-----------------------------------------------------------*/

/* The console's speed with --baud, in bits per second (0: as fast as the host). */
static uint32_t ulConsoleBaud = 0U;

/* Holds the calling task for the time a UART at ulConsoleBaud takes to send n bytes
 * (ten bits each), busy, as a firmware's synchronous console output does: the report's
 * time is the console's. */
static void prvConsolePace( size_t n )
{
    uint64_t ullEnd;

    if( ulConsoleBaud == 0U )
    {
        return;
    }

    ullEnd = prvMonotonicNs() + ( ( uint64_t ) n * 10U * 1000000000U ) / ulConsoleBaud;

    while( prvMonotonicNs() < ullEnd )
    {
    }
}

void port_console_write( const char * s,
                         size_t n )
{
    ssize_t xWritten;

    prvConsolePace( n );

    /* write() rather than stdio: fwrite() would give up on the EINTR that the tick
     * signal causes while stdout is a full pipe, and leave the stream in error. Going
     * straight to the descriptor also makes every call reach the terminal at once. */
    while( n > 0U )
    {
        xWritten = write( STDOUT_FILENO, s, n );

        if( xWritten > 0 )
        {
            s += xWritten;
            n -= ( size_t ) xWritten;
        }
        else if( ( xWritten < 0 ) && ( errno == EINTR ) )
        {
            continue;
        }
        else
        {
            /* stdout is gone (closed pipe): nothing useful to do with the output. */
            break;
        }
    }
}
/*-----------------------------------------------------------*/

/* A bound on one sleep, in case no tick ever came to end it (the tick thread always
 * sends one within a tick; this only keeps a lost one from stalling the idle task). */
#define posixIDLE_SLEEP_MAX_TICKS    100U

/*
 * portSUPPRESS_TICKS_AND_SLEEP() (FreeRTOSConfig.h): the kernel calls it from the idle
 * task with the scheduler suspended when no task is due for at least two ticks. The
 * idle thread sleeps in the host until the next tick signal: the port's tick thread
 * sends SIGALRM to the thread of the running task, which is this one, and the signal
 * ends the wait once its handler has run (the handler only counts the tick: the
 * scheduler is suspended, so it pends and switches nothing). The kernel then catches
 * up on the pended tick in xTaskResumeAll() and runs whatever became due.
 *
 * Race-free: signals are blocked in the critical section, so a tick that arrives
 * between the kernel's decision and the wait stays pending, eTaskConfirmSleepModeStatus()
 * sees it if it was already counted, and pselect() unblocks SIGALRM only for the
 * duration of the wait, atomically: a pending tick ends it at once. nanosleep() in its
 * place could sleep through a tick that landed just before it.
 */
void vPosixIdleSleep( uint64_t ullExpectedIdleTicks )
{
    const uint64_t ullTicks = ( ullExpectedIdleTicks < posixIDLE_SLEEP_MAX_TICKS ) ?
                              ullExpectedIdleTicks : posixIDLE_SLEEP_MAX_TICKS;
    const uint64_t ullNs = ullTicks * ( 1000000000ULL / ( uint64_t ) configTICK_RATE_HZ );
    struct timespec xTimeout;
    sigset_t xWaitMask;
    uint64_t ullStartNs;

    xTimeout.tv_sec = ( time_t ) ( ullNs / 1000000000ULL );
    xTimeout.tv_nsec = ( long ) ( ullNs % 1000000000ULL );

    portENTER_CRITICAL();
    {
        ( void ) pthread_sigmask( SIG_BLOCK, NULL, &xWaitMask );
        ( void ) sigdelset( &xWaitMask, SIGALRM );

        if( eTaskConfirmSleepModeStatus() != eAbortSleep )
        {
            /* Ends with EINTR after the tick's handler ran, or at the timeout. The
             * time goes to host_share.c: asleep, the simulator needs no core. */
            ullStartNs = prvMonotonicNs();
            ( void ) pselect( 0, NULL, NULL, NULL, &xTimeout, &xWaitMask );
            vHostShareSlept( prvMonotonicNs() - ullStartNs );
        }
    }
    portEXIT_CRITICAL();
}
/*-----------------------------------------------------------*/

void port_exit( int status )
{
    /* Mask the tick first: a SIGALRM arriving inside exit() could switch this thread
     * out while it holds stdio or allocator locks, and the process would never end. */
    portDISABLE_INTERRUPTS();

    ( void ) fflush( stdout );
    exit( status );
}
/*-----------------------------------------------------------*/

void vAssertCalled( const char * pcFile,
                    unsigned long ulLine )
{
    portDISABLE_INTERRUPTS();

    fprintf( stderr, "ASSERT failed: %s:%lu\n", pcFile, ulLine );
    ( void ) fflush( stderr );
    abort();
}
/*-----------------------------------------------------------*/

void vApplicationMallocFailedHook( void )
{
    /* With heap_3 this means the host itself is out of memory (or a task count ran
     * away): stop loudly rather than let xTaskCreate() failures pile up. */
    portDISABLE_INTERRUPTS();

    fprintf( stderr, "FreeRTOS: pvPortMalloc() failed\n" );
    ( void ) fflush( stderr );
    abort();
}
/*-----------------------------------------------------------*/

/*
 * Linked in place of the port's vPortCancelThread() (board.mk passes
 * -Wl,--wrap=vPortCancelThread), which the kernel calls to dispose of a deleted task's
 * thread: pthread_cancel(), pthread_join(), free().
 *
 * The idle task runs it for every task that deleted itself, at the lowest priority, so
 * any wake-up switches it out, possibly inside pthread_join() while glibc holds its
 * thread-stack cache lock (seen: parked in munmap()). The next pthread_create() or
 * pthread_join() of a higher-priority task (the churn task) then waits on that lock
 * for ever: its thread blocks in the host while FreeRTOS counts it as running, so the
 * idle task never runs again to release it. With the scheduler suspended the tick
 * still arrives but cannot switch this thread out until the lock is released.
 */
void __real_vPortCancelThread( void * pxTaskToDelete );
void __wrap_vPortCancelThread( void * pxTaskToDelete );

void __wrap_vPortCancelThread( void * pxTaskToDelete )
{
    vTaskSuspendAll();
    {
        __real_vPortCancelThread( pxTaskToDelete );
    }
    ( void ) xTaskResumeAll();
}
/*-----------------------------------------------------------*/

#if defined( __SANITIZE_ADDRESS__ )

/* The posix-asan build's sanitizer settings, built in so that the plain command line
 * works; ASAN_OPTIONS / UBSAN_OPTIONS / LSAN_OPTIONS in the environment still win. */
    #include <sanitizer/asan_interface.h>
    #include <sanitizer/lsan_interface.h>

    const char * __ubsan_default_options( void );

/* Stop at the first report with a non-zero status a test cannot miss. Leak checking
 * stays on: at exit every task is still reachable from the kernel's lists. */
    const char * __asan_default_options( void )
    {
        return "abort_on_error=1:halt_on_error=1:detect_leaks=1";
    }

    const char * __ubsan_default_options( void )
    {
        return "print_stacktrace=1:halt_on_error=1";
    }

/* The port marks each of its threads with a 1-byte malloc() kept in pthread-specific
 * data and freed by the thread's key destructor. After long churn runs LeakSanitizer
 * reports those of the tasks still alive at exit, one per live task: it does not always
 * scan the glibc thread descriptor that holds a live thread's specific data. The block
 * is the kernel port's, reachable, and not ours to free. */
    const char * __lsan_default_suppressions( void )
    {
        return "leak:prvMarkAsFreeRTOSThread\n";
    }

/* A run that used the suppression would otherwise end with a table of it on stderr. */
    const char * __lsan_default_options( void )
    {
        return "print_suppressions=0";
    }

#endif /* __SANITIZE_ADDRESS__ */
/*-----------------------------------------------------------*/

int main( int argc,
          char ** argv )
{
    int i;

    #if ( configGENERATE_RUN_TIME_STATS == 1 )
        ullRunTimeBaseNs = prvMonotonicNs();
    #endif

    demo_start();
    vHostShareStart();

    for( i = 1; i < argc; i++ )
    {
        if( strcmp( argv[ i ], "--many-tasks" ) == 0 )
        {
            demo_add_waiting_tasks();
        }
        else if( ( strcmp( argv[ i ], "--baud" ) == 0 ) && ( i + 1 < argc ) && ( atoi( argv[ i + 1 ] ) > 0 ) )
        {
            ulConsoleBaud = ( uint32_t ) atoi( argv[ ++i ] );
        }
        else
        {
            fprintf( stderr, "usage: %s [--many-tasks] [--baud BITS_PER_S]\n"
                             "  --many-tasks  %u more tasks, waiting, before the scheduler starts\n"
                             "  --baud        output as slow as a UART at that speed (115200: 11.5 KB/s)\n",
                     argv[ 0 ], ( unsigned ) DEMO_WAITING_TASKS );
            return EXIT_FAILURE;
        }
    }

    /* Last: an argument error ends the run with the terminal as it was. */
    prvTerminalSetUp();
    vTaskStartScheduler();

    /* Only reached if the scheduler could not start (no memory for the idle task). */
    fprintf( stderr, "vTaskStartScheduler() returned\n" );

    return EXIT_FAILURE;
}
/*-----------------------------------------------------------*/
