//! Plots a run of windows as a stacked area chart: one band per task, then the
//! interrupts, "other" (no task switched in), sleep and idle, so that each window's
//! column adds up to 100 %. The file name's extension picks the output: `.svg` or
//! `.png`.
//!
//! Each window is drawn as a flat step over its own time span, because its shares are
//! averages over that span. The x axis is seconds since the first window's start,
//! built from `window_us`; windows the reader missed (a jump in the window number)
//! leave a gap as long as that many windows of the next window's length.
//!
//! A long run with task churn can have hundreds of tasks; the largest
//! [`TASK_COLORS`]`.len()` get their own band and the rest share one ("N more
//! tasks"), together with the `more_tasks` line of a `-n` report and the tasks whose
//! mean share is below 0.005 %. Tasks that never ran, and bands that are zero
//! throughout, are left out of the chart and its legend.
//!
//! Text in a PNG needs a font file (the SVG leaves fonts to its viewer): the one named
//! by [`FONT_ENV`], else [`DEFAULT_FONT`]. When neither loads, the PNG is drawn
//! without any text (no title, legend names or axis numbers) and a warning says so
//! on stderr: the bands still carry the picture, and a missing font should not cost
//! the user the plot.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::{register_font, FontStyle};

use crate::history::TaskKey;
use crate::window::Window;
use crate::words::count;

/// The plot's size in pixels when none is given.
pub const DEFAULT_SIZE: (u32, u32) = (1200, 600);

/// The smallest plot [`render_sized`] draws: below this the legend crowds out the chart.
pub const MIN_SIZE: (u32, u32) = (480, 240);

/// The environment variable naming the TrueType font for PNG text.
pub const FONT_ENV: &str = "CPU_USAGE_TOP_FONT";

/// The font used for PNG text when [`FONT_ENV`] is not set (Debian: `fonts-dejavu-core`).
pub const DEFAULT_FONT: &str = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

/// The task bands' colors, largest task first; distinct from each other and from
/// the fixed bands' colors below.
pub const TASK_COLORS: [[u8; 3]; 12] = [
    [0x1f, 0x77, 0xb4], // blue
    [0xff, 0x7f, 0x0e], // orange
    [0x2c, 0xa0, 0x2c], // green
    [0xd6, 0x27, 0x28], // red
    [0x94, 0x67, 0xbd], // purple
    [0x8c, 0x56, 0x4b], // brown
    [0xe3, 0x77, 0xc2], // pink
    [0xbc, 0xbd, 0x22], // olive
    [0x17, 0xbe, 0xcf], // cyan
    [0x39, 0x3b, 0x79], // navy
    [0xe7, 0xba, 0x52], // gold
    [0x63, 0x79, 0x39], // moss
];

/// "N more tasks": the tasks without a band of their own.
pub const MORE_TASKS_COLOR: [u8; 3] = [0x7f, 0x7f, 0x7f];
/// Time in interrupt handlers.
pub const INTERRUPTS_COLOR: [u8; 3] = [0x20, 0x20, 0x20];
/// Time no task was switched in.
pub const OTHER_COLOR: [u8; 3] = [0xc4, 0x9c, 0x94];
/// Tickless sleep.
pub const SLEEP_COLOR: [u8; 3] = [0xae, 0xc7, 0xe8];
/// The idle task, on top: a pale band, so the load below stands out.
pub const IDLE_COLOR: [u8; 3] = [0xe4, 0xe4, 0xe4];

/// Why a plot was not written.
#[derive(Debug)]
pub enum PlotError {
    /// There was nothing to plot.
    NoWindows,
    /// The file name does not end in `.svg` or `.png`.
    UnsupportedFormat(PathBuf),
    /// The requested size is below [`MIN_SIZE`].
    TooSmall {
        /// Requested width in pixels.
        width: u32,
        /// Requested height in pixels.
        height: u32,
    },
    /// Drawing or writing the file failed.
    Draw {
        /// The file being written.
        path: PathBuf,
        /// What the drawing library reported.
        message: String,
    },
}

impl fmt::Display for PlotError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlotError::NoWindows => write!(f, "no windows to plot: nothing was read yet"),
            PlotError::UnsupportedFormat(path) => {
                write!(f, "cannot tell what to write to {}: the file name must end in .svg or .png", path.display())
            }
            PlotError::TooSmall { width, height } => {
                write!(f, "a plot of {width}x{height} pixels is too small: at least {}x{}", MIN_SIZE.0, MIN_SIZE.1)
            }
            PlotError::Draw { path, message } => write!(f, "cannot draw {}: {message}", path.display()),
        }
    }
}

impl std::error::Error for PlotError {}

/// Writes the chart of `windows` (oldest first) to `path` at [`DEFAULT_SIZE`].
pub fn render(windows: &[Window], path: &Path) -> Result<(), PlotError> {
    render_sized(windows, path, DEFAULT_SIZE)
}

/// Writes the chart of `windows` (oldest first) to `path`, `size` pixels wide and high.
pub fn render_sized(windows: &[Window], path: &Path, size: (u32, u32)) -> Result<(), PlotError> {
    if windows.is_empty() {
        return Err(PlotError::NoWindows);
    }
    if size.0 < MIN_SIZE.0 || size.1 < MIN_SIZE.1 {
        return Err(PlotError::TooSmall { width: size.0, height: size.1 });
    }
    let format = match path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
        Some("svg") => Format::Svg,
        Some("png") => Format::Png,
        _ => return Err(PlotError::UnsupportedFormat(path.to_owned())),
    };
    let chart = Chart::new(windows);
    let drawn = match format {
        Format::Svg => draw(SVGBackend::new(path, size).into_drawing_area(), &chart, true),
        Format::Png => {
            let text = match font() {
                Ok(_) => true,
                Err(why) => {
                    eprintln!(
                        "cpu-usage-top: {why}; drawing {} without text (set {FONT_ENV} to a .ttf file)",
                        path.display()
                    );
                    false
                }
            };
            draw(BitMapBackend::new(path, size).into_drawing_area(), &chart, text)
        }
    };
    drawn.map_err(|message| PlotError::Draw { path: path.to_owned(), message })
}

/// The font registered for PNG text, loaded on first use: its path, or why there is none.
pub fn font() -> Result<&'static Path, &'static str> {
    static FONT: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    FONT.get_or_init(load_font).as_deref().map_err(String::as_str)
}

fn load_font() -> Result<PathBuf, String> {
    let path = std::env::var_os(FONT_ENV).map_or_else(|| PathBuf::from(DEFAULT_FONT), PathBuf::from);
    let bytes = std::fs::read(&path).map_err(|e| format!("cannot read the font {}: {e}", path.display()))?;
    // The font table keeps references for the life of the process; it is read once.
    let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
    register_font(FONT_FAMILY, FontStyle::Normal, bytes)
        .map_err(|_| format!("{} is not a TrueType or OpenType font", path.display()))?;
    Ok(path)
}

const FONT_FAMILY: &str = "sans-serif";
const TITLE_HEIGHT: u32 = 36;
const LEGEND_WIDTH: u32 = 280;
const LEGEND_ROW: i32 = 20;

enum Format {
    Svg,
    Png,
}

/// One band of the stack: a label, a color and a share per window.
#[derive(Debug)]
struct Band {
    label: String,
    color: RGBColor,
    /// Percent per window.
    values: Vec<f64>,
    /// The share over the whole run, each window weighted by its length.
    mean: f64,
}

/// What is drawn, worked out from the windows before any drawing.
#[derive(Debug)]
struct Chart {
    /// Each window's start and end, in seconds since the first window's start.
    spans: Vec<(f64, f64)>,
    /// Runs of windows with no gap between them, as index ranges.
    runs: Vec<std::ops::Range<usize>>,
    /// Bottom to top.
    bands: Vec<Band>,
    title: String,
}

impl Chart {
    fn new(windows: &[Window]) -> Chart {
        let (spans, runs, missed) = spans(windows);
        let weights: Vec<f64> = spans.iter().map(|(a, b)| b - a).collect();
        let total: f64 = weights.iter().sum();
        let mean = |values: &[f64]| values.iter().zip(&weights).map(|(v, w)| v * w).sum::<f64>() / total;

        // Every task that ran, identified by ID and name, with its share in each window.
        let mut tasks: BTreeMap<TaskKey, Vec<f64>> = BTreeMap::new();
        for (i, w) in windows.iter().enumerate() {
            for t in w.tasks.iter().filter(|t| t.usage_pct > 0.0) {
                let key = TaskKey { id: t.id, name: t.name.clone() };
                tasks.entry(key).or_insert_with(|| vec![0.0; windows.len()])[i] += t.usage_pct;
            }
        }
        let mut ranked: Vec<(TaskKey, Vec<f64>, f64)> = tasks
            .into_iter()
            .map(|(k, v)| {
                let m = mean(&v);
                (k, v, m)
            })
            .collect();
        // Largest first; ties keep the (ID, name) order, so the result does not vary.
        ranked.sort_by(|a, b| b.2.total_cmp(&a.2));
        // A task whose mean would print as 0.00 % is not worth a legend row of its own.
        let visible = ranked.iter().take_while(|r| r.2 >= 0.005).count();
        let own = if ranked.len() <= TASK_COLORS.len() { visible } else { visible.min(TASK_COLORS.len() - 1) };
        let folded = ranked.split_off(own);

        let mut bands: Vec<Band> = ranked
            .into_iter()
            .zip(TASK_COLORS)
            .map(|((key, values, mean), c)| Band {
                label: format!("{} #{}", key.name, key.id),
                color: RGBColor(c[0], c[1], c[2]),
                values,
                mean,
            })
            .collect();

        let mut more: Vec<f64> = windows.iter().map(|w| w.more_tasks.as_ref().map_or(0.0, |m| m.usage_pct)).collect();
        let cut_by_device = more.iter().any(|&v| v > 0.0);
        for (_, values, _) in &folded {
            for (m, v) in more.iter_mut().zip(values) {
                *m += v;
            }
        }
        let more_label = more_label(&folded, cut_by_device);
        let fixed: [(String, [u8; 3], Vec<f64>); 5] = [
            (more_label, MORE_TASKS_COLOR, more),
            ("interrupts".to_owned(), INTERRUPTS_COLOR, windows.iter().map(|w| w.interrupts_pct).collect()),
            ("other (no task)".to_owned(), OTHER_COLOR, windows.iter().map(|w| w.other_pct).collect()),
            ("sleep".to_owned(), SLEEP_COLOR, windows.iter().map(|w| w.sleep_pct).collect()),
            (idle_label(windows), IDLE_COLOR, windows.iter().map(|w| w.idle_pct).collect()),
        ];
        for (label, c, values) in fixed {
            if values.iter().any(|&v| v > 0.0) {
                let mean = mean(&values);
                bands.push(Band { label, color: RGBColor(c[0], c[1], c[2]), values, mean });
            }
        }

        Chart { title: title(windows, missed), spans, runs, bands }
    }
}

/// The label of the band of tasks without one of their own. When the viewer folded
/// them, it says how large the largest of them is, rounded up to the legend's 0.01 %:
/// every task with a colour is at least that large, which the legend then shows even
/// when hundreds of short-lived tasks together outweigh the smallest coloured ones.
/// (The device's own `more tasks` line, from a `-n` report, does not say how large
/// each of its tasks was: then the label is only `more tasks`.)
fn more_label(folded: &[(TaskKey, Vec<f64>, f64)], cut_by_device: bool) -> String {
    if cut_by_device {
        return "more tasks".to_owned();
    }
    let tasks = count(folded.len() as u64, "more task", "more tasks");
    let largest = folded.iter().map(|f| f.2).fold(0.0f64, f64::max);
    if folded.len() < 2 {
        return tasks;
    }
    format!("{tasks}, each ≤ {:.2} %", (largest * 100.0).ceil() / 100.0)
}

/// Each window's span in seconds, the runs without gaps, and how many windows were missed.
fn spans(windows: &[Window]) -> (Vec<(f64, f64)>, Vec<std::ops::Range<usize>>, u64) {
    let mut spans = Vec::with_capacity(windows.len());
    let mut runs = Vec::new();
    let mut run_start = 0;
    let mut missed = 0;
    let mut end = 0.0;
    for (i, w) in windows.iter().enumerate() {
        let length = w.window_us.max(1) as f64 / 1e6;
        // A window number that does not go up (a restarted device) follows straight on.
        let skipped = match i.checked_sub(1).map(|p| &windows[p]) {
            Some(before) if w.window > before.window => w.window - before.window - 1,
            _ => 0,
        };
        if skipped > 0 {
            runs.push(run_start..i);
            run_start = i;
            missed += skipped;
        }
        let start = end + skipped as f64 * length;
        end = start + length;
        spans.push((start, end));
    }
    runs.push(run_start..windows.len());
    (spans, runs, missed)
}

fn idle_label(windows: &[Window]) -> String {
    match windows.iter().rev().find_map(|w| w.idle.as_ref()) {
        Some(idle) => format!("idle ({})", idle.name),
        None => "idle".to_owned(),
    }
}

fn title(windows: &[Window], missed: u64) -> String {
    let (first, last) = (&windows[0], &windows[windows.len() - 1]);
    let n = windows.len();
    let mut title = format!(
        "CPU usage per task, windows {} to {}: {}",
        first.window,
        last.window,
        count(n as u64, "window", "windows")
    );
    if windows.iter().all(|w| w.window_us == first.window_us) {
        title += &format!(" of {}", duration(first.window_us));
    }
    // Several cores: the shares are of all of them.
    let cores = last.cores();
    if cores > 1 && windows.iter().all(|w| w.cores() == cores) {
        title += &format!(" on {cores} cores");
    }
    if missed > 0 {
        title += &format!(", {missed} missed");
    }
    title
}

fn duration(us: u64) -> String {
    let (s, ms) = (us / 1_000_000, us / 1000);
    if s * 1_000_000 == us {
        format!("{s} s")
    } else if ms * 1000 == us {
        format!("{ms} ms")
    } else {
        format!("{us} us")
    }
}

/// Draws the chart; `text` is false when no font could be loaded for a bitmap.
fn draw<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, chart: &Chart, text: bool) -> Result<(), String> {
    draw_inner(&root, chart, text).map_err(|e| e.to_string())
}

fn draw_inner<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    chart: &Chart,
    text: bool,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    root.fill(&WHITE)?;
    // Text is laid out by hand rather than by plotters' caption and legend, which
    // measure it with the font and so fail without one.
    let ink = if text { BLACK.to_rgba() } else { TRANSPARENT };
    let (title_area, body) = root.split_vertically(TITLE_HEIGHT);
    let (width, _) = root.dim_in_pixel();
    let (plot_area, legend_area) = body.split_horizontally(width.saturating_sub(LEGEND_WIDTH));

    if text {
        let style =
            TextStyle::from((FONT_FAMILY, 20).into_font()).color(&ink).pos(Pos::new(HPos::Center, VPos::Center));
        let (w, h) = title_area.dim_in_pixel();
        title_area.draw_text(&chart.title, &style, (w as i32 / 2, h as i32 / 2))?;
    }

    let x_end = chart.spans.last().map_or(1.0, |s| s.1);
    let mut cartesian = ChartBuilder::on(&plot_area)
        .margin(8)
        .x_label_area_size(if text { 44 } else { 8 })
        .y_label_area_size(if text { 56 } else { 8 })
        .build_cartesian_2d(0.0..x_end, 0.0..100.0)?;
    let label_style = TextStyle::from((FONT_FAMILY, 14).into_font()).color(&ink);
    // Seconds with as many decimals as the span needs: no float noise in the labels.
    let decimals = if x_end >= 20.0 {
        0
    } else if x_end >= 2.0 {
        1
    } else {
        2
    };
    let x_label = move |v: &f64| format!("{v:.decimals$}");
    let mut mesh = cartesian.configure_mesh();
    mesh.label_style(label_style.clone())
        .y_label_formatter(&|v| format!("{v:.0}"))
        .x_label_formatter(&x_label)
        .y_labels(11)
        .disable_mesh();
    if text {
        mesh.x_desc("seconds since the first window's start")
            .y_desc("share of the window (%)")
            .axis_desc_style(label_style.clone());
    }
    mesh.draw()?;

    let mut bottom = vec![0.0; chart.spans.len()];
    for band in &chart.bands {
        let top: Vec<f64> = bottom.iter().zip(&band.values).map(|(b, v)| (b + v).clamp(0.0, 100.0)).collect();
        for run in &chart.runs {
            if band.values[run.clone()].iter().all(|&v| v <= 0.0) {
                continue;
            }
            let mut outline = Vec::with_capacity(run.len() * 4);
            for i in run.clone() {
                outline.push((chart.spans[i].0, top[i]));
                outline.push((chart.spans[i].1, top[i]));
            }
            for i in run.clone().rev() {
                outline.push((chart.spans[i].1, bottom[i]));
                outline.push((chart.spans[i].0, bottom[i]));
            }
            cartesian.draw_series(std::iter::once(Polygon::new(outline, band.color.filled())))?;
        }
        bottom = top;
    }
    // The grid over the bands, faintly, so levels can be read across the chart.
    cartesian
        .configure_mesh()
        .disable_x_mesh()
        .light_line_style(TRANSPARENT)
        .bold_line_style(WHITE.mix(0.5))
        .x_labels(0)
        .y_labels(11)
        .label_style(TextStyle::from((FONT_FAMILY, 14).into_font()).color(&TRANSPARENT))
        .draw()?;

    draw_legend(&legend_area, chart, text)?;
    root.present()
}

/// The legend: top band first, as the bands stack, with each band's mean share.
fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    chart: &Chart,
    text: bool,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let (w, h) = area.dim_in_pixel();
    let rows = chart.bands.len() as i32 + 1;
    let row = LEGEND_ROW.min((h as i32 - 16) / rows.max(1)).max(4);
    let (left, right) = (6, w as i32 - 12);
    let mut y = 12;
    let label = TextStyle::from((FONT_FAMILY, 14).into_font()).pos(Pos::new(HPos::Left, VPos::Center));
    let number = label.clone().pos(Pos::new(HPos::Right, VPos::Center));
    if text {
        area.draw_text("mean share", &number.color(&BLACK.mix(0.6)), (right, y + row / 2))?;
    }
    y += row;
    let swatch = (row - 6).clamp(2, 12);
    for band in chart.bands.iter().rev() {
        let mid = y + row / 2;
        let corners = [(left, mid - swatch / 2), (left + swatch, mid + swatch / 2)];
        area.draw(&Rectangle::new(corners, band.color.filled()))?;
        area.draw(&Rectangle::new(corners, BLACK.mix(0.5).stroke_width(1)))?;
        if text {
            area.draw_text(&band.label, &label.color(&BLACK), (left + swatch + 8, mid))?;
            area.draw_text(&format!("{:.2} %", band.mean), &number.color(&BLACK), (right, mid))?;
        }
        y += row;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::window::{MoreTasks, Task, TaskPart, WindowHead};

    fn window(number: u64, tasks: &[(u32, &str, f64)], idle: f64) -> Window {
        Window {
            head: WindowHead { window: number, window_us: 500_000, ..WindowHead::default() },
            tasks: tasks
                .iter()
                .map(|&(id, name, usage_pct)| Task {
                    id,
                    name: name.to_owned(),
                    part: TaskPart { usage_pct, ..TaskPart::default() },
                    ..Task::default()
                })
                .collect(),
            idle_pct: idle,
            ..Window::default()
        }
    }

    #[test]
    fn windows_follow_each_other_and_a_skip_leaves_a_gap() {
        let ws = [window(4, &[], 100.0), window(5, &[], 100.0), window(8, &[], 100.0), window(2, &[], 100.0)];
        let (spans, runs, missed) = spans(&ws);
        assert_eq!(spans, vec![(0.0, 0.5), (0.5, 1.0), (2.0, 2.5), (2.5, 3.0)]);
        assert_eq!(runs, vec![0..2, 2..4]);
        assert_eq!(missed, 2);
    }

    #[test]
    fn tasks_are_told_apart_by_id_and_name_and_absent_ones_are_zero() {
        let ws =
            [window(1, &[(1, "a", 30.0), (2, "b", 10.0)], 60.0), window(2, &[(1, "a", 50.0), (2, "c", 20.0)], 30.0)];
        let chart = Chart::new(&ws);
        let got: Vec<(&str, &[f64])> = chart.bands.iter().map(|b| (b.label.as_str(), b.values.as_slice())).collect();
        assert_eq!(
            got,
            vec![
                ("a #1", &[30.0, 50.0][..]),
                ("c #2", &[0.0, 20.0][..]),
                ("b #2", &[10.0, 0.0][..]),
                ("idle", &[60.0, 30.0][..]),
            ]
        );
        assert_eq!(chart.bands[0].mean, 40.0);
        assert_eq!(chart.title, "CPU usage per task, windows 1 to 2: 2 windows of 500 ms");
    }

    #[test]
    fn the_title_says_how_many_cores_the_shares_are_of() {
        let mut ws = [window(1, &[(1, "a", 30.0)], 70.0), window(2, &[(1, "a", 50.0)], 50.0)];
        for w in &mut ws {
            w.cores = Some(2);
        }
        assert_eq!(title(&ws, 0), "CPU usage per task, windows 1 to 2: 2 windows of 500 ms on 2 cores");
        ws[0].cores = None;
        assert_eq!(title(&ws, 0), "CPU usage per task, windows 1 to 2: 2 windows of 500 ms");
    }

    #[test]
    fn tasks_beyond_the_palette_share_one_band() {
        let tasks: Vec<(u32, String, f64)> = (0..20).map(|i| (i, format!("t{i}"), 1.0 + f64::from(i))).collect();
        let borrowed: Vec<(u32, &str, f64)> = tasks.iter().map(|(i, n, u)| (*i, n.as_str(), *u)).collect();
        let mut w = window(1, &borrowed, 0.0);
        w.more_tasks = Some(MoreTasks { count: 3, counts: 0, usage_pct: 0.5 });
        let chart = Chart::new(&[w]);
        assert_eq!(chart.bands.len(), TASK_COLORS.len());
        assert_eq!(chart.bands[0].label, "t19 #19");
        let more = &chart.bands[TASK_COLORS.len() - 1];
        assert_eq!(more.label, "more tasks");
        // t0..t8 hold 1 + 2 + ... + 9 = 45 %, plus the device's own "more tasks" line.
        assert_eq!(more.values, vec![45.5]);
    }

    #[test]
    fn a_bitmap_without_text_needs_no_font() {
        let (w, h) = MIN_SIZE;
        let mut pixels = vec![0u8; (w * h * 3) as usize];
        let ws = [window(1, &[(1, "a", 30.0)], 70.0), window(2, &[(1, "a", 60.0)], 40.0)];
        let root = BitMapBackend::with_buffer(&mut pixels, (w, h)).into_drawing_area();
        draw(root, &Chart::new(&ws), false).unwrap();
        let blue = TASK_COLORS[0];
        assert!(pixels.chunks(3).any(|p| p == blue));
    }
}
