/*
 * mps2_board.h - what sets QEMU's mps2-an385 (ARM AN385 FPGA image, Cortex-M3) apart
 * from the other MPS2 boards, for the board code in this directory (mps2_an385.h
 * includes it). Addresses and interrupt numbers follow QEMU's hw/arm/mps2.c, which is
 * what the image runs on:
 *
 * 0x00000000 4 MiB ZBT SSRAM1: the "flash" the ELF is loaded into (it is RAM on
 *                              QEMU, but the image treats it as read-only code).
 * 0x20000000 4 MiB ZBT SSRAM2/3: data, bss, heaps, main stack.
 * 0x40000000 CMSDK APB TIMER0, 0x40004000 CMSDK APB UART0.
 * The linker script mps2-an385.ld carries the same numbers.
 */
#ifndef MPS2_BOARD_H
#define MPS2_BOARD_H

#define MPS2_PORT_NAME                 "mps2-an385 (QEMU Cortex-M3)"

/* The system clock that drives the core, SysTick and the APB peripherals. */
#define MPS2_SYSCLK_HZ                 25000000u

#define UART0_BASE                     0x40004000u
#define TIMER0_BASE                    0x40000000u

/* External interrupt numbers: UART0 RX is IRQ0, UART0 TX IRQ1 (unused here), TIMER0
 * IRQ8; IRQ30 and IRQ31, which no device of QEMU's model drives, are pended by
 * software for the 'irqmask' check (../bare-metal/cortex-m/mask_check.c). QEMU gives the AN385 NVIC 32. */
#define MPS2_IRQ_UART0_RX              0u
#define MPS2_IRQ_TIMER0                8u
#define MPS2_IRQ_MASK_CHECK_ABOVE      30u
#define MPS2_IRQ_MASK_CHECK_AT         31u
#define MPS2_EXTERNAL_IRQS             32u

/* The kernel's handlers in its port (portable/GCC/ARM_CM3/port.c), for the vector
 * table in startup.c; the SysTick vector is clock.c's, which calls the kernel's. */
#define MPS2_KERNEL_SVC_HANDLER        vPortSVCHandler
#define MPS2_KERNEL_PENDSV_HANDLER     xPortPendSVHandler
#define MPS2_KERNEL_SYSTICK_HANDLER    xPortSysTickHandler

#endif /* MPS2_BOARD_H */
