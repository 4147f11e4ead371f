//! `cpu-usage-top`: follows a FreeRTOS device's `show_cpu_usage` over its serial
//! shell and shows it live; records, plots, serves and converts what it reads. Run
//! `cpu-usage-top --help`.

use std::fs::File;
use std::io::{BufWriter, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use clap::Parser;

use cpu_usage_top::session::{follow_command, Event, Session};
use cpu_usage_top::source::Source;
use cpu_usage_top::window::{note_line, Line, Window};
use cpu_usage_top::words::count;
use cpu_usage_top::{perfetto, plot, prometheus, trace, ui};

/// Live per-task CPU usage of a FreeRTOS device running freertos-cpu-usage, read
/// from its serial shell (`show_cpu_usage -m -d -f`).
#[derive(Parser, Debug)]
#[command(name = "cpu-usage-top", version, after_help = EXAMPLES)]
struct Cli {
    /// A serial device, e.g. /dev/ttyUSB0.
    #[arg(long, value_name = "DEVICE", group = "source")]
    serial: Option<PathBuf>,
    /// The serial device's baud rate.
    #[arg(long, default_value_t = 115_200, requires = "serial")]
    baud: u32,
    /// A pseudo-terminal carrying the shell, e.g. /dev/pts/3.
    #[arg(long, value_name = "PATH", group = "source")]
    pty: Option<PathBuf>,
    /// A TCP server carrying the shell, e.g. QEMU's `-serial tcp::5555,server`.
    #[arg(long, value_name = "HOST:PORT", group = "source")]
    tcp: Option<String>,
    /// A program whose standard input and output are the shell (the POSIX
    /// simulator); words after the first are its arguments.
    #[arg(long, value_name = "COMMAND", group = "source")]
    exec: Option<String>,
    /// A GDB server (QEMU's -gdb, OpenOCD, pyOCD, probe-rs...) to read the last
    /// window out of the target's memory through, with --elf: no shell needed.
    #[arg(long, value_name = "HOST:PORT", group = "source", requires = "elf")]
    gdb: Option<String>,
    /// The firmware's ELF, which says where the read-out block is (with --gdb).
    #[arg(long, value_name = "FIRMWARE.elf", requires = "gdb")]
    elf: Option<PathBuf>,
    /// Stop the core for each read even where the server can read it running
    /// (without this: read it running where the server can, OpenOCD, J-Link,
    /// probe-rs, pyOCD on Cortex-M; stop it where the server cannot, QEMU's).
    #[arg(long, requires = "gdb")]
    gdb_halt: bool,
    /// How often the read-out reads the target, in milliseconds (1 to 60000).
    #[arg(long, value_name = "MS", default_value_t = 100, requires = "gdb",
          value_parser = clap::value_parser!(u64).range(1..=60_000))]
    gdb_every_ms: u64,

    /// Set the device's window length first (`show_cpu_usage -w MS`).
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u32).range(1..=3_600_000))]
    window_ms: Option<u32>,
    /// Stop after this many windows (the device stops following by itself too).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    windows: Option<u32>,
    /// No terminal UI: one line per window on standard output (the default when
    /// standard output is not a terminal); type q and Enter to quit.
    #[arg(long)]
    no_ui: bool,

    /// Keep every window read, one JSON object a line.
    #[arg(long, value_name = "FILE.jsonl")]
    record: Option<PathBuf>,
    /// When the viewer ends, plot the windows read as a stacked area chart
    /// (.svg or .png; may be given more than once).
    #[arg(long, value_name = "FILE")]
    plot: Vec<PathBuf>,
    /// Trace context switches and interrupts while the viewer runs (device built with
    /// CPU_USAGE_TRACE), then write them as Chrome Trace Event JSON for Perfetto.
    /// With --trace-input, convert a saved `cpu_usage_trace dump` instead.
    #[arg(long, value_name = "FILE.json")]
    perfetto: Option<PathBuf>,
    /// Windows recorded earlier with --record, read instead of a device: for --plot,
    /// --prometheus, or a second look (with --no-ui, one line per window).
    #[arg(long, value_name = "FILE.jsonl", group = "source")]
    replay: Option<PathBuf>,
    /// A saved `cpu_usage_trace dump` to convert with --perfetto (no device needed).
    #[arg(long, value_name = "DUMP", requires = "perfetto")]
    trace_input: Option<PathBuf>,
    /// Serve the latest window for Prometheus at http://ADDR/metrics.
    #[arg(long, value_name = "ADDR")]
    prometheus: Option<String>,
    /// Serve only the N busiest tasks of each window, the rest summed as
    /// `freertos_cpu_more_tasks_percent`: a device that keeps creating tasks then
    /// does not create a new series for each.
    #[arg(long, value_name = "N", requires = "prometheus")]
    prometheus_tasks: Option<usize>,
    /// The `device` label of the Prometheus metrics (default: the source).
    #[arg(long, value_name = "NAME")]
    device: Option<String>,

    /// Highlight the load above this percentage [default: the device's load
    /// watchdog, else 80].
    #[arg(long, value_name = "PCT")]
    load_limit: Option<f64>,
    /// Highlight a task's longest run above this many microseconds [default: the
    /// device's slice watchdog].
    #[arg(long, value_name = "US")]
    slice_limit_us: Option<u64>,
}

const EXAMPLES: &str = "\
Quitting:
  In the terminal UI: q, Esc or Ctrl-C (s sorts, p pauses, the arrows select).
  In line mode (--no-ui, or standard output not a terminal, e.g. `make top | tee log`):
  q then Enter, or Ctrl-C. Either way --windows N ends it after N windows.

Examples:
  cpu-usage-top --serial /dev/ttyUSB0 --baud 115200
  cpu-usage-top --exec build/posix/freertos-sim
  cpu-usage-top --tcp 127.0.0.1:5555 --record run.jsonl --plot run.png
  cpu-usage-top --gdb 127.0.0.1:3333 --elf firmware.elf
  cpu-usage-top --exec build/posix/freertos-sim --no-ui --windows 10 --perfetto trace.json
  cpu-usage-top --trace-input dump.txt --perfetto trace.json";

/// Longest wait for the device's trace dump to end.
const DUMP_TIMEOUT: Duration = Duration::from_secs(20);

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("cpu-usage-top: {e}");
            ExitCode::FAILURE
        }
    }
}

fn source_of(cli: &Cli) -> Option<Source> {
    if let Some(path) = &cli.serial {
        return Some(Source::Serial { path: path.clone(), baud: cli.baud });
    }
    if let Some(path) = &cli.pty {
        return Some(Source::Pty { path: path.clone() });
    }
    if let Some(addr) = &cli.tcp {
        return Some(Source::Tcp { addr: addr.clone() });
    }
    let mut words = cli.exec.as_deref()?.split_whitespace();
    let program = PathBuf::from(words.next()?);
    Some(Source::Exec { program, args: words.map(str::to_owned).collect() })
}

fn run(cli: Cli) -> Result<(), String> {
    if let (Some(input), Some(out)) = (&cli.trace_input, &cli.perfetto) {
        let text = std::fs::read_to_string(input).map_err(|e| format!("cannot read {}: {e}", input.display()))?;
        return convert_trace(&text, out);
    }
    if let Some(path) = &cli.replay {
        return replay(&cli, path);
    }
    if let (Some(addr), Some(elf)) = (&cli.gdb, &cli.elf) {
        return read_out(&cli, addr, elf);
    }
    let Some(source) = source_of(&cli) else {
        return Err("no source: give --serial, --pty, --tcp, --exec, --gdb or --replay (see --help)".to_owned());
    };
    let device = cli.device.clone().unwrap_or_else(|| source.to_string());
    let mut outputs = Outputs::open(&cli, &device)?;

    let first = if cli.perfetto.is_some() { vec!["cpu_usage_trace start".to_owned()] } else { Vec::new() };
    let mut each: Vec<String> = cli.window_ms.map(|ms| format!("show_cpu_usage -w {ms}")).into_iter().collect();
    // The device's watchdog thresholds, for the highlighting the options leave open.
    each.push("cpu_usage_watchdog".to_owned());
    each.push(follow_command(cli.windows));
    let (session, events) = Session::start(source.clone(), first, each).map_err(|e| e.to_string())?;

    let ended = show(&cli, &events, &mut outputs, source.to_string())?;

    let mut result = Ok(());
    if let Some(out) = &cli.perfetto {
        result = dump_trace(&session, &events, out);
    }
    session.close();
    outputs.finish()?;
    eprintln!("cpu-usage-top: {ended}");
    result
}

/// Reads the windows out of the target's memory through a GDB server.
fn read_out(cli: &Cli, addr: &str, elf: &std::path::Path) -> Result<(), String> {
    use cpu_usage_top::readout::{Firmware, Follow, Mode};
    if cli.perfetto.is_some() || cli.window_ms.is_some() {
        return Err("--gdb reads the windows only: --perfetto and --window-ms need the shell".to_owned());
    }
    let firmware = Firmware::load(elf)?;
    let device = cli.device.clone().unwrap_or_else(|| format!("gdb:{addr}"));
    let mut outputs = Outputs::open(cli, &device)?;
    let mode = if cli.gdb_halt { Mode::Halt } else { Mode::Auto };
    let (follow, events) = Follow::start(addr, firmware, mode, Duration::from_millis(cli.gdb_every_ms))?;
    let ended = show(cli, &events, &mut outputs, device)?;
    let halts = follow.close();
    outputs.finish()?;
    if !halts.is_empty() {
        let mut us: Vec<u128> = halts.iter().map(Duration::as_micros).collect();
        us.sort_unstable();
        eprintln!(
            "cpu-usage-top: the core stopped {} times, for {} us at the median, {} us at most",
            us.len(),
            us[us.len() / 2],
            us[us.len() - 1]
        );
    }
    eprintln!("cpu-usage-top: {ended}");
    Ok(())
}

/// Reads recorded windows as if they came from a device, as fast as they are read.
fn replay(cli: &Cli, path: &std::path::Path) -> Result<(), String> {
    if cli.perfetto.is_some() {
        return Err("--perfetto needs a device (or --trace-input), not --replay".to_owned());
    }
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let device = cli.device.clone().unwrap_or_else(|| path.display().to_string());
    let mut outputs = Outputs::open(cli, &device)?;
    let (tx, events) = std::sync::mpsc::channel();
    for (n, line) in text.lines().enumerate() {
        match cpu_usage_top::window::parse_line(line) {
            Line::Garbage(why) => eprintln!("cpu-usage-top: {}:{}: skipped: {why}", path.display(), n + 1),
            line => drop(tx.send(Event::Line(line))),
        }
    }
    drop(tx.send(Event::Closed(format!("end of {}", path.display()))));
    let ended = show(cli, &events, &mut outputs, path.display().to_string())?;
    outputs.finish()?;
    eprintln!("cpu-usage-top: {ended}");
    Ok(())
}

/// What every window read goes to, besides the screen.
struct Outputs {
    record: Option<BufWriter<File>>,
    plots: Vec<PathBuf>,
    /// Every window, for the plots.
    all: Vec<Window>,
    exporter: Option<prometheus::Exporter>,
    /// Tasks served to Prometheus (`None`: all).
    prometheus_tasks: Option<usize>,
    received: u64,
    /// Console lines that were garbage.
    garbage: u64,
    /// The number of the last window taken.
    last: Option<u64>,
}

impl Outputs {
    fn open(cli: &Cli, device: &str) -> Result<Outputs, String> {
        let record = match &cli.record {
            Some(path) => {
                Some(BufWriter::new(File::create(path).map_err(|e| format!("cannot create {}: {e}", path.display()))?))
            }
            None => None,
        };
        // Checked now rather than after the whole run.
        for path in &cli.plot {
            let ext = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
            if !matches!(ext.as_deref(), Some("svg" | "png")) {
                return Err(format!("--plot {}: the file name must end in .svg or .png", path.display()));
            }
        }
        let exporter = match &cli.prometheus {
            Some(addr) => {
                let exporter = prometheus::Exporter::serve(addr, device.to_owned())
                    .map_err(|e| format!("cannot serve Prometheus metrics on {addr}: {e}"))?;
                eprintln!("cpu-usage-top: Prometheus metrics at http://{}/metrics", exporter.local_addr());
                Some(exporter)
            }
            None => None,
        };
        Ok(Outputs {
            record,
            plots: cli.plot.clone(),
            all: Vec::new(),
            exporter,
            prometheus_tasks: cli.prometheus_tasks,
            received: 0,
            garbage: 0,
            last: None,
        })
    }

    /// Takes a console line: counts garbage, and passes a window on to `window`.
    /// Returns whether it was a new window.
    fn line(&mut self, line: &Line) -> bool {
        match line {
            Line::Window(w) => self.window(w),
            Line::Garbage(_) => {
                self.garbage += 1;
                false
            }
            Line::Text(_) => false,
        }
    }

    /// Whether the windows asked for (`--windows`) have all come.
    fn enough(&self, windows: Option<u32>) -> bool {
        windows.is_some_and(|n| self.received >= u64::from(n))
    }

    /// Takes a window read; a repeat of the last one (a follow mode started again
    /// reports the last completed window first) is left out. Returns whether it was new.
    fn window(&mut self, w: &Window) -> bool {
        if self.last == Some(w.window) {
            return false;
        }
        self.last = Some(w.window);
        self.received += 1;
        if let Some(record) = &mut self.record {
            if let Ok(line) = serde_json::to_string(w) {
                let _ = writeln!(record, "{line}").and_then(|()| record.flush());
            }
        }
        if let Some(exporter) = &self.exporter {
            let stats = prometheus::Stats { windows: self.received, garbage_lines: self.garbage };
            match self.prometheus_tasks {
                Some(n) => exporter.update(&w.top(n), stats),
                None => exporter.update(w, stats),
            }
        }
        if !self.plots.is_empty() {
            self.all.push(w.clone());
        }
        true
    }

    fn finish(mut self) -> Result<(), String> {
        if let Some(mut record) = self.record.take() {
            record.flush().map_err(|e| format!("writing the record: {e}"))?;
        }
        for path in &self.plots {
            plot::render(&self.all, path).map_err(|e| format!("plot {}: {e}", path.display()))?;
            eprintln!(
                "cpu-usage-top: wrote {} ({})",
                path.display(),
                count(self.all.len() as u64, "window", "windows")
            );
        }
        Ok(())
    }
}

/// One line per window on standard output until the windows asked for have come,
/// the source ends, or the user types `q` and Enter; the device's alerts and notes go
/// to standard error. Returns how it ended.
fn follow_headless(cli: &Cli, events: &Receiver<Event>, outputs: &mut Outputs) -> String {
    let stdout = std::io::stdout();
    let quit = quit_requests();
    loop {
        if quit.try_recv().is_ok() {
            return format!("quit after {}", count(outputs.received, "window", "windows"));
        }
        let event = match events.recv_timeout(Duration::from_millis(100)) {
            Ok(event) => event,
            Err(RecvTimeoutError::Timeout) => continue,
            Err(RecvTimeoutError::Disconnected) => return "the reader stopped".to_owned(),
        };
        match event {
            Event::Line(line) => {
                let new = outputs.line(&line);
                match line {
                    Line::Window(w) if new => {
                        if let Some(note) = note_line(&w) {
                            eprintln!("cpu-usage-top: {}{note}", ui::DEVICE_LABEL);
                        }
                        drop(writeln!(stdout.lock(), "{}", summary_line(&w)))
                    }
                    Line::Garbage(why) => eprintln!("cpu-usage-top: skipped a garbled line: {why}"),
                    Line::Text(text) if ui::stands_out(&text) => {
                        eprintln!("cpu-usage-top: {}{}", ui::DEVICE_LABEL, text.trim_start_matches(['>', ' ']))
                    }
                    _ => {}
                }
                if outputs.enough(cli.windows) {
                    return format!(
                        "{} read, {} skipped",
                        count(outputs.received, "window", "windows"),
                        count(outputs.garbage, "garbage line", "garbage lines")
                    );
                }
            }
            Event::Status(status) => eprintln!("cpu-usage-top: {status}"),
            Event::Closed(why) => return format!("{why}; {} read", count(outputs.received, "window", "windows")),
        }
    }
}

/// Line mode's keyboard: standard input, read a line at a time (a terminal in line
/// mode hands over nothing before Enter). A line `q` (or `quit`) sends one request;
/// the end of the input sends none, so `< /dev/null` runs to the end.
fn quit_requests() -> Receiver<()> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::stdin().lines() {
            let Ok(line) = line else { return };
            if matches!(line.trim().to_ascii_lowercase().as_str(), "q" | "quit") {
                let _ = tx.send(());
                return;
            }
        }
    });
    rx
}

/// Shows the windows as they come, on the terminal UI, or as lines when there is no
/// terminal or --no-ui says so. Returns how it ended.
fn show(cli: &Cli, events: &Receiver<Event>, outputs: &mut Outputs, title: String) -> Result<String, String> {
    if cli.no_ui || !std::io::stdout().is_terminal() {
        return Ok(follow_headless(cli, events, outputs));
    }
    let mut app = ui::App::new(title, cli.load_limit, cli.slice_limit_us);
    let mut terminal = ratatui::init();
    let ended = follow_terminal(cli, events, outputs, &mut app, &mut terminal);
    ratatui::restore();
    ended.map_err(|e| format!("terminal: {e}"))
}

/// The live view until the user quits or the windows asked for have come. A source
/// that ends for good leaves the last view on screen, with the reason, until the
/// user quits. Returns how it ended.
fn follow_terminal(
    cli: &Cli,
    events: &Receiver<Event>,
    outputs: &mut Outputs,
    app: &mut ui::App,
    terminal: &mut ratatui::DefaultTerminal,
) -> std::io::Result<String> {
    use ratatui::crossterm::event::{self, Event as TermEvent};
    loop {
        while let Ok(event) = events.try_recv() {
            match event {
                Event::Line(line) => {
                    outputs.line(&line);
                    app.on_line(line);
                    if outputs.enough(cli.windows) {
                        return Ok(format!("{} read", count(outputs.received, "window", "windows")));
                    }
                }
                Event::Status(status) => app.set_status(status),
                Event::Closed(why) => app.set_status(format!("closed: {why}")),
            }
        }
        terminal.draw(|frame| ui::draw(frame, app))?;
        if event::poll(Duration::from_millis(100))? {
            if let TermEvent::Key(key) = event::read()? {
                if app.on_key(key) == ui::Action::Quit {
                    return Ok(format!("quit after {}", count(outputs.received, "window", "windows")));
                }
            }
        }
    }
}

/// `window 12 (1000 ms): load 79.0% (1s 78.6, 10s 78.3, 60s 78.3), irq 0.0%, sleep 11.6%: work40 40.1%, ...`;
/// with several cores `(1000 ms on 2 cores)`, the shares being of all of them.
fn summary_line(w: &Window) -> String {
    let mut tasks: Vec<_> = w.tasks.iter().collect();
    tasks.sort_by_key(|t| std::cmp::Reverse(t.counts));
    let top: Vec<String> = tasks.iter().take(5).map(|t| format!("{} {:.2}%", t.name, t.usage_pct)).collect();
    let [a1, a10, a60] = w.load_avg_pct.map(|a| a.map_or_else(|| "-".to_owned(), |a| format!("{a:.2}")));
    format!(
        "window {} ({} ms{}): load {:.2}% (1s {a1}, 10s {a10}, 60s {a60}), interrupts {:.2}%, sleep {:.2}%: {}",
        w.window,
        w.window_us / 1000,
        match w.cores() {
            1 => String::new(),
            n => format!(" on {n} cores"),
        },
        w.load_pct,
        w.interrupts_pct,
        w.sleep_pct,
        top.join(", ")
    )
}

/// Stops follow mode, asks for the trace and converts it.
fn dump_trace(session: &Session, events: &Receiver<Event>, out: &std::path::Path) -> Result<(), String> {
    session.stop_following();
    // What follow mode still prints before it stops is not the dump: drain it.
    while events.recv_timeout(Duration::from_millis(300)).is_ok() {}
    session.send("cpu_usage_trace dump");
    let deadline = Instant::now() + DUMP_TIMEOUT;
    let mut text = String::new();
    let mut started = false;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match events.recv_timeout(left) {
            Ok(Event::Line(Line::Text(line))) => {
                // The dump runs from its header line to its `end` line.
                started |= line.contains(trace::HEADER);
                if started {
                    text.push_str(&line);
                    text.push('\n');
                    if line.starts_with(trace::END) {
                        break;
                    }
                }
            }
            Ok(Event::Closed(why)) => return Err(format!("the trace dump did not arrive: {why}")),
            Ok(_) => {}
            Err(RecvTimeoutError::Timeout) => {
                return Err(format!("the trace dump did not end within {} s", DUMP_TIMEOUT.as_secs()))
            }
            Err(RecvTimeoutError::Disconnected) => return Err("the trace dump did not arrive".to_owned()),
        }
    }
    convert_trace(&text, out)
}

fn convert_trace(text: &str, out: &std::path::Path) -> Result<(), String> {
    let trace = trace::parse(text).map_err(|e| format!("trace dump: {e}"))?;
    std::fs::write(out, perfetto::to_json(&trace)).map_err(|e| format!("cannot write {}: {e}", out.display()))?;
    eprintln!("cpu-usage-top: wrote {} (open it at https://ui.perfetto.dev)", out.display());
    if let Some(note) = perfetto::lost_note(&trace) {
        eprintln!("cpu-usage-top: {note}; the timeline starts at the oldest event kept (a larger CPU_USAGE_TRACE_EVENTS, or a shorter run, keeps all)");
    }
    Ok(())
}
