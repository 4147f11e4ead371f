//! The read-out end to end, on QEMU mps2-an385 under -icount with its gdbstub, read
//! by `cpu-usage-top --gdb`: the minimal build's firmware (snapshot.elf, no shell),
//! every window both saw with the figures the firmware's own `cpu_usage_snapshot`
//! printed; the default demo, every window both saw the report `show_cpu_usage -m`
//! printed, read with the core stopped for each read and read running (through a
//! server made to read a running core, as a probe's does), and read again after QEMU
//! is restarted. The demo on riscv-virt-smp2 (FreeRTOS SMP, 2 harts) the same way,
//! with every core's line. And the bad inputs, each with its error.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use freertos_cpu_usage_report::Window;
use freertos_cpu_usage_tests::repo_root;

/// The board most of these tests run on.
const MPS2: &str = "mps2-an385";

/// The board of several cores: FreeRTOS SMP on 2 RISC-V harts.
const SMP2: &str = "riscv-virt-smp2";

fn image(name: &str) -> PathBuf {
    image_of(MPS2, name)
}

fn image_of(board: &str, name: &str) -> PathBuf {
    let elf = repo_root().join("build").join(board).join(name);
    assert!(elf.exists(), "{} is missing: build it with `make qemu-image` (`make test` does)", elf.display());
    elf
}

/// A QEMU run, ended when dropped (so a failed check leaves none behind).
struct Qemu(std::process::Child);

impl Drop for Qemu {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// mps2-an385's -icount command for `elf` (see [`qemu_on`]).
fn qemu(elf: &Path, port: u16) -> Qemu {
    qemu_on(MPS2, elf, port)
}

/// `board`'s -icount command (freertos-port/qemu.mk's one description of it) for
/// `elf`, stopped at start with its gdbstub on `port`, its console on pipes.
fn qemu_on(board: &str, elf: &Path, port: u16) -> Qemu {
    let words = freertos_cpu_usage_tests::qemu::icount_command_words(board, elf);
    Command::new(&words[0])
        .current_dir(repo_root())
        .args(&words[1..])
        .args(["-gdb", &format!("tcp:127.0.0.1:{port}"), "-S"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map(Qemu)
        .expect("qemu")
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

fn viewer(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_cpu-usage-top")).args(args).stdin(Stdio::null()).output().expect("viewer")
}

/// The viewer reading `elf`'s target through the gdbstub at `port` (and `options`),
/// every window recorded, in line mode; what it says (its window lines on standard output, the
/// rest on standard error), line by line.
struct Following {
    child: std::process::Child,
    said: std::sync::mpsc::Receiver<String>,
    heard: String,
    record: PathBuf,
}

impl Following {
    fn start(elf: &Path, port: u16, options: &[&str]) -> Following {
        use std::io::BufRead;
        let record = std::env::temp_dir().join(format!("readout-{port}.jsonl"));
        let mut child = Command::new(env!("CARGO_BIN_EXE_cpu-usage-top"))
            .args(["--gdb", &format!("127.0.0.1:{port}"), "--elf"])
            .arg(elf)
            .args(["--no-ui", "--gdb-every-ms", "1", "--record"])
            .arg(&record)
            .args(options)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("viewer");
        let (tx, said) = std::sync::mpsc::channel();
        let stdout: Box<dyn Read + Send> = Box::new(child.stdout.take().unwrap());
        let stderr: Box<dyn Read + Send> = Box::new(child.stderr.take().unwrap());
        for stream in [stdout, stderr] {
            let tx = tx.clone();
            std::thread::spawn(move || {
                for line in std::io::BufReader::new(stream).lines().map_while(Result::ok) {
                    if tx.send(line).is_err() {
                        break;
                    }
                }
            });
        }
        Following { child, said, heard: String::new(), record }
    }

    /// Waits up to 30 s for a line that contains `what`, after those heard so far.
    fn hear(&mut self, what: &str) {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while let Some(left) = deadline.checked_duration_since(std::time::Instant::now()) {
            let Ok(line) = self.said.recv_timeout(left) else { break };
            self.heard += &line;
            self.heard.push('\n');
            if line.contains(what) {
                return;
            }
        }
        panic!("the viewer did not say {what:?}; it said:\n{}", self.heard);
    }

    /// Ends the viewer as a user does (`q`, Enter), and gives every window it
    /// recorded, by number (the first of each number: a target restarted numbers
    /// its windows from 0 again), and all it said.
    fn quit(mut self) -> (BTreeMap<u64, Window>, String) {
        let _ = self.child.stdin.take().unwrap().write_all(b"q\n");
        assert!(self.child.wait().unwrap().success());
        self.heard.extend(self.said.iter().map(|l| l + "\n"));
        let read = std::fs::read_to_string(&self.record)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str::<Window>(l).unwrap())
            .fold(BTreeMap::new(), |mut read, w| {
                read.entry(w.window).or_insert(w);
                read
            });
        let _ = std::fs::remove_file(&self.record);
        (read, self.heard)
    }
}

/// `key=value` pairs of a firmware output line.
fn fields(line: &str) -> BTreeMap<String, String> {
    line.split_whitespace().filter_map(|w| w.split_once('=')).map(|(k, v)| (k.to_owned(), v.to_owned())).collect()
}

fn hundredths(pct: f64) -> String {
    ((pct * 100.0).round() as u64).to_string()
}

#[test]
fn the_minimal_build_read_through_qemus_gdbstub_is_what_it_prints() {
    let elf = image("snapshot.elf");
    let port = free_port();
    let mut qemu = qemu(&elf, port);
    // Guest time stands still while QEMU waits (-S) and while the viewer has the
    // core stopped: reading often misses no window. The viewer tries to read the
    // running core first; QEMU stops it to answer, and the viewer notices.
    let mut viewer = Following::start(&elf, port, &[]);
    viewer.hear("stops the core to read it: stopping it for each read");
    let mut printed = String::new();
    qemu.0.stdout.take().unwrap().read_to_string(&mut printed).unwrap();
    let _ = qemu.0.wait();
    // The firmware ends its run: the viewer waits for the server to come back.
    viewer.hear("the GDB server closed the connection; reconnecting");
    let (read, said) = viewer.quit();
    assert!(said.contains("the core stopped"), "{said}");

    let mut compared = 0;
    let mut current: Option<&Window> = None;
    for line in printed.lines() {
        let f = fields(line);
        let get = |k: &str| f.get(k).cloned().unwrap_or_default();
        if line.starts_with("window ") {
            current = get("number").parse().ok().and_then(|n: u64| read.get(&n));
            if let Some(w) = current {
                assert_eq!(get("us"), w.window_us.to_string(), "{line}");
                compared += 1;
            }
        } else if let (true, Some(w)) = (line.starts_with("task "), current) {
            let id: u32 = get("id").parse().unwrap();
            let (counts, switches, longest, usage) = if get("idle") == "1" {
                let i = w.idle.as_ref().expect("the idle task");
                (i.counts, i.switches, i.longest_slice_us, hundredths(w.idle_pct))
            } else {
                let t = w.tasks.iter().find(|t| t.id == id).unwrap_or_else(|| panic!("task {id} in {w:?}"));
                (t.counts, t.switches, t.longest_slice_us, hundredths(t.usage_pct))
            };
            assert_eq!(
                [get("counts"), get("switches"), get("longest_us"), get("usage")],
                [counts.to_string(), switches.to_string(), longest.to_string(), usage],
                "window {}: {line}",
                w.window
            );
        } else if let (true, Some(w)) = (line.starts_with("summary "), current) {
            assert_eq!(
                [
                    get("interrupts"),
                    get("interrupt_count"),
                    get("longest_interrupt_us"),
                    get("sleep"),
                    get("other"),
                    get("idle"),
                    get("load")
                ],
                [
                    hundredths(w.interrupts_pct),
                    w.interrupts.to_string(),
                    w.longest_interrupt_us.to_string(),
                    hundredths(w.sleep_pct),
                    hundredths(w.other_pct),
                    hundredths(w.idle_pct),
                    hundredths(w.load_pct)
                ],
                "window {}: {line}",
                w.window
            );
            w.check().unwrap();
        }
    }
    assert!(compared >= 1, "no window both printed and read: printed\n{printed}\nread {:?}", read.keys());
}

/// The demo's console: commands in, lines out.
struct Console {
    input: std::process::ChildStdin,
    lines: std::sync::mpsc::Receiver<String>,
}

impl Console {
    fn of(qemu: &mut Qemu) -> Console {
        use std::io::BufRead;
        let (tx, lines) = std::sync::mpsc::channel::<String>();
        let stdout = qemu.0.stdout.take().unwrap();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Console { input: qemu.0.stdin.take().unwrap(), lines }
    }

    /// `command` typed every 1.5 s until it has given `n` window reports (or a
    /// minute is over): each the last completed window as the command runs, held to
    /// the report's whole contract.
    fn reports(&mut self, command: &str, n: usize) -> Vec<Window> {
        let mut printed = Vec::new();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while printed.len() < n && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(1500));
            self.input.write_all(format!("{command}\n").as_bytes()).unwrap();
            while let Ok(line) = self.lines.recv_timeout(std::time::Duration::from_secs(5)) {
                if line.starts_with("{\"mode\":\"window\",\"error\"") {
                    break; // (No window has completed yet.)
                }
                if line.starts_with("{\"mode\":\"window\"") {
                    let report =
                        freertos_cpu_usage_report::parse_exact(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
                    printed.push(report.window().unwrap());
                    break;
                }
            }
        }
        assert!(printed.len() >= 2, "the shell answered {} of the commands", printed.len());
        printed
    }
}

/// Every window both the shell `printed` and the viewer `read` is the same report, to
/// the count; at least one is. The read-out gives every task on its own line (as
/// `-m -d` does, what the viewer's serial source asks for); for a shell's `-m`
/// (`deleted_summed`) summed here into the deleted line, as `-m` prints it. What the
/// block does not carry (the clock's name) is taken from the shell's report, and so
/// is the ID pool, which both give as it is at the moment of reading, not as it was
/// in the window.
fn same_as_the_shell(printed: &[Window], read: &BTreeMap<u64, Window>, deleted_summed: bool) {
    let mut compared = 0;
    for shell in printed {
        let Some(got) = read.get(&shell.window) else { continue };
        let mut got = got.clone();
        got.check().unwrap();
        if deleted_summed {
            // Deleted tasks summed, in hundredths as the shell sums their shares.
            let (deleted, kept): (Vec<_>, Vec<_>) = got.tasks.drain(..).partition(|t| t.deleted);
            got.tasks = kept;
            got.deleted.deleted_tasks = deleted.len() as u32;
            got.deleted_counts = deleted.iter().map(|t| t.counts).sum();
            let hundredths: u64 = deleted.iter().map(|t| (t.usage_pct * 100.0).round() as u64).sum();
            got.deleted_pct = hundredths as f64 / 100.0;
        }
        let pool = &got.slots;
        assert_eq!(pool.used + pool.quarantined + pool.free, pool.capacity, "window {}: {pool:?}", got.window);
        assert_eq!(pool.capacity, shell.slots.capacity);
        got.slots = shell.slots.clone();
        got.clock = shell.clock.clone();
        assert_eq!(&got, shell, "window {}: read through the GDB server, and printed by the shell", shell.window);
        compared += 1;
    }
    assert!(
        compared >= 1,
        "no window both printed and read: printed {:?}, read {:?}",
        printed.iter().map(|w| w.window).collect::<Vec<_>>(),
        read.keys()
    );
}

/// The default demo (shell, 32 IDs, churn, more tasks than IDs) read through the
/// gdbstub, stopping the core for each read, while `show_cpu_usage -m` is typed on
/// its console: every window both gave is the same report ([`same_as_the_shell`]).
/// Then QEMU goes away and comes back, and the viewer reads the new run.
#[test]
fn the_default_demo_read_through_qemus_gdbstub_is_what_show_cpu_usage_m_prints() {
    let elf = image("demo.elf");
    let port = free_port();
    let mut qemu = qemu(&elf, port);
    let mut console = Console::of(&mut qemu);
    let mut viewer = Following::start(&elf, port, &["--gdb-halt"]);
    let printed = console.reports("show_cpu_usage -m", 4);
    drop(qemu);
    // A target that goes away and comes back (a QEMU restarted, a probe plugged in
    // again) is read again.
    viewer.hear("the GDB server closed the connection; reconnecting");
    let again = self::qemu(&elf, port);
    viewer.hear(" again");
    viewer.hear("window 0 (");
    let (read, said) = viewer.quit();
    drop(again);
    assert!(said.contains("the core stopped"), "{said}");
    assert!(!said.contains("stops the core to read it"), "--gdb-halt tried a live read: {said}");
    assert!(read.values().all(|w| w.tasks.iter().any(|t| t.id == 0)), "more tasks than IDs, yet no shared line");
    same_as_the_shell(&printed, &read, true);
}

/// A GDB server that reads a running target, as a probe's does, made of QEMU's
/// gdbstub at `qemu`: each `m` stops the core, reads, and lets it go, so between two
/// `m` packets (the engine is read in several, `PacketSize` keeps them small) the
/// core runs on, as it does under a probe that reads the bus. Serves one viewer on
/// the returned port.
fn live_server(qemu: u16) -> u16 {
    use cpu_usage_top::gdb::Client;
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let (mut viewer, _) = listener.accept().unwrap();
        let mut from_viewer = viewer.try_clone().unwrap();
        let mut target = Client::connect(&format!("127.0.0.1:{qemu}")).unwrap();
        let mut running = false;
        let mut byte = move || {
            let mut b = [0u8];
            (from_viewer.read(&mut b).ok()? == 1).then_some(b[0])
        };
        // Packets from the viewer, each acknowledged, answered in `answer`.
        'serve: loop {
            let mut data = Vec::new();
            loop {
                match byte() {
                    None => break 'serve,
                    Some(b'$') => break,
                    Some(_) => {}
                }
            }
            loop {
                match byte() {
                    None => break 'serve,
                    Some(b'#') => break,
                    Some(b) => data.push(b),
                }
            }
            let (_, _) = (byte(), byte());
            let packet = String::from_utf8(data).unwrap();
            let answer = if packet.starts_with("qSupported") {
                Some("PacketSize=200".to_owned())
            } else if packet == "?" {
                Some("S05".to_owned())
            } else if packet == "c" {
                if !running {
                    target.resume().unwrap();
                    running = true;
                }
                None
            } else if let Some(at_len) = packet.strip_prefix('m') {
                let (at, len) = at_len.split_once(',').unwrap();
                let (at, len) = (u64::from_str_radix(at, 16).unwrap(), usize::from_str_radix(len, 16).unwrap());
                if running {
                    target.halt().unwrap();
                }
                let bytes = target.read_memory(at, len).unwrap();
                if running {
                    target.resume().unwrap();
                }
                Some(bytes.iter().map(|b| format!("{b:02x}")).collect())
            } else {
                Some(String::new())
            };
            let mut out = b"+".to_vec();
            if let Some(answer) = answer {
                let sum = answer.bytes().fold(0u8, |s, b| s.wrapping_add(b));
                out.extend(format!("${answer}#{sum:02x}").bytes());
            }
            if viewer.write_all(&out).is_err() {
                break;
            }
        }
    });
    port
}

/// The default demo read through a server that reads the running core: the viewer
/// reads it running (the records in address order while the hooks write them, the
/// engine in several packets with the core running between them), never stops it,
/// and every window both gave is the shell's report ([`same_as_the_shell`]).
#[test]
fn the_default_demo_read_while_it_runs_is_what_show_cpu_usage_m_prints() {
    let elf = image("demo.elf");
    let port = free_port();
    let mut qemu = qemu(&elf, port);
    let mut console = Console::of(&mut qemu);
    let mut viewer = Following::start(&elf, live_server(port), &[]);
    viewer.hear("live where the server can");
    let printed = console.reports("show_cpu_usage -m", 4);
    let (read, said) = viewer.quit();
    drop(qemu);
    assert!(!said.contains("stops the core to read it"), "{said}");
    assert!(!said.contains("the core stopped"), "{said}");
    same_as_the_shell(&printed, &read, true);
}

/// The default demo on 2 harts (riscv-virt-smp2: FreeRTOS SMP, the library built for
/// 2 cores) read through the gdbstub, which stops both harts for each read, while
/// `show_cpu_usage -m -d` is typed on its console: every window both gave is the same
/// report ([`same_as_the_shell`]), every core's line included (the idle tasks' line,
/// each core's interrupts, sleep and idle time, `per_core`).
#[test]
fn the_demo_on_two_harts_read_through_qemus_gdbstub_is_what_show_cpu_usage_m_d_prints() {
    let elf = image_of(SMP2, "demo.elf");
    let port = free_port();
    let mut qemu = qemu_on(SMP2, &elf, port);
    let mut console = Console::of(&mut qemu);
    let viewer = Following::start(&elf, port, &[]);
    let printed = console.reports("show_cpu_usage -m -d", 4);
    let (read, _) = viewer.quit();
    drop(qemu);
    for shell in &printed {
        assert_eq!((shell.cores, shell.per_core.as_ref().map(Vec::len)), (Some(2), Some(2)), "{shell:?}");
    }
    same_as_the_shell(&printed, &read, false);
}

/// QEMU's gdbstub on several harts (all-stop): the halt the viewer sends stops every
/// hart, and `m` reads memory with all of them stopped. The server lists both harts;
/// at each stop the engine (which every hart's hooks write) reads the same twice,
/// with time on the host between; from one stop to the next it has moved on.
#[test]
fn a_halt_through_qemus_gdbstub_stops_both_harts() {
    use cpu_usage_top::gdb::Client;
    use cpu_usage_top::readout::Firmware;
    use std::time::Duration;
    let elf = image_of(SMP2, "demo.elf");
    let block = Firmware::load(&elf).unwrap().block;
    let port = free_port();
    let qemu = qemu_on(SMP2, &elf, port);
    let mut gdb = Client::connect(&format!("127.0.0.1:{port}")).unwrap();
    // The threads (the harts) come a few at a time, `m...` after `m...` until `l`.
    let mut threads = Vec::new();
    let mut answer = gdb.request("qfThreadInfo").unwrap();
    while let Some(some) = answer.strip_prefix('m') {
        threads.extend(some.split(',').map(str::to_owned));
        answer = gdb.request("qsThreadInfo").unwrap();
    }
    assert_eq!((threads.len(), answer.as_str()), (2, "l"), "threads {threads:?}, then {answer:?}");
    assert!(gdb.why_stopped().unwrap().starts_with(['S', 'T']));
    gdb.resume().unwrap();
    let mut stops: Vec<Vec<u8>> = Vec::new();
    for _ in 0..4 {
        std::thread::sleep(Duration::from_millis(300));
        gdb.halt().unwrap();
        let engine = gdb.read_memory(block.engine, block.engine_span()).unwrap();
        std::thread::sleep(Duration::from_millis(100));
        let again = gdb.read_memory(block.engine, block.engine_span()).unwrap();
        assert!(engine == again, "the engine changed while the harts were stopped");
        gdb.resume().unwrap();
        stops.push(engine);
    }
    drop(qemu);
    assert!(stops.windows(2).all(|w| w[0] != w[1]), "the engine did not move on between stops");
    assert!(block.seq_of(&stops[3]) > 0, "the engine never started in {} stops", stops.len());
}

/// A viewer that connects while the target runs (the last one left it running)
/// reads it too: QEMU greets it with a stop reply nobody asked for.
#[test]
fn a_viewer_connects_to_a_running_target() {
    let elf = image("demo.elf");
    let port = free_port();
    let _qemu = qemu(&elf, port);
    let addr = format!("127.0.0.1:{port}");
    for _ in 0..2 {
        let out = viewer(&["--gdb", &addr, "--elf", elf.to_str().unwrap(), "--no-ui", "--windows", "1"]);
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{said}");
        assert!(said.contains("1 window read"), "{said}");
    }
}

fn error_of(args: &[&str]) -> String {
    let out = viewer(args);
    assert!(!out.status.success());
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_wrong_elf_is_told() {
    let (run, other) = (image("snapshot.elf"), image("demo.elf"));
    let port = free_port();
    let qemu = qemu(&run, port);
    let err = error_of(&["--gdb", &format!("127.0.0.1:{port}"), "--elf", other.to_str().unwrap(), "--no-ui"]);
    drop(qemu);
    assert!(err.contains("is not the ELF's: is the ELF the firmware that runs?"), "{err}");
}

#[test]
fn a_read_every_0_ms_is_refused() {
    let elf = image("snapshot.elf");
    let err = error_of(&["--gdb", "127.0.0.1:1", "--elf", elf.to_str().unwrap(), "--gdb-every-ms", "0"]);
    assert!(err.contains("--gdb-every-ms") && err.contains("1..=60000"), "{err}");
}

#[test]
fn an_elf_without_the_block_is_told() {
    let err = error_of(&["--gdb", "127.0.0.1:1", "--elf", env!("CARGO_BIN_EXE_cpu-usage-top"), "--no-ui"]);
    assert!(err.contains("has no symbol cpu_usage_readout"), "{err}");
    let err = error_of(&["--gdb", "127.0.0.1:1", "--elf", "Cargo.toml", "--no-ui"]);
    assert!(err.contains("is not an ELF file"), "{err}");
}

#[test]
fn another_version_of_the_block_is_told() {
    use object::{Object, ObjectSection, ObjectSymbol};
    let elf = image("snapshot.elf");
    let mut bytes = std::fs::read(&elf).unwrap();
    let at = {
        let file = object::File::parse(&*bytes).unwrap();
        let sym = file.symbols().find(|s| s.name() == Ok("cpu_usage_readout")).unwrap();
        let section = file.section_by_index(sym.section_index().unwrap()).unwrap();
        let (offset, _) = section.file_range().unwrap();
        (offset + sym.address() - section.address()) as usize
    };
    bytes[at + 4] = 9;
    let patched = std::env::temp_dir().join(format!("readout-v9-{}.elf", std::process::id()));
    std::fs::write(&patched, &bytes).unwrap();
    let err = error_of(&["--gdb", "127.0.0.1:1", "--elf", patched.to_str().unwrap(), "--no-ui"]);
    let _ = std::fs::remove_file(&patched);
    assert!(err.contains("read-out block version 9, this viewer reads version 1"), "{err}");
}

#[test]
fn a_server_that_drops_the_connection_is_told() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let server = std::thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        let mut buf = [0u8; 64];
        let _ = s.read(&mut buf);
        let _ = s.write_all(b"+");
        // And gone before it answers.
    });
    let elf = image("snapshot.elf");
    let err = error_of(&["--gdb", &addr, "--elf", elf.to_str().unwrap(), "--no-ui"]);
    server.join().unwrap();
    assert!(err.contains("the GDB server closed the connection"), "{err}");
}
