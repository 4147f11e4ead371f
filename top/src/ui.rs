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
//! panic. The screen's layout and its small parts are in `draw`, the two tables (the
//! tasks, and the window's other lines) in `table`, and the way numbers read in
//! `format`.

use std::collections::VecDeque;

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use crate::history::{History, TaskKey};
use crate::window::{note_line, parse_watchdogs, Line, Task};

mod draw;
mod format;
mod table;

pub use draw::{draw, stands_out, DEVICE_LABEL};

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
            // The report's word for it (`show_cpu_usage -l`: LONGEST, the longest run).
            SortOrder::LongestSlice => "longest run",
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

    /// Takes one console line: a window goes to the history (also while paused) and
    /// its note, if it has one, to the log; the shell's text to the log (the watchdog
    /// settings also to the limits not given); garbage is counted.
    pub fn on_line(&mut self, line: Line) {
        match line {
            Line::Window(w) => {
                // Its note, before it, as the shell's table has it.
                if let Some(note) = note_line(&w) {
                    self.log_line(&note);
                }
                self.history.push(*w)
            }
            Line::Text(text) => {
                if let Some(device) = parse_watchdogs(&text) {
                    if !self.limits_given.0 {
                        self.load_limit_pct = device.load_pct.unwrap_or(DEFAULT_LOAD_LIMIT);
                    }
                    if !self.limits_given.1 {
                        self.slice_limit_us = device.slice_us;
                    }
                }
                self.log_line(&text);
            }
            Line::Garbage(why) => {
                self.garbage += 1;
                self.last_garbage = Some(why);
            }
        }
    }

    /// Keeps a line of the device's text for the screen (the newest [`LOG_LINES`]).
    fn log_line(&mut self, text: &str) {
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
