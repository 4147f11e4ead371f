/*
 * workloads.c - the tasks the demo gives freertos-cpu-usage to measure, and demo_start().
 *
 *  - Workloads: work10, work25 and work40 burn 10, 25 and 40 % of the CPU. Each
 *    activation measures the wall time since the previous one and burns that times its
 *    duty, less what its previous burns ran over, so the share stays right whatever the
 *    period turns out to be (the POSIX tick lags the host clock, and a burn delays the
 *    next activation) and however late a burn sees its end (see prvBurn()).
 *  - Churn: batches of short-lived tasks, some batches larger than the library's slot
 *    table, half deleting themselves and half deleted by the churn task, so slot reuse,
 *    quarantine and the overflow bucket are exercised all the time.
 *  - tick30 (off at boot): wakes on every tick and keeps the CPU for the first 30 % of
 *    the wall time since the tick (30 % of the actual tick period), then blocks again
 *    well before the next tick. Beside it, a tick-sampled accounting of every task
 *    (vApplicationTickHook charges each tick whole to the task it interrupted, as
 *    NuttX's SYSCLK mode and RT-Thread's tracer do), printed by the 'sampled' command:
 *    it sees tick30 at about 0 %, since the task running when a tick fires is never
 *    tick30 but whatever runs after it (the idle task when nothing else does), while
 *    the library, charging every switch, shows 30 %.
 *
 * Several cores (configNUMBER_OF_CORES > 1, configUSE_CORE_AFFINITY 1): each workload
 * runs on a core of its own, work10 on core 1, work25 on core 2, work40 on core 3 (with
 * two cores all three on core 1), and every other task of the demo on core 0, so a
 * core's busy time is the duties of its workloads; and a burn does not suspend the
 * scheduler there (see prvBurn()).
 * Priorities: everything that does work runs at priority 1 with time slicing off, so
 * no tick hands the CPU from one burning task to another. Above priority 1 are only
 * the shell, which only ever sleeps on the console or prints (prvBurn() keeps its
 * wake-ups out of a burn), and tick30, which must run right after each tick to be
 * tick-synchronous and burns a fraction of a tick at a time.
 */
#include <stdint.h>
#include <string.h>

#include "demo_internal.h"

/* ---- Tunables (a port may override them from FreeRTOSConfig.h) ---------------- */

#ifndef demoWORK_STACK_WORDS
    #define demoWORK_STACK_WORDS     ( configMINIMAL_STACK_SIZE * 2U )
#endif

#ifndef demoCHURN_STACK_WORDS
    #define demoCHURN_STACK_WORDS    ( configMINIMAL_STACK_SIZE * 2U )
#endif

#ifndef demoCHILD_STACK_WORDS
    #define demoCHILD_STACK_WORDS    ( configMINIMAL_STACK_SIZE )
#endif

/* The shell calls into the library's report formatter, the deepest call in the demo. */
#ifndef demoSHELL_STACK_WORDS
    #define demoSHELL_STACK_WORDS    ( configMINIMAL_STACK_SIZE * 8U )
#endif

/* ---- Fixed design values ------------------------------------------------------- */

#define demoWORK_PRIORITY      ( tskIDLE_PRIORITY + 1U )
#define demoCHURN_PRIORITY     ( tskIDLE_PRIORITY + 1U )
#define demoSHELL_PRIORITY     ( tskIDLE_PRIORITY + 2U )
#define demoTICK30_PRIORITY    ( tskIDLE_PRIORITY + 3U )

#if ( configMAX_PRIORITIES < 4 )
    #error "workloads.c needs configMAX_PRIORITIES >= 4 (idle, work, shell, tick30)"
#endif

#define demoWORK_PERIOD_MS     10U

/* A burn never covers more than this much elapsed time. Without a cap a task set to
 * 100 % would burn ever longer (each burn lengthens the next interval) and a new duty
 * set with 'load' would take effect only after it; with the cap, 100 % means about 90 %. */
#define demoWORK_MAX_ELAPSED_US    100000U

#define demoCHURN_PERIOD_MS    50U
#define demoCHILD_SPIN_US      100U

/* Largest entry of ucChurnBatchSizes[]: bounds the waiting children to track. */
#define demoCHURN_MAX_BATCH    40U

/* A burn runs in pieces of at most this long with the scheduler suspended (see
 * prvBurn()): short enough that the shell still answers promptly. */
#define demoBURN_PIECE_US      1000U

/* tick30: the longest interval it makes up for after a stall (beyond a tick, its burn
 * runs into the next tick). Its share is demoTICK30_DUTY_PCT (demo_internal.h). */
#define demoTICK30_MAX_ELAPSED_US     10000U

#if ( configUSE_TICK_HOOK != 1 )
    #error "workloads.c needs configUSE_TICK_HOOK 1 (the tick-sampled accounting of the 'sampled' command)"
#endif

#if ( INCLUDE_xTaskGetIdleTaskHandle != 1 ) || ( INCLUDE_xTaskGetCurrentTaskHandle != 1 )
    #error "workloads.c needs INCLUDE_xTaskGetIdleTaskHandle 1 and INCLUDE_xTaskGetCurrentTaskHandle 1"
#endif

/* ---- Cores --------------------------------------------------------------------- */

#if ( configNUMBER_OF_CORES > 1 )
    #if ( configUSE_CORE_AFFINITY != 1 )
        #error "workloads.c needs configUSE_CORE_AFFINITY 1 on several cores (its tasks' cores)"
    #endif

/* Workload x's core: one of its own from core 1 on, as far as the cores go. */
    #define demoWORKLOAD_CORE( x )    ( ( UBaseType_t ) 1U + ( ( UBaseType_t ) ( x ) % ( configNUMBER_OF_CORES - 1U ) ) )

/* Keeps task xTask on core uxCore (a task created before the scheduler starts). */
    #define demoPIN( xTask, uxCore )    vTaskCoreAffinitySet( ( xTask ), ( UBaseType_t ) 1U << ( uxCore ) )

/* xTaskCreate() on core 0 from the start: for a task created while others run, which
 * may start, and end, before it could be pinned. */
    #define demoCREATE_ON_CORE0( pxCode, pcName, uxStack, pvParam, uxPriority, pxTask ) \
    xTaskCreateAffinitySet( ( pxCode ), ( pcName ), ( uxStack ), ( pvParam ), ( uxPriority ), 1U, ( pxTask ) )
#else
    #define demoWORKLOAD_CORE( x )      ( ( UBaseType_t ) 0U )
    #define demoPIN( xTask, uxCore )    do { ( void ) ( xTask ); ( void ) ( uxCore ); } while( 0 )
    #define demoCREATE_ON_CORE0( pxCode, pcName, uxStack, pvParam, uxPriority, pxTask ) \
    xTaskCreate( ( pxCode ), ( pcName ), ( uxStack ), ( pvParam ), ( uxPriority ), ( pxTask ) )
#endif

/* ---- Workloads ----------------------------------------------------------------- */

DemoWorkload_t xDemoWorkloads[ demoWORKLOAD_COUNT ] =
{
    { "work10", 10U, 0U },
    { "work25", 25U, 0U },
    { "work40", 40U, 0U },
};

/* ---- Churn ---------------------------------------------------------------------- */

/* Sizes cycle so that the task count sometimes exceeds the library's 32 slots. */
static const uint8_t ucChurnBatchSizes[] = { 2U, 6U, 12U, 40U };

/* A child's parameter: whether it deletes itself or waits to be deleted. */
#define demoCHILD_WAITS           ( ( void * ) ( uintptr_t ) 0U )
#define demoCHILD_SELF_DELETES    ( ( void * ) ( uintptr_t ) 1U )

TaskHandle_t xDemoChurnTask = NULL;
volatile BaseType_t xDemoChurnOn = pdTRUE;

/* Written by the churn task and (ulChurnDeleted) by self-deleting children, read by
 * the shell: updated and read in critical sections so the three always agree. */
static uint32_t ulChurnCreated = 0U;
static uint32_t ulChurnDeleted = 0U;
static uint32_t ulChurnCreateFailures = 0U;

/* Children that block until the churn task deletes them. Only the churn task uses it. */
static TaskHandle_t xChurnWaiters[ demoCHURN_MAX_BATCH ];
static UBaseType_t uxChurnWaiterCount = 0U;

/* ---- tick30 and the tick-sampled accounting -------------------------------------- */

TaskHandle_t xDemoTick30Task = NULL;
volatile BaseType_t xDemoTick30On = pdFALSE;
/* Written by tick30 only; the shell, which tick30 preempts, reads them in a critical
 * section. Wake-up latency: from the tick hook's timestamp to tick30's first reading
 * of the clock (on POSIX that includes the host's hand-off between threads). */
static uint32_t ulTick30Activations = 0U;
static uint32_t ulTick30LatencySumUs = 0U;
static uint32_t ulTick30LatencyMaxUs = 0U;
static uint32_t ulTick30LatencyCount = 0U;
/* Time tick30 kept the CPU past its 30 %, summed: the host stalling its thread past
 * the deadline (a late start, or a stall in the burn), which the library rightly
 * charges to tick30, plus the last turn of the burn loop. */
static uint32_t ulTick30OverrunUs = 0U;

/* port_time_us() at the latest tick, written by the tick hook (one aligned word). */
static volatile uint32_t ulLastTickUs = 0U;

/* The tasks the sampler tells apart; every other task (churn's children) counts under
 * the last row. Handles are filled in by demo_start() and, for the idle task, which
 * only exists once the scheduler starts, by demo_sampled_set_idle(); the tick hook only
 * reads them. */
typedef enum
{
    eSampledWork10,
    eSampledWork25,
    eSampledWork40,
    eSampledChurn,
    eSampledTick30,
    eSampledShell,
    eSampledIdle,
    eSampledOther,
    eSampledRows
} DemoSampledRow_t;

const char * const pcDemoSampledNames[ demoSAMPLED_ROWS ] =
{
    "work10", "work25", "work40", "churn", "tick30", "shell", "IDLE", "(other tasks)"
};

_Static_assert( demoWORKLOAD_COUNT == ( size_t ) eSampledChurn, "the sampler's first rows are the workloads, in order" );
_Static_assert( demoSAMPLED_ROWS == ( size_t ) eSampledRows, "demo_internal.h counts the sampler's rows" );

static TaskHandle_t xSampledHandles[ eSampledOther ];

/* Ticks charged to each row since the last 'sampled'. Written by the tick hook (an
 * interrupt on Cortex-M, the tick signal's handler on POSIX), read and cleared by
 * demo_sampled_take() in a critical section. */
static uint32_t ulSampledTicks[ eSampledRows ];
/*-----------------------------------------------------------*/

/*
 * Busy-wait for ulBudgetUs of wall time, all of it spent running this task.
 *
 * Time slicing is off, yet a burn could still be interrupted: whenever a higher-priority
 * task (the shell polling the console, say) blocks again, the kernel resumes the next
 * ready priority-1 task in round-robin order, not necessarily the one it interrupted,
 * and a burn timed against the wall clock would count the other task's run as its own.
 * So each piece of the burn runs with the scheduler suspended: nothing switches in the
 * middle, and the wall time that passes is exactly time this task holds the CPU, as
 * FreeRTOS (and so the library) sees it, even when the host takes the core away for a
 * moment. Between pieces, whatever became ready runs.
 *
 * Returns the wall time burned, ulBudgetUs or more: the last piece ends at the first
 * reading of the clock past its end, which comes late by whatever kept this task from
 * reading it (an interrupt; under QEMU's -icount on several harts, the turns of the
 * other harts, hundreds of microseconds: ../freertos-port/riscv-virt-smp/README.md). The
 * caller takes that off its next burn.
 */
static uint32_t prvBurn( uint32_t ulBudgetUs )
{
    uint32_t ulLeft = ulBudgetUs;
    uint32_t ulBurned = 0U;
    uint32_t ulPiece;
    uint32_t ulStart;
    uint32_t ulSpent;

    while( ulLeft > 0U )
    {
        ulPiece = ( ulLeft < demoBURN_PIECE_US ) ? ulLeft : demoBURN_PIECE_US;

        /* On several cores a workload has its core (see "Cores"): nothing of its
         * priority or above can run there, so the spin holds the core without
         * suspending the scheduler, which on SMP holds the kernel's task lock and
         * would stall every other core's switches meanwhile. */
        #if ( configNUMBER_OF_CORES == 1 )
            vTaskSuspendAll();
        #endif
        {
            ulStart = port_time_us();

            do
            {
                ulSpent = port_time_us() - ulStart; /* uint32_t: right across the wrap */
            } while( ulSpent < ulPiece );
        }
        #if ( configNUMBER_OF_CORES == 1 )
            ( void ) xTaskResumeAll();
        #endif

        ulBurned += ulSpent;
        ulLeft = ( ulSpent >= ulLeft ) ? 0U : ( ulLeft - ulSpent );
    }

    return ulBurned;
}
/*-----------------------------------------------------------*/

static void prvWorkloadTask( void * pvParameters )
{
    DemoWorkload_t * const pxLoad = ( DemoWorkload_t * ) pvParameters;
    uint32_t ulPrevious = port_time_us();
    uint32_t ulNow;
    uint32_t ulElapsed;

    for( ; ; )
    {
        vTaskDelay( pdMS_TO_TICKS( demoWORK_PERIOD_MS ) );

        /* Duty is defined against wall time, not ticks: the POSIX tick thread sleeps
         * with usleep() and so ticks slower than the host clock runs. */
        ulNow = port_time_us();
        ulElapsed = ulNow - ulPrevious;
        ulPrevious = ulNow;

        if( ulElapsed > demoWORK_MAX_ELAPSED_US )
        {
            ulElapsed = demoWORK_MAX_ELAPSED_US;
        }

        /* What this activation owes (at most 100000 * 100 / 100: no overflow), less
         * what the previous burns ran over. (Kept in *pxLoad, not in a local: on the
         * Cortex-M0 one more live variable takes two more words of the workload's
         * stack, which microbit sizes tight.) */
        ulElapsed = ( ulElapsed * pxLoad->ulDutyPct ) / 100U;

        if( ulElapsed <= pxLoad->ulAheadUs )
        {
            pxLoad->ulAheadUs -= ulElapsed;
        }
        else
        {
            ulElapsed -= pxLoad->ulAheadUs;
            pxLoad->ulAheadUs = prvBurn( ulElapsed ) - ulElapsed;
        }
    }
}
/*-----------------------------------------------------------*/

/*
 * Wakes on every tick and keeps the CPU until demoTICK30_DUTY_PCT of the wall time
 * between the tick that woke it and the tick of its previous activation has passed
 * since the tick that woke it, then blocks until the next tick: busy for the first
 * 30 % of every tick period, idle for the rest, so no tick ever finds it running.
 *
 * Wall time, not a nominal tick: the POSIX tick lags the host clock (the tick thread
 * sleeps a whole tick between signals, and longer when the host is busy), so 30 % of
 * a nominal millisecond would be less than 30 % of the real period.
 *
 * Counted from the tick (vApplicationTickHook() takes its time), not from when this
 * task got going: the kernel's work on its behalf between the tick and its first
 * instruction (switching it in, returning from vTaskDelay(); on POSIX also the host's
 * latency in handing the CPU to its thread) falls inside its 30 % instead of being
 * added to it. What remains outside is the way out (vTaskDelay() and the switch to
 * the next task) minus the rest of the tick interrupt: a few microseconds a tick.
 *
 * A plain spin, not prvBurn(): nothing but interrupts can take the CPU from the
 * highest-priority task, and a spin against an absolute deadline needs no pieces.
 * The workloads' burns suspend the scheduler for up to demoBURN_PIECE_US at a time,
 * which delays tick30 past its tick, so it is tick-synchronous only with them at 0 %
 * (as the end-to-end scenario sets them before turning it on).
 */
static void prvTick30Task( void * pvParameters )
{
    uint32_t ulPreviousTick = 0U;
    uint32_t ulTick;
    uint32_t ulPeriod;
    uint32_t ulBudget;
    uint32_t ulLatency;
    uint32_t ulElapsed;
    BaseType_t xWasOn = pdFALSE;

    ( void ) pvParameters;

    for( ; ; )
    {
        if( xDemoTick30On == pdFALSE )
        {
            xWasOn = pdFALSE;
            ( void ) ulTaskNotifyTake( pdTRUE, portMAX_DELAY );
            continue;
        }

        if( xWasOn == pdFALSE )
        {
            /* (Re)started: the first period is the one under way. */
            xWasOn = pdTRUE;
            ulPreviousTick = ulLastTickUs;
        }

        vTaskDelay( 1 );

        ulTick = ulLastTickUs;
        ulPeriod = ulTick - ulPreviousTick; /* uint32_t: right across the wrap */
        ulPreviousTick = ulTick;

        if( ulPeriod > demoTICK30_MAX_ELAPSED_US )
        {
            ulPeriod = demoTICK30_MAX_ELAPSED_US;
        }

        ulBudget = ( ulPeriod * demoTICK30_DUTY_PCT ) / 100U;
        ulLatency = port_time_us() - ulTick;

        ulTick30Activations++;
        ulTick30LatencyCount++;
        ulTick30LatencySumUs += ulLatency;

        if( ulLatency > ulTick30LatencyMaxUs )
        {
            ulTick30LatencyMaxUs = ulLatency;
        }

        do
        {
            ulElapsed = port_time_us() - ulTick;
        } while( ulElapsed < ulBudget );

        ulTick30OverrunUs += ulElapsed - ulBudget;
    }
}
/*-----------------------------------------------------------*/

/*
 * The tick-sampled accounting: each tick goes whole to the task that was running when
 * it fired. xTaskGetCurrentTaskHandle() here is still the interrupted task: the switch
 * this tick may cause comes after the hook. The kernel calls the hook once per tick,
 * from the tick interrupt, also while the scheduler is suspended (not again when it
 * catches up on the pended ticks).
 */
void vApplicationTickHook( void )
{
    const TaskHandle_t xCurrent = xTaskGetCurrentTaskHandle();
    size_t x;

    /* For tick30, which times its work from the tick. */
    ulLastTickUs = port_time_us();

    for( x = 0U; ( x < ( size_t ) eSampledOther ) && ( xSampledHandles[ x ] != xCurrent ); x++ )
    {
    }

    ulSampledTicks[ x ]++;
}
/*-----------------------------------------------------------*/


static void prvChurnChild( void * pvParameters )
{
    ( void ) prvBurn( demoCHILD_SPIN_US );

    if( pvParameters == demoCHILD_SELF_DELETES )
    {
        /* Counted first: vTaskDelete( NULL ) does not return. */
        taskENTER_CRITICAL();
        {
            ulChurnDeleted++;
        }
        taskEXIT_CRITICAL();

        vTaskDelete( NULL );
    }

    /* Wait to be deleted by the churn task. The loop covers builds where portMAX_DELAY
     * is a finite timeout (INCLUDE_vTaskSuspend 0). */
    for( ; ; )
    {
        ( void ) ulTaskNotifyTake( pdTRUE, portMAX_DELAY );
    }
}
/*-----------------------------------------------------------*/

static void prvChurnReapWaiters( void )
{
    while( uxChurnWaiterCount > 0U )
    {
        uxChurnWaiterCount--;

        /* A child that has not run yet (or not finished its spin) is deleted just the
         * same: the library must cope with a task that never ran. */
        vTaskDelete( xChurnWaiters[ uxChurnWaiterCount ] );

        taskENTER_CRITICAL();
        {
            ulChurnDeleted++;
        }
        taskEXIT_CRITICAL();
    }
}
/*-----------------------------------------------------------*/

/* Writes "churn-<n>" into cName (configMAX_TASK_NAME_LEN bytes), keeping the least
 * significant digits if it ever got too long. */
static void prvChurnName( char * cName,
                          uint32_t ulNumber )
{
    static const char cPrefix[] = "churn-";
    char cDigits[ 10 ];
    size_t xDigits = 0U;
    size_t xLength = sizeof( cPrefix ) - 1U;

    memcpy( cName, cPrefix, xLength );

    do
    {
        cDigits[ xDigits++ ] = ( char ) ( '0' + ( ulNumber % 10U ) );
        ulNumber /= 10U;
    } while( ( ulNumber > 0U ) && ( xDigits < sizeof( cDigits ) ) );

    if( xDigits > ( ( size_t ) configMAX_TASK_NAME_LEN - 1U - xLength ) )
    {
        xDigits = ( size_t ) configMAX_TASK_NAME_LEN - 1U - xLength;
    }

    while( xDigits > 0U )
    {
        cName[ xLength++ ] = cDigits[ --xDigits ];
    }

    cName[ xLength ] = '\0';
}
/*-----------------------------------------------------------*/

static void prvChurnSpawn( UBaseType_t uxBatch )
{
    char cName[ configMAX_TASK_NAME_LEN ];
    TaskHandle_t xChild;
    BaseType_t xWaits;
    UBaseType_t ux;

    for( ux = 0U; ux < uxBatch; ux++ )
    {
        /* This task is the only writer of ulChurnCreated. */
        prvChurnName( cName, ulChurnCreated + 1U );

        /* Half and half; a waiter is only made while there is room to track it. */
        xWaits = ( ( ( ux & 1U ) == 0U ) && ( uxChurnWaiterCount < demoCHURN_MAX_BATCH ) ) ? pdTRUE : pdFALSE;
        xChild = NULL;

        /* Same priority as this task and no time slicing: the children normally start
         * only once the churn task sleeps, so the whole batch exists at the same time. */
        if( demoCREATE_ON_CORE0( prvChurnChild, cName, demoCHILD_STACK_WORDS,
                                 ( xWaits == pdTRUE ) ? demoCHILD_WAITS : demoCHILD_SELF_DELETES,
                                 demoCHURN_PRIORITY, &xChild ) != pdPASS )
        {
            taskENTER_CRITICAL();
            {
                ulChurnCreateFailures++;
            }
            taskEXIT_CRITICAL();

            /* Out of heap: the rest of the batch would fail too. */
            break;
        }

        taskENTER_CRITICAL();
        {
            ulChurnCreated++;
        }
        taskEXIT_CRITICAL();

        if( xWaits == pdTRUE )
        {
            xChurnWaiters[ uxChurnWaiterCount++ ] = xChild;
        }
    }
}
/*-----------------------------------------------------------*/

static void prvChurnTask( void * pvParameters )
{
    size_t xRound = 0U;

    ( void ) pvParameters;

    for( ; ; )
    {
        /* Last round's waiters go first, so at most one batch is alive at a time
         * (plus self-deleting children the idle task has not cleaned up yet). */
        prvChurnReapWaiters();

        if( xDemoChurnOn == pdFALSE )
        {
            /* Nothing of ours is left alive: sleep until the shell turns churn on. */
            ( void ) ulTaskNotifyTake( pdTRUE, portMAX_DELAY );
            continue;
        }

        prvChurnSpawn( ( UBaseType_t ) ucChurnBatchSizes[ xRound ] );
        xRound = ( xRound + 1U ) % sizeof( ucChurnBatchSizes );

        vTaskDelay( pdMS_TO_TICKS( demoCHURN_PERIOD_MS ) );
    }
}
/*-----------------------------------------------------------*/

/* ---- What the shell reads ----------------------------------------------------------- */

void demo_churn_counts( DemoChurnCounts_t * pxCounts )
{
    taskENTER_CRITICAL();
    {
        pxCounts->ulCreated = ulChurnCreated;
        pxCounts->ulDeleted = ulChurnDeleted;
        pxCounts->ulCreateFailures = ulChurnCreateFailures;
    }
    taskEXIT_CRITICAL();
}
/*-----------------------------------------------------------*/

/* tick30 preempts the shell, so its figures are read in a critical section. */
void demo_tick30_take( DemoTick30Stats_t * pxStats )
{
    taskENTER_CRITICAL();
    {
        pxStats->ulActivations = ulTick30Activations;
        pxStats->ulLatencySumUs = ulTick30LatencySumUs;
        pxStats->ulLatencyMaxUs = ulTick30LatencyMaxUs;
        pxStats->ulLatencyCount = ulTick30LatencyCount;
        pxStats->ulOverrunUs = ulTick30OverrunUs;
        ulTick30LatencySumUs = 0U;
        ulTick30OverrunUs = 0U;
        ulTick30LatencyMaxUs = 0U;
        ulTick30LatencyCount = 0U;
    }
    taskEXIT_CRITICAL();
}
/*-----------------------------------------------------------*/

void demo_sampled_take( uint32_t ulTicks[ demoSAMPLED_ROWS ] )
{
    size_t x;

    taskENTER_CRITICAL();
    {
        for( x = 0U; x < ( size_t ) eSampledRows; x++ )
        {
            ulTicks[ x ] = ulSampledTicks[ x ];
            ulSampledTicks[ x ] = 0U;
        }
    }
    taskEXIT_CRITICAL();
}
/*-----------------------------------------------------------*/

void demo_sampled_set_idle( TaskHandle_t xIdle )
{
    /* One aligned word: the tick hook reads either NULL (a tick counted under "other
     * tasks") or the handle. */
    xSampledHandles[ eSampledIdle ] = xIdle;
}
/*-----------------------------------------------------------*/

/* ---- Start-up ------------------------------------------------------------------------- */

static void prvCreateOrAssert( BaseType_t xResult )
{
    configASSERT( xResult == pdPASS );

    /* configASSERT() may be defined away. */
    ( void ) xResult;
}
/*-----------------------------------------------------------*/

static void prvWaitingTask( void * pvParameters )
{
    ( void ) pvParameters;

    for( ; ; )
    {
        ( void ) ulTaskNotifyTake( pdTRUE, portMAX_DELAY );
    }
}
/*-----------------------------------------------------------*/

void demo_add_waiting_tasks( void )
{
    char cName[ 8 ] = "wait";
    uint32_t x;

    for( x = 0U; x < DEMO_WAITING_TASKS; x++ )
    {
        cName[ 4 ] = ( char ) ( '0' + ( ( x / 100U ) % 10U ) );
        cName[ 5 ] = ( char ) ( '0' + ( ( x / 10U ) % 10U ) );
        cName[ 6 ] = ( char ) ( '0' + ( x % 10U ) );
        prvCreateOrAssert( demoCREATE_ON_CORE0( prvWaitingTask, cName, configMINIMAL_STACK_SIZE, NULL,
                                                tskIDLE_PRIORITY + 1U, NULL ) );
    }
}
/*-----------------------------------------------------------*/

void demo_start( void )
{
    size_t x;

    /* The library's output and callbacks (integration.c). */
    demo_integration_start();

    /* Nothing can run yet, so a failure has no one to tell but the assert. The
     * workloads are the first rows of the sampler's table, in the same order. */
    for( x = 0U; x < demoWORKLOAD_COUNT; x++ )
    {
        prvCreateOrAssert( xTaskCreate( prvWorkloadTask, xDemoWorkloads[ x ].pcName, demoWORK_STACK_WORDS,
                                        &xDemoWorkloads[ x ], demoWORK_PRIORITY,
                                        &xSampledHandles[ ( size_t ) eSampledWork10 + x ] ) );
        demoPIN( xSampledHandles[ ( size_t ) eSampledWork10 + x ], demoWORKLOAD_CORE( x ) );
    }

    prvCreateOrAssert( xTaskCreate( prvChurnTask, "churn", demoCHURN_STACK_WORDS, NULL,
                                    demoCHURN_PRIORITY, &xDemoChurnTask ) );
    demoPIN( xDemoChurnTask, 0U );
    xSampledHandles[ eSampledChurn ] = xDemoChurnTask;
    prvCreateOrAssert( xTaskCreate( prvTick30Task, "tick30", demoWORK_STACK_WORDS, NULL,
                                    demoTICK30_PRIORITY, &xDemoTick30Task ) );
    demoPIN( xDemoTick30Task, 0U );
    xSampledHandles[ eSampledTick30 ] = xDemoTick30Task;
    demo_shell_create( demoSHELL_PRIORITY, demoSHELL_STACK_WORDS, &xSampledHandles[ eSampledShell ] );
    demoPIN( xSampledHandles[ eSampledShell ], 0U );
}
/*-----------------------------------------------------------*/
