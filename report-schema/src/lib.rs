//! The contract of freertos-cpu-usage's reports, for every program that reads them:
//! the viewer (`cpu-usage-top`), the system tests and the fuzz model.
//!
//! - [`Window`] and [`SinceStart`]: `show_cpu_usage -m` and `show_cpu_usage -c -m`,
//!   one line of JSON each, every field with its unit ([`types`]), and the board's
//!   [`Note`] on the figures that the demo's shell may add as the last member;
//! - [`check`]: the invariants every report keeps (counts add up to the span exactly,
//!   shares to exactly 100.00, the ID pool to its capacity, ...), each a method that
//!   names the invariant a report breaks ([`Invariant`]);
//! - [`readout`]: the read-out block a debugger reads the last window through;
//! - [`trace`]: the `cpu_usage_trace dump` text, and its agreement with a window's
//!   report.
//!
//! Two ways to read a report: [`parse`] takes what the types need and ignores fields
//! it does not know (a viewer reading newer firmware); [`parse_exact`] also requires
//! the report to be exactly what the types write back, and every invariant to hold
//! (the tests: a field the library adds must be added here).

#![deny(missing_docs)]

pub mod check;
pub mod readout;
pub mod trace;
pub mod types;
mod wire;

#[cfg(test)]
mod tests;

pub use check::{Broken, Invariant, Shown};
pub use types::{
    CoreLine, DeletedTasks, History, Idle, IdlePart, InWindow, Line, LinePart, MoreTasks, NoCount, NoWindow, Note,
    Report, SinceStart, SinceStartHead, Slots, Span, Task, TaskHistory, TaskPart, Usage, Window, WindowHead,
};
pub use wire::{hundredths_of, pct_text};

use serde::Deserialize;

/// The bytes a name in a report stands for (each character one byte: the device
/// writes every byte outside printable ASCII as `\u00XX`); `None` if a character is
/// past U+00FF, which the device never writes.
pub fn name_bytes(name: &str) -> Option<Vec<u8>> {
    wire::name_bytes(name)
}

/// Just enough of a report to know which it is.
#[derive(Deserialize)]
struct Head {
    mode: Option<String>,
    error: Option<serde_json::Value>,
}

fn shape(detail: String) -> Broken {
    Broken { invariant: Invariant::Shape, detail }
}

/// Reads one report (the JSON object, with or without its line end): a window, a
/// since-start report or the answer before the first window, by its `mode` and
/// `error`. Fields the types do not know are ignored; the invariants are not checked
/// (see [`parse_exact`]).
pub fn parse(json: &str) -> Result<Report, Broken> {
    let head: Head = serde_json::from_str(json).map_err(|e| shape(format!("not a JSON object ({e})")))?;
    let typed = |e: serde_json::Error| {
        let mode = head.mode.as_deref().unwrap_or_default();
        shape(format!("a {mode:?} report with a bad field: missing or of the wrong type ({e})"))
    };
    match (head.mode.as_deref(), head.error.is_some()) {
        (Some("window"), true) => Ok(Report::NoWindow(serde_json::from_str(json).map_err(typed)?)),
        (Some("window"), false) => Ok(Report::Window(serde_json::from_str(json).map_err(typed)?)),
        (Some("cumulative"), false) => Ok(Report::SinceStart(serde_json::from_str(json).map_err(typed)?)),
        (Some(mode), _) => Err(shape(format!("a report of mode {mode:?}"))),
        (None, _) => Err(shape("no \"mode\"".into())),
    }
}

/// Reads one report as [`parse`] does, then holds it to the whole contract: the text
/// is one line, the types write it back byte for byte ([`Invariant::Text`]), and
/// every invariant holds ([`Window::check`], [`SinceStart::check`]).
pub fn parse_exact(text: &str) -> Result<Report, Broken> {
    let line = text.strip_suffix('\n').unwrap_or(text);
    if line.contains(['\n', '\r']) {
        return Err(Broken { invariant: Invariant::Text, detail: format!("more than one line: {text:?}") });
    }
    let report = parse(line)?;
    let written = match &report {
        Report::Window(w) => serde_json::to_string(w),
        Report::SinceStart(s) => serde_json::to_string(s),
        Report::NoWindow(n) => serde_json::to_string(n),
    };
    let written = written.map_err(|e| shape(format!("cannot be written out ({e})")))?;
    if written != line {
        let at = written.bytes().zip(line.bytes()).take_while(|(a, b)| a == b).count();
        let from = at.saturating_sub(40);
        let (mut a, mut b) = (from, from);
        // (Byte offsets; step back to the character boundaries.)
        while !line.is_char_boundary(a) {
            a -= 1;
        }
        while !written.is_char_boundary(b) {
            b -= 1;
        }
        return Err(Broken {
            invariant: Invariant::Text,
            detail: format!(
                "written back, it differs at byte {at}: the device wrote ...{:?}, the types write ...{:?}",
                line.get(a..).unwrap_or(""),
                written.get(b..).unwrap_or("")
            ),
        });
    }
    match &report {
        Report::Window(w) => w.check()?,
        Report::SinceStart(s) => s.check()?,
        Report::NoWindow(n) => {
            if n.error != "no completed window yet" {
                return Err(shape(format!("error {:?}", n.error)));
            }
        }
    }
    Ok(report)
}

impl Report {
    /// The window report, if it is one.
    pub fn window(self) -> Option<Window> {
        match self {
            Report::Window(w) => Some(*w),
            _ => None,
        }
    }

    /// The since-start report, if it is one.
    pub fn since_start(self) -> Option<SinceStart> {
        match self {
            Report::SinceStart(s) => Some(*s),
            _ => None,
        }
    }
}
