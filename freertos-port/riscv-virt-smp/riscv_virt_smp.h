/*
 * riscv_virt_smp.h - QEMU virt with several harts: what this board adds to
 * ../riscv-virt/riscv_virt.h (the same machine, whose header it includes for the
 * CLINT, the PLIC, UART0, the RTC, the test finisher and the device code's interfaces),
 * and the board's own internal interfaces.
 *
 * The CLINT has one msip word and one 64-bit mtimecmp per hart, and one mtime for all;
 * the PLIC's context 0 is hart 0 in machine mode, the only hart that takes external
 * interrupts here.
 */
#ifndef RISCV_VIRT_SMP_H
#define RISCV_VIRT_SMP_H

#include "../riscv-virt/riscv_virt.h"

/* The image's number of harts: board.mk builds one image per count (2, 4). */
#ifndef VIRT_SMP_HARTS
    #error "VIRT_SMP_HARTS (the image's number of harts) must come from board.mk"
#endif

/* The stacks riscv-virt-smp.ld reserves: one per hart, VIRT_SMP_STACK_BYTES each, for
 * VIRT_SMP_MAX_HARTS harts (both numbers are in the linker script too). Hart h's stack
 * ends VIRT_SMP_STACK_BYTES * h below __stack_top: its start-up stack (main()'s on
 * hart 0), then its interrupt stack. */
#define VIRT_SMP_MAX_HARTS             4
#define VIRT_SMP_STACK_BYTES           16384

#if ( VIRT_SMP_HARTS < 2 ) || ( VIRT_SMP_HARTS > VIRT_SMP_MAX_HARTS )
    #error "VIRT_SMP_HARTS must be 2 .. VIRT_SMP_MAX_HARTS"
#endif

#ifndef __ASSEMBLER__

/* pacing.c: the pacing timer of each hart but hart 0, from
 * ../riscv-virt/interrupts.c (README.md, "Pacing timers"). The tick, on hart 0, is
 * ../riscv-virt/clock.c's. */
void virt_smp_pacing_isr( uint32_t hart );

/* The snapshots core `core`'s reader has taken (readers.c; 0 in firmware without it). */
uint32_t board_smp_snapshots( uint32_t core );

#endif /* __ASSEMBLER__ */

#endif /* RISCV_VIRT_SMP_H */
