/*
 * mask_check.c - the shell command 'irqmask' of the Arm boards: which interrupts the
 * library's critical section holds off on this core. tests/tests/e2e_qemu.rs runs it.
 *
 * Expected, as in the kernel's own critical sections:
 * - with BASEPRI (ARMv7-M, ARMv8-M Mainline: mps2-an385's Cortex-M3, mps2-an505's
 *   M33): those at or below configMAX_SYSCALL_INTERRUPT_PRIORITY, and none above it
 *   (BASEPRI, not PRIMASK);
 * - without (ARMv6-M: microbit's Cortex-M0): every priority (PRIMASK).
 *
 * Inside the section (../mask_probe.c gets there, through the clock),
 * board_mask_probe_inside() pends the board's two spare IRQs at once through the NVIC
 * and records which of them ran before it returned: with BASEPRI one a priority level
 * above configMAX_SYSCALL_INTERRUPT_PRIORITY and one at it, without one at the most
 * urgent priority and one at the least. After the library releases the section, both
 * must have run. The board names the two IRQs (cortex_m.h, board_mask_check_irqs) and
 * gives the clock (board_mask_probe_clock()).
 */
#include "board.h"
#include "cortex_m.h"
#include "demo.h"

#include "FreeRTOS.h"

#if defined( __ARM_ARCH_6M__ ) || defined( __ARM_ARCH_8M_BASE__ )
    #define MASK_CHECK_BASEPRI    0
    /* The most urgent priority and the least of ARMv6-M's four levels. */
    #define MASK_CHECK_PRIO_FIRST     0x00u
    #define MASK_CHECK_PRIO_SECOND    0xC0u
#else
    #define MASK_CHECK_BASEPRI    1
    /* One implemented priority level more urgent than the kernel's mask (0x80 with 3
     * bits), and the mask itself (0xA0): the most urgent priority the kernel holds
     * off. */
    #define MASK_CHECK_LEVEL_STEP     ( 1u << ( 8u - configPRIO_BITS ) )
    #define MASK_CHECK_PRIO_FIRST     ( configMAX_SYSCALL_INTERRUPT_PRIORITY - MASK_CHECK_LEVEL_STEP )
    #define MASK_CHECK_PRIO_SECOND    ( configMAX_SYSCALL_INTERRUPT_PRIORITY )

    _Static_assert( configMAX_SYSCALL_INTERRUPT_PRIORITY >= MASK_CHECK_LEVEL_STEP,
                    "the check needs a priority level above configMAX_SYSCALL_INTERRUPT_PRIORITY" );
#endif

static volatile uint32_t runs_first;
static volatile uint32_t runs_second;

/* What board_mask_probe_inside() saw inside the section. */
static volatile uint32_t seen_basepri;
static volatile uint32_t seen_primask;
static volatile uint32_t seen_runs_first;
static volatile uint32_t seen_runs_second;

static uint32_t mask_check_irqs( void )
{
    return ( 1u << board_mask_check_irqs.first ) | ( 1u << board_mask_check_irqs.second );
}

/* The two spare IRQs (the board's vector table). The first may be above the kernel's
 * priority: it must not call the kernel or the library, and neither does. */
void MaskCheckFirst_Handler( void )
{
    runs_first = runs_first + 1u;
}

void MaskCheckSecond_Handler( void )
{
    runs_second = runs_second + 1u;
}

/* board.h: once, inside the library's critical section (../mask_probe.c). */
void board_mask_probe_inside( void )
{
    uint32_t primask;

    #if ( MASK_CHECK_BASEPRI == 1 )
    {
        uint32_t basepri;

        __asm volatile ( "mrs %0, basepri" : "=r" ( basepri ) );
        seen_basepri = basepri;
    }
    #endif
    __asm volatile ( "mrs %0, primask" : "=r" ( primask ) );
    seen_primask = primask;

    /* Both at once; dsb and isb make the NVIC take what it may before the counts are
     * read (a pended, enabled, unmasked interrupt is taken by then). */
    CORTEX_M_NVIC_ISPR0 = mask_check_irqs();
    __asm volatile ( "dsb\n isb" ::: "memory" );

    seen_runs_first = runs_first;
    seen_runs_second = runs_second;
}

static void print_hex8( uint32_t value )
{
    static const char digits[] = "0123456789abcdef";
    char text[ 5 ] = { '0', 'x', digits[ ( value >> 4 ) & 0xFu ], digits[ value & 0xFu ], '\0' };

    demo_print( text );
}

/* 'irqmask', from the shell task (demo.h's port commands). */
void board_mask_check_command( int argc, char ** argv )
{
    int32_t status;
    int probed;
    uint32_t after_first;
    uint32_t after_second;
    int ok;

    ( void ) argc;
    ( void ) argv;

    CORTEX_M_NVIC_ICER0 = mask_check_irqs();
    CORTEX_M_NVIC_ICPR0 = mask_check_irqs();
    cortex_m_nvic_set_priority( board_mask_check_irqs.first, MASK_CHECK_PRIO_FIRST );
    cortex_m_nvic_set_priority( board_mask_check_irqs.second, MASK_CHECK_PRIO_SECOND );
    runs_first = 0u;
    runs_second = 0u;
    CORTEX_M_NVIC_ISER0 = mask_check_irqs();

    probed = board_mask_probe( &status );

    /* The section is over: the interrupts it held off are taken by the end of this. */
    __asm volatile ( "dsb\n isb" ::: "memory" );
    after_first = runs_first;
    after_second = runs_second;
    CORTEX_M_NVIC_ICER0 = mask_check_irqs();

    if( probed == 0 )
    {
        board_mask_probe_failed( status );
        return;
    }

    demo_print( "irqmask: inside the library's critical section " );
    #if ( MASK_CHECK_BASEPRI == 1 )
        demo_print( "BASEPRI " );
        print_hex8( seen_basepri );
        demo_print( " " );
    #endif
    demo_print( "PRIMASK " );
    demo_print_uint( seen_primask & 1u, 0u );
    demo_print( ": IRQ" );
    demo_print_uint( board_mask_check_irqs.first, 0u );
    demo_print( " (priority " );
    print_hex8( MASK_CHECK_PRIO_FIRST );
    demo_print( ") ran " );
    demo_print_uint( seen_runs_first, 0u );
    demo_print( ", IRQ" );
    demo_print_uint( board_mask_check_irqs.second, 0u );
    demo_print( " (priority " );
    print_hex8( MASK_CHECK_PRIO_SECOND );
    demo_print( ") ran " );
    demo_print_uint( seen_runs_second, 0u );
    demo_print( "; after it: IRQ" );
    demo_print_uint( board_mask_check_irqs.first, 0u );
    demo_print( " " );
    demo_print_uint( after_first, 0u );
    demo_print( ", IRQ" );
    demo_print_uint( board_mask_check_irqs.second, 0u );
    demo_print( " " );
    demo_print_uint( after_second, 0u );
    demo_print( "\n" );

    #if ( MASK_CHECK_BASEPRI == 1 )
        ok = ( seen_runs_first == 1u ) && ( seen_runs_second == 0u ) && ( after_first == 1u ) && ( after_second == 1u );
        demo_print( ok ? "irqmask: ok: priorities above configMAX_SYSCALL_INTERRUPT_PRIORITY run, the others wait\n"
                       : "irqmask: FAILED\n" );
    #else
        ok = ( ( seen_primask & 1u ) == 1u ) && ( seen_runs_first == 0u ) && ( seen_runs_second == 0u ) &&
             ( after_first == 1u ) && ( after_second == 1u );
        demo_print( ok ? "irqmask: ok: every priority waits, as in the kernel's critical sections (no BASEPRI on ARMv6-M)\n"
                       : "irqmask: FAILED\n" );
    #endif
}
