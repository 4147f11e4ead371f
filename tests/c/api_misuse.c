/*
 * api_misuse.c - the C API of freertos-cpu-usage used wrongly, on purpose.
 *
 * Built by tests/tests/c_api_misuse.rs with -Wall -Wextra -Werror and
 * -fsanitize=address,undefined -fno-sanitize-recover=all, linked against the product
 * archive (cargo build --release) and the FreeRTOS POSIX port, whose critical section
 * the library uses. The scheduler never starts: the program plays the kernel itself,
 * calling the hooks with made-up TCB addresses and a clock it moves by hand, so every
 * figure is known exactly.
 *
 * Two ways of catching the library touching memory it must not:
 *  - Guard pages: a buffer or string placed so that its last permitted byte is the
 *    last byte of a readable page, followed by an inaccessible one. Any access past it
 *    faults, and the SIGSEGV handler names the check. This is what catches the
 *    library, which is Rust compiled without AddressSanitizer: ASan only checks the
 *    accesses of instrumented code.
 *  - Canary bytes after each caller buffer, compared afterwards (catches writes).
 * The same strings are also placed at the end of malloc'd blocks, so an ASan build of
 * the library would be caught there too; ASan and UBSan meanwhile check this program.
 *
 * Prints one line per failed check, then "N passed, M failed"; exit status 0 only if
 * nothing failed.
 */
#define _DEFAULT_SOURCE /* mmap's MAP_ANONYMOUS */

#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "freertos_cpu_usage.h"

/* ---- Checks ------------------------------------------------------------------------ */

static int passed;
static int failed;

/* What is being checked, for the SIGSEGV handler. */
static const char *volatile current = "start-up";

#define CHECK(cond, what)                                                              \
    do {                                                                               \
        if (cond) {                                                                    \
            passed++;                                                                  \
        } else {                                                                       \
            failed++;                                                                  \
            fprintf(stderr, "FAIL line %d: %s: %s\n", __LINE__, (what), #cond);       \
        }                                                                              \
    } while (0)

#define CHECK_INT(got, want, what)                                                     \
    do {                                                                               \
        long long got_ = (long long)(got);                                             \
        long long want_ = (long long)(want);                                           \
        if (got_ == want_) {                                                           \
            passed++;                                                                  \
        } else {                                                                       \
            failed++;                                                                  \
            fprintf(stderr, "FAIL line %d: %s: %s is %lld, expected %lld\n", __LINE__, \
                    (what), #got, got_, want_);                                        \
        }                                                                              \
    } while (0)

static void on_segv(int sig)
{
    static const char head[] = "\nFATAL: memory fault (a guard page was touched) during: ";
    (void)sig;
    (void)!write(2, head, sizeof(head) - 1);
    (void)!write(2, current, strlen(current));
    (void)!write(2, "\n", 1);
    _exit(3);
}

/* ---- What the FreeRTOS POSIX port needs from an application ------------------------ */

void vAssertCalled(const char *file, unsigned long line);
void vApplicationMallocFailedHook(void);

void vAssertCalled(const char *file, unsigned long line)
{
    fprintf(stderr, "FreeRTOS assertion failed: %s:%lu\n", file, line);
    abort();
}

void vApplicationMallocFailedHook(void)
{
    abort();
}

/* ---- Guard pages --------------------------------------------------------------------- */

static size_t page_size;

/* A readable and writable page followed by an inaccessible one. */
typedef struct {
    unsigned char *map;
} Guarded;

static Guarded guarded_new(void)
{
    Guarded g;
    void *map = mmap(NULL, 2 * page_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    if (map == MAP_FAILED || mprotect((unsigned char *)map + page_size, page_size, PROT_NONE) != 0) {
        perror("mmap/mprotect");
        exit(2);
    }
    g.map = map;
    return g;
}

/* The last n bytes of the readable page: byte n is the first inaccessible one. */
static unsigned char *guarded_tail(Guarded g, size_t n)
{
    return g.map + page_size - n;
}

static void guarded_free(Guarded g)
{
    munmap(g.map, 2 * page_size);
}

/* ---- A clock moved by hand: 1 count = 1 ms ------------------------------------------ */

static uint32_t fake_now;

static uint32_t fake_clock(void)
{
    return fake_now;
}

/* ---- Output capture ------------------------------------------------------------------ */

static char captured[16384];
static size_t captured_len;
static int captured_overflow;

static void capture(const char *s, size_t n)
{
    if (s == NULL) {
        captured_overflow = 1;
        return;
    }
    if (n > sizeof(captured) - 1 - captured_len) {
        captured_overflow = 1;
        n = sizeof(captured) - 1 - captured_len;
    }
    memcpy(captured + captured_len, s, n);
    captured_len += n;
    captured[captured_len] = '\0';
}

static void capture_reset(void)
{
    captured_len = 0;
    captured[0] = '\0';
    captured_overflow = 0;
}

/* ---- Helpers ------------------------------------------------------------------------- */

#define CANARY_LEN  32
#define CANARY_BYTE 0xA5

static int canary_intact(const unsigned char *p)
{
    for (size_t i = 0; i < CANARY_LEN; i++) {
        if (p[i] != CANARY_BYTE) {
            return 0;
        }
    }
    return 1;
}

/* The whole text of show_cpu_usage with these arguments, malloc'd; its length in *len. */
static char *format_all(int argc, char **argv, int *status)
{
    int needed = cpu_usage_format(NULL, 0, argc, argv);
    char *text;

    if (needed < 0) {
        /* Errors still write their message: size it with a large buffer. */
        text = calloc(4096, 1);
        if (text == NULL) {
            exit(2);
        }
        *status = cpu_usage_format(text, 4096, argc, argv);
        return text;
    }
    text = calloc((size_t)needed + 1, 1);
    if (text == NULL) {
        exit(2);
    }
    *status = cpu_usage_format(text, (size_t)needed + 1, argc, argv);
    return text;
}

/* Fake TCBs: the library never dereferences them, it only needs distinct non-NULL
 * addresses. */
static char tcbs[CPU_USAGE_MAX_TASKS + 8];

/* ---- The checks --------------------------------------------------------------------------- */

static void check_versions_and_status_strings(void)
{
    static const int32_t known[] = {
        CPU_USAGE_OK,           CPU_USAGE_ERR_NULL,      CPU_USAGE_ERR_OPTION,    CPU_USAGE_ERR_WINDOW,
        CPU_USAGE_ERR_CLOCK,    CPU_USAGE_ERR_NO_WINDOW, CPU_USAGE_ERR_NO_OUTPUT, CPU_USAGE_ERR_TASK_ID,
        CPU_USAGE_ERR_RANGE,    CPU_USAGE_ERR_FOLLOW,    CPU_USAGE_ERR_CHANGED,
    };
    static const int32_t unknown[] = { 1, -1, -7000, -7011, INT32_MIN, INT32_MAX };
    const char *unknown_text = cpu_usage_status_str(unknown[0]);
    size_t n_known = sizeof(known) / sizeof(known[0]);

    current = "versions and status strings";
    CHECK_INT(cpu_usage_abi_version(), CPU_USAGE_ABI_VERSION, "library and header ABI versions");

    for (size_t i = 0; i < n_known; i++) {
        const char *text = cpu_usage_status_str(known[i]);
        CHECK(text != NULL && text[0] != '\0' && strlen(text) < 200, "status string of a known code");
        CHECK(text != NULL && strcmp(text, unknown_text) != 0, "known code described as unknown");
        for (size_t j = 0; j < i; j++) {
            CHECK(strcmp(text, cpu_usage_status_str(known[j])) != 0, "two codes share a description");
        }
    }
    for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++) {
        const char *text = cpu_usage_status_str(unknown[i]);
        CHECK(text != NULL && strcmp(text, unknown_text) == 0, "unknown codes share one description");
    }
}

static void check_configuration(void)
{
    current = "configuration";
    CHECK_INT(cpu_usage_set_clock(NULL, 1000), CPU_USAGE_ERR_NULL, "set_clock(NULL, 1000)");
    CHECK_INT(cpu_usage_set_clock(fake_clock, 0), CPU_USAGE_ERR_CLOCK, "set_clock(fn, 0)");
    /* 1000 ms of a 3 GHz clock is more than 2^31 counts. */
    CHECK_INT(cpu_usage_set_clock(fake_clock, 3000000000u), CPU_USAGE_ERR_WINDOW, "set_clock(fn, 3 GHz)");

    CHECK_INT(cpu_usage_set_window_ms(0), CPU_USAGE_ERR_WINDOW, "set_window_ms(0)");
    CHECK_INT(cpu_usage_set_window_ms(3600001), CPU_USAGE_ERR_WINDOW, "set_window_ms(1 h + 1 ms)");
    CHECK_INT(cpu_usage_set_window_ms(UINT32_MAX), CPU_USAGE_ERR_WINDOW, "set_window_ms(UINT32_MAX)");
    CHECK_INT(cpu_usage_window_ms(), 1000, "window length unchanged by refused settings");

    /* At 1 MHz a window may last up to 2^31 us, about 2147 s. */
    CHECK_INT(cpu_usage_set_clock(fake_clock, 1000000), CPU_USAGE_OK, "set_clock(fn, 1 MHz)");
    CHECK_INT(cpu_usage_set_window_ms(2200000), CPU_USAGE_ERR_WINDOW, "set_window_ms(2200 s) at 1 MHz");
    CHECK_INT(cpu_usage_window_ms(), 1000, "window length unchanged after a window too long for the clock");
    CHECK_INT(cpu_usage_set_window_ms(2000000), CPU_USAGE_OK, "set_window_ms(2000 s) at 1 MHz");
    CHECK_INT(cpu_usage_set_window_ms(1000), CPU_USAGE_OK, "set_window_ms(1000)");

    CHECK_INT(cpu_usage_set_clock(fake_clock, 1000), CPU_USAGE_OK, "set_clock(fn, 1 kHz)");
    CHECK_INT(cpu_usage_set_window_ms(3600000), CPU_USAGE_OK, "set_window_ms(1 h) at 1 kHz");
    CHECK_INT(cpu_usage_set_window_ms(1000), CPU_USAGE_OK, "set_window_ms(1000)");

    CHECK_INT(cpu_usage_set_output(NULL), CPU_USAGE_ERR_NULL, "set_output(NULL)");
    CHECK_INT(cpu_usage_set_output(capture), CPU_USAGE_OK, "set_output(capture)");
}

static void check_no_window_yet(void)
{
    char *argv_m[] = { "show_cpu_usage", "-m", NULL };
    int status = 0;
    char *text;

    current = "reports before the first window";
    text = format_all(2, argv_m, &status);
    CHECK_INT(status, CPU_USAGE_ERR_NO_WINDOW, "format before any window");
    CHECK(strstr(text, "no completed window yet") != NULL, "format before any window explains itself");
    free(text);

    capture_reset();
    CHECK_INT(show_cpu_usage(2, argv_m), CPU_USAGE_ERR_NO_WINDOW, "show_cpu_usage before any window");
    CHECK(strstr(captured, "no completed window yet") != NULL, "show_cpu_usage before any window explains itself");
}

/* Task names the library must read no further than CPU_USAGE_NAME_LEN bytes of. */
static void check_names(uint32_t *ids, size_t *n_ids)
{
    char *block;
    char *whole;
    Guarded g;
    unsigned char *tail;
    uint32_t id;
    int status = 0;
    char *text;
    char expect[CPU_USAGE_NAME_LEN + 16];

    current = "task create with a NULL TCB";
    CHECK_INT(cpu_usage_hook_task_create(NULL, "nobody"), 0, "create with a NULL TCB gets ID 0");

    current = "task create with a NULL name";
    id = cpu_usage_hook_task_create(&tcbs[1], NULL);
    CHECK(id != 0, "create with a NULL name gets an ID");
    ids[(*n_ids)++] = id;

    /* A 40-byte name without a NUL: only its first CPU_USAGE_NAME_LEN bytes may be
     * read. They are placed at the very end of a malloc'd block and, separately, of a
     * guard page. */
    current = "unterminated 40-byte name at the end of a malloc'd block";
    block = malloc(40);
    if (block == NULL) {
        exit(2);
    }
    memset(block, 'A', 40);
    memset(block + 40 - CPU_USAGE_NAME_LEN, 'B', CPU_USAGE_NAME_LEN);
    id = cpu_usage_hook_task_create(&tcbs[2], block + 40 - CPU_USAGE_NAME_LEN);
    CHECK(id != 0, "create with an unterminated name gets an ID");
    ids[(*n_ids)++] = id;

    current = "unterminated name ending at a guard page";
    g = guarded_new();
    tail = guarded_tail(g, CPU_USAGE_NAME_LEN);
    memset(tail, 'C', CPU_USAGE_NAME_LEN);
    id = cpu_usage_hook_task_create(&tcbs[3], (const char *)tail);
    CHECK(id != 0, "create with a name ending at a guard page gets an ID");
    ids[(*n_ids)++] = id;

    /* And the 40-byte array passed from its start: the kept name is its first
     * CPU_USAGE_NAME_LEN bytes. */
    current = "unterminated 40-byte name";
    whole = malloc(40);
    if (whole == NULL) {
        exit(2);
    }
    memset(whole, 'D', 40);
    id = cpu_usage_hook_task_create(&tcbs[4], whole);
    CHECK(id != 0, "create with a 40-byte unterminated name gets an ID");
    ids[(*n_ids)++] = id;

    /* The kept names are exactly CPU_USAGE_NAME_LEN bytes: the report lists them. The
     * cumulative report lists every live task, also before the first window. */
    current = "report of the truncated names";
    {
        char *argv_c[] = { "show_cpu_usage", "-c", "-m", NULL };
        text = format_all(3, argv_c, &status);
    }
    CHECK(status >= 0, "cumulative report before the first window");
    memset(expect, 0, sizeof(expect));
    expect[0] = '"';
    memset(expect + 1, 'B', CPU_USAGE_NAME_LEN);
    expect[CPU_USAGE_NAME_LEN + 1] = '"';
    CHECK(strstr(text, expect) != NULL, "the unterminated name is kept as its first CPU_USAGE_NAME_LEN bytes");
    memset(expect + 1, 'C', CPU_USAGE_NAME_LEN);
    CHECK(strstr(text, expect) != NULL, "the name at the guard page is kept whole");
    memset(expect + 1, 'D', CPU_USAGE_NAME_LEN);
    CHECK(strstr(text, expect) != NULL, "the 40-byte name is kept as exactly its first CPU_USAGE_NAME_LEN bytes");
    CHECK(strstr(text, "\"name\":\"\"") != NULL, "a NULL name is reported as empty");
    CHECK(strstr(text, "AAAA") == NULL, "nothing before the name's start is read");
    free(text);

    free(block);
    free(whole);
    guarded_free(g);
}

static void check_lifecycle(uint32_t *ids, size_t *n_ids, uint32_t idle_id)
{
    uint32_t id;
    size_t i;
    int all_distinct = 1;
    int none_zero = 1;
    uint32_t victim;

    current = "scheduler start";
    cpu_usage_hook_scheduler_start(idle_id, 0, 0);

    /* Fill every ID: the ones taken so far plus new tasks up to the capacity. */
    current = "creates up to the capacity";
    while (*n_ids < CPU_USAGE_MAX_TASKS) {
        char name[16];
        snprintf(name, sizeof(name), "t%zu", *n_ids);
        id = cpu_usage_hook_task_create(&tcbs[*n_ids + 4], name);
        ids[(*n_ids)++] = id;
    }
    for (i = 0; i < *n_ids; i++) {
        none_zero &= ids[i] != 0 && ids[i] <= CPU_USAGE_MAX_TASKS;
        for (size_t j = 0; j < i; j++) {
            all_distinct &= ids[i] != ids[j];
        }
    }
    CHECK(none_zero, "the first CPU_USAGE_MAX_TASKS creates get IDs 1..CPU_USAGE_MAX_TASKS");
    CHECK(all_distinct, "live tasks have distinct IDs");

    current = "creates beyond the capacity";
    CHECK_INT(cpu_usage_hook_task_create(&tcbs[CPU_USAGE_MAX_TASKS + 4], "over1"), 0, "create beyond capacity gets ID 0");
    CHECK_INT(cpu_usage_hook_task_create(&tcbs[CPU_USAGE_MAX_TASKS + 5], "over2"), 0, "and so does the next one");

    current = "deletes";
    CHECK_INT(cpu_usage_hook_task_delete(NULL, ids[1]), CPU_USAGE_ERR_NULL, "delete with a NULL TCB");
    CHECK_INT(cpu_usage_hook_task_delete(&tcbs[0], 999), CPU_USAGE_ERR_TASK_ID, "delete of ID 999");
    CHECK_INT(cpu_usage_hook_task_delete(&tcbs[0], CPU_USAGE_MAX_TASKS + 1), CPU_USAGE_ERR_TASK_ID,
              "delete of ID CPU_USAGE_MAX_TASKS + 1");
    CHECK_INT(cpu_usage_hook_task_delete(&tcbs[0], UINT32_MAX), CPU_USAGE_ERR_TASK_ID, "delete of ID UINT32_MAX");
    victim = ids[*n_ids - 1];
    CHECK_INT(cpu_usage_hook_task_delete(&tcbs[*n_ids + 3], victim), CPU_USAGE_OK, "delete of a live task");
    CHECK_INT(cpu_usage_hook_task_delete(&tcbs[*n_ids + 3], victim), CPU_USAGE_ERR_TASK_ID, "second delete of it");
    CHECK_INT(cpu_usage_hook_task_delete(&tcbs[CPU_USAGE_MAX_TASKS + 5], 0), CPU_USAGE_OK,
              "delete of a task sharing ID 0");
    (*n_ids)--;

    /* Its ID stays in quarantine while its windows are shown: the next create shares
     * ID 0 again. */
    CHECK_INT(cpu_usage_hook_task_create(&tcbs[CPU_USAGE_MAX_TASKS + 6], "over3"), 0,
              "a deleted task's ID is not reused at once");

    /* Switches with IDs the library never gave out are charged to ID 0, not trusted.
     * (Each passes the clock's reading, as the hooks header does.) */
    current = "switches with bogus IDs";
    cpu_usage_hook_task_switched_in(cpu_usage_clock_read(), CPU_USAGE_MAX_TASKS + 1);
    fake_now += 10;
    cpu_usage_hook_task_switched_in(cpu_usage_clock_read(), UINT32_MAX);
    fake_now += 10;
    cpu_usage_hook_task_switched_in(cpu_usage_clock_read(), victim);
    fake_now += 10;
}

/* Runs time forward: ids[0] for 300 ms, idle for the rest, over two whole windows, with
 * a tick every millisecond as the kernel would. */
static void run_two_windows(const uint32_t *ids, uint32_t idle_id)
{
    current = "running two windows";
    for (int window = 0; window < 2; window++) {
        cpu_usage_hook_task_switched_in(cpu_usage_clock_read(), ids[0]);
        for (int ms = 0; ms < 300; ms++) {
            fake_now++;
            cpu_usage_hook_tick();
        }
        cpu_usage_hook_task_switched_in(cpu_usage_clock_read(), idle_id);
        for (int ms = 0; ms < 700; ms++) {
            fake_now++;
            cpu_usage_hook_tick();
        }
    }
    /* One more tick closes the window that just ended, if nothing else has. */
    fake_now++;
    cpu_usage_hook_tick();
}

/* cpu_usage_format into buffers of every interesting length. */
static void check_buffers(void)
{
    char *argv_m[] = { "show_cpu_usage", "-m", NULL };
    char *argv_bad[] = { "show_cpu_usage", "-x", NULL };
    int status = 0;
    char *full = format_all(2, argv_m, &status);
    int needed = cpu_usage_format(NULL, 0, 2, argv_m);
    size_t lens[5];
    Guarded g;

    current = "format: asking for the length";
    CHECK_INT(status, needed, "a full-size buffer gets the whole report");
    CHECK(needed > 0 && (size_t)needed == strlen(full), "NULL, 0 returns the report's length");
    CHECK(needed > 0 && full[0] == '{' && full[needed - 1] == '\n', "the report is one line of JSON");
    CHECK_INT(cpu_usage_format(NULL, 5, 2, argv_m), CPU_USAGE_ERR_NULL, "NULL buffer with a length");

    lens[0] = 0;
    lens[1] = 1;
    lens[2] = 2;
    lens[3] = (size_t)needed;
    lens[4] = (size_t)needed + 1;
    for (size_t k = 0; k < 5; k++) {
        size_t len = lens[k];
        unsigned char *buf = malloc(len + CANARY_LEN);
        size_t copied = len == 0 ? 0 : (len - 1 < (size_t)needed ? len - 1 : (size_t)needed);
        int got;

        current = "format into a small buffer";
        if (buf == NULL) {
            exit(2);
        }
        memset(buf, CANARY_BYTE, len + CANARY_LEN);
        got = cpu_usage_format((char *)buf, len, 2, argv_m);
        CHECK_INT(got, needed, "the return value is the full length whatever the buffer");
        CHECK(canary_intact(buf + len), "nothing written past the buffer");
        if (len > 0) {
            CHECK_INT(buf[copied], 0, "the text is NUL-terminated");
            CHECK(memcmp(buf, full, copied) == 0, "the text is the report's beginning");
        }
        free(buf);
    }

    /* Exactly-sized and one-byte buffers ending at a guard page. */
    current = "format into buffers ending at a guard page";
    g = guarded_new();
    CHECK_INT(cpu_usage_format((char *)guarded_tail(g, (size_t)needed), (size_t)needed, 2, argv_m), needed,
              "buffer of the report's length at a guard page");
    CHECK_INT(guarded_tail(g, 1)[0], 0, "its last byte is the NUL");
    CHECK_INT(cpu_usage_format((char *)guarded_tail(g, 1), 1, 2, argv_m), needed, "1-byte buffer at a guard page");
    guarded_free(g);

    /* An error message is cut the same way. */
    current = "format of an error into a small buffer";
    {
        unsigned char buf[8 + CANARY_LEN];
        memset(buf, CANARY_BYTE, sizeof(buf));
        CHECK_INT(cpu_usage_format((char *)buf, 8, 2, argv_bad), CPU_USAGE_ERR_OPTION, "unknown option, 8-byte buffer");
        CHECK_INT(buf[7], 0, "the error message is NUL-terminated");
        CHECK(canary_intact(buf + 8), "nothing written past the error buffer");
    }

    /* show_cpu_usage sends the very same text to the output. */
    current = "show_cpu_usage to the output";
    capture_reset();
    CHECK_INT(show_cpu_usage(2, argv_m), CPU_USAGE_OK, "show_cpu_usage -m");
    CHECK(!captured_overflow && strcmp(captured, full) == 0, "show_cpu_usage prints what cpu_usage_format returns");
    free(full);
}

static void check_arguments(void)
{
    char long_arg_text[100];
    char *argv_null_arg[] = { "show_cpu_usage", NULL, NULL };
    char *argv_long[] = { "show_cpu_usage", NULL, NULL };
    char *argv_nine[] = { "show_cpu_usage", "-m", "-m", "-m", "-m", "-m", "-m", "-m", "-m", "-m", NULL };
    char *argv_eight[] = { "show_cpu_usage", "-m", "-m", "-m", "-m", "-m", "-m", "-m", "-m", NULL };
    static const char *const unknown[] = { "-x", "-mx", "--m", "-", "", "m", "-\xff", "help" };
    char buf[4096];
    char *heap_arg;
    Guarded g;

    current = "NULL argv";
    CHECK_INT(cpu_usage_format(buf, sizeof(buf), 2, NULL), CPU_USAGE_ERR_NULL, "NULL argv with argc 2");
    CHECK_INT(show_cpu_usage(2, NULL), CPU_USAGE_ERR_NULL, "show_cpu_usage with NULL argv and argc 2");
    CHECK(cpu_usage_format(buf, sizeof(buf), 0, NULL) > 0, "NULL argv with argc 0 is the default report");
    CHECK(cpu_usage_format(buf, sizeof(buf), 1, NULL) > 0, "NULL argv with argc 1 is the default report");
    CHECK(cpu_usage_format(buf, sizeof(buf), -1, NULL) > 0, "negative argc is no arguments");

    current = "NULL argv[1]";
    CHECK_INT(cpu_usage_format(buf, sizeof(buf), 2, argv_null_arg), CPU_USAGE_ERR_NULL, "NULL argv[1]");
    capture_reset();
    CHECK_INT(show_cpu_usage(2, argv_null_arg), CPU_USAGE_ERR_NULL, "show_cpu_usage with NULL argv[1]");
    CHECK(captured_len > 0, "show_cpu_usage says what is wrong with its arguments");

    /* An unterminated 100-byte argument: at most 64 bytes are read, then it is refused. */
    current = "unterminated 100-byte argument";
    memset(long_arg_text, 'x', sizeof(long_arg_text));
    long_arg_text[0] = '-';
    argv_long[1] = long_arg_text;
    CHECK_INT(cpu_usage_format(buf, sizeof(buf), 2, argv_long), CPU_USAGE_ERR_OPTION, "unterminated argument");

    current = "unterminated argument at the end of a malloc'd block";
    heap_arg = malloc(64);
    if (heap_arg == NULL) {
        exit(2);
    }
    memset(heap_arg, 'm', 64);
    heap_arg[0] = '-';
    argv_long[1] = heap_arg;
    CHECK_INT(cpu_usage_format(buf, sizeof(buf), 2, argv_long), CPU_USAGE_ERR_OPTION, "64 bytes, no NUL, heap");
    free(heap_arg);

    current = "unterminated argument ending at a guard page";
    g = guarded_new();
    memset(guarded_tail(g, 64), 'm', 64);
    guarded_tail(g, 64)[0] = '-';
    argv_long[1] = (char *)guarded_tail(g, 64);
    CHECK_INT(cpu_usage_format(buf, sizeof(buf), 2, argv_long), CPU_USAGE_ERR_OPTION, "64 bytes, no NUL, guard page");
    /* 63 bytes and a NUL at the page's end: the longest argument accepted as a string. */
    memset(guarded_tail(g, 64), 'm', 63);
    guarded_tail(g, 64)[0] = '-';
    guarded_tail(g, 1)[0] = '\0';
    CHECK_INT(cpu_usage_format(buf, sizeof(buf), 2, argv_long), (int)strlen(buf),
              "63-byte -mmm... option at a guard page is read as flags");
    guarded_free(g);

    current = "unknown options";
    for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++) {
        char *argv[] = { "show_cpu_usage", (char *)unknown[i], NULL };
        CHECK_INT(cpu_usage_format(buf, sizeof(buf), 2, argv), CPU_USAGE_ERR_OPTION, unknown[i]);
        CHECK(strstr(buf, "usage: show_cpu_usage") != NULL, "an unknown option is answered with the usage");
    }

    current = "too many arguments";
    CHECK(cpu_usage_format(buf, sizeof(buf), 9, argv_eight) > 0, "eight arguments");
    CHECK_INT(cpu_usage_format(buf, sizeof(buf), 10, argv_nine), CPU_USAGE_ERR_OPTION, "nine arguments");

    current = "valid options";
    {
        char *argv_h[] = { "show_cpu_usage", "-h", NULL };
        char *argv_cm[] = { "show_cpu_usage", "-cm", NULL };
        CHECK(cpu_usage_format(buf, sizeof(buf), 2, argv_h) > 0 && strstr(buf, "usage:") != NULL, "-h");
        CHECK(cpu_usage_format(buf, sizeof(buf), 2, argv_cm) > 0 && strstr(buf, "\"cumulative\"") != NULL, "-cm");
    }

    /* Follow mode needs the console: into a buffer, or without a wait function, it is
     * refused at once (it must not block waiting for windows). */
    current = "follow mode without a console";
    {
        char *argv_f[] = { "show_cpu_usage", "-m", "-f", "3", NULL };
        CHECK_INT(cpu_usage_set_follow_wait(NULL), CPU_USAGE_OK, "set_follow_wait(NULL) turns follow mode off");
        CHECK_INT(cpu_usage_format(buf, sizeof(buf), 4, argv_f), CPU_USAGE_ERR_FOLLOW, "-f into a buffer");
        CHECK(strstr(buf, "follow mode") != NULL, "-f into a buffer says why");
        capture_reset();
        CHECK_INT(show_cpu_usage(4, argv_f), CPU_USAGE_ERR_FOLLOW, "-f without a wait function");
        CHECK(strstr(captured, "cpu_usage_set_follow_wait") != NULL, "-f without a wait function says what to call");
    }
}

/* The window figures, known exactly from the hand-driven clock. */
static void check_figures(void)
{
    char *argv_m[] = { "show_cpu_usage", "-m", NULL };
    char buf[4096];

    current = "window figures";
    CHECK(cpu_usage_format(buf, sizeof(buf), 2, argv_m) > 0, "window report");
    CHECK(strstr(buf, "\"window_counts\":1000,") != NULL, "a window is 1000 counts of the 1 kHz clock");
    CHECK(strstr(buf, "\"usage_pct\":30.00") != NULL, "the task that ran 300 of 1000 ms has 30.00 %");
    CHECK(strstr(buf, "\"idle_pct\":70.00") != NULL, "idle has 70.00 %");
    /* The 30 ms of switches with bogus IDs went to the shared bucket, and only those. */
    {
        char *argv_c[] = { "show_cpu_usage", "-c", "-m", NULL };
        CHECK(cpu_usage_format(buf, sizeof(buf), 3, argv_c) > 0, "cumulative report");
        CHECK(strstr(buf, "{\"id\":0,\"name\":\"(overflow)\",\"counts\":30,") != NULL,
              "switches with IDs never given out are charged to ID 0");
    }
    CHECK(cpu_usage_format(buf, sizeof(buf), 2, argv_m) > 0, "window report again");
    /* Two creates beyond capacity, one of them deleted, and one more after that. */
    CHECK(strstr(buf, "\"overflow_tasks\":2") != NULL, "two tasks share ID 0");
}

static int alerts_seen;

static void on_alert(const cpu_usage_alert *alert, void *ctx)
{
    (void)alert;
    (void)ctx;
    alerts_seen++;
}

static void check_snapshot_cli_and_watchdogs(void)
{
    cpu_usage_summary_info summary;
    cpu_usage_task_info *one;
    Guarded g = guarded_new();
    long more;
    int n;

    current = "snapshot with NULL";
    CHECK_INT(cpu_usage_snapshot(NULL, 0, NULL), CPU_USAGE_ERR_NULL, "a NULL summary is refused");
    CHECK_INT(cpu_usage_snapshot(NULL, 4, &summary), CPU_USAGE_ERR_NULL, "a NULL array with a length is refused");
    CHECK_INT(cpu_usage_snapshot(NULL, 0, &summary), 0, "no array, length 0: the summary alone");
    CHECK(summary.tasks >= 2 && summary.written == 0, "the summary counts the tasks it did not write");

    /* One element, ending at a guard page: exactly one is written. */
    current = "snapshot into one element at a guard page";
    one = (cpu_usage_task_info *)guarded_tail(g, sizeof(*one));
    n = cpu_usage_snapshot(one, 1, &summary);
    CHECK_INT(n, 1, "one task written into room for one");
    CHECK(one->name[CPU_USAGE_NAME_BUF - 1] == '\0', "the name is NUL-terminated");
    CHECK(summary.tasks > 1 && summary.written == 1, "the others are counted");

    /* The CLI command: buffers of 0, 1 and 2 bytes at a guard page, a NULL line. */
    current = "cli with tiny buffers";
    CHECK_INT(cpu_usage_cli_command(NULL, 0, "show_cpu_usage"), 0, "NULL buffer: done");
    CHECK_INT(cpu_usage_cli_command((char *)guarded_tail(g, 1), 1, "show_cpu_usage"), 0, "1 byte: done");
    CHECK(*guarded_tail(g, 1) == '\0', "1 byte: an empty string");
    do {
        more = cpu_usage_cli_command((char *)guarded_tail(g, 2), 2, "show_cpu_usage -m");
        CHECK(guarded_tail(g, 2)[1] == '\0', "2 bytes: one character and a NUL");
    } while (more == 1);
    CHECK_INT(more, 0, "a report in 2-byte pieces ends");
    current = "cli with a NULL line";
    CHECK(cpu_usage_cli_command((char *)guarded_tail(g, 64), 64, NULL) >= 0, "a NULL line is the plain command");
    while (cpu_usage_cli_command((char *)guarded_tail(g, 64), 64, NULL) == 1) {
    }
    current = "watchdog settings";
    CHECK_INT(cpu_usage_watchdog_set_load(10001, 1), CPU_USAGE_ERR_RANGE, "a load above 100% is refused");
    CHECK_INT(cpu_usage_watchdog_set_load(UINT32_MAX, UINT32_MAX), CPU_USAGE_ERR_RANGE, "a huge load is refused");
    CHECK_INT(cpu_usage_watchdog_set_load(0, UINT32_MAX), 0, "any number of windows is fine");
    CHECK_INT(cpu_usage_watchdog_set_load(0, 0), 0, "off");
    CHECK_INT(cpu_usage_watchdog_set_slice_us(UINT32_MAX), 0, "the 1 kHz clock holds any slice in 32 bits");
    CHECK_INT(cpu_usage_watchdog_set_slice_us(0), 0, "off");
    CHECK_INT(cpu_usage_watchdog_set_callback(NULL, NULL), 0, "no callback");
    CHECK_INT(cpu_usage_watchdog_set_callback(on_alert, NULL), 0, "a callback");
    CHECK_INT(cpu_usage_watchdog_set_callback(NULL, NULL), 0, "no callback again");
    CHECK_INT(alerts_seen, 0, "nothing tripped while everything was off");

    current = "cpu_usage_trace words";
    {
        char t0[] = "cpu_usage_trace", bad[] = "begin", start[] = "start", dump[] = "dump", extra[] = "now";
        char *argv_bad[] = { t0, bad, NULL };
        char *argv_two[] = { t0, start, extra, NULL };
        char *argv_null_word[] = { t0, NULL, NULL };
        char *argv_dump[] = { t0, dump, NULL };

        capture_reset();
        CHECK_INT(cpu_usage_trace(2, argv_bad), CPU_USAGE_ERR_OPTION, "an unknown word is refused");
        CHECK(strstr(captured, "usage: cpu_usage_trace") != NULL, "and the usage is printed");
        CHECK_INT(cpu_usage_trace(3, argv_two), CPU_USAGE_ERR_OPTION, "two words are refused");
        CHECK_INT(cpu_usage_trace(2, NULL), CPU_USAGE_ERR_NULL, "NULL argv with argc 2");
        CHECK_INT(cpu_usage_trace(2, argv_null_word), CPU_USAGE_ERR_NULL, "NULL argv[1]");
        CHECK_INT(cpu_usage_trace(1, NULL), 0, "no word is the status");
        capture_reset();
        CHECK_INT(cpu_usage_trace(2, argv_dump), 0, "a dump of an empty trace");
        CHECK(strstr(captured, "end events=") != NULL, "ends with its end line");
    }

    current = "interrupt and sleep hooks out of order";
    cpu_usage_hook_isr_exit();
    cpu_usage_hook_sleep_end();
    cpu_usage_hook_isr_enter();
    cpu_usage_hook_sleep_begin(); /* refused inside an interrupt */
    cpu_usage_hook_isr_exit();
    cpu_usage_hook_isr_exit();
    CHECK(1, "stray interrupt and sleep hooks are survived");

    guarded_free(g);
}

int main(void)
{
    struct sigaction sa;
    uint32_t ids[CPU_USAGE_MAX_TASKS + 8];
    size_t n_ids = 0;
    uint32_t idle_id;

    page_size = (size_t)sysconf(_SC_PAGESIZE);
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_segv;
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);

    check_versions_and_status_strings();
    check_configuration();
    check_no_window_yet();

    current = "idle task create";
    idle_id = cpu_usage_hook_task_create(&tcbs[0], "IDLE");
    CHECK(idle_id != 0, "the idle task gets an ID");
    ids[n_ids++] = idle_id;

    check_names(ids, &n_ids);
    check_lifecycle(ids, &n_ids, idle_id);
    /* ids[1] is the task with the NULL name: it runs 30 % of each window. */
    run_two_windows(&ids[1], idle_id);
    check_figures();
    check_buffers();
    check_arguments();
    check_snapshot_cli_and_watchdogs();

    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
