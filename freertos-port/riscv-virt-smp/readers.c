/*
 * readers.c - a reader of the library's figures on every core: board_start()'s tasks
 * (../bare-metal/main.c), one pinned to each hart, each taking a snapshot of the last
 * window every 50 ms (cpu_usage_snapshot: a critical section per line, the kernel's ISR
 * lock on several cores) while the shell's reports, the hooks and the other harts'
 * readers run. With the harts in parallel host threads (no -icount) that is the
 * library's locking under load from every core at once; what the end-to-end test checks
 * of each snapshot is that it adds up:
 *  - a snapshot that worked: its shares (the tasks', deleted ones aside, plus
 *    interrupts, sleep and other) are at most 100.00 %, and the load is 100.00 %
 *    less idle and sleep;
 *  - a refusal: only "no window yet" or "the window changed while it was copied" (a
 *    reader racing the window's end).
 * Anything else stops the firmware (board_fatal), which fails the test. The `readers`
 * shell command (commands.c) prints how many snapshots each core took.
 */
#include "FreeRTOS.h"
#include "task.h"

#include "board.h"
#include "freertos_cpu_usage.h"
#include "riscv_virt_smp.h"

#define READER_PERIOD_MS    50U
/* Entries per snapshot: the demo's live tasks (its IDs and the idle tasks' line)
 * fit, and a snapshot with more tasks than entries is still a snapshot. */
#define READER_ENTRIES      40U

static volatile uint32_t ulSnapshots[ configNUMBER_OF_CORES ];

static void prvCheck( const cpu_usage_task_info * pxTasks,
                      int32_t lWritten,
                      const cpu_usage_summary_info * pxSummary )
{
    uint32_t ulShares = pxSummary->interrupts + pxSummary->sleep + pxSummary->other;
    int32_t x;

    for( x = 0; x < lWritten; x++ )
    {
        if( !pxTasks[ x ].deleted )
        {
            ulShares += pxTasks[ x ].usage;
        }
    }

    if( ulShares > 10000U )
    {
        board_fatal( "readers: a snapshot's shares add up to more than 100 %", BOARD_EXIT_ASSERT );
    }

    if( pxSummary->load != 10000U - pxSummary->idle - pxSummary->sleep )
    {
        board_fatal( "readers: a snapshot's load is not 100 % - idle - sleep", BOARD_EXIT_ASSERT );
    }
}

static void prvReaderTask( void * pvParameters )
{
    const uint32_t ulCore = ( uint32_t ) ( uintptr_t ) pvParameters;
    static cpu_usage_task_info xTasks[ configNUMBER_OF_CORES ][ READER_ENTRIES ];
    cpu_usage_summary_info xSummary;
    int32_t lResult;

    for( ; ; )
    {
        vTaskDelay( pdMS_TO_TICKS( READER_PERIOD_MS ) );

        lResult = cpu_usage_snapshot( xTasks[ ulCore ], READER_ENTRIES, &xSummary );

        if( lResult >= 0 )
        {
            prvCheck( xTasks[ ulCore ], ( lResult < ( int32_t ) READER_ENTRIES ) ? lResult : ( int32_t ) READER_ENTRIES,
                      &xSummary );
            ulSnapshots[ ulCore ]++;
        }
        else if( ( lResult != CPU_USAGE_ERR_NO_WINDOW ) && ( lResult != CPU_USAGE_ERR_CHANGED ) )
        {
            board_fatal( "readers: cpu_usage_snapshot failed", BOARD_EXIT_ASSERT );
        }
    }
}

void board_start( void )
{
    static const char * const pcNames[] = { "rd0", "rd1", "rd2", "rd3", "rd4", "rd5", "rd6", "rd7" };
    UBaseType_t uxCore;

    for( uxCore = 0U; uxCore < configNUMBER_OF_CORES; uxCore++ )
    {
        if( xTaskCreateAffinitySet( prvReaderTask, pcNames[ uxCore ], configMINIMAL_STACK_SIZE * 4U,
                                    ( void * ) ( uintptr_t ) uxCore, tskIDLE_PRIORITY + 1U,
                                    ( UBaseType_t ) 1U << uxCore, NULL ) != pdPASS )
        {
            board_fatal( "readers: xTaskCreateAffinitySet failed", BOARD_EXIT_MALLOC_FAILED );
        }
    }
}

uint32_t board_smp_snapshots( uint32_t ulCore )
{
    return ( ulCore < configNUMBER_OF_CORES ) ? ulSnapshots[ ulCore ] : 0U;
}
