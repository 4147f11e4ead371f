//! The demo's own JSON lines (`demo/commands.c`, `demo/readouts.c`, `demo/shell.c`):
//! the answers of its commands with `-m`, and the watchdog alerts its shell prints.
//!
//! One type per line; `deny_unknown_fields` so that a field the demo adds or renames
//! fails here, with the line, instead of being silently ignored.

use serde::de::DeserializeOwned;
use serde::Deserialize;

/// The JSON line of an answer (the first line starting with `{`; on QEMU the typed
/// line is echoed before it), read as `T`; the error names the line.
pub fn read_line<T: DeserializeOwned>(answer: &str, what: &str) -> Result<T, String> {
    let line = answer.lines().find(|l| l.starts_with('{')).ok_or_else(|| format!("no JSON line in `{what}`"))?;
    serde_json::from_str(line).map_err(|e| format!("`{what}` answered {line:?}: {e}"))
}

/// A watchdog alert, as the shell prints it between lines.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(tag = "watchdog", rename_all = "lowercase", deny_unknown_fields)]
pub enum Alert {
    /// `{"watchdog":"load","load_pct":85.12,"threshold_pct":80.00,"window":12}`.
    Load {
        /// The window's load, in percent.
        load_pct: f64,
        /// The threshold crossed, in percent.
        threshold_pct: f64,
        /// The window that completed the trip.
        window: u64,
    },
    /// `{"watchdog":"slice","slice_us":12345,"threshold_us":5000,"task_id":3,
    /// "task":"work40","window":12}`.
    Slice {
        /// The run's length in microseconds.
        slice_us: u64,
        /// The threshold in microseconds.
        threshold_us: u64,
        /// The task's library ID.
        task_id: u64,
        /// Its name (`(overflow)` for the shared bucket).
        task: String,
        /// The window of the run.
        window: u64,
    },
    /// `{"watchdog":"lost","alerts":3}`: alerts the demo had no room to keep.
    Lost {
        /// How many.
        alerts: u64,
    },
}

impl Alert {
    /// `Some` for an alert line (read, or why not), `None` for any other line.
    pub fn parse(line: &str) -> Option<Result<Alert, String>> {
        if !line.starts_with("{\"watchdog\":") {
            return None;
        }
        Some(serde_json::from_str(line).map_err(|e| format!("malformed watchdog alert {line:?}: {e}")))
    }
}

/// `tasks -m`: every task the kernel lists, sorted by library ID.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tasks {
    /// The rows.
    pub tasks: Vec<TaskRow>,
    /// The kernel's number of tasks at that instant.
    pub count: u64,
}

/// A live task as `tasks -m` lists it.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TaskRow {
    /// Library ID (0: the shared overflow bucket).
    pub id: u64,
    /// Task name.
    pub name: String,
    /// The kernel's state: running, ready, blocked, suspended or deleted.
    pub state: String,
    /// Current priority.
    pub priority: u64,
    /// The stack's high-water mark, in words never used.
    pub stack_free_words: u64,
}

/// `churn -m status` (or `on`, `off`).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Churn {
    /// `on` or `off`.
    pub churn: String,
    /// Tasks created since boot.
    pub created: u64,
    /// Tasks deleted since boot.
    pub deleted: u64,
    /// Created and not yet deleted.
    pub alive: u64,
    /// Creations the heap refused.
    pub create_failures: u64,
}

impl Churn {
    /// Whether it is on.
    pub fn on(&self) -> bool {
        self.churn == "on"
    }
}

/// `tick30 -m status` (or `on`, `off`).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tick30 {
    /// `on` or `off`.
    pub tick30: String,
    /// Its share of every tick period.
    pub duty_pct: u64,
    /// Activations since boot.
    pub activations: u64,
    /// Since the previous `tick30` command, when it ran since: its mean and longest
    /// wake-up latency after the tick, and how long it kept the CPU past its share.
    pub latency_mean_us: Option<u64>,
    /// See `latency_mean_us`.
    pub latency_max_us: Option<u64>,
    /// See `latency_mean_us`.
    pub overrun_us: Option<u64>,
}

/// `sampled -m`: the tick-sampled accounting since the previous `sampled`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sampled {
    /// The figures.
    pub sampled: SampledFigures,
}

/// See [`Sampled`].
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SampledFigures {
    /// Ticks counted.
    pub ticks: u64,
    /// One row per task told apart, then `(other tasks)`.
    pub rows: Vec<SampledRow>,
}

/// See [`Sampled`].
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SampledRow {
    /// Task name.
    pub name: String,
    /// Its share of the ticks, in percent with one decimal.
    pub pct: f64,
    /// Its ticks.
    pub ticks: u64,
}

/// `snapshot -m`: `cpu_usage_snapshot()`'s structs as the demo prints them.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SnapshotLine {
    /// The figures.
    pub snapshot: Snapshot,
}

/// See [`SnapshotLine`].
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Snapshot {
    /// The window's number.
    pub window: u64,
    /// Its length in microseconds.
    pub window_us: u64,
    /// Tasks in the window (`summary.tasks`).
    pub tasks: u64,
    /// Tasks copied into the array (`summary.written`).
    pub written: u64,
    /// The tasks copied.
    pub rows: Vec<SnapRow>,
    /// Interrupts' share.
    pub interrupts_pct: f64,
    /// Share asleep.
    pub sleep_pct: f64,
    /// Share in no task.
    pub other_pct: f64,
    /// The idle task's share.
    pub idle_pct: f64,
    /// 100 % minus idle and sleep.
    pub load_pct: f64,
    /// Interrupts in the window.
    pub interrupts: u64,
    /// Longest interrupt in microseconds.
    pub longest_interrupt_us: u64,
    /// The smoothed loads (1 s, 10 s, 60 s); `None` where not known yet.
    pub load_avg_pct: [Option<f64>; 3],
}

/// One task of [`Snapshot`].
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SnapRow {
    /// Library ID.
    pub id: u64,
    /// Name.
    pub name: String,
    /// Share in percent.
    pub usage_pct: f64,
    /// Times switched in.
    pub switches: u64,
    /// Longest run in microseconds.
    pub longest_slice_us: u64,
    /// The idle task.
    pub idle: bool,
    /// Deleted in the window.
    pub deleted: bool,
}

/// `kernel_stats -m`: the kernel's run-time stats and the library's report since
/// start, taken at one instant.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KernelStats {
    /// The kernel's tasks, by library ID.
    pub kernel: Vec<KernelRow>,
    /// `show_cpu_usage -c -m` (null if it could not be formatted), as the device wrote
    /// it: the report contract reads it byte for byte.
    pub library: Option<Box<serde_json::value::RawValue>>,
}

/// See [`KernelStats`].
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KernelRow {
    /// Library ID.
    pub id: u64,
    /// Task name.
    pub name: String,
    /// Its share of the kernel's run-time counter since boot, truncated to hundredths.
    pub run_time_pct: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alerts_are_read() {
        assert_eq!(
            Alert::parse(r#"{"watchdog":"load","load_pct":85.12,"threshold_pct":80.00,"window":12}"#),
            Some(Ok(Alert::Load { load_pct: 85.12, threshold_pct: 80.0, window: 12 }))
        );
        assert_eq!(
            Alert::parse(
                r#"{"watchdog":"slice","slice_us":12345,"threshold_us":5000,"task_id":3,"task":"work40","window":7}"#
            ),
            Some(Ok(Alert::Slice {
                slice_us: 12345,
                threshold_us: 5000,
                task_id: 3,
                task: "work40".into(),
                window: 7
            }))
        );
        assert_eq!(Alert::parse(r#"{"watchdog":"lost","alerts":2}"#), Some(Ok(Alert::Lost { alerts: 2 })));
        // The command's settings line is no alert.
        assert_eq!(Alert::parse("watchdog: load > 50.00% for 2 windows; slice > 5000 us"), None);
        // A field too many, or one missing, is an error, not an alert.
        assert!(Alert::parse(r#"{"watchdog":"lost","alerts":2,"more":1}"#).unwrap().is_err());
        assert!(Alert::parse(r#"{"watchdog":"slice","slice_us":1,"window":7}"#).unwrap().is_err());
    }

    #[test]
    fn answers_are_read_past_the_echo() {
        let answer = "tasks -m\n{\"tasks\":[{\"id\":7,\"name\":\"Tmr Svc\",\"state\":\"blocked\",\"priority\":4,\"stack_free_words\":230}],\"count\":1}\n";
        let tasks: Tasks = read_line(answer, "tasks -m").unwrap();
        assert_eq!((tasks.count, tasks.tasks[0].id, tasks.tasks[0].name.as_str()), (1, 7, "Tmr Svc"));
        let err = read_line::<Tasks>("unknown command 'tasks'\n", "tasks -m").unwrap_err();
        assert!(err.contains("no JSON line"), "{err}");
    }

    #[test]
    fn snapshot_is_read() {
        let line = r#"{"snapshot":{"window":4,"window_us":1000000,"tasks":2,"written":2,"rows":[{"id":0,"name":"(overflow)","usage_pct":2.22,"switches":211,"longest_slice_us":119,"idle":false,"deleted":false},{"id":7,"name":"IDLE","usage_pct":8.97,"switches":75,"longest_slice_us":4630,"idle":true,"deleted":false}],"interrupts_pct":0.69,"sleep_pct":12.68,"other_pct":0.00,"idle_pct":8.97,"load_pct":78.35,"interrupts":1000,"longest_interrupt_us":24,"load_avg_pct":[78.31,78.26,null]}}"#;
        let s: SnapshotLine = read_line(line, "snapshot -m").unwrap();
        let s = s.snapshot;
        assert_eq!((s.window, s.window_us, s.tasks, s.written), (4, 1_000_000, 2, 2));
        assert!(s.rows[1].idle && s.rows[1].longest_slice_us == 4630);
        assert_eq!(s.load_avg_pct, [Some(78.31), Some(78.26), None]);
    }

    #[test]
    fn status_lines_are_read() {
        let c: Churn =
            read_line(r#"{"churn":"on","created":662,"deleted":661,"alive":1,"create_failures":0}"#, "churn -m status")
                .unwrap();
        assert!(c.on() && c.created == 662);
        let t: Tick30 = read_line(r#"{"tick30":"off","duty_pct":30,"activations":0}"#, "tick30 -m status").unwrap();
        assert_eq!((t.tick30.as_str(), t.overrun_us), ("off", None));
        let s: Sampled = read_line(
            r#"{"sampled":{"ticks":2,"rows":[{"name":"tick30","pct":0.0,"ticks":0},{"name":"(other tasks)","pct":100.0,"ticks":2}]}}"#,
            "sampled -m",
        )
        .unwrap();
        assert_eq!((s.sampled.ticks, s.sampled.rows[1].name.as_str()), (2, "(other tasks)"));
    }
}
