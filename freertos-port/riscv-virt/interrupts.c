/*
 * interrupts.c - every interrupt and exception the port hands to the board, after the
 * trap entry has saved the task's context and moved to the interrupt stack. Both virt
 * boards build it: riscv-virt, on FreeRTOS's trap handler (portASM.S), and
 * ../riscv-virt-smp, on its own port layer's (port/port.c), where the code for several
 * harts is the #if configNUMBER_OF_CORES > 1 below.
 *
 * What the library sees. The trap entry handles two causes itself, with no trace hook:
 * the environment call a task yields with (a context switch, which the library charges
 * like every switch, from the next task's switch-in), and, with the stock
 * RISCV_MTIME_CLINT_no_extensions chip header, the machine timer. This port uses the
 * RISCV_no_extensions header instead, so the timer comes here too. Everything else
 * reaches freertos_risc_v_application_interrupt_handler() (interrupts) or
 * freertos_risc_v_application_exception_handler() (exceptions), plain C functions
 * called with mstatus.MIE clear (the port does not nest traps), where
 * CPU_USAGE_ISR_ENTER() and portYIELD_FROM_ISR() (or CPU_USAGE_ISR_EXIT()) may
 * bracket the work. Here each interrupt is bracketed as a whole, the PLIC's claim and
 * completion included, so the "interrupts" line holds the tick, the UART, the RTC and,
 * on one hart, the software interrupt of the 'irqmask' check.
 *
 * portYIELD_FROM_ISR() on the kernel's port calls the library's exit and then
 * vTaskSwitchContext() directly: portASM.S restores whichever task is current when
 * the handler returns. The SMP port makes the switch after the handler returns.
 *
 * Several harts: hart 0 takes the tick (its mtimecmp) and the PLIC's context 0 (UART0,
 * the RTC); the other harts take their own machine timer, the pacing timer
 * (../riscv-virt-smp/pacing.c), and no PLIC context. The software interrupt is the
 * SMP port's own (another hart's yield) and never comes here. Any other interrupt is a
 * bug and ends the run.
 */
#include "FreeRTOS.h"
#include "task.h"

#include "riscv_virt.h"

void freertos_risc_v_application_interrupt_handler( uint32_t mcause );
void freertos_risc_v_application_exception_handler( uint32_t mcause );

/* Priority 1 for every source the port enables and threshold 0 on context 0 (hart 0,
 * machine mode): the PLIC passes them all to hart 0, one at a time (no nesting on
 * this port). */
void virt_plic_enable( uint32_t irq )
{
    VIRT_PLIC_PRIORITY( irq ) = 1u;
    VIRT_PLIC_THRESHOLD = 0u;
    VIRT_PLIC_ENABLE0 |= 1u << irq;
}

void virt_plic_disable( uint32_t irq )
{
    VIRT_PLIC_ENABLE0 &= ~( 1u << irq );
}

/* Every source the PLIC has pending, one claim at a time; nonzero if one woke a task. */
static int plic_dispatch( void )
{
    int woken = 0;
    uint32_t irq;

    while( ( irq = VIRT_PLIC_CLAIM ) != 0u )
    {
        switch( irq )
        {
            case VIRT_IRQ_UART0:
                woken |= virt_uart_rx_isr();
                break;

            case VIRT_IRQ_RTC:
                virt_rtc_isr();
                break;

            default:
                /* Not enabled by this port: leave it masked from now on. */
                virt_plic_disable( irq );
                break;
        }

        VIRT_PLIC_CLAIM = irq;
    }

    return woken;
}

void freertos_risc_v_application_interrupt_handler( uint32_t mcause )
{
    BaseType_t woken;
    const uint32_t hart = ( uint32_t ) portGET_CORE_ID(); /* 0 on one hart */

#if ( configNUMBER_OF_CORES > 1 )
    if( ( mcause == MCAUSE_MACHINE_TIMER ) && ( hart != 0u ) )
    {
        /* Not bracketed for the library: no work, and no kernel call. */
        virt_smp_pacing_isr( hart ); /* riscv_virt_smp.h */
        return;
    }
#endif

    CPU_USAGE_ISR_ENTER();

    if( ( mcause == MCAUSE_MACHINE_TIMER ) && ( hart == 0u ) )
    {
        woken = ( BaseType_t ) virt_tick_isr();
    }
    else if( ( mcause == MCAUSE_MACHINE_EXTERNAL ) && ( hart == 0u ) )
    {
        woken = ( BaseType_t ) plic_dispatch();
    }
#if ( configNUMBER_OF_CORES == 1 )
    else if( mcause == MCAUSE_MACHINE_SOFTWARE )
    {
        virt_msip_isr();
        woken = pdFALSE;
    }
#endif
    else
    {
        board_fatal( "unexpected interrupt", BOARD_EXIT_FAULT );
    }

    portYIELD_FROM_ISR( woken );
}

/* Anything but an environment call: a bug. Report where and why (and on which hart,
 * when there are several), then exit. */
void freertos_risc_v_application_exception_handler( uint32_t mcause )
{
    uint32_t mepc = VIRT_CSR_READ( mepc );
    uint32_t mtval = VIRT_CSR_READ( mtval );

    board_uart_puts( "\nFATAL exception" );
#if ( configNUMBER_OF_CORES > 1 )
    board_uart_puts( " on hart " );
    board_uart_put_dec( ( uint32_t ) portGET_CORE_ID() );
#endif
    board_uart_puts( ": mcause " );
    board_uart_put_hex( mcause );
    board_uart_puts( " mepc " );
    board_uart_put_hex( mepc );
    board_uart_puts( " mtval " );
    board_uart_put_hex( mtval );
    board_uart_puts( "\n" );
    board_exit( BOARD_EXIT_FAULT );
}
