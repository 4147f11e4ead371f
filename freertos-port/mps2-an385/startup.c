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
 * Any exception that is not expected (faults, NMI, an IRQ without a handler) goes to
 * the Arm boards' fault report (../bare-metal/cortex-m/exceptions.c): the exception
 * number, the stacked registers and the fault status registers on UART0, then the end
 * of the QEMU run with BOARD_EXIT_FAULT.
 */
#include "mps2_an385.h"

/* Symbols defined by the board's linker script (mps2-sections.ld). */
extern uint32_t __stack_top[];
extern uint32_t __stack_limit[];

void Reset_Handler( void ) __attribute__( ( noreturn ) );

/* Kernel handlers (the FreeRTOS port's port.c or portasm.c) and ours. */
void MPS2_KERNEL_SVC_HANDLER( void );
void MPS2_KERNEL_PENDSV_HANDLER( void );
void UART0RX_Handler( void ); /* uart.c */

/* Every exception the table does not expect: the fault report. */
CORTEX_M_FAULT_ENTRY( fault_entry )

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

    cortex_m_start_c();
}

/* board.h: what every image sets up first. The clock (clock.c) needs nothing before
 * the scheduler starts the SysTick. */
void board_init( void )
{
    board_uart_init();
}
