#!/usr/bin/env bash
# What the library adds to a firmware image: the demo linked with it minus the same
# demo linked without it (freertos-port/mps2-an385/port.mk builds both), in bytes.
#
#   footprint.sh show  WITH.elf WITHOUT.elf           print the figures
#   footprint.sh check WITH.elf WITHOUT.elf FIGURES   fail if a figure grew more than
#                                                     10% over the committed FIGURES
#
# flash = text (code and constants) + data (initial values); ram = data + bss.
set -euo pipefail

size_of() { # prints "text data bss" of an ELF
    arm-none-eabi-size -B "$1" | awk 'NR == 2 { print $1, $2, $3 }'
}

figures() {
    read -r t1 d1 b1 < <(size_of "$1")
    read -r t0 d0 b0 < <(size_of "$2")
    local text=$((t1 - t0)) data=$((d1 - d0)) bss=$((b1 - b0))
    echo "flash $((text + data))"
    echo "ram $((data + bss))"
    echo "text $text"
    echo "data $data"
    echo "bss $bss"
}

case "${1:-}" in
show)
    figures "$2" "$3"
    ;;
check)
    status=0
    while read -r name now; do
        committed=$(awk -v n="$name" '$1 == n { print $2 }' "$4")
        [ -n "$committed" ] || { echo "footprint: '$name' is missing from $4" >&2; status=1; continue; }
        # More than 10% over the committed figure (and more than 16 bytes, so that a
        # section of a few bytes may move).
        if [ "$now" -gt $((committed + committed / 10 + 16)) ]; then
            echo "footprint: $name is $now bytes, committed $committed: more than 10% over." >&2
            echo "footprint: make it smaller, or run 'make size' and commit $4 with the reason." >&2
            status=1
        fi
    done < <(figures "$2" "$3")
    [ $status -eq 0 ] && echo "footprint: within 10% of $4"
    exit $status
    ;;
*)
    echo "usage: $0 show WITH.elf WITHOUT.elf | check WITH.elf WITHOUT.elf FIGURES" >&2
    exit 2
    ;;
esac
