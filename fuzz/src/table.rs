//! The table of a report against its JSON: the same figures, line by line.

use freertos_cpu_usage::report::Options;
use freertos_cpu_usage_report::{
    hundredths_of, name_bytes, History, Idle, MoreTasks, Report, Slots, Task, TaskHistory,
};

use crate::{json_with, NAME_LEN};

/// A line of the JSON with an ID: a task's or the idle task's, with its share.
struct Row<'a> {
    id: u32,
    name: &'a str,
    counts: u64,
    usage_pct: f64,
    switches: u64,
    longest_slice_us: u64,
    /// Since start only.
    history: Option<&'a History>,
    deleted: bool,
    /// The overflow bucket's tasks.
    tasks: Option<u32>,
}

/// What a history the types know is, as the table shows it.
trait AsHistory {
    fn history(&self) -> Option<&History>;
}

impl AsHistory for freertos_cpu_usage_report::InWindow {
    fn history(&self) -> Option<&History> {
        None
    }
}

impl AsHistory for History {
    fn history(&self) -> Option<&History> {
        Some(self)
    }
}

fn task_row<H: TaskHistory + AsHistory>(t: &Task<H>) -> Row<'_> {
    Row {
        id: t.id,
        name: &t.name,
        counts: t.counts,
        usage_pct: t.usage_pct,
        switches: t.switches,
        longest_slice_us: t.longest_slice_us,
        history: t.history.history(),
        deleted: t.deleted,
        tasks: t.tasks,
    }
}

fn idle_row<H: TaskHistory + AsHistory>(i: &Idle<H>, idle_pct: f64) -> Row<'_> {
    Row {
        id: i.id,
        name: &i.name,
        counts: i.counts,
        usage_pct: idle_pct,
        switches: i.switches,
        longest_slice_us: i.longest_slice_us,
        history: i.history.history(),
        deleted: false,
        tasks: None,
    }
}

/// Either report, as the table's lines need it.
struct Lines<'a> {
    header: String,
    length_counts: u64,
    tasks: Vec<Row<'a>>,
    more: Option<&'a MoreTasks>,
    /// The deleted line's label, counts and share, if the table has one.
    deleted: Option<(String, u64, f64)>,
    idle: Option<Row<'a>>,
    /// (counts, share) of interrupts, sleep, other.
    summary: [(u64, f64); 3],
    interrupts: u64,
    longest_interrupt_us: u64,
    load_pct: f64,
    load_avg_pct: [Option<f64>; 3],
    slots: &'a Slots,
}

fn lines(report: &Report) -> Lines<'_> {
    match report {
        Report::Window(v) => Lines {
            header: format!(
                "CPU usage, window #{}: {}, clock {} {} Hz",
                v.window,
                duration(v.window_us),
                v.clock,
                v.clock_hz
            ),
            length_counts: v.window_counts,
            tasks: v.tasks.iter().map(task_row).collect(),
            more: v.more_tasks.as_ref(),
            deleted: (v.deleted.deleted_tasks > 0)
                .then(|| (format!("({} deleted)", v.deleted.deleted_tasks), v.deleted_counts, v.deleted_pct)),
            idle: v.idle.as_ref().map(|i| idle_row(i, v.idle_pct)),
            summary: [
                (v.interrupts_counts, v.interrupts_pct),
                (v.sleep_counts, v.sleep_pct),
                (v.other_counts, v.other_pct),
            ],
            interrupts: v.interrupts,
            longest_interrupt_us: v.longest_interrupt_us,
            load_pct: v.load_pct,
            load_avg_pct: v.load_avg_pct,
            slots: &v.slots,
        },
        Report::SinceStart(v) => Lines {
            header: format!(
                "CPU usage since start: {} ({} windows), clock {} {} Hz",
                duration(v.uptime_us),
                v.windows,
                v.clock,
                v.clock_hz
            ),
            length_counts: v.uptime_counts,
            tasks: v.tasks.iter().map(task_row).collect(),
            more: v.more_tasks.as_ref(),
            deleted: Some(("(deleted tasks)".to_string(), v.deleted_counts, v.deleted_pct)),
            idle: v.idle.as_ref().map(|i| idle_row(i, v.idle_pct)),
            summary: [
                (v.interrupts_counts, v.interrupts_pct),
                (v.sleep_counts, v.sleep_pct),
                (v.other_counts, v.other_pct),
            ],
            interrupts: v.interrupts,
            longest_interrupt_us: v.longest_interrupt_us,
            load_pct: v.load_pct,
            load_avg_pct: v.load_avg_pct,
            slots: &v.slots,
        },
        Report::NoWindow(_) => panic!("a table of no window"),
    }
}

/// The table says what the JSON of the same report (same `-c`, `-s`, `-n`, `-d`)
/// says, line by line: the header, each task's line in the same order (its name
/// cell, its usage cell and, with `-l`, runs, longest run and, since start, their
/// windows and the peak; its `deleted` mark), the "more" line, the deleted tasks'
/// line (since start always, in a window when it sums any), the rule, idle,
/// interrupts, sleep, other, load, the load averages, the ID pool. Returns the JSON's
/// report.
pub(crate) fn check_table(text: &[u8], opts: Options) -> Report {
    let table = String::from_utf8(text.to_vec()).expect("ASCII");
    let report = json_with(opts).expect("a JSON report when there is a table");
    let v = lines(&report);
    // Each line's text, or the texts it may have.
    let mut expected: Vec<Vec<String>> = vec![vec![v.header.clone()]];
    expected.push(vec![format!(
        "  ID  {:NAME_LEN$}   USAGE{}",
        "TASK",
        if opts.long { "      RUNS      LONGEST" } else { "" }
    )]);

    // A task's cells after its name, as the JSON says they must be.
    let cells = |t: &Row<'_>| {
        let mut s = format!(" {}", cell(t.counts, hundredths_of(t.usage_pct)));
        if opts.long {
            s += &format!("  {:>8}  {:>11}", t.switches, duration(t.longest_slice_us));
            if let Some(h) = t.history {
                if let Some(w) = h.longest_slice_window {
                    s += &format!(" in #{w}");
                }
                if let (Some(peak), Some(w)) = (h.peak_pct, h.peak_window) {
                    // A task with time has had its share of some window: a peak of
                    // something, however small.
                    let peak = match hundredths_of(peak) {
                        0 if t.counts == 0 => "0".to_string(),
                        0 => "<0.01%".to_string(),
                        p => format!("{}.{:02}%", p / 100, p % 100),
                    };
                    s += &format!("  peak {peak} in #{w}");
                }
            }
        }
        s
    };
    let task_line = |t: &Row<'_>, tail: &str| {
        let name = name_bytes(t.name).expect("a name of bytes");
        format!("{:4}  {}{}{tail}", t.id, name_cell(&name), cells(t))
    };
    for t in &v.tasks {
        let tail = if t.id == 0 {
            // The tasks that shared the bucket in the span shown, not those now.
            let span = if opts.cumulative { "since start" } else { "in the window" };
            format!("  tasks without an ID {span}: {}", t.tasks.expect("the bucket's tasks"))
        } else if t.deleted {
            "  deleted".to_string()
        } else {
            String::new()
        };
        expected.push(vec![task_line(t, &tail)]);
    }
    if let Some(more) = v.more {
        let count = more.count;
        let label = format!("({count} more task{})", if count == 1 { "" } else { "s" });
        expected.push(vec![format!("      {label:NAME_LEN$} {}", cell(more.counts, hundredths_of(more.usage_pct)))]);
    }
    if let Some((label, counts, pct)) = &v.deleted {
        expected.push(vec![format!("      {label:NAME_LEN$} {}", cell(*counts, hundredths_of(*pct)))]);
    }
    expected.push(vec![format!("  {}", "-".repeat(NAME_LEN + 14 + if opts.long { 23 } else { 0 }))]);
    match &v.idle {
        None => expected.push(vec!["      idle: not known until the scheduler starts".into()]),
        Some(idle) => expected.push(vec![task_line(idle, "  idle")]),
    }
    let summary = |name: &str, cell: String, note: String| {
        vec![format!("      {:NAME_LEN$} {cell}  {note}", &name[..name.len().min(NAME_LEN)])]
    };
    let cell_of = |(counts, pct): (u64, f64)| cell(counts, hundredths_of(pct));
    let longest = duration(v.longest_interrupt_us);
    let note = format!("{} interrupts, longest {longest}", v.interrupts);
    expected.push(summary("interrupts", cell_of(v.summary[0]), note));
    expected.push(summary("sleep", cell_of(v.summary[1]), "asleep in tickless idle".into()));
    expected.push(summary("other", cell_of(v.summary[2]), "kernel and unattributed".into()));
    let busy = v.length_counts - v.idle.as_ref().map_or(0, |i| i.counts) - v.summary[1].0;
    expected.push(summary("load", cell(busy, hundredths_of(v.load_pct)), "100% - idle - sleep".into()));
    // An average is `-` when not known; a share of 0.00 is `0` when nothing was busy
    // or `<0.01%` when something was, which the JSON does not say: either.
    let averages: Vec<Vec<String>> = v
        .load_avg_pct
        .iter()
        .map(|a| match a.map(hundredths_of) {
            None => vec!["-".to_string()],
            Some(0) => vec![format!("{:>6}", 0), "<0.01%".to_string()],
            Some(h) => vec![format!("{:>2}.{:02}%", h / 100, h % 100)],
        })
        .collect();
    let mut load_avg = Vec::new();
    for a in &averages[0] {
        for b in &averages[1] {
            for c in &averages[2] {
                load_avg.push(format!("load avg   1 s {a}  10 s {b}  60 s {c}"));
            }
        }
    }
    expected.push(load_avg);
    let s = v.slots;
    let ids = format!(
        "IDs now: {} used, {} quarantined, {} free of {}; tasks without one: {}",
        s.used, s.quarantined, s.free, s.capacity, s.overflow_tasks
    );
    expected.push(vec![ids]);

    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), expected.len(), "{} lines expected ({opts:?}): {report:?}\n{table}", expected.len());
    for (line, texts) in lines.iter().zip(&expected) {
        assert!(texts.iter().any(|t| same(line, t)), "{line:?}, expected {texts:?} ({opts:?}): {report:?}\n{table}");
    }
    report
}

/// A name for the table: printable ASCII as is, any other byte as `?`, `(no name)`
/// when empty, padded to `NAME_LEN` columns.
fn name_cell(name: &[u8]) -> String {
    let name: &[u8] = if name.is_empty() { b"(no name)" } else { name };
    let name: String =
        name.iter().take(NAME_LEN).map(|&b| if (0x20..0x7f).contains(&b) { b as char } else { '?' }).collect();
    format!("{name:NAME_LEN$}")
}

/// `line` is `expected`, where a run too short for a microsecond may show as `0`
/// (no counts at all) instead of `0.000 ms` (the JSON has microseconds only).
fn same(line: &str, expected: &str) -> bool {
    line == expected
        || line == expected.replacen("   0.000 ms", "          0", 1)
        || line == expected.replacen("longest 0.000 ms", "longest 0", 1)
}

/// A duration as the table shows it: microseconds as `1234.567 ms`, from 100 s on
/// `123.456 s`.
fn duration(us: u64) -> String {
    if us >= 100_000_000 {
        format!("{}.{:03} s", us / 1_000_000, us / 1000 % 1000)
    } else {
        format!("{}.{:03} ms", us / 1000, us % 1000)
    }
}

/// A usage cell, 7 columns: `0` for no time, `<0.01%` for a share too small to show,
/// else the share with two decimals.
fn cell(counts: u64, hundredths: u64) -> String {
    match (counts, hundredths) {
        (0, _) => format!("{:>7}", 0),
        (_, 0) => " <0.01%".to_string(),
        (_, h) => format!("{:3}.{:02}%", h / 100, h % 100),
    }
}
