// Helpers of the engine's tests on a simulated clock: an engine started at a given
// count, and its published window and since-start figures read whole, each checked
// against the invariant every report must satisfy.

use super::*;

/// Window length of the tests, in counts.
pub(super) const LEN: u32 = 1000;

/// An engine accounting from `at`, with the scheduler started (no idle task yet):
/// every ID is for any task.
pub(super) fn started(at: u32) -> Engine {
    let mut e = Engine::new(LEN);
    e.restart(at);
    e.scheduler_start(0);
    e
}

pub(super) fn window(e: &Engine) -> (Summary, Vec<Row>) {
    let mut rows = [Row::EMPTY; IDS + 4];
    let s = e.read_window(&mut rows).expect("a completed window");
    assert_eq!(s.rows_missing, 0);
    let rows = rows[..s.rows].to_vec();
    // The invariant every published window must satisfy, checked on every read.
    let sum: u64 = rows.iter().map(|r| r.counts).sum::<u64>() + s.other;
    assert_eq!(sum, s.length, "window {} does not add up", s.window);
    (s, rows)
}

pub(super) fn cumulative(e: &Engine) -> (Summary, Vec<Row>) {
    let mut rows = [Row::EMPTY; IDS + 4];
    let s = e.read_cumulative(&mut rows);
    let rows = rows[..s.rows].to_vec();
    let sum: u64 = rows.iter().map(|r| r.counts).sum::<u64>() + s.other + s.deleted;
    assert_eq!(sum, s.length, "since-start figures do not add up");
    (s, rows)
}

pub(super) fn row(rows: &[Row], id: u32) -> Option<Row> {
    rows.iter().copied().find(|r| u32::from(r.id) == id && r.kind != RowKind::Overflow)
}

pub(super) fn counts(rows: &[Row], id: u32) -> u64 {
    row(rows, id).map_or(0, |r| r.counts)
}

pub(super) fn name(r: &Row) -> &[u8] {
    let end = r.name.iter().position(|&b| b == 0).unwrap_or(NAME_LEN);
    &r.name[..end]
}

/// The row of a kind that has no ID (interrupts, sleep, the shared bucket).
pub(super) fn kind(rows: &[Row], kind: RowKind) -> Row {
    rows.iter().copied().find(|r| r.kind == kind).expect("a row of that kind")
}
