/*
 * scenarios.c - what each scenario of the Cortex-M3 bench image measures (the
 * scenario= of its command line; the list is at the top of harness.c): the measured
 * intervals, the switch, interrupt and sleep pairs, the readers' whole calls, with the
 * checks that the harness's timing put each on the path it is meant to measure.
 */
#include <stdint.h>
#include <stddef.h>
#include <string.h>

#include "harness.h"

/* ---- Scenarios -------------------------------------------------------------------- */

uint32_t start_tick;
uint32_t start_phase;

/* SysTick: the tick after which the window that started at scheduler start closes
 * has been counted, and SysTick is now past the phase at which the window started
 * (plus a margin for the code between reading the phase and the library's reading),
 * and far from its next wrap: the next hook rolls the window over. */
static void systick_wait_window_end( void )
{
    while( ticks < start_tick + TICKS_PER_WINDOW )
    {
        wait_tick();
    }

    for( ; ; )
    {
        irq_off();
        uint32_t phase = systick_phase();

        if( ( phase > start_phase + 2000u ) && ( phase < SYST_RELOAD - 2000u ) &&
            ( ( ICSR & ICSR_PENDSTSET ) == 0u ) )
        {
            return; /* interrupts stay off */
        }

        irq_on();
    }
}

/* SysTick far from its wrap, so that no tick can pend during a measured pair. */
static void systick_wait_quiet( void )
{
    for( ; ; )
    {
        irq_off();

        if( ( systick_phase() < SYST_RELOAD / 2u ) && ( ( ICSR & ICSR_PENDSTSET ) == 0u ) )
        {
            return;
        }

        irq_on();
    }
}

/* Whether a window has completed, through the API (outside the measured interval). */
static int window_published( void )
{
    char arg0[] = "show_cpu_usage";
    char * argv[ 2 ] = { arg0, NULL };

    return cpu_usage_format( NULL, 0u, 1, argv ) != CPU_USAGE_ERR_NO_WINDOW;
}

/* A measured interval, opened and closed with interrupts off (the callers turned
 * them off). `rolls_over`: the interval must close the first window, and any other
 * must not; a harness whose timing went wrong fails rather than report the wrong
 * path. */
static void measure_open( void )
{
    if( window_published() )
    {
        fail( "a window closed before the measured interval" );
    }

    bench_begin();
}

static void measure_close( int rolls_over )
{
    bench_end();

    if( window_published() != rolls_over )
    {
        fail( rolls_over ? "the measured interval did not close the window"
                         : "the measured interval closed a window" );
    }

    irq_on();
}

/* The measured switch pair. */
static void measure_pair( uint32_t next,
                          int rolls_over )
{
    measure_open();
    switch_pair( next );
    measure_close( rolls_over );
}

/* Interrupts off, and time goes by since the last hook: a few hundred counts (the
 * 1-load clock), or whatever passed and SysTick quiet for the next half period. */
static void settle( void )
{
    if( load1 )
    {
        irq_off();
        bench_now += 700u;
    }
    else
    {
        systick_wait_quiet();
    }
}

/* An interrupt's hook pair, as CPU_USAGE_ISR_ENTER/EXIT or the kernel's
 * traceISR_ENTER/EXIT make it (interrupts are off). */
static void isr_pair( uint32_t counts )
{
    cpu_usage_hook_isr_enter();
    pass_counts( counts );
    cpu_usage_hook_isr_exit();
}

/* Tickless idle's pair, traceLOW_POWER_IDLE_BEGIN/END (interrupts are off). */
static void sleep_pair( uint32_t counts )
{
    cpu_usage_hook_sleep_begin();
    pass_counts( counts );
    cpu_usage_hook_sleep_end();
}

/* The hooks keep each slot's longest run in the window, which takes a few more
 * instructions when a run is longer than any before it. The measured runs are never
 * that: a warm-up runs longer first. On SysTick, how long a task runs before a
 * measured switch depends on how long systick_wait_quiet() waited (up to half a
 * tick), so the task first gets a run of two ticks, which a switch to itself ends.
 * (The 1-load clock moves 700 counts per switch: every run is as long.) */
static void long_run( uint32_t task )
{
    switch_to( task );

    if( !load1 )
    {
        wait_tick();
        wait_tick();
        switch_to( task );
    }
}

/* The common switch: three switches between tasks with IDs of their own (with a
 * single task, from it to itself), after two long runs have settled the counters.
 * run.sh checks that the three counts agree. */
static void measure_common( uint32_t from )
{
    long_run( own_id_task( from ) );
    long_run( from );

    for( uint32_t k = 0u; k < 3u; k++ )
    {
        uint32_t next = own_id_task( running );

        settle();
        measure_pair( next, 0 );
    }
}

/* The running task deletes itself (vTaskDelete(NULL)): the next switch releases its ID. */
static void self_delete_running( void )
{
    irq_off();

    if( cpu_usage_hook_task_delete( &tcb[ running ], id[ running ] ) != 0 )
    {
        fail( "self-delete refused" );
    }

    irq_on();
}

void output_discard( const char * s, size_t n )
{
    ( void ) s;
    ( void ) n;
}

/* A completed window, every task having run in it, for the readers to read, with
 * their output going to `write` (clock=load1 only: the harness moves that clock on a
 * window at a time). */
void complete_window( void ( * write )( const char * s, size_t n ) )
{
    if( !load1 )
    {
        fail( "report and stack scenarios need clock=load1" );
    }

    if( cpu_usage_set_output( write ) != 0 )
    {
        fail( "set_output" );
    }

    /* The window under way closes; in the next one every task runs. */
    bench_now += WINDOW_COUNTS;
    irq_off();
    cpu_usage_hook_tick();
    irq_on();

    for( uint32_t i = 0u; i < n_tasks; i++ )
    {
        switch_to( i );
    }

    bench_now += WINDOW_COUNTS;
    irq_off();
    cpu_usage_hook_tick();
    irq_on();
}

/* show_cpu_usage with `option`, once a window has completed. */
static int report( const char * option )
{
    char arg0[] = "show_cpu_usage";
    char arg1[ 4 ];
    char * argv[ 3 ] = { arg0, arg1, NULL };
    int argc = 1;
    int status;

    if( option != NULL )
    {
        strcpy( arg1, option );
        argc = 2;
    }

    complete_window( output_discard );

    bench_begin();
    status = show_cpu_usage( argc, argv );
    bench_end();

    return status;
}

int run_scenario( const char * line,
                  uint32_t from )
{
    if( arg_is( line, "scenario=common" ) )
    {
        measure_common( from );
    }
#if !defined( BENCH_SMP_CORES ) /* (the event trace is for one core) */
    else if( arg_is( line, "scenario=traced" ) )
    {
        /* The common switch again, traced: each measured switch also records an
         * event. */
        char arg0[] = "cpu_usage_trace";
        char arg1[] = "start";
        char * argv[ 3 ] = { arg0, arg1, NULL };

        if( ( cpu_usage_set_output( output_discard ) != 0 ) || ( cpu_usage_trace( 2, argv ) != 0 ) )
        {
            fail( "cpu_usage_trace start failed" );
        }

        traced = 1;
        measure_common( from );
    }
#endif
    else if( arg_is( line, "scenario=overflow" ) )
    {
        /* Switching in a task that shares ID 0 (there is one when tasks > IDs). */
        uint32_t next = n_tasks - 1u;

        if( id[ next ] != 0u )
        {
            fail( "no task beyond the IDs" );
        }

        settle();
        measure_pair( next, 0 );
    }
    else if( arg_is( line, "scenario=rollover" ) )
    {
        /* The switch finds the window elapsed and closes it. */
        uint32_t next = own_id_task( running );

        if( load1 )
        {
            irq_off();
            bench_now += WINDOW_COUNTS;
        }
        else
        {
            systick_wait_window_end();
        }

        measure_pair( next, 1 );
    }
    else if( arg_is( line, "scenario=release" ) )
    {
        /* The task with the highest own ID deletes itself; the next switch puts the ID
         * in quarantine. */
        switch_to( last_own_id_task() );
        self_delete_running();
        uint32_t next = own_id_task( running );

        settle();
        measure_pair( next, 0 );
    }
    else if( arg_is( line, "scenario=worst" ) )
    {
        /* All of it in one pair: a task that deleted itself is switched out just
         * after the window has elapsed, and on SysTick with the tick pending (the
         * counter reloaded since the last reading: the clock reads it twice). The
         * switch-in charges "other" for the first time in the new window. */
        switch_to( last_own_id_task() );
        self_delete_running();
        uint32_t next = own_id_task( running );

        if( load1 )
        {
            irq_off();
            bench_now += WINDOW_COUNTS;
        }
        else
        {
            while( ticks < start_tick + TICKS_PER_WINDOW )
            {
                wait_tick();
            }

            irq_off();

            while( ( ICSR & ICSR_PENDSTSET ) == 0u )
            {
            }
        }

        measure_pair( next, 1 );
    }
    else if( arg_is( line, "scenario=isr" ) )
    {
        /* An interrupt taken while a task that already ran in this window runs, after
         * a first one (the warm-up) has charged the interrupt slot in this window too.
         * Three times; run.sh checks that the counts agree. */
        settle();
        isr_pair( 600u );
        irq_on();

        for( uint32_t k = 0u; k < 3u; k++ )
        {
            settle();
            measure_open();
            isr_pair( 300u );
            measure_close( 0 );
        }
    }
    else if( arg_is( line, "scenario=sleep" ) )
    {
        /* The idle task, which already ran in this window, goes to sleep and wakes,
         * after a first sleep (the warm-up) has charged the sleep slot in this window.
         * Three times, as above. */
        if( running != 0u )
        {
            switch_to( 0u );
        }

        settle();
        sleep_pair( 6000u );
        irq_on();

        for( uint32_t k = 0u; k < 3u; k++ )
        {
            settle();
            measure_open();
            sleep_pair( 3000u );
            measure_close( 0 );
        }
    }
    else if( arg_is( line, "scenario=isr-tick" ) )
    {
        /* The SysTick handler as the kernel runs it, in the handler itself (so on the
         * SysTick clock the counter has just reloaded and its pending bit is clear, as
         * in the kernel). Two ticks of warm-up charge the interrupt slot in this
         * window; the next three are measured, each interrupting the same task, which
         * ran in this window. No window may close meanwhile. */
        if( window_published() )
        {
            fail( "a window closed before the warm-up ticks" );
        }

        tick_mode = TICK_KERNEL;
        wait_tick();
        wait_tick();

        if( window_published() )
        {
            fail( "a warm-up tick (ISR enter, tick, ISR exit) closed a window" );
        }

        tick_mode = TICK_MEASURED;

        while( ticks_measured < 3u )
        {
            __asm volatile ( "wfi" );
        }

        irq_off();
        tick_mode = TICK_HOOK_ONLY;
        irq_on();

        if( window_published() )
        {
            fail( "a measured tick closed a window" );
        }
    }
    else if( arg_is( line, "scenario=report-text" ) )
    {
        return report( NULL ) == 0 ? 0 : 2;
    }
    else if( arg_is( line, "scenario=report-json" ) )
    {
        return report( "-m" ) == 0 ? 0 : 2;
    }
    else if( arg_is( line, "scenario=report-cum" ) )
    {
        return report( "-c" ) == 0 ? 0 : 2;
    }
    else if( arg_is( line, "scenario=report-long" ) )
    {
        return report( "-l" ) == 0 ? 0 : 2;
    }
    else if( arg_is( line, "scenario=stack" ) )
    {
        measure_stack();
    }
    else
    {
        fail( "unknown scenario" );
    }

    return 0;
}
