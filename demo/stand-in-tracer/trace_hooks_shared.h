/*
 * trace_hooks_shared.h - the firmware's own header that lets two trace tools share the
 * kernel's trace macros: here the stand-in tracer (stand_in_tracer.h) and
 * freertos-cpu-usage. It is what the README's "Beside another trace tool" tells a
 * firmware to write for SystemView or TraceRecorder, and FreeRTOSConfig.h ends with
 *
 *     #include "stand_in_tracer.h"       (the other tool first)
 *     #include "trace_hooks_shared.h"
 *
 * Each macro both tools use is defined again as the other tool's line followed, or
 * preceded, by the library's CPU_USAGE_TRACE_<X>. Where the order matters, the
 * library's call sits next to the event it marks, so that its figures stay what they
 * are without the other tool, and the other tool's own work is charged where it runs:
 *
 *  - interrupts: the library enters first and exits last, so the other tool's work in
 *    the handler is interrupt time, not time of the task the handler interrupted;
 *  - switches: the library's switch-in comes last, right before the next task runs,
 *    so the other tool's bookkeeping of the switch goes, with the kernel's choosing of
 *    the next task, to the task switched out (the library's rule for every switch);
 *  - tickless sleep: the library's begin comes last and its end first, so that only
 *    the sleep itself is "sleep" and the other tool's work around it is the idle task's.
 *
 * Create, delete, tick and scheduler start are points in time, not edges of a stretch
 * the library charges: there the other tool goes first, as the kernel would have
 * called it alone.
 */
#ifndef TRACE_HOOKS_SHARED_H
#define TRACE_HOOKS_SHARED_H

#ifndef STAND_IN_TRACER_H
    #error "include the other trace tool's header (stand_in_tracer.h) before trace_hooks_shared.h"
#endif

/* Each trace macro the other tool took is called from its combined definition below. */
#define CPU_USAGE_SHARED_HOOKS    1

/* The other tool keeps its handles in uxTaskNumber: the library's IDs go to
 * thread-local storage pointer 0, which the firmware does not use otherwise. */
#define CPU_USAGE_TLS_INDEX       0
#if !defined( configNUM_THREAD_LOCAL_STORAGE_POINTERS ) || ( configNUM_THREAD_LOCAL_STORAGE_POINTERS < ( CPU_USAGE_TLS_INDEX + 1 ) )
    #undef configNUM_THREAD_LOCAL_STORAGE_POINTERS
    #define configNUM_THREAD_LOCAL_STORAGE_POINTERS    ( CPU_USAGE_TLS_INDEX + 1 )
#endif

#include "freertos_cpu_usage_hooks.h"

#undef traceTASK_CREATE
#define traceTASK_CREATE( pxNewTCB )              \
    do {                                          \
        STAND_IN_TASK_CREATE( pxNewTCB );         \
        CPU_USAGE_TRACE_TASK_CREATE( pxNewTCB );  \
    } while( 0 )

#undef traceTASK_DELETE
#define traceTASK_DELETE( pxTaskToDelete )              \
    do {                                                \
        STAND_IN_TASK_DELETE( pxTaskToDelete );         \
        CPU_USAGE_TRACE_TASK_DELETE( pxTaskToDelete );  \
    } while( 0 )

#undef traceTASK_SWITCHED_IN
#define traceTASK_SWITCHED_IN()                 \
    do {                                        \
        STAND_IN_TASK_SWITCHED_IN();            \
        CPU_USAGE_TRACE_TASK_SWITCHED_IN();     \
    } while( 0 )

/* The library does nothing at a switch-out (CPU_USAGE_TRACE_TASK_SWITCHED_OUT is
 * empty): the other tool's definition may stay as it is. */

#undef traceTASK_INCREMENT_TICK
#define traceTASK_INCREMENT_TICK( xTickCount )                \
    do {                                                      \
        STAND_IN_TASK_INCREMENT_TICK( xTickCount );           \
        CPU_USAGE_TRACE_TASK_INCREMENT_TICK( xTickCount );    \
    } while( 0 )

#undef traceSTARTING_SCHEDULER
#define traceSTARTING_SCHEDULER( xIdleTaskHandles )               \
    do {                                                          \
        STAND_IN_STARTING_SCHEDULER( xIdleTaskHandles );          \
        CPU_USAGE_TRACE_STARTING_SCHEDULER( xIdleTaskHandles );   \
    } while( 0 )

#undef traceISR_ENTER
#define traceISR_ENTER()                \
    do {                                \
        CPU_USAGE_TRACE_ISR_ENTER();    \
        STAND_IN_ISR_ENTER();           \
    } while( 0 )

#undef traceISR_EXIT
#define traceISR_EXIT()                 \
    do {                                \
        STAND_IN_ISR_EXIT();            \
        CPU_USAGE_TRACE_ISR_EXIT();     \
    } while( 0 )

#undef traceISR_EXIT_TO_SCHEDULER
#define traceISR_EXIT_TO_SCHEDULER()                \
    do {                                            \
        STAND_IN_ISR_EXIT_TO_SCHEDULER();           \
        CPU_USAGE_TRACE_ISR_EXIT_TO_SCHEDULER();    \
    } while( 0 )

#undef traceLOW_POWER_IDLE_BEGIN
#define traceLOW_POWER_IDLE_BEGIN()                 \
    do {                                            \
        STAND_IN_LOW_POWER_IDLE_BEGIN();            \
        CPU_USAGE_TRACE_LOW_POWER_IDLE_BEGIN();     \
    } while( 0 )

#undef traceLOW_POWER_IDLE_END
#define traceLOW_POWER_IDLE_END()               \
    do {                                        \
        CPU_USAGE_TRACE_LOW_POWER_IDLE_END();   \
        STAND_IN_LOW_POWER_IDLE_END();          \
    } while( 0 )

#endif /* TRACE_HOOKS_SHARED_H */
