//! The scenario's checks of the library's API beyond `show_cpu_usage -m`, through the
//! demo's shell: the watchdogs (`cpu_usage_watchdog`, whose alerts the demo prints from
//! its callback), `cpu_usage_snapshot()` (the demo's `snapshot`),
//! `cpu_usage_cli_command()` (the demo's `cli`) and `show_cpu_usage`'s other options.
//!
//! Each runs in windows the scenario waits for anyway, and compares against the JSON
//! report of the same window: two commands read the same window when they report the
//! same window number, so a pair whose numbers differ (a window completed between
//! them) is simply asked again.

use std::thread;

use freertos_cpu_usage_report::{hundredths_of, Report, SinceStart, Task, Window as Report1};
use serde_json::Value;

use super::demo_json::{self, Alert, Snapshot, SnapshotLine};
use super::table::{parse_table, Table, Usage};
use super::{report_in, Run, Window, POLL};

/// The load watchdog's setting: above 50 % for 2 windows in a row. The workloads
/// alone keep the load at 75 %, and at 55 % once `load work25 5` has run.
const LOAD_PCT: f64 = 50.0;
const LOAD_WINDOWS: u64 = 2;

/// The slice watchdog's threshold, in microseconds, set once work25 is at 5 %. In one
/// go, work40 runs 7 to 10 ms (QEMU) or 8.5 to 14 ms (POSIX): it burns 40 % of the
/// time since its previous activation, about 10 ms before plus its own burn, in
/// pieces that nothing of priority 1 interrupts. Everything else runs under 3.2 ms:
/// work10 1.7 to 3 ms, work25 (at 5 %) about 1 ms, churn 2.3 ms, the overflow
/// bucket's children 0.12 ms, and the shell, while it prints `SHORT_REPORT`, 3.1 ms on
/// QEMU (its polled UART) and under 0.1 ms on POSIX. On POSIX a host that takes the
/// core away lengthens a run by the stall, but a burn is timed by the wall clock and
/// ends when it would have anyway: only a stall of 10 ms or more in the few
/// microseconds of a shell or churn run could put another task first. With the other
/// core busy the longest such run seen was 4 ms (the overflow bucket's children);
/// with both cores busy the duties themselves are off (step 1 fails first).
const SLICE_US: u64 = 5000;

/// What is polled while the slice watchdog is on: the three busiest tasks (the
/// workloads work40 and work10, and the next) and the rest summed. A whole report lists 30-odd tasks
/// during churn and keeps the shell busy for 12 ms on QEMU, which would make the
/// shell the task with the longest run.
pub(super) const SHORT_REPORT: &str = "show_cpu_usage -m -n 3";

/// How often a pair of commands is asked again when a window completed between them.
/// On QEMU a window passes in about 0.3 s of host time; one try in three or four
/// straddles a window edge there, far fewer on POSIX.
const SAME_WINDOW_TRIES: usize = 20;

/// The bytes `cpu_usage_cli_command` writes per call: the demo's 48-byte buffer, less
/// the NUL.
const CLI_PIECE: usize = 47;

/// The windows the load watchdog's one alert may complete in (the window under way
/// when it was set counts as the first of the two).
pub(super) struct LoadWatch {
    /// The last window completed before it was set.
    set_after: u64,
    /// The trip's window lies within these.
    trip: (u64, u64),
}

/// The answer without the echo of the line typed (the QEMU board echoes it).
fn strip_echo<'a>(answer: &'a str, line: &str) -> &'a str {
    answer.strip_prefix(line).and_then(|rest| rest.strip_prefix('\n')).unwrap_or(answer)
}

/// A line of a report with an ID: a task's or the idle task's.
#[derive(Debug)]
struct IdLine<'a> {
    name: &'a str,
    counts: u64,
    /// The task's share, or the idle task's (`idle_pct`).
    usage_pct: f64,
    switches: u64,
    longest_slice_us: u64,
    deleted: bool,
    idle: bool,
}

/// The line with ID `id` in a report, the idle task's included.
fn task_by_id(r: &Report1, id: u64) -> Option<IdLine<'_>> {
    let task = r.tasks.iter().find(|t| u64::from(t.id) == id).map(|t| IdLine {
        name: &t.name,
        counts: t.counts,
        usage_pct: t.usage_pct,
        switches: t.switches,
        longest_slice_us: t.longest_slice_us,
        deleted: t.deleted,
        idle: false,
    });
    let idle = r.idle.as_ref().filter(|i| u64::from(i.id) == id).map(|i| IdLine {
        name: &i.name,
        counts: i.counts,
        usage_pct: r.idle_pct,
        switches: i.switches,
        longest_slice_us: i.longest_slice_us,
        deleted: false,
        idle: true,
    });
    task.or(idle)
}

/// (a) Arms the load watchdog; `last` is the last window completed.
pub(super) fn arm_load_watchdog(run: &mut Run<'_>, last: u64) -> LoadWatch {
    let answer = run.ask(&format!("cpu_usage_watchdog load {LOAD_PCT} {LOAD_WINDOWS}"));
    if !answer.contains(&format!("watchdog: load > {LOAD_PCT:.2}% for {LOAD_WINDOWS} windows")) {
        run.console.fail(&format!("`cpu_usage_watchdog load {LOAD_PCT} {LOAD_WINDOWS}` answered {answer:?}"));
    }
    let now = run.current_window();
    // The window under way when it was set is one of last + 1 ..= now + 1, and the
    // trip completes with the LOAD_WINDOWS-th window from there.
    LoadWatch { set_after: last, trip: (last + LOAD_WINDOWS, now + LOAD_WINDOWS) }
}

/// (a) Many windows later, the load having stayed above the threshold all along:
/// exactly one load alert, for the right window and figure. Then both watchdogs off.
pub(super) fn check_load_alert(run: &mut Run<'_>, watch: &LoadWatch) {
    // Every window judged since the watchdog was set must have been above it, or a
    // second alert would be right.
    let judged: Vec<(u64, f64)> = run.seen.range(watch.set_after + 1..).map(|(&i, w)| (i, w.report.load_pct)).collect();
    if let Some((i, load)) = judged.iter().find(|(_, load)| *load <= LOAD_PCT) {
        run.console.fail(&format!(
            "the load fell to {load:.2} % in window {i}, but the load watchdog check needs it above {LOAD_PCT} % \
             throughout: loads since it was set {judged:?}"
        ));
    }
    let loads: Vec<Alert> = run.alerts.iter().filter(|a| matches!(a, Alert::Load { .. })).cloned().collect();
    let last = judged.last().map_or(0, |(i, _)| *i);
    let [Alert::Load { load_pct: pct, threshold_pct: threshold, window }] = loads.as_slice() else {
        run.console.fail(&format!(
            "expected exactly one load alert from `cpu_usage_watchdog load {LOAD_PCT} {LOAD_WINDOWS}` by window \
             {last}, the load staying above all along; got {loads:?} (loads since it was set: {judged:?})"
        ));
    };
    let (pct, threshold, window) = (*pct, *threshold, *window);
    let (from, to) = watch.trip;
    if !(from..=to).contains(&window) || threshold != LOAD_PCT || pct <= LOAD_PCT {
        run.console.fail(&format!(
            "load alert {pct:.2} % > {threshold:.2} % in window {window}: expected a load above {LOAD_PCT:.2} % \
             in window {from}..={to}"
        ));
    }
    // The alert's figure is the exact share rounded down, the report's 100 % minus
    // the apportioned idle and sleep shares (each up to a hundredth off the exact
    // one): they differ by two hundredths at most.
    match run.seen.get(&window).map(|w| w.report.load_pct) {
        Some(load) if (load - pct).abs() > 0.02 + 1e-9 => run
            .console
            .fail(&format!("the load alert says {pct:.2} % for window {window}, whose report says load {load:.2} %")),
        Some(load) => println!("load alert: window #{window} at {pct:.2} % (report: {load:.2} %), none after it"),
        None => println!("load alert: window #{window} at {pct:.2} % (its report was not read), none after it"),
    }
    let answer = run.ask("cpu_usage_watchdog off");
    if !answer.contains("watchdog: load off; slice off") {
        run.console.fail(&format!("`cpu_usage_watchdog off` answered {answer:?}"));
    }
}

/// (b) The slice watchdog, with work25 at 5 % and its last long burn over (`last` is
/// a window completed after that): the first window with a run over the threshold
/// trips it, and the alert must name work40 and that window's longest run of it.
pub(super) fn check_slice_alert(run: &mut Run<'_>, last: u64) {
    let answer = run.ask(&format!("cpu_usage_watchdog slice {SLICE_US}"));
    if !answer.contains(&format!("slice > {SLICE_US} us")) {
        run.console.fail(&format!("`cpu_usage_watchdog slice {SLICE_US}` answered {answer:?}"));
    }
    let alert = loop {
        if let Some(alert) = run.alerts.iter().find(|a| matches!(a, Alert::Slice { .. })) {
            break alert.clone();
        }
        if run.deadline.passed() {
            run.console.fail(&format!("no slice alert from `cpu_usage_watchdog slice {SLICE_US}`"));
        }
        run.show_with(SHORT_REPORT);
        thread::sleep(POLL);
    };
    let Alert::Slice { slice_us: us, threshold_us, task_id, ref task, window } = alert else { unreachable!() };
    // The alert comes within a tick of its window's end: that window is most likely
    // the last completed one still, so a whole report of it (every task's longest
    // run) is read now.
    run.show();
    let answer = run.ask("cpu_usage_watchdog slice off");
    if !answer.contains("slice off") {
        run.console.fail(&format!("`cpu_usage_watchdog slice off` answered {answer:?}"));
    }

    let report = run.seen.get(&window).cloned();
    let shown = |w: &Option<Window>| w.as_ref().map_or("(not read)".to_string(), Window::text);
    // On QEMU (guest time) work40's runs are the only ones over the threshold. On the
    // POSIX simulator a host that stalls the thread of a short run (churn, the shell)
    // for longer than work40's burns makes that run the longest, and the watchdog must
    // name it instead: there the alert is checked against the window's report alone.
    let named_right = task == "work40" || run.judging.host_time;
    if !named_right || window <= last || threshold_us != SLICE_US || us <= SLICE_US {
        run.console.fail(&format!(
            "slice alert {:.3} ms > {:.3} ms by task {task_id} {task:?} in window {window}: expected work40, over \
             {SLICE_US} us, in a window after {last}; that window's report: {}",
            us as f64 / 1000.0,
            threshold_us as f64 / 1000.0,
            shown(&report)
        ));
    }
    // The run it names is that window's longest of any task but the idle task, to the
    // microsecond (when the report of that window read lists every task: `-d`).
    let tasks: Vec<Task> = report.as_ref().map(|w| w.report.tasks.clone()).unwrap_or_default();
    let longest = tasks.iter().max_by_key(|t| t.longest_slice_us);
    let whole = report.as_ref().is_some_and(|w| w.report.more_tasks.is_none());
    match longest {
        Some(t)
            if whole
                && (t.longest_slice_us != us
                    || !tasks.iter().any(|o| u64::from(o.id) == task_id && o.longest_slice_us == us)) =>
        {
            run.console.fail(&format!(
                "slice alert: task {task_id} {task:?} ran {us} us in window {window}, but that window's longest run \
                 is {:?}'s, {} us: {}",
                t.name,
                t.longest_slice_us,
                shown(&report)
            ))
        }
        Some(_) if whole => {
            let next = tasks
                .iter()
                .filter(|o| u64::from(o.id) != task_id)
                .max_by_key(|o| o.longest_slice_us)
                .map_or(String::new(), |o| format!("; next longest: {:?} {} us", o.name, o.longest_slice_us));
            println!(
                "slice alert: {task} (ID {task_id}) ran {us} us in one go in window #{window}, the longest run of \
                 that window as its report says{next}"
            )
        }
        _ => println!("slice alert: {task} ran {us} us in window #{window} (that window's whole report was not read)"),
    }
}

/// Asks `first` then `second`, again while their window numbers (`window_of`) differ;
/// returns both answers (echo and alerts removed) and the window.
fn same_window(
    run: &mut Run<'_>,
    first: &str,
    second: &str,
    window_of: impl Fn(&str) -> Option<u64>,
) -> (String, String, u64) {
    let mut tries = Vec::new();
    for _ in 0..SAME_WINDOW_TRIES {
        let a = run.ask(first);
        let b = run.ask(second);
        let (a, b) = (without_notes(strip_echo(&a, first)), without_notes(strip_echo(&b, second)));
        let (wa, wb) = (window_of(&a), window_of(&b));
        match (wa, wb) {
            (Some(wa), Some(wb)) if wa == wb => return (a, b, wa),
            (Some(_), Some(_)) => tries.push((wa, wb)),
            _ => run.console.fail(&format!("no window number in the answer to {first:?} or {second:?}:\n{a}\n{b}")),
        }
    }
    run.console.fail(&format!("`{first}` and `{second}` never read the same window: {tries:?}"))
}

/// The answer without the board's note, which a report carries when the board has
/// something to say about its figures (the simulator: a host that held back its
/// core), and which two answers need not share: a table's `note: ` line before it, a
/// JSON report's `"note"`, its last member (the pieces FreeRTOS+CLI's callback writes
/// have none: the demo adds it to what they make up).
fn without_notes(answer: &str) -> String {
    let mut kept = String::new();
    for line in answer.split_inclusive('\n').filter(|l| !l.starts_with("note: ")) {
        match line.rfind(",\"note\":{\"text\":") {
            Some(at) if line.starts_with('{') => {
                kept.push_str(&line[..at]);
                kept.push_str(&line[line.trim_end().len() - 1..]);
            }
            _ => kept.push_str(line),
        }
    }
    kept
}

/// The window number of a report, JSON or table, or of `snapshot -m`'s answer.
fn window_of(text: &str) -> Option<u64> {
    if let Some(line) = text.lines().find(|l| l.starts_with('{')) {
        let json = serde_json::from_str::<Value>(line).ok()?;
        return json["window"].as_u64().or_else(|| json["snapshot"]["window"].as_u64());
    }
    parse_table(text).ok()?.window
}

/// The JSON report in the answer to `command`, held to the whole contract.
fn report_of(run: &mut Run<'_>, answer: &str, command: &str) -> Report {
    let report = report_in(answer, command);
    match run.check(report) {
        Some(report) => report,
        None => run.console.fail(&format!("no window yet in the answer to {command}: {answer:?}")),
    }
}

/// The window report in the answer to `command`, held to the whole contract.
fn json_of(run: &mut Run<'_>, answer: &str, command: &str) -> Report1 {
    let w = match report_of(run, answer, command) {
        Report::Window(w) => *w,
        other => run.console.fail(&format!("not a window report in the answer to {command}: {other:?}")),
    };
    let demo = super::check_demo(&w);
    run.check(demo);
    w
}

/// (c) `snapshot -m`, `cpu_usage_snapshot()`'s structs as the demo prints them,
/// against `show_cpu_usage -m` of the same window: every figure both give must be equal.
pub(super) fn check_snapshot(run: &mut Run<'_>) {
    let (snap, report, window) = same_window(run, "snapshot -m", super::REPORT, window_of);
    let parsed = demo_json::read_line::<SnapshotLine>(&snap, "snapshot -m");
    let snap = run.check(parsed).snapshot;
    let json = json_of(run, &report, super::REPORT);
    let problems = compare_snapshot(&snap, &json);
    if !problems.is_empty() {
        run.console.fail(&format!(
            "`snapshot` and `show_cpu_usage -m` disagree on window {window}:\n  {}\n{json:?}",
            problems.join("\n  ")
        ));
    }
    println!("snapshot: window #{window}, {} tasks, every figure as `show_cpu_usage -m` has it", snap.rows.len());
}

/// What differs between a snapshot and the JSON report of the same window.
fn compare_snapshot(snap: &Snapshot, json: &Report1) -> Vec<String> {
    let mut problems = Vec::new();
    // Both are hundredths (or integers) printed in decimal: equal, or not.
    fn same(problems: &mut Vec<String>, what: String, a: f64, b: f64) {
        if (a - b).abs() > 1e-6 || a.is_nan() || b.is_nan() {
            problems.push(format!("{what}: snapshot {a}, report {b}"));
        }
    }
    same(&mut problems, "window_us".into(), snap.window_us as f64, json.window_us as f64);
    same(
        &mut problems,
        "tasks".into(),
        snap.tasks as f64,
        (json.tasks.len() + usize::from(json.idle.is_some())) as f64,
    );
    same(&mut problems, "tasks copied".into(), snap.rows.len() as f64, snap.tasks as f64);
    same(&mut problems, "tasks written".into(), snap.written as f64, snap.tasks as f64);
    for row in &snap.rows {
        let name = &row.name;
        let Some(t) = task_by_id(json, row.id).filter(|t| t.name == row.name.as_str()) else {
            problems.push(format!("snapshot lists {} {name:?}, the report does not", row.id));
            continue;
        };
        same(&mut problems, format!("{name} usage"), row.usage_pct, t.usage_pct);
        same(&mut problems, format!("{name} switches"), row.switches as f64, t.switches as f64);
        same(&mut problems, format!("{name} longest slice"), row.longest_slice_us as f64, t.longest_slice_us as f64);
        if row.idle != t.idle || (!row.idle && t.deleted != row.deleted) {
            problems
                .push(format!("{name}: flags idle {} deleted {} against the report's {t:?}", row.idle, row.deleted));
        }
    }
    same(&mut problems, "interrupts".into(), snap.interrupts_pct, json.interrupts_pct);
    same(&mut problems, "interrupt count".into(), snap.interrupts as f64, json.interrupts as f64);
    same(&mut problems, "longest interrupt".into(), snap.longest_interrupt_us as f64, json.longest_interrupt_us as f64);
    same(&mut problems, "sleep".into(), snap.sleep_pct, json.sleep_pct);
    same(&mut problems, "other".into(), snap.other_pct, json.other_pct);
    same(&mut problems, "idle".into(), snap.idle_pct, json.idle_pct);
    same(&mut problems, "load".into(), snap.load_pct, json.load_pct);
    for (i, (avg, reported)) in snap.load_avg_pct.iter().zip(json.load_avg_pct).enumerate() {
        match (avg, reported) {
            (None, None) => {}
            (Some(a), Some(b)) => same(&mut problems, format!("load average {i}"), *a, b),
            _ => problems.push(format!("load average {i}: snapshot {avg:?}, report {reported:?}")),
        }
    }
    problems
}

/// (d) `cli show_cpu_usage <options>`, the report fetched by FreeRTOS+CLI's protocol
/// in 47-byte pieces, against `show_cpu_usage <options>` of the same window: the same
/// text, byte for byte, in as many calls as it takes.
pub(super) fn check_cli(run: &mut Run<'_>, options: &str) {
    let cli_line = format!("cli show_cpu_usage {options}");
    let direct_line = format!("show_cpu_usage {options}");
    // The pieces are all of the copy taken at the first call; the direct command may
    // still read the next window, and then the pair is asked again.
    let (cli, direct, window) = same_window(run, &cli_line, &direct_line, window_of);
    let Some((text, trailer)) = cli.trim_end_matches('\n').rsplit_once('\n') else {
        run.console.fail(&format!("`{cli_line}` answered {cli:?}"));
    };
    let text = format!("{text}\n");
    let calls = trailer
        .strip_prefix("cli: ")
        .and_then(|r| r.strip_suffix(" calls with a 48-byte buffer"))
        .and_then(|n| n.parse::<usize>().ok());
    if text != direct {
        run.console.fail(&format!(
            "`{cli_line}` and `{direct_line}` differ for window {window}:\n--- cli ---\n{text}--- direct ---\n{direct}"
        ));
    }
    let expected = text.len().div_ceil(CLI_PIECE);
    if calls != Some(expected) {
        run.console.fail(&format!(
            "`{cli_line}`: {} bytes should take {expected} calls of {CLI_PIECE} bytes; the demo says {trailer:?}",
            text.len()
        ));
    }
    println!("cli: `{direct_line}` for window #{window}, {} bytes in {expected} calls, the same text", text.len());
}

/// The rows of `table` against the report `json` of the same window: usage, and with
/// `-l` runs and longest run. Returns what differs.
fn compare_table(table: &Table, json: &Report1) -> Vec<String> {
    let mut problems = Vec::new();
    let rows = table.tasks.iter().chain(table.overflow.iter()).chain(table.idle.iter());
    for row in rows {
        let Some(t) = task_by_id(json, row.id).filter(|t| t.name == row.name.as_str()) else {
            problems.push(format!("the table lists {} {:?}, the report does not", row.id, row.name));
            continue;
        };
        if !row.usage.agrees(t.usage_pct, t.counts) {
            problems.push(format!("{}: usage {:?}, report {t:?}", row.name, row.usage));
        }
        if row.runs.is_some() && (row.runs != Some(t.switches) || row.longest_us != Some(t.longest_slice_us)) {
            problems.push(format!("{}: runs {:?}, longest {:?} us, report {t:?}", row.name, row.runs, row.longest_us));
        }
    }
    problems
}

/// (e) `show_cpu_usage`'s other options: `-l` (runs and longest runs) and `-n 2`
/// against `-m` of the same window, `-s` in order, `-c -l -m`'s per-task history.
pub(super) fn check_options(run: &mut Run<'_>) {
    let table_window = |t: &str| window_of(t);

    // -l: every row's figures as in the JSON report, and work40 ran.
    let (long, report, window) = same_window(run, "show_cpu_usage -l -d", super::REPORT, table_window);
    let json = json_of(run, &report, super::REPORT);
    let parsed = parse_table(&long).map_err(|e| format!("cannot read `show_cpu_usage -l` ({e}):\n{long}"));
    let table = run.check(parsed);
    let mut problems = compare_table(&table, &json);
    // The JSON lists the overflow bucket among the tasks, the table on a line of its own.
    if table.tasks.len() + usize::from(table.overflow.is_some()) != json.tasks.len() {
        problems.push(format!("{} task lines for the report's tasks {:?}", table.tasks.len(), json.tasks));
    }
    if table.tasks.iter().any(|r| r.runs.is_none()) || table.idle.as_ref().and_then(|r| r.runs).is_none() {
        problems.push("a line without its RUNS and LONGEST columns".into());
    }
    if !table.tasks.iter().any(|r| r.name == "work40" && r.runs.unwrap_or(0) > 0 && r.longest_us.unwrap_or(0) > 0) {
        problems.push("work40, which runs all the time, shows no runs".into());
    }
    if !problems.is_empty() {
        run.console.fail(&format!(
            "`show_cpu_usage -l -d` and `-m -d` disagree on window {window}:\n  {}\n{long}\n{json:?}",
            problems.join("\n  ")
        ));
    }

    // -s: the tasks by usage, largest first, ties by ID: the report's tasks in that
    // order (by their counts, which the shares are apportioned from).
    let (sorted, report, window) = same_window(run, "show_cpu_usage -s -d", super::REPORT, table_window);
    let json = json_of(run, &report, super::REPORT);
    let parsed = parse_table(&sorted).map_err(|e| format!("cannot read `show_cpu_usage -s` ({e}):\n{sorted}"));
    let table = run.check(parsed);
    let mut expected: Vec<&Task> = json.tasks.iter().filter(|t| t.id != 0).collect();
    expected.sort_by_key(|t| (std::cmp::Reverse(t.counts), t.id));
    let expected: Vec<u64> = expected.iter().map(|t| u64::from(t.id)).collect();
    let shown: Vec<u64> = table.tasks.iter().map(|r| r.id).collect();
    let usages: Vec<f64> = table.tasks.iter().map(|r| r.usage.value()).collect();
    // Each share is within a hundredth of its exact value, handed out in ID order
    // whatever the order shown: two tasks of nearly equal counts can show shares a
    // hundredth apart the other way round, never more.
    if shown != expected || usages.windows(2).any(|p| p[0] + 0.01 + 1e-9 < p[1]) {
        run.console.fail(&format!(
            "`show_cpu_usage -s` for window {window} lists IDs {shown:?}, by usage {expected:?}:\n{sorted}\n{json:?}"
        ));
    }
    let leader = table.tasks.first().map_or(String::new(), |r| format!("{} at {:?}", r.name, r.usage));

    // -n 2: the two busiest tasks (the shared bucket among them), then one line for
    // the rest with the sum of their shares, and one for the deleted tasks.
    let (top, report, window) = same_window(run, "show_cpu_usage -n 2", super::REPORT, table_window);
    let json = json_of(run, &report, super::REPORT);
    let parsed = parse_table(&top).map_err(|e| format!("cannot read `show_cpu_usage -n 2` ({e}):\n{top}"));
    let table = run.check(parsed);
    let (deleted, mut others): (Vec<&Task>, Vec<&Task>) = json.tasks.iter().partition(|t| t.deleted);
    others.sort_by_key(|t| (std::cmp::Reverse(t.counts), t.id));
    let first_two: Vec<u64> = others.iter().take(2).map(|t| u64::from(t.id)).collect();
    let rest = others.get(2..).unwrap_or(&[]);
    // Hundredths, summed exactly: every task has the same share in every report of
    // a window.
    let hundredths = |t: &[&Task]| t.iter().map(|t| hundredths_of(t.usage_pct)).sum::<u64>();
    let (rest_pct, deleted_pct) = (hundredths(rest), hundredths(&deleted));
    // (`<0.01%` is a share of 0 hundredths.)
    let cents = |u: Option<(u64, Usage)>| {
        u.map(|(n, usage)| (n, if let Usage::Pct(p) = usage { (p * 100.0).round() as u64 } else { 0 }))
    };
    let more_ok = cents(table.more) == Some((rest.len() as u64, rest_pct)) || rest.is_empty() && table.more.is_none();
    let deleted_ok = cents(table.deleted) == Some((deleted.len() as u64, deleted_pct))
        || deleted.is_empty() && table.deleted.is_none();
    if table.order != first_two || !more_ok || !deleted_ok {
        run.console.fail(&format!(
            "`show_cpu_usage -n 2` for window {window} shows IDs {:?}, {:?} more, {:?} deleted; expected {first_two:?}, \
             {} more tasks at {rest_pct} hundredths and {} deleted at {deleted_pct}:\n{top}\n{json:?}",
            table.order,
            table.more,
            table.deleted,
            rest.len(),
            deleted.len()
        ));
    }
    let names: Vec<&str> = table.tasks.iter().map(|r| r.name.as_str()).collect();
    println!(
        "options: -l and -n 2 ({names:?} and {} more tasks) agree with -m on window #{window}; -s sorts ({leader} \
         first)",
        rest.len()
    );

    // -c -l -m: since start, every task with its busiest window and longest run
    // (the history fields are there, null or not, on every line: the contract).
    let command = "show_cpu_usage -c -l -m";
    let answer = run.ask(command);
    let json: SinceStart = match report_of(run, &answer, command) {
        Report::SinceStart(s) => *s,
        other => run.console.fail(&format!("`{command}` did not answer a since-start report: {other:?}")),
    };
    let windows = json.windows;
    let mut problems = Vec::new();
    for name in ["work10", "work25", "work40"] {
        let Some(t) = json.task(name) else {
            problems.push(format!("{name} missing"));
            continue;
        };
        // Windows are numbered from 0; the peak is a completed window's, the longest
        // run may be in the window under way (number `windows`).
        let h = &t.history;
        let placed = h.peak_pct.is_some_and(|p| p > 0.0 && p <= 100.0)
            && h.peak_window.is_some_and(|w| w < windows)
            && h.longest_slice_window.is_some_and(|w| w <= windows);
        if t.switches == 0 || t.longest_slice_us == 0 || !placed {
            problems.push(format!("{name}: {t:?}"));
        }
    }
    if windows == 0 || !problems.is_empty() {
        run.console.fail(&format!("`{command}` ({windows} windows):\n  {}\n{json:?}", problems.join("\n  ")));
    }
    println!("options: -c -l -m gives every task its switches, longest run and busiest window over {windows} windows");
}

#[cfg(test)]
mod tests {
    use super::super::table::Usage;
    use super::*;

    #[test]
    fn echo_is_stripped() {
        assert_eq!(strip_echo("snapshot\nsnapshot of window #3", "snapshot"), "snapshot of window #3");
        assert_eq!(strip_echo("snapshot of window #3", "snapshot"), "snapshot of window #3");
    }

    #[test]
    fn window_numbers_are_found() {
        assert_eq!(window_of("{\"mode\":\"window\",\"window\":7}\n"), Some(7));
        assert_eq!(window_of("snapshot -m\n{\"snapshot\":{\"window\":9,\"window_us\":1}}\n"), Some(9));
        assert_eq!(window_of("CPU usage, window #12: 1000.000 ms, clock x 1 Hz\n"), Some(12));
        assert_eq!(window_of("CPU usage since start: 3.000 ms (3 windows)\n"), None);
    }

    #[test]
    fn the_boards_note_is_left_out_of_tables_and_json() {
        let note = r#"{"text":"over the last 1.0 s ...","span_us":1000000,"awake_us":900000,"held_back_us":400000}"#;
        let json = format!("{{\"mode\":\"window\",\"load_avg_pct\":[1.00,null,null],\"note\":{note}}}\n");
        assert_eq!(without_notes(&json), "{\"mode\":\"window\",\"load_avg_pct\":[1.00,null,null]}\n");
        assert_eq!(without_notes(json.trim_end()), "{\"mode\":\"window\",\"load_avg_pct\":[1.00,null,null]}");
        let table = "note: over the last 1.0 s ...\nCPU usage, window #3: 1000.000 ms\n";
        assert_eq!(without_notes(table), "CPU usage, window #3: 1000.000 ms\n");
        let plain = "{\"mode\":\"window\",\"window\":3}\ncli: 2 calls with a 48-byte buffer\n";
        assert_eq!(without_notes(plain), plain);
    }

    #[test]
    fn usage_cells_agree_with_the_report() {
        assert!(Usage::Zero.agrees(0.0, 0));
        assert!(Usage::Tiny.agrees(0.0, 5));
        assert!(!Usage::Tiny.agrees(0.01, 5));
        assert!(Usage::Pct(12.34).agrees(12.34, 100));
        assert!(!Usage::Pct(12.34).agrees(12.35, 100));
    }
}
