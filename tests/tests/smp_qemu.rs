//! FreeRTOS SMP on QEMU's RISC-V virt machine with 2 and 4 harts
//! (`freertos-port/riscv-virt-smp/`): the board's self-check firmware, `smp_check.elf`, run
//! on each image under `-icount` (the harts in turn in one host thread, deterministic)
//! and without it (one host thread per hart, in parallel: what puts the port's
//! spinlocks to work), four tests in all.
//!
//! The firmware (`freertos-port/riscv-virt-smp/smp_check.c`) pins a busy task to each hart,
//! lets three free tasks yield and sleep wherever the kernel puts them, counts every
//! round of every task inside a kernel critical section, per hart and in one shared
//! counter, and after 300 ticks prints the counts and exits through the test finisher:
//! 0 only if its own checks pass. Here the exit status and the printed counts are
//! checked again, so that a firmware that exits 0 for the wrong reason fails too.
//!
//! The images are `build/riscv-virt-smp<N>/smp_check.elf`, built by `make qemu-image`,
//! or the files named by `CPU_USAGE_QEMU_SMP2_CHECK_ELF` and
//! `CPU_USAGE_QEMU_SMP4_CHECK_ELF`. The command lines are the boards' `QEMU_CMD_ICOUNT`
//! and `QEMU_CMD` (`freertos-port/riscv-virt-smp/board.mk`). A missing image or QEMU is a
//! failure, never a skip.
//!
//! Each run takes 0.3 s of guest time: about 0.2 s on the host under `-icount`, 0.4 s
//! without.

use freertos_cpu_usage_tests::qemu::{self, QemuRun};
use freertos_cpu_usage_tests::run;

/// The ticks the checker sleeps before it reads the counts (`CHECK_TICKS`).
const CHECK_TICKS: u64 = 300;
/// mtime counts per tick: QEMU virt's 10 MHz at 1000 ticks a second.
const MTIME_PER_TICK: u64 = 10_000;
/// The free tasks (`FREE_TASKS`).
const FREE_TASKS: usize = 3;
/// The time limit of one run: a run that hangs (a lost wake-up, a deadlock) is killed.
const RUN_LIMIT_SECS: u64 = 60;

/// One board's self-check image.
struct SmpBoard {
    /// The board, `make qemu TARGET=<name>`.
    name: &'static str,
    /// Its number of harts (configNUMBER_OF_CORES and QEMU's -smp).
    harts: usize,
    /// The image, from the repository root.
    image: &'static str,
    /// The environment variable that names another image instead.
    image_var: &'static str,
}

const SMP2: SmpBoard = SmpBoard {
    name: "riscv-virt-smp2",
    harts: 2,
    image: "build/riscv-virt-smp2/smp_check.elf",
    image_var: "CPU_USAGE_QEMU_SMP2_CHECK_ELF",
};

const SMP4: SmpBoard = SmpBoard {
    name: "riscv-virt-smp4",
    harts: 4,
    image: "build/riscv-virt-smp4/smp_check.elf",
    image_var: "CPU_USAGE_QEMU_SMP4_CHECK_ELF",
};

#[test]
fn smp_check_on_2_harts_under_icount() {
    smp_check(&SMP2, QemuRun::Icount);
}

#[test]
fn smp_check_on_2_harts_in_parallel() {
    smp_check(&SMP2, QemuRun::Parallel);
}

#[test]
fn smp_check_on_4_harts_under_icount() {
    smp_check(&SMP4, QemuRun::Icount);
}

#[test]
fn smp_check_on_4_harts_in_parallel() {
    smp_check(&SMP4, QemuRun::Parallel);
}

/// What smp_check.elf printed, with checks whose failure shows all of it.
struct Output {
    what: String,
    text: String,
}

impl Output {
    fn fail(&self, why: &str) -> ! {
        panic!("{}: {why}\n--- what it printed ---\n{}", self.what, self.text)
    }

    fn check(&self, ok: bool, why: impl FnOnce() -> String) {
        if !ok {
            self.fail(&why());
        }
    }

    /// The one line starting with `prefix`, without it.
    fn line(&self, prefix: &str) -> &str {
        let mut found = self.text.lines().filter_map(|l| l.strip_prefix(prefix));
        match (found.next(), found.next()) {
            (Some(rest), None) => rest,
            (None, _) => self.fail(&format!("no line starting {prefix:?}")),
            (Some(_), Some(_)) => self.fail(&format!("more than one line starting {prefix:?}")),
        }
    }

    /// Every number of `line`, in order.
    fn numbers(&self, line: &str) -> Vec<u64> {
        line.split([' ', ',']).filter_map(|t| t.parse().ok()).collect()
    }

    /// A table row, `name n name n ...`: the numbers, checked to follow `names` in order.
    fn row(&self, line: &str, names: &[String]) -> Vec<u64> {
        let tokens: Vec<&str> = line.split_whitespace().collect();
        let found: Vec<&str> = tokens.iter().step_by(2).copied().collect();
        self.check(tokens.len() == 2 * names.len() && found == names, || {
            format!("the row {line:?} does not have the tasks {names:?}")
        });
        tokens
            .iter()
            .skip(1)
            .step_by(2)
            .map(|t| t.parse().unwrap_or_else(|_| self.fail(&format!("{t:?} in {line:?} is not a count"))))
            .collect()
    }
}

/// smp_check.elf of `board` under QEMU's command line `which`, and every check.
fn smp_check(board: &SmpBoard, which: QemuRun) {
    let cmd = qemu::image_command_of(board.name, board.image_var, board.image, which);
    let finished = run(cmd, RUN_LIMIT_SECS).unwrap_or_else(|e| panic!("smp_check.elf under QEMU: {e}"));
    let out = Output { what: format!("smp_check.elf on {} ({which:?})", board.name), text: finished.stdout };

    // The firmware's own verdict, the test finisher's exit status.
    out.check(finished.status.code() == Some(0), || {
        format!(
            "QEMU exited with {} (0: every check of the firmware passed)\n--- stderr ---\n{}",
            finished.status, finished.stderr
        )
    });
    out.line("smp_check: ok");
    out.check(!out.text.contains("FAILED"), || "a check failed".to_string());
    out.line(&format!("smp_check: {} harts, {CHECK_TICKS} ticks", board.harts));

    // The table: seen[task][hart], one line per hart.
    let tasks: Vec<String> =
        (0..board.harts).map(|h| format!("pin{h}")).chain((0..FREE_TASKS).map(|f| format!("free{f}"))).collect();
    let seen: Vec<Vec<u64>> = (0..board.harts).map(|h| out.row(out.line(&format!("hart {h}:")), &tasks)).collect();
    out.check(!out.text.contains(&format!("hart {}:", board.harts)), || {
        format!("a line for a hart beyond {}", board.harts)
    });

    for pinned in 0..board.harts {
        for (hart, row) in seen.iter().enumerate() {
            let n = row[pinned];
            if hart == pinned {
                out.check(n > 0, || format!("pin{pinned} never ran on hart {hart}, the hart it is pinned to"));
            } else {
                out.check(n == 0, || {
                    format!("pin{pinned} ran {n} rounds on hart {hart}: its affinity is hart {pinned}")
                });
            }
        }
    }

    let free_harts: Vec<usize> = (0..board.harts).filter(|&h| seen[h][board.harts..].iter().any(|&n| n > 0)).collect();
    out.check(free_harts.len() >= 2, || format!("the free tasks ran only on harts {free_harts:?}"));

    // Every round counted once in a row and once in the shared counter, both inside
    // critical sections: a lock that let two harts in at once loses shared increments.
    let rows_total: u64 = seen.iter().flatten().sum();
    let rounds = out.numbers(out.line("rounds: "));
    out.check(rounds.len() == 2, || "the rounds line has not two counts".to_string());
    out.check(rounds[0] == rows_total, || format!("rounds counted {} but the table sums to {rows_total}", rounds[0]));
    out.check(rounds[1] == rounds[0], || {
        format!(
            "the shared counter is {} for {} rounds: the kernel's locks let two harts in at once",
            rounds[1], rounds[0]
        )
    });

    // The tick: hart 0's, one per 10,000 counts of mtime.
    let ticks = out.numbers(out.line("ticks: "));
    out.check(ticks.len() == 3, || "the ticks line has not three counts".to_string());
    let (elapsed, mtime, hook) = (ticks[0], ticks[1], ticks[2]);
    out.check(elapsed >= CHECK_TICKS, || format!("vTaskDelay({CHECK_TICKS}) returned after {elapsed} ticks"));
    out.check(hook == elapsed, || format!("the tick hook ran {hook} times in {elapsed} ticks"));

    if which == QemuRun::Icount {
        // Guest time is the instruction count, and the harts take turns often enough
        // (the board's pacing timers: each hart a turn every tick) that the checker,
        // woken at the tick it asked for, runs within that tick or the next, and that
        // every hart gets free tasks too.
        out.check(elapsed <= CHECK_TICKS + 1, || format!("{elapsed} ticks elapsed, not {CHECK_TICKS} or one more"));
        // Each of the checker's two readings of mtime falls somewhere in a tick, and a
        // tick that is due is counted once hart 0 has its turn and the ISR lock, which
        // can take up to a tick: the window is CHECK_TICKS ticks of mtime give or take
        // those (measured: 300 ticks in 3,002,234 to 3,010,263 counts).
        let low = (CHECK_TICKS - 1) * MTIME_PER_TICK;
        let high = (CHECK_TICKS + 2) * MTIME_PER_TICK;
        out.check((low..=high).contains(&mtime), || {
            format!("{CHECK_TICKS} ticks took {mtime} counts of mtime, not {low}..={high}")
        });
        out.check(free_harts.len() == board.harts, || {
            format!("under -icount the free tasks ran only on harts {free_harts:?}, not on all {}", board.harts)
        });
    }
}

// ---- The library on several cores -----------------------------------------------------
//
// The demo with the library built for the board's cores (`build/riscv-virt-smp<N>/demo.elf`,
// or `CPU_USAGE_QEMU_SMP2_ELF` / `CPU_USAGE_QEMU_SMP4_ELF`): its shell asked for
// `show_cpu_usage -m` window after window, each report held to report-schema's contract
// and checked here to add up exactly, in all and on every core, and the windows to move
// on. Under `-icount` the harts take
// turns; without it they run in parallel host threads with the demo's task churn going
// on and the shell (a task free to run on any hart) reading: a stress test of the
// locking, for a minute on 4 harts, every report exact, with a reader on every core
// taking snapshots meanwhile (the board's `readers`).

use freertos_cpu_usage_tests::{Console, Deadline};

/// The demo with the library, on one board.
struct SmpDemo {
    board: &'static SmpBoard,
    image: &'static str,
    image_var: &'static str,
}

const SMP2_DEMO: SmpDemo =
    SmpDemo { board: &SMP2, image: "build/riscv-virt-smp2/demo.elf", image_var: "CPU_USAGE_QEMU_SMP2_ELF" };
const SMP4_DEMO: SmpDemo =
    SmpDemo { board: &SMP4, image: "build/riscv-virt-smp4/demo.elf", image_var: "CPU_USAGE_QEMU_SMP4_ELF" };

/// Seconds one answer of the shell may take (QEMU's start included).
const ANSWER_SECS: u64 = 30;

#[test]
fn library_on_2_harts_under_icount() {
    library_on(&SMP2_DEMO, QemuRun::Icount, 4);
}

#[test]
fn library_on_4_harts_under_icount() {
    library_on(&SMP4_DEMO, QemuRun::Icount, 4);
}

#[test]
fn library_on_2_harts_in_parallel() {
    library_on(&SMP2_DEMO, QemuRun::Parallel, 15);
}

#[test]
fn library_on_4_harts_in_parallel_for_a_minute() {
    library_on(&SMP4_DEMO, QemuRun::Parallel, 60);
}

/// A report's figures, as hundredths where they are shares.
struct Report {
    window: u64,
    /// Every line's counts (tasks, deleted, idle, interrupts, sleep, other).
    counts: u64,
    window_counts: u64,
    /// Every line's share.
    hundredths: u64,
    /// Each core's (busy, idle, interrupts, sleep) in hundredths of its time, and
    /// its interrupts.
    cores: Vec<([u64; 4], u64)>,
    interrupts: u64,
}

fn hundredths(v: &serde_json::Value) -> u64 {
    (v.as_f64().unwrap_or(f64::NAN) * 100.0).round() as u64
}

fn parse(console: &mut Console, answer: &str, harts: usize) -> Report {
    let line = answer.lines().find(|l| l.starts_with('{')).unwrap_or("");
    // The schema's whole contract first (types, byte for byte, every invariant).
    if let Err(e) = freertos_cpu_usage_report::parse_exact(line) {
        console.fail(&format!("a report the schema refuses: {e}"));
    }
    let v: serde_json::Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => console.fail(&format!("no JSON report ({e}) in {answer:?}")),
    };
    let int = |v: &serde_json::Value| v.as_u64().unwrap_or(u64::MAX);
    if v["cores"].as_u64() != Some(harts as u64) {
        console.fail(&format!("\"cores\" is {}, not {harts}", v["cores"]));
    }
    let tasks = v["tasks"].as_array().cloned().unwrap_or_default();
    let counts = tasks.iter().map(|t| int(&t["counts"])).sum::<u64>()
        + int(&v["deleted_counts"])
        + v["idle"]["counts"].as_u64().unwrap_or(0)
        + int(&v["interrupts_counts"])
        + int(&v["sleep_counts"])
        + int(&v["other_counts"]);
    let shares = tasks.iter().map(|t| hundredths(&t["usage_pct"])).sum::<u64>()
        + ["deleted_pct", "idle_pct", "interrupts_pct", "sleep_pct", "other_pct"]
            .iter()
            .map(|k| hundredths(&v[*k]))
            .sum::<u64>();
    let cores = v["per_core"].as_array().cloned().unwrap_or_default();
    let cores: Vec<([u64; 4], u64)> = cores
        .iter()
        .enumerate()
        .map(|(k, c)| {
            if c["core"].as_u64() != Some(k as u64) {
                console.fail(&format!("per_core entry {k} is of core {}", c["core"]));
            }
            let f = ["busy_pct", "idle_pct", "interrupts_pct", "sleep_pct"].map(|key| hundredths(&c[key]));
            (f, int(&c["interrupts"]))
        })
        .collect();
    Report {
        window: int(&v["window"]),
        counts,
        window_counts: int(&v["window_counts"]),
        hundredths: shares,
        cores,
        interrupts: int(&v["interrupts"]),
    }
}

/// Every check a report of `harts` cores must pass.
fn check(console: &mut Console, r: &Report, harts: usize) {
    let n = harts as u64;
    if r.counts != n * r.window_counts {
        console.fail(&format!(
            "window {}: the lines add up to {} counts, not {harts} x {}",
            r.window, r.counts, r.window_counts
        ));
    }
    if r.hundredths != 10_000 {
        console.fail(&format!("window {}: the shares add up to {} hundredths, not 100.00%", r.window, r.hundredths));
    }
    if r.cores.len() != harts {
        console.fail(&format!("window {}: {} per_core entries for {harts} cores", r.window, r.cores.len()));
    }
    for (k, (f, _)) in r.cores.iter().enumerate() {
        // busy = the core's time - idle - sleep, each rounded down on its own.
        let whole = f[0] + f[1] + f[3];
        if !(9_998..=10_000).contains(&whole) {
            console.fail(&format!("window {}: core {k}'s busy, idle and sleep are {whole} hundredths", r.window));
        }
    }
    let isr: u64 = r.cores.iter().map(|c| c.1).sum();
    if isr != r.interrupts {
        console.fail(&format!("window {}: the cores' interrupts add up to {isr}, not {}", r.window, r.interrupts));
    }
}

/// The demo of `demo` under QEMU's command line `which`: reports for `secs` seconds of
/// the host's time (at least three), each checked.
fn library_on(demo: &SmpDemo, which: QemuRun, secs: u64) {
    let harts = demo.board.harts;
    let cmd = qemu::image_command_of(demo.board.name, demo.image_var, demo.image, which);
    let mut console = Console::spawn(&format!("demo.elf on {} ({which:?})", demo.board.name), cmd);
    console.read_answer(ANSWER_SECS);
    // A complete window first (1 s of guest time).
    let mut last = None;
    while last.is_none() {
        let answer = console.command("show_cpu_usage -m", ANSWER_SECS);
        // (Before it: `"error":"no completed window yet"`.)
        if answer.contains("\"tasks\"") {
            last = Some(parse(&mut console, &answer, harts));
        }
    }
    let mut reports = vec![last.take().unwrap()];
    let deadline = Deadline::after_secs(secs);
    while !deadline.passed() || reports.len() < 3 {
        let answer = console.command("show_cpu_usage -m", ANSWER_SECS);
        let r = parse(&mut console, &answer, harts);
        check(&mut console, &r, harts);
        reports.push(r);
    }
    let windows: Vec<u64> = reports.iter().map(|r| r.window).collect();
    if windows.windows(2).any(|w| w[1] < w[0]) || windows.first() == windows.last() {
        console.fail(&format!("the windows read do not move on: {windows:?}"));
    }
    // Meanwhile a reader on every core took snapshots (freertos-port/riscv-virt-smp/readers.c,
    // which stops the firmware if one does not add up).
    let answer = console.command("readers", ANSWER_SECS);
    let counts: Vec<u64> = answer
        .lines()
        .find_map(|l| l.strip_prefix("readers:"))
        .map(|l| l.split_whitespace().filter_map(|n| n.parse().ok()).collect())
        .unwrap_or_default();
    if counts.len() != harts || counts.contains(&0) {
        console.fail(&format!("the readers' snapshots per core: {counts:?}, not one count above 0 per core"));
    }
    console.exit(ANSWER_SECS);
}

// ---- The workloads' duties under -icount ----------------------------------------------
//
// The demo's workloads (demo/workloads.c) burn a known duty of the wall time, each on a
// core of its own: work10, work25 and work40 on cores 1, 2 and 3, on 2 harts all three
// on core 1 (demo/workloads.c, "Cores"). A report's shares are shares of all the cores'
// time, so a task's share of its own core is its share times the cores. With the
// demo's churn off (its task creations and deletions take the kernel's locks most),
// three windows averaged as on the single-core boards (`scenario`: a window's edge cuts
// through a 10 ms activation's burn).
//
// On 2 harts each workload must be within `DUTY_TOLERANCE_PP` of its duty. On 4 harts
// only from below: there every workload reads 1 to 2 points of its core above its duty
// on average, single windows up to 5 (its share of the kernel's switches stretched by
// QEMU 7.2's turns:
// freertos-port/riscv-virt-smp/README.md, "The library's figures here"), which is what the
// harts did but not the known load, so no upper bound here holds; a share below the
// duty would still be time of the workload's core lost or given to another line.

use freertos_cpu_usage_tests::boards::QEMU_DUTY_TOLERANCE_PP;
use freertos_cpu_usage_tests::scenario::{ask_json, Churn, WORKLOADS};

/// A workload's share of its core against its duty, in percentage points: the bound of
/// the single-core QEMU boards (`QEMU_DUTY_TOLERANCE_PP`: guest time on both the
/// workloads' clock and the library's, mtime here). What is left on 2 harts is the
/// kernel's SMP switch path (its locks, and hart 0's turns when hart 1's turn ends in
/// it), about 100 times a second per workload: measured +0.21 to +0.41 pp on averages
/// of three windows (28 of them in a row, churn off).
const DUTY_TOLERANCE_PP: f64 = QEMU_DUTY_TOLERANCE_PP;

/// Windows averaged per workload.
const DUTY_WINDOWS: usize = 3;

/// What a board's workloads are held to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum DutyBound {
    /// Within `DUTY_TOLERANCE_PP` of the duty.
    Within,
    /// At least the duty less `DUTY_TOLERANCE_PP`.
    AtLeast,
}

#[test]
fn workload_duties_on_2_harts_under_icount() {
    workload_duties(&SMP2_DEMO, DutyBound::Within);
}

#[test]
fn workload_duties_on_4_harts_under_icount() {
    workload_duties(&SMP4_DEMO, DutyBound::AtLeast);
}

/// The window report in `line`, held to report-schema's whole contract.
fn window_of(console: &mut Console, line: &str) -> freertos_cpu_usage_report::Window {
    match freertos_cpu_usage_report::parse_exact(line).map(|r| r.window()) {
        Ok(Some(w)) => w,
        Ok(None) => console.fail(&format!("not a window's report: {line:?}")),
        Err(e) => console.fail(&format!("a report the schema refuses: {e}")),
    }
}

/// The demo of `demo` under `-icount`, churn off: each workload's share of its core,
/// averaged over `DUTY_WINDOWS` windows, held to `bound`.
fn workload_duties(demo: &SmpDemo, bound: DutyBound) {
    let harts = demo.board.harts;
    let cmd = qemu::image_command_of(demo.board.name, demo.image_var, demo.image, QemuRun::Icount);
    let mut console = Console::spawn(&format!("demo.elf on {} (Icount)", demo.board.name), cmd);
    console.read_answer(ANSWER_SECS);
    let off: Churn = ask_json(&mut console, "churn -m off", ANSWER_SECS);
    if off.on() {
        console.fail(&format!("`churn -m off` answered {off:?}"));
    }
    // Follow mode: the last completed window first (w), then each as it completes. The
    // window under way meanwhile (w + 1) may have begun before `churn off`; w + 2 and
    // on are entirely after it.
    let answer = console.command(&format!("show_cpu_usage -m -f {}", DUTY_WINDOWS + 2), ANSWER_SECS);
    let reports: Vec<_> = answer.lines().filter(|l| l.starts_with('{')).map(|l| window_of(&mut console, l)).collect();
    let first = reports.first().map_or(0, |w| w.head.window);
    let windows: Vec<_> = reports.iter().filter(|w| w.head.window >= first + 2).collect();
    if windows.len() != DUTY_WINDOWS {
        let read: Vec<u64> = reports.iter().map(|w| w.head.window).collect();
        console.fail(&format!("follow mode gave windows {read:?}: not {DUTY_WINDOWS} from {}", first + 2));
    }
    for (name, duty) in WORKLOADS {
        let mut shares = Vec::new();
        for w in &windows {
            if w.cores() as usize != harts {
                console.fail(&format!("window {} is of {} cores, not {harts}", w.head.window, w.cores()));
            }
            match w.task(name) {
                Some(t) => shares.push(t.usage_pct * harts as f64),
                None => console.fail(&format!("window {} has no line for {name}", w.head.window)),
            }
        }
        let mean = shares.iter().sum::<f64>() / shares.len() as f64;
        let (low, high, expected) = match bound {
            DutyBound::Within => {
                (duty - DUTY_TOLERANCE_PP, duty + DUTY_TOLERANCE_PP, format!("{duty} ± {DUTY_TOLERANCE_PP} %"))
            }
            DutyBound::AtLeast => {
                (duty - DUTY_TOLERANCE_PP, f64::INFINITY, format!("at least {duty} - {DUTY_TOLERANCE_PP} %"))
            }
        };
        println!(
            "{} (-icount, churn off): {name} {mean:.2} % of its core averaged over windows {}..={} ({shares:.2?}), \
             expected {expected}",
            demo.board.name,
            first + 2,
            first + 1 + DUTY_WINDOWS as u64,
        );
        if !(low..=high).contains(&mean) {
            console.fail(&format!(
                "{name} used {mean:.2} % of its core averaged over {shares:.2?}: expected {expected} (duty {duty} %)"
            ));
        }
    }
    console.exit(ANSWER_SECS);
}
