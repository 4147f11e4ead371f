/*
 * cm4f.c - what mps2-an386 (Cortex-M4F, hard float) does differently from mps2-an385,
 * whose board files it runs unchanged (the same CMSDK UART and timers, the same 25 MHz
 * clock and memory map in QEMU's hw/arm/mps2.c): the FPU is switched on before any
 * C code runs, and the port has its own name.
 *
 * Why at reset: the whole image is built with -mfloat-abi=hard, so the compiler may
 * use the FPU's registers in any function, main() and the C library included, long
 * before the kernel's xPortStartScheduler() would enable it. Out of reset CP10 and
 * CP11 are off and the first floating-point instruction would be a UsageFault (NOCP).
 */
#include "mps2_an385.h"

/* Coprocessor Access Control (ARMv7-M ARM, B3.2.20): CP10 and CP11, the FPU, in bits
 * 20..23; 0xF = full access from privileged and unprivileged code. */
#define SCB_CPACR                   MPS2_REG( 0xE000ED88u )
#define SCB_CPACR_CP10_CP11_FULL    ( 0xFu << 20 )

#if !defined( __ARM_FP )
#error "mps2-an386 is the hard-float port: build it with -mfpu=fpv4-sp-d16 -mfloat-abi=hard"
#endif

const char *const port_name = "mps2-an386 (QEMU Cortex-M4F, hard float)";

/* Replaces startup.c's weak no-op; runs first in Reset_Handler. Nothing here may use
 * the FPU, and nothing else may before the barriers: the write must be complete (DSB)
 * and the instructions after it fetched with the new access (ISB). */
void mps2_core_init( void )
{
    SCB_CPACR |= SCB_CPACR_CP10_CP11_FULL;
    __asm volatile ( "dsb\n"
                     "isb" ::: "memory" );
}
