//! The read-out end to end: the minimal build's firmware (snapshot.elf, no shell) on
//! QEMU mps2-an385 under -icount with its gdbstub, read by `cpu-usage-top --gdb`;
//! every window both saw has the figures the firmware's own `cpu_usage_snapshot`
//! printed. The default demo on mps2-an385, and on riscv-virt-smp2 (FreeRTOS SMP, 2
//! harts), read while its shell prints the same windows. And the bad inputs, each
//! with its error.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use freertos_cpu_usage_report::Window;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The board most of these tests run on.
const MPS2: &str = "mps2-an385";

/// The board of several cores: FreeRTOS SMP on 2 RISC-V harts.
const SMP2: &str = "riscv-virt-smp2";

fn image(name: &str) -> PathBuf {
    image_of(MPS2, name)
}

fn image_of(board: &str, name: &str) -> PathBuf {
    let elf = root().join("build").join(board).join(name);
    assert!(elf.exists(), "{} is missing: build it with `make {board}` (`make test` does)", elf.display());
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

/// The board's -icount command (freertos-port/qemu.mk's one description of it) for
/// `elf`, stopped at start with its gdbstub on `port`, its console on pipes.
fn qemu(elf: &Path, port: u16) -> Qemu {
    qemu_on(MPS2, elf, port)
}

/// `qemu` on `board`.
fn qemu_on(board: &str, elf: &Path, port: u16) -> Qemu {
    let out = Command::new("make")
        .current_dir(root())
        .args(["-s", "--no-print-directory", "--eval", "p: ; @echo $(QEMU_CMD_ICOUNT)", "p"])
        .arg(format!("TARGET={board}"))
        .arg(format!("QEMU_ELF={}", elf.display()))
        .output()
        .expect("make");
    let words: Vec<String> = String::from_utf8_lossy(&out.stdout).split_whitespace().map(str::to_owned).collect();
    assert!(words.first().is_some_and(|w| w.starts_with("qemu-system-")), "{words:?}");
    Command::new(&words[0])
        .current_dir(root())
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
    // core stopped: reading often misses no window.
    let record = std::env::temp_dir().join(format!("readout-{port}.jsonl"));
    let addr = format!("127.0.0.1:{port}");
    let out = viewer(&[
        "--gdb",
        &addr,
        "--elf",
        elf.to_str().unwrap(),
        "--no-ui",
        "--gdb-every-ms",
        "1",
        "--record",
        record.to_str().unwrap(),
    ]);
    let mut printed = String::new();
    qemu.0.stdout.take().unwrap().read_to_string(&mut printed).unwrap();
    let _ = qemu.0.wait();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("the GDB server closed the connection"), "{stderr}");
    assert!(stderr.contains("the core stopped"), "{stderr}");
    let read: BTreeMap<u64, Window> = std::fs::read_to_string(&record)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Window>(l).unwrap())
        .map(|w| (w.window, w))
        .collect();
    let _ = std::fs::remove_file(&record);

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

/// The default demo of `board` under QEMU's gdbstub, read by the viewer (stopping the
/// target for each read, every millisecond) while `command` is typed on its console
/// every 1.5 s: the shell's window reports, each of the last completed window as the
/// command ran (each held to report-schema's whole contract), and the windows the
/// viewer read, by number.
fn printed_and_read(board: &str, command: &str) -> (Vec<Window>, BTreeMap<u64, Window>) {
    use std::io::BufRead;
    let elf = image_of(board, "demo.elf");
    let port = free_port();
    let mut qemu = qemu_on(board, &elf, port);
    let mut console = qemu.0.stdin.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    let stdout = qemu.0.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let record = std::env::temp_dir().join(format!("readout-{board}-{port}.jsonl"));
    let addr = format!("127.0.0.1:{port}");
    let viewer = Command::new(env!("CARGO_BIN_EXE_cpu-usage-top"))
        .args(["--gdb", &addr, "--elf", elf.to_str().unwrap(), "--no-ui", "--gdb-every-ms", "1", "--record"])
        .arg(&record)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("viewer");

    // The shell's reports, each of the last completed window as the command runs.
    let mut printed: Vec<Window> = Vec::new();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while printed.len() < 4 && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(1500));
        console.write_all(format!("{command}\n").as_bytes()).unwrap();
        while let Ok(line) = rx.recv_timeout(std::time::Duration::from_secs(5)) {
            if line.starts_with("{\"mode\":\"window\",\"error\"") {
                break; // (No window has completed yet.)
            }
            if line.starts_with("{\"mode\":\"window\"") {
                let report = freertos_cpu_usage_report::parse_exact(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
                printed.push(report.window().unwrap());
                break;
            }
        }
    }
    drop(qemu);
    let out = viewer.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("the GDB server closed the connection"), "{stderr}");
    let read: BTreeMap<u64, Window> = std::fs::read_to_string(&record)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Window>(l).unwrap())
        .map(|w| (w.window, w))
        .collect();
    let _ = std::fs::remove_file(&record);
    assert!(printed.len() >= 2, "the shell answered {} of the commands", printed.len());
    (printed, read)
}

/// The default demo (shell, 64 IDs, churn, more tasks than IDs) read through the
/// gdbstub while `show_cpu_usage -m` is typed on its console: every window both gave
/// is the same report, to the count. The read-out gives every task on its own line
/// (as `-m -d` does, what the viewer's serial source asks for); summed here into the
/// deleted line, as `-m` prints it. What the block does not carry (the clock's name,
/// the smoothed loads) is taken from the shell's report, and so is the ID pool, which
/// both give as it is at the moment of reading, not as it was in the window.
#[test]
fn the_default_demo_read_through_qemus_gdbstub_is_what_show_cpu_usage_m_prints() {
    let (printed, read) = printed_and_read(MPS2, "show_cpu_usage -m");

    let mut compared = 0;
    for shell in &printed {
        let Some(got) = read.get(&shell.window) else { continue };
        let mut got = got.clone();
        got.check().unwrap();
        assert!(got.tasks.iter().any(|t| t.id == 0), "window {}: more tasks than IDs, yet no shared line", got.window);
        // Deleted tasks summed, in hundredths as the shell sums their shares.
        let (deleted, kept): (Vec<_>, Vec<_>) = got.tasks.drain(..).partition(|t| t.deleted);
        got.tasks = kept;
        got.deleted.deleted_tasks = deleted.len() as u32;
        got.deleted_counts = deleted.iter().map(|t| t.counts).sum();
        let hundredths: u64 = deleted.iter().map(|t| (t.usage_pct * 100.0).round() as u64).sum();
        got.deleted_pct = hundredths as f64 / 100.0;
        let pool = &got.slots;
        assert_eq!(pool.used + pool.quarantined + pool.free, pool.capacity, "window {}: {pool:?}", got.window);
        assert_eq!(pool.capacity, shell.slots.capacity);
        got.slots = shell.slots.clone();
        got.clock = shell.clock.clone();
        got.load_avg_pct = shell.load_avg_pct;
        assert_eq!(&got, shell, "window {}: read through the gdbstub, and printed by the shell", shell.window);
        compared += 1;
    }
    assert!(
        compared >= 1,
        "no window both printed and read: printed {:?}, read {:?}",
        printed.iter().map(|w| w.window).collect::<Vec<_>>(),
        read.keys()
    );
}

/// The default demo on 2 harts (riscv-virt-smp2: FreeRTOS SMP, the library built for
/// 2 cores) read through the gdbstub, which stops both harts for each read, while
/// `show_cpu_usage -m -d` is typed on its console: every window both gave is the same
/// report, to the count, every core's line included (the idle tasks' line, each
/// core's interrupts, sleep and idle time, `per_core`). As on one core, the clock's
/// name, the smoothed loads and the ID pool (as it is now) are the shell's.
#[test]
fn the_demo_on_two_harts_read_through_qemus_gdbstub_is_what_show_cpu_usage_m_d_prints() {
    let (printed, read) = printed_and_read(SMP2, "show_cpu_usage -m -d");

    let mut compared = 0;
    for shell in &printed {
        assert_eq!((shell.cores, shell.per_core.as_ref().map(Vec::len)), (Some(2), Some(2)), "{shell:?}");
        let Some(got) = read.get(&shell.window) else { continue };
        let mut got = got.clone();
        got.check().unwrap();
        let pool = &got.slots;
        assert_eq!(pool.used + pool.quarantined + pool.free, pool.capacity, "window {}: {pool:?}", got.window);
        assert_eq!(pool.capacity, shell.slots.capacity);
        got.slots = shell.slots.clone();
        got.clock = shell.clock.clone();
        got.load_avg_pct = shell.load_avg_pct;
        assert_eq!(&got, shell, "window {}: read through the gdbstub, and printed by the shell", shell.window);
        compared += 1;
    }
    assert!(
        compared >= 1,
        "no window both printed and read: printed {:?}, read {:?}",
        printed.iter().map(|w| w.window).collect::<Vec<_>>(),
        read.keys()
    );
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
