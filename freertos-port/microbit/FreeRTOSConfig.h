/*
 * FreeRTOSConfig.h for the demo on QEMU's microbit (nRF51822: Cortex-M0 at 16 MHz,
 * 16 KiB of RAM; ARM_CM0 port, heap_4). Values that exist for a reason other than
 * "the usual default" say why; RAM sizes are explained in README.md, "RAM".
 */
#ifndef FREERTOS_CONFIG_H
#define FREERTOS_CONFIG_H

/* ---- Clock and scheduling --------------------------------------------------- */
#define configCPU_CLOCK_HZ                         ( 16000000UL )
#define configTICK_RATE_HZ                         ( 1000 )
#define configTICK_TYPE_WIDTH_IN_BITS              TICK_TYPE_WIDTH_32_BITS
#define configUSE_PREEMPTION                       1
/* ARMv6-M has no CLZ instruction: the generic task selection. */
#define configUSE_PORT_OPTIMISED_TASK_SELECTION    0
#define configMAX_PRIORITIES                       4
/* The demo's workloads rely on equal-priority tasks not sharing the CPU by tick: a
 * task runs until it blocks or a higher-priority task wakes. */
#define configUSE_TIME_SLICING                     0
#define configIDLE_SHOULD_YIELD                    1

/* Tickless idle, the application's own way (2: the kernel calls the macro below and
 * the port's vPortSuppressTicksAndSleep() is not built). When no task is due for at
 * least two ticks the idle task waits for the next interrupt (the tick at the latest)
 * with the SysTick left running: the library shows that time as "sleep", and its
 * SysTick-extended clock, which needs every tick interrupt, keeps working.
 * ../bare-metal/cortex-m/idle_sleep.c says why the wait is a poll and not WFI under QEMU. */
#define configUSE_TICKLESS_IDLE                    2
#ifndef __ASSEMBLER__
#include <stdint.h>
void board_idle_sleep( uint32_t expected_idle_ticks );
#endif
#define portSUPPRESS_TICKS_AND_SLEEP( xExpectedIdleTime )    board_idle_sleep( xExpectedIdleTime )

/* ---- Tasks and memory ------------------------------------------------------- */
/* In words. The idle task gets this: the tickless wait and deleting what the churn's
 * children left (the library's delete hook runs on the deleting task's stack). */
#define configMINIMAL_STACK_SIZE                   ( 128 )
#define configMAX_TASK_NAME_LEN                    ( 16 )

/* The kernel settings every bare-metal board shares (allocation, kernel objects, API
 * functions, the trace facility): freertos-port/bare-metal/. */
#include "demo_kernel_config.h"

/* What 16 KiB leave after .data, .bss (the library's 3.3 KiB among it) and the main
 * stack: the long-lived tasks, the console's buffer and as many of the churn's
 * short-lived tasks as fit (README.md, "RAM"). */
#define configTOTAL_HEAP_SIZE                      ( ( 9U * 1024U ) - 384U )

/* The shell's history (shell.c): 256 bytes, two lines of the longest or several
 * short ones, taken from the heap above (384 bytes with the line editor's state). */
#define demoSHELL_HISTORY_BYTES                    256U

/* The demo's task stacks (workloads.c), in words, from what each was measured to use
 * (README.md): the shell's holds the library's report formatter, 2.3 KiB deep. */
#define demoWORK_STACK_WORDS                       ( 128 )
#define demoCHURN_STACK_WORDS                      ( 160 )
#define demoCHILD_STACK_WORDS                      ( 96 )
#define demoSHELL_STACK_WORDS                      ( 800 )

/* ---- ARM_CM0 port -------------------------------------------------------------- */
#define configENABLE_MPU                           0
/* startup.c's vector table holds SVC_Handler and PendSV_Handler themselves. */
#define configCHECK_HANDLER_INSTALLATION           1

/* ---- Hooks and checks ------------------------------------------------------- */
/* No idle hook: the idle task sleeps only through portSUPPRESS_TICKS_AND_SLEEP above,
 * and its wait executes instructions, which keeps QEMU's -icount timing as
 * deterministic as a busy idle did. The tick hook is the demo's tick-sampled
 * accounting (the shell's 'sampled' command). */
#define configUSE_IDLE_HOOK                        0
#define configUSE_TICK_HOOK                        1
/* Off: the churn's batches of 40 tasks do not fit in 16 KiB, and the demo counts the
 * tasks it could not create ('churn status': "create failures") and goes on, as a
 * firmware short of heap would. A failed allocation anywhere else still stops the run:
 * every other creation is checked with configASSERT. */
#define configUSE_MALLOC_FAILED_HOOK               0
#define configCHECK_FOR_STACK_OVERFLOW             2
#define configUSE_DAEMON_TASK_STARTUP_HOOK         0

#define configGENERATE_RUN_TIME_STATS              0

/* ---- Interrupt priorities ------------------------------------------------------
 * ARMv6-M has no BASEPRI: the ARM_CM0 port's critical sections, and the library's
 * (docs/targets.md, "On Cortex-M"), mask every interrupt with PRIMASK, so there is no
 * configMAX_SYSCALL_INTERRUPT_PRIORITY and any interrupt may call FromISR APIs. The
 * port runs SysTick and PendSV at the lowest of the nRF51's four levels (0xC0); the
 * UART and TIMER0 run at 0x80. */

/* ---- Assertions --------------------------------------------------------------
 * A failed assertion prints "ASSERT file:line" on the UART and ends the QEMU run with
 * exit status 101 (BOARD_EXIT_ASSERT), so a test sees it as a failure. */
#ifndef __ASSEMBLER__
void board_assert_failed( const char * file, int line ) __attribute__( ( noreturn ) );
#endif
#define configASSERT( x )                                    \
    do {                                                     \
        if( ( x ) == 0 ) {                                   \
            board_assert_failed( __FILE__, __LINE__ );       \
        }                                                    \
    } while( 0 )

/* ---- freertos-cpu-usage ------------------------------------------------------
 * The hooks header stays at the end, after every setting, before the closing #endif. */
#include "freertos_cpu_usage_hooks.h"

#endif /* FREERTOS_CONFIG_H */
