/*
 * FreeRTOSConfig.h for the POSIX simulator (FreeRTOS-Kernel/portable/ThirdParty/GCC/Posix).
 *
 * Every task is a host pthread and the tick is a SIGALRM sent by a host thread about
 * once a millisecond, so "CPU time" here is host wall time spent by whichever thread
 * FreeRTOS has let run.
 */
#ifndef FREERTOS_CONFIG_H
#define FREERTOS_CONFIG_H

#include <stdint.h>

/* ---- Scheduling --------------------------------------------------------------- */

#define configUSE_PREEMPTION                       1

/* Off so that a tick never hands the CPU from one priority-1 workload to another in
 * the middle of its burn. (The shell's wake-ups still rotate the priority-1 ready
 * list; workloads.c's burn loop copes with that, see prvBurn().) */
#define configUSE_TIME_SLICING                     0
#define configUSE_PORT_OPTIMISED_TASK_SELECTION    0
#define configTICK_RATE_HZ                         1000
#define configMAX_PRIORITIES                       5
#define configTICK_TYPE_WIDTH_IN_BITS              TICK_TYPE_WIDTH_64_BITS
#define configIDLE_SHOULD_YIELD                    1

/* Task names are at most 15 characters: the demo's "churn-<n>" stays within that. */
#define configMAX_TASK_NAME_LEN                    16

/* The task code runs on its pthread's own stack; the FreeRTOS stack only holds the
 * port's thread record, which needs a few hundred bytes. */
#define configMINIMAL_STACK_SIZE                   256

/* Tickless idle, the application's own way (2: the kernel calls the macro below and
 * the port supplies nothing): when no task is due for at least two ticks, the idle
 * task sleeps the host thread until the next tick signal (main.c), so the time shows
 * as "sleep" instead of an idle spin. The tick keeps coming every millisecond. */
#define configUSE_TICKLESS_IDLE                    2
void vPosixIdleSleep( uint64_t ullExpectedIdleTicks );
#define portSUPPRESS_TICKS_AND_SLEEP( xExpectedIdleTime )    vPosixIdleSleep( ( uint64_t ) ( xExpectedIdleTime ) )

/* ---- Memory ------------------------------------------------------------------- */

/* heap_3 hands every allocation to the host's malloc, so AddressSanitizer sees each
 * TCB and stack and would catch a use after the idle task freed it. It also means
 * there is no fixed heap: 60 tasks need under 200 KB here, which the host always has.
 * configTOTAL_HEAP_SIZE is ignored by heap_3 and only documents that budget. */
#define configSUPPORT_DYNAMIC_ALLOCATION           1
#define configSUPPORT_STATIC_ALLOCATION            0
#define configTOTAL_HEAP_SIZE                      ( ( size_t ) ( 1024 * 1024 ) )

/* ---- Hooks and checks --------------------------------------------------------- */

#define configUSE_IDLE_HOOK                        0

/* The demo's tick-sampled accounting (the shell's 'sampled' command). */
#define configUSE_TICK_HOOK                        1
#define configUSE_MALLOC_FAILED_HOOK               1

/* The FreeRTOS stack of a task is never written by the task on this port (it runs on
 * its pthread stack), so the kernel's overflow check could never fire. */
#define configCHECK_FOR_STACK_OVERFLOW             0

/* freertos-cpu-usage keeps each task's ID in the TCB's trace field. */
#define configUSE_TRACE_FACILITY                   1
#define configUSE_STATS_FORMATTING_FUNCTIONS       0
#define configUSE_TASK_NOTIFICATIONS               1
#define configUSE_MUTEXES                          1
#define configUSE_COUNTING_SEMAPHORES              1
#define configQUEUE_REGISTRY_SIZE                  0

/* Software timers: the demo uses none, but most firmware does, and the timer service
 * task is, with the idle task, the one vTaskStartScheduler() creates after every task
 * of the application (the library keeps an ID for each: `--many-tasks` shows it). */
#define configUSE_TIMERS                           1
#define configTIMER_TASK_PRIORITY                  ( configMAX_PRIORITIES - 1 )
#define configTIMER_QUEUE_LENGTH                   4
#define configTIMER_TASK_STACK_DEPTH               configMINIMAL_STACK_SIZE

#define INCLUDE_vTaskDelete                        1
#define INCLUDE_vTaskDelay                         1
#define INCLUDE_vTaskSuspend                       1
#define INCLUDE_uxTaskGetStackHighWaterMark        1
#define INCLUDE_xTaskGetCurrentTaskHandle          1
#define INCLUDE_xTaskGetIdleTaskHandle             1

/* ---- Kernel run-time statistics (the posix-rts build) ------------------------- */

/* Built with -DDEMO_RUN_TIME_STATS=1, the kernel keeps its own per-task run time so
 * the two measurements can be compared (shell command kernel_stats). The port's
 * ulPortGetRunTime() counts in 10 ms units of process CPU time, far too coarse for
 * that, so the counter is a nanosecond CLOCK_MONOTONIC instead. tasks.c uses the ALT
 * macro in preference to portGET_RUN_TIME_COUNTER_VALUE, so portmacro.h's definition
 * can stay as it is. */
#ifndef DEMO_RUN_TIME_STATS
    #define DEMO_RUN_TIME_STATS    0
#endif

#if ( DEMO_RUN_TIME_STATS == 1 )
    #define configGENERATE_RUN_TIME_STATS    1
    #define configRUN_TIME_COUNTER_TYPE      uint64_t
    uint64_t ullMainRunTimeCounterNs( void );
    #define portALT_GET_RUN_TIME_COUNTER_VALUE( ullValue ) \
    do {                                                   \
        ( ullValue ) = ullMainRunTimeCounterNs();          \
    } while( 0 )
#else
    #define configGENERATE_RUN_TIME_STATS    0
#endif

/* ---- Assertions --------------------------------------------------------------- */

/* Prints where and aborts, so a failed assertion stops the run with a core dump or a
 * sanitizer backtrace instead of hanging the simulator. */
void vAssertCalled( const char * pcFile,
                    unsigned long ulLine );
#define configASSERT( x )                                           \
    do {                                                            \
        if( ( x ) == 0 )                                            \
        {                                                           \
            vAssertCalled( __FILE__, ( unsigned long ) __LINE__ );  \
        }                                                           \
    } while( 0 )

/* ---- freertos-cpu-usage ------------------------------------------------------- */

/* The event trace (the cpu_usage_trace shell command): the hooks call the library's
 * traced functions. */
#define CPU_USAGE_TRACE    1

/* The hooks header at the end, after every setting, before the closing #endif (it
 * checks that the settings it needs are there). The tracer variant
 * (-DDEMO_STAND_IN_TRACER=1, build/posix-tracer/) has another trace tool beside the
 * library: the tool's header first, then the firmware's header that shares the
 * kernel's trace macros between the two, which includes the library's
 * (demo/stand-in-tracer/). */
#if defined( DEMO_STAND_IN_TRACER ) && ( DEMO_STAND_IN_TRACER == 1 )
    #include "stand_in_tracer.h"
    #include "trace_hooks_shared.h"
#else
    #include "freertos_cpu_usage_hooks.h"
#endif

#endif /* FREERTOS_CONFIG_H */
