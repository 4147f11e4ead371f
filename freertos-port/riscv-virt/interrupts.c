/*
 * interrupts.c - every interrupt and exception the port takes, after FreeRTOS's trap
 * handler (portASM.S) has saved the task's context and moved to the interrupt stack.
 *
 * What the library sees. portASM.S handles two causes itself, with no trace hook: the
 * environment call a task yields with (a context switch, which the library charges
 * like every switch, from the next task's switch-in), and, with the stock
 * RISCV_MTIME_CLINT_no_extensions chip header, the machine timer. This port uses the
 * RISCV_no_extensions header instead, so the timer comes here too. Everything else
 * reaches freertos_risc_v_application_interrupt_handler() (interrupts) or
 * freertos_risc_v_application_exception_handler() (exceptions), plain C functions
 * called with mstatus.MIE clear (the port does not nest traps), where
 * CPU_USAGE_ISR_ENTER() and portYIELD_FROM_ISR() (or CPU_USAGE_ISR_EXIT()) may
 * bracket the work. Here each interrupt is bracketed as a whole, the PLIC's claim and
 * completion included, so the "interrupts" line holds the tick, the UART, the RTC and
 * the software interrupt of the 'irqmask' check.
 *
 * portYIELD_FROM_ISR() on this port calls the library's exit and then
 * vTaskSwitchContext() directly: portASM.S restores whichever task is current when
 * the handler returns.
 */
#include "FreeRTOS.h"
#include "task.h"

#include "riscv_virt.h"

void freertos_risc_v_application_interrupt_handler( uint32_t mcause );
void freertos_risc_v_application_exception_handler( uint32_t mcause );

/* Priority 1 for every source the port enables and threshold 0: the PLIC passes them
 * all, and the hart takes one at a time (no nesting on this port). */
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

    CPU_USAGE_ISR_ENTER();

    if( mcause == MCAUSE_MACHINE_TIMER )
    {
        woken = ( BaseType_t ) virt_tick_isr();
    }
    else if( mcause == MCAUSE_MACHINE_EXTERNAL )
    {
        woken = ( BaseType_t ) plic_dispatch();
    }
    else if( mcause == MCAUSE_MACHINE_SOFTWARE )
    {
        virt_msip_isr();
        woken = pdFALSE;
    }
    else
    {
        board_fatal( "unexpected interrupt", BOARD_EXIT_FAULT );
    }

    portYIELD_FROM_ISR( woken );
}

/* Anything but an environment call: a bug. Report where and why, then exit. */
void freertos_risc_v_application_exception_handler( uint32_t mcause )
{
    uint32_t mepc = VIRT_CSR_READ( mepc );
    uint32_t mtval = VIRT_CSR_READ( mtval );

    board_uart_puts( "\nFATAL exception: mcause " );
    board_uart_put_hex( mcause );
    board_uart_puts( " mepc " );
    board_uart_put_hex( mepc );
    board_uart_puts( " mtval " );
    board_uart_put_hex( mtval );
    board_uart_puts( "\n" );
    board_exit( BOARD_EXIT_FAULT );
}
