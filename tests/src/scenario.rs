//! The end-to-end conversation with the demo, the same on every board.
//!
//! 0. A line longer than the shell takes (127 characters) is refused whole, with
//!    nothing run: `show_cpu_usage`, 108 blanks and `-w 25000`, cut, would set a 25 ms
//!    window; the first window must still be 1 s long. The library counts with the
//!    clock the board expects (`Judging::clock`): the first window's report and the
//!    text report's header name it and its frequency.
//! 1. Wait until two windows have completed (the first ones hold the start-up), then
//!    read the next three windows: each workload's share, averaged over them, must be
//!    within the board's tolerance of its configured duty.
//!    Meanwhile the load watchdog is set (`cpu_usage_watchdog load 50 2`, the
//!    workloads alone keeping the load at 55 to 75 % until step 5): before step 5 the
//!    demo must have printed exactly one load alert, naming the second window of the
//!    streak and its load.
//! 2. `load work25 5`; two windows later work25 must be at 5 %. In between, the slice
//!    watchdog (`cpu_usage_watchdog slice 5000`): work40 is the only task that runs
//!    longer than 5 ms in one go, so the alert must name it, with its longest run of
//!    the window named, as that window's report gives it.
//! 3. Churn (on from boot) must have created hundreds of tasks and have pushed some
//!    into the shared overflow bucket (ID 0) along the way, since its largest batches
//!    exceed the 32 IDs. While the reports are full of tasks, the other ways of
//!    reading a window must agree with `show_cpu_usage -m` on the same window:
//!    `snapshot -m` (`cpu_usage_snapshot()`'s C structs as the demo prints them), `-l`,
//!    `-n 2`, `-s`; and `-c -l -m` must give each task its history. `churn off`;
//!    three windows later no ID may have leaked: the pool adds up, nothing is left
//!    in quarantine or in the overflow bucket, and every live task the kernel lists
//!    holds one ID of its own. Then `cli show_cpu_usage ...`, the report fetched
//!    through `cpu_usage_cli_command` in 47-byte pieces, must be the same text as
//!    `show_cpu_usage ...` of the same window.
//! 4. Where the board has a peripheral interrupt of known cost (`Judging::irq`, QEMU's
//!    TIMER0: 500 Hz, 100 µs each): `irq on`; a window later the "interrupts" line
//!    must have grown by that share, and the tasks, which burn a share of the wall
//!    time, must have lost it: each shows its duty times (1 − the interrupts' share).
//! 5. Every workload at 0 %: the idle task's tickless sleep must show as "sleep".
//! 6. `tick30 on`, a task that runs for the first 30 % of every tick period: the
//!    library must show it at 30 %, while the demo's tick-sampled accounting (each
//!    tick charged whole to the task it interrupted, the `sampled` command) must show
//!    it far below, since a tick never finds it running.
//!
//! Every report read on the way is held to the report's whole contract
//! (`freertos_cpu_usage_report::parse_exact`): among others, the counts of the tasks,
//! idle, interrupts, sleep and "other" add up to the window's length exactly, the
//! shares to exactly 100.00, and the ID pool's parts to its capacity; and to the
//! options it was asked with (`-d`, `-n`).

mod api;
pub mod demo_json;
mod table;

use std::collections::BTreeMap;
use std::thread;
use std::time::{Duration, Instant};

use freertos_cpu_usage_report::{parse_exact, Report, Shown};

pub use demo_json::{Alert, Churn, KernelStats, Sampled, Tasks, Tick30};
pub use table::{parse_table, Table, TableRow, Usage};

use crate::{Console, Deadline};

/// How a board's demo is driven and judged.
#[derive(Clone, Copy, Debug)]
pub struct Judging {
    /// The longest a command may take to answer, in seconds.
    pub reply_secs: u64,
    /// The longest the demo may take to print its first prompt, in seconds.
    pub boot_secs: u64,
    /// The longest the whole conversation may take, in seconds (a hang guard, far
    /// above the expected run time).
    pub total_secs: u64,
    /// Largest distance, in percentage points, between a workload's measured share
    /// and its configured duty. The caller explains it by the board's physics.
    pub duty_tolerance_pp: f64,
    /// Largest distance, in percentage points, between tick30's share (averaged over
    /// the windows read) and 30 %. The caller explains it by the board's physics.
    pub tick30_tolerance_pp: f64,
    /// The board's time is the host's wall time (the POSIX simulator), so a host that
    /// holds back a core from it moves the shares, and a duty check allows for what
    /// it held back; not under QEMU's `-icount`, whose guest time stops with it.
    pub host_time: bool,
    /// The board's peripheral interrupt of known cost, switched by `irq on|off`; `None`
    /// where there is none (the POSIX simulator).
    pub irq: Option<IrqLoad>,
    /// The clock the library must be counting with, as its reports name it, and its
    /// frequency in Hz: what it chose by itself at scheduler start (the demo sets none
    /// before `irqmask`, which the scenario does not run).
    pub clock: (&'static str, u64),
}

/// A peripheral interrupt the demo can switch on, and what it must cost.
#[derive(Clone, Copy, Debug)]
pub struct IrqLoad {
    /// Interrupts per second.
    pub rate_hz: u64,
    /// Its expected share of the time on the "interrupts" line, in percent.
    pub share_pct: f64,
    /// Largest distance, in percentage points, between the measured growth of the
    /// "interrupts" line and `share_pct`. The caller explains it.
    pub tolerance_pp: f64,
}

/// The demo's workloads and their duties at boot (demo/workloads.c).
pub const WORKLOADS: [(&str, f64); 3] = [("work10", 10.0), ("work25", 25.0), ("work40", 40.0)];

/// Windows averaged for the duty check.
const AVERAGED_WINDOWS: usize = 3;

/// Tasks the churn must have created before it is stopped: enough for every ID to
/// have been reused several times over.
const CHURN_MIN_CREATED: u64 = 300;

/// tick30's share of every tick period (demo/workloads.c).
const TICK30_PCT: f64 = 30.0;

/// Windows averaged for the tick30 check.
const TICK30_WINDOWS: usize = 2;

/// The most the tick-sampled accounting may credit tick30 with: half its real share.
/// On QEMU a tick never finds it running (measured 0.0 %). On the POSIX port a tick
/// can, when the host delays tick30's thread: the tick signal then lands while
/// FreeRTOS already counts tick30 as running, though its thread has not started, or
/// after a stall has pushed its 30 % past the next tick. Measured 0 to 4.6 % on a
/// quiet host, up to 8 % with both host cores busy.
const TICK30_SAMPLED_MAX_PCT: f64 = 15.0;

/// With every workload at 0 %, the least share of a window the idle task must spend
/// in tickless sleep. It sleeps only when no task is due within two ticks, and the
/// three workloads (and, on POSIX, the shell's console poll) wake every 10 ms, each
/// keeping it awake for the tick before: 70 to 90 % (QEMU) or 60 to 90 % (POSIX) can
/// be sleep, depending on how their wake-ups line up. Measured: 68 to 88 % on QEMU;
/// 51 to 77 % on the simulator on a quiet host, 35 % with the other core busy (the
/// ticks it spends awake, spinning, then compete for the host and last longer, while
/// the sleeping ones do not). A floor, not an expectation: it catches sleep hooks
/// that never run.
const QUIET_SLEEP_MIN_PCT: f64 = 10.0;

/// Pause between two polls of the demo while waiting for a window to complete.
const POLL: Duration = Duration::from_millis(100);

/// The report polled while waiting for windows.
/// Every task of the window on a line of its own, the deleted ones included.
const REPORT: &str = "show_cpu_usage -m -d";

/// One `show_cpu_usage -m` window report, parsed and checked.
#[derive(Clone, Debug)]
pub struct Window {
    /// Its sequence number.
    pub index: u64,
    /// The report.
    pub report: freertos_cpu_usage_report::Window,
}

impl Window {
    /// The share of the task named `name`, if the window lists it.
    pub fn usage_of(&self, name: &str) -> Option<f64> {
        self.report.task(name).map(|t| t.usage_pct)
    }

    /// The report as the device wrote it, for the messages.
    pub fn text(&self) -> String {
        serde_json::to_string(&self.report).unwrap_or_default()
    }
}

/// How `command`, a `show_cpu_usage` line, asks for its report: what the report's
/// listing must follow.
pub fn shown_by(command: &str) -> Shown {
    let words: Vec<&str> = command.split_whitespace().collect();
    let mut shown = Shown::default();
    for (i, word) in words.iter().enumerate() {
        match *word {
            "-s" => shown.sorted = true,
            "-d" => shown.deleted = true,
            "-n" => shown.top = words.get(i + 1).and_then(|n| n.parse().ok()),
            _ => {}
        }
    }
    shown
}

/// The JSON report in `answer`, the answer to `command` (a `show_cpu_usage -m` line,
/// `-c` or not): its one line that starts with `{` (a report is one window, printed
/// once, however long it takes to go out), held to the report's whole contract and
/// to `command`'s options; `None` before the first window.
pub fn report_in(answer: &str, command: &str) -> Result<Option<Report>, String> {
    let mut lines = answer.lines().filter(|l| l.starts_with('{'));
    let line = lines.next().ok_or_else(|| format!("no JSON line: {answer:?}"))?;
    if lines.next().is_some() || answer.contains("(cut)") {
        return Err(format!("`{command}` printed more than one report, or a cut one: {answer:?}"));
    }
    let report = parse_exact(line).map_err(|e| format!("report: {e}\n{line}"))?;
    let shown = match &report {
        Report::Window(w) => w.check_shown(shown_by(command)),
        Report::SinceStart(s) => s.check_shown(shown_by(command)),
        Report::NoWindow(_) => return Ok(None),
    };
    shown.map_err(|e| format!("report of `{command}`: {e}\n{line}"))?;
    Ok(Some(report))
}

/// What the demo adds to the contract: its reports come after the scheduler started,
/// so the idle task is known; and it never charges the shared bucket without a task
/// in it, so the bucket's line, which says how many tasks shared it in the span it
/// reports, has time only when at least one did, whatever the pool holds now.
pub fn check_demo(w: &freertos_cpu_usage_report::Window) -> Result<(), String> {
    if w.idle.is_none() {
        return Err(format!("window {}: no idle task", w.window));
    }
    match w.tasks.iter().find(|t| t.id == 0) {
        Some(bucket) if bucket.tasks.unwrap_or(0) == 0 && bucket.counts != 0 => {
            Err(format!("the overflow bucket has time but no task shared it: {bucket:?}"))
        }
        _ => Ok(()),
    }
}

/// The demo's answer to `command` (with `-m`), read as `T`.
pub fn ask_json<T: serde::de::DeserializeOwned>(console: &mut Console, command: &str, secs: u64) -> T {
    let answer = console.command(command, secs);
    match demo_json::read_line(&answer, command) {
        Ok(value) => value,
        Err(e) => console.fail(&e),
    }
}

/// `tasks -m`, checked to list as many tasks as the kernel counts, each with an ID of
/// its own and none in the shared bucket (what every check after churn needs).
pub fn distinct_task_ids(tasks: &Tasks) -> Result<(), String> {
    let mut ids: Vec<u64> = tasks.tasks.iter().map(|r| r.id).collect();
    ids.sort_unstable();
    ids.dedup();
    if tasks.tasks.len() as u64 != tasks.count || ids.len() != tasks.tasks.len() || ids.first() == Some(&0) {
        return Err(format!(
            "every live task should hold its own ID; `tasks` lists {} rows for {} tasks: {:?}",
            tasks.tasks.len(),
            tasks.count,
            tasks.tasks
        ));
    }
    Ok(())
}

/// How much of a host core the demo had while the duties were measured: a simulator
/// should have all of one whenever it is not asleep (its idle task spins unless it
/// sleeps in tickless idle). When the host does not give it one (other processes, or
/// a hypervisor taking the virtual CPU: `steal` in /proc/stat), its threads stop in
/// the middle of burns and wake-ups come late; the library, reading the wall clock,
/// charges a stall to whichever task FreeRTOS had running, so a share can move by as
/// much as the time the host held back. A duty check allows that much more, and says
/// so.
#[derive(Clone, Copy)]
struct HostShare(Option<(Instant, Duration)>);

/// What the host held back from the simulator while the duties were measured.
struct Starved {
    /// Percentage points of the wall time the simulator was awake (outside tickless
    /// sleep) but had no host core: 0 when it cannot be read (not Linux; QEMU, whose
    /// guest time does not pass without the host).
    pp: f64,
    /// What was measured, for the messages.
    note: String,
}

impl HostShare {
    fn start(console: &Console) -> Self {
        HostShare(console.cpu_time().map(|cpu| (Instant::now(), cpu)))
    }

    /// Seconds of wall time since `start`, and of CPU time the process got in them;
    /// `None` when the CPU time cannot be read.
    fn since(self, console: &Console) -> Option<(f64, f64)> {
        let ((t0, cpu0), cpu1) = (self.0?, console.cpu_time()?);
        Some((t0.elapsed().as_secs_f64(), cpu1.saturating_sub(cpu0).as_secs_f64()))
    }

    /// At most how many percentage points of window `w` the host held back from the
    /// simulator, the window lying inside the time since `start`: the time since
    /// then, less the window's tickless sleep (the only sleep counted, so the awake
    /// time is if anything overstated), less the CPU time the process got, as a share
    /// of the window. 0 when it cannot be read.
    fn held_back_in(self, console: &Console, w: &Window) -> f64 {
        let Some((wall_s, cpu_s)) = self.since(console) else { return 0.0 };
        let window_s = w.report.window_us as f64 / 1e6;
        let asleep_s = window_s * w.report.sleep_pct / 100.0;
        let held_s = (wall_s - asleep_s - cpu_s).max(0.0);
        if window_s > 0.0 {
            100.0 * held_s / window_s
        } else {
            0.0
        }
    }

    /// `awake_pct` is the share of the time the library saw outside tickless sleep;
    /// `host_time`: the board's time is the host's (else nothing was held back).
    fn finish(self, console: &Console, awake_pct: f64, host_time: bool) -> Starved {
        let Some((wall_s, cpu_s)) = self.since(console) else {
            return Starved { pp: 0.0, note: String::new() };
        };
        let share = cpu_s / wall_s * 100.0;
        let pp = if host_time { (awake_pct - share).max(0.0) } else { 0.0 };
        let note = format!(
            "the demo process used {share:.0} % of a host core while it was measured, awake {awake_pct:.0} % of the \
             time: {pp:.1} pp held back by the host"
        );
        println!("{note}");
        Starved { pp, note }
    }
}

/// The conversation in progress.
struct Run<'a> {
    console: &'a mut Console,
    judging: Judging,
    deadline: Deadline,
    /// A report showed the overflow bucket in use.
    saw_overflow: bool,
    /// Every watchdog alert the shell printed so far, in order.
    alerts: Vec<Alert>,
    /// Every window report read so far, by window number (the last read of each).
    seen: BTreeMap<u64, Window>,
}

impl Run<'_> {
    /// Types `line`; returns the answer without the watchdog alerts in it (kept in
    /// `alerts`).
    fn ask(&mut self, line: &str) -> String {
        // (A report is never voided and written again: `report_in` holds every JSON
        // answer to one report.)
        let answer = self.console.command(line, self.judging.reply_secs);
        self.take_alerts(answer)
    }

    /// The shell prints alerts on lines of their own: before its prompt, or while it
    /// waits at the prompt, after a newline that ends the prompt's line. Either way
    /// they reach the test inside some answer.
    fn take_alerts(&mut self, answer: String) -> String {
        if !answer.contains("{\"watchdog\":") {
            return answer;
        }
        let mut kept = String::new();
        let mut found = false;
        for line in answer.split_inclusive('\n') {
            match Alert::parse(line.trim_end_matches('\n')) {
                None => kept.push_str(line),
                Some(Ok(Alert::Lost { alerts })) => {
                    self.console.fail(&format!("the demo lost {alerts} watchdog alerts (its queue was full)"))
                }
                Some(Ok(alert)) => {
                    println!("{}", line.trim_end());
                    self.alerts.push(alert);
                    found = true;
                }
                Some(Err(e)) => self.console.fail(&e),
            }
        }
        if found {
            // The newline that ended the prompt's line.
            kept = kept.trim_start_matches('\n').to_string();
        }
        kept
    }

    /// The demo's answer to `command` (with `-m`), its alerts taken, read as `T`.
    fn ask_json<T: serde::de::DeserializeOwned>(&mut self, command: &str) -> T {
        let answer = self.ask(command);
        let read = demo_json::read_line(&answer, command);
        self.check(read)
    }

    fn check<T>(&mut self, result: Result<T, String>) -> T {
        match result {
            Ok(value) => value,
            Err(what) => self.console.fail(&what),
        }
    }

    /// The last completed window, checked; `None` before the first one.
    fn show(&mut self) -> Option<Window> {
        self.show_with(REPORT)
    }

    /// The clock named by `window` (a `show_cpu_usage -m` report) and by the header of
    /// the text report must be the board's.
    fn check_clock(&mut self, window: &Window) {
        let (name, hz) = self.judging.clock;
        if window.report.clock != name || window.report.clock_hz != hz {
            let (got, got_hz) = (&window.report.clock, window.report.clock_hz);
            self.console
                .fail(&format!("window #{}: clock {got} at {got_hz} Hz, expected {name:?} at {hz} Hz", window.index));
        }
        let text = self.ask("show_cpu_usage");
        let header = format!(", clock {name} {hz} Hz");
        if !text.lines().any(|l| l.starts_with("CPU usage, window #") && l.ends_with(&header)) {
            self.console.fail(&format!("the report's header does not end with {header:?}:\n{text}"));
        }
        println!("clock: {name} at {hz} Hz, in the report and its header");
    }

    /// The last completed window as `command` (a `show_cpu_usage -m` with options)
    /// reports it, checked; `None` before the first one.
    fn show_with(&mut self, command: &str) -> Option<Window> {
        let answer = self.ask(command);
        let report = report_in(&answer, command).map_err(|e| format!("{e}\n(the answer to {command})"));
        let report = match self.check(report)? {
            Report::Window(w) => *w,
            other => self.console.fail(&format!("not a window report in the answer to {command}: {other:?}")),
        };
        let demo = check_demo(&report);
        self.check(demo);
        let overflow_row = report.tasks.iter().any(|t| t.id == 0);
        self.saw_overflow |= report.slots.overflow_tasks > 0 || overflow_row;
        let window = Window { index: report.window, report };
        self.seen.insert(window.index, window.clone());
        Some(window)
    }

    /// Polls until window `index` or a later one has completed.
    fn wait_window(&mut self, index: u64) -> Window {
        self.wait_window_with(REPORT, index)
    }

    /// `wait_window`, polling with `command` (see `show_with`).
    fn wait_window_with(&mut self, command: &str, index: u64) -> Window {
        loop {
            if let Some(w) = self.show_with(command) {
                if w.index >= index {
                    return w;
                }
            }
            if self.deadline.passed() {
                let limit = self.judging.total_secs;
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
        let churn: Churn = self.ask_json("churn -m status");
        (churn.on(), churn.created)
    }

    /// Waits for window `index` or a later one, then reads `count` consecutive windows.
    fn windows(&mut self, index: u64, count: usize) -> Vec<Window> {
        let mut windows = Vec::new();
        let mut next = index;
        while windows.len() < count {
            let w = self.wait_window(next);
            next = w.index + 1;
            windows.push(w);
        }
        windows
    }

    /// The mean of `field` (a figure of the report) over `windows`.
    fn mean_of(&mut self, windows: &[Window], field: impl Fn(&freertos_cpu_usage_report::Window) -> f64) -> f64 {
        windows.iter().map(|w| field(&w.report)).sum::<f64>() / windows.len() as f64
    }

    /// The mean share of task `name` over `windows`.
    fn mean_share(&mut self, windows: &[Window], name: &str) -> f64 {
        let mut sum = 0.0;
        for w in windows {
            let share = w.usage_of(name);
            sum += self.check(share.ok_or_else(|| format!("window {} does not list {name}", w.index)));
        }
        sum / windows.len() as f64
    }

    /// `name`'s share of window `w` within the duty tolerance of `duty`, plus, on a
    /// board that runs on the host's time, what the host may have held back in that
    /// window: `host` was started before the window began and is finished now.
    fn expect_share(&mut self, w: &Window, name: &str, duty: f64, label: &str, host: HostShare) {
        self.expect_mean_share(std::slice::from_ref(w), name, duty, label, host);
    }

    /// `name`'s share averaged over `windows` within the duty tolerance of `duty`,
    /// plus, on a board that runs on the host's time, what the host may have held back
    /// (measured over the last of them, the host's share being a share of the wall
    /// time since `host` started, before the first began).
    fn expect_mean_share(&mut self, windows: &[Window], name: &str, duty: f64, label: &str, host: HostShare) {
        let measured = self.mean_share(windows, name);
        let (first, last) = (windows.first().map_or(0, |w| w.index), windows.last().map_or(0, |w| w.index));
        let held = match windows.last() {
            Some(w) if self.judging.host_time => host.held_back_in(self.console, w),
            _ => 0.0,
        };
        let tol = self.judging.duty_tolerance_pp + held;
        println!(
            "{label}: {name} {measured:.2} % in windows #{first} to #{last} (duty {duty} ± {} pp + at most {held:.1} \
             pp held back by the host)",
            self.judging.duty_tolerance_pp
        );
        if (measured - duty).abs() > tol {
            self.console.fail(&format!(
                "{label}: {name} used {measured:.2} % in windows {first} to {last}, expected {duty} ± {tol:.1} pp ({} \
                 pp + at most {held:.1} pp held back by the host)",
                self.judging.duty_tolerance_pp
            ));
        }
    }
}

/// Drives the demo behind `console` through the whole scenario, then `exit`. Panics
/// (killing the demo) at the first failed check.
pub fn run(console: &mut Console, judging: Judging) {
    let mut run = Run {
        console,
        judging,
        deadline: Deadline::after_secs(judging.total_secs),
        saw_overflow: false,
        alerts: Vec::new(),
        seen: BTreeMap::new(),
    };

    let banner = run.console.read_answer(judging.boot_secs);
    if !banner.contains("freertos-cpu-usage demo") {
        run.console.fail(&format!("unexpected banner: {banner:?}"));
    }
    refuse_long_line(&mut run);
    if !run.churn_status().0 {
        run.ask("churn on");
    }

    // 1. Duties. Two windows completed first (the start-up is in them), then the
    //    average over the next three. A window's figure alone jitters: a workload
    //    wakes every 10 ms and burns its share of the time since its previous
    //    activation in one piece, so a 1 s window boundary falls inside some burn
    //    and hands part of it to the next window; averaging evens that out.
    let first = run.wait_window(1);
    // (A window runs on while a reader holds it at its end, so about 1 s.)
    if !(990_000..=1_010_000).contains(&first.report.window_us) {
        run.console.fail(&format!("window #1 is {} µs long, not 1 s: did a cut line set it?", first.report.window_us));
    }
    run.check_clock(&first);
    // (The load watchdog from here on: the load stays above 50 % until step 5.)
    let load_watch = api::arm_load_watchdog(&mut run, first.index);
    let host_share = HostShare::start(run.console);
    let mut windows = Vec::new();
    let mut next = first.index + 1;
    while windows.len() < AVERAGED_WINDOWS {
        let w = run.wait_window(next);
        next = w.index + 1;
        windows.push(w);
    }
    let awake = 100.0 - run.mean_of(&windows, |r| r.sleep_pct);
    let starved = host_share.finish(run.console, awake, judging.host_time);
    for (name, duty) in WORKLOADS {
        let mut sum = 0.0;
        for w in &windows {
            let share = w.usage_of(name);
            sum += run.check(share.ok_or_else(|| format!("window {} does not list {name}", w.index)));
        }
        let mean = sum / windows.len() as f64;
        let tol = judging.duty_tolerance_pp + starved.pp;
        let first_index = windows.first().map_or(0, |w| w.index);
        println!(
            "{name}: {mean:.2} % averaged over {} windows from #{first_index} (duty {duty} ± {} pp + {:.1} pp held \
             back by the host)",
            windows.len(),
            judging.duty_tolerance_pp,
            starved.pp
        );
        if (mean - duty).abs() > tol {
            let shares: Vec<String> = windows.iter().map(|w| format!("#{}: {:?}", w.index, w.usage_of(name))).collect();
            run.console.fail(&format!(
                "{name} averaged {mean:.2} % over windows {}, expected {duty} ± {tol:.1} pp ({} pp, + {:.1} pp held \
                 back by the host: {})",
                shares.join(", "),
                judging.duty_tolerance_pp,
                starved.pp,
                starved.note
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
    // The slice watchdog in the windows waited for: once window at + 1 is over, so is
    // work25's last burn at 25 %, and work40's are the only runs over the threshold.
    // (Waited for with the short report: the watchdog judges the shell's run under
    // way when it is armed, which on a loaded host may have gone on from printing the
    // report before, when the next command was in before the shell waited for it. A
    // whole report keeps the shell busy over the threshold: see `api::SHORT_REPORT`.)
    let calm = run.wait_window_with(api::SHORT_REPORT, at + 1);
    // (From here, window at + 2 under way, the host's share is measured for it.)
    let host = HostShare::start(run.console);
    api::check_slice_alert(&mut run, calm.index);
    // (A whole report: the slice watchdog is off again, and `-n 3`, the three busiest,
    // may leave out work25 at 5 %.)
    let w = run.wait_window(at + 2);
    run.expect_share(&w, "work25", 5.0, "after `load work25 5`", host);

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
    // The other ways to read a window, while churn fills the reports with tasks
    // (deleted ones and the overflow bucket included).
    api::check_snapshot(&mut run);
    api::check_options(&mut run);
    if !run.saw_overflow {
        run.console.fail(
            "no report during churn showed the overflow bucket (overflow_tasks > 0 or a task with id 0), \
             although churn batches of 40 exceed the 32 IDs",
        );
    }
    let off: Churn = run.ask_json("churn -m off");
    if off.on() {
        run.console.fail(&format!("`churn -m off` answered {off:?}"));
    }
    // The churn task deletes its last waiting children on its next round (50 ms);
    // an ID leaves quarantine once the windows its task had time in are no longer
    // shown, two windows after its death: three windows later nothing may remain.
    let at = run.current_window();
    let w = run.wait_window(at + 3);
    let s = w.report.slots.clone();
    let used = u64::from(s.used);
    if s.quarantined != 0 || s.overflow_tasks != 0 {
        run.console.fail(&format!("three windows after `churn off` the ID pool still holds churn: slots {s:?}"));
    }
    if let Some(t) = w.report.tasks.iter().find(|t| t.deleted) {
        run.console.fail(&format!("window {} still lists a deleted task three windows after churn: {t:?}", w.index));
    }
    let tasks: Tasks = run.ask_json("tasks -m");
    let distinct = distinct_task_ids(&tasks).map_err(|e| format!("after churn: {e}"));
    run.check(distinct);
    let total = tasks.count;
    println!("after churn: slots {s:?}, {total} live tasks");
    if used != total {
        run.console.fail(&format!("slots.used is {used} but the kernel has {total} live tasks: {:?}", tasks.tasks));
    }
    // FreeRTOS+CLI's way, now that no task comes or goes: a report's "slots" and its
    // "IDs now" line are the pool as it is now, not as it was in the window, and
    // during churn they change from one command to the next.
    api::check_cli(&mut run, "-m");
    api::check_cli(&mut run, "-s -l -n 5");

    // 4. A peripheral interrupt of known cost, against the window just read (the same
    //    load, without it). The window under way at `irq on` is mixed; the next one
    //    is not.
    if let Some(irq) = judging.irq {
        interrupts(&mut run, &w, irq);
    }

    // The load watchdog has seen the load above 50 % since step 1: one alert only.
    api::check_load_alert(&mut run, &load_watch);

    // 5. Nothing to do: the idle task sleeps.
    for (name, _) in WORKLOADS {
        let answer = run.ask(&format!("load {name} 0"));
        if !answer.contains(&format!("{name}: 0%")) {
            run.console.fail(&format!("`load {name} 0` answered {answer:?}"));
        }
    }
    let at = run.current_window();
    let quiet = run.wait_window(at + 2);
    let (sleep, idle) = (quiet.report.sleep_pct, quiet.report.idle_pct);
    println!("quiet: sleep {sleep:.2} %, idle {idle:.2} % in window #{}", quiet.index);
    if sleep < QUIET_SLEEP_MIN_PCT {
        run.console.fail(&format!(
            "with every workload at 0 % the idle task slept {sleep:.2} % of window {} (idle {idle:.2} %), \
             expected at least {QUIET_SLEEP_MIN_PCT} %",
            quiet.index
        ));
    }

    // 6. tick30 against tick sampling.
    tick30(&mut run);

    run.console.exit(judging.reply_secs);
}

/// Step 4: `irq on`, one window's worth of interrupts compared with `before`, and the
/// workloads' shares averaged over `AVERAGED_WINDOWS` windows with it, as in step 1
/// (a window's edge cuts through a 10 ms activation and hands part of it to the next
/// window; a single window can be off by more than the tolerance for that alone).
/// The longest line the demo's shell takes, in characters (demo_internal.h's
/// `demoLINE_MAX` less the NUL).
const LINE_MAX: usize = 127;

/// Step 0: a line over `LINE_MAX` is answered with the refusal alone, and the line
/// after it runs as sent.
fn refuse_long_line(run: &mut Run<'_>) {
    let refusal = format!("line too long (at most {LINE_MAX} characters): nothing run\n");
    // Cut at 127 characters it would read `show_cpu_usage` and `-w 25`.
    let cut_to_a_command = format!("show_cpu_usage{}-w 25000", " ".repeat(108));
    // The rest of the line goes too: nothing after the cut runs either.
    let command_past_the_cut = format!("{} ; cpu_usage_watchdog load 1 1", "x".repeat(LINE_MAX + 1));
    for line in [cut_to_a_command, command_past_the_cut] {
        let answer = without_echo(run.ask(&line), &line);
        if answer != refusal {
            run.console.fail(&format!("a line of {} characters: expected {refusal:?}, got {answer:?}", line.len()));
        }
    }
    let longest = format!("show_cpu_usage -h{}", " ".repeat(LINE_MAX - 17));
    let answer = without_echo(run.ask(&longest), &longest);
    if !answer.starts_with("usage: show_cpu_usage ") {
        run.console.fail(&format!("a line of exactly {LINE_MAX} characters must run: {answer:?}"));
    }
}

/// `answer` without the shell's echo of `line`, where the shell echoes (QEMU's, on its
/// UART): what fitted of the line, and a bell for each key it dropped.
fn without_echo(answer: String, line: &str) -> String {
    match answer.split_once('\n') {
        Some((echo, rest)) if echo.trim_end_matches('\u{7}') == &line[..line.len().min(LINE_MAX)] => rest.to_owned(),
        _ => answer,
    }
}

fn interrupts(run: &mut Run<'_>, before: &Window, irq: IrqLoad) {
    let answer = run.ask("irq on");
    if !answer.contains("irq: on") {
        run.console.fail(&format!("`irq on` answered {answer:?}"));
    }
    let host = HostShare::start(run.console);
    let at = run.current_window();
    let windows = run.windows(at + 2, AVERAGED_WINDOWS);
    let w = windows[0].clone();
    let answer = run.ask("irq off");
    if !answer.contains("irq: off") {
        run.console.fail(&format!("`irq off` answered {answer:?}"));
    }

    let (share0, share1) = (before.report.interrupts_pct, w.report.interrupts_pct);
    let count = |w: &Window| w.report.interrupts;
    let (n0, n1) = (count(before), count(&w));
    let grown = share1 - share0;
    println!(
        "irq: interrupts {share0:.2} % ({n0} interrupts) in window #{} without TIMER0, {share1:.2} % ({n1}) in #{} \
         with it: +{grown:.2} pp (expected {} ± {} pp), longest {} us",
        before.index, w.index, irq.share_pct, irq.tolerance_pp, w.report.longest_interrupt_us
    );
    if (grown - irq.share_pct).abs() > irq.tolerance_pp {
        run.console.fail(&format!(
            "the interrupts line grew by {grown:.2} pp with `irq on` (window {} against {}), expected {} ± {} pp",
            w.index, before.index, irq.share_pct, irq.tolerance_pp
        ));
    }
    // Every tick is an interrupt too (1 kHz on every board), and each typed byte one
    // of the UART's, whose number depends on the test's timing: the window must hold
    // at least its ticks and the timer's interrupts (one of each may fall on either
    // side of a window's edge).
    let ticks = w.report.window_us / 1000;
    let least = ticks + irq.rate_hz * w.report.window_us / 1_000_000;
    if n1 + 2 < least {
        run.console.fail(&format!(
            "window {} counted {n1} interrupts with `irq on`, expected at least {least} ({ticks} ticks and {} \
             a second from the timer)",
            w.index, irq.rate_hz
        ));
    }
    // Not charged to the tasks: each burns its duty of the wall time, interrupts
    // included, so the library must show duty × (1 − the interrupts' share).
    let keep = 1.0 - irq.share_pct / 100.0;
    for (name, duty) in [("work10", 10.0), ("work25", 5.0), ("work40", 40.0)] {
        run.expect_mean_share(&windows, name, duty * keep, "with `irq on`", host);
    }
}

/// Step 6: tick30 on, its share in the library and in the tick-sampled accounting.
fn tick30(run: &mut Run<'_>) {
    run.ask("sampled");
    let on: Tick30 = run.ask_json("tick30 -m on");
    if on.tick30 != "on" || on.duty_pct != TICK30_PCT as u64 {
        run.console.fail(&format!("`tick30 -m on` answered {on:?}"));
    }
    let at = run.current_window();
    // The first full window with tick30 on is at + 2; the sampler's figure covers
    // from `tick30 on` to the end of the last window read, the start-up included.
    let windows = run.windows(at + 2, TICK30_WINDOWS);
    let sampled: Sampled = run.ask_json("sampled -m");
    let status: Tick30 = run.ask_json("tick30 -m status");
    let off: Tick30 = run.ask_json("tick30 -m off");
    if off.tick30 != "off" {
        run.console.fail(&format!("`tick30 -m off` answered {off:?}"));
    }

    let mean = run.mean_share(&windows, "tick30");
    let ticks = sampled.sampled.ticks;
    let Some(by_sampling) = sampled.sampled.rows.iter().find(|r| r.name == "tick30").map(|r| r.pct) else {
        run.console.fail(&format!("the `sampled` answer has no tick30 row: {sampled:?}"));
    };
    // The rows add up to the ticks counted.
    let summed: u64 = sampled.sampled.rows.iter().map(|r| r.ticks).sum();
    if summed != ticks {
        run.console.fail(&format!("the `sampled` rows hold {summed} ticks, its total says {ticks}: {sampled:?}"));
    }
    let shares: Vec<String> = windows.iter().map(|w| format!("#{}: {:?}", w.index, w.usage_of("tick30"))).collect();
    // What the host stole from tick30 past its 30 % is rightly charged to it: the demo
    // measures it, over more than the windows read (from `tick30 on` to the status),
    // so as a share of those windows it bounds what they can hold of it.
    let overrun_us = match status.overrun_us {
        Some(us) => us as f64,
        None => run.console.fail(&format!("`tick30 status` gave no overrun: {status:?}")),
    };
    let window_us: f64 = windows.iter().map(|w| w.report.window_us as f64).sum();
    let stolen_pp = if window_us > 0.0 { 100.0 * overrun_us / window_us } else { 0.0 };
    let (low, high) =
        (TICK30_PCT - run.judging.tick30_tolerance_pp, TICK30_PCT + run.judging.tick30_tolerance_pp + stolen_pp);
    println!(
        "tick30: {mean:.2} % averaged over windows {} (expected {low:.2} to {high:.2}: {TICK30_PCT} ± {} pp, \
         + {stolen_pp:.2} pp the host held it past its share); tick-sampled {by_sampling:.1} % over {ticks} ticks; \
         {status:?}",
        shares.join(", "),
        run.judging.tick30_tolerance_pp,
    );
    if mean < low || mean > high {
        run.console.fail(&format!(
            "tick30 averaged {mean:.2} % over windows {}, expected {low:.2} to {high:.2} ({TICK30_PCT} ± {} pp, \
             + {stolen_pp:.2} pp past its share) ({status:?})",
            shares.join(", "),
            run.judging.tick30_tolerance_pp,
        ));
    }
    if by_sampling > TICK30_SAMPLED_MAX_PCT {
        run.console.fail(&format!(
            "tick sampling credited tick30 with {by_sampling:.1} % over {ticks} ticks, expected under \
             {TICK30_SAMPLED_MAX_PCT} %: {sampled:?}"
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A report as the simulator printed it (the invariants every report keeps are
    /// the report crate's, and tested there).
    const REPORT: &str = r#"{"mode":"window","window":1,"window_us":1000000,"window_counts":15625000,"clock":"monotonic","clock_hz":15625000,"tasks":[{"id":0,"name":"(overflow)","counts":336789,"usage_pct":2.16,"deleted":false,"tasks":3,"switches":165,"longest_slice_us":1995},{"id":1,"name":"work10","counts":2039199,"usage_pct":13.05,"deleted":false,"switches":37,"longest_slice_us":17427},{"id":2,"name":"work25","counts":4695239,"usage_pct":30.05,"deleted":false,"switches":37,"longest_slice_us":22124},{"id":3,"name":"work40","counts":6666338,"usage_pct":42.67,"deleted":false,"switches":52,"longest_slice_us":23368},{"id":4,"name":"churn","counts":197170,"usage_pct":1.26,"deleted":false,"switches":11,"longest_slice_us":5127},{"id":5,"name":"tick30","counts":0,"usage_pct":0.00,"deleted":false,"switches":0,"longest_slice_us":0},{"id":6,"name":"shell","counts":871924,"usage_pct":5.58,"deleted":false,"switches":58,"longest_slice_us":41000}],"slots":{"capacity":32,"used":7,"quarantined":25,"free":0,"overflow_tasks":1},"deleted_tasks":0,"deleted_counts":0,"deleted_pct":0.00,"idle":{"id":7,"name":"IDLE","counts":367768,"switches":18,"longest_slice_us":4602},"interrupts_counts":0,"interrupts_pct":0.00,"interrupts":0,"longest_interrupt_us":0,"sleep_counts":450573,"sleep_pct":2.88,"sleeps":27,"other_counts":0,"other_pct":0.00,"idle_pct":2.35,"load_pct":94.77,"load_avg_pct":[91.93,89.76,89.54]}"#;

    /// `text` with no idle task (its time moved to "other").
    fn with_idle_null(text: &str) -> String {
        let idle = r#""idle":{"id":7,"name":"IDLE","counts":367768,"switches":18,"longest_slice_us":4602}"#;
        assert!(text.contains(idle));
        text.replacen(idle, r#""idle":null"#, 1).replacen(
            r#""other_counts":0,"other_pct":0.00,"idle_pct":2.35,"load_pct":94.77"#,
            r#""other_counts":367768,"other_pct":2.35,"idle_pct":0.00,"load_pct":97.12"#,
            1,
        )
    }

    fn report_with(from: &str, to: &str) -> String {
        assert!(REPORT.contains(from), "{from} is not in the sample report");
        REPORT.replacen(from, to, 1)
    }

    fn window(text: &str) -> freertos_cpu_usage_report::Window {
        report_in(text, "show_cpu_usage -m").unwrap().unwrap().window().unwrap()
    }

    #[test]
    fn a_consistent_report_passes() {
        check_demo(&window(REPORT)).unwrap();
    }

    #[test]
    fn a_broken_report_fails_naming_the_invariant() {
        let err = report_in(&report_with("\"sleep_counts\":450573", "\"sleep_counts\":450574"), "show_cpu_usage -m");
        let err = err.unwrap_err();
        assert!(err.contains("Counts") && err.contains("window_counts is 15625000"), "{err}");
        let err = report_in(&report_with("\"idle_pct\":2.35", "\"idle_pct\":2.25"), "show_cpu_usage -m").unwrap_err();
        assert!(err.contains("not 100.00"), "{err}");
        let err = report_in(&report_with("\"free\":0", "\"free\":1"), "show_cpu_usage -m").unwrap_err();
        assert!(err.contains("ID pool adds up"), "{err}");
        let err = report_in(&report_with("\"counts\":197170", "\"counts\":197170.5"), "show_cpu_usage -m");
        assert!(err.unwrap_err().contains("bad field"));
        let err = report_in(&report_with("\"interrupts_counts\":0", "\"interrupts_counts\":1"), "show_cpu_usage -m");
        assert!(err.unwrap_err().contains("interrupts 1"));
    }

    #[test]
    fn the_options_asked_are_held_to() {
        assert_eq!(shown_by("show_cpu_usage -m -d"), Shown { deleted: true, ..Shown::default() });
        assert_eq!(shown_by("show_cpu_usage -m -n 3"), Shown { top: Some(3), ..Shown::default() });
        assert_eq!(shown_by("show_cpu_usage -s -m"), Shown { sorted: true, ..Shown::default() });
        // In ID order, not by counts as -s asks.
        let err = report_in(REPORT, "show_cpu_usage -m -s").unwrap_err();
        assert!(err.contains("not by counts"), "{err}");
        let none = r#"{"mode":"window","error":"no completed window yet","window_ms":1000}"#;
        assert_eq!(report_in(none, "show_cpu_usage -m"), Ok(None));
        assert!(report_in("> ", "show_cpu_usage -m").is_err());
    }

    #[test]
    fn an_overflow_bucket_with_time_and_no_task_fails() {
        let bad = REPORT.replace(r#""deleted":false,"tasks":3,"#, r#""deleted":false,"tasks":0,"#);
        assert!(check_demo(&window(&bad)).unwrap_err().contains("no task shared it"));
        let no_idle = with_idle_null(REPORT);
        assert!(check_demo(&window(&no_idle)).unwrap_err().contains("no idle task"));
    }
}
