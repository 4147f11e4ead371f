//! Where the shell commands' text goes: the output function, line by line
//! ([`LineSink`]), or a caller's buffer ([`BufSink`]); and the run of a command
//! from its arguments to its status, the same for every command.

use core::ffi::{c_char, c_int};
use core::mem::MaybeUninit;

use super::args::Argv;
use super::config::OutputFn;
use super::status::cpu_usage_status as St;
use super::with_library;
use crate::arch;
use crate::report::{Go, Sink};

/// Bytes of a line held before it goes out (a longer one goes out in pieces); a
/// power of two. It is on the stack of the task that runs the command, for the
/// whole command: 64 holds a table line (but `-c -l`'s) in one piece.
const LINE: usize = 64;

/// Lines of output, passed to the output function as they complete.
pub(super) struct LineSink {
    /// `line[..len]` is written; the rest is never read, so it is left uninitialised
    /// (zeroing it would link a memclr for nothing else).
    line: [MaybeUninit<u8>; LINE],
    len: usize,
    /// The last line went out in pieces and its end has not: with `len` not 0, a
    /// line has begun and not ended.
    cut: bool,
    output: Option<OutputFn>,
    /// No output was set, and the build has no default one.
    pub(super) failed: bool,
}

impl LineSink {
    /// Lines to the output set with `cpu_usage_set_output`, or the build's default.
    pub(super) fn to_output() -> LineSink {
        let output = with_library(|st| st.config.output);
        LineSink { line: [MaybeUninit::uninit(); LINE], len: 0, cut: false, output, failed: false }
    }

    /// What `put` leaves: the line held ends (`ended`: it ends with its last byte),
    /// then `rest`, byte by byte, each line going out as it ends or as the buffer
    /// fills (a longer line goes out in pieces).
    #[inline(never)]
    fn put_slow(&mut self, ended: bool, rest: &[u8]) {
        if ended {
            self.cut = false;
            self.flush();
        }
        let mut len = self.len;
        for &b in rest {
            // (`len` stays below LINE, a power of two: the mask only spares the
            // bounds check.)
            if let Some(slot) = self.line.get_mut(len & (LINE - 1)) {
                slot.write(b);
            }
            len += 1;
            if b == b'\n' || len >= LINE {
                self.cut = b != b'\n';
                self.len = len;
                self.flush();
                len = 0;
            }
        }
        self.len = len;
    }

    /// Passes on what is held.
    pub(super) fn flush(&mut self) {
        let len = self.len.min(self.line.len());
        // SAFETY: `put` has written `line[..len]`.
        let line = unsafe { core::slice::from_raw_parts(self.line.as_ptr().cast::<u8>(), len) };
        if !line.is_empty() {
            match self.output {
                // SAFETY: the application's function, given a valid pointer and length.
                Some(write) => unsafe { write(line.as_ptr().cast(), line.len()) },
                None => self.failed |= !arch::default_output(line),
            }
        }
        self.len = 0;
    }
}

impl Sink for LineSink {
    fn put(&mut self, bytes: &[u8]) {
        // Most pieces are a few bytes that fit the line with room to spare: copied
        // in one tight loop, which stops only at the end of a line. (Every byte of a
        // report goes through here: this is most of a report's time, and the rest
        // is apart, so that this part saves few registers.)
        let len = self.len;
        let Some(room) = self.line.get_mut(len..).filter(|room| bytes.len() < room.len()) else {
            self.put_slow(false, bytes);
            return;
        };
        let mut copied = 0;
        for (slot, &b) in room.iter_mut().zip(bytes) {
            slot.write(b);
            copied += 1;
            if b == b'\n' {
                break;
            }
        }
        self.len = len + copied;
        if copied != bytes.len() || bytes.last() == Some(&b'\n') {
            self.put_slow(true, bytes.get(copied..).unwrap_or(&[]));
        }
    }

    fn put_in_line(&mut self, bytes: &[u8]) {
        debug_assert!(!bytes.contains(&b'\n'), "a line's end put as part of a line");
        // As `put`, without the look for a line's end: one test less per byte.
        let len = self.len;
        let Some(room) = self.line.get_mut(len..).filter(|room| bytes.len() < room.len()) else {
            self.put_slow(false, bytes);
            return;
        };
        for (slot, &b) in room.iter_mut().zip(bytes) {
            slot.write(b);
        }
        self.len = len + bytes.len();
    }

    /// What went out cannot be taken back: a line partly out is ended.
    fn void(&mut self) {
        if self.len != 0 || self.cut {
            self.put(b"\n");
        }
    }
}

/// Text into a caller's buffer, from byte `skip` of the text on, always leaving
/// room for the NUL that [`BufSink::terminate`] writes.
pub(super) struct BufSink<'a> {
    pub(super) buf: &'a mut [u8],
    /// Bytes of text so far, those skipped included.
    pub(super) needed: usize,
    pub(super) skip: usize,
    /// Where the report begins (`Sink::begin`).
    report_at: usize,
    /// A piece of a report handed out in pieces: where its task lines begin.
    pub(super) marks: Option<&'a mut Marks>,
}

/// Where the task lines of a report handed out in pieces begin
/// (`cpu_usage_cli_command`), so that a piece neither writes again the lines that
/// earlier pieces gave out nor writes past its own end: each piece then costs the
/// report's walk and a few lines, not the whole report.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Marks {
    /// The task lines earlier pieces gave out (counted, not written again), and the
    /// text's length before the next one.
    pub(super) skip_lines: u32,
    pub(super) skip_to: usize,
    /// The last task line that began before this piece's end, and the text's length
    /// before it: where the next piece takes up.
    pub(super) last_line: u32,
    pub(super) last_at: usize,
}

impl<'a> BufSink<'a> {
    /// The caller's `len` bytes at `buf`, which may be NULL only when `len` is 0;
    /// `None` when it is NULL with a length.
    ///
    /// # Safety
    /// `buf` must be writable for `len` bytes.
    pub(super) unsafe fn new(buf: *mut c_char, len: usize, skip: usize) -> Option<BufSink<'a>> {
        let buf: &mut [u8] = match (buf.is_null(), len) {
            (_, 0) => &mut [],
            (true, _) => return None,
            // SAFETY: non-NULL and writable for `len` bytes by the caller's contract.
            (false, _) => unsafe { core::slice::from_raw_parts_mut(buf.cast::<u8>(), len) },
        };
        Some(BufSink { buf, needed: 0, skip, report_at: 0, marks: None })
    }

    /// Starts again with no text.
    pub(super) fn clear(&mut self) {
        (self.needed, self.skip, self.report_at) = (0, 0, 0);
    }

    /// Writes the NUL after the first `given` bytes of the text in the buffer (or
    /// after as many as fit).
    pub(super) fn terminate(&mut self, given: usize) {
        let end = given.min(self.buf.len().saturating_sub(1));
        if let Some(nul) = self.buf.get_mut(end) {
            *nul = 0;
        }
    }
}

impl Sink for BufSink<'_> {
    fn put(&mut self, bytes: &[u8]) {
        for &b in bytes {
            // The last byte of the buffer is kept for the NUL.
            let at = self.needed.wrapping_sub(self.skip);
            if self.needed >= self.skip && at + 1 < self.buf.len() {
                if let Some(slot) = self.buf.get_mut(at) {
                    *slot = b;
                }
            }
            self.needed += 1;
        }
    }

    fn begin(&mut self) {
        self.report_at = self.needed;
    }

    /// Forgets the report, not what came before it.
    fn void(&mut self) {
        self.needed = self.report_at;
    }

    fn task_line(&mut self, n: u32) -> Go {
        let Some(marks) = self.marks.as_deref_mut() else { return Go::Write };
        if n < marks.skip_lines {
            return Go::Skip;
        }
        if n == marks.skip_lines {
            self.needed = self.needed.max(marks.skip_to);
        }
        // Past the piece's last byte (the buffer's last is the NUL's): a later
        // piece's.
        if self.needed > self.skip + self.buf.len().saturating_sub(1) {
            return Go::Stop;
        }
        (marks.last_line, marks.last_at) = (n, self.needed);
        Go::Write
    }
}

/// `<command>: bad arguments: <why>`.
pub(super) fn write_bad_args(sink: &mut dyn Sink, command: &[u8], status: St) {
    sink.put(command);
    sink.put(b": bad arguments: ");
    sink.put(status.message());
    sink.put(b"\n");
}

/// Runs a shell command named `name`: checks its arguments (printing what is wrong
/// with them), runs `run` with the output sink, and returns its status, or
/// `CPU_USAGE_ERR_NO_OUTPUT` when there was nowhere to print.
///
/// # Safety
/// As `show_cpu_usage`: `argv[0..argc]`, when `argv` is not NULL, must be readable
/// pointers to C strings (or NULL, which is refused).
pub(super) unsafe fn command(
    argc: c_int,
    argv: *mut *mut c_char,
    name: &[u8],
    run: impl FnOnce(&mut LineSink, Argv) -> i32,
) -> c_int {
    let mut sink = LineSink::to_output();
    // SAFETY: forwarded contract.
    let status = match unsafe { Argv::check(argc, argv) } {
        Err(status) => {
            write_bad_args(&mut sink, name, status);
            status.code()
        }
        Ok(args) => run(&mut sink, args),
    };
    sink.flush();
    if sink.failed {
        return St::CPU_USAGE_ERR_NO_OUTPUT.code();
    }
    status
}
