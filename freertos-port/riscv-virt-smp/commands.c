/*
 * commands.c - this board's part of the demo's glue: its name in the shell's banner
 * and its shell commands (demo.h): 'irq' (the RTC load, ../riscv-virt/irq_load.c) and
 * 'readers' (the snapshots each core's reader took, readers.c). Not riscv-virt's
 * 'irqmask' and 'mcycle', which are for one core.
 */
#include "demo.h"
#include "riscv_virt_smp.h"

#define STR2( x )    #x
#define STR( x )     STR2( x )

const char *const port_name = "riscv-virt-smp" STR( VIRT_SMP_HARTS ) " (QEMU RV32IMAC, " STR( VIRT_SMP_HARTS ) " harts, FreeRTOS SMP)";

/* One line: each core's snapshots so far, "readers: 12 11" for two cores. */
static void readers_command( int argc,
                             char ** argv )
{
    uint32_t core;

    ( void ) argc;
    ( void ) argv;
    demo_print( "readers:" );

    for( core = 0u; core < VIRT_SMP_HARTS; core++ )
    {
        demo_print( " " );
        demo_print_uint( board_smp_snapshots( core ), 0u );
    }

    demo_print( "\n" );
}

static const DemoPortCommand_t virt_commands[] =
{
    { "irq", "on|off|status", "RTC alarm interrupts: 500 Hz, 100 us each", board_irq_load_command },
    { "readers", "", "the snapshots each core's reader took", readers_command },
};

const DemoPortCommand_t * const port_commands = virt_commands;
const size_t port_command_count = sizeof( virt_commands ) / sizeof( virt_commands[ 0 ] );
