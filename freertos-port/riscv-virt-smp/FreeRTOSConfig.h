/*
 * FreeRTOSConfig.h for QEMU's RISC-V virt machine with VIRT_SMP_HARTS harts (board.mk
 * builds 2 and 4), FreeRTOS V11.2 SMP on this board's own port layer (port/), heap_4.
 * This file holds what SMP asks for, and says why; the settings it shares with
 * riscv-virt, the same machine with one hart, are in ../riscv-virt/riscv_virt_config.h,
 * included below: the clock and the tick (mtime at 10 MHz, 1000 Hz), priorities, no
 * time slicing, stack sizes, the tick, malloc-failed and stack-overflow hooks, the
 * kernel's run-time stats on mtime, and configASSERT.
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

/* ---- Scheduling ------------------------------------------------------------------- */
/* SMP has no port-optimised selection (FreeRTOS.h stops the build). */
#define configUSE_PORT_OPTIMISED_TASK_SELECTION    0

/* msip is how a hart makes another yield (port/port.c); the tick is hart 0's mtimecmp
 * (../riscv-virt/clock.c). */
#define configMSIP_BASE_ADDRESS                    ( VIRT_MSIP_BASE )

/* No tickless idle: the tick is hart 0's alone, and a hart without work sleeps in its
 * idle hook until an interrupt (the tick on hart 0, a yield request on the others). */
#define configUSE_TICKLESS_IDLE                    0

/* ---- Memory and hooks ------------------------------------------------------------- */
/* 2 MiB of the 8: the churn task's children that delete themselves are freed by an idle
 * task, and with the harts in parallel host threads (no -icount) the shell's polled
 * UART output can keep every hart busy for a while (each register access takes QEMU's
 * I/O lock), so freeing lags: the heap holds a few seconds of churn meanwhile. */
#define configTOTAL_HEAP_SIZE                      ( 2048U * 1024U )

/* The demo (shell.c, the tick-sampled accounting) asks for "the" idle task, a call SMP
 * does not have: the active idle task, which SMP numbers as core 0's. */
#define xTaskGetIdleTaskHandle()                   xTaskGetIdleTaskHandleForCore( 0 )

/* The active idle task's hook, as the passive ones' (idle.c). */
#define configUSE_IDLE_HOOK                        1

/* ---- What both virt boards share -------------------------------------------------- */
#include "../riscv-virt/riscv_virt_config.h"

/* ---- freertos-cpu-usage -------------------------------------------------------------
 * The hooks header stays at the end, after every setting, before the closing #endif,
 * as on riscv-virt. The demo (demo.elf) is built with the library for the board's
 * cores (board.mk's _CORES: CPU_USAGE_CORES); demo-nolib.elf and the self-check
 * (smp_check.elf) are built with CPU_USAGE_DISABLED. No event trace: the library
 * records one for a single core so far. */
#ifndef CPU_USAGE_DISABLED
#include "freertos_cpu_usage_hooks.h"
#else
#define CPU_USAGE_ISR_ENTER()    do {} while( 0 )
#define CPU_USAGE_ISR_EXIT()     do {} while( 0 )
#endif

#endif /* FREERTOS_CONFIG_H */
