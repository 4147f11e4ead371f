/*
 * FreeRTOSConfig.h - a sample configuration for FreeRTOS's POSIX port
 * (FreeRTOS-Kernel/portable/ThirdParty/GCC/Posix) with freertos-cpu-usage: what an
 * application of its own needs, and no more. `make test` builds it with this
 * example's main.c (tests/tests/c_posix_example.rs).
 *
 * On this port every task is a host pthread and the tick is a SIGALRM that a host
 * thread sends after sleeping a tick period, so the tick runs slower than the wall
 * clock (README: "On the POSIX port").
 */
#ifndef FREERTOS_CONFIG_H
#define FREERTOS_CONFIG_H

#define configUSE_PREEMPTION                    1
#define configUSE_TIME_SLICING                  1
#define configUSE_PORT_OPTIMISED_TASK_SELECTION 0
#define configTICK_RATE_HZ                      1000
#define configMAX_PRIORITIES                    5
#define configMAX_TASK_NAME_LEN                 16
#define configTICK_TYPE_WIDTH_IN_BITS           TICK_TYPE_WIDTH_64_BITS
#define configIDLE_SHOULD_YIELD                 1

/* The task code runs on its pthread's stack; the FreeRTOS stack holds only the port's
 * thread record. */
#define configMINIMAL_STACK_SIZE                256

/* heap_3: the host's malloc (configTOTAL_HEAP_SIZE is then not used). */
#define configSUPPORT_DYNAMIC_ALLOCATION        1
#define configSUPPORT_STATIC_ALLOCATION         0
#define configTOTAL_HEAP_SIZE                   ( ( size_t ) ( 256 * 1024 ) )

#define configUSE_IDLE_HOOK                     0
#define configUSE_TICK_HOOK                     0
#define configUSE_MALLOC_FAILED_HOOK            0
#define configCHECK_FOR_STACK_OVERFLOW          0

/* freertos-cpu-usage keeps each task's ID in the TCB's trace field (the hooks header
 * sets it to 1 if it is not set). */
#define configUSE_TRACE_FACILITY                1
#define configUSE_MUTEXES                       1
#define configUSE_TIMERS                        1
#define configTIMER_TASK_PRIORITY               ( configMAX_PRIORITIES - 1 )
#define configTIMER_QUEUE_LENGTH                4
#define configTIMER_TASK_STACK_DEPTH            configMINIMAL_STACK_SIZE

#define INCLUDE_vTaskDelay                      1
#define INCLUDE_xTaskDelayUntil                 1
#define INCLUDE_vTaskDelete                     1

#define configASSERT( x )    do { if( ( x ) == 0 ) { vAssertCalled( __FILE__, __LINE__ ); } } while( 0 )
void vAssertCalled( const char * pcFile,
                    int iLine );

/* freertos-cpu-usage: after every setting above, before the closing #endif. */
#include "freertos_cpu_usage_hooks.h"

#endif /* FREERTOS_CONFIG_H */
