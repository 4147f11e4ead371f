/*
 * freertos_cpu_usage_hooks.h - connects FreeRTOS's trace hooks to freertos-cpu-usage.
 *
 * Add this at the end of FreeRTOSConfig.h, after every setting, before the closing
 * #endif of its include guard:
 *
 *     #include "freertos_cpu_usage_hooks.h"
 *
 *     #endif
 *
 * and link libfreertos_cpu_usage.a. Nothing else is needed.
 *
 * The macros below expand inside the kernel's tasks.c, where the task control block
 * (TCB) is visible. Each task's small ID is kept in its TCB, so the switch hooks find
 * a task's slot in O(1) without hashing its address, and a new task whose TCB reuses
 * a dead task's address always starts with a fresh ID. CPU_USAGE_TASK_ID( xTask ) gives
 * a task handle's ID (the ID the reports show).
 *
 * Where the ID lives. By default in the field FreeRTOS reserves for trace code,
 * uxTaskNumber (present when configUSE_TRACE_FACILITY is 1, which this header sets if
 * you have not): application code must then not call vTaskSetTaskNumber(). A firmware
 * whose other trace tool keeps its own numbers there (Percepio's TraceRecorder does)
 * defines CPU_USAGE_TLS_INDEX to a thread-local storage index of its own instead
 * (below configNUM_THREAD_LOCAL_STORAGE_POINTERS), and the ID lives in that pointer.
 *
 * Beside another trace tool. The kernel has one macro per trace point, and a tool such
 * as SEGGER SystemView or TraceRecorder defines them itself (TraceRecorder in a header
 * included at the end of FreeRTOSConfig.h, with #undef first). For each trace<X> this
 * header defines CPU_USAGE_TRACE_<X>, the library's side of it with the same
 * arguments, and defines trace<X> as it only where trace<X> is still free. One already
 * defined stops the build with an #error naming it, unless the firmware says it has
 * made room for both: include the other tool's header first, then
 *
 *     #define CPU_USAGE_SHARED_HOOKS   1
 *     #define CPU_USAGE_TLS_INDEX      0     (if the other tool uses uxTaskNumber)
 *     #include "freertos_cpu_usage_hooks.h"
 *     #include "trace_hooks_shared.h"       (yours: each macro both tools define)
 *
 * where, for each trace<X> the other tool defined, trace_hooks_shared.h has
 *
 *     #undef  traceTASK_SWITCHED_IN
 *     #define traceTASK_SWITCHED_IN()   do { <the other tool's definition>;
 *                                            CPU_USAGE_TRACE_TASK_SWITCHED_IN(); } while( 0 )
 *
 * Include the other tool's header before this one: one included after it could
 * replace the library's macros without a word (TraceRecorder #undefs what it defines).
 * With CPU_USAGE_SHARED_HOOKS 1, CPU_USAGE_ISR_ENTER() and CPU_USAGE_ISR_EXIT() in your
 * handlers are traceISR_ENTER() and traceISR_EXIT(), so both tools see them (below).
 * The README's "Beside another trace tool" says it in short, and
 * docs/other-trace-tools.md has the whole recipe for SystemView and TraceRecorder.
 *
 * The lifecycle the hooks see, for one task:
 *
 *     xTaskCreate()      traceTASK_CREATE       -> ID allocated (or the shared bucket 0)
 *          |
 *          v
 *     +-> traceTASK_SWITCHED_IN                 -> time now runs on the task's ID
 *     |    | (tick hooks while it runs)
 *     |    | ISR_ENTER ... ISR_EXIT             -> that stretch runs on "interrupts"
 *     +-- traceTASK_SWITCHED_OUT, then the next task's SWITCHED_IN
 *          |                                    -> time runs on the next task
 *     vTaskDelete(x)     traceTASK_DELETE       -> ID quarantined, time kept, marked deleted
 *
 *     A task deleting itself sees DELETE *before* its last switch; its time runs on
 *     until that switch. The kernel frees the TCB later (idle task) and the heap may
 *     hand the same address to the next xTaskCreate(): that task gets a new ID.
 *     A quarantined ID is handed out again only after every window in which the dead
 *     task had time has been published and replaced.
 *
 * And in the idle task, with tickless idle (configUSE_TICKLESS_IDLE != 0):
 *
 *     IDLE --> traceLOW_POWER_IDLE_BEGIN        -> time runs on "sleep"
 *                 | portSUPPRESS_TICKS_AND_SLEEP()  (an interrupt that wakes the core,
 *                 |                                  or arrives meanwhile, still runs
 *                 |                                  on "interrupts")
 *     IDLE <-- traceLOW_POWER_IDLE_END          -> back on the idle task
 *
 * Interrupts. The kernel's own tick interrupt is covered (the Cortex-M ports call
 * traceISR_ENTER/EXIT in their SysTick handler). An interrupt handler of your own is
 * counted when it brackets its body:
 *
 *     void MyIRQHandler( void )
 *     {
 *         BaseType_t xWoken = pdFALSE;
 *
 *         CPU_USAGE_ISR_ENTER();               <- first thing
 *         ...                                  (FromISR calls, &xWoken)
 *         portYIELD_FROM_ISR( xWoken );        <- last thing; OR CPU_USAGE_ISR_EXIT()
 *     }
 *
 * portYIELD_FROM_ISR() and portEND_SWITCHING_ISR() already end the interrupt (the
 * kernel's portmacro.h calls traceISR_EXIT or traceISR_EXIT_TO_SCHEDULER in them):
 * end with one of them or with CPU_USAGE_ISR_EXIT(), never both. An exit without an
 * enter (a handler that calls portYIELD_FROM_ISR() but not CPU_USAGE_ISR_ENTER()) is
 * ignored: its time stays with the task it interrupted. Nested handlers are counted
 * once, from the outermost enter to the outermost exit.
 *
 * Interrupts that run above configMAX_SYSCALL_INTERRUPT_PRIORITY (numerically below it
 * on Cortex-M) must not use these macros: the library's state has one writer at a
 * time, guaranteed by masking interrupts up to that priority around every call (every
 * macro here does it; the kernel calls the others with the mask already up), and
 * nothing masks those interrupts. Their time stays with whatever they interrupted.
 * Nor does the library hold them off: once the scheduler has started, its own short
 * critical sections raise BASEPRI to configMAX_SYSCALL_INTERRUPT_PRIORITY, like the
 * kernel's (PRIMASK on cores without BASEPRI: see CPU_USAGE_MAX_SYSCALL_PRIORITY).
 *
 * Event trace (optional, off by default). Define CPU_USAGE_TRACE to 1 in
 * FreeRTOSConfig.h, before this header, and the hooks call the library's
 * cpu_usage_hook_*_traced functions instead: the same work, plus a record of every
 * switch, interrupt, sleep and window boundary in a ring of CPU_USAGE_TRACE_EVENTS
 * events (8 bytes each), which the shell command cpu_usage_trace starts, stops and
 * prints. Without it the hooks call exactly what they call otherwise, and the ring
 * is not linked. The traced hooks are in the library built with its `trace` Cargo
 * feature (cargo build --features trace): without it, the link fails with
 * "undefined reference to `cpu_usage_hook_task_switched_in_traced'" and the like.
 */
#ifndef FREERTOS_CPU_USAGE_HOOKS_H
#define FREERTOS_CPU_USAGE_HOOKS_H

#if !defined( configMAX_PRIORITIES ) || !defined( configTICK_RATE_HZ )
    #error "freertos_cpu_usage_hooks.h is included too early: include it at the end of FreeRTOSConfig.h, after every setting, before its closing #endif (Rust with freertos-build: freertos_cpu_usage_build::add_hooks(&mut builder) does, instead of a UserConfig.h that includes it)"
#endif

#ifdef tskKERNEL_VERSION_NUMBER
    #error "freertos_cpu_usage_hooks.h is included after task.h: include it at the end of FreeRTOSConfig.h instead, before its closing #endif"
#endif

/* An SMP kernel (configNUMBER_OF_CORES > 1) calls the library's hooks for several
 * cores, with the core each runs on (portGET_CORE_ID()): see "Several cores" below. */
#if defined( configNUMBER_OF_CORES ) && ( configNUMBER_OF_CORES > 1 )
    #define CPU_USAGE_SMP_    1
    #if defined( CPU_USAGE_TRACE ) && ( CPU_USAGE_TRACE == 1 )
        #error "CPU_USAGE_TRACE 1 is for single-core FreeRTOS so far: leave it out with configNUMBER_OF_CORES > 1"
    #endif
#else
    #define CPU_USAGE_SMP_    0
#endif

/* Where each task's ID lives in its TCB (see "Where the ID lives" at the top). */
#ifdef CPU_USAGE_TLS_INDEX
    #if !defined( configNUM_THREAD_LOCAL_STORAGE_POINTERS ) || ( CPU_USAGE_TLS_INDEX >= configNUM_THREAD_LOCAL_STORAGE_POINTERS )
        #error "CPU_USAGE_TLS_INDEX must be below configNUM_THREAD_LOCAL_STORAGE_POINTERS: raise that in FreeRTOSConfig.h"
    #endif
#else
    /* uxTaskNumber only exists with the trace facility. */
    #ifndef configUSE_TRACE_FACILITY
        #define configUSE_TRACE_FACILITY    1
    #elif ( configUSE_TRACE_FACILITY != 1 )
        #error "freertos-cpu-usage needs configUSE_TRACE_FACILITY 1: change it in FreeRTOSConfig.h (Rust: enable freertos-next's feature trace-facility)"
    #endif
#endif

#ifndef __ASSEMBLER__

#include "freertos_cpu_usage.h"

/* The library is built for a number of cores (CPU_USAGE_CORES, its build's setting):
 * the kernel's must be the same. */
#if CPU_USAGE_SMP_
    #if !defined( CPU_USAGE_CORES ) || ( CPU_USAGE_CORES != configNUMBER_OF_CORES )
        #error "the library is built for another number of cores than configNUMBER_OF_CORES: build it with CPU_USAGE_CORES set to configNUMBER_OF_CORES, and include that build's freertos_cpu_usage.h (Rust: CPU_USAGE_CORES in the [env] of .cargo/config.toml)"
    #endif
#elif defined( CPU_USAGE_CORES ) && ( CPU_USAGE_CORES != 1 )
    #error "the library is built for several cores (CPU_USAGE_CORES) but the kernel has one: build it without CPU_USAGE_CORES, or set configNUMBER_OF_CORES"
#endif

/* The library function a hook calls: its traced twin with CPU_USAGE_TRACE 1, which
 * the library has when built with its `trace` feature (the same signatures as the
 * hooks in freertos_cpu_usage.h; the library generates them from those). */
#if defined( CPU_USAGE_TRACE ) && ( CPU_USAGE_TRACE == 1 )
    #define CPU_USAGE_HOOK_( xName )    xName##_traced
    #ifdef __cplusplus
        extern "C" {
    #endif
    uint32_t cpu_usage_hook_task_create_traced( void * tcb, const char * name );
    int32_t cpu_usage_hook_task_delete_traced( void * tcb, uint32_t id );
    void cpu_usage_hook_task_switched_in_traced( uint32_t now, uint32_t id );
    void cpu_usage_hook_tick_traced( void );
    void cpu_usage_hook_isr_enter_traced( void );
    void cpu_usage_hook_isr_exit_traced( void );
    void cpu_usage_hook_sleep_begin_traced( void );
    void cpu_usage_hook_sleep_end_traced( void );
    #ifdef __cplusplus
        }
    #endif
#else
    #define CPU_USAGE_HOOK_( xName )    xName
#endif

/* A task's ID in its TCB, read and written in the kernel's macros; and, for the
 * application, the ID of a task handle (what the reports call the task). */
#ifdef CPU_USAGE_TLS_INDEX
    #define CPU_USAGE_ID_OF_( pxTCB ) \
    ( ( uint32_t ) ( uintptr_t ) ( pxTCB )->pvThreadLocalStoragePointers[ CPU_USAGE_TLS_INDEX ] )
    #define CPU_USAGE_SET_ID_( pxTCB, ulId ) \
    ( ( pxTCB )->pvThreadLocalStoragePointers[ CPU_USAGE_TLS_INDEX ] = ( void * ) ( uintptr_t ) ( ulId ) )
    #define CPU_USAGE_TASK_ID( xTask ) \
    ( ( uint32_t ) ( uintptr_t ) pvTaskGetThreadLocalStoragePointer( ( xTask ), CPU_USAGE_TLS_INDEX ) )
#else
    #define CPU_USAGE_ID_OF_( pxTCB )           ( ( uint32_t ) ( pxTCB )->uxTaskNumber )
    #define CPU_USAGE_SET_ID_( pxTCB, ulId )    ( ( pxTCB )->uxTaskNumber = ( UBaseType_t ) ( ulId ) )
    #define CPU_USAGE_TASK_ID( xTask )          ( ( uint32_t ) uxTaskGetTaskNumber( xTask ) )
#endif

/* ---- The library's side of each trace macro -------------------------------------
 *
 * Each CPU_USAGE_TRACE_<X> does what the library needs at the kernel's trace<X>, with
 * the same arguments. Below, every trace<X> still free is defined as it; a firmware
 * with another tracer calls them from its own definitions ("Beside another trace
 * tool" at the top). */

/* Allocate an ID and remember the name; the ID is stored in the new TCB. */
#define CPU_USAGE_TRACE_TASK_CREATE( pxNewTCB )                                             \
    do {                                                                                    \
        CPU_USAGE_SET_ID_( pxNewTCB,                                                        \
                           CPU_USAGE_HOOK_( cpu_usage_hook_task_create )( ( void * ) ( pxNewTCB ), \
                                                                          ( pxNewTCB )->pcTaskName ) ); \
    } while( 0 )

#define CPU_USAGE_TRACE_TASK_DELETE( pxTaskToDelete )                                       \
    do {                                                                                    \
        ( void ) CPU_USAGE_HOOK_( cpu_usage_hook_task_delete )( ( void * ) ( pxTaskToDelete ), \
                                                                CPU_USAGE_ID_OF_( pxTaskToDelete ) ); \
    } while( 0 )

/* The clock is read here and the reading passed in: the hook then calls nothing, so
 * the commonest hook saves no registers around a call. */
#define CPU_USAGE_TRACE_TASK_SWITCHED_IN()                                                  \
    do {                                                                                    \
        uint32_t ulCpuUsageNow_ = cpu_usage_clock_read();                                   \
        CPU_USAGE_HOOK_( cpu_usage_hook_task_switched_in )( ulCpuUsageNow_,                 \
                                                            CPU_USAGE_ID_OF_( pxCurrentTCB ) ); \
    } while( 0 )

/* Nothing to do: the next SWITCHED_IN charges the task switched out, a few dozen
 * instructions of the kernel choosing the next task included (the kernel's own
 * run-time stats, which read their counter before choosing, give those to the task
 * switched in). One clock reading per context switch instead of two. */
#define CPU_USAGE_TRACE_TASK_SWITCHED_OUT()                                                 \
    do {                                                                                    \
    } while( 0 )

/* Reads the clock at least once per tick, so a 32-bit counter wrap between two hooks
 * can neither lose nor double time, and windows roll over even when nothing switches. */
#define CPU_USAGE_TRACE_TASK_INCREMENT_TICK( xTickCount )                                   \
    do {                                                                                    \
        CPU_USAGE_HOOK_( cpu_usage_hook_tick )();                                           \
    } while( 0 )

/* configCPU_CLOCK_HZ may be a variable (SystemCoreClock): it is read when the scheduler
 * starts. Hosted ports need not define it. */
#ifdef configCPU_CLOCK_HZ
    #define CPU_USAGE_CPU_CLOCK_HZ    ( ( uint32_t ) ( configCPU_CLOCK_HZ ) )
#else
    #define CPU_USAGE_CPU_CLOCK_HZ    ( ( uint32_t ) 0 )
#endif

/* The interrupt priority the kernel masks up to, for the library's critical section
 * (its readers: show_cpu_usage, cpu_usage_snapshot, the setters): on Cortex-M cores with
 * BASEPRI (M3, M4, M7, M33, M35P, M55, M85) it raises BASEPRI to this, as the kernel's
 * critical sections do, so interrupts above it still run. 0 means "no such priority":
 * the library then masks every interrupt (PRIMASK), as it also does on cores without
 * BASEPRI (M0, M0+, M23) and before the scheduler starts. Ports without it pass 0
 * (POSIX), or the machine timer's address in its place (RISC-V: below); elsewhere the
 * value is passed on and only a BASEPRI build uses it. */
#ifdef configMAX_SYSCALL_INTERRUPT_PRIORITY
    #define CPU_USAGE_MAX_SYSCALL_PRIORITY    ( ( uint32_t ) ( configMAX_SYSCALL_INTERRUPT_PRIORITY ) )
#else
    #define CPU_USAGE_MAX_SYSCALL_PRIORITY    ( ( uint32_t ) 0 )
#endif

/* RISC-V (FreeRTOS's GCC/RISC-V port, which requires configMTIME_BASE_ADDRESS): the
 * machine timer's mtime, the library's default clock there, at configCPU_CLOCK_HZ (the
 * rate the port counts its tick in); 0 where there is none. It takes the place of the
 * interrupt mask above, which that port does not have. */
#ifdef configMTIME_BASE_ADDRESS
    #define CPU_USAGE_PORT_SETTING    ( ( uint32_t ) ( configMTIME_BASE_ADDRESS ) )
#else
    #define CPU_USAGE_PORT_SETTING    CPU_USAGE_MAX_SYSCALL_PRIORITY
#endif

/* The idle task and the timer service task, which vTaskStartScheduler() creates after
 * every task of the application, keep an ID of their own however many tasks came
 * before them: one that landed in the overflow bucket gets one of the IDs the library
 * keeps for them until the scheduler starts, stored in its TCB here. */
#define CPU_USAGE_KERNEL_TASK_( xHandle )                                                   \
    do {                                                                                    \
        TaskHandle_t xCpuUsageTask = ( xHandle );                                           \
        CPU_USAGE_SET_ID_( xCpuUsageTask,                                                   \
                           cpu_usage_hook_kernel_task( ( void * ) xCpuUsageTask,            \
                                                       CPU_USAGE_ID_OF_( xCpuUsageTask ),   \
                                                       xCpuUsageTask->pcTaskName,           \
                                                       ( uint32_t ) ( xCpuUsageTask == pxCurrentTCB ) ) ); \
    } while( 0 )

#if defined( configUSE_TIMERS ) && ( configUSE_TIMERS == 1 )
    #define CPU_USAGE_TIMER_TASK_()    CPU_USAGE_KERNEL_TASK_( xTimerGetTimerDaemonTaskHandle() )
#else
    #define CPU_USAGE_TIMER_TASK_()    do {} while( 0 )
#endif

/* Tells the library the idle task's ID (for the idle and load lines), the CPU clock
 * (for the default clock on bare metal) and the kernel's interrupt mask or, on RISC-V,
 * the machine timer's address (above). Windows start here. */
#define CPU_USAGE_TRACE_STARTING_SCHEDULER( xIdleTaskHandles )                              \
    do {                                                                                    \
        CPU_USAGE_KERNEL_TASK_( ( xIdleTaskHandles )[ 0 ] );                                \
        CPU_USAGE_TIMER_TASK_();                                                            \
        cpu_usage_hook_scheduler_start( CPU_USAGE_ID_OF_( ( xIdleTaskHandles )[ 0 ] ),      \
                                        CPU_USAGE_CPU_CLOCK_HZ,                             \
                                        CPU_USAGE_PORT_SETTING );                           \
    } while( 0 )

/* One library call with interrupts masked up to configMAX_SYSCALL_INTERRUPT_PRIORITY.
 * portYIELD_FROM_ISR() calls traceISR_EXIT from a handler that runs with interrupts
 * unmasked, and a more urgent handler could then enter the library half-way through
 * the call. The port's macros expand where this one is used: a BASEPRI raise and
 * restore on Cortex-M (a few instructions, also in the SysTick handler, which already
 * masked them); nothing on the POSIX port, whose "interrupts" are signal handlers that
 * run with every signal blocked. */
#define CPU_USAGE_MASKED_CALL_( xCall )                                                     \
    do {                                                                                    \
        UBaseType_t uxCpuUsageSavedMask = ( UBaseType_t ) portSET_INTERRUPT_MASK_FROM_ISR(); \
        xCall;                                                                              \
        portCLEAR_INTERRUPT_MASK_FROM_ISR( uxCpuUsageSavedMask );                           \
    } while( 0 )

/* The library's enter and exit of an interrupt. */
#define CPU_USAGE_ISR_ENTER_()    CPU_USAGE_MASKED_CALL_( CPU_USAGE_HOOK_( cpu_usage_hook_isr_enter )() )
#define CPU_USAGE_ISR_EXIT_()     CPU_USAGE_MASKED_CALL_( CPU_USAGE_HOOK_( cpu_usage_hook_isr_exit )() )

/* For your own interrupt handlers: see "Interrupts" at the top of this file. Beside
 * another trace tool they are the kernel's traceISR_ENTER and traceISR_EXIT, whose
 * shared definitions call both tools: portYIELD_FROM_ISR() ends a handler with
 * traceISR_EXIT for both, so the other tool must see the handler's enter as well, or
 * it would count an exit it never saw begin. */
#if defined( CPU_USAGE_SHARED_HOOKS ) && ( CPU_USAGE_SHARED_HOOKS == 1 )
    #define CPU_USAGE_ISR_ENTER()    traceISR_ENTER()
    #define CPU_USAGE_ISR_EXIT()     traceISR_EXIT()
#else
    #define CPU_USAGE_ISR_ENTER()    CPU_USAGE_ISR_ENTER_()
    #define CPU_USAGE_ISR_EXIT()     CPU_USAGE_ISR_EXIT_()
#endif

/* The kernel's tick handler (Cortex-M ports), and portYIELD_FROM_ISR() /
 * portEND_SWITCHING_ISR() at the end of any handler. Leaving to the scheduler is an
 * exit like any other: the context switch that follows (PendSV on Cortex-M) is
 * charged, as every switch is, by the next SWITCHED_IN. */
#define CPU_USAGE_TRACE_ISR_ENTER()                CPU_USAGE_ISR_ENTER_()
#define CPU_USAGE_TRACE_ISR_EXIT()                 CPU_USAGE_ISR_EXIT_()
#define CPU_USAGE_TRACE_ISR_EXIT_TO_SCHEDULER()    CPU_USAGE_ISR_EXIT_()

/* Tickless idle: called by the idle task with the scheduler suspended but interrupts
 * enabled, so a critical section and not the ISR mask, which is empty on ports where
 * only handlers are meant to use it (POSIX: the tick signal would land mid-call). */
#define CPU_USAGE_CRITICAL_CALL_( xCall )                                                   \
    do {                                                                                    \
        portENTER_CRITICAL();                                                               \
        xCall;                                                                              \
        portEXIT_CRITICAL();                                                                \
    } while( 0 )

#define CPU_USAGE_TRACE_LOW_POWER_IDLE_BEGIN()    CPU_USAGE_CRITICAL_CALL_( CPU_USAGE_HOOK_( cpu_usage_hook_sleep_begin )() )
#define CPU_USAGE_TRACE_LOW_POWER_IDLE_END()      CPU_USAGE_CRITICAL_CALL_( CPU_USAGE_HOOK_( cpu_usage_hook_sleep_end )() )

/* ---- Several cores ---------------------------------------------------------------------
 *
 * On an SMP kernel (configNUMBER_OF_CORES > 1) these replace the definitions above:
 * each hook names the core it runs on, portGET_CORE_ID(), and the library accounts each
 * core apart. The hooks run one at a time: the kernel calls the switch, the tick, the
 * creates and deletes with its ISR lock held (vTaskSwitchContext, the tick, critical
 * sections); the interrupt hooks take that lock here (portENTER_CRITICAL_FROM_ISR(),
 * which nests on the core that holds it), and the sleep hooks the kernel's critical
 * section. The idle tasks belong to no core: they all carry one ID, which charges the
 * idle line of whichever core runs one. The library's clock must be one for all cores
 * (RISC-V's mtime, a global timer), never a per-core cycle counter. */
#if CPU_USAGE_SMP_
    #define CPU_USAGE_CORE_()    ( ( uint32_t ) portGET_CORE_ID() )

    #undef CPU_USAGE_TRACE_TASK_CREATE
    #define CPU_USAGE_TRACE_TASK_CREATE( pxNewTCB )                                         \
    do {                                                                                    \
        CPU_USAGE_SET_ID_( pxNewTCB,                                                        \
                           cpu_usage_hook_smp_task_create( CPU_USAGE_CORE_(),               \
                                                           ( void * ) ( pxNewTCB ),         \
                                                           ( pxNewTCB )->pcTaskName ) );    \
    } while( 0 )

    #undef CPU_USAGE_TRACE_TASK_DELETE
    #define CPU_USAGE_TRACE_TASK_DELETE( pxTaskToDelete )                                   \
    do {                                                                                    \
        ( void ) cpu_usage_hook_smp_task_delete( CPU_USAGE_CORE_(),                         \
                                                 ( void * ) ( pxTaskToDelete ),             \
                                                 CPU_USAGE_ID_OF_( pxTaskToDelete ) );      \
    } while( 0 )

    /* pxCurrentTCBs[], not pxCurrentTCB (a call that masks interrupts on SMP). */
    #undef CPU_USAGE_TRACE_TASK_SWITCHED_IN
    #define CPU_USAGE_TRACE_TASK_SWITCHED_IN()                                              \
    do {                                                                                    \
        uint32_t ulCpuUsageCore_ = CPU_USAGE_CORE_();                                       \
        uint32_t ulCpuUsageNow_ = cpu_usage_clock_read();                                   \
        cpu_usage_hook_smp_task_switched_in( ulCpuUsageCore_, ulCpuUsageNow_,               \
                                             CPU_USAGE_ID_OF_( pxCurrentTCBs[ ulCpuUsageCore_ ] ) ); \
    } while( 0 )

    #undef CPU_USAGE_TRACE_TASK_INCREMENT_TICK
    #define CPU_USAGE_TRACE_TASK_INCREMENT_TICK( xTickCount )                               \
    do {                                                                                    \
        cpu_usage_hook_smp_tick( CPU_USAGE_CORE_() );                                       \
    } while( 0 )

    /* Every core's idle task takes the idle tasks' ID; the scheduler starts every core
     * on one. */
    #undef CPU_USAGE_TRACE_STARTING_SCHEDULER
    #define CPU_USAGE_TRACE_STARTING_SCHEDULER( xIdleTaskHandles )                          \
    do {                                                                                    \
        uint32_t ulCpuUsageIdle_ = 0;                                                       \
        BaseType_t xCpuUsageCore_;                                                          \
        for( xCpuUsageCore_ = 0; xCpuUsageCore_ < configNUMBER_OF_CORES; xCpuUsageCore_++ ) \
        {                                                                                   \
            TaskHandle_t xCpuUsageIdleTask_ = ( xIdleTaskHandles )[ xCpuUsageCore_ ];       \
            ulCpuUsageIdle_ = cpu_usage_hook_smp_idle_task( ( void * ) xCpuUsageIdleTask_,  \
                                                            CPU_USAGE_ID_OF_( xCpuUsageIdleTask_ ), \
                                                            xCpuUsageIdleTask_->pcTaskName ); \
            CPU_USAGE_SET_ID_( xCpuUsageIdleTask_, ulCpuUsageIdle_ );                       \
        }                                                                                   \
        CPU_USAGE_TIMER_TASK_();                                                            \
        cpu_usage_hook_scheduler_start( ulCpuUsageIdle_, CPU_USAGE_CPU_CLOCK_HZ,            \
                                        CPU_USAGE_PORT_SETTING );                           \
    } while( 0 )

    /* The timer service task is not running yet (pxCurrentTCB is a call on SMP). */
    #undef CPU_USAGE_KERNEL_TASK_
    #define CPU_USAGE_KERNEL_TASK_( xHandle )                                               \
    do {                                                                                    \
        TaskHandle_t xCpuUsageTask = ( xHandle );                                           \
        CPU_USAGE_SET_ID_( xCpuUsageTask,                                                   \
                           cpu_usage_hook_kernel_task( ( void * ) xCpuUsageTask,            \
                                                       CPU_USAGE_ID_OF_( xCpuUsageTask ),   \
                                                       xCpuUsageTask->pcTaskName, 0 ) );    \
    } while( 0 )

    /* The interrupt and sleep hooks read the clock first, then take the kernel's ISR
     * lock (the interrupt hooks; it nests on the core that holds it) or its critical
     * section (the sleep hooks): time a core waits for a lock another core holds is
     * not the handler's nor the sleep's. */
    #define CPU_USAGE_LOCKED_AT_( xHook )                                                   \
    do {                                                                                    \
        uint32_t ulCpuUsageNow_ = cpu_usage_clock_read();                                   \
        UBaseType_t uxCpuUsageSaved_ = portENTER_CRITICAL_FROM_ISR();                       \
        xHook( CPU_USAGE_CORE_(), ulCpuUsageNow_ );                                         \
        portEXIT_CRITICAL_FROM_ISR( uxCpuUsageSaved_ );                                     \
    } while( 0 )

    #define CPU_USAGE_CRITICAL_AT_( xHook )                                                 \
    do {                                                                                    \
        uint32_t ulCpuUsageNow_ = cpu_usage_clock_read();                                   \
        portENTER_CRITICAL();                                                               \
        xHook( CPU_USAGE_CORE_(), ulCpuUsageNow_ );                                         \
        portEXIT_CRITICAL();                                                                \
    } while( 0 )

    #undef CPU_USAGE_ISR_ENTER_
    #define CPU_USAGE_ISR_ENTER_()    CPU_USAGE_LOCKED_AT_( cpu_usage_hook_smp_isr_enter )
    #undef CPU_USAGE_ISR_EXIT_
    #define CPU_USAGE_ISR_EXIT_()     CPU_USAGE_LOCKED_AT_( cpu_usage_hook_smp_isr_exit )

    #undef CPU_USAGE_TRACE_LOW_POWER_IDLE_BEGIN
    #define CPU_USAGE_TRACE_LOW_POWER_IDLE_BEGIN()    CPU_USAGE_CRITICAL_AT_( cpu_usage_hook_smp_sleep_begin )
    #undef CPU_USAGE_TRACE_LOW_POWER_IDLE_END
    #define CPU_USAGE_TRACE_LOW_POWER_IDLE_END()      CPU_USAGE_CRITICAL_AT_( cpu_usage_hook_smp_sleep_end )
#endif /* CPU_USAGE_SMP_ */

/* ---- The kernel's trace macros ------------------------------------------------------
 *
 * Each one still free is the library's. One another tool has already defined is an
 * error, unless CPU_USAGE_SHARED_HOOKS says that the firmware's own definitions, after
 * this header, call the library's side too. (traceTASK_SWITCHED_OUT needs nothing of
 * the library: another tool may have it.) */

#if defined( CPU_USAGE_SHARED_HOOKS ) && ( CPU_USAGE_SHARED_HOOKS == 1 )
    #define CPU_USAGE_REFUSE_TAKEN_    0
#else
    #define CPU_USAGE_REFUSE_TAKEN_    1
#endif

#ifndef traceTASK_CREATE
    #define traceTASK_CREATE( pxNewTCB )    CPU_USAGE_TRACE_TASK_CREATE( pxNewTCB )
#elif CPU_USAGE_REFUSE_TAKEN_
    #error "traceTASK_CREATE is already defined (another trace tool?): call CPU_USAGE_TRACE_TASK_CREATE( pxNewTCB ) from it and define CPU_USAGE_SHARED_HOOKS 1 (README: Beside another trace tool), or remove it"
#endif

#ifndef traceTASK_DELETE
    #define traceTASK_DELETE( pxTaskToDelete )    CPU_USAGE_TRACE_TASK_DELETE( pxTaskToDelete )
#elif CPU_USAGE_REFUSE_TAKEN_
    #error "traceTASK_DELETE is already defined (another trace tool?): call CPU_USAGE_TRACE_TASK_DELETE( pxTaskToDelete ) from it and define CPU_USAGE_SHARED_HOOKS 1 (README: Beside another trace tool), or remove it"
#endif

#ifndef traceTASK_SWITCHED_IN
    #define traceTASK_SWITCHED_IN()    CPU_USAGE_TRACE_TASK_SWITCHED_IN()
#elif CPU_USAGE_REFUSE_TAKEN_
    #error "traceTASK_SWITCHED_IN is already defined (another trace tool?): call CPU_USAGE_TRACE_TASK_SWITCHED_IN() from it and define CPU_USAGE_SHARED_HOOKS 1 (README: Beside another trace tool), or remove it"
#endif

#ifndef traceTASK_SWITCHED_OUT
    #define traceTASK_SWITCHED_OUT()    CPU_USAGE_TRACE_TASK_SWITCHED_OUT()
#endif

#ifndef traceTASK_INCREMENT_TICK
    #define traceTASK_INCREMENT_TICK( xTickCount )    CPU_USAGE_TRACE_TASK_INCREMENT_TICK( xTickCount )
#elif CPU_USAGE_REFUSE_TAKEN_
    #error "traceTASK_INCREMENT_TICK is already defined (another trace tool?): call CPU_USAGE_TRACE_TASK_INCREMENT_TICK( xTickCount ) from it and define CPU_USAGE_SHARED_HOOKS 1 (README: Beside another trace tool), or remove it"
#endif

#ifndef traceSTARTING_SCHEDULER
    #define traceSTARTING_SCHEDULER( xIdleTaskHandles )    CPU_USAGE_TRACE_STARTING_SCHEDULER( xIdleTaskHandles )
#elif CPU_USAGE_REFUSE_TAKEN_
    #error "traceSTARTING_SCHEDULER is already defined (another trace tool?): call CPU_USAGE_TRACE_STARTING_SCHEDULER( xIdleTaskHandles ) from it and define CPU_USAGE_SHARED_HOOKS 1 (README: Beside another trace tool), or remove it"
#endif

#ifndef traceISR_ENTER
    #define traceISR_ENTER()    CPU_USAGE_TRACE_ISR_ENTER()
#elif CPU_USAGE_REFUSE_TAKEN_
    #error "traceISR_ENTER is already defined (another trace tool?): call CPU_USAGE_TRACE_ISR_ENTER() from it and define CPU_USAGE_SHARED_HOOKS 1 (README: Beside another trace tool), or remove it"
#endif

#ifndef traceISR_EXIT
    #define traceISR_EXIT()    CPU_USAGE_TRACE_ISR_EXIT()
#elif CPU_USAGE_REFUSE_TAKEN_
    #error "traceISR_EXIT is already defined (another trace tool?): call CPU_USAGE_TRACE_ISR_EXIT() from it and define CPU_USAGE_SHARED_HOOKS 1 (README: Beside another trace tool), or remove it"
#endif

#ifndef traceISR_EXIT_TO_SCHEDULER
    #define traceISR_EXIT_TO_SCHEDULER()    CPU_USAGE_TRACE_ISR_EXIT_TO_SCHEDULER()
#elif CPU_USAGE_REFUSE_TAKEN_
    #error "traceISR_EXIT_TO_SCHEDULER is already defined (another trace tool?): call CPU_USAGE_TRACE_ISR_EXIT_TO_SCHEDULER() from it and define CPU_USAGE_SHARED_HOOKS 1 (README: Beside another trace tool), or remove it"
#endif

#ifndef traceLOW_POWER_IDLE_BEGIN
    #define traceLOW_POWER_IDLE_BEGIN()    CPU_USAGE_TRACE_LOW_POWER_IDLE_BEGIN()
#elif CPU_USAGE_REFUSE_TAKEN_
    #error "traceLOW_POWER_IDLE_BEGIN is already defined (another trace tool?): call CPU_USAGE_TRACE_LOW_POWER_IDLE_BEGIN() from it and define CPU_USAGE_SHARED_HOOKS 1 (README: Beside another trace tool), or remove it"
#endif

#ifndef traceLOW_POWER_IDLE_END
    #define traceLOW_POWER_IDLE_END()    CPU_USAGE_TRACE_LOW_POWER_IDLE_END()
#elif CPU_USAGE_REFUSE_TAKEN_
    #error "traceLOW_POWER_IDLE_END is already defined (another trace tool?): call CPU_USAGE_TRACE_LOW_POWER_IDLE_END() from it and define CPU_USAGE_SHARED_HOOKS 1 (README: Beside another trace tool), or remove it"
#endif

#endif /* __ASSEMBLER__ */

#endif /* FREERTOS_CPU_USAGE_HOOKS_H */
