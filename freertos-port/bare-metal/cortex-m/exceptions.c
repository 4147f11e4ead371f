/*
 * exceptions.c - what the Arm boards' start-up files share: the run from reset to
 * main() once the core is ready for C, and the report of an exception nobody expected
 * (a fault, NMI, an IRQ without a handler). Each board keeps its vector table and what
 * its core needs first in its own startup.c (cortex_m.h says how the two meet).
 *
 * The report prints the exception's number and name, the registers the core stacked,
 * the fault status registers where the core has them (ARMv6-M has none: every fault is
 * a HardFault, and the stacked pc is the whole story) and EXC_RETURN on the UART, then
 * ends the QEMU run with BOARD_EXIT_FAULT, so a crash is a clear test failure instead
 * of a hang until the timeout.
 */
#include "board.h"
#include "cortex_m.h"

/* Symbols defined by every Arm board's linker script. */
extern const uint32_t __data_load[];
extern uint32_t __data_start[];
extern uint32_t __data_end[];
extern uint32_t __bss_start[];
extern uint32_t __bss_end[];
extern uint8_t __ram_start[];
extern uint8_t __ram_end[];

int main( void );

void cortex_m_start_c( void )
{
    const uint32_t * src = __data_load;

    for( uint32_t * dst = __data_start; dst < __data_end; )
    {
        *dst++ = *src++;
    }

    for( uint32_t * dst = __bss_start; dst < __bss_end; )
    {
        *dst++ = 0u;
    }

    ( void ) main();
    board_fatal( "main returned", BOARD_EXIT_SCHEDULER_RETURNED );
}

#if defined( __ARM_ARCH_7M__ ) || defined( __ARM_ARCH_7EM__ ) || defined( __ARM_ARCH_8M_MAIN__ )
    #define CORTEX_M_FAULT_STATUS    1
    /* ARMv7-M and ARMv8-M Mainline: the SCB's configurable fault status, hard fault
     * status and fault address registers. */
    #define SCB_CFSR     ( *( volatile uint32_t * ) 0xE000ED28u )
    #define SCB_HFSR     ( *( volatile uint32_t * ) 0xE000ED2Cu )
    #define SCB_MMFAR    ( *( volatile uint32_t * ) 0xE000ED34u )
    #define SCB_BFAR     ( *( volatile uint32_t * ) 0xE000ED38u )
#else
    #define CORTEX_M_FAULT_STATUS    0
#endif

#if defined( __ARM_ARCH_8M_MAIN__ )
    /* ARMv8-M, Secure state: the SecureFault status and address registers. */
    #define SCB_SFSR     ( *( volatile uint32_t * ) 0xE000EDE4u )
    #define SCB_SFAR     ( *( volatile uint32_t * ) 0xE000EDE8u )
#endif

/* IPSR's exception number: 6 bits on ARMv6-M, 9 elsewhere. */
#if defined( __ARM_ARCH_6M__ )
    #define IPSR_EXCEPTION_MASK    0x3Fu
#else
    #define IPSR_EXCEPTION_MASK    0x1FFu
#endif

/* The numbers a core without them (ARMv6-M: 4 to 7 and 12 are reserved) never takes. */
static const char * exception_name( uint32_t number )
{
    switch( number )
    {
        case 2:
            return "NMI";

        case 3:
            return "HardFault";

        case 4:
            return "MemManage";

        case 5:
            return "BusFault";

        case 6:
            return "UsageFault";

        case 7:
            return "SecureFault";

        case 12:
            return "DebugMonitor";

        default:
            return number >= 16u ? "unexpected IRQ" : "unexpected exception";
    }
}

static void put_reg( const char * name, uint32_t value )
{
    board_uart_puts( name );
    board_uart_put_hex( value );
}

void cortex_m_fault_report( const uint32_t * frame, uint32_t exc_return )
{
    uint32_t ipsr;

    __asm volatile ( "mrs %0, ipsr" : "=r" ( ipsr ) );
    ipsr &= IPSR_EXCEPTION_MASK;

    board_uart_puts( "\nFATAL " );
    board_uart_puts( exception_name( ipsr ) );
    board_uart_puts( " (exception " );
    board_uart_put_dec( ipsr );

    if( ipsr >= 16u )
    {
        board_uart_puts( ", IRQ" );
        board_uart_put_dec( ipsr - 16u );
    }

    board_uart_puts( ")\n" );

    /* The frame pointer comes from a stack that may itself be the problem. */
    const uint8_t * f = ( const uint8_t * ) frame;

    if( ( f >= __ram_start ) && ( f + 32 <= __ram_end ) )
    {
        put_reg( "  pc   ", frame[ 6 ] );
        put_reg( "  lr   ", frame[ 5 ] );
        put_reg( "  xpsr ", frame[ 7 ] );
        board_uart_puts( "\n" );
        put_reg( "  r0   ", frame[ 0 ] );
        put_reg( "  r1   ", frame[ 1 ] );
        put_reg( "  r2   ", frame[ 2 ] );
        put_reg( "  r3   ", frame[ 3 ] );
        put_reg( "  r12  ", frame[ 4 ] );
        board_uart_puts( "\n" );
    }
    else
    {
        put_reg( "  stack pointer outside RAM: ", ( uint32_t ) frame );
        board_uart_puts( "\n" );
    }

    #if CORTEX_M_FAULT_STATUS
        put_reg( "  cfsr ", SCB_CFSR );
        put_reg( "  hfsr ", SCB_HFSR );
        put_reg( "  mmfar ", SCB_MMFAR );
        put_reg( "  bfar ", SCB_BFAR );
    #endif
    #if defined( __ARM_ARCH_8M_MAIN__ )
        put_reg( "  sfsr ", SCB_SFSR );
        put_reg( "  sfar ", SCB_SFAR );
    #endif
    put_reg( "  exc_return ", exc_return );
    board_uart_puts( "\n" );

    board_exit( BOARD_EXIT_FAULT );
}
