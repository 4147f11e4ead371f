#!/usr/bin/env bash
# bench/run.sh - runs the benchmarks `make bench` reports and writes the figures.
#
#   BENCH_OUT=build/bench bench/run.sh BENCHMARKS.md bench/figures.txt
#   BENCH_OUT=build/bench bench/run.sh --stack    (`make bench-stack`)
#
# Expects the programs bench/bench.mk builds in $BENCH_OUT. Every figure is a count of
# executed instructions or (stack.*) of bytes, never a time, so the same build gives
# the same figures on any machine:
#
#   posix.*   callgrind (valgrind) on the POSIX port: instructions per
#             vTaskSwitchContext() call, inclusive, in bench/posix/main.c's scenario
#   cm3.*     QEMU mps2-an385, one instruction per translation block, the execution
#             log of the library's address range counted between the markers of
#             bench/cm3/harness.c (bench/cm3/count.awk)
#   reader.*  the same, around show_cpu_usage(); the longest run of instructions
#             between the library's `cpsid i` and `cpsie i`
#   stack.*   QEMU mps2-an385, the same image, scenario=stack: bytes of the caller's
#             stack each reader of the C API wrote (painted before the call, scanned
#             after it); stack.*.sp (not with --stack): how far the stack pointer went
#             down meanwhile, from QEMU's register log
#   size.*    boards/mps2-an385/footprint.txt, as committed by `make size`
#
# The budgets are bench/check.sh's; this script only asks it for the verdicts.
#
# --stack measures the stack.* figures alone (no valgrind, no execution logs: a few
# seconds), prints them with their budgets' verdicts and writes them to
# $BENCH_OUT/stack-figures.txt; it leaves BENCHMARKS.md and bench/figures.txt alone
# and fails only when the measuring does, not when a budget is missed.
set -euo pipefail

usage="usage: bench/run.sh BENCHMARKS.md FIGURES | bench/run.sh --stack"
mode=all
if [ "${1:-}" = --stack ]; then
    mode=stack
else
    md=${1:?$usage}
    figures=${2:?$usage}
fi
out=${BENCH_OUT:-build/bench}
footprint=boards/mps2-an385/footprint.txt

SWITCHES=100000
TASK_COUNTS="1 32 200"

fail() {
    echo "bench: $*" >&2
    exit 1
}

command -v qemu-system-arm >/dev/null || fail "qemu-system-arm not found: run 'make setup'"
if [ "$mode" = all ]; then
    command -v valgrind >/dev/null || fail "valgrind not found: apt-get install --no-install-recommends valgrind"
    [ -f "$footprint" ] || fail "$footprint is missing: run 'make size'"
fi

mkdir -p "$out/logs"
fig_tmp=$(mktemp)
trap 'rm -f "$fig_tmp"' EXIT

# Figures, in the order measured: "name value" lines.
put() {
    printf '%s %s\n' "$1" "$2" >>"$fig_tmp"
}
get() {
    awk -v k="$1" '$1 == k { print $2; found = 1 } END { if (!found) print "n/a" }' "$fig_tmp"
}
div() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
sub2() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a - b }'; }
field() { # line key -> value
    awk -v k="$2" '{ for (i = 1; i < NF; i++) if ($i == k) { print $(i + 1); exit } }' <<<"$1"
}

# ---- QEMU ------------------------------------------------------------------------

qemu_version=$(qemu-system-arm --version | sed -n '1s/.*version \([0-9][0-9]*\)\.\([0-9][0-9]*\).*/\1 \2/p')
read -r qemu_major qemu_minor <<<"$qemu_version"
# One guest instruction per translation block: QEMU 8.1 renamed -singlestep.
if [ "$qemu_major" -gt 8 ] || { [ "$qemu_major" -eq 8 ] && [ "$qemu_minor" -ge 1 ]; }; then
    one_insn=(-accel tcg,one-insn-per-tb=on)
else
    one_insn=(-singlestep)
fi

sym() { # elf name-regex -> address, 8 hex digits, Thumb bit cleared
    local a
    a=$(arm-none-eabi-nm "$1" | awk -v re="$2" '$3 ~ re && !found { print $1; found = 1 }')
    [ -n "$a" ] || fail "no symbol matching '$2' in $1"
    printf '%08x' $((0x$a & ~1))
}

# ---- 5. Cortex-M3: the readers' use of the caller's stack (measured last in a full
# run, alone with --stack) ------------------------------------------------------------

# IDs:tasks. The tasks fill the IDs (the first is the idle task): every row the
# readers can have, none sharing ID 0.
STACK_CONFIGS="32:32 256:256"
# The readers, in the order harness.c measures them (measure_stack()); check.sh
# budgets all but snapshot-null, the floor of the method (a call refused at its first
# check).
STACK_READERS="show-text show-m show-c show-l show-s show-n3 show-clm format cli snapshot snapshot-null"
STACK_MAX=$(bench/check.sh --stack-max)
STACK_PAINT_KIB=? # how much the harness paints below each call (its first line says)

# The -dfilter ranges for the stack pointer's cross-check: every instruction of the
# image that follows one lowering the stack pointer (push, vpush, sub sp, stmdb sp!,
# a store with writeback below sp; the images have no other kind, such as mov sp, rN),
# where the stack pointer is at its lowest for a while; and the markers.
sp_filter() { # elf
    local a list
    list=$(arm-none-eabi-objdump -d --no-show-raw-insn "$1" | awk '
        /^ *[0-9a-f]+:\t/ {
            if (lowered) { a = $1; sub(/:$/, "", a); print a }
            lowered = ($0 ~ /\t(push|vpush)(\.w)?\t/ || $0 ~ /\t(sub|subw|sub\.w)\tsp, / ||
                       $0 ~ /\tstmdb(\.w)?\tsp!/ || $0 ~ /\[sp, #-[0-9]+\]!/)
        }' | while read -r a; do printf '0x%08x+2,' $((0x$a)); done)
    [ -n "$list" ] || fail "$1: no instruction lowers the stack pointer?"
    echo "${list}0x$(sym "$1" '^bench_begin$')+2,0x$(sym "$1" '^bench_end$')+2"
}

# Runs scenario=stack; prints the image's "stack ..." lines. With `sp`, also logs the
# registers at sp_filter's instructions (one instruction per translation block,
# chaining off) through a pipe into an awk that prints, for each interval between the
# markers, "interval <n> sp_min <lowest stack pointer, hex>" into $base.sp. The log
# never reaches the disk: it is about 700 MB at 256 IDs.
stack_run() { # ids tasks [sp]
    local ids=$1 n=$2 elf="$out/cm3-$1/bench.elf" base="$out/logs/cm3-$1-load1-$2-stack" status=0
    local trace=() fifo="" reader=""
    [ -f "$elf" ] || fail "$elf is missing"
    if [ "${3:-}" = sp ]; then
        fifo="$base.fifo"
        rm -f "$fifo" "$base.sp"
        mkfifo "$fifo"
        awk -v begin="$(sym "$elf" '^bench_begin$')" -v end="$(sym "$elf" '^bench_end$')" '
            /^R12=/ {
                sp = substr($2, 5); pc = substr($4, 5)
                if (pc == begin) { inside = 1; lowest = "ffffffff"; next }
                if (pc == end) { printf "interval %d sp_min %s\n", ++n, lowest; inside = 0; next }
                if (inside && sp < lowest) lowest = sp
            }' "$fifo" >"$base.sp" &
        reader=$!
        trace=("${one_insn[@]}" -d cpu,nochain -dfilter "$(sp_filter "$elf")" -D "$fifo")
    fi
    # -icount as for the other scenarios, so that every run is the same.
    timeout 600 qemu-system-arm -M mps2-an385 -cpu cortex-m3 -display none -monitor none \
        -serial none -icount shift=4,align=off,sleep=off "${trace[@]}" \
        -semihosting-config "enable=on,target=native,arg=bench,arg=clock=load1,arg=tasks=$n,arg=scenario=stack" \
        -kernel "$elf" >"$base.log" 2>&1 || status=$?
    if [ -n "$reader" ]; then
        # Should QEMU have ended before opening the pipe, a writer that comes and goes
        # ends the awk's wait for one (opening a FIFO read-write never blocks).
        if kill -0 "$reader" 2>/dev/null; then
            exec 3<>"$fifo"
            exec 3>&-
        fi
        wait "$reader" || fail "reading the register log of $ids/$n/stack failed"
        rm -f "$fifo"
    fi
    [ "$status" -eq 0 ] || fail "QEMU run $ids/load1/$n/stack ended with status $status: see $base.log"
    grep '^stack ' "$base.log" || fail "$ids/$n/stack printed no figures: see $base.log"
}

stack_measure() { # [sp]
    local ids_tasks ids n lines line r bytes floor paint base i calls sp_call lowest k deepest
    local sp_mins=()
    for ids_tasks in $STACK_CONFIGS; do
        ids=${ids_tasks%:*} n=${ids_tasks#*:}
        base="$out/logs/cm3-$ids-load1-$n-stack"
        echo "bench: Cortex-M3 reader stack, $ids IDs, $n tasks${1:+ (and the stack pointer: a minute or two)}" >&2
        lines=$(stack_run "$ids" "$n" "${1:-}")
        paint=$(field "$(awk '$2 == "painted"' <<<"$lines")" bytes)
        [ -n "$paint" ] || fail "$ids/$n/stack: the image did not say how much it paints"
        STACK_PAINT_KIB=$((paint / 1024))
        # The method's self-check: a function that writes the one word 64 bytes below
        # the stack pointer, and lowers it by as much.
        line=$(awk '$2 == "calib"' <<<"$lines")
        [ "$(field "$line" bytes)" = 64 ] ||
            fail "the stack painting is off: the 64-byte calibration function measured '$line'"
        for r in $STACK_READERS; do
            line=$(awk -v r="$r" '$2 == r' <<<"$lines")
            bytes=$(field "$line" bytes)
            [ -n "$bytes" ] || fail "$ids/$n/stack: no figure for $r in: $lines"
            put "stack.ids$ids.$r" "$bytes"
            put "stack.ids$ids.$r.out" "$(field "$line" out)"
            [ "$r" != cli ] || put "stack.ids$ids.$r.calls" "$(field "$line" calls)"
        done
        # A refused call uses next to nothing; a report, more than that.
        floor=$(get "stack.ids$ids.snapshot-null")
        [ "$floor" -le 128 ] || fail "$ids IDs: a refused cpu_usage_snapshot wrote $floor bytes of stack"
        for r in $STACK_READERS; do
            [ "$r" = snapshot-null ] || [ "$(get "stack.ids$ids.$r")" -gt "$floor" ] ||
                fail "$ids IDs: $r wrote no more stack than a refused call ($floor bytes)"
        done
        [ -n "${1:-}" ] || continue

        # The stack pointer: the image's lines and the intervals come in the same
        # order, a line per reader, an interval per call.
        mapfile -t sp_mins < <(awk '{ print $4 }' "$base.sp")
        [ "${#sp_mins[@]}" -eq "$(awk '{ for (i = 1; i < NF; i++) if ($i == "calls") c += $(i + 1) } END { print c + 0 }' <<<"$lines")" ] ||
            fail "$ids/$n/stack: ${#sp_mins[@]} intervals in the register log for these calls: $lines"
        i=0
        while read -r _ r _; do
            [ "$r" != painted ] || continue
            line=$(awk -v r="$r" '$2 == r' <<<"$lines")
            calls=$(field "$line" calls) sp_call=$(field "$line" sp)
            deepest=0
            for ((k = 0; k < calls; k++, i++)); do
                lowest=$((0x${sp_mins[i]}))
                [ $((sp_call - lowest)) -le "$deepest" ] || deepest=$((sp_call - lowest))
            done
            if [ "$r" = calib ]; then
                [ "$deepest" -eq 64 ] ||
                    fail "the stack pointer's log is off: the 64-byte calibration function measured $deepest"
                continue
            fi
            put "stack.ids$ids.$r.sp" "$deepest"
            # Code never writes below the stack pointer.
            [ "$(get "stack.ids$ids.$r")" -le "$deepest" ] ||
                fail "$ids IDs: $r wrote $(get "stack.ids$ids.$r") bytes down, below its lowest stack pointer ($deepest)"
        done <<<"$lines"
    done
}

if [ "$mode" = stack ]; then
    stack_measure
    stack_figures="$out/stack-figures.txt"
    cp "$fig_tmp" "$stack_figures"
    cat "$stack_figures"
    bench/check.sh --verdicts "$stack_figures" | awk '
        $2 ~ /^reader-stack-/ {
            v = ($1 == "PASS") ? "met:   " : "MISSED:"
            $1 = ""; $2 = ""; sub(/^ +/, "")
            print "bench-stack: " v " " $0
        }' || true
    echo "bench: wrote $stack_figures (the bytes written; 'make bench' adds the stack pointer's depth)" >&2
    exit 0
fi

# ---- 1. POSIX port: cost per context switch ----------------------------------------

# The calls and inclusive instructions of one call edge (caller "*": all callers).
edge() { # calls-file caller callee-regex -> "calls incl" summed over matching edges
    awk -F'\t' -v caller="$2" -v callee="$3" \
        '$3 == caller && $4 ~ callee { c += $1; i += $2 } END { print c + 0, i + 0 }' "$1"
}

posix_run() { # variant tasks
    local v=$1 n=$2 base="$out/logs/posix-$1-$2"
    echo "bench: POSIX $v, $n tasks, $SWITCHES switches (callgrind)" >&2
    valgrind --tool=callgrind --callgrind-out-file="$base.callgrind" \
        "$out/switch-$v" "$n" "$SWITCHES" >"$base.log" 2>&1 ||
        fail "$out/switch-$v $n $SWITCHES failed under valgrind: see $base.log"
    awk -f bench/posix/calls.awk "$base.callgrind" >"$base.calls"

    local calls incl
    read -r calls incl < <(edge "$base.calls" '*' '^vTaskSwitchContext$')
    [ "$calls" -eq "$SWITCHES" ] ||
        fail "$v/$n: vTaskSwitchContext ran $calls times, expected $SWITCHES (see $base.calls)"
    put "posix.$v.n$n.switch" "$(div "$incl" "$calls")"

    # The clock reads made inside the switch, and what one read costs.
    local c i
    case $v in
    kernel)
        read -r c i < <(edge "$base.calls" vTaskSwitchContext '^ulBenchClock$')
        ;;
    lib*)
        # lib32 and lib256 read the kernel stats' clock; libdefault, the library's own.
        local clock_fn='^ulBenchClock$'
        [ "$v" != libdefault ] || clock_fn='monotonic_64ns$'
        read -r c i < <(edge "$base.calls" cpu_usage_hook_task_switched_in "$clock_fn")
        [ "$c" -gt 0 ] || fail "$v/$n: the switch-in hook made no call to $clock_fn (see $base.calls)"
        local ci ii
        read -r ci ii < <(edge "$base.calls" vTaskSwitchContext '^cpu_usage_hook_task_switched_in$')
        put "posix.$v.n$n.hook_in" "$(div "$ii" "$ci")"
        ;;
    *) c=0 i=0 ;;
    esac
    if [ "$c" -gt 0 ]; then
        put "posix.$v.n$n.clock_reads" "$(div "$c" "$calls")"
        put "posix.$v.n$n.clock" "$(div "$i" "$calls")"
    fi
}

for n in $TASK_COUNTS; do
    for v in none kernel lib32 lib256 libdefault; do
        posix_run "$v" "$n"
    done
    for v in kernel lib32 lib256 libdefault; do
        put "posix.$v.n$n.overhead" "$(sub2 "$(get "posix.$v.n$n.switch")" "$(get "posix.none.n$n.switch")")"
    done
    # The budget compares overheads on one clock: the same reads, each as dear.
    for v in lib32 lib256; do
        [ "$(get "posix.$v.n$n.clock_reads")" = "$(get "posix.kernel.n$n.clock_reads")" ] &&
            [ "$(get "posix.$v.n$n.clock")" = "$(get "posix.kernel.n$n.clock")" ] ||
            fail "$v/$n: unequal clocks: the library reads $(get "posix.$v.n$n.clock_reads") times per switch for $(get "posix.$v.n$n.clock") instructions, the kernel stats $(get "posix.kernel.n$n.clock_reads") for $(get "posix.kernel.n$n.clock")"
    done
done

# ---- 2. and 3. Cortex-M3 under QEMU ----------------------------------------------

# Addresses (8 hex digits) of the instructions of the functions whose <name> matches
# (mode fn), or of the instructions whose disassembly line matches (mode insn). The
# shell does the hex arithmetic: mawk has no strtonum.
addr_list() { # elf mode regex
    local elf=$1 mode=$2 re=$3
    arm-none-eabi-objdump -d --no-show-raw-insn "$elf" |
        awk -v mode="$mode" -v re="$re" '
            /^[0-9a-f]+ <.*>:$/ { fn = $2; next }
            /^ *[0-9a-f]+:\t/ {
                a = $1; sub(/:$/, "", a)
                if ((mode == "fn" && fn ~ re) || (mode == "insn" && $0 ~ re)) print a
            }' |
        while read -r a; do printf '%08x ' $((0x$a)); done
}

declare -A CM3_ARGS
cm3_prepare() { # ids elf
    local ids=$1 elf=$2 lo hi
    [ -f "$elf" ] || fail "$elf is missing"
    lo=$(sym "$elf" '^__measured_start$')
    hi=$(sym "$elf" '^__measured_end$')
    CM3_ARGS[$ids.elf]=$elf
    CM3_ARGS[$ids.filter]="0x$lo..0x$(printf '%08x' $((0x$hi - 1)))"
    CM3_ARGS[$ids.begin]=$(sym "$elf" '^bench_begin$')
    CM3_ARGS[$ids.end]=$(sym "$elf" '^bench_end$')
    CM3_ARGS[$ids.cpsid]=$(addr_list "$elf" insn $'\tcpsid\ti')
    CM3_ARGS[$ids.cpsie]=$(addr_list "$elf" insn $'\tcpsie\ti')
    CM3_ARGS[$ids.clock]=$(addr_list "$elf" fn '^<(bench_clock_load1|.*systick_cycles.*)>:$')
    [ -n "${CM3_ARGS[$ids.cpsid]}" ] && [ -n "${CM3_ARGS[$ids.cpsie]}" ] ||
        fail "$elf: no cpsid/cpsie in the library's code"
    [ -n "${CM3_ARGS[$ids.clock]}" ] || fail "$elf: clock functions not found"
}

# Runs one scenario; prints count.awk's lines.
cm3_run() { # ids clock tasks scenario
    local ids=$1 base="$out/logs/cm3-$1-$2-$3-$4" status
    # -icount: virtual time is instructions, so SysTick (the clock the library reads)
    # advances the same way in every run; sleep=off: WFI jumps to the next tick.
    status=0
    timeout 300 qemu-system-arm -M mps2-an385 -cpu cortex-m3 -display none -monitor none \
        -serial none -icount shift=4,align=off,sleep=off "${one_insn[@]}" \
        -semihosting-config "enable=on,target=native,arg=bench,arg=clock=$2,arg=tasks=$3,arg=scenario=$4" \
        -d exec,nochain -dfilter "${CM3_ARGS[$ids.filter]}" -D "$base.trace" \
        -kernel "${CM3_ARGS[$ids.elf]}" >"$base.log" 2>&1 || status=$?
    [ "$status" -eq 0 ] || fail "QEMU run $ids/$2/$3/$4 ended with status $status: see $base.log"
    awk -v begin="${CM3_ARGS[$ids.begin]}" -v end="${CM3_ARGS[$ids.end]}" \
        -v cpsid="${CM3_ARGS[$ids.cpsid]}" -v cpsie="${CM3_ARGS[$ids.cpsie]}" \
        -v clock="${CM3_ARGS[$ids.clock]}" -f bench/cm3/count.awk "$base.trace" >"$base.counts" ||
        fail "counting $base.trace failed"
    rm -f "$base.trace"
    cat "$base.counts"
}

cm3_prepare 32 "$out/cm3-32/bench.elf"
cm3_prepare 256 "$out/cm3-256/bench.elf"

echo "bench: Cortex-M3, self-check of the counting" >&2
calib=$(cm3_run 32 load1 1 calib)
calib8=$(awk '$2 == 1' <<<"$calib")
calib_io=$(awk '$2 == 2' <<<"$calib")
[ "$(field "$calib8" insns)" = 8 ] ||
    fail "the counting method is off: the 8-instruction calibration function counted '$calib8'"
# Three of its loads read device registers, which QEMU runs twice under -icount.
[ "$(field "$calib_io" insns)" = 10 ] ||
    fail "the counting method is off: the 10-instruction calibration function, three loads from device registers, counted '$calib_io'"
[ "$(wc -l <<<"$calib")" -eq 2 ] || fail "the calibration measured other intervals than its two: $calib"
echo "bench: self-check: 8 and 10 instructions counted; QEMU ran $(field "$calib_io" rewound) device loads twice, each counted once" >&2

for ids in 32 256; do
    for clock in systick load1; do
        for n in $TASK_COUNTS; do
            echo "bench: Cortex-M3, $ids IDs, clock $clock, $n tasks" >&2
            scenarios="common rollover release worst"
            [ "$n" -gt "$ids" ] && scenarios="$scenarios overflow"
            scenarios="$scenarios isr sleep isr-tick" # interrupts and sleep: section 3
            scenarios="$scenarios traced"             # the event trace: section 2
            for s in $scenarios; do
                lines=$(cm3_run "$ids" "$clock" "$n" "$s")
                first=$(head -n 1 <<<"$lines")
                [ -n "$first" ] || fail "$ids/$clock/$n/$s: no interval was measured"
                # Every interval of a scenario takes the same path: they must agree.
                [ "$(awk '{ print $4 }' <<<"$lines" | sort -u | wc -l)" -eq 1 ] ||
                    fail "$ids/$clock/$n/$s: the intervals differ: $lines"
                put "cm3.ids$ids.$clock.n$n.$s" "$(field "$first" insns)"
                put "cm3.ids$ids.$clock.n$n.$s.clock" "$(field "$first" clock)"
            done
            # Each special path adds work to the common one, and the worst has it all.
            k="cm3.ids$ids.$clock.n$n"
            awk -v c="$(get "$k.common")" -v r="$(get "$k.rollover")" -v d="$(get "$k.release")" \
                -v w="$(get "$k.worst")" 'BEGIN { exit !(c < r && c < d && w >= r && w >= d) }' ||
                fail "$k: implausible paths: common $(get "$k.common"), rollover $(get "$k.rollover"), release $(get "$k.release"), worst $(get "$k.worst")"
        done
    done
done

for ids_tasks in 32:32 256:32 256:256; do
    ids=${ids_tasks%:*} n=${ids_tasks#*:}
    echo "bench: Cortex-M3 show_cpu_usage, $ids IDs, $n tasks" >&2
    for s in report-text report-json report-cum report-long; do
        line=$(cm3_run "$ids" load1 "$n" "$s")
        put "reader.ids$ids.n$n.${s#report-}.total" "$(field "$line" insns)"
        put "reader.ids$ids.n$n.${s#report-}.cs" "$(field "$line" cs_max)"
        put "reader.ids$ids.n$n.${s#report-}.cs_count" "$(field "$line" cs)"
    done
done

# ---- 5. Reader stack (see stack_measure above) -------------------------------------

stack_measure sp

# ---- 6. Footprint ------------------------------------------------------------------

for k in flash ram text data bss; do
    put "size.$k" "$(awk -v k="$k" '$1 == k { print $2 }' "$footprint")"
done

# ---- Figures file ------------------------------------------------------------------

src_hash=$(bench/check.sh --source-hash)
{
    echo "# Figures of 'make bench' (bench/run.sh), checked by 'make bench-check' (bench/check.sh)."
    echo "# Instruction counts, and (stack.*) bytes; BENCHMARKS.md says how each is measured. Do not edit: re-run"
    echo "# 'make bench' and commit this file with BENCHMARKS.md."
    echo "source $src_hash"
    cat "$fig_tmp"
} >"$figures"

# ---- BENCHMARKS.md -----------------------------------------------------------------

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
    cat <<EOF

A missed budget is a finding, not a reason to change the budget: \`make bench-check\`
fails until the figures meet it.

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
hook (inclusive, clock included; its switch-out hook is empty). The library's own
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
instruction to its return, with everything they call (the clock read included); not the kernel's side
of the calls. The thumbv7m-none-eabi archive, linked into a bare-metal image
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
window (the harness gives it a longer one first: a new longest run costs a few
instructions more, and how long a task runs on SysTick depends on the harness's
waits). **rollover**: the switch finds the window elapsed and
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
  window runs, after a first interrupt in this window. Called with interrupts masked;
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
\`boards/mps2-an385/footprint.txt\` as committed by \`make size\`:

| flash | ram | text | data | bss |
|---:|---:|---:|---:|---:|
| $(g size.flash) | $(g size.ram) | $(g size.text) | $(g size.data) | $(g size.bss) |
EOF
} >"$md"

echo "bench: wrote $md and $figures" >&2
bench/check.sh "$figures" || true
