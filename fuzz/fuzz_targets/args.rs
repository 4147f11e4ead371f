//! `report::parse`, the option parser of `show_cpu_usage`, and
//! `report::parse_watchdog`, that of `cpu_usage_watchdog`, on random arguments.
//!
//! The input is split at NUL bytes into arguments (an empty input is no argument at
//! all), which is what the C side can hand over. Checked against the grammars of the
//! commands' help, written out independently of the parsers (`spec_options` in the
//! harness, `spec_watchdog` here): the same options, or the same refusal (what is
//! wrong, the argument named, its first 24 bytes, the option and its range); and the
//! message of a refusal says exactly that.

#![no_main]

use freertos_cpu_usage::report::{
    parse, parse_watchdog, write_error, write_watchdog_error, BadArgs, Problem, Sink, WatchCmd,
};
use freertos_cpu_usage_fuzz::{refusal_message, spec_options, Refusal};
use libfuzzer_sys::fuzz_target;

/// `cpu_usage_watchdog`'s arguments, from its help: nothing; `off`; `load off`;
/// `load <pct> <windows>` with pct from 0 to 100 and up to two decimals (kept in
/// hundredths), windows from 1 to 2^32 - 1; `slice off`; `slice <us>` from 1 to
/// 2^32 - 1; nothing after. The first fault is reported.
fn spec_watchdog(args: &[&[u8]]) -> Result<WatchCmd, Refusal> {
    const MAX: u32 = u32::MAX;
    // A decimal number with up to `decimals` decimals, times 10^decimals.
    let number = |text: &[u8], decimals: usize| -> Option<u128> {
        let s = std::str::from_utf8(text).ok()?;
        let (whole, frac) = match s.split_once('.') {
            Some((w, f)) if decimals > 0 && !f.is_empty() && f.len() <= decimals => (w, f),
            Some(_) => return None,
            None => (s, ""),
        };
        if whole.is_empty() || !(whole.bytes().chain(frac.bytes())).all(|b| b.is_ascii_digit()) {
            return None;
        }
        let digits = format!("{whole}{frac:0<decimals$}");
        Some(digits.parse::<u128>().unwrap_or(u128::MAX))
    };
    let value = |arg: &[u8], text: Option<&[u8]>, option, lo: u32, hi: u32, decimals| {
        let Some(text) = text else { return refuse(Problem::MissingValue, arg, option, [lo, hi]) };
        let scale = 10u128.pow(decimals as u32);
        match number(text, decimals) {
            None => refuse(Problem::NotANumber, text, option, [lo, hi]),
            Some(n) if n < u128::from(lo) * scale || n > u128::from(hi) * scale => {
                refuse(Problem::OutOfRange, text, option, [lo, hi])
            }
            Some(n) => Ok(n as u32),
        }
    };
    let (cmd, used) = match args {
        [] => (WatchCmd::Status, 0),
        [b"off", ..] => (WatchCmd::Off, 1),
        [b"load", b"off", ..] => (WatchCmd::Load(None), 2),
        [b"load", rest @ ..] => {
            let pct = value(b"load", rest.first().copied(), "load", 0, 100, 2)?;
            let windows = value(b"load", rest.get(1).copied(), "windows", 1, MAX, 0)?;
            (WatchCmd::Load(Some((pct, windows))), 3)
        }
        [b"slice", b"off", ..] => (WatchCmd::Slice(None), 2),
        [b"slice", rest @ ..] => {
            (WatchCmd::Slice(Some(value(b"slice", rest.first().copied(), "slice", 1, MAX, 0)?)), 2)
        }
        [other, ..] => return refuse(Problem::Unknown, other, "", [0, 0]),
    };
    match args.get(used) {
        Some(extra) => refuse(Problem::Unknown, extra, "", [0, 0]),
        None => Ok(cmd),
    }
}

fn refuse<T>(problem: Problem, arg: &[u8], option: &'static str, range: [u32; 2]) -> Result<T, Refusal> {
    Err(Refusal { problem, arg: arg[..arg.len().min(24)].to_vec(), option, range })
}

fn refusal(bad: &BadArgs) -> Refusal {
    Refusal { problem: bad.problem, arg: bad.text().to_vec(), option: bad.option, range: bad.range }
}

struct Text(Vec<u8>);

impl Sink for Text {
    fn put(&mut self, bytes: &[u8]) {
        self.0.extend_from_slice(bytes);
    }

    fn void(&mut self) {
        self.0.clear();
    }
}

/// The first line of a refusal's message is what the refusal says.
fn check_message(write: fn(&mut dyn Sink, &BadArgs), bad: &BadArgs, command: &str, unknown: &str) {
    let mut out = Text(Vec::new());
    write(&mut out, bad);
    let text = String::from_utf8(out.0).expect("ASCII");
    let first = text.lines().next().unwrap_or("");
    assert_eq!(first, format!("{command}: {}", refusal_message(&refusal(bad), unknown)));
    assert_eq!(bad.len, bad.text().len());
}

fuzz_target!(|data: &[u8]| {
    let args: Vec<&[u8]> = if data.is_empty() { Vec::new() } else { data.split(|&b| b == 0).collect() };
    let got = parse(args.iter().copied());
    assert_eq!(got.map_err(|bad| refusal(&bad)), spec_options(&args), "show_cpu_usage {args:?}");
    if let Err(bad) = got {
        check_message(|out, bad| write_error(out, bad, 3_600_000), &bad, "show_cpu_usage", "unknown option");
    }
    let got = parse_watchdog(args.iter().copied());
    assert_eq!(got.map_err(|bad| refusal(&bad)), spec_watchdog(&args), "cpu_usage_watchdog {args:?}");
    if let Err(bad) = got {
        check_message(write_watchdog_error, &bad, "cpu_usage_watchdog", "unexpected argument");
    }
});
