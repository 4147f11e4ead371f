//! A parsed event trace as Chrome Trace Event JSON, the format the Perfetto UI
//! (ui.perfetto.dev) and chrome://tracing open.
//!
//! One process; one track (`tid`) per slot, numbered as the device numbers them
//! (tasks by ID, 0 the overflow bucket, then interrupts, sleep and other) and named by
//! `thread_name` metadata; a complete event (`"ph":"X"`) for each stretch of time the
//! device charged to a slot, cut at window boundaries so that each lies in one
//! window; an instant event (`"ph":"i"`, global) at each window boundary. When the
//! device's ring overflowed, the oldest events are gone: the process's name says how
//! many, and a global instant at the start of the timeline marks the gap
//! ([`lost_note`]).
//!
//! Times are microseconds from the first event of the trace, written from integers
//! with enough decimals that every clock count is a different time: `decimals` is the
//! smallest with 10^-decimals µs at most a tenth of a count. Each time is the exact
//! one rounded to that, and a duration is the difference of its rounded end and start,
//! so events on a track never overlap, and a window's events add up to within one
//! unit of the last decimal per event of the exact figure.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::trace::{Kind, Trace};

/// The `pid` of every event.
pub const PID: u32 = 1;

/// Decimals of the microsecond times for a clock of `hz`.
pub fn decimals(hz: u64) -> u32 {
    let mut d = 0;
    // 10^-d µs <= 1/(10 hz) s  <=>  10^d * 10^5 >= hz
    while d < 9 && 10u128.pow(d) * 100_000 < u128::from(hz) {
        d += 1;
    }
    d
}

/// A time in units of 10^-decimals µs, rounded to nearest.
fn units(counts: u64, hz: u64, decimals: u32) -> u128 {
    let scale = 1_000_000u128 * 10u128.pow(decimals);
    let hz = u128::from(hz.max(1));
    (u128::from(counts) * scale + hz / 2) / hz
}

/// `units` written as microseconds.
fn us(units: u128, decimals: u32) -> String {
    if decimals == 0 {
        return units.to_string();
    }
    let p = 10u128.pow(decimals);
    format!("{}.{:0width$}", units / p, units % p, width = decimals as usize)
}

fn json_str(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"?\"".to_owned())
}

/// What the dump says of events it no longer holds: `None` when it holds every event
/// since recording started, else e.g. `64 events lost before the first one: the
/// device's trace ring overflowed`.
pub fn lost_note(trace: &Trace) -> Option<String> {
    match trace.lost {
        0 => None,
        1 => Some("1 event lost before the first one: the device's trace ring overflowed".to_owned()),
        n => Some(format!("{n} events lost before the first one: the device's trace ring overflowed")),
    }
}

/// The trace as Chrome Trace Event JSON (one object, `traceEvents` and
/// `displayTimeUnit`).
pub fn to_json(trace: &Trace) -> String {
    let d = decimals(trace.hz);
    let time = |counts: u64| units(counts, trace.hz, d);
    let mut events: Vec<String> = Vec::new();
    let lost = lost_note(trace);
    let process = match trace.lost {
        0 => format!("freertos-cpu-usage ({} Hz)", trace.hz),
        n => format!("freertos-cpu-usage ({} Hz), {n} earlier events lost", trace.hz),
    };
    events.push(format!(
        r#"{{"ph":"M","name":"process_name","pid":{PID},"tid":0,"ts":0,"args":{{"name":{}}}}}"#,
        json_str(&process)
    ));
    if let Some(note) = &lost {
        events.push(format!(
            r#"{{"ph":"i","s":"g","name":{},"pid":{PID},"tid":0,"ts":0,"args":{{"lost":{}}}}}"#,
            json_str(note),
            trace.lost
        ));
    }
    let mut slots: Vec<u32> = trace.names.keys().copied().collect();
    for (slot, _, _) in trace.spans() {
        if !slots.contains(&slot) {
            slots.push(slot);
        }
    }
    slots.sort_unstable();
    for &slot in &slots {
        events.push(format!(
            r#"{{"ph":"M","name":"thread_name","pid":{PID},"tid":{slot},"ts":0,"args":{{"name":{}}}}}"#,
            json_str(&format!("{slot} {}", trace.name(slot)))
        ));
        events.push(format!(
            r#"{{"ph":"M","name":"thread_sort_index","pid":{PID},"tid":{slot},"ts":0,"args":{{"sort_index":{slot}}}}}"#
        ));
    }
    // Window boundaries, to cut the spans at.
    let marks: Vec<(u64, u32)> = trace
        .events
        .iter()
        .filter_map(|e| match e.kind {
            Kind::Window(n) => Some((e.t, n)),
            Kind::Switch { .. } => None,
        })
        .collect();
    for (slot, start, end) in trace.spans() {
        let name = json_str(&trace.name(slot));
        let mut a = start;
        let cuts = marks.iter().map(|&(t, _)| t).filter(|&t| t > start && t < end).chain([end]);
        for b in cuts {
            let (ua, ub) = (time(a), time(b));
            events.push(format!(
                r#"{{"ph":"X","name":{name},"pid":{PID},"tid":{slot},"ts":{},"dur":{},"args":{{"counts":{}}}}}"#,
                us(ua, d),
                us(ub - ua, d),
                b - a
            ));
            a = b;
        }
    }
    for &(t, n) in &marks {
        events.push(format!(
            r#"{{"ph":"i","s":"g","name":"window {n}","pid":{PID},"tid":0,"ts":{},"args":{{"window":{n}}}}}"#,
            us(time(t), d)
        ));
    }
    let mut out = String::from("{\"traceEvents\":[\n");
    for (i, e) in events.iter().enumerate() {
        let _ = write!(out, "{}{e}", if i == 0 { "" } else { ",\n" });
    }
    out.push_str("\n],\"displayTimeUnit\":\"ns\"}\n");
    out
}

/// Reads a dump and converts it.
pub fn dump_to_json(text: &str) -> Result<String, crate::trace::ParseError> {
    crate::trace::parse(text).map(|t| to_json(&t))
}

/// From Perfetto JSON: each track's (`tid`'s) total duration, in µs, of the complete
/// events that start in `[start_us, end_us)`, and how many there were. (The
/// converter cuts events at window boundaries, so for a window's bounds these are
/// the window's events.)
pub fn durations_in(json: &serde_json::Value, start_us: f64, end_us: f64) -> BTreeMap<u64, (f64, usize)> {
    let mut sums: BTreeMap<u64, (f64, usize)> = BTreeMap::new();
    let Some(events) = json.get("traceEvents").and_then(|e| e.as_array()) else {
        return sums;
    };
    for e in events {
        if e.get("ph").and_then(|p| p.as_str()) != Some("X") {
            continue;
        }
        let (Some(tid), Some(ts), Some(dur)) = (
            e.get("tid").and_then(|v| v.as_u64()),
            e.get("ts").and_then(|v| v.as_f64()),
            e.get("dur").and_then(|v| v.as_f64()),
        ) else {
            continue;
        };
        if ts >= start_us && ts < end_us {
            let s = sums.entry(tid).or_insert((0.0, 0));
            s.0 += dur;
            s.1 += 1;
        }
    }
    sums
}

/// The instants of window boundaries in Perfetto JSON: window number to µs.
pub fn window_marks(json: &serde_json::Value) -> BTreeMap<u64, f64> {
    let mut marks = BTreeMap::new();
    for e in json.get("traceEvents").and_then(|e| e.as_array()).into_iter().flatten() {
        if e.get("ph").and_then(|p| p.as_str()) == Some("i") {
            if let (Some(n), Some(ts)) =
                (e.pointer("/args/window").and_then(|v| v.as_u64()), e.get("ts").and_then(|v| v.as_f64()))
            {
                marks.insert(n, ts);
            }
        }
    }
    marks
}
