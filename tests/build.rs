//! Builds the C side of the system tests from the same sources the simulator uses.
//!
//! - `libcu_kernel_posix.a`: the FreeRTOS kernel and its POSIX port, configured by
//!   `freertos-port/posix/FreeRTOSConfig.h` exactly as the simulator is, with empty
//!   stand-ins for the application hooks that configuration names (the demo's tick
//!   hook, the port's tickless sleep). `c_api_misuse` links its C program against it,
//!   only for the port's critical section (the scheduler never starts there).
//! - `libcu_cross_check.a`: the same kernel with its own run-time statistics on
//!   (`-DDEMO_RUN_TIME_STATS=1`, the `posix-rts` variant of `board.mk`), plus the demo
//!   and the POSIX port glue, whose `main` is renamed `posix_demo_main` so that the
//!   `kernel_cross_check` test (Rust) owns `main` and can set things up first.
//! - `kernel_api.rs`: bindgen's view of `task.h` under that second configuration, so
//!   `TaskStatus_t` has the layout the kernel was compiled with (its run-time counter
//!   is 64-bit there).
//!
//! The kernel's sources come from the `freertos-next` crate (`DEP_FREERTOS_KERNEL`).
//! Both archives go to their own directories under `OUT_DIR`: their object files have
//! the same names. Nothing is linked implicitly: each test names what it needs.

use std::env;
use std::path::{Path, PathBuf};

const KERNEL_SOURCES: &[&str] = &[
    "tasks.c",
    "queue.c",
    "list.c",
    "timers.c",
    "event_groups.c",
    "stream_buffer.c",
    "portable/MemMang/heap_3.c",
    "portable/ThirdParty/GCC/Posix/port.c",
    "portable/ThirdParty/GCC/Posix/utils/wait_for_event.c",
];

struct Paths {
    repo: PathBuf,
    kernel: PathBuf,
    posix_port: PathBuf,
    out: PathBuf,
}

impl Paths {
    fn includes(&self) -> [PathBuf; 5] {
        [
            self.repo.join("include"),
            self.repo.join("demo"),
            self.repo.join("freertos-port/posix"),
            self.kernel.join("include"),
            self.posix_port.clone(),
        ]
    }
}

/// A POSIX-port build with the simulator's include paths and flags. Our own C code is
/// held to zero warnings by the Makefile; here everything is built quietly, since a
/// warning in the kernel is not ours to fix and would only clutter test output.
fn posix_build(paths: &Paths, dir: &str) -> cc::Build {
    let out_dir = paths.out.join(dir);
    std::fs::create_dir_all(&out_dir).expect("cannot create a directory in OUT_DIR");
    let mut build = cc::Build::new();
    build
        .includes(paths.includes())
        .flag("-std=gnu11")
        .flag("-pthread")
        .opt_level(2)
        .debug(true)
        .warnings(false)
        .out_dir(out_dir)
        .cargo_metadata(false);
    for file in KERNEL_SOURCES {
        build.file(paths.kernel.join(file));
    }
    build
}

fn main() {
    let repo = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap()).join("..");
    let kernel = PathBuf::from(
        env::var("DEP_FREERTOS_KERNEL")
            .expect("DEP_FREERTOS_KERNEL is not set: the freertos-next dependency exports it"),
    );
    assert!(kernel.join("tasks.c").is_file(), "no FreeRTOS kernel at {} (DEP_FREERTOS_KERNEL)", kernel.display());
    let paths = Paths {
        posix_port: kernel.join("portable/ThirdParty/GCC/Posix"),
        kernel,
        repo,
        out: PathBuf::from(env::var("OUT_DIR").unwrap()),
    };

    for dir in ["demo", "freertos-port/posix", "include", "tests/c"] {
        println!("cargo:rerun-if-changed={}", paths.repo.join(dir).display());
    }
    println!("cargo:rerun-if-changed=build.rs");

    // The application hooks the configuration names, which the demo provides elsewhere.
    posix_build(&paths, "kernel-posix")
        .file(paths.repo.join("tests/c/kernel_posix_app_hooks.c"))
        .compile("cu_kernel_posix");

    // Every C file of the demo and of the POSIX board (demo/*.c, freertos-port/posix/*.c, as
    // board.mk builds them), sorted so that the archive does not depend on the
    // directories' order.
    let c_files_in = |dir: &str| {
        let mut files: Vec<PathBuf> = std::fs::read_dir(paths.repo.join(dir))
            .unwrap_or_else(|e| panic!("{dir}: {e}"))
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "c"))
            .collect();
        files.sort();
        files
    };
    posix_build(&paths, "cross-check")
        .define("DEMO_RUN_TIME_STATS", "1")
        .define("main", "posix_demo_main")
        .files(c_files_in("demo"))
        .files(c_files_in("freertos-port/posix"))
        .compile("cu_cross_check");

    // The demo's POSIX glue disposes of deleted tasks' threads with the scheduler
    // suspended (freertos-port/posix/main.c, __wrap_vPortCancelThread): without it,
    // heavy churn deadlocks on glibc's thread-stack lock.
    println!("cargo:rustc-link-arg-tests=-Wl,--wrap=vPortCancelThread");

    for dir in ["kernel-posix", "cross-check"] {
        println!("cargo:rustc-link-search=native={}", paths.out.join(dir).display());
    }
    // The C API test links its own program against this archive at run time.
    println!("cargo:rustc-env=CU_KERNEL_POSIX_LIB={}", paths.out.join("kernel-posix/libcu_kernel_posix.a").display());
    println!("cargo:rustc-env=CU_KERNEL_INCLUDE={}", paths.kernel.join("include").display());
    println!("cargo:rustc-env=CU_POSIX_PORT_INCLUDE={}", paths.posix_port.display());

    generate_bindings(&paths, &paths.out.join("kernel_api.rs"));
}

/// Rust declarations for the parts of `task.h` the cross-check calls, under the
/// run-time-stats configuration the `cu_cross_check` archive was compiled with.
fn generate_bindings(paths: &Paths, dest: &Path) {
    let mut builder = bindgen::Builder::default()
        .header_contents("kernel_api.h", "#include \"FreeRTOS.h\"\n#include \"task.h\"\n#include \"demo.h\"\n")
        .clang_arg("-DDEMO_RUN_TIME_STATS=1")
        .clang_arg("-std=gnu11")
        .allowlist_type("TaskStatus_t")
        .allowlist_var("configMAX_PRIORITIES")
        .allowlist_var("configMINIMAL_STACK_SIZE")
        .allowlist_var("pdPASS")
        .use_core()
        .layout_tests(true)
        .generate_comments(false);
    for function in [
        "uxTaskGetSystemState",
        "uxTaskGetNumberOfTasks",
        "uxTaskGetTaskNumber",
        "xTaskCreate",
        "vTaskDelay",
        "vTaskDelete",
        "vTaskSuspendAll",
        "xTaskResumeAll",
        "vTaskStartScheduler",
        "ullMainRunTimeCounterNs",
        "port_exit",
    ] {
        builder = builder.allowlist_function(function);
    }
    for dir in paths.includes() {
        builder = builder.clang_arg(format!("-I{}", dir.display()));
    }
    builder
        .generate()
        .expect("bindgen could not read task.h (is libclang installed? scripts/setup.sh installs libclang-dev)")
        .write_to_file(dest)
        .expect("cannot write the kernel bindings");
}
