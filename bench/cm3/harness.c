/*
 * harness.c - a bare-metal image for QEMU's mps2-an385 (Cortex-M3) that calls the
 * library's hooks directly, the way the kernel would, so that bench/run.sh can count
 * the instructions they execute. No FreeRTOS: the kernel's own cost is not what this
 * image measures (bench/posix does that on the real kernel).
 *
 * One run measures one scenario, chosen on the semihosting command line:
 *
 *     clock=systick|load1  tasks=N  scenario=S
 *
 *   clock=systick  the library's own choice on QEMU, which has no counting DWT: a
 *                  SysTick-extended count (src/arch/cortex_m.rs)
 *   clock=load1    cpu_usage_set_clock() with a clock that is one load from memory,
 *                  the same instructions as reading DWT_CYCCNT
 *   tasks=N        tasks created before the scheduler starts (the first is the idle
 *                  task); beyond CPU_USAGE_MAX_TASKS they share ID 0
 *   scenario=      common | rollover | overflow | release | worst   (a switch pair)
 *                  isr | sleep       (an interrupt's, or a sleep's, hook pair)
 *                  isr-tick          (the kernel's SysTick handler: ISR enter, tick,
 *                                     ISR exit, measured inside the real handler)
 *                  report-text | report-json | report-cum | report-long
 *                                     (show_cpu_usage with no option, -m, -c, -l)
 *                  stack             (every reader's use of the caller's stack,
 *                                     painted and scanned: see stack_call())
 *                  calib                            (the counting method's self-check)
 *
 * Each measured interval is bracketed by calls to bench_begin() and bench_end().
 * Everything the library runs, the clock functions and the markers live in one
 * address range (bench.ld: __measured_start..__measured_end), and QEMU logs only
 * that range (-dfilter), one line per executed instruction (one instruction per
 * translation block, chaining off). This file's own code lies outside the range, so
 * the instructions counted between the markers are exactly those of the functions
 * called between them: their bodies from first instruction to return, with all they
 * call. The kernel's side of a call (loading arguments, the BL) is not counted.
 *
 * Hooks run with interrupts masked here, as in the kernel (PendSV and the tick run
 * them at the kernel's priority), so no interrupt can fall inside an interval.
 *
 * scenario=stack counts no instructions (run.sh runs it without the execution log):
 * the image prints one line per reader measured, through semihosting,
 *
 *     stack <reader> bytes <b> ret <r> out <o> calls <c> sp <s>
 *
 * b: bytes of the caller's stack the reader wrote, below the stack pointer at the
 * call; r: what it returned (the last call's); o: bytes of report it produced; c: how
 * many calls (more than one for the FreeRTOS+CLI command only); s: the stack pointer
 * at the calls, in decimal. A first line, "stack painted bytes <n>", says how much is
 * painted below each call. The markers bracket each call, for run.sh's cross-check
 * of the stack pointer (QEMU's register log).
 */
#include <stdint.h>
#include <stddef.h>
#include <string.h>

#include "freertos_cpu_usage.h"

/* The traced switch hook: declared by freertos_cpu_usage_hooks.h, which only a
 * FreeRTOSConfig.h can include. */
void cpu_usage_hook_task_switched_in_traced( void * tcb, uint32_t id );

#define CPU_HZ           25000000u /* mps2-an385, as configCPU_CLOCK_HZ in the port */
#define TICK_HZ          1000u
#define WINDOW_MS        1000u     /* the library's default */
#define WINDOW_COUNTS    ( CPU_HZ / 1000u * WINDOW_MS )
#define TICKS_PER_WINDOW ( TICK_HZ * WINDOW_MS / 1000u )
#define MAX_BENCH_TASKS  300u

#define SYST_CSR    ( *( volatile uint32_t * ) 0xE000E010u )
#define SYST_RVR    ( *( volatile uint32_t * ) 0xE000E014u )
#define SYST_CVR    ( *( volatile uint32_t * ) 0xE000E018u )
#define ICSR        ( *( volatile uint32_t * ) 0xE000ED04u )
#define ICSR_PENDSTSET    ( 1u << 26 )
#define ICSR_PENDSTCLR    ( 1u << 25 )
#define SYST_RELOAD       ( CPU_HZ / TICK_HZ - 1u )

/* ---- In the measured range (section .measured, see bench.ld) -------------------- */

/* noipa: GCC must neither merge the markers (identical bodies) nor inline them. */
#define MEASURED    __attribute__( ( section( ".measured" ), noipa, used ) )

volatile uint32_t bench_now;

/* One load and a return: what the library's DWT_CYCCNT reader executes. */
MEASURED uint32_t bench_clock_load1( void )
{
    return bench_now;
}

MEASURED void bench_begin( void )
{
}

MEASURED void bench_end( void )
{
}

/* The self-check: exactly 8 instructions, including a skipped IT-block instruction
 * and the return. run.sh fails unless it counts 8. */
MEASURED __attribute__( ( naked ) ) void bench_calib8( void )
{
    __asm volatile (
        "   movs  r0, #1        \n" /* 1 */
        "   cmp   r0, #2        \n" /* 2 */
        "   ite   eq            \n" /* 3 */
        "   moveq r1, #1        \n" /* 4 (condition fails: still executed) */
        "   movne r1, #2        \n" /* 5 */
        "   nop                 \n" /* 6 */
        "   nop                 \n" /* 7 */
        "   bx    lr            \n" /* 8 */
    );
}

/* ---- Semihosting ------------------------------------------------------------------ */

#define SYS_WRITE0           0x04u
#define SYS_GET_CMDLINE      0x15u
#define SYS_EXIT_EXTENDED    0x20u
#define ADP_STOPPED_APPLICATION_EXIT    0x20026u

static uint32_t semihosting_call( uint32_t operation, void * argument )
{
    register uint32_t r0 __asm( "r0" ) = operation;
    register void * r1 __asm( "r1" ) = argument;

    __asm volatile ( "bkpt 0xab" : "+r" ( r0 ) : "r" ( r1 ) : "memory" );
    return r0;
}

static void say( const char * s )
{
    ( void ) semihosting_call( SYS_WRITE0, ( void * ) s );
}

static void __attribute__( ( noreturn ) ) bench_exit( int status )
{
    uint32_t block[ 2 ] = { ADP_STOPPED_APPLICATION_EXIT, ( uint32_t ) status };

    ( void ) semihosting_call( SYS_EXIT_EXTENDED, block );

    for( ; ; )
    {
    }
}

static void __attribute__( ( noreturn ) ) fail( const char * why )
{
    say( "harness: " );
    say( why );
    say( "\n" );
    bench_exit( 1 );
}

/* ---- Start-up ------------------------------------------------------------------- */

extern uint32_t __stack_top[];
extern uint32_t __main_stack_size[]; /* bench.ld: its address is the size */
extern const uint32_t __data_load[];
extern uint32_t __data_start[], __data_end[], __bss_start[], __bss_end[];

int main( void );
void Reset_Handler( void );
void Fault_Handler( void );
void SysTick_Handler( void );

__attribute__( ( section( ".vectors" ), used ) )
void ( * const vectors[ 16 ] )( void ) =
{
    ( void ( * )( void ) ) __stack_top,
    Reset_Handler,
    Fault_Handler, Fault_Handler, Fault_Handler, Fault_Handler, Fault_Handler, /* 2..6 */
    0, 0, 0, 0,
    Fault_Handler,                                                            /* 11 SVC */
    Fault_Handler,
    0,
    Fault_Handler,                                                            /* 14 PendSV */
    SysTick_Handler,                                                          /* 15 */
};

void Reset_Handler( void )
{
    const uint32_t * src = __data_load;

    for( uint32_t * dst = __data_start; dst < __data_end; )
    {
        *dst++ = *src++;
    }

    for( uint32_t * dst = __bss_start; dst < __bss_end; )
    {
        *dst++ = 0u;
    }

    bench_exit( main() );
}

void Fault_Handler( void )
{
    fail( "unexpected exception" );
}

static volatile uint32_t ticks;
static int load1;

/* Counts go by inside a hook pair (uncounted: this file's code is outside the
 * measured range). */
static void pass_counts( uint32_t counts )
{
    if( load1 )
    {
        bench_now += counts;
    }
    else
    {
        /* Roughly: an iteration is about 7 instructions, and a count (25 MHz) is 2.5
         * instructions of -icount shift=4 (16 ns each). */
        for( volatile uint32_t i = 0u; i < counts / 3u; i++ )
        {
        }
    }
}

/* What SysTick_Handler calls. TICK_KERNEL: the sequence of the kernel's
 * xPortSysTickHandler() with the hooks header (GCC/ARM_CM3 port.c): traceISR_ENTER,
 * xTaskIncrementTick() with its traceTASK_INCREMENT_TICK, then traceISR_EXIT (or
 * traceISR_EXIT_TO_SCHEDULER: the same hook). TICK_MEASURED: the same, between the
 * markers (scenario isr-tick). TICK_HOOK_ONLY: the tick hook alone, in every other
 * scenario: their ticks fall outside the measured intervals and only keep the
 * clock's tick count, and their figures stay comparable with those measured before
 * the library counted interrupts. */
enum { TICK_HOOK_ONLY, TICK_KERNEL, TICK_MEASURED };
static volatile int tick_mode = TICK_HOOK_ONLY;
static volatile uint32_t ticks_measured;

void SysTick_Handler( void )
{
    ticks++;

    if( tick_mode == TICK_HOOK_ONLY )
    {
        cpu_usage_hook_tick();
        return;
    }

    int measured = ( tick_mode == TICK_MEASURED );

    /* The port masks interrupts up to the kernel's priority for the whole handler
     * (portDISABLE_INTERRUPTS, BASEPRI); PRIMASK does it here, as for the other hooks. */
    __asm volatile ( "cpsid i" ::: "memory" );

    if( load1 )
    {
        bench_now += 700u; /* since the last hook (the 1-load clock moves only here) */
    }

    if( measured )
    {
        bench_begin();
    }

    cpu_usage_hook_isr_enter();

    pass_counts( 20u );
    cpu_usage_hook_tick();

    /* The warm-up ticks take longer, so that no measured one is the interrupt
     * slot's longest run (see long_run()). */
    pass_counts( measured ? 20u : 300u );
    cpu_usage_hook_isr_exit();

    if( measured )
    {
        bench_end();
        ticks_measured++;
    }

    __asm volatile ( "cpsie i" ::: "memory" );
}

static inline void irq_off( void )
{
    __asm volatile ( "cpsid i" ::: "memory" );
}

static inline void irq_on( void )
{
    __asm volatile ( "cpsie i" ::: "memory" );
}

/* Time goes by (for the SysTick clock): sleep until the next tick. With QEMU's
 * -icount sleep=off the virtual clock jumps to it at once. */
static void wait_tick( void )
{
    uint32_t t = ticks;

    while( ticks == t )
    {
        __asm volatile ( "wfi" );
    }
}

/* How far into the current tick period SysTick is, in counts. */
static uint32_t systick_phase( void )
{
    return SYST_RELOAD - SYST_CVR;
}

/* ---- The tasks -------------------------------------------------------------------- */

/* Stand-ins for TCBs: the hooks only compare them with NULL. */
static uint32_t tcb[ MAX_BENCH_TASKS ];
static uint32_t id[ MAX_BENCH_TASKS ];
static uint32_t n_tasks;
static uint32_t running;

static void create( uint32_t i )
{
    char name[ 16 ] = "task";
    uint32_t v = i, len = 4u;
    char digits[ 8 ];
    uint32_t nd = 0u;

    do
    {
        digits[ nd++ ] = ( char ) ( '0' + ( v % 10u ) );
        v /= 10u;
    } while( v != 0u );

    while( nd > 0u )
    {
        name[ len++ ] = digits[ --nd ];
    }

    name[ len ] = '\0';
    id[ i ] = cpu_usage_hook_task_create( &tcb[ i ], i == 0u ? "IDLE" : name );
}

/* scenario=traced: the hooks of firmware built with CPU_USAGE_TRACE 1, with the event
 * trace recording. (The harness's own instructions are not counted, so this test costs
 * the other scenarios nothing.) */
static int traced;

/* The hooks of one context switch, as vTaskSwitchContext() makes them
 * (traceTASK_SWITCHED_OUT is empty). */
static inline void switch_pair( uint32_t next )
{
    if( traced )
    {
        cpu_usage_hook_task_switched_in_traced( &tcb[ next ], id[ next ] );
    }
    else
    {
        cpu_usage_hook_task_switched_in( &tcb[ next ], id[ next ] );
    }

    running = next;
}

/* An unmeasured switch, a few hundred counts after the previous one. */
static void switch_to( uint32_t next )
{
    irq_off();
    bench_now += 700u;
    switch_pair( next );
    irq_on();
}

/* A task with an ID of its own (not the shared ID 0) other than `not`, if any. */
static uint32_t own_id_task( uint32_t not )
{
    for( uint32_t i = 0u; i < n_tasks; i++ )
    {
        if( ( i != not ) && ( id[ i ] != 0u ) )
        {
            return i;
        }
    }

    return not;
}

static uint32_t last_own_id_task( void )
{
    uint32_t last = 0u;

    for( uint32_t i = 0u; i < n_tasks; i++ )
    {
        if( id[ i ] != 0u )
        {
            last = i;
        }
    }

    return last;
}

/* ---- Scenarios -------------------------------------------------------------------- */

static uint32_t start_tick;
static uint32_t start_phase;

/* SysTick: the tick after which the window that started at scheduler start closes
 * has been counted, and SysTick is now past the phase at which the window started
 * (plus a margin for the code between reading the phase and the library's reading),
 * and far from its next wrap: the next hook rolls the window over. */
static void systick_wait_window_end( void )
{
    while( ticks < start_tick + TICKS_PER_WINDOW )
    {
        wait_tick();
    }

    for( ; ; )
    {
        irq_off();
        uint32_t phase = systick_phase();

        if( ( phase > start_phase + 2000u ) && ( phase < SYST_RELOAD - 2000u ) &&
            ( ( ICSR & ICSR_PENDSTSET ) == 0u ) )
        {
            return; /* interrupts stay off */
        }

        irq_on();
    }
}

/* SysTick far from its wrap, so that no tick can pend during a measured pair. */
static void systick_wait_quiet( void )
{
    for( ; ; )
    {
        irq_off();

        if( ( systick_phase() < SYST_RELOAD / 2u ) && ( ( ICSR & ICSR_PENDSTSET ) == 0u ) )
        {
            return;
        }

        irq_on();
    }
}

/* Whether a window has completed, through the API (outside the measured interval). */
static int window_published( void )
{
    char arg0[] = "show_cpu_usage";
    char * argv[ 2 ] = { arg0, NULL };

    return cpu_usage_format( NULL, 0u, 1, argv ) != CPU_USAGE_ERR_NO_WINDOW;
}

/* A measured interval, opened and closed with interrupts off (the callers turned
 * them off). `rolls_over`: the interval must close the first window, and any other
 * must not; a harness whose timing went wrong fails rather than report the wrong
 * path. */
static void measure_open( void )
{
    if( window_published() )
    {
        fail( "a window closed before the measured interval" );
    }

    bench_begin();
}

static void measure_close( int rolls_over )
{
    bench_end();

    if( window_published() != rolls_over )
    {
        fail( rolls_over ? "the measured interval did not close the window"
                         : "the measured interval closed a window" );
    }

    irq_on();
}

/* The measured switch pair. */
static void measure_pair( uint32_t next,
                          int rolls_over )
{
    measure_open();
    switch_pair( next );
    measure_close( rolls_over );
}

/* Interrupts off, and time goes by since the last hook: a few hundred counts (the
 * 1-load clock), or whatever passed and SysTick quiet for the next half period. */
static void settle( void )
{
    if( load1 )
    {
        irq_off();
        bench_now += 700u;
    }
    else
    {
        systick_wait_quiet();
    }
}

/* An interrupt's hook pair, as CPU_USAGE_ISR_ENTER/EXIT or the kernel's
 * traceISR_ENTER/EXIT make it (interrupts are off). */
static void isr_pair( uint32_t counts )
{
    cpu_usage_hook_isr_enter();
    pass_counts( counts );
    cpu_usage_hook_isr_exit();
}

/* Tickless idle's pair, traceLOW_POWER_IDLE_BEGIN/END (interrupts are off). */
static void sleep_pair( uint32_t counts )
{
    cpu_usage_hook_sleep_begin();
    pass_counts( counts );
    cpu_usage_hook_sleep_end();
}

/* The hooks keep each slot's longest run in the window, which takes a few more
 * instructions when a run is longer than any before it. The measured runs are never
 * that: a warm-up runs longer first. On SysTick, how long a task runs before a
 * measured switch depends on how long systick_wait_quiet() waited (up to half a
 * tick), so the task first gets a run of two ticks, which a switch to itself ends.
 * (The 1-load clock moves 700 counts per switch: every run is as long.) */
static void long_run( uint32_t task )
{
    switch_to( task );

    if( !load1 )
    {
        wait_tick();
        wait_tick();
        switch_to( task );
    }
}

/* The common switch: three switches between tasks with IDs of their own (with a
 * single task, from it to itself), after two long runs have settled the counters.
 * run.sh checks that the three counts agree. */
static void measure_common( uint32_t from )
{
    long_run( own_id_task( from ) );
    long_run( from );

    for( uint32_t k = 0u; k < 3u; k++ )
    {
        uint32_t next = own_id_task( running );

        settle();
        measure_pair( next, 0 );
    }
}

/* The running task deletes itself (vTaskDelete(NULL)): the next switch releases its ID. */
static void self_delete_running( void )
{
    irq_off();

    if( cpu_usage_hook_task_delete( &tcb[ running ], id[ running ] ) != 0 )
    {
        fail( "self-delete refused" );
    }

    irq_on();
}

static void output_discard( const char * s, size_t n )
{
    ( void ) s;
    ( void ) n;
}

/* A completed window, every task having run in it, for the readers to read, with
 * their output going to `write` (clock=load1 only: the harness moves that clock on a
 * window at a time). */
static void complete_window( void ( * write )( const char * s, size_t n ) )
{
    if( !load1 )
    {
        fail( "report and stack scenarios need clock=load1" );
    }

    if( cpu_usage_set_output( write ) != 0 )
    {
        fail( "set_output" );
    }

    /* The window under way closes; in the next one every task runs. */
    bench_now += WINDOW_COUNTS;
    irq_off();
    cpu_usage_hook_tick();
    irq_on();

    for( uint32_t i = 0u; i < n_tasks; i++ )
    {
        switch_to( i );
    }

    bench_now += WINDOW_COUNTS;
    irq_off();
    cpu_usage_hook_tick();
    irq_on();
}

/* show_cpu_usage with `option`, once a window has completed. */
static int report( const char * option )
{
    char arg0[] = "show_cpu_usage";
    char arg1[ 4 ];
    char * argv[ 3 ] = { arg0, arg1, NULL };
    int argc = 1;
    int status;

    if( option != NULL )
    {
        strcpy( arg1, option );
        argc = 2;
    }

    complete_window( output_discard );

    bench_begin();
    status = show_cpu_usage( argc, argv );
    bench_end();

    return status;
}

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
static void measure_stack( void )
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

static int arg_is( const char * line, const char * word )
{
    size_t n = strlen( word );

    for( const char * p = line; *p != '\0'; )
    {
        size_t len = strcspn( p, " " );

        if( ( len == n ) && ( strncmp( p, word, n ) == 0 ) )
        {
            return 1;
        }

        p += len;
        p += ( *p == ' ' );
    }

    return 0;
}

static uint32_t arg_number( const char * line, const char * key )
{
    const char * p = strstr( line, key );
    uint32_t v = 0u;

    if( p == NULL )
    {
        fail( "missing argument" );
    }

    for( p += strlen( key ); ( *p >= '0' ) && ( *p <= '9' ); p++ )
    {
        v = ( v * 10u ) + ( uint32_t ) ( *p - '0' );
    }

    return v;
}

int main( void )
{
    static char line[ 256 ];
    uint32_t block[ 2 ] = { ( uint32_t ) line, sizeof( line ) };

    if( semihosting_call( SYS_GET_CMDLINE, block ) != 0u )
    {
        fail( "no command line" );
    }

    if( arg_is( line, "scenario=calib" ) )
    {
        bench_begin();
        bench_calib8();
        bench_end();
        return 0;
    }

    load1 = arg_is( line, "clock=load1" );
    n_tasks = arg_number( line, "tasks=" );

    if( ( n_tasks == 0u ) || ( n_tasks > MAX_BENCH_TASKS ) )
    {
        fail( "tasks= out of range" );
    }

    /* The kernel's SysTick set-up: 1 kHz from the CPU clock, interrupt on. */
    irq_off();
    SYST_CSR = 0u;
    SYST_RVR = SYST_RELOAD;
    SYST_CVR = 0u;
    SYST_CSR = 7u;

    irq_on();

    /* The tasks, each created inside a critical section as xTaskCreate() does (the
     * idle task is simply the first one here). Ticks go on meanwhile. */
    for( uint32_t i = 0u; i < n_tasks; i++ )
    {
        irq_off();
        create( i );
        irq_on();
    }

    /* Start mid-period, with no tick pending, so that the window's end falls
     * mid-period too and `ticks` is the library's tick count. */
    for( ; ; )
    {
        irq_off();
        uint32_t phase = systick_phase();

        if( ( phase >= SYST_RELOAD / 2u ) && ( phase < SYST_RELOAD - 4000u ) &&
            ( ( ICSR & ICSR_PENDSTSET ) == 0u ) )
        {
            break;
        }

        irq_on();
    }

    start_tick = ticks;
    start_phase = systick_phase();
    /* No BASEPRI level (0): the harness leaves the SysTick at priority 0, which only
     * PRIMASK masks, so the readers' critical sections mask with PRIMASK here, as the
     * harness does around the hooks. */
    cpu_usage_hook_scheduler_start( id[ 0 ], CPU_HZ, 0u );

    if( load1 && ( cpu_usage_set_clock( bench_clock_load1, CPU_HZ ) != 0 ) )
    {
        fail( "set_clock" );
    }

    switch_pair( 0u );
    irq_on();

    /* Two rounds: every task has run in this window, as in a system that has been up
     * for a while, so a switch charges a slot already charged in this window. */
    for( uint32_t round = 0u; round < 2u; round++ )
    {
        for( uint32_t i = 0u; i < n_tasks; i++ )
        {
            switch_to( i );
        }
    }

    uint32_t from = own_id_task( n_tasks ); /* the first task with an ID */
    switch_to( from );

    if( arg_is( line, "scenario=common" ) )
    {
        measure_common( from );
    }
    else if( arg_is( line, "scenario=traced" ) )
    {
        /* The common switch again, traced: each measured switch also records an
         * event. */
        char arg0[] = "cpu_usage_trace";
        char arg1[] = "start";
        char * argv[ 3 ] = { arg0, arg1, NULL };

        if( ( cpu_usage_set_output( output_discard ) != 0 ) || ( cpu_usage_trace( 2, argv ) != 0 ) )
        {
            fail( "cpu_usage_trace start failed" );
        }

        traced = 1;
        measure_common( from );
    }
    else if( arg_is( line, "scenario=overflow" ) )
    {
        /* Switching in a task that shares ID 0 (there is one when tasks > IDs). */
        uint32_t next = n_tasks - 1u;

        if( id[ next ] != 0u )
        {
            fail( "no task beyond the IDs" );
        }

        settle();
        measure_pair( next, 0 );
    }
    else if( arg_is( line, "scenario=rollover" ) )
    {
        /* The switch finds the window elapsed and closes it. */
        uint32_t next = own_id_task( running );

        if( load1 )
        {
            irq_off();
            bench_now += WINDOW_COUNTS;
        }
        else
        {
            systick_wait_window_end();
        }

        measure_pair( next, 1 );
    }
    else if( arg_is( line, "scenario=release" ) )
    {
        /* The task with the highest own ID deletes itself; the next switch puts the ID
         * in quarantine. */
        switch_to( last_own_id_task() );
        self_delete_running();
        uint32_t next = own_id_task( running );

        settle();
        measure_pair( next, 0 );
    }
    else if( arg_is( line, "scenario=worst" ) )
    {
        /* All of it in one pair: a task that deleted itself is switched out just
         * after the window has elapsed, and on SysTick with the tick pending (the
         * counter reloaded since the last reading: the clock reads it twice). The
         * switch-in charges "other" for the first time in the new window. */
        switch_to( last_own_id_task() );
        self_delete_running();
        uint32_t next = own_id_task( running );

        if( load1 )
        {
            irq_off();
            bench_now += WINDOW_COUNTS;
        }
        else
        {
            while( ticks < start_tick + TICKS_PER_WINDOW )
            {
                wait_tick();
            }

            irq_off();

            while( ( ICSR & ICSR_PENDSTSET ) == 0u )
            {
            }
        }

        measure_pair( next, 1 );
    }
    else if( arg_is( line, "scenario=isr" ) )
    {
        /* An interrupt taken while a task that already ran in this window runs, after
         * a first one (the warm-up) has charged the interrupt slot in this window too.
         * Three times; run.sh checks that the counts agree. */
        settle();
        isr_pair( 600u );
        irq_on();

        for( uint32_t k = 0u; k < 3u; k++ )
        {
            settle();
            measure_open();
            isr_pair( 300u );
            measure_close( 0 );
        }
    }
    else if( arg_is( line, "scenario=sleep" ) )
    {
        /* The idle task, which already ran in this window, goes to sleep and wakes,
         * after a first sleep (the warm-up) has charged the sleep slot in this window.
         * Three times, as above. */
        if( running != 0u )
        {
            switch_to( 0u );
        }

        settle();
        sleep_pair( 6000u );
        irq_on();

        for( uint32_t k = 0u; k < 3u; k++ )
        {
            settle();
            measure_open();
            sleep_pair( 3000u );
            measure_close( 0 );
        }
    }
    else if( arg_is( line, "scenario=isr-tick" ) )
    {
        /* The SysTick handler as the kernel runs it, in the handler itself (so on the
         * SysTick clock the counter has just reloaded and its pending bit is clear, as
         * in the kernel). Two ticks of warm-up charge the interrupt slot in this
         * window; the next three are measured, each interrupting the same task, which
         * ran in this window. No window may close meanwhile. */
        if( window_published() )
        {
            fail( "a window closed before the warm-up ticks" );
        }

        tick_mode = TICK_KERNEL;
        wait_tick();
        wait_tick();

        if( window_published() )
        {
            fail( "a warm-up tick (ISR enter, tick, ISR exit) closed a window" );
        }

        tick_mode = TICK_MEASURED;

        while( ticks_measured < 3u )
        {
            __asm volatile ( "wfi" );
        }

        irq_off();
        tick_mode = TICK_HOOK_ONLY;
        irq_on();

        if( window_published() )
        {
            fail( "a measured tick closed a window" );
        }
    }
    else if( arg_is( line, "scenario=report-text" ) )
    {
        return report( NULL ) == 0 ? 0 : 2;
    }
    else if( arg_is( line, "scenario=report-json" ) )
    {
        return report( "-m" ) == 0 ? 0 : 2;
    }
    else if( arg_is( line, "scenario=report-cum" ) )
    {
        return report( "-c" ) == 0 ? 0 : 2;
    }
    else if( arg_is( line, "scenario=report-long" ) )
    {
        return report( "-l" ) == 0 ? 0 : 2;
    }
    else if( arg_is( line, "scenario=stack" ) )
    {
        measure_stack();
    }
    else
    {
        fail( "unknown scenario" );
    }

    return 0;
}
