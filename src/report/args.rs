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
        // Built byte by byte rather than copied into a zeroed array: no memclr call.
        BadArgs { arg: core::array::from_fn(|i| arg.get(i).copied().unwrap_or(0)), len: arg.len().min(24) }
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
        let mut known = matches!(arg, [b'-', _, ..]);
        for flag in arg.get(1..).unwrap_or(&[]) {
            match flag {
                b'm' => opts.json = true,
                b'c' => opts.cumulative = true,
                b'h' => opts.help = true,
                _ => known = false,
            }
        }
        if !known {
            return Err(BadArgs::new(arg));
        }
    }
    Ok(opts)
}
