/*
 * cortex_m.h - the M-profile core registers the shared Arm files use, the same on
 * ARMv6-M, ARMv7-M and ARMv8-M (Architecture Reference Manuals: the SCB's ICSR). A
 * board's own header includes it next to board.h for its clock.
 */
#ifndef CORTEX_M_H
#define CORTEX_M_H

#include <stdint.h>

#define CORTEX_M_ICSR                  ( *( volatile uint32_t * ) 0xE000ED04u )
#define CORTEX_M_ICSR_PENDSTSET        ( 1u << 26 )
#define CORTEX_M_ICSR_VECTPENDING_MASK ( 0x1FFu << 12 ) /* highest pending enabled exception */

#endif /* CORTEX_M_H */
