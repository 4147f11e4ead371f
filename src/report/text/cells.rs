//! A line's figures, table or JSON, from the field table ([`FIELDS`]): one walk, two
//! syntaxes. A task's line, the shared bucket's and the idle task's all go through
//! here after their ID and name; so does the table's header.

use super::*;
use crate::fields::{Field, Figures, Place, Unit, Value, FIELDS};

/// The syntax a line is written in.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Syntax {
    Table,
    Json,
}

/// The field is in this report, in this syntax.
fn shown(f: &Field, opts: &Options, syntax: Syntax) -> bool {
    f.in_report(opts.cumulative) && (syntax == Syntax::Json || opts.long || !f.long)
}

/// A line's figures after its ID and name, in `syntax`: the table's cells (a task's
/// notes after them) or the JSON's members. `idle`: the idle task's line, which has
/// no notes in the table and fewer members in the JSON. (Not inlined: one copy for
/// every line of both syntaxes.)
#[inline(never)]
pub(super) fn cells(out: &mut Out<'_>, opts: &Options, hz: u32, f: &Figures<'_>, idle: bool, syntax: Syntax) {
    for field in FIELDS.iter() {
        if !shown(field, opts, syntax) || (idle && syntax == Syntax::Json && !field.idle) {
            continue;
        }
        let value = field.figure.value(f);
        match syntax {
            Syntax::Json => json(out, field, value, hz),
            Syntax::Table => match field.place {
                Place::Column { lead, width, .. } => {
                    cell(out, lead.as_bytes(), field.unit, value, hz, usize::from(width))
                }
                Place::After(text) if !matches!(value, Value::Absent | Value::Null) => {
                    out.put(text.as_bytes());
                    cell(out, b"", field.unit, value, hz, 0);
                }
                _ => {}
            },
        }
    }
    if syntax == Syntax::Json || idle {
        return;
    }
    for field in FIELDS.iter() {
        let Place::Note { window, since_start } = field.place else { continue };
        if !shown(field, opts, syntax) {
            continue;
        }
        let text = if opts.cumulative { since_start } else { window };
        match field.figure.value(f) {
            Value::Flag(true) => out.put(text.as_bytes()),
            value @ (Value::Int(_) | Value::Share(..)) => {
                out.put(text.as_bytes());
                cell(out, b"", field.unit, value, hz, 0);
            }
            _ => {}
        }
    }
}

/// `,"key":` and the value (nothing at all if absent).
fn json(out: &mut Out<'_>, field: &Field, value: Value, hz: u32) {
    if value == Value::Absent {
        return;
    }
    out.key(field.key.as_bytes());
    match value {
        Value::Absent => {}
        Value::Null => out.put(b"null"),
        Value::Int(v) if field.unit == Unit::Micros => out.int(counts_to_us(v, hz)),
        Value::Int(v) => out.int(v),
        Value::Share(h, _) => out.pct(u64::from(h), 0),
        Value::Flag(b) => out.put(if b { b"true" } else { b"false" }),
    }
}

/// `lead`, then a value for the table right-aligned in `width`: a share as
/// [`Out::share`] writes it, a duration (`0` for none, `0.000 ms` for a run too
/// short for a microsecond), a number.
fn cell(out: &mut Out<'_>, lead: &[u8], unit: Unit, value: Value, hz: u32, width: usize) {
    match value {
        Value::Share(h, something) => out.share(lead, h, something, width),
        Value::Int(v) if unit == Unit::Micros && v != 0 => out.duration(lead, counts_to_us(v, hz), width),
        Value::Int(v) => {
            out.num_in(lead, v, width, b' ', b"");
        }
        Value::Flag(_) | Value::Null | Value::Absent => {}
    }
}

/// The table's header after `  ID  TASK...`: the columns of this report.
pub(super) fn table_head(out: &mut Out<'_>, opts: &Options) {
    for field in FIELDS.iter() {
        if let Place::Column { head, lead, width } = field.place {
            if shown(field, opts, Syntax::Table) {
                let mut c = Cell::new();
                c.put(head.as_bytes());
                out.cell(lead.as_bytes(), &mut c, usize::from(width), b' ');
            }
        }
    }
    out.byte(b'\n');
}

/// The table's columns' width after the name, their leads included.
pub(super) fn table_width(opts: &Options) -> usize {
    FIELDS
        .iter()
        .filter(|f| shown(f, opts, Syntax::Table))
        .map(|f| match f.place {
            Place::Column { lead, width, .. } => lead.len() + usize::from(width),
            _ => 0,
        })
        .sum()
}
