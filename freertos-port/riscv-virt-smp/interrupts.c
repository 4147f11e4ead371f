/*
 * interrupts.c - the interrupts and exceptions the port's trap dispatch
 * (port/port.c) hands to the board: everything but the two kinds of yield (ecall, and
 * the CLINT's software interrupt), which the port handles itself.
 *
 * Hart 0 takes the tick (its mtimecmp) and the PLIC's context 0 (UART0, the RTC);
 * the other harts take their own machine timer, the pacing timer (clock.c), and no
 * PLIC context: any other interrupt is a bug and ends the run. Each is bracketed for the library as on riscv-virt
 * (empty macros while the library is not in SMP images).
 */
#include "FreeRTOS.h"
#include "task.h"

#include "riscv_virt_smp.h"

void freertos_risc_v_application_interrupt_handler( uint32_t mcause );
void freertos_risc_v_application_exception_handler( uint32_t mcause );

/* Priority 1 and threshold 0 on context 0 (hart 0, machine mode): the PLIC passes every
 * source enabled here to hart 0, one at a time. */
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
    const uint32_t hart = ( uint32_t ) portGET_CORE_ID();

    if( ( mcause == MCAUSE_MACHINE_TIMER ) && ( hart != 0u ) )
    {
        /* Not bracketed for the library: no work, and no kernel call. */
        virt_smp_pacing_isr( hart );
        return;
    }

    CPU_USAGE_ISR_ENTER();

    if( ( mcause == MCAUSE_MACHINE_TIMER ) && ( hart == 0u ) )
    {
        woken = ( BaseType_t ) virt_smp_tick_isr();
    }
    else if( ( mcause == MCAUSE_MACHINE_EXTERNAL ) && ( hart == 0u ) )
    {
        woken = ( BaseType_t ) plic_dispatch();
    }
    else
    {
        board_fatal( "unexpected interrupt", BOARD_EXIT_FAULT );
    }

    portYIELD_FROM_ISR( woken );
}

/* Anything but an environment call: a bug. Report where, on which hart, and exit. */
void freertos_risc_v_application_exception_handler( uint32_t mcause )
{
    uint32_t mepc = VIRT_CSR_READ( mepc );
    uint32_t mtval = VIRT_CSR_READ( mtval );

    board_uart_puts( "\nFATAL exception on hart " );
    board_uart_put_dec( ( uint32_t ) portGET_CORE_ID() );
    board_uart_puts( ": mcause " );
    board_uart_put_hex( mcause );
    board_uart_puts( " mepc " );
    board_uart_put_hex( mepc );
    board_uart_puts( " mtval " );
    board_uart_put_hex( mtval );
    board_uart_puts( "\n" );
    board_exit( BOARD_EXIT_FAULT );
}
