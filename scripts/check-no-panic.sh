#!/usr/bin/env bash
# Fails if the Cortex-M library has a reachable panic path.
#
# Links the archive alone, keeping every function the C headers declare (-u) and
# dropping everything they cannot reach (--gc-sections): if any panic machinery is
# left, some path from the C API can panic.
#
#   [GCC_ARCH="-mcpu=cortex-m0 -mthumb"] check-no-panic.sh LIBRARY.a OUT.elf HEADER.h...
#
# GCC_ARCH: the core the archive was built for (default -mcpu=cortex-m3 -mthumb), so
# that the C library and libgcc it links against are that core's.
#
# Give it the archive of the largest build (every feature) and both headers: the API
# header and the hooks header, which declares the traced hooks.
set -euo pipefail
lib=$1 out=$2
shift 2

exports=$(cat "$@" | grep -oE '\b(cpu_usage_[a-z_]+|show_cpu_usage)\(' | tr -d '(' | sort -u)
[ -n "$exports" ] || { echo "no-panic: no functions found in $*" >&2; exit 1; }
keep=()
for f in $exports; do keep+=("-Wl,-u,$f"); done

mkdir -p "$(dirname "$out")"
# (newlib after the archive: the archive leaves memcpy and its kin to the C library.)
read -r -a arch <<<"${GCC_ARCH:--mcpu=cortex-m3 -mthumb}"
arm-none-eabi-gcc "${arch[@]}" -nostdlib -nostartfiles -Wl,--gc-sections \
    -Wl,-e,0 -Wl,--no-warn-execstack "${keep[@]}" -o "$out" "$lib" -lc -lgcc

symbols=$(arm-none-eabi-nm -C "$out")
for f in $exports; do
    grep -q " T $f\$" <<<"$symbols" || { echo "no-panic: $f was not linked from $lib" >&2; exit 1; }
done
if found=$(grep -E 'core::panicking|rust_begin_unwind|panic_fmt|panic_bounds_check|unwrap_failed|expect_failed' <<<"$symbols"); then
    echo "no-panic: a path from the C API can panic; the panic code linked:" >&2
    echo "$found" >&2
    exit 1
fi
echo "no-panic: $(wc -w <<<"$exports") C API functions, no panic code reachable"
