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
#   size.*    freertos-port/mps2-an385/footprint.txt, as committed by `make size`
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
footprint=freertos-port/mps2-an385/footprint.txt

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
        # The hooks header reads it in vTaskSwitchContext and passes the reading in.
        local clock_fn='^ulBenchClock$'
        [ "$v" != libdefault ] || clock_fn='monotonic_64ns$'
        read -r c i < <(edge "$base.calls" vTaskSwitchContext "$clock_fn")
        [ "$c" -gt 0 ] || fail "$v/$n: the switch made no call to $clock_fn (see $base.calls)"
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

# "<address> <function>" for every instruction of the image: the function each
# belongs to, its name shortened (bench/cm3/short-name.sed), for count.awk's
# profile.
owners() { # elf
    arm-none-eabi-objdump -d --no-show-raw-insn -C "$1" |
        awk '/^[0-9a-f]+ <.*>:$/ { fn = substr($0, index($0, "<") + 1); sub(/>:$/, "", fn); print "fn " fn; next }
             /^ *[0-9a-f]+:\t/ { a = $1; sub(/:$/, "", a); print "at " a }' |
        while read -r kind rest; do
            if [ "$kind" = fn ]; then
                fn=$(sed -E -f bench/cm3/short-name.sed <<<"$rest")
            else
                printf '%08x %s\n' $((0x$rest)) "$fn"
            fi
        done
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

# Runs one scenario; prints count.awk's lines (with `profile`, and the instructions
# per function).
cm3_run() { # ids clock tasks scenario [profile]
    local ids=$1 base="$out/logs/cm3-$1-$2-$3-$4" status owners_file=""
    # -icount: virtual time is instructions, so SysTick (the clock the library reads)
    # advances the same way in every run; sleep=off: WFI jumps to the next tick.
    status=0
    timeout 300 qemu-system-arm -M mps2-an385 -cpu cortex-m3 -display none -monitor none \
        -serial none -icount shift=4,align=off,sleep=off "${one_insn[@]}" \
        -semihosting-config "enable=on,target=native,arg=bench,arg=clock=$2,arg=tasks=$3,arg=scenario=$4" \
        -d exec,nochain -dfilter "${CM3_ARGS[$ids.filter]}" -D "$base.trace" \
        -kernel "${CM3_ARGS[$ids.elf]}" >"$base.log" 2>&1 || status=$?
    [ "$status" -eq 0 ] || fail "QEMU run $ids/$2/$3/$4 ended with status $status: see $base.log"
    if [ "${5:-}" = profile ]; then
        owners_file="$base.owners"
        owners "${CM3_ARGS[$ids.elf]}" >"$owners_file"
    fi
    awk -v begin="${CM3_ARGS[$ids.begin]}" -v end="${CM3_ARGS[$ids.end]}" \
        -v cpsid="${CM3_ARGS[$ids.cpsid]}" -v cpsie="${CM3_ARGS[$ids.cpsie]}" \
        -v clock="${CM3_ARGS[$ids.clock]}" -v owners="$owners_file" \
        -f bench/cm3/count.awk "$base.trace" >"$base.counts" ||
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

# The common switch of a library built for two cores (CPU_USAGE_CORES=2, 32 IDs): the
# SMP hook, on each clock.
cm3_prepare smp2 "$out/cm3-smp2/bench.elf"
for clock in systick load1; do
    for n in $TASK_COUNTS; do
        echo "bench: Cortex-M3, 2 cores, 32 IDs, clock $clock, $n tasks" >&2
        lines=$(cm3_run smp2 "$clock" "$n" common)
        first=$(head -n 1 <<<"$lines")
        [ -n "$first" ] || fail "smp2/$clock/$n/common: no interval was measured"
        [ "$(awk '{ print $4 }' <<<"$lines" | sort -u | wc -l)" -eq 1 ] ||
            fail "smp2/$clock/$n/common: the intervals differ: $lines"
        put "cm3.smp2.$clock.n$n.common" "$(field "$first" insns)"
    done
done

for ids_tasks in 32:32 256:32 256:256; do
    ids=${ids_tasks%:*} n=${ids_tasks#*:}
    echo "bench: Cortex-M3 show_cpu_usage, $ids IDs, $n tasks" >&2
    for s in report-text report-json report-cum report-long; do
        # (Where the budgeted one's instructions go: per function.)
        profile=$([ "$ids:$n:$s" = 256:256:report-long ] && echo profile || true)
        line=$(cm3_run "$ids" load1 "$n" "$s" $profile)
        put "reader.ids$ids.n$n.${s#report-}.total" "$(field "$line" insns)"
        put "reader.ids$ids.n$n.${s#report-}.cs" "$(field "$line" cs_max)"
        put "reader.ids$ids.n$n.${s#report-}.cs_count" "$(field "$line" cs)"
        while read -r _ fn _ count; do
            put "reader.ids$ids.n$n.${s#report-}.fn.$fn" "$count"
        done < <(grep '^function ' <<<"$line" | sort -k4,4nr -k2,2)
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

# ---- BENCHMARKS.md (bench/report.sh) ------------------------------------------------

# shellcheck source=bench/report.sh
source bench/report.sh

echo "bench: wrote $md and $figures" >&2
bench/check.sh "$figures" || true
