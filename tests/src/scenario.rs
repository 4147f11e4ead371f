//! The end-to-end conversation with the demo, the same on every port.
//!
//! 1. Wait until two windows have completed (the first ones hold the start-up), then
//!    read the next three windows: each workload's share, averaged over them, must be
//!    within the port's tolerance of its configured duty.
//! 2. `load work25 5`; two windows later work25 must be at 5 %.
//! 3. Churn (on from boot) must have created hundreds of tasks and have pushed some
//!    into the shared overflow bucket (ID 0) along the way, since its largest batches
//!    exceed the 32 IDs. `churn off`; three windows later no ID may have leaked: the
//!    pool adds up, nothing is left in quarantine or in the overflow bucket, and
//!    every live task the kernel lists holds one ID of its own.
//!
//! Every report read on the way is checked for exact bookkeeping: the counts of the
//! tasks, idle and "other" add up to the window's length, the percentages to 100, and
//! the ID pool's parts to its capacity.

use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::{Console, Deadline};

/// How a port is driven and judged.
#[derive(Clone, Copy, Debug)]
pub struct Port {
    /// The longest a command may take to answer, in seconds.
    pub reply_secs: u64,
    /// The longest the demo may take to print its first prompt, in seconds.
    pub boot_secs: u64,
    /// The longest the whole conversation may take, in seconds (a hang guard, far
    /// above the expected run time).
    pub total_secs: u64,
    /// Largest distance, in percentage points, between a workload's measured share
    /// and its configured duty. The caller explains it by the port's physics.
    pub duty_tolerance_pp: f64,
}

/// The demo's workloads and their duties at boot (demo/demo.c).
pub const WORKLOADS: [(&str, f64); 3] = [("work10", 10.0), ("work25", 25.0), ("work40", 40.0)];

/// Windows averaged for the duty check.
const AVERAGED_WINDOWS: usize = 3;

/// Tasks the churn must have created before it is stopped: enough for every ID to
/// have been reused several times over.
const CHURN_MIN_CREATED: u64 = 300;

/// The percentages of a report are apportioned in hundredths and add up to exactly
/// 100.00; the tolerance only absorbs the decimal-to-binary rounding of the parsed
/// figures.
const PCT_SUM_TOLERANCE: f64 = 0.05;

/// Pause between two polls of the demo while waiting for a window to complete.
const POLL: Duration = Duration::from_millis(100);

/// One `show_cpu_usage -m` window report, parsed and checked.
#[derive(Clone, Debug)]
pub struct Window {
    /// Its sequence number.
    pub index: u64,
    /// The whole JSON object.
    pub json: Value,
}

impl Window {
    /// The share of the task named `name`, if the window lists it.
    pub fn usage_of(&self, name: &str) -> Option<f64> {
        self.json["tasks"].as_array()?.iter().find(|t| t["name"] == name).and_then(|t| t["usage_pct"].as_f64())
    }
}

fn uint(v: &Value, what: &str) -> Result<u64, String> {
    v.as_u64().ok_or_else(|| format!("{what} is not an unsigned integer: {v}"))
}

fn num(v: &Value, what: &str) -> Result<f64, String> {
    v.as_f64().ok_or_else(|| format!("{what} is not a number: {v}"))
}

/// The bookkeeping every window report must satisfy.
pub fn check_window(r: &Value) -> Result<(), String> {
    if r["mode"] != "window" {
        return Err(format!("mode is {}, not \"window\"", r["mode"]));
    }
    let tasks = r["tasks"].as_array().ok_or("no tasks array")?;

    // Counts are integers: every clock count is charged exactly once.
    let mut counts = 0u64;
    for t in tasks {
        counts += uint(&t["counts"], "tasks[].counts")?;
    }
    let idle = uint(&r["idle"]["counts"], "idle.counts")?;
    let other = uint(&r["other_counts"], "other_counts")?;
    let length = uint(&r["window_counts"], "window_counts")?;
    if counts + idle + other != length {
        return Err(format!(
            "tasks ({counts}) + idle ({idle}) + other ({other}) = {} counts, but window_counts is {length}",
            counts + idle + other
        ));
    }

    let mut pct = 0.0;
    for t in tasks {
        pct += num(&t["usage_pct"], "tasks[].usage_pct")?;
    }
    let pct = pct + num(&r["other_pct"], "other_pct")? + num(&r["idle_pct"], "idle_pct")?;
    if (pct - 100.0).abs() > PCT_SUM_TOLERANCE {
        return Err(format!("tasks + other + idle add up to {pct:.4} %, not 100 %"));
    }

    let s = &r["slots"];
    let (used, quarantined) = (uint(&s["used"], "slots.used")?, uint(&s["quarantined"], "slots.quarantined")?);
    let (free, capacity) = (uint(&s["free"], "slots.free")?, uint(&s["capacity"], "slots.capacity")?);
    if used + quarantined + free != capacity {
        return Err(format!(
            "ID pool does not add up: used {used} + quarantined {quarantined} + free {free} != capacity {capacity}"
        ));
    }
    Ok(())
}

/// A live task as the demo's `tasks` command lists it.
#[derive(Clone, Debug)]
pub struct TaskRow {
    /// Library ID (0: the shared overflow bucket).
    pub id: u64,
    /// Task name.
    pub name: String,
}

/// Parses the `tasks` answer: a header, one row per task, and `N tasks`.
pub fn parse_tasks(answer: &str) -> Result<(Vec<TaskRow>, u64), String> {
    let mut rows = Vec::new();
    let mut total = None;
    for line in answer.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            [n, "tasks"] => total = Some(n.parse::<u64>().map_err(|e| format!("{line:?}: {e}"))?),
            [id, name, _state, _prio, _stack] => {
                if let Ok(id) = id.parse::<u64>() {
                    rows.push(TaskRow { id, name: name.to_string() });
                }
            }
            _ => {}
        }
    }
    let total = total.ok_or("no `N tasks` line")?;
    Ok((rows, total))
}

/// `churn status`: whether it is on, and how many tasks it has created.
fn parse_churn(answer: &str) -> Result<(bool, u64), String> {
    let line = answer.lines().find(|l| l.starts_with("churn: ")).ok_or("no `churn:` line")?;
    let on = line.starts_with("churn: on");
    let created = line
        .split(", ")
        .find_map(|part| part.strip_prefix("created "))
        .ok_or_else(|| format!("no `created N` in {line:?}"))?
        .parse::<u64>()
        .map_err(|e| format!("{line:?}: {e}"))?;
    Ok((on, created))
}

/// How much of a host core the demo had while the duties were measured: a simulator
/// whose idle task spins should have all of one. When the host is busy with other
/// work, its threads are preempted in the middle of burns; the demo's burn loop skips
/// those gaps but the task still held the CPU as far as FreeRTOS knows, so the shares
/// come out inflated. A failure says so rather than leave it to be guessed.
struct HostShare(Option<(Instant, Duration)>);

impl HostShare {
    fn start(console: &Console) -> Self {
        HostShare(console.cpu_time().map(|cpu| (Instant::now(), cpu)))
    }

    /// A note for failure messages ("" when the share cannot be read).
    fn finish(self, console: &Console) -> String {
        let (Some((t0, cpu0)), Some(cpu1)) = (self.0, console.cpu_time()) else { return String::new() };
        let wall = t0.elapsed().as_secs_f64();
        let share = (cpu1.saturating_sub(cpu0)).as_secs_f64() / wall * 100.0;
        println!("the demo process used {share:.0} % of a host core while the duties were measured");
        format!(
            " (meanwhile the demo process used {share:.0} % of a host core: on the POSIX simulator, \
             well under 100 % means other processes competed for the CPU and the shares are inflated)"
        )
    }
}

/// The conversation in progress.
struct Run<'a> {
    console: &'a mut Console,
    port: Port,
    deadline: Deadline,
    /// A report showed the overflow bucket in use.
    saw_overflow: bool,
}

impl Run<'_> {
    fn ask(&mut self, line: &str) -> String {
        self.console.command(line, self.port.reply_secs)
    }

    fn check<T>(&mut self, result: Result<T, String>) -> T {
        match result {
            Ok(value) => value,
            Err(what) => self.console.fail(&what),
        }
    }

    /// The last completed window, checked; `None` before the first one.
    fn show(&mut self) -> Option<Window> {
        let answer = self.ask("show_cpu_usage -m");
        let Some(line) = answer.lines().find(|l| l.starts_with('{')) else {
            self.console.fail(&format!("no JSON line in the answer to show_cpu_usage -m: {answer:?}"));
        };
        let json: Value = match serde_json::from_str(line) {
            Ok(json) => json,
            Err(e) => self.console.fail(&format!("invalid JSON ({e}): {line}")),
        };
        if json.get("error").is_some() {
            return None;
        }
        let checked = check_window(&json).map_err(|e| format!("window report: {e}\n{line}"));
        self.check(checked);
        let s = &json["slots"];
        let overflow_row = json["tasks"].as_array().is_some_and(|t| t.iter().any(|t| t["id"] == 0));
        self.saw_overflow |= s["overflow_tasks"].as_u64().unwrap_or(0) > 0 || overflow_row;
        let index = json["window"].as_u64();
        let index = self.check(index.ok_or_else(|| format!("no window number: {line}")));
        Some(Window { index, json })
    }

    /// Polls until window `index` or a later one has completed.
    fn wait_window(&mut self, index: u64) -> Window {
        loop {
            if let Some(w) = self.show() {
                if w.index >= index {
                    return w;
                }
            }
            if self.deadline.passed() {
                let limit = self.port.total_secs;
                self.console.fail(&format!("window {index} not reached within the {limit} s the scenario may take"));
            }
            thread::sleep(POLL);
        }
    }

    /// The last completed window now (waiting for the first if need be).
    fn current_window(&mut self) -> u64 {
        self.wait_window(0).index
    }

    fn churn_status(&mut self) -> (bool, u64) {
        let answer = self.ask("churn status");
        let parsed =
            parse_churn(&answer).map_err(|e| format!("cannot read the `churn status` answer ({e}): {answer:?}"));
        self.check(parsed)
    }

    fn expect_share(&mut self, w: &Window, name: &str, duty: f64, label: &str) {
        let measured = w.usage_of(name);
        let measured = self.check(measured.ok_or_else(|| format!("window {} does not list {name}", w.index)));
        let tol = self.port.duty_tolerance_pp;
        println!("{label}: {name} {measured:.2} % in window #{} (duty {duty} %)", w.index);
        if (measured - duty).abs() > tol {
            self.console.fail(&format!(
                "{label}: {name} used {measured:.2} % in window {}, expected {duty} ± {tol} pp",
                w.index
            ));
        }
    }
}

/// Drives the demo behind `console` through the whole scenario, then `exit`. Panics
/// (killing the demo) at the first failed check.
pub fn run(console: &mut Console, port: Port) {
    let mut run = Run { console, port, deadline: Deadline::after_secs(port.total_secs), saw_overflow: false };

    let banner = run.console.read_answer(port.boot_secs);
    if !banner.contains("freertos-cpu-usage demo") {
        run.console.fail(&format!("unexpected banner: {banner:?}"));
    }
    if !run.churn_status().0 {
        run.ask("churn on");
    }

    // 1. Duties. Two windows completed first (the start-up is in them), then the
    //    average over the next three. A window's figure alone jitters: a workload
    //    wakes every 10 ms and burns its share of the time since its previous
    //    activation in one piece, so a 1 s window boundary falls inside some burn
    //    and hands part of it to the next window; averaging evens that out.
    let first = run.wait_window(1);
    let host_share = HostShare::start(run.console);
    let mut windows = Vec::new();
    let mut next = first.index + 1;
    while windows.len() < AVERAGED_WINDOWS {
        let w = run.wait_window(next);
        next = w.index + 1;
        windows.push(w);
    }
    let host = host_share.finish(run.console);
    for (name, duty) in WORKLOADS {
        let mut sum = 0.0;
        for w in &windows {
            let share = w.usage_of(name);
            sum += run.check(share.ok_or_else(|| format!("window {} does not list {name}", w.index)));
        }
        let mean = sum / windows.len() as f64;
        let tol = port.duty_tolerance_pp;
        let first_index = windows.first().map_or(0, |w| w.index);
        println!("{name}: {mean:.2} % averaged over {} windows from #{first_index} (duty {duty} %)", windows.len());
        if (mean - duty).abs() > tol {
            let shares: Vec<String> = windows.iter().map(|w| format!("#{}: {:?}", w.index, w.usage_of(name))).collect();
            run.console.fail(&format!(
                "{name} averaged {mean:.2} % over windows {}, expected {duty} ± {tol} pp{host}",
                shares.join(", ")
            ));
        }
    }

    // 2. A new duty. The window under way when `load` ran is mixed; the one after the
    //    next report's in-progress window is entirely at the new duty.
    let answer = run.ask("load work25 5");
    if !answer.contains("work25: 5%") {
        run.console.fail(&format!("`load work25 5` answered {answer:?}"));
    }
    let at = run.current_window();
    let w = run.wait_window(at + 2);
    run.expect_share(&w, "work25", 5.0, "after `load work25 5`");

    // 3. Churn: hundreds of creates, then off, then nothing may be left behind.
    loop {
        let (on, created) = run.churn_status();
        if !on {
            run.console.fail("churn went off by itself");
        }
        if created >= CHURN_MIN_CREATED {
            println!("churn: {created} tasks created so far");
            break;
        }
        if run.deadline.passed() {
            run.console.fail(&format!("churn created only {created} tasks in the time allowed"));
        }
        thread::sleep(Duration::from_millis(250));
    }
    // Make sure a report during churn was read even if the loop above did not wait.
    run.show();
    if !run.saw_overflow {
        run.console.fail(
            "no report during churn showed the overflow bucket (overflow_tasks > 0 or a task with id 0), \
             although churn batches of 40 exceed the 32 IDs",
        );
    }
    let answer = run.ask("churn off");
    if !answer.contains("churn: off") {
        run.console.fail(&format!("`churn off` answered {answer:?}"));
    }
    // The churn task deletes its last waiting children on its next round (50 ms);
    // an ID leaves quarantine once the windows its task had time in are no longer
    // shown, two windows after its death: three windows later nothing may remain.
    let at = run.current_window();
    let w = run.wait_window(at + 3);
    let s = w.json["slots"].clone();
    let (used, quarantined, overflow) =
        (s["used"].as_u64().unwrap_or(u64::MAX), s["quarantined"].as_u64(), s["overflow_tasks"].as_u64());
    if quarantined != Some(0) || overflow != Some(0) {
        run.console.fail(&format!("three windows after `churn off` the ID pool still holds churn: slots {s}"));
    }
    if let Some(t) = w.json["tasks"].as_array().and_then(|t| t.iter().find(|t| t["deleted"] == true)) {
        run.console.fail(&format!("window {} still lists a deleted task three windows after churn: {t}", w.index));
    }
    let answer = run.ask("tasks");
    let (rows, total) = match parse_tasks(&answer) {
        Ok(parsed) => parsed,
        Err(e) => run.console.fail(&format!("cannot read the `tasks` answer ({e}): {answer:?}")),
    };
    let mut ids: Vec<u64> = rows.iter().map(|r| r.id).collect();
    ids.sort_unstable();
    ids.dedup();
    if rows.len() as u64 != total || ids.len() != rows.len() || ids.first() == Some(&0) {
        run.console.fail(&format!(
            "after churn every live task should hold its own ID; `tasks` lists {} rows for {total} tasks: {rows:?}",
            rows.len()
        ));
    }
    println!("after churn: slots {s}, {total} live tasks");
    if used != total {
        run.console.fail(&format!("slots.used is {used} but the kernel has {total} live tasks: {rows:?}"));
    }

    run.console.exit(port.reply_secs);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A report as the simulator printed it.
    const REPORT: &str = r#"{"mode":"window","window":1,"window_us":1000000,"window_counts":15625000,"clock":"monotonic","clock_hz":15625000,"slots":{"capacity":32,"used":6,"quarantined":26,"free":0,"overflow_tasks":1},"tasks":[{"id":0,"name":"(overflow)","counts":483369,"usage_pct":3.09,"deleted":false},{"id":1,"name":"work10","counts":2312350,"usage_pct":14.80,"deleted":false},{"id":2,"name":"work25","counts":4142565,"usage_pct":26.51,"deleted":false},{"id":3,"name":"work40","counts":6626722,"usage_pct":42.41,"deleted":false},{"id":4,"name":"churn","counts":110624,"usage_pct":0.71,"deleted":false},{"id":5,"name":"shell","counts":284680,"usage_pct":1.82,"deleted":false}],"idle":{"id":6,"name":"IDLE","counts":1663435},"other_counts":1255,"other_pct":0.01,"idle_pct":10.65,"load_pct":89.35}"#;

    fn report_with(from: &str, to: &str) -> Value {
        assert!(REPORT.contains(from), "{from} is not in the sample report");
        serde_json::from_str(&REPORT.replacen(from, to, 1)).unwrap()
    }

    #[test]
    fn a_consistent_report_passes() {
        check_window(&serde_json::from_str(REPORT).unwrap()).unwrap();
    }

    #[test]
    fn one_count_too_many_fails() {
        let err = check_window(&report_with("\"other_counts\":1255", "\"other_counts\":1256")).unwrap_err();
        assert!(err.contains("window_counts is 15625000"), "{err}");
    }

    #[test]
    fn percentages_off_by_a_tenth_fail() {
        let err = check_window(&report_with("\"idle_pct\":10.65", "\"idle_pct\":10.55")).unwrap_err();
        assert!(err.contains("not 100 %"), "{err}");
    }

    #[test]
    fn a_leaked_id_fails() {
        let err = check_window(&report_with("\"free\":0", "\"free\":1")).unwrap_err();
        assert!(err.contains("does not add up"), "{err}");
    }

    #[test]
    fn fractional_counts_fail() {
        let err = check_window(&report_with("\"counts\":110624", "\"counts\":110624.5")).unwrap_err();
        assert!(err.contains("not an unsigned integer"), "{err}");
    }

    #[test]
    fn tasks_answer_is_parsed() {
        let answer = "  id  name             state      prio  stack free (words)\n   0  churn-661        blocked       1    251\n   1  work10           blocked       1    507\n   6  IDLE             ready         0    251\n3 tasks\n";
        let (rows, total) = parse_tasks(answer).unwrap();
        assert_eq!(total, 3);
        let ids: Vec<u64> = rows.iter().map(|r| r.id).collect();
        assert_eq!(ids, [0, 1, 6]);
        assert_eq!(rows[1].name, "work10");
    }

    #[test]
    fn churn_status_is_parsed() {
        assert_eq!(parse_churn("churn: on, created 662, deleted 661, alive 1\n").unwrap(), (true, 662));
        assert_eq!(parse_churn("churn: off, created 5, deleted 5, alive 0, create failures 2\n").unwrap(), (false, 5));
        assert!(parse_churn("usage: churn on|off|status\n").is_err());
    }
}
