#!/usr/bin/env bash
# bench/check.sh - the performance budgets, checked on the committed figures (never by
# timing anything). `make bench` measures and writes the figures; this only reads them.
#
#   bench/check.sh FIGURES              each budget's verdict; exits 1 if one is missed
#   bench/check.sh --verdicts FIGURES   the same as "PASS|FAIL <id> <text>" lines
#   bench/check.sh --hot FIGURES        the hot path's budgets alone (switch-overhead,
#                                       worst-flat, cm3-*), and fails, instead of
#                                       noting it, if the sources changed since the
#                                       figures were measured (make test runs this)
#   bench/check.sh --source-hash        hash of what the figures depend on
#   bench/check.sh --stack-max          the readers' stack budget, in bytes
#
# Budgets:
#   switch-overhead-N  POSIX port, N tasks: the library's overhead per context switch
#                      is at most 1.5 x the kernel's own run-time stats' overhead, on
#                      the same scenario and the same clock (32 and 256 IDs)
#   worst-flat-*       Cortex-M3: the worst-path hook pair at 200 tasks is within 10%
#                      of the same at 1 task (each clock, 32 and 256 IDs)
#   cm3-common-load1-* Cortex-M3: the switch pair on its common path executes at most
#                      45 instructions with a clock that is one load (a DWT cycle
#                      counter's read) (32 and 256 IDs; the most over 1, 32 and 200
#                      tasks)
#   cm3-common-systick-* the same, at most 60 instructions with the SysTick-extended
#                      clock (QEMU, cores without a DWT)
#   cm3-isr-*          Cortex-M3: one interrupt's enter and exit hooks on their common
#                      path execute at most 100 instructions with the one-load clock
#                      (32 and 256 IDs; the most over 1, 32 and 200 tasks)
#   cm3-tick-*         Cortex-M3: the SysTick handler's hooks (interrupt enter, tick,
#                      interrupt exit) execute at most 130 instructions with the
#                      one-load clock (32 and 256 IDs; the most over 1, 32 and 200
#                      tasks)
#   reader-stack-*     Cortex-M3: each reader of the C API (show_cpu_usage with each
#                      option measured, cpu_usage_format, cpu_usage_cli_command,
#                      cpu_usage_snapshot) writes at most 512 bytes of its caller's
#                      stack (32 IDs with 32 tasks, 256 IDs with 256 tasks)
#   reader-long-*      Cortex-M3: a whole `show_cpu_usage -l` at 256 IDs and 256 tasks
#                      executes at most 400,000 instructions
#
# A missed budget is reported as such and fails the check: change the code or argue
# the budget with the maintainers, but do not edit the figures by hand.
set -euo pipefail

OVERHEAD_RATIO=1.5
FLAT_PCT=10
CM3_COMMON_MAX=45
CM3_COMMON_SYSTICK_MAX=60
ISR_MAX=100
TICK_HOOKS_MAX=130
STACK_MAX=512
REPORT_LONG_MAX=400000
# The readers measured (bench/run.sh's STACK_READERS, less the floor, snapshot-null)
# and what each calls.
STACK_READERS="show-text:show_cpu_usage (no option)|show-m:show_cpu_usage -m|show-c:show_cpu_usage -c|\
show-l:show_cpu_usage -l|show-s:show_cpu_usage -s|show-n3:show_cpu_usage -n 3|\
show-clm:show_cpu_usage -c -l -m|format:cpu_usage_format|\
cli:cpu_usage_cli_command (the deepest of its calls)|snapshot:cpu_usage_snapshot"

source_hash() {
    # The library (not its unit tests), the headers, and the benchmark programs.
    find src include build.rs Cargo.toml bench/posix bench/cm3 -type f ! -name '*tests.rs' -print0 2>/dev/null |
        LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -c1-16
}

mode=report
case "${1:-}" in
--source-hash)
    source_hash
    exit 0
    ;;
--stack-max)
    echo "$STACK_MAX"
    exit 0
    ;;
--verdicts)
    mode=verdicts
    shift
    ;;
--hot)
    mode=hot
    shift
    ;;
esac
figures=${1:?usage: bench/check.sh [--verdicts | --hot] FIGURES | --source-hash | --stack-max}
[ -f "$figures" ] || {
    echo "bench-check: $figures not found: run 'make bench' and commit it" >&2
    exit 1
}

verdicts=$(awk -v ratio="$OVERHEAD_RATIO" -v flat="$FLAT_PCT" -v cmax="$CM3_COMMON_MAX" \
    -v csmax="$CM3_COMMON_SYSTICK_MAX" -v imax="$ISR_MAX" -v tmax="$TICK_HOOKS_MAX" \
    -v smax="$STACK_MAX" -v readers="$STACK_READERS" -v lmax="$REPORT_LONG_MAX" '
    /^#/ || NF < 2 { next }
    { f[$1] = $2 }
    function need(k) {
        if (!(k in f)) { print "FAIL missing-figure " k " is not in the figures file: run make bench"; return 0 }
        return 1
    }
    function verdict(ok, id, text) { printf "%s %s %s\n", ok ? "PASS" : "FAIL", id, text }
    # The most of figure cm3.ids<v>.<clk>.n<N>.<s> over 1, 32 and 200 tasks, and the
    # list of them ("worst" and "list"); 0 if one is missing.
    function over_tasks(v, clk, s,    t, k) {
        worst = -1; list = ""
        for (t = 1; t <= 3; t++) {
            k = "cm3.ids" v "." clk ".n" tasks[t] "." s
            if (!need(k)) return 0
            if (f[k] + 0 > worst) worst = f[k] + 0
            list = list (list == "" ? "" : ", ") f[k]
        }
        return 1
    }
    END {
        split("1 32 200", tasks, " ")
        for (t = 1; t <= 3; t++) {
            n = tasks[t]
            k = "posix.kernel.n" n ".overhead"
            if (!need(k)) continue
            for (v = 32; v <= 256; v += 224) {
                l = "posix.lib" v ".n" n ".overhead"
                if (!need(l)) continue
                r = f[l] / f[k]
                verdict(f[l] <= ratio * f[k], "switch-overhead-" n "-ids" v,
                    sprintf("POSIX, tasks: %d, %d IDs: library %.2f vs kernel stats %.2f instructions per switch over none: %.2fx (budget <= %sx)",
                        n, v, f[l], f[k], r, ratio))
            }
        }
        split("systick load1", clocks, " ")
        for (c = 1; c <= 2; c++) {
            clk = clocks[c]
            name = (clk == "load1") ? "1-load clock" : "SysTick clock"
            for (v = 32; v <= 256; v += 224) {
                a = "cm3.ids" v "." clk ".n1.worst"; b = "cm3.ids" v "." clk ".n200.worst"
                if (!need(a) || !need(b)) continue
                d = f[b] - f[a]; if (d < 0) d = -d
                verdict(100 * d <= flat * f[a], "worst-flat-" clk "-ids" v,
                    sprintf("Cortex-M3, %s, %d IDs: worst-path pair %d instructions at 1 task, %d at 200 (%.1f%%; budget <= %d%%)",
                        name, v, f[a], f[b], 100 * d / f[a], flat))
            }
            for (v = 32; v <= 256; v += 224) {
                max = (clk == "load1") ? cmax : csmax
                if (over_tasks(v, clk, "common"))
                    verdict(worst <= max, "cm3-common-" clk "-ids" v,
                        sprintf("Cortex-M3, %s, %d IDs: common-path switch pair %d instructions (at 1, 32, 200 tasks: %s; budget <= %d)",
                            name, v, worst, list, max))
            }
        }
        # Several cores: the common switch pair of the SMP hook at most 1.5 times the
        # one-core figure on the same clock (32 IDs, the most over 1, 32, 200 tasks).
        for (c = 1; c <= 2; c++) {
            clk = clocks[c]
            name = (clk == "load1") ? "1-load clock" : "SysTick clock"
            if (!over_tasks(32, clk, "common")) continue
            one = worst
            smp = -1; slist = ""
            for (t = 1; t <= 3; t++) {
                k = "cm3.smp2." clk ".n" tasks[t] ".common"
                if (!need(k)) { smp = -1; break }
                if (f[k] + 0 > smp) smp = f[k] + 0
                slist = slist (slist == "" ? "" : ", ") f[k]
            }
            if (smp < 0) continue
            verdict(smp <= 1.5 * one, "cm3-smp2-common-" clk,
                sprintf("Cortex-M3, %s, 2 cores, 32 IDs: the SMP hook\047s common switch pair %d instructions (at 1, 32, 200 tasks: %s) vs %d on one core: %.2fx (budget <= 1.5x)",
                    name, smp, slist, one, smp / one))
        }
        for (v = 32; v <= 256; v += 224) {
            if (over_tasks(v, "load1", "isr"))
                verdict(worst <= imax, "cm3-isr-load1-ids" v,
                    sprintf("Cortex-M3, 1-load clock, %d IDs: interrupt enter and exit %d instructions (at 1, 32, 200 tasks: %s; budget <= %d)",
                        v, worst, list, imax))
            if (over_tasks(v, "load1", "isr-tick"))
                verdict(worst <= tmax, "cm3-tick-load1-ids" v,
                    sprintf("Cortex-M3, 1-load clock, %d IDs: SysTick handler hooks (enter, tick, exit) %d instructions (at 1, 32, 200 tasks: %s; budget <= %d)",
                        v, worst, list, tmax))
        }
        nr = split(readers, rd, "|")
        for (v = 32; v <= 256; v += 224) {
            for (i = 1; i <= nr; i++) {
                r = rd[i]; sub(/:.*/, "", r)
                what = rd[i]; sub(/^[^:]*:/, "", what)
                k = "stack.ids" v "." r
                if (!need(k)) continue
                # The budget is on the bytes written (painted); a stack pointer that
                # went deeper (reserved, not written) is said beside them.
                sp = ""
                if ((k ".sp") in f && f[k ".sp"] > f[k])
                    sp = sprintf(", its stack pointer going %d bytes down", f[k ".sp"])
                verdict(f[k] <= smax, "reader-stack-" r "-ids" v,
                    sprintf("Cortex-M3, %d IDs, %d tasks: %s writes %d bytes of its caller\047s stack%s (budget <= %d)",
                        v, v, what, f[k], sp, smax))
            }
        }
        k = "reader.ids256.n256.long.total"
        if (need(k))
            verdict(f[k] <= lmax, "reader-long-ids256",
                sprintf("Cortex-M3, 256 IDs, 256 tasks: a whole show_cpu_usage -l executes %d instructions (budget <= %d)",
                    f[k], lmax))
    }' "$figures")

if [ "$mode" = hot ]; then
    verdicts=$(grep -E '^(PASS|FAIL) (switch-overhead|worst-flat|cm3-)' <<<"$verdicts" || true)
    [ -n "$verdicts" ] || {
        echo "bench-check: no hot-path figures in $figures" >&2
        exit 1
    }
fi

if [ "$mode" = verdicts ]; then
    echo "$verdicts"
    grep -q '^FAIL' <<<"$verdicts" && exit 1
    exit 0
fi

status=0
while read -r result id text; do
    if [ "$result" = PASS ]; then
        echo "bench-check: met:    $text"
    else
        echo "bench-check: MISSED: $text"
        status=1
    fi
done <<<"$verdicts"

measured=$(awk '$1 == "source" { print $2 }' "$figures")
if [ "$measured" != "$(source_hash)" ]; then
    if [ "$mode" = hot ]; then
        echo "bench-check: $figures is stale: the sources changed since it was measured; run 'make bench' and commit it" >&2
        status=1
    else
        echo "bench-check: note: the sources changed since $figures was measured; 'make bench' refreshes it" >&2
    fi
fi

if [ $status -ne 0 ]; then
    echo "bench-check: a budget is missed (see BENCHMARKS.md); make the hot path cheaper, or take the budget up with the maintainers" >&2
fi
exit $status
