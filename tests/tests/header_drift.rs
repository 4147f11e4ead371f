//! The committed C header is what users compile against. The library's build script
//! generates the header into its `OUT_DIR` only (cbindgen, exposed as
//! `settings::C_HEADER`), and `make header` copies it to `include/`: so the committed
//! file must equal what the sources generate now, or someone changed the API without
//! running `make header`; and the file in the work tree must be the committed one.
//!
//! Also: the header's ABI version macro, the library's `cpu_usage_abi_version()` and
//! Cargo.toml's version must agree, and so must the capacity macros and the
//! library's constants.

use std::process::Command;

use freertos_cpu_usage::ffi::cpu_usage_abi_version;
use freertos_cpu_usage::settings::{C_HEADER, MAX_TASKS, NAME_LEN};
use freertos_cpu_usage_tests::{repo_root, run};

const HEADER: &str = "include/freertos_cpu_usage.h";

fn read_header() -> String {
    let path = repo_root().join(HEADER);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// The value of `#define NAME <value>` in `text`.
fn define<'a>(text: &'a str, name: &str) -> &'a str {
    text.lines()
        .find_map(|line| {
            let mut words = line.split_whitespace();
            (words.next() == Some("#define") && words.next() == Some(name)).then(|| words.next()).flatten()
        })
        .unwrap_or_else(|| panic!("{HEADER} has no `#define {name}`"))
}

fn parse_c_uint(text: &str) -> u32 {
    let parsed = match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => u32::from_str_radix(hex, 16),
        None => text.parse(),
    };
    parsed.unwrap_or_else(|e| panic!("{text:?} is not a C unsigned constant: {e}"))
}

/// `version = "x.y.z"` of the `[package]` section of the root Cargo.toml.
fn package_version() -> (u32, u32, u32) {
    let manifest = std::fs::read_to_string(repo_root().join("Cargo.toml")).expect("cannot read Cargo.toml");
    let mut in_package = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_package = line == "[package]";
        } else if in_package {
            if let Some(value) = line.strip_prefix("version").map(str::trim_start).and_then(|l| l.strip_prefix('=')) {
                let version = value.trim().trim_matches('"');
                let parts: Vec<u32> = version
                    .split('.')
                    .map(|p| p.parse().unwrap_or_else(|e| panic!("Cargo.toml version {version:?}: {e}")))
                    .collect();
                assert_eq!(parts.len(), 3, "Cargo.toml version {version:?} is not major.minor.patch");
                return (parts[0], parts[1], parts[2]);
            }
        }
    }
    panic!("Cargo.toml has no [package] version");
}

/// The line number (from 1) of the first difference between two texts.
fn first_difference(a: &str, b: &str) -> usize {
    a.lines().zip(b.lines()).position(|(a, b)| a != b).unwrap_or_else(|| a.lines().count().min(b.lines().count())) + 1
}

#[test]
fn committed_header_is_current() {
    let current = read_header();
    if current != C_HEADER {
        panic!(
            "{HEADER} is stale: the sources generate another header (first difference at line {}); \
             run `make header` and commit {HEADER}",
            first_difference(&current, C_HEADER)
        );
    }
    let mut git = Command::new("git");
    git.current_dir(repo_root()).args(["show", &format!("HEAD:{HEADER}")]);
    let committed = match run(git, 60) {
        Ok(out) if out.status.success() => out.stdout,
        Ok(out) => panic!(
            "cannot compare {HEADER} with the committed one: `git show HEAD:{HEADER}` failed ({}): {}",
            out.status,
            out.stderr.trim()
        ),
        Err(e) => panic!("cannot compare {HEADER} with the committed one: git is unavailable: {e}"),
    };
    if current != committed {
        panic!(
            "{HEADER} differs from the committed one (first difference at line {}): commit it",
            first_difference(&current, &committed)
        );
    }
}

#[test]
fn abi_version_matches_cargo_toml() {
    let header = read_header();
    let (major, minor, patch) = package_version();
    let packed = (major << 16) | (minor << 8) | patch;
    let in_header = parse_c_uint(define(&header, "CPU_USAGE_ABI_VERSION"));
    assert_eq!(
        in_header, packed,
        "CPU_USAGE_ABI_VERSION is {in_header:#08x} but Cargo.toml's {major}.{minor}.{patch} packs to {packed:#08x}"
    );
    assert_eq!(cpu_usage_abi_version(), packed, "cpu_usage_abi_version() disagrees with Cargo.toml");
}

#[test]
fn capacity_macros_match_the_library() {
    let header = read_header();
    assert_eq!(parse_c_uint(define(&header, "CPU_USAGE_MAX_TASKS")) as usize, MAX_TASKS);
    assert_eq!(parse_c_uint(define(&header, "CPU_USAGE_NAME_LEN")) as usize, NAME_LEN);
}
