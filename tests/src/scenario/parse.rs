//! Readers for the text answers the scenario checks against the JSON report: the demo's
//! watchdog alert lines and `snapshot` table, and `show_cpu_usage`'s own table.
//!
//! Each reader takes the text as the demo printed it and says what it could not read,
//! so that a changed format fails with the line in question rather than a bare `None`.

/// A watchdog alert as the demo's shell prints it (demo.c, `prvOutAlert`).
#[derive(Clone, Debug, PartialEq)]
pub enum Alert {
    /// `watchdog: load 85.12% > 80.00% in window #12`.
    Load {
        /// The window's load, in percent.
        pct: f64,
        /// The threshold crossed, in percent.
        threshold: f64,
        /// The window that completed the trip.
        window: u64,
    },
    /// `watchdog: slice 12.345 ms > 5.000 ms by task 3 "work40" in window #12`.
    Slice {
        /// The run's length in microseconds.
        us: u64,
        /// The threshold in microseconds.
        threshold_us: u64,
        /// The task's library ID.
        task_id: u64,
        /// Its name.
        task: String,
        /// The window of the run.
        window: u64,
    },
    /// `watchdog: 3 alerts lost (no room to keep them)`.
    Lost(u64),
}

/// `Some` for an alert line (read, or why not), `None` for any other line, the
/// `cpu_usage_watchdog` command's own settings line (`watchdog: load > 50.00% for 2
/// windows; slice off`) included.
pub fn parse_alert(line: &str) -> Option<Result<Alert, String>> {
    let rest = line.strip_prefix("watchdog: ")?;
    let alert = if let Some(r) = rest.strip_prefix("load ") {
        if !r.starts_with(|c: char| c.is_ascii_digit()) {
            return None;
        }
        parse_load(r)
    } else if let Some(r) = rest.strip_prefix("slice ") {
        parse_slice(r)
    } else if let Some(n) = rest.strip_suffix(" alerts lost (no room to keep them)") {
        n.parse().ok().map(Alert::Lost)
    } else {
        return None;
    };
    Some(alert.ok_or_else(|| format!("malformed watchdog alert line {line:?}")))
}

fn parse_load(r: &str) -> Option<Alert> {
    let (pct, r) = r.split_once("% > ")?;
    let (threshold, window) = r.split_once("% in window #")?;
    Some(Alert::Load { pct: pct.parse().ok()?, threshold: threshold.parse().ok()?, window: window.parse().ok()? })
}

fn parse_slice(r: &str) -> Option<Alert> {
    let (us, r) = r.split_once(" ms > ")?;
    let (threshold, r) = r.split_once(" ms by task ")?;
    let (id, r) = r.split_once(" \"")?;
    let (task, window) = r.rsplit_once("\" in window #")?;
    Some(Alert::Slice {
        us: millis_to_us(us)?,
        threshold_us: millis_to_us(threshold)?,
        task_id: id.parse().ok()?,
        task: task.to_string(),
        window: window.parse().ok()?,
    })
}

/// `12.345` (milliseconds with three decimals, as both the demo and the library print
/// them) in microseconds, exactly.
pub fn millis_to_us(text: &str) -> Option<u64> {
    let (whole, frac) = text.split_once('.')?;
    if frac.len() != 3 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(whole.parse::<u64>().ok()? * 1000 + frac.parse::<u64>().ok()?)
}

/// A percentage cell such as `12.34%`.
fn pct_cell(cell: &str) -> Option<f64> {
    cell.strip_suffix('%')?.parse().ok()
}

/// One task of the demo's `snapshot` table.
#[derive(Clone, Debug, PartialEq)]
pub struct SnapRow {
    /// Library ID.
    pub id: u64,
    /// Name.
    pub name: String,
    /// Share in percent.
    pub usage: f64,
    /// Times switched in.
    pub switches: u64,
    /// Longest run in microseconds.
    pub longest_us: u64,
    /// Marked `idle`.
    pub idle: bool,
    /// Marked `deleted`.
    pub deleted: bool,
}

/// The demo's `snapshot` answer: `cpu_usage_snapshot()`'s structs as printed.
#[derive(Clone, Debug, PartialEq)]
pub struct Snapshot {
    /// The window's number.
    pub window: u64,
    /// Its length in microseconds.
    pub window_us: u64,
    /// Tasks in the window (`summary.tasks`).
    pub tasks: u64,
    /// The tasks copied.
    pub rows: Vec<SnapRow>,
    /// Tasks the array had no room for.
    pub not_copied: u64,
    /// The summary's shares in percent: interrupts, sleep, other, idle, load.
    pub interrupts: f64,
    /// Interrupts in the window.
    pub interrupt_count: u64,
    /// Longest interrupt in microseconds.
    pub longest_interrupt_us: u64,
    /// Share asleep.
    pub sleep: f64,
    /// Share in no task.
    pub other: f64,
    /// The idle task's share.
    pub idle: f64,
    /// 100 % minus idle and sleep.
    pub load: f64,
    /// The smoothed loads (1 s, 10 s, 60 s); `None` where not known yet.
    pub load_avg: [Option<f64>; 3],
}

/// Reads the `snapshot` answer (the typed line echoed before it, on QEMU, is skipped).
pub fn parse_snapshot(answer: &str) -> Result<Snapshot, String> {
    let mut lines = answer.lines().skip_while(|l| !l.starts_with("snapshot of window #"));
    let head = lines.next().ok_or("no `snapshot of window #` line")?;
    let bad = |line: &str| format!("cannot read snapshot line {line:?}");
    let parse_head = || -> Option<(u64, u64, u64)> {
        let r = head.strip_prefix("snapshot of window #")?;
        let (window, r) = r.split_once(": ")?;
        let (ms, r) = r.split_once(" ms, ")?;
        Some((window.parse().ok()?, millis_to_us(ms)?, r.strip_suffix(" tasks")?.parse().ok()?))
    };
    let (window, window_us, tasks) = parse_head().ok_or_else(|| bad(head))?;
    let mut rows = Vec::new();
    let mut not_copied = 0;
    let mut summary = None;
    let mut load_avg = None;
    for line in lines {
        let words: Vec<&str> = line.split_whitespace().collect();
        if line.starts_with("  ID  TASK") {
            continue;
        } else if let Some(r) = line.strip_prefix("  (") {
            not_copied = r.split(' ').next().and_then(|n| n.parse().ok()).ok_or_else(|| bad(line))?;
        } else if line.starts_with("interrupts ") {
            summary = Some(parse_snapshot_summary(line).ok_or_else(|| bad(line))?);
        } else if let Some(r) = line.strip_prefix("load avg 1 s ") {
            load_avg = Some(parse_load_avg(r).ok_or_else(|| bad(line))?);
        } else if let [id, name, usage, switches, longest, "ms", flags @ ..] = words.as_slice() {
            let row = || -> Option<SnapRow> {
                Some(SnapRow {
                    id: id.parse().ok()?,
                    name: name.to_string(),
                    usage: pct_cell(usage)?,
                    switches: switches.parse().ok()?,
                    longest_us: millis_to_us(longest)?,
                    idle: flags.contains(&"idle"),
                    deleted: flags.contains(&"deleted"),
                })
            };
            rows.push(row().ok_or_else(|| bad(line))?);
        } else {
            return Err(bad(line));
        }
    }
    let (interrupts, interrupt_count, longest_interrupt_us, sleep, other, idle, load) =
        summary.ok_or("no `interrupts ...` line")?;
    let load_avg = load_avg.ok_or("no `load avg` line")?;
    Ok(Snapshot {
        window,
        window_us,
        tasks,
        rows,
        not_copied,
        interrupts,
        interrupt_count,
        longest_interrupt_us,
        sleep,
        other,
        idle,
        load,
        load_avg,
    })
}

type SnapSummary = (f64, u64, u64, f64, f64, f64, f64);

/// `interrupts 0.69% (1000, longest 0.024 ms), sleep 13.03%, other 0.00%, idle 6.02%,
/// load 80.95%`.
fn parse_snapshot_summary(line: &str) -> Option<SnapSummary> {
    let r = line.strip_prefix("interrupts ")?;
    let (isr, r) = r.split_once("% (")?;
    let (count, r) = r.split_once(", longest ")?;
    let (longest, r) = r.split_once(" ms), sleep ")?;
    let (sleep, r) = r.split_once("%, other ")?;
    let (other, r) = r.split_once("%, idle ")?;
    let (idle, load) = r.split_once("%, load ")?;
    Some((
        isr.parse().ok()?,
        count.parse().ok()?,
        millis_to_us(longest)?,
        sleep.parse().ok()?,
        other.parse().ok()?,
        idle.parse().ok()?,
        pct_cell(load)?,
    ))
}

/// `78.31%, 10 s 78.26%, 60 s -` (after `load avg 1 s `).
fn parse_load_avg(r: &str) -> Option<[Option<f64>; 3]> {
    let (a, r) = r.split_once(", 10 s ")?;
    let (b, c) = r.split_once(", 60 s ")?;
    let cell = |t: &str| if t == "-" { Some(None) } else { pct_cell(t).map(Some) };
    Some([cell(a)?, cell(b)?, cell(c)?])
}

/// A usage cell of `show_cpu_usage`'s table.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Usage {
    /// `0`: no time at all.
    Zero,
    /// `<0.01%`: some time, too little to show.
    Tiny,
    /// `12.34%`.
    Pct(f64),
}

impl Usage {
    fn parse(cell: &str) -> Option<Usage> {
        match cell {
            "0" => Some(Usage::Zero),
            "<0.01%" => Some(Usage::Tiny),
            _ => pct_cell(cell).map(Usage::Pct),
        }
    }

    /// As a number for ordering: `<0.01%` between 0 and 0.01.
    pub fn value(self) -> f64 {
        match self {
            Usage::Zero => 0.0,
            Usage::Tiny => 0.005,
            Usage::Pct(p) => p,
        }
    }

    /// Whether the cell shows what the JSON report says: its `usage_pct` and whether
    /// its `counts` are zero.
    pub fn agrees(self, usage_pct: f64, counts: u64) -> bool {
        match self {
            Usage::Zero => counts == 0,
            Usage::Tiny => counts > 0 && usage_pct == 0.0,
            Usage::Pct(p) => counts > 0 && (p - usage_pct).abs() < 0.001,
        }
    }
}

/// A task line of `show_cpu_usage`'s table (the overflow and idle lines too).
#[derive(Clone, Debug, PartialEq)]
pub struct TableRow {
    /// ID.
    pub id: u64,
    /// Name.
    pub name: String,
    /// Usage cell.
    pub usage: Usage,
    /// With `-l`: runs, and the longest run in microseconds (0 for none).
    pub runs: Option<u64>,
    /// See `runs`.
    pub longest_us: Option<u64>,
    /// Marked `deleted`.
    pub deleted: bool,
}

/// `show_cpu_usage`'s table, as far as the scenario reads it.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    /// The window's number (`None` for `-c`).
    pub window: Option<u64>,
    /// The task lines, in the order shown.
    pub tasks: Vec<TableRow>,
    /// With `-n`: the "(N more tasks)" line's count and usage.
    pub more: Option<(u64, Usage)>,
    /// The "(N deleted)" line's count and usage (a window report without `-d`).
    pub deleted: Option<(u64, Usage)>,
    /// The IDs of the task lines (the overflow bucket's included), in the order shown.
    pub order: Vec<u64>,
    /// The overflow bucket's line.
    pub overflow: Option<TableRow>,
    /// The idle task's line.
    pub idle: Option<TableRow>,
}

/// Reads a `show_cpu_usage` table (with or without `-l`).
pub fn parse_table(answer: &str) -> Result<Table, String> {
    let mut lines = answer.lines().skip_while(|l| !l.starts_with("CPU usage"));
    let head = lines.next().ok_or("no `CPU usage` header")?;
    let window = head.strip_prefix("CPU usage, window #").and_then(|r| r.split(':').next()?.parse().ok());
    let mut table =
        Table { window, tasks: Vec::new(), more: None, deleted: None, order: Vec::new(), overflow: None, idle: None };
    let mut after_rule = false;
    for line in lines {
        let words: Vec<&str> = line.split_whitespace().collect();
        let bad = || format!("cannot read table line {line:?}");
        if line.starts_with("  ID  TASK") {
            continue;
        }
        if line.starts_with("  ---") {
            after_rule = true;
            continue;
        }
        if let [count, "more", "task)" | "tasks)", usage] = words.as_slice() {
            let count = count.strip_prefix('(').and_then(|n| n.parse().ok()).ok_or_else(bad)?;
            table.more = Some((count, Usage::parse(usage).ok_or_else(bad)?));
            continue;
        }
        if let [count, "deleted)", usage] = words.as_slice() {
            let count = count.strip_prefix('(').and_then(|n| n.parse().ok()).ok_or_else(bad)?;
            table.deleted = Some((count, Usage::parse(usage).ok_or_else(bad)?));
            continue;
        }
        let Some(id) = words.first().and_then(|w| w.parse::<u64>().ok()) else { continue };
        let row = table_row(id, &words).ok_or_else(bad)?;
        if after_rule {
            table.idle = Some(row);
            continue;
        }
        table.order.push(id);
        if row.name == "(overflow)" {
            table.overflow = Some(row);
        } else {
            table.tasks.push(row);
        }
    }
    Ok(table)
}

fn table_row(id: u64, words: &[&str]) -> Option<TableRow> {
    let name = words.get(1)?.to_string();
    let usage = Usage::parse(words.get(2)?)?;
    // With -l: runs, then the longest run ("0", or "1.234 ms").
    let runs = words.get(3).and_then(|w| w.parse::<u64>().ok());
    let longest_us = match (runs, words.get(4).copied(), words.get(5).copied()) {
        (None, _, _) => None,
        (Some(_), Some("0"), _) => Some(0),
        (Some(_), Some(ms), Some("ms")) => Some(millis_to_us(ms)?),
        _ => return None,
    };
    Some(TableRow { id, name, usage, runs, longest_us, deleted: words.contains(&"deleted") })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alerts_are_read() {
        assert_eq!(
            parse_alert("watchdog: load 85.12% > 80.00% in window #12"),
            Some(Ok(Alert::Load { pct: 85.12, threshold: 80.0, window: 12 }))
        );
        assert_eq!(
            parse_alert("watchdog: slice 12.345 ms > 5.000 ms by task 3 \"work40\" in window #7"),
            Some(Ok(Alert::Slice { us: 12345, threshold_us: 5000, task_id: 3, task: "work40".into(), window: 7 }))
        );
        assert_eq!(parse_alert("watchdog: 2 alerts lost (no room to keep them)"), Some(Ok(Alert::Lost(2))));
        // The command's settings line is no alert.
        assert_eq!(parse_alert("watchdog: load > 50.00% for 2 windows; slice > 5000 us"), None);
        assert_eq!(parse_alert("watchdog: load off; slice off"), None);
        assert!(parse_alert("watchdog: slice 12.3 ms > 5.000 ms by task 3 \"x\" in window #7").unwrap().is_err());
    }

    #[test]
    fn snapshot_is_read() {
        let answer = "snapshot\nsnapshot of window #4: 1000.000 ms, 3 tasks\n  ID  TASK               USAGE  SWITCHES      LONGEST\n   0  (overflow)        2.22%       211     0.119 ms\n   7  IDLE              8.97%        75     4.630 ms  idle\n   8  churn-969         0.01%         1     0.106 ms  deleted\ninterrupts 0.69% (1000, longest 0.024 ms), sleep 12.68%, other 0.00%, idle 8.97%, load 78.35%\nload avg 1 s 78.31%, 10 s 78.26%, 60 s -\n";
        let s = parse_snapshot(answer).unwrap();
        assert_eq!((s.window, s.window_us, s.tasks, s.not_copied), (4, 1_000_000, 3, 0));
        assert_eq!(s.rows.len(), 3);
        assert_eq!(
            s.rows[1],
            SnapRow {
                id: 7,
                name: "IDLE".into(),
                usage: 8.97,
                switches: 75,
                longest_us: 4630,
                idle: true,
                deleted: false
            }
        );
        assert!(s.rows[2].deleted);
        assert_eq!((s.interrupts, s.interrupt_count, s.longest_interrupt_us), (0.69, 1000, 24));
        assert_eq!((s.sleep, s.other, s.idle, s.load), (12.68, 0.0, 8.97, 78.35));
        assert_eq!(s.load_avg, [Some(78.31), Some(78.26), None]);
    }

    #[test]
    fn table_is_read() {
        let answer = "CPU usage, window #11: 1000.000 ms, clock systick 25000000 Hz\n  ID  TASK               USAGE      RUNS      LONGEST\n   1  work10            10.04%        61     2.993 ms\n   5  tick30                 0         0            0\n   9  churn-5           <0.01%         1     0.104 ms  deleted\n      (28 more tasks)    0.85%\n   0  (overflow)         3.30%       288     0.120 ms  tasks without an ID in the window: 3\n      (2 deleted)        0.02%\n  -----------------------------------------------------\n   7  IDLE               5.74%        59     1.246 ms  idle\n      interrupts         0.71%  1015 interrupts, longest 0.022 ms\n      load              81.89%  100% - idle - sleep\nIDs now: 7 used, 25 quarantined, 0 free of 32; tasks without one: 3\n";
        let t = parse_table(answer).unwrap();
        assert_eq!(t.window, Some(11));
        assert_eq!(t.tasks.len(), 3);
        assert_eq!(t.tasks[0].usage, Usage::Pct(10.04));
        assert_eq!((t.tasks[0].runs, t.tasks[0].longest_us), (Some(61), Some(2993)));
        assert_eq!((t.tasks[1].usage, t.tasks[1].longest_us), (Usage::Zero, Some(0)));
        assert!(t.tasks[2].deleted && t.tasks[2].usage == Usage::Tiny);
        assert_eq!(t.more, Some((28, Usage::Pct(0.85))));
        assert_eq!(t.deleted, Some((2, Usage::Pct(0.02))));
        assert_eq!(t.order, [1, 5, 9, 0]);
        assert_eq!(t.overflow.as_ref().map(|r| r.runs), Some(Some(288)));
        assert_eq!(t.idle.as_ref().map(|r| r.id), Some(7));
        let plain = "CPU usage, window #2: 1000.000 ms, clock monotonic 15625000 Hz\n  ID  TASK               USAGE\n   3  work40            40.34%\n  ------------------------------\n   7  IDLE               8.97%  idle\n";
        let t = parse_table(plain).unwrap();
        assert_eq!((t.tasks[0].runs, t.tasks[0].longest_us), (None, None));
    }
}
