//! The C API used wrongly from C, under AddressSanitizer and UBSan: `tests/c/api_misuse.c`
//! (its header comment lists what it does).
//!
//! The program is linked against the product archive, the one users link, built here
//! with `cargo build --release -p freertos-cpu-usage --features trace` so the test
//! does not depend on an earlier make step (after `make lib`, which builds the same,
//! that build is a no-op), and against the FreeRTOS POSIX port this crate's build
//! script compiled, for the critical section.
//! The test passes when the program exits 0 after printing `N passed, 0 failed`.

use std::path::PathBuf;
use std::process::Command;

use freertos_cpu_usage_tests::{repo_root, run};
use serde_json::Value;

/// The product `libfreertos_cpu_usage.a`, built (or found up to date) by cargo.
fn product_archive() -> PathBuf {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(cargo);
    // As the makefiles build the C archive (freertos-port/qemu.mk, CARGO_ARCHIVE).
    cmd.current_dir(repo_root()).args([
        "rustc",
        "--release",
        "-p",
        "freertos-cpu-usage",
        "--lib",
        "--crate-type",
        "staticlib",
        // Every function: the kernel here is built with the traced hooks.
        "--features",
        "panic-handler,critical-section-impl,trace",
        "--message-format=json-render-diagnostics",
    ]);
    // A cold release build (LTO) takes a minute or two on 2 cores.
    let out = run(cmd, 900).unwrap_or_else(|e| panic!("cannot build the library: {e}"));
    assert!(
        out.status.success(),
        "cargo rustc --release -p freertos-cpu-usage (the C archive) failed ({}):\n{}",
        out.status,
        out.stderr
    );
    out.stdout
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == "freertos_cpu_usage")
        .flat_map(|m| m["filenames"].as_array().cloned().unwrap_or_default())
        .filter_map(|f| f.as_str().map(PathBuf::from))
        .find(|f| f.extension().is_some_and(|e| e == "a"))
        .unwrap_or_else(|| panic!("cargo reported no .a for freertos_cpu_usage:\n{}", out.stdout))
}

#[test]
fn c_api_misuse_under_sanitizers() {
    let archive = product_archive();
    let exe = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("api_misuse");
    let source = repo_root().join("tests/c/api_misuse.c");

    let cc = std::env::var_os("CC").unwrap_or_else(|| "cc".into());
    let mut compile = Command::new(cc);
    compile
        .args(["-std=c11", "-g", "-O1", "-fno-omit-frame-pointer"])
        .args(["-Wall", "-Wextra", "-Werror"])
        .args(["-fsanitize=address,undefined", "-fno-sanitize-recover=all"])
        .arg("-I")
        .arg(repo_root().join("include"))
        .arg(&source)
        // The library calls the port's critical section and the port's kernel calls the
        // library's hooks: resolve them in either order.
        .arg("-Wl,--start-group")
        .arg(&archive)
        .arg(env!("CU_KERNEL_POSIX_LIB"))
        .arg("-Wl,--end-group")
        .args(["-lpthread", "-lrt", "-ldl", "-lm"])
        .arg("-o")
        .arg(&exe);
    let built = run(compile, 120).unwrap_or_else(|e| panic!("cannot compile {}: {e}", source.display()));
    assert!(built.status.success(), "compiling {} failed ({}):\n{}", source.display(), built.status, built.stderr);

    let mut program = Command::new(&exe);
    program
        .env("ASAN_OPTIONS", "abort_on_error=1:halt_on_error=1:detect_leaks=1")
        .env("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1");
    let out = run(program, 60).unwrap_or_else(|e| panic!("api_misuse did not finish: {e}"));
    let summary = out.stdout.lines().find(|l| l.ends_with(" failed") && l.contains(" passed, "));
    println!("{}", out.stdout);
    let passed: u32 =
        summary.and_then(|l| l.split(" passed, ").next()).and_then(|n| n.trim().parse().ok()).unwrap_or(0);
    assert!(
        out.status.success() && passed > 0 && summary.is_some_and(|l| l.ends_with(" 0 failed")),
        "api_misuse failed ({}), its summary: {summary:?}\n--- stdout ---\n{}\n--- stderr ---\n{}",
        out.status,
        out.stdout,
        out.stderr
    );
}
