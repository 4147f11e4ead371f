//! The live view drawn on ratatui's `TestBackend`, fed windows recorded from the POSIX
//! simulator (`tests/data/ui_windows.jsonl`: windows 9 and 10 of a run with 100 ms
//! windows, churn switched on during window 10, and a watchdog on slices over 10 ms).

use cpu_usage_top::ui::{draw, stands_out, Action, App, SortOrder, DEVICE_LABEL};
use cpu_usage_top::window::{parse_line, Line};
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use ratatui::style::{Color, Modifier};
use ratatui::Terminal;

const WINDOWS: &str = include_str!("data/ui_windows.jsonl");
const EXPECTED_80X24: &str = include_str!("data/ui_80x24.txt");

/// The simulator printed this right after window 10, in the same run.
const ALERT: &str = "watchdog: slice 10.020 ms > 10.000 ms by task 3 \"work40\" in window #10";

fn app() -> App {
    let mut app = App::new("sim: build/posix/freertos-sim".to_owned(), Some(80.0), Some(10_000));
    app.set_status("connected");
    for line in WINDOWS.lines() {
        let line = parse_line(line);
        assert!(matches!(line, Line::Window(_)), "the fixture holds windows only");
        app.on_line(line);
    }
    app.on_line(parse_line(ALERT));
    app
}

fn render(app: &App, width: u16, height: u16) -> Buffer {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal.draw(|f| draw(f, app)).unwrap();
    terminal.backend().buffer().clone()
}

/// The buffer as text, one line per row, trailing blanks cut.
fn text(buf: &Buffer) -> String {
    let mut out = String::new();
    for y in 0..buf.area.height {
        let row: String = (0..buf.area.width).map(|x| buf[(x, y)].symbol()).collect();
        out.push_str(row.trim_end());
        out.push('\n');
    }
    out
}

fn row_of(screen: &str, needle: &str) -> usize {
    screen.lines().position(|l| l.contains(needle)).unwrap_or_else(|| panic!("{needle:?} not on screen:\n{screen}"))
}

fn press(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

#[test]
fn snapshot_80x24() {
    let screen = text(&render(&app(), 80, 24));
    if std::env::var_os("UI_SNAPSHOT_PRINT").is_some() {
        print!("{screen}");
    }
    assert_eq!(screen, EXPECTED_80X24, "the 80x24 screen changed; it is now:\n{screen}");
}

#[test]
fn task_names_appear() {
    let screen = text(&render(&app(), 80, 24));
    for name in ["work40", "work25", "work10", "churn", "shell", "IDLE", "interrupts", "sleep", "other"] {
        assert!(screen.contains(name), "{name} missing:\n{screen}");
    }
}

#[test]
fn new_tasks_are_marked() {
    let screen = text(&render(&app(), 80, 40));
    // churn-303 started in window 10 and still runs; churn-302 started and ended in it.
    let line = screen.lines().find(|l| l.contains("churn-303")).unwrap();
    assert!(line.starts_with("+ "), "{line:?}");
    let line = screen.lines().find(|l| l.contains("churn-302")).unwrap();
    assert!(line.starts_with("+x"), "{line:?}");
    // The workloads ran in both windows.
    let line = screen.lines().find(|l| l.contains("work40")).unwrap();
    assert!(line.starts_with("  "), "{line:?}");
}

#[test]
fn gone_tasks_stay_one_window() {
    let mut app = app();
    let mut next: serde_json::Value = serde_json::from_str(WINDOWS.lines().last().unwrap()).unwrap();
    next["window"] = 11.into();
    next["tasks"].as_array_mut().unwrap().retain(|t| !t["deleted"].as_bool().unwrap());
    next["tasks"].as_array_mut().unwrap().retain(|t| t["name"] != "churn-303");
    app.on_line(parse_line(&next.to_string()));
    let screen = text(&render(&app, 80, 40));
    let line = screen.lines().find(|l| l.contains("churn-303")).unwrap();
    assert!(line.starts_with("x ") && line.contains("gone"), "{line:?}");
}

#[test]
fn sorting_by_name_changes_the_order() {
    let mut app = app();
    let by_usage = text(&render(&app, 80, 40));
    assert!(row_of(&by_usage, "work40") < row_of(&by_usage, "work10"));
    assert!(row_of(&by_usage, "work10") < row_of(&by_usage, "churn-303"));
    assert_eq!(app.on_key(press(KeyCode::Char('s'))), Action::None);
    assert_eq!(app.sort, SortOrder::Name);
    let by_name = text(&render(&app, 80, 40));
    assert!(row_of(&by_name, "churn-303") < row_of(&by_name, "work10"));
    assert!(row_of(&by_name, "work10") < row_of(&by_name, "work40"));
    assert!(by_name.contains("sort: name"));
}

#[test]
fn load_above_the_limit_is_red() {
    let find = |buf: &Buffer, text: &str| {
        let screen = self::text(buf);
        let y = row_of(&screen, text);
        let line = screen.lines().nth(y).unwrap();
        // Every symbol on screen is one column wide: columns are chars.
        let col = line[..line.find(text).unwrap()].chars().count() as u16;
        buf[(col, y as u16)].style()
    };
    let mut app = app();
    let calm = find(&render(&app, 80, 24), "75.12%");
    assert_ne!(calm.fg, Some(Color::Red));
    app.load_limit_pct = 50.0;
    let hot = find(&render(&app, 80, 24), "75.12%");
    assert_eq!(hot.fg, Some(Color::Red));
    assert!(hot.add_modifier.contains(Modifier::BOLD));
}

#[test]
fn long_slices_are_red() {
    let buf = render(&app(), 80, 24);
    let screen = text(&buf);
    let y = row_of(&screen, "work40") as u16;
    let line = screen.lines().nth(y as usize).unwrap();
    let x = line.chars().count() as u16 - 1;
    assert!(line.ends_with("10.02 ms"), "{line:?}");
    assert_eq!(buf[(x, y)].style().fg, Some(Color::Red));
    let y = row_of(&screen, "work25") as u16;
    let x = screen.lines().nth(y as usize).unwrap().chars().count() as u16 - 1;
    assert_ne!(buf[(x, y)].style().fg, Some(Color::Red));
}

#[test]
fn before_the_first_window_it_says_so() {
    let mut app = App::new("/dev/ttyUSB0 @115200".to_owned(), Some(80.0), None);
    app.set_status("reconnecting: no such device");
    app.on_line(parse_line("{\"mode\":\"window\",\"cut"));
    let screen = text(&render(&app, 80, 24));
    assert!(screen.contains("waiting for the first window…"), "{screen}");
    assert!(screen.contains("reconnecting: no such device"), "{screen}");
    assert!(screen.contains("/dev/ttyUSB0 @115200"), "{screen}");
    assert!(screen.contains("garbage 1"), "{screen}");
    assert_eq!(app.garbage().0, 1);
}

#[test]
fn no_size_panics() {
    let live = app();
    let empty = App::new("sim".to_owned(), Some(80.0), None);
    for app in [&live, &empty] {
        for width in 1..=20 {
            for height in 1..=5 {
                render(app, width, height);
            }
        }
        for (width, height) in [(0, 0), (1, 24), (80, 1), (30, 12), (52, 24), (56, 24), (200, 60)] {
            if width > 0 && height > 0 {
                render(app, width, height);
            }
        }
    }
}

#[test]
fn keys_map_to_actions() {
    let mut app = app();
    assert_eq!(app.on_key(press(KeyCode::Char('q'))), Action::Quit);
    assert_eq!(app.on_key(press(KeyCode::Esc)), Action::Quit);
    assert_eq!(app.on_key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL)), Action::Quit);
    assert_eq!(app.on_key(press(KeyCode::Char('c'))), Action::None);
    let mut release = press(KeyCode::Char('q'));
    release.kind = KeyEventKind::Release;
    assert_eq!(app.on_key(release), Action::None);

    for order in [SortOrder::Name, SortOrder::Id, SortOrder::LongestSlice, SortOrder::Usage] {
        assert_eq!(app.on_key(press(KeyCode::Char('s'))), Action::None);
        assert_eq!(app.sort, order);
        if order == SortOrder::LongestSlice {
            // The report's name for the column: the longest run.
            assert!(text(&render(&app, 80, 24)).contains("s sort: longest run"));
        }
    }

    // ↓ walks the usage order from the top row; ↑ stops at the top.
    assert_eq!(app.selected(), None);
    app.on_key(press(KeyCode::Down));
    assert_eq!(app.selected().unwrap().name, "work25");
    app.on_key(press(KeyCode::Down));
    assert_eq!(app.selected().unwrap().name, "work10");
    for _ in 0..5 {
        app.on_key(press(KeyCode::Up));
    }
    assert_eq!(app.selected().unwrap().name, "work40");
    for _ in 0..50 {
        app.on_key(press(KeyCode::Down));
    }
    let last = app.selected().unwrap().clone();
    let screen = text(&render(&app, 80, 24));
    assert!(screen.contains("task 5-14/14"), "the table scrolls to the selection:\n{screen}");
    assert!(screen.lines().any(|l| l.contains(&last.name)), "{screen}");

    // p freezes the screen; windows still arrive.
    assert!(!app.paused());
    app.on_key(press(KeyCode::Char('p')));
    assert!(app.paused());
    let mut next: serde_json::Value = serde_json::from_str(WINDOWS.lines().last().unwrap()).unwrap();
    next["window"] = 11.into();
    app.on_line(parse_line(&next.to_string()));
    assert_eq!(app.history().latest().unwrap().window, 11);
    let screen = text(&render(&app, 80, 24));
    assert!(screen.contains("PAUSED +1") && screen.contains("window #10 "), "{screen}");
    app.on_key(press(KeyCode::Char('p')));
    assert!(!app.paused());
    assert!(text(&render(&app, 80, 24)).contains("window #11 "));
}

#[test]
fn shell_text_goes_to_the_log() {
    let mut app = app();
    app.on_line(parse_line("> "));
    app.on_line(parse_line(""));
    assert_eq!(app.log().collect::<Vec<_>>(), [ALERT]);
    let buf = render(&app, 80, 24);
    let screen = text(&buf);
    let y = row_of(&screen, "watchdog: slice");
    assert_eq!(buf[(0, y as u16)].style().fg, Some(Color::Yellow));
    // Labelled as the device's, on the line above the footer.
    let line = screen.lines().nth(y).unwrap();
    assert_eq!(line, format!("{DEVICE_LABEL}{ALERT}"));
    assert_eq!(y, 22, "{screen}");
}

#[test]
fn the_device_line_is_labelled_and_notes_stand_out() {
    let note = "note: over the last 1.0 s the host gave the simulator 61.2% of a core while it was awake";
    let mut app = app();
    app.on_line(parse_line(&format!("> {note}")));
    let buf = render(&app, 100, 24);
    let screen = text(&buf);
    let y = row_of(&screen, "note: over");
    assert!(screen.lines().nth(y).unwrap().starts_with("device: note: over the last 1.0 s"), "{screen}");
    assert_eq!(buf[(0, y as u16)].style().fg, Some(Color::Yellow));

    // Inside a report (the simulator's `-m`): the same line, from the report's note.
    let mut app = App::new("sim".to_owned(), Some(80.0), None);
    let report = include_str!("../../report-schema/samples/simulator-window-note.json");
    app.on_line(parse_line(report));
    let buf = render(&app, 100, 24);
    let screen = text(&buf);
    assert!(screen.contains("window #2 "), "the window is read: {screen}");
    let y = row_of(&screen, "note: over");
    let expected = "device: note: over the last 1.0 s the host gave the simulator 52.4% of a core while it was awake";
    assert!(screen.lines().nth(y).unwrap().starts_with(expected), "{screen}");
    assert_eq!(buf[(0, y as u16)].style().fg, Some(Color::Yellow));

    // Before the first window too.
    let mut app = App::new("sim".to_owned(), Some(80.0), None);
    app.on_line(parse_line("freertos-cpu-usage demo on POSIX simulator"));
    let screen = text(&render(&app, 80, 24));
    assert!(screen.contains("device: freertos-cpu-usage demo on POSIX simulator"), "{screen}");
}

#[test]
fn limits_not_given_follow_the_device_watchdogs() {
    let settings = "> watchdog: load > 50.00% for 2 windows; slice > 5000 us";
    let mut app = App::new("sim".to_owned(), None, None);
    assert_eq!((app.load_limit_pct, app.slice_limit_us), (80.0, None), "before the device says");
    app.on_line(Line::Text(settings.to_owned()));
    assert_eq!((app.load_limit_pct, app.slice_limit_us), (50.0, Some(5000)));
    app.on_line(Line::Text("watchdog: load off; slice off".to_owned()));
    assert_eq!((app.load_limit_pct, app.slice_limit_us), (80.0, None), "off: the default again");
    // Given limits stay.
    let mut app = App::new("sim".to_owned(), Some(90.0), Some(20_000));
    app.on_line(Line::Text(settings.to_owned()));
    assert_eq!((app.load_limit_pct, app.slice_limit_us), (90.0, Some(20_000)));
}

#[test]
fn alerts_and_notes_stand_out_and_settings_do_not() {
    assert!(stands_out(ALERT));
    assert!(stands_out("> note: over the last 1.0 s the host gave the simulator 61.2% of a core while it was awake"));
    assert!(!stands_out("watchdog: load off; slice off"), "the watchdogs' settings are no alert");
    assert!(!stands_out("> watchdog: load > 50.00% for 2 windows; slice > 5000 us"));
    assert!(!stands_out("freertos-cpu-usage demo on POSIX simulator"));
}

/// A window of the library built for two cores (`report-schema/samples`): A ran
/// 600000 counts on core 0, B 350000 on core 1 with one interrupt of 50000, in a
/// window of 1000000.
const TWO_CORES: &str = include_str!("../../report-schema/samples/two-cores-window.json");

#[test]
fn two_cores_show_on_how_many_and_a_line_each() {
    let mut app = App::new("sim".to_owned(), Some(50.0), None);
    app.on_line(parse_line(TWO_CORES));
    let buf = render(&app, 80, 24);
    let screen = text(&buf);
    if std::env::var_os("UI_SNAPSHOT_PRINT").is_some() {
        print!("{screen}");
    }
    // The shares are of both cores' time: the summary and the table say so.
    assert!(screen.contains("window #0 of 1 s on 2 cores  custom 1 MHz  slots 2/32"), "{screen}");
    assert!(screen.contains("usage of 2 × 1 s"), "{screen}");
    let idle = screen.lines().find(|l| l.contains("idle: IDLE")).unwrap();
    assert!(idle.contains(" 38 ") && idle.contains("50.00"), "both idle tasks on one line: {idle:?}");
    // Under the load, a line per core: its busy share of its own time, then the rest.
    let load = row_of(&screen, "load  50.00%");
    let lines: Vec<&str> = screen.lines().collect();
    assert_eq!(lines[load + 1], "core 0  60.00% ██████████▎░░░░░░  idle 40.00%  interrupts 0.00% (0)  sleep 0.00%");
    assert_eq!(lines[load + 2], "core 1  40.00% ██████▊░░░░░░░░░░  idle 60.00%  interrupts 5.00% (1)  sleep 0.00%");
    // A core busier than the load limit is red, as the load is.
    let busy = |y: usize| buf[(8, y as u16)].style().fg;
    assert_eq!((busy(load + 1), busy(load + 2)), (Some(Color::Red), Some(Color::Green)));
    // Narrow, the bar goes first; short, the cores' lines go whole.
    let narrow = text(&render(&app, 60, 24));
    assert!(narrow.contains("core 1  40.00%  idle 60.00%  interrupts 5.00% (1)  sleep 0.0"), "{narrow}");
    let short = text(&render(&app, 80, 10));
    assert!(!short.contains("core 0") && !short.contains("core 1") && short.contains("load  50.00%"), "{short}");

    // One core: none of it.
    let one = text(&render(&self::app(), 80, 24));
    assert!(!one.contains("cores") && !one.contains("core 0") && !one.contains(" × "), "{one}");
}
