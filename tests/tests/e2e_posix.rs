//! The demo on the FreeRTOS POSIX simulator, end to end: see `scenario` for the
//! conversation and its checks.
//!
//! The simulator is `build/posix/freertos-sim` (built by `make sim`), or the file
//! named by `CPU_USAGE_SIM`. A missing binary is a failure, never a skip.

use std::process::Command;

use freertos_cpu_usage_tests::scenario::{self, Port};
use freertos_cpu_usage_tests::{path_from_env, Console};

/// Duty tolerance on the simulator, in percentage points.
///
/// The workloads define their duty against the host's wall clock, and so does the
/// library's clock (CLOCK_MONOTONIC), so the lagging POSIX tick does not enter. Each
/// piece of a burn runs with the scheduler suspended and is timed by the wall clock,
/// so when the host takes the core away mid-burn that time counts for the burn and is
/// charged to the task alike. What is left is where the 10 ms activations fall
/// against the 1 s windows (a burn cut by a window edge, jitter of the wake-ups under
/// host load), measured at 0 to 0.5 pp on the 3-window averages, also with the other
/// core busy; 1.5 pp is the project's bound.
///
/// When the host does not give the simulator a core while it is awake (other
/// processes, or the hypervisor taking the virtual CPU), stalls land in whatever
/// FreeRTOS had running and late wake-ups shift burns between windows: the scenario
/// measures that time (the process's CPU time against the awake wall time) and
/// allows that many percentage points more, saying so (`scenario::HostShare`).
/// Measured on a 2-core VM with 13 % steal: 23 pp held back, work40 at 32.1 %.
const DUTY_TOLERANCE_PP: f64 = 1.5;

/// tick30 tolerance on the simulator, in percentage points, on a 2-window average.
///
/// tick30 keeps the CPU until 30 % of the wall time between the last two ticks has
/// passed since the tick that woke it (the tick hook takes the time), so the host's
/// latency in handing the CPU to its thread after the tick is inside its 30 %, not
/// added to it: the demo measures that latency (`tick30 status`) at 4 to 5 µs on
/// average on a quiet host, 15 to 30 µs at most, against a budget of about 300 µs.
/// What remains outside is the way out (vTaskDelay(), the switch to the next task,
/// well under a microsecond) and the host taking the core away from tick30's thread
/// in the middle of its 30 %: FreeRTOS, and so the library, charges that time to
/// tick30, and a stall that ends after its deadline lengthens it. Measured on a quiet
/// 2-core host: single windows 29.93 to 30.08 %, with rare ones up to +1.3 pp when the
/// host stalled the thread; with both cores busy with other work, single windows up
/// to +4.3 pp. The bound is the project's POSIX bound, 1.5 pp, which a quiet host
/// meets with a wide margin and which a busy one can break: the failure message then
/// quotes the demo's own latency figures.
const TICK30_TOLERANCE_PP: f64 = 1.5;

#[test]
fn demo_on_posix_simulator() {
    let sim = path_from_env("CPU_USAGE_SIM", "build/posix/freertos-sim");
    assert!(
        sim.is_file(),
        "the POSIX simulator {} does not exist: build it with `make sim` (or `make test-build`), \
         or point CPU_USAGE_SIM at one",
        sim.display()
    );

    let mut console = Console::spawn("POSIX simulator", Command::new(&sim));
    scenario::run(
        &mut console,
        Port {
            reply_secs: 10,
            boot_secs: 10,
            // The scenario takes about 20 s (a window is 1 s of host time).
            total_secs: 90,
            duty_tolerance_pp: DUTY_TOLERANCE_PP,
            tick30_tolerance_pp: TICK30_TOLERANCE_PP,
            host_time: true,
            // No peripherals on the simulator.
            irq: None,
            // The hosted default: CLOCK_MONOTONIC in 64 ns units.
            clock: ("monotonic", 15_625_000),
        },
    );
}
