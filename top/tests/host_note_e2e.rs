//! The simulator's note reaches the viewer's user: with the simulator sharing one CPU
//! with a busy loop (both pinned there with `taskset`), it gets about half a core
//! while it needs a whole one when awake, and each report of the follow mode carries
//! its note (the JSON's `"note"`: `in window #...`). In line mode the viewer writes
//! the device's notes to standard error as `device: note: ...`; the terminal UI shows
//! the same line above its footer (`ui_snapshot`).
//!
//! The simulator decides when to note (more than 1.5 points of the window held back);
//! half a core is far beyond that. `taskset` comes with util-linux.

use std::path::Path;
use std::process::{Child, Command, Stdio};

/// The last CPU this process may run on, from `/proc/self/status`.
fn last_allowed_cpu() -> u32 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status (Linux)");
    let list = status.lines().find_map(|l| l.strip_prefix("Cpus_allowed_list:")).expect("Cpus_allowed_list");
    let last = list.trim().rsplit([',', '-']).next().unwrap();
    last.parse().unwrap_or_else(|_| panic!("{list:?}"))
}

/// A busy loop pinned to one CPU, ended with the test.
struct Hog(Child);

impl Drop for Hog {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn a_starved_simulator_s_note_reaches_line_mode() {
    let sim = Path::new(env!("CARGO_MANIFEST_DIR")).join("../build/posix/freertos-sim");
    assert!(sim.exists(), "{} is missing: build it with `make sim` (`make test` does)", sim.display());
    let cpu = last_allowed_cpu().to_string();
    let _hog = Hog(Command::new("taskset")
        .args(["-c", &cpu, "sh", "-c", "while :; do :; done"])
        .stdin(Stdio::null())
        .spawn()
        .expect("taskset not found (Debian package util-linux)"));
    // Four windows of half a second: the note needs a window of history first.
    let out = Command::new("taskset")
        .args(["-c", &cpu, env!("CARGO_BIN_EXE_cpu-usage-top"), "--exec"])
        .arg(&sim)
        .args(["--no-ui", "--windows", "4", "--window-ms", "500"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let note = stderr.lines().find(|l| l.starts_with("cpu-usage-top: device: note: in window #"));
    let note = note.unwrap_or_else(|| panic!("no note from a simulator on half a core:\n{stderr}"));
    assert!(note.contains("% of a core while it was awake") && note.contains("points high"), "{note}");
    println!("{note}");
}
