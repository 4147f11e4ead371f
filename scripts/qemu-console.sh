#!/bin/sh
# Runs a QEMU board's interactive command (freertos-port/qemu.mk's QEMU_CMD) with the demo's
# console on this process's stdin and stdout, so that the run ends where the POSIX
# simulator's does: `make qemu` runs it (qemu.mk's QEMU_RUN).
#
#   qemu-console.sh QEMU-COMMAND [ARGUMENTS...]
#
# - On a terminal, QEMU runs as it is: it puts the terminal in raw mode (its keys
#   reach the demo's shell, Ctrl-C included: the board's console has signal=off), and
#   Ctrl-D (byte 0x04) on an empty line ends the run.
# - From a pipe or a file: the input, then byte 0x04. A serial line has no end of
#   file, and QEMU gives the guest none when its stdin ends: it goes on without input
#   for ever. The demo's console reads 0x04 as the end of input
#   (freertos-port/bare-metal/main.c), so the run ends once the input is used up, as the
#   simulator's does at end of file, with the demo's exit status.
set -eu

if [ -t 0 ]; then
    exec "$@"
fi

{ cat; printf '\004'; } | "$@"
