//! The device's event trace, as `cpu_usage_trace dump` prints it, and what it must
//! agree on with the window reports ([`Trace::check_window`]).
//!
//! The dump (the library's `src/trace.rs` documents it):
//!
//! ```text
//! cpu_usage_trace v1 hz=<Hz> ids=<MAX_TASKS> events=<n> lost=<n> t0=<hex>*hh
//! N <id> <name>*hh
//! E <index> <dt>.<from>.<to> <dt>.w<window> ...*hh
//! end events=<n>*hh
//! ```
//!
//! Every line ends in `*` and the XOR of the bytes before it, in hex. The text before
//! the header line (the shell's echo, say) is skipped, and so is anything on the
//! header line before `cpu_usage_trace` (a prompt); carriage returns are ignored.
//! Everything after it must be the dump, whole: a missing line, a garbled one, a
//! count that does not add up is an error that names the line, never a guess.
//!
//! Time: the dump gives each event's difference from the one before, in counts of a
//! 32-bit clock; the device guarantees consecutive events less than 2^32 counts apart
//! (a window marker at least every 2^31 counts), so adding them up gives exact
//! 64-bit times, from 0 at the first event.

use std::collections::BTreeMap;
use std::fmt;

use crate::check::{Broken, Invariant};
use crate::types::Window;

/// What happened at an instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The device stopped charging `from` and started charging `to`; `from == to` is
    /// where recording started or stopped.
    Switch {
        /// The slot charged until now.
        from: u32,
        /// The slot charged from now on.
        to: u32,
    },
    /// Window `n` (as `show_cpu_usage` numbers windows) starts here; the one before
    /// ends.
    Window(u32),
}

/// One event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Event {
    /// Clock counts since the first event of the dump.
    pub t: u64,
    /// What happened.
    pub kind: Kind,
}

/// A parsed dump.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Trace {
    /// Clock counts per second.
    pub hz: u64,
    /// The device's task IDs: `1..=ids`; then interrupts, sleep and other.
    pub ids: u32,
    /// Events the device overwrote before the dump (the oldest ones).
    pub lost: u64,
    /// The clock's reading at the first event.
    pub t0: u32,
    /// Recording stopped because the device's accounting restarted.
    pub restarted: bool,
    /// Slot names, by ID.
    pub names: BTreeMap<u32, String>,
    /// The events, oldest first.
    pub events: Vec<Event>,
}

/// Why a dump could not be read: the line (from 1, in the text given) and what is
/// wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// The line, counted from 1.
    pub line: usize,
    /// What is wrong with it.
    pub what: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "trace dump, line {}: {}", self.line, self.what)
    }
}

impl std::error::Error for ParseError {}

/// A window of the trace: `[start, end)` in the trace's counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceWindow {
    /// The window's number.
    pub window: u32,
    /// Its start, in the trace's counts.
    pub start: u64,
    /// Its end (the next window's start).
    pub end: u64,
}

impl Trace {
    /// The interrupts slot's ID.
    pub fn interrupts_id(&self) -> u32 {
        self.ids + 1
    }

    /// The sleep slot's ID.
    pub fn sleep_id(&self) -> u32 {
        self.ids + 2
    }

    /// The ID of "other" (no task switched in).
    pub fn other_id(&self) -> u32 {
        self.ids + 3
    }

    /// A slot's name: the dump's, or its ID in brackets.
    pub fn name(&self, id: u32) -> String {
        self.names.get(&id).cloned().unwrap_or_else(|| format!("[{id}]"))
    }

    /// Every window whose start and end markers are both in the trace.
    pub fn windows(&self) -> Vec<TraceWindow> {
        let marks: Vec<(u32, u64)> = self
            .events
            .iter()
            .filter_map(|e| match e.kind {
                Kind::Window(n) => Some((n, e.t)),
                Kind::Switch { .. } => None,
            })
            .collect();
        marks
            .windows(2)
            .filter(|m| m[1].0 == m[0].0.wrapping_add(1))
            .map(|m| TraceWindow { window: m[0].0, start: m[0].1, end: m[1].1 })
            .collect()
    }

    /// The spans of the trace: `(slot, start, end)` for each stretch of time the
    /// device charged to one slot, from the first event to the last.
    pub fn spans(&self) -> Vec<(u32, u64, u64)> {
        let mut spans = Vec::new();
        let mut cur: Option<(u32, u64)> = None;
        for e in &self.events {
            if let Kind::Switch { from, to } = e.kind {
                if let Some((slot, start)) = cur {
                    // (`parse` checked that `from` is `slot`.)
                    let _ = from;
                    if e.t > start {
                        spans.push((slot, start, e.t));
                    }
                }
                cur = Some((to, e.t));
            }
        }
        spans
    }

    /// Each slot's counts in `[start, end)`; slots with none are left out. Exact
    /// where the trace covers the interval.
    pub fn slot_counts(&self, start: u64, end: u64) -> BTreeMap<u32, u64> {
        let mut sums = BTreeMap::new();
        for (slot, a, b) in self.spans() {
            let (a, b) = (a.max(start), b.min(end));
            if b > a {
                *sums.entry(slot).or_insert(0) += b - a;
            }
        }
        sums
    }

    /// A window report's counts by slot, numbered as the trace numbers slots (what
    /// `slot_counts` over that window must equal); slots with none left out.
    pub fn report_counts(&self, w: &Window) -> BTreeMap<u32, u64> {
        let mut counts: BTreeMap<u32, u64> = w.tasks.iter().map(|task| (task.id, task.counts)).collect();
        if let Some(idle) = &w.idle {
            counts.insert(idle.id, idle.counts);
        }
        counts.insert(self.interrupts_id(), w.interrupts_counts);
        counts.insert(self.sleep_id(), w.sleep_counts);
        counts.insert(self.other_id(), w.other_counts);
        counts.retain(|_, c| *c != 0);
        counts
    }
}

impl Trace {
    /// A window report against this trace: when the trace holds the window whole
    /// (its start and end markers), its length is the report's `window_counts` and
    /// each slot's time in it is the report's counts for that slot, exactly (both
    /// are sums of the same clock readings). `Ok(None)` when the trace does not hold
    /// the window; the window's place in the trace otherwise.
    pub fn check_window(&self, w: &Window) -> Result<Option<TraceWindow>, Broken> {
        let Some(tw) = self.windows().into_iter().find(|tw| u64::from(tw.window) == w.window) else {
            return Ok(None);
        };
        let broken = |detail: String| Broken { invariant: Invariant::Trace, detail };
        if tw.end - tw.start != w.window_counts {
            return Err(broken(format!(
                "window {}: {} counts between its markers, {} in its report",
                tw.window,
                tw.end - tw.start,
                w.window_counts
            )));
        }
        let (traced, reported) = (self.slot_counts(tw.start, tw.end), self.report_counts(w));
        if traced != reported {
            return Err(broken(format!(
                "window {}: counts by slot {traced:?} in the trace, {reported:?} in its report",
                tw.window
            )));
        }
        Ok(Some(tw))
    }
}

fn err(line: usize, what: impl Into<String>) -> ParseError {
    ParseError { line, what: what.into() }
}

/// The line's text without its checksum, if the checksum is right.
fn checked(n: usize, line: &str) -> Result<&str, ParseError> {
    let Some((body, sum)) = line.rsplit_once('*') else {
        return Err(err(n, format!("no checksum at the end of {line:?} (cut or garbled)")));
    };
    let want = body.bytes().fold(0u8, |x, b| x ^ b);
    match u8::from_str_radix(sum, 16) {
        Ok(got) if sum.len() == 2 && got == want => Ok(body),
        _ => Err(err(n, format!("checksum {sum:?} does not match the line (it should be {want:02x}): garbled"))),
    }
}

/// The value of `key=` among the header's words.
fn field<'a>(n: usize, words: &[&'a str], key: &str) -> Result<&'a str, ParseError> {
    words
        .iter()
        .find_map(|w| w.strip_prefix(key).and_then(|v| v.strip_prefix('=')))
        .ok_or_else(|| err(n, format!("the header has no {key}=")))
}

fn number<T: std::str::FromStr>(n: usize, text: &str, what: &str) -> Result<T, ParseError> {
    text.parse().map_err(|_| err(n, format!("{what} {text:?} is not a number")))
}

/// What a dump's header line starts with (after any prompt).
pub const HEADER: &str = "cpu_usage_trace v1 ";
/// What a dump's last line starts with.
pub const END: &str = "end ";

/// Reads a dump out of `text`: whatever comes before the header line is skipped.
pub fn parse(text: &str) -> Result<Trace, ParseError> {
    let mut lines = text.split('\n').map(|l| l.trim_end_matches('\r')).enumerate().map(|(i, l)| (i + 1, l));
    let (n, header) = loop {
        match lines.next() {
            Some((n, l)) => {
                if let Some(at) = l.find(HEADER) {
                    break (n, &l[at..]);
                }
            }
            None => return Err(err(text.split('\n').count(), "no dump header (\"cpu_usage_trace v1 ...\") found")),
        }
    };
    let body = checked(n, header)?;
    let words: Vec<&str> = body.split(' ').collect();
    let mut trace = Trace {
        hz: number(n, field(n, &words, "hz")?, "hz")?,
        ids: number(n, field(n, &words, "ids")?, "ids")?,
        lost: number(n, field(n, &words, "lost")?, "lost")?,
        t0: u32::from_str_radix(field(n, &words, "t0")?, 16).map_err(|_| err(n, "t0 is not hex"))?,
        restarted: words.contains(&"restarted"),
        ..Trace::default()
    };
    let expected: usize = number(n, field(n, &words, "events")?, "events")?;
    if trace.hz == 0 {
        return Err(err(n, "hz=0: no clock"));
    }
    if trace.ids == 0 || trace.ids > 1024 {
        return Err(err(n, format!("ids={} is out of range (1..=1024)", trace.ids)));
    }
    let max_id = trace.ids + 3;
    let mut t = 0u64;
    let mut cur: Option<u32> = None;
    let mut last_window: Option<u32> = None;
    for (n, line) in lines.by_ref() {
        if line.is_empty() {
            // (A terminal's extra line ends; a lost line shows in the indices.)
            continue;
        }
        let body = checked(n, line)?;
        if let Some(rest) = body.strip_prefix("N ") {
            let (id, name) = rest.split_once(' ').unwrap_or((rest, ""));
            let id: u32 = number(n, id, "slot ID")?;
            if id > max_id {
                return Err(err(n, format!("slot {id} is beyond the last, {max_id}")));
            }
            if !trace.events.is_empty() {
                return Err(err(n, "a name after the events"));
            }
            trace.names.insert(id, name.to_owned());
        } else if let Some(rest) = body.strip_prefix("E ") {
            let mut words = rest.split(' ');
            let index: usize = number(n, words.next().unwrap_or(""), "event index")?;
            if index != trace.events.len() {
                return Err(err(
                    n,
                    format!(
                        "the line starts at event {index}, but {} came before it: lines are missing",
                        trace.events.len()
                    ),
                ));
            }
            for word in words {
                let bad = |what: &str| err(n, format!("event {word:?}: {what}"));
                let (dt, rest) = word.split_once('.').ok_or_else(|| bad("no '.'"))?;
                if dt.is_empty() || dt.len() > 8 {
                    return Err(bad("the time difference is not 1 to 8 hex digits"));
                }
                let dt = u32::from_str_radix(dt, 16).map_err(|_| bad("the time difference is not hex"))?;
                t += u64::from(dt);
                let kind = if let Some(w) = rest.strip_prefix('w') {
                    let w: u32 = w.parse().map_err(|_| bad("the window number is not a number"))?;
                    if let Some(prev) = last_window {
                        if w != prev.wrapping_add(1) {
                            return Err(bad(&format!("window {w} follows window {prev}")));
                        }
                    }
                    last_window = Some(w);
                    Kind::Window(w)
                } else {
                    let (from, to) = rest.split_once('.').ok_or_else(|| bad("not <dt>.<from>.<to>"))?;
                    let from: u32 = from.parse().map_err(|_| bad("the slot it leaves is not a number"))?;
                    let to: u32 = to.parse().map_err(|_| bad("the slot it enters is not a number"))?;
                    if from > max_id || to > max_id {
                        return Err(bad(&format!("a slot beyond the last, {max_id}")));
                    }
                    if let Some(c) = cur {
                        if c != from {
                            return Err(bad(&format!("it leaves slot {from}, but slot {c} was running")));
                        }
                    }
                    cur = Some(to);
                    Kind::Switch { from, to }
                };
                trace.events.push(Event { t, kind });
            }
        } else if let Some(rest) = body.strip_prefix(END) {
            let count: usize = number(n, rest.strip_prefix("events=").unwrap_or(rest), "end events")?;
            if count != expected || trace.events.len() != expected {
                return Err(err(
                    n,
                    format!("{} events read, the header says {expected} and the end line {count}", trace.events.len()),
                ));
            }
            if expected != 0 && !matches!(trace.events.first().map(|e| e.kind), Some(Kind::Switch { .. })) {
                return Err(err(n, "the first event is not the slot running at the start"));
            }
            return Ok(trace);
        } else {
            return Err(err(n, format!("not a line of a dump: {body:?}")));
        }
        if trace.events.len() > expected {
            return Err(err(n, format!("more events than the header's {expected}")));
        }
    }
    Err(err(text.split('\n').count(), "the dump ends without its end line: cut short"))
}
