//! The two tables: the tasks of the window, and its other lines (interrupts, sleep,
//! other, idle, the tasks a `-n` report summed), in the same columns.

use ratatui::layout::{Constraint, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Span;
use ratatui::widgets::{Cell, Row, Table, TableState};
use ratatui::Frame;

use super::draw::{DIM, OK, OVER, TOTALS};
use super::format::{bar, fmt_us, fmt_window, spark};
use super::{selected_index, App, TaskRow};
use crate::window::Window;
use crate::words::count;

/// bar, which takes what is left.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Columns {
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
    pub(super) fn fit(width: u16) -> Columns {
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

    pub(super) fn constraints(self) -> Vec<Constraint> {
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

pub(super) fn draw_tasks(frame: &mut Frame, area: Rect, app: &App, w: &Window, rows: &[TaskRow]) {
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
            // (With several cores, the shares are of every core's time.)
            usage: Usage::Heading(match w.cores() {
                1 => format!("usage of {}", fmt_window(w.window_us)),
                n => format!("usage of {n} × {}", fmt_window(w.window_us)),
            }),
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
pub(super) fn totals_rows(w: &Window, width: u16) -> Vec<Row<'static>> {
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
        rows.push(RowText::total(count(more.count, "more task", "more tasks"), more.usage_pct, None, None));
    }
    rows.into_iter().map(|r| cols.row(r).style(TOTALS)).collect()
}
