/*
 * kernel_posix_app_hooks.c - the application functions that the simulator's
 * FreeRTOSConfig.h makes the kernel call, for the kernel archive that is linked
 * without the demo (libcu_kernel_posix.a, used by c_api_misuse for the port's
 * critical section; the scheduler never starts there, so none of these ever runs).
 *
 * The simulator gets them from demo/workloads.c (vApplicationTickHook, the tick-sampled
 * accounting) and freertos-port/posix/main.c (vPosixIdleSleep, tickless idle).
 */
#include "FreeRTOS.h"
#include "task.h"

void vApplicationTickHook( void )
{
}

void vPosixIdleSleep( uint64_t ullExpectedIdleTicks )
{
    ( void ) ullExpectedIdleTicks;
}
