/*
 * riscv_virt_smp.h - QEMU virt with several harts: what this board adds to the devices
 * of ../riscv-virt/riscv_virt.h (the same machine, whose header it includes for the
 * CLINT, the PLIC, UART0, the RTC and the test finisher), and the board's internal
 * interfaces.
 *
 * The CLINT has one msip word and one 64-bit mtimecmp per hart, and one mtime for all
 * (QEMU's hw/intc/riscv_aclint.c, SiFive layout); the PLIC's context 0 is hart 0 in
 * machine mode, the only hart that takes external interrupts here.
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

/* ---- CLINT, per hart ----------------------------------------------------------- */
#define VIRT_MSIP_BASE                 VIRT_CLINT_BASE /* one 32-bit word per hart */

#ifndef __ASSEMBLER__

/* clock.c: the tick on hart 0's machine timer (from interrupts.c; nonzero: switch),
 * and the pacing timer of each other hart (README.md, "Under -icount"). */
int virt_smp_tick_isr( void );
void virt_smp_pacing_isr( uint32_t hart );

/* The snapshots core `core`'s reader has taken (readers.c; 0 in firmware without it). */
uint32_t board_smp_snapshots( uint32_t core );
extern uint64_t virt_smp_tick_origin; /* mtime at the tick's start */

#endif /* __ASSEMBLER__ */

#endif /* RISCV_VIRT_SMP_H */
