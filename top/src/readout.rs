//! The read-out source (`--gdb HOST:PORT --elf FIRMWARE`): the last completed window
//! read straight out of the target's memory through a GDB server, with no code on
//! the target but the library. The firmware's ELF says where the read-out block is
//! (the symbol `cpu_usage_readout`, found with the `object` crate) and what it holds;
//! the target's copy must be the same, or the ELF is not the firmware that runs.
//! Each read takes the engine's bytes with the sequence counter even and the same
//! before and after, and makes them a window report (`report-schema`'s `readout`),
//! which goes to the screen, the recording, the plots and Prometheus as a window
//! read from the shell does. A connection that drops (a probe unplugged, a server
//! or a QEMU restarted) is opened again every second, as a serial source is, and
//! the target checked again against the ELF.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::Arc;
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use freertos_cpu_usage_report::readout::{Block, FIXED_SIZE, SYMBOL};
use object::{Object, ObjectSection, ObjectSymbol};

use crate::gdb::Client;
use crate::session::Event;
use crate::window::Line;

/// Where the block is and what it says, from the firmware's ELF.
#[derive(Clone, Debug)]
pub struct Firmware {
    /// The block's address.
    pub addr: u64,
    /// Its bytes in the ELF.
    pub bytes: Vec<u8>,
    /// What they say.
    pub block: Block,
}

impl Firmware {
    /// Finds the block in the ELF at `path`.
    pub fn load(path: &Path) -> Result<Firmware, String> {
        let data = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let file = object::File::parse(&*data)
            .map_err(|e| format!("{} is not an ELF file the viewer can read ({e})", path.display()))?;
        let symbol = file.symbols().find(|s| s.name() == Ok(SYMBOL)).ok_or_else(|| {
            format!(
                "{} has no symbol {SYMBOL}: not a firmware linked with freertos-cpu-usage's read-out (or stripped)",
                path.display()
            )
        })?;
        let addr = symbol.address();
        let addr_size = if file.is_64() { 8 } else { 4 };
        let len = FIXED_SIZE + 2 * addr_size;
        let bytes = file
            .sections()
            .find(|s| s.address() <= addr && addr + len as u64 <= s.address() + s.size())
            .and_then(|s| s.data().ok().map(|d| (s.address(), d)))
            .and_then(|(base, d)| d.get((addr - base) as usize..(addr - base) as usize + len).map(<[u8]>::to_vec))
            .ok_or_else(|| format!("{}: {SYMBOL} lies in no section with contents", path.display()))?;
        let block = Block::parse(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(Firmware { addr, bytes, block })
    }
}

/// How the target is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Stop the core, read, let it go, every time (`--gdb-halt`).
    Halt,
    /// Read while the core runs where the server can (OpenOCD, pyOCD, probe-rs,
    /// J-Link on Cortex-M); a server that stops the core to answer instead (QEMU's
    /// gdbstub) says so in its answer, and from then on the core is stopped for each
    /// read.
    Auto,
}

/// An error of the connection, in words: a dropped one says so.
fn said(e: std::io::Error) -> String {
    use std::io::ErrorKind::{BrokenPipe, ConnectionAborted, ConnectionReset, UnexpectedEof};
    match e.kind() {
        BrokenPipe | ConnectionAborted | ConnectionReset | UnexpectedEof => {
            "the GDB server closed the connection".to_owned()
        }
        _ => e.to_string(),
    }
}

/// Times a read is tried again before the window is given up on.
const TRIES: u32 = 20;

/// How often a dropped connection is tried again.
const RECONNECT_EVERY: Duration = Duration::from_secs(1);

/// Why a read gave no window.
#[derive(Debug)]
pub enum ReadError {
    /// The connection failed (dropped, or the server answered nonsense): open it
    /// again.
    Link(String),
    /// The window kept changing under every try (a live read of a core that rolls
    /// windows over faster than a read takes): the next read may do.
    Changing(String),
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::Link(why) | ReadError::Changing(why) => f.write_str(why),
        }
    }
}

fn link(e: std::io::Error) -> ReadError {
    ReadError::Link(said(e))
}

/// A connection to the target through its GDB server.
pub struct Reader {
    client: Client,
    firmware: Firmware,
    /// Reading while the core runs (else stopping it for each read).
    live: bool,
    /// The time the core was stopped by each read (when not live).
    pub halts: Vec<Duration>,
}

impl Reader {
    /// Connects to `addr`, checks that the target holds the ELF's block, and lets the
    /// target run.
    pub fn connect(addr: &str, firmware: Firmware, mode: Mode) -> Result<Reader, String> {
        let client = Client::connect(addr).map_err(|e| format!("cannot connect to the GDB server at {addr}: {e}"))?;
        let mut reader = Reader { client, firmware, live: mode == Mode::Auto, halts: Vec::new() };
        // A server stops the target when a debugger attaches (QEMU's does).
        let stopped = reader.client.why_stopped().map_err(|e| format!("GDB server at {addr}: {e}"))?;
        let on_target = reader
            .client
            .read_memory(reader.firmware.addr, reader.firmware.bytes.len())
            .map_err(|e| format!("GDB server at {addr}: {e}"))?;
        if on_target != reader.firmware.bytes {
            return Err(format!(
                "the target's {SYMBOL} at 0x{:x} is not the ELF's: is the ELF the firmware that runs?",
                reader.firmware.addr
            ));
        }
        // (A server that stopped a running target for the new connection may have
        // said so unasked: it is stopped, as `?` says.)
        reader.client.take_stop_notice();
        if stopped.starts_with(['S', 'T']) {
            reader.client.resume().map_err(|e| format!("GDB server at {addr}: {e}"))?;
        }
        Ok(reader)
    }

    /// Whether it reads while the core runs.
    pub fn live(&self) -> bool {
        self.live
    }

    /// The last completed window, `None` before the first; read again while the
    /// sequence counter is odd or changes under the read.
    pub fn read(&mut self) -> Result<Option<freertos_cpu_usage_report::Window>, ReadError> {
        let b = self.firmware.block.clone();
        let span = b.engine_span();
        for _ in 0..TRIES {
            let (engine, hz, same) = if self.live {
                let read = self.read_running(&b, span).map_err(link)?;
                if self.client.take_stop_notice() {
                    // The server stopped the core to answer: it cannot read a
                    // running one. Let the core go, and stop it for each read from
                    // now on.
                    self.live = false;
                    self.client.resume().map_err(link)?;
                    continue;
                }
                read
            } else {
                let start = Instant::now();
                self.client.halt().map_err(link)?;
                let engine = self.client.read_memory(b.engine, span).map_err(link)?;
                let hz = self.client.read_memory(b.clock_hz, 4).map_err(link)?;
                self.client.resume().map_err(link)?;
                self.halts.push(start.elapsed());
                (engine, hz, true)
            };
            if same && b.seq_of(&engine).is_multiple_of(2) {
                let hz = u32::from_le_bytes([hz[0], hz[1], hz[2], hz[3]]);
                return Ok(b.window(&engine, hz));
            }
            thread::sleep(Duration::from_millis(1));
        }
        Err(ReadError::Changing(format!("the window kept changing under {TRIES} reads in a row")))
    }

    /// One read while the core runs: the counter, the engine, the clock rate, the
    /// counter again; whether the counter stayed the same.
    fn read_running(&mut self, b: &Block, span: usize) -> std::io::Result<(Vec<u8>, Vec<u8>, bool)> {
        let seq = b.engine + u64::from(b.seq);
        let before = self.client.read_memory(seq, 4)?;
        let engine = self.client.read_memory(b.engine, span)?;
        let hz = self.client.read_memory(b.clock_hz, 4)?;
        let after = self.client.read_memory(seq, 4)?;
        let inside = engine.get(b.seq as usize..b.seq as usize + 4) == Some(&before[..]);
        Ok((engine, hz, before == after && inside))
    }
}

/// A running read-out: windows as events, as a shell session gives them.
pub struct Follow {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<Vec<Duration>>>,
}

impl Follow {
    /// Connects (errors now are the caller's) and reads every `every` on a thread of
    /// its own, sending each new window; connects again after a drop.
    pub fn start(
        addr: &str,
        firmware: Firmware,
        mode: Mode,
        every: Duration,
    ) -> Result<(Follow, Receiver<Event>), String> {
        let reader = Reader::connect(addr, firmware.clone(), mode)?;
        let (tx, rx) = mpsc::channel();
        let stop = Arc::new(AtomicBool::new(false));
        let _ = tx.send(Event::Status(format!(
            "reading gdb:{addr} ({})",
            if mode == Mode::Halt { "stopping the core for each read" } else { "live where the server can" }
        )));
        let thread = {
            let (stop, addr) = (stop.clone(), addr.to_owned());
            thread::spawn(move || {
                let target = Target { addr, firmware, mode };
                follow(reader, &target, &tx, &stop, every)
            })
        };
        Ok((Follow { stop, thread: Some(thread) }, rx))
    }

    /// Stops reading; returns how long the core was stopped by each read.
    pub fn close(mut self) -> Vec<Duration> {
        self.stop.store(true, Ordering::Relaxed);
        self.thread.take().and_then(|t| t.join().ok()).unwrap_or_default()
    }
}

/// What a follow connects to, again after a drop.
struct Target {
    addr: String,
    firmware: Firmware,
    mode: Mode,
}

fn follow(
    mut reader: Reader,
    target: &Target,
    tx: &Sender<Event>,
    stop: &AtomicBool,
    every: Duration,
) -> Vec<Duration> {
    let mut last = None;
    let mut halts = Vec::new();
    while !stop.load(Ordering::Relaxed) {
        let live = reader.live();
        let read = reader.read();
        if live && !reader.live() {
            let _ = tx.send(Event::Status(format!(
                "gdb:{} stops the core to read it: stopping it for each read",
                target.addr
            )));
        }
        match read {
            Ok(Some(w)) if last != Some(w.window) => {
                last = Some(w.window);
                if tx.send(Event::Line(Line::Window(Box::new(w)))).is_err() {
                    break;
                }
            }
            Ok(_) => {}
            Err(ReadError::Changing(why)) => {
                let _ = tx.send(Event::Status(why));
            }
            Err(ReadError::Link(why)) => {
                halts.append(&mut reader.halts);
                // (A server may take one connection at a time: this one goes first.)
                drop(reader);
                let _ = tx.send(Event::Status(format!("{why}; reconnecting to gdb:{}", target.addr)));
                match reconnect(target, tx, stop) {
                    Some(again) => {
                        reader = again;
                        // (A restarted target numbers its windows from 0 again.)
                        last = None;
                    }
                    None => {
                        let _ = tx.send(Event::Closed(format!("read-out stopped: {why}")));
                        return halts;
                    }
                }
            }
        }
        thread::sleep(every);
    }
    halts.append(&mut reader.halts);
    halts
}

/// Connects again every second until it succeeds (`Some`) or the viewer ends.
fn reconnect(target: &Target, tx: &Sender<Event>, stop: &AtomicBool) -> Option<Reader> {
    loop {
        thread::sleep(RECONNECT_EVERY);
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        match Reader::connect(&target.addr, target.firmware.clone(), target.mode) {
            Ok(reader) => {
                let _ = tx.send(Event::Status(format!("connected to gdb:{} again", target.addr)));
                return Some(reader);
            }
            Err(e) => {
                let _ = tx.send(Event::Status(format!("{e}; retrying")));
            }
        }
    }
}
