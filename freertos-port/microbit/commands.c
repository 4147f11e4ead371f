/*
 * commands.c - this board's part of the demo's glue: what main() sets up first, the
 * board's name in the shell's banner and its own shell command (demo.h). The rest of
 * the glue is board-independent (../mps2-an385/main.c, board.h).
 */
#include "demo.h"
#include "nrf51.h"

void board_init( void )
{
    board_uart_init();
    microbit_clock_init();
}

const char *const port_name = "microbit (QEMU nRF51822, Cortex-M0)";

static const DemoPortCommand_t microbit_commands[] =
{
    { "irq", "on|off|status", "TIMER0 interrupts: 500 Hz, 100 us each", microbit_irq_load_command },
};

const DemoPortCommand_t * const port_commands = microbit_commands;
const size_t port_command_count = sizeof( microbit_commands ) / sizeof( microbit_commands[ 0 ] );
