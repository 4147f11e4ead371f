#!/usr/bin/env bash
# Fails if a bare-metal build of the library has a reachable panic path.
#
# Links the archive alone, keeping every function the C headers declare (-u) and
# dropping everything they cannot reach (--gc-sections): if any panic machinery is
# left, some path from the C API can panic.
#
#   [GCC_ARCH="-mcpu=cortex-m0 -mthumb"] check-no-panic.sh LIBRARY.a OUT.elf HEADER.h...
#
# GCC_ARCH: the core the archive was built for, so that the C library and libgcc it
# links against are that core's (default: -mcpu=cortex-m3 -mthumb for an Arm archive,
# -march=rv32imac -mabi=ilp32 --specs=picolibc.specs for a RISC-V one).
#
# Give it the archive of the largest build (every feature) and both headers: the API
# header and the hooks header, which declares the traced hooks. The archive's own ELF
# header says which toolchain links it: Arm (a Cortex-M build, with newlib) or RISC-V
# (an RV32 build, with picolibc), whose declarations under `#if defined(__riscv)` count
# only for it.
set -euo pipefail
lib=$1 out=$2
shift 2
# The API header includes the build's settings (freertos_cpu_usage_config.h) from its
# own directory: they are read with it.
for header in "$@"; do
    config=$(dirname "$header")/freertos_cpu_usage_config.h
    if [ -f "$config" ] && ! printf '%s\n' "$@" | grep -qxF "$config"; then
        set -- "$@" "$config"
    fi
done

# (awk reads all of readelf's output: an early exit would fail the pipe.)
machine=$(readelf -h "$lib" 2>/dev/null | awk '/^ *Machine:/ && m == "" { sub(/^ *Machine: */, ""); m = $0 } END { print m }')
case "$machine" in
    ARM)
        read -r -a arch <<<"${GCC_ARCH:--mcpu=cortex-m3 -mthumb}"
        cc=(arm-none-eabi-gcc "${arch[@]}") nm=arm-none-eabi-nm libc=(-lc -lgcc)
        headers=$(cat "$@" | sed '/^#if defined(__riscv)$/,/^#endif$/d') ;;
    RISC-V)
        # The multilib of riscv32imac-unknown-none-elf (GCC 12 picks none for
        # rv32imac_zicsr) and picolibc, its C library.
        read -r -a arch <<<"${GCC_ARCH:--march=rv32imac -mabi=ilp32 --specs=picolibc.specs}"
        cc=(riscv64-unknown-elf-gcc "${arch[@]}") nm=riscv64-unknown-elf-nm libc=(-lc -lgcc)
        headers=$(cat "$@") ;;
    *)
        echo "no-panic: $lib is neither an Arm nor a RISC-V archive (machine: '$machine')" >&2
        exit 1 ;;
esac

# (The SMP hooks and cpu_usage_snapshot_cores are declared, and the hooks called by
# the hooks header, only for a build for several cores: without its define, none of
# them.)
# (The event trace, its command and the traced hooks, is for one core.)
if ! grep -q '^#define CPU_USAGE_SMP_HOOKS' <<<"$headers"; then
    headers=$(sed '/^#if defined(CPU_USAGE_SMP_HOOKS)$/,/^#endif$/d' <<<"$headers" | grep -v 'cpu_usage_hook_smp_')
else
    headers=$(grep -vE '_traced|cpu_usage_trace\(' <<<"$headers")
fi
exports=$(grep -oE '\b(cpu_usage_[a-z_]+|show_cpu_usage)\(' <<<"$headers" | tr -d '(' | sort -u)
[ -n "$exports" ] || { echo "no-panic: no functions found in $*" >&2; exit 1; }
keep=()
for f in $exports; do keep+=("-Wl,-u,$f"); done

mkdir -p "$(dirname "$out")"
# A build for several cores takes the kernel's ISR lock in its critical section: two
# stand-ins for the kernel's functions, so that the link has the library alone.
kernel=()
if grep -q '^#define CPU_USAGE_SMP_HOOKS' <<<"$headers"; then
    printf '%s\n' 'unsigned long vTaskEnterCriticalFromISR(void) { return 0; }' \
        'void vTaskExitCriticalFromISR(unsigned long saved) { (void)saved; }' >"$out.kernel.c"
    "${cc[@]}" -c "$out.kernel.c" -o "$out.kernel.o"
    kernel=("$out.kernel.o")
fi
# (The C library after the archive: the archive leaves memcpy and its kin to it.)
"${cc[@]}" -nostdlib -nostartfiles -Wl,--gc-sections \
    -Wl,-e,0 -Wl,--no-warn-execstack "${keep[@]}" -o "$out" "$lib" "${kernel[@]}" "${libc[@]}"

symbols=$("$nm" -C "$out")
for f in $exports; do
    # (T: a function; D: cpu_usage_clock_read, the clock the hooks header calls through.)
    grep -qE " [TD] $f\$" <<<"$symbols" || { echo "no-panic: $f was not linked from $lib" >&2; exit 1; }
done
if found=$(grep -E 'core::panicking|rust_begin_unwind|panic_fmt|panic_bounds_check|unwrap_failed|expect_failed' <<<"$symbols"); then
    echo "no-panic: a path from the C API can panic; the panic code linked:" >&2
    echo "$found" >&2
    exit 1
fi
echo "no-panic: $(wc -w <<<"$exports") C API symbols, no panic code reachable ($machine)"
