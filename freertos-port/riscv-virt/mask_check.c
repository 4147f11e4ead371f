/*
 * mask_check.c - the shell command 'irqmask': what the library's critical section does
 * to interrupts on this port. Expected: mstatus.MIE clear inside it, so a pending
 * interrupt waits until the section ends; and MIE put back as it was, so a section
 * taken inside a kernel critical section leaves interrupts off until the kernel's
 * section ends. tests/tests/e2e_qemu.rs runs it.
 *
 * Inside the section (../bare-metal/mask_probe.c gets there, through the clock, as on
 * the Arm boards), board_mask_probe_inside() pends the CLINT's software interrupt for
 * this hart (msip) and records whether it ran before it returned. The clock is mtime's
 * low word at its own rate, the same counts as the default clock, named "custom" from
 * then on.
 */
#include "FreeRTOS.h"
#include "task.h"

#include "demo.h"
#include "riscv_virt.h"

#define MSTATUS_MIE    ( 1u << 3 )
#define MIE_MSIE       ( 1u << 3 )

static volatile uint32_t runs;
static volatile uint32_t seen_mstatus;
static volatile uint32_t seen_runs;

/* The machine software interrupt (interrupts.c). */
void virt_msip_isr( void )
{
    VIRT_MSIP0 = 0u;
    runs = runs + 1u;
}

/* board.h: once, inside the library's critical section (../bare-metal/mask_probe.c). */
void board_mask_probe_inside( void )
{
    seen_mstatus = VIRT_CSR_READ( mstatus );
    VIRT_MSIP0 = 1u;

    /* Taken by now if MIE allows it: the write is done (fence) and QEMU takes a
     * pending, enabled interrupt at the next instruction. */
    __asm volatile ( "fence\n nop\n nop" ::: "memory" );
    seen_runs = runs;
}

/* board.h: the library's clock from the probe on. */
uint32_t board_mask_probe_clock( void )
{
    return VIRT_REG32( VIRT_MTIME_BASE );
}

/* One probe: the library's section entered with interrupts on (kernel_section 0) or
 * inside a kernel critical section (1). Returns 1 if the library read the clock in its
 * section (*status: cpu_usage_set_clock()'s); *inside: the software interrupt ran
 * there; *after_library: it ran once the library's section ended; *after: once
 * everything ended; *mie_after: MIE right after the library's section. */
static int probe( int kernel_section, int32_t * status, uint32_t * mie_inside, uint32_t * inside,
                  uint32_t * after_library, uint32_t * mie_after, uint32_t * after )
{
    int probed;

    runs = 0u;

    if( kernel_section != 0 )
    {
        taskENTER_CRITICAL();
    }

    probed = board_mask_probe( status );
    __asm volatile ( "fence\n nop\n nop" ::: "memory" );
    *after_library = runs;
    *mie_after = VIRT_CSR_READ( mstatus ) & MSTATUS_MIE;

    if( kernel_section != 0 )
    {
        taskEXIT_CRITICAL();
        __asm volatile ( "fence\n nop\n nop" ::: "memory" );
    }

    *after = runs;
    *mie_inside = seen_mstatus & MSTATUS_MIE;
    *inside = seen_runs;
    VIRT_MSIP0 = 0u;

    return probed;
}

/* 'irqmask', from the shell task (demo.h's port commands). */
void virt_mask_check_command( int argc, char ** argv )
{
    int32_t status[ 2 ];
    uint32_t mie_in[ 2 ], in[ 2 ], after_lib[ 2 ], mie_after[ 2 ], after[ 2 ];
    int probed[ 2 ];
    int ok;

    ( void ) argc;
    ( void ) argv;

    VIRT_MSIP0 = 0u;
    __asm volatile ( "csrs mie, %0" ::"r" ( MIE_MSIE ) );

    for( int k = 0; k < 2; k++ )
    {
        probed[ k ] = probe( k, &status[ k ], &mie_in[ k ], &in[ k ], &after_lib[ k ], &mie_after[ k ], &after[ k ] );
    }

    __asm volatile ( "csrc mie, %0" ::"r" ( MIE_MSIE ) );

    for( int k = 0; k < 2; k++ )
    {
        if( probed[ k ] == 0 )
        {
            board_mask_probe_failed( status[ k ] );
            return;
        }
    }

    for( int k = 0; k < 2; k++ )
    {
        demo_print( ( k == 0 ) ? "irqmask: from a task: " : "irqmask: inside taskENTER_CRITICAL: " );
        demo_print( "in the library's section MIE " );
        demo_print_uint( mie_in[ k ] != 0u, 0u );
        demo_print( ", msip ran " );
        demo_print_uint( in[ k ], 0u );
        demo_print( "; after it MIE " );
        demo_print_uint( mie_after[ k ] != 0u, 0u );
        demo_print( ", ran " );
        demo_print_uint( after_lib[ k ], 0u );
        demo_print( "; at the end ran " );
        demo_print_uint( after[ k ], 0u );
        demo_print( "\n" );
    }

    ok = ( mie_in[ 0 ] == 0u ) && ( in[ 0 ] == 0u ) && ( mie_after[ 0 ] != 0u ) && ( after_lib[ 0 ] == 1u ) &&
         ( mie_in[ 1 ] == 0u ) && ( in[ 1 ] == 0u ) && ( mie_after[ 1 ] == 0u ) && ( after_lib[ 1 ] == 0u ) &&
         ( after[ 1 ] == 1u );
    demo_print( ok ? "irqmask: ok: the section clears mstatus.MIE and puts back what it found\n"
                   : "irqmask: FAILED\n" );
}
