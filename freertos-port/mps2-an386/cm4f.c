/*
 * cm4f.c - what mps2-an386 (Cortex-M4F, hard float) does differently from mps2-an385,
 * whose board files it runs unchanged (the same CMSDK UART and timers, the same 25 MHz
 * clock and memory map in QEMU's hw/arm/mps2.c): the FPU is switched on before any
 * C code runs, the port has its own name, and two tasks check that a context switch
 * keeps every floating-point register of the task it switches out.
 *
 * Why at reset: the whole image is built with -mfloat-abi=hard, so the compiler may
 * use the FPU's registers in any function, main() and the C library included, long
 * before the kernel's xPortStartScheduler() would enable it. Out of reset CP10 and
 * CP11 are off and the first floating-point instruction would be a UsageFault (NOCP).
 *
 * The check: the demo's own tasks never touch the FPU, so without it every switch
 * would take the kernel's integer-only path. Tasks fpu1 and fpu2 wake together every
 * FPU_CHECK_PERIOD_MS; each fills s0..s31 with a pattern of its own and, with all of
 * them live, pends PendSV: the switch goes to the other one (same priority, also
 * ready), which does the same, and back. On the way out the core stacks s0..s15 and
 * FPSCR (lazily, when the kernel's PendSV handler touches the FPU) and the handler
 * saves s16..s31; a register that comes back changed ends the run as a fault
 * (BOARD_EXIT_FAULT, "FATAL FPU register ..."), which the end-to-end test sees.
 * Each round is a few hundred instructions every 100 ms, far below what the demo's
 * figures could notice.
 */
#include "mps2_an385.h"

#include "FreeRTOS.h"
#include "task.h"

#if !defined( __ARM_FP )
#error "mps2-an386 is the hard-float port: build it with -mfpu=fpv4-sp-d16 -mfloat-abi=hard"
#endif

/* Every wake-up keeps the idle task out of its tickless sleep for the tick before it
 * (../bare-metal/cortex-m/idle_sleep.c), so not as often as the workloads' 10 ms. */
#define FPU_CHECK_PERIOD_MS    100u
/* Above the workloads (which burn the CPU), so the two wake and meet on time; with
 * the shell, which is mostly blocked. */
#define FPU_CHECK_PRIORITY     ( tskIDLE_PRIORITY + 2u )

/* s0..s31 = pattern, pattern + 1, ...; PendSV pended and taken with all of them live;
 * then the number of registers that no longer hold their value. In one asm statement
 * so that the compiler cannot move anything of its own into the FPU in between. */
static uint32_t fpu_switch_and_check( uint32_t pattern )
{
    uint32_t changed;

    __asm volatile (
        "   mov   r1, %[pattern]             \n"
        "   .irp  n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31 \n"
        "   vmov  s\\n, r1                   \n"
        "   adds  r1, r1, #1                 \n"
        "   .endr                            \n"
        /* ICSR.PENDSVSET; the barriers make PendSV run before the next instruction. */
        "   movw  r2, #0xED04                \n"
        "   movt  r2, #0xE000                \n"
        "   mov   r3, #0x10000000            \n"
        "   str   r3, [r2]                   \n"
        "   dsb                              \n"
        "   isb                              \n"
        "   mov   %[changed], #0             \n"
        "   mov   r1, %[pattern]             \n"
        "   .irp  n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31 \n"
        "   vmov  r3, s\\n                   \n"
        "   cmp   r3, r1                     \n"
        "   it    ne                         \n"
        "   addne %[changed], %[changed], #1 \n"
        "   adds  r1, r1, #1                 \n"
        "   .endr                            \n"
        : [ changed ] "=&r" ( changed )
        : [ pattern ] "r" ( pattern )
        : "r1", "r2", "r3", "cc", "memory",
          "s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "s12", "s13", "s14", "s15",
          "s16", "s17", "s18", "s19", "s20", "s21", "s22", "s23", "s24", "s25", "s26", "s27", "s28", "s29", "s30", "s31"
    );

    return changed;
}

static void fpu_check_task( void * parameter )
{
    /* Far apart and not small integers' bit patterns: fpu1's and fpu2's values never
     * meet, nor look like what the integer side leaves in a register. */
    const uint32_t pattern = ( uint32_t ) ( uintptr_t ) parameter;
    TickType_t last_wake = 0u; /* both from tick 0, so that they wake together */

    for( ; ; )
    {
        vTaskDelayUntil( &last_wake, pdMS_TO_TICKS( FPU_CHECK_PERIOD_MS ) );

        if( fpu_switch_and_check( pattern ) != 0u )
        {
            board_fatal( "FPU register changed across a context switch", BOARD_EXIT_FAULT );
        }
    }
}

/* Replaces main.c's weak no-op: called after demo_start(), before the scheduler. */
void board_start( void )
{
    static const struct
    {
        const char * name;
        uint32_t pattern;
    } checks[] = { { "fpu1", 0x3F800000u }, { "fpu2", 0xC2280000u } };

    for( size_t i = 0; i < sizeof( checks ) / sizeof( checks[ 0 ] ); i++ )
    {
        if( xTaskCreate( fpu_check_task, checks[ i ].name, configMINIMAL_STACK_SIZE,
                         ( void * ) ( uintptr_t ) checks[ i ].pattern, FPU_CHECK_PRIORITY, NULL ) != pdPASS )
        {
            board_fatal( "cannot create the FPU check tasks", BOARD_EXIT_MALLOC_FAILED );
        }
    }
}
