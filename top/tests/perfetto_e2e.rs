//! End to end: the POSIX simulator (`build/posix/freertos-sim`, built by `make sim`,
//! with the event trace on) records a trace while its window reports are read; the
//! dump converts to Perfetto JSON, and for every window that lies wholly inside the
//! trace and whose report was read, each slot's time in the trace is the report's
//! counts exactly, and the JSON's durations are the same within their rounding.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::thread;
use std::time::{Duration, Instant};

use cpu_usage_top::perfetto;
use cpu_usage_top::trace;
use cpu_usage_top::window::{parse_line, Line, Window};

/// The simulator's shell through pipes: it prints `> ` and waits for a line.
struct Shell {
    child: Child,
    stdin: ChildStdin,
    output: Receiver<Vec<u8>>,
    pending: String,
}

impl Shell {
    fn start(path: &PathBuf) -> Shell {
        let mut child = Command::new(path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", path.display()));
        let mut stdout = child.stdout.take().unwrap();
        let (tx, output) = mpsc::channel();
        thread::spawn(move || {
            let mut buf = [0u8; 8192];
            while let Ok(n) = stdout.read(&mut buf) {
                if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take().unwrap();
        let mut shell = Shell { child, stdin, output, pending: String::new() };
        shell.answer();
        shell
    }

    /// The text up to the next prompt.
    fn answer(&mut self) -> String {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let at = if self.pending.starts_with("> ") { Some(0) } else { self.pending.find("\n> ").map(|i| i + 1) };
            if let Some(at) = at {
                let text = self.pending[..at].to_owned();
                self.pending.drain(..at + 2);
                return text;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            match self.output.recv_timeout(left) {
                Ok(bytes) => self.pending.push_str(&String::from_utf8_lossy(&bytes)),
                Err(e) => panic!("no prompt from the simulator ({e}); so far: {}", self.pending),
            }
        }
    }

    fn command(&mut self, line: &str) -> String {
        writeln!(self.stdin, "{line}").and_then(|()| self.stdin.flush()).expect("the simulator reads its input");
        self.answer()
    }
}

impl Drop for Shell {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "exit");
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn simulator() -> PathBuf {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let path = std::env::var_os("CPU_USAGE_SIM").map(PathBuf::from).unwrap_or(root.join("build/posix/freertos-sim"));
    assert!(path.exists(), "{} is missing: build it with `make sim`", path.display());
    path
}

#[test]
fn trace_windows_add_up_to_the_reports() {
    let mut shell = Shell::start(&simulator());
    let set = shell.command("show_cpu_usage -w 200");
    assert!(set.contains("window set to 200 ms"), "{set}");
    let started = shell.command("cpu_usage_trace start");
    assert!(started.contains("cpu_usage_trace: on"), "{started}");
    assert!(!started.contains("no traced hook"), "the simulator is built without CPU_USAGE_TRACE: {started}");

    // Reports of distinct windows, for about a second (the ring holds more than that
    // at the simulator's rate of switches, but what it cannot hold is only lost from
    // its start).
    let mut reports: BTreeMap<u64, Window> = BTreeMap::new();
    let until = Instant::now() + Duration::from_millis(1000);
    while Instant::now() < until {
        for line in shell.command("show_cpu_usage -m -d").lines() {
            if let Line::Window(w) = parse_line(line) {
                reports.entry(w.window).or_insert(*w);
            }
        }
        thread::sleep(Duration::from_millis(40));
    }
    let dump = shell.command("cpu_usage_trace dump");
    let t = trace::parse(&dump).unwrap_or_else(|e| panic!("{e}\n{dump}"));
    let json: serde_json::Value = serde_json::from_str(&perfetto::to_json(&t)).expect("JSON");
    let marks = perfetto::window_marks(&json);
    // Each time is rounded to the unit of the JSON's last decimal, so an event's
    // duration is within one unit of the exact one, and a slot's total within one
    // unit per event.
    let unit = 10f64.powi(-(perfetto::decimals(t.hz) as i32));

    let mut checked = 0;
    for tw in t.windows() {
        let Some(w) = reports.get(&u64::from(tw.window)) else { continue };
        // The contract's own check (its length, each slot's counts), then the same by hand.
        assert_eq!(t.check_window(w), Ok(Some(tw)), "window {}", tw.window);
        assert_eq!(tw.end - tw.start, w.window_counts, "window {}: its length", tw.window);
        let want = t.report_counts(w);
        assert_eq!(t.slot_counts(tw.start, tw.end), want, "window {}: counts by slot", tw.window);

        let (start, end) = (marks[&u64::from(tw.window)], marks[&u64::from(tw.window + 1)]);
        let sums = perfetto::durations_in(&json, start, end);
        for (&id, &counts) in &want {
            let exact = counts as f64 * 1e6 / t.hz as f64;
            let (got, n) = sums.get(&u64::from(id)).copied().unwrap_or_default();
            assert!(
                (got - exact).abs() <= n as f64 * unit + 1e-6,
                "window {}, slot {id}: {got} µs in the JSON, {exact} µs exactly ({n} events)",
                tw.window
            );
        }
        checked += 1;
    }
    assert!(
        checked >= 2,
        "only {checked} windows both in the trace ({:?}) and read ({:?})",
        t.windows().iter().map(|w| w.window).collect::<Vec<_>>(),
        reports.keys().collect::<Vec<_>>()
    );
}
