/*
 * demo_kernel_config.h - the kernel settings the demo needs, the same on every
 * bare-metal board: what it allocates with, the kernel objects and API functions it
 * calls, and the trace facility. A board's FreeRTOSConfig.h includes this and keeps
 * its own clock, scheduling, memory sizes, hooks and interrupt settings.
 */
#ifndef DEMO_KERNEL_CONFIG_H
#define DEMO_KERNEL_CONFIG_H

/* ---- Allocation ------------------------------------------------------------- */
#define configSUPPORT_DYNAMIC_ALLOCATION           1
#define configSUPPORT_STATIC_ALLOCATION            0
#define configAPPLICATION_ALLOCATED_HEAP           0
#define configSTACK_DEPTH_TYPE                     uint32_t
#define configMESSAGE_BUFFER_LENGTH_TYPE           size_t

/* ---- Kernel features -------------------------------------------------------- */
#define configUSE_MUTEXES                          1
#define configUSE_RECURSIVE_MUTEXES                0
#define configUSE_COUNTING_SEMAPHORES              1
#define configUSE_TASK_NOTIFICATIONS               1
#define configUSE_STREAM_BUFFERS                   1 /* the console's receive buffer */
#define configUSE_QUEUE_SETS                       0
#define configUSE_TIMERS                           0
#define configUSE_CO_ROUTINES                      0
#define configQUEUE_REGISTRY_SIZE                  0
#define configUSE_NEWLIB_REENTRANT                 0
#define configENABLE_BACKWARD_COMPATIBILITY        0
#define configNUM_THREAD_LOCAL_STORAGE_POINTERS    0

/* freertos-cpu-usage keeps each task's ID in uxTaskNumber, which needs this. */
#define configUSE_TRACE_FACILITY                   1
#define configUSE_STATS_FORMATTING_FUNCTIONS       0

/* ---- API functions ---------------------------------------------------------- */
#define INCLUDE_vTaskPrioritySet                   1
#define INCLUDE_uxTaskPriorityGet                  1
#define INCLUDE_vTaskDelete                        1
#define INCLUDE_vTaskSuspend                       1 /* portMAX_DELAY means "forever" */
#define INCLUDE_xTaskDelayUntil                    1
#define INCLUDE_vTaskDelay                         1
#define INCLUDE_xTaskGetSchedulerState             1
#define INCLUDE_xTaskGetCurrentTaskHandle          1
#define INCLUDE_xTaskGetIdleTaskHandle             1
#define INCLUDE_uxTaskGetStackHighWaterMark        1
#define INCLUDE_eTaskGetState                      1

#endif /* DEMO_KERNEL_CONFIG_H */
