//! The viewer against fake devices that replay recorded windows
//! (`data/windows.jsonl`) when they are sent the follow command: over a serial port
//! (a pty pair, the viewer opening the slave as a serial device), over a pty that
//! then stays silent (the viewer must still end), over TCP with the
//! connection dropped halfway (the viewer must reconnect and carry on), with garbage
//! on the line (skipped and counted), and with no device at all (a clear error).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::process::{Command, Output};
use std::thread;
use std::time::Duration;

use serialport::{SerialPort, TTYPort};

const RECORDED: &str = include_str!("data/windows.jsonl");

/// Reads the viewer's lines until it asks to follow; then writes `windows` (each
/// after `noise`) 30 ms apart. Returns whether the follow command came.
fn serve(input: impl Read, mut output: impl Write, windows: &[&str], noise: &str) -> bool {
    let mut input = BufReader::new(input);
    let mut line = String::new();
    loop {
        line.clear();
        match input.read_line(&mut line) {
            Ok(0) | Err(_) => return false,
            Ok(_) if line.trim_start().starts_with("show_cpu_usage -m -d -f") => break,
            Ok(_) => {}
        }
    }
    for w in windows {
        if write!(output, "{noise}{w}\r\n").and_then(|()| output.flush()).is_err() {
            break;
        }
        thread::sleep(Duration::from_millis(30));
    }
    true
}

fn viewer(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cpu-usage-top")).args(args).output().unwrap()
}

/// The window numbers the viewer printed, one line each.
fn printed_windows(out: &Output) -> Vec<u64> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.strip_prefix("window ")?.split(' ').next()?.parse().ok())
        .collect()
}

#[test]
fn a_serial_device_with_garbage_on_the_line() {
    let (mut device, viewer_end) = TTYPort::pair().expect("a pty pair");
    let path = viewer_end.name().expect("the pty's name");
    // Raw mode on the device's side too: no echo, no line editing of the replay.
    device.set_exclusive(false).unwrap();
    let reader = device.try_clone_native().unwrap();
    let replay: Vec<&str> = RECORDED.lines().take(4).collect();
    let fake = thread::spawn(move || {
        serve(reader, device, &replay, "{\"mode\":\"window\",\"window\":9,\"tasks\":[{\"id\":1,\"na\x07\r\n")
    });
    let out = viewer(&["--serial", &path, "--baud", "115200", "--no-ui", "--windows", "4"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(fake.join().unwrap(), "the viewer never sent the follow command");
    assert_eq!(printed_windows(&out), [0, 1, 2, 3], "{stderr}");
    assert!(stderr.contains("4 windows read, 4 garbage lines skipped"), "{stderr}");
    drop(viewer_end);
}

#[test]
fn a_pty_that_stays_silent_does_not_keep_the_viewer_from_ending() {
    let (mut device, viewer_end) = TTYPort::pair().expect("a pty pair");
    let path = viewer_end.name().expect("the pty's name");
    let reader = device.try_clone_native().unwrap();
    // One window only; then the device says nothing more, but keeps the line open
    // (it is dropped only after the viewer has ended).
    let fake = thread::spawn(move || {
        let followed = serve(reader, &mut device, &RECORDED.lines().take(1).collect::<Vec<_>>(), "");
        (followed, device)
    });
    let out = viewer(&["--pty", &path, "--no-ui", "--windows", "1"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(printed_windows(&out), [0]);
    let (followed, device) = fake.join().unwrap();
    assert!(followed);
    drop((device, viewer_end));
}

#[test]
fn a_dropped_tcp_connection_is_opened_again() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let lines: Vec<String> = RECORDED.lines().map(str::to_owned).collect();
    let fake = thread::spawn(move || {
        // The first connection carries three windows and is dropped; the second the rest.
        let mut follows = 0;
        for part in [&lines[..3], &lines[3..]] {
            let (stream, _) = listener.accept().unwrap();
            let refs: Vec<&str> = part.iter().map(String::as_str).collect();
            follows += usize::from(serve(stream.try_clone().unwrap(), stream, &refs, ""));
        }
        follows
    });
    let out = viewer(&["--tcp", &addr, "--no-ui", "--windows", "6"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(fake.join().unwrap(), 2, "one follow command per connection");
    assert_eq!(printed_windows(&out), [0, 1, 2, 3, 4, 5], "{stderr}");
    assert!(stderr.contains("reconnecting") && stderr.contains("again"), "{stderr}");
}

#[test]
fn a_missing_device_is_a_clear_error() {
    let out = viewer(&["--serial", "/dev/cpu-usage-top-no-such-device", "--no-ui"]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("cannot open serial port /dev/cpu-usage-top-no-such-device"), "{stderr}");
    let out = viewer(&["--pty", "/dev/cpu-usage-top-no-such-pty", "--no-ui"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot open /dev/cpu-usage-top-no-such-pty"));
    let out = viewer(&["--no-ui"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no source"));
}
