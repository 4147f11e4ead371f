/*
 * startup.c - examples/cmake-cm3's start-up on QEMU's mps2-an385: the vector table,
 * with the kernel's three handlers in it, and the way from reset to main().
 */
#include <stdint.h>
#include <string.h>

extern uint32_t __data_start[], __data_end[], __data_load[], __bss_start[], __bss_end[], __stack_top[];

int main( void );
void Reset_Handler( void );
void vPortSVCHandler( void );
void xPortPendSVHandler( void );
void xPortSysTickHandler( void );
void app_exit( int status ) __attribute__( ( noreturn ) );

static void prvFault( void )
{
    app_exit( 3 );
}

__attribute__( ( section( ".vectors" ), used ) ) static void ( * const prvVectors[ 16 ] )( void ) =
{
    ( void ( * )( void ) ) __stack_top,
    Reset_Handler,
    prvFault,           /* NMI */
    prvFault,           /* HardFault */
    prvFault,           /* MemManage */
    prvFault,           /* BusFault */
    prvFault,           /* UsageFault */
    0, 0, 0, 0,
    vPortSVCHandler,    /* SVCall */
    prvFault,           /* DebugMonitor */
    0,
    xPortPendSVHandler, /* PendSV */
    xPortSysTickHandler /* SysTick */
};

void Reset_Handler( void )
{
    memcpy( __data_start, __data_load, ( size_t ) ( ( uintptr_t ) __data_end - ( uintptr_t ) __data_start ) );
    memset( __bss_start, 0, ( size_t ) ( ( uintptr_t ) __bss_end - ( uintptr_t ) __bss_start ) );
    app_exit( main() );
}
