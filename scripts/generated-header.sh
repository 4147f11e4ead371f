#!/usr/bin/env bash
# Builds the library with the cargo build options given and copies the C header its
# build script generated (build.rs writes it into the build's OUT_DIR/include, and
# nowhere else) to DEST, if DEST differs. The settings are the environment's
# (CPU_USAGE_MAX_TASKS, ...: build.rs). The build is CARGO_BUILD's (default
# `cargo build`; the makefiles give their C archive's, CARGO_ARCHIVE, so that one
# cargo run makes both the archive and its header).
#
#   scripts/generated-header.sh DEST [cargo build options...]
#
# `make header`: DEST is include/freertos_cpu_usage.h, the committed header, with the
# default settings. Builds with other settings (the 256-ID bench library) put theirs
# aside the same way.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: $0 DEST [cargo build options...]" >&2; exit 2; }
dest=$1
shift
CARGO_BUILD=${CARGO_BUILD:-cargo build}

# Cargo reports each build script's OUT_DIR in its JSON messages, also for a build
# script that did not need to run again. Our package's id ends in
# "#freertos-cpu-usage@<version>" (or starts "freertos-cpu-usage <version>" with older
# cargo); the test harness package's name only starts the same.
out_dir=$($CARGO_BUILD --message-format=json-render-diagnostics "$@" |
    grep '"reason":"build-script-executed"' |
    grep -E '"package_id":"([^"]*#freertos-cpu-usage@|freertos-cpu-usage [0-9])' |
    sed -n 's/.*"out_dir":"\([^"]*\)".*/\1/p' | tail -n 1)
header=$out_dir/include/freertos_cpu_usage.h
if [ -z "$out_dir" ] || [ ! -f "$header" ]; then
    echo "generated-header: $CARGO_BUILD $* reported no OUT_DIR with include/freertos_cpu_usage.h" >&2
    exit 1
fi
mkdir -p "$(dirname "$dest")"
if cmp -s "$header" "$dest"; then
    echo "$dest is up to date"
else
    cp "$header" "$dest"
    echo "wrote $dest"
fi
