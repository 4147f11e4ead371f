//! Build-time configuration and the C header.
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
//! They become Rust constants (`$OUT_DIR/config.rs`) and are echoed into the C header
//! cbindgen generates, `$OUT_DIR/include/freertos_cpu_usage.h`, together with the ABI version
//! taken from Cargo.toml, so the C side and the library can never disagree about them.
//!
//! This script writes nothing but `OUT_DIR`. The committed
//! `include/freertos_cpu_usage.h` is that header for the default settings, copied by
//! `make header` (scripts/generated-header.sh); a test fails when it is stale. Builds
//! with other settings take their own build's header the same way.
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

    write_header(max_tasks, name_len, trace_events, cores, abi);
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

/// Generates the C header into `$OUT_DIR/include/freertos_cpu_usage.h`, beside a copy
/// of the hooks header.
fn write_header(max_tasks: u32, name_len: u32, trace_events: u32, cores: u32, abi: u32) {
    let crate_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    println!("cargo:rerun-if-changed=cbindgen.toml");
    println!("cargo:rerun-if-changed=src");

    let mut config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml")).expect("cbindgen.toml is unreadable");
    // (The SMP hooks are declared only in a build for several cores.)
    let smp = if cores > 1 { "#define CPU_USAGE_SMP_HOOKS 1\n" } else { "" };
    let defines = format!(
        "\n#define CPU_USAGE_ABI_VERSION {abi:#08x}\n\
         #define CPU_USAGE_MAX_TASKS {max_tasks}\n\
         #define CPU_USAGE_NAME_LEN {name_len}\n\
         #define CPU_USAGE_NAME_BUF (CPU_USAGE_NAME_LEN + 1)\n\
         #define CPU_USAGE_TRACE_EVENTS {trace_events}\n\
         #define CPU_USAGE_CORES {cores}\n{smp}"
    );
    config.after_includes = Some(config.after_includes.unwrap_or_default() + &defines);

    let bindings = cbindgen::Builder::new()
        .with_crate(&crate_dir)
        .with_config(config)
        .generate()
        .expect("cbindgen could not generate the C header");
    let mut text = Vec::new();
    bindings.write(&mut text);

    // Both headers of this build, in one directory that dependents' build scripts
    // find in DEP_FREERTOS_CPU_USAGE_INCLUDE (the `links` key).
    let include = PathBuf::from(env::var("OUT_DIR").unwrap()).join("include");
    fs::create_dir_all(&include).unwrap_or_else(|e| panic!("cannot create {}: {e}", include.display()));
    let path = include.join("freertos_cpu_usage.h");
    fs::write(&path, text).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
    let hooks = "freertos_cpu_usage_hooks.h";
    println!("cargo:rerun-if-changed=include/{hooks}");
    fs::copy(crate_dir.join("include").join(hooks), include.join(hooks))
        .unwrap_or_else(|e| panic!("cannot copy include/{hooks}: {e}"));
    println!("cargo:include={}", include.display());
}
