/*
 * stand_in_tracer.c - the stand-in tracer's counters (stand_in_tracer.h says what it
 * stands for). The counting itself is in the header's macros, which the kernel expands.
 */
#include "FreeRTOS.h"

volatile StandInTracer_t xStandInTracer;
