/*
 * FreeRTOSConfig.h for QEMU's RISC-V virt machine with VIRT_SMP_HARTS harts (board.mk
 * builds 2 and 4), FreeRTOS V11.2 SMP on this board's own port layer (port/), heap_4.
 * What is the same as ../riscv-virt/FreeRTOSConfig.h is so for the same reasons; what
 * differs is what SMP asks for, and says why.
 */
#ifndef FREERTOS_CONFIG_H
#define FREERTOS_CONFIG_H

#include "riscv_virt_smp.h"

/* ---- Cores ---------------------------------------------------------------------- */
#define configNUMBER_OF_CORES                      VIRT_SMP_HARTS
/* Tasks of different priorities run at the same time on different harts (the
 * self-check's busy tasks at priority 1 beside its free tasks at 2; the demo's
 * workloads and shell). 0 would keep every hart on the highest ready priority only. */
#define configRUN_MULTIPLE_PRIORITIES              1
/* vTaskCoreAffinitySet(): the self-check pins a task to each hart. */
#define configUSE_CORE_AFFINITY                    1
/* The idle tasks of harts without work wait in WFI (idle.c). */
#define configUSE_PASSIVE_IDLE_HOOK                1

/* ---- Clock and scheduling --------------------------------------------------------- */
/* The machine timer's rate, as on riscv-virt: mtime, the same for every hart. */
#define configCPU_CLOCK_HZ                         ( VIRT_MTIME_HZ )
#define configTICK_RATE_HZ                         ( 1000 )
#define configTICK_TYPE_WIDTH_IN_BITS              TICK_TYPE_WIDTH_32_BITS
#define configUSE_PREEMPTION                       1
/* SMP has no port-optimised selection (FreeRTOS.h stops the build). */
#define configUSE_PORT_OPTIMISED_TASK_SELECTION    0
#define configMAX_PRIORITIES                       8
#define configUSE_TIME_SLICING                     0
#define configIDLE_SHOULD_YIELD                    1

/* The CLINT (riscv_virt.h). The tick is hart 0's mtimecmp (../riscv-virt/clock.c);
 * msip is how a hart makes another yield (port/port.c). */
#define configMTIME_BASE_ADDRESS                   ( VIRT_MTIME_BASE )
#define configMTIMECMP_BASE_ADDRESS                ( VIRT_MTIMECMP_BASE )
#define configMSIP_BASE_ADDRESS                    ( VIRT_MSIP_BASE )

/* No tickless idle: the tick is hart 0's alone, and a hart without work sleeps in its
 * idle hook until an interrupt (the tick on hart 0, a yield request on the others). */
#define configUSE_TICKLESS_IDLE                    0

/* ---- Tasks and memory ------------------------------------------------------------- */
#define configMINIMAL_STACK_SIZE                   ( 256 )
#define configMAX_TASK_NAME_LEN                    ( 16 )

#include "demo_kernel_config.h"

/* 2 MiB of the 8: the churn task's children that delete themselves are freed by an idle
 * task, and with the harts in parallel host threads (no -icount) the shell's polled
 * UART output can keep every hart busy for a while (each register access takes QEMU's
 * I/O lock), so freeing lags: the heap holds a few seconds of churn meanwhile. */
#define configTOTAL_HEAP_SIZE                      ( 2048U * 1024U )

/* The demo (shell.c, the tick-sampled accounting) asks for "the" idle task, a call SMP
 * does not have: the active idle task, which SMP numbers as core 0's. */
#define xTaskGetIdleTaskHandle()                   xTaskGetIdleTaskHandleForCore( 0 )

/* ---- Hooks and checks -------------------------------------------------------------- */
#define configUSE_IDLE_HOOK                        1
#define configUSE_TICK_HOOK                        1
#define configUSE_MALLOC_FAILED_HOOK               1
#define configCHECK_FOR_STACK_OVERFLOW             2
#define configUSE_DAEMON_TASK_STARTUP_HOOK         0

/* The kernel's own run-time stats in mtime counts, which every hart reads alike. */
#define configGENERATE_RUN_TIME_STATS              1
#define configRUN_TIME_COUNTER_TYPE                uint64_t
#ifndef __ASSEMBLER__
#include <stdint.h>
uint64_t virt_mtime( void );
#endif
#define portCONFIGURE_TIMER_FOR_RUN_TIME_STATS()    do {} while( 0 )
#define portGET_RUN_TIME_COUNTER_VALUE()            virt_mtime()

/* ---- Assertions --------------------------------------------------------------------
 * "ASSERT file:line" on UART0, exit status 101 (../bare-metal/kernel_hooks.c). */
#ifndef __ASSEMBLER__
void board_assert_failed( const char * file, int line ) __attribute__( ( noreturn ) );
#endif
#define configASSERT( x )                                    \
    do {                                                     \
        if( ( x ) == 0 ) {                                   \
            board_assert_failed( __FILE__, __LINE__ );       \
        }                                                    \
    } while( 0 )

/* ---- freertos-cpu-usage -------------------------------------------------------------
 * Not yet: the library's hooks header stops an SMP build, so every image of this board
 * is built with CPU_USAGE_DISABLED (board.mk). Once the hooks take a core ID, this is
 * where the header goes: at the end, before the closing #endif, as on riscv-virt. */
#ifndef CPU_USAGE_DISABLED
#include "freertos_cpu_usage_hooks.h"
#else
#define CPU_USAGE_ISR_ENTER()    do {} while( 0 )
#define CPU_USAGE_ISR_EXIT()     do {} while( 0 )
#endif

#endif /* FREERTOS_CONFIG_H */
