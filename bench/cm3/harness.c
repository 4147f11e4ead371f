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
 *                                     painted and scanned: see stack_call() in
 *                                     stack.c)
 *                  calib             (the counting method's self-check: two
 *                                     intervals, bench_calib8(), then
 *                                     bench_calib_io10())
 *
 * Each measured interval is bracketed by calls to bench_begin() and bench_end().
 * Everything the library runs, the clock functions and the markers live in one
 * address range (bench.ld: __measured_start..__measured_end), and QEMU logs only
 * that range (-dfilter), one line per executed instruction (one instruction per
 * translation block, chaining off). The harness's own code (this file, scenarios.c
 * and stack.c) lies outside the range, so the instructions counted between the
 * markers are exactly those of the functions called between them: their bodies from
 * first instruction to return, with all they call. The kernel's side of a call (loading arguments, the BL) is not counted.
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

#include "harness.h"

/* ---- In the measured range (section .measured, see bench.ld) -------------------- */

/* noipa: GCC must neither merge the markers (identical bodies) nor inline them. */
#define MEASURED    __attribute__( ( section( ".measured" ), noipa, used ) )

volatile uint32_t bench_now;

/* One load and a return: what the library's DWT_CYCCNT reader executes. */
MEASURED uint32_t bench_clock_load1( void )
{
    return bench_now;
}

/* The switch hook's call site reads the clock (CPU_USAGE_TRACE_TASK_SWITCHED_IN() in
 * freertos_cpu_usage_hooks.h) and passes the reading in. In the kernel GCC makes
 * that three instructions in vTaskSwitchContext(): the pointer's address from the
 * literal pool, the pointer, the call. These are the same three (the call a tail
 * call, so the clock returns to the harness): measured, they count as they did when
 * the hook read the clock itself. (The rest of the call site, loading the ID and the
 * BL, is the kernel's side, not counted: see the top.) */
MEASURED __attribute__( ( naked ) ) uint32_t bench_switch_site_clock( void )
{
    __asm volatile (
        "   ldr   r3, =cpu_usage_clock_read \n"
        "   ldr   r3, [r3]                  \n"
        "   bx    r3                        \n"
        "   .ltorg                          \n"
    );
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

/* The self-check of device registers: exactly 10 instructions, three of them loads
 * from device registers (SysTick's current and reload values, the CMSDK timer 0's
 * value) and one from RAM. Under -icount QEMU runs each device load twice (see
 * count.awk); run.sh fails unless this counts 10. */
MEASURED __attribute__( ( naked ) ) void bench_calib_io10( void )
{
    __asm volatile (
        "   movw  r1, #0xe018   \n" /* 1 */
        "   movt  r1, #0xe000   \n" /* 2: SysTick's current value register */
        "   ldr   r0, [r1]      \n" /* 3: device */
        "   ldr   r2, [r1, #-4] \n" /* 4: device (its reload value) */
        "   ldr   r3, [sp]      \n" /* 5: RAM */
        "   movs  r1, #0x40     \n" /* 6 */
        "   lsls  r1, r1, #24   \n" /* 7: 0x40000000, CMSDK timer 0 */
        "   ldr   r3, [r1, #4]  \n" /* 8: device (its current value) */
        "   adds  r0, r0, r3    \n" /* 9 */
        "   bx    lr            \n" /* 10 */
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

void say( const char * s )
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

void __attribute__( ( noreturn ) ) fail( const char * why )
{
    say( "harness: " );
    say( why );
    say( "\n" );
    bench_exit( 1 );
}

/* ---- Start-up ------------------------------------------------------------------- */

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

volatile uint32_t ticks;
int load1;

/* Counts go by inside a hook pair (uncounted: the harness's code is outside the
 * measured range). */
void pass_counts( uint32_t counts )
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
volatile int tick_mode = TICK_HOOK_ONLY;
volatile uint32_t ticks_measured;

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

/* Time goes by (for the SysTick clock): sleep until the next tick. With QEMU's
 * -icount sleep=off the virtual clock jumps to it at once. */
void wait_tick( void )
{
    uint32_t t = ticks;

    while( ticks == t )
    {
        __asm volatile ( "wfi" );
    }
}

/* How far into the current tick period SysTick is, in counts. */
uint32_t systick_phase( void )
{
    return SYST_RELOAD - SYST_CVR;
}

/* ---- The tasks -------------------------------------------------------------------- */

/* Stand-ins for TCBs: the hooks only compare them with NULL. */
uint32_t tcb[ MAX_BENCH_TASKS ];
uint32_t id[ MAX_BENCH_TASKS ];
uint32_t n_tasks;
uint32_t running;

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
int traced;

/* The hooks of one context switch, as vTaskSwitchContext() makes them
 * (traceTASK_SWITCHED_OUT is empty). */
#if defined( BENCH_SMP_CORES )
    /* The kernel's ISR lock, which an SMP build's readers take after the core's mask:
     * the bench runs one core and no kernel, so there is nothing more to take. (Only
     * the readers call these, which the smp2 image does not measure.) */
    uint32_t vTaskEnterCriticalFromISR( void );
    void vTaskExitCriticalFromISR( uint32_t saved );

    uint32_t vTaskEnterCriticalFromISR( void )
    {
        return 0u;
    }

    void vTaskExitCriticalFromISR( uint32_t saved )
    {
        ( void ) saved;
    }
#endif

void switch_pair( uint32_t next )
{
    #if defined( BENCH_SMP_CORES )
        /* The library built for several cores (the bench's smp2 image): the hook an SMP
         * kernel's switch calls, on core 0 (the cost is the same on every core). */
        cpu_usage_hook_smp_task_switched_in( 0u, bench_switch_site_clock(), id[ next ] );
    #else
        if( traced )
        {
            cpu_usage_hook_task_switched_in_traced( bench_switch_site_clock(), id[ next ] );
        }
        else
        {
            cpu_usage_hook_task_switched_in( bench_switch_site_clock(), id[ next ] );
        }
    #endif

    running = next;
}

/* An unmeasured switch, a few hundred counts after the previous one. */
void switch_to( uint32_t next )
{
    irq_off();
    bench_now += 700u;
    switch_pair( next );
    irq_on();
}

/* A task with an ID of its own (not the shared ID 0) other than `not`, if any. */
uint32_t own_id_task( uint32_t not )
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

uint32_t last_own_id_task( void )
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

int arg_is( const char * line, const char * word )
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
        bench_begin();
        bench_calib_io10();
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

    return run_scenario( line, from );
}
