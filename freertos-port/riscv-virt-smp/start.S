/*
 * start.S - reset code of the riscv-virt-smp images. With -bios none QEMU starts every
 * hart at the start of RAM (riscv-virt-smp.ld puts _start there), all at once, in
 * machine mode with interrupts off.
 *
 * Every hart: the global pointer, its own stack (hart h: VIRT_SMP_STACK_BYTES * h below
 * __stack_top), mscratch = that stack's top (the port's trap entry runs its handlers
 * there once the scheduler runs: portASM.S), the trap vector, mie clear. Then hart 0
 * clears .bss and runs main(); harts 1 .. VIRT_SMP_HARTS - 1 wait in the port
 * (port/port.c, vPortSecondaryHartStart) until hart 0 starts the scheduler, touching
 * only their stack and one initialised flag meanwhile, never .bss; harts beyond the
 * image's count sleep for good.
 */
#include "riscv_virt_smp.h"

    .section .text.start, "ax", @progbits
    .globl _start
_start:
    .option push
    .option norelax
    la gp, __global_pointer$
    .option pop

    csrw mie, zero
    csrr t0, mhartid
    li t1, VIRT_SMP_STACK_BYTES
    mul t1, t0, t1
    la sp, __stack_top
    sub sp, sp, t1
    csrw mscratch, sp

    la t1, freertos_risc_v_trap_handler
    csrw mtvec, t1

    bnez t0, secondary

    la t0, __bss_start
    la t1, __bss_end
1:
    bgeu t0, t1, 2f
    sw zero, 0(t0)
    addi t0, t0, 4
    j 1b
2:
    call main
    li a0, BOARD_EXIT_SCHEDULER_RETURNED
    call board_exit
3:
    j 3b

secondary:
    li t1, VIRT_SMP_HARTS
    bgeu t0, t1, idle_forever
    call vPortSecondaryHartStart
idle_forever:
    wfi
    j idle_forever
