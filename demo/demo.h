/*
 * The demo application shared by every board: three workload tasks that burn a set
 * share of the CPU, a churn task that creates and deletes short-lived tasks, a
 * tick-synchronous task (tick30) with a tick-sampled accounting beside it, and a
 * shell on the console. A board (freertos-port/<board>/) provides the functions in the
 * first block and calls demo_start() before vTaskStartScheduler().
 *
 * What a firmware of your own copies is in integration.c; the rest of demo/ is the
 * demo's own machinery:
 *
 *   integration.c  the library wired to a console and a shell: what your firmware needs
 *   workloads.c    the tasks the library measures (workloads, churn, tick30, sampling)
 *   shell.c        the console's line editor and history, the dispatch of commands
 *   alerts.c       the watchdog's alerts, from its callback to the shell
 *   commands.c     the command table; load, churn, tick30, sampled, help, exit
 *   readouts.c     snapshot, tasks, kernel_stats, tracer: figures from the library's
 *                  C API and the kernel
 *   console.c      output: whole lines to the console, numbers, JSON strings
 *   note.c         the board's note on its figures, put into the reports
 *   demo_internal.h  what these files share
 */
#ifndef DEMO_H
#define DEMO_H

#include <stddef.h>
#include <stdint.h>

/* ---- Provided by the port --------------------------------------------------- */

#define PORT_CONSOLE_TIMEOUT (-2) /* no byte arrived within the wait */
#define PORT_CONSOLE_EOF     (-1) /* the console is closed: end the run */

/* Next console byte (0..255). Blocks the calling task (not the CPU) for at most
 * timeout_ms, then returns PORT_CONSOLE_TIMEOUT. Called from the shell task only. */
int port_console_getc(uint32_t timeout_ms);

/* Nonzero when a person types at a terminal that does not echo (a terminal in raw
 * mode, QEMU's serial console): the shell then echoes, edits the line with the arrow
 * keys and redraws it around alerts. Zero for piped or scripted input: the shell
 * reads the same keys but prints nothing back. Constant for the run. */
int port_console_is_terminal(void);

/* Write n bytes to the console. Called from the shell task only. */
void port_console_write(const char *s, size_t n);

/* A free-running wall clock in microseconds, independent of the library's clock,
 * used by the workloads to burn their share. Wraps at 2^32. Also called from the tick
 * interrupt (vApplicationTickHook), so it must be safe there. */
uint32_t port_time_us(void);

/* End the run with an exit status (the process on POSIX, QEMU via semihosting). */
void port_exit(int status);

/* Human-readable name of the port, shown by the shell's banner. */
extern const char *const port_name;

/* Shell commands of the port's own (its peripherals), listed by 'help' after the
 * demo's. pxRun runs in the shell task and prints with demo_print*(). A port without
 * any sets port_command_count to 0 (port_commands may then be NULL). */
typedef struct DemoPortCommand
{
    const char * pcName;
    const char * pcArgs;
    const char * pcHelp;
    void ( * pxRun )( int argc,
                      char ** argv );
} DemoPortCommand_t;

extern const DemoPortCommand_t * const port_commands;
extern const size_t port_command_count;

/* ---- Provided by the demo --------------------------------------------------- */

/* Create the demo's tasks. Call once, before vTaskStartScheduler(). */
void demo_start(void);

/* Tasks that only wait, as many as FreeRTOS's own full demos create before their
 * scheduler starts: more than the library's default 32 IDs, so that the idle and timer
 * tasks, which vTaskStartScheduler() creates last, find every ID taken (they get IDs
 * the library keeps for them). Call after demo_start(), before vTaskStartScheduler();
 * the ports do when started with "many-tasks" (POSIX: --many-tasks). */
#define DEMO_WAITING_TASKS 100U
void demo_add_waiting_tasks(void);

/* Console output for port commands (shell task only): text, and a decimal number
 * right-aligned in a field of width characters (0: no padding). */
void demo_print(const char *s);
void demo_print_uint(uint32_t value, size_t width);

/* The argument of a command "<name> on|off|status" (argv[1], the only one): what it
 * asks for, or DEMO_SWITCH_USAGE after printing usage (a line of its own). */
typedef enum
{
    DEMO_SWITCH_ON,
    DEMO_SWITCH_OFF,
    DEMO_SWITCH_STATUS,
    DEMO_SWITCH_USAGE
} DemoSwitch_t;

DemoSwitch_t demo_parse_switch(int argc, char **argv, const char *usage);

/* The board's note on the figures of a report: how far they can be trusted, when the
 * board knows something the library cannot (the POSIX simulator: whether the host gave
 * it the core it needs). Called in the shell task as each report goes out (note.c),
 * to print with demo_print(): with json 0, a line of text ending in '\n', which goes
 * before the table; with json nonzero, the member ,"note":{...} (comma first), which
 * goes last in the report's JSON object (report-schema's `Note`). Nothing when the
 * board has nothing to say; the default (a weak definition in integration.c) never
 * has. Never called for the help, an argument error or another command. */
void board_report_note(int json);

#endif /* DEMO_H */
