#!/usr/bin/env bash
# What the library costs a Cortex-M3 firmware, in bytes (thumbv7m-none-eabi, release
# profile, --gc-sections).
#
#   footprint.sh show  WITH.elf WITHOUT.elf           print every figure
#   footprint.sh check WITH.elf WITHOUT.elf FIGURES   fail if a figure grew more than
#                                                     10% over the committed FIGURES
#
# Two kinds of figure:
# - <build>.flash, <build>.ram: each build of the library (minimal:
#   --no-default-features; default; trace: --features trace) with every C API
#   function it exports linked into an otherwise empty image, next to newlib's C
#   library (so that the figures hold only what the library adds, and show it if the
#   archive brought its own memcpy or memset). 32 task IDs, 16-byte names.
#   <build>.ram_per_id: what one more task ID costs in RAM (from a 64-ID build).
# - flash, ram, text, data, bss: what the library adds to the mps2-an385 demo
#   (WITH.elf minus WITHOUT.elf, the same demo linked without it).
# flash = text (code and constants) + data (initial values); ram = data + bss.
set -euo pipefail
cd "$(dirname "$0")/.."

# The C archive's build (the makefiles' CARGO_ARCHIVE, freertos-port/qemu.mk).
CARGO_ARCHIVE=${CARGO_ARCHIVE:-cargo rustc --lib --crate-type staticlib --features panic-handler,critical-section-impl}
TARGET=thumbv7m-none-eabi
OUT=build/size
# The builds, and the cargo options that make each.
BUILDS=(minimal default trace)
declare -A FEATURES=([minimal]=--no-default-features [default]= [trace]="--features trace")
# Budgets (issue 12) at 32 IDs, in bytes: reported, never loosened.
declare -A BUDGET=([minimal.flash]=4096 [minimal.ram]=2048 [default.flash]=12288 [default.ram]=2560)

size_of() { # prints "text data bss" of an ELF
    arm-none-eabi-size -B "$1" | awk 'NR == 2 { print $1, $2, $3 }'
}

# The archive of build $1 with $2 task IDs; prints its path.
archive() {
    local dir=target/size/$1-ids$2
    # shellcheck disable=SC2086 # FEATURES holds separate words
    CPU_USAGE_MAX_TASKS=$2 $CARGO_ARCHIVE -q --release --target $TARGET ${FEATURES[$1]} --target-dir "$dir" >&2
    scripts/localize-libc.sh "$dir/$TARGET/release/libfreertos_cpu_usage.a"
    echo "$dir/$TARGET/release/libfreertos_cpu_usage.a"
}

# Links every C API function the archive $1 exports into an empty image $2 and
# prints "flash ram".
empty_image() {
    local lib=$1 elf=$2 keep=()
    # (readelf: nm cannot read the members that carry LLVM bitcode.)
    for f in $(arm-none-eabi-readelf -sW "$lib" 2>/dev/null |
        awk '$4 == "FUNC" && $5 == "GLOBAL" && $7 != "UND" && ($8 ~ /^cpu_usage_/ || $8 == "show_cpu_usage") { print $8 }' |
        sort -u); do
        keep+=("-Wl,-u,$f")
    done
    [ ${#keep[@]} -gt 0 ] || { echo "footprint: no C API function in $lib" >&2; exit 1; }
    mkdir -p "$(dirname "$elf")"
    arm-none-eabi-gcc -mcpu=cortex-m3 -mthumb -nostartfiles -Wl,--gc-sections -Wl,-e,0 -Wl,--no-warn-execstack \
        "${keep[@]}" -o "$elf" "$lib" -lc -lgcc
    read -r t d b < <(size_of "$elf")
    echo "$((t + d)) $((d + b))"
}

builds() {
    local b flash ram ram64
    for b in "${BUILDS[@]}"; do
        read -r flash ram < <(empty_image "$(archive "$b" 32)" "$OUT/$b-ids32.elf")
        echo "$b.flash $flash"
        echo "$b.ram $ram"
        if [ "$b" != trace ]; then
            read -r _ ram64 < <(empty_image "$(archive "$b" 64)" "$OUT/$b-ids64.elf")
            echo "$b.ram_per_id $(((ram64 - ram) / 32))"
        fi
    done
}

demo() {
    read -r t1 d1 b1 < <(size_of "$1")
    read -r t0 d0 b0 < <(size_of "$2")
    local text=$((t1 - t0)) data=$((d1 - d0)) bss=$((b1 - b0))
    echo "flash $((text + data))"
    echo "ram $((data + bss))"
    echo "text $text"
    echo "data $data"
    echo "bss $bss"
}

figures() {
    builds
    demo "$1" "$2"
}

# Prints the budgets' verdicts on the figures in file $1.
verdicts() {
    local key now
    for key in "${!BUDGET[@]}"; do
        now=$(awk -v k="$key" '$1 == k { print $2 }' "$1")
        if [ "$now" -le "${BUDGET[$key]}" ]; then
            echo "footprint: budget $key <= ${BUDGET[$key]}: $now, met"
        else
            echo "footprint: budget $key <= ${BUDGET[$key]}: $now, MISSED"
        fi
    done | sort
}

case "${1:-}" in
show)
    figures "$2" "$3"
    ;;
check)
    now=$(mktemp)
    trap 'rm -f "$now"' EXIT
    figures "$2" "$3" >"$now"
    status=0
    while read -r name value; do
        committed=$(awk -v n="$name" '$1 == n { print $2 }' "$4")
        [ -n "$committed" ] || { echo "footprint: '$name' is missing from $4: run 'make size'" >&2; status=1; continue; }
        # More than 10% over the committed figure (and more than 16 bytes, so that a
        # section of a few bytes may move).
        if [ "$value" -gt $((committed + committed / 10 + 16)) ]; then
            echo "footprint: $name is $value bytes, committed $committed: more than 10% over." >&2
            echo "footprint: make it smaller, or run 'make size' and commit $4 with the reason." >&2
            status=1
        fi
    done <"$now"
    verdicts "$now"
    [ $status -eq 0 ] && echo "footprint: within 10% of $4"
    exit $status
    ;;
verdicts)
    verdicts "$2"
    ;;
*)
    echo "usage: $0 show WITH.elf WITHOUT.elf | check WITH.elf WITHOUT.elf FIGURES | verdicts FIGURES" >&2
    exit 2
    ;;
esac
