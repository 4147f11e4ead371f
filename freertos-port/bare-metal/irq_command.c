/*
 * irq_command.c - the shell command 'irq on|off|status' (demo.h's port commands) of
 * every bare-metal board: a real peripheral interrupt at a known rate, each one busy
 * for a known time, for the library's "interrupts" line. Off at boot.
 *
 * The board has the interrupt (board.h, "The interrupt load"): its source, rate and
 * expected share, starting and stopping it, and the count of interrupts taken. Here is
 * what the shell sees of it, the same words on every board, which the end-to-end
 * tests read.
 */
#include "board.h"
#include "demo.h"

static uint8_t irq_on;

void board_irq_load_command( int argc, char ** argv )
{
    switch( demo_parse_switch( argc, argv, "usage: irq on|off|status" ) )
    {
        case DEMO_SWITCH_ON:

            if( irq_on == 0u )
            {
                board_irq_load_start();
                irq_on = 1u;
            }

            break;

        case DEMO_SWITCH_OFF:
            board_irq_load_stop();
            irq_on = 0u;
            break;

        case DEMO_SWITCH_STATUS:
            break;

        default:
            return;
    }

    demo_print( "irq: " );
    demo_print( ( irq_on != 0u ) ? "on" : "off" );
    demo_print( ", " );
    demo_print( board_irq_load.source );
    demo_print( " (" );
    demo_print( board_irq_load.line );
    demo_print_uint( board_irq_load.line_number, 0u );
    demo_print( ") at " );
    demo_print_uint( board_irq_load.hz, 0u );
    demo_print( " Hz, " );
    demo_print_uint( board_irq_load.work_us, 0u );
    demo_print( " us of work each: expected " );
    demo_print_uint( board_irq_load.share_bp / 100u, 0u );
    demo_print( "." );
    demo_print_uint( ( board_irq_load.share_bp % 100u ) / 10u, 0u );
    demo_print_uint( board_irq_load.share_bp % 10u, 0u );
    demo_print( "% on the interrupts line (besides the tick's own), interrupts " );
    demo_print_uint( board_irq_load_count(), 0u );
    demo_print( "\n" );
}
