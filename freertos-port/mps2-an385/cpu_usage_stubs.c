/*
 * cpu_usage_stubs.c - stand-ins for the library's API, linked only into
 * demo-nolib.elf (built with -DCPU_USAGE_DISABLED, so the kernel has no hooks either).
 *
 * That image exists to be measured: demo.elf minus demo-nolib.elf is what the library
 * adds. So every stub is as small as the call it replaces allows, and --gc-sections
 * drops those the demo does not call. The figure slightly understates the library by
 * the size of the stubs that remain (a few bytes each).
 */
#include "freertos_cpu_usage.h"

uint32_t cpu_usage_abi_version( void )
{
    return CPU_USAGE_ABI_VERSION;
}

const char * cpu_usage_status_str( int32_t status )
{
    ( void ) status;
    return "freertos-cpu-usage is not linked into this image";
}

int32_t cpu_usage_set_output( void ( * write )( const char * s, size_t n ) )
{
    ( void ) write;
    return CPU_USAGE_OK;
}

int32_t cpu_usage_set_clock( uint32_t ( * read )( void ), uint32_t hz )
{
    ( void ) read;
    ( void ) hz;
    return CPU_USAGE_OK;
}

int32_t cpu_usage_set_window_ms( uint32_t ms )
{
    ( void ) ms;
    return CPU_USAGE_OK;
}

uint32_t cpu_usage_window_ms( void )
{
    return 0u;
}

int show_cpu_usage( int argc, char ** argv )
{
    ( void ) argc;
    ( void ) argv;
    return CPU_USAGE_ERR_NO_OUTPUT;
}

int cpu_usage_format( char * buf, size_t len, int argc, char ** argv )
{
    ( void ) argc;
    ( void ) argv;

    if( ( buf != NULL ) && ( len > 0u ) )
    {
        buf[ 0 ] = '\0';
    }

    return CPU_USAGE_ERR_NO_OUTPUT;
}

int32_t cpu_usage_watchdog_set_callback( void ( * callback )( const cpu_usage_alert * alert, void * ctx ),
                                         void * ctx )
{
    ( void ) callback;
    ( void ) ctx;
    return CPU_USAGE_OK;
}

int32_t cpu_usage_set_follow_wait( int ( * wait )( uint32_t ms ) )
{
    ( void ) wait;
    return CPU_USAGE_OK;
}

int cpu_usage_watchdog( int argc, char ** argv )
{
    ( void ) argc;
    ( void ) argv;
    return CPU_USAGE_ERR_NO_OUTPUT;
}

int32_t cpu_usage_snapshot( cpu_usage_task_info * tasks,
                            size_t max_tasks,
                            cpu_usage_summary_info * summary )
{
    ( void ) tasks;
    ( void ) max_tasks;
    ( void ) summary;
    return CPU_USAGE_ERR_NO_WINDOW;
}

long cpu_usage_cli_command( char * out, size_t len, const char * cmdline )
{
    ( void ) cmdline;

    if( ( out != NULL ) && ( len > 0u ) )
    {
        out[ 0 ] = '\0';
    }

    return 0;
}
