/*
 * commands.c - this board's part of the demo's glue: its name in the shell's banner
 * and its shell commands (demo.h). Only 'irq' (the RTC load, ../riscv-virt/irq_load.c):
 * riscv-virt's 'irqmask' and 'mcycle' work the library, which this board's demo does
 * not have yet.
 */
#include "demo.h"
#include "riscv_virt_smp.h"

#define STR2( x )    #x
#define STR( x )     STR2( x )

const char *const port_name = "riscv-virt-smp" STR( VIRT_SMP_HARTS ) " (QEMU RV32IMAC, " STR( VIRT_SMP_HARTS ) " harts, FreeRTOS SMP)";

static const DemoPortCommand_t virt_commands[] =
{
    { "irq", "on|off|status", "RTC alarm interrupts: 500 Hz, 100 us each", board_irq_load_command },
};

const DemoPortCommand_t * const port_commands = virt_commands;
const size_t port_command_count = sizeof( virt_commands ) / sizeof( virt_commands[ 0 ] );
