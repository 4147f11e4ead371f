//! What the fuzz targets share: a clock the input drives, an output that captures,
//! a reset of the library's global state, C strings placed at the very end of their
//! allocations, and the checks every report must pass.
//!
//! The library has one process-wide state and libFuzzer runs inputs one after the
//! other on one thread, so each input starts with [`reset`], which brings that state
//! back to the same point whatever the inputs before it did: otherwise a failure
//! found after a thousand inputs would not reproduce from its own.
//!
//! Strings handed to the library are copied into heap blocks of exactly their
//! length (AddressSanitizer is on), so a read one byte past what the API allows is
//! reported where it happens.

use std::ffi::{c_char, c_int, c_void};
use std::ptr;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};
use std::sync::{Mutex, Once};

use arbitrary::Arbitrary;
use freertos_cpu_usage::ffi::*;
use freertos_cpu_usage::report::{Options, Problem};
use serde_json::Value;

pub use freertos_cpu_usage::settings::{MAX_TASKS, NAME_LEN};

/// The status codes, as C sees them.
pub const OK: i32 = cpu_usage_status::CPU_USAGE_OK as i32;
pub const ERR_NULL: i32 = cpu_usage_status::CPU_USAGE_ERR_NULL as i32;
pub const ERR_OPTION: i32 = cpu_usage_status::CPU_USAGE_ERR_OPTION as i32;
pub const ERR_WINDOW: i32 = cpu_usage_status::CPU_USAGE_ERR_WINDOW as i32;
pub const ERR_CLOCK: i32 = cpu_usage_status::CPU_USAGE_ERR_CLOCK as i32;
pub const ERR_NO_WINDOW: i32 = cpu_usage_status::CPU_USAGE_ERR_NO_WINDOW as i32;
pub const ERR_NO_OUTPUT: i32 = cpu_usage_status::CPU_USAGE_ERR_NO_OUTPUT as i32;
pub const ERR_TASK_ID: i32 = cpu_usage_status::CPU_USAGE_ERR_TASK_ID as i32;
pub const ERR_RANGE: i32 = cpu_usage_status::CPU_USAGE_ERR_RANGE as i32;
pub const ERR_FOLLOW: i32 = cpu_usage_status::CPU_USAGE_ERR_FOLLOW as i32;
pub const ERR_CHANGED: i32 = cpu_usage_status::CPU_USAGE_ERR_CHANGED as i32;
/// Every documented code.
pub const CODES: [i32; 11] = [
    OK,
    ERR_NULL,
    ERR_OPTION,
    ERR_WINDOW,
    ERR_CLOCK,
    ERR_NO_WINDOW,
    ERR_NO_OUTPUT,
    ERR_TASK_ID,
    ERR_RANGE,
    ERR_FOLLOW,
    ERR_CHANGED,
];

/// Panics unless `status` is a documented code with its own description.
pub fn assert_documented(status: i32, what: &str) {
    assert!(CODES.contains(&status), "{what} returned {status}, not a documented status code");
    // SAFETY: the library returns a static C string for any code.
    let text = unsafe { std::ffi::CStr::from_ptr(cpu_usage_status_str(status)) };
    assert_ne!(text.to_bytes(), b"unknown status code", "{what}: no description for {status}");
}

/// Longest argument the library reads (documented: "shell arguments up to 64 bytes").
pub const MAX_ARG_LEN: usize = 64;
/// Most arguments after the command name.
pub const MAX_ARGS: usize = 8;
/// Longest window accepted, in milliseconds.
pub const MAX_WINDOW_MS: u32 = 3_600_000;
/// Longest window accepted, in clock counts.
pub const MAX_WINDOW_COUNTS: u64 = 1 << 31;
/// Clock frequency after [`reset`].
pub const BASE_HZ: u32 = 1_000_000;

// ---- The critical section ------------------------------------------------------------

/// The library's critical section (built with `external-critical-section` here: its
/// own calls the FreeRTOS port, and there is no kernel). Hooks and readers all run on
/// libFuzzer's one thread, so there is nothing to exclude.
struct OneThread;
critical_section::set_impl!(OneThread);

// SAFETY: one thread; nothing runs between acquire and release but the section.
unsafe impl critical_section::Impl for OneThread {
    unsafe fn acquire() -> critical_section::RawRestoreState {
        0
    }

    unsafe fn release(_: critical_section::RawRestoreState) {}
}

// ---- The clock ---------------------------------------------------------------------

static NOW: AtomicU32 = AtomicU32::new(0);
static LAST_READ: AtomicU32 = AtomicU32::new(0);
static SINCE_RESTART: AtomicU64 = AtomicU64::new(0);

/// The clock given to the library: reads [`now`], and adds up the counts between
/// consecutive readings, which is exactly the time the library must account for.
///
/// # Safety
/// None needed; `unsafe` only because the library's clock type is.
pub unsafe extern "C" fn fake_clock() -> u32 {
    let now = NOW.load(Relaxed);
    let last = LAST_READ.swap(now, Relaxed);
    SINCE_RESTART.fetch_add(u64::from(now.wrapping_sub(last)), Relaxed);
    now
}

/// What the clock reads.
pub fn now() -> u32 {
    NOW.load(Relaxed)
}

/// Moves the clock by `d` counts, modulo 2^32.
pub fn advance(d: u32) {
    NOW.store(now().wrapping_add(d), Relaxed);
}

/// Sets the clock.
pub fn set_now(v: u32) {
    NOW.store(v, Relaxed);
}

/// Counts the clock has moved since the library last read it (modulo 2^32).
pub fn unread() -> u32 {
    now().wrapping_sub(LAST_READ.load(Relaxed))
}

/// Counts between the clock readings since the last [`restarted`].
pub fn since_restart() -> u64 {
    SINCE_RESTART.load(Relaxed)
}

/// The library restarted its figures at its last reading: count from there.
pub fn restarted() {
    SINCE_RESTART.store(0, Relaxed);
}

/// The window length in counts the library must use for `ms` at `hz`, if valid:
/// `floor(ms × hz / 1000)`, from 1 to 2^31, for 1 ms to an hour.
pub fn window_counts(ms: u32, hz: u32) -> Option<u64> {
    let counts = u64::from(ms) * u64::from(hz) / 1000;
    ((1..=MAX_WINDOW_MS).contains(&ms) && (1..=MAX_WINDOW_COUNTS).contains(&counts)).then_some(counts)
}

/// The windows the library must have closed, from the clock readings, as the
/// documentation defines them: a window ends at the first hook at or past its end,
/// `len` counts after its start, and the next starts there; if no hook came for more
/// than a whole further window, the closing window takes the whole stall instead;
/// and a window never ends before the library's last reading (a shorter window set
/// while one was under way).
pub struct Windows {
    /// The window length in force, in counts.
    pub len: u64,
    /// Start of the window under way.
    start: u32,
    /// Windows closed since the figures (re)started.
    pub closed: u64,
    /// Their counts: what a since-start report covers.
    pub counts: u64,
    /// The last one's length.
    pub last_len: u64,
}

impl Windows {
    /// Figures that start now, with windows of `len` counts.
    pub fn new(len: u64) -> Windows {
        Windows { len, start: now(), closed: 0, counts: 0, last_len: 0 }
    }

    /// A hook is about to read the clock.
    pub fn hook(&mut self) {
        let elapsed = u64::from(now().wrapping_sub(self.start));
        if elapsed < self.len {
            return;
        }
        let len = if elapsed < 2 * self.len { self.len } else { elapsed };
        let len = len.max(u64::from(now().wrapping_sub(unread()).wrapping_sub(self.start)));
        self.closed += 1;
        self.counts += len;
        self.last_len = len;
        self.start = self.start.wrapping_add(len as u32);
    }

    /// The figures restart at the clock's reading now.
    pub fn restart(&mut self) {
        *self = Windows::new(self.len);
        restarted();
    }

    /// The reports (`-m` and `-m -c`) cover these windows: the last one, and since
    /// start all of them; and the window under way has the rest of the counts read
    /// since the restart (no time lost or invented).
    pub fn check(&self, window: Option<&Value>, cumulative: &Value) {
        assert_eq!(window.is_some(), self.closed > 0, "a completed window is shown exactly when there is one");
        if let Some(w) = window {
            assert_eq!(w["window"], self.closed - 1, "window number");
            assert_eq!(w["window_counts"], self.last_len, "window length");
        }
        assert_eq!(cumulative["windows"], self.closed, "windows since start");
        assert_eq!(cumulative["uptime_counts"], self.counts, "since start: every completed window");
        let under_way = now().wrapping_sub(unread()).wrapping_sub(self.start);
        assert_eq!(since_restart(), self.counts + u64::from(under_way), "time lost or invented");
    }
}

// ---- The output --------------------------------------------------------------------

static CAPTURED: Mutex<Vec<u8>> = Mutex::new(Vec::new());

/// The output given to the library. Documented: `n` bytes, "a line or less at a
/// time"; the library's line buffer is 128 bytes.
///
/// # Safety
/// `s` must point to `n` readable bytes.
pub unsafe extern "C" fn capture(s: *const c_char, n: usize) {
    assert!(!s.is_null(), "output called with NULL");
    assert!((1..=128).contains(&n), "output called with {n} bytes");
    // SAFETY: the library passes `n` readable bytes.
    let bytes = unsafe { std::slice::from_raw_parts(s.cast::<u8>(), n) };
    let newline = bytes.iter().position(|&b| b == b'\n');
    assert!(newline.is_none_or(|i| i == n - 1), "more than a line in one call: {bytes:?}");
    CAPTURED.lock().unwrap_or_else(|e| e.into_inner()).extend_from_slice(bytes);
}

/// Takes what the output received since the last call.
pub fn take_captured() -> Vec<u8> {
    std::mem::take(&mut *CAPTURED.lock().unwrap_or_else(|e| e.into_inner()))
}

// ---- C strings at the end of their allocations ------------------------------------

/// Bytes in a heap block of exactly their length.
fn exact(bytes: Vec<u8>) -> Box<[u8]> {
    let mut v = Vec::with_capacity(bytes.len());
    v.extend_from_slice(&bytes);
    v.into_boxed_slice()
}

/// A task name as the kernel may pass it.
#[derive(Arbitrary, Debug, Clone)]
pub enum TaskName {
    /// No name.
    Null,
    /// A C string (the NUL is added, as the allocation's last byte).
    Str(Vec<u8>),
    /// Exactly `CPU_USAGE_NAME_LEN` bytes and no NUL: the library may read them all
    /// and not one more.
    Full([u8; NAME_LEN]),
}

impl TaskName {
    /// Calls `f` with the name's pointer.
    pub fn with_ptr<R>(&self, f: impl FnOnce(*const c_char) -> R) -> R {
        let block = match self {
            TaskName::Null => return f(ptr::null()),
            TaskName::Str(s) => exact([s.as_slice(), &[0]].concat()),
            TaskName::Full(s) => exact(s.to_vec()),
        };
        f(block.as_ptr().cast())
    }

    /// What the library keeps: up to the first NUL, at most `NAME_LEN` bytes.
    pub fn stored(&self) -> Vec<u8> {
        let s: &[u8] = match self {
            TaskName::Null => &[],
            TaskName::Str(s) => s,
            TaskName::Full(s) => s,
        };
        s.iter().take(NAME_LEN).take_while(|&&b| b != 0).copied().collect()
    }
}

// ---- The options, as the command's help defines them ----------------------------

/// An argument list refused: what is wrong, the argument named (its first 24
/// bytes: the option when it is unknown or its value is missing, else the value),
/// the option whose value is wrong ("" when unknown) and the values it takes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub problem: Problem,
    pub arg: Vec<u8>,
    pub option: &'static str,
    pub range: [u32; 2],
}

/// `show_cpu_usage`'s options, written out from its help, independently of the
/// library's parser: every argument is `-` and one or more letters; `m c h s l d`
/// are flags; `n` (1 to 65535) and `w` (1 to 3600000) take a decimal value, the
/// rest of their argument or, if that is empty, the next argument; `f` takes an
/// optional count (1 to 1000000), the rest of its argument or, if that is empty, the
/// next argument when that begins with a digit. Letters are read left to right and
/// the first fault is the one reported.
pub fn spec_options(args: &[&[u8]]) -> Result<Options, Refusal> {
    let refuse = |problem, arg: &[u8], option, range| {
        Err(Refusal { problem, arg: arg[..arg.len().min(24)].to_vec(), option, range })
    };
    let mut opts = Options::default();
    let mut i = 0;
    while i < args.len() {
        let arg = args[i];
        i += 1;
        if arg.len() < 2 || arg[0] != b'-' {
            return refuse(Problem::Unknown, arg, "", [0, 0]);
        }
        for (k, &letter) in arg.iter().enumerate().skip(1) {
            match letter {
                b'm' => opts.json = true,
                b'c' => opts.cumulative = true,
                b'h' => opts.help = true,
                b's' => opts.sort = true,
                b'l' => opts.long = true,
                b'd' => opts.deleted = true,
                b'f' if k + 1 == arg.len()
                    && !args.get(i).is_some_and(|a| a.first().is_some_and(u8::is_ascii_digit)) =>
                {
                    opts.follow = Some(0);
                }
                b'n' | b'w' | b'f' => {
                    let (option, range) = match letter {
                        b'n' => ("-n", [1, 65535]),
                        b'w' => ("-w", [1, 3_600_000]),
                        _ => ("-f", [1, 1_000_000]),
                    };
                    let value: &[u8] = if k + 1 < arg.len() {
                        &arg[k + 1..]
                    } else if i < args.len() {
                        i += 1;
                        args[i - 1]
                    } else {
                        return refuse(Problem::MissingValue, arg, option, range);
                    };
                    let Some(n) = spec_number(value) else {
                        return refuse(Problem::NotANumber, value, option, range);
                    };
                    if n < u128::from(range[0]) || n > u128::from(range[1]) {
                        return refuse(Problem::OutOfRange, value, option, range);
                    }
                    match letter {
                        b'n' => opts.top = Some(n as u16),
                        b'w' => opts.window_ms = Some(n as u32),
                        _ => opts.follow = Some(n as u32),
                    }
                    break;
                }
                _ => return refuse(Problem::Unknown, arg, "", [0, 0]),
            }
        }
    }
    Ok(opts)
}

/// A non-empty run of decimal digits, as a number (any length: more than 38 digits
/// read as u128::MAX).
fn spec_number(text: &[u8]) -> Option<u128> {
    if text.is_empty() || !text.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(std::str::from_utf8(text).ok()?.parse::<u128>().unwrap_or(u128::MAX))
}

/// A string as the library quotes it: printable ASCII as is except `"` and `\`,
/// which are escaped, and every other byte as `\u00xx`.
pub fn json_quote(bytes: &[u8]) -> String {
    let mut s = String::from("\"");
    for &b in bytes {
        match b {
            b'"' | b'\\' => {
                s.push('\\');
                s.push(b as char);
            }
            0x20..=0x7e => s.push(b as char),
            _ => s.push_str(&format!("\\u{b:04x}")),
        }
    }
    s.push('"');
    s
}

/// The first line of the message for a refusal, after `command: `; `unknown` is
/// the command's word for an argument it does not take.
pub fn refusal_message(refusal: &Refusal, unknown: &str) -> String {
    let Refusal { problem, arg, option, range: [lo, hi] } = refusal;
    match problem {
        Problem::Unknown => format!("{unknown} {}", json_quote(arg)),
        Problem::MissingValue => format!("{option}: missing value ({lo} to {hi})"),
        Problem::NotANumber => format!("{option} {}: not a number ({lo} to {hi})", json_quote(arg)),
        Problem::OutOfRange => format!("{option} {}: out of range ({lo} to {hi})", json_quote(arg)),
    }
}

/// One `argv` element.
#[derive(Arbitrary, Debug, Clone)]
pub enum Arg {
    /// A NULL pointer.
    Null,
    /// A C string (the NUL is added, as the allocation's last byte).
    Str(Vec<u8>),
    /// Bytes with no NUL added: padded with `x` to `MAX_ARG_LEN` bytes if shorter
    /// (the library reads up to the first NUL or `MAX_ARG_LEN` bytes, never past).
    Raw(Vec<u8>),
    /// A valid option, so that inputs reach the reports often.
    Option(OptionArg),
}

/// The options the command knows, alone and combined (not `-w`, which changes the
/// window).
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum OptionArg {
    M,
    C,
    H,
    Mc,
    Cm,
    S,
    L,
    Msl,
    Csl,
    /// `-n` and a count, in the same argument.
    N(u8),
    D,
    Md,
    Cd,
    Msld,
}

impl Arg {
    /// The allocation handed to the library (None for NULL).
    fn block(&self) -> Option<Box<[u8]>> {
        match self {
            Arg::Null => None,
            Arg::Str(s) => Some(exact([s.as_slice(), &[0]].concat())),
            Arg::Raw(s) => {
                let mut s = s.clone();
                if s.len() < MAX_ARG_LEN && !s.contains(&0) {
                    s.resize(MAX_ARG_LEN, b'x');
                }
                Some(exact(s))
            }
            Arg::Option(o) => {
                let text: &[u8] = match o {
                    OptionArg::M => b"-m\0",
                    OptionArg::C => b"-c\0",
                    OptionArg::H => b"-h\0",
                    OptionArg::Mc => b"-mc\0",
                    OptionArg::Cm => b"-cm\0",
                    OptionArg::S => b"-s\0",
                    OptionArg::L => b"-l\0",
                    OptionArg::Msl => b"-msl\0",
                    OptionArg::Csl => b"-csl\0",
                    OptionArg::N(n) => return Some(exact(format!("-n{}\0", n % 8).into_bytes())),
                    OptionArg::D => b"-d\0",
                    OptionArg::Md => b"-md\0",
                    OptionArg::Cd => b"-cd\0",
                    OptionArg::Msld => b"-msld\0",
                };
                Some(exact(text.to_vec()))
            }
        }
    }
}

/// How `argc` relates to the `argv` array (never beyond it, which would break the
/// API's contract rather than test it; with a NULL `argv`, anything).
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum Argc {
    /// The array's length.
    All,
    /// At most this many.
    Fewer(u8),
    /// Negative: no arguments.
    Negative(u32),
}

/// A whole `argv`: the array (exactly `args.len()` pointers, no NULL after the last)
/// or a NULL `argv`, and `argc`.
#[derive(Arbitrary, Debug, Clone)]
pub struct Argv {
    pub null_argv: bool,
    pub argc: Argc,
    /// `argv[0..]`; `argv[0]` is the command's name, which the library does not read.
    pub args: Vec<Arg>,
}

/// What a call with this `argv` must do, from the documented rules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expect {
    /// A NULL argv (with arguments) or argument, an argument with no NUL within
    /// `MAX_ARG_LEN` bytes, or more than `MAX_ARGS` arguments: that status, and the
    /// text "bad arguments".
    BadArgs(i32),
    /// Arguments the options refuse: `ERR_OPTION`, the message saying why, and the
    /// usage.
    Refused(Refusal),
    /// The report (or the usage with `-h`).
    Report(Options),
}

impl Argv {
    /// An `argv` of the command name and `args`.
    pub fn of(args: &[&[u8]]) -> Argv {
        let mut all = vec![Arg::Str(b"show_cpu_usage".to_vec())];
        all.extend(args.iter().map(|a| Arg::Str(a.to_vec())));
        Argv { null_argv: false, argc: Argc::All, args: all }
    }

    fn argc(&self) -> c_int {
        let len = self.args.len();
        match self.argc {
            Argc::All => len as c_int,
            // With a NULL argv nothing is read: any count.
            Argc::Fewer(n) if self.null_argv => c_int::from(n),
            Argc::Fewer(n) => usize::from(n).min(len) as c_int,
            Argc::Negative(n) => -1 - (n & 0x7fff_ffff) as c_int,
        }
    }

    /// What the library must do with this `argv`: the arguments `1..argc` are
    /// checked in order (NULL, no NUL within `MAX_ARG_LEN` bytes, more than
    /// `MAX_ARGS`), the first fault deciding; only then are they parsed as options.
    pub fn expect(&self) -> Expect {
        let n = usize::try_from(self.argc()).unwrap_or(0);
        if self.null_argv && n > 1 {
            return Expect::BadArgs(ERR_NULL);
        }
        let mut texts = Vec::new();
        if !self.null_argv {
            for (i, arg) in self.args.iter().enumerate().take(n).skip(1) {
                let Some(block) = arg.block() else { return Expect::BadArgs(ERR_NULL) };
                let Some(end) = block.iter().take(MAX_ARG_LEN).position(|&b| b == 0) else {
                    return Expect::BadArgs(ERR_OPTION);
                };
                if i > MAX_ARGS {
                    return Expect::BadArgs(ERR_OPTION);
                }
                texts.push(block[..end].to_vec());
            }
        }
        let texts: Vec<&[u8]> = texts.iter().map(Vec::as_slice).collect();
        match spec_options(&texts) {
            Ok(opts) => Expect::Report(opts),
            Err(refusal) => Expect::Refused(refusal),
        }
    }

    /// Calls `f(argc, argv)` with the strings in place.
    pub fn with<R>(&self, f: impl FnOnce(c_int, *mut *mut c_char) -> R) -> R {
        let blocks: Vec<Option<Box<[u8]>>> = self.args.iter().map(Arg::block).collect();
        let ptrs: Vec<*mut c_char> =
            blocks.iter().map(|b| b.as_ref().map_or(ptr::null_mut(), |b| b.as_ptr().cast_mut().cast())).collect();
        let mut array = exact_ptrs(ptrs);
        let argv = if self.null_argv { ptr::null_mut() } else { array.as_mut_ptr() };
        f(self.argc(), argv)
    }
}

fn exact_ptrs(ptrs: Vec<*mut c_char>) -> Box<[*mut c_char]> {
    let mut v = Vec::with_capacity(ptrs.len());
    v.extend_from_slice(&ptrs);
    v.into_boxed_slice()
}

// ---- Reset -------------------------------------------------------------------------

/// A TCB address: the library never dereferences it, only checks it for NULL.
pub fn tcb(id: u32) -> *mut c_void {
    (0x1000 + 0x100 * id as usize) as *mut c_void
}

static INIT: Once = Once::new();

/// Brings the library to the same state whatever ran before: the fake clock at
/// `start` and `BASE_HZ`, a 1000 ms window, no task (none alive, none sharing ID 0,
/// every ID free with the pool in one fixed order), no idle task, no window completed,
/// the output captured.
pub fn reset(start: u32) {
    INIT.call_once(|| assert_eq!(cpu_usage_set_output(Some(capture)), OK));
    assert_eq!(cpu_usage_set_output(Some(capture)), OK);
    // A 1 ms window is valid at every clock of 1 kHz or more, a 1000 ms one at every
    // clock slower; either is valid at `BASE_HZ`.
    if cpu_usage_set_window_ms(1) != OK {
        assert_eq!(cpu_usage_set_window_ms(1000), OK);
    }
    set_now(start);
    assert_eq!(cpu_usage_set_clock(Some(fake_clock), BASE_HZ), OK);
    assert_eq!(cpu_usage_set_window_ms(1000), OK);
    // SAFETY: hooks called one at a time, as the kernel does.
    unsafe {
        // Ends the last slice of a task that deleted itself, if one runs. ID 0 is no
        // live task's: from here on time runs on the shared bucket until the next
        // switch-in, the same after every reset.
        cpu_usage_hook_task_switched_in(tcb(0), 0);
        for id in 1..=MAX_TASKS as u32 {
            let _ = cpu_usage_hook_task_delete(tcb(id), id);
        }
        let overflow = cumulative_json()["slots"]["overflow_tasks"].as_u64().expect("overflow_tasks");
        for _ in 0..overflow {
            assert_eq!(cpu_usage_hook_task_delete(tcb(0), 0), OK);
        }
        // Every deleted ID is now waiting in quarantine, in an order that depends on
        // the past. Two windows later (a restart) all of them are ready; taking every
        // ID and giving them back in ID order leaves the same pool every time. (With
        // the scheduler started: until then two IDs are kept for the kernel's tasks.)
        cpu_usage_hook_scheduler_start(0, 0, 0);
        assert_eq!(cpu_usage_set_clock(Some(fake_clock), BASE_HZ), OK);
        for expected in 1..=MAX_TASKS as u32 {
            let id = cpu_usage_hook_task_create(tcb(expected), c"reset".as_ptr());
            assert_ne!(id, 0, "an ID leaked: after deleting every task, only {} could be taken", expected - 1);
        }
        for id in 1..=MAX_TASKS as u32 {
            assert_eq!(cpu_usage_hook_task_delete(tcb(id), id), OK);
        }
        // No idle task; a restart, which also makes the quarantine ready.
        cpu_usage_hook_scheduler_start(0, 0, 0);
    }
    restarted();
    take_captured();
    let slots = &cumulative_json()["slots"];
    assert_eq!(slots["used"], 0);
    assert_eq!(slots["free"], MAX_TASKS);
}

// ---- Reports -----------------------------------------------------------------------

/// `cpu_usage_format` with a buffer of the right size: (status or length, text).
pub fn format(argv: &Argv) -> (i32, Vec<u8>) {
    // SAFETY: a length query (NULL, 0), then a buffer of the length asked for; the
    // argv is valid for the call.
    argv.with(|argc, argv| unsafe {
        let n = cpu_usage_format(ptr::null_mut(), 0, argc, argv);
        // An error's message has no length query: a buffer far larger than any.
        let len = if n >= 0 { n as usize + 1 } else { 1 << 16 };
        let mut buf = vec![CANARY; len + CANARIES];
        let again = cpu_usage_format(buf.as_mut_ptr().cast(), len, argc, argv);
        assert_eq!(again, n, "the same call gave another result");
        assert_canaries(&buf[len..]);
        let end = buf.iter().position(|&b| b == 0).expect("no NUL in the buffer");
        assert!(end < len);
        if n >= 0 {
            assert_eq!(end, n as usize, "the text's length is not the value returned");
        } else {
            assert!(end + 1 < len, "an error message of {end} bytes?");
        }
        (n, buf[..end].to_vec())
    })
}

/// The window (`-m`) or since-start (`-c -m`) JSON report; `None` with
/// `ERR_NO_WINDOW`. Checked by [`check_json`].
pub fn json(cumulative: bool) -> Option<Value> {
    json_with(Options { cumulative, ..Options::default() })
}

/// The JSON report with `opts` (`-m` added; `-s`, `-n`, `-d`, `-c` as asked).
pub fn json_with(opts: Options) -> Option<Value> {
    let mut args: Vec<Vec<u8>> = vec![b"-m".to_vec()];
    if opts.cumulative {
        args.push(b"-c".to_vec());
    }
    if opts.sort {
        args.push(b"-s".to_vec());
    }
    if opts.deleted {
        args.push(b"-d".to_vec());
    }
    if let Some(n) = opts.top {
        args.push(format!("-n{n}").into_bytes());
    }
    let args: Vec<&[u8]> = args.iter().map(Vec::as_slice).collect();
    let (status, text) = format(&Argv::of(&args));
    check_text(&text);
    match status {
        ERR_NO_WINDOW => {
            assert!(!opts.cumulative, "no since-start report");
            check_no_window_json(&text);
            None
        }
        n => {
            assert!(n >= 0, "the JSON report failed with {n}");
            Some(check_json_of(&text, Options { json: true, ..opts }))
        }
    }
}

/// The since-start JSON report, which is always there.
pub fn cumulative_json() -> Value {
    json(true).expect("a since-start report")
}

const CANARY: u8 = 0xa5;
const CANARIES: usize = 16;

fn assert_canaries(bytes: &[u8]) {
    assert!(bytes.iter().all(|&b| b == CANARY), "written past the buffer: {bytes:?}");
}

/// Every report, usage and message is printable ASCII in lines.
pub fn check_text(text: &[u8]) {
    assert!(text.ends_with(b"\n"), "output does not end a line: {:?}", String::from_utf8_lossy(text));
    if let Some(b) = text.iter().find(|&&b| !(b == b'\n' || (0x20..0x7f).contains(&b))) {
        panic!("byte {b:#04x} in the output: {:?}", String::from_utf8_lossy(text));
    }
}

/// `{"mode":"window","error":"no completed window yet","window_ms":N}`.
fn check_no_window_json(text: &[u8]) {
    let v: Value = serde_json::from_slice(text).expect("the no-window JSON parses");
    assert_eq!(v["mode"], "window");
    assert_eq!(v["error"], "no completed window yet");
    assert_eq!(v["window_ms"], cpu_usage_window_ms());
}

fn uint(v: &Value, what: &str) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("{what} is {v}, not an unsigned integer"))
}

/// A percentage with two decimals, in hundredths.
fn hundredths(v: &Value, what: &str) -> u64 {
    let text = v.to_string();
    let (whole, frac) = text.split_once('.').unwrap_or_else(|| panic!("{what} = {text}: not x.yy"));
    assert_eq!(frac.len(), 2, "{what} = {text}: not two decimals");
    let n: u64 = format!("{whole}{frac}").parse().unwrap_or_else(|_| panic!("{what} = {text}"));
    assert!(n <= 10_000, "{what} = {text}: over 100%");
    n
}

/// A JSON name back to the bytes it escapes: every character is one byte (printable
/// ASCII as is, anything else as `\u00XX`).
pub fn name_bytes(v: &Value) -> Vec<u8> {
    let s = v.as_str().unwrap_or_else(|| panic!("name {v} is not a string"));
    s.chars()
        .map(|c| u8::try_from(u32::from(c)).unwrap_or_else(|_| panic!("name {s:?}: {c:?} is not a byte")))
        .collect()
}

/// The invariants of a JSON report (`-m`, with `-c` if `cumulative`); returns it.
pub fn check_json(text: &[u8], cumulative: bool) -> Value {
    check_json_of(text, Options { json: true, cumulative, ..Options::default() })
}

/// The invariants of a JSON report with `opts`; returns it.
///
/// - one line, valid JSON, printable ASCII;
/// - the counts of every line (the tasks, the "more" line of `-n`, the deleted
///   tasks' line, idle, interrupts, sleep, other) add up to the length covered
///   exactly, and their percentages to exactly 100.00 when that length is not 0 (0
///   otherwise: a since-start report before the first window completes); a single
///   line (a task, idle, interrupts, sleep, other) has the floor or the ceiling of
///   its exact share, a line that sums tasks is off by less than a hundredth per task
///   in it; `load_pct` is 100 - `idle_pct` - `sleep_pct` (0 when nothing else ran);
/// - the length in microseconds is the counts at the clock's frequency;
/// - the ID pool: used + quarantined + free = capacity;
/// - no two lines with one ID; ID 0 only for "(overflow)", never deleted;
/// - the tasks in ID order or, with `-s` or `-n N`, by counts (largest first, ties
///   by ID), the overflow line among them; with `-n N` at most N of them, and a
///   "more" line only when N are shown; a deleted task listed only in a window
///   report with `-d`; `deleted_tasks` in a window report only, 0 with `-d`;
/// - runs and longest runs are there, with their types; a line with time has runs;
///   since start, windows are given exactly when there is something to place.
pub fn check_json_of(text: &[u8], opts: Options) -> Value {
    let cumulative = opts.cumulative;
    check_text(text);
    assert_eq!(text.iter().filter(|&&b| b == b'\n').count(), 1, "JSON report of more than one line");
    let v: Value = serde_json::from_slice(text)
        .unwrap_or_else(|e| panic!("report is not JSON ({e}): {}", String::from_utf8_lossy(text)));
    let ctx = || String::from_utf8_lossy(text).into_owned();
    let (mode, length_key, us_key) = if cumulative {
        ("cumulative", "uptime_counts", "uptime_us")
    } else {
        ("window", "window_counts", "window_us")
    };
    assert_eq!(v["mode"], mode, "{}", ctx());
    let length = uint(&v[length_key], length_key);
    let hz = uint(&v["clock_hz"], "clock_hz");
    let us = uint(&v[us_key], us_key);
    if hz > 0 {
        assert_eq!(u128::from(us), u128::from(length) * 1_000_000 / u128::from(hz), "{us_key}: {}", ctx());
    }
    if cumulative {
        // Since start runs to the end of the last completed window: nothing before
        // the first.
        let windows = uint(&v["windows"], "windows");
        assert_eq!(length == 0, windows == 0, "{windows} windows of {length} counts: {}", ctx());
    } else {
        uint(&v["window"], "window");
        assert!(length >= 1, "an empty window: {}", ctx());
    }

    let slots = &v["slots"];
    let capacity = uint(&slots["capacity"], "capacity");
    assert_eq!(capacity, MAX_TASKS as u64);
    let (used, quarantined, free) =
        (uint(&slots["used"], "used"), uint(&slots["quarantined"], "quarantined"), uint(&slots["free"], "free"));
    assert_eq!(used + quarantined + free, capacity, "slots leak: {}", ctx());
    uint(&slots["overflow_tasks"], "overflow_tasks");

    // Runs and longest runs of a task object (the idle task's included). Since start
    // covers completed windows only, where a run going on at a window's end counted.
    let runs = |t: &Value, counts: u64| {
        let switches = uint(&t["switches"], "switches");
        assert!(counts == 0 || switches >= 1, "time without a run: {t}: {}", ctx());
        let longest = uint(&t["longest_slice_us"], "longest_slice_us");
        if cumulative {
            let window = &t["longest_slice_window"];
            assert!(window.is_null() && longest == 0 || window.is_u64(), "{t}: {}", ctx());
            let (peak, peak_window) = (&t["peak_pct"], &t["peak_window"]);
            assert_eq!(peak.is_null(), peak_window.is_null(), "{t}: {}", ctx());
            if !peak.is_null() {
                hundredths(peak, "peak_pct");
                uint(peak_window, "peak_window");
            }
        }
    };

    // Every line of the report: (what, counts, hundredths, tasks summed in it: 1 for
    // a single line).
    let mut lines: Vec<(String, u64, u64, u64)> = Vec::new();
    let mut ids = std::collections::HashSet::new();
    let tasks = v["tasks"].as_array().unwrap_or_else(|| panic!("no tasks array: {}", ctx()));
    // (counts, ID) of each task line, in the order shown.
    let mut order: Vec<(u64, u64)> = Vec::new();
    for t in tasks {
        let id = uint(&t["id"], "id");
        assert!(id <= MAX_TASKS as u64, "ID {id} beyond the capacity");
        assert!(ids.insert(id), "two lines with ID {id}: {}", ctx());
        let name = name_bytes(&t["name"]);
        let counts = uint(&t["counts"], "counts");
        let deleted = t["deleted"].as_bool().unwrap_or_else(|| panic!("deleted is {}: {}", t["deleted"], ctx()));
        if id == 0 {
            assert_eq!(name, b"(overflow)", "ID 0 is the overflow line only");
            assert!(!deleted, "a deleted overflow line: {}", ctx());
        } else {
            assert!(name.len() <= NAME_LEN);
        }
        assert!(!deleted || (!cumulative && opts.deleted), "a deleted task listed ({opts:?}): {}", ctx());
        runs(t, counts);
        order.push((counts, id));
        lines.push((format!("task {id}"), counts, hundredths(&t["usage_pct"], "usage_pct"), 1));
    }
    let sorted = opts.sort || opts.top.is_some();
    let in_order =
        |a: &(u64, u64), b: &(u64, u64)| if sorted { a.0 > b.0 || a.0 == b.0 && a.1 < b.1 } else { a.1 < b.1 };
    assert!(order.windows(2).all(|w| in_order(&w[0], &w[1])), "tasks out of order ({opts:?}): {}", ctx());
    if let Some(top) = opts.top {
        assert!(order.len() <= usize::from(top), "more than {top} tasks: {}", ctx());
    }
    // Tasks on the lines, shown or summed, the idle task apart: one per ID at most.
    let mut tasks_in_lines = order.len() as u64;
    let more = &v["more_tasks"];
    if !more.is_null() {
        assert!(opts.top.is_some_and(|top| order.len() == usize::from(top)), "a \"more\" line: {}", ctx());
        let count = uint(&more["count"], "more count");
        assert!(count >= 1, "{count} more tasks: {}", ctx());
        let counts = uint(&more["counts"], "more counts");
        // None of them busier than the last one shown.
        let least = order.last().map_or(0, |t| t.0);
        assert!(u128::from(counts) <= u128::from(least) * u128::from(count), "more tasks: {}", ctx());
        tasks_in_lines += count;
        lines.push(("more".into(), counts, hundredths(&more["usage_pct"], "more pct"), count));
    }
    let deleted_counts = uint(&v["deleted_counts"], "deleted_counts");
    let deleted_pct = hundredths(&v["deleted_pct"], "deleted_pct");
    if cumulative {
        assert!(v.get("deleted_tasks").is_none(), "deleted_tasks since start: {}", ctx());
        // The tasks whose IDs were taken, and any ID's.
        lines.push(("deleted".into(), deleted_counts, deleted_pct, MAX_TASKS as u64 + 1));
    } else {
        let count = uint(&v["deleted_tasks"], "deleted_tasks");
        assert!(!opts.deleted || count == 0, "-d and deleted tasks summed: {}", ctx());
        assert!(count > 0 || deleted_counts == 0, "time of no deleted task: {}", ctx());
        tasks_in_lines += count;
        lines.push(("deleted".into(), deleted_counts, deleted_pct, count));
    }
    assert!(tasks_in_lines + u64::from(!v["idle"].is_null()) <= MAX_TASKS as u64 + 1, "more tasks than IDs: {}", ctx());
    let idle_pct = hundredths(&v["idle_pct"], "idle_pct");
    let mut idle_counts = 0;
    match &v["idle"] {
        Value::Null => assert_eq!(idle_pct, 0),
        idle => {
            let id = uint(&idle["id"], "idle id");
            assert!((1..=MAX_TASKS as u64).contains(&id), "idle ID {id}");
            assert!(ids.insert(id), "the idle task's ID {id} is also a task's: {}", ctx());
            assert!(name_bytes(&idle["name"]).len() <= NAME_LEN);
            idle_counts = uint(&idle["counts"], "idle counts");
            runs(idle, idle_counts);
            lines.push(("idle".into(), idle_counts, idle_pct, 1));
        }
    }
    let mut summary_line = |name: &str| {
        let counts_key = format!("{name}_counts");
        let pct_key = format!("{name}_pct");
        let line = (name.to_string(), uint(&v[&counts_key], &counts_key), hundredths(&v[&pct_key], &pct_key), 1);
        lines.push(line.clone());
        line
    };
    let interrupts = summary_line("interrupts").1;
    let sleep = summary_line("sleep");
    summary_line("other");
    let n_interrupts = uint(&v["interrupts"], "interrupts");
    assert!(interrupts == 0 || n_interrupts >= 1, "interrupt time without interrupts: {}", ctx());
    uint(&v["longest_interrupt_us"], "longest_interrupt_us");
    let sleeps = uint(&v["sleeps"], "sleeps");
    assert!(sleep.1 == 0 || sleeps >= 1, "sleep without sleeps: {}", ctx());
    // Load is 100% - idle - sleep; when nothing else ran (or no time passed), 0.
    let busy = length - idle_counts - sleep.1;
    let load = if busy == 0 { 0 } else { 10_000 - idle_pct - sleep.2 };
    assert_eq!(hundredths(&v["load_pct"], "load_pct"), load, "load is 100% - idle - sleep: {}", ctx());
    let averages = v["load_avg_pct"].as_array().unwrap_or_else(|| panic!("no load_avg_pct: {}", ctx()));
    assert_eq!(averages.len(), 3, "{}", ctx());
    for a in averages.iter().filter(|a| !a.is_null()) {
        hundredths(a, "load_avg_pct");
    }

    let counts: u128 = lines.iter().map(|l| u128::from(l.1)).sum();
    assert_eq!(counts, u128::from(length), "the lines' counts do not add up to {length_key}: {}", ctx());
    let pct: u64 = lines.iter().map(|l| l.2).sum();
    assert_eq!(pct, if length > 0 { 10_000 } else { 0 }, "the percentages do not add up to 100.00: {}", ctx());
    if length > 0 {
        // Cumulative rounding: a line's share is the floor or the ceiling of its
        // exact share, |share - exact| < 1, that is |share × length - counts × 10000|
        // < length; for a line summing k tasks, < k × length. (Past 2^50 counts the
        // library scales the counts down first: one more hundredth of slack.)
        let slack = if length >= 1 << 50 { 2 } else { 1 };
        let length = u128::from(length);
        for (what, c, p, k) in &lines {
            let (shown, exact) = (u128::from(*p) * length, u128::from(*c) * 10_000);
            assert!(
                shown.abs_diff(exact) < u128::from(*k).max(1) * slack * length,
                "{what}: {p} hundredths for {c} of {length} counts: {}",
                ctx()
            );
        }
    }
    v
}

/// Calls `cpu_usage_format` with `argv` and a buffer of `len` bytes (`None`: a NULL
/// buffer with that length) and checks it against the documented rules and against
/// the same call with a buffer large enough. Returns the full call's result.
pub fn check_format_call(argv: &Argv, buf: BufLen) -> (i32, Vec<u8>) {
    let (n, full) = format(argv);
    assert!(!full.contains(&0));
    check_text(&full);
    check_against_args(argv, n, &full);

    let (null, len) = match buf {
        BufLen::Null(len) => (true, usize::from(len)),
        BufLen::Len(len) => (false, usize::from(len)),
    };
    let mut block = vec![CANARY; len + CANARIES];
    let p = if null { ptr::null_mut() } else { block.as_mut_ptr().cast::<c_char>() };
    // SAFETY: `block` is writable for `len` bytes (and NULL only as the test).
    let r = argv.with(|argc, argv| unsafe { cpu_usage_format(p, len, argc, argv) });
    assert_documented(r.min(0), "cpu_usage_format");
    if null && len > 0 {
        assert_eq!(r, ERR_NULL, "a NULL buffer of {len} bytes");
        assert_canaries(&block);
        return (n, full);
    }
    assert_eq!(r, n, "a buffer of {len} bytes changed the result");
    assert_canaries(&block[len..]);
    if len > 0 {
        let kept = full.len().min(len - 1);
        assert_eq!(&block[..kept], &full[..kept], "not a prefix of the full text");
        assert_eq!(block[kept], 0, "not NUL-terminated after {kept} bytes in {len}");
    }
    (n, full)
}

/// A buffer size for `cpu_usage_format`.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum BufLen {
    /// A NULL buffer with this length.
    Null(u8),
    /// A buffer of this many bytes (0 included).
    Len(u16),
}

/// The result and text of a call are what its arguments ask for.
fn check_against_args(argv: &Argv, n: i32, text: &[u8]) {
    const USAGE: &[u8] = b"usage: show_cpu_usage [-m] [-c] [-s] [-n N] [-d] [-l] [-w MS] [-f [N]] [-h]\n";
    let ctx = || String::from_utf8_lossy(text).into_owned();
    match argv.expect() {
        Expect::BadArgs(code) => {
            assert_eq!(n, code, "{argv:?}: {}", ctx());
            // SAFETY: a static C string.
            let why = unsafe { std::ffi::CStr::from_ptr(cpu_usage_status_str(code)) };
            let expected = [b"show_cpu_usage: bad arguments: ", why.to_bytes(), b"\n"].concat();
            assert_eq!(text, expected, "{argv:?}");
        }
        Expect::Refused(mut refusal) => {
            assert_eq!(n, ERR_OPTION, "{argv:?}: {}", ctx());
            if refusal.option == "-w" {
                // A window is refused for the clock's range: up to an hour, or the
                // longest that stays within 2^31 counts of the clock.
                let hz = cumulative_json()["clock_hz"].as_u64().unwrap_or(0) as u32;
                let longest = (1..=3_600_000u32).rev().find(|&ms| hz == 0 || window_counts(ms, hz).is_some());
                refusal.range = [1, longest.unwrap_or(1)];
            }
            let line = format!("show_cpu_usage: {}\n", refusal_message(&refusal, "unknown option"));
            let rest = text.strip_prefix(line.as_bytes()).unwrap_or_else(|| panic!("expected {line:?}: {}", ctx()));
            assert!(rest.starts_with(USAGE), "no usage after the message: {}", ctx());
        }
        Expect::Report(opts) if opts.help => {
            assert!(n >= 0);
            assert!(text.starts_with(USAGE), "{}", ctx());
        }
        // KNOWN: what `-w` prints with a report is the C API's choice, not checked
        // here yet (the option arguments of this harness never include it).
        // Follow mode needs the console: into a buffer it is refused, before `-w`.
        Expect::Report(opts) if opts.follow.is_some() => assert_eq!(n, ERR_FOLLOW, "{argv:?}: {}", ctx()),
        Expect::Report(opts) if opts.window_ms.is_some() => assert_documented(n.min(0), "-w"),
        Expect::Report(opts) => {
            if n == ERR_NO_WINDOW {
                assert!(!opts.cumulative, "no since-start report");
                if opts.json {
                    check_no_window_json(text);
                } else {
                    let expected =
                        format!("no completed window yet: the first ends {} ms after start\n", cpu_usage_window_ms());
                    assert_eq!(text, expected.as_bytes());
                }
                return;
            }
            // (Nothing changes the figures while a report is read here, so never
            // ERR_CHANGED.)
            assert!(n >= 0, "{argv:?}: {n}: {}", ctx());
            let v = if opts.json { check_json_of(text, opts) } else { check_table(text, opts) };
            check_against_all_tasks(&v, opts);
        }
    }
}

/// A report (its JSON, made with `opts`) against the same report listing every task
/// one by one (`-m -d`, with `-c` if `opts` has it): the same figures, the same
/// shares for the same tasks (shares do not depend on what is shown, nor in which
/// order); it lists the tasks that one does, but a window's deleted tasks without
/// `-d` (summed on the deleted line) and, sorted with `-s` or `-n N`, those after the
/// N busiest (summed on the "more" line).
fn check_against_all_tasks(v: &Value, opts: Options) {
    let all = json_with(Options { cumulative: opts.cumulative, deleted: true, ..Options::default() })
        .expect("a report with every task when there is a report");
    let ctx = || format!("{opts:?}: {v}\nevery task: {all}");
    let without_tasks = |v: &Value| {
        let mut v = v.clone();
        if let Some(o) = v.as_object_mut() {
            for key in ["tasks", "more_tasks", "deleted_tasks", "deleted_counts", "deleted_pct"] {
                o.remove(key);
            }
        }
        v
    };
    assert_eq!(without_tasks(v), without_tasks(&all), "{}", ctx());
    assert!(opts.cumulative || all["deleted_tasks"] == 0, "-d: {}", ctx());

    let counts = |t: &Value| uint(&t["counts"], "counts");
    let pct = |t: &Value| hundredths(&t["usage_pct"], "usage_pct");
    let summed = !opts.cumulative && !opts.deleted;
    let (deleted, mut listed): (Vec<&Value>, Vec<&Value>) =
        all["tasks"].as_array().expect("tasks").iter().partition(|t| summed && t["deleted"] == true);
    if opts.sort || opts.top.is_some() {
        listed.sort_by_key(|t| (std::cmp::Reverse(counts(t)), uint(&t["id"], "id")));
    }
    let shown = opts.top.map_or(listed.len(), |n| listed.len().min(usize::from(n)));
    let tasks: Vec<&Value> = v["tasks"].as_array().expect("tasks").iter().collect();
    assert_eq!(tasks, listed[..shown], "the tasks shown: {}", ctx());

    let rest = &listed[shown..];
    if rest.is_empty() {
        assert!(v["more_tasks"].is_null(), "a \"more\" line: {}", ctx());
    } else {
        let more = &v["more_tasks"];
        assert_eq!(uint(&more["count"], "count"), rest.len() as u64, "{}", ctx());
        assert_eq!(uint(&more["counts"], "counts"), rest.iter().map(|t| counts(t)).sum::<u64>(), "{}", ctx());
        assert_eq!(pct(more), rest.iter().map(|t| pct(t)).sum::<u64>(), "the more line's share: {}", ctx());
    }

    if !opts.cumulative {
        assert_eq!(uint(&v["deleted_tasks"], "deleted_tasks"), deleted.len() as u64, "{}", ctx());
    }
    let deleted_counts =
        uint(&all["deleted_counts"], "deleted_counts") + deleted.iter().map(|t| counts(t)).sum::<u64>();
    assert_eq!(uint(&v["deleted_counts"], "deleted_counts"), deleted_counts, "{}", ctx());
    let deleted_pct = hundredths(&all["deleted_pct"], "deleted_pct") + deleted.iter().map(|t| pct(t)).sum::<u64>();
    assert_eq!(hundredths(&v["deleted_pct"], "deleted_pct"), deleted_pct, "the deleted line's share: {}", ctx());
}

/// The table says what the JSON of the same report (same `-c`, `-s`, `-n`, `-d`)
/// says, line by line: the header, each task's line in the same order (its name
/// cell, its usage cell and, with `-l`, runs, longest run and, since start, their
/// windows and the peak; its `deleted` mark), the "more" line, the deleted tasks'
/// line (since start always, in a window when it sums any), the rule, idle,
/// interrupts, sleep, other, load, the load averages, the ID pool. Returns the JSON.
fn check_table(text: &[u8], opts: Options) -> Value {
    let cumulative = opts.cumulative;
    let table = String::from_utf8(text.to_vec()).expect("ASCII");
    let v = json_with(opts).expect("a JSON report when there is a table");
    // Each line's text, or the texts it may have.
    let mut expected: Vec<Vec<String>> = Vec::new();
    let us = uint(&v[if cumulative { "uptime_us" } else { "window_us" }], "us");
    let clock = format!("clock {} {} Hz", v["clock"].as_str().expect("clock"), v["clock_hz"]);
    expected.push(vec![if cumulative {
        format!("CPU usage since start: {} ({} windows), {clock}", duration(us), v["windows"])
    } else {
        format!("CPU usage, window #{}: {}, {clock}", v["window"], duration(us))
    }]);
    expected.push(vec![format!(
        "  ID  {:NAME_LEN$}   USAGE{}",
        "TASK",
        if opts.long { "      RUNS      LONGEST" } else { "" }
    )]);

    let cell_of = |row: &Value, counts: &str, pct: &str| cell(uint(&row[counts], counts), hundredths(&row[pct], pct));
    // A task's cells after its name, as the JSON says they must be.
    let cells = |t: &Value| {
        let counts = uint(&t["counts"], "counts");
        let mut s = format!(" {}", cell(counts, hundredths(&t["usage_pct"], "usage_pct")));
        if opts.long {
            let us = uint(&t["longest_slice_us"], "longest_slice_us");
            s += &format!("  {:>8}  {:>11}", uint(&t["switches"], "switches"), duration(us));
            if cumulative {
                if !t["longest_slice_window"].is_null() {
                    s += &format!(" in #{}", t["longest_slice_window"]);
                }
                if !t["peak_pct"].is_null() {
                    // A task with time has had its share of some window: a peak of
                    // something, however small.
                    let peak = match hundredths(&t["peak_pct"], "peak_pct") {
                        0 if counts == 0 => "0".to_string(),
                        0 => "<0.01%".to_string(),
                        p => format!("{}.{:02}%", p / 100, p % 100),
                    };
                    s += &format!("  peak {peak} in #{}", t["peak_window"]);
                }
            }
        }
        s
    };
    let task_line = |t: &Value, tail: &str| {
        format!("{:4}  {}{}{tail}", uint(&t["id"], "id"), name_cell(&name_bytes(&t["name"])), cells(t))
    };
    for t in v["tasks"].as_array().expect("tasks") {
        let tail = if t["id"] == 0 {
            // The tasks that shared the bucket in the span shown, not those now.
            let span = if v["mode"] == "cumulative" { "since start" } else { "in the window" };
            format!("  tasks without an ID {span}: {}", t["tasks"])
        } else if t["deleted"] == true {
            "  deleted".to_string()
        } else {
            String::new()
        };
        expected.push(vec![task_line(t, &tail)]);
    }
    let more = &v["more_tasks"];
    if !more.is_null() {
        let count = uint(&more["count"], "more count");
        let label = format!("({count} more task{})", if count == 1 { "" } else { "s" });
        expected.push(vec![format!("      {label:NAME_LEN$} {}", cell_of(more, "counts", "usage_pct"))]);
    }
    let deleted_label = if cumulative {
        Some("(deleted tasks)".to_string())
    } else {
        let count = uint(&v["deleted_tasks"], "deleted_tasks");
        (count > 0).then(|| format!("({count} deleted)"))
    };
    if let Some(label) = deleted_label {
        expected.push(vec![format!("      {label:NAME_LEN$} {}", cell_of(&v, "deleted_counts", "deleted_pct"))]);
    }
    expected.push(vec![format!("  {}", "-".repeat(NAME_LEN + 14 + if opts.long { 23 } else { 0 }))]);
    match &v["idle"] {
        Value::Null => expected.push(vec!["      idle: not known until the scheduler starts".into()]),
        idle => {
            let idle = serde_json::json!({
                "id": idle["id"], "name": idle["name"],
                "counts": idle["counts"], "usage_pct": v["idle_pct"], "switches": idle["switches"],
                "longest_slice_us": idle["longest_slice_us"], "longest_slice_window": idle["longest_slice_window"],
                "peak_pct": idle["peak_pct"], "peak_window": idle["peak_window"],
            });
            expected.push(vec![task_line(&idle, "  idle")]);
        }
    }
    let summary = |name: &str, cell: String, note: String| {
        vec![format!("      {:NAME_LEN$} {cell}  {note}", &name[..name.len().min(NAME_LEN)])]
    };
    let longest = duration(uint(&v["longest_interrupt_us"], "longest_interrupt_us"));
    let note = format!("{} interrupts, longest {longest}", v["interrupts"]);
    expected.push(summary("interrupts", cell_of(&v, "interrupts_counts", "interrupts_pct"), note));
    expected.push(summary("sleep", cell_of(&v, "sleep_counts", "sleep_pct"), "asleep in tickless idle".into()));
    expected.push(summary("other", cell_of(&v, "other_counts", "other_pct"), "kernel and unattributed".into()));
    let length_key = if cumulative { "uptime_counts" } else { "window_counts" };
    let busy = uint(&v[length_key], length_key)
        - v["idle"]["counts"].as_u64().unwrap_or(0)
        - uint(&v["sleep_counts"], "sleep_counts");
    expected.push(summary("load", cell(busy, hundredths(&v["load_pct"], "load_pct")), "100% - idle - sleep".into()));
    // An average is `-` when not known; a share of 0.00 is `0` when nothing was busy
    // or `<0.01%` when something was, which the JSON does not say: either.
    let averages: Vec<Vec<String>> = v["load_avg_pct"]
        .as_array()
        .expect("load_avg_pct")
        .iter()
        .map(|a| match a {
            Value::Null => vec!["-".to_string()],
            a => match hundredths(a, "load_avg_pct") {
                0 => vec![format!("{:>6}", 0), "<0.01%".to_string()],
                h => vec![format!("{:>2}.{:02}%", h / 100, h % 100)],
            },
        })
        .collect();
    let mut load_avg = Vec::new();
    for a in &averages[0] {
        for b in &averages[1] {
            for c in &averages[2] {
                load_avg.push(format!("load avg   1 s {a}  10 s {b}  60 s {c}"));
            }
        }
    }
    expected.push(load_avg);
    let s = &v["slots"];
    let ids = format!(
        "IDs now: {} used, {} quarantined, {} free of {}; tasks without one: {}",
        s["used"], s["quarantined"], s["free"], s["capacity"], s["overflow_tasks"]
    );
    expected.push(vec![ids]);

    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), expected.len(), "{} lines expected ({opts:?}): {v}\n{table}", expected.len());
    for (line, texts) in lines.iter().zip(&expected) {
        assert!(texts.iter().any(|t| same(line, t)), "{line:?}, expected {texts:?} ({opts:?}): {v}\n{table}");
    }
    v
}

/// A name for the table: printable ASCII as is, any other byte as `?`, `(no name)`
/// when empty, padded to `NAME_LEN` columns.
fn name_cell(name: &[u8]) -> String {
    let name: &[u8] = if name.is_empty() { b"(no name)" } else { name };
    let name: String =
        name.iter().take(NAME_LEN).map(|&b| if (0x20..0x7f).contains(&b) { b as char } else { '?' }).collect();
    format!("{name:NAME_LEN$}")
}

/// `line` is `expected`, where a run too short for a microsecond may show as `0`
/// (no counts at all) instead of `0.000 ms` (the JSON has microseconds only).
fn same(line: &str, expected: &str) -> bool {
    line == expected
        || line == expected.replacen("   0.000 ms", "          0", 1)
        || line == expected.replacen("longest 0.000 ms", "longest 0", 1)
}

/// A duration as the table shows it: microseconds as `1234.567 ms`, from 100 s on
/// `123.456 s`.
fn duration(us: u64) -> String {
    if us >= 100_000_000 {
        format!("{}.{:03} s", us / 1_000_000, us / 1000 % 1000)
    } else {
        format!("{}.{:03} ms", us / 1000, us % 1000)
    }
}

/// A usage cell, 7 columns: `0` for no time, `<0.01%` for a share too small to show,
/// else the share with two decimals.
fn cell(counts: u64, hundredths: u64) -> String {
    match (counts, hundredths) {
        (0, _) => format!("{:>7}", 0),
        (_, 0) => " <0.01%".to_string(),
        (_, h) => format!("{:3}.{:02}%", h / 100, h % 100),
    }
}
