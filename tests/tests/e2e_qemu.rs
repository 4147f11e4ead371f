//! The demo on QEMU's mps2-an385 (Cortex-M3), end to end: the same conversation and
//! checks as on the POSIX simulator (`scenario`), with a tighter duty tolerance; and
//! what the library's critical section masks on this core (`irqmask`).
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

use freertos_cpu_usage_tests::scenario::{self, IrqLoad, Port};
use freertos_cpu_usage_tests::{path_from_env, repo_root, run, Console};

/// Duty tolerance on QEMU, in percentage points.
///
/// Under `-icount` every guest instruction takes the same 32 ns of guest time, and
/// both the workloads' clock and the library's are guest clocks (SysTick based), so
/// neither the host's speed nor its load enters. What is left is the window boundary
/// cutting through a 10 ms activation's burn (averaged out over three windows) and the
/// burn loop's own granularity; measured averages are within 0.3 pp of the duty.
const DUTY_TOLERANCE_PP: f64 = 1.0;

/// tick30 tolerance on QEMU, in percentage points, on a 2-window average.
///
/// tick30 keeps the CPU until 30 % of the tick period has passed since the tick (its
/// time taken in the tick hook). The library charges it from its switch-in to its
/// switch-out: that misses the start (the rest of the tick interrupt, charged to the
/// interrupts line, and the context switch, about 10 µs in all: `tick30 status`) and
/// adds the way out (vTaskDelay() and the switch to the idle task), a few hundred
/// instructions in both cases. Under `-icount` all of it is a fixed number of
/// instructions, so the figure is the same in every run: measured 30.11 %.
const TICK30_TOLERANCE_PP: f64 = 1.0;

/// The demo's TIMER0 interrupt (freertos-port/mps2-an385/irq_load.c): 500 Hz, each
/// busy for 2500 counts of the timer's own 25 MHz clock, 5.00 % of the time. The
/// interrupts line also holds what each handler does around that work (the library's
/// enter and exit, clearing the timer, the loop's last turn: about 1.5 µs, 0.08 pp),
/// and the comparison is against a window without TIMER0 whose tick and UART
/// interrupts may differ a little: measured +5.15 to +5.18 pp. Under `-icount` the
/// timer, the core and the library's clock count the same guest time, so 1 pp is a
/// wide bound.
const IRQ: IrqLoad = IrqLoad { rate_hz: 500, share_pct: 5.0, tolerance_pp: 1.0 };

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

/// The QEMU command for the demo image, checked to exist and to be runnable.
fn qemu_demo_command() -> Command {
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
    cmd
}

#[test]
fn demo_on_qemu_mps2_an385() {
    let mut console = Console::spawn("QEMU mps2-an385", qemu_demo_command());
    scenario::run(
        &mut console,
        Port {
            reply_secs: 20,
            boot_secs: 30,
            // About 25 guest windows; the guest runs faster than the host's clock
            // here, so this takes well under 25 s.
            total_secs: 120,
            duty_tolerance_pp: DUTY_TOLERANCE_PP,
            tick30_tolerance_pp: TICK30_TOLERANCE_PP,
            irq: Some(IRQ),
        },
    );
}

/// The library's critical section holds off the interrupts the kernel's critical
/// sections hold off and no others: BASEPRI at configMAX_SYSCALL_INTERRUPT_PRIORITY
/// (0xA0 in the demo's FreeRTOSConfig.h), not PRIMASK. The port's `irqmask` command
/// (freertos-port/mps2-an385/mask_check.c) pends IRQ30 (priority 0x80) and IRQ31
/// (0xA0) from inside the section and counts which ran before it ended; with PRIMASK
/// neither would, and the line below would read `BASEPRI 0x00 PRIMASK 1: IRQ30
/// (priority 0x80) ran 0`.
#[test]
fn critical_section_masks_only_what_the_kernel_masks() {
    let mut console = Console::spawn("QEMU mps2-an385", qemu_demo_command());
    console.read_answer(30);
    let answer = console.command("irqmask", 20);
    let expected = [
        "irqmask: inside the library's critical section BASEPRI 0xa0 PRIMASK 0: IRQ30 (priority 0x80) ran 1, \
         IRQ31 (priority 0xa0) ran 0; after it: IRQ30 1, IRQ31 1",
        "irqmask: ok: priorities above configMAX_SYSCALL_INTERRUPT_PRIORITY run, the others wait",
    ];
    for line in expected {
        if !answer.lines().any(|l| l == line) {
            console.fail(&format!("`irqmask` did not answer {line:?}"));
        }
    }
    console.exit(20);
}
