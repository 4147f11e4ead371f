/*
 * mcycle.c - the shell command 'mcycle [use]': the library's other clock on RISC-V, the
 * core's cycle counter, through cpu_usage_clock_mcycle().
 *
 * The library counts with mtime by default, at configCPU_CLOCK_HZ, the one rate the
 * kernel's configuration gives (src/arch/riscv.rs says why). mcycle's rate is the
 * core's, which nothing in the configuration says, so the command measures it against
 * mtime over MCYCLE_MEASURE_MS, and 'mcycle use' gives the library mcycle at that rate,
 * rounded to a whole MHz. Under QEMU the rate is not a core clock: with -icount mcycle
 * counts nanoseconds of guest time (1 GHz), without it the host's CPU ticks.
 */
#include <string.h>

#include "FreeRTOS.h"
#include "task.h"

#include "demo.h"
#include "freertos_cpu_usage.h"
#include "riscv_virt.h"

#define MCYCLE_MEASURE_MS       100u
#define MCYCLE_MEASURE_MTIME    ( MCYCLE_MEASURE_MS * ( VIRT_MTIME_HZ / 1000u ) )

/* mcycle's counts per second, measured against mtime, to the nearest MHz. */
static uint32_t mcycle_hz( void )
{
    uint64_t start;
    uint64_t now;
    uint32_t first;
    uint32_t last;
    uint64_t counts;

    taskENTER_CRITICAL();
    start = virt_mtime();
    first = cpu_usage_clock_mcycle();
    taskEXIT_CRITICAL();

    vTaskDelay( pdMS_TO_TICKS( MCYCLE_MEASURE_MS ) );

    /* Up to the same mtime distance exactly, so the rounding is the only error. */
    do
    {
        taskENTER_CRITICAL();
        now = virt_mtime();
        last = cpu_usage_clock_mcycle();
        taskEXIT_CRITICAL();
    } while( now - start < MCYCLE_MEASURE_MTIME );

    counts = ( uint64_t ) ( uint32_t ) ( last - first ) * ( 1000u / MCYCLE_MEASURE_MS );
    counts = counts * MCYCLE_MEASURE_MTIME / ( now - start );

    return ( uint32_t ) ( ( counts + 500000u ) / 1000000u ) * 1000000u;
}

/* 'mcycle [use]', from the shell task (demo.h's port commands). */
void virt_mcycle_command( int argc, char ** argv )
{
    uint32_t hz;
    int use = ( argc == 2 ) && ( strcmp( argv[ 1 ], "use" ) == 0 );

    if( ( argc > 2 ) || ( ( argc == 2 ) && ( use == 0 ) ) )
    {
        demo_print( "usage: mcycle [use]\n" );
        return;
    }

    hz = mcycle_hz();
    demo_print( "mcycle: " );
    demo_print_uint( hz / 1000000u, 0u );
    demo_print( " MHz against mtime\n" );

    if( use != 0 )
    {
        int32_t status = cpu_usage_set_clock( cpu_usage_clock_mcycle, hz );

        demo_print( "clock: mcycle at " );
        demo_print_uint( hz, 0u );
        demo_print( " Hz: " );
        demo_print( cpu_usage_status_str( status ) );
        demo_print( "\n" );
    }
}
