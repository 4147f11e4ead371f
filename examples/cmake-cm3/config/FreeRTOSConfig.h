/*
 * FreeRTOSConfig.h - the Cortex-M3 configuration of examples/cmake-cm3 (QEMU
 * mps2-an385: 25 MHz, 3 priority bits), and freertos-cpu-usage's hooks header before
 * the closing #endif.
 */
#ifndef FREERTOS_CONFIG_H
#define FREERTOS_CONFIG_H

#define configCPU_CLOCK_HZ                         ( 25000000UL )
#define configTICK_RATE_HZ                         ( 1000 )
#define configTICK_TYPE_WIDTH_IN_BITS              TICK_TYPE_WIDTH_32_BITS
#define configUSE_PREEMPTION                       1
#define configUSE_TIME_SLICING                     0
#define configMAX_PRIORITIES                       5
#define configMINIMAL_STACK_SIZE                   ( 256 )
#define configMAX_TASK_NAME_LEN                    ( 16 )
#define configSUPPORT_DYNAMIC_ALLOCATION           1
#define configSUPPORT_STATIC_ALLOCATION            0
#define configTOTAL_HEAP_SIZE                      ( 64U * 1024U )
#define configUSE_IDLE_HOOK                        0
#define configUSE_TICK_HOOK                        0
#define configUSE_MALLOC_FAILED_HOOK               0
#define configCHECK_FOR_STACK_OVERFLOW             0
#define configUSE_TRACE_FACILITY                   1
#define configUSE_TIMERS                           0
#define INCLUDE_vTaskDelay                         1
#define INCLUDE_xTaskDelayUntil                    1

/* 3 priority bits on mps2-an385: the kernel at the lowest, its API up to 0xA0. */
#define configPRIO_BITS                            3
#define configKERNEL_INTERRUPT_PRIORITY            0xE0
#define configMAX_SYSCALL_INTERRUPT_PRIORITY       0xA0

#ifndef __ASSEMBLER__
void app_assert_failed( const char * file, int line ) __attribute__( ( noreturn ) );
#endif
#define configASSERT( x )                              \
    do {                                               \
        if( ( x ) == 0 ) {                             \
            app_assert_failed( __FILE__, __LINE__ );   \
        }                                              \
    } while( 0 )

/* The library's hooks: last, before the closing #endif. */
#include "freertos_cpu_usage_hooks.h"

#endif /* FREERTOS_CONFIG_H */
