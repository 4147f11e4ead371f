//! The shell command `show_cpu_usage` and its twin into a buffer, `cpu_usage_format`
//! (the `shell` feature).

use core::ffi::{c_char, c_int};

use super::args::Argv;
use super::config::{cpu_usage_set_window_ms, FollowWaitFn};
use super::sink::{self, BufSink, LineSink};
use super::status::cpu_usage_status as St;
use super::{let_go, read_line, with_library};
use crate::engine::{arith, Header, Line, Smoothed, Stamp};
use crate::report::{self, BadArgs, Changed, ClockInfo, Options, Sink, Source};

/// The engine's lines, each read in a critical section of its own, while the
/// figures are those of the header.
pub(super) struct Live {
    pub(super) since_start: bool,
    pub(super) stamp: Stamp,
}

impl Source for Live {
    fn load_avg(&mut self) -> Result<[Smoothed; 3], Changed> {
        with_library(|st| st.engine.still(self.stamp, self.since_start).then(|| st.engine.load_avg())).ok_or(Changed)
    }

    fn line(&mut self, at: usize, line: &mut Line) -> Result<(), Changed> {
        if read_line(at, self.since_start, self.stamp, line) {
            Ok(())
        } else {
            Err(Changed)
        }
    }
}

/// What a report needs besides its lines, read into `header` in one critical
/// section, and the clock: `Err` with the window length in milliseconds before the
/// first window has completed. `hold`: and hold the window under way open until
/// `let_go(header.stamp)` (see `Engine::hold`), in the same critical section, so
/// that no window ends between the two. (Apart, so that what it reads goes through
/// its own frame, not the report's.)
#[inline(never)]
pub(super) fn header_into(opts: &Options, header: &mut Header, hold: bool) -> Result<ClockInfo<'static>, u32> {
    with_library(|st| {
        let clock = ClockInfo { hz: st.config.clock.hz, name: st.config.clock.name.as_str() };
        match st.engine.header(opts.cumulative) {
            Some(read) => {
                *header = read;
                if hold {
                    st.engine.hold();
                }
                Ok(clock)
            }
            None => Err(st.config.window_ms),
        }
    })
}

/// Writes the report `opts` asks for, once: its window is held open while it goes
/// out. Returns 0, `CPU_USAGE_ERR_NO_WINDOW`, or `CPU_USAGE_ERR_CHANGED` with the
/// report cut and a line saying so.
pub(crate) fn report(out: &mut dyn Sink, opts: &Options) -> i32 {
    let mut header = Header::EMPTY;
    let clock = match header_into(opts, &mut header, true) {
        Ok(clock) => clock,
        Err(window_ms) => {
            report::write_no_window(out, *opts, window_ms);
            return St::CPU_USAGE_ERR_NO_WINDOW.code();
        }
    };
    out.begin();
    let mut live = Live { since_start: opts.cumulative, stamp: header.stamp };
    let written = report::write_report(out, opts, clock, &header, &mut live, &mut None);
    let_go(header.stamp);
    if written.is_err() {
        write_cut(out);
        return St::CPU_USAGE_ERR_CHANGED.code();
    }
    St::CPU_USAGE_OK.code()
}

/// Voids the report under way (see `Sink::void`) and says why.
fn write_cut(out: &mut dyn Sink) {
    out.void();
    write_changed(out);
}

/// The line that says why a report was cut.
pub(super) fn write_changed(out: &mut dyn Sink) {
    out.put(b"show_cpu_usage: ");
    out.put(St::CPU_USAGE_ERR_CHANGED.message());
    out.put(b"\n");
}

/// What the arguments ask for: `Ok` with the options of a report in `opts`; `Err`
/// with the status once the text that answers them (help, or what is wrong) is
/// written. `parse` parses them (here, so that what it returns is on the stack only
/// until the options are known; and the options are written into the caller's
/// place, not returned: one copy of them under the report). `can_follow`: `-f` is
/// possible here (else it is refused before anything is done). `apply`: set the
/// window `-w` asks for (else only say so again).
#[inline(never)]
pub(super) fn options(
    out: &mut dyn Sink,
    parse: &mut dyn FnMut() -> Result<Options, BadArgs>,
    can_follow: bool,
    apply: bool,
    opts: &mut Options,
) -> Result<(), i32> {
    let parsed = parse();
    // The longest window is the clock's: an hour, or 2^31 counts if that is less.
    // (Worked out after the critical section: it divides.)
    let longest = arith::max_window_ms(with_library(|st| st.config.clock.hz));
    *opts = match parsed {
        Ok(opts) => opts,
        Err(bad) => {
            // (A window refused by the parser is refused for the clock's range.)
            let bad = if bad.option == "-w" { BadArgs { range: [1, longest], ..bad } } else { bad };
            report::write_error(out, &bad, longest);
            return Err(St::CPU_USAGE_ERR_OPTION.code());
        }
    };
    if opts.help {
        report::write_usage(out, longest);
        return Err(St::CPU_USAGE_OK.code());
    }
    if opts.follow.is_some() && !can_follow {
        sink::write_bad_args(out, b"show_cpu_usage", St::CPU_USAGE_ERR_FOLLOW);
        return Err(St::CPU_USAGE_ERR_FOLLOW.code());
    }
    if let Some(ms) = opts.window_ms {
        let status = if apply { cpu_usage_set_window_ms(ms) } else { St::CPU_USAGE_OK.code() };
        if status != St::CPU_USAGE_OK.code() {
            report::write_window_refused(out, ms, longest);
            return Err(status);
        }
        report::write_window_set(out, ms);
    }
    Ok(())
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
    let wait = with_library(|st| st.config.follow_wait);
    // SAFETY: forwarded contract.
    unsafe {
        sink::command(argc, argv, b"show_cpu_usage", |out, args| {
            let mut opts = Options::default();
            if let Err(status) = options(out, &mut || report::parse(args.words()), wait.is_some(), true, &mut opts) {
                return status;
            }
            match wait {
                Some(wait) if opts.follow.is_some() => follow(out, &opts, wait),
                _ => report(out, &opts),
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
fn follow(out: &mut LineSink, opts: &Options, wait: FollowWaitFn) -> i32 {
    let mut last = None;
    let mut left = opts.follow.unwrap_or(0);
    loop {
        let (mark, window_ms) = with_library(|st| (st.engine.window_mark(), st.config.window_ms));
        if mark.is_some() && mark != last {
            last = mark;
            report(out, opts);
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
        Ok(args) => {
            let mut opts = Options::default();
            match options(&mut out, &mut || report::parse(args.words()), false, true, &mut opts) {
                Ok(()) => report(&mut out, &opts),
                Err(status) => status,
            }
        }
    };
    out.terminate(out.needed);
    if status != 0 {
        return status;
    }
    c_int::try_from(out.needed).unwrap_or(c_int::MAX)
}
