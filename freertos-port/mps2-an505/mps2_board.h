/*
 * mps2_board.h - what sets QEMU's mps2-an505 (ARM AN505 FPGA image: a Cortex-M33 in
 * Arm's IoT Kit subsystem) apart from the other MPS2 boards, for the board code in
 * ../mps2-an385 (its mps2_an385.h includes this file, which comes first on this
 * port's include path).
 *
 * Addresses and interrupt numbers follow QEMU's hw/arm/mps2-tz.c and hw/arm/armsse.c
 * (the IoT Kit), which is what the image runs on, and Arm's AN505 application note.
 * The IoT Kit maps everything twice: a Non-secure alias where address bit 28 is 0 and
 * a Secure alias where it is 1 (the IDAU's rule). The port runs in the Secure state the
 * core boots in (FreeRTOSConfig.h: configRUN_FREERTOS_SECURE_ONLY) and uses the Secure
 * aliases only. Nothing needs to be set up for that: at reset the SAU is off with
 * ALLNS clear, so every access from the Secure state is Secure, and the memory (MPC)
 * and peripheral (PPC) protection controllers let Secure accesses through until
 * software opens blocks to the Non-secure side, which this port never does.
 *
 * 0x10000000 4 MiB ZBT SSRAM1 (Secure alias of 0x00000000): code, read-only data; the
 *                              core's initial Secure VTOR points here.
 * 0x38000000 4 MiB ZBT SSRAM2/3 (Secure alias of 0x28000000): data, bss, heaps,
 *                              main stack.
 * 0x50000000 CMSDK APB TIMER0 (IoT Kit, Secure alias of 0x40000000), IRQ3.
 * 0x50200000 CMSDK APB UART0 (Secure alias of 0x40200000), RX IRQ32, TX IRQ33.
 * The linker script mps2-an505.ld carries the memory numbers.
 */
#ifndef MPS2_BOARD_H
#define MPS2_BOARD_H

#define MPS2_PORT_NAME                 "mps2-an505 (QEMU Cortex-M33)"

/* The IoT Kit's MAINCLK: the core, its SysTick and the APB peripherals (QEMU's
 * mps2-tz.c: 20 MHz, where the AN385 has 25). */
#define MPS2_SYSCLK_HZ                 20000000u

#define UART0_BASE                     0x50200000u
#define TIMER0_BASE                    0x50000000u

/* Interrupt numbers: the IoT Kit's own devices take IRQ0..31 (TIMER0 is IRQ3), the
 * FPGA's devices start at IRQ32 (UART0 RX), 92 of them: 124 in all. IRQ30 and IRQ31
 * are reserved in the IoT Kit, and no device of QEMU's model drives them: the
 * 'irqmask' check (../bare-metal/cortex-m/mask_check.c) pends them by software, as on mps2-an385. */
#define MPS2_IRQ_UART0_RX              32u
#define MPS2_IRQ_TIMER0                3u
#define MPS2_IRQ_MASK_CHECK_ABOVE      30u
#define MPS2_IRQ_MASK_CHECK_AT         31u
#define MPS2_EXTERNAL_IRQS             124u

/* The kernel's handlers in its port (portable/GCC/ARM_CM33_NTZ/non_secure), for the
 * vector table in startup.c. The ARMv8-M ports name them after the CMSIS vectors; the
 * SysTick vector is clock.c's, which calls the kernel's SysTick_Handler. */
#define MPS2_KERNEL_SVC_HANDLER        SVC_Handler
#define MPS2_KERNEL_PENDSV_HANDLER     PendSV_Handler
#define MPS2_KERNEL_SYSTICK_HANDLER    SysTick_Handler

#endif /* MPS2_BOARD_H */
