//! The live terminal view: what the viewer knows ([`App`]) and how it is drawn
//! ([`draw`]).
//!
//! Nothing here touches the terminal or the connection: the event loop hands in console
//! lines ([`App::on_line`]), connection news ([`App::set_status`]) and keys
//! ([`App::on_key`]), and asks for a frame now and then. That keeps the whole view
//! testable on ratatui's `TestBackend`.
//!
//! Every part of the screen has a priority; on a small terminal the least useful parts
//! are left out whole rather than squeezed, and any size (down to 1x1) draws without a
//! panic.

use std::collections::VecDeque;

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use ratatui::layout::{Alignment, Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line as TextLine, Span};
use ratatui::widgets::{Cell, Paragraph, Row, Sparkline, Table, TableState};
use ratatui::Frame;

use crate::history::{History, TaskKey};
use crate::window::{parse_watchdogs, Line, Task, Window};

/// Windows kept for the history graphs: two minutes of one-second windows.
pub const HISTORY_WINDOWS: usize = 120;

/// Shell text lines kept.
const LOG_LINES: usize = 64;

/// The order of the task table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SortOrder {
    /// Largest share first.
    #[default]
    Usage,
    /// By name, A to Z.
    Name,
    /// By the library's ID.
    Id,
    /// Longest single run first.
    LongestSlice,
}

impl SortOrder {
    /// The order `s` switches to.
    pub fn next(self) -> SortOrder {
        match self {
            SortOrder::Usage => SortOrder::Name,
            SortOrder::Name => SortOrder::Id,
            SortOrder::Id => SortOrder::LongestSlice,
            SortOrder::LongestSlice => SortOrder::Usage,
        }
    }

    /// Its name in the footer.
    pub fn label(self) -> &'static str {
        match self {
            SortOrder::Usage => "usage",
            SortOrder::Name => "name",
            SortOrder::Id => "id",
            SortOrder::LongestSlice => "longest slice",
        }
    }
}

/// What the event loop should do after a key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Carry on (the view may have changed: redraw).
    None,
    /// Leave.
    Quit,
}

/// The viewer's state: the windows read, the settings, and what the connection said.
#[derive(Debug)]
pub struct App {
    source: String,
    status: String,
    history: History,
    /// What the screen shows while paused: the history as it was on `p`.
    frozen: Option<History>,
    garbage: u64,
    last_garbage: Option<String>,
    log: VecDeque<String>,
    /// The row picked with ↑/↓; `None` follows the table's first row.
    selected: Option<TaskKey>,
    /// The order of the task table.
    pub sort: SortOrder,
    /// Load (and load averages) above this, in percent, are shown in red.
    pub load_limit_pct: f64,
    /// A task's longest run above this, in microseconds, is shown in red.
    pub slice_limit_us: Option<u64>,
    /// Whether the load and slice limits were given (else the device's watchdog
    /// settings, when the shell prints them, set them).
    limits_given: (bool, bool),
}

/// The load highlighted when neither the user nor the device's load watchdog gives
/// one: the usual headroom rule for a real-time system.
pub const DEFAULT_LOAD_LIMIT: f64 = 80.0;

impl App {
    /// A viewer of `source` (shown in the title, e.g. `/dev/ttyUSB0 @115200`) that keeps
    /// [`HISTORY_WINDOWS`] windows. A limit not given follows the device's watchdog
    /// (`cpu_usage_watchdog`'s settings line); the load's is [`DEFAULT_LOAD_LIMIT`]
    /// until then.
    pub fn new(source: String, load_limit_pct: Option<f64>, slice_limit_us: Option<u64>) -> App {
        App {
            source,
            status: "connecting".to_owned(),
            history: History::new(HISTORY_WINDOWS),
            frozen: None,
            garbage: 0,
            last_garbage: None,
            log: VecDeque::new(),
            selected: None,
            sort: SortOrder::default(),
            load_limit_pct: load_limit_pct.unwrap_or(DEFAULT_LOAD_LIMIT),
            slice_limit_us,
            limits_given: (load_limit_pct.is_some(), slice_limit_us.is_some()),
        }
    }

    /// Takes one console line: a window goes to the history (also while paused), the
    /// shell's text to the log (the watchdog settings also to the limits not given),
    /// garbage is counted.
    pub fn on_line(&mut self, line: Line) {
        match line {
            Line::Window(w) => self.history.push(*w),
            Line::Text(text) => {
                if let Some(device) = parse_watchdogs(&text) {
                    if !self.limits_given.0 {
                        self.load_limit_pct = device.load_pct.unwrap_or(DEFAULT_LOAD_LIMIT);
                    }
                    if !self.limits_given.1 {
                        self.slice_limit_us = device.slice_us;
                    }
                }
                // Prompts ("> ") are the shell's, not news.
                let text = text.trim_start_matches(['>', ' ']).trim_end();
                if text.is_empty() {
                    return;
                }
                if self.log.len() == LOG_LINES {
                    self.log.pop_front();
                }
                self.log.push_back(text.to_owned());
            }
            Line::Garbage(why) => {
                self.garbage += 1;
                self.last_garbage = Some(why);
            }
        }
    }

    /// The connection's state as the title shows it: `connected`, or
    /// `reconnecting: <why>`.
    pub fn set_status(&mut self, text: impl Into<String>) {
        self.status = text.into();
    }

    /// Acts on a key press or repeat (releases are ignored).
    pub fn on_key(&mut self, key: KeyEvent) -> Action {
        if key.kind == KeyEventKind::Release {
            return Action::None;
        }
        match key.code {
            KeyCode::Char('c') if key.modifiers.contains(KeyModifiers::CONTROL) => return Action::Quit,
            KeyCode::Char('q') | KeyCode::Esc => return Action::Quit,
            KeyCode::Char('s') => self.sort = self.sort.next(),
            KeyCode::Char('p') => {
                self.frozen = match self.frozen {
                    Some(_) => None,
                    None => Some(self.history.clone()),
                }
            }
            KeyCode::Up | KeyCode::Char('k') => self.step(false),
            KeyCode::Down | KeyCode::Char('j') => self.step(true),
            _ => {}
        }
        Action::None
    }

    /// All windows read, including those that arrived while paused.
    pub fn history(&self) -> &History {
        &self.history
    }

    /// Whether the screen is frozen.
    pub fn paused(&self) -> bool {
        self.frozen.is_some()
    }

    /// The task picked with ↑/↓, if any.
    pub fn selected(&self) -> Option<&TaskKey> {
        self.selected.as_ref()
    }

    /// Garbage lines so far and the last one's reason.
    pub fn garbage(&self) -> (u64, Option<&str>) {
        (self.garbage, self.last_garbage.as_deref())
    }

    /// The shell's text lines kept, oldest first.
    pub fn log(&self) -> impl DoubleEndedIterator<Item = &str> {
        self.log.iter().map(String::as_str)
    }

    /// The history on screen: the frozen one while paused.
    fn shown(&self) -> &History {
        self.frozen.as_ref().unwrap_or(&self.history)
    }

    /// Moves the selection one row down (or up) in the table as shown.
    fn step(&mut self, down: bool) {
        let rows = table_rows(self.shown(), self.sort);
        if rows.is_empty() {
            return;
        }
        let next = match selected_index(&rows, self.selected.as_ref()) {
            None => 0,
            Some(i) if down => (i + 1).min(rows.len() - 1),
            Some(i) => i.saturating_sub(1),
        };
        self.selected = Some(rows[next].key.clone());
    }
}

/// One row of the task table.
struct TaskRow<'a> {
    key: TaskKey,
    /// `None`: the task ran in the window before and is gone now.
    task: Option<&'a Task>,
    new: bool,
    gone: bool,
}

/// The latest window's tasks in `sort` order, then the tasks gone since the window
/// before.
fn table_rows(history: &History, sort: SortOrder) -> Vec<TaskRow<'_>> {
    let Some(w) = history.latest() else { return Vec::new() };
    let churn = history.churn();
    let mut tasks: Vec<&Task> = w.tasks.iter().collect();
    tasks.sort_by(|a, b| {
        let primary = match sort {
            SortOrder::Usage => b.usage_pct.total_cmp(&a.usage_pct),
            SortOrder::Name => a.name.cmp(&b.name),
            SortOrder::Id => a.id.cmp(&b.id),
            SortOrder::LongestSlice => b.longest_slice_us.cmp(&a.longest_slice_us),
        };
        primary.then_with(|| (a.id, &a.name).cmp(&(b.id, &b.name)))
    });
    let mut rows: Vec<TaskRow> = tasks
        .into_iter()
        .map(|t| {
            let key = TaskKey { id: t.id, name: t.name.clone() };
            TaskRow { new: churn.new.contains(&key), gone: churn.gone.contains(&key), key, task: Some(t) }
        })
        .collect();
    let absent = churn.gone.iter().filter(|k| !w.tasks.iter().any(|t| t.id == k.id && t.name == k.name));
    rows.extend(absent.map(|k| TaskRow { key: k.clone(), task: None, new: false, gone: true }));
    rows
}

/// The row the selection is on: the first row when nothing was picked, `None` when the
/// picked task is not in the table (any more).
fn selected_index(rows: &[TaskRow], selected: Option<&TaskKey>) -> Option<usize> {
    match selected {
        None if rows.is_empty() => None,
        None => Some(0),
        Some(key) => rows.iter().position(|r| &r.key == key),
    }
}

// ---- Drawing ------------------------------------------------------------------------

const TITLE: Style = Style::new().add_modifier(Modifier::BOLD);
const DIM: Style = Style::new().fg(Color::DarkGray);
const WARN: Style = Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD);
const OVER: Style = Style::new().fg(Color::Red).add_modifier(Modifier::BOLD);
const OK: Style = Style::new().fg(Color::Green);
const TOTALS: Style = Style::new().fg(Color::Cyan);
const KEY: Style = Style::new().add_modifier(Modifier::BOLD);

/// Width of the labels left of the two sparklines.
const LABEL_WIDTH: u16 = 12;

/// The parts of the live screen, top to bottom.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Part {
    Title,
    Summary,
    Gauge,
    LoadSpark,
    Tasks,
    Totals,
    TaskSpark,
    Log,
    Footer,
}

/// The parts that fit in `height` rows, each with its rows, top to bottom. Parts are
/// taken in order of importance (the task table twice: a few rows early, more later);
/// the task table gets the rows left over.
fn plan(height: u16, totals: u16) -> Vec<(Part, u16)> {
    let wanted = [
        (Part::Title, 1),
        (Part::Gauge, 1),
        (Part::Footer, 1),
        (Part::Tasks, 2),
        (Part::Summary, 1),
        (Part::Tasks, 3),
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
        lines.push(TextLine::styled(text.clone(), log_style(text)));
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
    let mut y = area.y;
    for (part, height) in plan(area.height, totals.len() as u16) {
        let rect = Rect { x: area.x, y, width: area.width, height };
        y += height;
        match part {
            Part::Title => draw_title(frame, rect, app),
            Part::Summary => draw_summary(frame, rect, app, w),
            Part::Gauge => draw_gauge(frame, rect, app, w),
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
                    frame.render_widget(Paragraph::new(TextLine::styled(text.clone(), log_style(text))), rect);
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
        "window #{} of {}  {} {}  slots {}/{}  ",
        w.window,
        fmt_window(w.window_us),
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
/// bar, which takes what is left.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Columns {
    longest: bool,
    id: bool,
    /// The task's recent history, one cell a window.
    recent: bool,
    switches: bool,
    /// The bar's width; 0 when left out.
    bar: u16,
}

const MARK_WIDTH: u16 = 2;
const NAME_WIDTH: u16 = 16;
const PCT_WIDTH: u16 = 6;
const ID_WIDTH: u16 = 4;
const SWITCHES_WIDTH: u16 = 8;
const LONGEST_WIDTH: u16 = 9;
/// Windows in the `recent` column.
const RECENT_WIDTH: u16 = 10;

impl Columns {
    fn fit(width: u16) -> Columns {
        // Each optional column costs its width and one gap before it.
        let mut left = width.saturating_sub(MARK_WIDTH + 1 + NAME_WIDTH + 1 + PCT_WIDTH);
        // A column fits if `spare` cells are left after it.
        let mut take = |w: u16, spare: u16| {
            let fits = left > w + spare;
            if fits {
                left -= w + 1;
            }
            fits
        };
        let longest = take(LONGEST_WIDTH, 0);
        let id = take(ID_WIDTH, 0);
        let switches = take(SWITCHES_WIDTH, 0);
        // The history column only where the bar keeps a dozen cells of its own.
        let recent = take(RECENT_WIDTH, 12);
        let bar = if left >= 5 { left - 1 } else { 0 };
        Columns { longest, id, recent, switches, bar }
    }

    fn constraints(self) -> Vec<Constraint> {
        let mut c = vec![Constraint::Length(MARK_WIDTH), Constraint::Length(NAME_WIDTH)];
        if self.id {
            c.push(Constraint::Length(ID_WIDTH));
        }
        if self.bar > 0 {
            c.push(Constraint::Length(self.bar));
        }
        c.push(Constraint::Length(PCT_WIDTH));
        if self.recent {
            c.push(Constraint::Length(RECENT_WIDTH));
        }
        if self.switches {
            c.push(Constraint::Length(SWITCHES_WIDTH));
        }
        if self.longest {
            c.push(Constraint::Length(LONGEST_WIDTH));
        }
        c
    }

    /// The cells that fit, numbers right-aligned.
    fn row<'a>(self, text: RowText<'a>) -> Row<'a> {
        let mut cells = vec![Cell::from(text.mark), Cell::from(text.name)];
        if self.id {
            cells.push(Cell::from(format!("{:>4}", text.id)));
        }
        if self.bar > 0 {
            cells.push(Cell::from(match &text.usage {
                Usage::Pct(p) => bar(*p, self.bar as usize),
                Usage::Gone => String::new(),
                Usage::Heading(what) => what.clone(),
            }));
        }
        cells.push(Cell::from(match text.usage {
            Usage::Pct(p) => format!("{p:>6.2}"),
            Usage::Gone => format!("{:>6}", "gone"),
            Usage::Heading(_) => format!("{:>6}", "%"),
        }));
        if self.recent {
            cells.push(Cell::from(text.recent));
        }
        if self.switches {
            cells.push(Cell::from(format!("{:>8}", text.switches)));
        }
        if self.longest {
            cells.push(Cell::from(Span::styled(format!("{:>9}", text.longest.content), text.longest.style)));
        }
        Row::new(cells)
    }
}

/// The usage cells (bar and %) of a row.
enum Usage {
    Pct(f64),
    /// A task of the window before that is gone now.
    Gone,
    /// The header: what the bar shows.
    Heading(String),
}

/// What one table row says, before the columns that fit are picked.
struct RowText<'a> {
    mark: Span<'a>,
    name: String,
    id: String,
    usage: Usage,
    /// The last windows' shares, as a sparkline (tasks only).
    recent: String,
    switches: String,
    longest: Span<'a>,
}

impl RowText<'static> {
    /// A row of the window's totals: no churn mark, no ID, maybe no runs or longest.
    fn total(name: impl Into<String>, pct: f64, switches: Option<u64>, longest_us: Option<u64>) -> Self {
        RowText {
            mark: Span::raw(""),
            name: name.into(),
            id: String::new(),
            usage: Usage::Pct(pct),
            recent: String::new(),
            switches: switches.map(|n| n.to_string()).unwrap_or_default(),
            longest: Span::raw(longest_us.map(fmt_us).unwrap_or_default()),
        }
    }
}

fn draw_tasks(frame: &mut Frame, area: Rect, app: &App, w: &Window, rows: &[TaskRow]) {
    let cols = Columns::fit(area.width);
    let visible = area.height.saturating_sub(1) as usize;
    let selected = selected_index(rows, app.selected.as_ref());
    let offset = match selected {
        Some(i) if i >= visible => i + 1 - visible,
        _ => 0,
    };
    let name_head = if rows.len() > visible {
        format!("task {}-{}/{}", offset + 1, (offset + visible).min(rows.len()), rows.len())
    } else {
        "task".to_owned()
    };
    let header = cols
        .row(RowText {
            mark: Span::raw(""),
            name: name_head,
            id: "id".to_owned(),
            usage: Usage::Heading(format!("usage of {}", fmt_window(w.window_us))),
            recent: format!("{:>10}", "recent"),
            switches: "switches".to_owned(),
            longest: Span::raw("longest"),
        })
        .style(Style::new().add_modifier(Modifier::BOLD | Modifier::UNDERLINED));

    let body = rows.iter().map(|r| {
        let mark = match (r.new, r.gone) {
            (true, true) => Span::styled("+x", OK),
            (true, false) => Span::styled("+", OK),
            (false, true) => Span::styled("x", Style::new().fg(Color::Red)),
            (false, false) => Span::raw(""),
        };
        let (name, id) = (r.key.name.clone(), r.key.id.to_string());
        let recent =
            if cols.recent { spark(&app.shown().task_series(&r.key), RECENT_WIDTH as usize) } else { String::new() };
        match r.task {
            Some(t) => {
                let over = app.slice_limit_us.is_some_and(|limit| t.longest_slice_us > limit);
                let longest = Span::styled(fmt_us(t.longest_slice_us), if over { OVER } else { Style::new() });
                let switches = t.switches.to_string();
                cols.row(RowText { mark, name, id, usage: Usage::Pct(t.usage_pct), recent, switches, longest })
            }
            None => cols
                .row(RowText {
                    mark,
                    name,
                    id,
                    usage: Usage::Gone,
                    recent,
                    switches: String::new(),
                    longest: Span::raw(""),
                })
                .style(DIM),
        }
    });
    let table = Table::new(body, cols.constraints())
        .header(header)
        .column_spacing(1)
        .row_highlight_style(Style::new().add_modifier(Modifier::REVERSED));
    let mut state = TableState::new().with_offset(offset).with_selected(selected);
    frame.render_stateful_widget(table, area, &mut state);
}

/// The window's lines that are not tasks: interrupts, sleep, other, idle, and the tasks
/// a `-n` report summed.
fn totals_rows(w: &Window, width: u16) -> Vec<Row<'static>> {
    let cols = Columns::fit(width);
    let mut rows = vec![
        RowText::total("interrupts", w.interrupts_pct, Some(w.interrupts), Some(w.longest_interrupt_us)),
        RowText::total("sleep", w.sleep_pct, Some(w.sleeps), None),
        RowText::total("other", w.other_pct, None, None),
    ];
    rows.push(match &w.idle {
        Some(i) => RowText {
            id: i.id.to_string(),
            ..RowText::total(format!("idle: {}", i.name), w.idle_pct, Some(i.switches), Some(i.longest_slice_us))
        },
        None => RowText::total("idle", w.idle_pct, None, None),
    });
    if let Some(more) = &w.more_tasks {
        rows.push(RowText::total(format!("{} more tasks", more.count), more.usage_pct, None, None));
    }
    rows.into_iter().map(|r| cols.row(r).style(TOTALS)).collect()
}

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

/// The device's alerts (watchdog trips and the like) stand out from other shell text.
fn log_style(text: &str) -> Style {
    let lower = text.to_lowercase();
    if lower.contains("watchdog") || lower.contains("alert") {
        WARN
    } else {
        DIM
    }
}

// ---- Formatting -----------------------------------------------------------------------

/// A bar of `pct` percent of `width` cells, in eighths of a cell.
fn bar(pct: f64, width: usize) -> String {
    const PARTS: [&str; 8] = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"];
    let eighths = (pct.clamp(0.0, 100.0) / 100.0 * width as f64 * 8.0).round() as usize;
    let eighths = eighths.min(width * 8);
    let mut s = "█".repeat(eighths / 8);
    s.push_str(PARTS[eighths % 8]);
    s
}

/// The last `width` values as a sparkline of eighth blocks, the newest at the right
/// edge, scaled to their largest (at least 1%, so that a task that barely runs stays
/// low); blank where 0.
fn spark(series: &[f64], width: usize) -> String {
    const LEVELS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
    let tail = &series[series.len().saturating_sub(width)..];
    let top = tail.iter().copied().fold(1.0f64, f64::max);
    let line: String = tail
        .iter()
        .map(|&v| if v <= 0.0 { ' ' } else { LEVELS[((v / top * 8.0).ceil() as usize).clamp(1, 8) - 1] })
        .collect();
    format!("{line:>width$}")
}

/// Percent as hundredths, the device's own resolution.
fn hundredths(pct: f64) -> u64 {
    (pct.max(0.0) * 100.0).round() as u64
}

/// A duration in microseconds, to 10 µs below 100 ms.
fn fmt_us(us: u64) -> String {
    match us {
        0..=999 => format!("{us} µs"),
        1_000..=99_999 => format!("{}.{:02} ms", us / 1_000, us % 1_000 / 10),
        100_000..=999_999 => format!("{}.{} ms", us / 1_000, us % 1_000 / 100),
        _ => format!("{}.{:02} s", us / 1_000_000, us % 1_000_000 / 10_000),
    }
}

/// A window length: whole seconds or milliseconds when it is one.
fn fmt_window(us: u64) -> String {
    // Remainders kept apart: the workspace's Rust 1.80 has no `is_multiple_of`.
    let (sub_s, sub_ms) = (us % 1_000_000, us % 1_000);
    if us > 0 && sub_s == 0 {
        format!("{} s", us / 1_000_000)
    } else if us > 0 && sub_ms == 0 {
        format!("{} ms", us / 1_000)
    } else {
        fmt_us(us)
    }
}

/// A clock rate, exact: `15.625 MHz`, `32.768 kHz`.
fn fmt_hz(hz: u64) -> String {
    let (unit, scale) = match hz {
        1_000_000.. => ("MHz", 1_000_000),
        1_000.. => ("kHz", 1_000),
        _ => return format!("{hz} Hz"),
    };
    let frac = format!("{:0width$}", hz % scale, width = if scale == 1_000_000 { 6 } else { 3 });
    let frac = frac.trim_end_matches('0');
    if frac.is_empty() {
        format!("{} {unit}", hz / scale)
    } else {
        format!("{}.{frac} {unit}", hz / scale)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_and_rates_read_well() {
        assert_eq!(fmt_us(0), "0 µs");
        assert_eq!(fmt_us(999), "999 µs");
        assert_eq!(fmt_us(1_234), "1.23 ms");
        assert_eq!(fmt_us(10_020), "10.02 ms");
        assert_eq!(fmt_us(123_456), "123.4 ms");
        assert_eq!(fmt_us(2_500_000), "2.50 s");
        assert_eq!(fmt_window(1_000_000), "1 s");
        assert_eq!(fmt_window(100_000), "100 ms");
        assert_eq!(fmt_window(1_500), "1.50 ms");
        assert_eq!(fmt_hz(15_625_000), "15.625 MHz");
        assert_eq!(fmt_hz(72_000_000), "72 MHz");
        assert_eq!(fmt_hz(32_768), "32.768 kHz");
        assert_eq!(fmt_hz(500), "500 Hz");
    }

    #[test]
    fn sparks_scale_to_their_largest_and_keep_the_last() {
        assert_eq!(spark(&[0.0, 10.0, 20.0, 40.0], 4), " ▂▄█");
        assert_eq!(spark(&[0.2, 0.5], 4), "  ▂▄", "below 1% scaled to 1%, the newest on the right");
        assert_eq!(spark(&[5.0; 30], 10), "█".repeat(10));
        assert_eq!(spark(&[], 3), "   ");
    }

    #[test]
    fn bars_are_in_eighths_and_never_overflow() {
        assert_eq!(bar(0.0, 10), "");
        assert_eq!(bar(50.0, 10), "█████");
        assert_eq!(bar(5.0, 10), "▌");
        assert_eq!(bar(100.0, 4), "████");
        assert_eq!(bar(250.0, 4), "████");
        assert_eq!(bar(-3.0, 4), "");
    }

    #[test]
    fn small_terminals_keep_the_important_parts() {
        let parts = |h| plan(h, 4).into_iter().map(|(p, _)| p).collect::<Vec<_>>();
        assert_eq!(parts(1), [Part::Title]);
        assert_eq!(parts(3), [Part::Title, Part::Gauge, Part::Footer]);
        assert_eq!(parts(5), [Part::Title, Part::Gauge, Part::Tasks, Part::Footer]);
        // The task table keeps a few rows before the totals come in.
        assert_eq!(plan(10, 4).iter().find(|(p, _)| *p == Part::Tasks), Some(&(Part::Tasks, 5)));
        let full = plan(24, 4);
        assert_eq!(full.len(), 9);
        assert_eq!(full.iter().map(|&(_, h)| h).sum::<u16>(), 24);
    }
}
