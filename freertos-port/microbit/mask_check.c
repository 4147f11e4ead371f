/*
 * mask_check.c - the shell command 'irqmask': which interrupts the library's critical
 * section holds off on this Cortex-M0. ARMv6-M has no BASEPRI, and FreeRTOS's ARM_CM0
 * port masks every interrupt in its critical sections (PRIMASK); the library must do
 * the same, whatever the priority: expected, none runs inside the section, all run
 * after it. tests/tests/e2e_qemu.rs runs it; mps2-an385's mask_check.c is the
 * Cortex-M3 counterpart, where the levels above the kernel's mask must run.
 *
 * How it gets inside the section, as on mps2-an385: cpu_usage_set_clock() takes the
 * new clock's first reading inside the section that installs it, so the command sets
 * a clock, probe_clock(), whose first reading pends two spare IRQs through the NVIC,
 * one at the most urgent priority (0x00) and one at the least (0xC0), and records
 * which of them ran before it returned.
 *
 * The price: the demo's clock is a custom one from then on, TIMER2 counting the same
 * 16 MHz (clock.c), so every figure stays right (the report names it "custom"), and
 * cpu_usage_set_clock() restarts the figures, as it always does.
 */
#include "demo.h"
#include "nrf51.h"

#include "FreeRTOS.h"
#include "task.h"

#include "freertos_cpu_usage.h"

/* No device of QEMU's nRF51 model drives IRQ30 or IRQ31: only this file pends them. */
#define MASK_CHECK_IRQ_URGENT     NRF51_IRQ_MASK_CHECK_URGENT
#define MASK_CHECK_IRQ_LOW        NRF51_IRQ_MASK_CHECK_LOW
#define MASK_CHECK_IRQS           ( ( 1u << MASK_CHECK_IRQ_URGENT ) | ( 1u << MASK_CHECK_IRQ_LOW ) )
#define MASK_CHECK_PRIO_URGENT    0x00u
#define MASK_CHECK_PRIO_LOW       0xC0u

static volatile uint32_t runs_urgent;
static volatile uint32_t runs_low;

/* Set by the command, taken by the first reading of probe_clock(). */
static volatile uint8_t armed;

/* What probe_clock() saw inside the section. */
static volatile uint8_t probed;
static volatile uint32_t seen_primask;
static volatile uint32_t seen_runs_urgent;
static volatile uint32_t seen_runs_low;

/* IRQ30 and IRQ31 (vector table in startup.c). */
void MaskCheckUrgent_IRQHandler( void )
{
    runs_urgent = runs_urgent + 1u;
}

void MaskCheckLow_IRQHandler( void )
{
    runs_low = runs_low + 1u;
}

/* The clock given to the library; its first reading after arming is taken inside the
 * library's critical section (see the top of the file). */
static uint32_t probe_clock( void )
{
    if( armed != 0u )
    {
        uint32_t primask;

        armed = 0u;
        __asm volatile ( "mrs %0, primask" : "=r" ( primask ) );
        seen_primask = primask;

        /* Both at once; dsb and isb make the NVIC take what it may before the counts
         * are read (a pended, enabled, unmasked interrupt is taken by then). */
        NVIC_ISPR0 = MASK_CHECK_IRQS;
        __asm volatile ( "dsb\n isb" ::: "memory" );

        seen_runs_urgent = runs_urgent;
        seen_runs_low = runs_low;
        probed = 1u;
    }

    return microbit_cycles();
}

/* 'irqmask', from the shell task (demo.h's port commands). */
void microbit_mask_check_command( int argc, char ** argv )
{
    int32_t status;
    uint32_t after_urgent;
    uint32_t after_low;
    int ok;

    ( void ) argc;
    ( void ) argv;

    NVIC_ICER0 = MASK_CHECK_IRQS;
    NVIC_ICPR0 = MASK_CHECK_IRQS;
    nrf51_nvic_set_priority( MASK_CHECK_IRQ_URGENT, MASK_CHECK_PRIO_URGENT );
    nrf51_nvic_set_priority( MASK_CHECK_IRQ_LOW, MASK_CHECK_PRIO_LOW );
    runs_urgent = 0u;
    runs_low = 0u;
    probed = 0u;
    NVIC_ISER0 = MASK_CHECK_IRQS;
    armed = 1u;

    status = cpu_usage_set_clock( probe_clock, NRF51_HCLK_HZ );

    /* The section is over: the interrupts it held off are taken by the end of this. */
    __asm volatile ( "dsb\n isb" ::: "memory" );
    after_urgent = runs_urgent;
    after_low = runs_low;
    armed = 0u;
    NVIC_ICER0 = MASK_CHECK_IRQS;

    if( ( status != CPU_USAGE_OK ) || ( probed == 0u ) )
    {
        demo_print( "irqmask: FAILED: the library did not read the clock inside its critical section (cpu_usage_set_clock: " );
        demo_print( cpu_usage_status_str( status ) );
        demo_print( ")\n" );
        return;
    }

    demo_print( "irqmask: inside the library's critical section PRIMASK " );
    demo_print_uint( seen_primask & 1u, 0u );
    demo_print( ": IRQ30 (priority 0x00) ran " );
    demo_print_uint( seen_runs_urgent, 0u );
    demo_print( ", IRQ31 (priority 0xc0) ran " );
    demo_print_uint( seen_runs_low, 0u );
    demo_print( "; after it: IRQ30 " );
    demo_print_uint( after_urgent, 0u );
    demo_print( ", IRQ31 " );
    demo_print_uint( after_low, 0u );
    demo_print( "\n" );

    ok = ( ( seen_primask & 1u ) == 1u ) && ( seen_runs_urgent == 0u ) && ( seen_runs_low == 0u ) &&
         ( after_urgent == 1u ) && ( after_low == 1u );
    demo_print( ok ? "irqmask: ok: every priority waits, as in the kernel's critical sections (no BASEPRI on ARMv6-M)\n"
                   : "irqmask: FAILED\n" );
}
