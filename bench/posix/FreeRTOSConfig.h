/*
 * FreeRTOSConfig.h of the POSIX context-switch benchmark (bench/posix/main.c).
 *
 * The same kernel configuration in four builds, chosen by BENCH_ACCOUNTING:
 *   0  no accounting: no hooks, no run-time stats
 *   1  the kernel's own run-time stats (configGENERATE_RUN_TIME_STATS), on
 *      main.c's clock, ulBenchClock(): CLOCK_MONOTONIC in 64 ns units, 32 bits
 *   2  this library: its hooks header, libfreertos_cpu_usage.a linked, reading the
 *      same ulBenchClock() (cpu_usage_set_clock())
 *   3  the same with the library's own default clock, which computes the same
 * Everything else is as in the simulator (freertos-port/posix), minus what the
 * benchmark has no use for. configUSE_TRACE_FACILITY is on in all four (the hooks
 * header needs it); it adds a TCB field and nothing to the context switch.
 */
#ifndef FREERTOS_CONFIG_H
#define FREERTOS_CONFIG_H

#include <stdint.h>

#ifndef BENCH_ACCOUNTING
    #error "build with -DBENCH_ACCOUNTING=0, 1, 2 or 3 (see bench/bench.mk)"
#endif

#define configUSE_PREEMPTION                       1
/* No time slicing: a tick never switches tasks, so the only context switches are the
 * scenario's own taskYIELD()s and the count of them is exact. */
#define configUSE_TIME_SLICING                     0
#define configUSE_PORT_OPTIMISED_TASK_SELECTION    0
#define configTICK_RATE_HZ                         1000
#define configMAX_PRIORITIES                       5
#define configTICK_TYPE_WIDTH_IN_BITS              TICK_TYPE_WIDTH_64_BITS
#define configIDLE_SHOULD_YIELD                    1
#define configMAX_TASK_NAME_LEN                    16
#define configMINIMAL_STACK_SIZE                   256

#define configSUPPORT_DYNAMIC_ALLOCATION           1
#define configSUPPORT_STATIC_ALLOCATION            0
#define configTOTAL_HEAP_SIZE                      ( ( size_t ) ( 1024 * 1024 ) )

#define configUSE_IDLE_HOOK                        0
#define configUSE_TICK_HOOK                        0
#define configUSE_MALLOC_FAILED_HOOK               0
#define configCHECK_FOR_STACK_OVERFLOW             0

#define configUSE_TRACE_FACILITY                   1
#define configUSE_STATS_FORMATTING_FUNCTIONS       0
#define configUSE_TASK_NOTIFICATIONS               1
#define configUSE_MUTEXES                          1
#define configUSE_COUNTING_SEMAPHORES              1
#define configQUEUE_REGISTRY_SIZE                  0
#define configUSE_TIMERS                           0

#define INCLUDE_vTaskDelete                        1
#define INCLUDE_vTaskDelay                         1
#define INCLUDE_vTaskSuspend                       1
#define INCLUDE_xTaskGetCurrentTaskHandle          1

#if ( BENCH_ACCOUNTING == 1 )
    /* tasks.c prefers the ALT macro to the port's portGET_RUN_TIME_COUNTER_VALUE. */
    #define configGENERATE_RUN_TIME_STATS    1
    #define configRUN_TIME_COUNTER_TYPE      uint32_t
    uint32_t ulBenchClock( void );
    #define portALT_GET_RUN_TIME_COUNTER_VALUE( ulValue ) \
    do {                                                  \
        ( ulValue ) = ulBenchClock();                     \
    } while( 0 )
#else
    #define configGENERATE_RUN_TIME_STATS    0
#endif

#define configASSERT( x )    do { if( ( x ) == 0 ) { for( ; ; ) { } } } while( 0 )

#endif /* FREERTOS_CONFIG_H */

#if ( BENCH_ACCOUNTING >= 2 )
    #include "freertos_cpu_usage_hooks.h"
#endif
