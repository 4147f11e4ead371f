//! The command's options as its help defines them, written out independently of the
//! library's parser, and the `argv` arrays the targets hand to it.

use std::ffi::{c_char, c_int};
use std::ptr;

use arbitrary::Arbitrary;
use freertos_cpu_usage::report::{Options, Problem};

use crate::cstr::{exact, exact_ptrs};
use crate::{ERR_NULL, ERR_OPTION, MAX_ARGS, MAX_ARG_LEN};

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
