/*
 * commands.c - this board's part of the demo's glue: its name in the shell's banner
 * and its own shell commands (demo.h). The rest of the glue is board-independent
 * (../bare-metal/main.c, board.h).
 */
#include "demo.h"
#include "nrf51.h"

#include "FreeRTOS.h"
#include "task.h"

extern uint8_t __stack_limit[];
extern uint8_t __stack_top[];

/* 'mem': what is left of the 16 KiB, for sizing the heap, the stacks and the main
 * stack (README.md, "RAM"); 'tasks' gives each task's stack. */
static void microbit_mem_command( int argc, char ** argv )
{
    ( void ) argc;
    ( void ) argv;

    demo_print( "mem: heap " );
    demo_print_uint( configTOTAL_HEAP_SIZE, 0u );
    demo_print( " bytes, free " );
    demo_print_uint( ( uint32_t ) xPortGetFreeHeapSize(), 0u );
    demo_print( ", least free ever " );
    demo_print_uint( ( uint32_t ) xPortGetMinimumEverFreeHeapSize(), 0u );
    demo_print( "; main stack " );
    demo_print_uint( ( uint32_t ) ( __stack_top - __stack_limit ), 0u );
    demo_print( " bytes, never used " );
    demo_print_uint( microbit_main_stack_unused(), 0u );
    demo_print( "\n" );
}

const char *const port_name = "microbit (QEMU nRF51822, Cortex-M0)";

static const DemoPortCommand_t microbit_commands[] =
{
    { "irq", "on|off|status", "TIMER0 interrupts: 500 Hz, 100 us each", board_irq_load_command },
    { "irqmask", "", "which IRQs the library's critical section holds off (sets a clock)", board_mask_check_command },
    { "mem", "", "heap and main stack: size, and what was never used", microbit_mem_command },
};

const DemoPortCommand_t * const port_commands = microbit_commands;
const size_t port_command_count = sizeof( microbit_commands ) / sizeof( microbit_commands[ 0 ] );
