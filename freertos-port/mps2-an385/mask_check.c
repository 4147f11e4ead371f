/*
 * mask_check.c - the shell command 'irqmask': which interrupts the library's critical
 * section holds off on this core (a Cortex-M3 or M33: both have BASEPRI). Expected:
 * those at or below configMAX_SYSCALL_INTERRUPT_PRIORITY, as the kernel's own critical
 * sections do, and none above it (BASEPRI, not PRIMASK). tests/tests/e2e_qemu.rs
 * runs it.
 *
 * Inside the section (../bare-metal/mask_probe.c gets there, through the clock),
 * board_mask_probe_inside() pends two spare IRQs at once through the NVIC, one a
 * priority level above configMAX_SYSCALL_INTERRUPT_PRIORITY and one at it, and records
 * which of them ran before it returned. After the library releases the section, the
 * second one must run too. The clock is the same cycle count as the default one,
 * mps2_clock_cycles(), named "custom" from then on.
 */
#include "demo.h"
#include "mps2_an385.h"

#include "FreeRTOS.h"

/* No device of the board's QEMU model drives these two (mps2_board.h): only this file
 * pends them. */
#define MASK_CHECK_IRQ_ABOVE      MPS2_IRQ_MASK_CHECK_ABOVE
#define MASK_CHECK_IRQ_AT         MPS2_IRQ_MASK_CHECK_AT
#define MASK_CHECK_IRQS           ( ( 1u << MASK_CHECK_IRQ_ABOVE ) | ( 1u << MASK_CHECK_IRQ_AT ) )

/* One implemented priority level more urgent than the kernel's mask (0x80 with 3 bits),
 * and the mask itself (0xA0): the most urgent priority the kernel holds off. */
#define MASK_CHECK_LEVEL_STEP     ( 1u << ( 8u - configPRIO_BITS ) )
#define MASK_CHECK_PRIO_ABOVE     ( configMAX_SYSCALL_INTERRUPT_PRIORITY - MASK_CHECK_LEVEL_STEP )
#define MASK_CHECK_PRIO_AT        ( configMAX_SYSCALL_INTERRUPT_PRIORITY )

_Static_assert( configMAX_SYSCALL_INTERRUPT_PRIORITY >= MASK_CHECK_LEVEL_STEP,
                "the check needs a priority level above configMAX_SYSCALL_INTERRUPT_PRIORITY" );
_Static_assert( MASK_CHECK_IRQ_AT < 32u, "IRQ30 and IRQ31 are in NVIC_ISPR0" );

static volatile uint32_t runs_above;
static volatile uint32_t runs_at;

/* What board_mask_probe_inside() saw inside the section. */
static volatile uint32_t seen_basepri;
static volatile uint32_t seen_primask;
static volatile uint32_t seen_runs_above;
static volatile uint32_t seen_runs_at;

/* IRQ30 and IRQ31 (vector table in startup.c). The one above the kernel's priority
 * must not call the kernel or the library, and neither does. */
void MaskCheckAbove_Handler( void )
{
    runs_above = runs_above + 1u;
}

void MaskCheckAt_Handler( void )
{
    runs_at = runs_at + 1u;
}

/* board.h: once, inside the library's critical section (../bare-metal/mask_probe.c). */
void board_mask_probe_inside( void )
{
    uint32_t basepri;
    uint32_t primask;

    __asm volatile ( "mrs %0, basepri" : "=r" ( basepri ) );
    __asm volatile ( "mrs %0, primask" : "=r" ( primask ) );
    seen_basepri = basepri;
    seen_primask = primask;

    /* Both at once; dsb and isb make the NVIC take what it may before the counts are
     * read (ARMv7-M: a pended, enabled, unmasked interrupt is taken by then). */
    NVIC_ISPR0 = MASK_CHECK_IRQS;
    __asm volatile ( "dsb\n isb" ::: "memory" );

    seen_runs_above = runs_above;
    seen_runs_at = runs_at;
}

/* board.h: the library's clock from the probe on. */
uint32_t board_mask_probe_clock( void )
{
    return ( uint32_t ) mps2_clock_cycles();
}

static void print_hex8( uint32_t value )
{
    static const char digits[] = "0123456789abcdef";
    char text[ 5 ] = { '0', 'x', digits[ ( value >> 4 ) & 0xFu ], digits[ value & 0xFu ], '\0' };

    demo_print( text );
}

/* 'irqmask', from the shell task (demo.h's port commands). */
void mps2_mask_check_command( int argc, char ** argv )
{
    int32_t status;
    int probed;
    uint32_t after_above;
    uint32_t after_at;
    int ok;

    ( void ) argc;
    ( void ) argv;

    NVIC_ICER0 = MASK_CHECK_IRQS;
    NVIC_ICPR0 = MASK_CHECK_IRQS;
    NVIC_IPR_BYTE( MASK_CHECK_IRQ_ABOVE ) = ( uint8_t ) MASK_CHECK_PRIO_ABOVE;
    NVIC_IPR_BYTE( MASK_CHECK_IRQ_AT ) = ( uint8_t ) MASK_CHECK_PRIO_AT;
    runs_above = 0u;
    runs_at = 0u;
    NVIC_ISER0 = MASK_CHECK_IRQS;

    probed = board_mask_probe( &status );

    /* The section is over: the interrupt it held off is taken by the end of this. */
    __asm volatile ( "dsb\n isb" ::: "memory" );
    after_above = runs_above;
    after_at = runs_at;
    NVIC_ICER0 = MASK_CHECK_IRQS;

    if( probed == 0 )
    {
        board_mask_probe_failed( status );
        return;
    }

    demo_print( "irqmask: inside the library's critical section BASEPRI " );
    print_hex8( seen_basepri );
    demo_print( " PRIMASK " );
    demo_print_uint( seen_primask & 1u, 0u );
    demo_print( ": IRQ30 (priority " );
    print_hex8( MASK_CHECK_PRIO_ABOVE );
    demo_print( ") ran " );
    demo_print_uint( seen_runs_above, 0u );
    demo_print( ", IRQ31 (priority " );
    print_hex8( MASK_CHECK_PRIO_AT );
    demo_print( ") ran " );
    demo_print_uint( seen_runs_at, 0u );
    demo_print( "; after it: IRQ30 " );
    demo_print_uint( after_above, 0u );
    demo_print( ", IRQ31 " );
    demo_print_uint( after_at, 0u );
    demo_print( "\n" );

    ok = ( seen_runs_above == 1u ) && ( seen_runs_at == 0u ) && ( after_above == 1u ) && ( after_at == 1u );
    demo_print( ok ? "irqmask: ok: priorities above configMAX_SYSCALL_INTERRUPT_PRIORITY run, the others wait\n"
                   : "irqmask: FAILED\n" );
}
