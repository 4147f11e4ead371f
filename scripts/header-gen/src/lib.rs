//! The C API header, `include/freertos_cpu_usage.h`, from the library's Rust sources
//! (cbindgen, configured by `cbindgen.toml`). `make header` runs this tool's binary
//! and commits what it writes; `tests/tests/header_drift.rs` fails when the committed
//! header is not what the sources generate. The library's own build never runs
//! cbindgen: a firmware build needs no code generator.
//!
//! The header is the same for every build of the library. What a build's settings
//! change (`CPU_USAGE_MAX_TASKS`, `CPU_USAGE_CORES`, ...) is in
//! `freertos_cpu_usage_config.h`, which the library's build script writes and the
//! header includes.

use std::fs;
use std::path::{Path, PathBuf};

/// The repository: the library's crate directory.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The header, generated from the library's sources in `crate_dir`.
pub fn generate(crate_dir: &Path) -> Result<String, String> {
    let mut config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml"))
        .map_err(|e| format!("cbindgen.toml is unreadable: {e}"))?;
    let (major, minor, patch) = package_version(crate_dir)?;
    let abi = (major << 16) | (minor << 8) | patch;
    config.after_includes = Some(format!(
        "{}\n#define CPU_USAGE_ABI_VERSION {abi:#08x}\n\n\
         /* The settings the library was built with: its build writes this file. */\n\
         #include \"freertos_cpu_usage_config.h\"\n",
        config.after_includes.unwrap_or_default()
    ));
    let bindings = cbindgen::Builder::new()
        .with_crate(crate_dir)
        .with_config(config)
        .generate()
        .map_err(|e| format!("cbindgen could not generate the header: {e}"))?;
    let mut text = Vec::new();
    bindings.write(&mut text);
    String::from_utf8(text).map_err(|e| format!("the header is not UTF-8: {e}"))
}

/// `version = "x.y.z"` of the `[package]` section of `crate_dir`'s Cargo.toml.
pub fn package_version(crate_dir: &Path) -> Result<(u32, u32, u32), String> {
    let manifest =
        fs::read_to_string(crate_dir.join("Cargo.toml")).map_err(|e| format!("cannot read Cargo.toml: {e}"))?;
    let mut in_package = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_package = line == "[package]";
        } else if let Some(value) = in_package.then(|| line.strip_prefix("version")).flatten() {
            let Some(version) = value.trim_start().strip_prefix('=').map(|v| v.trim().trim_matches('"')) else {
                continue;
            };
            let parts: Vec<u32> = version
                .split('.')
                .map(|p| p.parse().map_err(|e| format!("Cargo.toml version {version:?}: {e}")))
                .collect::<Result<_, _>>()?;
            return match parts[..] {
                [major, minor, patch] => Ok((major, minor, patch)),
                _ => Err(format!("Cargo.toml version {version:?} is not major.minor.patch")),
            };
        }
    }
    Err("Cargo.toml has no [package] version".into())
}
