//! One completed window as `show_cpu_usage -m` prints it, and the reading of the
//! console's lines into windows.
//!
//! A console line carries at most one report, after whatever the shell put before it
//! (a prompt, say): the report is the text from the line's first `{` to its end. A
//! line with no `{` is the shell's own text and is passed on; one whose JSON does not
//! parse, or parses to something other than a window report, is garbage: counted,
//! never fatal.

use serde::{Deserialize, Serialize};

/// A task's line of a window.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Task {
    /// The library's ID: 0 is the shared overflow bucket.
    pub id: u32,
    /// The task's name (`(overflow)` for the shared bucket).
    pub name: String,
    /// Clock counts the task ran in the window.
    pub counts: u64,
    /// Its share of the window, in percent (two decimals on the device).
    pub usage_pct: f64,
    /// Deleted during the window.
    #[serde(default)]
    pub deleted: bool,
    /// Runs that touched the window.
    #[serde(default)]
    pub switches: u64,
    /// Its longest run in the window, in microseconds.
    #[serde(default)]
    pub longest_slice_us: u64,
}

/// The idle task's line.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Idle {
    /// Its ID.
    pub id: u32,
    /// Its name (FreeRTOS's `IDLE`, unless configured otherwise).
    pub name: String,
    /// Clock counts it ran (awake) in the window.
    pub counts: u64,
    /// Runs that touched the window.
    #[serde(default)]
    pub switches: u64,
    /// Its longest run, in microseconds.
    #[serde(default)]
    pub longest_slice_us: u64,
}

/// The ID pool.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Slots {
    /// IDs in all (`CPU_USAGE_MAX_TASKS`).
    pub capacity: u32,
    /// Held by live tasks.
    pub used: u32,
    /// Held back after a delete until the dead task's windows are gone.
    pub quarantined: u32,
    /// Ready to hand out.
    pub free: u32,
    /// Live tasks without an ID of their own, sharing ID 0.
    pub overflow_tasks: u32,
}

/// The tasks a `-n N` report summed on one line.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MoreTasks {
    /// How many tasks.
    pub count: u32,
    /// Their clock counts together.
    pub counts: u64,
    /// Their share together, in percent.
    pub usage_pct: f64,
}

/// One completed window (`"mode":"window"`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Window {
    /// `"window"`: kept so that a window written back out (`--record`) reads as the
    /// device's report did.
    pub mode: String,
    /// The window's number: windows completed since start.
    pub window: u64,
    /// Its length in microseconds.
    pub window_us: u64,
    /// Its length in clock counts: what every line's counts add up to.
    pub window_counts: u64,
    /// The clock's name (`monotonic`, `dwt-cyccnt`, `systick`, ...).
    pub clock: String,
    /// The clock's rate.
    pub clock_hz: u64,
    /// The ID pool.
    pub slots: Slots,
    /// Every task that ran or existed in the window but the idle task.
    pub tasks: Vec<Task>,
    /// The tasks a `-n` report (or [`Window::top`]) summed on one line.
    #[serde(default)]
    pub more_tasks: Option<MoreTasks>,
    /// The idle task; `None` before the scheduler started.
    pub idle: Option<Idle>,
    /// Clock counts in interrupt handlers.
    pub interrupts_counts: u64,
    /// Their share, in percent.
    pub interrupts_pct: f64,
    /// Interrupt entries in the window.
    pub interrupts: u64,
    /// The longest interrupt, in microseconds.
    pub longest_interrupt_us: u64,
    /// Clock counts asleep in tickless idle.
    pub sleep_counts: u64,
    /// Their share, in percent.
    pub sleep_pct: f64,
    /// Times the idle task went to sleep.
    pub sleeps: u64,
    /// Clock counts with no task switched in.
    pub other_counts: u64,
    /// Their share, in percent.
    pub other_pct: f64,
    /// The idle task's share (awake), in percent.
    pub idle_pct: f64,
    /// 100 % − idle − sleep.
    pub load_pct: f64,
    /// The load smoothed over 1, 10 and 60 s.
    pub load_avg_pct: [f64; 3],
}

impl Window {
    /// The task with this name, if it ran in the window (the first, if two share it).
    pub fn task(&self, name: &str) -> Option<&Task> {
        self.tasks.iter().find(|t| t.name == name)
    }

    /// The window as `-n N` would have reported it: the `n` largest tasks (ties by
    /// ID), the rest summed into `more_tasks` (with any the device had summed).
    pub fn top(&self, n: usize) -> Window {
        let mut w = self.clone();
        w.tasks.sort_by(|a, b| b.counts.cmp(&a.counts).then(a.id.cmp(&b.id)));
        if w.tasks.len() > n {
            let rest = w.tasks.split_off(n);
            let more = w.more_tasks.get_or_insert_with(MoreTasks::default);
            for t in rest {
                more.count += 1;
                more.counts += t.counts;
                more.usage_pct += t.usage_pct;
            }
            more.usage_pct = (more.usage_pct * 100.0).round() / 100.0;
        }
        w
    }
}

/// What one console line holds.
#[derive(Clone, Debug, PartialEq)]
pub enum Line {
    /// A window report.
    Window(Box<Window>),
    /// The shell's own text (no report on the line).
    Text(String),
    /// A report that is cut, corrupted, or not a window's: why.
    Garbage(String),
}

/// Reads one console line (without its line end).
pub fn parse_line(line: &str) -> Line {
    let line = line.trim_end_matches(['\r', '\n']);
    let Some(start) = line.find('{') else {
        return Line::Text(line.to_owned());
    };
    let json = &line[start..];
    let value: serde_json::Value = match serde_json::from_str(json) {
        Ok(v) => v,
        Err(e) => return Line::Garbage(format!("not JSON ({e})")),
    };
    match value.get("mode").and_then(|m| m.as_str()) {
        Some("window") => {}
        Some(other) => return Line::Garbage(format!("a report of mode {other:?}, not a window")),
        // The demo's watchdog alerts are JSON lines of their own: shell text to show.
        None if value.get("watchdog").is_some() => return Line::Text(json.to_owned()),
        None if value.get("error").is_some() => return Line::Garbage(format!("an error report: {json}")),
        None => return Line::Garbage("JSON without a \"mode\"".to_owned()),
    }
    if value.get("error").is_some() {
        // `{"mode":"window","error":"no completed window yet",...}`: not garbage, but no
        // window either; the shell's text.
        return Line::Text(json.to_owned());
    }
    match serde_json::from_value::<Window>(value) {
        Ok(w) => Line::Window(Box::new(w)),
        Err(e) => Line::Garbage(format!("a window report with a bad field ({e})")),
    }
}

/// Splits a byte stream into lines and reads them, counting what it skips.
#[derive(Debug, Default)]
pub struct LineReader {
    pending: Vec<u8>,
    /// Lines that were garbage, since start.
    pub garbage: u64,
    /// The last garbage line's reason.
    pub last_garbage: Option<String>,
}

/// Longest line kept: a report of 256 tasks is about 40 KB; anything longer is noise.
const MAX_LINE: usize = 256 * 1024;

impl LineReader {
    /// Feeds bytes; returns the lines they complete, read.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<Line> {
        let mut out = Vec::new();
        for &b in bytes {
            if b == b'\n' {
                let text = String::from_utf8_lossy(&self.pending).into_owned();
                self.pending.clear();
                let line = parse_line(&text);
                if let Line::Garbage(why) = &line {
                    self.garbage += 1;
                    self.last_garbage = Some(why.clone());
                }
                out.push(line);
            } else if self.pending.len() < MAX_LINE {
                self.pending.push(b);
            }
        }
        out
    }

    /// Forgets a partial line (after a dropped connection: its rest will not come).
    pub fn reset(&mut self) {
        self.pending.clear();
    }
}

/// The device's watchdog thresholds, as `cpu_usage_watchdog` (no arguments) prints
/// them: `watchdog: load > 80.00% for 3 windows; slice > 5000 us`, either half `off`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Watchdogs {
    /// Load above this percentage (for some windows in a row).
    pub load_pct: Option<f64>,
    /// A run longer than this many microseconds.
    pub slice_us: Option<u64>,
}

/// Reads a `cpu_usage_watchdog` settings line (after any prompt); `None` for any
/// other line, the watchdogs' alerts included.
pub fn parse_watchdogs(line: &str) -> Option<Watchdogs> {
    let at = line.find("watchdog: load ")?;
    let (load, slice) = line[at + "watchdog: ".len()..].trim_end().split_once("; ")?;
    let load_pct = match load {
        "load off" => None,
        _ => {
            let rest = load.strip_prefix("load > ")?;
            let (pct, windows) = rest.split_once("% for ")?;
            windows.strip_suffix(" windows").or_else(|| windows.strip_suffix(" window"))?.parse::<u32>().ok()?;
            Some(pct.parse().ok()?)
        }
    };
    let slice_us = match slice {
        "slice off" => None,
        _ => Some(slice.strip_prefix("slice > ")?.strip_suffix(" us")?.parse().ok()?),
    };
    Some(Watchdogs { load_pct, slice_us })
}
