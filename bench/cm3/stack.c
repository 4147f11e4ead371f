/*
 * stack.c - scenario=stack of the Cortex-M3 bench image: how much of its caller's
 * stack each reader of the C API writes, painted before the call and scanned after it
 * (the line it prints per reader is described at the top of harness.c).
 */
#include <stdint.h>
#include <stddef.h>
#include <string.h>

#include "harness.h"

/* ---- Stack: how much of the caller's stack each reader uses ------------------------- */

/* One call whose use of the stack stack_call() measures. The assembly uses the
 * offsets, which the asserts below pin. */
struct stack_call
{
    uint32_t fn;       /* the function called, with r0..r3 = arg[0..3] */
    uint32_t arg[ 4 ];
    uint32_t paint;    /* bytes painted below the stack pointer at the call (a multiple of 4) */
    uint32_t ret;      /* r0 on return */
    uint32_t used;     /* bytes from the deepest word that changed up to the stack pointer
                        * at the call; 0 if none did */
    uint32_t sp;       /* the stack pointer at the call */
};

_Static_assert( offsetof( struct stack_call, fn ) == 0, "stack_call's assembly" );
_Static_assert( offsetof( struct stack_call, arg ) == 4, "stack_call's assembly" );
_Static_assert( offsetof( struct stack_call, paint ) == 20, "stack_call's assembly" );
_Static_assert( offsetof( struct stack_call, ret ) == 24, "stack_call's assembly" );
_Static_assert( offsetof( struct stack_call, used ) == 28, "stack_call's assembly" );
_Static_assert( offsetof( struct stack_call, sp ) == 32, "stack_call's assembly" );

/* Bytes painted below the stack pointer at each call: today's readers use about
 * 20 KiB at 256 IDs (bench.ld reserves 64 KiB for main's stack). */
#define STACK_PAINT      ( 32u * 1024u )

/* Calls c->fn(c->arg[0..3]) and measures how much of the stack below its own stack
 * pointer the call wrote. Only the assembly runs between painting, the call and the
 * scan: the painted region [sp - paint, sp) lies below the frame of this function
 * (its pushed registers are above sp), no C code with a frame of its own runs inside
 * it, and the stack pointer at the BLX is exactly the one the region hangs from, as
 * a task's is at its own call of the API. The reader's arguments are in registers
 * (none takes more than four), so nothing of the caller's is in the region. What the
 * reader calls (the output function included) runs below the reader's frame and so
 * counts as the reader's. The scan goes up from the region's lowest word and stops at
 * the first that is no longer the pattern: the deepest word written. A word written
 * with the pattern's own value counts as untouched, and stack reserved but never
 * written is not seen: both are the painting method's limits (run.sh's stack pointer
 * cross-check sees the second). No interrupt may come meanwhile (its exception frame
 * would land below the reader's stack pointer): the stack scenario stops SysTick,
 * the one interrupt the image enables. */
__attribute__( ( naked, noinline ) ) static void stack_call( struct stack_call * c __attribute__( ( unused ) ) )
{
    __asm volatile (
        "   push  {r4-r8, lr}      \n" /* six words: the stack stays 8-byte aligned */
        "   mov   r4, r0           \n" /* r4: c (r4..r8 survive the call) */
        "   mov   r5, sp           \n" /* r5: the stack pointer at the call */
        "   str   r5, [r4, #32]    \n"
        "   ldr   r7, [r4, #20]    \n"
        "   sub   r7, r5, r7       \n" /* r7: the region's lowest word */
        "   movw  r6, #0xc0de      \n" /* r6: the pattern, 0xdeadc0de: no RAM or */
        "   movt  r6, #0xdead      \n" /* flash address, small number or text */
        "   mov   r0, r7           \n"
        "1: str   r6, [r0], #4     \n" /* paint [r7, r5) */
        "   cmp   r0, r5           \n"
        "   blo   1b               \n"
        "   ldr   r12, [r4, #0]    \n"
        "   ldr   r0, [r4, #4]     \n"
        "   ldr   r1, [r4, #8]     \n"
        "   ldr   r2, [r4, #12]    \n"
        "   ldr   r3, [r4, #16]    \n"
        "   blx   r12              \n" /* sp == r5: nothing pushed since it was read */
        "   str   r0, [r4, #24]    \n"
        "   mov   r0, r7           \n"
        "2: cmp   r0, r5           \n" /* up from the lowest word to the first changed */
        "   bhs   3f               \n"
        "   ldr   r1, [r0]         \n"
        "   cmp   r1, r6           \n"
        "   bne   3f               \n"
        "   adds  r0, r0, #4       \n"
        "   b     2b               \n"
        "3: sub   r0, r5, r0       \n" /* bytes from it up to the stack pointer */
        "   str   r0, [r4, #28]    \n"
        "   pop   {r4-r8, pc}      \n"
    );
}

/* The method's self-check: writes the one word 64 bytes below the stack pointer and
 * nothing else. stack_call() must find 64. */
__attribute__( ( naked, noinline ) ) static void stack_calib64( void )
{
    __asm volatile (
        "   sub   sp, sp, #64      \n"
        "   str   r0, [sp]         \n" /* r0 = arg[0] = 0, not the pattern */
        "   add   sp, sp, #64      \n"
        "   bx    lr               \n"
    );
}

/* The output function the readers get in the stack scenario: it counts the bytes
 * (a sanity check that a report was made) and uses no stack (a leaf: a load, an add,
 * a store), so the figures are the readers' own; what it used would count. */
static volatile uint32_t out_bytes;

static void output_count( const char * s,
                          size_t n )
{
    ( void ) s;
    out_bytes += n;
}

static void say_u32( uint32_t v )
{
    char digits[ 11 ];
    uint32_t nd = sizeof( digits ) - 1u;

    digits[ nd ] = '\0';

    do
    {
        digits[ --nd ] = ( char ) ( '0' + ( v % 10u ) );
        v /= 10u;
    } while( v != 0u );

    say( &digits[ nd ] );
}

static void say_i32( int32_t v )
{
    if( v < 0 )
    {
        say( "-" );
        say_u32( 0u - ( uint32_t ) v );
    }
    else
    {
        say_u32( ( uint32_t ) v );
    }
}

/* Measures the call of `fn` with `args` and prints its line (see the top of this
 * file). Its return value is the reader's. */
static uint32_t stack_deepest;
static uint32_t stack_sp;

static int32_t stack_measure( uint32_t fn,
                              uint32_t a0,
                              uint32_t a1,
                              uint32_t a2,
                              uint32_t a3 )
{
    struct stack_call c = { fn, { a0, a1, a2, a3 }, STACK_PAINT, 0u, 0u, 0u };
    uint32_t t = ticks;

    /* The markers: for the register log of run.sh's stack pointer cross-check. They
     * run before the painting and after the scan, on this function's frame. */
    bench_begin();
    stack_call( &c );
    bench_end();

    if( ticks != t )
    {
        fail( "a tick came during a stack measurement" );
    }

    if( c.used + 1024u > STACK_PAINT )
    {
        fail( "a reader wrote within 1 KiB of the painted region's end: paint more (STACK_PAINT)" );
    }

    stack_deepest = c.used;
    stack_sp = c.sp;
    return ( int32_t ) c.ret;
}

static void stack_say( const char * reader,
                       int32_t ret,
                       uint32_t calls )
{
    say( "stack " );
    say( reader );
    say( " bytes " );
    say_u32( stack_deepest );
    say( " ret " );
    say_i32( ret );
    say( " out " );
    say_u32( out_bytes );
    say( " calls " );
    say_u32( calls );
    say( " sp " );
    say_u32( stack_sp );
    say( "\n" );
}

#define FN( f )    ( ( uint32_t ) ( uintptr_t ) ( f ) )
#define ARG( a )   ( ( uint32_t ) ( uintptr_t ) ( a ) )

/* The readers' arguments and buffers: static, so none of them is in the painted
 * region (a caller's own arrays are not the reader's stack). */
static char a_cmd[] = "show_cpu_usage";
static char a_m[] = "-m";
static char a_c[] = "-c";
static char a_l[] = "-l";
static char a_s[] = "-s";
static char a_n[] = "-n";
static char a_3[] = "3";

static struct
{
    const char * name;
    int argc;
    char * argv[ 5 ];
} const show_cases[] =
{
    { "show-text", 1, { a_cmd, NULL } },
    { "show-m",    2, { a_cmd, a_m, NULL } },
    { "show-c",    2, { a_cmd, a_c, NULL } },
    { "show-l",    2, { a_cmd, a_l, NULL } },
    { "show-s",    2, { a_cmd, a_s, NULL } },
    { "show-n3",   3, { a_cmd, a_n, a_3, NULL } },
    { "show-clm",  4, { a_cmd, a_c, a_l, a_m, NULL } },
};

static char format_buf[ 64u * 1024u ];
static char cli_out[ 128 ];
static const char cli_line[] = "show_cpu_usage";
static cpu_usage_task_info snap_rows[ CPU_USAGE_MAX_TASKS + 1u ];
static cpu_usage_summary_info snap_summary;

/* scenario=stack: every reader, each call on a freshly painted stack. */
void measure_stack( void )
{
    int32_t ret;
    uint32_t sp;

    complete_window( output_count );

    /* No interrupt from here on: SysTick off, none pending. */
    irq_off();
    SYST_CSR = 0u;
    ICSR = ICSR_PENDSTCLR;
    irq_on();

    /* The painted region lies inside the stack bench.ld reserves, well below this
     * frame. */
    __asm volatile ( "mov %0, sp" : "=r" ( sp ) );

    if( sp - STACK_PAINT - 256u < ( uint32_t ) __stack_top - ( uint32_t ) __main_stack_size )
    {
        fail( "the painted region does not fit in bench.ld's __main_stack_size" );
    }

    say( "stack painted bytes " );
    say_u32( STACK_PAINT );
    say( "\n" );

    out_bytes = 0u;
    ( void ) stack_measure( FN( stack_calib64 ), 0u, 0u, 0u, 0u );
    stack_say( "calib", 0, 1u );

    /* A NULL summary: refused at once, the floor of what a reader call can use. */
    out_bytes = 0u;
    ret = stack_measure( FN( cpu_usage_snapshot ), 0u, 0u, 0u, 0u );

    if( ret != CPU_USAGE_ERR_NULL )
    {
        fail( "cpu_usage_snapshot( NULL, 0, NULL ) was not refused" );
    }

    stack_say( "snapshot-null", ret, 1u );

    for( size_t i = 0u; i < sizeof( show_cases ) / sizeof( show_cases[ 0 ] ); i++ )
    {
        out_bytes = 0u;
        ret = stack_measure( FN( show_cpu_usage ), ( uint32_t ) show_cases[ i ].argc,
                             ARG( show_cases[ i ].argv ), 0u, 0u );

        if( ( ret != 0 ) || ( out_bytes == 0u ) )
        {
            fail( "show_cpu_usage failed in the stack scenario" );
        }

        stack_say( show_cases[ i ].name, ret, 1u );
    }

    /* The whole text into a buffer large enough for it. */
    out_bytes = 0u;
    ret = stack_measure( FN( cpu_usage_format ), ARG( format_buf ), sizeof( format_buf ),
                         ( uint32_t ) show_cases[ 0 ].argc, ARG( show_cases[ 0 ].argv ) );

    if( ( ret <= 0 ) || ( ( uint32_t ) ret >= sizeof( format_buf ) ) )
    {
        fail( "cpu_usage_format failed, or its buffer is too small" );
    }

    out_bytes = ( uint32_t ) ret;
    stack_say( "format", ret, 1u );

    /* FreeRTOS+CLI calls the command again while it returns 1 (pdTRUE); the figure is
     * the deepest of those calls. */
    {
        uint32_t calls = 0u, deepest = 0u, bytes = 0u;

        do
        {
            ret = stack_measure( FN( cpu_usage_cli_command ), ARG( cli_out ), sizeof( cli_out ),
                                 ARG( cli_line ), 0u );
            calls++;
            bytes += ( uint32_t ) strlen( cli_out );

            if( stack_deepest > deepest )
            {
                deepest = stack_deepest;
            }

            if( ( ret < 0 ) || ( ret > 1 ) || ( calls > 10000u ) )
            {
                fail( "cpu_usage_cli_command failed, or did not end" );
            }
        } while( ret == 1 );

        stack_deepest = deepest;
        out_bytes = bytes;
        stack_say( "cli", ret, calls );
    }

    /* Every row, into the caller's array. */
    ret = stack_measure( FN( cpu_usage_snapshot ), ARG( snap_rows ),
                         sizeof( snap_rows ) / sizeof( snap_rows[ 0 ] ), ARG( &snap_summary ), 0u );

    if( ( ret <= 0 ) || ( ( uint32_t ) ret != snap_summary.tasks ) )
    {
        fail( "cpu_usage_snapshot did not write every task" );
    }

    out_bytes = ( uint32_t ) ret * sizeof( snap_rows[ 0 ] );
    stack_say( "snapshot", ret, 1u );
}
