//! Random sequences of the whole C API: the kernel's hooks (create with random or
//! NULL names and TCBs, delete and switch-in with random IDs, tick, scheduler
//! start), the window, a clock the input drives (small steps, whole windows, wraps,
//! huge jumps), the output, `show_cpu_usage` and `cpu_usage_format`.
//!
//! Next to the library runs a small model of what the documentation promises: which
//! IDs are alive, which task is running, which deleted itself and still runs, how
//! many tasks share ID 0, the window and clock in force, the windows closed
//! (`Windows`: where each ends, how long it is). After every step:
//! - every status is a documented code, and the one the model expects;
//! - `-m` (when a window has completed, and only then) and `-c -m` pass the report
//!   report's contract (`check_json_of`, the `freertos_cpu_usage_report` crate's
//!   types and invariants): the lines add up to `window_counts`/`uptime_counts`
//!   exactly, `used + quarantined + free == capacity`, no two lines with one ID;
//! - the window report is the last window closed (its number and length), the
//!   since-start report every window closed, to the end of the last; with the
//!   counts of the window under way, that is exactly the counts between the
//!   library's clock readings (no time lost or invented, across wraps and stalls);
//! - since start it shows exactly the tasks the model has alive (a task that deleted
//!   itself and still runs is summed with the deleted ones, unless it is the idle
//!   task), under their names; `used` (the dying task's ID included) and
//!   `overflow_tasks` agree; a create never returns an ID in use, nor 0 while the
//!   pool had a free ID;
//! - `show_cpu_usage` prints exactly what `cpu_usage_format` returns.
//!
//! At the end of an input every task it left is deleted and the pool must be whole.
//!
//! The clock moves at most 2^31 counts between two readings of the library (a stall
//! longer than any window, but no nearer a whole wrap): a step of more than 2^32
//! minus the counts already in the window is taken for a step back (fuzz/README.md,
//! findings). `FUZZ_API_FULL_WRAP=1` lifts that limit, up to a whole wrap.

#![no_main]

use std::collections::BTreeMap;

use arbitrary::Arbitrary;
use freertos_cpu_usage::ffi::*;
use freertos_cpu_usage_fuzz::*;
use libfuzzer_sys::fuzz_target;

/// A task ID as the input picks it.
#[derive(Arbitrary, Debug, Clone, Copy)]
enum Id {
    /// One this input created (by index, wrapping).
    Mine(u8),
    /// Around the valid range: 0, live IDs, just past the capacity.
    Small(u8),
    Any(u32),
}

/// A clock step.
#[derive(Arbitrary, Debug, Clone, Copy)]
enum Step {
    Counts(u16),
    Thousands(u16),
    /// Whole windows of the length in force, plus a little.
    Windows(u8, u8),
    /// Anything, up to a whole wrap of the counter.
    Jump(u32),
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum WindowMs {
    Ms(u16),
    Zero,
    Hour,
    PastHour,
    Any(u32),
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Hz {
    Usual(u8),
    Any(u32),
}

#[derive(Arbitrary, Debug)]
enum Op {
    Create { null_tcb: bool, name: TaskName },
    Delete { null_tcb: bool, id: Id },
    SwitchIn(Id),
    Tick,
    Advance(Step),
    SchedulerStart { idle: Id, hz: u32 },
    SetWindow(WindowMs),
    SetClock { null: bool, hz: Hz },
    SetOutput { null: bool },
    Show(Argv),
    Format(Argv, BufLen),
}

#[derive(Arbitrary, Debug)]
struct Input {
    start: u32,
    ops: Vec<Op>,
}

struct Model {
    hz: u32,
    window_ms: u32,
    /// The windows the library must have closed.
    windows: Windows,
    /// Live tasks and the names they were given (as kept).
    alive: BTreeMap<u32, Vec<u8>>,
    /// A task that deleted itself, with its name: its ID is used until the next
    /// switch-in (its last slice runs until then).
    dying: Option<(u32, Vec<u8>)>,
    /// The live task switched in last, if it was one (an ID that is not a live
    /// task's runs on ID 0).
    running: Option<u32>,
    overflow: u32,
    idle: u32,
    /// IDs this input created.
    mine: Vec<u32>,
    /// `slots.free` of the last report.
    free: u64,
}

impl Model {
    fn new() -> Model {
        Model {
            hz: BASE_HZ,
            window_ms: 1000,
            windows: Windows::new(window_counts(1000, BASE_HZ).unwrap_or(0)),
            alive: BTreeMap::new(),
            dying: None,
            // `reset` switches in ID 0.
            running: None,
            overflow: 0,
            idle: 0,
            mine: Vec::new(),
            free: MAX_TASKS as u64,
        }
    }

    fn id(&self, id: Id) -> u32 {
        match id {
            Id::Mine(i) if !self.mine.is_empty() => self.mine[usize::from(i) % self.mine.len()],
            Id::Mine(i) => u32::from(i),
            Id::Small(i) => u32::from(i) % (MAX_TASKS as u32 + 3),
            Id::Any(i) => i,
        }
    }

    /// A hook is about to read the clock: it closes the window under way if that
    /// has ended.
    fn hook(&mut self) {
        self.windows.hook();
    }

    /// Figures restart at the current reading.
    fn restart(&mut self) {
        self.windows.restart();
    }

    /// `show_cpu_usage` and `cpu_usage_format` apply a `-w` of a report (not with
    /// `-h`, nor with `-f`, refused before it), if valid at the clock in force.
    fn apply_w(&mut self, argv: &Argv) {
        let Expect::Report(opts) = argv.expect() else { return };
        if let (Some(ms), false, None) = (opts.window_ms, opts.help, opts.follow) {
            if let Some(counts) = window_counts(ms, self.hz) {
                self.window_ms = ms;
                self.windows.len = counts;
            }
        }
    }

    fn step(&mut self, op: &Op) {
        // SAFETY: hooks called one at a time, as the kernel does; names and argv are
        // valid for the call.
        unsafe {
            match op {
                Op::Create { null_tcb, name } => {
                    let tcb = if *null_tcb { std::ptr::null_mut() } else { tcb(self.mine.len() as u32 + 1) };
                    if !null_tcb {
                        self.hook();
                    }
                    let id = name.with_ptr(|p| cpu_usage_hook_task_create(tcb, p));
                    if *null_tcb {
                        assert_eq!(id, 0, "a NULL TCB gets ID 0");
                        return;
                    }
                    self.mine.push(id);
                    if id == 0 {
                        assert_eq!(self.free, 0, "ID 0 given while {} IDs were free", self.free);
                        self.overflow = self.overflow.saturating_add(1);
                    } else {
                        assert!(id as usize <= MAX_TASKS, "ID {id} beyond the capacity");
                        assert!(!self.alive.contains_key(&id), "ID {id} given twice");
                        assert!(self.dying.as_ref().is_none_or(|d| d.0 != id), "ID {id} of a dying task given");
                        self.alive.insert(id, name.stored());
                    }
                }
                Op::Delete { null_tcb, id } => {
                    let id = self.id(*id);
                    if *null_tcb {
                        assert_eq!(cpu_usage_hook_task_delete(std::ptr::null_mut(), id), ERR_NULL);
                        return;
                    }
                    self.hook();
                    let status = cpu_usage_hook_task_delete(tcb(id), id);
                    assert_documented(status, "cpu_usage_hook_task_delete");
                    if id == 0 {
                        assert_eq!(status, OK, "deleting a task of ID 0");
                        self.overflow = self.overflow.saturating_sub(1);
                    } else if let Some(name) = self.alive.remove(&id) {
                        assert_eq!(status, OK, "deleting live task {id}");
                        if self.running == Some(id) {
                            assert!(self.dying.is_none());
                            self.dying = Some((id, name));
                        }
                    } else {
                        assert_eq!(status, ERR_TASK_ID, "deleting {id}, which is not alive");
                    }
                }
                Op::SwitchIn(id) => {
                    let id = self.id(*id);
                    self.hook();
                    cpu_usage_hook_task_switched_in(cpu_usage_clock_read(), id);
                    // A task that deleted itself has had its last slice.
                    self.dying = None;
                    self.running = self.alive.contains_key(&id).then_some(id);
                }
                Op::Tick => {
                    self.hook();
                    cpu_usage_hook_tick();
                }
                Op::Advance(step) => {
                    let d = match *step {
                        Step::Counts(n) => u32::from(n),
                        Step::Thousands(n) => u32::from(n) * 1000,
                        Step::Windows(k, n) => {
                            (self.windows.len as u32).wrapping_mul(u32::from(k)).wrapping_add(u32::from(n))
                        }
                        Step::Jump(n) => n,
                    };
                    advance(if full_wrap() { d } else { d.min(MAX_UNREAD - unread()) });
                }
                Op::SchedulerStart { idle, hz } => {
                    let idle = self.id(*idle);
                    cpu_usage_hook_scheduler_start(idle, *hz, 0);
                    self.idle = idle;
                    self.restart();
                }
                Op::SetWindow(ms) => {
                    let ms = match *ms {
                        WindowMs::Ms(ms) => u32::from(ms),
                        WindowMs::Zero => 0,
                        WindowMs::Hour => MAX_WINDOW_MS,
                        WindowMs::PastHour => MAX_WINDOW_MS + 1,
                        WindowMs::Any(ms) => ms,
                    };
                    let status = cpu_usage_set_window_ms(ms);
                    assert_documented(status, "cpu_usage_set_window_ms");
                    match window_counts(ms, self.hz) {
                        Some(counts) => {
                            assert_eq!(status, OK, "a window of {ms} ms at {} Hz", self.hz);
                            self.window_ms = ms;
                            self.windows.len = counts;
                        }
                        None => assert_eq!(status, ERR_WINDOW, "a window of {ms} ms at {} Hz", self.hz),
                    }
                    assert_eq!(cpu_usage_window_ms(), self.window_ms);
                }
                Op::SetClock { null, hz } => {
                    let hz = match *hz {
                        Hz::Usual(i) => {
                            const USUAL: [u32; 8] =
                                [1, 999, 1000, 32_768, 1_000_000, 15_625_000, 2_147_483_648, u32::MAX];
                            USUAL[usize::from(i) % USUAL.len()]
                        }
                        Hz::Any(hz) => hz,
                    };
                    let status = cpu_usage_set_clock(if *null { None } else { Some(fake_clock) }, hz);
                    assert_documented(status, "cpu_usage_set_clock");
                    if *null {
                        assert_eq!(status, ERR_NULL);
                    } else if hz == 0 {
                        assert_eq!(status, ERR_CLOCK);
                    } else if let Some(counts) = window_counts(self.window_ms, hz) {
                        assert_eq!(status, OK, "a clock of {hz} Hz with a window of {} ms", self.window_ms);
                        self.hz = hz;
                        self.windows.len = counts;
                        self.restart();
                    } else {
                        assert_eq!(status, ERR_WINDOW, "a clock of {hz} Hz with a window of {} ms", self.window_ms);
                    }
                }
                Op::SetOutput { null } => {
                    let status = cpu_usage_set_output(if *null { None } else { Some(capture) });
                    assert_eq!(status, if *null { ERR_NULL } else { OK });
                }
                Op::Show(argv) => {
                    let (n, text) = format(argv);
                    take_captured();
                    let status = argv.with(|argc, argv| show_cpu_usage(argc, argv));
                    assert_documented(status, "show_cpu_usage");
                    assert_eq!(status, n.min(0), "show_cpu_usage and cpu_usage_format disagree");
                    assert_eq!(take_captured(), text, "show_cpu_usage printed another text");
                    self.apply_w(argv);
                }
                Op::Format(argv, buf) => {
                    check_format_call(argv, *buf);
                    self.apply_w(argv);
                }
            }
        }
    }

    /// The reports against the invariants and the model.
    fn check(&mut self) {
        let window = last_window();
        let v = since_start();
        assert_eq!(v.clock_hz, u64::from(self.hz));
        self.windows.check(window.as_ref(), &v);

        // The live tasks under their names; since start, a task that deleted itself
        // and still runs is summed with the deleted ones, unless it is the idle task.
        let mut shown: BTreeMap<u32, Vec<u8>> = BTreeMap::new();
        for t in &v.tasks {
            if t.id != 0 {
                assert!(!t.deleted, "since start, deleted task {} listed", t.id);
                shown.insert(t.id, name_bytes(&t.name).expect("a name of bytes"));
            }
        }
        if let Some(idle) = &v.idle {
            assert_eq!(idle.id, self.idle, "another task shown as idle");
            shown.insert(idle.id, name_bytes(&idle.name).expect("a name of bytes"));
        }
        let mut expected = self.alive.clone();
        if let Some((id, name)) = self.dying.as_ref().filter(|d| d.0 == self.idle) {
            expected.insert(*id, name.clone());
        }
        assert_eq!(shown, expected, "since-start report: tasks (ID: name)");
        if expected.contains_key(&self.idle) {
            assert!(v.idle.is_some(), "the idle task {} is not shown as idle", self.idle);
        }
        let slots = &v.slots;
        assert_eq!(slots.used as usize, self.alive.len() + usize::from(self.dying.is_some()), "IDs used");
        assert_eq!(u64::from(slots.overflow_tasks), u64::from(self.overflow), "tasks sharing ID 0");
        self.free = u64::from(slots.free);

        // The completed window: its live tasks are alive, under their names.
        if let Some(w) = window {
            for t in &w.tasks {
                if t.id != 0 && !t.deleted {
                    let name = self.alive.get(&t.id);
                    assert!(name.is_some(), "window shows {} as alive", t.id);
                    assert_eq!(name_bytes(&t.name).as_ref(), name);
                }
            }
        }
    }

    /// Deletes every task the input left, and checks the pool is whole.
    fn finish(&mut self) {
        // SAFETY: hooks, as above.
        unsafe {
            self.hook();
            cpu_usage_hook_task_switched_in(cpu_usage_clock_read(), 0);
            self.dying = None;
            self.running = None;
            for id in std::mem::take(&mut self.alive).into_keys() {
                self.hook();
                assert_eq!(cpu_usage_hook_task_delete(tcb(id), id), OK);
            }
            for _ in 0..self.overflow {
                self.hook();
                assert_eq!(cpu_usage_hook_task_delete(tcb(0), 0), OK);
            }
        }
        self.overflow = 0;
        self.check();
        assert_eq!(since_start().slots.used, 0, "IDs still used after every task was deleted");
    }
}

/// Most counts between two readings of the clock (see the module comment).
const MAX_UNREAD: u32 = 1 << 31;

/// `FUZZ_API_FULL_WRAP=1`: clock steps up to a whole wrap between two readings.
fn full_wrap() -> bool {
    static FULL: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *FULL.get_or_init(|| std::env::var_os("FUZZ_API_FULL_WRAP").is_some_and(|v| v == "1"))
}

fuzz_target!(|input: Input| {
    reset(input.start);
    let mut model = Model::new();
    model.check();
    for op in &input.ops {
        model.step(op);
        model.check();
    }
    model.finish();
});
