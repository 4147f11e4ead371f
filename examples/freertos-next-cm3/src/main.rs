//! freertos-cpu-usage in a Rust application on freertos-next, on a Cortex-M3 (QEMU's
//! mps2-an385): three tasks burn known shares of the CPU, and a fourth prints what the
//! library measured, through its Rust API, then ends the run.
//!
//! - `work10`, `work25`, `work40` wake every 10 ms and burn 10, 25 and 40 % of the
//!   time since their previous activation, timed by a clock of their own (TIMER1), as
//!   the C demo's workloads do (`demo/workloads.c`). They all wake at the same tick,
//!   each at a priority of its own, so each runs its burn whole, one after the other,
//!   and nothing but an interrupt takes the CPU from a burn: its time is the task's
//!   own, apart from the tick interrupts inside it, which the library charges to the
//!   interrupts line. (Tasks of one priority would share the CPU tick by tick, the
//!   kernel's time slicing being on by default, and each would burn the others' time
//!   as its own.) The three burns end 7.5 ms into each 10 ms, so a 100 ms window, which
//!   starts and ends on a tick, holds exactly ten whole activations of each.
//! - `report`, below them, prints [`REPORTS`] windows after a warm-up window (the first
//!   window holds the start-up), half a window after each one ends: the window as
//!   `show_cpu_usage -m` prints it ([`Report::json`]), then the same window read as
//!   Rust values ([`Usage::read_last_window`]) on one line. Then it ends the QEMU run with
//!   exit status 0.
//!
//! What it prints (tests/tests/rust_example_cm3.rs reads it):
//!
//! ```text
//! freertos-next-cm3: window 100 ms, clock 25000000 Hz
//! task work10 id 1
//! ...
//! {"mode":"window","window":1,...}
//! window 1: work10 10.08%, work25 25.03%, work40 39.94%, report 0.00%, idle 24.40%, interrupts 0.55%, load 75.60%
//! ...
//! done
//! ```
//!
//! A failure prints `error: ...` or `panic: ...` and ends the run with a status other
//! than 0 (1: an API call failed; 101: a panic, a kernel assertion or a stack overflow;
//! 102: a fault).

#![no_std]
#![no_main]

mod board;

use core::ffi::{c_char, c_void, CStr};
use core::fmt::Write;

use cortex_m_rt::{entry, exception, ExceptionFrame};
use freertos_cpu_usage::api::{self, Report, Usage};
use freertos_next::{Duration, FreeRtosAllocator, FreeRtosUtils, Task, TaskDelay, TaskPriority};

use board::Uart0;

/// Tasks, their stacks and the kernel's objects come from the kernel's heap
/// (`heap_size` in build.rs).
#[global_allocator]
static HEAP: FreeRtosAllocator = FreeRtosAllocator;

/// The library's window, in milliseconds.
const WINDOW_MS: u32 = 100;

/// The workloads' period, in milliseconds: a window holds whole periods.
const PERIOD_MS: u32 = 10;

/// Windows left alone before the first report: the first one holds the start-up.
const WARMUP_WINDOWS: u32 = 1;

/// Windows reported.
const REPORTS: u32 = 3;

const _: () = assert!(WINDOW_MS.is_multiple_of(PERIOD_MS), "a window must hold whole periods");

/// A task that burns a share of the CPU.
struct Workload {
    name: &'static str,
    duty_pct: u32,
    priority: u8,
}

/// The workloads: 75 % of each period in all. (The kernel's priorities: 0 for the
/// idle task up to 4, `max_task_priorities`' default 5 less one.)
const WORKLOADS: [Workload; 3] = [
    Workload { name: "work10", duty_pct: 10, priority: 4 },
    Workload { name: "work25", duty_pct: 25, priority: 3 },
    Workload { name: "work40", duty_pct: 40, priority: 2 },
];

const REPORT_PRIORITY: u8 = 1;

/// In words. A workload only burns. The reporter: the JSON report some 800 bytes;
/// its [`Usage`] (1792 bytes with the default 32 task IDs) is not on its stack but in
/// [`USAGE`], read in place.
const WORKLOAD_STACK_WORDS: u16 = 512;
const REPORT_STACK_WORDS: u16 = 512;

/// The reporter's figures, refreshed in place each window (`Usage::read_last_window`):
/// a `Usage` returned by `Usage::last_window()` would be copied on the way, on the
/// reporter's stack.
static mut USAGE: Usage = Usage::EMPTY;

#[entry]
fn main() -> ! {
    board::start_cycle_counter();
    let mut uart = Uart0::new();
    // Before the scheduler starts, the windows have not: the first is this long.
    api::set_window_ms(WINDOW_MS).unwrap_or_else(|e| fail(format_args!("set_window_ms({WINDOW_MS}): {e}")));
    let _ = writeln!(uart, "freertos-next-cm3: window {} ms, clock {} Hz", api::window_ms(), board::SYSCLK_HZ);

    for work in WORKLOADS {
        let task = Task::new()
            .name(work.name)
            .stack_size(WORKLOAD_STACK_WORDS)
            .priority(TaskPriority(work.priority))
            .start(move |_| burn_share(work.duty_pct))
            .unwrap_or_else(|e| fail(format_args!("creating {}: {e:?}", work.name)));
        // The library keeps each task's ID where the trace facility has room for one:
        // the kernel's task number, which is what `get_id` reads (so an application
        // must not `set_id`). It is the ID the reports give the task.
        let id = task.get_id().unwrap_or_else(|e| fail(format_args!("{} has no ID: {e:?}", work.name)));
        let _ = writeln!(uart, "task {} id {id}", work.name);
    }
    Task::new()
        .name("report")
        .stack_size(REPORT_STACK_WORDS)
        .priority(TaskPriority(REPORT_PRIORITY))
        .start(|_| report())
        .unwrap_or_else(|e| fail(format_args!("creating report: {e:?}")));

    FreeRtosUtils::start_scheduler()
}

/// A workload: every [`PERIOD_MS`], burns `duty_pct` % of the time since its previous
/// activation, measured on TIMER1, so that its share stays right whatever the period
/// turns out to be.
fn burn_share(duty_pct: u32) -> ! {
    let mut wake = TaskDelay::new();
    let mut previous = board::cycles();
    loop {
        wake.delay_until(Duration::ms(PERIOD_MS));
        let now = board::cycles();
        let owed = u64::from(now.wrapping_sub(previous)) * u64::from(duty_pct) / 100;
        // (At most the 2^32 cycles TIMER1 counts: it fits.)
        burn(owed as u32);
        previous = now;
    }
}

/// Keeps the CPU for `cycles` of the system clock.
fn burn(cycles: u32) {
    let start = board::cycles();
    while board::cycles().wrapping_sub(start) < cycles {}
}

/// The reporter: [`REPORTS`] windows, each half a window after it ended, then the end
/// of the run.
fn report() -> ! {
    let mut uart = Uart0::new();
    let mut wake = TaskDelay::new();
    // The scheduler started at tick 0 and this task runs first at tick 0 too: window
    // `WARMUP_WINDOWS` ends at ((WARMUP_WINDOWS + 1) * WINDOW_MS) ms.
    wake.delay_until(Duration::ms((WARMUP_WINDOWS + 1) * WINDOW_MS + WINDOW_MS / 2));
    for n in 0..REPORTS {
        if n > 0 {
            wake.delay_until(Duration::ms(WINDOW_MS));
        }
        Report::json().write_to(&mut uart).unwrap_or_else(|e| fail(format_args!("report: {e}")));
        // SAFETY: this task is the only one that touches USAGE.
        let usage = unsafe { &mut *core::ptr::addr_of_mut!(USAGE) };
        usage.read_last_window().unwrap_or_else(|e| fail(format_args!("read_last_window: {e}")));
        print_usage(&mut uart, usage);
    }
    let _ = writeln!(uart, "done");
    board::exit(0)
}

/// One line: the window's number, each task's share, idle, interrupts and load.
fn print_usage(out: &mut impl Write, usage: &Usage) {
    let _ = write!(out, "window {}:", usage.window());
    for task in usage.tasks() {
        let _ = write!(out, " {} {},", task.name(), task.share());
    }
    let _ = writeln!(
        out,
        " idle {}, interrupts {}, load {}",
        usage.idle().share(),
        usage.interrupts().share(),
        usage.load()
    );
}

/// Says what failed and ends the run with status 1.
fn fail(what: core::fmt::Arguments) -> ! {
    let _ = writeln!(Uart0::new(), "error: {what}");
    board::exit(1)
}

/// This application's panic handler: the library has none (its C archive's feature
/// `panic-handler` is off in a Rust dependency). freertos-next's `configASSERT` panics
/// too.
#[panic_handler]
fn panic(info: &core::panic::PanicInfo) -> ! {
    cortex_m::interrupt::disable();
    let _ = writeln!(Uart0::new(), "panic: {info}");
    board::exit(101)
}

/// The kernel found a task's stack overflowed (`check_for_stack_overflow` in build.rs).
#[no_mangle]
extern "C" fn vApplicationStackOverflowHook(_task: *mut c_void, name: *const c_char) {
    // SAFETY: the kernel passes the task's name, a C string in its TCB (which the
    // overflow may have damaged: the name is printed only if it is still text).
    let name = unsafe { CStr::from_ptr(name) }.to_str().unwrap_or("?");
    panic!("stack overflow in task {name}");
}

#[exception]
unsafe fn HardFault(frame: &ExceptionFrame) -> ! {
    let _ = writeln!(Uart0::new(), "panic: HardFault at pc {:#010x}", frame.pc());
    board::exit(102)
}

#[exception]
unsafe fn DefaultHandler(irqn: i16) {
    let _ = writeln!(Uart0::new(), "panic: unexpected exception {irqn}");
    board::exit(102)
}
