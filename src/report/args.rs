//! Options of the `show_cpu_usage` command.

/// What the user asked for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// `-m`: one line of JSON instead of the table.
    pub json: bool,
    /// `-c`: since start instead of the last window.
    pub cumulative: bool,
    /// `-h`: the usage text.
    pub help: bool,
}

/// An argument that is not an option of the command, kept (cut to fit) for the
/// error message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BadArgs {
    /// The argument's first bytes.
    pub arg: [u8; 24],
    /// How many of `arg` are used.
    pub len: usize,
}

impl BadArgs {
    fn new(arg: &[u8]) -> Self {
        let mut bad = BadArgs { arg: [0; 24], len: 0 };
        for (dst, src) in bad.arg.iter_mut().zip(arg) {
            *dst = *src;
            bad.len += 1;
        }
        bad
    }

    /// The offending argument (its first 24 bytes).
    pub fn text(&self) -> &[u8] {
        self.arg.get(..self.len).unwrap_or(&[])
    }
}

/// Parses the arguments after the command name. Flags may be combined (`-mc`).
pub fn parse<'a>(args: impl IntoIterator<Item = &'a [u8]>) -> Result<Options, BadArgs> {
    let mut opts = Options::default();
    for arg in args {
        let flags = match arg {
            [b'-', flags @ ..] if !flags.is_empty() => flags,
            _ => return Err(BadArgs::new(arg)),
        };
        for flag in flags {
            match flag {
                b'm' => opts.json = true,
                b'c' => opts.cumulative = true,
                b'h' => opts.help = true,
                _ => return Err(BadArgs::new(arg)),
            }
        }
    }
    Ok(opts)
}
