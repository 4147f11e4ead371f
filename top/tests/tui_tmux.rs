//! The real terminal UI, on a real (tmux) terminal: started against the POSIX
//! simulator, it must show the demo's tasks with their shares within a few
//! windows, and end on `q`, taking the simulator with it. tmux comes with
//! `make test`'s set-up.

use std::path::Path;
use std::process::Command;
use std::thread::sleep;
use std::time::{Duration, Instant};

/// A tmux server of this test's own, ended when the test ends.
struct Tmux {
    socket: String,
}

impl Tmux {
    fn run(&self, args: &[&str]) -> std::process::Output {
        Command::new("tmux")
            .args(["-L", &self.socket])
            .args(args)
            .output()
            .expect("tmux not found: `make test` installs it (Debian package tmux)")
    }

    fn capture(&self) -> String {
        String::from_utf8_lossy(&self.run(&["capture-pane", "-p", "-t", "top"]).stdout).into_owned()
    }

    fn alive(&self) -> bool {
        self.run(&["has-session", "-t", "top"]).status.success()
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.run(&["kill-server"]);
    }
}

#[test]
fn the_terminal_ui_shows_the_tasks_and_quits_on_q() {
    let sim = Path::new(env!("CARGO_MANIFEST_DIR")).join("../build/posix/freertos-sim");
    assert!(sim.exists(), "{} is missing: build it with `make sim` (`make test` does)", sim.display());
    let tmux = Tmux { socket: format!("cpu-usage-top-test-{}", std::process::id()) };
    let command = format!("{} --exec {} --window-ms 250", env!("CARGO_BIN_EXE_cpu-usage-top"), sim.display());
    let started = tmux.run(&["new-session", "-d", "-s", "top", "-x", "100", "-y", "32", &command]);
    assert!(started.status.success(), "tmux: {}", String::from_utf8_lossy(&started.stderr));

    // Boot, the first windows, a redraw: a few seconds; far less than the deadline.
    let deadline = Instant::now() + Duration::from_secs(30);
    let screen = loop {
        let screen = tmux.capture();
        let shown = ["work10", "work25", "work40", "IDLE", "sleep", "load"].iter().all(|w| screen.contains(w));
        if shown && screen.contains("window #") {
            break screen;
        }
        assert!(Instant::now() < deadline, "the tasks never showed; the screen:\n{screen}");
        sleep(Duration::from_millis(200));
    };
    // work40 burns 40% of the wall time: its row shows a share, well above work10's.
    let share = |name: &str| -> f64 {
        let row = screen.lines().find(|l| l.split_whitespace().next() == Some(name)).unwrap_or_else(|| {
            panic!("no row for {name}:\n{screen}");
        });
        // name, id, bar, share (the first number with a decimal point), recent, ...
        row.split_whitespace()
            .skip(1)
            .find(|f| f.contains('.'))
            .and_then(|f| f.parse().ok())
            .unwrap_or_else(|| panic!("no share in {row:?}"))
    };
    assert!(share("work40") > share("work10") + 10.0, "{screen}");

    tmux.run(&["send-keys", "-t", "top", "q"]);
    let deadline = Instant::now() + Duration::from_secs(10);
    while tmux.alive() {
        assert!(Instant::now() < deadline, "the viewer did not quit on q:\n{}", tmux.capture());
        sleep(Duration::from_millis(100));
    }
}
