//! The Rust example on the Cortex-M3 (`examples/freertos-next-cm3`), end to end: built
//! as its README says, with its own lock file, and run on QEMU's mps2-an385 under
//! `-icount` with the C demo's command line (the board's `QEMU_CMD_ICOUNT`, from
//! `freertos-port/mps2-an385/board.mk`), it prints three windows and ends with status 0.
//!
//! Each window is read with the reports' contract (`parse_exact`: the line is what the
//! schema writes back, and every invariant holds, among them that the lines' counts add
//! up to the window's and their shares to 100.00), and checked here for what the
//! example sets up: 100 ms windows on the library's SysTick-extended clock at the
//! core's 25 MHz (QEMU's DWT does not count), consecutive windows, each workload at its
//! duty within [`DUTY_TOLERANCE_PP`] with its ten activations, the tick's 100
//! interrupts, the IDs the application read through freertos-next, and the same window
//! read as Rust values (`api::Usage`) giving the same shares as the JSON. A second
//! build with nothing changed must leave the image as it was.
//!
//! A build that fails, QEMU missing, or a run that does not end is a failure, never a
//! skip.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use freertos_cpu_usage_report::{parse_exact, pct_text, Report, Window};
use freertos_cpu_usage_tests::{qemu, repo_root, run};

/// The example, from the repository root.
const EXAMPLE: &str = "examples/freertos-next-cm3";

/// Its Rust target, and where its build goes (beside the library's, not in it: the
/// example is an application of its own).
const TARGET: &str = "thumbv7m-none-eabi";
const TARGET_DIR: &str = "target/examples";

/// What `src/main.rs` sets up: its window, the windows it reports after a warm-up
/// window, its workloads and their duties in percent, the workloads' period.
const WINDOW_MS: u64 = 100;
const WARMUP_WINDOWS: u64 = 1;
const REPORTS: usize = 3;
const WORKLOADS: [(&str, f64); 3] = [("work10", 10.0), ("work25", 25.0), ("work40", 40.0)];
const PERIOD_MS: u64 = 10;

/// The core clock (mps2-an385's 25 MHz, `cpu_clock` in build.rs), at which the
/// library's SysTick-extended clock counts.
const CLOCK_HZ: u64 = 25_000_000;

/// Duty tolerance, in percentage points, in every window (no averaging).
///
/// As for `snapshot.elf` (`tests/tests/e2e_qemu.rs`): under `-icount` every guest
/// instruction takes the same 32 ns of guest time, the workloads' clock (TIMER1) and
/// the library's are both guest clocks, and the run prints the same bytes every time.
/// Each window, starting and ending on a tick, holds ten whole activations of each
/// workload. What is left is each activation's way in and out (the wake-up, the burn's
/// arithmetic, `delay_until` and the switch), which counts with the workload, and the
/// tick interrupts inside a burn, which go to the interrupts line instead: measured
/// +0.08, +0.03 and −0.06 pp for 10, 25 and 40 %. 1 pp, as for the C demo on QEMU, is a
/// wide bound.
const DUTY_TOLERANCE_PP: f64 = 1.0;

/// Host time limits, in seconds: the build (a first one compiles the kernel and the
/// example's dependencies: under half a minute on two busy cores; a generous limit, for
/// a slower machine that also fetches them), and the run (about 0.5 s of guest time,
/// under a second on the host).
const BUILD_SECS: u64 = 900;
const RUN_SECS: u64 = 60;

/// Builds the example as its README says, from the repository root, and returns its
/// image. (`--target`: the example's `.cargo/config.toml` names it too, but cargo reads
/// that only when started in the example's directory.)
fn build() -> PathBuf {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(repo_root()).args([
        "build",
        "--release",
        "--manifest-path",
        &format!("{EXAMPLE}/Cargo.toml"),
        "--target",
        TARGET,
        "--target-dir",
        TARGET_DIR,
        "--locked",
    ]);
    let started = Instant::now();
    let built = run(cmd, BUILD_SECS).unwrap_or_else(|e| panic!("building {EXAMPLE}: {e}"));
    assert!(built.status.success(), "building {EXAMPLE} failed ({}):\n{}", built.status, built.stderr);
    println!("{EXAMPLE} built in {:.1} s", started.elapsed().as_secs_f64());
    let image = repo_root().join(TARGET_DIR).join(TARGET).join("release/freertos-next-cm3");
    assert!(image.is_file(), "the build succeeded but left no image at {}", image.display());
    image
}

/// What the example printed, with checks whose failure shows all of it.
struct Output {
    text: String,
    lines: Vec<String>,
}

impl Output {
    fn fail(&self, what: &str) -> ! {
        panic!("{EXAMPLE}: {what}\n--- what it printed ---\n{}", self.text)
    }

    fn check(&self, ok: bool, what: impl FnOnce() -> String) {
        if !ok {
            self.fail(&what());
        }
    }

    /// The ID the application read for `name` (`task <name> id <id>`).
    fn task_id(&self, name: &str) -> u32 {
        let prefix = format!("task {name} id ");
        let found: Vec<&str> = self.lines.iter().filter_map(|l| l.strip_prefix(&prefix)).collect();
        match found[..] {
            [id] => id.parse().unwrap_or_else(|_| self.fail(&format!("task {name}: {id:?} is not an ID"))),
            _ => self.fail(&format!("{} lines `{prefix}...`, expected one", found.len())),
        }
    }

    /// The windows, in the order printed, each with the line after it: the same
    /// window read through `api::Usage`.
    fn windows(&self) -> Vec<(Window, &str)> {
        let mut windows = Vec::new();
        for (i, line) in self.lines.iter().enumerate().filter(|(_, l)| l.starts_with('{')) {
            let w = match parse_exact(line) {
                Ok(Report::Window(w)) => *w,
                Ok(other) => self.fail(&format!("not a window report: {other:?}")),
                Err(e) => self.fail(&format!("a report breaks the contract: {e}\n{line}")),
            };
            let usage = self.lines.get(i + 1).map_or("", String::as_str);
            windows.push((w, usage));
        }
        windows
    }
}

/// `window <n>: <name> <pct>%, ..., idle <pct>%, interrupts <pct>%, load <pct>%` as
/// the example writes `w`, read through `api::Usage`, must be.
fn usage_line(w: &Window) -> String {
    let pct = |p: f64| format!("{}%", pct_text(p));
    let mut line = format!("window {}:", w.window);
    for t in &w.tasks {
        line += &format!(" {} {},", t.name, pct(t.usage_pct));
    }
    line + &format!(" idle {}, interrupts {}, load {}", pct(w.idle_pct), pct(w.interrupts_pct), pct(w.load_pct))
}

fn check_window(out: &Output, w: &Window, usage: &str) {
    let n = w.window;
    out.check(
        (w.window_us, w.window_counts, w.clock.as_str(), w.clock_hz)
            == (WINDOW_MS * 1000, WINDOW_MS * CLOCK_HZ / 1000, "systick", CLOCK_HZ),
        || {
            format!(
                "window {n}: {} us, {} counts of {} at {} Hz; expected {WINDOW_MS} ms of systick at {CLOCK_HZ} Hz",
                w.window_us, w.window_counts, w.clock, w.clock_hz
            )
        },
    );

    // Every count of the window is on one line (parse_exact holds this too; here is
    // the example's own reading of it).
    let tasks: u64 = w.tasks.iter().map(|t| t.counts).sum();
    let idle = w.idle.as_ref().map_or(0, |i| i.counts);
    let sum = tasks + idle + w.interrupts_counts + w.sleep_counts + w.other_counts + w.deleted_counts;
    out.check(sum == w.window_counts, || format!("window {n}: the lines add up to {sum} counts"));
    out.check(w.idle.as_ref().is_some_and(|i| i.name == "IDLE"), || format!("window {n}: no IDLE line"));

    let activations = WINDOW_MS / PERIOD_MS;
    for (name, duty) in WORKLOADS {
        let Some(t) = w.task(name) else { out.fail(&format!("window {n}: no task {name}")) };
        println!("window {n}: {name} {:.2} % (duty {duty} %), {} runs", t.usage_pct, t.switches);
        out.check((t.usage_pct - duty).abs() <= DUTY_TOLERANCE_PP, || {
            format!("window {n}: {name} at {:.2} %, more than {DUTY_TOLERANCE_PP} pp from {duty} %", t.usage_pct)
        });
        out.check(t.switches == activations, || {
            format!("window {n}: {name} ran {} times, expected its {activations} activations", t.switches)
        });
        let id = out.task_id(name);
        out.check(t.id == id, || format!("window {n}: {name} has ID {}, the application read {id}", t.id));
    }

    // The 1 kHz tick (101 if one straddles the window's end).
    let ticks = WINDOW_MS;
    out.check((ticks..=ticks + 1).contains(&w.interrupts), || {
        format!("window {n}: {} interrupts, expected the {ticks} ticks", w.interrupts)
    });

    let expected = usage_line(w);
    out.check(usage == expected, || {
        format!("window {n} through api::Usage:\n  {usage:?}\nbut its JSON gives\n  {expected:?}")
    });
}

#[test]
fn rust_example_on_qemu_mps2_an385() {
    let image = build();
    // Built again with nothing changed, nothing is rebuilt: the build script writes
    // the kernel's configuration (freertos-cpu-usage-build) without making it look
    // changed to cargo, which would run the script, rebuild the kernel and relink the
    // image on every build.
    let date = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).expect("the image's date");
    let linked = date(&image);
    build();
    assert_eq!(date(&image), linked, "a second build with nothing changed linked {} again", image.display());
    let words = qemu::icount_command_words("mps2-an385", &image);
    let mut cmd = Command::new(&words[0]);
    cmd.args(&words[1..]).current_dir(repo_root());
    let started = Instant::now();
    let finished = run(cmd, RUN_SECS).unwrap_or_else(|e| panic!("{EXAMPLE} under QEMU: {e}"));
    println!("{EXAMPLE} ran in {:.2} s on QEMU", started.elapsed().as_secs_f64());
    let text = finished.stdout.replace('\r', "");
    let out = Output { lines: text.lines().map(str::to_owned).collect(), text };
    out.check(finished.status.code() == Some(0), || {
        format!(
            "QEMU exited with {} (0: the example ran to its end)\n--- stderr ---\n{}",
            finished.status, finished.stderr
        )
    });
    out.check(out.lines.last().is_some_and(|l| l == "done"), || "the last line is not `done`".into());
    let head = format!("freertos-next-cm3: window {WINDOW_MS} ms, clock {CLOCK_HZ} Hz");
    out.check(out.lines.first() == Some(&head), || format!("the first line is not {head:?}"));

    let windows = out.windows();
    out.check(windows.len() == REPORTS, || format!("{} windows reported, expected {REPORTS}", windows.len()));
    for (i, (w, usage)) in windows.iter().enumerate() {
        let expected = WARMUP_WINDOWS + i as u64;
        out.check(w.window == expected, || format!("window {} reported where {expected} was due", w.window));
        check_window(&out, w, usage);
    }
}

/// `cargo run --release` in the example's directory runs QEMU as the test does: the
/// runner in its `.cargo/config.toml` is the board's `QEMU_CMD_ICOUNT` but for the
/// image, which cargo appends.
#[test]
fn the_examples_runner_is_the_boards_icount_command() {
    let config_path = repo_root().join(EXAMPLE).join(".cargo/config.toml");
    let config =
        std::fs::read_to_string(&config_path).unwrap_or_else(|e| panic!("cannot read {}: {e}", config_path.display()));
    let runner = config
        .lines()
        .find_map(|l| l.trim().strip_prefix("runner = \"")?.strip_suffix('"'))
        .unwrap_or_else(|| panic!("no `runner = \"...\"` line in {}", config_path.display()));
    let image = Path::new("IMAGE");
    let mut board = qemu::icount_command_words("mps2-an385", image);
    assert_eq!(board.pop().as_deref(), Some("IMAGE"), "the board's command does not end with its image: {board:?}");
    let runner: Vec<&str> = runner.split_whitespace().collect();
    assert_eq!(runner, board, "{}'s runner differs from mps2-an385's QEMU_CMD_ICOUNT", config_path.display());
}
