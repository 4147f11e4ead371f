/*
 * FreeRTOSConfig.h - the POSIX port's configuration for examples/cmake-posix: the
 * kernel's usual settings, and freertos-cpu-usage's hooks header before the closing
 * #endif.
 */
#ifndef FREERTOS_CONFIG_H
#define FREERTOS_CONFIG_H

#define configUSE_PREEMPTION                       1
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
#define configTOTAL_HEAP_SIZE                      ( ( size_t ) ( 256 * 1024 ) )
#define configUSE_IDLE_HOOK                        0
#define configUSE_TICK_HOOK                        0
#define configUSE_MALLOC_FAILED_HOOK               0
#define configCHECK_FOR_STACK_OVERFLOW             0
#define configUSE_TRACE_FACILITY                   1
#define configUSE_TIMERS                           1
#define configTIMER_TASK_PRIORITY                  ( configMAX_PRIORITIES - 1 )
#define configTIMER_QUEUE_LENGTH                   4
#define configTIMER_TASK_STACK_DEPTH               configMINIMAL_STACK_SIZE
#define INCLUDE_vTaskDelay                         1
#define INCLUDE_xTaskDelayUntil                    1

/* The library's hooks: last, before the closing #endif. */
#include "freertos_cpu_usage_hooks.h"

#endif /* FREERTOS_CONFIG_H */
