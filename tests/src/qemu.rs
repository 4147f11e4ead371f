//! Starting a QEMU board's image the way `make qemu TARGET=<board>` does, with `-icount`.
//!
//! The command line is the board's `QEMU_CMD_ICOUNT`, from its
//! `boards/<board>/board.mk` read through `boards/qemu.mk`, so it cannot
//! drift from the Makefile. A missing image or QEMU is a failure, never a skip.

use std::path::Path;
use std::process::Command;

use crate::{path_from_env, repo_root, run};

/// `QEMU_CMD_ICOUNT` of `board` for `elf`, split into words.
pub fn icount_command_words(board: &str, elf: &Path) -> Vec<String> {
    let mut make = Command::new("make");
    make.current_dir(repo_root()).args([
        "-s",
        "--no-print-directory",
        "-f",
        "boards/qemu.mk",
        "--eval",
        "cu-print-qemu-cmd: ; @printf '%s\\n' $(QEMU_CMD_ICOUNT)",
        "cu-print-qemu-cmd",
    ]);
    make.arg(format!("TARGET={board}")).arg(format!("QEMU_ELF={}", elf.display()));
    let out = run(make, 60).unwrap_or_else(|e| panic!("cannot ask qemu.mk for {board}'s QEMU_CMD_ICOUNT: {e}"));
    assert!(out.status.success(), "make could not print {board}'s QEMU_CMD_ICOUNT ({}):\n{}", out.status, out.stderr);
    let words: Vec<String> = out.stdout.split_whitespace().map(str::to_string).collect();
    assert!(
        words.first().is_some_and(|w| w.starts_with("qemu-system-")) && words.iter().any(|w| w == "-icount"),
        "QEMU_CMD_ICOUNT of {board} is not a QEMU command with -icount: {words:?}"
    );
    words
}

/// `board`'s `-icount` command for the image named by environment variable `var`, else
/// `default` (from the repository root), checked to exist and QEMU to be runnable.
pub fn image_command(board: &str, var: &str, default: &str) -> Command {
    let elf = path_from_env(var, default);
    assert!(
        elf.is_file(),
        "the QEMU image {} does not exist: build it with `make qemu-image` (or `make test-build`), \
         or point {var} at one",
        elf.display()
    );
    let words = icount_command_words(board, &elf);
    let mut version = Command::new(&words[0]);
    version.arg("--version");
    let found = run(version, 30);
    assert!(
        found.as_ref().is_ok_and(|f| f.status.success()),
        "{} is not runnable ({:?}): install it (scripts/setup.sh does)",
        words[0],
        found.err()
    );
    let mut cmd = Command::new(&words[0]);
    cmd.args(&words[1..]).current_dir(repo_root());
    cmd
}
