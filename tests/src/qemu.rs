//! Starting a QEMU board's image the way `make qemu TARGET=<board>` does, with `-icount`
//! (or, for the SMP boards' runs in parallel, without).
//!
//! The command line is the board's `QEMU_CMD_ICOUNT` (or `QEMU_CMD`), from its
//! `freertos-port/<board>/board.mk` read through `freertos-port/qemu.mk`, so it cannot
//! drift from the Makefile. A missing image or QEMU is a failure, never a skip.

use std::path::Path;
use std::process::Command;

use crate::{path_from_env, repo_root, run};

/// Which of a board's QEMU command lines (`freertos-port/qemu.mk`) to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QemuRun {
    /// `QEMU_CMD_ICOUNT`: under `-icount`, guest time from the instruction count; with
    /// several harts, QEMU runs them in turn in one host thread (deterministic).
    Icount,
    /// `QEMU_CMD`: guest time from the host's clock; with several harts, one host thread
    /// each, in parallel (multi-threaded TCG), where a board asks for it.
    Parallel,
    /// `QEMU_RUN`: what `make qemu` runs, `QEMU_CMD` through `scripts/qemu-console.sh`
    /// (which ends the run at the end of piped input).
    Make,
}

impl QemuRun {
    /// The qemu.mk variable of this command line.
    pub fn variable(self) -> &'static str {
        match self {
            QemuRun::Icount => "QEMU_CMD_ICOUNT",
            QemuRun::Parallel => "QEMU_CMD",
            QemuRun::Make => "QEMU_RUN",
        }
    }
}

/// `QEMU_CMD_ICOUNT` of `board` for `elf`, split into words.
pub fn icount_command_words(board: &str, elf: &Path) -> Vec<String> {
    command_words(board, elf, QemuRun::Icount)
}

/// The command line `which` of `board` for `elf`, split into words, checked to be a
/// QEMU command (for [`QemuRun::Make`], `scripts/qemu-console.sh` and one) with
/// `-icount` exactly when `which` is [`QemuRun::Icount`].
pub fn command_words(board: &str, elf: &Path, which: QemuRun) -> Vec<String> {
    let var = which.variable();
    let mut make = Command::new("make");
    make.current_dir(repo_root()).args([
        "-s",
        "--no-print-directory",
        "-f",
        "freertos-port/qemu.mk",
        "--eval",
        &format!("cu-print-qemu-cmd: ; @printf '%s\\n' $({var})"),
        "cu-print-qemu-cmd",
    ]);
    make.arg(format!("TARGET={board}")).arg(format!("QEMU_ELF={}", elf.display()));
    let out = run(make, 60).unwrap_or_else(|e| panic!("cannot ask qemu.mk for {board}'s {var}: {e}"));
    assert!(out.status.success(), "make could not print {board}'s {var} ({}):\n{}", out.status, out.stderr);
    let words: Vec<String> = out.stdout.split_whitespace().map(str::to_string).collect();
    let icount = words.iter().any(|w| w == "-icount");
    let qemu = match which {
        QemuRun::Make => words.first().is_some_and(|w| w == "scripts/qemu-console.sh").then(|| words.get(1)).flatten(),
        _ => words.first(),
    };
    assert!(
        qemu.is_some_and(|w| w.starts_with("qemu-system-")) && icount == (which == QemuRun::Icount),
        "{var} of {board} is not a QEMU command {} -icount: {words:?}",
        if which == QemuRun::Icount { "with" } else { "without" }
    );
    words
}

/// `board`'s `-icount` command for the image named by environment variable `var`, else
/// `default` (from the repository root), checked to exist and QEMU to be runnable.
pub fn image_command(board: &str, var: &str, default: &str) -> Command {
    image_command_of(board, var, default, QemuRun::Icount)
}

/// [`image_command`] with the board's command line `which`.
pub fn image_command_of(board: &str, var: &str, default: &str, which: QemuRun) -> Command {
    let elf = path_from_env(var, default);
    assert!(
        elf.is_file(),
        "the QEMU image {} does not exist: build it with `make qemu-image` (or `make test-build`), \
         or point {var} at one",
        elf.display()
    );
    let words = command_words(board, &elf, which);
    let qemu = if which == QemuRun::Make { &words[1] } else { &words[0] };
    let mut version = Command::new(qemu);
    version.arg("--version");
    let found = run(version, 30);
    assert!(
        found.as_ref().is_ok_and(|f| f.status.success()),
        "{} is not runnable ({:?}): install it (scripts/setup.sh does)",
        qemu,
        found.err()
    );
    let mut cmd = Command::new(&words[0]);
    cmd.args(&words[1..]).current_dir(repo_root());
    cmd
}
