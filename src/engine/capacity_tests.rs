// The engine's tests of its capacity: the ID pool filled, emptied and filled again,
// the bucket shared by the tasks beyond capacity, and the IDs kept for the kernel's
// own tasks. They run at every capacity, one ID included (the idle task then has the
// only ID kept, and the timer task shares the bucket).

use super::support::*;
use super::*;

#[test]
fn tasks_beyond_capacity_share_the_overflow_bucket() {
    let mut e = started(0);
    let ids: Vec<u32> = (0..IDS).map(|_| e.task_create(0, 0, b"t")).collect();
    assert!(!ids.contains(&OVERFLOW_ID));
    let x = e.task_create(0, 0, b"x");
    let y = e.task_create(0, 0, b"y");
    assert_eq!((x, y), (OVERFLOW_ID, OVERFLOW_ID));
    e.switch_in(0, 100, x);
    e.switch_in(0, 300, y);
    e.switch_in(0, 350, ids[0]);
    e.tick(0, 1000);
    let (s, rows) = window(&e);
    let over = rows.iter().find(|r| r.kind == RowKind::Overflow).unwrap();
    assert_eq!(over.counts, 250);
    assert_eq!(s.slots.overflow_tasks, 2);
    e.task_delete(0, 1000, x).unwrap();
    let (c, _) = cumulative(&e);
    assert_eq!(c.slots.overflow_tasks, 1);
}

/// FreeRTOS's own demos create all their tasks, often more than there are IDs,
/// before `vTaskStartScheduler()` creates the idle and timer tasks: those two still
/// get IDs of their own (the idle line and the load depend on it), and the first to
/// run is charged under its new ID.
#[test]
fn the_kernel_tasks_get_ids_however_many_tasks_came_before() {
    let mut e = Engine::new(LEN);
    e.restart(0);
    let early: Vec<u32> = (0..IDS + 5).map(|_| e.task_create(0, 0, b"early")).collect();
    let own = IDS - KEPT_FOR_KERNEL;
    assert!(early[..own].iter().all(|&id| id != OVERFLOW_ID));
    assert!(early[own..].iter().all(|&id| id == OVERFLOW_ID));
    // The kernel creates the idle task, then the timer task, then switches the idle
    // task in (it is the first to run) and starts the scheduler.
    let idle_created = e.task_create(0, 0, b"IDLE");
    let timer_created = e.task_create(0, 0, b"Tmr Svc");
    assert_eq!((idle_created, timer_created), (OVERFLOW_ID, OVERFLOW_ID));
    e.switch_in(0, 0, idle_created);
    let idle = e.kernel_task(0, idle_created, b"IDLE", true);
    let timer = e.kernel_task(0, timer_created, b"Tmr Svc", false);
    assert_eq!(idle as usize, own + 1);
    if KEPT_FOR_KERNEL == 2 {
        assert_eq!(timer as usize, own + 2);
    } else {
        assert_eq!(timer, OVERFLOW_ID, "a single ID is kept for the idle task alone");
    }
    e.scheduler_start(idle);
    e.restart(0);
    // From here on a create gets no ID: they are all taken.
    assert_eq!(e.task_create(0, 0, b"late"), OVERFLOW_ID);
    e.switch_in(0, 600, early[0]);
    e.tick(0, 1000);
    let (s, rows) = window(&e);
    let idle_row = row(&rows, idle).expect("the idle task's line");
    assert_eq!((idle_row.kind, idle_row.counts, name(&idle_row)), (RowKind::Idle, 600, &b"IDLE"[..]));
    // The first early task has an ID of its own, unless the only ID was kept for the
    // idle task: then it is in the shared bucket.
    let (own_line, bucket) = if own > 0 { (400, 0) } else { (0, 400) };
    assert_eq!(counts(&rows, early[0]), own_line);
    assert_eq!(kind(&rows, RowKind::Overflow).counts, bucket);
    // The early tasks without an ID, the late one, and the timer task if no ID was
    // kept for it: the window's and the pool's figures alike.
    let without = (IDS + 5 - own + 1 + usize::from(KEPT_FOR_KERNEL == 1)) as u32;
    assert_eq!((s.overflow_tasks, s.slots.overflow_tasks), (without, without));
    assert_eq!((s.slots.used, s.slots.free), (IDS as u32, 0));
}

/// An idle task that got its ID at creation keeps it, and a task the application
/// creates after the scheduler started may take the IDs kept until then.
#[test]
fn the_ids_kept_for_the_kernel_are_for_all_once_it_has_started() {
    let mut e = Engine::new(LEN);
    e.restart(0);
    let idle_created = e.task_create(0, 0, b"IDLE");
    let idle = e.kernel_task(0, idle_created, b"IDLE", true);
    // (With no more IDs than are kept for the kernel, the idle task is created in the
    // shared bucket and gets its ID as the scheduler starts.)
    let created = if IDS > KEPT_FOR_KERNEL { 1 } else { OVERFLOW_ID };
    assert_eq!((idle_created, idle), (created, 1));
    e.scheduler_start(idle);
    e.restart(0);
    let later: Vec<u32> = (1..IDS).map(|_| e.task_create(0, 0, b"t")).collect();
    assert!(later.iter().all(|&id| id != OVERFLOW_ID));
    assert_eq!(e.task_create(0, 0, b"one more"), OVERFLOW_ID);
    assert_eq!(e.kernel_task(0, OVERFLOW_ID, b"late", false), OVERFLOW_ID, "after the start, nothing is kept");
}

/// The shared bucket's line tells how many tasks shared it in its window, not how
/// many share it when the report is read: with a churn of short-lived tasks the two
/// differ.
#[cfg(feature = "shell")] // (the minimal build counts the bucket's tasks of now)
#[test]
fn the_overflow_line_counts_the_tasks_of_its_window() {
    let mut e = started(0);
    for _ in 0..IDS {
        assert_ne!(e.task_create(0, 0, b"t"), OVERFLOW_ID);
    }
    let x = e.task_create(0, 100, b"x");
    e.switch_in(0, 100, x);
    e.switch_in(0, 200, 1);
    e.tick(0, 1000);
    let (s, rows) = window(&e);
    assert_eq!((s.overflow_tasks, s.slots.overflow_tasks), (1, 1));
    assert_eq!(kind(&rows, RowKind::Overflow).counts, 100);
    // Window 1: x dies, y is born and dies; nobody is left in the bucket.
    e.task_delete(0, 1100, x).unwrap();
    let y = e.task_create(0, 1200, b"y");
    e.task_delete(0, 1300, y).unwrap();
    e.tick(0, 2000);
    let (s, rows) = window(&e);
    assert_eq!((s.overflow_tasks, s.slots.overflow_tasks), (2, 0));
    assert_eq!(kind(&rows, RowKind::Overflow).counts, 0);
    // Window 2: no task shared it and it had no time: no line.
    e.tick(0, 3000);
    let (s, rows) = window(&e);
    assert_eq!(s.overflow_tasks, 0);
    assert!(rows.iter().all(|r| r.kind != RowKind::Overflow));
    if cfg!(feature = "shell") {
        assert_eq!(cumulative(&e).0.overflow_tasks, 2);
    }
}

#[test]
fn every_id_is_used_freed_and_counted() {
    let mut e = started(0);
    let ids: Vec<u32> = (0..IDS).map(|_| e.task_create(0, 0, b"t")).collect();
    let mut sorted = ids.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(sorted.len(), IDS);
    assert!(sorted.iter().all(|&id| (1..=IDS as u32).contains(&id)));
    for &id in &ids {
        e.task_delete(0, 10, id).unwrap();
    }
    let (c, _) = cumulative(&e);
    assert_eq!(
        c.slots,
        SlotStats { capacity: IDS as u32, used: 0, quarantined: IDS as u32, free: 0, overflow_tasks: 0 }
    );
    e.tick(0, 1000);
    e.tick(0, 2000);
    let (c, _) = cumulative(&e);
    assert_eq!((c.slots.quarantined, c.slots.free), (0, IDS as u32));
    // All IDs come back, one create at a time.
    let again: Vec<u32> = (0..IDS).map(|_| e.task_create(0, 2000, b"u")).collect();
    assert!(again.iter().all(|&id| id != OVERFLOW_ID));
    assert_eq!(e.task_create(0, 2000, b"v"), OVERFLOW_ID);
}
