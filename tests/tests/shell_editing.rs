//! The demo's shell typed at on a terminal, as a person would: the POSIX simulator
//! and QEMU mps2-an385 (its console on stdio), each on a pseudo-terminal of its own
//! that is its controlling terminal, in a session of its own, as a shell's terminal is
//! (so the terminal's signal keys would reach it as signals, were they on).
//!
//! The keys are the bytes a VT100/xterm sends (Backspace 0x7F, arrows `ESC [ D` and
//! in application mode `ESC O D`, Home `ESC [ H`, End `ESC [ F`, Ctrl-U 0x15, Ctrl-C
//! 0x03, Ctrl-D 0x04). Each edited line must run as the command it spells, which the
//! answer proves (the JSON line of that command), and no line may reach the shell as an
//! unknown command. Ctrl-C drops the line being typed, and the run goes on. Ctrl-\,
//! Ctrl-Z and Ctrl-S are bytes the shell drops: none may end, stop or freeze the run.
//! Then a watchdog alert that comes while a line is half typed: the shell must print
//! it on a line of its own and draw the prompt and the half line again, and the rest
//! typed after it must complete that line. After Ctrl-D has ended the run, the
//! terminal has its settings back.
//!
//! The simulator must give its terminal back on every way out: after `exit`, and after
//! each signal that ends it.

use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use freertos_cpu_usage_tests::{path_from_env, qemu, Deadline};

const LEFT: &str = "\x1b[D";
const LEFT_APP: &str = "\x1bOD";
const UP: &str = "\x1b[A";
const DOWN: &str = "\x1b[B";
const HOME: &str = "\x1b[H";
const END: &str = "\x1b[F";
const BACKSPACE: &str = "\x7f";
const CTRL_U: &str = "\x15";
const CTRL_C: &str = "\x03";
const CTRL_D: &str = "\x04";
/// Ctrl-\ (SIGQUIT where the terminal sends signals), Ctrl-Z (SIGTSTP), Ctrl-S (XOFF).
const CTRL_BACKSLASH: &str = "\x1c";
const CTRL_Z: &str = "\x1a";
const CTRL_S: &str = "\x13";
/// What the shell sends to erase the line before an alert.
const ERASE: &str = "\r\x1b[K";

/// The longest any answer may take, in seconds (QEMU under `-icount` included).
const REPLY_SECS: u64 = 20;

/// A child on a pseudo-terminal: what it printed so far, and the terminal's master side
/// to type on.
struct Terminal {
    name: String,
    child: Child,
    master: File,
    output: Arc<Mutex<Vec<u8>>>,
    /// Output before this offset has been looked at.
    seen: usize,
}

impl Terminal {
    fn spawn(name: &str, mut cmd: Command) -> Terminal {
        let (mut master_fd, mut slave_fd) = (-1, -1);
        // SAFETY: openpty writes two descriptors; the name, termios and winsize
        // arguments may be NULL.
        let rc = unsafe {
            libc::openpty(&mut master_fd, &mut slave_fd, std::ptr::null_mut(), std::ptr::null(), std::ptr::null())
        };
        assert_eq!(rc, 0, "openpty failed: {}", std::io::Error::last_os_error());
        // SAFETY: both are open descriptors that nothing else owns.
        let (master, slave) = unsafe { (File::from_raw_fd(master_fd), OwnedFd::from_raw_fd(slave_fd)) };
        let io = |fd: &OwnedFd| Stdio::from(fd.try_clone().expect("dup of the terminal"));
        cmd.stdin(io(&slave)).stdout(io(&slave)).stderr(io(&slave));
        // SAFETY: setsid and ioctl are async-signal-safe, as code between fork and exec
        // must be; stdin is the terminal by then.
        unsafe {
            cmd.pre_exec(|| {
                if libc::setsid() < 0 || libc::ioctl(0, libc::TIOCSCTTY, 0) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = cmd.spawn().unwrap_or_else(|e| panic!("cannot start {name} ({cmd:?}): {e}"));
        // Only the child holds the terminal now: its end of file is the child's end.
        drop(slave);
        let output = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&output);
        let mut reader = master.try_clone().expect("dup of the master");
        thread::spawn(move || {
            let mut buf = [0u8; 4096];
            // EIO once the child has gone: the end.
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock().unwrap_or_else(|e| e.into_inner()).extend_from_slice(&buf[..n]);
            }
        });
        Terminal { name: name.to_string(), child, master, output, seen: 0 }
    }

    /// The terminal's settings as they are now (a pseudo-terminal's master side reads
    /// those of the terminal).
    fn settings(&self) -> libc::termios {
        // SAFETY: termios is plain data, written whole by tcgetattr on success.
        let mut t: libc::termios = unsafe { std::mem::zeroed() };
        // SAFETY: an open descriptor and a valid pointer.
        let rc = unsafe { libc::tcgetattr(self.master.as_raw_fd(), &mut t) };
        assert_eq!(rc, 0, "tcgetattr: {}", std::io::Error::last_os_error());
        t
    }

    /// The terminal is back in the line discipline it had before the child started:
    /// canonical, echoing, with the signal keys and flow control on.
    fn expect_settings_back(&mut self, after: &str) {
        let t = self.settings();
        let lflag = libc::ICANON | libc::ECHO | libc::ISIG | libc::IEXTEN;
        if t.c_lflag & lflag != lflag || t.c_iflag & libc::IXON == 0 {
            self.fail(&format!(
                "after {after} the terminal was left as the demo set it: c_lflag {:#o}, c_iflag {:#o}",
                t.c_lflag, t.c_iflag
            ));
        }
    }

    /// Waits for the child to end; its exit status.
    fn wait_end(&mut self, after: &str) -> std::process::ExitStatus {
        let deadline = Deadline::after_secs(REPLY_SECS);
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => return status,
                Ok(None) if deadline.passed() => self.fail(&format!("still running after {after}")),
                Ok(None) => thread::sleep(Duration::from_millis(20)),
                Err(e) => self.fail(&format!("cannot wait for it: {e}")),
            }
        }
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.output.lock().unwrap_or_else(|e| e.into_inner())).into_owned()
    }

    fn fail(&mut self, what: &str) -> ! {
        let _ = self.child.kill();
        let _ = self.child.wait();
        thread::sleep(Duration::from_millis(50));
        let all = self.text();
        let tail: String = all.chars().rev().take(4000).collect::<Vec<_>>().into_iter().rev().collect();
        panic!("{}: {what}\n--- the terminal's last output (escaped) ---\n{}", self.name, tail.escape_debug());
    }

    fn type_keys(&mut self, keys: &str) {
        // A byte at a time, as a person types: a UART's receive FIFO is small.
        for b in keys.bytes() {
            if let Err(e) = self.master.write_all(&[b]).and_then(|()| self.master.flush()) {
                self.fail(&format!("cannot type {keys:?}: {e}"));
            }
            thread::sleep(Duration::from_millis(2));
        }
    }

    /// Waits until the output after the last wait holds `what`; returns that output,
    /// up to and including it, and moves past it.
    fn wait_for(&mut self, what: &str, secs: u64) -> String {
        let deadline = Deadline::after_secs(secs);
        loop {
            let text = self.text();
            if let Some(at) = text.get(self.seen..).and_then(|t| t.find(what)) {
                let upto = self.seen + at + what.len();
                let got = text[self.seen..upto].to_string();
                self.seen = upto;
                return got;
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                // (What it printed last may still be on its way.)
                thread::sleep(Duration::from_millis(200));
                if !self.text().get(self.seen..).is_some_and(|t| t.contains(what)) {
                    self.fail(&format!("ended with {status} before {what:?} came"));
                }
                continue;
            }
            if deadline.passed() {
                self.fail(&format!("no {what:?} within {secs} s"));
            }
            thread::sleep(Duration::from_millis(20));
        }
    }

    /// Types `keys` (a line ended by Enter) and waits for the next prompt; returns the
    /// echo and the answer.
    fn line(&mut self, keys: &str) -> String {
        self.type_keys(keys);
        self.type_keys("\r");
        let answer = self.wait_for("\n> ", REPLY_SECS);
        if answer.contains("unknown command") {
            self.fail(&format!("{keys:?} reached the shell as an unknown command: {answer:?}"));
        }
        answer
    }

    /// `line`, whose answer must hold a line starting with `json_start`.
    fn expect(&mut self, keys: &str, json_start: &str) -> String {
        let answer = self.line(keys);
        if !answer.split(['\r', '\n']).any(|l| l.starts_with(json_start)) {
            self.fail(&format!("{keys:?} should have run the command answering {json_start:?}, got {answer:?}"));
        }
        answer
    }

    fn expect_exit(&mut self, after: &str) {
        let status = self.wait_end(after);
        if !status.success() {
            self.fail(&format!("ended with {status} after {after}"));
        }
        self.expect_settings_back(after);
    }

    /// The child is still running.
    fn expect_running(&mut self, after: &str) {
        if let Ok(Some(status)) = self.child.try_wait() {
            self.fail(&format!("ended with {status} after {after}"));
        }
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

/// The whole session, the same on every board.
fn session(t: &mut Terminal) {
    t.wait_for("freertos-cpu-usage demo", 60);
    t.wait_for("\n> ", 60);

    // Backspace: `shoq` corrected to `show`.
    t.expect(&format!("shoq{BACKSPACE}w_cpu_usage -m"), "{\"mode\":\"window\"");
    // Left arrows (both encodings), then an insertion in the middle.
    let keys = format!("show_usage -m{}{}cpu_", LEFT.repeat(4), LEFT_APP.repeat(4));
    t.expect(&keys, "{\"mode\":\"window\"");
    // Ctrl-U erases what was typed before it.
    t.expect(&format!("no such words{CTRL_U}tasks -m"), "{\"tasks\":[");
    // Home and End: `-m status` becomes `churn -m status`.
    t.expect(&format!("-m status{HOME}churn {END}"), "{\"churn\":");
    // History: the newest line again, then two back, one forward, one back.
    t.expect(UP, "{\"churn\":");
    t.expect(&format!("{UP}{UP}{UP}{DOWN}"), "{\"tasks\":[");
    // Past the oldest line, Up stays on it.
    t.expect(&UP.repeat(10), "{\"mode\":\"window\"");

    // Ctrl-C drops the line being typed: `^C`, a new prompt, and nothing run.
    let dropped = "cpu_usage_watchdog load 1 1";
    t.type_keys(&format!("{dropped}{CTRL_C}"));
    let answer = t.wait_for("\n> ", REPLY_SECS);
    if answer != format!("{dropped}^C\r\n> ") {
        t.fail(&format!("Ctrl-C did not drop the line: {answer:?}"));
    }
    t.expect_running("Ctrl-C");
    // Ctrl-\ and Ctrl-Z inside a line are dropped; Ctrl-S holds no output.
    t.expect(&format!("tas{CTRL_BACKSLASH}ks{CTRL_Z} -m"), "{\"tasks\":[");
    t.expect(&format!("{CTRL_S}churn -m status"), "{\"churn\":");
    t.expect_running("Ctrl-\\, Ctrl-Z and Ctrl-S");

    // A line longer than 127 characters is refused whole: cut, this one would set a
    // 25 ms window. The keys past the cut ring the bell; Enter gives the refusal.
    let answer = t.line(&format!("show_cpu_usage{}-w 25000", " ".repeat(108)));
    if !answer.contains('\x07') || !answer.contains("line too long (at most 127 characters): nothing run") {
        t.fail(&format!("a line of 130 characters was not refused: {answer:?}"));
    }
    t.expect("show_cpu_usage -m", "{\"mode\":\"window\"");

    // An alert while a line is half typed. Load above 1 % for 2 windows: the trip
    // comes at the end of the window after the one under way, at least one window
    // (a second of the demo's time) after the line is typed.
    t.line("cpu_usage_watchdog load 1 2");
    t.type_keys("tick30 -m sta");
    let shown = t.wait_for("{\"watchdog\":\"load\"", 10);
    if !shown.contains(&format!("tick30 -m sta{ERASE}")) {
        t.fail(&format!("the half line was not erased before the alert: {shown:?}"));
    }
    // The prompt and the half line again, on a line of their own after the alert.
    let redrawn = t.wait_for("> tick30 -m sta", 5);
    if !redrawn.contains('\n') || redrawn.contains("unknown command") {
        t.fail(&format!("the alert and the redrawn line: {redrawn:?}"));
    }
    t.expect("tus", "{\"tick30\":\"off\"");
    t.line("cpu_usage_watchdog off");

    // Ctrl-D on an empty line ends the run, and the terminal is as it was.
    t.type_keys(CTRL_D);
    t.expect_exit("Ctrl-D");
}

#[test]
fn line_editing_on_the_posix_simulator() {
    let sim = path_from_env("CPU_USAGE_SIM", "build/posix/freertos-sim");
    assert!(sim.is_file(), "{} does not exist: build it with `make sim`", sim.display());
    let mut t = Terminal::spawn("POSIX simulator on a terminal", Command::new(&sim));
    session(&mut t);
}

/// Every way out of the simulator gives the terminal back: `exit`, and the signals that
/// end it (from another process: its own keys no longer send any).
#[test]
fn the_simulator_gives_its_terminal_back() {
    let sim = path_from_env("CPU_USAGE_SIM", "build/posix/freertos-sim");
    assert!(sim.is_file(), "{} does not exist: build it with `make sim`", sim.display());
    let ways_out = [
        ("exit", None),
        ("SIGTERM", Some(libc::SIGTERM)),
        ("SIGINT", Some(libc::SIGINT)),
        ("SIGHUP", Some(libc::SIGHUP)),
        ("SIGQUIT", Some(libc::SIGQUIT)),
        ("SIGABRT", Some(libc::SIGABRT)),
        ("SIGPIPE", Some(libc::SIGPIPE)),
    ];
    for (way, signal) in ways_out {
        let mut t = Terminal::spawn(&format!("POSIX simulator, ended by {way}"), Command::new(&sim));
        t.wait_for("freertos-cpu-usage demo", 60);
        t.wait_for("\n> ", 60);
        let raw = t.settings();
        if raw.c_lflag & (libc::ICANON | libc::ECHO | libc::ISIG) != 0 || raw.c_iflag & libc::IXON != 0 {
            t.fail(&format!(
                "the simulator's terminal is not raw: c_lflag {:#o}, c_iflag {:#o}",
                raw.c_lflag, raw.c_iflag
            ));
        }
        match signal {
            None => {
                t.type_keys("exit\r");
                t.expect_exit(way);
            }
            Some(signal) => {
                // SAFETY: kill with the child's own process ID.
                let rc = unsafe { libc::kill(t.child.id() as libc::pid_t, signal) };
                assert_eq!(rc, 0, "kill: {}", std::io::Error::last_os_error());
                let status = t.wait_end(way);
                use std::os::unix::process::ExitStatusExt;
                if status.signal() != Some(signal) {
                    t.fail(&format!("after {way} it ended with {status}, not by that signal"));
                }
                t.expect_settings_back(way);
            }
        }
    }
}

#[test]
fn line_editing_on_qemu_mps2_an385() {
    let mut t = Terminal::spawn(
        "QEMU mps2-an385 on a terminal",
        qemu::image_command("mps2-an385", "CPU_USAGE_QEMU_ELF", "build/mps2-an385/demo.elf"),
    );
    session(&mut t);
}
