/*
 * commands.c - this board's part of the demo's glue: its name in the shell's banner
 * and its own shell commands (demo.h), which work its peripherals. The rest of the
 * glue is board-independent (../bare-metal/main.c, board.h).
 */
#include "demo.h"
#include "riscv_virt.h"

const char *const port_name = "riscv-virt (QEMU RV32IMAC)";

static const DemoPortCommand_t virt_commands[] =
{
    { "irq", "on|off|status", "RTC alarm interrupts: 500 Hz, 100 us each", board_irq_load_command },
    { "irqmask", "", "what the library's critical section does to mstatus.MIE (sets a clock)", virt_mask_check_command },
    { "mcycle", "[use]", "mcycle's rate against mtime; 'use': the library counts with it", virt_mcycle_command },
};

const DemoPortCommand_t * const port_commands = virt_commands;
const size_t port_command_count = sizeof( virt_commands ) / sizeof( virt_commands[ 0 ] );
