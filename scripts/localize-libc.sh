#!/usr/bin/env bash
# Keeps the C library's routines, and the compiler's runtime, the firmware's own.
#
# Rust's bare-metal targets put compiler-builtins into every static library, and with
# it their own memcpy, memset, memmove, memcmp, strlen and __aeabi_mem* (weak), and
# their own copy of the compiler runtime (libgcc's __aeabi_uidiv, __aeabi_lmul,
# __clzsi2, ...). A firmware links the archive before its C library and libgcc, so the
# linker would take those for the whole firmware instead of newlib's or picolibc's and
# libgcc's: on a Cortex-M0, which has no divide or CLZ instruction, every division in
# the kernel and the application would go to Rust's routines. This makes every routine
# that the toolchain's C library or libgcc also defines local to the archive: the
# library's own calls then go to the firmware's, like everybody else's.
#
#   localize-libc.sh LIBRARY.a [GCC FLAGS...]   (default flags: -mcpu=cortex-m3 -mthumb)
#   localize-libc.sh --check LIBRARY.a [GCC FLAGS...]
#                                    changes nothing: fails, naming them, if the archive
#                                    still offers any of those routines (make dist-check)
#
# LOCALIZE_CC names the firmware's C compiler (default arm-none-eabi-gcc); its binutils
# are the ones with the same prefix (riscv64-unknown-elf-gcc: riscv64-unknown-elf-nm...).
# LOCALIZE_CACHE (optional): a directory where the C library's list of routines is kept
# between runs (make dist localizes 26 archives against 8 C libraries).
# The C library is the one the flags select: newlib's libc.a where GCC finds it itself,
# or picolibc's (--specs=picolibc.specs), which only the link command knows.
#
# A RISC-V archive is rewritten with llvm-objcopy: GNU objcopy (binutils 2.40) refuses
# the ULEB128 relocations LLVM puts in compiler-builtins' RISC-V objects, which
# llvm-objcopy copies as they are.
set -euo pipefail
check=no
if [ "${1:-}" = --check ]; then
    check=yes
    shift
fi
lib=$1
shift
flags=("$@")
# (A missing archive would read as one that offers nothing: say so instead.)
[ -f "$lib" ] || { echo "localize-libc: no archive $lib" >&2; exit 1; }
[ ${#flags[@]} -gt 0 ] || flags=(-mcpu=cortex-m3 -mthumb)

cc=${LOCALIZE_CC:-arm-none-eabi-gcc}
tools=${cc%gcc}
libc=$("$cc" "${flags[@]}" -print-file-name=libc.a)
if [ ! -f "$libc" ]; then
    # The libc.a a link with these flags opens (picolibc's is on the command line the
    # specs file adds): an empty link traced.
    libc=$("$cc" "${flags[@]}" -nostartfiles -Wl,-e,0 -Wl,--trace -o /dev/null -x c /dev/null -lc 2>/dev/null |
        grep -m 1 '/libc\.a$' || true)
fi
[ -f "$libc" ] || { echo "localize-libc: no libc.a for $cc ${flags[*]} (install its C library, e.g. libnewlib-arm-none-eabi)" >&2; exit 1; }
libgcc=$("$cc" "${flags[@]}" -print-libgcc-file-name)
[ -f "$libgcc" ] || { echo "localize-libc: no libgcc.a for $cc ${flags[*]}" >&2; exit 1; }

# (awk reads all of readelf's output: an early exit would fail the pipe.)
machine=$(readelf -h "$lib" 2>/dev/null | awk '/^ *Machine:/ && m == "" { sub(/^ *Machine: */, ""); m = $0 } END { print m }')
objcopy=${tools}objcopy
[ "$machine" != "RISC-V" ] || objcopy=llvm-objcopy

# Functions the archive defines for others to use (readelf: nm cannot read the members
# that carry LLVM bitcode), and those the C library and libgcc define.
ours=$("${tools}readelf" -sW "$lib" 2>/dev/null |
    awk '$4 == "FUNC" && $5 != "LOCAL" && $7 != "UND" { print $8 }' | sort -u)
# (Reading the C library is most of the time this takes: with LOCALIZE_CACHE set to a
# directory, the list is kept there per C library and libgcc, for the next archive.)
their_routines() {
    "${tools}nm" -g --defined-only "$libc" "$libgcc" 2>/dev/null | awk 'NF == 3 { print $3 }' | sort -u
}
if [ -n "${LOCALIZE_CACHE:-}" ]; then
    kept=$LOCALIZE_CACHE/$(echo "$libc $libgcc" | sha256sum | cut -c1-16)
    if [ ! -f "$kept" ] || [ "$libc" -nt "$kept" ] || [ "$libgcc" -nt "$kept" ]; then
        mkdir -p "$LOCALIZE_CACHE"
        their_routines > "$kept.$$" && mv "$kept.$$" "$kept"
    fi
    theirs=$(cat "$kept")
else
    theirs=$(their_routines)
fi
both=$(comm -12 <(echo "$ours") <(echo "$theirs"))
[ -n "$both" ] || exit 0
if [ $check = yes ]; then
    echo "localize-libc: $lib offers routines the C library or libgcc has (run localize-libc.sh on it):" $both >&2
    exit 1
fi
args=()
for s in $both; do args+=("--localize-symbol=$s"); done
"$objcopy" "${args[@]}" "$lib"
