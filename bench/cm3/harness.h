/*
 * harness.h - what the three files of the Cortex-M3 bench image share: harness.c (the
 * image: start-up, the tick, the tasks, main()), scenarios.c (what each scenario
 * measures) and stack.c (scenario=stack). The image as a whole is described at the
 * top of harness.c.
 */
#ifndef BENCH_HARNESS_H
#define BENCH_HARNESS_H

#include <stdint.h>
#include <stddef.h>

#include "freertos_cpu_usage.h"

/* The traced switch hook: declared by freertos_cpu_usage_hooks.h, which only a
 * FreeRTOSConfig.h can include. */
void cpu_usage_hook_task_switched_in_traced( uint32_t now, uint32_t id );

#define CPU_HZ           25000000u /* mps2-an385, as configCPU_CLOCK_HZ in its FreeRTOSConfig.h */
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

/* ---- harness.c: the measured range ------------------------------------------------ */

extern volatile uint32_t bench_now;
uint32_t bench_clock_load1( void );
uint32_t bench_switch_site_clock( void );
void bench_begin( void );
void bench_end( void );

/* ---- harness.c: semihosting and start-up ------------------------------------------ */

void say( const char * s );
void __attribute__( ( noreturn ) ) fail( const char * why );

extern uint32_t __stack_top[];
extern uint32_t __main_stack_size[]; /* bench.ld: its address is the size */

/* ---- harness.c: the tick and time ------------------------------------------------- */

extern volatile uint32_t ticks;
extern int load1;

/* SysTick_Handler's modes: see harness.c. */
enum { TICK_HOOK_ONLY, TICK_KERNEL, TICK_MEASURED };
extern volatile int tick_mode;
extern volatile uint32_t ticks_measured;

/* The tick and the window the scenarios start from (main() sets them). */
extern uint32_t start_tick;
extern uint32_t start_phase;

void pass_counts( uint32_t counts );
void wait_tick( void );
uint32_t systick_phase( void );

static inline void irq_off( void )
{
    __asm volatile ( "cpsid i" ::: "memory" );
}

static inline void irq_on( void )
{
    __asm volatile ( "cpsie i" ::: "memory" );
}

/* ---- harness.c: the tasks --------------------------------------------------------- */

extern uint32_t tcb[ MAX_BENCH_TASKS ];
extern uint32_t id[ MAX_BENCH_TASKS ];
extern uint32_t n_tasks;
extern uint32_t running;
extern int traced;

void switch_pair( uint32_t next );
void switch_to( uint32_t next );
uint32_t own_id_task( uint32_t not );
uint32_t last_own_id_task( void );
int arg_is( const char * line, const char * word );

/* ---- scenarios.c ------------------------------------------------------------------ */

void output_discard( const char * s, size_t n );
void complete_window( void ( * write )( const char * s, size_t n ) );

/* Runs the scenario the command line `line` names, the tasks created and running
 * (`from`: the first with an ID of its own); main()'s exit status. */
int run_scenario( const char * line, uint32_t from );

/* ---- stack.c ---------------------------------------------------------------------- */

void measure_stack( void );

#endif /* BENCH_HARNESS_H */
