//! One completed window as `show_cpu_usage -m` prints it, and the reading of the
//! console's lines into windows.
//!
//! A console line carries at most one report, after whatever the shell put before it
//! (a prompt, say): the report is the text from the line's first `{` to its end. A
//! line with no `{` is the shell's own text and is passed on; one whose JSON does not
//! parse, or parses to something other than a window report, is garbage: counted,
//! never fatal.

use freertos_cpu_usage_report::{parse, Report};

/// The report's types, from the crate that holds the report's contract.
pub use freertos_cpu_usage_report::{CoreLine, Idle, MoreTasks, Slots, Task, TaskPart, Window, WindowHead};

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

/// Reads one console line (without its line end). Fields the viewer does not know
/// are ignored, and those of earlier firmware missing are taken as 0: the viewer
/// reads any device, and leaves the report's invariants to the tests.
pub fn parse_line(line: &str) -> Line {
    let line = line.trim_end_matches(['\r', '\n']);
    let Some(start) = line.find('{') else {
        return Line::Text(line.to_owned());
    };
    let json = &line[start..];
    // The demo's watchdog alerts are JSON lines of their own: shell text to show.
    if serde_json::from_str::<serde_json::Value>(json).is_ok_and(|v| v.get("watchdog").is_some()) {
        return Line::Text(json.to_owned());
    }
    match parse(json) {
        Ok(Report::Window(w)) => Line::Window(w),
        // `{"mode":"window","error":"no completed window yet",...}`: not garbage, but no
        // window either; the shell's text.
        Ok(Report::NoWindow(_)) => Line::Text(json.to_owned()),
        Ok(Report::SinceStart(_)) => Line::Garbage("a report of mode \"cumulative\", not a window".to_owned()),
        Err(e) => Line::Garbage(e.detail),
    }
}

/// The device's note on a window's figures, as the shell's table puts it before the
/// table: `note: ...`. Only the POSIX simulator has one, when the host held back the
/// core it needs (the report's `"note"`); the viewer shows it as the device's text.
pub fn note_line(w: &Window) -> Option<String> {
    w.note.as_ref().map(|note| format!("note: {}", note.text))
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
