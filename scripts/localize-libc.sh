#!/usr/bin/env bash
# Keeps the C library's routines the firmware's own.
#
# Rust's bare-metal targets put compiler-builtins into every static library, and with
# it their own memcpy, memset, memmove, memcmp, strlen and __aeabi_mem* (weak). A
# firmware links the archive before its C library, so the linker would take those for
# the whole firmware instead of newlib's or picolibc's. This makes every routine that
# the toolchain's C library also defines local to the archive: the library's own
# calls then go to the firmware's C library, like everybody else's.
#
#   localize-libc.sh LIBRARY.a [GCC FLAGS...]
#
# The archive's ELF header picks the toolchain: Arm (newlib of arm-none-eabi-gcc;
# default flags -mcpu=cortex-m3 -mthumb) or RISC-V (Debian's picolibc for
# riscv64-unknown-elf-gcc, and llvm-objcopy; default flags -march=rv32imac -mabi=ilp32,
# which pick the multilib of riscv32imac-unknown-none-elf).
set -euo pipefail
lib=$1
shift
flags=("$@")

machine=$(readelf -h "$lib" 2>/dev/null | sed -n 's/^ *Machine: *//p' | head -n 1)
case "$machine" in
    ARM)
        tool=arm-none-eabi objcopy=arm-none-eabi-objcopy
        [ ${#flags[@]} -gt 0 ] || flags=(-mcpu=cortex-m3 -mthumb)
        libc=$(arm-none-eabi-gcc "${flags[@]}" -print-file-name=libc.a)
        [ -f "$libc" ] || { echo "localize-libc: no libc.a for ${flags[*]} (install libnewlib-arm-none-eabi)" >&2; exit 1; } ;;
    RISC-V)
        tool=riscv64-unknown-elf
        # GNU objcopy (binutils 2.40) refuses the ULEB128 relocations LLVM puts in
        # compiler-builtins' RISC-V objects; llvm-objcopy copies them as they are.
        objcopy=llvm-objcopy
        [ ${#flags[@]} -gt 0 ] || flags=(-march=rv32imac -mabi=ilp32)
        libc=/usr/lib/picolibc/riscv64-unknown-elf/lib/$(riscv64-unknown-elf-gcc "${flags[@]}" -print-multi-directory)/libc.a
        [ -f "$libc" ] || { echo "localize-libc: no $libc for ${flags[*]} (install picolibc-riscv64-unknown-elf)" >&2; exit 1; } ;;
    *)
        echo "localize-libc: $lib is neither an Arm nor a RISC-V archive (machine: '$machine')" >&2
        exit 1 ;;
esac

# Functions the archive defines for others to use (readelf: nm cannot read the members
# that carry LLVM bitcode), and those the C library defines.
ours=$("$tool-readelf" -sW "$lib" 2>/dev/null |
    awk '$4 == "FUNC" && $5 != "LOCAL" && $7 != "UND" { print $8 }' | sort -u)
theirs=$("$tool-nm" -g --defined-only "$libc" 2>/dev/null | awk 'NF == 3 { print $3 }' | sort -u)
both=$(comm -12 <(echo "$ours") <(echo "$theirs"))
[ -n "$both" ] || exit 0
args=()
for s in $both; do args+=("--localize-symbol=$s"); done
"$objcopy" "${args[@]}" "$lib"
