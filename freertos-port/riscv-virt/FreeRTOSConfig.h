/*
 * FreeRTOSConfig.h for the demo on QEMU's RISC-V virt machine (RV32IMAC in machine mode,
 * one hart, GCC/RISC-V port, heap_4). This file holds what is this board's own; the
 * settings it shares with riscv-virt-smp, the same machine with several harts, are in
 * riscv_virt_config.h, included below: the clock and the tick (mtime at 10 MHz, 1000
 * Hz), priorities, no time slicing, stack sizes, the tick, malloc-failed and
 * stack-overflow hooks, the kernel's run-time stats on mtime, and configASSERT.
 */
#ifndef FREERTOS_CONFIG_H
#define FREERTOS_CONFIG_H

#include "riscv_virt.h"

/* ---- Scheduling ------------------------------------------------------------- */
#define configUSE_PORT_OPTIMISED_TASK_SELECTION    1

/* Tickless idle, the application's way (2), as on mps2-an385: when no task is due for
 * two ticks or more, the idle task waits in WFI for the next interrupt (idle_sleep.c)
 * with the machine timer left running, and the library shows that time as "sleep". */
#define configUSE_TICKLESS_IDLE                    2
#ifndef __ASSEMBLER__
void board_idle_sleep( uint32_t expected_idle_ticks );
#endif
#define portSUPPRESS_TICKS_AND_SLEEP( xExpectedIdleTime )    board_idle_sleep( xExpectedIdleTime )

/* ---- Memory and hooks ------------------------------------------------------- */
#define configTOTAL_HEAP_SIZE                      ( 256U * 1024U )
#define configUSE_IDLE_HOOK                        0

/* ---- What both virt boards share -------------------------------------------- */
#include "riscv_virt_config.h"

/* ---- freertos-cpu-usage ------------------------------------------------------
 * The hooks header stays at the end, after every setting, before the closing #endif.
 * CPU_USAGE_DISABLED builds the same image without the library. */
#ifndef CPU_USAGE_DISABLED
/* The event trace (the cpu_usage_trace command; cpu-usage-top --perfetto): the hooks
 * call the library's traced functions, which record into its ring.
 * -DCPU_USAGE_TRACE=0 builds the image without it. */
#ifndef CPU_USAGE_TRACE
#define CPU_USAGE_TRACE    1
#endif
#include "freertos_cpu_usage_hooks.h"
#else
#define CPU_USAGE_ISR_ENTER()    do {} while( 0 )
#define CPU_USAGE_ISR_EXIT()     do {} while( 0 )
#endif

#endif /* FREERTOS_CONFIG_H */
