//! A reader for `show_cpu_usage`'s table (the library's text report), which the
//! scenario compares with the JSON report of the same window: the table is the
//! library's product, so the test reads it as a person would see it. The demo's own
//! answers are JSON lines (`demo_json`).

/// `12.345` (milliseconds with three decimals, as the library prints them) in
/// microseconds, exactly.
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
    // The columns after the name, by their headers (the library's field table's):
    // a column the reader does not know is stepped over.
    let mut columns: Vec<&str> = Vec::new();
    for line in lines {
        let words: Vec<&str> = line.split_whitespace().collect();
        let bad = || format!("cannot read table line {line:?}");
        if let Some(heads) = line.strip_prefix("  ID  TASK") {
            columns = heads.split_whitespace().collect();
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
        let Some((id, name, cells)) = named_row(&words) else { continue };
        let row = table_row(id, name, &columns, cells).ok_or_else(bad)?;
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

/// A task line's ID, its name (which may hold spaces, as the kernel's "Tmr Svc" does:
/// the words up to the first usage cell) and the cells from its usage on.
fn named_row<'a, 'b>(words: &'b [&'a str]) -> Option<(u64, String, &'b [&'a str])> {
    let id = words.first()?.parse::<u64>().ok()?;
    let usage_at = (2..words.len()).find(|&i| words[i].ends_with('%') || words[i] == "0")?;
    Some((id, words[1..usage_at].join(" "), &words[usage_at..]))
}

/// A task line's cells under `columns` (a duration is two words, `1.234 ms`, or `0`;
/// any other cell one word), then its notes.
fn table_row(id: u64, name: String, columns: &[&str], cells: &[&str]) -> Option<TableRow> {
    let (mut usage, mut runs, mut longest_us) = (None, None, None);
    let mut at = 0;
    for &column in columns {
        let cell = *cells.get(at)?;
        let unit = cells.get(at + 1).copied().filter(|&u| u == "ms" || u == "s");
        at += if unit.is_some() { 2 } else { 1 };
        match column {
            "USAGE" => usage = Some(Usage::parse(cell)?),
            "RUNS" => runs = Some(cell.parse::<u64>().ok()?),
            "LONGEST" => {
                longest_us = Some(match unit {
                    None if cell == "0" => 0,
                    Some("ms") => millis_to_us(cell)?,
                    _ => return None,
                })
            }
            _ => {}
        }
    }
    Some(TableRow { id, name, usage: usage?, runs, longest_us, deleted: cells.get(at..)?.contains(&"deleted") })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_with_spaces_are_read() {
        let answer = "CPU usage, window #3: 1000.000 ms, clock monotonic 15625000 Hz\n  ID  TASK               USAGE      RUNS      LONGEST\n   8  Tmr Svc                0         0            0\n   9  (no name)          1.50%         2     0.250 ms  deleted\n";
        let t = parse_table(answer).unwrap();
        assert_eq!(t.tasks.iter().map(|r| r.name.as_str()).collect::<Vec<_>>(), ["Tmr Svc", "(no name)"]);
        assert_eq!((t.tasks[0].usage, t.tasks[0].runs), (Usage::Zero, Some(0)));
        assert_eq!((t.tasks[1].longest_us, t.tasks[1].deleted), (Some(250), true));
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

    #[test]
    fn a_column_the_reader_does_not_know_is_stepped_over() {
        let answer = "CPU usage, window #3: 1000.000 ms, clock monotonic 15625000 Hz\n  ID  TASK               USAGE      RUNS   NEW      LONGEST\n   9  work              1.50%         2     7     0.250 ms  deleted\n";
        let t = parse_table(answer).unwrap();
        assert_eq!((t.tasks[0].runs, t.tasks[0].longest_us, t.tasks[0].deleted), (Some(2), Some(250), true));
    }
}
