//! The demo on QEMU's mps2-an385 (Cortex-M3), end to end: the same conversation and
//! checks as on the POSIX simulator (`scenario`), with a tighter duty tolerance.
//!
//! The image is `build/mps2-an385/demo.elf` (built by `make qemu-image`), or the file
//! named by `CPU_USAGE_QEMU_ELF`. The QEMU command line is taken from
//! `freertos-port/mps2-an385/port.mk` (`QEMU_CMD_ICOUNT`), so it cannot drift from
//! what `make qemu` runs. A missing image or QEMU is a failure, never a skip.
//!
//! Why `QEMU_CMD_ICOUNT` and not `QEMU_CMD_SCRIPT`: the scripted console reads stdin
//! through semihosting, which stops the whole guest until the host has a byte, so
//! while the test waits for windows to complete no guest time passes and no window
//! ever completes. With `QEMU_CMD_ICOUNT` the console is the UART: the shell task
//! blocks in FreeRTOS, the other tasks run, and guest time (instruction count under
//! `-icount`, independent of the host) moves on between commands. Input bytes then
//! arrive at host-dependent guest instants, which only changes which windows the test
//! happens to read, not what it checks.

use std::process::Command;

use freertos_cpu_usage_tests::scenario::{self, Port};
use freertos_cpu_usage_tests::{path_from_env, repo_root, run, Console};

/// Duty tolerance on QEMU, in percentage points.
///
/// Under `-icount` every guest instruction takes the same 32 ns of guest time, and
/// both the workloads' clock and the library's are guest clocks (SysTick based), so
/// neither the host's speed nor its load enters. What is left is the window boundary
/// cutting through a 10 ms activation's burn (averaged out over three windows) and the
/// burn loop's own granularity; measured averages are within 0.3 pp of the duty.
const DUTY_TOLERANCE_PP: f64 = 1.0;

/// `QEMU_CMD_ICOUNT` of port.mk for `elf`, split into words.
fn qemu_command(elf: &std::path::Path) -> Vec<String> {
    let mut make = Command::new("make");
    make.current_dir(repo_root()).args([
        "-s",
        "--no-print-directory",
        "-f",
        "freertos-port/mps2-an385/port.mk",
        "--eval",
        "cu-print-qemu-cmd: ; @printf '%s\\n' $(QEMU_CMD_ICOUNT)",
        "cu-print-qemu-cmd",
    ]);
    make.arg(format!("MPS2_QEMU_ELF={}", elf.display()));
    let out = run(make, 60).unwrap_or_else(|e| panic!("cannot ask port.mk for QEMU_CMD_ICOUNT: {e}"));
    assert!(out.status.success(), "make could not print QEMU_CMD_ICOUNT ({}):\n{}", out.status, out.stderr);
    let words: Vec<String> = out.stdout.split_whitespace().map(str::to_string).collect();
    assert!(
        words.first().is_some_and(|w| w.starts_with("qemu-system-arm")) && words.iter().any(|w| w == "-icount"),
        "QEMU_CMD_ICOUNT of port.mk is not a qemu-system-arm command with -icount: {words:?}"
    );
    words
}

#[test]
fn demo_on_qemu_mps2_an385() {
    let elf = path_from_env("CPU_USAGE_QEMU_ELF", "build/mps2-an385/demo.elf");
    assert!(
        elf.is_file(),
        "the QEMU image {} does not exist: build it with `make qemu-image` (or `make test-build`), \
         or point CPU_USAGE_QEMU_ELF at one",
        elf.display()
    );
    let words = qemu_command(&elf);
    let qemu_found = run(
        {
            let mut c = Command::new(&words[0]);
            c.arg("--version");
            c
        },
        30,
    );
    assert!(
        qemu_found.as_ref().is_ok_and(|f| f.status.success()),
        "{} is not runnable ({:?}): install qemu-system-arm (scripts/setup.sh does)",
        words[0],
        qemu_found.err()
    );

    let mut cmd = Command::new(&words[0]);
    cmd.args(&words[1..]).current_dir(repo_root());
    let mut console = Console::spawn("QEMU mps2-an385", cmd);
    scenario::run(
        &mut console,
        Port {
            reply_secs: 20,
            boot_secs: 30,
            // About 15 guest windows; the guest runs faster than the host's clock
            // here, so this takes well under 15 s.
            total_secs: 120,
            duty_tolerance_pp: DUTY_TOLERANCE_PP,
        },
    );
}
