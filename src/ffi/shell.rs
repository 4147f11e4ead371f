//! The shell command `show_cpu_usage` and its twin into a buffer, `cpu_usage_format`
//! (the `shell` feature).

use core::ffi::{c_char, c_int};

use super::args::Argv;
use super::config::{cpu_usage_set_window_ms, FollowWaitFn};
use super::sink::{self, BufSink, LineSink};
use super::status::cpu_usage_status as St;
use super::with_state;
use crate::engine::{Row, Summary};
use crate::report::{self, BadArgs, ClockInfo, Options, Sink, REPORT_ROWS};

/// What a report shows, copied out of the engine inside one critical section, so
/// that everything in it is of one moment.
pub(super) struct ReportCopy {
    rows: [Row; REPORT_ROWS],
    /// `None` before the first window has completed (window reports only).
    summary: Option<Summary>,
    clock: ClockInfo<'static>,
    window_ms: u32,
}

impl ReportCopy {
    pub(super) const EMPTY: ReportCopy = ReportCopy {
        rows: [Row::EMPTY; REPORT_ROWS],
        summary: None,
        clock: ClockInfo { hz: 0, name: "" },
        window_ms: 0,
    };

    /// Takes the figures `opts` asks for.
    pub(super) fn take(&mut self, opts: &Options) {
        with_state(|st| {
            self.clock = ClockInfo { hz: st.config.clock.hz, name: st.config.clock.name.as_str() };
            self.window_ms = st.config.window_ms;
            self.summary = if opts.cumulative {
                Some(st.engine.read_cumulative(&mut self.rows))
            } else {
                st.engine.read_window(&mut self.rows)
            };
        });
    }

    /// Writes the report of the copy. Returns 0 or `CPU_USAGE_ERR_NO_WINDOW`. The
    /// report sorts, cuts and rounds the rows in place: write a copy once only (or
    /// see `write_again`).
    fn write(&mut self, sink: &mut dyn Sink, opts: Options) -> i32 {
        match &self.summary {
            Some(summary) => {
                report::write_report(sink, opts, self.clock, summary, &mut self.rows);
                St::CPU_USAGE_OK.code()
            }
            None => {
                report::write_no_window(sink, opts, self.window_ms);
                St::CPU_USAGE_ERR_NO_WINDOW.code()
            }
        }
    }
}

impl ReportCopy {
    /// Copies the figures `opts` asks for inside the critical section, then writes
    /// their report after it. Returns as `write`.
    pub(super) fn report(sink: &mut dyn Sink, opts: Options) -> i32 {
        let mut copy = ReportCopy::EMPTY;
        copy.take(&opts);
        copy.write(sink, opts)
    }

    /// Writes the report of the copy, leaving the copy as it is (for
    /// `cpu_usage_cli_command`, which writes the same report at every call).
    pub(super) fn write_again(&self, sink: &mut dyn Sink, opts: Options) -> i32 {
        let mut once =
            ReportCopy { rows: self.rows, summary: self.summary, clock: self.clock, window_ms: self.window_ms };
        once.write(sink, opts)
    }
}

/// What the arguments ask for: `Ok` with the options of a report; `Err` with the
/// status once the text that answers them (help, or what is wrong) is written.
/// `can_follow`: `-f` is possible here (else it is refused before anything is done).
pub(super) fn options(out: &mut dyn Sink, parsed: Result<Options, BadArgs>, can_follow: bool) -> Result<Options, i32> {
    let opts = match parsed {
        Ok(opts) => opts,
        Err(bad) => {
            report::write_error(out, &bad);
            return Err(St::CPU_USAGE_ERR_OPTION.code());
        }
    };
    if opts.help {
        report::write_usage(out);
        return Err(St::CPU_USAGE_OK.code());
    }
    if opts.follow.is_some() && !can_follow {
        sink::write_bad_args(out, b"show_cpu_usage", St::CPU_USAGE_ERR_FOLLOW);
        return Err(St::CPU_USAGE_ERR_FOLLOW.code());
    }
    if let Some(ms) = opts.window_ms {
        let status = cpu_usage_set_window_ms(ms);
        if status != St::CPU_USAGE_OK.code() {
            sink::write_bad_args(out, b"show_cpu_usage", St::CPU_USAGE_ERR_WINDOW);
            return Err(status);
        }
        report::write_window_set(out, ms);
    }
    Ok(opts)
}

/// The shell command: prints the last completed window (or, with `-c`, the figures
/// since start; with `-m`, as one line of JSON) to the output set by
/// `cpu_usage_set_output` (standard output on a hosted build). `argv[0]` is the
/// command's name. Returns 0; or prints what is wrong and the usage and returns
/// `CPU_USAGE_ERR_OPTION` or `CPU_USAGE_ERR_NULL`; or `CPU_USAGE_ERR_NO_WINDOW`
/// before the first window completes; or `CPU_USAGE_ERR_NO_OUTPUT`. (The `shell`
/// feature.)
///
/// # Safety
/// `argv[0..argc]`, when `argv` is not NULL, must be readable pointers to C strings
/// (or NULL, which is refused).
#[no_mangle]
pub unsafe extern "C" fn show_cpu_usage(argc: c_int, argv: *mut *mut c_char) -> c_int {
    let wait = with_state(|st| st.config.follow_wait);
    // SAFETY: forwarded contract.
    unsafe {
        sink::command(argc, argv, b"show_cpu_usage", |out, args| {
            match (options(out, report::parse(args.words()), wait.is_some()), wait) {
                (Ok(opts), Some(wait)) if opts.follow.is_some() => follow(out, opts, wait),
                (Ok(opts), _) => ReportCopy::report(out, opts),
                (Err(status), _) => status,
            }
        })
    }
}

/// Follow mode: a report each time a window completes (the last completed one at
/// once, if any), until `opts.follow` reports are written (0: no limit) or `wait`
/// says input arrived. Between reports it waits on the console in steps of a tenth
/// of the window (10 to 100 ms), so a report follows its window's end within a step;
/// windows that complete within one step are reported once, by the last of them
/// (the window numbers then skip). Returns 0, or `CPU_USAGE_ERR_NO_OUTPUT`.
fn follow(out: &mut LineSink, opts: Options, wait: FollowWaitFn) -> i32 {
    let mut last = None;
    let mut left = opts.follow.unwrap_or(0);
    loop {
        let (mark, window_ms) = with_state(|st| (st.engine.window_mark(), st.config.window_ms));
        if mark.is_some() && mark != last {
            last = mark;
            ReportCopy::report(out, opts);
            out.flush();
            if out.failed {
                return St::CPU_USAGE_ERR_NO_OUTPUT.code();
            }
            if left == 1 {
                return St::CPU_USAGE_OK.code();
            }
            left = left.saturating_sub(1);
        }
        // SAFETY: the application's function.
        if unsafe { wait((window_ms / 10).clamp(10, 100)) } != 0 {
            return St::CPU_USAGE_OK.code();
        }
    }
}

/// The same text as `show_cpu_usage`, into `buf`: at most `len - 1` bytes and a NUL.
/// Returns the length of the whole text (without the NUL), so a return value of
/// `len` or more means it was cut; or a negative status, with the error message in
/// `buf`. `buf` may be NULL only when `len` is 0, to ask for the length. (The
/// `shell` feature.)
///
/// # Safety
/// `buf` must be writable for `len` bytes; `argv` as for `show_cpu_usage`.
#[no_mangle]
pub unsafe extern "C" fn cpu_usage_format(buf: *mut c_char, len: usize, argc: c_int, argv: *mut *mut c_char) -> c_int {
    // SAFETY: forwarded contract.
    let Some(mut out) = (unsafe { BufSink::new(buf, len, 0) }) else {
        return St::CPU_USAGE_ERR_NULL.code();
    };
    // SAFETY: forwarded contract.
    let status = match unsafe { Argv::check(argc, argv) } {
        Err(status) => {
            sink::write_bad_args(&mut out, b"show_cpu_usage", status);
            status.code()
        }
        Ok(args) => match options(&mut out, report::parse(args.words()), false) {
            Ok(opts) => ReportCopy::report(&mut out, opts),
            Err(status) => status,
        },
    };
    out.terminate(out.needed);
    if status != 0 {
        return status;
    }
    c_int::try_from(out.needed).unwrap_or(c_int::MAX)
}
