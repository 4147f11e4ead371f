//! Where the device's shell is: a serial port, a pty, a TCP socket (QEMU's
//! `-serial tcp:`), or a child process's standard input and output (the POSIX
//! simulator). Each opens to a reader and a writer of the same byte stream.

use std::fmt;
use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A way to reach the shell.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// A serial device at a baud rate (8N1, no flow control).
    Serial {
        /// The device, e.g. `/dev/ttyUSB0`.
        path: PathBuf,
        /// Bits per second.
        baud: u32,
    },
    /// A pseudo-terminal (or any character device) opened as a file.
    Pty {
        /// The pty's path, e.g. `/dev/pts/3`.
        path: PathBuf,
    },
    /// A TCP server that carries the console, e.g. `qemu -serial tcp::5555,server`.
    Tcp {
        /// `host:port`.
        addr: String,
    },
    /// A program whose standard input and output are the console.
    Exec {
        /// The program to start.
        program: PathBuf,
        /// Its arguments.
        args: Vec<String>,
    },
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Serial { path, baud } => write!(f, "{} @ {baud} baud", path.display()),
            Source::Pty { path } => write!(f, "{}", path.display()),
            Source::Tcp { addr } => write!(f, "tcp:{addr}"),
            Source::Exec { program, args } => {
                write!(f, "{}", program.display())?;
                args.iter().try_for_each(|a| write!(f, " {a}"))
            }
        }
    }
}

/// An open console.
pub struct Link {
    /// What the shell prints.
    pub reader: Box<dyn Read + Send>,
    /// What the shell reads.
    pub writer: Box<dyn Write + Send>,
    /// The child process of an `Exec` source, to end with the viewer.
    pub child: Option<Child>,
}

/// Why a source could not be opened, in words for the user.
#[derive(Debug)]
pub struct OpenError(pub String);

impl fmt::Display for OpenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for OpenError {}

/// How long a read waits before it gives the reader a chance to notice the viewer
/// is ending (serial ports and sockets only).
const READ_TIMEOUT: Duration = Duration::from_millis(200);

impl Source {
    /// Whether a dropped connection is worth opening again (a device that was
    /// unplugged, a QEMU restarted); a child process that ended is not.
    pub fn reconnects(&self) -> bool {
        !matches!(self, Source::Exec { .. })
    }

    /// Opens the console.
    pub fn open(&self) -> Result<Link, OpenError> {
        match self {
            Source::Serial { path, baud } => open_tty(path, *baud, "serial port "),
            // A pty takes the serial settings and ignores the rate; opened the same way,
            // its reads time out like a serial port's.
            Source::Pty { path } => open_tty(path, 115_200, ""),
            Source::Tcp { addr } => {
                let stream = connect(addr)?;
                stream.set_read_timeout(Some(READ_TIMEOUT)).map_err(|e| OpenError(format!("{addr}: {e}")))?;
                // Console lines are small: send each at once.
                let _ = stream.set_nodelay(true);
                let writer = stream.try_clone().map_err(|e| OpenError(format!("{addr}: {e}")))?;
                Ok(Link { reader: Box::new(TimeoutsAreQuiet(stream)), writer: Box::new(writer), child: None })
            }
            Source::Exec { program, args } => {
                let mut child = Command::new(program)
                    .args(args)
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::inherit())
                    .spawn()
                    .map_err(|e| OpenError(format!("cannot start {}: {e}", program.display())))?;
                let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
                    return Err(OpenError(format!("{}: no pipes to the child", program.display())));
                };
                Ok(Link { reader: Box::new(stdout), writer: Box::new(stdin), child: Some(child) })
            }
        }
    }
}

/// A serial device or pty, raw (8N1, no flow control), with read timeouts.
fn open_tty(path: &Path, baud: u32, what: &str) -> Result<Link, OpenError> {
    let port = serialport::new(path.to_string_lossy(), baud)
        .timeout(READ_TIMEOUT)
        .open()
        .map_err(|e| OpenError(format!("cannot open {what}{}: {e}", path.display())))?;
    let writer = port.try_clone().map_err(|e| OpenError(format!("{what}{}: {e}", path.display())))?;
    Ok(Link { reader: Box::new(TimeoutsAreQuiet(port)), writer: Box::new(writer), child: None })
}

/// How long a refused TCP connection is tried again: a QEMU started just before
/// the viewer may not be listening yet.
const CONNECT_PATIENCE: Duration = Duration::from_secs(5);

fn connect(addr: &str) -> Result<TcpStream, OpenError> {
    let deadline = Instant::now() + CONNECT_PATIENCE;
    loop {
        match TcpStream::connect(addr) {
            Ok(stream) => return Ok(stream),
            Err(e) if e.kind() == io::ErrorKind::ConnectionRefused && Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(100));
            }
            Err(e) => return Err(OpenError(format!("cannot connect to {addr}: {e}"))),
        }
    }
}

/// A reader whose read timeouts are not errors: it returns `WouldBlock` for the
/// caller to loop on (serial ports and sockets report a timeout as `TimedOut`).
struct TimeoutsAreQuiet<R>(R);

impl<R: Read> Read for TimeoutsAreQuiet<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self.0.read(buf) {
            Err(e) if e.kind() == io::ErrorKind::TimedOut => Err(io::ErrorKind::WouldBlock.into()),
            other => other,
        }
    }
}
