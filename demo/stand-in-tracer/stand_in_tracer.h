/*
 * stand_in_tracer.h - a stand-in for another trace tool, for the demo's tracer variant.
 *
 * It stands for SEGGER SystemView or Percepio TraceRecorder in a firmware that adds
 * freertos-cpu-usage beside them: like TraceRecorder's trcRecorder.h it is included at
 * the end of FreeRTOSConfig.h and #undefs, then defines, the kernel's trace macros the
 * library uses too; like TraceRecorder (snapshot mode) it keeps a handle of its own in
 * every TCB's uxTaskNumber. Instead of recording events it counts them, so that a test
 * can check that it still saw every one once the firmware shares the macros with the
 * library (trace_hooks_shared.h, next to this file). Our own code, written for the
 * tests; it is built only into the tracer variant (build/posix-tracer/freertos-sim,
 * build/mps2-an385/demo-tracer.elf), whose shell command `tracer` prints the counts.
 *
 * Each trace<X> here is one line, STAND_IN_<X>(...), the way SystemView's are calls of
 * its recorder: a combined definition calls that line and the library's side.
 */
#ifndef STAND_IN_TRACER_H
#define STAND_IN_TRACER_H

#if !defined( configUSE_TRACE_FACILITY ) || ( configUSE_TRACE_FACILITY != 1 )
    #error "stand_in_tracer.h keeps its handles in uxTaskNumber: set configUSE_TRACE_FACILITY 1"
#endif

#ifndef __ASSEMBLER__

#include <stdint.h>

/* What it counted since boot. Written in the kernel's trace macros (the ISR ones from
 * handlers), always with interrupts masked; read by the demo's `tracer` command in a
 * critical section. */
typedef struct StandInTracer
{
    uint32_t ulCreates;             /* traceTASK_CREATE */
    uint32_t ulDeletes;             /* traceTASK_DELETE */
    uint32_t ulSwitchIns;           /* traceTASK_SWITCHED_IN */
    uint32_t ulSwitchOuts;          /* traceTASK_SWITCHED_OUT */
    uint32_t ulHandleMismatches;    /* switch-ins whose TCB no longer held its handle */
    uint32_t ulTicks;               /* traceTASK_INCREMENT_TICK, each tick once */
    uint32_t ulSchedulerStarts;     /* traceSTARTING_SCHEDULER */
    uint32_t ulIsrEnters;           /* traceISR_ENTER */
    uint32_t ulIsrExits;            /* traceISR_EXIT */
    uint32_t ulIsrExitsToScheduler; /* traceISR_EXIT_TO_SCHEDULER */
    uint32_t ulSleeps;              /* traceLOW_POWER_IDLE_BEGIN */
    uint32_t ulWakes;               /* traceLOW_POWER_IDLE_END */
} StandInTracer_t;

extern volatile StandInTracer_t xStandInTracer;

#endif /* __ASSEMBLER__ */

/* One more of xField, with interrupts masked up to the kernel's limit: a handler that
 * counts may be interrupted by a more urgent one that counts too. */
#define STAND_IN_COUNT_( xField )                                                   \
    do {                                                                            \
        UBaseType_t uxStandInMask = ( UBaseType_t ) portSET_INTERRUPT_MASK_FROM_ISR(); \
        xStandInTracer.xField++;                                                    \
        portCLEAR_INTERRUPT_MASK_FROM_ISR( uxStandInMask );                         \
    } while( 0 )

/* Its handle of a task: the creation number in the high 16 bits and its complement in
 * the low 16, so that a switch-in can tell its own handle from anything else written
 * to uxTaskNumber (the library's small IDs, 0). */
#define STAND_IN_HANDLE_( ulNumber ) \
    ( ( ( ( uint32_t ) ( ulNumber ) & 0xFFFFUL ) << 16 ) | ( ~( uint32_t ) ( ulNumber ) & 0xFFFFUL ) )
#define STAND_IN_IS_HANDLE_( uxValue ) \
    ( ( ( ( ( uint32_t ) ( uxValue ) >> 16 ) ^ ( uint32_t ) ( uxValue ) ) & 0xFFFFUL ) == 0xFFFFUL )

/* ---- Its side of each trace macro (they expand in tasks.c and the kernel's port) --- */

#define STAND_IN_TASK_CREATE( pxNewTCB )                                            \
    do {                                                                            \
        UBaseType_t uxStandInMask = ( UBaseType_t ) portSET_INTERRUPT_MASK_FROM_ISR(); \
        xStandInTracer.ulCreates++;                                                 \
        ( pxNewTCB )->uxTaskNumber = ( UBaseType_t ) STAND_IN_HANDLE_( xStandInTracer.ulCreates ); \
        portCLEAR_INTERRUPT_MASK_FROM_ISR( uxStandInMask );                         \
    } while( 0 )

#define STAND_IN_TASK_DELETE( pxTaskToDelete )    STAND_IN_COUNT_( ulDeletes )

#define STAND_IN_TASK_SWITCHED_IN()                                                 \
    do {                                                                            \
        STAND_IN_COUNT_( ulSwitchIns );                                             \
        if( !STAND_IN_IS_HANDLE_( pxCurrentTCB->uxTaskNumber ) )                    \
        {                                                                           \
            STAND_IN_COUNT_( ulHandleMismatches );                                  \
        }                                                                           \
    } while( 0 )

#define STAND_IN_TASK_SWITCHED_OUT()    STAND_IN_COUNT_( ulSwitchOuts )

/* The kernel calls traceTASK_INCREMENT_TICK for every tick interrupt, and again for
 * each tick that came while the scheduler was suspended when xTaskResumeAll() catches
 * up on them (scheduler running, xPendedTicks not yet 0): counted once, at the
 * interrupt, as TraceRecorder counts its OS ticks. */
#define STAND_IN_TASK_INCREMENT_TICK( xTickCount )                                  \
    do {                                                                            \
        if( ( uxSchedulerSuspended != ( UBaseType_t ) 0U ) || ( xPendedTicks == ( TickType_t ) 0U ) ) \
        {                                                                           \
            STAND_IN_COUNT_( ulTicks );                                             \
        }                                                                           \
    } while( 0 )

#define STAND_IN_STARTING_SCHEDULER( xIdleTaskHandles )    STAND_IN_COUNT_( ulSchedulerStarts )
#define STAND_IN_ISR_ENTER()                               STAND_IN_COUNT_( ulIsrEnters )
#define STAND_IN_ISR_EXIT()                                STAND_IN_COUNT_( ulIsrExits )
#define STAND_IN_ISR_EXIT_TO_SCHEDULER()                   STAND_IN_COUNT_( ulIsrExitsToScheduler )
#define STAND_IN_LOW_POWER_IDLE_BEGIN()                    STAND_IN_COUNT_( ulSleeps )
#define STAND_IN_LOW_POWER_IDLE_END()                      STAND_IN_COUNT_( ulWakes )

/* ---- The kernel's macros, taken the way TraceRecorder takes them ------------------ */

#undef traceTASK_CREATE
#define traceTASK_CREATE( pxNewTCB )                      STAND_IN_TASK_CREATE( pxNewTCB )
#undef traceTASK_DELETE
#define traceTASK_DELETE( pxTaskToDelete )                STAND_IN_TASK_DELETE( pxTaskToDelete )
#undef traceTASK_SWITCHED_IN
#define traceTASK_SWITCHED_IN()                           STAND_IN_TASK_SWITCHED_IN()
#undef traceTASK_SWITCHED_OUT
#define traceTASK_SWITCHED_OUT()                          STAND_IN_TASK_SWITCHED_OUT()
#undef traceTASK_INCREMENT_TICK
#define traceTASK_INCREMENT_TICK( xTickCount )            STAND_IN_TASK_INCREMENT_TICK( xTickCount )
#undef traceSTARTING_SCHEDULER
#define traceSTARTING_SCHEDULER( xIdleTaskHandles )       STAND_IN_STARTING_SCHEDULER( xIdleTaskHandles )
#undef traceISR_ENTER
#define traceISR_ENTER()                                  STAND_IN_ISR_ENTER()
#undef traceISR_EXIT
#define traceISR_EXIT()                                   STAND_IN_ISR_EXIT()
#undef traceISR_EXIT_TO_SCHEDULER
#define traceISR_EXIT_TO_SCHEDULER()                      STAND_IN_ISR_EXIT_TO_SCHEDULER()
#undef traceLOW_POWER_IDLE_BEGIN
#define traceLOW_POWER_IDLE_BEGIN()                       STAND_IN_LOW_POWER_IDLE_BEGIN()
#undef traceLOW_POWER_IDLE_END
#define traceLOW_POWER_IDLE_END()                         STAND_IN_LOW_POWER_IDLE_END()

#endif /* STAND_IN_TRACER_H */
