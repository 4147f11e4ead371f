//! The report's field table: one description of every figure a report line has (a
//! task's, the shared bucket's, the idle task's), read by everything that writes one.
//!
//! Each [`Field`] names its figure once: its JSON key, its table column (header and
//! width, or where else the table puts it), its unit, the reports it is in, and the
//! `cpu_usage_task_info` field it fills. The table and the JSON of a line
//! (`report/text/cells.rs`) are one walk of [`FIELDS`] in this order, each in its own syntax;
//! `cpu_usage_snapshot` fills its C struct from the entries with a C field
//! ([`C_FIELDS`]); the report schema (`report-schema`), the viewer and the system
//! tests read the same JSON keys, and a test in the system tests' crate checks that
//! the schema's line types (de)serialize exactly these keys (and the tests' table
//! reader finds columns by their headers). Adding a figure to the reports is then:
//! an entry here with its [`Figure`] and [`Figure::value`]; the engine's `Row` field
//! that counts it; the schema's `Line` field (the key test fails without it); the
//! samples and the tests' expected outputs. A C field besides: a [`CField`], the
//! struct's field and its arm in the snapshot's setter (and `make header`). A table
//! column besides: the fuzz model's table (`fuzz/src/table.rs`, a model written
//! apart on purpose). The writers, the viewer and the tests' row types are not
//! touched.
//!
//! A line's ID and name are not figures: every line starts with them (`"id"`,
//! `"name"`; the table's `ID` and `TASK` columns), and the C struct has `id`, `name`
//! and `idle`, which say which line it is.
//!
//! No allocation and no panic: the table is a `static` of small entries, walked with
//! `iter()`; a figure's value is a `match`, not a closure, so a walk keeps a few
//! words on its caller's stack.

use crate::engine::arith::pct_of;
use crate::engine::{Row, RowKind};
use crate::settings::ApiEngine;

/// A figure of a report line. (Its position in [`FIELDS`] is the order in which the
/// JSON and the table write it.)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Figure {
    /// Clock counts charged to the line.
    Counts,
    /// The line's share of the span.
    Share,
    /// A task deleted in the window (listed with `-d`).
    Deleted,
    /// The shared bucket's tasks in the span.
    BucketTasks,
    /// Runs: times switched in.
    Runs,
    /// The longest run.
    Longest,
    /// The window of the longest run (since start).
    LongestWindow,
    /// The share of the line's busiest window (since start).
    Peak,
    /// The number of that window (since start).
    PeakWindow,
}

/// What a figure's number is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// Clock counts.
    Counts,
    /// Microseconds, rounded down; counted in clock counts ([`Value::Int`] holds the
    /// counts, each writer converts with the report's clock).
    Micros,
    /// Hundredths of a percent ([`Value::Share`]).
    Hundredths,
    /// A plain count (runs, tasks).
    Count,
    /// A window's number.
    Window,
    /// Yes or no ([`Value::Flag`]).
    Flag,
}

/// Where the table (`show_cpu_usage` without `-m`) puts a figure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// Nowhere (the table shows shares, not counts).
    None,
    /// A column: `lead`, then the figure right-aligned in `width` (its header,
    /// `head`, the same).
    Column {
        /// The column's header.
        head: &'static str,
        /// The spaces before it.
        lead: u8,
        /// Its width after them.
        width: u8,
    },
    /// After the previous cell: this text, then the figure (nothing if null).
    After(&'static str),
    /// At the end of a task's line (not the idle task's): this text, and the figure
    /// unless it is a flag (nothing if false or absent); `since_start` in a
    /// since-start report.
    Note {
        /// In a window's report.
        window: &'static str,
        /// In a since-start report.
        since_start: &'static str,
    },
}

/// The reports a figure is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reports {
    /// Every report (the table only with `-l`, if `long`).
    All,
    /// Since start only (`-c`), where it is the line's history.
    SinceStart,
}

/// One figure of the report.
#[derive(Clone, Copy, Debug)]
pub struct Field {
    /// Which figure.
    pub figure: Figure,
    /// Its key in the JSON (`show_cpu_usage -m`).
    pub key: &'static str,
    /// Where the table puts it.
    pub place: Place,
    /// The table shows it only with `-l`.
    pub long: bool,
    /// What its number is.
    pub unit: Unit,
    /// In which reports.
    pub reports: Reports,
    /// The idle task's JSON object has it (its share is the report's `idle_pct`, not
    /// on its line; nor is it ever deleted or a bucket). The idle task's table line
    /// has every column.
    pub idle: bool,
    /// The `cpu_usage_task_info` field it fills, if any.
    pub c_field: Option<CField>,
}

/// A field of `cpu_usage_task_info` (`ffi/snapshot.rs`) that a figure fills: its
/// setter there has one arm per field, and a test there holds [`CField::name`] to
/// the struct's own field names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CField {
    /// `counts`.
    Counts,
    /// `usage`.
    Usage,
    /// `deleted`.
    Deleted,
    /// `switches`.
    Switches,
    /// `longest_slice_us`.
    LongestSliceUs,
}

impl CField {
    /// The struct field's name in C.
    pub const fn name(self) -> &'static str {
        match self {
            CField::Counts => "counts",
            CField::Usage => "usage",
            CField::Deleted => "deleted",
            CField::Switches => "switches",
            CField::LongestSliceUs => "longest_slice_us",
        }
    }
}

impl Field {
    /// The field is in a report since start (`cumulative`) or of a window.
    pub const fn in_report(&self, cumulative: bool) -> bool {
        cumulative || matches!(self.reports, Reports::All)
    }
}

/// Every figure of a report line, in the order the JSON writes them (the table
/// writes its columns in this order too, then its notes).
pub const FIELD_TABLE: [Field; 9] = [
    Field {
        figure: Figure::Counts,
        key: "counts",
        place: Place::None,
        long: false,
        unit: Unit::Counts,
        reports: Reports::All,
        idle: true,
        c_field: Some(CField::Counts),
    },
    Field {
        figure: Figure::Share,
        key: "usage_pct",
        place: Place::Column { head: "USAGE", lead: 1, width: 7 },
        long: false,
        unit: Unit::Hundredths,
        reports: Reports::All,
        idle: false,
        c_field: Some(CField::Usage),
    },
    Field {
        figure: Figure::Deleted,
        key: "deleted",
        place: Place::Note { window: "  deleted", since_start: "  deleted" },
        long: false,
        unit: Unit::Flag,
        reports: Reports::All,
        idle: false,
        c_field: Some(CField::Deleted),
    },
    Field {
        figure: Figure::BucketTasks,
        key: "tasks",
        // Of the window shown (or since start), not of the moment it is printed.
        place: Place::Note {
            window: "  tasks without an ID in the window: ",
            since_start: "  tasks without an ID since start: ",
        },
        long: false,
        unit: Unit::Count,
        reports: Reports::All,
        idle: false,
        c_field: None,
    },
    Field {
        figure: Figure::Runs,
        key: "switches",
        place: Place::Column { head: "RUNS", lead: 2, width: 8 },
        long: true,
        unit: Unit::Count,
        reports: Reports::All,
        idle: true,
        c_field: Some(CField::Switches),
    },
    Field {
        figure: Figure::Longest,
        key: "longest_slice_us",
        place: Place::Column { head: "LONGEST", lead: 2, width: 11 },
        long: true,
        unit: Unit::Micros,
        reports: Reports::All,
        idle: true,
        c_field: Some(CField::LongestSliceUs),
    },
    Field {
        figure: Figure::LongestWindow,
        key: "longest_slice_window",
        place: Place::After(" in #"),
        long: true,
        unit: Unit::Window,
        reports: Reports::SinceStart,
        idle: true,
        c_field: None,
    },
    Field {
        figure: Figure::Peak,
        key: "peak_pct",
        place: Place::After("  peak "),
        long: true,
        unit: Unit::Hundredths,
        reports: Reports::SinceStart,
        idle: true,
        c_field: None,
    },
    Field {
        figure: Figure::PeakWindow,
        key: "peak_window",
        place: Place::After(" in #"),
        long: true,
        unit: Unit::Window,
        reports: Reports::SinceStart,
        idle: true,
        c_field: None,
    },
];

/// The field table, once in flash.
pub static FIELDS: [Field; FIELD_TABLE.len()] = FIELD_TABLE;

/// How many fields fill a C struct field.
const C_COUNT: usize = {
    let mut n = 0;
    let mut i = 0;
    while i < FIELD_TABLE.len() {
        if FIELD_TABLE[i].c_field.is_some() {
            n += 1;
        }
        i += 1;
    }
    n
};

/// The C fields, with the figure and unit of each, in the table's order: picked from
/// [`FIELD_TABLE`] when compiled, so that `cpu_usage_snapshot` (in every build, the
/// minimal one included) walks a few bytes, not the table's texts. (Indexed in a
/// constant's evaluation: an index out of range fails the build, not the firmware.)
pub const C_FIELDS: [(CField, Figure, Unit); C_COUNT] = {
    let mut out = [(CField::Counts, Figure::Counts, Unit::Counts); C_COUNT];
    let (mut n, mut i) = (0, 0);
    while i < FIELD_TABLE.len() {
        if let Some(c) = FIELD_TABLE[i].c_field {
            out[n] = (c, FIELD_TABLE[i].figure, FIELD_TABLE[i].unit);
            n += 1;
        }
        i += 1;
    }
    out
};

/// A figure's value on one line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Value {
    /// Not on this line: the JSON has no key, the table nothing.
    Absent,
    /// Not known yet: `null`, and nothing in the table.
    Null,
    /// A number in the figure's unit (for [`Unit::Micros`], clock counts).
    Int(u64),
    /// Hundredths of a percent, and whether it is a share of anything at all (the
    /// table writes `0` for nothing, `<0.01%` for something that rounds to nothing).
    Share(u16, bool),
    /// Yes or no.
    Flag(bool),
}

/// What a line's figures are read from.
#[derive(Clone, Copy)]
pub struct Figures<'a> {
    /// The engine's line.
    pub row: &'a Row,
    /// Its share of the span (handed out in the engine's order of lines).
    pub share: u16,
    /// The tasks that shared the bucket in the span (its line only).
    pub bucket_tasks: u32,
}

impl Figure {
    /// Its value on the line `f`.
    #[inline]
    pub fn value(self, f: &Figures<'_>) -> Value {
        let row = f.row;
        match self {
            Figure::Counts => Value::Int(row.counts),
            Figure::Share => Value::Share(f.share, row.counts != 0),
            Figure::Deleted => Value::Flag(row.deleted),
            Figure::BucketTasks if row.kind == RowKind::Overflow => Value::Int(u64::from(f.bucket_tasks)),
            Figure::BucketTasks => Value::Absent,
            Figure::Runs => Value::Int(row.runs),
            Figure::Longest => Value::Int(u64::from(row.longest)),
            Figure::LongestWindow if row.longest == 0 => Value::Null,
            Figure::LongestWindow => Value::Int(u64::from(row.longest_window)),
            Figure::Peak | Figure::PeakWindow if row.peak_len == 0 => Value::Null,
            // (A share of all cores, as every share in a report.)
            Figure::Peak => Value::Share(
                pct_of(u64::from(row.peak), u64::from(row.peak_len) << ApiEngine::CORES.trailing_zeros()),
                row.peak != 0,
            ),
            Figure::PeakWindow => Value::Int(u64::from(row.peak_window)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_and_figures_are_each_once() {
        for (i, a) in FIELDS.iter().enumerate() {
            for b in FIELDS.iter().skip(i + 1) {
                assert_ne!(a.key, b.key);
                assert_ne!(a.figure, b.figure);
                assert!(a.c_field.is_none() || a.c_field != b.c_field, "{:?}", a.c_field);
            }
        }
        let c: Vec<_> = FIELDS.iter().filter_map(|f| Some((f.c_field?, f.figure, f.unit))).collect();
        assert_eq!(c, C_FIELDS);
    }

    #[test]
    fn a_value_is_in_its_unit() {
        let row = Row { counts: 5, runs: 2, longest: 3, peak: 1, peak_len: 4, peak_window: 9, ..Row::EMPTY };
        let f = Figures { row: &row, share: 120, bucket_tasks: 7 };
        for field in FIELDS.iter() {
            let ok = matches!(
                (field.figure.value(&f), field.unit),
                (Value::Share(..), Unit::Hundredths)
                    | (Value::Flag(_), Unit::Flag)
                    | (Value::Int(_), Unit::Counts | Unit::Micros | Unit::Count | Unit::Window)
                    | (Value::Absent | Value::Null, _)
            );
            assert!(ok, "{field:?}");
        }
        assert_eq!(Figure::Peak.value(&f), Value::Share(2_500, true));
        assert_eq!(Figure::BucketTasks.value(&f), Value::Absent);
        assert_eq!(Figure::LongestWindow.value(&Figures { row: &Row::EMPTY, ..f }), Value::Null);
    }
}
