/*
 * host_share.h - how much of a host core the simulator got (host_share.c).
 */
#ifndef HOST_SHARE_H
#define HOST_SHARE_H

#include <stdint.h>

/* Starts the sampler thread. Call from main(), before vTaskStartScheduler(). */
void vHostShareStart( void );

/* The idle task's tickless sleep took ullNs of wall time (vPosixIdleSleep()). */
void vHostShareSlept( uint64_t ullNs );

#endif /* HOST_SHARE_H */
