//! The plots of windows recorded from the POSIX simulator (`tests/data/windows.jsonl`,
//! ten `show_cpu_usage -m` lines with workloads and churn changed along the way).

use std::collections::HashSet;
use std::fs::File;
use std::path::PathBuf;

use cpu_usage_top::plot::{self, PlotError, DEFAULT_SIZE, IDLE_COLOR, SLEEP_COLOR, TASK_COLORS};
use cpu_usage_top::window::{parse_line, Line, Window};

fn recorded() -> Vec<Window> {
    let text = include_str!("data/windows.jsonl");
    let windows: Vec<Window> = text
        .lines()
        .map(|l| match parse_line(l) {
            Line::Window(w) => *w,
            other => panic!("not a window in the fixture: {other:?}"),
        })
        .collect();
    assert_eq!(windows.len(), 10);
    windows
}

/// A fresh path under the target directory's temporary folder, named for the test.
fn out(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("plot");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    let _ = std::fs::remove_file(&path);
    path
}

#[test]
fn png_has_the_size_and_the_palette() {
    let path = out("windows.png");
    plot::render(&recorded(), &path).unwrap();

    let decoder = png::Decoder::new(File::open(&path).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let mut pixels = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut pixels).unwrap();
    assert_eq!((info.width, info.height), DEFAULT_SIZE);
    assert_eq!(info.color_type, png::ColorType::Rgb);
    assert_eq!(info.bit_depth, png::BitDepth::Eight);

    let colors: HashSet<[u8; 3]> = pixels[..info.buffer_size()].chunks_exact(3).map(|p| [p[0], p[1], p[2]]).collect();
    assert!(colors.len() > 10, "only {} colors", colors.len());
    // Seven tasks in the fixture have a band of their own: work10, work25, work40,
    // tick30 (from the fifth window), churn, shell and the overflow bucket; the churn's
    // short-lived tasks share the "more tasks" band. Sleep and idle lie on top.
    let tasks_seen = TASK_COLORS.iter().filter(|c| colors.contains(*c)).count();
    assert!(tasks_seen >= 6, "only {tasks_seen} task colors drawn");
    assert!(colors.contains(&plot::MORE_TASKS_COLOR));
    assert!(colors.contains(&SLEEP_COLOR));
    assert!(colors.contains(&IDLE_COLOR));
}

#[test]
fn svg_names_the_tasks_in_its_legend() {
    let path = out("windows.svg");
    plot::render(&recorded(), &path).unwrap();
    let svg = std::fs::read_to_string(&path).unwrap();
    assert!(svg.starts_with("<svg"), "{}", &svg[..svg.len().min(80)]);
    assert!(svg.trim_end().ends_with("</svg>"));
    assert_eq!(svg.matches("<svg").count(), svg.matches("</svg>").count());
    for name in ["work10 #1", "work25 #2", "work40 #3", "(overflow) #0", "sleep", "idle (IDLE)"] {
        assert!(svg.contains(name), "{name} missing from the legend");
    }
    assert!(svg.contains("CPU usage per task, windows 0 to 9: 10 windows of 1 s"));
}

#[test]
fn size_is_a_parameter() {
    let path = out("small.png");
    plot::render_sized(&recorded()[..3], &path, (640, 320)).unwrap();
    let info = png::Decoder::new(File::open(&path).unwrap()).read_info().unwrap().info().size();
    assert_eq!(info, (640, 320));
}

#[test]
fn what_cannot_be_plotted_is_said_clearly() {
    let windows = recorded();
    let err = plot::render(&[], &out("empty.png")).unwrap_err();
    assert!(matches!(err, PlotError::NoWindows));
    assert_eq!(err.to_string(), "no windows to plot: nothing was read yet");

    let path = out("windows.jpg");
    let err = plot::render(&windows, &path).unwrap_err();
    assert!(matches!(err, PlotError::UnsupportedFormat(_)));
    assert!(err.to_string().contains("must end in .svg or .png"), "{err}");
    assert!(!path.exists());

    let err = plot::render_sized(&windows, &out("tiny.svg"), (100, 100)).unwrap_err();
    assert!(matches!(err, PlotError::TooSmall { width: 100, height: 100 }));

    let err = plot::render(&windows, &out("no/such/dir/windows.svg")).unwrap_err();
    assert!(matches!(err, PlotError::Draw { .. }), "{err}");
}

/// Colours go to the largest tasks over the whole recording, by their mean share,
/// and the band of the rest says how large the largest of them is. Twenty windows:
/// ten tasks of 1 to 10 %, `steady` at 0.5 % in every window, `burst` at 5 % in the
/// last window only (0.25 % over the recording), and 150 short-lived tasks of 0.04 %
/// in one window each (0.002 %). The palette holds 11 tasks beside the band of the
/// rest: the ten, then `steady`, never `burst`, largest as it is at the end.
#[test]
fn colours_go_to_the_largest_tasks_over_the_recording() {
    use cpu_usage_top::window::{Task, TaskPart, WindowHead};
    let task = |id: u32, name: &str, usage_pct: f64| Task {
        id,
        name: name.to_owned(),
        part: TaskPart { usage_pct, ..TaskPart::default() },
        ..Task::default()
    };
    let windows: Vec<Window> = (0..20u32)
        .map(|i| {
            let mut tasks: Vec<Task> = (0..10).map(|t| task(t + 1, &format!("t{t}"), f64::from(t + 1))).collect();
            tasks.push(task(11, "steady", 0.5));
            if i == 19 {
                tasks.push(task(12, "burst", 5.0));
            }
            for c in 0..150 / 20 + 1 {
                let n = i * 8 + c;
                if n < 150 {
                    tasks.push(task(13 + c, &format!("churn-{n}"), 0.04));
                }
            }
            let used: f64 = tasks.iter().map(|t| t.usage_pct).sum();
            let head = WindowHead { window: u64::from(i), window_us: 1_000_000, ..WindowHead::default() };
            Window { head, tasks, idle_pct: 100.0 - used, ..Window::default() }
        })
        .collect();
    let path = out("largest.svg");
    plot::render(&windows, &path).unwrap();
    let svg = std::fs::read_to_string(&path).unwrap();
    for name in ["t9 #10", "t0 #1", "steady #11"] {
        assert!(svg.contains(name), "{name} has no colour of its own");
    }
    assert!(!svg.contains("burst #12"), "burst, 0.25 % over the recording, took a colour from steady (0.5 %)");
    assert!(!svg.contains("churn-0 #"), "a task of 0.002 % has a colour");
    // burst (rounded up to 0.25 %) and the 150 short-lived tasks.
    assert!(svg.contains("151 more tasks, each ≤ 0.25 %"), "{}", &svg[svg.find("more task").map_or(0, |i| i - 40)..]);
}
