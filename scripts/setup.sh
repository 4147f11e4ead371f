#!/usr/bin/env bash
# Installs what building and testing need, if it is missing, and says clearly what it
# could not install. Called by `make run`, `make test` and `make qemu`; safe to re-run
# (it does nothing when everything is there).
#
#   Debian packages: gcc-arm-none-eabi libnewlib-arm-none-eabi  (Cortex-M build)
#                    qemu-system-arm                            (runs the Cortex-M demo)
#                    gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf
#                                                               (RISC-V build)
#                    qemu-system-misc                           (runs the RISC-V demo)
#                    llvm                                       (llvm-objcopy, for the
#                                                               RISC-V archive)
#                    libclang-dev                               (bindgen, for the tests)
#                    gcc make                                   (the POSIX simulator)
#                    valgrind                                   (make bench)
#                    fonts-dejavu-core                          (text in the viewer's PNG plots)
#                    tmux                                       (the viewer's terminal UI test)
#                    cmake pkgconf                              (the CMake examples, and
#                                                               make dist-check's pkg-config)
#   Rust targets:    thumbv7m-none-eabi (the QEMU demo, the benchmarks),
#                    thumbv6m-none-eabi, thumbv7em-none-eabihf, thumbv8m.main-none-eabihf
#                    (Cortex-M0, hard-float M4F/M7, M33: the library must build for them),
#                    riscv32imac-unknown-none-elf (the RISC-V demo),
#                    riscv32imc-unknown-none-elf (the library must build for it),
#                    thumbv7em-none-eabi, thumbv8m.base-none-eabi (make dist: soft-float
#                    M4/M7, M23); where rustup cannot install one of these two, the
#                    rust-src component instead, from which make dist builds its core
#
# Debian's qemu-system-arm replaces a newer qemu-utils if one is installed; that is
# expected.
set -euo pipefail

fail() {
    echo "setup: $*" >&2
    exit 1
}

command -v cargo >/dev/null 2>&1 || fail "cargo not found: install Rust with rustup (https://rustup.rs), then re-run"
command -v rustup >/dev/null 2>&1 || fail "rustup not found: the Cortex-M targets (thumbv7m-none-eabi and others) are added with rustup"

packages=(gcc make gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm libclang-dev valgrind
    fonts-dejavu-core tmux gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf qemu-system-misc llvm cmake pkgconf)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
    command -v apt-get >/dev/null 2>&1 ||
        fail "missing ${missing[*]} and no apt-get: install them with your package manager"
    sudo=()
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null 2>&1 ||
            fail "missing ${missing[*]}: run as root or install them: apt-get install --no-install-recommends ${missing[*]}"
        sudo=(sudo)
    fi
    echo "setup: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    "${sudo[@]}" apt-get update -q >/dev/null ||
        fail "apt-get update failed: check the network or the apt sources"
    "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" ||
        fail "apt-get install ${missing[*]} failed (see above)"
fi

for target in thumbv7m-none-eabi thumbv6m-none-eabi thumbv7em-none-eabihf thumbv8m.main-none-eabihf \
    riscv32imac-unknown-none-elf riscv32imc-unknown-none-elf; do
    if ! rustup target list --installed | grep -qx "$target"; then
        echo "setup: adding the Rust target $target"
        rustup target add "$target" || fail "rustup target add $target failed (see above)"
    fi
done
# make test's lints: clippy and rustfmt (in rustup's default profile, not in its minimal one).
for component in clippy rustfmt; do
    if ! rustup component list --installed | grep -q "^$component"; then
        echo "setup: adding the Rust component $component"
        rustup component add "$component" || fail "rustup component add $component failed (see above)"
    fi
done
# The archives of make dist alone. A mirror may lack a target's standard library:
# make dist then builds its `core` from the sources (dist/dist.mk), which rust-src has
# (and once it is there, setup does not ask the mirror again).
for target in thumbv7em-none-eabi thumbv8m.base-none-eabi; do
    rustup target list --installed | grep -qx "$target" && continue
    rustup component list --installed | grep -q '^rust-src' && continue
    echo "setup: adding the Rust target $target"
    if ! rustup target add "$target" 2>/tmp/setup-rustup.$$; then
        rustup component add rust-src ||
            { cat /tmp/setup-rustup.$$ >&2; fail "neither rustup target add $target nor rustup component add rust-src worked (see above)"; }
        echo "setup: $target's standard library cannot be installed: make dist builds its core from rust-src"
    fi
    rm -f /tmp/setup-rustup.$$
done
