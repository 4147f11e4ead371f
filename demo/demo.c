/*
 * demo.c - the application both ports run (see demo.h for the port contract).
 *
 * What it gives freertos-cpu-usage to measure:
 *
 *  - Workloads: work10, work25 and work40 burn 10, 25 and 40 % of the CPU. Each
 *    activation measures the wall time since the previous one and burns that times its
 *    duty, so the share stays right whatever the period turns out to be (the POSIX tick
 *    lags the host clock, and a burn delays the next activation).
 *  - Churn: batches of short-lived tasks, some batches larger than the library's slot
 *    table, half deleting themselves and half deleted by the churn task, so slot reuse,
 *    quarantine and the overflow bucket are exercised all the time.
 *  - tick30 (off at boot): wakes on every tick and keeps the CPU for the first 30 % of
 *    the wall time since the tick (30 % of the actual tick period), then blocks again
 *    well before the next tick. Beside it,
 *    a tick-sampled accounting of every task (vApplicationTickHook charges each tick
 *    whole to the task it interrupted, as NuttX's SYSCLK mode and RT-Thread's tracer
 *    do), printed by the 'sampled' command: it sees tick30 at about 0 %, since the task
 *    running when a tick fires is never tick30 but whatever runs after it (the idle
 *    task when nothing else does), while the library, charging every switch, shows 30 %.
 *  - A shell on the console to look at it all live, plus the port's own commands. Besides
 *    show_cpu_usage it uses the rest of the library's C API: cpu_usage_watchdog (the
 *    alerts come to a callback in the tick interrupt, which queues them for the shell to
 *    print), 'snapshot' (cpu_usage_snapshot()'s plain C structs, printed by the demo) and
 *    'cli' (cpu_usage_cli_command() driven the way FreeRTOS+CLI drives a command).
 *
 * Priorities: everything that does work runs at priority 1 with time slicing off, so
 * no tick hands the CPU from one burning task to another. Above priority 1 are only
 * the shell, which only ever sleeps on the console or prints (prvBurn() keeps its
 * wake-ups out of a burn), and tick30, which must run right after each tick to be
 * tick-synchronous and burns a fraction of a tick at a time.
 *
 * No libc beyond <string.h> is used: the Cortex-M build has no printf to spare, and the
 * console may only be written by the shell task, through port_console_write().
 */
#include <stdint.h>
#include <string.h>

#include "FreeRTOS.h"
#include "task.h"

#include "freertos_cpu_usage.h"
#include "demo.h"

/* The library's ID of a task (the hooks header's; without the library, as the kernel
 * keeps it). */
#ifndef CPU_USAGE_TASK_ID
    #define CPU_USAGE_TASK_ID( xTask )    ( ( uint32_t ) uxTaskGetTaskNumber( xTask ) )
#endif

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
    #error "demo.c needs configMAX_PRIORITIES >= 4 (idle, work, shell, tick30)"
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

/* tick30: its share of the wall time, and the longest interval it makes up for after
 * a stall (beyond a tick, its burn runs into the next tick). */
#define demoTICK30_DUTY_PCT           30U
#define demoTICK30_MAX_ELAPSED_US     10000U

#if ( configUSE_TICK_HOOK != 1 )
    #error "demo.c needs configUSE_TICK_HOOK 1 (the tick-sampled accounting of the 'sampled' command)"
#endif

#if ( INCLUDE_xTaskGetIdleTaskHandle != 1 ) || ( INCLUDE_xTaskGetCurrentTaskHandle != 1 )
    #error "demo.c needs INCLUDE_xTaskGetIdleTaskHandle 1 and INCLUDE_xTaskGetCurrentTaskHandle 1"
#endif

#define demoLINE_MAX           128U
#define demoARGS_MAX           16U

/* How long the shell waits for a console byte before it looks for watchdog alerts
 * again: an alert reaches the console at most this long after the tick that raised it.
 * (The POSIX port polls its stdin every 10 ms in any case.) */
#define demoSHELL_POLL_MS      10U

/* Watchdog alerts waiting for the shell to print them. More than two never pile up
 * (one of each kind per window, printed within demoSHELL_POLL_MS), unless the shell is
 * busy with a long command across several windows. */
#define demoALERT_SLOTS        8U

/* The 'cli' command's output buffer: deliberately small, so that a report takes many
 * calls, as with a FreeRTOS+CLI console whose output buffer is small. The bound on the
 * calls only keeps a misbehaving callback from hanging the shell. */
#define demoCLI_PIECE_LEN      48U
#define demoCLI_MAX_PIECES     1000U

/* ---- Workloads ----------------------------------------------------------------- */

typedef struct DemoWorkload
{
    const char * pcName;
    volatile uint32_t ulDutyPct; /* written by the shell, read by the workload */
} DemoWorkload_t;

static DemoWorkload_t xWorkloads[] =
{
    { "work10", 10U },
    { "work25", 25U },
    { "work40", 40U },
};

#define demoWORKLOAD_COUNT    ( sizeof( xWorkloads ) / sizeof( xWorkloads[ 0 ] ) )

/* ---- Churn ---------------------------------------------------------------------- */

/* Sizes cycle so that the task count sometimes exceeds the library's 32 slots. */
static const uint8_t ucChurnBatchSizes[] = { 2U, 6U, 12U, 40U };

/* A child's parameter: whether it deletes itself or waits to be deleted. */
#define demoCHILD_WAITS           ( ( void * ) ( uintptr_t ) 0U )
#define demoCHILD_SELF_DELETES    ( ( void * ) ( uintptr_t ) 1U )

static TaskHandle_t xChurnTask = NULL;
static volatile BaseType_t xChurnOn = pdTRUE;

/* Written by the churn task and (ulChurnDeleted) by self-deleting children, read by
 * the shell: updated and read in critical sections so the three always agree. */
static uint32_t ulChurnCreated = 0U;
static uint32_t ulChurnDeleted = 0U;
static uint32_t ulChurnCreateFailures = 0U;

/* Children that block until the churn task deletes them. Only the churn task uses it. */
static TaskHandle_t xChurnWaiters[ demoCHURN_MAX_BATCH ];
static UBaseType_t uxChurnWaiterCount = 0U;

/* ---- tick30 and the tick-sampled accounting -------------------------------------- */

static TaskHandle_t xTick30Task = NULL;
static volatile BaseType_t xTick30On = pdFALSE;
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
 * only exists once the scheduler starts, by the shell; the tick hook only reads them. */
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

static const char * const pcSampledNames[ eSampledRows ] =
{
    "work10", "work25", "work40", "churn", "tick30", "shell", "IDLE", "(other tasks)"
};

_Static_assert( demoWORKLOAD_COUNT == ( size_t ) eSampledChurn, "the sampler's first rows are the workloads, in order" );

static TaskHandle_t xSampledHandles[ eSampledOther ];

/* Ticks charged to each row since the last 'sampled'. Written by the tick hook (an
 * interrupt on Cortex-M, the tick signal's handler on POSIX), read and cleared by the
 * shell in a critical section. */
static uint32_t ulSampledTicks[ eSampledRows ];

/* ---- Watchdog alerts ------------------------------------------------------------ */

/* A ring of alerts, filled by prvWatchdogAlert() in the tick interrupt (the library
 * calls it there, like vApplicationTickHook) and emptied by the shell, which alone may
 * print. Single producer, single consumer: the callback only ever writes ulAlertHead
 * and the shell only ulAlertTail, and the shell takes an alert in a critical section,
 * which masks the tick, so it never sees one half written. The counters run freely;
 * their difference is the number waiting. */
static cpu_usage_alert xAlertRing[ demoALERT_SLOTS ];
static volatile uint32_t ulAlertHead = 0U;
static volatile uint32_t ulAlertTail = 0U;
/* Alerts the ring had no room for; written by the callback, read and cleared by the
 * shell in the same critical section. */
static volatile uint32_t ulAlertsLost = 0U;

/* ---- Shell ----------------------------------------------------------------------- */

static int32_t lOutputStatus = CPU_USAGE_OK;
static int32_t lAlertStatus = CPU_USAGE_OK;

/* pdTRUE while the prompt is the last thing printed: alerts printed then, while the
 * shell waits for a command, start a new line first. */
static BaseType_t xAtPrompt = pdFALSE;

/* cpu_usage_snapshot()'s copy: every ID's task and the overflow bucket. Only the shell
 * uses it; static, because it is too large for the shell's stack on Cortex-M. */
static cpu_usage_task_info xSnapshotTasks[ CPU_USAGE_MAX_TASKS + 1U ];
static char cLine[ demoLINE_MAX ];

/* Output is gathered into whole lines so a line reaches the console in one write. */
static char cOut[ 128 ];
static size_t xOutLength = 0U;

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
 */
static void prvBurn( uint32_t ulBudgetUs )
{
    uint32_t ulLeft = ulBudgetUs;
    uint32_t ulPiece;
    uint32_t ulStart;
    uint32_t ulSpent;

    while( ulLeft > 0U )
    {
        ulPiece = ( ulLeft < demoBURN_PIECE_US ) ? ulLeft : demoBURN_PIECE_US;

        vTaskSuspendAll();
        {
            ulStart = port_time_us();

            do
            {
                ulSpent = port_time_us() - ulStart; /* uint32_t: right across the wrap */
            } while( ulSpent < ulPiece );
        }
        ( void ) xTaskResumeAll();

        ulLeft = ( ulSpent >= ulLeft ) ? 0U : ( ulLeft - ulSpent );
    }
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

        /* At most 100000 * 100: no overflow. */
        prvBurn( ( ulElapsed * pxLoad->ulDutyPct ) / 100U );
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
        if( xTick30On == pdFALSE )
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

/*
 * The library's watchdog callback (cpu_usage_watchdog_set_callback()), called from
 * the tick interrupt when a watchdog trips. It may neither print nor block: it copies
 * the alert into the ring for the shell to print, or counts it as lost if the ring is
 * full. *pxAlert is valid only during the call.
 */
static void prvWatchdogAlert( const cpu_usage_alert * pxAlert,
                              void * pvContext )
{
    const uint32_t ulHead = ulAlertHead;

    ( void ) pvContext;

    if( ( ulHead - ulAlertTail ) < demoALERT_SLOTS )
    {
        xAlertRing[ ulHead % demoALERT_SLOTS ] = *pxAlert;
        ulAlertHead = ulHead + 1U;
    }
    else
    {
        ulAlertsLost++;
    }
}
/*-----------------------------------------------------------*/

static void prvChurnChild( void * pvParameters )
{
    prvBurn( demoCHILD_SPIN_US );

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
        if( xTaskCreate( prvChurnChild, cName, demoCHILD_STACK_WORDS,
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

        if( xChurnOn == pdFALSE )
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

/* ---- Console output ------------------------------------------------------------ */

static void prvOutFlush( void )
{
    if( xOutLength > 0U )
    {
        port_console_write( cOut, xOutLength );
        xOutLength = 0U;
    }
}
/*-----------------------------------------------------------*/

static void prvOutChar( char c )
{
    if( xOutLength == sizeof( cOut ) )
    {
        prvOutFlush();
    }

    cOut[ xOutLength++ ] = c;

    if( c == '\n' )
    {
        prvOutFlush();
    }
}
/*-----------------------------------------------------------*/

static void prvOutStr( const char * pcText )
{
    while( *pcText != '\0' )
    {
        prvOutChar( *pcText++ );
    }
}
/*-----------------------------------------------------------*/

static void prvOutPad( size_t xCount )
{
    while( xCount-- > 0U )
    {
        prvOutChar( ' ' );
    }
}
/*-----------------------------------------------------------*/

/* pcText left-aligned in a field of xWidth characters. */
static void prvOutStrField( const char * pcText,
                            size_t xWidth )
{
    size_t xLength = strlen( pcText );

    prvOutStr( pcText );
    prvOutPad( ( xLength < xWidth ) ? ( xWidth - xLength ) : 0U );
}
/*-----------------------------------------------------------*/

/* ulValue right-aligned in a field of xWidth characters (0: no padding). */
static void prvOutUInt( uint32_t ulValue,
                        size_t xWidth )
{
    char cDigits[ 10 ];
    size_t xDigits = 0U;

    do
    {
        cDigits[ xDigits++ ] = ( char ) ( '0' + ( ulValue % 10U ) );
        ulValue /= 10U;
    } while( ulValue > 0U );

    prvOutPad( ( xDigits < xWidth ) ? ( xWidth - xDigits ) : 0U );

    while( xDigits > 0U )
    {
        prvOutChar( cDigits[ --xDigits ] );
    }
}
/*-----------------------------------------------------------*/

/* Hundredths as "12.34", the whole part right-aligned in a field of xWidth characters
 * (0: no padding). */
static void prvOutHundredths( uint32_t ulHundredths,
                              size_t xWidth )
{
    prvOutUInt( ulHundredths / 100U, xWidth );
    prvOutChar( '.' );
    prvOutChar( ( char ) ( '0' + ( ( ulHundredths / 10U ) % 10U ) ) );
    prvOutChar( ( char ) ( '0' + ( ulHundredths % 10U ) ) );
}
/*-----------------------------------------------------------*/

/* Microseconds as milliseconds with three decimals, "12.345", the whole part
 * right-aligned in a field of xWidth characters (0: no padding). */
static void prvOutMillis( uint32_t ulMicros,
                          size_t xWidth )
{
    uint32_t ulFraction = ulMicros % 1000U;

    prvOutUInt( ulMicros / 1000U, xWidth );
    prvOutChar( '.' );
    prvOutChar( ( char ) ( '0' + ( ulFraction / 100U ) ) );
    prvOutChar( ( char ) ( '0' + ( ( ulFraction / 10U ) % 10U ) ) );
    prvOutChar( ( char ) ( '0' + ( ulFraction % 10U ) ) );
}
/*-----------------------------------------------------------*/

/* A name from the library: at most CPU_USAGE_NAME_LEN characters, whether or not a
 * NUL comes first. */
static size_t prvOutName( const char * pcName )
{
    size_t xLength = 0U;

    while( ( xLength < ( size_t ) CPU_USAGE_NAME_LEN ) && ( pcName[ xLength ] != '\0' ) )
    {
        prvOutChar( pcName[ xLength++ ] );
    }

    return xLength;
}
/*-----------------------------------------------------------*/

void demo_print( const char * s )
{
    prvOutStr( s );
}
/*-----------------------------------------------------------*/

void demo_print_uint( uint32_t value,
                      size_t width )
{
    prvOutUInt( value, width );
}
/*-----------------------------------------------------------*/

/* ---- Shell commands --------------------------------------------------------------- */

typedef struct DemoCommand
{
    const char * pcName;
    const char * pcArgs;
    const char * pcHelp;
    void ( * pxRun )( int argc,
                      char ** argv );
} DemoCommand_t;

static void prvCmdHelp( int argc,
                        char ** argv );
static void prvCmdShowCpuUsage( int argc,
                                char ** argv );
static void prvCmdTasks( int argc,
                         char ** argv );
static void prvCmdLoad( int argc,
                        char ** argv );
static void prvCmdChurn( int argc,
                         char ** argv );
static void prvCmdTick30( int argc,
                          char ** argv );
static void prvCmdSampled( int argc,
                           char ** argv );
static void prvCmdWatchdog( int argc,
                            char ** argv );
static void prvCmdSnapshot( int argc,
                            char ** argv );
#if defined( CPU_USAGE_TRACE ) && ( CPU_USAGE_TRACE == 1 )
    static void prvCmdTrace( int argc,
                             char ** argv );
#endif
static void prvCmdCli( int argc,
                       char ** argv );
static void prvCmdExit( int argc,
                        char ** argv );

#if defined( DEMO_STAND_IN_TRACER ) && ( DEMO_STAND_IN_TRACER == 1 )
    static void prvCmdTracer( int argc,
                              char ** argv );
#endif

#if ( configGENERATE_RUN_TIME_STATS == 1 )
    static void prvCmdKernelStats( int argc,
                                   char ** argv );

/* Room for `show_cpu_usage -c -m` at 32 IDs, the most a report lists, each task at
 * its longest. */
    #define demoKERNEL_STATS_REPORT_LEN    12288U
#endif

static const DemoCommand_t xCommands[] =
{
    { "help",           "",                  "this list",                                 prvCmdHelp         },
    { "show_cpu_usage", "[options]",         "per-task CPU usage ('show_cpu_usage -h')",  prvCmdShowCpuUsage },
    { "tasks",          "",                  "all tasks: library ID, state, stack",       prvCmdTasks        },
    { "load",           "[<task> <percent>]", "show or set a workload's duty (0..100)",   prvCmdLoad         },
    { "churn",          "on|off|status",     "the task-churn generator",                  prvCmdChurn        },
    { "tick30",         "on|off|status",     "busy for the first 30% of every tick",      prvCmdTick30       },
    { "sampled",        "",                  "tick-sampled shares since the last one",    prvCmdSampled      },
    { "cpu_usage_watchdog", "[load <pct> <n>|slice <us>|off]", "alerts on high load or long runs", prvCmdWatchdog },
    { "snapshot",       "",                  "the last window, from cpu_usage_snapshot()", prvCmdSnapshot     },
    #if defined( CPU_USAGE_TRACE ) && ( CPU_USAGE_TRACE == 1 )
        { "cpu_usage_trace", "start|stop|dump|status", "the event trace (a timeline for Perfetto)", prvCmdTrace },
    #endif
    { "cli",            "<command line>",    "run it as FreeRTOS+CLI would (48-byte pieces)", prvCmdCli       },
    #if ( configGENERATE_RUN_TIME_STATS == 1 )
        { "kernel_stats", "",                "the kernel's run-time stats and the library's since start, at one instant", prvCmdKernelStats },
    #endif
    #if defined( DEMO_STAND_IN_TRACER ) && ( DEMO_STAND_IN_TRACER == 1 )
        { "tracer",     "",                  "the stand-in tracer's counts and the kernel's, at one instant (JSON)", prvCmdTracer },
    #endif
    { "exit",           "",                  "end the run",                               prvCmdExit         },
};

#define demoCOMMAND_COUNT    ( sizeof( xCommands ) / sizeof( xCommands[ 0 ] ) )

/*-----------------------------------------------------------*/

static void prvOutHelpLine( const char * pcName,
                            const char * pcArgs,
                            const char * pcHelp )
{
    size_t xWidth = strlen( pcName );

    prvOutStr( "  " );
    prvOutStr( pcName );

    if( pcArgs[ 0 ] != '\0' )
    {
        prvOutChar( ' ' );
        prvOutStr( pcArgs );
        xWidth += 1U + strlen( pcArgs );
    }

    prvOutPad( ( xWidth < 34U ) ? ( 34U - xWidth ) : 1U );
    prvOutStr( pcHelp );
    prvOutChar( '\n' );
}
/*-----------------------------------------------------------*/

static void prvCmdHelp( int argc,
                        char ** argv )
{
    size_t x;

    ( void ) argc;
    ( void ) argv;

    for( x = 0U; x < demoCOMMAND_COUNT; x++ )
    {
        prvOutHelpLine( xCommands[ x ].pcName, xCommands[ x ].pcArgs, xCommands[ x ].pcHelp );
    }

    for( x = 0U; x < port_command_count; x++ )
    {
        prvOutHelpLine( port_commands[ x ].pcName, port_commands[ x ].pcArgs, port_commands[ x ].pcHelp );
    }
}
/*-----------------------------------------------------------*/

/* After a library shell command: the library explains its own failures (bad options,
 * no window completed yet) through the output; only without an output is it mute. */
static void prvOutLibraryStatus( const char * pcCommand,
                                 int iStatus )
{
    if( iStatus == CPU_USAGE_ERR_NO_OUTPUT )
    {
        prvOutStr( pcCommand );
        prvOutStr( ": " );
        prvOutStr( cpu_usage_status_str( ( int32_t ) iStatus ) );
        prvOutChar( '\n' );
    }
}
/*-----------------------------------------------------------*/

/* A port that has something to say before a report defines its own. */
__attribute__( ( weak ) ) void board_console_note( void )
{
}

/* When the board's note was last asked for (shell task only). */
static TickType_t xLastBoardNote = 0;

/* The board's note before a report; in follow mode (bAgain), again once a window. */
static void prvBoardNote( BaseType_t bAgain )
{
    const TickType_t xNow = xTaskGetTickCount();

    if( ( bAgain == pdFALSE ) || ( ( xNow - xLastBoardNote ) >= pdMS_TO_TICKS( cpu_usage_window_ms() ) ) )
    {
        xLastBoardNote = xNow;
        board_console_note();
    }
}
/*-----------------------------------------------------------*/

static void prvCmdShowCpuUsage( int argc,
                                char ** argv )
{
    prvBoardNote( pdFALSE );
    prvOutLibraryStatus( argv[ 0 ], show_cpu_usage( argc, argv ) );
}
/*-----------------------------------------------------------*/

/* The library's event trace; in builds with CPU_USAGE_TRACE 1 only, so that the
 * others do not link its ring. */
#if defined( CPU_USAGE_TRACE ) && ( CPU_USAGE_TRACE == 1 )
    static void prvCmdTrace( int argc,
                             char ** argv )
    {
        prvOutLibraryStatus( argv[ 0 ], cpu_usage_trace( argc, argv ) );
    }
#endif
/*-----------------------------------------------------------*/

/* The library's own command; its alerts come through prvWatchdogAlert() and are
 * printed by the shell (prvOutAlerts()). */
static void prvCmdWatchdog( int argc,
                            char ** argv )
{
    prvOutLibraryStatus( argv[ 0 ], cpu_usage_watchdog( argc, argv ) );
}
/*-----------------------------------------------------------*/

/*
 * The last completed window through the plain-C API, cpu_usage_snapshot(), printed
 * from its structs alone: what an application does that keeps the figures (a log, a
 * display, a telemetry frame) rather than print the library's report.
 */
static void prvCmdSnapshot( int argc,
                            char ** argv )
{
    cpu_usage_summary_info xSummary;
    const cpu_usage_task_info * pxTask;
    int32_t lWritten;
    size_t xNameLength;
    size_t x;

    ( void ) argc;
    ( void ) argv;

    lWritten = cpu_usage_snapshot( xSnapshotTasks, sizeof( xSnapshotTasks ) / sizeof( xSnapshotTasks[ 0 ] ),
                                   &xSummary );

    if( lWritten < 0 )
    {
        prvOutStr( "snapshot: " );
        prvOutStr( cpu_usage_status_str( lWritten ) );
        prvOutChar( '\n' );
        return;
    }

    prvOutStr( "snapshot of window #" );
    prvOutUInt( xSummary.window, 0U );
    prvOutStr( ": " );
    prvOutMillis( xSummary.window_us, 0U );
    prvOutStr( " ms, " );
    prvOutUInt( xSummary.tasks, 0U );
    prvOutStr( " tasks\n  ID  TASK               USAGE  SWITCHES      LONGEST\n" );

    for( x = 0U; x < ( size_t ) lWritten; x++ )
    {
        pxTask = &xSnapshotTasks[ x ];
        prvOutUInt( pxTask->id, 4U );
        prvOutStr( "  " );
        xNameLength = prvOutName( pxTask->name );
        prvOutPad( ( xNameLength < 16U ) ? ( 16U - xNameLength ) : 1U );
        prvOutHundredths( pxTask->usage, 3U );
        prvOutChar( '%' );
        prvOutUInt( pxTask->switches, 10U );
        prvOutMillis( pxTask->longest_slice_us, 6U );
        prvOutStr( " ms" );
        prvOutStr( pxTask->idle ? "  idle" : "" );
        prvOutStr( pxTask->deleted ? "  deleted" : "" );
        prvOutChar( '\n' );
    }

    if( xSummary.written < xSummary.tasks )
    {
        prvOutStr( "  (" );
        prvOutUInt( xSummary.tasks - xSummary.written, 0U );
        prvOutStr( " more tasks not copied)\n" );
    }

    prvOutStr( "interrupts " );
    prvOutHundredths( xSummary.interrupts, 0U );
    prvOutStr( "% (" );
    prvOutUInt( xSummary.interrupt_count, 0U );
    prvOutStr( ", longest " );
    prvOutMillis( xSummary.longest_interrupt_us, 0U );
    prvOutStr( " ms), sleep " );
    prvOutHundredths( xSummary.sleep, 0U );
    prvOutStr( "%, other " );
    prvOutHundredths( xSummary.other, 0U );
    prvOutStr( "%, idle " );
    prvOutHundredths( xSummary.idle, 0U );
    prvOutStr( "%, load " );
    prvOutHundredths( xSummary.load, 0U );
    prvOutStr( "%\nload avg" );

    for( x = 0U; x < 3U; x++ )
    {
        prvOutStr( ( x == 0U ) ? " 1 s " : ( ( x == 1U ) ? ", 10 s " : ", 60 s " ) );

        if( xSummary.load_avg[ x ] == UINT32_MAX )
        {
            prvOutChar( '-' );
        }
        else
        {
            prvOutHundredths( xSummary.load_avg[ x ], 0U );
            prvOutChar( '%' );
        }
    }

    prvOutChar( '\n' );
}
/*-----------------------------------------------------------*/

/* The commands a FreeRTOS+CLI build would register (FreeRTOS_CLIRegisterCommand()):
 * the name and the pdCOMMAND_LINE_CALLBACK. */
typedef struct DemoCliCommand
{
    const char * pcCommand;
    long ( * pxCommandInterpreter )( char * pcWriteBuffer,
                                     size_t xWriteBufferLen,
                                     const char * pcCommandString );
} DemoCliCommand_t;

static const DemoCliCommand_t xCliCommands[] =
{
    { "show_cpu_usage", cpu_usage_cli_command },
};

/*
 * What FreeRTOS+CLI's console task does with a line: find the command by its first
 * word, then call its callback with the whole line and a small output buffer, writing
 * out each piece, until the callback returns pdFALSE. A last line (not from
 * FreeRTOS+CLI) says how many calls it took.
 */
static void prvCmdCli( int argc,
                       char ** argv )
{
    char cPiece[ demoCLI_PIECE_LEN ];
    char cCommandLine[ demoLINE_MAX ];
    const DemoCliCommand_t * pxCommand = NULL;
    size_t xLength = 0U;
    size_t xWord;
    uint32_t ulCalls = 0U;
    long lMore;
    char cLast = '\n';
    int i;

    if( argc < 2 )
    {
        prvOutStr( "usage: cli <command> [<arguments>] (commands: show_cpu_usage)\n" );
        return;
    }

    /* The line again, without "cli": its words fit, since the whole line did. */
    for( i = 1; i < argc; i++ )
    {
        xWord = strlen( argv[ i ] );

        if( ( xLength + 1U + xWord ) >= sizeof( cCommandLine ) )
        {
            prvOutStr( "cli: line too long\n" );
            return;
        }

        if( i > 1 )
        {
            cCommandLine[ xLength++ ] = ' ';
        }

        memcpy( &cCommandLine[ xLength ], argv[ i ], xWord );
        xLength += xWord;
    }

    cCommandLine[ xLength ] = '\0';

    for( i = 0; i < ( int ) ( sizeof( xCliCommands ) / sizeof( xCliCommands[ 0 ] ) ); i++ )
    {
        if( strcmp( argv[ 1 ], xCliCommands[ i ].pcCommand ) == 0 )
        {
            pxCommand = &xCliCommands[ i ];
        }
    }

    if( pxCommand == NULL )
    {
        /* FreeRTOS+CLI's own answer. */
        prvOutStr( "Command not recognised.  Enter 'help' to view a list of available commands.\n" );
        return;
    }

    prvBoardNote( pdFALSE );

    do
    {
        lMore = pxCommand->pxCommandInterpreter( cPiece, sizeof( cPiece ), cCommandLine );
        ulCalls++;
        prvOutStr( cPiece );

        xWord = strlen( cPiece );

        if( xWord > 0U )
        {
            cLast = cPiece[ xWord - 1U ];
        }
    } while( ( lMore != 0 ) && ( ulCalls < demoCLI_MAX_PIECES ) );

    if( cLast != '\n' )
    {
        prvOutChar( '\n' );
    }

    prvOutStr( ( lMore != 0 ) ? "cli: stopped after " : "cli: " );
    prvOutUInt( ulCalls, 0U );
    prvOutStr( " calls with a " );
    prvOutUInt( demoCLI_PIECE_LEN, 0U );
    prvOutStr( "-byte buffer\n" );
}
/*-----------------------------------------------------------*/

static const char * prvStateName( eTaskState eState )
{
    switch( eState )
    {
        case eRunning:
            return "running";

        case eReady:
            return "ready";

        case eBlocked:
            return "blocked";

        case eSuspended:
            return "suspended";

        case eDeleted:
            return "deleted";

        default:
            return "?";
    }
}
/*-----------------------------------------------------------*/

typedef struct DemoTaskRow
{
    uint32_t ulId;
    eTaskState eState;
    UBaseType_t uxPriority;
    configSTACK_DEPTH_TYPE uxStackFree;
    #if ( configGENERATE_RUN_TIME_STATS == 1 )
        configRUN_TIME_COUNTER_TYPE xRunTime;
    #endif
    char cName[ configMAX_TASK_NAME_LEN ];
} DemoTaskRow_t;

/*
 * A copy of every task's state, sorted by library ID so it lines up with
 * show_cpu_usage. The caller frees *ppxRows (NULL when out of memory).
 *
 * Everything is copied with the scheduler suspended: printing may block the shell, and
 * a task deleted meanwhile would leave TaskStatus_t pointing at a freed TCB (its name,
 * its handle).
 */
static UBaseType_t prvCollectTasks( DemoTaskRow_t ** ppxRows,
                                    UBaseType_t * puxTasks,
                                    configRUN_TIME_COUNTER_TYPE * pxTotalRunTime,
                                    char * pcReport,
                                    size_t xReportLen )
{
    TaskStatus_t * pxStatus;
    DemoTaskRow_t * pxRows;
    DemoTaskRow_t xRow;
    UBaseType_t uxTasks;
    UBaseType_t uxRows = 0U;
    UBaseType_t ux;
    UBaseType_t uxSorted;

    vTaskSuspendAll();
    {
        uxTasks = uxTaskGetNumberOfTasks();
        pxStatus = ( TaskStatus_t * ) pvPortMalloc( uxTasks * sizeof( TaskStatus_t ) );
        pxRows = ( DemoTaskRow_t * ) pvPortMalloc( uxTasks * sizeof( DemoTaskRow_t ) );

        if( ( pxStatus != NULL ) && ( pxRows != NULL ) )
        {
            uxRows = uxTaskGetSystemState( pxStatus, uxTasks, pxTotalRunTime );

            /* The library's since-start figures at the same instant (they run to the
             * end of its last completed window). */
            if( pcReport != NULL )
            {
                char cCommand[] = "show_cpu_usage";
                char cSinceStart[] = "-c";
                char cJson[] = "-m";
                char * pcArgv[] = { cCommand, cSinceStart, cJson, NULL };

                if( cpu_usage_format( pcReport, xReportLen, 3, pcArgv ) < 0 )
                {
                    pcReport[ 0 ] = '\0';
                }
            }

            for( ux = 0U; ux < uxRows; ux++ )
            {
                pxRows[ ux ].ulId = CPU_USAGE_TASK_ID( pxStatus[ ux ].xHandle );
                pxRows[ ux ].eState = pxStatus[ ux ].eCurrentState;
                pxRows[ ux ].uxPriority = pxStatus[ ux ].uxCurrentPriority;
                pxRows[ ux ].uxStackFree = pxStatus[ ux ].usStackHighWaterMark;
                #if ( configGENERATE_RUN_TIME_STATS == 1 )
                    pxRows[ ux ].xRunTime = pxStatus[ ux ].ulRunTimeCounter;
                #endif
                ( void ) strncpy( pxRows[ ux ].cName, pxStatus[ ux ].pcTaskName, configMAX_TASK_NAME_LEN - 1U );
                pxRows[ ux ].cName[ configMAX_TASK_NAME_LEN - 1U ] = '\0';
            }
        }
    }
    ( void ) xTaskResumeAll();

    if( pxStatus == NULL )
    {
        vPortFree( pxRows );
        pxRows = NULL;
    }

    vPortFree( pxStatus );

    /* Insertion sort: a few dozen rows. */
    for( uxSorted = 1U; uxSorted < uxRows; uxSorted++ )
    {
        xRow = pxRows[ uxSorted ];

        for( ux = uxSorted; ( ux > 0U ) && ( pxRows[ ux - 1U ].ulId > xRow.ulId ); ux-- )
        {
            pxRows[ ux ] = pxRows[ ux - 1U ];
        }

        pxRows[ ux ] = xRow;
    }

    *ppxRows = pxRows;
    *puxTasks = uxTasks;

    return uxRows;
}
/*-----------------------------------------------------------*/

static void prvCmdTasks( int argc,
                         char ** argv )
{
    DemoTaskRow_t * pxRows;
    UBaseType_t uxTasks;
    UBaseType_t uxRows;
    UBaseType_t ux;

    ( void ) argc;
    ( void ) argv;

    uxRows = prvCollectTasks( &pxRows, &uxTasks, NULL, NULL, 0U );

    if( pxRows == NULL )
    {
        prvOutStr( "tasks: out of memory\n" );
        return;
    }

    prvOutStr( "  id  name             state      prio  stack free (words)\n" );

    for( ux = 0U; ux < uxRows; ux++ )
    {
        prvOutUInt( pxRows[ ux ].ulId, 4U );
        prvOutStr( "  " );
        prvOutStrField( pxRows[ ux ].cName, 17U );
        prvOutStrField( prvStateName( pxRows[ ux ].eState ), 9U );
        prvOutUInt( ( uint32_t ) pxRows[ ux ].uxPriority, 6U );
        prvOutUInt( ( uint32_t ) pxRows[ ux ].uxStackFree, 7U );
        prvOutChar( '\n' );
    }

    vPortFree( pxRows );

    prvOutUInt( ( uint32_t ) uxTasks, 0U );
    prvOutStr( " tasks\n" );
}
/*-----------------------------------------------------------*/

/* A plain decimal 0..100: no sign, no spaces, no fraction. pdFALSE otherwise. */
static BaseType_t prvParsePercent( const char * pcText,
                                   uint32_t * pulValue )
{
    uint32_t ulValue = 0U;
    size_t xDigits = 0U;

    for( ; *pcText != '\0'; pcText++ )
    {
        if( ( *pcText < '0' ) || ( *pcText > '9' ) || ( ++xDigits > 3U ) )
        {
            return pdFALSE;
        }

        ulValue = ( ulValue * 10U ) + ( uint32_t ) ( *pcText - '0' );
    }

    if( ( xDigits == 0U ) || ( ulValue > 100U ) )
    {
        return pdFALSE;
    }

    *pulValue = ulValue;

    return pdTRUE;
}
/*-----------------------------------------------------------*/

static void prvOutWorkload( const DemoWorkload_t * pxLoad )
{
    prvOutStr( pxLoad->pcName );
    prvOutStr( ": " );
    prvOutUInt( pxLoad->ulDutyPct, 0U );
    prvOutStr( "%\n" );
}
/*-----------------------------------------------------------*/

static void prvCmdLoad( int argc,
                        char ** argv )
{
    DemoWorkload_t * pxLoad = NULL;
    uint32_t ulPercent;
    size_t x;

    if( argc == 1 )
    {
        for( x = 0U; x < demoWORKLOAD_COUNT; x++ )
        {
            prvOutWorkload( &xWorkloads[ x ] );
        }

        return;
    }

    if( argc != 3 )
    {
        prvOutStr( "usage: load [<task> <percent>]\n" );
        return;
    }

    for( x = 0U; x < demoWORKLOAD_COUNT; x++ )
    {
        if( strcmp( argv[ 1 ], xWorkloads[ x ].pcName ) == 0 )
        {
            pxLoad = &xWorkloads[ x ];
        }
    }

    if( pxLoad == NULL )
    {
        prvOutStr( "load: no workload '" );
        prvOutStr( argv[ 1 ] );
        prvOutStr( "' (work10, work25 or work40)\n" );
        return;
    }

    if( prvParsePercent( argv[ 2 ], &ulPercent ) == pdFALSE )
    {
        prvOutStr( "load: percent must be a whole number from 0 to 100, not '" );
        prvOutStr( argv[ 2 ] );
        prvOutStr( "'\n" );
        return;
    }

    /* One aligned word: the workload reads either the old or the new duty. */
    pxLoad->ulDutyPct = ulPercent;
    prvOutWorkload( pxLoad );
}
/*-----------------------------------------------------------*/

/* The switch of a command "<name> on|off|status": "on" sets *pxOn and wakes xTask,
 * "off" clears it (the task notices at its next round). Returns pdFALSE, having
 * printed pcUsage, for anything else; pdTRUE when the command should go on to print
 * its status. */
static BaseType_t prvOnOffStatus( int argc,
                                  char ** argv,
                                  const char * pcUsage,
                                  volatile BaseType_t * pxOn,
                                  TaskHandle_t xTask )
{
    const char * pcArg = ( argc == 2 ) ? argv[ 1 ] : "";

    if( strcmp( pcArg, "on" ) == 0 )
    {
        *pxOn = pdTRUE;
        ( void ) xTaskNotifyGive( xTask );
    }
    else if( strcmp( pcArg, "off" ) == 0 )
    {
        *pxOn = pdFALSE;
    }
    else if( strcmp( pcArg, "status" ) != 0 )
    {
        prvOutStr( pcUsage );
        return pdFALSE;
    }

    return pdTRUE;
}
/*-----------------------------------------------------------*/

static void prvCmdChurn( int argc,
                         char ** argv )
{
    uint32_t ulCreated;
    uint32_t ulDeleted;
    uint32_t ulFailures;

    /* Off, the churn task deletes its waiting children on its next round and then
     * sleeps; self-deleting children finish on their own. */
    if( prvOnOffStatus( argc, argv, "usage: churn on|off|status\n", &xChurnOn, xChurnTask ) == pdFALSE )
    {
        return;
    }

    taskENTER_CRITICAL();
    {
        ulCreated = ulChurnCreated;
        ulDeleted = ulChurnDeleted;
        ulFailures = ulChurnCreateFailures;
    }
    taskEXIT_CRITICAL();

    prvOutStr( "churn: " );
    prvOutStr( ( xChurnOn != pdFALSE ) ? "on" : "off" );
    prvOutStr( ", created " );
    prvOutUInt( ulCreated, 0U );
    prvOutStr( ", deleted " );
    prvOutUInt( ulDeleted, 0U );
    prvOutStr( ", alive " );
    prvOutUInt( ulCreated - ulDeleted, 0U );

    if( ulFailures > 0U )
    {
        prvOutStr( ", create failures " );
        prvOutUInt( ulFailures, 0U );
    }

    prvOutChar( '\n' );
}
/*-----------------------------------------------------------*/

static void prvCmdTick30( int argc,
                          char ** argv )
{
    uint32_t ulActivations;
    uint32_t ulSum;
    uint32_t ulMax;
    uint32_t ulCount;
    uint32_t ulOverrun;

    /* Off, it notices at its next activation, within a tick. */
    if( prvOnOffStatus( argc, argv, "usage: tick30 on|off|status\n", &xTick30On, xTick30Task ) == pdFALSE )
    {
        return;
    }

    /* The latency figures cover the time since the last 'tick30' command. */
    taskENTER_CRITICAL();
    {
        ulActivations = ulTick30Activations;
        ulSum = ulTick30LatencySumUs;
        ulMax = ulTick30LatencyMaxUs;
        ulCount = ulTick30LatencyCount;
        ulOverrun = ulTick30OverrunUs;
        ulTick30LatencySumUs = 0U;
        ulTick30OverrunUs = 0U;
        ulTick30LatencyMaxUs = 0U;
        ulTick30LatencyCount = 0U;
    }
    taskEXIT_CRITICAL();

    prvOutStr( "tick30: " );
    prvOutStr( ( xTick30On != pdFALSE ) ? "on" : "off" );
    prvOutStr( ", busy for the first " );
    prvOutUInt( demoTICK30_DUTY_PCT, 0U );
    prvOutStr( "% of every tick period, activations " );
    prvOutUInt( ulActivations, 0U );

    if( ulCount > 0U )
    {
        prvOutStr( ", running after the tick: mean " );
        prvOutUInt( ulSum / ulCount, 0U );
        prvOutStr( " us, max " );
        prvOutUInt( ulMax, 0U );
        prvOutStr( " us, past its share: " );
        prvOutUInt( ulOverrun, 0U );
        prvOutStr( " us in all" );
    }

    prvOutChar( '\n' );
}
/*-----------------------------------------------------------*/

/* Part of total in tenths of a percent, rounded; 32-bit arithmetic only. */
static uint32_t prvPermille( uint32_t ulPart,
                             uint32_t ulTotal )
{
    /* Keep ulPart * 1000 within 32 bits (over an hour of 1 kHz ticks between reads). */
    while( ulTotal > 4000000U )
    {
        ulPart >>= 1;
        ulTotal >>= 1;
    }

    return ( ulTotal == 0U ) ? 0U : ( ( ulPart * 1000U ) + ( ulTotal / 2U ) ) / ulTotal;
}
/*-----------------------------------------------------------*/

static void prvCmdSampled( int argc,
                           char ** argv )
{
    uint32_t ulTicks[ eSampledRows ];
    uint32_t ulTotal = 0U;
    uint32_t ulPermille;
    size_t x;

    ( void ) argc;
    ( void ) argv;

    taskENTER_CRITICAL();
    {
        for( x = 0U; x < ( size_t ) eSampledRows; x++ )
        {
            ulTicks[ x ] = ulSampledTicks[ x ];
            ulSampledTicks[ x ] = 0U;
        }
    }
    taskEXIT_CRITICAL();

    for( x = 0U; x < ( size_t ) eSampledRows; x++ )
    {
        ulTotal += ulTicks[ x ];
    }

    prvOutStr( "tick-sampled over the last " );
    prvOutUInt( ulTotal, 0U );
    prvOutStr( " ticks (each tick charged whole to the task running when it fired):\n" );

    for( x = 0U; x < ( size_t ) eSampledRows; x++ )
    {
        ulPermille = prvPermille( ulTicks[ x ], ulTotal );
        prvOutStr( "  " );
        prvOutStrField( pcSampledNames[ x ], 14U );
        prvOutUInt( ulPermille / 10U, 4U );
        prvOutChar( '.' );
        prvOutUInt( ulPermille % 10U, 0U );
        prvOutStr( "%" );
        prvOutUInt( ulTicks[ x ], 9U );
        prvOutStr( " ticks\n" );
    }
}
/*-----------------------------------------------------------*/

#if ( configGENERATE_RUN_TIME_STATS == 1 )

/* The kernel's own counters, for comparison: cumulative since boot, and a deleted
 * task's time disappears with it, which is what freertos-cpu-usage does differently. */
    static void prvCmdKernelStats( int argc,
                                   char ** argv )
    {
        DemoTaskRow_t * pxRows;
        configRUN_TIME_COUNTER_TYPE xTotal = 0U;
        configRUN_TIME_COUNTER_TYPE xHundredths;
        char * pcReport;
        UBaseType_t uxTasks;
        UBaseType_t uxRows;
        UBaseType_t ux;

        ( void ) argc;
        ( void ) argv;

        pcReport = ( char * ) pvPortMalloc( demoKERNEL_STATS_REPORT_LEN );

        if( pcReport == NULL )
        {
            prvOutStr( "kernel_stats: out of memory\n" );
            return;
        }

        uxRows = prvCollectTasks( &pxRows, &uxTasks, &xTotal, pcReport, demoKERNEL_STATS_REPORT_LEN );

        if( pxRows == NULL )
        {
            vPortFree( pcReport );
            prvOutStr( "kernel_stats: out of memory\n" );
            return;
        }

        /* Hundredths of a percent from a divided total, so that no product can
         * overflow. */
        xTotal /= 10000U;

        for( ux = 0U; ( ux < uxRows ) && ( xTotal > 0U ); ux++ )
        {
            xHundredths = pxRows[ ux ].xRunTime / xTotal;

            prvOutUInt( pxRows[ ux ].ulId, 4U );
            prvOutStr( "  " );
            prvOutStrField( pxRows[ ux ].cName, 17U );
            prvOutUInt( ( uint32_t ) ( xHundredths / 100U ), 3U );
            prvOutChar( '.' );
            prvOutChar( ( char ) ( '0' + ( ( xHundredths / 10U ) % 10U ) ) );
            prvOutChar( ( char ) ( '0' + ( xHundredths % 10U ) ) );
            prvOutStr( "%\n" );
        }

        /* What the library says, taken at the same instant. */
        prvOutStr( "library: " );
        prvOutStr( pcReport );
        vPortFree( pcReport );
        vPortFree( pxRows );
    }

#endif /* configGENERATE_RUN_TIME_STATS */
/*-----------------------------------------------------------*/

#if defined( DEMO_STAND_IN_TRACER ) && ( DEMO_STAND_IN_TRACER == 1 )

/* The tracer variant's other trace tool (demo/stand-in-tracer/), which shares the
 * kernel's trace macros with the library: what it counted, and the kernel's tick count
 * and number of tasks to check it against, all read in one critical section. */
    static void prvCmdTracer( int argc,
                              char ** argv )
    {
        StandInTracer_t xCounts;
        TickType_t xTicks;
        UBaseType_t uxTasks;
        size_t x;

        ( void ) argc;
        ( void ) argv;

        taskENTER_CRITICAL();
        {
            xCounts = xStandInTracer;
            xTicks = xTaskGetTickCount();
            uxTasks = uxTaskGetNumberOfTasks();
        }
        taskEXIT_CRITICAL();

        {
            const struct
            {
                const char * pcName;
                uint32_t ulValue;
            }
            xFields[] =
            {
                { "creates",                xCounts.ulCreates             },
                { "deletes",                xCounts.ulDeletes             },
                { "switch_ins",             xCounts.ulSwitchIns           },
                { "switch_outs",            xCounts.ulSwitchOuts          },
                { "handle_mismatches",      xCounts.ulHandleMismatches    },
                { "ticks",                  xCounts.ulTicks               },
                { "scheduler_starts",       xCounts.ulSchedulerStarts     },
                { "isr_enters",             xCounts.ulIsrEnters           },
                { "isr_exits",              xCounts.ulIsrExits            },
                { "isr_exits_to_scheduler", xCounts.ulIsrExitsToScheduler },
                { "sleeps",                 xCounts.ulSleeps              },
                { "wakes",                  xCounts.ulWakes               },
            };

            prvOutStr( "{\"tracer\":{" );

            for( x = 0U; x < ( sizeof( xFields ) / sizeof( xFields[ 0 ] ) ); x++ )
            {
                prvOutStr( ( x == 0U ) ? "\"" : ",\"" );
                prvOutStr( xFields[ x ].pcName );
                prvOutStr( "\":" );
                prvOutUInt( xFields[ x ].ulValue, 0U );
            }
        }

        prvOutStr( "},\"kernel\":{\"ticks\":" );
        prvOutUInt( ( uint32_t ) xTicks, 0U );
        prvOutStr( ",\"tasks\":" );
        prvOutUInt( ( uint32_t ) uxTasks, 0U );
        prvOutStr( "}}\n" );
    }

#endif /* DEMO_STAND_IN_TRACER */
/*-----------------------------------------------------------*/

static void prvCmdExit( int argc,
                        char ** argv )
{
    ( void ) argc;
    ( void ) argv;

    port_exit( 0 );
}
/*-----------------------------------------------------------*/

/* ---- Shell ----------------------------------------------------------------------- */

static void prvOutAlert( const cpu_usage_alert * pxAlert )
{
    prvOutStr( "watchdog: " );

    if( pxAlert->kind == CPU_USAGE_ALERT_LOAD )
    {
        prvOutStr( "load " );
        prvOutHundredths( pxAlert->value, 0U );
        prvOutStr( "% > " );
        prvOutHundredths( pxAlert->threshold, 0U );
        prvOutChar( '%' );
    }
    else if( pxAlert->kind == CPU_USAGE_ALERT_SLICE )
    {
        prvOutStr( "slice " );
        prvOutMillis( pxAlert->value, 0U );
        prvOutStr( " ms > " );
        prvOutMillis( pxAlert->threshold, 0U );
        prvOutStr( " ms by task " );
        prvOutUInt( pxAlert->task_id, 0U );
        prvOutStr( " \"" );

        /* The tasks sharing the overflow bucket have no one name. */
        if( ( prvOutName( pxAlert->task_name ) == 0U ) && ( pxAlert->task_id == 0U ) )
        {
            prvOutStr( "(overflow)" );
        }

        prvOutChar( '"' );
    }
    else
    {
        prvOutStr( "alert of unknown kind " );
        prvOutUInt( ( uint32_t ) pxAlert->kind, 0U );
    }

    prvOutStr( " in window #" );
    prvOutUInt( pxAlert->window, 0U );
    prvOutChar( '\n' );
}
/*-----------------------------------------------------------*/

/*
 * Prints the alerts prvWatchdogAlert() has queued, oldest first, then how many found
 * no room. Called before each prompt, and while waiting at the prompt each time the
 * console has been quiet for demoSHELL_POLL_MS (never in the middle of a line being
 * typed). The prompt is not printed again after them: a program driving the shell
 * then still sees exactly one prompt per command, and an alert line at the start of
 * the next answer.
 */
static void prvOutAlerts( void )
{
    cpu_usage_alert xAlert;
    uint32_t ulLost;
    BaseType_t xTaken;

    for( ; ; )
    {
        ulLost = 0U;

        taskENTER_CRITICAL();
        {
            xTaken = ( ulAlertTail != ulAlertHead ) ? pdTRUE : pdFALSE;

            if( xTaken == pdTRUE )
            {
                xAlert = xAlertRing[ ulAlertTail % demoALERT_SLOTS ];
                ulAlertTail = ulAlertTail + 1U;
            }
            else
            {
                /* Lost alerts came after those kept: report them last. */
                ulLost = ulAlertsLost;
                ulAlertsLost = 0U;
            }
        }
        taskEXIT_CRITICAL();

        if( ( xTaken == pdFALSE ) && ( ulLost == 0U ) )
        {
            break;
        }

        if( xAtPrompt == pdTRUE )
        {
            prvOutChar( '\n' );
            xAtPrompt = pdFALSE;
        }

        if( xTaken == pdTRUE )
        {
            prvOutAlert( &xAlert );
        }
        else
        {
            prvOutStr( "watchdog: " );
            prvOutUInt( ulLost, 0U );
            prvOutStr( " alerts lost (no room to keep them)\n" );
        }
    }
}
/*-----------------------------------------------------------*/

/*
 * The console byte that ended a 'show_cpu_usage -f' (follow mode), kept for the
 * shell's next line; PORT_CONSOLE_TIMEOUT when there is none.
 */
static int iConsoleHeld = PORT_CONSOLE_TIMEOUT;

static int prvConsoleGetc( uint32_t ulTimeoutMs )
{
    int c = iConsoleHeld;

    if( c == PORT_CONSOLE_TIMEOUT )
    {
        c = port_console_getc( ulTimeoutMs );
    }
    else
    {
        iConsoleHeld = PORT_CONSOLE_TIMEOUT;
    }

    return c;
}

/*
 * The library's follow mode waits here between reports (shell task): watchdog alerts
 * are printed meanwhile, and any input, or the console closing, ends the follow. The
 * byte is kept for the shell, so the line typed to stop it still runs.
 */
static int prvFollowWait( uint32_t ulMs )
{
    int c = prvConsoleGetc( ulMs );

    if( c == PORT_CONSOLE_TIMEOUT )
    {
        prvOutAlerts();
        prvBoardNote( pdTRUE );
        return 0;
    }

    iConsoleHeld = c;
    return 1;
}
/*-----------------------------------------------------------*/

/*
 * Reads one line into cLine. Returns its length, or -1 when the console closed with
 * nothing pending. CR, LF and CR LF all end a line; backspace and DEL erase (the
 * terminal has already echoed them). A line that does not fit is reported and dropped.
 */
static int prvReadLine( void )
{
    static BaseType_t xClosed = pdFALSE;
    static BaseType_t xLastWasCR = pdFALSE;
    BaseType_t xTooLong = pdFALSE;
    size_t xLength = 0U;
    int c;

    if( xClosed == pdTRUE )
    {
        return -1;
    }

    for( ; ; )
    {
        c = prvConsoleGetc( demoSHELL_POLL_MS );

        if( c == PORT_CONSOLE_TIMEOUT )
        {
            if( xLength == 0U )
            {
                prvOutAlerts();
            }

            continue;
        }

        if( c == PORT_CONSOLE_EOF )
        {
            /* A last line without a newline still runs; the next call reports EOF. */
            xClosed = pdTRUE;

            if( xLength == 0U )
            {
                return -1;
            }

            break;
        }

        if( ( c == '\n' ) && ( xLastWasCR == pdTRUE ) )
        {
            xLastWasCR = pdFALSE;
            continue;
        }

        xLastWasCR = ( c == '\r' ) ? pdTRUE : pdFALSE;

        if( ( c == '\r' ) || ( c == '\n' ) )
        {
            break;
        }

        if( ( c == '\b' ) || ( c == 0x7F ) )
        {
            if( xLength > 0U )
            {
                xLength--;
            }
        }
        else if( ( c == '\t' ) || ( ( c >= 0x20 ) && ( c < 0x7F ) ) )
        {
            if( xLength < ( sizeof( cLine ) - 1U ) )
            {
                cLine[ xLength++ ] = ( char ) c;
            }
            else
            {
                xTooLong = pdTRUE;
            }
        }
        else
        {
            /* Other control characters (escape sequences of arrow keys...) are dropped. */
        }
    }

    if( xTooLong == pdTRUE )
    {
        prvOutStr( "line too long (at most " );
        prvOutUInt( ( uint32_t ) ( sizeof( cLine ) - 1U ), 0U );
        prvOutStr( " characters)\n" );
        xLength = 0U;
    }

    cLine[ xLength ] = '\0';

    return ( int ) xLength;
}
/*-----------------------------------------------------------*/

/* Splits cLine in place on blanks. Returns argc, or -1 if there are too many words. */
static int prvTokenise( char ** argv )
{
    char * pc = cLine;
    int argc = 0;

    for( ; ; )
    {
        while( ( *pc == ' ' ) || ( *pc == '\t' ) )
        {
            *pc++ = '\0';
        }

        if( *pc == '\0' )
        {
            break;
        }

        if( argc == ( int ) demoARGS_MAX )
        {
            return -1;
        }

        argv[ argc++ ] = pc;

        while( ( *pc != '\0' ) && ( *pc != ' ' ) && ( *pc != '\t' ) )
        {
            pc++;
        }
    }

    /* C's convention, which the library's argument parser may rely on. */
    argv[ argc ] = NULL;

    return argc;
}
/*-----------------------------------------------------------*/

static void prvExecute( void )
{
    char * argv[ demoARGS_MAX + 1U ];
    int argc = prvTokenise( argv );
    size_t x;

    if( argc < 0 )
    {
        prvOutStr( "too many words (at most " );
        prvOutUInt( demoARGS_MAX, 0U );
        prvOutStr( ")\n" );
        return;
    }

    if( argc == 0 )
    {
        return;
    }

    for( x = 0U; x < demoCOMMAND_COUNT; x++ )
    {
        if( strcmp( argv[ 0 ], xCommands[ x ].pcName ) == 0 )
        {
            xCommands[ x ].pxRun( argc, argv );
            prvOutFlush();
            return;
        }
    }

    for( x = 0U; x < port_command_count; x++ )
    {
        if( strcmp( argv[ 0 ], port_commands[ x ].pcName ) == 0 )
        {
            port_commands[ x ].pxRun( argc, argv );
            prvOutFlush();
            return;
        }
    }

    prvOutStr( "unknown command '" );
    prvOutStr( argv[ 0 ] );
    prvOutStr( "' (type 'help')\n" );
}
/*-----------------------------------------------------------*/

static void prvShellTask( void * pvParameters )
{
    size_t x;

    ( void ) pvParameters;

    /* The idle task exists now that the scheduler runs. One aligned word: the tick
     * hook reads either NULL (a tick counted under "other tasks") or the handle. */
    xSampledHandles[ eSampledIdle ] = xTaskGetIdleTaskHandle();

    prvOutStr( "freertos-cpu-usage demo on " );
    prvOutStr( port_name );
    prvOutStr( "\nworkloads work10, work25, work40; churn " );
    prvOutStr( ( xChurnOn != pdFALSE ) ? "on" : "off" );
    prvOutStr( "; tick30 " );
    prvOutStr( ( xTick30On != pdFALSE ) ? "on" : "off" );
    prvOutStr( "\ncommands:" );

    for( x = 0U; x < demoCOMMAND_COUNT; x++ )
    {
        prvOutChar( ' ' );
        prvOutStr( xCommands[ x ].pcName );
    }

    for( x = 0U; x < port_command_count; x++ )
    {
        prvOutChar( ' ' );
        prvOutStr( port_commands[ x ].pcName );
    }

    prvOutChar( '\n' );

    if( lOutputStatus != CPU_USAGE_OK )
    {
        prvOutStr( "warning: cpu_usage_set_output: " );
        prvOutStr( cpu_usage_status_str( lOutputStatus ) );
        prvOutChar( '\n' );
    }

    if( lAlertStatus != CPU_USAGE_OK )
    {
        prvOutStr( "warning: cpu_usage_watchdog_set_callback: " );
        prvOutStr( cpu_usage_status_str( lAlertStatus ) );
        prvOutChar( '\n' );
    }

    for( ; ; )
    {
        prvOutAlerts();
        prvOutStr( "> " );
        prvOutFlush();
        xAtPrompt = pdTRUE;

        if( prvReadLine() < 0 )
        {
            /* End the prompt's line so the host shell's prompt starts clean. */
            prvOutChar( '\n' );
            port_exit( 0 );
        }

        xAtPrompt = pdFALSE;
        prvExecute();
    }
}
/*-----------------------------------------------------------*/

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
        prvCreateOrAssert( xTaskCreate( prvWaitingTask, cName, configMINIMAL_STACK_SIZE, NULL,
                                        tskIDLE_PRIORITY + 1U, NULL ) );
    }
}
/*-----------------------------------------------------------*/

void demo_start( void )
{
    size_t x;

    /* Kept for the shell to report: only the shell may write to the console. */
    lOutputStatus = cpu_usage_set_output( port_console_write );
    lAlertStatus = cpu_usage_watchdog_set_callback( prvWatchdogAlert, NULL );
    ( void ) cpu_usage_set_follow_wait( prvFollowWait ); /* cannot fail */

    /* Nothing can run yet, so a failure has no one to tell but the assert. The
     * workloads are the first rows of the sampler's table, in the same order. */
    for( x = 0U; x < demoWORKLOAD_COUNT; x++ )
    {
        prvCreateOrAssert( xTaskCreate( prvWorkloadTask, xWorkloads[ x ].pcName, demoWORK_STACK_WORDS,
                                        &xWorkloads[ x ], demoWORK_PRIORITY,
                                        &xSampledHandles[ ( size_t ) eSampledWork10 + x ] ) );
    }

    prvCreateOrAssert( xTaskCreate( prvChurnTask, "churn", demoCHURN_STACK_WORDS, NULL,
                                    demoCHURN_PRIORITY, &xChurnTask ) );
    xSampledHandles[ eSampledChurn ] = xChurnTask;
    prvCreateOrAssert( xTaskCreate( prvTick30Task, "tick30", demoWORK_STACK_WORDS, NULL,
                                    demoTICK30_PRIORITY, &xTick30Task ) );
    xSampledHandles[ eSampledTick30 ] = xTick30Task;
    prvCreateOrAssert( xTaskCreate( prvShellTask, "shell", demoSHELL_STACK_WORDS, NULL,
                                    demoSHELL_PRIORITY, &xSampledHandles[ eSampledShell ] ) );
}
/*-----------------------------------------------------------*/
