#!/usr/bin/env bash
# bench/report.sh - writes BENCHMARKS.md from the figures bench/run.sh measured.
#
# Sourced by bench/run.sh once the figures file is written, not run alone: it uses
# run.sh's variables (md, figures, fig_tmp, out, src_hash, SWITCHES, TASK_COUNTS,
# STACK_MAX, STACK_PAINT_KIB, STACK_CONFIGS, STACK_READERS, qemu_major, qemu_minor)
# and functions (get, field).

# ---- BENCHMARKS.md -----------------------------------------------------------------

# Bytes of code (text symbols) of the ELF $1 by part of the library: "<part> <bytes>"
# lines, for the parts named in `blockers`. The first pattern a function's name
# matches decides its part.
code_by_part() { # elf
    arm-none-eabi-nm -S -C --size-sort "$1" | awk '
        $3 !~ /^[tTW]$/ { next }
        {
            name = $0; sub(/^[0-9a-f]+ [0-9a-f]+ [tTW] /, "", name)
            part = "other"
            if (name ~ /snapshot|read_line|Shares|ShareWalk|div_rem|counts_to_us|pct_of|engine::read/) part = "readers"
            else if (name ~ /report::|ffi::shell|ffi::cli|ffi::sink|ffi::args|show_cpu_usage|cpu_usage_format|cpu_usage_cli_command|cpu_usage_watchdog$|status|core::fmt|Out::|Cell::/) part = "shell"
            else if (name ~ /watchdog|deliver_alerts|smoothing/) part = "watchdogs"
            else if (name ~ /engine::|cpu_usage_hook_|critical_section|arch::|Acct::/) part = "engine"
            bytes[part] += ("0x" $2) + 0
        }
        END { for (p in bytes) print p, bytes[p] }'
}

# The largest stack frames of the report writers in the ELF $1 (what `push` and `sub
# sp` reserve at a function's entry): "<bytes> <function>" lines, largest first.
reader_frames() { # elf
    arm-none-eabi-objdump -d --no-show-raw-insn -C "$1" | awk '
        /^[0-9a-f]+ <.*>:$/ { fn = substr($0, index($0, "<") + 1); sub(/>:$/, "", fn); n = 0; next }
        fn !~ /report::|ffi::shell|ffi::sink|ffi::read_line|show_cpu_usage|Out::|Cell::/ { next }
        /\tpush(\.w)?\t|\tstmdb(\.w)?\tsp!/ && n < 4 { regs = gsub(/r[0-9]+|lr|fp|ip|sl|sb/, "&"); frame[fn] += 4 * regs }
        /\tsub(\.w|w)?\tsp, (sp, )?#/ && n < 6 { match($0, /#[0-9]+/); frame[fn] += substr($0, RSTART + 1, RLENGTH - 1) }
        { n++ }
        END { for (f in frame) print frame[f], f }' | sort -rn | sed -E 's/^([0-9]+) (.*)$/\2\t\1/' |
        while IFS=$'\t' read -r fn bytes; do echo "$bytes $(sed -E -f bench/cm3/short-name.sed <<<"$fn")"; done | head -n "${2:-8}"
}

# What each missed budget is made of, and what stands in its way (BENCHMARKS.md).
blockers() {
    local fp=$footprint minimal_elf=build/size/minimal-ids32.elf default_elf=build/size/default-ids32.elf
    local k v
    fig() { awk -v k="$1" '$1 == k { print $2 }' "$fp"; }
    budget() { scripts/footprint.sh verdicts "$fp" | awk -v k="$1" '$3 == k { sub(/:$/, "", $5); print $5 }'; }
    declare -A min def
    if [ -f "$minimal_elf" ] && [ -f "$default_elf" ]; then
        while read -r k v; do min[$k]=$v; done < <(code_by_part "$minimal_elf")
        while read -r k v; do def[$k]=$v; done < <(code_by_part "$default_elf")
    fi
    local rodata_def
    rodata_def=$([ -f "$default_elf" ] && arm-none-eabi-size -A "$default_elf" | awk '$1 == ".rodata" { print $2 }' || echo n/a)
    cat <<EOF
- **Minimal flash** ($(fig minimal.flash) bytes, budget 4096): the hooks and the engine
  (every hook, the ID pool, the rollover) are ${min[engine]:-n/a} bytes of code on their own;
  \`cpu_usage_snapshot\` with its shares and microseconds (the 64-bit division, the
  apportioning of shares) ${min[readers]:-n/a}; the setters ${min[other]:-n/a}. The load averages,
  the watchdogs and the status texts are out of this build (the \`watchdogs\` and
  \`shell\` features), and it links no \`memcpy\` or \`memset\`. Giving shares to the caller
  instead (counts only) would save at most the readers' part: the engine alone
  fills the budget.
- **Default flash** ($(fig default.flash) bytes, budget 12288): the shell's code is ${def[shell]:-n/a}
  bytes (the table and the JSON writers, the arguments, the usage texts,
  \`cpu_usage_cli_command\`, \`cpu_usage_watchdog\`), its constant texts most of the
  ${rodata_def} bytes of \`.rodata\`; the engine ${def[engine]:-n/a}, the readers ${def[readers]:-n/a}, the
  watchdogs ${def[watchdogs]:-n/a}. Writing both syntaxes from one walk of one field table is
  what can bring the writers down; the engine, readers and texts alone are near the
  budget.
- **Default RAM** ($(fig default.ram) bytes, budget 2560): $(fig default.ram_per_id) bytes per task ID
  ($(fig minimal.ram_per_id) of them in every build: two windows of counts, runs and longest run,
  the name and the state; the rest the since-start total, runs, longest run and busiest
  window that \`-c\` reports), so 32 IDs take $(( $(fig default.ram_per_id) * 32 )) bytes before the
  engine's own state. Moving the busiest window (12 bytes per ID) to the trace
  feature would leave the budget missed; names read from the kernel when printed
  would lose the deleted tasks' names.
- **Readers' stack** (budget $STACK_MAX): the report is streamed a line at a time, so its
  depth is a chain of frames, each holding what it needs: the largest frames are
  $(reader_frames "$default_elf" 8 | awk '{ printf "%s`%s` (%d bytes)", (NR > 1 ? ", " : ""), $2, $1 } END { print "." }')
  Every output goes through a 64-byte line buffer and a 32-byte cell; a line read
  from the engine is a copy of its figures on the reader's stack.
- **\`show_cpu_usage -l\` at 256 tasks** ($(awk '$2 == "reader-long-ids256"' <<<"$verdicts" | grep -o 'budget <= [0-9]*')): $(g reader.ids256.n256.long.total) instructions, about
  $(( $(g reader.ids256.n256.long.total) / 256 )) per task line; section 4 has where they go. The largest part goes to moving
  bytes: each cell is written right to left into a cell, copied into the line buffer
  a byte at a time with a test for the line's end, then handed to the output.
EOF
}

verdicts=$(bench/check.sh --verdicts "$figures" || true)
verdict() { awk -v k="$1" '$2 == k { print ($1 == "PASS" ? "met" : "**MISSED**"); f = 1 } END { if (!f) print "?" }' <<<"$verdicts"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print "n/a"; else printf "%.2f", a / b }'; }
pct() { awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print "n/a"; else printf "%.0f%%", 100 * a / b }'; }
g() { get "$1"; }
cell() { # figure -> "count (clock)", or "-" where not measured
    local v
    v=$(g "$1")
    if [ "$v" = n/a ]; then echo -; else echo "$v ($(g "$1.clock"))"; fi
}
# The rows of a Cortex-M3 table for $1 IDs: one per clock and task count, a cell per
# scenario in $2...
cm3_rows() {
    local ids=$1 clock n s row
    shift
    for clock in systick load1; do
        for n in $TASK_COUNTS; do
            row="| $([ "$clock" = load1 ] && echo 1-load || echo systick) | $n"
            for s in "$@"; do
                row="$row | $(cell "cm3.ids$ids.$clock.n$n.$s")"
            done
            echo "$row |"
        done
    done
}
# Whether scenario $1's figures are the same at every task count, for both ID counts
# and every clock it ran on.
flat_over_tasks() {
    awk -v s="$1" '{
        n = split($1, p, ".")
        if (n != 5 || p[1] != "cm3" || p[5] != s) next
        k = p[2] "." p[3]
        if (k in v && v[k] != $2) diff = 1
        v[k] = $2
    } END { exit diff }' "$fig_tmp"
}

versions="valgrind $(valgrind --version | sed 's/valgrind-//'), QEMU $qemu_major.$qemu_minor, $(${BENCH_CC:-cc} --version | head -n 1), $(arm-none-eabi-gcc --version | head -n 1), $(rustc --version)"

{
    cat <<EOF
# Benchmarks

Generated by \`make bench\` (bench/run.sh); do not edit. Every figure is a count of
executed instructions, so it does not depend on the machine's speed or load; it does
depend on the compilers and tools: $versions. Sources: \`$src_hash\`
(bench/check.sh --source-hash). The machine-readable figures are in
\`bench/figures.txt\`; \`make bench-check\` checks the budgets on them.

## Budgets

| budget | figure | verdict |
|---|---|---|
EOF
    awk '{
        v = ($1 == "PASS") ? "met" : "**MISSED**"
        $1 = ""; id = $2; $2 = ""
        sub(/^ +/, "")
        printf "| %s | %s | %s |\n", id, $0, v
    }' <<<"$verdicts"
    # "footprint: budget minimal.flash <= 4096: 6627, MISSED"
    scripts/footprint.sh verdicts "$footprint" | awk '{
        key = $3; limit = $5; now = $6; sub(/,$/, "", now); sub(/:$/, "", limit)
        split(key, k, ".")
        printf "| footprint-%s-%s | Cortex-M3, 32 IDs: the %s build'"'"'s %s, %d bytes (budget <= %d) | %s |\n",
            k[1], k[2], k[1], k[2] == "ram" ? "RAM" : k[2], now, limit, $7 == "met" ? "met" : "**MISSED**"
    }'
    cat <<EOF

A missed budget is a finding, not a reason to change the budget: \`make bench-check\`
fails until the figures meet it. The footprint rows are \`make size\`'s
(\`freertos-port/mps2-an385/footprint.txt\`: every C API function of the build linked into an
empty Cortex-M3 image, 32 IDs); \`make test\` fails when one grows more than 10%.

### What the missed budgets are made of

EOF
    blockers
    cat <<EOF

## 1. Cost per context switch, FreeRTOS POSIX port

Instructions per \`vTaskSwitchContext()\` call, inclusive (everything it calls), in
one scenario built four ways. The scenario (bench/posix/main.c): N tasks at one
priority call \`taskYIELD()\` in turn, $SWITCHES times in all, then the process
exits; no tick switches tasks (no time slicing, nobody blocks), so the function runs
exactly $SWITCHES times, all from a yield. Measured with \`valgrind --tool=callgrind\`
(bench/posix/calls.awk sums the call edges into the function). Overhead = the build's
figure minus "no accounting".

- **no accounting**: the kernel without hooks and without run-time stats.
- **kernel stats**: \`configGENERATE_RUN_TIME_STATS\` 1, with
  \`portALT_GET_RUN_TIME_COUNTER_VALUE\` calling the benchmark's clock function,
  \`ulBenchClock()\`: \`CLOCK_MONOTONIC\` in 64 ns units, 32 bits, what the library's
  default hosted clock computes.
- **library**: the hooks header, \`libfreertos_cpu_usage.a\` linked, reading the same
  \`ulBenchClock()\` (\`cpu_usage_set_clock()\`): both builds call one clock function,
  and bench/run.sh fails unless they read it as often and for as many instructions.
  Its window is set to 100 s so that no rollover (whose count would depend on how
  fast valgrind runs) falls into the figures; rollovers are in section 2.
- **library, 256 IDs**: the same, built with \`CPU_USAGE_MAX_TASKS=256\`.
- **library, own clock**: 32 IDs, on the library's default hosted clock
  (src/arch/hosted.rs), which is what a POSIX simulator gets; not in the budget, whose
  comparison is on one clock.

N counts the yielding tasks; the kernel adds its idle task, which never runs here. With
the default 32 IDs, tasks created when all are taken share ID 0: at 32 tasks the idle
task, at 200 tasks 169 of the 201 (their switches take the ID-0 path, a few
instructions shorter). With 256 IDs every task has its own.

| tasks | no accounting | kernel stats | overhead | library | overhead | library / kernel overhead | library, 256 IDs | overhead | library, own clock | overhead |
|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|
EOF
    for n in $TASK_COUNTS; do
        printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$n" \
            "$(g posix.none.n$n.switch)" "$(g posix.kernel.n$n.switch)" "$(g posix.kernel.n$n.overhead)" \
            "$(g posix.lib32.n$n.switch)" "$(g posix.lib32.n$n.overhead)" \
            "$(ratio "$(g posix.lib32.n$n.overhead)" "$(g posix.kernel.n$n.overhead)") x" \
            "$(g posix.lib256.n$n.switch)" "$(g posix.lib256.n$n.overhead)" \
            "$(g posix.libdefault.n$n.switch)" "$(g posix.libdefault.n$n.overhead)"
    done
    cat <<EOF

Where the overhead goes, per switch: the clock reads (the clock function with
\`clock_gettime\` and the conversion around it) and, for the library, its switch-in
hook (inclusive; the hooks header reads the clock in \`vTaskSwitchContext()\` and
passes the reading in, so the hook calls nothing; its switch-out hook is empty). The library's own
clock computes what \`ulBenchClock()\` does; the compilers make different code of it
(the library's size-optimised Rust keeps the timespec's address in a saved register).

| tasks | kernel: clock reads | instructions | share of overhead | library: clock reads | instructions | share of overhead | switch-in hook | own clock: instructions | switch-in hook |
|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|
EOF
    for n in $TASK_COUNTS; do
        printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$n" \
            "$(g posix.kernel.n$n.clock_reads)" "$(g posix.kernel.n$n.clock)" \
            "$(pct "$(g posix.kernel.n$n.clock)" "$(g posix.kernel.n$n.overhead)")" \
            "$(g posix.lib32.n$n.clock_reads)" "$(g posix.lib32.n$n.clock)" \
            "$(pct "$(g posix.lib32.n$n.clock)" "$(g posix.lib32.n$n.overhead)")" \
            "$(g posix.lib32.n$n.hook_in)" \
            "$(g posix.libdefault.n$n.clock)" "$(g posix.libdefault.n$n.hook_in)"
    done
    cat <<EOF

Under valgrind \`clock_gettime\` makes the system call (valgrind does not let a
program use the vDSO), so the user-space instructions counted for a clock read are
fewer than on a bare Linux host, where the vDSO's time arithmetic runs in user space;
the system call's own cost is not counted at all. Both accounting builds pay it once
per switch.

## 2. Cost of the switch hooks on Cortex-M3

Instructions executed by the hooks of one context switch: \`traceTASK_SWITCHED_OUT\`
is empty, so that is \`cpu_usage_hook_task_switched_in()\`, from its first
instruction to its return, with everything they call, and the clock read its call
site makes (the hooks header reads the clock in \`vTaskSwitchContext()\` and passes
the reading in: the three instructions GCC makes of that there, then the clock
function); not the rest of the kernel's side of the calls (loading the ID, the call). The thumbv7m-none-eabi archive, linked into a bare-metal image
(bench/cm3/harness.c) that creates N tasks through the create hook (the first stands
for the idle task; with 32 IDs, at 200 tasks 168 share ID 0), calls the
scheduler-start hook, lets every task run twice, then calls the switch hooks
directly, with interrupts masked as the kernel does, on QEMU \`mps2-an385\`. QEMU runs one instruction per translation block
with block chaining off and logs every block it executes in the library's address
range (\`-d exec,nochain -dfilter\`); bench/cm3/count.awk counts the log between two
marker calls. \`-icount\` makes SysTick, and so the clock, advance identically in every
run. Under it QEMU runs an instruction that loads from (or stores to) a device
register twice: it abandons the block at the access, before it takes effect, and
runs it again from a block translated for device access (\`cpu_io_recompile\`,
logged as a rewind); count.awk counts that instruction once. A self-check counts an
8-instruction function (with a skipped IT-block instruction, which the core executes
too) and a 10-instruction one with three loads from device registers (SysTick's
current and reload values, a CMSDK timer's value), and must find 8 and 10.

Paths: **common**: a task that already ran in this window is switched out, one with
an ID of its own switched in; the run that ends is not the task's longest in this
window (the harness gives it a longer one first: a run that is a new longest ends
through the slow switch, a few times per task and window, and how long a task runs
on SysTick depends on the harness's waits). **rollover**: the switch finds the window elapsed and
closes it. **release**: the switched-out task deleted itself; its ID goes to
quarantine.
**overflow**: the switched-in task shares ID 0 (there is one only with more tasks than
IDs). **worst**: rollover and release in one switch and, on SysTick, the tick
pending (the counter reloaded since the last reading, so the clock reads it twice);
it switches in a task with an ID of its own,
the longer of the two switch-in paths (compare common and overflow). With one task, the
switch goes from the task to itself. The harness checks through the API that exactly
the rollover and worst pairs close a window.

Clocks: QEMU's DWT does not count, so the library falls back to its SysTick-extended
clock (src/arch/cortex_m.rs): **systick** is what the library does on QEMU.
**1-load** is a clock set by \`cpu_usage_set_clock()\` that is one load from memory:
the same instructions as the DWT cycle counter the library uses on a real
Cortex-M3/M4/M7. In brackets: instructions spent in the clock function.

EOF
    for ids in 32 256; do
        echo "With $ids task IDs (\`CPU_USAGE_MAX_TASKS=$ids\`):"
        echo
        echo "| clock | tasks | common | rollover | release | overflow | worst |"
        echo "|---|---:|---:|---:|---:|---:|---:|"
        cm3_rows "$ids" common rollover release overflow worst
        echo
    done
    cat <<EOF
With the event trace (firmware built with \`CPU_USAGE_TRACE\` 1, the trace
recording): the common switch again, through \`cpu_usage_hook_task_switched_in_traced()\`,
which does the same and records one 8-byte event. Firmware built without it calls
the functions above, whose figures do not change.

| IDs | clock | tasks | common | traced | trace's cost |
|---:|---|---:|---:|---:|---:|
EOF
    for ids in 32 256; do
        for clock in systick load1; do
            for n in $TASK_COUNTS; do
                k="cm3.ids$ids.$clock.n$n"
                echo "| $ids | $([ "$clock" = load1 ] && echo 1-load || echo systick) | $n | $(g "$k.common") | $(g "$k.traced") | $(sub2 "$(g "$k.traced")" "$(g "$k.common")") |"
            done
        done
    done
    cat <<EOF

On several cores (the library built with \`CPU_USAGE_CORES=2\`, 32 IDs): the common
switch through \`cpu_usage_hook_smp_task_switched_in()\`, which an SMP kernel's switch
calls with the core's number, against the one-core figure above (budget: at most 1.5
times it on the same clock).

| clock | tasks | one core | two cores | more |
|---|---:|---:|---:|---:|
EOF
    for clock in systick load1; do
        for n in $TASK_COUNTS; do
            one=$(g "cm3.ids32.$clock.n$n.common") smp=$(g "cm3.smp2.$clock.n$n.common")
            echo "| $([ "$clock" = load1 ] && echo 1-load || echo systick) | $n | $one | $smp | $(sub2 "$smp" "$one") |"
        done
    done
    cat <<EOF

## 3. Interrupts and sleep on Cortex-M3

The hooks that keep interrupts and tickless sleep apart from the tasks, counted as in
section 2 (same image, clocks and method; everything they call, the clock included;
the clock's share in brackets). Each is measured three times in one run, and the three
counts must agree. All are the common case: the window runs on, and every slot the
hooks charge already has time in this window (a warm-up did it).

- **interrupt**: \`cpu_usage_hook_isr_enter()\` and, some 300 counts later,
  \`cpu_usage_hook_isr_exit()\`: one interrupt handler bracketed by
  \`CPU_USAGE_ISR_ENTER()\`/\`CPU_USAGE_ISR_EXIT()\`, or by the kernel's
  \`traceISR_ENTER\`/\`traceISR_EXIT\`, taken while a task that already ran in this
  window runs, after a first interrupt in this window (a nested handler, or one
  during which a window closes, takes the exits' slow path). Called with interrupts masked;
  the macros' own mask raise and restore around each call (BASEPRI: a few
  instructions) is the caller's side and not counted, like the kernel's side of a
  switch.
- **sleep**: \`cpu_usage_hook_sleep_begin()\` and, some 3000 counts later,
  \`cpu_usage_hook_sleep_end()\`: \`traceLOW_POWER_IDLE_BEGIN\`/\`_END\` around one
  tickless sleep of the idle task, which already ran in this window, after a first
  sleep in this window; the critical section the hooks header puts around each call
  is not counted. Interrupts that wake the core, or run while it sleeps, are each an
  interrupt pair as above.
- **SysTick handler**: the kernel's tick interrupt (GCC/ARM_CM3 \`xPortSysTickHandler()\`)
  as the hooks header makes it: \`traceISR_ENTER\`, the tick hook
  (\`traceTASK_INCREMENT_TICK\`), \`traceISR_EXIT\` (\`traceISR_EXIT_TO_SCHEDULER\`
  calls the same hook), counted inside the image's real SysTick handler, after two
  warm-up ticks.
EOF
    echo
    for ids in 32 256; do
        echo "With $ids task IDs:"
        echo
        echo "| clock | tasks | interrupt | sleep | SysTick handler |"
        echo "|---|---:|---:|---:|---:|"
        cm3_rows "$ids" isr sleep isr-tick
        echo
    done
    if flat_over_tasks isr && flat_over_tasks sleep && flat_over_tasks isr-tick; then
        echo "Each figure is the same at every task count: these paths do not depend on the number of tasks."
    else
        echo "**Some of these figures differ with the task count**: these paths should not depend on it."
    fi
    cat <<EOF

## 4. Reader: how long show_cpu_usage masks interrupts

\`show_cpu_usage()\` copies what it reports inside a critical section (PRIMASK on
Cortex-M) and formats after it. Same image and method as section 2, clock 1-load, a
completed window in which every task ran; the critical section counts the
instructions from its \`cpsid i\` to its \`cpsie i\`, both included. "whole call" is
every instruction of \`show_cpu_usage()\` (output function excluded: it discards).

| IDs | tasks | option | critical sections | longest (instructions) | whole call |
|---:|---:|---|---:|---:|---:|
EOF
    for ids_tasks in 32:32 256:32 256:256; do
        ids=${ids_tasks%:*} n=${ids_tasks#*:}
        for s in text:'(none: text)' json:-m cum:-c long:-l; do
            k=${s%%:*} opt=${s#*:}
            printf '| %s | %s | %s | %s | %s | %s |\n' "$ids" "$n" "$opt" \
                "$(g reader.ids$ids.n$n.$k.cs_count)" "$(g reader.ids$ids.n$n.$k.cs)" "$(g reader.ids$ids.n$n.$k.total)"
        done
    done
    cat <<EOF

The copy walks every ID slot, used or not, so its length follows \`CPU_USAGE_MAX_TASKS\`
more than the number of tasks; text and JSON differ only after the critical section.

Where the budgeted call's instructions go (\`show_cpu_usage -l\`, 256 IDs, 256 tasks),
per function of the library, from the same execution log, busiest first (a function
inlined into another counts as that one):

| function | instructions | per task line | share |
|---|---:|---:|---:|
EOF
    awk -v total="$(g reader.ids256.n256.long.total)" -v lines=256 '
        $1 ~ /^reader\.ids256\.n256\.long\.fn\./ {
            fn = $1; sub(/^reader\.ids256\.n256\.long\.fn\./, "", fn)
            if (++n <= 12) printf "| `%s` | %d | %.0f | %.1f%% |\n", fn, $2, $2 / lines, 100 * $2 / total
            else rest += $2
        }
        END { if (rest) printf "| (the other functions) | %d | %.0f | %.1f%% |\n", rest, rest / lines, 100 * rest / total }' "$fig_tmp"
    cat <<EOF

## 5. Reader stack: bytes of the caller's stack

How much of its caller's stack each reader of the C API uses, on Cortex-M3: the
stack of the task that calls it (the shell's, say) must have that much free at the
call; the budget is $STACK_MAX bytes written. Same image as section 2 (scenario
\`stack\`), clock 1-load, a completed window in which every task ran, the tasks filling
the IDs (32 tasks at 32 IDs, 256 at 256: every row a reader can have, none sharing
ID 0).

**written** (painting; \`make bench-stack\` measures this alone, in seconds): a few
lines of assembly in bench/cm3/stack.c (\`stack_call()\`) paint the $STACK_PAINT_KIB KiB
below the stack pointer with a pattern, load the reader's arguments into r0 to r3,
call it with the stack pointer at the top of the painted region, then scan the region
up from its lowest word: the figure is the distance from the first word that no
longer holds the pattern (the deepest one written) up to the stack pointer at the
call. No C code runs between the painting and the scan, and the assembly's own
frame lies above the region, so only the reader writes in it. Everything the reader
calls counts, the output function included (here a leaf that counts the bytes and
uses no stack); interrupts do not (SysTick, the image's only interrupt, is stopped:
an exception frame below the reader's stack pointer would count). The caller's
arguments, arrays and buffers are static, outside the region. Painting does not see
stack that is reserved and never written, nor a word written with the pattern's
value.

**stack pointer** (the cross-check, \`make bench\` only: about a minute): the same
run, with QEMU logging the registers (\`-d cpu\`, one instruction per translation
block) at every instruction of the image that follows one lowering the stack pointer
(push, sub sp, stmdb sp!, a store with writeback below sp); the figure is the stack
pointer at the call less the lowest one logged during it. It sees what a reader
reserves as well as what it writes: an interrupt taken at that moment stacks its
frame below it (on the task's own stack, with the FreeRTOS Cortex-M ports' PSP).
Neither figure counts that frame (32 bytes on a Cortex-M3). A self-check calls a
function that lowers the stack pointer by 64 bytes and writes the one word there:
both methods must find 64, and no reader may write below its lowest stack pointer.

- **show-...**: \`show_cpu_usage(argc, argv)\` with the options shown, its output going
  to the byte-counting function.
- **format**: \`cpu_usage_format(buf, 65536, 1, argv)\`: the whole text, no option.
- **cli**: \`cpu_usage_cli_command(out, 128, "show_cpu_usage")\`, called again while it
  returns 1, as FreeRTOS+CLI does: the deepest of the calls, each on a freshly
  painted stack.
- **snapshot**: \`cpu_usage_snapshot(tasks, CPU_USAGE_MAX_TASKS + 1, &summary)\`: every
  row, into the caller's (static) array.
- **snapshot-null**: \`cpu_usage_snapshot(NULL, 0, NULL)\`, refused at its first check:
  the floor of the painting (a call, the registers saved, a return); no budget.

"output" is the bytes of report the call produced (for snapshot: the rows written,
\`sizeof(cpu_usage_task_info)\` bytes each), so that a reader that stopped early shows.

EOF
    for ids_tasks in $STACK_CONFIGS; do
        ids=${ids_tasks%:*} n=${ids_tasks#*:}
        echo "With $ids task IDs, $n tasks (bytes):"
        echo
        echo "| reader | call | written | stack pointer | output | budget: written <= $STACK_MAX |"
        echo "|---|---|---:|---:|---:|---|"
        for r in $STACK_READERS; do
            case $r in
            show-text) c='`show_cpu_usage` (no option)' ;;
            show-m) c='`show_cpu_usage -m`' ;;
            show-c) c='`show_cpu_usage -c`' ;;
            show-l) c='`show_cpu_usage -l`' ;;
            show-s) c='`show_cpu_usage -s`' ;;
            show-n3) c='`show_cpu_usage -n 3`' ;;
            show-clm) c='`show_cpu_usage -c -l -m`' ;;
            format) c='`cpu_usage_format`' ;;
            cli) c="\`cpu_usage_cli_command\`, $(g "stack.ids$ids.cli.calls") calls" ;;
            snapshot) c='`cpu_usage_snapshot`' ;;
            snapshot-null) c='`cpu_usage_snapshot(NULL, 0, NULL)`' ;;
            *) c='?' ;;
            esac
            if [ "$r" = snapshot-null ]; then v='none (the floor)'; else v=$(verdict "reader-stack-$r-ids$ids"); fi
            printf '| %s | %s | %s | %s | %s | %s |\n' "$r" "$c" "$(g "stack.ids$ids.$r")" \
                "$(g "stack.ids$ids.$r.sp")" "$(g "stack.ids$ids.$r.out")" "$v"
        done
        echo
    done
    if awk '{ n = split($1, p, "."); if (p[1] == "stack" && p[n] == "sp") {
                  w = $1; sub(/\.sp$/, "", w); sp[w] = $2 } else v[$1] = $2 }
            END { for (w in sp) if (w !~ /snapshot-null$/ && sp[w] != v[w]) exit 1 }' "$fig_tmp"; then
        echo "For every reader (snapshot-null aside) the two figures agree: they write all the stack they reserve."
    else
        echo "**For some readers the stack pointer goes deeper than they write**: stack reserved and not written (an interrupt's frame would still land below it)."
    fi
    if [ "$(g stack.ids32.snapshot-null.sp)" != "$(g stack.ids32.snapshot-null)" ] ||
        [ "$(g stack.ids256.snapshot-null.sp)" != "$(g stack.ids256.snapshot-null)" ]; then
        echo "The refused call writes $(g stack.ids32.snapshot-null) and $(g stack.ids256.snapshot-null) bytes (32, 256 IDs) but lowers the stack pointer by $(g stack.ids32.snapshot-null.sp) and $(g stack.ids256.snapshot-null.sp): it reserves its frame before it checks its arguments."
    fi
    echo
    cat <<EOF
## 6. Footprint

What the library adds to the mps2-an385 demo (Cortex-M3, 32 IDs), in bytes, from
\`freertos-port/mps2-an385/footprint.txt\` as committed by \`make size\`:

| flash | ram | text | data | bss |
|---:|---:|---:|---:|---:|
| $(g size.flash) | $(g size.ram) | $(g size.text) | $(g size.data) | $(g size.bss) |
EOF
} >"$md"

