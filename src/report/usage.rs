//! The command's help, what is wrong with its arguments, and its one-line answers
//! (a window set or refused, no window yet).

use super::args::Problem;
use super::out::{Out, Sink};
use super::{BadArgs, Options};

/// The command's help; `longest_ms` is the longest window the clock in use allows
/// (see `arith::max_window_ms`).
pub fn write_usage(sink: &mut dyn Sink, longest_ms: u32) {
    sink.put(
        b"usage: show_cpu_usage [-m] [-c] [-s] [-n N] [-d] [-l] [-w MS] [-f [N]] [-h]\n\
          \x20 (none)  CPU usage per task in the last completed window\n\
          \x20 -m      the same as one line of JSON\n\
          \x20 -c      since start (to the end of the last window) instead\n\
          \x20 -s      tasks sorted by usage, largest first\n\
          \x20 -n N    only the N busiest tasks, the others summed on one line\n\
          \x20 -d      the tasks deleted in the window one by one, not summed\n\
          \x20 -l      runs (times switched in) and longest run of each task\n\
          \x20 -w MS   windows of MS ms (1 to ",
    );
    Out(sink).num(u64::from(longest_ms), 0, b' ');
    sink.put(
        b"), from the window under way\n\
          \x20 -f [N]  follow: a report per completed window, N of them or until input\n\
          \x20 -h      this help\n",
    );
}

/// What is wrong with an argument, on one line after `command`: `unknown` and the
/// argument when it is no option, else the option, what is wrong with its value and
/// the values accepted.
pub(super) fn write_problem(out: &mut Out<'_>, command: &[u8], unknown: &[u8], bad: &BadArgs) {
    out.put(command);
    if bad.problem == Problem::Unknown {
        out.put(unknown);
        out.json_str(bad.text());
    } else {
        out.put(bad.option.as_bytes());
        if bad.problem == Problem::MissingValue {
            out.put(b": missing value");
        } else {
            out.byte(b' ');
            out.json_str(bad.text());
            out.put(if bad.problem == Problem::NotANumber { b": not a number" } else { b": out of range" });
        }
        let [lo, hi] = bad.range;
        out.put(b" (");
        out.num(u64::from(lo), 0, b' ');
        out.put(b" to ");
        out.num(u64::from(hi), 0, b' ');
        out.byte(b')');
    }
    out.byte(b'\n');
}

/// What is wrong with the arguments, then the help (`longest_ms` as for
/// `write_usage`).
pub fn write_error(sink: &mut dyn Sink, bad: &BadArgs, longest_ms: u32) {
    write_problem(&mut Out(sink), b"show_cpu_usage: ", b"unknown option ", bad);
    write_usage(sink, longest_ms);
}

/// `-w`: a window longer than the clock allows (`longest_ms`), in the words of the
/// argument errors, then the help.
pub fn write_window_refused(sink: &mut dyn Sink, ms: u32, longest_ms: u32) {
    let out = &mut Out(sink);
    out.put(b"show_cpu_usage: -w \"");
    out.int(u64::from(ms));
    out.put(b"\": out of range (1 to ");
    out.int(u64::from(longest_ms));
    out.put(b")\n");
    write_usage(sink, longest_ms);
}

/// `-w`: the new window length was applied.
pub fn write_window_set(sink: &mut dyn Sink, ms: u32) {
    let out = &mut Out(sink);
    out.put(b"window set to ");
    out.num(u64::from(ms), 0, b' ');
    out.put(b" ms (from the window under way)\n");
}

/// No window has completed yet since accounting started.
pub fn write_no_window(sink: &mut dyn Sink, opts: Options, window_ms: u32) {
    let out = &mut Out(sink);
    let (before, after): (&[u8], &[u8]) = if opts.json {
        (b"{\"mode\":\"window\",\"error\":\"no completed window yet\",\"window_ms\":", b"}\n")
    } else {
        (b"no completed window yet: the first ends ", b" ms after start\n")
    };
    out.put(before);
    out.num(u64::from(window_ms), 0, b' ');
    out.put(after);
}
