//! Harness code shared by the system tests in `tests/tests/`.
//!
//! - [`run`]: a command with a time limit; it is killed when the limit passes, so a
//!   hang fails the test instead of blocking CI.
//! - [`Console`]: a demo (POSIX simulator or QEMU) driven through its shell on
//!   stdin/stdout, one command at a time, every read with a time limit. The child is
//!   killed when the console is dropped, including when a check panics.
//! - [`scenario`]: the one conversation every board goes through, and the checks made
//!   on every report it reads.
//! - [`in_process`]: the demo's FreeRTOS POSIX build run inside a test process, for
//!   tests that call the kernel's API themselves.
//! - [`qemu`]: a QEMU board's image started as `make qemu` starts it, under `-icount`.
//!
//! Nothing here retries a failed check or widens a tolerance: a failure says what was
//! expected, what was seen, and shows the end of the conversation.

#![deny(missing_docs)]

pub mod boards;
pub mod in_process;
pub mod qemu;
pub mod scenario;

use std::collections::VecDeque;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// The repository root (the workspace this crate belongs to).
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The file named by environment variable `var` (relative to the repository root, where
/// make runs), or `default` (relative to the root too).
pub fn path_from_env(var: &str, default: &str) -> PathBuf {
    let path = std::env::var_os(var).map(PathBuf::from).unwrap_or_else(|| PathBuf::from(default));
    if path.is_absolute() {
        path
    } else {
        repo_root().join(path)
    }
}

/// A point in time that loops and reads must not pass.
#[derive(Clone, Copy, Debug)]
pub struct Deadline(Instant);

impl Deadline {
    /// `secs` seconds from now.
    pub fn after_secs(secs: u64) -> Self {
        Deadline(Instant::now() + Duration::from_secs(secs))
    }

    /// Time left, zero once passed.
    pub fn remaining(&self) -> Duration {
        self.0.saturating_duration_since(Instant::now())
    }

    /// Whether it has passed.
    pub fn passed(&self) -> bool {
        self.remaining().is_zero()
    }
}

/// What a finished command printed.
#[derive(Debug)]
pub struct Finished {
    /// Its exit status.
    pub status: ExitStatus,
    /// Standard output, lossily decoded.
    pub stdout: String,
    /// Standard error, lossily decoded.
    pub stderr: String,
}

/// Reads a pipe to its end on a thread of its own.
fn drain<R: Read + Send + 'static>(mut pipe: R) -> thread::JoinHandle<Vec<u8>> {
    thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        bytes
    })
}

/// Runs `cmd` with stdin from `/dev/null` and both outputs captured. Returns `Err`
/// with a description (including what it printed so far) if it cannot start or is
/// still running after `limit_secs`, in which case it is killed.
pub fn run(mut cmd: Command, limit_secs: u64) -> Result<Finished, String> {
    let shown = format!("{cmd:?}");
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {shown}: {e}"))?;
    let out = drain(child.stdout.take().expect("stdout is piped"));
    let err = drain(child.stderr.take().expect("stderr is piped"));
    let deadline = Deadline::after_secs(limit_secs);
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if deadline.passed() => break None,
            Ok(None) => thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(format!("cannot wait for {shown}: {e}")),
        }
    };
    if status.is_none() {
        let _ = child.kill();
        let _ = child.wait();
    }
    let stdout = String::from_utf8_lossy(&out.join().unwrap_or_default()).into_owned();
    let stderr = String::from_utf8_lossy(&err.join().unwrap_or_default()).into_owned();
    match status {
        Some(status) => Ok(Finished { status, stdout, stderr }),
        None => Err(format!(
            "{shown} was still running after {limit_secs} s and was killed\n--- stdout ---\n{stdout}\n--- stderr ---\n{stderr}"
        )),
    }
}

/// How much of the conversation a failure message shows.
const TRANSCRIPT_KEEP: usize = 6000;

/// A carriage return and a terminal's "erase to the end of the line": what a shell
/// that echoes (QEMU's serial console) sends to erase the line being typed before it
/// prints an alert; it then draws the prompt and the line again (and erases to the end
/// of the line after them, which changes nothing here).
const ERASE_LINE: &str = "\r\x1b[K";
const ERASE_TO_END: &str = "\x1b[K";
/// `ERASE_LINE` in `pending`.
const ERASED: char = '\u{0}';

/// A demo's shell, driven through a pipe.
///
/// The shell prints `> ` at the start of a line and waits for a line of input; the
/// text it printed since the previous prompt is the answer to the previous command.
/// Where the shell redraws its line around an alert, the console reads it as a
/// terminal shows it: the erased text goes, the alert stays, and the prompt drawn again
/// after it is the same prompt, not the end of another answer.
pub struct Console {
    name: String,
    child: Child,
    stdin: Option<ChildStdin>,
    /// Standard output in the order it arrived; the channel closes at end of file.
    chunks: Receiver<Vec<u8>>,
    stdout_closed: bool,
    /// Output not yet returned as an answer (carriage returns removed, line erasures
    /// as `ERASED`).
    pending: String,
    /// The end of the output received, held back while it may be the start of an
    /// erasure.
    held: String,
    /// A prompt already returned was erased: the next prompt in `pending` is the same
    /// one drawn again.
    redrawn: bool,
    /// The end of the conversation, for failure messages.
    transcript: VecDeque<char>,
    stderr: Arc<Mutex<Vec<u8>>>,
}

impl Console {
    /// Starts `cmd` with all three standard streams piped. `name` is what failure
    /// messages call it.
    pub fn spawn(name: &str, mut cmd: Command) -> Console {
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {name} ({cmd:?}): {e}"));
        let (tx, chunks) = mpsc::channel();
        let mut stdout = child.stdout.take().expect("stdout is piped");
        thread::spawn(move || {
            let mut buf = [0u8; 4096];
            loop {
                match stdout.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        if tx.send(buf[..n].to_vec()).is_err() {
                            break;
                        }
                    }
                }
            }
        });
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&stderr);
        let mut pipe = child.stderr.take().expect("stderr is piped");
        thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = pipe.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock().unwrap_or_else(|e| e.into_inner()).extend_from_slice(&buf[..n]);
            }
        });
        Console {
            name: name.to_string(),
            stdin: child.stdin.take(),
            child,
            chunks,
            stdout_closed: false,
            pending: String::new(),
            redrawn: false,
            held: String::new(),
            transcript: VecDeque::new(),
            stderr,
        }
    }

    fn record(&mut self, text: &str) {
        self.transcript.extend(text.chars());
        while self.transcript.len() > TRANSCRIPT_KEEP {
            self.transcript.pop_front();
        }
    }

    /// Kills the child and panics with `what`, the end of the conversation and the
    /// child's standard error.
    pub fn fail(&mut self, what: &str) -> ! {
        let _ = self.child.kill();
        let status = self.child.wait().map(|s| s.to_string()).unwrap_or_else(|e| e.to_string());
        thread::sleep(Duration::from_millis(50));
        let stderr = String::from_utf8_lossy(&self.stderr.lock().unwrap_or_else(|e| e.into_inner())).into_owned();
        let transcript: String = self.transcript.iter().collect();
        panic!(
            "{}: {what}\n--- end of the conversation (`$ ` marks what the test typed) ---\n{transcript}{}\n--- stderr ({status}) ---\n{stderr}",
            self.name, self.pending
        );
    }

    /// See [`erase_lines`].
    fn erase_lines(&mut self) {
        erase_lines(&mut self.pending, &mut self.redrawn);
    }

    /// Waits for the next prompt and returns what was printed before it (carriage
    /// returns removed). Fails if no prompt comes within `limit_secs`.
    pub fn read_answer(&mut self, limit_secs: u64) -> String {
        let deadline = Deadline::after_secs(limit_secs);
        loop {
            self.erase_lines();
            // (A prompt drawn again has not arrived whole yet: nothing ends here.)
            let at = if self.redrawn { None } else { self.prompt_at() };
            if let Some(at) = at {
                let answer = self.pending[..at].to_string();
                self.pending.drain(..at + 2);
                self.record(&answer);
                self.record("> ");
                return answer;
            }
            if self.stdout_closed {
                let status = self.child.wait().map(|s| s.to_string()).unwrap_or_default();
                self.fail(&format!("closed its output ({status}) while the test waited for a prompt"));
            }
            match self.chunks.recv_timeout(deadline.remaining()) {
                Ok(bytes) => {
                    let text = terminal_text(&mut self.held, &bytes);
                    self.pending.push_str(&text);
                }
                Err(RecvTimeoutError::Disconnected) => self.stdout_closed = true,
                Err(RecvTimeoutError::Timeout) => {
                    self.fail(&format!("no prompt within {limit_secs} s"));
                }
            }
        }
    }

    /// Where the next prompt starts in `pending`.
    fn prompt_at(&self) -> Option<usize> {
        if self.pending.starts_with("> ") {
            Some(0)
        } else {
            self.pending.find("\n> ").map(|i| i + 1)
        }
    }

    /// The child's process ID (to signal it).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// CPU time the child has used so far, all its threads together (Linux only:
    /// `/proc/<pid>/stat`, in units of USER_HZ, which is 100 on every Linux ABI).
    pub fn cpu_time(&self) -> Option<Duration> {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.child.id())).ok()?;
        // Fields after the parenthesised command name; utime and stime are 14 and 15.
        let rest = &stat[stat.rfind(')')? + 2..];
        let fields: Vec<&str> = rest.split_whitespace().collect();
        let ticks = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
        Some(Duration::from_millis(ticks * 10))
    }

    /// Types `line` and returns the answer (the text before the next prompt).
    pub fn command(&mut self, line: &str, limit_secs: u64) -> String {
        self.record(&format!("$ {line}\n"));
        let sent = match self.stdin.as_mut() {
            Some(stdin) => stdin.write_all(format!("{line}\n").as_bytes()).and_then(|()| stdin.flush()),
            None => Ok(()),
        };
        if let Err(e) = sent {
            self.fail(&format!("cannot type {line:?}: {e}"));
        }
        self.read_answer(limit_secs)
    }

    /// Types `exit` and expects the process to end with status 0 within `limit_secs`.
    pub fn exit(&mut self, limit_secs: u64) {
        self.record("$ exit\n");
        if let Some(mut stdin) = self.stdin.take() {
            let _ = stdin.write_all(b"exit\n");
        }
        self.expect_end("`exit`", limit_secs);
    }

    /// Closes its input, as a script's end does, and expects the process to end with
    /// status 0 within `limit_secs`.
    pub fn end_input(&mut self, limit_secs: u64) {
        self.record("$ (end of input)\n");
        drop(self.stdin.take());
        self.expect_end("the end of its input", limit_secs);
    }

    fn expect_end(&mut self, after: &str, limit_secs: u64) {
        let deadline = Deadline::after_secs(limit_secs);
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) if status.success() => return,
                Ok(Some(status)) => self.fail(&format!("ended with {status} after {after}, not 0")),
                Ok(None) if deadline.passed() => self.fail(&format!("still running {limit_secs} s after {after}")),
                Ok(None) => thread::sleep(Duration::from_millis(20)),
                Err(e) => self.fail(&format!("cannot wait for it: {e}")),
            }
        }
    }
}

/// Output as the console keeps it: carriage returns removed, a line erasure as
/// `ERASED`, an erasure to the end of the line (after text just drawn) removed. A tail
/// of `bytes` that may be the start of an erasure is kept in `held` for the next call.
fn terminal_text(held: &mut String, bytes: &[u8]) -> String {
    let mut text = std::mem::take(held);
    text.push_str(&String::from_utf8_lossy(bytes));
    let partial = |erase: &str| (1..erase.len()).rev().find(|&n| text.ends_with(&erase[..n]));
    let keep = partial(ERASE_LINE).max(partial(ERASE_TO_END)).unwrap_or(0);
    *held = text.split_off(text.len() - keep);
    text.replace(ERASE_LINE, &ERASED.to_string()).replace(ERASE_TO_END, "").replace('\r', "")
}

/// Applies the line erasures in `pending`: the text of the line before each goes. On
/// the line that began with the last prompt returned, that prompt is drawn again
/// after the alerts (`redrawn` says so until it comes), and is removed then: it is the
/// same prompt, not the end of another answer.
fn erase_lines(pending: &mut String, redrawn: &mut bool) {
    while let Some(at) = pending.find(ERASED) {
        let start = pending[..at].rfind('\n').map_or(0, |i| i + 1);
        if start == 0 {
            *redrawn = true;
        }
        pending.replace_range(start..at + ERASED.len_utf8(), "");
    }
    if *redrawn {
        // The alerts are whole lines: the prompt comes back at the start of one.
        if let Some(at) = pending.find("\n> ") {
            pending.replace_range(at + 1..at + 3, "");
            *redrawn = false;
        }
    }
}

impl Drop for Console {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What QEMU's console sent when an alert came while the test's line was half
    /// received, cut into chunks at the awkward places.
    #[test]
    fn a_redrawn_line_reads_as_the_terminal_shows_it() {
        let chunks: [&[u8]; 5] = [
            b"show_c\r",
            b"\x1b[K{\"watchdog\":\"slice\"}\r\n",
            b"> show_c\x1b",
            b"[Kpu_usage -m\r\n{\"mode\":\"window\"}\r\n",
            b"> ",
        ];
        let (mut held, mut pending, mut redrawn) = (String::new(), String::new(), false);
        for chunk in chunks {
            pending.push_str(&terminal_text(&mut held, chunk));
            erase_lines(&mut pending, &mut redrawn);
        }
        assert!(held.is_empty() && !redrawn);
        assert_eq!(pending, "{\"watchdog\":\"slice\"}\nshow_cpu_usage -m\n{\"mode\":\"window\"}\n> ");
    }

    /// At an empty prompt: the alert, and the prompt drawn again is not a second one.
    #[test]
    fn an_alert_at_an_empty_prompt_ends_no_answer() {
        let (mut held, mut redrawn) = (String::new(), false);
        let mut pending = terminal_text(&mut held, b"\r\x1b[K{\"watchdog\":\"load\"}\r\n> \x1b[K");
        erase_lines(&mut pending, &mut redrawn);
        assert_eq!((pending.as_str(), redrawn), ("{\"watchdog\":\"load\"}\n", false));
    }
}

/// The report's field table (the library's) and the report's contract (the schema's
/// line types) name the same figures, in the same order.
#[cfg(test)]
mod field_keys {
    use freertos_cpu_usage::fields::{Reports, FIELDS};
    use freertos_cpu_usage_report::{History, Idle, InWindow, Task, TaskHistory};
    use serde::Serialize;

    /// The keys of a line as the schema writes it, in order (its values are numbers,
    /// `null`, `false` and an empty name: no comma or colon inside one).
    fn keys(line: &impl Serialize) -> Vec<String> {
        let text = serde_json::to_string(line).unwrap();
        let body = text.trim_start_matches('{').trim_end_matches('}');
        body.split(',').map(|m| m.split(':').next().unwrap().trim_matches('"').to_owned()).collect()
    }

    /// `id` and `name`, then the field table's keys of such a line.
    fn expected(since_start: bool, idle: bool) -> Vec<String> {
        let figures = FIELDS
            .iter()
            .filter(|f| (since_start || f.reports == Reports::All) && (!idle || f.idle))
            .map(|f| f.key.to_owned());
        ["id", "name"].map(String::from).into_iter().chain(figures).collect()
    }

    fn task<H: TaskHistory>() -> Task<H> {
        let mut t = Task::<H>::default();
        // (The bucket's line: the only one with `tasks`.)
        t.part.tasks = Some(0);
        t
    }

    #[test]
    fn the_schemas_lines_have_the_field_tables_keys() {
        assert_eq!(keys(&task::<InWindow>()), expected(false, false), "a window's task");
        assert_eq!(keys(&task::<History>()), expected(true, false), "a task since start");
        assert_eq!(keys(&Idle::<InWindow>::default()), expected(false, true), "a window's idle task");
        assert_eq!(keys(&Idle::<History>::default()), expected(true, true), "the idle task since start");
    }
}
