//! `show_cpu_usage` as a FreeRTOS+CLI command (the `shell` feature).

use core::cell::UnsafeCell;
use core::ffi::{c_char, c_long};
use core::sync::atomic::{AtomicBool, Ordering};

use super::args::{self, MAX_CMDLINE};
use super::shell::{header_into, options, write_changed, Live};
use super::sink::{self, BufSink, Marks};
use super::status::cpu_usage_status as St;
use super::{let_go, Shared};
use crate::engine::{Header, SlotStats, Stamp};
use crate::report::{self, Options, Sink};

/// A report being handed out by `cpu_usage_cli_command`, piece by piece: which line
/// it answers, how far it has got, and which figures it is of. It keeps no copy of
/// the figures: each call walks the report again from the engine, writing only its
/// piece (the task lines before it are counted, not written: `marks`), its window
/// held open from the first piece to the last. (All zero to start with, so that the
/// static is in `.bss` and costs no flash.)
struct CliReport {
    /// A report is under way: the next call with the same line goes on with it.
    under_way: bool,
    /// A hash of its command line.
    line: u32,
    /// Bytes of its text handed out so far.
    offset: usize,
    /// Where its task lines begin, as far as pieces have gone.
    marks: Marks,
    /// Its options were applied (`-w` sets the window once).
    applied: bool,
    /// `stamp` holds the figures it is of, whose window it holds open.
    read: bool,
    stamp: Stamp,
    /// The ID pool's figures of the first piece (they are of now, not of the
    /// window): every piece prints them.
    pool: Option<SlotStats>,
    /// The figures changed before the last piece: the rest of the text is the line
    /// saying so (`cut_line`: after the end of the line cut).
    cut: bool,
    cut_line: bool,
}

impl CliReport {
    const NONE: CliReport = CliReport {
        under_way: false,
        line: 0,
        offset: 0,
        marks: Marks { skip_lines: 0, skip_to: 0, last_line: 0, last_at: 0 },
        applied: false,
        read: false,
        stamp: Stamp::ZERO,
        pool: None,
        cut: false,
        cut_line: false,
    };

    /// Lets go of the window it holds, if any.
    fn let_go(&mut self) {
        if self.read {
            let_go(self.stamp);
            self.read = false;
        }
    }
}

static CLI: Shared<CliReport> = Shared(UnsafeCell::new(CliReport::NONE));

/// The text that answers the line of `words` into `piece`: true when
/// it is written (the report, or what is wrong with the line), false when the
/// figures are no longer those of the first piece. (Apart, so that the options and
/// the header are on the stack only while it writes.)
#[inline(never)]
fn write_piece<'a>(
    piece: &mut BufSink<'_>,
    cli: &mut CliReport,
    words: &Result<impl Iterator<Item = &'a [u8]> + Clone, St>,
) -> bool {
    // The text up to the report depends on the line alone (the window is set at the
    // first call only).
    let words = match words {
        Err(status) => {
            sink::write_bad_args(piece, b"show_cpu_usage", *status);
            return true;
        }
        Ok(words) => words,
    };
    let apply = !cli.applied;
    cli.applied = true;
    let mut opts = Options::default();
    if options(piece, &mut || report::parse(words.clone()), false, apply, &mut opts).is_err() {
        return true;
    }
    let mut head = Header::EMPTY;
    let clock = match header_into(&opts, &mut head, !cli.read) {
        Ok(clock) => clock,
        Err(window_ms) => {
            report::write_no_window(piece, opts, window_ms);
            return true;
        }
    };
    if !cli.read {
        (cli.read, cli.stamp) = (true, head.stamp);
    }
    piece.begin();
    let mut live = Live { since_start: opts.cumulative, stamp: cli.stamp };
    head.stamp.matches(cli.stamp, opts.cumulative)
        && report::write_report(piece, &opts, clock, &head, &mut live, &mut cli.pool).is_ok()
}

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
/// 0 (`pdFALSE`) with the last piece. Every piece is of the same window, which is
/// held open from the first piece to the last (see `show_cpu_usage`); each call
/// walks the report again from the engine, without a copy, and writes its piece
/// (the task lines before it are counted, not written), so a buffer of a few
/// hundred bytes rather than a few dozen keeps the walks few. If the figures
/// change all the same before the last piece (`CPU_USAGE_ERR_CHANGED`), the report
/// is cut there with a line saying so. `len` must be at least 2. One task at a
/// time: a second caller meanwhile gets a line saying so. (The `shell` feature.)
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
    // (Before the piece, which borrows it.)
    let mut marks: Marks;
    // SAFETY: non-NULL and writable for `len` bytes by the caller's contract.
    let Some(mut piece) = (unsafe { BufSink::new(out, len, 0) }) else { return 0 };
    if !super::claim(&CLI_BUSY) {
        piece.put(b"show_cpu_usage: busy (another task is reading a report)\n");
        piece.terminate(piece.needed);
        return 0;
    }
    // SAFETY: CLI_BUSY gives this call the only reference.
    let cli = unsafe { &mut *CLI.0.get() };
    let words = if line.len() == MAX_CMDLINE { Err(St::CPU_USAGE_ERR_OPTION) } else { args::cmdline_words(line) };
    let hash = line_hash(line);
    if hash != cli.line || !cli.under_way {
        // (A report left unfinished lets go of its window.)
        cli.let_go();
        *cli = CliReport { line: hash, ..CliReport::NONE };
    }
    marks = cli.marks;
    piece.marks = Some(&mut marks);
    piece.skip = cli.offset;
    if cli.cut || !write_piece(&mut piece, cli, &words) {
        // The figures changed since the first piece: what is out stays, and the
        // rest is a line saying so (after the end of the line cut, if any).
        if !cli.cut {
            (cli.cut, cli.cut_line, cli.offset) = (true, cli.offset != 0, 0);
        }
        piece.clear();
        piece.skip = cli.offset;
        if cli.cut_line {
            piece.put(b"\n");
        }
        write_changed(&mut piece);
    }
    let room = piece.buf.len() - 1;
    let given = piece.needed.saturating_sub(cli.offset).min(room);
    let more = cli.offset + given < piece.needed;
    piece.terminate(given);
    cli.offset += given;
    // The next piece takes up at the last task line that began in this one.
    cli.marks = Marks { skip_lines: marks.last_line, skip_to: marks.last_at, ..marks };
    cli.under_way = more;
    if !more {
        cli.let_go();
    }
    CLI_BUSY.store(false, Ordering::Release);
    c_long::from(more)
}
