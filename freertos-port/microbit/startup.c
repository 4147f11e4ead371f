/*
 * startup.c - vector table, reset and fault handlers for QEMU's microbit (nRF51822,
 * Cortex-M0).
 *
 * QEMU loads the ELF into the flash and starts the core from the table at address 0
 * (initial SP, then the reset vector), like the hardware. The kernel's ARM_CM0 port
 * names its handlers after the exceptions (SVC_Handler, PendSV_Handler,
 * SysTick_Handler) and checks at scheduler start that the table holds the first two.
 *
 * Any exception that is not expected (HardFault, NMI, an IRQ without a handler) goes
 * to the Arm boards' fault report (../bare-metal/cortex-m/exceptions.c): the exception
 * number and the stacked registers on the UART, then the end of the QEMU run with
 * BOARD_EXIT_FAULT.
 */
#include "nrf51.h"

/* Symbols defined by microbit.ld. */
extern uint32_t __stack_top[];
extern uint32_t __stack_limit[];

void Reset_Handler( void ) __attribute__( ( noreturn ) );

/* Kernel handlers (FreeRTOS portable/GCC/ARM_CM0) and ours. */
void SVC_Handler( void );
void PendSV_Handler( void );
void SysTick_Handler( void );
void UART0_IRQHandler( void ); /* uart.c */

/* Every exception the table does not expect: the fault report. */
CORTEX_M_FAULT_ENTRY( fault_entry )

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
    uint32_t sp;

    __asm volatile ( "mov %0, sp" : "=r" ( sp ) );

    for( uint32_t * p = __stack_limit; ( uint32_t ) p < sp - MAIN_STACK_PAINT_SPARE; p++ )
    {
        *p = MAIN_STACK_PAINT;
    }

    cortex_m_start_c();
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
