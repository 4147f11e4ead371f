//! The demo on every QEMU board, end to end: the same conversation and checks as on the
//! POSIX simulator (`scenario`), with a tighter duty tolerance, one test per board of
//! the table `qemu_demos!` below. On the MPS2 boards (mps2-an385, Cortex-M3;
//! mps2-an505, Cortex-M33) also what the library's critical section masks on the core
//! (`irqmask`); on mps2-an385 the minimal build (no shell) in a firmware of its own,
//! read through `cpu_usage_snapshot` (`freertos-port/bare-metal/snapshot_main.c`), and
//! the idle and load lines against the kernel's own statistics with more tasks than
//! IDs. On microbit (Cortex-M0) also `irqmask` (every priority held off: PRIMASK) and
//! the same minimal build. On riscv-virt (RV32) also what the critical section does to
//! `mstatus.MIE` (`irqmask`), and the figures with the library's other clock there,
//! `mcycle` (`mcycle use`).
//!
//! The images are `build/<board>/demo.elf` (and mps2-an385's and microbit's
//! `snapshot.elf`), built by `make qemu-image`, or the files named by the board's
//! environment variable (`CPU_USAGE_QEMU_ELF` for mps2-an385's demo,
//! `CPU_USAGE_QEMU_AN505_ELF` for mps2-an505's, `CPU_USAGE_QEMU_SNAPSHOT_ELF` for
//! mps2-an385's snapshot.elf, `CPU_USAGE_QEMU_MICROBIT_ELF` and
//! `CPU_USAGE_QEMU_MICROBIT_SNAPSHOT_ELF` for microbit's). The QEMU command line is the board's `QEMU_CMD_ICOUNT`, from its
//! `freertos-port/<board>/board.mk` through `freertos-port/qemu.mk`, so it cannot drift
//! from what `make qemu TARGET=<board>` runs. A missing image or QEMU is a failure,
//! never a skip.
//!
//! Why `QEMU_CMD_ICOUNT` and not `QEMU_CMD_SCRIPT`: the scripted console reads stdin
//! through semihosting, which stops the whole guest until the host has a byte, so
//! while the test waits for windows to complete no guest time passes and no window
//! ever completes. With `QEMU_CMD_ICOUNT` the console is the UART: the shell task
//! blocks in FreeRTOS, the other tasks run, and guest time (instruction count under
//! `-icount`, independent of the host) moves on between commands. Input bytes then
//! arrive at host-dependent guest instants, which only changes which windows the test
//! happens to read, not what it checks.

use std::collections::BTreeMap;
use std::process::Command;

use freertos_cpu_usage::ffi::{cpu_usage_abi_version, cpu_usage_status};
use freertos_cpu_usage_tests::boards::{MPS2_TIMER0, QEMU, QEMU_DUTY_TOLERANCE_PP};
use freertos_cpu_usage_tests::qemu::QemuRun;
use freertos_cpu_usage_tests::scenario::{self, IrqLoad, Judging, KernelStats};
use freertos_cpu_usage_tests::{qemu, repo_root, run, Console, Deadline};

/// The microbit demo's TIMER0 interrupt (freertos-port/microbit/irq_load.c): 500 Hz,
/// each busy for 1600 counts of the nRF51 timer's 16 MHz clock, 5.00 % of the time,
/// counted on the clock that drives the core and so the library's SysTick-extended
/// clock. Around the work, each handler's way in and out (the library's enter and exit,
/// a capture task and a register read per timer reading) takes more instructions on
/// the Cortex-M0: the longest interrupt reads 119 to 120 µs for 100 µs of work (a tick's
/// handler included when TIMER0 nests in it), and the line grew by +5.08 to +5.25 pp in
/// the runs measured (UART interrupts differing between the two windows included). Under `-icount` everything counts the same
/// guest time, so 1 pp is a wide bound here too.
const MICROBIT_TIMER0: IrqLoad = IrqLoad { rate_hz: 500, share_pct: 5.0, tolerance_pp: 1.0 };

/// The riscv-virt demo's RTC alarm interrupt (freertos-port/riscv-virt/irq_load.c):
/// 500 Hz, each busy for 1000 counts of mtime (the library's clock), 5.00 % of the time.
/// The interrupts line also holds what each one costs around that work: FreeRTOS's trap
/// entry and exit (31 registers saved and restored), the PLIC's claim and completion,
/// re-arming the alarm and the library's enter and exit, some 150 instructions of 32 ns
/// under `-icount` (0.2 to 0.3 pp at 500 Hz), and the comparison is against a window
/// whose UART interrupts may differ a little: measured +5.18 to +5.27 pp. The RTC counts
/// guest time there (`-rtc clock=vm`), like mtime, so 1 pp is a wide bound.
const RISCV_RTC: IrqLoad = IrqLoad { rate_hz: 500, share_pct: 5.0, tolerance_pp: 1.0 };

/// A QEMU board's end-to-end run of the demo: one entry of the table `qemu_demos!`.
struct Board {
    /// The board: its directory `freertos-port/<name>/` and `make qemu TARGET=<name>`.
    name: &'static str,
    /// Its demo image, from the repository root.
    image: &'static str,
    /// The environment variable that names another image instead.
    image_var: &'static str,
    /// What the scenario expects of the board: time limits, tolerances (explained by
    /// the constants they come from) and its peripheral interrupt load, if any.
    judging: Judging,
}

/// The table of boards: `test_name => Board { .. },` makes the test `test_name`, the
/// demo's conversation with that board under QEMU (`scenario::run`).
macro_rules! qemu_demos {
    ($($test:ident => $board:expr,)*) => {
        $(
            #[test]
            fn $test() {
                demo_on(&$board);
            }
        )*
    };
}

qemu_demos! {
    demo_on_qemu_mps2_an385 => Board {
        name: "mps2-an385",
        image: "build/mps2-an385/demo.elf",
        image_var: "CPU_USAGE_QEMU_ELF",
        judging: Judging {
            irq: Some(MPS2_TIMER0),
            // QEMU's DWT cycle counter does not count, so the library falls back to
            // the SysTick-extended count at the core clock.
            clock: ("systick", 25_000_000),
            ..QEMU
        },
    },
    demo_on_qemu_mps2_an505 => Board {
        name: "mps2-an505",
        image: "build/mps2-an505/demo.elf",
        image_var: "CPU_USAGE_QEMU_AN505_ELF",
        judging: Judging {
            irq: Some(MPS2_TIMER0),
            // The Cortex-M33's DWT does not count under QEMU either: SysTick-extended,
            // at the IoT Kit's 20 MHz.
            clock: ("systick", 20_000_000),
            ..QEMU
        },
    },
    // The same board with a Cortex-M4F, hard float (freertos-port/mps2-an386): the same
    // board files, clock and TIMER0, so the same figures.
    demo_on_qemu_mps2_an386 => Board {
        name: "mps2-an386",
        image: "build/mps2-an386/demo.elf",
        image_var: "CPU_USAGE_QEMU_AN386_ELF",
        judging: Judging {
            irq: Some(MPS2_TIMER0),
            clock: ("systick", 25_000_000),
            ..QEMU
        },
    },
    // Cortex-M0 (nRF51822): no DWT, so the library's SysTick-extended clock; PRIMASK
    // critical sections; 16 KiB of RAM (freertos-port/microbit/README.md). The
    // workloads burn against TIMER1 and the library counts SysTick, both guest time
    // under -icount: the same tolerances as mps2-an385, for the same reasons.
    demo_on_qemu_microbit => Board {
        name: "microbit",
        image: "build/microbit/demo.elf",
        image_var: "CPU_USAGE_QEMU_MICROBIT_ELF",
        judging: Judging {
            irq: Some(MICROBIT_TIMER0),
            // The Cortex-M0 has no DWT: SysTick-extended, at the nRF51's 16 MHz.
            clock: ("systick", 16_000_000),
            ..QEMU
        },
    },
    demo_on_qemu_riscv_virt => Board {
        name: "riscv-virt",
        image: "build/riscv-virt/demo.elf",
        image_var: "CPU_USAGE_QEMU_RISCV_ELF",
        judging: Judging {
            irq: Some(RISCV_RTC),
            // The machine timer's mtime at configCPU_CLOCK_HZ, which on FreeRTOS's
            // RISC-V port is mtime's rate: QEMU virt's 10 MHz.
            clock: ("mtime", 10_000_000),
            ..QEMU
        },
    },
}

/// The demo's conversation with `board` under QEMU.
fn demo_on(board: &Board) {
    let mut console =
        Console::spawn(&format!("QEMU {}", board.name), qemu::image_command(board.name, board.image_var, board.image));
    scenario::run(&mut console, board.judging);
}

/// `make qemu` (qemu.mk's `QEMU_RUN`) ends at the end of piped input, as the simulator
/// does, with the demo's status 0: QEMU gives the guest no end of file, so the
/// console script sends byte 0x04 after the input, which the demo's console reads as
/// its end.
#[test]
fn make_qemu_ends_at_end_of_input() {
    let command =
        qemu::image_command_of("mps2-an385", "CPU_USAGE_QEMU_ELF", "build/mps2-an385/demo.elf", QemuRun::Make);
    let mut console = Console::spawn("`make qemu`'s command on piped input", command);
    console.read_answer(60);
    let answer = console.command("tasks -m", 30);
    if !answer.contains("{\"tasks\":[") {
        console.fail(&format!("`tasks -m` answered {answer:?}"));
    }
    console.end_input(30);
}

/// Every board's interactive commands (`QEMU_CMD`, what `make qemu` runs, and
/// `QEMU_CMD_ICOUNT`) put its console on stdio with QEMU's signal keys off, so that
/// Ctrl-C on a terminal reaches the demo's shell, which drops the line, instead of
/// ending QEMU (`tests/tests/shell_editing.rs` types it on mps2-an385).
#[test]
fn every_boards_console_leaves_ctrl_c_to_the_shell() {
    let mut make = Command::new("make");
    make.current_dir(repo_root()).args([
        "-s",
        "--no-print-directory",
        "-f",
        "freertos-port/qemu.mk",
        "--eval",
        "cu-print-boards: ; @echo $(QEMU_BOARDS)",
        "cu-print-boards",
    ]);
    let out = run(make, 60).expect("make prints the QEMU boards");
    let boards: Vec<&str> = out.stdout.split_whitespace().collect();
    assert!(boards.len() >= 5 && boards.contains(&"mps2-an385"), "the QEMU boards: {boards:?}");
    let console = ["-chardev", "stdio,id=console,signal=off", "-serial", "chardev:console"];
    for board in boards {
        for which in [QemuRun::Parallel, QemuRun::Icount] {
            let words = qemu::command_words(board, std::path::Path::new("demo.elf"), which);
            assert!(
                words.windows(console.len()).any(|w| w == console) && !words.iter().any(|w| w == "stdio"),
                "{board}'s {}: its console is not `{}`: {words:?}",
                which.variable(),
                console.join(" ")
            );
        }
    }
}

/// The library's critical section holds off the interrupts the kernel's critical
/// sections hold off and no others: BASEPRI at configMAX_SYSCALL_INTERRUPT_PRIORITY
/// (0xA0 in the demo's FreeRTOSConfig.h), not PRIMASK. The board's `irqmask` command
/// (freertos-port/bare-metal/cortex-m/mask_check.c) pends IRQ30 (priority 0x80) and IRQ31
/// (0xA0) from inside the section and counts which ran before it ended; with PRIMASK
/// neither would, and the line below would read `BASEPRI 0x00 PRIMASK 1: IRQ30
/// (priority 0x80) ran 0`.
#[test]
fn critical_section_masks_only_what_the_kernel_masks() {
    irqmask_on("mps2-an385", "CPU_USAGE_QEMU_ELF", "build/mps2-an385/demo.elf");
}

/// The same on the Cortex-M33 (ARMv8-M Mainline, Secure state): the library's section
/// raises the Secure BASEPRI as the ARM_CM33_NTZ port's do. IRQ30 and IRQ31 are
/// reserved lines of the AN505's IoT Kit, which no device drives.
#[test]
fn critical_section_masks_only_what_the_kernel_masks_on_cortex_m33() {
    irqmask_on("mps2-an505", "CPU_USAGE_QEMU_AN505_ELF", "build/mps2-an505/demo.elf");
}

/// `irqmask` on `board`'s demo image (see `qemu_image_command`) must answer that only
/// the IRQ above configMAX_SYSCALL_INTERRUPT_PRIORITY ran inside the section.
fn irqmask_on(board: &str, image_var: &str, image: &str) {
    let mut console = Console::spawn(&format!("QEMU {board}"), qemu::image_command(board, image_var, image));
    console.read_answer(30);
    let answer = console.command("irqmask", 20);
    let expected = [
        "irqmask: inside the library's critical section BASEPRI 0xa0 PRIMASK 0: IRQ30 (priority 0x80) ran 1, \
         IRQ31 (priority 0xa0) ran 0; after it: IRQ30 1, IRQ31 1",
        "irqmask: ok: priorities above configMAX_SYSCALL_INTERRUPT_PRIORITY run, the others wait",
    ];
    for line in expected {
        if !answer.lines().any(|l| l == line) {
            console.fail(&format!("`irqmask` did not answer {line:?}"));
        }
    }
    console.exit(20);
}

/// On the Cortex-M0 (microbit) the kernel's critical sections mask every interrupt
/// (PRIMASK: ARMv6-M has no BASEPRI), and so must the library's. The board's `irqmask`
/// (freertos-port/bare-metal/cortex-m/mask_check.c) pends IRQ30 at the most urgent priority (0x00)
/// and IRQ31 at the least (0xC0) from inside the section: neither may run before it
/// ends, both must run after it. The command leaves the library on a clock of the
/// board's (TIMER2, the same 16 MHz), and a window is then read with it: the library
/// goes on counting on the new clock.
#[test]
fn critical_section_masks_every_interrupt_on_the_cortex_m0() {
    let cmd = qemu::image_command("microbit", "CPU_USAGE_QEMU_MICROBIT_ELF", "build/microbit/demo.elf");
    let mut console = Console::spawn("QEMU microbit", cmd);
    console.read_answer(30);
    let answer = console.command("irqmask", 20);
    let expected = [
        "irqmask: inside the library's critical section PRIMASK 1: IRQ30 (priority 0x00) ran 0, \
         IRQ31 (priority 0xc0) ran 0; after it: IRQ30 1, IRQ31 1",
        "irqmask: ok: every priority waits, as in the kernel's critical sections (no BASEPRI on ARMv6-M)",
    ];
    for line in expected {
        if !answer.lines().any(|l| l == line) {
            console.fail(&format!("`irqmask` did not answer {line:?}"));
        }
    }
    // The guest runs faster than the host here: a 1 s window takes well under 10 s.
    let deadline = Deadline::after_secs(30);
    loop {
        let report = console.command("show_cpu_usage", 20);
        if report.contains("clock custom 16000000 Hz") {
            break;
        }
        if deadline.passed() {
            console.fail(&format!("no window with the board's clock after `irqmask`; the last report: {report:?}"));
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    console.exit(20);
}

// ---- Many tasks before the scheduler ----------------------------------------------------

/// Windows of guest time the demo runs before the comparison: enough that the gap
/// between the two views (below) is a small part of the run.
const MANY_TASKS_WINDOWS: u64 = 5;

/// The window the comparison is taken with, in ms: the library's since-start figures
/// run to the end of its last completed window, the kernel's to the instant of
/// `kernel_stats`, so at most this much of the run is in one and not the other.
const MANY_TASKS_WINDOW_MS: u64 = 10;

/// The demo started with the semihosting argument `many-tasks`: 100 more tasks, which
/// only wait, are created after the demo's own and before the scheduler starts, so
/// every one of the 32 IDs is taken when `vTaskStartScheduler()` creates the idle task
/// (FreeRTOS's own full demos create 80 to 90 tasks that way). The idle task must have
/// an ID and line of its own, and idle and load must agree with the kernel's own
/// run-time stats (`configGENERATE_RUN_TIME_STATS`, counted in core cycles as the
/// library's clock counts them), both taken at one instant by the demo's
/// `kernel_stats`.
///
/// Where the two differ, and the bound that follows: the kernel charges an interrupt
/// to the task it interrupted, the library to the interrupts line, so the kernel's
/// idle share exceeds the library's idle + sleep by the interrupts that came while idle
/// or asleep, at most the whole interrupts line; the library's run ends up to
/// `MANY_TASKS_WINDOW_MS` earlier, moving every share by at most that part of the run;
/// the kernel's figure is truncated to, the library's rounded to, a hundredth.
#[test]
fn idle_and_load_with_more_tasks_than_ids_on_qemu_mps2_an385() {
    let mut cmd = qemu::image_command("mps2-an385", "CPU_USAGE_QEMU_ELF", "build/mps2-an385/demo.elf");
    let args: Vec<String> = cmd
        .get_args()
        .map(|a| {
            let a = a.to_string_lossy();
            if a.starts_with("enable=on") {
                format!("{a},arg=demo.elf,arg=many-tasks")
            } else {
                a.into_owned()
            }
        })
        .collect();
    assert!(args.iter().any(|a| a.ends_with("arg=many-tasks")), "no -semihosting-config in {args:?}");
    let mut many = Command::new(cmd.get_program());
    many.args(&args).current_dir(repo_root());
    cmd = many;
    let mut console = Console::spawn("QEMU mps2-an385 many-tasks", cmd);
    console.read_answer(60);
    let window_of = |answer: &str| -> Option<u64> {
        let json: serde_json::Value = serde_json::from_str(answer.lines().find(|l| l.starts_with('{'))?).ok()?;
        json["window"].as_u64()
    };
    let limit = Deadline::after_secs(120);
    loop {
        let answer = console.command("show_cpu_usage -m", 20);
        if window_of(&answer).is_some_and(|w| w >= MANY_TASKS_WINDOWS) {
            break;
        }
        if limit.passed() {
            console.fail(&format!("no window #{MANY_TASKS_WINDOWS} within 120 s: {answer}"));
        }
        std::thread::sleep(std::time::Duration::from_millis(500));
    }
    console.command(&format!("show_cpu_usage -w {MANY_TASKS_WINDOW_MS}"), 20);
    std::thread::sleep(std::time::Duration::from_millis(200));
    let stats: KernelStats = scenario::ask_json(&mut console, "kernel_stats -m", 30);
    let Some((idle_id, kernel_idle_pct)) =
        stats.kernel.iter().find(|r| r.name == "IDLE").map(|r| (r.id, r.run_time_pct))
    else {
        console.fail(&format!("`kernel_stats` lists no IDLE row: {stats:?}"));
    };
    let Some(library) = stats.library else {
        console.fail(&format!("`kernel_stats` has no library report: {:?}", stats.kernel));
    };
    let text = library.get();
    let report = match freertos_cpu_usage_report::parse_exact(text) {
        Ok(freertos_cpu_usage_report::Report::SinceStart(report)) => *report,
        Ok(other) => console.fail(&format!("the library's report is not since start: {other:?}")),
        Err(e) => console.fail(&format!("the library's since-start report: {e}\n{text}")),
    };
    if idle_id == 0 || report.idle.as_ref().map(|i| u64::from(i.id)) != Some(idle_id) {
        console.fail(&format!(
            "the idle task has ID {idle_id} for the kernel, the report's idle line is {:?}",
            report.idle
        ));
    }
    let (idle, sleep, isr, load) = (report.idle_pct, report.sleep_pct, report.interrupts_pct, report.load_pct);
    let uptime_ms = report.uptime_us as f64 / 1000.0;
    let bound = isr + 100.0 * MANY_TASKS_WINDOW_MS as f64 / uptime_ms + 0.02;
    println!(
        "many tasks: idle task ID {idle_id}; kernel idle {kernel_idle_pct:.2} %, library idle + sleep {:.2} % \
         (interrupts {isr:.2} %), load {load:.2} % vs {:.2} %, over {uptime_ms:.0} ms; bound {bound:.2} pp; \
         tasks without an ID now: {}",
        idle + sleep,
        100.0 - kernel_idle_pct,
        report.slots.overflow_tasks
    );
    let diff = kernel_idle_pct - (idle + sleep);
    if !(-bound..=bound).contains(&diff) || !((100.0 - kernel_idle_pct) - load).abs().le(&bound) {
        console.fail(&format!(
            "kernel idle {kernel_idle_pct:.2} %, library idle {idle:.2} + sleep {sleep:.2} %, load {load:.2} %: \
             more than {bound:.2} pp apart\nkernel: {:?}\nlibrary: {text}",
            stats.kernel
        ));
    }
    if report.slots.overflow_tasks < 70 {
        console.fail(&format!("fewer tasks without an ID than the 100 waiting ones leave: {:?}", report.slots));
    }
    console.exit(20);
}

// ---- The minimal build, read through cpu_usage_snapshot ---------------------------------

/// snapshot_main.c's workloads and their duties, in percent.
const SNAPSHOT_WORKLOADS: [(&str, f64); 3] = [("work10", 10.0), ("work20", 20.0), ("work30", 30.0)];

/// The window length snapshot_main.c sets, in milliseconds.
const SNAPSHOT_WINDOW_MS: i64 = 100;

/// The windows it reads, one reading each, one after the other.
const SNAPSHOT_READINGS: usize = 3;

/// The tasks of snapshot.elf: the three workloads, the reporting task, the idle task.
const SNAPSHOT_TASKS: i64 = 5;

/// Duty tolerance of snapshot.elf's workloads, in percentage points, in each window.
///
/// Under `-icount` every guest instruction takes the same 32 ns of guest time, and
/// both clocks (the workloads' `port_time_us()` and the library's SysTick-extended
/// count) are guest clocks, so neither the host's speed nor its load enters: the run
/// prints the same bytes every time. Each workload burns its duty of the time since
/// its previous 10 ms activation; the period divides the 100 ms window and the three
/// burns end 6 ms into each period, so a window ends while only the idle task runs and
/// holds exactly ten whole activations of each workload: no averaging over windows is
/// needed (the demo's activations drift against its windows, so it averages three).
/// What is left is each activation's way in and out (computing the burn,
/// `xTaskDelayUntil()` and the switch), which counts with the workload, and the tick
/// interrupts inside a burn, which go to the interrupts line instead: measured +0.08,
/// +0.03 and −0.02 to −0.01 pp for 10, 20 and 30 %. 1 pp, as for the demo on QEMU, is
/// a wide bound.
const SNAPSHOT_DUTY_TOLERANCE_PP: f64 = 1.0;

/// Bounds of idle + sleep, in percent: what the workloads leave (40 %) less the
/// reporting task's printing (in the windows it prints in: 1.3 % on the Cortex-M3,
/// 2.2 % on the Cortex-M0, whose Thumb-1 code takes more instructions) and the
/// interrupts line (0.6 %), give or take the workloads' three tolerances. Measured
/// 38.00 to 39.34 (mps2-an385), 37.03 to 39.24 (microbit).
const SNAPSHOT_IDLE_PLUS_SLEEP_PCT: (f64, f64) =
    (40.0 - 2.0 - 3.0 * SNAPSHOT_DUTY_TOLERANCE_PP, 40.0 + 3.0 * SNAPSHOT_DUTY_TOLERANCE_PP);

/// One line snapshot.elf printed: `kind word ... key=value ...`.
#[derive(Debug)]
struct Record {
    kind: String,
    /// Words without `=` after the kind (a call's name).
    words: Vec<String>,
    fields: BTreeMap<String, String>,
    line: String,
}

impl Record {
    fn parse(line: &str) -> Option<Record> {
        let mut parts = line.split_whitespace();
        let kind = parts.next()?.to_string();
        let (mut words, mut fields) = (Vec::new(), BTreeMap::new());
        for part in parts {
            match part.split_once('=') {
                Some((key, value)) => {
                    fields.insert(key.to_string(), value.to_string());
                }
                None => words.push(part.to_string()),
            }
        }
        Some(Record { kind, words, fields, line: line.to_string() })
    }
}

/// A window as snapshot.elf printed it: its `window` line, a `task` line per task and
/// the `summary` line.
struct SnapshotWindow<'a> {
    head: &'a Record,
    tasks: Vec<&'a Record>,
    summary: &'a Record,
}

/// What snapshot.elf printed, read with checks whose failure shows all of it.
struct SnapshotOutput {
    output: String,
    records: Vec<Record>,
}

impl SnapshotOutput {
    fn new(output: String) -> SnapshotOutput {
        let records = output.lines().filter_map(|l| Record::parse(l.trim_end_matches('\r'))).collect();
        SnapshotOutput { output, records }
    }

    fn fail(&self, what: &str) -> ! {
        panic!("snapshot.elf: {what}\n--- what it printed ---\n{}", self.output)
    }

    fn check(&self, ok: bool, what: impl FnOnce() -> String) {
        if !ok {
            self.fail(&what());
        }
    }

    /// Field `key` of `record`, a whole number.
    fn num(&self, record: &Record, key: &str) -> i64 {
        match record.fields.get(key).map(|v| v.parse::<i64>()) {
            Some(Ok(n)) => n,
            _ => self.fail(&format!("no whole number {key}= in {:?}", record.line)),
        }
    }

    fn str<'a>(&self, record: &'a Record, key: &str) -> &'a str {
        record.fields.get(key).map_or_else(|| self.fail(&format!("no {key}= in {:?}", record.line)), String::as_str)
    }

    /// The one line of `kind` (whose first word is `word`, if given).
    fn one(&self, kind: &str, word: Option<&str>) -> &Record {
        let found: Vec<&Record> = self
            .records
            .iter()
            .filter(|r| r.kind == kind && word.is_none_or(|w| r.words.first().is_some_and(|f| f == w)))
            .collect();
        match found[..] {
            [one] => one,
            _ => self.fail(&format!(
                "{} lines `{kind}{}`, expected one",
                found.len(),
                word.map_or(String::new(), |w| format!(" {w}"))
            )),
        }
    }

    /// The `call <what>` line, which must give `status`.
    fn expect_status(&self, what: &str, status: cpu_usage_status) {
        let call = self.one("call", Some(what));
        let code = status as i32;
        self.check(self.num(call, "returned") == i64::from(code), || {
            format!("`{what}` returned {:?}, not {status:?} ({code})", call.line)
        });
    }

    fn windows(&self) -> Vec<SnapshotWindow<'_>> {
        let mut windows = Vec::new();
        let mut open: Option<(&Record, Vec<&Record>)> = None;
        for r in &self.records {
            match (r.kind.as_str(), open.as_mut()) {
                ("window", None) => open = Some((r, Vec::new())),
                ("task", Some((_, tasks))) => tasks.push(r),
                ("summary", Some(_)) => {
                    let (head, tasks) = open.take().expect("open");
                    windows.push(SnapshotWindow { head, tasks, summary: r });
                }
                ("window" | "task" | "summary", _) => self.fail(&format!("{:?} out of place", r.line)),
                _ => {}
            }
        }
        self.check(open.is_none(), || "a window without its summary line".into());
        windows
    }
}

/// The minimal build (`--no-default-features`: no shell) linked into a firmware of its
/// own, `snapshot_main.c`, which reads three consecutive 100 ms windows with
/// `cpu_usage_snapshot()` and prints them; every window is checked here.
///
/// - Each workload within [`SNAPSHOT_DUTY_TOLERANCE_PP`] of its duty.
/// - The shares (tasks, interrupts, sleep, other) add up to exactly 10000.
/// - The library's clock runs at the board's core clock (`configCPU_CLOCK_HZ`: the
///   SysTick-extended count, neither board having a DWT that counts).
/// - The counts: the snapshot gives them per task only (interrupts, sleep and "other"
///   as shares), so the exact check is that the tasks' counts fit in the window,
///   100 ms of the clock (2,500,000 counts at 25 MHz; a window ends exactly that long
///   after it began, `Engine::roll_over`), and that each task's share is exactly what
///   its counts make of those under the library's cumulative rounding in ID order
///   (floor of the running sum's share, minus the one before it). The rest of the
///   window, its counts minus the tasks', is then exactly the share of interrupts,
///   sleep and other. Shares of another total, or counts that were not the ones the
///   shares came from, would differ by at least a hundredth somewhere.
/// - The idle task is there, marked, with the summary's idle share; idle and sleep
///   (tickless idle, on in this board) are both used and add up to what the workloads
///   leave ([`SNAPSHOT_IDLE_PLUS_SLEEP_PCT`]); the load is 100 % minus both.
/// - The interrupts line: the 1 kHz SysTick is 100 interrupts a window (101 if one
///   straddled its end), taking some time, no more than 100 of the longest would.
/// - The bad calls got the statuses the header documents, with the library's texts:
///   a snapshot before the first window (`CPU_USAGE_ERR_NO_WINDOW`), with a NULL
///   summary or a NULL array of nonzero length (`CPU_USAGE_ERR_NULL`), a 0 ms window
///   (`CPU_USAGE_ERR_WINDOW`, the window unchanged); into an array of 2 it wrote 2
///   tasks and said there were 5 (not an error: the documented truncation).
#[test]
fn minimal_build_through_cpu_usage_snapshot_on_qemu() {
    snapshot_on(&SnapshotBoard {
        name: "mps2-an385",
        image: "build/mps2-an385/snapshot.elf",
        image_var: "CPU_USAGE_QEMU_SNAPSHOT_ELF",
        clock_hz: 25_000_000,
    });
}

/// [`minimal_build_through_cpu_usage_snapshot_on_qemu`] on the Cortex-M0 (microbit):
/// the same firmware (`snapshot_main.c` is board-independent) and checks, at 16 MHz.
#[test]
fn minimal_build_through_cpu_usage_snapshot_on_qemu_microbit() {
    snapshot_on(&SnapshotBoard {
        name: "microbit",
        image: "build/microbit/snapshot.elf",
        image_var: "CPU_USAGE_QEMU_MICROBIT_SNAPSHOT_ELF",
        clock_hz: 16_000_000,
    });
}

/// A board's snapshot.elf, and the frequency its library's clock must report.
struct SnapshotBoard {
    /// The board: `freertos-port/<name>/`.
    name: &'static str,
    /// The image, from the repository root.
    image: &'static str,
    /// The environment variable that names another image instead.
    image_var: &'static str,
    /// The core clock, `configCPU_CLOCK_HZ` of the board's FreeRTOSConfig.h.
    clock_hz: i64,
}

/// The checks of [`minimal_build_through_cpu_usage_snapshot_on_qemu`] on `board`.
fn snapshot_on(board: &SnapshotBoard) {
    let cmd = qemu::image_command(board.name, board.image_var, board.image);
    // About 0.7 s of guest time, under a second on the host.
    let finished = run(cmd, 60).unwrap_or_else(|e| panic!("snapshot.elf under QEMU: {e}"));
    let out = SnapshotOutput::new(finished.stdout);
    out.check(finished.status.code() == Some(0), || {
        format!(
            "QEMU exited with {} (0: the firmware ran to its end)\n--- stderr ---\n{}",
            finished.status, finished.stderr
        )
    });
    out.one("end", None);

    let start = out.one("start", None);
    let abi = i64::from(cpu_usage_abi_version());
    out.check(out.num(start, "abi") == abi && out.num(start, "abi_header") == abi, || {
        format!("ABI versions {:?}, expected {abi} from both the library and the header", start.line)
    });
    out.check(out.num(start, "window_ms") == SNAPSHOT_WINDOW_MS, || format!("window not set: {:?}", start.line));
    let clock_hz = out.num(start, "clock_hz");
    out.check(clock_hz == board.clock_hz, || {
        format!("the library's clock at {clock_hz} Hz, not the core's {} Hz: {:?}", board.clock_hz, start.line)
    });

    out.expect_status("no-window", cpu_usage_status::CPU_USAGE_ERR_NO_WINDOW);
    out.expect_status("null-summary", cpu_usage_status::CPU_USAGE_ERR_NULL);
    out.expect_status("null-tasks", cpu_usage_status::CPU_USAGE_ERR_NULL);
    out.expect_status("window-0", cpu_usage_status::CPU_USAGE_ERR_WINDOW);
    let into2 = out.one("call", Some("into-2"));
    out.check(
        (out.num(into2, "returned"), out.num(into2, "written"), out.num(into2, "tasks")) == (2, 2, SNAPSHOT_TASKS),
        || format!("a snapshot into 2 entries: {:?}, expected 2 written of {SNAPSHOT_TASKS}", into2.line),
    );
    let after = out.one("window_ms_after", None);
    out.check(out.num(after, "ms") == SNAPSHOT_WINDOW_MS, || format!("a refused window changed it: {:?}", after.line));

    let windows = out.windows();
    out.check(windows.len() == SNAPSHOT_READINGS, || {
        format!("{} windows printed, expected {SNAPSHOT_READINGS}", windows.len())
    });
    let first = out.num(windows[0].head, "number");
    for (i, w) in windows.iter().enumerate() {
        out.check(out.num(w.head, "number") == first + i as i64, || {
            format!("windows not consecutive: {:?}", w.head.line)
        });
        check_snapshot_window(&out, w, clock_hz);
    }
}

/// The checks of [`minimal_build_through_cpu_usage_snapshot_on_qemu`] on one window.
fn check_snapshot_window(out: &SnapshotOutput, w: &SnapshotWindow<'_>, clock_hz: i64) {
    let head = &w.head.line;
    let window_us = out.num(w.head, "us");
    out.check(window_us == SNAPSHOT_WINDOW_MS * 1000, || format!("window length: {head:?}"));
    let length = window_us * clock_hz / 1_000_000;
    let (tasks, written) = (out.num(w.head, "tasks"), out.num(w.head, "written"));
    out.check(tasks == SNAPSHOT_TASKS && written == tasks && w.tasks.len() as i64 == written, || {
        format!("{head:?} with {} task lines, expected {SNAPSHOT_TASKS} tasks, all written", w.tasks.len())
    });

    // Exact bookkeeping: the counts fit, each share is its counts' share of the window.
    let share_upto = |counts: i64| counts * 10_000 / length;
    let mut counts_before = 0;
    let mut id_before = -1;
    for t in &w.tasks {
        let (id, counts, usage) = (out.num(t, "id"), out.num(t, "counts"), out.num(t, "usage"));
        out.check(id > id_before, || format!("tasks not in ID order at {:?} (window {head:?})", t.line));
        out.check(out.num(t, "deleted") == 0, || format!("no task is ever deleted: {:?}", t.line));
        let exact = share_upto(counts_before + counts) - share_upto(counts_before);
        out.check(usage == exact, || {
            format!("{:?}: usage {usage}, but {counts} counts after {counts_before} of {length} make {exact} (window {head:?})", t.line)
        });
        counts_before += counts;
        id_before = id;
    }
    out.check(counts_before <= length, || {
        format!("the tasks' counts {counts_before} exceed the window's {length} ({head:?})")
    });

    let s = w.summary;
    let field = |key: &str| out.num(s, key);
    let task_shares: i64 = w.tasks.iter().map(|t| out.num(t, "usage")).sum();
    let rest = field("interrupts") + field("sleep") + field("other");
    out.check(task_shares + rest == 10_000, || {
        format!("shares add up to {} hundredths, not 10000 ({head:?})", task_shares + rest)
    });
    out.check(rest == 10_000 - share_upto(counts_before), || {
        format!(
            "interrupts, sleep and other {rest}, but the {} counts the tasks left make {}",
            length - counts_before,
            10_000 - share_upto(counts_before)
        )
    });

    for (name, duty) in SNAPSHOT_WORKLOADS {
        let Some(t) = w.tasks.iter().find(|t| out.str(t, "name") == name) else {
            out.fail(&format!("no task {name} in window {head:?}"));
        };
        let pct = out.num(t, "usage") as f64 / 100.0;
        out.check((pct - duty).abs() <= SNAPSHOT_DUTY_TOLERANCE_PP, || {
            format!("{name} at {pct:.2} %, more than {SNAPSHOT_DUTY_TOLERANCE_PP} pp from its duty {duty} % (window {head:?})")
        });
    }
    out.check(w.tasks.iter().any(|t| out.str(t, "name") == "report"), || {
        format!("no task `report` in window {head:?}")
    });

    let idle: Vec<&&Record> = w.tasks.iter().filter(|t| out.num(t, "idle") == 1).collect();
    let [idle] = idle[..] else {
        out.fail(&format!("{} tasks marked idle in window {head:?}, expected 1", idle.len()))
    };
    out.check(out.str(idle, "name") == "IDLE" && out.num(idle, "usage") == field("idle"), || {
        format!("the idle task {:?} against the summary's idle {}", idle.line, field("idle"))
    });
    out.check(field("idle") > 0 && field("sleep") > 0 && out.num(idle, "switches") > 0, || {
        format!("idle {} and sleep {}: both should be used ({:?})", field("idle"), field("sleep"), s.line)
    });
    let idle_sleep_pct = (field("idle") + field("sleep")) as f64 / 100.0;
    let (low, high) = SNAPSHOT_IDLE_PLUS_SLEEP_PCT;
    out.check((low..=high).contains(&idle_sleep_pct), || {
        format!("idle + sleep {idle_sleep_pct:.2} %, expected {low} to {high} % ({:?})", s.line)
    });
    out.check(field("load") == 10_000 - field("idle") - field("sleep"), || {
        format!("load is not 100 % minus idle and sleep: {:?}", s.line)
    });
    // The minimal build has no load averages (the `watchdogs` feature).
    for key in ["load_avg_1s", "load_avg_10s", "load_avg_60s"] {
        out.check(field(key) == i64::from(u32::MAX), || format!("{key} known in the minimal build: {:?}", s.line));
    }

    let (count, longest_us, share) = (field("interrupt_count"), field("longest_interrupt_us"), field("interrupts"));
    let ticks = SNAPSHOT_WINDOW_MS; // configTICK_RATE_HZ 1000
    out.check((ticks..=ticks + 1).contains(&count), || {
        format!("{count} interrupts, expected the {ticks} ticks of the window ({:?})", s.line)
    });
    // No more than `count` interrupts of the longest one's length (its µs rounded down).
    let most = (count * (longest_us + 1) * 10_000 + window_us - 1) / window_us;
    out.check(share > 0 && longest_us > 0 && share <= most, || {
        format!(
            "interrupts {share} hundredths: expected some, at most {most} ({count} of at most {longest_us} µs): {:?}",
            s.line
        )
    });
}

// ---- RISC-V: the critical section and the mcycle clock on QEMU's virt machine -------

/// The QEMU command for the riscv-virt demo image, checked to exist and to be runnable.
fn riscv_demo_command() -> Command {
    qemu::image_command("riscv-virt", "CPU_USAGE_QEMU_RISCV_ELF", "build/riscv-virt/demo.elf")
}

/// On RISC-V the library's critical section clears mstatus.MIE and puts back what it
/// found: the board's `irqmask` command (freertos-port/riscv-virt/mask_check.c) pends the
/// machine software interrupt from inside the section, once from a task and once inside
/// a kernel critical section. The interrupt must wait for the end of the library's
/// section in the first case, and for the end of the kernel's in the second: a release
/// that always set MIE would let it run there, and the second line would read `after it
/// MIE 1, ran 1`.
#[test]
fn riscv_critical_section_restores_mstatus_mie() {
    let mut console = Console::spawn("QEMU riscv-virt", riscv_demo_command());
    console.read_answer(30);
    let answer = console.command("irqmask", 20);
    let expected = [
        "irqmask: from a task: in the library's section MIE 0, msip ran 0; after it MIE 1, ran 1; at the end ran 1",
        "irqmask: inside taskENTER_CRITICAL: in the library's section MIE 0, msip ran 0; after it MIE 0, ran 0; \
         at the end ran 1",
        "irqmask: ok: the section clears mstatus.MIE and puts back what it found",
    ];
    for line in expected {
        if !answer.lines().any(|l| l == line) {
            console.fail(&format!("`irqmask` did not answer {line:?}"));
        }
    }
    console.exit(20);
}

/// The last completed window of the riscv-virt demo as `show_cpu_usage -m` reports it,
/// checked for exact bookkeeping; `None` before the first one.
fn riscv_last_window(console: &mut Console) -> Option<freertos_cpu_usage_report::Window> {
    let command = "show_cpu_usage -m";
    let answer = console.command(command, 20);
    let w = match scenario::report_in(&answer, command) {
        Ok(report) => report.map(|r| r.window().unwrap_or_else(|| console.fail(&format!("not a window: {answer}")))),
        Err(e) => console.fail(&format!("window report: {e}")),
    }?;
    if let Err(e) = scenario::check_demo(&w) {
        console.fail(&format!("window report: {e}"));
    }
    Some(w)
}

/// The library's other clock on RISC-V, mcycle through `cpu_usage_clock_mcycle`, gives
/// the same figures as the default (mtime). The board's `mcycle use` measures mcycle's
/// rate against mtime and sets it as the library's clock: under `-icount` QEMU's mcycle
/// counts nanoseconds of guest time, so the rate must come out at exactly 1 GHz (a
/// 100 ms measurement rounded to a whole MHz), every window must be 10^9 counts long
/// and add up exactly, and the workloads' shares, averaged over three windows, must
/// be within the demo's duty tolerance (`QEMU_DUTY_TOLERANCE_PP`: the clock is finer, the
/// physics the same).
#[test]
fn riscv_mcycle_clock_gives_the_same_figures() {
    let mut console = Console::spawn("QEMU riscv-virt", riscv_demo_command());
    console.read_answer(30);
    let answer = console.command("mcycle use", 20);
    if !answer.lines().any(|l| l == "clock: mcycle at 1000000000 Hz: ok") {
        console.fail(&format!("`mcycle use` did not set a 1 GHz mcycle clock: {answer:?}"));
    }

    // cpu_usage_set_clock() restarts the windows: the first one after it that is
    // reported, and the two after it, all count with mcycle.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    let mut windows: Vec<freertos_cpu_usage_report::Window> = Vec::new();
    while windows.len() < 3 {
        if std::time::Instant::now() > deadline {
            console.fail("three windows with the mcycle clock did not complete within 120 s");
        }
        if let Some(w) = riscv_last_window(&mut console) {
            let newer = windows.last().is_none_or(|last| w.window > last.window);
            if w.clock == "custom" && newer {
                if w.clock_hz != 1_000_000_000 || w.window_counts != 1_000_000_000 {
                    console.fail(&format!("a window with the mcycle clock is not 10^9 counts of 1 GHz: {w:?}"));
                }
                windows.push(w);
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    for (name, duty) in scenario::WORKLOADS {
        let shares: Vec<f64> = windows.iter().map(|w| w.task(name).map_or(f64::NAN, |t| t.usage_pct)).collect();
        let mean = shares.iter().sum::<f64>() / shares.len() as f64;
        println!(
            "mcycle clock: {name} {mean:.2} % averaged over {shares:?} (duty {duty} ± {QEMU_DUTY_TOLERANCE_PP} pp)"
        );
        if (mean - duty).abs() > QEMU_DUTY_TOLERANCE_PP || mean.is_nan() {
            console.fail(&format!("with the mcycle clock {name} is at {mean:.2} % ({shares:?}), not {duty} %"));
        }
    }
    console.exit(20);
}
