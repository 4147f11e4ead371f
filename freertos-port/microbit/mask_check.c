/*
 * mask_check.c - the shell command 'irqmask': which interrupts the library's critical
 * section holds off on this Cortex-M0. ARMv6-M has no BASEPRI, and FreeRTOS's ARM_CM0
 * port masks every interrupt in its critical sections (PRIMASK); the library must do
 * the same, whatever the priority: expected, none runs inside the section, all run
 * after it. tests/tests/e2e_qemu.rs runs it; mps2-an385's mask_check.c is the
 * Cortex-M3 counterpart, where the levels above the kernel's mask must run.
 *
 * Inside the section (../bare-metal/mask_probe.c gets there, through the clock, as on
 * mps2-an385), board_mask_probe_inside() pends two spare IRQs through the NVIC, one at
 * the most urgent priority (0x00) and one at the least (0xC0), and records which of
 * them ran before it returned. The clock is TIMER2 counting the same 16 MHz (clock.c),
 * named "custom" from then on.
 */
#include "demo.h"
#include "nrf51.h"

#include "FreeRTOS.h"

/* No device of QEMU's nRF51 model drives IRQ30 or IRQ31: only this file pends them. */
#define MASK_CHECK_IRQ_URGENT     NRF51_IRQ_MASK_CHECK_URGENT
#define MASK_CHECK_IRQ_LOW        NRF51_IRQ_MASK_CHECK_LOW
#define MASK_CHECK_IRQS           ( ( 1u << MASK_CHECK_IRQ_URGENT ) | ( 1u << MASK_CHECK_IRQ_LOW ) )
#define MASK_CHECK_PRIO_URGENT    0x00u
#define MASK_CHECK_PRIO_LOW       0xC0u

_Static_assert( configCPU_CLOCK_HZ == NRF51_HCLK_HZ, "the probe's clock, TIMER2, counts at configCPU_CLOCK_HZ" );

static volatile uint32_t runs_urgent;
static volatile uint32_t runs_low;

/* What board_mask_probe_inside() saw inside the section. */
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

/* board.h: once, inside the library's critical section (../bare-metal/mask_probe.c). */
void board_mask_probe_inside( void )
{
    uint32_t primask;

    __asm volatile ( "mrs %0, primask" : "=r" ( primask ) );
    seen_primask = primask;

    /* Both at once; dsb and isb make the NVIC take what it may before the counts are
     * read (a pended, enabled, unmasked interrupt is taken by then). */
    NVIC_ISPR0 = MASK_CHECK_IRQS;
    __asm volatile ( "dsb\n isb" ::: "memory" );

    seen_runs_urgent = runs_urgent;
    seen_runs_low = runs_low;
}

/* board.h: the library's clock from the probe on. */
uint32_t board_mask_probe_clock( void )
{
    return microbit_cycles();
}

/* 'irqmask', from the shell task (demo.h's port commands). */
void microbit_mask_check_command( int argc, char ** argv )
{
    int32_t status;
    int probed;
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
    NVIC_ISER0 = MASK_CHECK_IRQS;

    probed = board_mask_probe( &status );

    /* The section is over: the interrupts it held off are taken by the end of this. */
    __asm volatile ( "dsb\n isb" ::: "memory" );
    after_urgent = runs_urgent;
    after_low = runs_low;
    NVIC_ICER0 = MASK_CHECK_IRQS;

    if( probed == 0 )
    {
        board_mask_probe_failed( status );
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
