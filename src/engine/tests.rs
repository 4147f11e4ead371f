// Engine tests on a simulated clock: every expectation is exact, in clock counts.

use super::support::*;
use super::*;

#[test]
fn no_window_before_the_first_rollover() {
    let mut e = started(0);
    let a = e.task_create(0, 0, b"a");
    e.switch_in(0, 10, a);
    e.tick(0, 999);
    assert!(e.read_window(&mut [Row::EMPTY; 4]).is_none());
    e.tick(0, 1000);
    assert!(e.read_window(&mut [Row::EMPTY; 4]).is_some());
}

#[test]
fn window_adds_up_exactly() {
    let mut e = started(0);
    let a = e.task_create(0, 0, b"a");
    let b = e.task_create(0, 0, b"b");
    assert_eq!((a, b), (1, 2));
    e.switch_in(0, 100, a); // until now no task ran: "other"
    e.switch_in(0, 400, b);
    e.switch_in(0, 900, a);
    e.tick(0, 1000);
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
    let a = e.task_create(0, 0, b"a");
    e.switch_in(0, 0, a);
    for t in (250..=1000).step_by(250) {
        e.tick(0, t);
    }
    let (s, rows) = window(&e);
    assert_eq!((s.window, counts(&rows, a), s.other), (0, 1000, 0));
    e.tick(0, 2000);
    let (s, rows) = window(&e);
    assert_eq!((s.window, counts(&rows, a)), (1, 1000));
}

#[test]
fn a_reading_past_the_end_is_split_at_the_boundary() {
    let mut e = started(0);
    let a = e.task_create(0, 0, b"a");
    let b = e.task_create(0, 0, b"b");
    e.switch_in(0, 0, a);
    e.tick(0, 900);
    e.switch_in(0, 1300, b); // 100 of a's counts belong to window 0, 300 to window 1
    let (s, rows) = window(&e);
    assert_eq!((s.length, counts(&rows, a)), (1000, 1000));
    e.tick(0, 2000);
    let (s, rows) = window(&e);
    assert_eq!((s.length, counts(&rows, a), counts(&rows, b), s.other), (1000, 300, 700, 0));
}

#[test]
#[cfg_attr(not(feature = "shell"), ignore = "reads since-start figures, which only the shell keeps")]
fn counter_wrap_across_windows_loses_nothing() {
    let start = u32::MAX - 300;
    let mut e = started(start);
    let a = e.task_create(0, start, b"a");
    e.switch_in(0, start, a);
    let mut t = start;
    for _ in 0..8 {
        t = t.wrapping_add(250); // crosses 2^32 on the second step
        e.tick(0, t);
    }
    let (s, rows) = window(&e);
    assert_eq!((s.window, s.length, counts(&rows, a)), (1, 1000, 1000));
    let (c, rows) = cumulative(&e);
    assert_eq!((c.length, counts(&rows, a)), (2000, 2000));
}

#[test]
fn a_stall_longer_than_a_window_is_absorbed_not_invented() {
    let mut e = started(0);
    let a = e.task_create(0, 0, b"a");
    e.switch_in(0, 0, a);
    e.tick(0, 900);
    e.tick(0, 3500); // no hook for 2.6 windows
    let (s, rows) = window(&e);
    assert_eq!((s.window, s.length, counts(&rows, a)), (0, 3500, 3500));
    e.tick(0, 4500);
    let (s, rows) = window(&e);
    assert_eq!((s.window, s.length, counts(&rows, a)), (1, 1000, 1000));
}

#[test]
#[cfg_attr(not(feature = "shell"), ignore = "reads since-start figures, which only the shell keeps")]
fn deleted_task_keeps_its_time_marked_deleted() {
    let mut e = started(0);
    let a = e.task_create(0, 0, b"a");
    let b = e.task_create(0, 0, b"b");
    e.switch_in(0, 0, a);
    e.switch_in(0, 500, b);
    e.task_delete(0, 600, a).unwrap(); // b deletes a
    e.tick(0, 1000);
    let (_, rows) = window(&e);
    let ra = row(&rows, a).unwrap();
    assert!(ra.deleted);
    assert_eq!(ra.counts, 500);
    assert_eq!(counts(&rows, b), 500);
    // In the next window a is gone; its time moved to "deleted" since start.
    e.tick(0, 2000);
    let (_, rows) = window(&e);
    assert!(row(&rows, a).is_none());
    let (c, rows) = cumulative(&e);
    assert_eq!((c.deleted, counts(&rows, b)), (500, 1500));
}

#[test]
fn self_deleting_task_is_charged_until_its_last_switch() {
    let mut e = started(0);
    let a = e.task_create(0, 0, b"a");
    let b = e.task_create(0, 0, b"b");
    e.switch_in(0, 0, a);
    e.task_delete(0, 300, a).unwrap(); // DELETE before the task's last switch
    let (st, _) = cumulative(&e);
    assert_eq!((st.slots.used, st.slots.quarantined), (2, 0));
    e.tick(0, 340);
    e.switch_in(0, 350, b);
    e.tick(0, 1000);
    let (s, rows) = window(&e);
    let ra = row(&rows, a).unwrap();
    assert!(ra.deleted);
    assert_eq!((ra.counts, counts(&rows, b), s.other), (350, 650, 0));
    assert_eq!((s.slots.used, s.slots.quarantined), (1, 1));
}

#[test]
fn self_delete_across_a_rollover_keeps_the_id_until_its_last_window_is_gone() {
    let mut e = started(0);
    let ids: Vec<u32> = (0..IDS).map(|_| e.task_create(0, 0, b"t")).collect();
    let a = ids[0];
    e.switch_in(0, 900, a);
    e.task_delete(0, 950, a).unwrap();
    e.tick(0, 1000); // rollover while a is still running
    e.switch_in(0, 1100, ids[1]); // a's last switch is in window 1
    e.tick(0, 2000);
    let (_, rows) = window(&e);
    assert_eq!(counts(&rows, a), 100);
    assert!(row(&rows, a).unwrap().deleted);
    // Window 1 is published now: a's ID must not be reused yet.
    assert_eq!(e.task_create(0, 2000, b"new"), OVERFLOW_ID);
    e.tick(0, 3000);
    assert_eq!(e.task_create(0, 3000, b"new"), a);
}

#[test]
#[cfg_attr(not(feature = "shell"), ignore = "reads since-start figures, which only the shell keeps")]
fn quarantine_never_shows_two_tasks_under_one_id() {
    let mut e = started(0);
    let ids: Vec<u32> = (0..IDS).map(|_| e.task_create(0, 0, b"old")).collect();
    let victim = ids[4];
    e.switch_in(0, 0, victim);
    e.switch_in(0, 200, ids[0]);
    e.task_delete(0, 300, victim).unwrap();
    // Dead in window 0: not reusable while window 0 is current or published.
    assert_eq!(e.task_create(0, 400, b"x"), OVERFLOW_ID);
    e.tick(0, 1000);
    assert_eq!(e.task_create(0, 1100, b"y"), OVERFLOW_ID);
    let (_, rows) = window(&e);
    assert_eq!(name(&row(&rows, victim).unwrap()), b"old");
    e.tick(0, 2000);
    // Window 0 has been published and replaced: the ID is free again.
    let (_, rows) = window(&e);
    assert!(row(&rows, victim).is_none());
    let fresh = e.task_create(0, 2100, b"fresh");
    assert_eq!(fresh, victim);
    e.switch_in(0, 2200, fresh);
    e.switch_in(0, 2500, ids[0]);
    // The published window (1) shows neither the old task nor the new one.
    let (_, rows) = window(&e);
    assert!(row(&rows, victim).is_none());
    e.tick(0, 3000);
    let (_, rows) = window(&e);
    let r = row(&rows, fresh).unwrap();
    assert_eq!((name(&r), r.counts, r.deleted), (&b"fresh"[..], 300, false));
    // The old task's 200 counts went to "deleted" when its slot was taken.
    let (c, _) = cumulative(&e);
    assert_eq!(c.deleted, 200);
}

#[test]
fn unknown_ids_are_refused_or_charged_to_the_shared_bucket() {
    let mut e = started(0);
    let a = e.task_create(0, 0, b"a");
    assert_eq!(e.task_delete(0, 0, 77), Err(HookError::UnknownId));
    assert_eq!(e.task_delete(0, 0, u32::MAX), Err(HookError::UnknownId));
    e.switch_in(0, 0, 999); // not a live task's ID
    e.switch_in(0, 100, a);
    e.tick(0, 1000);
    let (_, rows) = window(&e);
    assert_eq!(rows.iter().find(|r| r.kind == RowKind::Overflow).unwrap().counts, 100);
    assert_eq!(counts(&rows, a), 900);
}

#[test]
fn window_change_applies_to_the_window_under_way() {
    let mut e = started(0);
    let a = e.task_create(0, 0, b"a");
    e.switch_in(0, 0, a);
    e.tick(0, 300);
    e.set_window(500);
    e.tick(0, 600);
    let (s, rows) = window(&e);
    assert_eq!((s.length, counts(&rows, a)), (500, 500));
    e.tick(0, 1000);
    let (s, _) = window(&e);
    assert_eq!((s.window, s.length), (1, 500));
    // Shrinking below what has already elapsed closes the window at the next hook.
    e.set_window(2000);
    e.tick(0, 1800);
    e.set_window(200);
    e.tick(0, 1850);
    let (s, rows) = window(&e);
    assert_eq!((s.window, s.length, counts(&rows, a)), (2, 850, 850));
    // Shrinking to just below what has elapsed: the window ends at the last reading.
    e.set_window(1000);
    e.tick(0, 2650); // 800 into window 3
    e.set_window(500);
    e.tick(0, 2700);
    let (s, rows) = window(&e);
    assert_eq!((s.window, s.length, counts(&rows, a)), (3, 800, 800));
    e.tick(0, 3150);
    let (s, rows) = window(&e);
    assert_eq!((s.window, s.length, counts(&rows, a)), (4, 500, 500));
}

#[test]
fn tasks_born_in_the_current_window_are_not_in_the_published_one() {
    let mut e = started(0);
    let a = e.task_create(0, 0, b"a");
    e.tick(0, 1000);
    let b = e.task_create(0, 1100, b"b");
    let c = e.task_create(0, 1100, b"c");
    e.task_delete(0, 1200, c).unwrap(); // born and dead within window 1
    let (_, rows) = window(&e);
    assert!(row(&rows, a).is_some());
    assert!(row(&rows, b).is_none());
    assert!(row(&rows, c).is_none());
    e.tick(0, 2000);
    let (_, rows) = window(&e);
    assert!(row(&rows, b).is_some());
    assert!(row(&rows, c).unwrap().deleted);
}

#[test]
#[cfg_attr(not(feature = "shell"), ignore = "reads since-start figures, which only the shell keeps")]
fn cumulative_equals_the_sum_of_the_windows() {
    let mut e = started(5);
    let ids: Vec<u32> = (0..5).map(|i| e.task_create(0, 5, &[b'a' + i])).collect();
    let mut per_id = [0u64; IDS + 2];
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
        e.switch_in(0, t, id);
        t += run;
        e.tick(0, t);
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
    e.tick(0, end);
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
    let a = e.task_create(0, 0, &long);
    let b = e.task_create(0, 0, b"ab\0cd");
    let c = e.task_create(0, 0, b"");
    e.tick(0, 1000);
    let (_, rows) = window(&e);
    assert_eq!(name(&row(&rows, a).unwrap()), &long[..NAME_LEN]);
    assert_eq!(name(&row(&rows, b).unwrap()), b"ab");
    assert_eq!(name(&row(&rows, c).unwrap()), b"");
}

#[test]
fn idle_is_marked() {
    let mut e = started(0);
    let t = e.task_create(0, 0, b"t");
    let idle = e.task_create(0, 0, b"IDLE");
    e.scheduler_start(idle);
    e.switch_in(0, 0, idle);
    e.tick(0, 1000);
    let (_, rows) = window(&e);
    assert_eq!(row(&rows, idle).unwrap().kind, RowKind::Idle);
    assert_eq!(row(&rows, t).unwrap().kind, RowKind::Task);
}

#[test]
fn restart_drops_figures_and_keeps_tasks() {
    let mut e = started(0);
    let a = e.task_create(0, 0, b"a");
    e.switch_in(0, 0, a);
    e.tick(0, 1000);
    e.tick(0, 1500);
    e.restart(7);
    assert!(e.read_window(&mut [Row::EMPTY; 4]).is_none());
    let (c, rows) = cumulative(&e);
    assert_eq!((c.length, counts(&rows, a)), (0, 0));
    e.tick(0, 1007);
    let (s, rows) = window(&e);
    assert_eq!((s.length, counts(&rows, a)), (1000, 1000));
}

#[test]
fn window_numbers_wrap_and_old_slots_never_look_recent() {
    let mut e = started(0);
    e.window = u32::MAX - 1; // two windows before the window number wraps
    let a = e.task_create(0, 0, b"a");
    let b = e.task_create(0, 0, b"b");
    e.switch_in(0, 0, a);
    // b last ran an (artificially) huge number of windows ago.
    e.acct[b as usize] = Acct { window: e.window.wrapping_sub(0x8000_0000), counts: 77, prev_counts: 88, ..Acct::ZERO };
    let mut t = 0;
    for _ in 0..(3 * SLOTS as u32) {
        t += LEN;
        e.tick(0, t);
        let (s, rows) = window(&e);
        assert_eq!(counts(&rows, b), 0, "window {}", s.window);
    }
    // Every slot has been visited: stored numbers trail window by at most one round.
    for acct in &e.acct {
        assert!(e.window.wrapping_sub(acct.window) <= SLOTS as u32 + 2);
    }
    let (s, _) = window(&e);
    assert!(s.window < 3 * SLOTS as u32); // it wrapped
}

// ---- Interrupts, sleep, runs, peaks, smoothed loads and watchdogs ----------------------

/// `(counts, runs, longest)` of a row.
fn runs(r: Row) -> (u64, u64, u32) {
    (r.counts, r.runs, r.longest)
}

#[cfg(feature = "watchdogs")]
fn alerts(e: &mut Engine) -> Vec<Alert> {
    std::iter::from_fn(|| e.take_alert()).collect()
}

#[test]
fn interrupts_are_charged_apart_and_not_to_the_run_they_interrupt() {
    let mut e = started(0);
    let a = e.task_create(0, 0, b"a");
    let b = e.task_create(0, 0, b"b");
    e.switch_in(0, 0, a);
    e.isr_enter(0, 200);
    e.isr_exit(0, 250);
    e.isr_enter(0, 400);
    e.tick(0, 410); // the tick inside the handler is the handler's time
    e.isr_exit(0, 430);
    e.switch_in(0, 600, b); // a ran 600 counts minus 50 and 30 of interrupts
    e.tick(0, 1000);
    let (s, rows) = window(&e);
    assert_eq!(runs(row(&rows, a).unwrap()), (520, 1, 520));
    assert_eq!(runs(row(&rows, b).unwrap()), (400, 1, 400)); // going on at the close
    assert_eq!(runs(kind(&rows, RowKind::Interrupts)), (80, 2, 50));
    assert_eq!(runs(kind(&rows, RowKind::Sleep)), (0, 0, 0));
    assert_eq!(s.other, 0);
}

#[test]
fn nested_interrupts_count_once() {
    let mut e = started(0);
    let a = e.task_create(0, 0, b"a");
    let b = e.task_create(0, 0, b"b");
    e.switch_in(0, 0, a);
    e.isr_enter(0, 100);
    e.isr_enter(0, 120); // a more urgent handler interrupts the first
    e.isr_exit(0, 130);
    e.tick(0, 140);
    e.isr_exit(0, 150); // the outermost ends
    e.switch_in(0, 300, b);
    e.tick(0, 1000);
    let (_, rows) = window(&e);
    assert_eq!(runs(kind(&rows, RowKind::Interrupts)), (50, 1, 50));
    assert_eq!(runs(row(&rows, a).unwrap()), (250, 1, 250));
    assert_eq!(runs(row(&rows, b).unwrap()), (700, 1, 700));
}

#[test]
fn an_exit_without_an_enter_is_ignored() {
    let mut e = started(0);
    let a = e.task_create(0, 0, b"a");
    e.switch_in(0, 0, a);
    e.isr_exit(0, 100); // no handler under way
    e.isr_enter(0, 200);
    e.isr_exit(0, 260);
    e.isr_exit(0, 300); // one exit too many
    e.isr_enter(0, 500);
    e.isr_exit(0, 510);
    e.tick(0, 1000);
    let (_, rows) = window(&e);
    assert_eq!(runs(kind(&rows, RowKind::Interrupts)), (70, 2, 60));
    assert_eq!(runs(row(&rows, a).unwrap()), (930, 1, 930));
}

#[test]
fn sleep_is_apart_from_idle_and_an_interrupt_inside_it_is_an_interrupt() {
    let mut e = started(0);
    let idle = e.task_create(0, 0, b"IDLE");
    let a = e.task_create(0, 0, b"a");
    e.scheduler_start(idle);
    #[cfg(feature = "watchdogs")]
    e.set_smoothing([0; 3]); // the smoothed load is the last window's
    e.switch_in(0, 0, a);
    e.switch_in(0, 100, idle);
    e.sleep_begin(0, 200);
    e.isr_enter(0, 500); // wakes the core, or arrives meanwhile
    e.isr_exit(0, 530); // the sleep goes on
    e.sleep_end(0, 800);
    e.switch_in(0, 900, a);
    e.tick(0, 1000);
    let (s, rows) = window(&e);
    // Idle: 100..200 and 800..900, in one run; sleep: 200..500 and 530..800, one sleep.
    assert_eq!(runs(row(&rows, idle).unwrap()), (200, 1, 200));
    assert_eq!(runs(kind(&rows, RowKind::Sleep)), (570, 1, 570));
    assert_eq!(runs(kind(&rows, RowKind::Interrupts)), (30, 1, 30));
    assert_eq!(runs(row(&rows, a).unwrap()), (200, 2, 100));
    // Busy is everything but idle and sleep: 1000 - 200 - 570.
    #[cfg(feature = "watchdogs")]
    assert_eq!(s.load_avg[0], Smoothed { busy: 230 << 16, len: 1000 << 16 });
    #[cfg(not(feature = "watchdogs"))]
    let _ = s;
}

#[test]
#[cfg_attr(not(feature = "shell"), ignore = "reads since-start figures, which only the shell keeps")]
fn a_run_across_a_rollover_counts_in_both_windows() {
    let mut e = started(0);
    let a = e.task_create(0, 0, b"a");
    let b = e.task_create(0, 0, b"b");
    e.switch_in(0, 0, b);
    e.switch_in(0, 800, a);
    e.tick(0, 1000); // a's run goes on: 200 so far
    let (_, rows) = window(&e);
    assert_eq!(runs(row(&rows, a).unwrap()), (200, 1, 200));
    assert_eq!(runs(row(&rows, b).unwrap()), (800, 1, 800));
    e.isr_enter(0, 1100);
    e.isr_exit(0, 1150);
    e.switch_in(0, 1300, b); // a's run ends: 500 counts less 50 of interrupt
    e.tick(0, 2000);
    let (_, rows) = window(&e);
    assert_eq!(runs(row(&rows, a).unwrap()), (250, 1, 450));
    assert_eq!(runs(row(&rows, b).unwrap()), (700, 1, 700));
    // Since start, each window's runs: a spanning run is in both.
    let (_, rows) = cumulative(&e);
    let ra = row(&rows, a).unwrap();
    assert_eq!((ra.runs, ra.longest, ra.longest_window), (2, 450, 1));
    let rb = row(&rows, b).unwrap();
    assert_eq!((rb.runs, rb.longest, rb.longest_window), (2, 800, 0));
}

#[test]
fn an_interrupt_and_a_sleep_across_a_rollover_count_in_both_windows() {
    let mut e = started(0);
    let idle = e.task_create(0, 0, b"IDLE");
    let a = e.task_create(0, 0, b"a");
    e.scheduler_start(idle);
    e.switch_in(0, 0, a);
    e.isr_enter(0, 950);
    e.tick(0, 1000); // inside the handler
    e.isr_exit(0, 1020);
    let (_, rows) = window(&e);
    assert_eq!(runs(kind(&rows, RowKind::Interrupts)), (50, 1, 50));
    assert_eq!(runs(row(&rows, a).unwrap()), (950, 1, 950)); // interrupted, not ended
    e.switch_in(0, 1500, idle);
    e.sleep_begin(0, 1600);
    e.tick(0, 2000); // asleep
    let (_, rows) = window(&e);
    assert_eq!(runs(kind(&rows, RowKind::Interrupts)), (20, 1, 70));
    assert_eq!(runs(row(&rows, a).unwrap()), (480, 1, 1430));
    assert_eq!(runs(row(&rows, idle).unwrap()), (100, 1, 100));
    assert_eq!(runs(kind(&rows, RowKind::Sleep)), (400, 1, 400));
    e.sleep_end(0, 2700);
    e.switch_in(0, 2800, a);
    e.tick(0, 3000);
    let (_, rows) = window(&e);
    assert_eq!(runs(kind(&rows, RowKind::Sleep)), (700, 1, 1100));
    assert_eq!(runs(row(&rows, idle).unwrap()), (100, 1, 200));
    assert_eq!(runs(row(&rows, a).unwrap()), (200, 1, 200));
}

#[test]
#[cfg_attr(not(feature = "shell"), ignore = "reads since-start figures, which only the shell keeps")]
fn a_hog_that_never_switches_shows_in_every_window() {
    let mut e = started(0);
    let a = e.task_create(0, 0, b"a");
    e.switch_in(0, 0, a);
    for k in 1..=4u32 {
        e.tick(0, k * 1000);
        let (s, rows) = window(&e);
        let r = row(&rows, a).unwrap();
        assert_eq!((s.window, r.counts, r.runs, r.longest, r.longest_window), (k - 1, 1000, 1, k * 1000, k - 1));
    }
    let (_, rows) = cumulative(&e);
    let r = row(&rows, a).unwrap();
    assert_eq!((r.counts, r.runs, r.longest, r.longest_window), (4000, 4, 4000, 3));
}

#[test]
fn a_switch_inside_a_handler_starts_the_run_when_the_handler_ends() {
    let mut e = started(0);
    let a = e.task_create(0, 0, b"a");
    let b = e.task_create(0, 0, b"b");
    e.switch_in(0, 0, a);
    e.isr_enter(0, 100);
    e.switch_in(0, 120, b); // a port that switches in the handler
    e.isr_exit(0, 150);
    e.switch_in(0, 400, a);
    e.tick(0, 1000);
    let (_, rows) = window(&e);
    assert_eq!(runs(row(&rows, a).unwrap()), (700, 2, 600));
    assert_eq!(runs(row(&rows, b).unwrap()), (250, 1, 250));
    assert_eq!(runs(kind(&rows, RowKind::Interrupts)), (50, 1, 50));
}

/// A task switched in inside a handler has not begun its run: a window closing
/// before the handler ends counts no run for it.
#[test]
fn a_task_switched_in_inside_a_handler_has_no_run_before_the_handler_ends() {
    let mut e = started(0);
    let a = e.task_create(0, 0, b"a");
    let b = e.task_create(0, 0, b"b");
    e.switch_in(0, 0, a);
    e.isr_enter(0, 900);
    e.switch_in(0, 950, b);
    e.tick(0, 1000); // window 0 closes inside the handler
    let (_, rows) = window(&e);
    assert_eq!(runs(row(&rows, a).unwrap()), (900, 1, 900));
    assert_eq!(runs(row(&rows, b).unwrap()), (0, 0, 0), "b has not run yet");
    assert_eq!(runs(kind(&rows, RowKind::Interrupts)), (100, 1, 100));
    e.isr_exit(0, 1050);
    e.switch_in(0, 1300, a);
    e.tick(0, 2000);
    let (_, rows) = window(&e);
    assert_eq!(runs(row(&rows, b).unwrap()), (250, 1, 250));
    assert_eq!(runs(kind(&rows, RowKind::Interrupts)), (50, 1, 150));
}

/// A task switched in and out again within one handler never ran: no run.
#[test]
fn a_task_switched_in_and_out_within_one_handler_has_no_run() {
    let mut e = started(0);
    let a = e.task_create(0, 0, b"a");
    let b = e.task_create(0, 0, b"b");
    let c = e.task_create(0, 0, b"c");
    e.switch_in(0, 0, a);
    e.isr_enter(0, 100);
    e.switch_in(0, 110, b);
    e.isr_enter(0, 115); // a nested handler switches again
    e.switch_in(0, 120, c);
    e.isr_exit(0, 125);
    e.isr_exit(0, 150);
    e.tick(0, 1000);
    let (_, rows) = window(&e);
    assert_eq!(runs(row(&rows, a).unwrap()), (100, 1, 100));
    assert_eq!(runs(row(&rows, b).unwrap()), (0, 0, 0), "b never ran");
    assert_eq!(runs(row(&rows, c).unwrap()), (850, 1, 850));
}

/// A switch inside a handler that interrupted a sleep keeps the sleep's length so
/// far (the sleep is 480, not the 180 after the handler).
#[test]
fn a_switch_inside_a_handler_during_a_sleep_keeps_the_sleep_whole() {
    let mut e = started(0);
    let idle = e.task_create(0, 0, b"IDLE");
    let a = e.task_create(0, 0, b"a");
    e.scheduler_start(idle);
    e.switch_in(0, 0, idle);
    e.sleep_begin(0, 100);
    e.isr_enter(0, 400);
    e.switch_in(0, 410, a); // a port that switches in the handler
    e.isr_exit(0, 420); // the idle task still has to wake
    e.sleep_end(0, 600);
    e.tick(0, 1000);
    let (_, rows) = window(&e);
    assert_eq!(runs(kind(&rows, RowKind::Sleep)), (480, 1, 480));
    assert_eq!(runs(row(&rows, idle).unwrap()), (100, 1, 100));
    assert_eq!(runs(row(&rows, a).unwrap()), (400, 1, 400)); // from the sleep's end
    assert_eq!(runs(kind(&rows, RowKind::Interrupts)), (20, 1, 20));
}

/// A run of 2^32 counts or more (4.3 s at 1 GHz) without a switch is carried across
/// windows and saturates: it never reads as a short run, and the slice watchdog
/// does not trip again on the same run.
#[test]
#[cfg(feature = "shell")] // (since-start figures, and the watchdogs)
fn a_run_longer_than_the_counter_saturates() {
    const LEN: u32 = 1 << 30;
    let mut e = Engine::new(LEN);
    e.set_slice_watchdog(Some(1 << 31));
    e.restart(0);
    let a = e.task_create(0, 0, b"hog");
    e.switch_in(0, 0, a);
    let mut longest = Vec::new();
    let mut tripped = Vec::new();
    for k in 1..=8u32 {
        if e.tick(0, k.wrapping_mul(LEN)) {
            tripped.extend(alerts(&mut e).iter().map(|a| (a.window, a.value)));
        }
        let (_, rows) = window(&e);
        longest.push(row(&rows, a).unwrap().longest);
    }
    let max = u32::MAX;
    assert_eq!(longest, [LEN, 2 * LEN, 3 * LEN, max, max, max, max, max]);
    assert_eq!(tripped, [(2, 3 * LEN)], "one hog, one alert");
    let (_, rows) = cumulative(&e);
    let r = row(&rows, a).unwrap();
    assert_eq!((r.runs, r.longest, r.longest_window), (8, max, 3));
}

#[test]
#[cfg_attr(not(feature = "shell"), ignore = "reads since-start figures, which only the shell keeps")]
fn peaks_and_longest_runs_come_with_their_window() {
    let mut e = started(0);
    let a = e.task_create(0, 0, b"a");
    let b = e.task_create(0, 0, b"b");
    e.switch_in(0, 0, a);
    e.switch_in(0, 300, b);
    e.tick(0, 1000); // window 0: a 300, b 700
    e.switch_in(0, 1400, a);
    e.tick(0, 2000); // window 1: a 600, b 400 (its run of 1100 ends here)
    e.switch_in(0, 2100, b);
    e.switch_in(0, 2200, a);
    e.tick(0, 3000); // window 2: a 900, b 100
    let (s, rows) = window(&e);
    let ra = row(&rows, a).unwrap();
    // In a window report, the peak is the window itself.
    assert_eq!((ra.counts, ra.runs, ra.longest, ra.longest_window), (900, 2, 800, 2));
    assert_eq!((ra.peak, ra.peak_len, ra.peak_window), (900, 1000, 2));
    assert_eq!(s.window, 2);
    let (_, rows) = cumulative(&e);
    let ra = row(&rows, a).unwrap();
    assert_eq!((ra.counts, ra.runs, ra.longest, ra.longest_window), (1800, 4, 800, 2));
    assert_eq!((ra.peak, ra.peak_len, ra.peak_window), (900, 1000, 2));
    let rb = row(&rows, b).unwrap();
    assert_eq!((rb.counts, rb.runs, rb.longest, rb.longest_window), (1200, 3, 1100, 1));
    assert_eq!((rb.peak, rb.peak_len, rb.peak_window), (700, 1000, 0));
    // An equal share later does not move the peak; a longer run moves the longest.
    e.switch_in(0, 3900, b);
    e.tick(0, 4000); // window 3: a 900 (one run of 1700), b 100
    let (_, rows) = cumulative(&e);
    let ra = row(&rows, a).unwrap();
    assert_eq!((ra.peak, ra.peak_len, ra.peak_window), (900, 1000, 2));
    assert_eq!((ra.runs, ra.longest, ra.longest_window), (5, 1700, 3));
}

#[test]
#[cfg_attr(not(feature = "shell"), ignore = "reads since-start figures, which only the shell keeps")]
fn the_peak_of_a_stretched_window_is_its_share_of_its_own_length() {
    let mut e = started(0);
    let a = e.task_create(0, 0, b"a");
    let b = e.task_create(0, 0, b"b");
    e.switch_in(0, 0, a);
    e.switch_in(0, 500, b);
    e.tick(0, 3500); // no hook for 3 windows: window 0 is 3500 long, b 3000 of it
    e.switch_in(0, 3600, a); // both charged in the window right after
    e.tick(0, 4500); // window 1: b 100, a 900
    let (_, rows) = cumulative(&e);
    let ra = row(&rows, a).unwrap();
    assert_eq!((ra.peak, ra.peak_len, ra.peak_window), (900, 1000, 1));
    let rb = row(&rows, b).unwrap();
    assert_eq!((rb.peak, rb.peak_len, rb.peak_window), (3000, 3500, 0));
}

#[cfg(feature = "watchdogs")]
#[test]
fn smoothed_loads_follow_the_fixed_point_formula() {
    let mut e = started(0);
    let idle = e.task_create(0, 0, b"IDLE");
    let a = e.task_create(0, 0, b"a");
    e.scheduler_start(idle);
    // Kept of the old value at each window: none, 40000/65536, all (70000 is taken
    // as 65536).
    e.set_smoothing([0, 40_000, 70_000]);
    let (s, _) = cumulative(&e);
    assert_eq!(s.load_avg, [Smoothed::default(); 3]);
    // Busy (a) 600, 250 and 1000 counts of 1000.
    let mut t = 0;
    let mut got = Vec::new();
    for busy in [600, 250, 1000] {
        e.switch_in(0, t, a);
        e.switch_in(0, t + busy, idle);
        t += 1000;
        e.tick(0, t);
        let (s, _) = window(&e);
        let (c, _) = cumulative(&e);
        assert_eq!(s.load_avg, c.load_avg);
        got.push(s.load_avg);
    }
    // Each: new = (old * keep + counts * 2^16 * (2^16 - keep)) / 2^16, rounded down.
    // keep 40000, window 1: (15321600 * 40000 + 250 * 2^16 * 25536) / 2^16 = 15735562.5
    let sm = |busy, len| Smoothed { busy, len };
    assert_eq!(got[0], [sm(600 << 16, 1000 << 16), sm(15_321_600, 25_536_000), sm(0, 0)]);
    assert_eq!(got[1], [sm(250 << 16, 1000 << 16), sm(15_735_562, 41_121_937), sm(0, 0)]);
    assert_eq!(got[2], [sm(1000 << 16, 1000 << 16), sm(35_140_224, 50_634_838), sm(0, 0)]);
}

/// Runs window `k` (of `LEN`) with `busy` counts of task `a` and the rest idle;
/// returns what the tick that closes it says.
#[cfg(feature = "watchdogs")]
fn busy_window(e: &mut Engine, k: u32, busy: u32, a: u32, idle: u32) -> bool {
    e.switch_in(0, k * LEN, a);
    e.switch_in(0, k * LEN + busy, idle);
    e.tick(0, (k + 1) * LEN)
}

#[cfg(feature = "watchdogs")]
#[test]
fn the_load_watchdog_trips_once_after_its_windows_and_again_only_after_a_quiet_one() {
    let mut e = started(0);
    let idle = e.task_create(0, 0, b"IDLE");
    let a = e.task_create(0, 0, b"a");
    e.scheduler_start(idle);
    e.set_load_watchdog(5000, 3); // above 50.00% for 3 windows in a row
    assert_eq!(e.watchdogs(), (5000, 3, None));
    let loads = [600, 700, 800, 900, 500, 600, 600, 600, 1000];
    let mut tripped = Vec::new();
    for (k, &busy) in loads.iter().enumerate() {
        if busy_window(&mut e, k as u32, busy, a, idle) {
            let got = alerts(&mut e);
            assert_eq!(got.len(), 1);
            tripped.push(got[0]);
        }
        assert_eq!(e.take_alert(), None);
    }
    let load = |window, value| Alert { kind: AlertKind::Load, window, value, limit: LEN, id: 0, name: [0; NAME_LEN] };
    // Window 4 is at 50.00%, not above: it re-arms the watchdog.
    assert_eq!(tripped, [load(2, 800), load(7, 600)]);
}

#[cfg(feature = "watchdogs")]
#[test]
fn the_slice_watchdog_is_edge_triggered_names_the_longest_and_ignores_interrupts_and_sleep() {
    let mut e = started(0);
    let idle = e.task_create(0, 0, b"IDLE");
    let a = e.task_create(0, 0, b"a");
    let b = e.task_create(0, 0, b"b");
    let c = e.task_create(0, 0, b"c");
    e.scheduler_start(idle);
    e.set_slice_watchdog(Some(300));
    assert_eq!(e.watchdogs(), (0, 0, Some(300)));
    // Short runs of a and b, switching every 100 counts.
    let alternate = |e: &mut Engine, from: u32, to: u32| {
        for (i, t) in (from..to).step_by(100).enumerate() {
            e.switch_in(0, t, if i % 2 == 0 { a } else { b });
        }
    };
    // Window 0: an interrupt of 400 and a sleep of 400, neither a task's slice; a
    // runs 300 counts, not more than the limit.
    e.switch_in(0, 0, a);
    e.isr_enter(0, 100);
    e.isr_exit(0, 500);
    e.switch_in(0, 700, idle);
    e.sleep_begin(0, 700);
    assert!(!e.tick(0, 1000));
    e.sleep_end(0, 1100);
    // Window 1: a runs 400, b 450: b is named.
    e.switch_in(0, 1100, a);
    e.switch_in(0, 1500, b);
    e.switch_in(0, 1950, a);
    assert!(e.tick(0, 2000));
    let name = |s: &[u8]| {
        let mut n = [0; NAME_LEN];
        n[..s.len()].copy_from_slice(s);
        n
    };
    let slice = |window, value, id: u32, n: &[u8]| Alert {
        kind: AlertKind::Slice,
        window,
        value,
        limit: 300,
        id: id as u16,
        name: name(n),
    };
    assert_eq!(alerts(&mut e), [slice(1, 450, b, b"b")]);
    assert!(!e.tick(0, 2000));
    // Window 2: c runs 350, but window 1 had a slice over the limit already.
    e.switch_in(0, 2000, c);
    e.switch_in(0, 2350, a);
    alternate(&mut e, 2400, 3000);
    assert!(!e.tick(0, 3000));
    // Window 3: short runs only.
    alternate(&mut e, 3000, 4000);
    assert!(!e.tick(0, 4000));
    // Window 4: a runs 301.
    e.switch_in(0, 4000, a);
    e.switch_in(0, 4301, b);
    alternate(&mut e, 4400, 5000);
    assert!(e.tick(0, 5000));
    assert_eq!(alerts(&mut e), [slice(4, 301, a, b"a")]);
}

/// The idle task running long is an idle system, not a hog: it never trips the
/// slice watchdog.
#[cfg(feature = "watchdogs")]
#[test]
fn the_idle_task_running_long_is_not_a_slice() {
    let mut e = started(0);
    let idle = e.task_create(0, 0, b"IDLE");
    let a = e.task_create(0, 0, b"a");
    e.scheduler_start(idle);
    e.set_slice_watchdog(Some(300));
    e.switch_in(0, 0, a);
    e.switch_in(0, 100, idle); // nothing else to do for the rest of the window
    assert!(!e.tick(0, 1000));
    assert_eq!(e.take_alert(), None);
    // The longest run is still shown.
    let (_, rows) = window(&e);
    assert_eq!(runs(row(&rows, idle).unwrap()), (900, 1, 900));
}

#[cfg(feature = "watchdogs")]
#[test]
fn restart_clears_every_figure_and_keeps_the_watchdog_settings() {
    let mut e = started(0);
    let idle = e.task_create(0, 0, b"IDLE");
    let a = e.task_create(0, 0, b"a");
    e.scheduler_start(idle);
    e.set_smoothing([0, 40_000, 65_536]);
    e.set_load_watchdog(5000, 2);
    e.set_slice_watchdog(Some(300));
    e.switch_in(0, 0, a);
    e.isr_enter(0, 100);
    e.isr_exit(0, 150);
    assert!(e.tick(0, 1000)); // a's run of 950 trips the slice; load 100%, 1 window of 2
    assert!(e.tick(0, 1500)); // not taken yet
    e.restart(7);
    assert_eq!(e.watchdogs(), (5000, 2, Some(300)));
    assert_eq!(e.take_alert(), None, "alerts of the old clock are dropped");
    let (s, rows) = cumulative(&e);
    assert_eq!(s.load_avg, [Smoothed::default(); 3]);
    for r in &rows {
        assert_eq!((r.counts, r.runs, r.longest, r.peak, r.peak_len), (0, 0, 0, 0, 0), "{:?} {}", r.kind, r.id);
    }
    // The load streak starts again (one more window over the threshold would have
    // tripped it), the slice watchdog trips in the first window.
    assert!(e.tick(0, 1007));
    assert_eq!(alerts(&mut e).iter().map(|a| (a.kind, a.window)).collect::<Vec<_>>(), [(AlertKind::Slice, 0)]);
    assert!(e.tick(0, 2007));
    assert_eq!(alerts(&mut e).iter().map(|a| (a.kind, a.window)).collect::<Vec<_>>(), [(AlertKind::Load, 1)]);
    let (s, rows) = window(&e);
    assert_eq!((s.window, runs(row(&rows, a).unwrap())), (1, (1000, 1, 2000)));
    // The weights are kept too: keep 40000, two windows of 1000 from 0 (as in
    // smoothed_loads_follow_the_fixed_point_formula): 25536000, then 41121937.
    let sm = |busy, len| Smoothed { busy, len };
    assert_eq!(s.load_avg, [sm(1000 << 16, 1000 << 16), sm(41_121_937, 41_121_937), sm(0, 0)]);
}

#[cfg(feature = "watchdogs")]
#[test]
fn a_slice_watchdog_set_mid_window_counts_the_runs_already_in_it() {
    let mut e = started(0);
    let idle = e.task_create(0, 0, b"IDLE");
    let a = e.task_create(0, 0, b"a");
    let b = e.task_create(0, 0, b"b");
    e.scheduler_start(idle);
    // a runs 500, then 300: its longest is 500.
    e.switch_in(0, 0, a);
    e.switch_in(0, 500, b);
    e.switch_in(0, 550, a);
    e.switch_in(0, 850, b);
    // A limit of 400 set now: the 500 already run is over it, and it is not a
    // longest any more run would beat.
    e.set_slice_watchdog(Some(400));
    e.switch_in(0, 900, a);
    e.switch_in(0, 950, b);
    assert!(e.tick(0, 1000));
    let alert = e.take_alert().unwrap();
    assert_eq!((alert.kind, alert.window, alert.value, u32::from(alert.id)), (AlertKind::Slice, 0, 500, a));
}

#[test]
fn a_clock_stepping_back_on_a_slow_path_counts_as_no_time() {
    let mut e = started(0);
    let a = e.task_create(0, 0, b"a");
    e.switch_in(0, 100, a);
    // A create reading the clock 10 counts early: no time passed, none taken back.
    e.task_create(0, 90, b"b");
    e.tick(0, 1000);
    let (s, rows) = window(&e);
    assert_eq!((counts(&rows, a), s.other, s.length), (900, 100, 1000));
}
