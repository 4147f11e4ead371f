/*
 * alerts.c - the watchdog's alerts, from the library's callback (in the tick interrupt)
 * to the shell, which prints them between lines (shell.c) as JSON lines.
 */
#include "demo_internal.h"

/* Watchdog alerts waiting for the shell to print them. More than two never pile up
 * (one of each kind per window, printed within the shell's console poll), unless the
 * shell is busy with a long command across several windows. */
#define demoALERT_SLOTS    8U

/* A ring of alerts, filled by demo_alert_queue() in the tick interrupt (the library
 * calls its callback there, like vApplicationTickHook) and emptied by the shell, which
 * alone may print. Single producer, single consumer: the callback only ever writes
 * ulAlertHead and the shell only ulAlertTail, and the shell takes an alert in a
 * critical section, which masks the tick, so it never sees one half written. The
 * counters run freely; their difference is the number waiting. */
static cpu_usage_alert xAlertRing[ demoALERT_SLOTS ];
static volatile uint32_t ulAlertHead = 0U;
static volatile uint32_t ulAlertTail = 0U;
/* Alerts the ring had no room for; written by the callback, read and cleared by the
 * shell in the same critical section. */
static volatile uint32_t ulAlertsLost = 0U;

void demo_alert_queue( const cpu_usage_alert * pxAlert )
{
    const uint32_t ulHead = ulAlertHead;

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

/* One alert as a JSON line: what a log or a program takes as it is, and a person
 * still reads. */
static void prvPrintAlert( const cpu_usage_alert * pxAlert )
{
    demo_print( "{\"watchdog\":" );

    if( pxAlert->kind == CPU_USAGE_ALERT_LOAD )
    {
        demo_print( "\"load\",\"load_pct\":" );
        demo_print_hundredths( pxAlert->value, 0U );
        demo_print( ",\"threshold_pct\":" );
        demo_print_hundredths( pxAlert->threshold, 0U );
    }
    else if( pxAlert->kind == CPU_USAGE_ALERT_SLICE )
    {
        demo_print( "\"slice\",\"slice_us\":" );
        demo_print_uint( pxAlert->value, 0U );
        demo_print( ",\"threshold_us\":" );
        demo_print_uint( pxAlert->threshold, 0U );
        demo_print( ",\"task_id\":" );
        demo_print_uint( pxAlert->task_id, 0U );
        demo_print( ",\"task\":" );

        /* The tasks sharing the overflow bucket have no one name. */
        if( ( pxAlert->task_id == 0U ) && ( pxAlert->task_name[ 0 ] == '\0' ) )
        {
            demo_print( "\"(overflow)\"" );
        }
        else
        {
            demo_print_json_string( pxAlert->task_name, CPU_USAGE_NAME_LEN );
        }
    }
    else
    {
        demo_print( "\"unknown\",\"kind\":" );
        demo_print_uint( ( uint32_t ) pxAlert->kind, 0U );
    }

    demo_print( ",\"window\":" );
    demo_print_uint( pxAlert->window, 0U );
    demo_print( "}\n" );
}
/*-----------------------------------------------------------*/

BaseType_t demo_alert_take( cpu_usage_alert * pxAlert,
                            uint32_t * pulLost )
{
    BaseType_t xTaken;

    *pulLost = 0U;

    taskENTER_CRITICAL();
    {
        xTaken = ( ulAlertTail != ulAlertHead ) ? pdTRUE : pdFALSE;

        if( xTaken == pdTRUE )
        {
            *pxAlert = xAlertRing[ ulAlertTail % demoALERT_SLOTS ];
            ulAlertTail = ulAlertTail + 1U;
        }
        else
        {
            /* Lost alerts came after those kept: report them last. */
            *pulLost = ulAlertsLost;
            ulAlertsLost = 0U;
        }
    }
    taskEXIT_CRITICAL();

    return xTaken;
}
/*-----------------------------------------------------------*/

void demo_alert_print( const cpu_usage_alert * pxAlert,
                       uint32_t ulLost )
{
    if( pxAlert != NULL )
    {
        prvPrintAlert( pxAlert );
    }
    else
    {
        demo_print( "{\"watchdog\":\"lost\",\"alerts\":" );
        demo_print_uint( ulLost, 0U );
        demo_print( "}\n" );
    }
}
/*-----------------------------------------------------------*/
