/*
 * snapshot_main.c - main() of snapshot.elf: the minimal build of freertos-cpu-usage
 * (cargo build --no-default-features: every hook, the engine, the setters and
 * cpu_usage_snapshot(), no shell) in a firmware that reads the figures itself, as one
 * that logs or sends them would.
 *
 * All the integration is here. The hooks header at the end of FreeRTOSConfig.h
 * connects the kernel; nothing needs calling at start-up, since the kernel's
 * scheduler-start hook hands the library the idle task and the clock frequency and
 * starts the windows. The window length is set before the scheduler starts, and a
 * task copies the last completed window into a static array once per window with
 * cpu_usage_snapshot(). Here it prints the figures; tests/tests/e2e_qemu.rs runs
 * this image under QEMU with -icount and checks them.
 *
 * Three workloads burn 10, 20 and 30 % of the CPU: every 10 ms each one burns, against
 * the wall clock, its share of the time since its previous activation. The period
 * divides the 100 ms window and the three burns (6 ms in all) end well before the next
 * activation, so a window ends where only the idle task runs and holds exactly ten
 * activations of each workload. The workloads share the highest priority with time
 * slicing off, and the reporting task runs below them: only an interrupt ever takes
 * the CPU from a burn, so a burn's wall time is the workload's own time, apart from
 * the interrupts inside it, which the library charges to the interrupts line.
 *
 * Output, on the board's UART (board.h), one record per line, "kind key=value ...", then exit status 0:
 *   start abi=<library's> abi_header=<header's> clock_hz=<library's clock> window_ms=<ms>
 *   call <what> returned=<status or count> [...]   (a status is a CPU_USAGE_ERR_* code:
 *                                                   the minimal build has no texts)
 *   window number=<n> us=<length> tasks=<in the window> written=<copied>
 *   task id= name= usage=<hundredths of a %> switches= longest_us= counts= idle=<0|1> deleted=<0|1>
 *   summary interrupts= interrupt_count= longest_interrupt_us= sleep= other= idle= load=
 *           load_avg_1s= load_avg_10s= load_avg_60s=   (one line; 4294967295: not known,
 *                                                       always in the minimal build)
 *   end
 */
#include <stdint.h>

#include "board.h"

#include "FreeRTOS.h"
#include "task.h"

#include "freertos_cpu_usage.h"

#define WINDOW_MS           100u
#define WORK_PERIOD_MS      10u
/* Windows left alone before the first reading: the first one holds the start-up. */
#define WARMUP_WINDOWS      3u
#define SNAPSHOTS           3u

#define WORK_PRIORITY       ( tskIDLE_PRIORITY + 2u )
#define REPORT_PRIORITY     ( tskIDLE_PRIORITY + 1u )
/* cpu_usage_snapshot() takes about 600 bytes of its caller's stack (docs/targets.md, "Stack"). */
#define TASK_STACK_WORDS    ( configMINIMAL_STACK_SIZE * 2u )

_Static_assert( WINDOW_MS % WORK_PERIOD_MS == 0u, "a window must hold whole work periods" );
_Static_assert( configUSE_TIME_SLICING == 0, "a burn must not share the CPU with the other workloads" );

typedef struct
{
    const char * name;
    uint32_t duty_pct;
} workload_t;

static workload_t workloads[] =
{
    { "work10", 10u },
    { "work20", 20u },
    { "work30", 30u },
};

/* A window's tasks plus the overflow bucket: static, as it is too large for a small
 * task stack. Only the reporting task uses it. */
static cpu_usage_task_info snapshot_tasks[ CPU_USAGE_MAX_TASKS + 1u ];

#define SNAPSHOT_CAPACITY    ( sizeof( snapshot_tasks ) / sizeof( snapshot_tasks[ 0 ] ) )

/* ---- Workloads ------------------------------------------------------------------ */

static void burn_us( uint32_t budget_us )
{
    const uint32_t start = port_time_us();

    while( ( port_time_us() - start ) < budget_us ) /* uint32_t: right across the wrap */
    {
    }
}

static void workload_task( void * parameters )
{
    const workload_t * const load = parameters;
    TickType_t wake = xTaskGetTickCount();
    uint32_t previous = port_time_us();
    uint32_t now;

    for( ; ; )
    {
        ( void ) xTaskDelayUntil( &wake, pdMS_TO_TICKS( WORK_PERIOD_MS ) );
        now = port_time_us();
        burn_us( ( ( now - previous ) * load->duty_pct ) / 100u );
        previous = now;
    }
}

/* ---- Output ------------------------------------------------------------------------ */

static void print_uint( const char * key, uint32_t value )
{
    board_uart_putc( ' ' );
    board_uart_puts( key );
    board_uart_putc( '=' );
    board_uart_put_dec( value );
}

static void print_int( const char * key, int32_t value )
{
    board_uart_putc( ' ' );
    board_uart_puts( key );
    board_uart_putc( '=' );

    if( value < 0 )
    {
        board_uart_putc( '-' );
    }

    board_uart_put_dec( ( value < 0 ) ? ( 0u - ( uint32_t ) value ) : ( uint32_t ) value );
}

/* A call's result; a negative one is a status code of the header. */
static void print_call( const char * what, int32_t returned )
{
    board_uart_puts( "call " );
    board_uart_puts( what );
    print_int( "returned", returned );
    board_uart_putc( '\n' );
}

static void print_snapshot( int32_t written, const cpu_usage_summary_info * summary )
{
    if( written < 0 )
    {
        print_call( "snapshot", written );
        return;
    }

    board_uart_puts( "window" );
    print_uint( "number", summary->window );
    print_uint( "us", summary->window_us );
    print_uint( "tasks", summary->tasks );
    print_uint( "written", summary->written );
    board_uart_putc( '\n' );

    for( int32_t i = 0; i < written; i++ )
    {
        const cpu_usage_task_info * task = &snapshot_tasks[ i ];

        board_uart_puts( "task" );
        print_uint( "id", task->id );
        board_uart_puts( " name=" );
        board_uart_puts( task->name );
        print_uint( "usage", task->usage );
        print_uint( "switches", task->switches );
        print_uint( "longest_us", task->longest_slice_us );
        print_uint( "counts", task->counts );
        print_uint( "idle", task->idle ? 1u : 0u );
        print_uint( "deleted", task->deleted ? 1u : 0u );
        board_uart_putc( '\n' );
    }

    board_uart_puts( "summary" );
    print_uint( "interrupts", summary->interrupts );
    print_uint( "interrupt_count", summary->interrupt_count );
    print_uint( "longest_interrupt_us", summary->longest_interrupt_us );
    print_uint( "sleep", summary->sleep );
    print_uint( "other", summary->other );
    print_uint( "idle", summary->idle );
    print_uint( "load", summary->load );
    print_uint( "load_avg_1s", summary->load_avg[ 0 ] );
    print_uint( "load_avg_10s", summary->load_avg[ 1 ] );
    print_uint( "load_avg_60s", summary->load_avg[ 2 ] );
    board_uart_putc( '\n' );
}

/* ---- The reporting task -------------------------------------------------------------- */

static void report_task( void * parameters )
{
    cpu_usage_summary_info summary;
    TickType_t wake = xTaskGetTickCount();
    int32_t written;

    ( void ) parameters;

    board_uart_puts( "start" );
    print_uint( "abi", cpu_usage_abi_version() );
    print_uint( "abi_header", CPU_USAGE_ABI_VERSION );
    /* The library's default Cortex-M clock (DWT, or SysTick-extended where the DWT
     * does not count, as on QEMU) runs at the frequency the hooks header passes. */
    print_uint( "clock_hz", configCPU_CLOCK_HZ );
    print_uint( "window_ms", cpu_usage_window_ms() );
    board_uart_putc( '\n' );

    /* Too early: no window has completed yet. */
    print_call( "no-window", cpu_usage_snapshot( snapshot_tasks, SNAPSHOT_CAPACITY, &summary ) );

    /* Half a window past a window's end, so each reading falls in a new window. */
    ( void ) xTaskDelayUntil( &wake, pdMS_TO_TICKS( ( WARMUP_WINDOWS * WINDOW_MS ) + ( WINDOW_MS / 2u ) ) );

    for( uint32_t n = 0u; n < SNAPSHOTS; n++ )
    {
        written = cpu_usage_snapshot( snapshot_tasks, SNAPSHOT_CAPACITY, &summary );
        print_snapshot( written, &summary );
        ( void ) xTaskDelayUntil( &wake, pdMS_TO_TICKS( WINDOW_MS ) );
    }

    /* Misuse, each answered as the header says: a NULL summary, or a NULL array with
     * a length, is refused; an array too small gets the first tasks, and the summary
     * says how many there were; a window of 0 ms is refused and changes nothing. */
    print_call( "null-summary", cpu_usage_snapshot( snapshot_tasks, SNAPSHOT_CAPACITY, NULL ) );
    print_call( "null-tasks", cpu_usage_snapshot( NULL, SNAPSHOT_CAPACITY, &summary ) );

    written = cpu_usage_snapshot( snapshot_tasks, 2u, &summary );
    board_uart_puts( "call into-2" );
    print_int( "returned", written );
    print_uint( "written", summary.written );
    print_uint( "tasks", summary.tasks );
    board_uart_putc( '\n' );

    print_call( "window-0", cpu_usage_set_window_ms( 0u ) );
    board_uart_puts( "window_ms_after" );
    print_uint( "ms", cpu_usage_window_ms() );
    board_uart_putc( '\n' );

    board_uart_puts( "end\n" );
    board_exit( 0 );
}

/* ---- Kernel hook and main() ---------------------------------------------------------- */

/* The port's FreeRTOSConfig.h turns the tick hook on for the demo's tick-sampled
 * accounting; this image has no use for it. */
void vApplicationTickHook( void )
{
}

static void create_or_die( BaseType_t created )
{
    if( created != pdPASS )
    {
        board_fatal( "xTaskCreate failed", BOARD_EXIT_MALLOC_FAILED );
    }
}

int main( void )
{
    board_init();

    if( cpu_usage_set_window_ms( WINDOW_MS ) != CPU_USAGE_OK )
    {
        board_fatal( "cpu_usage_set_window_ms refused the window", BOARD_EXIT_ASSERT );
    }

    for( size_t i = 0u; i < ( sizeof( workloads ) / sizeof( workloads[ 0 ] ) ); i++ )
    {
        create_or_die( xTaskCreate( workload_task, workloads[ i ].name, TASK_STACK_WORDS,
                                    &workloads[ i ], WORK_PRIORITY, NULL ) );
    }

    create_or_die( xTaskCreate( report_task, "report", TASK_STACK_WORDS, NULL, REPORT_PRIORITY, NULL ) );

    vTaskStartScheduler();

    /* Only if the idle task could not be created. */
    board_fatal( "vTaskStartScheduler returned", BOARD_EXIT_SCHEDULER_RETURNED );
}
