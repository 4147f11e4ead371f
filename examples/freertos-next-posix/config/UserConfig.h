/*
 * UserConfig.h: the application's additions to freertos-next's FreeRTOSConfig.h (it
 * includes this file first; freertos-cpu-usage's hooks come after both).
 */
#ifndef USER_CONFIG_H
#define USER_CONFIG_H

/* freertos-next's C shim asks the port whether it runs in an interrupt handler;
 * FreeRTOS's POSIX port has no such function, so main.rs defines it. Declared here
 * so that the shim compiles without an implicit declaration (an error from GCC 14
 * on). `long` is the POSIX port's BaseType_t, not yet defined at this point. */
long xPortIsInsideInterrupt( void );

#endif
