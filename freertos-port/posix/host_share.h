/*
 * host_share.h - how much of a host core the simulator got (host_share.c).
 */
#ifndef HOST_SHARE_H
#define HOST_SHARE_H

#include <stdint.h>

/* Takes the first sample. Call from main(), before vTaskStartScheduler(). */
void vHostShareStart( void );

/* The console's poll (the shell task's, port_console_getc()): near a window's end, a
 * reading of the window's number between two samples. */
void vHostSharePoll( void );

/* The idle task's tickless sleep took ullNs of wall time (vPosixIdleSleep()). */
void vHostShareSlept( uint64_t ullNs );

#endif /* HOST_SHARE_H */
