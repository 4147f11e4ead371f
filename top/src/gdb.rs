//! A small client of the GDB Remote Serial Protocol: what the read-out needs and no
//! more. Packets are `$data#cs` with a two-digit hex checksum (the sum of the data
//! bytes modulo 256), each acknowledged by `+` (or `-`: send again); memory is read
//! with `m addr,len`, the target stopped with a bare 0x03 byte and let go with `c`.
//! QEMU's gdbstub, OpenOCD, pyOCD, probe-rs and the J-Link and ST-LINK servers all
//! speak it over TCP.

use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// An open connection to a GDB server.
pub struct Client {
    stream: TcpStream,
    /// Bytes read past the last packet.
    pending: Vec<u8>,
    /// The most bytes one `m` asks for (the server's `PacketSize` allows for hex).
    chunk: usize,
    /// A stop reply came that no request asked for (see [`Client::send`]).
    stop_notice: bool,
    /// The target was let go (`c`) and no stop reply has come since.
    running: bool,
}

/// How long the client waits for any answer.
const PATIENCE: Duration = Duration::from_secs(5);

/// How long an acknowledgement may take after a stop reply that came before it, to
/// a request sent while the target ran: a server that stopped the target instead of
/// taking the request sends none.
const ACK_AFTER_NOTICE: Duration = Duration::from_millis(300);

/// A stop reply: `S` or `T` and a signal number in two hex digits.
fn is_stop_reply(answer: &str) -> bool {
    let b = answer.as_bytes();
    b.len() >= 3 && matches!(b[0], b'S' | b'T') && b[1..3].iter().all(u8::is_ascii_hexdigit)
}

fn dropped() -> io::Error {
    io::Error::new(io::ErrorKind::UnexpectedEof, "the GDB server closed the connection")
}

fn checksum(data: &[u8]) -> u8 {
    data.iter().fold(0u8, |s, &b| s.wrapping_add(b))
}

/// `data` in hex, as packets carry memory.
fn hex_decode(text: &[u8]) -> Option<Vec<u8>> {
    let digit = |c: u8| char::from(c).to_digit(16).map(|d| d as u8);
    text.chunks(2).map(|p| Some(digit(*p.first()?)? << 4 | digit(*p.get(1)?)?)).collect()
}

impl Client {
    /// Connects to `addr` (`host:port`) and asks what packet size the server takes.
    pub fn connect(addr: &str) -> io::Result<Client> {
        // A server started just before the viewer (QEMU) may not listen yet.
        let deadline = std::time::Instant::now() + PATIENCE;
        let stream = loop {
            match TcpStream::connect(addr) {
                Err(e) if e.kind() == io::ErrorKind::ConnectionRefused && std::time::Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(50));
                }
                other => break other?,
            }
        };
        stream.set_read_timeout(Some(PATIENCE))?;
        let _ = stream.set_nodelay(true);
        let mut client = Client { stream, pending: Vec::new(), chunk: 256, stop_notice: false, running: false };
        let features = client.request("qSupported:swbreak+")?;
        let size = features
            .split(';')
            .find_map(|f| f.strip_prefix("PacketSize="))
            .and_then(|s| usize::from_str_radix(s, 16).ok());
        if let Some(size) = size {
            client.chunk = (size.saturating_sub(16) / 2).clamp(16, 4096);
        }
        Ok(client)
    }

    /// The next byte from the server, `None` if none comes within `wait`.
    fn byte_within(&mut self, wait: Duration) -> io::Result<Option<u8>> {
        if self.pending.is_empty() {
            self.stream.set_read_timeout(Some(wait))?;
            let mut buf = [0u8; 4096];
            let read = self.stream.read(&mut buf);
            self.stream.set_read_timeout(Some(PATIENCE))?;
            let n = match read {
                Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut) => return Ok(None),
                other => other?,
            };
            if n == 0 {
                return Err(dropped());
            }
            self.pending.extend_from_slice(&buf[..n]);
        }
        Ok(Some(self.pending.remove(0)))
    }

    /// The next byte from the server.
    fn byte(&mut self) -> io::Result<u8> {
        self.byte_within(PATIENCE)?
            .ok_or_else(|| io::Error::new(io::ErrorKind::TimedOut, "the GDB server did not answer"))
    }

    /// Sends one packet until the server acknowledges it (`+`; `-` asks for it
    /// again). A packet that comes before the acknowledgement is a stop reply no
    /// request asked for, noted (`take_stop_notice`) and acknowledged: either a
    /// notice that crossed the request (QEMU's, to a debugger that connects while the
    /// target runs), and the acknowledgement follows; or, to a request sent while the
    /// target ran, the server stopped the target instead of taking the request
    /// (QEMU's, for any byte while the target runs), and none follows within
    /// `ACK_AFTER_NOTICE`: the request is sent again, to a stopped target now.
    fn send(&mut self, data: &str) -> io::Result<()> {
        let packet = format!("${data}#{:02x}", checksum(data.as_bytes()));
        for _ in 0..5 {
            self.stream.write_all(packet.as_bytes())?;
            let mut wait = PATIENCE;
            loop {
                match self.byte_within(wait)? {
                    Some(b'+') => return Ok(()),
                    Some(b'-') => break,
                    Some(b'$') => {
                        self.pending.insert(0, b'$');
                        if is_stop_reply(&self.receive()?) {
                            self.stop_notice = true;
                            if std::mem::take(&mut self.running) {
                                wait = ACK_AFTER_NOTICE;
                            }
                        }
                    }
                    Some(_) => {}
                    None if wait == ACK_AFTER_NOTICE => break,
                    None => return Err(io::Error::new(io::ErrorKind::TimedOut, "the GDB server did not answer")),
                }
            }
        }
        Err(io::Error::other(format!("the GDB server refused the packet {data:?} five times")))
    }

    /// Whether a stop reply came that no request asked for since the last call:
    /// the target is stopped (and the server may be one that cannot read a running
    /// target).
    pub fn take_stop_notice(&mut self) -> bool {
        std::mem::take(&mut self.stop_notice)
    }

    /// Receives one packet, acknowledging it (a bad checksum asks for it again).
    fn receive(&mut self) -> io::Result<String> {
        loop {
            while self.byte()? != b'$' {}
            let mut data = Vec::new();
            loop {
                match self.byte()? {
                    b'#' => break,
                    b => data.push(b),
                }
            }
            let sum = hex_decode(&[self.byte()?, self.byte()?]).and_then(|v| v.first().copied());
            if sum == Some(checksum(&data)) {
                self.stream.write_all(b"+")?;
                return Ok(String::from_utf8_lossy(&data).into_owned());
            }
            self.stream.write_all(b"-")?;
        }
    }

    /// One request and its answer.
    pub fn request(&mut self, data: &str) -> io::Result<String> {
        self.send(data)?;
        self.receive()
    }

    /// Reads `len` bytes of target memory at `addr`. (A server that cannot read a
    /// running target may stop it to answer: `take_stop_notice` then says so.)
    pub fn read_memory(&mut self, addr: u64, len: usize) -> io::Result<Vec<u8>> {
        let mut out = Vec::with_capacity(len);
        while out.len() < len {
            let n = (len - out.len()).min(self.chunk);
            let at = addr + out.len() as u64;
            let answer = self.request(&format!("m{at:x},{n:x}"))?;
            if answer.starts_with('E') || answer.is_empty() {
                return Err(io::Error::other(format!(
                    "the GDB server cannot read {n} bytes at 0x{at:x} ({answer:?}): is the ELF the firmware that runs?"
                )));
            }
            let bytes = hex_decode(answer.as_bytes())
                .ok_or_else(|| io::Error::other(format!("the GDB server answered m with {answer:?}")))?;
            if bytes.is_empty() {
                return Err(io::Error::other(format!("the GDB server read nothing at 0x{at:x}")));
            }
            out.extend_from_slice(&bytes);
        }
        out.truncate(len);
        Ok(out)
    }

    /// Stops the target: a bare 0x03, answered by a stop reply (`S..` or `T..`).
    pub fn halt(&mut self) -> io::Result<()> {
        self.stream.write_all(&[0x03])?;
        let reply = self.receive()?;
        if reply.starts_with(['S', 'T']) {
            self.running = false;
            Ok(())
        } else {
            Err(io::Error::other(format!("the GDB server answered the halt with {reply:?}")))
        }
    }

    /// Why the target is stopped now (`?`): the stop reply.
    pub fn why_stopped(&mut self) -> io::Result<String> {
        self.request("?")
    }

    /// Lets the target run on (`c`, which has no answer until the target stops).
    pub fn resume(&mut self) -> io::Result<()> {
        self.send("c")?;
        self.running = true;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksums_and_hex_are_the_protocols() {
        assert_eq!(checksum(b"m20000000,4"), 0x4f);
        assert_eq!(hex_decode(b"0a10ff"), Some(vec![0x0a, 0x10, 0xff]));
        assert_eq!(hex_decode(b"0g"), None);
    }

    /// A stop reply is told from memory, whose hex never starts with `S` or `T`.
    #[test]
    fn a_stop_reply_is_not_memory() {
        assert!(is_stop_reply("T02thread:01;"));
        assert!(is_stop_reply("S05"));
        assert!(!is_stop_reply("07000000"));
        assert!(!is_stop_reply("E14"));
        assert!(!is_stop_reply("T"));
    }
}
