//! The committed C headers are what users compile against. The API header is
//! generated from the sources in an explicit step (`make header`: cbindgen, in
//! `scripts/header-gen`), never by the library's build; the settings' header is what
//! the library's build script writes for the default settings (`settings::C_CONFIG_HEADER`),
//! copied by `make header`. So each committed file must equal what the sources make
//! now, or someone changed the API or a setting's default without running `make
//! header`; and each file in the work tree must be the committed one.
//!
//! Also: the header's ABI version macro, the library's `cpu_usage_abi_version()` and
//! Cargo.toml's version must agree, and so must the settings' macros and the
//! library's constants.

use std::process::Command;

use freertos_cpu_usage::ffi::cpu_usage_abi_version;
use freertos_cpu_usage::settings::{CORES, C_CONFIG_HEADER, MAX_TASKS, NAME_LEN, TRACE_EVENTS};
use freertos_cpu_usage_tests::{repo_root, run};

const HEADER: &str = "include/freertos_cpu_usage.h";
const CONFIG_HEADER: &str = "include/freertos_cpu_usage_config.h";

fn read(file: &str) -> String {
    let path = repo_root().join(file);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// The value of `#define NAME <value>` in `text`.
fn define<'a>(text: &'a str, name: &str) -> &'a str {
    text.lines()
        .find_map(|line| {
            let mut words = line.split_whitespace();
            (words.next() == Some("#define") && words.next() == Some(name)).then(|| words.next()).flatten()
        })
        .unwrap_or_else(|| panic!("no `#define {name}` in:\n{text}"))
}

fn parse_c_uint(text: &str) -> u32 {
    let parsed = match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => u32::from_str_radix(hex, 16),
        None => text.parse(),
    };
    parsed.unwrap_or_else(|e| panic!("{text:?} is not a C unsigned constant: {e}"))
}

/// The line number (from 1) of the first difference between two texts.
fn first_difference(a: &str, b: &str) -> usize {
    a.lines().zip(b.lines()).position(|(a, b)| a != b).unwrap_or_else(|| a.lines().count().min(b.lines().count())) + 1
}

/// Fails unless `file` in the work tree is `made` (what the sources make now: run
/// `make header` otherwise) and is committed as it is.
fn check_committed(file: &str, made: &str) {
    let current = read(file);
    if current != made {
        panic!(
            "{file} is stale: the sources make another one (first difference at line {}); \
             run `make header` and commit {file}",
            first_difference(&current, made)
        );
    }
    let mut git = Command::new("git");
    git.current_dir(repo_root()).args(["show", &format!("HEAD:{file}")]);
    let committed = match run(git, 60) {
        Ok(out) if out.status.success() => out.stdout,
        Ok(out) => panic!(
            "cannot compare {file} with the committed one: `git show HEAD:{file}` failed ({}): {}",
            out.status,
            out.stderr.trim()
        ),
        Err(e) => panic!("cannot compare {file} with the committed one: git is unavailable: {e}"),
    };
    if current != committed {
        panic!(
            "{file} differs from the committed one (first difference at line {}): commit it",
            first_difference(&current, &committed)
        );
    }
}

#[test]
fn committed_header_is_current() {
    let made = freertos_cpu_usage_header::generate(&repo_root()).unwrap_or_else(|e| panic!("{e}"));
    check_committed(HEADER, &made);
}

#[test]
fn committed_settings_header_is_the_default_builds() {
    check_committed(CONFIG_HEADER, C_CONFIG_HEADER);
}

#[test]
fn abi_version_matches_cargo_toml() {
    let header = read(HEADER);
    let (major, minor, patch) =
        freertos_cpu_usage_header::package_version(&repo_root()).unwrap_or_else(|e| panic!("{e}"));
    let packed = (major << 16) | (minor << 8) | patch;
    let in_header = parse_c_uint(define(&header, "CPU_USAGE_ABI_VERSION"));
    assert_eq!(
        in_header, packed,
        "CPU_USAGE_ABI_VERSION is {in_header:#08x} but Cargo.toml's {major}.{minor}.{patch} packs to {packed:#08x}"
    );
    assert_eq!(cpu_usage_abi_version(), packed, "cpu_usage_abi_version() disagrees with Cargo.toml");
}

#[test]
fn settings_macros_match_the_library() {
    let config = C_CONFIG_HEADER;
    assert_eq!(parse_c_uint(define(config, "CPU_USAGE_MAX_TASKS")) as usize, MAX_TASKS);
    assert_eq!(parse_c_uint(define(config, "CPU_USAGE_NAME_LEN")) as usize, NAME_LEN);
    assert_eq!(parse_c_uint(define(config, "CPU_USAGE_TRACE_EVENTS")) as usize, TRACE_EVENTS);
    assert_eq!(parse_c_uint(define(config, "CPU_USAGE_CORES")) as usize, CORES);
    assert!(read(HEADER).contains("#include \"freertos_cpu_usage_config.h\""), "{HEADER} includes no settings");
}
