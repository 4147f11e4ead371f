/*
 * clock_step.h - the simulator's 'clockstep' command (clock_step.c): a clock that
 * steps back once in a while.
 */
#ifndef CLOCK_STEP_H
#define CLOCK_STEP_H

/* 'clockstep <counts>|off', a port command (host_share.c lists it). */
void posix_cmd_clockstep( int argc,
                          char ** argv );

#endif /* CLOCK_STEP_H */
