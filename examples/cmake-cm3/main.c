/*
 * main.c - examples/cmake-cm3: three workloads and a reporter on FreeRTOS's ARM_CM3
 * port (QEMU mps2-an385), with freertos-cpu-usage linked through CMake.
 *
 * Each workload burns 10, 25 or 40% of every 10 ms period, timed by the board's TIMER1,
 * a free-running counter at the core's 25 MHz. The reporter, below them, prints windows
 * 2, 3 and 4 (100 ms each; the first holds the start-up) as one line of JSON each
 * (show_cpu_usage -m), the last one also as the shell's table and as figures read with
 * cpu_usage_snapshot(), then `done`, and ends the run with status 0 through
 * semihosting, which QEMU turns into its own exit status.
 *
 * What a bare-metal firmware gives the library: an output (cpu_usage_set_output: here
 * UART0, which QEMU puts on its standard output). Its clock it finds by itself: the
 * DWT cycle counter where it counts, else SysTick-extended (on QEMU, which has no DWT).
 */
#include <stddef.h>
#include <stdint.h>

#include "FreeRTOS.h"
#include "task.h"

#include "freertos_cpu_usage.h"

#define WINDOW_MS          100u
#define FIRST_REPORTED     2u
#define LAST_REPORTED      4u
#define PERIOD_TICKS       pdMS_TO_TICKS( 10 )
#define COUNTS_PER_PERCENT ( configCPU_CLOCK_HZ / 100u / 100u ) /* 1% of 10 ms */

#define REG( a )           ( *( volatile uint32_t * ) ( a ) )
#define UART0_DATA         REG( 0x40004000u )
#define UART0_STATE        REG( 0x40004004u )
#define UART0_CTRL         REG( 0x40004008u )
#define UART0_BAUDDIV      REG( 0x40004010u )
#define TIMER1_CTRL        REG( 0x40001000u )
#define TIMER1_VALUE       REG( 0x40001004u )
#define TIMER1_RELOAD      REG( 0x40001008u )

void app_exit( int status ) __attribute__( ( noreturn ) );

/* ---- The board ------------------------------------------------------------------ */

static void prvWrite( const char * s,
                      size_t n )
{
    for( size_t i = 0; i < n; i++ )
    {
        while( ( UART0_STATE & 1u ) != 0u ) /* TX full */
        {
        }

        UART0_DATA = ( uint8_t ) s[ i ];
    }
}

static void prvPrint( const char * s )
{
    size_t n = 0;

    while( s[ n ] != '\0' )
    {
        n++;
    }

    prvWrite( s, n );
}

/* A number as decimal, with two decimals when hundredths is set. */
static void prvPrintNumber( uint32_t ulValue,
                            int hundredths )
{
    char cText[ 16 ];
    size_t i = sizeof( cText );
    uint32_t ulDigits = 0;

    do
    {
        cText[ --i ] = ( char ) ( '0' + ( ulValue % 10u ) );
        ulValue /= 10u;
        ulDigits++;

        if( hundredths && ( ulDigits == 2u ) )
        {
            cText[ --i ] = '.';
        }
    } while( ( ulValue != 0u ) || ( hundredths && ( ulDigits < 3u ) ) );

    prvWrite( &cText[ i ], sizeof( cText ) - i );
}

/* TIMER1 counts down from 2^32 - 1 at the core clock; this counts up. */
static uint32_t prvNow( void )
{
    return 0xFFFFFFFFu - TIMER1_VALUE;
}

void app_exit( int status )
{
    /* Semihosting SYS_EXIT_EXTENDED, ADP_Stopped_ApplicationExit with the status. */
    volatile uint32_t ulBlock[ 2 ] = { 0x20026u, ( uint32_t ) status };
    register uint32_t r0 __asm__( "r0" ) = 0x20u;
    register volatile uint32_t * r1 __asm__( "r1" ) = ulBlock;

    __asm__ volatile ( "bkpt 0xab" : "+r" ( r0 ) : "r" ( r1 ) : "memory" );

    for( ; ; )
    {
    }
}

void app_assert_failed( const char * file,
                        int line )
{
    taskDISABLE_INTERRUPTS();
    prvPrint( "assert failed: " );
    prvPrint( file );
    prvPrint( ":" );
    prvPrintNumber( ( uint32_t ) line, 0 );
    prvPrint( "\n" );
    app_exit( 2 );
}

/* ---- The application ------------------------------------------------------------ */

/* Burns its percent of each 10 ms period, then sleeps to the next period. */
static void prvWorkload( void * pvPercent )
{
    const uint32_t ulBurn = ( uint32_t ) ( uintptr_t ) pvPercent * COUNTS_PER_PERCENT;
    TickType_t xWake = xTaskGetTickCount();

    for( ; ; )
    {
        const uint32_t ulStart = prvNow();

        while( prvNow() - ulStart < ulBurn )
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
}

static void prvReporter( void * pvUnused )
{
    static char cJson[] = "-m";
    static cpu_usage_task_info xTasks[ 8 ];
    cpu_usage_summary_info xSummary;
    uint32_t ulShown = FIRST_REPORTED - 1u;

    ( void ) pvUnused;

    while( ulShown < LAST_REPORTED )
    {
        vTaskDelay( pdMS_TO_TICKS( 10 ) );

        /* The next window completed: print it. */
        if( ( cpu_usage_snapshot( NULL, 0, &xSummary ) >= 0 ) && ( xSummary.window > ulShown ) )
        {
            prvShow( cJson );
            ulShown = xSummary.window;
        }
    }

    prvShow( NULL );

    int32_t lWritten = cpu_usage_snapshot( xTasks, 8, &xSummary );

    for( int32_t i = 0; i < lWritten; i++ )
    {
        prvPrint( "snapshot: " );
        prvPrint( xTasks[ i ].name );
        prvPrint( " " );
        prvPrintNumber( xTasks[ i ].usage, 1 );
        prvPrint( "%\n" );
    }

    prvPrint( "snapshot: load " );
    prvPrintNumber( xSummary.load, 1 );
    prvPrint( "% of window " );
    prvPrintNumber( xSummary.window, 0 );
    prvPrint( "\ndone\n" );
    app_exit( 0 );
}

int main( void )
{
    UART0_BAUDDIV = 16u;
    UART0_CTRL = 1u; /* TX enable */
    TIMER1_RELOAD = 0xFFFFFFFFu;
    TIMER1_VALUE = 0xFFFFFFFFu;
    TIMER1_CTRL = 1u;

    ( void ) cpu_usage_set_output( prvWrite );
    ( void ) cpu_usage_set_window_ms( WINDOW_MS );
    prvPrint( "cmake-cm3: window " );
    prvPrintNumber( WINDOW_MS, 0 );
    prvPrint( " ms, library " );
    prvPrintNumber( cpu_usage_abi_version() >> 16, 0 );
    prvPrint( "." );
    prvPrintNumber( ( cpu_usage_abi_version() >> 8 ) & 0xFFu, 0 );
    prvPrint( "." );
    prvPrintNumber( cpu_usage_abi_version() & 0xFFu, 0 );
    prvPrint( "\n" );

    /* The reporter below the workloads: it never holds one up. */
    ( void ) xTaskCreate( prvWorkload, "work10", configMINIMAL_STACK_SIZE, ( void * ) 10, 2, NULL );
    ( void ) xTaskCreate( prvWorkload, "work25", configMINIMAL_STACK_SIZE, ( void * ) 25, 2, NULL );
    ( void ) xTaskCreate( prvWorkload, "work40", configMINIMAL_STACK_SIZE, ( void * ) 40, 2, NULL );
    ( void ) xTaskCreate( prvReporter, "reporter", 4 * configMINIMAL_STACK_SIZE, NULL, 1, NULL );

    vTaskStartScheduler();
    return 1;
}
