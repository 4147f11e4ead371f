/*
 * startup.c - vector table, reset and fault handlers for QEMU's microbit (nRF51822,
 * Cortex-M0).
 *
 * QEMU loads the ELF into the flash and starts the core from the table at address 0
 * (initial SP, then the reset vector), like the hardware. The kernel's ARM_CM0 port
 * names its handlers after the exceptions (SVC_Handler, PendSV_Handler,
 * SysTick_Handler) and checks at scheduler start that the table holds the first two.
 *
 * Any exception that is not expected (HardFault, NMI, an IRQ without a handler) prints
 * the exception number and the stacked registers on the UART, then ends the QEMU run
 * with BOARD_EXIT_FAULT, so a crash is a clear test failure instead of a hang until the
 * timeout. ARMv6-M has no fault status registers: every fault is a HardFault, and the
 * stacked pc is the whole story.
 */
#include "nrf51.h"

/* Symbols defined by microbit.ld. */
extern uint32_t __stack_top[];
extern const uint32_t __data_load[];
extern uint32_t __data_start[];
extern uint32_t __data_end[];
extern uint32_t __bss_start[];
extern uint32_t __bss_end[];
extern uint32_t __stack_limit[];
extern uint8_t __ram_start[];
extern uint8_t __ram_end[];

int main( void );
void Reset_Handler( void ) __attribute__( ( noreturn ) );
void microbit_fault_report( const uint32_t * frame, uint32_t exc_return ) __attribute__( ( noreturn, used ) );

/* Kernel handlers (FreeRTOS portable/GCC/ARM_CM0) and ours. */
void SVC_Handler( void );
void PendSV_Handler( void );
void SysTick_Handler( void );
void UART0_IRQHandler( void ); /* uart.c */

/* Hands the stacked exception frame (on whichever stack was in use) and the
 * EXC_RETURN value to microbit_fault_report. Thumb-1 only: no IT blocks, and a branch
 * through a register, which reaches anywhere. */
static void fault_entry( void ) __attribute__( ( naked ) );
static void fault_entry( void )
{
    __asm volatile (
        "   movs  r0, #4                \n"
        "   mov   r1, lr                \n"
        "   tst   r0, r1                \n"
        "   bne   1f                    \n"
        "   mrs   r0, msp               \n"
        "   b     2f                    \n"
        "1: mrs   r0, psp               \n"
        "2: ldr   r2, =microbit_fault_report \n"
        "   bx    r2                    \n"
        "   .ltorg                      \n"
    );
}

/* The demo's own interrupt sources, weak: an image without irq_load.c and
 * mask_check.c (snapshot.elf) reports those IRQs as unexpected, like any other. */
void TIMER0_IRQHandler( void ) __attribute__( ( weak, alias( "fault_entry" ) ) );           /* irq_load.c */
void MaskCheckFirst_Handler( void ) __attribute__( ( weak, alias( "fault_entry" ) ) );  /* ../bare-metal/cortex-m/mask_check.c */
void MaskCheckSecond_Handler( void ) __attribute__( ( weak, alias( "fault_entry" ) ) ); /* ../bare-metal/cortex-m/mask_check.c */

struct vector_table
{
    uint32_t * initial_sp;
    void ( * system[ 15 ] )( void );                   /* exceptions 1..15 */
    void ( * irq[ NRF51_EXTERNAL_IRQS ] )( void );     /* exceptions 16.. */
};

__attribute__( ( section( ".vectors" ), used ) )
const struct vector_table microbit_vector_table =
{
    .initial_sp = __stack_top,
    .system     =
    {
        Reset_Handler,      /*  1 Reset */
        fault_entry,        /*  2 NMI */
        fault_entry,        /*  3 HardFault */
        0, 0, 0, 0, 0, 0, 0, /*  4..10 reserved on ARMv6-M */
        SVC_Handler,        /* 11 SVCall: starts the first task */
        0, 0,               /* 12..13 reserved */
        PendSV_Handler,     /* 14 PendSV: context switch */
        SysTick_Handler,    /* 15 SysTick: the kernel tick */
    },
    .irq =
    {
        [ 0 ... NRF51_IRQ_UART0 - 1u ] = fault_entry,
        [ NRF51_IRQ_UART0 ] = UART0_IRQHandler,
        [ NRF51_IRQ_UART0 + 1u ... NRF51_IRQ_TIMER0 - 1u ] = fault_entry,
        [ NRF51_IRQ_TIMER0 ] = TIMER0_IRQHandler,
        [ NRF51_IRQ_TIMER0 + 1u ... NRF51_IRQ_MASK_CHECK_URGENT - 1u ] = fault_entry,
        [ NRF51_IRQ_MASK_CHECK_URGENT ] = MaskCheckFirst_Handler,
        [ NRF51_IRQ_MASK_CHECK_LOW ] = MaskCheckSecond_Handler,
    },
};
_Static_assert( ( NRF51_IRQ_UART0 > 0u ) && ( NRF51_IRQ_TIMER0 > NRF51_IRQ_UART0 + 1u ) &&
                ( NRF51_IRQ_MASK_CHECK_URGENT > NRF51_IRQ_TIMER0 + 1u ) &&
                ( NRF51_IRQ_MASK_CHECK_LOW == NRF51_IRQ_MASK_CHECK_URGENT + 1u ) &&
                ( NRF51_IRQ_MASK_CHECK_LOW == NRF51_EXTERNAL_IRQS - 1u ),
                "the IRQ table above assumes 0 < UART0 < TIMER0 - 1 < mask check's two = the last two" );

/* The two IRQs of 'irqmask' (../bare-metal/cortex-m/mask_check.c), which the table
 * sends to its handlers. No device of QEMU's nRF51 model drives them. */
const CortexMMaskCheckIrqs_t board_mask_check_irqs = { NRF51_IRQ_MASK_CHECK_URGENT, NRF51_IRQ_MASK_CHECK_LOW };

/* Paints the main stack below the reset handler's frame, so that 'mem' (commands.c)
 * can tell how deep it has ever been. */
#define MAIN_STACK_PAINT         0xA5A5A5A5u
#define MAIN_STACK_PAINT_SPARE   64u /* bytes left alone under the current SP */

void Reset_Handler( void )
{
    const uint32_t * src = __data_load;
    uint32_t sp;

    __asm volatile ( "mov %0, sp" : "=r" ( sp ) );

    for( uint32_t * p = __stack_limit; ( uint32_t ) p < sp - MAIN_STACK_PAINT_SPARE; p++ )
    {
        *p = MAIN_STACK_PAINT;
    }

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

uint32_t microbit_main_stack_unused( void )
{
    const uint32_t * p = __stack_limit;

    while( ( p < __stack_top ) && ( *p == MAIN_STACK_PAINT ) )
    {
        p++;
    }

    return ( uint32_t ) ( ( const uint8_t * ) p - ( const uint8_t * ) __stack_limit );
}

/* board.h: what every image sets up first: the console, and port_time_us()'s timer. */
void board_init( void )
{
    board_uart_init();
    microbit_clock_init();
}

static void put_reg( const char * name, uint32_t value )
{
    board_uart_puts( name );
    board_uart_put_hex( value );
}

void microbit_fault_report( const uint32_t * frame, uint32_t exc_return )
{
    uint32_t ipsr;

    __asm volatile ( "mrs %0, ipsr" : "=r" ( ipsr ) );
    ipsr &= 0x3Fu;

    board_uart_puts( "\nFATAL " );
    board_uart_puts( ( ipsr == 2u ) ? "NMI" : ( ipsr == 3u ) ? "HardFault" :
                     ( ipsr >= 16u ) ? "unexpected IRQ" : "unexpected exception" );
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

    put_reg( "  exc_return ", exc_return );
    board_uart_puts( "\n" );

    board_exit( BOARD_EXIT_FAULT );
}
