//! Engine tests on a simulated clock: every expectation is exact, in clock counts.

use super::*;

const LEN: u32 = 1000;

fn started(at: u32) -> Engine {
    let mut e = Engine::new(LEN);
    e.restart(at);
    e
}

fn window(e: &Engine) -> (Summary, Vec<Row>) {
    let mut rows = [Row::EMPTY; MAX_TASKS + 4];
    let s = e.read_window(&mut rows).expect("a completed window");
    assert_eq!(s.rows_missing, 0);
    let rows = rows[..s.rows].to_vec();
    // The invariant every published window must satisfy, checked on every read.
    let sum: u64 = rows.iter().map(|r| r.counts).sum::<u64>() + s.other;
    assert_eq!(sum, s.length, "window {} does not add up", s.window);
    (s, rows)
}

fn cumulative(e: &Engine) -> (Summary, Vec<Row>) {
    let mut rows = [Row::EMPTY; MAX_TASKS + 4];
    let s = e.read_cumulative(&mut rows);
    let rows = rows[..s.rows].to_vec();
    let sum: u64 = rows.iter().map(|r| r.counts).sum::<u64>() + s.other + s.deleted;
    assert_eq!(sum, s.length, "since-start figures do not add up");
    (s, rows)
}

fn row(rows: &[Row], id: u32) -> Option<Row> {
    rows.iter().copied().find(|r| u32::from(r.id) == id && r.kind != RowKind::Overflow)
}

fn counts(rows: &[Row], id: u32) -> u64 {
    row(rows, id).map_or(0, |r| r.counts)
}

fn name(r: &Row) -> &[u8] {
    let end = r.name.iter().position(|&b| b == 0).unwrap_or(NAME_LEN);
    &r.name[..end]
}

#[test]
fn no_window_before_the_first_rollover() {
    let mut e = started(0);
    let a = e.task_create(0, b"a");
    e.switch_in(10, a);
    e.tick(999);
    assert!(e.read_window(&mut [Row::EMPTY; 4]).is_none());
    e.tick(1000);
    assert!(e.read_window(&mut [Row::EMPTY; 4]).is_some());
}

#[test]
fn window_adds_up_exactly() {
    let mut e = started(0);
    let a = e.task_create(0, b"a");
    let b = e.task_create(0, b"b");
    assert_eq!((a, b), (1, 2));
    e.switch_in(100, a); // until now no task ran: "other"
    e.switch_in(400, b);
    e.switch_in(900, a);
    e.tick(1000);
    let (s, rows) = window(&e);
    assert_eq!(s.window, 0);
    assert_eq!(s.length, 1000);
    assert_eq!(counts(&rows, a), 400);
    assert_eq!(counts(&rows, b), 500);
    assert_eq!(s.other, 100);
    assert_eq!(name(&row(&rows, a).unwrap()), b"a");
}

#[test]
fn tick_alone_rolls_windows_over() {
    let mut e = started(0);
    let a = e.task_create(0, b"a");
    e.switch_in(0, a);
    for t in (250..=1000).step_by(250) {
        e.tick(t);
    }
    let (s, rows) = window(&e);
    assert_eq!((s.window, counts(&rows, a), s.other), (0, 1000, 0));
    e.tick(2000);
    let (s, rows) = window(&e);
    assert_eq!((s.window, counts(&rows, a)), (1, 1000));
}

#[test]
fn a_reading_past_the_end_is_split_at_the_boundary() {
    let mut e = started(0);
    let a = e.task_create(0, b"a");
    let b = e.task_create(0, b"b");
    e.switch_in(0, a);
    e.tick(900);
    e.switch_in(1300, b); // 100 of a's counts belong to window 0, 300 to window 1
    let (s, rows) = window(&e);
    assert_eq!((s.length, counts(&rows, a)), (1000, 1000));
    e.tick(2000);
    let (s, rows) = window(&e);
    assert_eq!((s.length, counts(&rows, a), counts(&rows, b), s.other), (1000, 300, 700, 0));
}

#[test]
fn counter_wrap_across_windows_loses_nothing() {
    let start = u32::MAX - 300;
    let mut e = started(start);
    let a = e.task_create(start, b"a");
    e.switch_in(start, a);
    let mut t = start;
    for _ in 0..8 {
        t = t.wrapping_add(250); // crosses 2^32 on the second step
        e.tick(t);
    }
    let (s, rows) = window(&e);
    assert_eq!((s.window, s.length, counts(&rows, a)), (1, 1000, 1000));
    let (c, rows) = cumulative(&e);
    assert_eq!((c.length, counts(&rows, a)), (2000, 2000));
}

#[test]
fn a_stall_longer_than_a_window_is_absorbed_not_invented() {
    let mut e = started(0);
    let a = e.task_create(0, b"a");
    e.switch_in(0, a);
    e.tick(900);
    e.tick(3500); // no hook for 2.6 windows
    let (s, rows) = window(&e);
    assert_eq!((s.window, s.length, counts(&rows, a)), (0, 3500, 3500));
    e.tick(4500);
    let (s, rows) = window(&e);
    assert_eq!((s.window, s.length, counts(&rows, a)), (1, 1000, 1000));
}

#[test]
fn deleted_task_keeps_its_time_marked_deleted() {
    let mut e = started(0);
    let a = e.task_create(0, b"a");
    let b = e.task_create(0, b"b");
    e.switch_in(0, a);
    e.switch_in(500, b);
    e.task_delete(600, a).unwrap(); // b deletes a
    e.tick(1000);
    let (_, rows) = window(&e);
    let ra = row(&rows, a).unwrap();
    assert!(ra.deleted);
    assert_eq!(ra.counts, 500);
    assert_eq!(counts(&rows, b), 500);
    // In the next window a is gone; its time moved to "deleted" since start.
    e.tick(2000);
    let (_, rows) = window(&e);
    assert!(row(&rows, a).is_none());
    let (c, rows) = cumulative(&e);
    assert_eq!((c.deleted, counts(&rows, b)), (500, 1500));
}

#[test]
fn self_deleting_task_is_charged_until_its_last_switch() {
    let mut e = started(0);
    let a = e.task_create(0, b"a");
    let b = e.task_create(0, b"b");
    e.switch_in(0, a);
    e.task_delete(300, a).unwrap(); // DELETE before the task's last switch
    let (st, _) = cumulative(&e);
    assert_eq!((st.slots.used, st.slots.quarantined), (2, 0));
    e.tick(340);
    e.switch_in(350, b);
    e.tick(1000);
    let (s, rows) = window(&e);
    let ra = row(&rows, a).unwrap();
    assert!(ra.deleted);
    assert_eq!((ra.counts, counts(&rows, b), s.other), (350, 650, 0));
    assert_eq!((s.slots.used, s.slots.quarantined), (1, 1));
}

#[test]
fn self_delete_across_a_rollover_keeps_the_id_until_its_last_window_is_gone() {
    let mut e = started(0);
    let ids: Vec<u32> = (0..MAX_TASKS).map(|_| e.task_create(0, b"t")).collect();
    let a = ids[0];
    e.switch_in(900, a);
    e.task_delete(950, a).unwrap();
    e.tick(1000); // rollover while a is still running
    e.switch_in(1100, ids[1]); // a's last switch is in window 1
    e.tick(2000);
    let (_, rows) = window(&e);
    assert_eq!(counts(&rows, a), 100);
    assert!(row(&rows, a).unwrap().deleted);
    // Window 1 is published now: a's ID must not be reused yet.
    assert_eq!(e.task_create(2000, b"new"), OVERFLOW_ID);
    e.tick(3000);
    assert_eq!(e.task_create(3000, b"new"), a);
}

#[test]
fn quarantine_never_shows_two_tasks_under_one_id() {
    let mut e = started(0);
    let ids: Vec<u32> = (0..MAX_TASKS).map(|_| e.task_create(0, b"old")).collect();
    let victim = ids[4];
    e.switch_in(0, victim);
    e.switch_in(200, ids[0]);
    e.task_delete(300, victim).unwrap();
    // Dead in window 0: not reusable while window 0 is current or published.
    assert_eq!(e.task_create(400, b"x"), OVERFLOW_ID);
    e.tick(1000);
    assert_eq!(e.task_create(1100, b"y"), OVERFLOW_ID);
    let (_, rows) = window(&e);
    assert_eq!(name(&row(&rows, victim).unwrap()), b"old");
    e.tick(2000);
    // Window 0 has been published and replaced: the ID is free again.
    let (_, rows) = window(&e);
    assert!(row(&rows, victim).is_none());
    let fresh = e.task_create(2100, b"fresh");
    assert_eq!(fresh, victim);
    e.switch_in(2200, fresh);
    e.switch_in(2500, ids[0]);
    // The published window (1) shows neither the old task nor the new one.
    let (_, rows) = window(&e);
    assert!(row(&rows, victim).is_none());
    e.tick(3000);
    let (_, rows) = window(&e);
    let r = row(&rows, fresh).unwrap();
    assert_eq!((name(&r), r.counts, r.deleted), (&b"fresh"[..], 300, false));
    // The old task's 200 counts went to "deleted" when its slot was taken.
    let (c, _) = cumulative(&e);
    assert_eq!(c.deleted, 200);
}

#[test]
fn tasks_beyond_capacity_share_the_overflow_bucket() {
    let mut e = started(0);
    let ids: Vec<u32> = (0..MAX_TASKS).map(|_| e.task_create(0, b"t")).collect();
    assert!(!ids.contains(&OVERFLOW_ID));
    let x = e.task_create(0, b"x");
    let y = e.task_create(0, b"y");
    assert_eq!((x, y), (OVERFLOW_ID, OVERFLOW_ID));
    e.switch_in(100, x);
    e.switch_in(300, y);
    e.switch_in(350, ids[0]);
    e.tick(1000);
    let (s, rows) = window(&e);
    let over = rows.iter().find(|r| r.kind == RowKind::Overflow).unwrap();
    assert_eq!(over.counts, 250);
    assert_eq!(s.slots.overflow_tasks, 2);
    e.task_delete(1000, x).unwrap();
    let (c, _) = cumulative(&e);
    assert_eq!(c.slots.overflow_tasks, 1);
}

#[test]
fn unknown_ids_are_refused_or_charged_to_the_shared_bucket() {
    let mut e = started(0);
    let a = e.task_create(0, b"a");
    assert_eq!(e.task_delete(0, 77), Err(HookError::UnknownId));
    assert_eq!(e.task_delete(0, u32::MAX), Err(HookError::UnknownId));
    e.switch_in(0, 999); // not a live task's ID
    e.switch_in(100, a);
    e.tick(1000);
    let (_, rows) = window(&e);
    assert_eq!(rows.iter().find(|r| r.kind == RowKind::Overflow).unwrap().counts, 100);
    assert_eq!(counts(&rows, a), 900);
}

#[test]
fn window_change_applies_to_the_window_under_way() {
    let mut e = started(0);
    let a = e.task_create(0, b"a");
    e.switch_in(0, a);
    e.tick(300);
    e.set_window(500);
    e.tick(600);
    let (s, rows) = window(&e);
    assert_eq!((s.length, counts(&rows, a)), (500, 500));
    e.tick(1000);
    let (s, _) = window(&e);
    assert_eq!((s.window, s.length), (1, 500));
    // Shrinking below what has already elapsed closes the window at the next hook.
    e.set_window(2000);
    e.tick(1800);
    e.set_window(200);
    e.tick(1850);
    let (s, rows) = window(&e);
    assert_eq!((s.window, s.length, counts(&rows, a)), (2, 850, 850));
    // Shrinking to just below what has elapsed: the window ends at the last reading.
    e.set_window(1000);
    e.tick(2650); // 800 into window 3
    e.set_window(500);
    e.tick(2700);
    let (s, rows) = window(&e);
    assert_eq!((s.window, s.length, counts(&rows, a)), (3, 800, 800));
    e.tick(3150);
    let (s, rows) = window(&e);
    assert_eq!((s.window, s.length, counts(&rows, a)), (4, 500, 500));
}

#[test]
fn tasks_born_in_the_current_window_are_not_in_the_published_one() {
    let mut e = started(0);
    let a = e.task_create(0, b"a");
    e.tick(1000);
    let b = e.task_create(1100, b"b");
    let c = e.task_create(1100, b"c");
    e.task_delete(1200, c).unwrap(); // born and dead within window 1
    let (_, rows) = window(&e);
    assert!(row(&rows, a).is_some());
    assert!(row(&rows, b).is_none());
    assert!(row(&rows, c).is_none());
    e.tick(2000);
    let (_, rows) = window(&e);
    assert!(row(&rows, b).is_some());
    assert!(row(&rows, c).unwrap().deleted);
}

#[test]
fn cumulative_equals_the_sum_of_the_windows() {
    let mut e = started(5);
    let ids: Vec<u32> = (0..5).map(|i| e.task_create(5, &[b'a' + i])).collect();
    let mut per_id = [0u64; MAX_TASKS + 2];
    let mut other = 0u64;
    let mut t = 5u32;
    let mut next_boundary = 1005u32;
    // A fixed pseudo-random schedule of slices, ticks every 97 counts.
    let mut x = 12345u32;
    for _ in 0..4000 {
        x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        let id = ids[(x >> 16) as usize % ids.len()];
        let run = 1 + (x >> 8) % 150;
        let gap = (x >> 4) % 7;
        t += gap;
        e.switch_in(t, id);
        t += run;
        e.tick(t);
        if t >= next_boundary {
            let (s, rows) = window(&e);
            for r in &rows {
                per_id[r.id as usize] += r.counts;
            }
            other += s.other;
            next_boundary += LEN;
        }
    }
    // Close the window under way exactly at its boundary so nothing is pending.
    let end = next_boundary;
    e.tick(end);
    let (s, rows) = window(&e);
    for r in &rows {
        per_id[r.id as usize] += r.counts;
    }
    other += s.other;
    let (c, rows) = cumulative(&e);
    assert_eq!(c.length, u64::from(end - 5));
    for id in &ids {
        assert_eq!(counts(&rows, *id), per_id[*id as usize], "task {id}");
    }
    assert_eq!(c.other, other);
}

#[test]
fn names_are_cut_at_nul_or_capacity() {
    let mut e = started(0);
    let long = [b'x'; NAME_LEN + 10];
    let a = e.task_create(0, &long);
    let b = e.task_create(0, b"ab\0cd");
    let c = e.task_create(0, b"");
    e.tick(1000);
    let (_, rows) = window(&e);
    assert_eq!(name(&row(&rows, a).unwrap()), &long[..NAME_LEN]);
    assert_eq!(name(&row(&rows, b).unwrap()), b"ab");
    assert_eq!(name(&row(&rows, c).unwrap()), b"");
}

#[test]
fn idle_is_marked() {
    let mut e = started(0);
    let t = e.task_create(0, b"t");
    let idle = e.task_create(0, b"IDLE");
    e.scheduler_start(idle);
    e.switch_in(0, idle);
    e.tick(1000);
    let (_, rows) = window(&e);
    assert_eq!(row(&rows, idle).unwrap().kind, RowKind::Idle);
    assert_eq!(row(&rows, t).unwrap().kind, RowKind::Task);
}

#[test]
fn restart_drops_figures_and_keeps_tasks() {
    let mut e = started(0);
    let a = e.task_create(0, b"a");
    e.switch_in(0, a);
    e.tick(1000);
    e.tick(1500);
    e.restart(7);
    assert!(e.read_window(&mut [Row::EMPTY; 4]).is_none());
    let (c, rows) = cumulative(&e);
    assert_eq!((c.length, counts(&rows, a)), (0, 0));
    e.tick(1007);
    let (s, rows) = window(&e);
    assert_eq!((s.length, counts(&rows, a)), (1000, 1000));
}

#[test]
fn window_numbers_wrap_and_old_slots_never_look_recent() {
    let mut e = started(0);
    e.gen = u32::MAX - 1; // two windows before the window number wraps
    let a = e.task_create(0, b"a");
    let b = e.task_create(0, b"b");
    e.switch_in(0, a);
    // b last ran an (artificially) huge number of windows ago.
    e.acct[b as usize] = Acct { gen: e.gen.wrapping_sub(0x8000_0000), cur: 77, prev: 88, ..Acct::ZERO };
    let mut t = 0;
    for _ in 0..(3 * SLOTS as u32) {
        t += LEN;
        e.tick(t);
        let (s, rows) = window(&e);
        assert_eq!(counts(&rows, b), 0, "window {}", s.window);
    }
    // Every slot has been visited: stored numbers trail gen by at most one round.
    for acct in &e.acct {
        assert!(e.gen.wrapping_sub(acct.gen) <= SLOTS as u32 + 2);
    }
    let (s, _) = window(&e);
    assert!(s.window < 3 * SLOTS as u32); // it wrapped
}

#[test]
fn every_id_is_used_freed_and_counted() {
    let mut e = started(0);
    let ids: Vec<u32> = (0..MAX_TASKS).map(|_| e.task_create(0, b"t")).collect();
    let mut sorted = ids.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(sorted.len(), MAX_TASKS);
    assert!(sorted.iter().all(|&id| (1..=MAX_TASKS as u32).contains(&id)));
    for &id in &ids {
        e.task_delete(10, id).unwrap();
    }
    let (c, _) = cumulative(&e);
    assert_eq!(c.slots, SlotStats { capacity: MAX_TASKS as u32, used: 0, quarantined: MAX_TASKS as u32, free: 0, overflow_tasks: 0 });
    e.tick(1000);
    e.tick(2000);
    let (c, _) = cumulative(&e);
    assert_eq!((c.slots.quarantined, c.slots.free), (0, MAX_TASKS as u32));
    // All IDs come back, one create at a time.
    let again: Vec<u32> = (0..MAX_TASKS).map(|_| e.task_create(2000, b"u")).collect();
    assert!(again.iter().all(|&id| id != OVERFLOW_ID));
    assert_eq!(e.task_create(2000, b"v"), OVERFLOW_ID);
}
