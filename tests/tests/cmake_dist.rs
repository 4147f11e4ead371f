//! The CMake applications (`examples/cmake-posix`, `examples/cmake-cm3`), each built
//! with FreeRTOS-Kernel's own CMake (`FREERTOS_PORT` `GCC_POSIX`, `GCC_ARM_CM3`) in both
//! ways a C project takes the library:
//!
//! - **prebuilt**: the tarball `make dist` wrote (`build/dist/`), of which what the
//!   application takes is unpacked here and checked against `SHA256SUMS`, found with `find_package(freertos_cpu_usage)`; CMake, make and
//!   the compilers run with an environment of nothing but a `PATH` from which every
//!   directory holding `cargo` or `rustc` is removed (checked: neither is found on it,
//!   and the CMake cache names no cargo);
//! - **from the sources**: `add_subdirectory()` of this repository, whose CMakeLists.txt
//!   runs cargo (the trace build, in the repository's `target/`, where `make test-build`
//!   left it up to date).
//!
//! Each application then runs, the POSIX one natively, the Cortex-M3 one on QEMU's
//! mps2-an385 under `-icount` (the board's `QEMU_CMD_ICOUNT`), and must end with status 0
//! after printing its windows as JSON (`show_cpu_usage -m`, each read with the report
//! contract: `parse_exact`), the last one as the shell's table, and the same window read
//! with `cpu_usage_snapshot()`, whose shares must be the JSON's.
//!
//! On the Cortex-M3, where both clocks are guest time, each workload must be within
//! [`CM3_DUTY_TOLERANCE_PP`] of its duty in every window. On the POSIX port the test
//! holds the figures to the contract but not to the duties: the port's tick runs slower
//! than the wall clock, and the host's load moves the shares (the simulator's own tests
//! measure that; this one is about the build).
//!
//! A build that fails, a tool missing, or a run that does not end is a failure, never a
//! skip.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use freertos_cpu_usage_report::{parse_exact, pct_text, Report, Window};
use freertos_cpu_usage_tests::{qemu, repo_root, run};

/// Host time limits, in seconds: unpacking, a CMake configuration, a build (the kernel
/// and the application: a few seconds; with a cold cargo build of the library from
/// the sources, a minute or two on two busy cores), and a run (about 1 s; the POSIX
/// application's three 250 ms windows, the Cortex-M3's four 100 ms windows of guest
/// time).
const UNPACK_SECS: u64 = 120;
const CONFIGURE_SECS: u64 = 120;
const BUILD_SECS: u64 = 900;
const RUN_SECS: u64 = 60;

/// The workloads both applications run, and their duties in percent.
const WORKLOADS: [(&str, f64); 3] = [("work10", 10.0), ("work25", 25.0), ("work40", 40.0)];

/// Duty tolerance on the Cortex-M3, in percentage points, in every window: as for the
/// other Cortex-M3 applications under `-icount` (`tests/tests/rust_example_cm3.rs`):
/// each window holds ten whole activations of each workload, timed by TIMER1 at the
/// core clock, and the workloads sit above the reporter, which never delays one;
/// measured +0.06, +0.06 and −0.08 pp.
const CM3_DUTY_TOLERANCE_PP: f64 = 1.0;

/// The Cortex-M3's clock (mps2-an385's 25 MHz), at which the library's SysTick-extended
/// clock counts (QEMU's DWT does not count).
const CM3_CLOCK_HZ: u64 = 25_000_000;

/// How the application takes the library.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Way {
    /// `find_package` on the unpacked tarball, with no cargo on `PATH`.
    Prebuilt,
    /// `add_subdirectory` of the repository, built with cargo.
    Sources,
}

/// The version the tarball is named by: the library's, from its Cargo.toml.
fn version() -> String {
    let manifest = std::fs::read_to_string(repo_root().join("Cargo.toml")).expect("the library's Cargo.toml");
    manifest
        .lines()
        .find_map(|l| l.strip_prefix("version = \"")?.strip_suffix('"'))
        .expect("a version line in Cargo.toml")
        .to_owned()
}

/// The FreeRTOS-Kernel directory of the freertos-next crate (the tests' build script
/// gives its include directory).
fn kernel_dir() -> PathBuf {
    Path::new(env!("CU_KERNEL_INCLUDE")).parent().expect("the kernel's include directory has a parent").to_path_buf()
}

/// `PATH` without the directories that hold cargo or rustc.
fn path_without_rust() -> OsString {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let kept: Vec<PathBuf> =
        std::env::split_paths(&path).filter(|dir| !dir.join("cargo").exists() && !dir.join("rustc").exists()).collect();
    let joined = std::env::join_paths(&kept).expect("PATH entries join again");
    for tool in ["cargo", "rustc"] {
        assert!(
            !std::env::split_paths(&joined).any(|dir| dir.join(tool).exists()),
            "{tool} is still on the PATH meant to have none"
        );
    }
    for tool in ["cmake", "make", "cc", "arm-none-eabi-gcc"] {
        assert!(
            std::env::split_paths(&joined).any(|dir| dir.join(tool).exists()),
            "{tool} is not on PATH (scripts/setup.sh installs it)"
        );
    }
    joined
}

/// Unpacks, into a directory of the test's own, what an application of Rust target
/// `target` takes from the tarball (the headers, the CMake package and the target's
/// default archive: not the whole tree, which is the tarball's size again), checks
/// those files' checksums, and returns the tree.
fn unpack(name: &str, target: &str) -> PathBuf {
    let version = version();
    let tarball = repo_root().join(format!("build/dist/freertos-cpu-usage-{version}.tar.gz"));
    assert!(tarball.is_file(), "no {} (make dist writes it; make test builds it first)", tarball.display());
    let dir = repo_root().join("build/cmake-dist").join(name).join("unpacked");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a directory to unpack into");
    let top = format!("freertos-cpu-usage-{version}");
    let mut tar = Command::new("tar");
    tar.arg("-xzf").arg(&tarball).arg("-C").arg(&dir).args([
        format!("{top}/SHA256SUMS"),
        format!("{top}/include"),
        format!("{top}/lib/cmake"),
        format!("{top}/lib/{target}/default"),
    ]);
    let out = run(tar, UNPACK_SECS).unwrap_or_else(|e| panic!("unpacking {}: {e}", tarball.display()));
    assert!(out.status.success(), "tar -xzf {} failed:\n{}", tarball.display(), out.stderr);
    let tree = dir.join(top);
    let mut sums = Command::new("sha256sum");
    sums.args(["--quiet", "--strict", "--ignore-missing", "-c", "SHA256SUMS"]).current_dir(&tree);
    let out = run(sums, UNPACK_SECS).unwrap_or_else(|e| panic!("sha256sum -c: {e}"));
    assert!(out.status.success(), "the tarball's SHA256SUMS do not match:\n{}{}", out.stdout, out.stderr);
    tree
}

/// Configures and builds `example` (a directory of examples/) the given way with the
/// given extra CMake options, in build/cmake-dist/<name>; returns the build directory.
fn build(example: &str, name: &str, target: &str, way: Way, options: &[String]) -> PathBuf {
    let build_dir = repo_root().join("build/cmake-dist").join(name).join("build");
    let _ = std::fs::remove_dir_all(&build_dir);
    let mut configure_args = vec![
        "-S".to_owned(),
        repo_root().join("examples").join(example).display().to_string(),
        "-B".to_owned(),
        build_dir.display().to_string(),
        format!("-DFREERTOS_KERNEL_PATH={}", kernel_dir().display()),
    ];
    configure_args.extend(options.iter().cloned());
    let environment = |cmd: &mut Command| match way {
        Way::Prebuilt => {
            cmd.env_clear().env("PATH", path_without_rust()).env("LANG", "C");
        }
        Way::Sources => {}
    };
    match way {
        Way::Prebuilt => {
            let tree = unpack(name, target);
            configure_args.push(format!("-DCMAKE_PREFIX_PATH={}", tree.display()));
        }
        Way::Sources => {
            let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
            configure_args.push(format!("-DFREERTOS_CPU_USAGE_SOURCE_DIR={}", repo_root().display()));
            configure_args.push(format!("-DFREERTOS_CPU_USAGE_CARGO={cargo}"));
            configure_args
                .push(format!("-DFREERTOS_CPU_USAGE_CARGO_TARGET_DIR={}", repo_root().join("target").display()));
            configure_args.push("-DFREERTOS_CPU_USAGE_BUILD=trace".to_owned());
        }
    }

    let started = Instant::now();
    let mut configure = Command::new("cmake");
    configure.args(&configure_args);
    environment(&mut configure);
    let out = run(configure, CONFIGURE_SECS).unwrap_or_else(|e| panic!("cmake (configure) {example}: {e}"));
    assert!(out.status.success(), "configuring {example} ({way:?}) failed:\n{}{}", out.stdout, out.stderr);
    let found = if way == Way::Prebuilt { "prebuilt" } else { "from the sources with cargo" };
    assert!(
        out.stdout.lines().any(|l| l.starts_with("-- freertos_cpu_usage ") && l.ends_with(found)),
        "configuring {example}: no `-- freertos_cpu_usage ...{found}` line:\n{}",
        out.stdout
    );
    if way == Way::Prebuilt {
        let cache = std::fs::read_to_string(build_dir.join("CMakeCache.txt")).expect("the CMake cache");
        assert!(!cache.contains("FREERTOS_CPU_USAGE_CARGO"), "the prebuilt configuration looked for cargo");
    }

    let mut make = Command::new("cmake");
    make.arg("--build").arg(&build_dir);
    environment(&mut make);
    let out = run(make, BUILD_SECS).unwrap_or_else(|e| panic!("cmake --build {example}: {e}"));
    assert!(out.status.success(), "building {example} ({way:?}) failed:\n{}{}", out.stdout, out.stderr);
    println!("{example} ({way:?}) configured and built in {:.1} s", started.elapsed().as_secs_f64());
    build_dir
}

/// What an application printed, with checks whose failure shows all of it.
struct Output {
    name: String,
    text: String,
    lines: Vec<String>,
}

impl Output {
    fn new(name: &str, text: String) -> Self {
        let text = text.replace('\r', "");
        Output { name: name.to_owned(), lines: text.lines().map(str::to_owned).collect(), text }
    }

    fn fail(&self, what: &str) -> ! {
        panic!("{}: {what}\n--- what it printed ---\n{}", self.name, self.text)
    }

    fn check(&self, ok: bool, what: impl FnOnce() -> String) {
        if !ok {
            self.fail(&what());
        }
    }

    /// The JSON windows, in the order printed, each read with the report contract.
    fn windows(&self) -> Vec<Window> {
        self.lines
            .iter()
            .filter(|l| l.starts_with('{'))
            .map(|line| match parse_exact(line) {
                Ok(Report::Window(w)) => *w,
                Ok(other) => self.fail(&format!("not a window report: {other:?}")),
                Err(e) => self.fail(&format!("a report breaks the contract: {e}\n{line}")),
            })
            .collect()
    }

    /// The common end of both applications: the header line, the windows `first..` in
    /// a row, each with the workloads and the idle task, the last as the shell's table
    /// and as `cpu_usage_snapshot()` gives it (the same shares), then `done`.
    fn check_common(&self, head: &str, first: u64, windows: usize, window_ms: u64) -> Vec<Window> {
        self.check(self.lines.first().is_some_and(|l| l.starts_with(head)), || {
            format!("the first line is not {head}...")
        });
        self.check(self.lines.last().is_some_and(|l| l == "done"), || "the last line is not `done`".into());
        let ws = self.windows();
        self.check(ws.len() == windows, || format!("{} windows printed, expected {windows}", ws.len()));
        for (i, w) in ws.iter().enumerate() {
            let n = first + i as u64;
            self.check(w.window == n, || format!("window {} printed where {n} was due", w.window));
            self.check(w.window_us == window_ms * 1000, || {
                format!("window {n}: {} us, expected {window_ms} ms", w.window_us)
            });
            for (name, _) in WORKLOADS.iter().chain(&[("reporter", 0.0)]) {
                self.check(w.task(name).is_some(), || format!("window {n}: no task {name}"));
            }
            self.check(w.idle.as_ref().is_some_and(|i| i.name == "IDLE"), || format!("window {n}: no IDLE line"));
        }
        let last = ws.last().expect("windows were printed");
        let table = format!("CPU usage, window #{}: {window_ms}.000 ms", last.window);
        self.check(self.lines.iter().any(|l| l.starts_with(&table)), || format!("no table starting {table:?}"));

        // The snapshot of the same window: every task, the idle task among them in ID
        // order, with the JSON's shares, then the load.
        let mut rows: Vec<(u32, String, f64)> =
            last.tasks.iter().map(|t| (t.id, t.name.clone(), t.usage_pct)).collect();
        if let Some(idle) = &last.idle {
            rows.push((idle.id, idle.name.clone(), last.idle_pct));
        }
        rows.sort_by_key(|r| r.0);
        let mut expected: Vec<String> =
            rows.iter().map(|(_, name, pct)| format!("snapshot: {name} {}%", pct_text(*pct))).collect();
        expected.push(format!("snapshot: load {}% of window {}", pct_text(last.load_pct), last.window));
        let snapshot: Vec<String> = self.lines.iter().filter(|l| l.starts_with("snapshot: ")).cloned().collect();
        self.check(snapshot == expected, || {
            format!("cpu_usage_snapshot() gave\n  {snapshot:?}\nbut the window's JSON gives\n  {expected:?}")
        });
        ws
    }
}

/// examples/cmake-posix, built the given way, run natively.
fn posix(way: Way) {
    let name = format!("posix-{way:?}").to_lowercase();
    // This host's target (the tests run on Linux, as the POSIX port does).
    let host = format!("{}-unknown-linux-gnu", std::env::consts::ARCH);
    let build_dir = build("cmake-posix", &name, &host, way, &[]);
    let started = Instant::now();
    let app = build_dir.join("cpu-usage-posix");
    let finished = run(Command::new(&app), RUN_SECS).unwrap_or_else(|e| panic!("{}: {e}", app.display()));
    println!("{} ran in {:.2} s", app.display(), started.elapsed().as_secs_f64());
    let out = Output::new(&name, finished.stdout);
    out.check(finished.status.success(), || {
        format!("it exited with {}\n--- stderr ---\n{}", finished.status, finished.stderr)
    });
    let ws = out.check_common("cmake-posix: window 250 ms, library ", 1, 3, 250);
    for w in &ws {
        out.check(w.clock == "monotonic", || format!("window {}: clock {}, expected monotonic", w.window, w.clock));
    }
}

/// examples/cmake-cm3, built the given way with its toolchain file, run on QEMU.
fn cm3(way: Way) {
    let name = format!("cm3-{way:?}").to_lowercase();
    let toolchain = repo_root().join("examples/cmake-cm3/arm-none-eabi.cmake");
    let build_dir = build(
        "cmake-cm3",
        &name,
        "thumbv7m-none-eabi",
        way,
        &[format!("-DCMAKE_TOOLCHAIN_FILE={}", toolchain.display())],
    );
    let image = build_dir.join("cpu-usage-cm3.elf");
    let words = qemu::icount_command_words("mps2-an385", &image);
    let mut cmd = Command::new(&words[0]);
    cmd.args(&words[1..]).current_dir(repo_root());
    let started = Instant::now();
    let finished = run(cmd, RUN_SECS).unwrap_or_else(|e| panic!("{name} under QEMU: {e}"));
    println!("{name} ran in {:.2} s on QEMU", started.elapsed().as_secs_f64());
    let out = Output::new(&name, finished.stdout);
    out.check(finished.status.code() == Some(0), || {
        format!(
            "QEMU exited with {} (0: the application ran to its end)\n--- stderr ---\n{}",
            finished.status, finished.stderr
        )
    });
    let ws = out.check_common("cmake-cm3: window 100 ms, library ", 2, 3, 100);
    for w in &ws {
        let n = w.window;
        out.check(
            (w.clock.as_str(), w.clock_hz, w.window_counts) == ("systick", CM3_CLOCK_HZ, CM3_CLOCK_HZ / 10),
            || {
                format!(
                    "window {n}: {} counts of {} at {} Hz; expected 100 ms of systick at 25 MHz",
                    w.window_counts, w.clock, w.clock_hz
                )
            },
        );
        for (task, duty) in WORKLOADS {
            let t = w.task(task).expect("checked above");
            println!("{name} window {n}: {task} {:.2} % (duty {duty} %), {} runs", t.usage_pct, t.switches);
            out.check((t.usage_pct - duty).abs() <= CM3_DUTY_TOLERANCE_PP, || {
                format!(
                    "window {n}: {task} at {:.2} %, more than {CM3_DUTY_TOLERANCE_PP} pp from {duty} %",
                    t.usage_pct
                )
            });
            out.check(t.switches == 10, || {
                format!("window {n}: {task} ran {} times, expected its 10 activations", t.switches)
            });
        }
        // The 1 kHz tick (101 if one straddles the window's end).
        out.check((100..=101).contains(&w.interrupts), || {
            format!("window {n}: {} interrupts, expected the 100 ticks", w.interrupts)
        });
    }
}

#[test]
fn posix_application_with_the_prebuilt_archive_and_no_cargo() {
    posix(Way::Prebuilt);
}

#[test]
fn cortex_m3_application_with_the_prebuilt_archive_and_no_cargo() {
    cm3(Way::Prebuilt);
}

#[test]
fn posix_application_with_the_library_from_its_sources() {
    posix(Way::Sources);
}

#[test]
fn cortex_m3_application_with_the_library_from_its_sources() {
    cm3(Way::Sources);
}

/// The table from FreeRTOS-Kernel's port names and the compile flags to the Rust
/// targets, which both ways use (`cmake/freertos_cpu_usage_rust_target.cmake`), row by
/// row (`tests/cmake/rust_target.cmake`: every core of the README's table, hard and
/// soft float, RV32 with and without the A extension, the override).
#[test]
fn each_freertos_port_takes_its_cores_archive() {
    let mut cmd = Command::new("cmake");
    cmd.arg("-P").arg(repo_root().join("tests/cmake/rust_target.cmake"));
    let out = run(cmd, CONFIGURE_SECS).unwrap_or_else(|e| panic!("cmake -P tests/cmake/rust_target.cmake: {e}"));
    assert!(out.status.success(), "a row of the port table is wrong:\n{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("rows agree"), "the table's script ended without its verdict:\n{}", out.stdout);
}
