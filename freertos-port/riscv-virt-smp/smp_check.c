/*
 * smp_check.c - the board's self-check firmware (smp_check.elf): does FreeRTOS SMP run
 * on every hart, with this port's locks, yields and tick? No demo, no library.
 *
 * Tasks:
 *   pin<h>   one per hart, priority 1, pinned to hart h (vTaskCoreAffinitySet), busy;
 *   free<i>  FREE_TASKS of them, priority 2, no affinity: rounds until the next tick,
 *            each ending in taskYIELD(), then vTaskDelay(1), so busy every other tick;
 *            they go to whichever harts the kernel gives them;
 *   check    priority 3: sleeps CHECK_TICKS ticks, then reads what everyone counted,
 *            prints it and ends the run through the test finisher.
 *
 * Every round of every task counts, inside taskENTER_CRITICAL() (both kernel locks),
 * once in its own row of seen[ task ][ hart ] (the hart from portGET_CORE_ID()) and
 * once in a shared counter, incremented in two steps with work between them. If the
 * port's spinlocks ever let two harts in at once, increments are lost and the shared
 * counter falls behind the sum of the rows, which the checker compares inside a
 * critical section of its own.
 *
 * Exit status 0 only if: each pinned task ran, on its own hart only; the free tasks ran
 * on more than one hart; the shared counter equals the rounds; the tick count moved by
 * CHECK_TICKS at least across vTaskDelay( CHECK_TICKS ), and never ran ahead of mtime
 * (tick k comes k * 10,000 counts after the tick's start, ../riscv-virt/clock.c, or
 * later when hart 0 is held up: without -icount the host may hold up a hart's thread,
 * and the ticks catch up); and the tick hook ran once per tick. Else 1. Under -icount
 * the figures are the same in every run, and the window is exactly CHECK_TICKS ticks.
 *
 * Output (the test in tests/tests/smp_qemu.rs reads it):
 *   smp_check: <N> harts, <T> ticks
 *   hart <h>: pin0 <n> ... pin<N-1> <n> free0 <n> ... free<F-1> <n>
 *   ticks: <elapsed> elapsed, mtime <counts> counts, tick hook <calls>
 *   rounds: <sum of the rows> counted, <shared> shared
 *   smp_check: ok          (or: smp_check: FAILED: <why>, one line per failure)
 */
#include "FreeRTOS.h"
#include "task.h"

#include "riscv_virt_smp.h"

#define CHECK_TICKS         300u
#define FREE_TASKS          3u
#define TASKS               ( configNUMBER_OF_CORES + FREE_TASKS )
/* A round's work: a little inside its critical section (the window in which a broken
 * lock would lose an increment), much more outside. Harts that hold the kernel's locks
 * most of the time would starve the others under -icount, where QEMU runs the harts in
 * turn and a hart whose turn ends inside a critical section keeps the others spinning
 * through theirs: hart 0 would fall behind its ticks for good. */
#define INSIDE_SPINS        4u
#define OUTSIDE_SPINS       400u

#define PRIORITY_PINNED     ( tskIDLE_PRIORITY + 1u )
#define PRIORITY_FREE       ( tskIDLE_PRIORITY + 2u )
#define PRIORITY_CHECK      ( tskIDLE_PRIORITY + 3u )

/* seen[ task ][ hart ]: rounds task ran on hart. Written inside critical sections. */
static uint32_t seen[ TASKS ][ configNUMBER_OF_CORES ];
static uint32_t shared_rounds;
static volatile uint32_t tick_hook_calls;

/* The kernel's tick hook: on hart 0, inside the tick's critical section. */
void vApplicationTickHook( void )
{
    tick_hook_calls = tick_hook_calls + 1u;
}

static void work( uint32_t spins )
{
    for( volatile uint32_t i = 0u; i < spins; i++ )
    {
    }
}

/* One round of task `task`: its row and the shared counter, under both kernel locks. */
static void count_round( uint32_t task )
{
    uint32_t before;

    taskENTER_CRITICAL();
    seen[ task ][ portGET_CORE_ID() ]++;
    before = *( volatile uint32_t * ) &shared_rounds;
    work( INSIDE_SPINS );
    *( volatile uint32_t * ) &shared_rounds = before + 1u;
    taskEXIT_CRITICAL();
}

static void pinned_task( void * arg )
{
    uint32_t task = ( uint32_t ) ( uintptr_t ) arg;

    for( ; ; )
    {
        count_round( task );
        work( OUTSIDE_SPINS );
    }
}

static void free_task( void * arg )
{
    uint32_t task = ( uint32_t ) ( uintptr_t ) arg;

    for( ; ; )
    {
        const TickType_t woke = xTaskGetTickCount();

        /* Rounds until the next tick, each ending in a yield, then a tick's sleep: the
         * three free tasks are ready together for a whole tick, more than hart 0 can
         * run, so the harts asked to yield find one left however late they answer
         * (without -icount they are host threads, which the host may hold up). */
        do
        {
            count_round( task );
            work( OUTSIDE_SPINS );
            taskYIELD();
        } while( xTaskGetTickCount() == woke );

        vTaskDelay( 1 );
    }
}

static void put_task_name( uint32_t task )
{
    if( task < configNUMBER_OF_CORES )
    {
        board_uart_puts( "pin" );
        board_uart_put_dec( task );
    }
    else
    {
        board_uart_puts( "free" );
        board_uart_put_dec( task - configNUMBER_OF_CORES );
    }
}

static int failures;

static void fail( const char * why, uint32_t task )
{
    board_uart_puts( "smp_check: FAILED: " );

    if( task < TASKS )
    {
        put_task_name( task );
        board_uart_puts( " " );
    }

    board_uart_puts( why );
    board_uart_puts( "\n" );
    failures++;
}

static void check_task( void * arg )
{
    static uint32_t copy[ TASKS ][ configNUMBER_OF_CORES ];
    uint32_t shared;
    uint32_t rounds = 0u;
    TickType_t ticks_start;
    TickType_t ticks;
    TickType_t total_ticks;
    uint64_t mtime_now;
    uint64_t mtime_start;
    uint64_t mtime;
    uint32_t hook_start;
    uint32_t hook;
    uint32_t free_harts = 0u;

    ( void ) arg;

    taskENTER_CRITICAL();
    ticks_start = xTaskGetTickCount();
    mtime_start = virt_mtime();
    hook_start = tick_hook_calls;
    taskEXIT_CRITICAL();

    vTaskDelay( CHECK_TICKS );

    /* One consistent view: no task can count while this holds the kernel's locks. */
    taskENTER_CRITICAL();
    total_ticks = xTaskGetTickCount();
    mtime_now = virt_mtime();
    ticks = total_ticks - ticks_start;
    mtime = mtime_now - mtime_start;
    hook = tick_hook_calls - hook_start;
    shared = shared_rounds;

    for( uint32_t t = 0u; t < TASKS; t++ )
    {
        for( uint32_t h = 0u; h < configNUMBER_OF_CORES; h++ )
        {
            copy[ t ][ h ] = seen[ t ][ h ];
            rounds += seen[ t ][ h ];
        }
    }

    taskEXIT_CRITICAL();

    board_uart_puts( "smp_check: " );
    board_uart_put_dec( configNUMBER_OF_CORES );
    board_uart_puts( " harts, " );
    board_uart_put_dec( CHECK_TICKS );
    board_uart_puts( " ticks\n" );

    for( uint32_t h = 0u; h < configNUMBER_OF_CORES; h++ )
    {
        board_uart_puts( "hart " );
        board_uart_put_dec( h );
        board_uart_puts( ":" );

        for( uint32_t t = 0u; t < TASKS; t++ )
        {
            board_uart_puts( " " );
            put_task_name( t );
            board_uart_puts( " " );
            board_uart_put_dec( copy[ t ][ h ] );
        }

        board_uart_puts( "\n" );
    }

    board_uart_puts( "ticks: " );
    board_uart_put_dec( ticks );
    board_uart_puts( " elapsed, mtime " );
    board_uart_put_dec( ( uint32_t ) mtime );
    board_uart_puts( " counts, tick hook " );
    board_uart_put_dec( hook );
    board_uart_puts( "\nrounds: " );
    board_uart_put_dec( rounds );
    board_uart_puts( " counted, " );
    board_uart_put_dec( shared );
    board_uart_puts( " shared\n" );

    for( uint32_t t = 0u; t < configNUMBER_OF_CORES; t++ )
    {
        for( uint32_t h = 0u; h < configNUMBER_OF_CORES; h++ )
        {
            if( ( h == t ) && ( copy[ t ][ h ] == 0u ) )
            {
                fail( "never ran on its hart", t );
            }
            else if( ( h != t ) && ( copy[ t ][ h ] != 0u ) )
            {
                fail( "ran on a hart it is not pinned to", t );
            }
        }
    }

    for( uint32_t h = 0u; h < configNUMBER_OF_CORES; h++ )
    {
        for( uint32_t t = configNUMBER_OF_CORES; t < TASKS; t++ )
        {
            if( copy[ t ][ h ] != 0u )
            {
                free_harts++;
                break;
            }
        }
    }

    if( free_harts < 2u )
    {
        fail( "the free tasks ran on fewer than 2 harts", TASKS );
    }

    if( shared != rounds )
    {
        fail( "the shared counter lost increments: two harts were in a critical section at once", TASKS );
    }

    if( ticks < CHECK_TICKS )
    {
        fail( "vTaskDelay( CHECK_TICKS ) returned early", TASKS );
    }

    if( total_ticks > ( mtime_now - virt_tick_origin ) / ( configCPU_CLOCK_HZ / configTICK_RATE_HZ ) )
    {
        fail( "the tick count ran ahead of mtime", TASKS );
    }

    if( hook != ticks )
    {
        fail( "the tick hook did not run once per tick", TASKS );
    }

    if( failures == 0 )
    {
        board_uart_puts( "smp_check: ok\n" );
    }

    board_exit( ( failures == 0 ) ? 0 : 1 );
}

static void create( TaskFunction_t code, const char * name, uint32_t task, UBaseType_t priority, UBaseType_t affinity )
{
    TaskHandle_t handle;

    if( xTaskCreate( code, name, configMINIMAL_STACK_SIZE, ( void * ) ( uintptr_t ) task, priority, &handle ) != pdPASS )
    {
        board_fatal( "smp_check: cannot create a task", BOARD_EXIT_MALLOC_FAILED );
    }

    vTaskCoreAffinitySet( handle, affinity );
}

int main( void )
{
    static const char * const pinned_names[] = { "pin0", "pin1", "pin2", "pin3" };
    static const char * const free_names[] = { "free0", "free1", "free2" };

    _Static_assert( sizeof( pinned_names ) / sizeof( pinned_names[ 0 ] ) >= configNUMBER_OF_CORES, "a name per pinned task" );
    _Static_assert( sizeof( free_names ) / sizeof( free_names[ 0 ] ) == FREE_TASKS, "a name per free task" );

    portDISABLE_INTERRUPTS();
    board_init();
    board_uart_puts( "smp_check: starting\n" );

    for( uint32_t h = 0u; h < configNUMBER_OF_CORES; h++ )
    {
        create( pinned_task, pinned_names[ h ], h, PRIORITY_PINNED, ( UBaseType_t ) 1u << h );
    }

    for( uint32_t f = 0u; f < FREE_TASKS; f++ )
    {
        create( free_task, free_names[ f ], configNUMBER_OF_CORES + f, PRIORITY_FREE, tskNO_AFFINITY );
    }

    create( check_task, "check", TASKS, PRIORITY_CHECK, tskNO_AFFINITY );

    vTaskStartScheduler();
    board_fatal( "vTaskStartScheduler returned", BOARD_EXIT_SCHEDULER_RETURNED );
}
