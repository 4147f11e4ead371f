//! `show_cpu_usage` as a FreeRTOS+CLI command (the `shell` feature).

use core::cell::UnsafeCell;
use core::ffi::{c_char, c_long};
use core::mem::MaybeUninit;
use core::sync::atomic::{AtomicBool, Ordering};

use super::args::{self, MAX_CMDLINE};
use super::shell::{options, ReportCopy};
use super::sink::{self, BufSink};
use super::status::cpu_usage_status as St;
use super::Shared;
use crate::report::{self, Sink};

/// A report being handed out by `cpu_usage_cli_command`: the copy it is of, and
/// how far it has got. Only linked into firmware that uses the function. (The copy
/// starts uninitialised, so that the static is in `.bss` and costs no flash.)
struct CliReport {
    /// Initialised when `copied` is set.
    copy: MaybeUninit<ReportCopy>,
    /// The report under way is of `copy` (not help or an error).
    copied: bool,
    /// Bytes handed out so far; 0: no report under way.
    offset: usize,
    /// A hash of the command line of the report under way: another line starts
    /// another report.
    line: u32,
}

static CLI: Shared<CliReport> =
    Shared(UnsafeCell::new(CliReport { copy: MaybeUninit::uninit(), copied: false, offset: 0, line: 0 }));

/// FNV-1a: tells command lines apart.
fn line_hash(line: &[u8]) -> u32 {
    line.iter().fold(0x811c_9dc5, |h: u32, &b| (h ^ u32::from(b)).wrapping_mul(0x0100_0193))
}

/// Set while a call of `cpu_usage_cli_command` uses `CLI`.
static CLI_BUSY: AtomicBool = AtomicBool::new(false);

/// `show_cpu_usage` as a FreeRTOS+CLI command (`pdCOMMAND_LINE_CALLBACK`): register
/// it with `FreeRTOS_CLIRegisterCommand` under the name `show_cpu_usage` and
/// `cExpectedNumberOfParameters` -1. `cmdline` is the whole line typed, options
/// as for `show_cpu_usage`. Writes at most `len - 1` bytes of the report and a NUL
/// into `out`, and returns 1 (`pdTRUE`) while more is to come: FreeRTOS+CLI then
/// calls again with the same line, and the report goes on where it stopped. Returns
/// 0 (`pdFALSE`) with the last piece. The figures are copied at the first call, so
/// the pieces are all of one moment, however long the console takes in between;
/// each call formats the report again from that copy up to its piece, so give it a
/// buffer of a few hundred bytes rather than a few dozen. `len` must be at least 2.
/// One task at a time: a second caller meanwhile gets a line saying so. (The
/// `shell` feature.)
///
/// # Safety
/// `out` must be writable for `len` bytes; `cmdline`, if not NULL, a C string.
#[no_mangle]
pub unsafe extern "C" fn cpu_usage_cli_command(out: *mut c_char, len: usize, cmdline: *const c_char) -> c_long {
    if out.is_null() || len < 2 {
        if let (false, Some(nul)) = (out.is_null(), len.checked_sub(1)) {
            // SAFETY: writable for `len` bytes, and `len` is 1.
            unsafe { *out.add(nul) = 0 };
        }
        return 0;
    }
    // SAFETY: the caller's C string, read up to the bound.
    let line = unsafe { args::c_str(cmdline, MAX_CMDLINE) }.unwrap_or(b"");
    // SAFETY: non-NULL and writable for `len` bytes by the caller's contract.
    let Some(mut piece) = (unsafe { BufSink::new(out, len, 0) }) else { return 0 };
    if CLI_BUSY.swap(true, Ordering::Acquire) {
        piece.put(b"show_cpu_usage: busy (another task is reading a report)\n");
        piece.terminate(piece.needed);
        return 0;
    }
    // SAFETY: CLI_BUSY gives this call the only reference.
    let cli = unsafe { &mut *CLI.0.get() };
    let words = if line.len() == MAX_CMDLINE { Err(St::CPU_USAGE_ERR_OPTION) } else { args::cmdline_words(line) };
    let hash = line_hash(line);
    if hash != cli.line {
        // Not the line of the report under way (or none is): start afresh.
        cli.offset = 0;
        cli.line = hash;
    }
    piece.skip = cli.offset;
    match words.map(report::parse) {
        Ok(Ok(opts)) if cli.offset != 0 && cli.copied => {
            // SAFETY: initialised by the call that gave out the first piece.
            let copy = unsafe { cli.copy.assume_init_mut() };
            // The same text again, from the same copy (the window is set already).
            if let Some(ms) = opts.window_ms {
                report::write_window_set(&mut piece, ms);
            }
            copy.write_again(&mut piece, opts);
        }
        Ok(parsed) => {
            // A new report (or help, or what is wrong, which depend on the line
            // alone): answer the options, and copy the figures once.
            cli.copied = false;
            if let Ok(opts) = options(&mut piece, parsed, false) {
                let copy = cli.copy.write(ReportCopy::EMPTY);
                copy.take(&opts);
                copy.write_again(&mut piece, opts);
                cli.copied = true;
            }
        }
        Err(status) => {
            cli.copied = false;
            sink::write_bad_args(&mut piece, b"show_cpu_usage", status);
        }
    }
    let room = piece.buf.len() - 1;
    let given = piece.needed.saturating_sub(cli.offset).min(room);
    let more = cli.offset + given < piece.needed;
    piece.terminate(given);
    cli.offset = if more { cli.offset + given } else { 0 };
    CLI_BUSY.store(false, Ordering::Release);
    c_long::from(more)
}
