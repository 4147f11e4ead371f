/*
 * freertos_cpu_usage_config.h - the settings freertos-cpu-usage was built with.
 *
 * WRITTEN by the library's build (build.rs) for each build: do not edit. Take the
 * one of the build you link; freertos_cpu_usage.h includes it.
 */

#ifndef FREERTOS_CPU_USAGE_CONFIG_H
#define FREERTOS_CPU_USAGE_CONFIG_H

#define CPU_USAGE_MAX_TASKS 32
#define CPU_USAGE_NAME_LEN 16
#define CPU_USAGE_NAME_BUF (CPU_USAGE_NAME_LEN + 1)
#define CPU_USAGE_TRACE_EVENTS 1024
#define CPU_USAGE_CORES 1

#endif /* FREERTOS_CPU_USAGE_CONFIG_H */
