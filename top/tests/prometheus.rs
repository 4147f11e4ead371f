//! The `/metrics` endpoint scraped over loopback with plain HTTP/1.1 requests.

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::time::Duration;

use cpu_usage_top::prometheus::{Exporter, Stats, IO_TIMEOUT};
use cpu_usage_top::window::{parse_line, Line, Window};

/// The last window of the recording from the simulator.
fn recorded() -> Window {
    let line = include_str!("data/windows.jsonl").lines().last().unwrap();
    match parse_line(line) {
        Line::Window(w) => *w,
        other => panic!("not a window in the fixture: {other:?}"),
    }
}

struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Reply {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

/// Sends `request` as is and reads the answer up to the server's close.
fn exchange(addr: SocketAddr, request: &[u8]) -> Reply {
    let mut stream = TcpStream::connect(addr).unwrap();
    // Long enough for the server to give up on a client ahead of this one.
    stream.set_read_timeout(Some(IO_TIMEOUT * 4)).unwrap();
    stream.write_all(request).unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).unwrap();
    let raw = String::from_utf8(raw).unwrap();
    let (head, body) = raw.split_once("\r\n\r\n").expect("a blank line after the headers");
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap();
    let mut parts = status_line.splitn(3, ' ');
    assert_eq!(parts.next(), Some("HTTP/1.1"), "{status_line}");
    let status = parts.next().unwrap().parse().unwrap();
    let headers = lines
        .map(|l| {
            let (n, v) = l.split_once(':').expect("a header");
            (n.trim().to_owned(), v.trim().to_owned())
        })
        .collect();
    Reply { status, headers, body: body.to_owned() }
}

fn get(addr: SocketAddr, path: &str) -> Reply {
    exchange(addr, format!("GET {path} HTTP/1.1\r\nHost: localhost\r\nAccept: */*\r\n\r\n").as_bytes())
}

fn sample<'a>(body: &'a str, series: &str) -> Option<&'a str> {
    body.lines().find_map(|l| l.strip_prefix(series)?.strip_prefix(' '))
}

#[test]
fn scrapes_the_latest_window() {
    let exporter = Exporter::serve("127.0.0.1:0", "sim \"posix\"".to_owned()).unwrap();
    let addr = exporter.local_addr();
    const DEVICE: &str = r#"device="sim \"posix\"""#;

    // Before any window: the counters only.
    let before = get(addr, "/metrics");
    assert_eq!(before.status, 200);
    assert_eq!(sample(&before.body, &format!("freertos_cpu_windows_total{{{DEVICE}}}")), Some("0"));
    assert!(!before.body.contains("freertos_cpu_load_percent"));

    let w = recorded();
    exporter.update(&w, Stats { windows: 10, garbage_lines: 2 });
    let reply = get(addr, "/metrics");
    assert_eq!(reply.status, 200);
    assert_eq!(reply.header("Content-Type"), Some("text/plain; version=0.0.4; charset=utf-8"));
    assert_eq!(reply.header("Content-Length"), Some(reply.body.len().to_string().as_str()));
    let body = &reply.body;
    for name in [
        "freertos_cpu_load_percent",
        "freertos_cpu_idle_percent",
        "freertos_cpu_interrupts_percent",
        "freertos_cpu_sleep_percent",
        "freertos_cpu_task_usage_percent",
        "freertos_cpu_task_longest_slice_seconds",
        "freertos_cpu_task_switches",
        "freertos_cpu_load_avg_percent",
        "freertos_cpu_window_number",
        "freertos_cpu_window_seconds",
        "freertos_cpu_slots_used",
        "freertos_cpu_slots_capacity",
        "freertos_cpu_slots_overflow_tasks",
        "freertos_cpu_windows_total",
        "freertos_cpu_garbage_lines_total",
    ] {
        assert!(body.contains(&format!("# TYPE {name} ")), "no {name} in\n{body}");
    }
    assert_eq!(sample(body, &format!("freertos_cpu_window_number{{{DEVICE}}}")), Some("9"));
    assert_eq!(sample(body, &format!("freertos_cpu_load_percent{{{DEVICE}}}")), Some(w.load_pct.to_string().as_str()));
    let work40 = w.task("work40").unwrap();
    assert_eq!(
        sample(body, &format!("freertos_cpu_task_usage_percent{{{DEVICE},task=\"work40\",id=\"3\"}}")),
        Some(work40.usage_pct.to_string().as_str())
    );
    assert_eq!(sample(body, &format!("freertos_cpu_load_avg_percent{{{DEVICE},period=\"60s\"}}")), Some("86.42"));
    assert_eq!(sample(body, &format!("freertos_cpu_garbage_lines_total{{{DEVICE}}}")), Some("2"));
    assert!(body.lines().all(|l| l.starts_with('#') || l.contains(DEVICE)), "a sample without the device label");

    let head = exchange(addr, b"HEAD /metrics HTTP/1.1\r\n\r\n");
    assert_eq!((head.status, head.body.as_str()), (200, ""));
}

#[test]
fn other_paths_are_not_found() {
    let exporter = Exporter::serve("127.0.0.1:0", "d".to_owned()).unwrap();
    let addr = exporter.local_addr();
    assert_eq!(get(addr, "/").status, 404);
    assert_eq!(get(addr, "/metrics/x").status, 404);
    assert_eq!(exchange(addr, b"POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n").status, 405);
    assert_eq!(get(addr, "/metrics?name[]=x").status, 200);
}

#[test]
fn bad_clients_do_not_stop_the_server() {
    let exporter = Exporter::serve("127.0.0.1:0", "d".to_owned()).unwrap();
    let addr = exporter.local_addr();
    exporter.update(&recorded(), Stats::default());

    assert_eq!(exchange(addr, b"\x00\xff\xfe not http at all\r\n\r\n").status, 400);
    assert_eq!(exchange(addr, b"GET /metrics\r\n\r\n").status, 400);

    // Half a request, then the end of the stream.
    let mut cut = TcpStream::connect(addr).unwrap();
    cut.write_all(b"GET /met").unwrap();
    cut.shutdown(Shutdown::Write).unwrap();
    let mut rest = Vec::new();
    let _ = cut.read_to_end(&mut rest);

    // A request head that never ends; the server may reset the connection.
    let mut flood = TcpStream::connect(addr).unwrap();
    let _ = flood.write_all(&[b'x'; 64 * 1024]);
    drop(flood);

    // Connected and dropped without a word.
    drop(TcpStream::connect(addr).unwrap());

    let reply = get(addr, "/metrics");
    assert_eq!(reply.status, 200);
    assert!(reply.body.contains("freertos_cpu_load_percent"));
}

#[test]
fn an_idle_client_holds_the_others_up_only_until_its_timeout() {
    let exporter = Exporter::serve("127.0.0.1:0", "d".to_owned()).unwrap();
    let addr = exporter.local_addr();
    let idle = TcpStream::connect(addr).unwrap();
    // Let the server take the idle connection first.
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(get(addr, "/metrics").status, 200);
    drop(idle);
}

#[test]
fn a_device_of_two_cores_has_each_cores_busy_share() {
    let exporter = Exporter::serve("127.0.0.1:0", "smp".to_owned()).unwrap();
    let addr = exporter.local_addr();
    let line = include_str!("../../report-schema/samples/two-cores-window.json");
    let Line::Window(w) = parse_line(line) else { panic!("not a window: {line}") };
    exporter.update(&w, Stats { windows: 1, garbage_lines: 0 });
    let body = get(addr, "/metrics").body;
    // Each core's shares are of its own time; the others of both cores' time.
    let expected = [
        ("freertos_cpu_cores{device=\"smp\"}", "2"),
        ("freertos_cpu_core_busy_percent{device=\"smp\",core=\"0\"}", "60"),
        ("freertos_cpu_core_busy_percent{device=\"smp\",core=\"1\"}", "40"),
        ("freertos_cpu_core_idle_percent{device=\"smp\",core=\"1\"}", "60"),
        ("freertos_cpu_core_interrupts_percent{device=\"smp\",core=\"1\"}", "5"),
        ("freertos_cpu_core_sleep_percent{device=\"smp\",core=\"0\"}", "0"),
        ("freertos_cpu_core_interrupts{device=\"smp\",core=\"1\"}", "1"),
        ("freertos_cpu_load_percent{device=\"smp\"}", "50"),
        ("freertos_cpu_interrupts_percent{device=\"smp\"}", "2.5"),
        ("freertos_cpu_task_usage_percent{device=\"smp\",task=\"A\",id=\"1\"}", "30"),
    ];
    for (series, value) in expected {
        assert_eq!(sample(&body, series), Some(value), "{series} in\n{body}");
    }
    assert_eq!(body.matches("# TYPE freertos_cpu_core_busy_percent gauge").count(), 1);

    // One core: no core label, no count of cores.
    exporter.update(&recorded(), Stats::default());
    let body = get(addr, "/metrics").body;
    assert!(!body.contains("freertos_cpu_core"), "{body}");
}
