/*
 * FreeRTOSConfig.h for the demo on QEMU's mps2-an385 (Cortex-M3, 25 MHz, ARM_CM3 port,
 * heap_4), and on mps2-an386 (Cortex-M4F, ARM_CM4F port), the same board with the
 * same clock and interrupt priorities: nothing here depends on the core. Values that
 * exist for a reason other than "the usual default" say why.
 */
#ifndef FREERTOS_CONFIG_H
#define FREERTOS_CONFIG_H

/* ---- Clock and scheduling --------------------------------------------------- */
#define configCPU_CLOCK_HZ                         ( 25000000UL )
#define configTICK_RATE_HZ                         ( 1000 )
#define configTICK_TYPE_WIDTH_IN_BITS              TICK_TYPE_WIDTH_32_BITS
#define configUSE_PREEMPTION                       1
#define configUSE_PORT_OPTIMISED_TASK_SELECTION    1
#define configMAX_PRIORITIES                       8
/* The demo's workloads rely on equal-priority tasks not sharing the CPU by tick: a
 * task runs until it blocks or a higher-priority task wakes. */
#define configUSE_TIME_SLICING                     0
#define configIDLE_SHOULD_YIELD                    1

/* Tickless idle, the application's own way (2: the kernel calls the macro below and
 * the port's vPortSuppressTicksAndSleep() is not built). When no task is due for at
 * least two ticks the idle task waits for the next interrupt (the tick at the latest)
 * with the SysTick left running: the library shows that time as "sleep", and its
 * SysTick-based clock, which needs every tick interrupt, keeps working.
 * ../bare-metal/cortex-m/idle_sleep.c says why the wait is a poll and not WFI under QEMU. */
#define configUSE_TICKLESS_IDLE                    2
#ifndef __ASSEMBLER__
#include <stdint.h>
void board_idle_sleep( uint32_t expected_idle_ticks );
#endif
#define portSUPPRESS_TICKS_AND_SLEEP( xExpectedIdleTime )    board_idle_sleep( xExpectedIdleTime )

/* ---- Tasks and memory ------------------------------------------------------- */
/* In words. The idle task gets this; 1 KiB leaves room for the create/delete hooks,
 * which run on the calling task's stack. */
#define configMINIMAL_STACK_SIZE                   ( 256 )
#define configMAX_TASK_NAME_LEN                    ( 16 )

/* The kernel settings every bare-metal board shares (allocation, kernel objects, API
 * functions, the trace facility): freertos-port/bare-metal/. */
#include "demo_kernel_config.h"

/* The churn task keeps up to 40 short-lived tasks alive next to the long-lived ones:
 * about 50 TCBs and stacks of a few KiB at most. The board has 4 MiB of RAM. */
#define configTOTAL_HEAP_SIZE                      ( 256U * 1024U )

/* ---- Hooks and checks ------------------------------------------------------- */
/* No idle hook: the idle task sleeps only through portSUPPRESS_TICKS_AND_SLEEP above,
 * and its wait executes instructions, which keeps QEMU's -icount timing as
 * deterministic as a busy idle did. The tick hook is the demo's tick-sampled
 * accounting (the shell's 'sampled' command). */
#define configUSE_IDLE_HOOK                        0
#define configUSE_TICK_HOOK                        1
#define configUSE_MALLOC_FAILED_HOOK               1
#define configCHECK_FOR_STACK_OVERFLOW             2
#define configUSE_DAEMON_TASK_STARTUP_HOOK         0

/* The kernel's own run-time stats (the shell's kernel_stats), in core cycles as the
 * library's SysTick-extended clock counts them, to compare the two
 * (tests/tests/e2e_qemu.rs). */
#define configGENERATE_RUN_TIME_STATS              1
#define configRUN_TIME_COUNTER_TYPE                uint64_t
#ifndef __ASSEMBLER__
#include <stdint.h>
uint64_t mps2_clock_cycles( void );
#endif
#define portCONFIGURE_TIMER_FOR_RUN_TIME_STATS()    do {} while( 0 )
#define portGET_RUN_TIME_COUNTER_VALUE()            mps2_clock_cycles()

/* ---- Interrupt priorities (Cortex-M: numerically lower = more urgent) ---------
 * The AN385 NVIC implements 3 priority bits (QEMU implements all 8; the values below
 * are valid for both). The kernel's own interrupts (SysTick, PendSV) run at the
 * lowest priority; interrupts at 0xA0..0xE0 may call FromISR APIs and are masked by
 * critical sections; 0x00..0x80 are never masked and must not call the kernel. */
#define configPRIO_BITS                            3
#define configKERNEL_INTERRUPT_PRIORITY            0xE0
#define configMAX_SYSCALL_INTERRUPT_PRIORITY       0xA0

/* ---- Assertions --------------------------------------------------------------
 * A failed assertion prints "ASSERT file:line" on UART0 and ends the QEMU run with
 * exit status 101 (BOARD_EXIT_ASSERT), so a test sees it as a failure. */
#ifndef __ASSEMBLER__
void board_assert_failed( const char * file, int line ) __attribute__( ( noreturn ) );
#endif
#define configASSERT( x )                                    \
    do {                                                     \
        if( ( x ) == 0 ) {                                   \
            board_assert_failed( __FILE__, __LINE__ );        \
        }                                                    \
    } while( 0 )

/* ---- freertos-cpu-usage ------------------------------------------------------
 * The hooks header stays at the end, after every setting, before the closing #endif.
 * CPU_USAGE_DISABLED builds the same image without the library (demo-nolib.elf, for
 * the footprint figures).
 * DEMO_STAND_IN_TRACER builds it with another trace tool beside the library
 * (demo-tracer.elf): the tool's header first, then the firmware's header that shares
 * the kernel's trace macros between the two, which includes the library's
 * (demo/stand-in-tracer/). */
#ifndef CPU_USAGE_DISABLED
/* The event trace (the cpu_usage_trace command; cpu-usage-top --perfetto): the hooks
 * call the library's traced functions, which record into its ring. The notrace
 * variant (-DCPU_USAGE_TRACE=0, qemu.mk) is the image without it. */
#ifndef CPU_USAGE_TRACE
#define CPU_USAGE_TRACE    1
#endif
#if defined( DEMO_STAND_IN_TRACER ) && ( DEMO_STAND_IN_TRACER == 1 )
#include "stand_in_tracer.h"
#include "trace_hooks_shared.h"
#else
#include "freertos_cpu_usage_hooks.h"
#endif
#else
/* The port's interrupt handlers call these; without the library they do nothing. */
#define CPU_USAGE_ISR_ENTER()    do {} while( 0 )
#define CPU_USAGE_ISR_EXIT()     do {} while( 0 )
#endif

#endif /* FREERTOS_CONFIG_H */
