//! `report::parse`, the option parser of `show_cpu_usage`, on random arguments.
//!
//! The input is split at NUL bytes into arguments (an empty input is no argument at
//! all), which is what the C side can hand over. Checked against the definition in
//! the command's help: an argument list is accepted exactly when every argument is
//! `-` followed by one or more of `m`, `c`, `h`; the options returned are the flags
//! that appear; a refusal names the first argument that is not an option (its first
//! 24 bytes).

#![no_main]

use freertos_cpu_usage::report::{parse, Options};
use libfuzzer_sys::fuzz_target;

/// The specification, written out independently of the parser.
fn is_option(arg: &[u8]) -> bool {
    arg.len() >= 2 && arg[0] == b'-' && arg[1..].iter().all(|b| b"mch".contains(b))
}

fuzz_target!(|data: &[u8]| {
    let args: Vec<&[u8]> = if data.is_empty() { Vec::new() } else { data.split(|&b| b == 0).collect() };
    match parse(args.iter().copied()) {
        Ok(opts) => {
            assert!(args.iter().all(|a| is_option(a)), "accepted a non-option in {args:?}");
            let flags = |f: u8| args.iter().any(|a| a[1..].contains(&f));
            let expected = Options { json: flags(b'm'), cumulative: flags(b'c'), help: flags(b'h') };
            assert_eq!(opts, expected, "flags of {args:?}");
        }
        Err(bad) => {
            let first = args.iter().find(|a| !is_option(a));
            let first = first.unwrap_or_else(|| panic!("refused {args:?}, which are all options"));
            assert_eq!(bad.text(), &first[..first.len().min(24)], "the refusal names the first bad argument");
            assert_eq!(bad.len, first.len().min(24));
        }
    }
});
