/*
 * commands.c - this board's part of the demo's glue: its name in the shell's banner
 * and its own shell commands (demo.h), which work its peripherals. The rest of the
 * glue is board-independent (main.c).
 */
#include "demo.h"
#include "mps2_an385.h"

const char *const port_name = MPS2_PORT_NAME;

static const DemoPortCommand_t mps2_commands[] =
{
    { "irq", "on|off|status", "TIMER0 interrupts: 500 Hz, 100 us each", board_irq_load_command },
    { "irqmask", "", "which IRQs the library's critical section holds off (sets a clock)", board_mask_check_command },
};

const DemoPortCommand_t * const port_commands = mps2_commands;
const size_t port_command_count = sizeof( mps2_commands ) / sizeof( mps2_commands[ 0 ] );
