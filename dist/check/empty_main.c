/*
 * empty_main.c - the smallest firmware that links a prebuilt archive (make dist-check).
 *
 * main() calls one function of the library, cpu_usage_abi_version(), and ends with
 * status 0 when the archive's version is the one its header says. On the host it is an
 * ordinary program. On a bare-metal core it is all of the firmware: the start-up (an
 * Arm vector table or a RISC-V entry that parks every hart but the first) and the way
 * out QEMU turns into its own exit status (Arm semihosting's SYS_EXIT_EXTENDED, the
 * RISC-V virt machine's test finisher). No C library call, no data in RAM: the image
 * holds the library's code that one call reaches, and nothing of the firmware's but
 * what QEMU needs to start and stop it.
 */
#include "freertos_cpu_usage.h"

int main( void );

int main( void )
{
    return ( cpu_usage_abi_version() == CPU_USAGE_ABI_VERSION ) ? 0 : 1;
}

#if defined( __arm__ ) && !defined( __linux__ )

extern unsigned long __stack_top[];
void dist_entry( void );

/* The reset vector: where the core finds its stack and its first instruction. */
__attribute__( ( section( ".vectors"), used ) )
static void * const prvVectors[ 2 ] = { __stack_top, ( void * ) dist_entry };

void dist_entry( void )
{
    /* SYS_EXIT_EXTENDED with ADP_Stopped_ApplicationExit: QEMU exits with the status. */
    volatile unsigned long ulBlock[ 2 ] = { 0x20026UL, ( unsigned long ) main() };
    register unsigned long r0 __asm__( "r0" ) = 0x20UL;
    register volatile unsigned long * r1 __asm__( "r1" ) = ulBlock;

    __asm__ volatile ( "bkpt 0xab" : "+r" ( r0 ) : "r" ( r1 ) : "memory" );

    for( ; ; )
    {
    }
}

#elif defined( __riscv ) && !defined( __linux__ )

void dist_start( void );

/* Every hart starts here: the first runs main(), the others wait for ever. */
__asm__ ( ".section .text.start, \"ax\"\n"
          ".globl dist_entry\n"
          "dist_entry:\n"
          "    csrr t0, mhartid\n"
          "    bnez t0, 1f\n"
          "    la sp, __stack_top\n"
          "    call dist_start\n"
          "1:  wfi\n"
          "    j 1b\n" );

void dist_start( void )
{
    /* virt's SiFive test finisher: 0x5555 ends QEMU with status 0, else 0x3333 | s << 16. */
    unsigned long ulStatus = ( unsigned long ) main();

    *( volatile unsigned long * ) 0x100000UL = ( ulStatus == 0UL ) ? 0x5555UL : ( ( ulStatus << 16 ) | 0x3333UL );

    for( ; ; )
    {
    }
}

#endif
