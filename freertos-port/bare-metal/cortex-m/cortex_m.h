/*
 * cortex_m.h - the M-profile core registers the shared Arm files use, the same on
 * ARMv6-M, ARMv7-M and ARMv8-M (Architecture Reference Manuals: the SCB's ICSR, the
 * NVIC), and what the Arm boards give those files. A board's own header includes it
 * next to board.h.
 */
#ifndef CORTEX_M_H
#define CORTEX_M_H

#include <stdint.h>

#define CORTEX_M_ICSR                  ( *( volatile uint32_t * ) 0xE000ED04u )
#define CORTEX_M_ICSR_PENDSTSET        ( 1u << 26 )
#define CORTEX_M_ICSR_VECTPENDING_MASK ( 0x1FFu << 12 ) /* highest pending enabled exception */

/* The NVIC's first 32 external interrupts. IPR is read and written by whole words:
 * ARMv6-M has no byte access to it. */
#define CORTEX_M_NVIC_ISER0            ( *( volatile uint32_t * ) 0xE000E100u )
#define CORTEX_M_NVIC_ICER0            ( *( volatile uint32_t * ) 0xE000E180u )
#define CORTEX_M_NVIC_ISPR0            ( *( volatile uint32_t * ) 0xE000E200u )
#define CORTEX_M_NVIC_ICPR0            ( *( volatile uint32_t * ) 0xE000E280u )
#define CORTEX_M_NVIC_IPR( n )         ( *( volatile uint32_t * ) ( 0xE000E400u + 4u * ( n ) ) )

static inline void cortex_m_nvic_set_priority( uint32_t irq, uint32_t priority )
{
    uint32_t shift = ( irq & 3u ) * 8u;
    uint32_t word = CORTEX_M_NVIC_IPR( irq >> 2 );

    CORTEX_M_NVIC_IPR( irq >> 2 ) = ( word & ~( 0xFFu << shift ) ) | ( ( priority & 0xFFu ) << shift );
}

/* Board: the two IRQs 'irqmask' (mask_check.c) pends, below 32, which no device of the
 * board drives; its vector table sends them to MaskCheckFirst_Handler and
 * MaskCheckSecond_Handler. */
typedef struct CortexMMaskCheckIrqs
{
    uint32_t first;
    uint32_t second;
} CortexMMaskCheckIrqs_t;

extern const CortexMMaskCheckIrqs_t board_mask_check_irqs;

/* mask_check.c: 'irqmask', for the board's port_commands (demo.h). */
void board_mask_check_command( int argc, char ** argv );

/* ---- Start-up and unexpected exceptions (exceptions.c) ----------------------------
 * A board's Reset_Handler does what its core needs first, then calls
 * cortex_m_start_c(): .data copied, .bss zeroed (its linker script's __data_load,
 * __data_start, __data_end, __bss_start, __bss_end), main() run, and its return
 * reported as fatal. Every exception its vector table does not expect goes to an entry
 * the board defines with CORTEX_M_FAULT_ENTRY( name ) in the file of the table (its
 * weak aliases of unused handlers need it there), which hands the frame the core
 * stacked and EXC_RETURN to cortex_m_fault_report(): the report on the UART, then
 * board_exit( BOARD_EXIT_FAULT ). The linker script's __ram_start and __ram_end bound
 * where a frame can be. */
void cortex_m_start_c( void ) __attribute__( ( noreturn ) );
void cortex_m_fault_report( const uint32_t * frame, uint32_t exc_return ) __attribute__( ( noreturn ) );

/* The frame is on the stack EXC_RETURN's bit 2 names (MSP or PSP). Thumb-1 only, for
 * every M-profile core: no IT blocks, and a branch through a register, which reaches
 * anywhere. */
#define CORTEX_M_FAULT_ENTRY( name )                            \
    static void name( void ) __attribute__( ( naked ) );        \
    static void name( void )                                    \
    {                                                           \
        __asm volatile (                                        \
            "   movs  r0, #4                       \n"          \
            "   mov   r1, lr                       \n"          \
            "   tst   r0, r1                       \n"          \
            "   bne   1f                           \n"          \
            "   mrs   r0, msp                      \n"          \
            "   b     2f                           \n"          \
            "1: mrs   r0, psp                      \n"          \
            "2: ldr   r2, =cortex_m_fault_report   \n"          \
            "   bx    r2                           \n"          \
            "   .ltorg                             \n"          \
        );                                                      \
    }

#endif /* CORTEX_M_H */
