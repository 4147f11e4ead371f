//! The `cpu_usage_watchdog` shell command: its arguments and its texts. The caller
//! applies the settings; this only reads and writes them, with the same rules as the
//! report (integer only, no `core::fmt`, no panic path).

use super::args::{Args, BadArgs, Value};
use super::out::{Out, Sink};
use super::usage::write_problem;

/// What `cpu_usage_watchdog` was asked to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WatchCmd {
    /// No argument: show the settings.
    Status,
    /// `load <pct> <windows>`: alert when the load stays above `pct` (in hundredths
    /// of a percent, 0 to 10000) for `windows` windows in a row; `load off`: `None`.
    Load(Option<(u32, u32)>),
    /// `slice <us>`: alert when a task runs longer than `us` microseconds in one go;
    /// `slice off`: `None`.
    Slice(Option<u32>),
    /// `off`: both off.
    Off,
}

/// The load threshold: a percentage with up to two decimals.
const PCT: Value = Value { option: "load", lo: 0, hi: 100, hundredths: true };
/// Windows in a row: at least one.
const WINDOWS: Value = Value { option: "windows", lo: 1, hi: u32::MAX, hundredths: false };
/// The slice threshold in microseconds: at least one.
const SLICE: Value = Value { option: "slice", lo: 1, hi: u32::MAX, hundredths: false };

/// Parses the arguments after the command name: nothing, `off`, `load <pct>
/// <windows>`, `load off`, `slice <us>` or `slice off`. The first bad argument is
/// refused: an unexpected word (or one too many) as
/// [`Problem::Unknown`](super::Problem::Unknown).
pub fn parse_watchdog<'a>(args: impl IntoIterator<Item = &'a [u8]>) -> Result<WatchCmd, BadArgs> {
    parse_from(&mut args.into_iter())
}

#[inline(never)]
fn parse_from<'a>(args: &mut dyn Args<'a>) -> Result<WatchCmd, BadArgs> {
    let cmd = match args.next_arg() {
        None => return Ok(WatchCmd::Status),
        Some(b"off") => WatchCmd::Off,
        Some(word @ b"load") => match args.next_arg() {
            Some(b"off") => WatchCmd::Load(None),
            pct => {
                let pct = PCT.read(word, pct)?;
                let windows = WINDOWS.read(word, args.next_arg())?;
                WatchCmd::Load(Some((pct, windows)))
            }
        },
        Some(word @ b"slice") => match args.next_arg() {
            Some(b"off") => WatchCmd::Slice(None),
            us => WatchCmd::Slice(Some(SLICE.read(word, us)?)),
        },
        Some(other) => return Err(BadArgs::unknown(other)),
    };
    match args.next_arg() {
        Some(extra) => Err(BadArgs::unknown(extra)),
        None => Ok(cmd),
    }
}

/// The settings: `watchdog: load > 80.00% for 3 windows; slice > 5000 us`, or
/// `off` for either. `load` is (hundredths of a percent, windows).
pub fn write_watchdog_status(sink: &mut dyn Sink, load: Option<(u32, u32)>, slice_us: Option<u32>) {
    let out = &mut Out(sink);
    out.put(b"watchdog: load ");
    match load {
        Some((pct, windows)) => {
            out.put(b"> ");
            out.pct(u64::from(pct), 0);
            out.put(b"% for ");
            out.num(u64::from(windows), 0, b' ');
            out.put(if windows == 1 { b" window" } else { b" windows" });
        }
        None => out.put(b"off"),
    }
    out.put(b"; slice ");
    match slice_us {
        Some(us) => {
            out.put(b"> ");
            out.num(u64::from(us), 0, b' ');
            out.put(b" us\n");
        }
        None => out.put(b"off\n"),
    }
}

/// The command's help.
pub fn write_watchdog_usage(sink: &mut dyn Sink) {
    sink.put(
        b"usage: cpu_usage_watchdog [load <pct> <windows> | load off | slice <us> | slice off | off]\n\
          \x20 (none)                the settings\n\
          \x20 load <pct> <windows>  alert when the load stays above pct% (0 to 100, up to\n\
          \x20                       two decimals) for that many windows in a row\n\
          \x20 slice <us>            alert when a task runs longer than us microseconds\n\
          \x20                       in one go\n\
          \x20 load off, slice off   that alert off; off: both\n",
    );
}

/// What is wrong with the arguments, then the help.
pub fn write_watchdog_error(sink: &mut dyn Sink, bad: &BadArgs) {
    write_problem(&mut Out(sink), b"cpu_usage_watchdog: ", b"unexpected argument ", bad);
    write_watchdog_usage(sink);
}
