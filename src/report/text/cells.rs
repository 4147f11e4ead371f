//! A report line, table or JSON, from the field table ([`FIELDS`]): one walk, two
//! syntaxes. A task's line, the shared bucket's and the idle task's are all written
//! here; so are the table's header and rule.

use super::*;
use crate::fields::{Field, Place, Unit, Value, FIELDS, FIELD_TABLE};

/// Which fields a line writes, as bits of their positions in [`FIELDS`]: for the
/// JSON, its members; for the table, its cells, or (`notes`) the notes at the end of
/// a task's line. Worked out when compiled for every kind of report and line
/// ([`MASKS`]), so that a line visits only its own fields.
const fn mask(json: bool, long: bool, cumulative: bool, idle: bool, notes: bool) -> u16 {
    assert!(FIELD_TABLE.len() <= 16, "a line's fields are bits of a u16");
    let (mut bits, mut i) = (0u16, 0);
    while i < FIELD_TABLE.len() {
        let f = &FIELD_TABLE[i];
        let in_report = f.in_report(cumulative);
        let in_syntax = json || long || !f.long;
        let placed = if json {
            !notes && (!idle || f.idle)
        } else {
            match f.place {
                Place::None => false,
                Place::Note { .. } => notes && !idle,
                Place::Column { .. } | Place::After(_) => !notes,
            }
        };
        if in_report && in_syntax && placed {
            bits |= 1 << i;
        }
        i += 1;
    }
    bits
}

/// [`mask`] of every report and line, as [`fields_of`] finds it.
static MASKS: [u16; 32] = {
    let mut masks = [0; 32];
    let mut k = 0;
    while k < 32 {
        masks[k] = mask(k & 1 != 0, k & 2 != 0, k & 4 != 0, k & 8 != 0, k & 16 != 0);
        k += 1;
    }
    masks
};

/// The fields a line of this report writes (see [`mask`]): bits of their positions
/// in [`FIELDS`], taken lowest first.
fn fields_of(opts: &Options, idle: bool, notes: bool) -> u16 {
    let at = usize::from(opts.json)
        | usize::from(opts.long) << 1
        | usize::from(opts.cumulative) << 2
        | usize::from(idle) << 3
        | usize::from(notes) << 4;
    MASKS.get(at).copied().unwrap_or(0)
}

/// One line being written: where to, in which report, from which figures.
struct LineOut<'o, 's, 'f> {
    out: &'o mut Out<'s>,
    opts: &'o Options,
    hz: u32,
    figures: &'o Figures<'f>,
}

/// Which line of a report [`line`] writes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// The first of the tasks (in the JSON, without a comma before it).
    First,
    /// Another task.
    Task,
    /// The idle task: no notes in the table, and fewer members in the JSON.
    Idle,
}

/// A line: its ID and name, then its figures as the field table has them, in the
/// report's syntax: the table's cells (a task's notes after them) or the JSON's
/// members. (One frame for the whole line, with few arguments, all in registers:
/// each cell's writer is called from here, as a hand-written line would call it.)
#[inline(never)]
pub(super) fn line(out: &mut Out<'_>, opts: &Options, hz: u32, figures: &Figures<'_>, kind: Kind) {
    let (row, idle) = (figures.row, kind == Kind::Idle);
    if opts.json {
        out.put(match kind {
            Kind::First => b"{\"id\":",
            Kind::Task => b",{\"id\":",
            Kind::Idle => b",\"idle\":{\"id\":",
        });
        out.int(u64::from(row.id));
        out.key(b"name");
        out.json_str(name_of(row));
    } else {
        out.num_in(b"", u64::from(row.id), 4, b' ', b"  ");
        out.name_cell(name_of(row));
    }
    let mut line = LineOut { out, opts, hz, figures };
    // Two passes, over the fields of this line only: the cells then (a task's line
    // in the table) the notes, as one loop: one copy of the field's writer.
    let mut notes = false;
    loop {
        let mut fields = fields_of(opts, idle, notes);
        while fields != 0 {
            if let Some(field) = FIELDS.get(fields.trailing_zeros() as usize) {
                field_out(&mut line, field, notes);
            }
            fields &= fields - 1;
        }
        if notes || opts.json || idle {
            break;
        }
        notes = true;
    }
    line.out.put(match (opts.json, idle) {
        (true, _) => b"}",
        (false, true) => b"  idle\n",
        (false, false) => b"\n",
    });
}

/// One field of `line` (one of its [`MASKS`]): in the table, its cell (`notes`:
/// the end-of-line notes' pass); in the JSON, its member.
#[inline(always)]
fn field_out(line: &mut LineOut<'_, '_, '_>, field: &Field, notes: bool) {
    let opts = line.opts;
    let value = field.figure.value(line.figures);
    let (out, hz) = (&mut *line.out, line.hz);
    if opts.json {
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
        return;
    }
    let (lead, width): (&[u8], usize) = match (&field.place, notes) {
        (Place::Column { lead, width, .. }, false) => {
            (SPACES.get(..usize::from(*lead)).unwrap_or(SPACES), usize::from(*width))
        }
        (Place::After(text), false) if !matches!(value, Value::Absent | Value::Null) => {
            out.put(text.as_bytes());
            (b"", 0)
        }
        (Place::Note { window, since_start }, true) if matches!(value, Value::Flag(true) | Value::Int(_)) => {
            out.put(if opts.cumulative { since_start.as_bytes() } else { window.as_bytes() });
            (b"", 0)
        }
        _ => return,
    };
    // `lead`, then the value right-aligned in `width`: a share as `Out::share` writes
    // it, a duration (`0` for none, `0.000 ms` for a run too short for a
    // microsecond), a number.
    match value {
        Value::Share(h, something) => out.share(lead, h, something, width),
        Value::Int(v) if field.unit == Unit::Micros && v != 0 => out.duration(lead, counts_to_us(v, hz), width),
        Value::Int(v) => {
            out.num_in(lead, v, width, b' ', b"");
        }
        Value::Flag(_) | Value::Null | Value::Absent => {}
    }
}

/// Leads of the table's columns.
const SPACES: &[u8; 8] = b"        ";

/// The table's header after `  ID  TASK...`, the columns of this report, right
/// aligned; returns their width, leads included (the rule under the tasks is as
/// wide).
pub(super) fn table_head(out: &mut Out<'_>, opts: &Options, write: bool) -> usize {
    let mut columns = 0;
    // (The columns of a task's line in the table.)
    let mut fields = fields_of(opts, false, false);
    while fields != 0 {
        let field = FIELDS.get(fields.trailing_zeros() as usize);
        fields &= fields - 1;
        if let Some(&Field { place: Place::Column { head, lead, width }, .. }) = field {
            let wide = usize::from(lead) + usize::from(width);
            if write {
                out.fill(b' ', wide.saturating_sub(head.len()));
                out.put(head.as_bytes());
            }
            columns += wide;
        }
    }
    if write {
        out.byte(b'\n');
    }
    columns
}
