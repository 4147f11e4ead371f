//! Options of the `show_cpu_usage` command, and the argument errors of every command.
//!
//! The grammar is getopt's, without long options: flags combine in one argument
//! (`-ms`); a value option takes the rest of its argument (`-n5`) or, when that is
//! empty, the next argument (`-n 5`), so in a group it comes last (`-sn 5`). The
//! count of `-f` is optional: it is taken from the next argument only when that
//! starts with a digit.

/// What the user asked for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// `-m`: one line of JSON instead of the table.
    pub json: bool,
    /// `-c`: since start instead of the last window.
    pub cumulative: bool,
    /// `-h`: the usage text.
    pub help: bool,
    /// `-s`: tasks by usage, largest first (ties by ID).
    pub sort: bool,
    /// `-l`: runs (times switched in) and longest runs.
    pub long: bool,
    /// `-n N`: only the N busiest tasks (sorted), the rest summed on one line.
    pub top: Option<u16>,
    /// `-d`: the tasks deleted in the window one by one, instead of summed on one
    /// line (a since-start report always sums them).
    pub deleted: bool,
    /// `-w MS`: set the window length (the caller applies it).
    pub window_ms: Option<u32>,
    /// `-f [N]`: a report per completed window, `N` of them, or with `Some(0)` until
    /// input arrives (the caller waits for the windows).
    pub follow: Option<u32>,
}

/// What is wrong with an argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Problem {
    /// Not an option of the command (for a command with words, an unexpected word).
    Unknown,
    /// An option that takes a value came last, without it.
    MissingValue,
    /// The value is not a decimal number (of the decimals allowed).
    NotANumber,
    /// The value is a number outside the range accepted.
    OutOfRange,
}

/// An argument a command refused, kept (cut to fit) for the error message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BadArgs {
    /// The first bytes of the argument refused ([`Problem::Unknown`]), of the one
    /// whose option has no value ([`Problem::MissingValue`], e.g. `-sn`), or of the
    /// value.
    pub arg: [u8; 24],
    /// How many of `arg` are used.
    pub len: usize,
    /// What is wrong.
    pub problem: Problem,
    /// The option or word whose value is wrong (`-n`, `load`, ...); empty for
    /// [`Problem::Unknown`].
    pub option: &'static str,
    /// The lowest and highest value accepted, as typed (so a percentage is 0 to 100).
    pub range: [u32; 2],
}

impl BadArgs {
    #[inline(never)]
    fn new(arg: &[u8], problem: Problem, value: &Value) -> Self {
        // Built byte by byte rather than copied into a zeroed array: no memclr call.
        BadArgs {
            arg: core::array::from_fn(|i| arg.get(i).copied().unwrap_or(0)),
            len: arg.len().min(24),
            problem,
            option: value.option,
            range: [value.lo, value.hi],
        }
    }

    /// An argument that is no option of the command.
    pub(super) fn unknown(arg: &[u8]) -> Self {
        BadArgs::new(arg, Problem::Unknown, &Value { option: "", lo: 0, hi: 0, hundredths: false })
    }

    /// The offending argument (its first 24 bytes).
    pub fn text(&self) -> &[u8] {
        self.arg.get(..self.len).unwrap_or(&[])
    }
}

/// A value an option takes: a decimal number from `lo` to `hi`, with up to two
/// decimals if `hundredths` (then returned in hundredths).
pub(super) struct Value {
    pub(super) option: &'static str,
    pub(super) lo: u32,
    pub(super) hi: u32,
    pub(super) hundredths: bool,
}

impl Value {
    /// `value` read, or why not; `option` is the argument that asked for it (named
    /// when the value is missing).
    pub(super) fn read(&self, option: &[u8], value: Option<&[u8]>) -> Result<u32, BadArgs> {
        let Some(text) = value else { return Err(BadArgs::new(option, Problem::MissingValue, self)) };
        let scale = if self.hundredths { 100 } else { 1 };
        match number(text, self.hundredths) {
            Ok(n) if (self.lo.wrapping_mul(scale)..=self.hi.wrapping_mul(scale)).contains(&n) => Ok(n),
            Ok(_) => Err(BadArgs::new(text, Problem::OutOfRange, self)),
            Err(problem) => Err(BadArgs::new(text, problem, self)),
        }
    }
}

/// `text` as a decimal number, in hundredths if `hundredths` (which allows up to two
/// decimals, after a point with digits on both sides). Past 32 bits it is out of
/// range, unless it is not a number at all. (32-bit arithmetic: 64-bit takes a lot
/// more code on Cortex-M3.)
fn number(text: &[u8], hundredths: bool) -> Result<u32, Problem> {
    let mut n: u32 = 0;
    let mut big = false;
    let mut push = |digit: u8| match n.checked_mul(10).and_then(|n| n.checked_add(u32::from(digit))) {
        Some(m) => n = m,
        None => big = true,
    };
    let mut whole = false;
    // Digits after the point; None: no point (yet).
    let mut decimals: Option<u8> = None;
    for &b in text {
        let digit = b.wrapping_sub(b'0');
        match decimals {
            _ if digit >= 10 => {
                if b != b'.' || !hundredths || !whole || decimals.is_some() {
                    return Err(Problem::NotANumber);
                }
                decimals = Some(0);
                continue;
            }
            None => whole = true,
            Some(d) if d < 2 => decimals = Some(d + 1),
            Some(_) => return Err(Problem::NotANumber),
        }
        push(digit);
    }
    if !whole || decimals == Some(0) {
        return Err(Problem::NotANumber);
    }
    let wanted = if hundredths { 2 } else { 0 };
    for _ in decimals.unwrap_or(0)..wanted {
        push(0);
    }
    if big {
        Err(Problem::OutOfRange)
    } else {
        Ok(n)
    }
}

/// `-n`: any count from one task up.
const TOP: Value = Value { option: "-n", lo: 1, hi: u16::MAX as u32, hundredths: false };
/// `-w`: from 1 ms to an hour, as `cpu_usage_set_window_ms` takes.
const WINDOW: Value = Value { option: "-w", lo: 1, hi: 3_600_000, hundredths: false };

/// `-f N`: from one window to a million (at one a second, eleven days).
const FOLLOW: Value = Value { option: "-f", lo: 1, hi: 1_000_000, hundredths: false };

/// Parses the arguments after the command name. Flags may be combined (`-mc`); see
/// the module comment for values. The first bad argument is refused.
pub fn parse<'a>(args: impl IntoIterator<Item = &'a [u8]>) -> Result<Options, BadArgs> {
    // One copy of the parser in flash, whatever the callers' iterators.
    parse_from(&mut args.into_iter())
}

/// The arguments, one after the other. The parsers take them as `dyn Args`: one
/// copy of each parser in flash whatever the callers' iterators, and a table of one
/// method (`dyn Iterator`'s would bring every method of `Iterator`).
pub(super) trait Args<'a> {
    fn next_arg(&mut self) -> Option<&'a [u8]>;
}

impl<'a, I: Iterator<Item = &'a [u8]>> Args<'a> for I {
    fn next_arg(&mut self) -> Option<&'a [u8]> {
        self.next()
    }
}

#[inline(never)]
fn parse_from<'a>(args: &mut dyn Args<'a>) -> Result<Options, BadArgs> {
    let mut opts = Options::default();
    // An argument read ahead by `-f` that was not its count.
    let mut held: Option<&'a [u8]> = None;
    while let Some(arg) = held.take().or_else(|| args.next_arg()) {
        if !matches!(arg, [b'-', _, ..]) {
            return Err(BadArgs::unknown(arg));
        }
        let mut flags = arg.get(1..).unwrap_or(&[]);
        while let Some((&flag, rest)) = flags.split_first() {
            flags = rest;
            match flag {
                b'm' => opts.json = true,
                b'c' => opts.cumulative = true,
                b'h' => opts.help = true,
                b's' => opts.sort = true,
                b'l' => opts.long = true,
                b'd' => opts.deleted = true,
                b'n' | b'w' => {
                    let value = if rest.is_empty() { args.next_arg() } else { Some(rest) };
                    if flag == b'n' {
                        opts.top = Some(TOP.read(arg, value)? as u16);
                    } else {
                        opts.window_ms = Some(WINDOW.read(arg, value)?);
                    }
                    break;
                }
                b'f' => {
                    // The count is optional: the rest of the argument, or the next
                    // argument if that starts with a digit (`-f 5`, but `-f -m`).
                    let value = if rest.is_empty() {
                        match args.next_arg() {
                            Some(next) if next.first().is_some_and(u8::is_ascii_digit) => Some(next),
                            next => {
                                held = next;
                                None
                            }
                        }
                    } else {
                        Some(rest)
                    };
                    opts.follow = Some(match value {
                        Some(_) => FOLLOW.read(arg, value)?,
                        None => 0,
                    });
                    break;
                }
                _ => return Err(BadArgs::unknown(arg)),
            }
        }
    }
    Ok(opts)
}
