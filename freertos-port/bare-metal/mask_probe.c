/*
 * mask_probe.c - how every board's 'irqmask' (cortex-m/mask_check.c on the Arm boards,
 * riscv-virt's own mask_check.c) gets inside the
 * library's critical section, without a hook of its own in the library.
 *
 * The one C function the library calls with its critical section held is the clock,
 * from cpu_usage_set_clock(), which takes the new clock's first reading inside the
 * section that installs it (the readers copy inside theirs but call the output
 * after). So board_mask_probe() sets a clock, probe_clock(), whose first reading
 * calls the board's board_mask_probe_inside() (pend interrupts, record which ran) and
 * which then counts board_mask_probe_clock().
 *
 * The price: the demo's clock is a custom one from then on (the board's cycle count
 * at configCPU_CLOCK_HZ, the same counts as the default clock, so every figure stays
 * right; the report names it "custom"), and cpu_usage_set_clock() restarts the
 * figures, as it always does.
 */
#include "board.h"
#include "demo.h"

#include "FreeRTOS.h"

#include "freertos_cpu_usage.h"

/* Set by board_mask_probe(), taken by the first reading of probe_clock(). */
static volatile uint8_t armed;

/* Set by probe_clock() once it has called the board inside the section. */
static volatile uint8_t probed;

static uint32_t probe_clock( void )
{
    if( armed != 0u )
    {
        armed = 0u;
        board_mask_probe_inside();
        probed = 1u;
    }

    return board_mask_probe_clock();
}

int board_mask_probe( int32_t * status )
{
    probed = 0u;
    armed = 1u;
    *status = cpu_usage_set_clock( probe_clock, configCPU_CLOCK_HZ );
    armed = 0u;

    return ( *status == CPU_USAGE_OK ) && ( probed != 0u );
}

void board_mask_probe_failed( int32_t status )
{
    demo_print( "irqmask: FAILED: the library did not read the clock inside its critical section (cpu_usage_set_clock: " );
    demo_print( cpu_usage_status_str( status ) );
    demo_print( ")\n" );
}
