//! Build-time configuration, and the headers a C build of this build takes.
//!
//! - `CPU_USAGE_MAX_TASKS` (default 32, 1..=1024): task slots, each with its own ID.
//! - `CPU_USAGE_NAME_LEN` (default 16, 4..=64): bytes kept of each task name.
//! - `CPU_USAGE_CORES` (default 1; 1, 2, 4 or 8): the cores of the FreeRTOS kernel the
//!   library is built for, its `configNUMBER_OF_CORES` (the hooks header checks that
//!   they agree). With more than one, `cfg(cpu_usage_smp)` adds the hooks an SMP
//!   kernel calls.
//! - `CPU_USAGE_TRACE_EVENTS` (default 1024, 16..=32768): events the optional event
//!   trace keeps (8 bytes each; linked only into firmware built with `CPU_USAGE_TRACE`).
//!   At most 32768, so that the 16 bits of a window number kept in a window marker
//!   always tell it apart from the others in the ring.
//!
//! They become Rust constants (`$OUT_DIR/config.rs`) and C macros
//! (`$OUT_DIR/include/freertos_cpu_usage_config.h`, which the API header includes),
//! so the C side and the library can never disagree about them. Beside that file go
//! the API header and the hooks header, from `include/`: the directory dependents'
//! build scripts find in `DEP_FREERTOS_CPU_USAGE_INCLUDE` (the `links` key), with
//! everything a C build of this build includes.
//!
//! This script writes nothing but `OUT_DIR`, and runs no code generator: the API
//! header is generated from the sources in an explicit step (`make header`,
//! `scripts/header-gen`) and committed; the committed
//! `include/freertos_cpu_usage_config.h` is this script's for the default settings
//! (also `make header`). A test fails when either is stale. Builds with other
//! settings take their own build's (scripts/generated-header.sh).
//!
//! `cfg(cpu_usage_basepri)` is set for the Arm cores that have BASEPRI (ARMv7-M and
//! ARMv8-M Mainline): there the critical section masks only up to the kernel's
//! priority (`src/arch/cortex_m.rs`). The Rust target name is the only place that
//! tells them apart from ARMv6-M and ARMv8-M Baseline, which share `target_arch`.

use std::env;
use std::fs;
use std::path::PathBuf;

fn setting(name: &str, default: u32, min: u32, max: u32) -> u32 {
    println!("cargo:rerun-if-env-changed={name}");
    let value = match env::var(name) {
        Ok(text) => text.trim().parse::<u32>().unwrap_or_else(|_| panic!("{name}={text:?} is not a whole number")),
        Err(_) => default,
    };
    if !(min..=max).contains(&value) {
        panic!("{name}={value} is out of range: it must be {min}..={max}");
    }
    value
}

fn main() {
    let max_tasks = setting("CPU_USAGE_MAX_TASKS", 32, 1, 1024);
    let name_len = setting("CPU_USAGE_NAME_LEN", 16, 4, 64);
    let trace_events = setting("CPU_USAGE_TRACE_EVENTS", 1024, 16, 32768);
    let cores = setting("CPU_USAGE_CORES", 1, 1, 8);
    if !cores.is_power_of_two() {
        panic!("CPU_USAGE_CORES={cores} is not 1, 2, 4 or 8");
    }
    println!("cargo:rustc-check-cfg=cfg(cpu_usage_smp)");
    if cores > 1 {
        println!("cargo:rustc-cfg=cpu_usage_smp");
    }
    basepri_cfg();

    let major: u32 = env!("CARGO_PKG_VERSION_MAJOR").parse().unwrap();
    let minor: u32 = env!("CARGO_PKG_VERSION_MINOR").parse().unwrap();
    let patch: u32 = env!("CARGO_PKG_VERSION_PATCH").parse().unwrap();
    let abi = (major << 16) | (minor << 8) | patch;

    let out = PathBuf::from(env::var("OUT_DIR").unwrap());
    fs::write(
        out.join("config.rs"),
        format!(
            "/// Task slots with their own ID (`CPU_USAGE_MAX_TASKS`).\n\
             pub const MAX_TASKS: usize = {max_tasks};\n\
             /// Bytes kept of each task name (`CPU_USAGE_NAME_LEN`).\n\
             pub const NAME_LEN: usize = {name_len};\n\
             /// Events the event trace keeps (`CPU_USAGE_TRACE_EVENTS`).\n\
             pub const TRACE_EVENTS: usize = {trace_events};\n\
             /// Cores of the kernel (`CPU_USAGE_CORES`).\n\
             pub const CORES: usize = {cores};\n\
             /// `(major << 16) | (minor << 8) | patch` of this crate.\n\
             pub const ABI_VERSION: u32 = {abi:#08x};\n"
        ),
    )
    .unwrap();

    write_headers(max_tasks, name_len, trace_events, cores);
}

/// Sets `cfg(cpu_usage_basepri)` when the target core has BASEPRI: thumbv7m, thumbv7em
/// (with or without hard float) and thumbv8m.main. Not thumbv6m nor thumbv8m.base,
/// where FreeRTOS's own ports mask with PRIMASK too.
fn basepri_cfg() {
    println!("cargo:rustc-check-cfg=cfg(cpu_usage_basepri)");
    let target = env::var("TARGET").unwrap_or_default();
    let arch = target.split('-').next().unwrap_or("");
    if matches!(arch, "thumbv7m" | "thumbv7em" | "thumbv8m.main") {
        println!("cargo:rustc-cfg=cpu_usage_basepri");
    }
}

/// Writes `$OUT_DIR/include/`: the settings' header, and copies of the API and hooks
/// headers beside it.
fn write_headers(max_tasks: u32, name_len: u32, trace_events: u32, cores: u32) {
    let crate_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let include = PathBuf::from(env::var("OUT_DIR").unwrap()).join("include");
    fs::create_dir_all(&include).unwrap_or_else(|e| panic!("cannot create {}: {e}", include.display()));
    // (The SMP hooks are declared only in a build for several cores.)
    let smp = if cores > 1 {
        "\n/* The hooks of an SMP kernel are declared. */\n#define CPU_USAGE_SMP_HOOKS 1\n"
    } else {
        ""
    };
    let config = format!(
        "/*\n * freertos_cpu_usage_config.h - the settings freertos-cpu-usage was built with.\n *\n \
         * WRITTEN by the library's build (build.rs) for each build: do not edit. Take the\n \
         * one of the build you link; freertos_cpu_usage.h includes it.\n */\n\n\
         #ifndef FREERTOS_CPU_USAGE_CONFIG_H\n\
         #define FREERTOS_CPU_USAGE_CONFIG_H\n\n\
         #define CPU_USAGE_MAX_TASKS {max_tasks}\n\
         #define CPU_USAGE_NAME_LEN {name_len}\n\
         #define CPU_USAGE_NAME_BUF (CPU_USAGE_NAME_LEN + 1)\n\
         #define CPU_USAGE_TRACE_EVENTS {trace_events}\n\
         #define CPU_USAGE_CORES {cores}\n{smp}\n\
         #endif /* FREERTOS_CPU_USAGE_CONFIG_H */\n"
    );
    let path = include.join("freertos_cpu_usage_config.h");
    fs::write(&path, config).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
    for header in ["freertos_cpu_usage.h", "freertos_cpu_usage_hooks.h"] {
        println!("cargo:rerun-if-changed=include/{header}");
        fs::copy(crate_dir.join("include").join(header), include.join(header))
            .unwrap_or_else(|e| panic!("cannot copy include/{header}: {e}"));
    }
    println!("cargo:include={}", include.display());
}
