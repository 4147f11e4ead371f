//! The screen: which parts fit, and how each is drawn.

use ratatui::layout::{Alignment, Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line as TextLine, Span};
use ratatui::widgets::{Paragraph, Sparkline, Table};
use ratatui::Frame;

use super::format::{bar, fmt_hz, fmt_us, fmt_window, hundredths};
use super::table::{draw_tasks, totals_rows, Columns};
use super::{table_rows, App, TaskRow};
use crate::window::{parse_watchdogs, CoreLine, Window};

pub(super) const TITLE: Style = Style::new().add_modifier(Modifier::BOLD);
pub(super) const DIM: Style = Style::new().fg(Color::DarkGray);
pub(super) const WARN: Style = Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD);
pub(super) const OVER: Style = Style::new().fg(Color::Red).add_modifier(Modifier::BOLD);
pub(super) const OK: Style = Style::new().fg(Color::Green);
pub(super) const TOTALS: Style = Style::new().fg(Color::Cyan);
pub(super) const KEY: Style = Style::new().add_modifier(Modifier::BOLD);

/// Width of the labels left of the two sparklines.
pub(super) const LABEL_WIDTH: u16 = 12;

/// The parts of the live screen, top to bottom.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Part {
    Title,
    Summary,
    Gauge,
    /// One line per core, several cores only.
    Cores,
    LoadSpark,
    Tasks,
    Totals,
    TaskSpark,
    Log,
    Footer,
}

/// The parts that fit in `height` rows, each with its rows, top to bottom, with
/// `totals` rows of lines other than tasks and `cores` lines of cores (0 on one
/// core). Parts are taken in order of importance (the task table twice: a few rows
/// early, more later); the task table gets the rows left over.
fn plan(height: u16, totals: u16, cores: u16) -> Vec<(Part, u16)> {
    let wanted = [
        (Part::Title, 1),
        (Part::Gauge, 1),
        (Part::Footer, 1),
        (Part::Tasks, 2),
        (Part::Summary, 1),
        (Part::Tasks, 3),
        (Part::Cores, cores),
        (Part::Totals, totals),
        (Part::LoadSpark, 2),
        (Part::TaskSpark, 2),
        (Part::Log, 1),
    ];
    let mut left = height;
    let mut chosen: Vec<(Part, u16)> = Vec::new();
    for (part, rows) in wanted {
        if rows == 0 || rows > left {
            continue;
        }
        left -= rows;
        match chosen.iter_mut().find(|(p, _)| *p == part) {
            Some(entry) => entry.1 += rows,
            None => chosen.push((part, rows)),
        }
    }
    if let Some(entry) = chosen.iter_mut().find(|(p, _)| *p == Part::Tasks) {
        entry.1 += left;
    }
    chosen.sort_by_key(|&(part, _)| part as u8);
    chosen
}

/// Draws the whole screen.
pub fn draw(frame: &mut Frame, app: &App) {
    let area = frame.area();
    if area.is_empty() {
        return;
    }
    match app.shown().latest() {
        None => draw_waiting(frame, area, app),
        Some(w) => draw_live(frame, area, app, w),
    }
}

fn draw_waiting(frame: &mut Frame, area: Rect, app: &App) {
    let [title, body, footer] = if area.height >= 3 {
        Layout::vertical([Constraint::Length(1), Constraint::Fill(1), Constraint::Length(1)]).areas(area)
    } else {
        [Rect::default(), area, Rect::default()]
    };
    draw_title(frame, title, app);
    let mut lines = vec![
        TextLine::styled("waiting for the first window…", TITLE),
        TextLine::styled(app.status.clone(), status_style(&app.status)),
    ];
    if app.garbage > 0 {
        lines.push(garbage_line(app));
    }
    if let Some(text) = app.log.back() {
        lines.push(device_line(text));
    }
    let pad = body.height.saturating_sub(lines.len() as u16) / 2;
    let [_, text] = Layout::vertical([Constraint::Length(pad), Constraint::Fill(1)]).areas(body);
    frame.render_widget(Paragraph::new(lines).alignment(Alignment::Center), text);
    draw_footer(frame, footer, app);
}

fn draw_live(frame: &mut Frame, area: Rect, app: &App, w: &Window) {
    let history = app.shown();
    let rows = table_rows(history, app.sort);
    let mut totals = totals_rows(w, area.width);
    let cores = w.per_core.as_deref().unwrap_or_default();
    let mut y = area.y;
    for (part, height) in plan(area.height, totals.len() as u16, cores.len() as u16) {
        let rect = Rect { x: area.x, y, width: area.width, height };
        y += height;
        match part {
            Part::Title => draw_title(frame, rect, app),
            Part::Summary => draw_summary(frame, rect, app, w),
            Part::Gauge => draw_gauge(frame, rect, app, w),
            Part::Cores => draw_cores(frame, rect, app, cores),
            Part::LoadSpark => {
                let data: Vec<u64> = history.load_series().iter().map(|&p| hundredths(p)).collect();
                let label = [TextLine::from("load"), TextLine::styled("0-100%", DIM)];
                draw_spark(frame, rect, label, &data, 10_000, Style::new().fg(Color::Green));
            }
            Part::Tasks => draw_tasks(frame, rect, app, w, &rows),
            Part::Totals => frame.render_widget(
                Table::new(std::mem::take(&mut totals), Columns::fit(rect.width).constraints()).column_spacing(1),
                rect,
            ),
            Part::TaskSpark => draw_task_spark(frame, rect, app, &rows),
            Part::Log => {
                if let Some(text) = app.log.back() {
                    frame.render_widget(Paragraph::new(device_line(text)), rect);
                }
            }
            Part::Footer => draw_footer(frame, rect, app),
        }
    }
}

fn draw_title(frame: &mut Frame, area: Rect, app: &App) {
    if area.is_empty() {
        return;
    }
    let status_width = u16::try_from(app.status.chars().count() + 1).unwrap_or(u16::MAX).min(area.width / 2);
    let [left, right] = Layout::horizontal([Constraint::Fill(1), Constraint::Length(status_width)]).areas(area);
    let title =
        TextLine::from(vec![Span::styled("cpu-usage-top", TITLE), Span::raw("  "), Span::raw(app.source.clone())]);
    frame.render_widget(Paragraph::new(title), left);
    let status = TextLine::styled(app.status.clone(), status_style(&app.status));
    frame.render_widget(Paragraph::new(status).alignment(Alignment::Right), right);
}

fn draw_summary(frame: &mut Frame, area: Rect, app: &App, w: &Window) {
    let mut spans = Vec::new();
    if let Some(frozen) = &app.frozen {
        let since = app.history.received - frozen.received;
        spans.push(Span::styled(format!("PAUSED +{since}"), Style::new().add_modifier(Modifier::REVERSED)));
        spans.push(Span::raw("  "));
    }
    spans.push(Span::raw(format!(
        "window #{} of {}{}  {} {}  slots {}/{}  ",
        w.window,
        fmt_window(w.window_us),
        on_cores(w),
        w.clock,
        fmt_hz(w.clock_hz),
        w.slots.used,
        w.slots.capacity
    )));
    let missed = app.shown().missed;
    spans.push(Span::styled(format!("missed {missed}"), if missed > 0 { WARN } else { Style::new() }));
    spans.push(Span::raw("  "));
    spans.extend(garbage_line(app).spans);
    frame.render_widget(Paragraph::new(TextLine::from(spans)), area);
}

/// ` on N cores` after a window's length, with several cores (whose shares are of
/// all the cores' time); nothing on one.
fn on_cores(w: &Window) -> String {
    match w.cores() {
        1 => String::new(),
        n => format!(" on {n} cores"),
    }
}

fn garbage_line(app: &App) -> TextLine<'static> {
    match &app.last_garbage {
        Some(why) if app.garbage > 0 => TextLine::styled(format!("garbage {}: {why}", app.garbage), WARN),
        _ => TextLine::raw(format!("garbage {}", app.garbage)),
    }
}

fn draw_gauge(frame: &mut Frame, area: Rect, app: &App, w: &Window) {
    let over = |pct: f64| if pct > app.load_limit_pct { OVER } else { Style::new() };
    let load_style = if w.load_pct > app.load_limit_pct { OVER } else { OK };
    let mut tail = Vec::new();
    for (label, pct) in ["1s", "10s", "60s"].iter().zip(w.load_avg_pct) {
        tail.push(Span::raw(format!("  {label} ")));
        tail.push(match pct {
            Some(pct) => Span::styled(format!("{pct:.2}%"), over(pct)),
            None => Span::raw("-"),
        });
    }
    let head =
        vec![Span::styled("load ", TITLE), Span::styled(format!("{:6.2}%", w.load_pct), load_style), Span::raw(" ")];
    let used: usize = head.iter().chain(&tail).map(Span::width).sum();
    let bar_width = (area.width as usize).saturating_sub(used);
    let mut spans = head;
    if bar_width >= 4 {
        let filled = bar(w.load_pct, bar_width);
        let empty = bar_width - filled.chars().count();
        spans.push(Span::styled(filled, load_style));
        spans.push(Span::styled("░".repeat(empty), DIM));
    }
    spans.extend(tail);
    frame.render_widget(Paragraph::new(TextLine::from(spans)), area);
}

/// Each core's line (several cores): its busy share of its own time, as the load's
/// gauge shows the whole, then its idle, interrupts and sleep.
fn draw_cores(frame: &mut Frame, area: Rect, app: &App, cores: &[CoreLine]) {
    for (c, y) in cores.iter().zip(area.y..area.bottom()) {
        let style = if c.busy_pct > app.load_limit_pct { OVER } else { OK };
        let head = vec![
            Span::styled(format!("core {:<2}", c.core), TITLE),
            Span::styled(format!("{:6.2}%", c.busy_pct), style),
        ];
        let tail = vec![Span::raw(format!(
            "  idle {:.2}%  interrupts {:.2}% ({})  sleep {:.2}%",
            c.idle_pct, c.interrupts_pct, c.interrupts, c.sleep_pct
        ))];
        // (The bar, when it fits, with a space before it.)
        let used: usize = head.iter().chain(&tail).map(Span::width).sum::<usize>() + 1;
        let bar_width = (area.width as usize).saturating_sub(used);
        let mut spans = head;
        if bar_width >= 4 {
            let filled = bar(c.busy_pct, bar_width);
            let empty = bar_width - filled.chars().count();
            spans.push(Span::raw(" "));
            spans.push(Span::styled(filled, style));
            spans.push(Span::styled("░".repeat(empty), DIM));
        }
        spans.extend(tail);
        let line = Rect { y, height: 1, ..area };
        frame.render_widget(Paragraph::new(TextLine::from(spans)), line);
    }
}

/// A sparkline with a two-line label on its left; the newest `width` values.
fn draw_spark(frame: &mut Frame, area: Rect, label: [TextLine; 2], data: &[u64], max: u64, style: Style) {
    let [left, right] = Layout::horizontal([Constraint::Length(LABEL_WIDTH), Constraint::Fill(1)]).areas(area);
    frame.render_widget(Paragraph::new(label.to_vec()), left);
    let shown = &data[data.len().saturating_sub(right.width as usize)..];
    frame.render_widget(Sparkline::default().data(shown).max(max.max(1)).style(style), right);
}

fn draw_task_spark(frame: &mut Frame, area: Rect, app: &App, rows: &[TaskRow]) {
    let key = match (&app.selected, rows.first()) {
        (Some(key), _) => key.clone(),
        (None, Some(row)) => row.key.clone(),
        (None, None) => return,
    };
    let data: Vec<u64> = app.shown().task_series(&key).iter().map(|&p| hundredths(p)).collect();
    let peak = data.iter().copied().max().unwrap_or(0);
    let name: String = key.name.chars().take(LABEL_WIDTH as usize - 1).collect();
    let label =
        [TextLine::styled(name, TITLE), TextLine::styled(format!("peak {}.{:02}%", peak / 100, peak % 100), DIM)];
    draw_spark(frame, area, label, &data, peak, Style::new().fg(Color::Yellow));
}

/// The columns of both tables that fit a width. Churn mark, name and % are always
/// there; then, while room lasts: the longest run, the ID, the switches, and the usage
fn draw_footer(frame: &mut Frame, area: Rect, app: &App) {
    if area.is_empty() {
        return;
    }
    let pause = if app.paused() { " resume  " } else { " pause  " };
    let keys = TextLine::from(vec![
        Span::styled("q", KEY),
        Span::raw(" quit  "),
        Span::styled("s", KEY),
        Span::raw(format!(" sort: {}  ", app.sort.label())),
        Span::styled("p", KEY),
        Span::raw(pause),
        Span::styled("↑↓", KEY),
        Span::raw(" select"),
    ]);
    let mut limits = format!("limits: load {}%", app.load_limit_pct);
    if let Some(us) = app.slice_limit_us {
        limits.push_str(&format!(", slice {}", fmt_us(us)));
    }
    let room = area.width as usize;
    let [left, right] = if keys.width() + limits.chars().count() < room {
        Layout::horizontal([Constraint::Fill(1), Constraint::Length(limits.chars().count() as u16)]).areas(area)
    } else {
        [area, Rect::default()]
    };
    frame.render_widget(Paragraph::new(keys), left);
    frame.render_widget(Paragraph::new(TextLine::styled(limits, DIM)), right);
}

fn status_style(status: &str) -> Style {
    if status.starts_with("connected") {
        OK
    } else {
        WARN
    }
}

/// The device's last line that was neither a window nor a prompt (an alert, a note,
/// an answer), labelled as the device's: the rest of the screen is the viewer's.
fn device_line(text: &str) -> TextLine<'static> {
    let style = log_style(text);
    TextLine::from(vec![Span::styled(DEVICE_LABEL, style), Span::styled(text.to_owned(), style)])
}

/// What the device's own lines start with on the screen.
pub const DEVICE_LABEL: &str = "device: ";

/// The device's alerts (watchdog trips and the like) and notes on its figures (a
/// simulator that the host kept short of CPU) stand out from other shell text.
fn log_style(text: &str) -> Style {
    if stands_out(text) {
        WARN
    } else {
        DIM
    }
}

/// Whether a line of the device's shell text is an alert or a note on its figures,
/// which the screen highlights and line mode passes on (stderr). The watchdogs'
/// settings (`watchdog: load off; slice off`, the answer to `cpu_usage_watchdog`)
/// are neither.
pub fn stands_out(text: &str) -> bool {
    let lower = text.trim_start_matches(['>', ' ']).to_lowercase();
    let alert = lower.contains("watchdog") || lower.contains("alert") || lower.starts_with("note:");
    alert && parse_watchdogs(text).is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_terminals_keep_the_important_parts() {
        let parts = |h| plan(h, 4, 0).into_iter().map(|(p, _)| p).collect::<Vec<_>>();
        assert_eq!(parts(1), [Part::Title]);
        assert_eq!(parts(3), [Part::Title, Part::Gauge, Part::Footer]);
        assert_eq!(parts(5), [Part::Title, Part::Gauge, Part::Tasks, Part::Footer]);
        // The task table keeps a few rows before the totals come in.
        assert_eq!(plan(10, 4, 0).iter().find(|(p, _)| *p == Part::Tasks), Some(&(Part::Tasks, 5)));
        let full = plan(24, 4, 0);
        assert_eq!(full.len(), 9);
        assert_eq!(full.iter().map(|&(_, h)| h).sum::<u16>(), 24);
        // Several cores: a line each under the load, after the task table's first
        // rows and before the totals.
        let two = plan(24, 4, 2);
        assert_eq!(
            two.iter().map(|&(p, _)| p).take(4).collect::<Vec<_>>(),
            [Part::Title, Part::Summary, Part::Gauge, Part::Cores]
        );
        assert_eq!(two.iter().find(|(p, _)| *p == Part::Cores), Some(&(Part::Cores, 2)));
        assert_eq!(two.iter().map(|&(_, h)| h).sum::<u16>(), 24);
        let parts = |h| plan(h, 4, 2).into_iter().map(|(p, _)| p).collect::<Vec<_>>();
        assert!(!parts(10).contains(&Part::Cores));
        assert!(parts(11).contains(&Part::Cores) && !parts(11).contains(&Part::Totals));
    }
}
