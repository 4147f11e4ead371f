//! The demo on the FreeRTOS POSIX simulator, end to end: see `scenario` for the
//! conversation and its checks.
//!
//! The simulator is `build/posix/freertos-sim` (built by `make sim`), or the file
//! named by `CPU_USAGE_SIM`. A missing binary is a failure, never a skip.

use std::process::Command;

use freertos_cpu_usage_tests::{boards, scenario};
use freertos_cpu_usage_tests::{path_from_env, Console};

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
    scenario::run(&mut console, boards::POSIX);
}
