/*
 * clock.c - a wall clock made of the kernel's SysTick plus a count of its interrupts.
 *
 * Why SysTick and not a CMSDK APB timer: the SysTick already runs for the kernel at
 * the core clock with a period of exactly one tick (on mps2-an385, 25 MHz: 25000
 * cycles = 1000 us), so "ticks * 1000 + cycles_into_tick / 25" is an exact microsecond
 * count that wraps at 2^32 by itself (1000 * 2^32 is 0 mod 2^32): one multiply and one
 * division by a constant, no state to update, nothing to extend. TIMER0 would give
 * 32-bit cycles that wrap every 171.8 s, which is not a whole number of microsecond
 * wraps, so it would need software extension anyway. QEMU has no DWT cycle counter.
 *
 * The interrupt count is kept here, in mps2_systick_handler, and not taken from the
 * kernel: xTaskGetTickCount() stands still while the scheduler is suspended, and the
 * kernel's tick hooks run again for every pended tick when it resumes. Counting in
 * the handler, before the kernel's tick processing, also means any hook the kernel
 * calls from the tick already sees the new tick.
 *
 * Reading it without a lock: take the count, the counter value, the SysTick pending
 * bit and the counter value again; retry if an interrupt changed the count or the
 * counter reloaded between the two value reads. A pending SysTick (interrupts masked,
 * or a higher-priority handler running) is a tick the handler has not counted yet,
 * except while the counter still reads 0: it pends on reaching 0 and reloads on the
 * next cycle. Result: monotonic and exact from tasks and from interrupts at the
 * kernel's priority. An interrupt that preempts mps2_systick_handler in its first
 * instructions (before the count is incremented) can read up to one tick early.
 */
#include "demo.h"
#include "mps2_an385.h"

#include "FreeRTOS.h"
#include "task.h"

#define CYCLES_PER_TICK    ( configCPU_CLOCK_HZ / configTICK_RATE_HZ )
#define CYCLES_PER_US      ( configCPU_CLOCK_HZ / 1000000u )
#define US_PER_TICK        ( 1000000u / configTICK_RATE_HZ )
#define SYSTICK_RELOAD     ( CYCLES_PER_TICK - 1u )

_Static_assert( configCPU_CLOCK_HZ == MPS2_SYSCLK_HZ, "the SysTick runs from the system clock (mps2_board.h)" );
_Static_assert( configCPU_CLOCK_HZ % configTICK_RATE_HZ == 0u, "a tick must be a whole number of cycles" );
_Static_assert( configCPU_CLOCK_HZ % 1000000u == 0u, "a microsecond must be a whole number of cycles" );
_Static_assert( 1000000u % configTICK_RATE_HZ == 0u, "a tick must be a whole number of microseconds" );
_Static_assert( SYSTICK_RELOAD <= 0xFFFFFFu, "SysTick is a 24-bit counter" );

/* 2 (../bare-metal/cortex-m/idle_sleep.c's board_idle_sleep: a wait for the next interrupt, SysTick
 * untouched) is fine; the port's own tickless idle (1) stops and reprograms the
 * SysTick. */
#if ( configUSE_TICKLESS_IDLE == 1 )
    #error "clock.c replaces vPortSetupTimerInterrupt() without the tickless-idle set-up, and assumes a SysTick that never stops"
#endif

/* The kernel's tick handler (its name depends on the kernel port: mps2_board.h). */
void MPS2_KERNEL_SYSTICK_HANDLER( void );

static volatile uint32_t systick_count;

/* Set once the SysTick has loaded its first period; until then the counter reads 0
 * without that meaning "end of a period". */
static volatile uint8_t systick_running;

/* Replaces the kernel's weak default (same settings), adding the start marker. */
void vPortSetupTimerInterrupt( void )
{
    SYST_CSR = 0u;
    SYST_CVR = 0u;
    SYST_RVR = SYSTICK_RELOAD;
    SYST_CSR = SYST_CSR_CLKSOURCE | SYST_CSR_TICKINT | SYST_CSR_ENABLE;

    /* The counter loads the reload value on the next clock edge. */
    while( SYST_CVR == 0u )
    {
    }

    systick_running = 1u;
}

/* The SysTick vector (startup.c). Count first, then the kernel's tick. */
void mps2_systick_handler( void )
{
    systick_count = systick_count + 1u;
    MPS2_KERNEL_SYSTICK_HANDLER();
}

/* Ticks counted so far and cycles into the current tick, as one consistent reading. */
static void clock_read( uint32_t * ticks, uint32_t * cycles_into_tick )
{
    uint32_t count;
    uint32_t value;
    uint32_t value_again;
    uint32_t pending;

    if( systick_running == 0u )
    {
        *ticks = 0u;
        *cycles_into_tick = 0u;
        return;
    }

    do
    {
        count = systick_count;
        value = SYST_CVR;
        pending = CORTEX_M_ICSR & CORTEX_M_ICSR_PENDSTSET;
        value_again = SYST_CVR;
    } while( ( count != systick_count ) || ( value_again > value ) );

    if( ( pending != 0u ) && ( value != 0u ) )
    {
        count++;
    }

    *ticks = count;
    *cycles_into_tick = SYSTICK_RELOAD - value;
}

uint32_t port_time_us( void )
{
    uint32_t ticks;
    uint32_t cycles;

    clock_read( &ticks, &cycles );
    return ( ticks * US_PER_TICK ) + ( cycles / CYCLES_PER_US );
}

/* Core clock cycles since the scheduler started the SysTick; 64 bits do not wrap. */
uint64_t mps2_clock_cycles( void )
{
    uint32_t ticks;
    uint32_t cycles;

    clock_read( &ticks, &cycles );
    return ( ( uint64_t ) ticks * CYCLES_PER_TICK ) + cycles;
}

/* board.h: the library's clock once 'irqmask' has run: the same cycle count as its
 * default one, at configCPU_CLOCK_HZ. */
uint32_t board_mask_probe_clock( void )
{
    return ( uint32_t ) mps2_clock_cycles();
}
