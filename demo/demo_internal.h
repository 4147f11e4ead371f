/*
 * demo_internal.h - what the demo's own files share (demo.h is the board's side).
 *
 * Nothing here is needed by a firmware that only wants the library: that is
 * integration.c. Everything printed goes through console.c, from the shell task only.
 */
#ifndef DEMO_INTERNAL_H
#define DEMO_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "FreeRTOS.h"
#include "task.h"

#include "freertos_cpu_usage.h"
#include "demo.h"

/* The library's ID of a task (the hooks header's; without the library, as the kernel
 * keeps it). */
#ifndef CPU_USAGE_TASK_ID
    #define CPU_USAGE_TASK_ID( xTask )    ( ( uint32_t ) uxTaskGetTaskNumber( xTask ) )
#endif

/* The longest command line, NUL included, and the most words in one. */
#define demoLINE_MAX    128U
#define demoARGS_MAX    16U

/* ---- console.c: output, gathered into whole lines --------------------------------- */

void demo_print_char( char c );
void demo_print_pad( size_t xCount );
/* pcText left-aligned in a field of xWidth characters. */
void demo_print_field( const char * pcText,
                       size_t xWidth );
/* Hundredths as "12.34", microseconds as milliseconds "12.345"; the whole part
 * right-aligned in a field of xWidth characters (0: no padding). Both are JSON numbers
 * as they stand. */
void demo_print_hundredths( uint32_t ulHundredths,
                            size_t xWidth );
void demo_print_millis( uint32_t ulMicros,
                        size_t xWidth );
/* A task name from the library (at most CPU_USAGE_NAME_LEN characters, NUL or not);
 * returns its length. */
size_t demo_print_name( const char * pcName );
/* A JSON string of at most xMax characters of pcText (stops at a NUL), quoted and
 * escaped. */
void demo_print_json_string( const char * pcText,
                             size_t xMax );
/* The key of a JSON object member, "key": (after a comma unless it is the first). */
void demo_print_json_key( const char * pcKey,
                          BaseType_t xFirst );
/* Writes out what is gathered (a line is written as soon as it ends anyway). */
void demo_print_flush( void );

/* ---- note.c: the board's note, put into the reports -------------------------------- */

/* The library's output (cpu_usage_set_output): port_console_write(), with the board's
 * note before each table and inside each JSON report. */
void demo_note_write( const char * s,
                      size_t n );
/* After a library command: passes on anything held back (nothing, when the command's
 * output ends with a line end, as the library's does). */
void demo_note_flush( void );

/* ---- workloads.c: the tasks the library measures ------------------------------------ */

typedef struct DemoWorkload
{
    const char * pcName;
    volatile uint32_t ulDutyPct; /* written by the shell, read by the workload */
    uint32_t ulAheadUs;          /* the workload's: burned beyond its duty so far */
} DemoWorkload_t;

#define demoWORKLOAD_COUNT    3U
extern DemoWorkload_t xDemoWorkloads[ demoWORKLOAD_COUNT ];

/* Churn: on from boot. "On" wakes the task; "off" takes effect at its next round. */
extern TaskHandle_t xDemoChurnTask;
extern volatile BaseType_t xDemoChurnOn;

typedef struct DemoChurnCounts
{
    uint32_t ulCreated;
    uint32_t ulDeleted;
    uint32_t ulCreateFailures;
} DemoChurnCounts_t;

/* The three read at one instant. */
void demo_churn_counts( DemoChurnCounts_t * pxCounts );

/* tick30: busy for the first demoTICK30_DUTY_PCT of every tick period. */
#define demoTICK30_DUTY_PCT    30U
extern TaskHandle_t xDemoTick30Task;
extern volatile BaseType_t xDemoTick30On;

typedef struct DemoTick30Stats
{
    uint32_t ulActivations;
    uint32_t ulLatencySumUs;
    uint32_t ulLatencyMaxUs;
    uint32_t ulLatencyCount;
    uint32_t ulOverrunUs;
} DemoTick30Stats_t;

/* Its figures; all but the activations cover the time since the previous call. */
void demo_tick30_take( DemoTick30Stats_t * pxStats );

/* The tick-sampled accounting: each tick charged whole to the task it interrupted. */
#define demoSAMPLED_ROWS    8U
extern const char * const pcDemoSampledNames[ demoSAMPLED_ROWS ];

/* Ticks per row since the previous call. */
void demo_sampled_take( uint32_t ulTicks[ demoSAMPLED_ROWS ] );
/* The idle task exists once the scheduler runs: the shell hands it over. */
void demo_sampled_set_idle( TaskHandle_t xIdle );

/* ---- integration.c: the library's own commands and its setup ------------------------ */

/* cpu_usage_set_output and the rest, before the scheduler starts. */
void demo_integration_start( void );
/* Lines about a setup call that failed (the banner prints them). */
void demo_integration_warnings( void );

void demo_cmd_show_cpu_usage( int argc,
                              char ** argv );
void demo_cmd_watchdog( int argc,
                        char ** argv );
void demo_cmd_cli( int argc,
                   char ** argv );
#if defined( CPU_USAGE_TRACE ) && ( CPU_USAGE_TRACE == 1 )
    void demo_cmd_trace( int argc,
                         char ** argv );
#endif

/* ---- readouts.c: the commands that read figures ------------------------------------- */

void demo_cmd_tasks( int argc,
                     char ** argv );
void demo_cmd_snapshot( int argc,
                        char ** argv );
#if ( configGENERATE_RUN_TIME_STATS == 1 )
    void demo_cmd_kernel_stats( int argc,
                                char ** argv );
#endif
#if defined( DEMO_STAND_IN_TRACER ) && ( DEMO_STAND_IN_TRACER == 1 )
    void demo_cmd_tracer( int argc,
                          char ** argv );
#endif

/* ---- commands.c: the command table ------------------------------------------------- */

/* The shell's commands have the shape of a board's (demo.h). */
typedef DemoPortCommand_t DemoCommand_t;

extern const DemoCommand_t xDemoCommands[];
extern const size_t xDemoCommandCount;

/* "-m" as the first argument asks for one JSON line: removed from argv (argc one
 * less), pdTRUE. */
BaseType_t demo_json_option( int * pargc,
                             char ** argv );

/* ---- alerts.c: the watchdog's alerts ------------------------------------------------------ */

/* From the watchdog's callback (an interrupt): keeps the alert for the shell to print
 * between lines, or counts it as lost when there is no room. */
void demo_alert_queue( const cpu_usage_alert * pxAlert );

/* The oldest alert kept (pdTRUE), else the number lost since the last call (0: none)
 * and pdFALSE. Shell task. */
BaseType_t demo_alert_take( cpu_usage_alert * pxAlert,
                            uint32_t * pulLost );

/* One JSON line: the alert, or with NULL the number lost. */
void demo_alert_print( const cpu_usage_alert * pxAlert,
                       uint32_t ulLost );

/* ---- shell.c: the console's reader ---------------------------------------------------- */

/* Creates the shell task (its handle into *pxTask). */
void demo_shell_create( UBaseType_t uxPriority,
                        configSTACK_DEPTH_TYPE uxStackWords,
                        TaskHandle_t * pxTask );

/* The library's follow mode waits here (cpu_usage_set_follow_wait). */
int demo_follow_wait( uint32_t ulMs );

#endif /* DEMO_INTERNAL_H */
