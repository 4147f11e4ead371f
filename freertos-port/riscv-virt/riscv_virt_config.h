/*
 * riscv_virt_config.h - the kernel settings both virt boards share: riscv-virt (one
 * hart) and ../riscv-virt-smp (2 or 4). Each board's FreeRTOSConfig.h sets what is its
 * own (cores, task selection, tickless idle, heap, idle hook), includes this, and then
 * the library's hooks header, last. Values that exist for a reason other than "the
 * usual default" say why; the rest match mps2-an385's, so the demo behaves the same on
 * every board.
 *
 * It takes the devices from riscv_virt.h, which the board's FreeRTOSConfig.h includes
 * first (riscv-virt-smp's through riscv_virt_smp.h).
 */
#ifndef RISCV_VIRT_CONFIG_H
#define RISCV_VIRT_CONFIG_H

/* ---- Clock and scheduling --------------------------------------------------- */
/* On FreeRTOS's RISC-V port this is the machine timer's rate, not the core's: the port
 * counts its tick in mtime steps of configCPU_CLOCK_HZ / configTICK_RATE_HZ, and the
 * library reads mtime at this rate (its default clock on RISC-V). mtime is one counter
 * for every hart. */
#define configCPU_CLOCK_HZ                         ( VIRT_MTIME_HZ )
#define configTICK_RATE_HZ                         ( 1000 )
#define configTICK_TYPE_WIDTH_IN_BITS              TICK_TYPE_WIDTH_32_BITS
#define configUSE_PREEMPTION                       1
#define configMAX_PRIORITIES                       8
/* The demo's workloads rely on equal-priority tasks not sharing the CPU by tick. */
#define configUSE_TIME_SLICING                     0
#define configIDLE_SHOULD_YIELD                    1

/* The machine timer of the CLINT (riscv_virt.h). The port's own set-up is replaced by
 * clock.c's, and the chip header is RISCV_no_extensions (board.mk), so the tick
 * interrupt reaches interrupts.c, where the library sees it: clock.c says why. */
#define configMTIME_BASE_ADDRESS                   ( VIRT_MTIME_BASE )
#define configMTIMECMP_BASE_ADDRESS                ( VIRT_MTIMECMP_BASE )

/* ---- Tasks and memory ------------------------------------------------------- */
/* In words, as on mps2-an385. A task's stack holds its saved context (31 words) and
 * what it calls; the kernel's context switches and every interrupt handler run on the
 * interrupt stack (main()'s, riscv-virt.ld; each hart's own on riscv-virt-smp), the
 * library's switch hook included. */
#define configMINIMAL_STACK_SIZE                   ( 256 )
#define configMAX_TASK_NAME_LEN                    ( 16 )

/* The kernel settings every bare-metal board shares (allocation, kernel objects, API
 * functions, the trace facility): freertos-port/bare-metal/. */
#include "demo_kernel_config.h"

/* ---- Hooks and checks ------------------------------------------------------- */
/* The tick hook is the demo's tick-sampled accounting (the shell's 'sampled'). */
#define configUSE_TICK_HOOK                        1
#define configUSE_MALLOC_FAILED_HOOK               1
#define configCHECK_FOR_STACK_OVERFLOW             2
#define configUSE_DAEMON_TASK_STARTUP_HOOK         0

/* The kernel's own run-time stats (the shell's kernel_stats), in ticks of mtime, the
 * clock the library counts with unless 'mcycle use' (clock.c), and which every hart
 * reads alike. */
#define configGENERATE_RUN_TIME_STATS              1
#define configRUN_TIME_COUNTER_TYPE                uint64_t
#ifndef __ASSEMBLER__
#include <stdint.h>
uint64_t virt_mtime( void );
#endif
#define portCONFIGURE_TIMER_FOR_RUN_TIME_STATS()    do {} while( 0 )
#define portGET_RUN_TIME_COUNTER_VALUE()            virt_mtime()

/* ---- Assertions --------------------------------------------------------------
 * A failed assertion prints "ASSERT file:line" on UART0 and ends the QEMU run with
 * exit status 101 (BOARD_EXIT_ASSERT), so a test sees it as a failure (the fatal paths
 * are ../bare-metal/kernel_hooks.c's). */
#ifndef __ASSEMBLER__
void board_assert_failed( const char * file, int line ) __attribute__( ( noreturn ) );
#endif
#define configASSERT( x )                                    \
    do {                                                     \
        if( ( x ) == 0 ) {                                   \
            board_assert_failed( __FILE__, __LINE__ );       \
        }                                                    \
    } while( 0 )

#endif /* RISCV_VIRT_CONFIG_H */
