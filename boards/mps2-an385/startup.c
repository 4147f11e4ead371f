/*
 * startup.c - vector table, reset and fault handlers for the MPS2 boards (Cortex-M3
 * on mps2-an385, Cortex-M33 on mps2-an505).
 *
 * QEMU loads the ELF and starts the core from the table the linker script puts at the
 * start of code memory (initial SP, then the reset vector), like the hardware: 0x0 on
 * mps2-an385, the Secure alias 0x10000000 on mps2-an505 (its initial Secure VTOR). C
 * is enough for all of it: the M-profile core stacks the caller-saved registers itself
 * on exception entry. The board header (mps2_board.h) gives the IRQ numbers and the
 * kernel port's handler names.
 *
 * Any exception that is not expected (faults, NMI, an IRQ without a handler) prints
 * the exception number, the stacked registers and the fault status registers on
 * UART0, then ends the QEMU run with BOARD_EXIT_FAULT, so a crash is a clear test
 * failure instead of a hang until the timeout.
 */
#include "mps2_an385.h"

/* Symbols defined by the board's linker script (mps2-sections.ld). */
extern uint32_t __stack_top[];
extern uint32_t __stack_limit[];
extern const uint32_t __data_load[];
extern uint32_t __data_start[];
extern uint32_t __data_end[];
extern uint32_t __bss_start[];
extern uint32_t __bss_end[];
extern uint8_t __ram_start[];
extern uint8_t __ram_end[];

int main( void );
void Reset_Handler( void ) __attribute__( ( noreturn ) );
void mps2_fault_report( const uint32_t * frame, uint32_t exc_return ) __attribute__( ( noreturn, used ) );

/* Kernel handlers (the FreeRTOS port's port.c or portasm.c) and ours. */
void MPS2_KERNEL_SVC_HANDLER( void );
void MPS2_KERNEL_PENDSV_HANDLER( void );
void UART0RX_Handler( void ); /* uart.c */

/* Hands the stacked exception frame (on whichever stack was in use) and the
 * EXC_RETURN value to mps2_fault_report. */
static void fault_entry( void ) __attribute__( ( naked ) );
static void fault_entry( void )
{
    __asm volatile (
        "   tst   lr, #4                \n"
        "   ite   eq                    \n"
        "   mrseq r0, msp               \n"
        "   mrsne r0, psp               \n"
        "   mov   r1, lr                \n"
        "   b     mps2_fault_report     \n"
    );
}

/* The demo's own interrupt sources, weak: an image without irq_load.c and
 * mask_check.c (snapshot.elf) reports those IRQs as unexpected, like any other. */
void TIMER0_Handler( void ) __attribute__( ( weak, alias( "fault_entry" ) ) );         /* irq_load.c */
void MaskCheckFirst_Handler( void ) __attribute__( ( weak, alias( "fault_entry" ) ) );  /* ../bare-metal/cortex-m/mask_check.c */
void MaskCheckSecond_Handler( void ) __attribute__( ( weak, alias( "fault_entry" ) ) ); /* ../bare-metal/cortex-m/mask_check.c */

struct vector_table
{
    uint32_t * initial_sp;
    void ( * system[ 15 ] )( void );                   /* exceptions 1..15 */
    void ( * irq[ MPS2_EXTERNAL_IRQS ] )( void );      /* exceptions 16.. */
};

/* In .irq below, of two initializers for one element the last wins (C11 6.7.9),
 * which is what GCC's -Woverride-init (in -Wextra) warns about: the boards number
 * their devices in different orders, so ranges between them would not fit both. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverride-init"
__attribute__( ( section( ".vectors" ), used ) )
const struct vector_table mps2_vector_table =
{
    .initial_sp = __stack_top,
    .system     =
    {
        Reset_Handler,      /*  1 Reset */
        fault_entry,        /*  2 NMI */
        fault_entry,        /*  3 HardFault */
        fault_entry,        /*  4 MemManage */
        fault_entry,        /*  5 BusFault */
        fault_entry,        /*  6 UsageFault */
        fault_entry,        /*  7 SecureFault (ARMv8-M; reserved on ARMv7-M) */
        0, 0, 0,            /*  8..10 reserved */
        MPS2_KERNEL_SVC_HANDLER,    /* 11 SVCall: starts the first task */
        fault_entry,                /* 12 DebugMonitor */
        0,                          /* 13 reserved */
        MPS2_KERNEL_PENDSV_HANDLER, /* 14 PendSV: context switch */
        mps2_systick_handler,       /* 15 SysTick: clock.c, then the kernel's tick */
    },
    /* Every IRQ goes to the fault report, except the board's few, which come after
     * and take their own entries. */
    .irq =
    {
        [ 0 ... MPS2_EXTERNAL_IRQS - 1u ] = fault_entry,
        [ MPS2_IRQ_UART0_RX ] = UART0RX_Handler,
        [ MPS2_IRQ_TIMER0 ] = TIMER0_Handler,
        [ MPS2_IRQ_MASK_CHECK_ABOVE ] = MaskCheckFirst_Handler,
        [ MPS2_IRQ_MASK_CHECK_AT ] = MaskCheckSecond_Handler,
    },
};
#pragma GCC diagnostic pop
_Static_assert( ( MPS2_IRQ_UART0_RX < MPS2_EXTERNAL_IRQS ) && ( MPS2_IRQ_TIMER0 < MPS2_EXTERNAL_IRQS ) &&
                ( MPS2_IRQ_MASK_CHECK_ABOVE < MPS2_EXTERNAL_IRQS ) && ( MPS2_IRQ_MASK_CHECK_AT < MPS2_EXTERNAL_IRQS ),
                "an IRQ of the board is past the end of the vector table" );

/* The two IRQs of 'irqmask' (../bare-metal/cortex-m/mask_check.c), which the table
 * sends to its handlers. No device of the board's QEMU model drives them. */
const CortexMMaskCheckIrqs_t board_mask_check_irqs = { MPS2_IRQ_MASK_CHECK_ABOVE, MPS2_IRQ_MASK_CHECK_AT };
_Static_assert( ( MPS2_IRQ_MASK_CHECK_ABOVE < 32u ) && ( MPS2_IRQ_MASK_CHECK_AT < 32u ),
                "the mask check's IRQs are in the NVIC's first 32" );

void Reset_Handler( void )
{
    const uint32_t * src = __data_load;

    #if defined( __ARM_ARCH_8M_MAIN__ )
        /* ARMv8-M checks the main stack against a limit of its own: an overflow of
         * the interrupts' stack faults instead of running into .bss. */
        __asm volatile ( "msr msplim, %0" : : "r" ( __stack_limit ) );
    #endif

    #if defined( __ARM_FP )
        /* Built for the FPU (-mfloat-abi=hard): the compiler may use its registers
         * anywhere, from the first C statement on, so give access to it before
         * anything else runs. The kernel sets its lazy stacking when it starts. */
        SCB_CPACR |= SCB_CPACR_CP10_CP11_FULL;
        __asm volatile ( "dsb\n isb" ::: "memory" );
    #endif

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

/* board.h: what every image sets up first. The clock (clock.c) needs nothing before
 * the scheduler starts the SysTick. */
void board_init( void )
{
    board_uart_init();
}

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

void mps2_fault_report( const uint32_t * frame, uint32_t exc_return )
{
    uint32_t ipsr;

    __asm volatile ( "mrs %0, ipsr" : "=r" ( ipsr ) );
    ipsr &= 0x1FFu;

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

    put_reg( "  cfsr ", SCB_CFSR );
    put_reg( "  hfsr ", SCB_HFSR );
    put_reg( "  mmfar ", SCB_MMFAR );
    put_reg( "  bfar ", SCB_BFAR );
    #if defined( __ARM_ARCH_8M_MAIN__ )
        put_reg( "  sfsr ", SCB_SFSR );
        put_reg( "  sfar ", SCB_SFAR );
    #endif
    put_reg( "  exc_return ", exc_return );
    board_uart_puts( "\n" );

    board_exit( BOARD_EXIT_FAULT );
}
