#!/usr/bin/env bash
# Runs every fuzz target (fuzz/fuzz_targets/) under libFuzzer with AddressSanitizer,
# one after the other, each for SECONDS (default 180, or $FUZZ_SECONDS), starting from
# the committed corpus, and says how many inputs each ran and whether it ran clean.
# Exits non-zero if any target found a failure; the input is in fuzz/artifacts/<target>/
# and the line to reproduce it is printed.
#
#   scripts/fuzz.sh [SECONDS]                    what `make fuzz` runs
#   FUZZ_TARGETS="api" scripts/fuzz.sh 600       some targets only
#   scripts/fuzz.sh --update-corpus [SECONDS]    run, then merge what was found into
#                                                fuzz/corpus/<target>/, minimised to
#                                                one input per code edge reached
#
# cargo-fuzz needs nightly compiler flags (sanitizers, coverage instrumentation); the
# stable toolchain accepts them with RUSTC_BOOTSTRAP=1, which is set for these builds
# only. New inputs found during a run go to fuzz/target/corpus/<target>/ (not
# committed); the committed corpus is only read, unless --update-corpus.
set -euo pipefail
cd "$(dirname "$0")/.."

fail() {
    echo "fuzz: $*" >&2
    exit 2
}

update=0
if [ "${1:-}" = "--update-corpus" ]; then
    update=1
    shift
fi
seconds=${1:-${FUZZ_SECONDS:-180}}
[[ "$seconds" =~ ^[1-9][0-9]*$ ]] || fail "SECONDS must be a whole number of seconds, not '$seconds'"
targets=(${FUZZ_TARGETS:-args format api})

# Longest input per target: 8 arguments of 64 bytes for the parser; a few tasks and an
# argv for the formatter; a few hundred API calls for the sequences.
max_len() {
    case "$1" in
        args) echo 1024 ;;
        format) echo 2048 ;;
        api) echo 4096 ;;
        *) echo 4096 ;;
    esac
}

command -v cargo >/dev/null 2>&1 || fail "cargo not found: install Rust with rustup (https://rustup.rs), then re-run"
if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "fuzz: installing cargo-fuzz (cargo install cargo-fuzz --locked)"
    cargo install cargo-fuzz --locked ||
        fail "could not install cargo-fuzz (see above): install it with 'cargo install cargo-fuzz' and re-run"
fi

export RUSTC_BOOTSTRAP=1
mkdir -p fuzz/target

echo "fuzz: building the targets (release, debug assertions, AddressSanitizer)"
cargo fuzz build --debug-assertions ||
    fail "the fuzz targets did not build (see above). cargo-fuzz needs a toolchain that ships the AddressSanitizer runtime (x86_64 or aarch64 Linux, macOS)"

summary=()
failed=0
for t in "${targets[@]}"; do
    [ -f "fuzz/fuzz_targets/$t.rs" ] || fail "no fuzz target '$t' (fuzz/fuzz_targets/$t.rs)"
    work="fuzz/target/corpus/$t"
    mkdir -p "$work" "fuzz/corpus/$t" "fuzz/artifacts/$t"
    log="fuzz/target/$t.log"
    echo "fuzz: $t for ${seconds}s (max_len $(max_len "$t")), log in $log"
    status=0
    # The first corpus directory receives new inputs; the committed one is read only.
    cargo fuzz run --debug-assertions "$t" "$work" "fuzz/corpus/$t" -- \
        -max_total_time="$seconds" -max_len="$(max_len "$t")" -timeout=20 \
        -print_final_stats=1 -artifact_prefix="fuzz/artifacts/$t/" >"$log" 2>&1 || status=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    # libFuzzer's last status line: "corp: <inputs>/<bytes>" (the corpus in use).
    corpus=$(grep -o 'corp: [0-9]*/[0-9]*[a-zA-Z]*' "$log" | tail -n 1 | cut -d' ' -f2)
    if [ "$status" -eq 0 ]; then
        result="clean"
    else
        failed=1
        artifact=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
        result="FAILED (exit $status)${artifact:+: reproduce with RUSTC_BOOTSTRAP=1 cargo fuzz run -a $t $artifact}"
        grep -E "panicked at|ERROR: (libFuzzer|AddressSanitizer)" "$log" | head -n 5 >&2 || true
    fi
    summary+=("$(printf '%-8s %6ss %12s runs  corpus %-12s %s' "$t" "$seconds" "${runs:-?}" "${corpus:-?}" "$result")")
    echo "fuzz: ${summary[-1]}"

    if [ "$update" -eq 1 ] && [ "$status" -eq 0 ]; then
        echo "fuzz: merging the new inputs of $t into fuzz/corpus/$t (minimised)"
        all="fuzz/target/corpus-all/$t"
        rm -rf "$all"
        mkdir -p "$all"
        cp "$work"/* "fuzz/corpus/$t"/* "$all"/ 2>/dev/null || true
        # One input per code edge reached (no hit-count variants): a small corpus.
        cargo fuzz cmin --debug-assertions "$t" "$all" -- -max_len="$(max_len "$t")" -use_counters=0 \
            >"fuzz/target/$t.cmin.log" 2>&1 ||
            fail "cargo fuzz cmin $t failed: see fuzz/target/$t.cmin.log"
        rm -f "fuzz/corpus/$t"/*
        cp "$all"/* "fuzz/corpus/$t"/
        echo "fuzz: fuzz/corpus/$t: $(find "fuzz/corpus/$t" -type f | wc -l) files, $(cat "fuzz/corpus/$t"/* | wc -c) bytes"
    fi
done

echo
echo "fuzz: target     time          runs  corpus       result"
echo "fuzz:                                     (inputs/size)"
printf 'fuzz: %s\n' "${summary[@]}"
exit "$failed"
