/*
 * start.S - reset code of the riscv-virt image. QEMU's reset vector (with -bios none)
 * jumps to the start of RAM, where riscv-virt.ld puts _start, in machine mode with
 * interrupts off. Only the stack pointer, the global pointer and .bss need setting up
 * before C: QEMU loads every section of the ELF where it belongs, .data included.
 *
 * The trap vector is FreeRTOS's (portASM.S) from the first instruction, in direct mode:
 * a trap before the scheduler starts still reaches the port's exception report
 * (interrupts.c) instead of address 0.
 */
#include "board.h"

    .section .text.start, "ax", @progbits
    .globl _start
_start:
    .option push
    .option norelax
    la gp, __global_pointer$
    .option pop
    la sp, __stack_top

    la t0, freertos_risc_v_trap_handler
    csrw mtvec, t0
    csrw mie, zero

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
