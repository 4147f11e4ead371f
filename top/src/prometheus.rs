//! The latest window in Prometheus' text exposition format (version 0.0.4), and a
//! small HTTP/1.1 server that hands it out at `GET /metrics`.
//!
//! Every metric is named `freertos_cpu_…` and carries a `device` label. The window's
//! figures are gauges of that window (a task's switches are the runs in that window,
//! not a running total); the two counters, `freertos_cpu_windows_total` and
//! `freertos_cpu_garbage_lines_total`, come from the reader ([`Stats`]). A device
//! that stops reporting keeps its last window on show; `rate(freertos_cpu_windows_total[1m]) == 0`
//! is the alert for it.
//!
//! A device of several cores adds `freertos_cpu_cores` and each core's figures, one
//! sample per core with a `core` label (`freertos_cpu_core_busy_percent`, ...): shares
//! of that core's time. Its other shares are of all the cores' time, as on the
//! device; a device of one core has neither.
//!
//! The server is std only: one thread accepts and answers one connection at a time,
//! each with [`IO_TIMEOUT`] to send its request and again to take the answer, so an idle or slow client
//! holds the others up by that much at most, and nothing a client sends can stop it.
//! Before the first window, `/metrics` answers 200 with the counters only: the
//! exporter is up, the device has nothing to say yet, and the window's gauges are
//! absent rather than made up. Any other path is 404; a method other than GET or
//! HEAD on `/metrics` is 405; a request that cannot be read is 400.

use std::fmt::Write as _;
use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::window::{CoreLine, Task, Window};

/// The `Content-Type` of a scrape.
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// How long the server waits on one client's reads and writes.
pub const IO_TIMEOUT: Duration = Duration::from_secs(5);

/// The longest request head read; a longer one is answered 400.
const MAX_REQUEST: usize = 8 * 1024;

/// The reader's own counts since it started, exported as counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Windows read.
    pub windows: u64,
    /// Console lines that were garbage.
    pub garbage_lines: u64,
}

/// The window's gauges, for `device`.
pub fn render_metrics(w: &Window, device: &str) -> String {
    let mut out = Exposition::new(device);
    out.gauge("freertos_cpu_window_number", "The window's number: windows the device completed since start.");
    out.sample(&[], w.window as f64);
    out.gauge("freertos_cpu_window_seconds", "The window's length.");
    out.sample(&[], w.window_us as f64 / 1e6);
    out.gauge("freertos_cpu_clock_hertz", "The rate of the clock the device measures with.");
    out.sample(&[("clock", &w.clock)], w.clock_hz as f64);

    out.gauge(
        "freertos_cpu_load_percent",
        "100 % minus idle and sleep: the share of the window spent on tasks and interrupts.",
    );
    out.sample(&[], w.load_pct);
    out.gauge("freertos_cpu_load_avg_percent", "The load smoothed over about 1 s, 10 s and 60 s.");
    // (An average that has taken in nothing yet is `null` on the device: no sample.)
    for (period, value) in ["1s", "10s", "60s"].iter().zip(w.load_avg_pct) {
        if let Some(value) = value {
            out.sample(&[("period", period)], value);
        }
    }
    if let Some(cores) = &w.per_core {
        per_core(&mut out, w.cores(), cores);
    }
    out.gauge("freertos_cpu_idle_percent", "The idle task's share of the window, sleep apart.");
    out.sample(&[], w.idle_pct);
    out.gauge("freertos_cpu_sleep_percent", "The share of the window spent in tickless sleep.");
    out.sample(&[], w.sleep_pct);
    out.gauge("freertos_cpu_interrupts_percent", "The share of the window spent in interrupt handlers.");
    out.sample(&[], w.interrupts_pct);
    out.gauge("freertos_cpu_other_percent", "The share of the window with no task switched in.");
    out.sample(&[], w.other_pct);
    out.gauge("freertos_cpu_interrupts", "Interrupt entries in the window.");
    out.sample(&[], w.interrupts as f64);
    out.gauge("freertos_cpu_longest_interrupt_seconds", "The window's longest interrupt handler.");
    out.sample(&[], w.longest_interrupt_us as f64 / 1e6);

    out.gauge("freertos_cpu_task_usage_percent", "A task's share of the window (the idle task apart).");
    out.per_task(&w.tasks, |t| t.usage_pct);
    out.gauge("freertos_cpu_task_switches", "Times a task was switched in during the window.");
    out.per_task(&w.tasks, |t| t.switches as f64);
    out.gauge("freertos_cpu_task_longest_slice_seconds", "A task's longest run in one go in the window.");
    out.per_task(&w.tasks, |t| t.longest_slice_us as f64 / 1e6);
    if let Some(more) = &w.more_tasks {
        out.gauge("freertos_cpu_more_tasks_percent", "The share of the tasks a `-n` report summed on one line.");
        out.sample(&[], more.usage_pct);
        out.gauge("freertos_cpu_more_tasks", "How many tasks a `-n` report summed on one line.");
        out.sample(&[], f64::from(more.count));
    }

    let s = &w.slots;
    out.gauge("freertos_cpu_slots_capacity", "Task IDs the library has.");
    out.sample(&[], f64::from(s.capacity));
    out.gauge("freertos_cpu_slots_used", "Task IDs held by live tasks.");
    out.sample(&[], f64::from(s.used));
    out.gauge("freertos_cpu_slots_quarantined", "Task IDs held back after a delete.");
    out.sample(&[], f64::from(s.quarantined));
    out.gauge("freertos_cpu_slots_free", "Task IDs free.");
    out.sample(&[], f64::from(s.free));
    out.gauge("freertos_cpu_slots_overflow_tasks", "Live tasks without an ID of their own, counted together on ID 0.");
    out.sample(&[], f64::from(s.overflow_tasks));
    out.text
}

/// The cores (several) and each one's figures, shares of its own time.
fn per_core(out: &mut Exposition, cores: u32, lines: &[CoreLine]) {
    out.gauge("freertos_cpu_cores", "The cores the device counts; the shares without a core label are of all of them.");
    out.sample(&[], f64::from(cores));
    out.gauge(
        "freertos_cpu_core_busy_percent",
        "A core's share of the window neither idle nor asleep: tasks and interrupts.",
    );
    out.per_core(lines, |c| c.busy_pct);
    out.gauge("freertos_cpu_core_idle_percent", "A core's share of the window in its idle task, sleep apart.");
    out.per_core(lines, |c| c.idle_pct);
    out.gauge("freertos_cpu_core_sleep_percent", "A core's share of the window in tickless sleep.");
    out.per_core(lines, |c| c.sleep_pct);
    out.gauge("freertos_cpu_core_interrupts_percent", "A core's share of the window in interrupt handlers.");
    out.per_core(lines, |c| c.interrupts_pct);
    out.gauge("freertos_cpu_core_interrupts", "Interrupt entries on a core in the window.");
    out.per_core(lines, |c| c.interrupts as f64);
}

/// The reader's counters, for `device`.
pub fn render_stats(stats: &Stats, device: &str) -> String {
    let mut out = Exposition::new(device);
    out.counter("freertos_cpu_windows_total", "Windows read from the device.");
    out.sample(&[], stats.windows as f64);
    out.counter("freertos_cpu_garbage_lines_total", "Console lines that looked like a report but could not be read.");
    out.sample(&[], stats.garbage_lines as f64);
    out.text
}

/// Text being written in the exposition format.
struct Exposition<'d> {
    text: String,
    device: &'d str,
    /// The family being written: its samples take this name.
    name: &'static str,
}

impl<'d> Exposition<'d> {
    fn new(device: &'d str) -> Self {
        Exposition { text: String::new(), device, name: "" }
    }

    fn gauge(&mut self, name: &'static str, help: &str) {
        self.family(name, help, "gauge");
    }

    fn counter(&mut self, name: &'static str, help: &str) {
        self.family(name, help, "counter");
    }

    fn family(&mut self, name: &'static str, help: &str, kind: &str) {
        self.name = name;
        let _ = writeln!(self.text, "# HELP {name} {}", escape(help, false));
        let _ = writeln!(self.text, "# TYPE {name} {kind}");
    }

    fn sample(&mut self, labels: &[(&str, &str)], value: f64) {
        let _ = write!(self.text, "{}{{device=\"{}\"", self.name, escape(self.device, true));
        for (k, v) in labels {
            let _ = write!(self.text, ",{k}=\"{}\"", escape(v, true));
        }
        let _ = writeln!(self.text, "}} {}", number(value));
    }

    /// One sample per core, labelled with its number.
    fn per_core(&mut self, lines: &[CoreLine], value: impl Fn(&CoreLine) -> f64) {
        for c in lines {
            self.sample(&[("core", &c.core.to_string())], value(c));
        }
    }

    /// One sample per task, labelled with its name and ID (together they tell tasks apart).
    fn per_task(&mut self, tasks: &[Task], value: impl Fn(&Task) -> f64) {
        for t in tasks {
            let id = t.id.to_string();
            self.sample(&[("task", &t.name), ("id", &id)], value(t));
        }
    }
}

/// Escapes a label value (backslash, double quote, line feed) or a HELP text
/// (backslash and line feed only), as the format asks.
fn escape(text: &str, label: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '"' if label => out.push_str("\\\""),
            c => out.push(c),
        }
    }
    out
}

/// A sample value as the format spells it (Go's float syntax: `NaN`, `+Inf`, `-Inf`).
fn number(v: f64) -> String {
    if v.is_nan() {
        "NaN".to_owned()
    } else if v.is_infinite() {
        if v > 0.0 { "+Inf" } else { "-Inf" }.to_owned()
    } else {
        v.to_string()
    }
}

/// What the server shows, shared with the thread that answers.
#[derive(Debug, Default)]
struct State {
    window: Option<Window>,
    stats: Stats,
}

/// A running `/metrics` endpoint. Dropping it stops the server.
#[derive(Debug)]
pub struct Exporter {
    state: Arc<Mutex<State>>,
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Exporter {
    /// Listens on `addr` (`"0.0.0.0:9464"`; port 0 picks a free one) and answers
    /// scrapes for `device` from a thread of its own.
    pub fn serve(addr: &str, device: String) -> io::Result<Exporter> {
        let listener = TcpListener::bind(addr)?;
        let addr = listener.local_addr()?;
        let state = Arc::new(Mutex::new(State::default()));
        let stop = Arc::new(AtomicBool::new(false));
        let thread = std::thread::Builder::new().name("metrics".to_owned()).spawn({
            let (state, stop) = (Arc::clone(&state), Arc::clone(&stop));
            move || accept(&listener, &state, &stop, &device)
        })?;
        Ok(Exporter { state, addr, stop, thread: Some(thread) })
    }

    /// The address it listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// Shows `w` from the next scrape on, with the reader's counts.
    pub fn update(&self, w: &Window, stats: Stats) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.window = Some(w.clone());
        state.stats = stats;
    }
}

impl Drop for Exporter {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wakes the thread from `accept` so it sees the flag.
        let mut wake = self.addr;
        if wake.ip().is_unspecified() {
            wake.set_ip(if wake.is_ipv4() { [127, 0, 0, 1].into() } else { std::net::Ipv6Addr::LOCALHOST.into() });
        }
        if TcpStream::connect_timeout(&wake, Duration::from_secs(1)).is_ok() {
            if let Some(thread) = self.thread.take() {
                let _ = thread.join();
            }
        }
    }
}

fn accept(listener: &TcpListener, state: &Mutex<State>, stop: &AtomicBool, device: &str) {
    for stream in listener.incoming() {
        if stop.load(Ordering::SeqCst) {
            return;
        }
        match stream {
            // A client that goes away mid-answer is its own problem, not the server's.
            Ok(stream) => {
                let _ = answer(stream, state, device);
            }
            // Out of file descriptors, say: wait a little rather than spin.
            Err(_) => std::thread::sleep(Duration::from_millis(50)),
        }
    }
}

fn answer(mut stream: TcpStream, state: &Mutex<State>, device: &str) -> io::Result<()> {
    stream.set_write_timeout(Some(IO_TIMEOUT))?;
    let response = match read_head(&mut stream) {
        Ok(head) => respond(&head, state, device),
        Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut) => return Ok(()),
        Err(_) => Response::status(400, "Bad Request", "cannot read the request\n"),
    };
    stream.write_all(&response.bytes())?;
    stream.flush()?;
    // The request's body, if any, was not read: close the write side first, so the
    // client gets the whole answer rather than a reset.
    stream.shutdown(Shutdown::Write)
}

/// Reads up to the blank line that ends a request's head, within [`IO_TIMEOUT`] in
/// all: a client sending a byte now and then does not get to restart the clock.
fn read_head(stream: &mut TcpStream) -> io::Result<String> {
    let deadline = Instant::now() + IO_TIMEOUT;
    let mut head = Vec::new();
    let mut buf = [0u8; 1024];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(io::ErrorKind::TimedOut.into());
        }
        stream.set_read_timeout(Some(left))?;
        let n = stream.read(&mut buf)?;
        if n == 0 {
            return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "the request ended before its blank line"));
        }
        head.extend_from_slice(&buf[..n]);
        if let Some(end) = find(&head, b"\r\n\r\n").or_else(|| find(&head, b"\n\n")) {
            head.truncate(end);
            return String::from_utf8(head).map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "not UTF-8"));
        }
        if head.len() > MAX_REQUEST {
            return Err(io::Error::new(io::ErrorKind::InvalidData, "request head too long"));
        }
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn respond(head: &str, state: &Mutex<State>, device: &str) -> Response {
    let mut parts = head.lines().next().unwrap_or("").split(' ');
    let (Some(method), Some(target), Some(version), None) = (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Response::status(400, "Bad Request", "not an HTTP request line\n");
    };
    if !version.starts_with("HTTP/1.") {
        return Response::status(400, "Bad Request", "not HTTP/1.x\n");
    }
    let path = target.split(['?', '#']).next().unwrap_or("");
    if path != "/metrics" {
        return Response::status(404, "Not Found", "not found: the metrics are at /metrics\n");
    }
    let head_only = match method {
        "GET" => false,
        "HEAD" => true,
        _ => {
            let mut r = Response::status(405, "Method Not Allowed", "only GET and HEAD\n");
            r.headers.push(("Allow", "GET, HEAD".to_owned()));
            return r;
        }
    };
    let body = {
        let state = state.lock().unwrap_or_else(PoisonError::into_inner);
        let mut body = state.window.as_ref().map(|w| render_metrics(w, device)).unwrap_or_default();
        body += &render_stats(&state.stats, device);
        body
    };
    Response { code: 200, reason: "OK", headers: vec![("Content-Type", CONTENT_TYPE.to_owned())], body, head_only }
}

struct Response {
    code: u16,
    reason: &'static str,
    headers: Vec<(&'static str, String)>,
    body: String,
    head_only: bool,
}

impl Response {
    fn status(code: u16, reason: &'static str, body: &str) -> Response {
        let headers = vec![("Content-Type", "text/plain; charset=utf-8".to_owned())];
        Response { code, reason, headers, body: body.to_owned(), head_only: false }
    }

    fn bytes(&self) -> Vec<u8> {
        let mut out = format!("HTTP/1.1 {} {}\r\n", self.code, self.reason);
        for (name, value) in &self.headers {
            let _ = write!(out, "{name}: {value}\r\n");
        }
        let _ = write!(out, "Content-Length: {}\r\nConnection: close\r\n\r\n", self.body.len());
        if !self.head_only {
            out += &self.body;
        }
        out.into_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::window::{Slots, TaskPart, WindowHead};

    #[test]
    fn label_values_are_escaped() {
        assert_eq!(escape(r#"a\b"c"#, true), r#"a\\b\"c"#);
        assert_eq!(escape("two\nlines", true), "two\\nlines");
        assert_eq!(escape(r#"say "hi"\"#, false), r#"say "hi"\\"#);
    }

    #[test]
    fn values_use_the_formats_spelling() {
        assert_eq!(number(79.78), "79.78");
        assert_eq!(number(0.0), "0");
        assert_eq!(number(0.000_001), "0.000001");
        assert_eq!(number(f64::NAN), "NaN");
        assert_eq!(number(f64::NEG_INFINITY), "-Inf");
    }

    #[test]
    fn a_window_in_the_exposition_format() {
        let w = Window {
            head: WindowHead { window: 7, window_us: 500_000, ..WindowHead::default() },
            clock: "dwt".to_owned(),
            clock_hz: 64_000_000,
            slots: Slots { capacity: 8, used: 2, quarantined: 1, free: 5, overflow_tasks: 0 },
            tasks: vec![Task {
                id: 3,
                name: "rx \"q\"".to_owned(),
                part: TaskPart { usage_pct: 12.5, ..TaskPart::default() },
                switches: 40,
                longest_slice_us: 1500,
                ..Task::default()
            }],
            load_pct: 20.25,
            load_avg_pct: [Some(20.0), Some(19.5), Some(19.0)],
            ..Window::default()
        };
        let text = render_metrics(&w, "board\\1");
        let expected = [
            "# HELP freertos_cpu_window_number The window's number: windows the device completed since start.",
            "# TYPE freertos_cpu_window_number gauge",
            "freertos_cpu_window_number{device=\"board\\\\1\"} 7",
            "freertos_cpu_window_seconds{device=\"board\\\\1\"} 0.5",
            "freertos_cpu_clock_hertz{device=\"board\\\\1\",clock=\"dwt\"} 64000000",
            "freertos_cpu_load_percent{device=\"board\\\\1\"} 20.25",
            "freertos_cpu_load_avg_percent{device=\"board\\\\1\",period=\"10s\"} 19.5",
            "freertos_cpu_task_usage_percent{device=\"board\\\\1\",task=\"rx \\\"q\\\"\",id=\"3\"} 12.5",
            "freertos_cpu_task_switches{device=\"board\\\\1\",task=\"rx \\\"q\\\"\",id=\"3\"} 40",
            "freertos_cpu_task_longest_slice_seconds{device=\"board\\\\1\",task=\"rx \\\"q\\\"\",id=\"3\"} 0.0015",
            "freertos_cpu_slots_free{device=\"board\\\\1\"} 5",
        ];
        for line in expected {
            assert!(text.lines().any(|l| l == line), "missing {line:?} in\n{text}");
        }
        assert!(!text.contains("more_tasks"));
        // Each family's HELP and TYPE once, before its samples.
        let mut seen = std::collections::HashSet::new();
        for line in text.lines().filter(|l| l.starts_with("# TYPE ")) {
            assert!(seen.insert(line.split(' ').nth(2).unwrap()), "{line} twice");
        }
        assert!(text.lines().all(|l| l.starts_with('#') || l.starts_with("freertos_cpu_")));
    }

    #[test]
    fn counters() {
        let text = render_stats(&Stats { windows: 12, garbage_lines: 1 }, "d");
        assert_eq!(
            text,
            "# HELP freertos_cpu_windows_total Windows read from the device.\n\
             # TYPE freertos_cpu_windows_total counter\n\
             freertos_cpu_windows_total{device=\"d\"} 12\n\
             # HELP freertos_cpu_garbage_lines_total Console lines that looked like a report but could not be read.\n\
             # TYPE freertos_cpu_garbage_lines_total counter\n\
             freertos_cpu_garbage_lines_total{device=\"d\"} 1\n"
        );
    }

    #[test]
    fn requests() {
        let state = Mutex::new(State::default());
        let r = respond("GET /metrics HTTP/1.1\r\nHost: x", &state, "d");
        assert_eq!((r.code, r.body.contains("freertos_cpu_windows_total")), (200, true));
        assert!(!r.body.contains("freertos_cpu_load_percent"));
        assert_eq!(respond("GET /metrics?x=1 HTTP/1.0", &state, "d").code, 200);
        assert!(respond("HEAD /metrics HTTP/1.1", &state, "d").head_only);
        assert_eq!(respond("GET / HTTP/1.1", &state, "d").code, 404);
        assert_eq!(respond("POST /metrics HTTP/1.1", &state, "d").code, 405);
        assert_eq!(respond("GET /metrics", &state, "d").code, 400);
        assert_eq!(respond("GET /metrics SPDY/3", &state, "d").code, 400);
        assert_eq!(respond("\u{0}\u{1}garbage", &state, "d").code, 400);
    }
}
