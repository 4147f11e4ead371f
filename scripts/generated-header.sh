#!/usr/bin/env bash
# Builds the library with the cargo build options given and copies the C headers of
# that build into DIR, each only if it differs: the settings' header its build script
# wrote (build.rs writes it into the build's OUT_DIR/include, and nowhere else), and
# beside it the API and hooks headers it includes, so that DIR alone is the include
# directory of that build. The settings are the environment's (CPU_USAGE_MAX_TASKS,
# ...: build.rs). The build is CARGO_BUILD's (default `cargo build`; the makefiles
# give their C archive's, CARGO_ARCHIVE, so that one cargo run makes both the archive
# and its headers).
#
#   scripts/generated-header.sh DIR [cargo build options...]
#
# `make header`: DIR is include/, with the default settings: its
# freertos_cpu_usage_config.h is committed. Builds with other settings (the 256-ID
# bench library, the SMP boards') put theirs in directories of their own.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: $0 DIR [cargo build options...]" >&2; exit 2; }
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
if [ -z "$out_dir" ] || [ ! -f "$out_dir/include/freertos_cpu_usage_config.h" ]; then
    echo "generated-header: $CARGO_BUILD $* reported no OUT_DIR with include/freertos_cpu_usage_config.h" >&2
    exit 1
fi
mkdir -p "$dest"
for header in freertos_cpu_usage_config.h freertos_cpu_usage.h freertos_cpu_usage_hooks.h; do
    if cmp -s "$out_dir/include/$header" "$dest/$header"; then
        echo "$dest/$header is up to date"
    else
        cp "$out_dir/include/$header" "$dest/$header"
        echo "wrote $dest/$header"
    fi
done
