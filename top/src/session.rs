//! A conversation with the device's shell: it opens the source, starts follow mode
//! (`show_cpu_usage -m -d -f`: every task on its own line, the deleted ones too),
//! reads the console's lines on a thread of its own and hands them over as events;
//! when the connection drops it says why and, for sources that can come back, opens
//! it again and resumes.

use std::io::{self, Read, Write};
use std::process::Child;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::Duration;

use crate::source::{OpenError, Source};
use crate::window::{Line, LineReader};

/// What the reading thread reports.
#[derive(Debug)]
pub enum Event {
    /// A console line, read.
    Line(Line),
    /// The connection's state changed: connected, dropped (why), reconnecting.
    Status(String),
    /// The connection is gone for good (a child process ended, or the viewer is
    /// ending): why.
    Closed(String),
}

/// How often a dropped source is tried again.
const RECONNECT_EVERY: Duration = Duration::from_secs(1);

/// The shell's command that follows the windows, ended by any input.
pub fn follow_command(windows: Option<u32>) -> String {
    match windows {
        Some(n) => format!("show_cpu_usage -m -d -f {n}"),
        None => "show_cpu_usage -m -d -f".to_owned(),
    }
}

type SharedWriter = Arc<Mutex<Option<Box<dyn Write + Send>>>>;

/// An open conversation.
pub struct Session {
    writer: SharedWriter,
    stop: Arc<AtomicBool>,
    child: Arc<Mutex<Option<Child>>>,
    reader: Option<JoinHandle<()>>,
}

impl Session {
    /// Opens `source` and sends `first` (once, e.g. `cpu_usage_trace start`), then,
    /// at every connection, `each` (e.g. the window length and the follow command),
    /// each line after a line end that ends whatever the shell was doing. Fails only
    /// if the first opening fails.
    pub fn start(
        source: Source,
        first: Vec<String>,
        each: Vec<String>,
    ) -> Result<(Session, Receiver<Event>), OpenError> {
        let link = source.open()?;
        let (tx, rx) = mpsc::channel();
        let writer: SharedWriter = Arc::new(Mutex::new(Some(link.writer)));
        let child = Arc::new(Mutex::new(link.child));
        let stop = Arc::new(AtomicBool::new(false));
        let _ = tx.send(Event::Status(format!("connected to {source}")));
        send_lines(&writer, first.iter().chain(each.iter()).map(String::as_str));
        let reader = {
            let (writer, stop, child) = (writer.clone(), stop.clone(), child.clone());
            thread::spawn(move || read_loop(source, link.reader, writer, child, stop, each, tx))
        };
        Ok((Session { writer, stop, child, reader: Some(reader) }, rx))
    }

    /// Sends one command line to the shell. A failure is not reported here: the
    /// reading side sees the connection drop.
    pub fn send(&self, line: &str) {
        send_lines(&self.writer, std::iter::once(line));
    }

    /// Stops follow mode (any input does), leaving the shell at its prompt.
    pub fn stop_following(&self) {
        send_lines(&self.writer, std::iter::empty());
    }

    /// Ends the conversation: stops follow mode, ends a child process (closing its
    /// input, then killing it if it is still there after a second), waits for the
    /// reading thread.
    pub fn close(mut self) {
        self.end();
    }

    fn end(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        self.stop_following();
        // Dropping the writer closes a child's standard input: the simulator ends.
        self.writer.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(mut child) = self.child.lock().unwrap_or_else(|e| e.into_inner()).take() {
            for _ in 0..20 {
                if matches!(child.try_wait(), Ok(Some(_))) {
                    break;
                }
                thread::sleep(Duration::from_millis(50));
            }
            let _ = child.kill();
            let _ = child.wait();
        }
        if let Some(reader) = self.reader.take() {
            let _ = reader.join();
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        if self.reader.is_some() {
            self.end();
        }
    }
}

/// Writes the lines to the shell, if it is connected.
fn send_lines<'a>(writer: &SharedWriter, lines: impl Iterator<Item = &'a str>) {
    let mut guard = writer.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(w) = guard.as_mut() {
        // A line end first: it stops a follow mode left running and ends a half
        // typed line, so the command starts on a line of its own.
        let mut text = String::from("\n");
        for line in lines {
            text.push_str(line);
            text.push('\n');
        }
        let _ = w.write_all(text.as_bytes()).and_then(|()| w.flush());
    }
}

fn read_loop(
    source: Source,
    mut reader: Box<dyn Read + Send>,
    writer: SharedWriter,
    child: Arc<Mutex<Option<Child>>>,
    stop: Arc<AtomicBool>,
    each: Vec<String>,
    tx: Sender<Event>,
) {
    let mut lines = LineReader::default();
    let mut buf = [0u8; 4096];
    loop {
        let why = match reader.read(&mut buf) {
            Ok(0) => "the connection closed".to_owned(),
            Ok(n) => {
                for line in lines.feed(&buf[..n]) {
                    if tx.send(Event::Line(line)).is_err() {
                        return;
                    }
                }
                continue;
            }
            Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted) => {
                if stop.load(Ordering::SeqCst) {
                    return;
                }
                continue;
            }
            Err(e) => format!("read error: {e}"),
        };
        lines.reset();
        if stop.load(Ordering::SeqCst) {
            let _ = tx.send(Event::Closed(why));
            return;
        }
        if !source.reconnects() {
            let status = child
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .as_mut()
                .and_then(|c| c.wait().ok())
                .map_or(String::new(), |s| format!(" ({s})"));
            let _ = tx.send(Event::Closed(format!("{source} ended{status}: {why}")));
            return;
        }
        let _ = tx.send(Event::Status(format!("{why}; reconnecting to {source}")));
        reader = loop {
            thread::sleep(RECONNECT_EVERY);
            if stop.load(Ordering::SeqCst) {
                let _ = tx.send(Event::Closed(why));
                return;
            }
            match source.open() {
                Ok(link) => {
                    *writer.lock().unwrap_or_else(|e| e.into_inner()) = Some(link.writer);
                    let _ = tx.send(Event::Status(format!("connected to {source} again")));
                    send_lines(&writer, each.iter().map(String::as_str));
                    break link.reader;
                }
                Err(e) => {
                    let _ = tx.send(Event::Status(format!("{e}; retrying")));
                }
            }
        };
    }
}
