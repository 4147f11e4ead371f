/*
 * mps2_board.h - mps2-an386 (ARM AN386 FPGA image, Cortex-M4F) is mps2-an385 with
 * another core: QEMU's hw/arm/mps2.c gives both the same memory map, CMSDK UART and
 * timers, interrupt numbers and 25 MHz clock. Only the name differs; the FPU is
 * switched on at reset by startup.c, as for every image built with -mfloat-abi=hard.
 */
#ifndef MPS2_AN386_BOARD_H
#define MPS2_AN386_BOARD_H

#include "../mps2-an385/mps2_board.h"

#undef MPS2_PORT_NAME
#define MPS2_PORT_NAME    "mps2-an386 (QEMU Cortex-M4F, hard float)"

#endif /* MPS2_AN386_BOARD_H */
