//! The library beside another trace tool that defines the same kernel trace macros
//! (README: "Beside another trace tool"), on both the POSIX simulator and QEMU.
//!
//! The demo's `tracer` variant (`build/posix-tracer/freertos-sim`, built by `make
//! test-build`; `build/mps2-an385/demo-tracer.elf`, built by `make qemu-image`) has a
//! stand-in tracer of our own, `demo/stand-in-tracer/stand_in_tracer.h`, that takes
//! the macros the way TraceRecorder does (included at the end of FreeRTOSConfig.h,
//! `#undef` then define), keeps a handle of its own in every TCB's `uxTaskNumber` and
//! counts every event; the firmware's `trace_hooks_shared.h` defines each shared macro
//! as the stand-in's line and the library's `CPU_USAGE_TRACE_<X>`, with
//! `CPU_USAGE_SHARED_HOOKS 1` and the library's IDs in thread-local storage pointer 0
//! (`CPU_USAGE_TLS_INDEX`). On each:
//!
//! - the library's figures are right: the whole end-to-end scenario (`scenario::run`)
//!   passes on the variant, with the tolerances of the normal build;
//! - the stand-in's counts are right (`stand_in_counts`): its shell command `tracer`
//!   prints them with the kernel's tick count and number of tasks read at the same
//!   instant, and the `tasks` command shows library IDs read with `CPU_USAGE_TASK_ID`
//!   (from the TLS slot) that agree with the library's report.
//!
//! And on the host compiler (`shared_hooks_compile_check`): a `FreeRTOSConfig.h` that
//! defines `traceTASK_SWITCHED_IN` before the hooks header stops with the header's
//! `#error` unless it says `CPU_USAGE_SHARED_HOOKS 1`, and with it and a combined
//! definition the kernel calls both sides.
//!
//! The images may be named by `CPU_USAGE_TRACER_SIM` and `CPU_USAGE_QEMU_TRACER_ELF`.
//! A missing image or QEMU is a failure, never a skip.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, MutexGuard};
use std::thread;
use std::time::Duration;

use freertos_cpu_usage_report::Window;
use freertos_cpu_usage_tests::scenario::{self, ask_json, Churn, Judging, Tasks};
use freertos_cpu_usage_tests::{boards, path_from_env, qemu, repo_root, run, Console, Deadline};
use serde_json::Value;

// ---- The boards ---------------------------------------------------------------------

/// The POSIX simulator's tracer variant, as `e2e_posix` drives the plain one.
///
/// Tolerances: `boards::POSIX`'s, for the same reasons (the workloads and the
/// library both count host wall time; what is left is where 10 ms activations fall
/// against 1 s windows, 0 to 0.5 pp measured, and tick30's way out of its burn). The
/// stand-in adds a few increments under a signal mask to each switch, tick and sleep:
/// well under a microsecond per event against windows of a second, nothing the 1.5 pp
/// bound could notice.
const POSIX: Judging = boards::POSIX;

/// mps2-an385's tracer variant under QEMU `-icount`, as `e2e_qemu` drives demo.elf.
///
/// Tolerances: `boards::MPS2_AN385`'s. Under `-icount` every instruction is 32 ns of
/// guest time and both the workloads' clock and the library's count it, so what moves
/// a share is instructions: the stand-in adds about ten (a BASEPRI raise, an increment,
/// the restore) to each switch, tick and interrupt, some 0.3 µs, a few thousand times a
/// second at most: under 0.1 pp of any line. TIMER0's share is the same 5.00 %; its
/// handler's entry and exit now also run the stand-in's ten instructions each, well
/// inside the 1 pp that `e2e_qemu` allows for the handler's own cost.
const MPS2_AN385: Judging = boards::MPS2_AN385;

fn posix_console() -> Console {
    let sim = path_from_env("CPU_USAGE_TRACER_SIM", "build/posix-tracer/freertos-sim");
    assert!(
        sim.is_file(),
        "the POSIX simulator's tracer variant {} does not exist: build it with `make test-build` \
         (or `make build/posix-tracer/freertos-sim`), or point CPU_USAGE_TRACER_SIM at one",
        sim.display()
    );
    Console::spawn("POSIX simulator (tracer variant)", Command::new(&sim))
}

fn qemu_console() -> Console {
    let cmd = qemu::image_command("mps2-an385", "CPU_USAGE_QEMU_TRACER_ELF", "build/mps2-an385/demo-tracer.elf");
    Console::spawn("QEMU mps2-an385 (demo-tracer.elf)", cmd)
}

/// The demos of this file run one at a time. The simulator's figures are host wall
/// time, and a QEMU run beside it takes a whole host core: on a 2-core host, tick30
/// then read 35.4 and 36.6 % over two windows (its thread held past its share for 74
/// and 77 ms of them), where it reads 29.98 to 30.16 % alone, as in `e2e_posix`, whose
/// binary runs no QEMU.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn one_at_a_time() -> MutexGuard<'static, ()> {
    // A test that failed while holding it has said so; the next may still run.
    ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
}

#[test]
fn figures_beside_another_tracer_on_posix() {
    let _alone = one_at_a_time();
    scenario::run(&mut posix_console(), POSIX);
}

#[test]
fn figures_beside_another_tracer_on_qemu() {
    let _alone = one_at_a_time();
    scenario::run(&mut qemu_console(), MPS2_AN385);
}

#[test]
fn stand_in_counts_on_posix() {
    let _alone = one_at_a_time();
    stand_in_counts(&mut posix_console(), POSIX);
}

#[test]
fn stand_in_counts_on_qemu() {
    let _alone = one_at_a_time();
    stand_in_counts(&mut qemu_console(), MPS2_AN385);
}

// ---- The stand-in's counts ----------------------------------------------------------

/// Tasks the churn must have created before the counts are first read: enough for the
/// creates, deletes and the idle task's clean-up to have run hundreds of times.
const CHURN_MIN_CREATED: u64 = 200;

/// Windows to wait after `churn off`: the churn task deletes its waiting children on
/// its next round (50 ms) and the idle task frees the self-deleted ones the next time
/// it runs, which it does in every 10 ms period (the workloads leave it a quarter of
/// the CPU); three windows (3 s) leave no doubt, as the scenario waits for the pool.
const QUIET_WINDOWS: u64 = 3;

/// One answer of the demo's `tracer` command.
#[derive(Debug)]
struct Counts {
    json: Value,
}

impl Counts {
    fn of(console: &mut Console, judging: &Judging) -> Counts {
        let answer = console.command("tracer", judging.reply_secs);
        let Some(line) = answer.lines().find(|l| l.starts_with('{')) else {
            console.fail(&format!("no JSON line in the answer to `tracer`: {answer:?}"));
        };
        match serde_json::from_str::<Value>(line) {
            Ok(json) if json["tracer"].is_object() && json["kernel"].is_object() => Counts { json },
            Ok(json) => console.fail(&format!("`tracer` answered without its two objects: {json}")),
            Err(e) => console.fail(&format!("invalid JSON from `tracer` ({e}): {line}")),
        }
    }

    /// The stand-in's counter `name`.
    fn get(&self, name: &str) -> u64 {
        self.json["tracer"][name].as_u64().unwrap_or_else(|| panic!("`tracer` has no counter {name}: {}", self.json))
    }

    /// What the kernel said at the same instant: `ticks` or `tasks`.
    fn kernel(&self, name: &str) -> u64 {
        self.json["kernel"][name].as_u64().unwrap_or_else(|| panic!("`tracer` has no kernel {name}: {}", self.json))
    }
}

/// What must hold whenever the shell reads the counts, the read being one critical
/// section in a task (so no handler, switch or tickless sleep is under way):
///
/// - ticks: the stand-in counts every tick interrupt once, as the kernel's tick count
///   does (the tick count starts at 0 when the scheduler starts, before the first tick
///   interrupt), so the two are equal, to the tick;
/// - one scheduler start;
/// - not one switch-in found the stand-in's handle changed in `uxTaskNumber`: the
///   library keeps its IDs elsewhere;
/// - every switch-in but the scheduler's first has its switch-out before it, in the
///   same call of `vTaskSwitchContext()`: switch-ins = switch-outs + 1;
/// - every interrupt that entered has exited, to the task or to the scheduler; every
///   tickless sleep has ended (the idle task sleeps with the scheduler suspended, so
///   the shell cannot run in between);
/// - where the port's handlers call the hooks (QEMU: every SysTick is one), at least as
///   many interrupt entries as ticks.
fn check_invariants(console: &mut Console, c: &Counts, interrupts_seen: bool) {
    let mut wrong = Vec::new();
    if c.get("ticks") != c.kernel("ticks") {
        wrong.push(format!("the stand-in counted {} ticks, the kernel {}", c.get("ticks"), c.kernel("ticks")));
    }
    if c.get("scheduler_starts") != 1 {
        wrong.push(format!("{} scheduler starts, not 1", c.get("scheduler_starts")));
    }
    if c.get("handle_mismatches") != 0 {
        wrong.push(format!(
            "{} switch-ins found the stand-in's handle in uxTaskNumber changed",
            c.get("handle_mismatches")
        ));
    }
    if c.get("switch_ins") != c.get("switch_outs") + 1 {
        wrong.push(format!("{} switch-ins, {} switch-outs: not one more", c.get("switch_ins"), c.get("switch_outs")));
    }
    let exits = c.get("isr_exits") + c.get("isr_exits_to_scheduler");
    if c.get("isr_enters") != exits {
        wrong.push(format!("{} interrupt enters, {exits} exits", c.get("isr_enters")));
    }
    if c.get("sleeps") != c.get("wakes") {
        wrong.push(format!("{} sleeps began, {} ended", c.get("sleeps"), c.get("wakes")));
    }
    if interrupts_seen && c.get("isr_enters") < c.get("ticks") {
        wrong.push(format!("{} interrupt enters for {} tick interrupts", c.get("isr_enters"), c.get("ticks")));
    }
    if c.get("switch_ins") == 0 || c.get("creates") == 0 {
        wrong.push("no switch-in or no task creation counted".to_string());
    }
    if !wrong.is_empty() {
        console.fail(&format!("the stand-in tracer's counts are wrong: {}\n{}", wrong.join("; "), c.json));
    }
}

/// The last completed window (`show_cpu_usage -m`), `None` before the first.
fn window(console: &mut Console, judging: &Judging) -> Option<Window> {
    let command = "show_cpu_usage -m";
    let answer = console.command(command, judging.reply_secs);
    // (Without a JSON line, polled again.)
    if !answer.lines().any(|l| l.starts_with('{')) {
        return None;
    }
    let w = match scenario::report_in(&answer, command) {
        Ok(report) => report.map(|r| r.window().unwrap_or_else(|| console.fail(&format!("not a window: {answer}")))),
        Err(e) => console.fail(&format!("window report: {e}")),
    }?;
    if let Err(e) = scenario::check_demo(&w) {
        console.fail(&format!("window report: {e}"));
    }
    Some(w)
}

fn window_index(w: &Window) -> u64 {
    w.window
}

/// Polls until window `index` or a later one has completed.
fn wait_window(console: &mut Console, judging: &Judging, index: u64, deadline: Deadline) -> Window {
    loop {
        if let Some(w) = window(console, judging) {
            if window_index(&w) >= index {
                return w;
            }
        }
        if deadline.passed() {
            console.fail(&format!("window {index} not reached in time"));
        }
        thread::sleep(Duration::from_millis(100));
    }
}

fn churn(console: &mut Console, judging: &Judging, arg: &str) -> (u64, u64) {
    let churn: Churn = ask_json(console, &format!("churn -m {arg}"), judging.reply_secs);
    if churn.alive + churn.deleted != churn.created {
        console.fail(&format!("`churn -m {arg}`: alive is not created - deleted: {churn:?}"));
    }
    (churn.created, churn.deleted)
}

/// The switches of a window's tasks, the idle task's included.
fn switches(w: &Window) -> u64 {
    w.tasks.iter().map(|t| t.switches).sum::<u64>() + w.idle.as_ref().map_or(0, |i| i.switches)
}

fn expect_ok(console: &mut Console, judging: &Judging, line: &str, expected: &str) {
    let answer = console.command(line, judging.reply_secs);
    if !answer.contains(expected) {
        console.fail(&format!("`{line}` answered {answer:?}, expected {expected:?}"));
    }
}

/// The stand-in's counts against the kernel's and the library's (see the module
/// comment): while the churn creates and deletes tasks, after it has stopped, and over
/// a span that holds a whole window of the library's.
fn stand_in_counts(console: &mut Console, judging: Judging) {
    let deadline = Deadline::after_secs(judging.total_secs);
    console.read_answer(judging.boot_secs);
    let interrupts_seen = judging.irq.is_some();

    // Churn (on from boot) creating and deleting tasks, TIMER0 interrupting.
    let w = wait_window(console, &judging, 2, deadline);
    println!("window #{} done", window_index(&w));
    loop {
        let (created, _) = churn(console, &judging, "status");
        if created >= CHURN_MIN_CREATED {
            break;
        }
        if deadline.passed() {
            console.fail(&format!("churn created only {created} tasks in the time allowed"));
        }
        thread::sleep(Duration::from_millis(250));
    }
    if judging.irq.is_some() {
        expect_ok(console, &judging, "irq on", "irq: on");
    }
    let during = Counts::of(console, &judging);
    println!("during churn: {}", during.json);
    check_invariants(console, &during, interrupts_seen);

    // Churn off: once the dead are freed, the tasks the stand-in saw created and not
    // deleted are the kernel's tasks, and its deletes are the churn's.
    let off: Churn = ask_json(console, "churn -m off", judging.reply_secs);
    if off.on() {
        console.fail(&format!("`churn -m off` answered {off:?}"));
    }
    let at = window_index(&wait_window(console, &judging, 0, deadline));
    wait_window(console, &judging, at + QUIET_WINDOWS, deadline);
    let quiet = Counts::of(console, &judging);
    let (created, deleted) = churn(console, &judging, "status");
    println!("after churn: {} (the churn created {created}, deleted {deleted})", quiet.json);
    check_invariants(console, &quiet, interrupts_seen);
    let live = quiet.get("creates") - quiet.get("deletes");
    if live != quiet.kernel("tasks") || quiet.get("deletes") != deleted {
        console.fail(&format!(
            "the stand-in saw {} creates and {} deletes ({live} alive), the kernel has {} tasks and the churn \
             deleted {deleted}",
            quiet.get("creates"),
            quiet.get("deletes"),
            quiet.kernel("tasks")
        ));
    }

    // A span [quiet, after] that holds a whole window of the library's: the window
    // under way when `quiet` was read ended after it (the last completed one, read
    // after it, is `j`), so window j + 2 began after `quiet`, and it completed before
    // `after` was read. Every switch-in, interrupt and sleep the library counted in it,
    // the stand-in saw too (the library counts each switch-in once, for the task it
    // ends; an interrupt once, at its outermost enter).
    let j = window_index(&wait_window(console, &judging, 0, deadline));
    let inside = wait_window(console, &judging, j + 2, deadline);
    let after = Counts::of(console, &judging);
    check_invariants(console, &after, interrupts_seen);
    let delta = |name: &str| after.get(name) - quiet.get(name);
    let library = [
        ("switch_ins", switches(&inside), "switches"),
        ("isr_enters", inside.interrupts, "interrupts"),
        ("sleeps", inside.sleeps, "sleeps"),
    ];
    for (counter, counted, what) in library {
        println!(
            "window #{}: the library counted {counted} {what}; the stand-in {} {counter} over a span holding it",
            window_index(&inside),
            delta(counter)
        );
        if delta(counter) < counted || (what == "switches" && counted == 0) {
            console.fail(&format!(
                "the stand-in counted {} {counter} over a span holding window {}, in which the library counted \
                 {counted} {what}",
                delta(counter),
                window_index(&inside)
            ));
        }
    }
    if judging.irq.is_some() {
        expect_ok(console, &judging, "irq off", "irq: off");
    }

    // The demo's `tasks` reads each task's ID with CPU_USAGE_TASK_ID, here from the TLS
    // slot: distinct IDs, none in the shared bucket, the same ID and name as the
    // library's report lists (the idle task on its own line).
    let tasks: Tasks = ask_json(console, "tasks -m", judging.reply_secs);
    let (rows, total) = (&tasks.tasks, tasks.count);
    let shown: BTreeSet<(u64, String)> = rows.iter().map(|r| (r.id, r.name.clone())).collect();
    let ids: BTreeSet<u64> = rows.iter().map(|r| r.id).collect();
    let report = wait_window(console, &judging, 0, deadline);
    let mut listed: BTreeSet<(u64, String)> = report
        .tasks
        .iter()
        .filter(|t| !t.deleted)
        // An empty overflow bucket is not a task.
        .filter(|t| t.id != 0 || t.tasks != Some(0))
        .map(|t| (u64::from(t.id), t.name.clone()))
        .collect();
    if let Some(idle) = &report.idle {
        listed.insert((u64::from(idle.id), idle.name.clone()));
    }
    println!("tasks: {shown:?}; the library's window #{}: {listed:?}", window_index(&report));
    if rows.len() as u64 != total || ids.len() != rows.len() || ids.contains(&0) || shown != listed {
        console.fail(&format!(
            "`tasks` ({total} tasks) shows IDs {shown:?}, the library's report lists {listed:?}: each live task \
             should hold its own ID, the same in both"
        ));
    }
    console.exit(judging.reply_secs);
}

// ---- Compile checks -------------------------------------------------------------------

/// A FreeRTOSConfig.h for the POSIX port in which another tool has defined
/// `traceTASK_SWITCHED_IN` and `traceISR_ENTER` before the hooks header; with
/// `SHARED`, the firmware's combined definitions follow it, as the README says.
const CONFIG: &str = r#"
#ifndef FREERTOS_CONFIG_H
#define FREERTOS_CONFIG_H
#define configUSE_PREEMPTION                 1
#define configUSE_TIME_SLICING               0
#define configTICK_RATE_HZ                   1000
#define configMAX_PRIORITIES                 5
#define configMINIMAL_STACK_SIZE             256
#define configMAX_TASK_NAME_LEN              16
#define configTICK_TYPE_WIDTH_IN_BITS        TICK_TYPE_WIDTH_64_BITS
#define configSUPPORT_DYNAMIC_ALLOCATION     1
#define configSUPPORT_STATIC_ALLOCATION      0
#define configTOTAL_HEAP_SIZE                ( ( size_t ) ( 64 * 1024 ) )
#define configUSE_IDLE_HOOK                  0
#define configUSE_TICK_HOOK                  0
#define configUSE_TIMERS                     0
#define configUSE_TRACE_FACILITY             1
#define INCLUDE_vTaskDelete                  1

/* The other tool's header. */
void other_tool_switched_in( void );
void other_tool_isr_enter( void );
#define traceTASK_SWITCHED_IN()    other_tool_switched_in()
#define traceISR_ENTER()           other_tool_isr_enter()

#ifdef SHARED
    #define CPU_USAGE_SHARED_HOOKS    1
#endif
#include "freertos_cpu_usage_hooks.h"
#ifdef SHARED
    #undef traceTASK_SWITCHED_IN
    #define traceTASK_SWITCHED_IN()                 \
        do {                                        \
            other_tool_switched_in();               \
            CPU_USAGE_TRACE_TASK_SWITCHED_IN();     \
        } while( 0 )
    #undef traceISR_ENTER
    #define traceISR_ENTER()                        \
        do {                                        \
            CPU_USAGE_TRACE_ISR_ENTER();            \
            other_tool_isr_enter();                 \
        } while( 0 )
#endif
#endif
"#;

/// An interrupt handler of the firmware, bracketed as the README says.
const HANDLER: &str = r#"
#include "FreeRTOS.h"
#include "task.h"

void firmware_irq_handler( void );
void firmware_irq_handler( void )
{
    BaseType_t xWoken = pdFALSE;

    CPU_USAGE_ISR_ENTER();
    portYIELD_FROM_ISR( xWoken );
}
"#;

/// The #error of the hooks header for a `traceTASK_SWITCHED_IN` already defined.
const SWITCHED_IN_ERROR: &str = "traceTASK_SWITCHED_IN is already defined (another trace tool?): call \
                                 CPU_USAGE_TRACE_TASK_SWITCHED_IN() from it and define CPU_USAGE_SHARED_HOOKS 1 \
                                 (README: Beside another trace tool), or remove it";

/// Compiles `source` to `object` with the host compiler, `CONFIG` (with `shared`) as
/// FreeRTOSConfig.h and the POSIX port's include paths (the simulator's, as
/// `tests/build.rs` has them).
fn compile(dir: &Path, source: &Path, object: &Path, shared: bool) -> freertos_cpu_usage_tests::Finished {
    let cc = std::env::var_os("CC").unwrap_or_else(|| "cc".into());
    let mut cmd = Command::new(cc);
    cmd.args(["-std=gnu11", "-c", "-O1", "-pthread"])
        .arg("-I")
        .arg(dir)
        .arg("-I")
        .arg(repo_root().join("include"))
        .arg("-I")
        .arg(env!("CU_KERNEL_INCLUDE"))
        .arg("-I")
        .arg(env!("CU_POSIX_PORT_INCLUDE"));
    if shared {
        cmd.arg("-DSHARED");
    }
    cmd.arg(source).arg("-o").arg(object);
    run(cmd, 120).unwrap_or_else(|e| panic!("cannot compile {}: {e}", source.display()))
}

/// The symbols `object` leaves undefined (what its code calls elsewhere).
fn undefined_symbols(object: &Path) -> BTreeSet<String> {
    let mut nm = Command::new("nm");
    nm.arg("-u").arg(object);
    let out = run(nm, 30).unwrap_or_else(|e| panic!("cannot run nm on {}: {e}", object.display()));
    assert!(out.status.success(), "nm -u {} failed: {}", object.display(), out.stderr);
    out.stdout.lines().filter_map(|l| l.split_whitespace().last().map(str::to_string)).collect()
}

/// Without `CPU_USAGE_SHARED_HOOKS`, a trace macro another tool defined stops the
/// build with the header's `#error`; with it and the combined definitions, the
/// kernel's `tasks.c` calls both tools at a switch-in, and a firmware handler's
/// `CPU_USAGE_ISR_ENTER()` reaches both tools' enter (through `traceISR_ENTER`).
#[test]
fn shared_hooks_compile_check() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("shared_hooks");
    std::fs::create_dir_all(&dir).expect("cannot create the test's directory");
    std::fs::write(dir.join("FreeRTOSConfig.h"), CONFIG).expect("cannot write FreeRTOSConfig.h");
    std::fs::write(dir.join("handler.c"), HANDLER).expect("cannot write handler.c");
    let tasks_c = Path::new(env!("CU_KERNEL_INCLUDE")).join("../tasks.c");
    let tasks_o = dir.join("tasks.o");
    let handler_o = dir.join("handler.o");

    let refused = compile(&dir, &tasks_c, &tasks_o, false);
    assert!(
        !refused.status.success() && refused.stderr.contains(SWITCHED_IN_ERROR),
        "without CPU_USAGE_SHARED_HOOKS, compiling tasks.c should stop with\n  #error \"{SWITCHED_IN_ERROR}\"\n\
         it ended with {}:\n{}",
        refused.status,
        refused.stderr
    );
    // Only the macros the other tool took are refused.
    let errors: Vec<&str> = refused.stderr.lines().filter(|l| l.contains("error: #error")).collect();
    assert!(
        errors.len() == 2 && errors.iter().any(|l| l.contains("traceISR_ENTER is already defined")),
        "expected the #errors for traceTASK_SWITCHED_IN and traceISR_ENTER only:\n{}",
        refused.stderr
    );

    let built = compile(&dir, &tasks_c, &tasks_o, true);
    assert!(built.status.success(), "with CPU_USAGE_SHARED_HOOKS 1, tasks.c did not compile:\n{}", built.stderr);
    let calls = undefined_symbols(&tasks_o);
    for symbol in ["other_tool_switched_in", "cpu_usage_hook_task_switched_in", "cpu_usage_hook_task_create"] {
        assert!(calls.contains(symbol), "tasks.c does not call {symbol} with the combined definitions: {calls:?}");
    }

    let built = compile(&dir, &dir.join("handler.c"), &handler_o, true);
    assert!(built.status.success(), "the firmware's handler did not compile:\n{}", built.stderr);
    let calls = undefined_symbols(&handler_o);
    for symbol in ["other_tool_isr_enter", "cpu_usage_hook_isr_enter", "cpu_usage_hook_isr_exit"] {
        assert!(
            calls.contains(symbol),
            "a handler's CPU_USAGE_ISR_ENTER() and portYIELD_FROM_ISR() do not call {symbol}: {calls:?}"
        );
    }
}
