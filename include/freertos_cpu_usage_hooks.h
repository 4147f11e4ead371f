/*
 * freertos_cpu_usage_hooks.h - connects FreeRTOS's trace hooks to freertos-cpu-usage.
 *
 * Add this as the LAST line of FreeRTOSConfig.h:
 *
 *     #include "freertos_cpu_usage_hooks.h"
 *
 * and link libfreertos_cpu_usage.a. Nothing else is needed.
 *
 * The macros below expand inside the kernel's tasks.c, where the task control block
 * (TCB) is visible. Each task's small ID is kept in the TCB field that FreeRTOS
 * reserves for trace code (uxTaskNumber, present when configUSE_TRACE_FACILITY is 1),
 * so the switch hooks find a task's slot in O(1) without hashing its address, and a
 * new task whose TCB reuses a dead task's address always starts with a fresh ID.
 * Application code must therefore not call vTaskSetTaskNumber().
 *
 * The lifecycle the hooks see, for one task:
 *
 *     xTaskCreate()      traceTASK_CREATE       -> ID allocated (or the shared bucket 0)
 *          |
 *          v
 *     +-> traceTASK_SWITCHED_IN                 -> time now runs on the task's ID
 *     |    | (tick hooks while it runs)
 *     +-- traceTASK_SWITCHED_OUT, then the next task's SWITCHED_IN
 *          |                                    -> time runs on the next task
 *     vTaskDelete(x)     traceTASK_DELETE       -> ID quarantined, time kept, marked deleted
 *
 *     A task deleting itself sees DELETE *before* its last switch; its time runs on
 *     until that switch. The kernel frees the TCB later (idle task) and the heap may
 *     hand the same address to the next xTaskCreate(): that task gets a new ID.
 *     A quarantined ID is handed out again only after every window in which the dead
 *     task had time has been published and replaced.
 */
#ifndef FREERTOS_CPU_USAGE_HOOKS_H
#define FREERTOS_CPU_USAGE_HOOKS_H

#if !defined( configMAX_PRIORITIES ) || !defined( configTICK_RATE_HZ )
    #error "freertos_cpu_usage_hooks.h is included too early: include it as the LAST line of FreeRTOSConfig.h"
#endif

#ifdef tskKERNEL_VERSION_NUMBER
    #error "freertos_cpu_usage_hooks.h is included after task.h: include it as the LAST line of FreeRTOSConfig.h instead"
#endif

#if defined( configNUMBER_OF_CORES ) && ( configNUMBER_OF_CORES > 1 )
    #error "freertos-cpu-usage supports single-core FreeRTOS: set configNUMBER_OF_CORES to 1"
#endif

/* The per-task ID lives in the TCB's uxTaskNumber, which only exists with the trace facility. */
#ifndef configUSE_TRACE_FACILITY
    #define configUSE_TRACE_FACILITY    1
#elif ( configUSE_TRACE_FACILITY != 1 )
    #error "freertos-cpu-usage needs configUSE_TRACE_FACILITY 1: change it in FreeRTOSConfig.h"
#endif

#ifdef traceTASK_CREATE
    #error "traceTASK_CREATE is already defined: remove that definition (freertos-cpu-usage defines it)"
#endif
#ifdef traceTASK_DELETE
    #error "traceTASK_DELETE is already defined: remove that definition (freertos-cpu-usage defines it)"
#endif
#ifdef traceTASK_SWITCHED_IN
    #error "traceTASK_SWITCHED_IN is already defined: remove that definition (freertos-cpu-usage defines it)"
#endif
#ifdef traceTASK_SWITCHED_OUT
    #error "traceTASK_SWITCHED_OUT is already defined: remove that definition (freertos-cpu-usage defines it)"
#endif
#ifdef traceTASK_INCREMENT_TICK
    #error "traceTASK_INCREMENT_TICK is already defined: remove that definition (freertos-cpu-usage defines it)"
#endif
#ifdef traceSTARTING_SCHEDULER
    #error "traceSTARTING_SCHEDULER is already defined: remove that definition (freertos-cpu-usage defines it)"
#endif

#ifndef __ASSEMBLER__

#include "freertos_cpu_usage.h"

/* Allocate an ID and remember the name; the ID is stored in the new TCB. */
#define traceTASK_CREATE( pxNewTCB )                                                        \
    do {                                                                                    \
        ( pxNewTCB )->uxTaskNumber = ( UBaseType_t ) cpu_usage_hook_task_create(            \
            ( void * ) ( pxNewTCB ), ( pxNewTCB )->pcTaskName );                            \
    } while( 0 )

#define traceTASK_DELETE( pxTaskToDelete )                                                  \
    do {                                                                                    \
        cpu_usage_hook_task_delete( ( void * ) ( pxTaskToDelete ),                          \
                                    ( uint32_t ) ( pxTaskToDelete )->uxTaskNumber );        \
    } while( 0 )

#define traceTASK_SWITCHED_IN()                                                             \
    do {                                                                                    \
        cpu_usage_hook_task_switched_in( ( void * ) pxCurrentTCB,                           \
                                         ( uint32_t ) pxCurrentTCB->uxTaskNumber );         \
    } while( 0 )

/* Nothing to do: the next SWITCHED_IN charges the task switched out, a few dozen
 * instructions of the kernel choosing the next task included (as the kernel's own
 * run-time stats count them). One clock reading per context switch instead of two.
 * Defined, so that no other tool's definition is silently combined with ours. */
#define traceTASK_SWITCHED_OUT()                                                            \
    do {                                                                                    \
    } while( 0 )

/* Reads the clock at least once per tick, so a 32-bit counter wrap between two hooks
 * can neither lose nor double time, and windows roll over even when nothing switches. */
#define traceTASK_INCREMENT_TICK( xTickCount )                                              \
    do {                                                                                    \
        cpu_usage_hook_tick();                                                              \
    } while( 0 )

/* configCPU_CLOCK_HZ may be a variable (SystemCoreClock): it is read when the scheduler
 * starts. Hosted ports need not define it. */
#ifdef configCPU_CLOCK_HZ
    #define CPU_USAGE_CPU_CLOCK_HZ    ( ( uint32_t ) ( configCPU_CLOCK_HZ ) )
#else
    #define CPU_USAGE_CPU_CLOCK_HZ    ( ( uint32_t ) 0 )
#endif

/* Tells the library the idle task's ID (for the idle and load lines) and the CPU clock
 * (for the default clock on Cortex-M). Windows start here. */
#define traceSTARTING_SCHEDULER( xIdleTaskHandles )                                         \
    do {                                                                                    \
        cpu_usage_hook_scheduler_start( ( uint32_t ) ( xIdleTaskHandles )[ 0 ]->uxTaskNumber, \
                                        CPU_USAGE_CPU_CLOCK_HZ );                           \
    } while( 0 )

#endif /* __ASSEMBLER__ */

#endif /* FREERTOS_CPU_USAGE_HOOKS_H */
