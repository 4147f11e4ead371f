/*
 * portASM.S - the assembly half of the SMP port layer (portmacro.h): the trap entry
 * every hart uses (start.S points mtvec here), the context save into and restore from
 * pxCurrentTCBs[ mhartid ], and the first task's start.
 *
 * The frame, 32 words on the task's stack (16-byte aligned), is the kernel port's
 * without its critical nesting slot (the count is in the TCB here):
 *   0 mepc   1 ra (x1)   2..28 x5..x31   29 mstatus   30, 31 unused
 * gp and tp are the same on every hart and never change, as in the kernel's port.
 *
 * The chip-specific header is the kernel's (RISCV_no_extensions: no extra registers,
 * the timer left to the board), so a chip with more registers would add them here
 * through the same macros.
 */
#include "freertos_risc_v_chip_specific_extensions.h"

#define FRAME_BYTES       ( 32 * 4 )
#define FRAME_MSTATUS     ( 29 * 4 )

    .section .text.freertos_risc_v_trap_handler, "ax", @progbits
    .balign 4
    .global freertos_risc_v_trap_handler
    .global xPortStartFirstTask
    .extern pxCurrentTCBs
    .extern vPortTrapDispatch

freertos_risc_v_trap_handler:
    addi sp, sp, -FRAME_BYTES
    sw x1, 1 * 4( sp )
    sw x5, 2 * 4( sp )
    sw x6, 3 * 4( sp )
    sw x7, 4 * 4( sp )
    sw x8, 5 * 4( sp )
    sw x9, 6 * 4( sp )
    sw x10, 7 * 4( sp )
    sw x11, 8 * 4( sp )
    sw x12, 9 * 4( sp )
    sw x13, 10 * 4( sp )
    sw x14, 11 * 4( sp )
    sw x15, 12 * 4( sp )
    sw x16, 13 * 4( sp )
    sw x17, 14 * 4( sp )
    sw x18, 15 * 4( sp )
    sw x19, 16 * 4( sp )
    sw x20, 17 * 4( sp )
    sw x21, 18 * 4( sp )
    sw x22, 19 * 4( sp )
    sw x23, 20 * 4( sp )
    sw x24, 21 * 4( sp )
    sw x25, 22 * 4( sp )
    sw x26, 23 * 4( sp )
    sw x27, 24 * 4( sp )
    sw x28, 25 * 4( sp )
    sw x29, 26 * 4( sp )
    sw x30, 27 * 4( sp )
    sw x31, 28 * 4( sp )
    csrr t0, mstatus                    /* MPIE: the task's MIE; MPP */
    sw t0, FRAME_MSTATUS( sp )
    portasmSAVE_ADDITIONAL_REGISTERS

    csrr a0, mcause
    csrr t0, mepc
    bltz a0, 1f                         /* an interrupt: resume where it hit */
    addi t0, t0, 4                      /* an exception: only ecall returns, after itself */
1:
    sw t0, 0( sp )

    /* The task's sp into the first word of this hart's current TCB. Before the
     * scheduler runs there is none (a fault in main(): the handler reports and exits). */
    csrr t0, mhartid
    slli t0, t0, 2
    la t1, pxCurrentTCBs
    add t1, t1, t0
    lw t1, 0( t1 )
    beqz t1, 2f
    sw sp, 0( t1 )
2:
    csrr sp, mscratch                   /* this hart's interrupt stack (start.S) */
    call vPortTrapDispatch

    /* Fall through: restore whichever task is now current on this hart. */

xPortStartFirstTask:
    csrr t0, mhartid
    slli t0, t0, 2
    la t1, pxCurrentTCBs
    add t1, t1, t0
    lw t1, 0( t1 )
    lw sp, 0( t1 )

    lw t0, 0( sp )
    csrw mepc, t0
    portasmRESTORE_ADDITIONAL_REGISTERS
    /* MIE stays clear until mret, which sets it from MPIE. */
    lw t0, FRAME_MSTATUS( sp )
    csrw mstatus, t0

    lw x1, 1 * 4( sp )
    lw x5, 2 * 4( sp )
    lw x6, 3 * 4( sp )
    lw x7, 4 * 4( sp )
    lw x8, 5 * 4( sp )
    lw x9, 6 * 4( sp )
    lw x10, 7 * 4( sp )
    lw x11, 8 * 4( sp )
    lw x12, 9 * 4( sp )
    lw x13, 10 * 4( sp )
    lw x14, 11 * 4( sp )
    lw x15, 12 * 4( sp )
    lw x16, 13 * 4( sp )
    lw x17, 14 * 4( sp )
    lw x18, 15 * 4( sp )
    lw x19, 16 * 4( sp )
    lw x20, 17 * 4( sp )
    lw x21, 18 * 4( sp )
    lw x22, 19 * 4( sp )
    lw x23, 20 * 4( sp )
    lw x24, 21 * 4( sp )
    lw x25, 22 * 4( sp )
    lw x26, 23 * 4( sp )
    lw x27, 24 * 4( sp )
    lw x28, 25 * 4( sp )
    lw x29, 26 * 4( sp )
    lw x30, 27 * 4( sp )
    lw x31, 28 * 4( sp )
    addi sp, sp, FRAME_BYTES
    mret
