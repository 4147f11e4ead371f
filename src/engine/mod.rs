//! The accounting engine: pure logic, no raw pointers, no FFI, no FreeRTOS types.
//!
//! Time is a free-running 32-bit counter. Every hook passes the counter's reading
//! (`now`); the engine charges the counts since the previous reading to whoever held
//! the CPU in between: the task last switched in, or "other" when none was (before
//! the scheduler starts). A task's time runs from its switch-in to the next task's
//! switch-in, so the kernel's own few dozen instructions of choosing the next task
//! count with the task switched out, as in the kernel's run-time stats: one clock
//! reading and one charge per context switch. Every count is charged exactly once,
//! so for every window the task buckets plus "other" add up to the window's length
//! exactly. Differences are taken modulo 2^32, and the tick hook reads the counter at
//! least once per tick, so a counter wrap between two readings neither loses nor
//! doubles time.
//!
//! # Slots
//! Index 0 is "other"; indices `1..=MAX_TASKS` are task IDs; index `MAX_TASKS + 1`
//! is the bucket shared (under ID 0) by tasks created when every ID is taken.
//!
//! # Windows without clearing
//! Window `gen` accumulates while window `gen - 1` is published. Rollover only bumps
//! `gen`: it never touches the per-slot figures. Each slot remembers the window of its
//! last charge (`Acct::gen`) and shifts its two counters the next time it is charged,
//! so a slot that has not run for a while reads as zero without anybody clearing it.
//! Stored window numbers are pulled forward one slot per rollover (`refresh_one`), so
//! after 2^32 windows a number can never come round and look recent again. Since-
//! start totals are folded in at the same moment, so a charge is one 32-bit add.
//!
//! # Hot path
//! [`Engine::switch_in`] and [`Engine::tick`], with everything they call, are in
//! this file, top to bottom. They do no allocation, no
//! division, no floating point, no loop over tasks, and have no panic path: every
//! index is checked with `get`, every sum wraps. Rollover is a constant amount of work
//! in whichever hook first sees the window elapsed.

mod pool;

use pool::Pool;

include!(concat!(env!("OUT_DIR"), "/config.rs"));

/// ID of the shared bucket for tasks beyond capacity.
pub const OVERFLOW_ID: u32 = 0;
/// Slot indices: "other" first, so that a zeroed engine charges it; then the task
/// IDs, each at its own index; the shared bucket last.
const OTHER: usize = 0;
const OVERFLOW: usize = MAX_TASKS + 1;
const SLOTS: usize = MAX_TASKS + 2;

/// Largest window, in clock counts: elapsed times are compared modulo 2^32, and a
/// window must close before its start could be mistaken for a later time.
pub const MAX_WINDOW_COUNTS: u32 = 1 << 31;

/// One slot's time: the last two windows it was charged in, and since boot.
#[derive(Clone, Copy)]
struct Acct {
    /// Window of the last charge; `cur` belongs to it and `prev` to the one before.
    gen: u32,
    cur: u32,
    prev: u32,
    /// Since-boot total of every window before `gen` (`cur` is added when the slot
    /// moves on to a new window), split so the struct needs only 4-byte alignment.
    total_lo: u32,
    total_hi: u32,
}

impl Acct {
    const ZERO: Acct = Acct { gen: 0, cur: 0, prev: 0, total_lo: 0, total_hi: 0 };

    /// Counts in the window before `gen` (the published one).
    fn published(&self, gen: u32) -> u32 {
        if self.gen == gen {
            self.prev
        } else if self.gen == gen.wrapping_sub(1) {
            self.cur
        } else {
            0
        }
    }

    fn total(&self) -> u64 {
        ((u64::from(self.total_hi) << 32) | u64::from(self.total_lo)).wrapping_add(u64::from(self.cur))
    }
}

/// Where a task slot is in its life.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(u8)]
enum State {
    /// Never used, or its quarantine is over.
    Free,
    Alive,
    /// Deleted itself and is still running until the next switch.
    Dying,
    /// Deleted; its ID is quarantined until its windows are gone.
    Dead,
}

/// A task slot's identity. `mark` is the window of birth while the task lives and of
/// death once it is dead, which is all the readers and the quarantine need.
#[derive(Clone, Copy)]
pub(crate) struct Meta {
    name: [u8; NAME_LEN],
    mark: u32,
    state: State,
    /// The task died in the window it was born in.
    short_lived: bool,
    /// Quarantine FIFO link: next slot index plus one, 0 at the end.
    next: u16,
}

impl Meta {
    pub(crate) const FREE: Meta =
        Meta { name: [0; NAME_LEN], mark: 0, state: State::Free, short_lived: false, next: 0 };
}

/// What a report line is about.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum RowKind {
    /// A task with its own ID. (Not 0, so that an array of blank rows is not all zero
    /// bytes: the compiler fills it with a short loop instead of linking a memclr.)
    Task = 1,
    /// The idle task.
    Idle,
    /// The shared bucket of tasks beyond capacity (ID 0).
    Overflow,
    /// Time no task was switched in.
    Other,
    /// Since boot: tasks that no longer exist.
    Deleted,
}

/// One line of a report, copied out of the engine.
#[derive(Clone, Copy, Debug)]
pub struct Row {
    /// Clock counts in the window (or since boot).
    pub counts: u64,
    /// Task name bytes, NUL-padded.
    pub name: [u8; NAME_LEN],
    /// Task ID; 0 for the shared bucket and the summary lines.
    pub id: u16,
    /// What the line is about.
    pub kind: RowKind,
    /// The task has been deleted.
    pub deleted: bool,
    /// Share of the window in hundredths of a percent, filled in by the report.
    pub pct: u16,
}

impl Row {
    /// A blank row, for callers sizing their arrays.
    pub const EMPTY: Row =
        Row { counts: 0, name: [0; NAME_LEN], id: 0, kind: RowKind::Task, deleted: false, pct: 0 };

    /// A summary line with no name.
    pub const fn summary(kind: RowKind, counts: u64) -> Row {
        Row { counts, kind, ..Row::EMPTY }
    }
}

/// Occupancy of the ID pool. `used + quarantined + free == capacity` always; anything
/// else is a leaked ID.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SlotStats {
    /// IDs in all (`CPU_USAGE_MAX_TASKS`).
    pub capacity: u32,
    /// IDs held by existing tasks (including a deleted task still running).
    pub used: u32,
    /// IDs of deleted tasks whose windows are still shown.
    pub quarantined: u32,
    /// IDs a new task can take.
    pub free: u32,
    /// Existing tasks sharing ID 0 because every ID was taken.
    pub overflow_tasks: u32,
}

/// The figures of a report besides its rows.
#[derive(Clone, Copy, Debug, Default)]
pub struct Summary {
    /// Sequence number of the window (windows completed before it), or for a
    /// since-boot report the number of windows completed so far.
    pub window: u32,
    /// Counts covered: the window's length, or the time since accounting started.
    pub length: u64,
    /// Counts with no task switched in.
    pub other: u64,
    /// Since boot: counts of tasks that no longer exist.
    pub deleted: u64,
    /// Rows written, and rows that did not fit the caller's array.
    pub rows: usize,
    /// Rows that did not fit.
    pub rows_missing: usize,
    /// ID pool occupancy now.
    pub slots: SlotStats,
}

/// Why a hook's request was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HookError {
    /// The ID is not that of an existing task.
    UnknownId,
}

/// Rows are appended in slot order; what does not fit is counted, not written.
struct RowSink<'a> {
    rows: &'a mut [Row],
    written: usize,
    missing: usize,
}

impl RowSink<'_> {
    fn push(&mut self, row: Row) {
        match self.rows.get_mut(self.written) {
            Some(slot) => {
                *slot = row;
                self.written += 1;
            }
            None => self.missing += 1,
        }
    }
}

/// The whole accounting state. One instance lives in a static; tests make their own.
/// It starts all zero, so that static costs RAM only.
#[repr(C)] // fields in this order: what the hooks touch first, at small offsets
pub struct Engine {
    last: u32,
    win_start: u32,
    win_len: u32,
    /// Current window number, from 0 at (re)start; `gen - 1` is published.
    gen: u32,
    /// Slot being charged now.
    cur: u16,
    /// The running task deleted itself: release its ID at the next switch.
    dying: bool,
    started: bool,
    /// At least one window has completed since accounting (re)started.
    published: bool,
    /// Length of the published window: `win_len`, or longer after a stall (see
    /// `roll_over`).
    pub_len: u32,
    /// Next slot `refresh_one` visits.
    refresh: u16,
    /// The idle task's ID, 0 until the scheduler starts.
    idle: u16,
    alive: u16,
    overflow_tasks: u16,
    /// Since-boot time of tasks whose slots were taken by new tasks.
    /// Split like `Acct`'s total, so the engine needs only 4-byte alignment.
    retired: [u32; 2],
    pool: Pool,
    acct: [Acct; SLOTS],
    meta: [Meta; MAX_TASKS],
}

impl Engine {
    /// An engine with every ID free, not yet started, with windows of `win_len` counts
    /// (`Engine::new(0)` is all zero: set the window before starting).
    pub const fn new(win_len: u32) -> Self {
        Engine {
            acct: [Acct::ZERO; SLOTS],
            meta: [Meta::FREE; MAX_TASKS],
            pool: Pool::EMPTY,
            cur: OTHER as u16,
            dying: false,
            started: false,
            published: false,
            last: 0,
            win_start: 0,
            win_len,
            pub_len: 0,
            gen: 0,
            refresh: 0,
            idle: 0,
            alive: 0,
            overflow_tasks: 0,
            retired: [0; 2],
        }
    }

    /// Whether accounting has started.
    pub fn is_started(&self) -> bool {
        self.started
    }

    /// Starts accounting at `now`, or restarts it (after a clock change): every time
    /// figure starts again from zero; tasks keep their IDs and names.
    pub fn restart(&mut self, now: u32) {
        // Window numbers start again at 0, and every stored one is set two windows
        // before that, which reads as nothing recent: empty counters, tasks born long
        // ago, and dead tasks whose quarantine is over (their windows are discarded).
        let long_ago = 0u32.wrapping_sub(2);
        for a in self.acct.iter_mut() {
            *a = Acct { gen: long_ago, ..Acct::ZERO };
        }
        for m in self.meta.iter_mut() {
            m.mark = long_ago;
            m.short_lived = false;
        }
        self.gen = 0;
        self.retired = [0; 2];
        self.published = false;
        self.pub_len = 0;
        self.last = now;
        self.win_start = now;
        self.started = true;
    }

    /// Sets the window length in counts (`1..=MAX_WINDOW_COUNTS`, checked by the
    /// caller). It applies to the window under way: if that is already longer, it
    /// closes at the next hook.
    pub fn set_window(&mut self, len: u32) {
        self.win_len = len.clamp(1, MAX_WINDOW_COUNTS);
    }

    // ---- Hot path ---------------------------------------------------------------

    /// Task `id` is being switched in (`traceTASK_SWITCHED_IN`): the task running
    /// until now is charged up to `now`. An ID that is not a live task's (corrupted,
    /// or set by `vTaskSetTaskNumber`) is charged to ID 0.
    #[inline]
    pub fn switch_in(&mut self, now: u32, id: u32) {
        if self.dying || !self.charge_fast(now) {
            return self.switch_in_slow(now, id);
        }
        self.cur = self.slot_of(id);
    }

    /// A tick (`traceTASK_INCREMENT_TICK`): keeps readings less than a counter wrap
    /// apart and closes windows when nothing switches.
    #[inline]
    pub fn tick(&mut self, now: u32) {
        if !self.charge_fast(now) {
            self.advance(now);
        }
    }

    /// The common case of a hook, in as few instructions as it takes: the window
    /// runs on and the running slot was already charged in it, so the counts since
    /// the last reading are one add. Returns false, having changed nothing, when the
    /// full path (`advance`) is needed: at most twice per slot and window.
    #[inline(always)]
    fn charge_fast(&mut self, now: u32) -> bool {
        if now.wrapping_sub(self.win_start) >= self.win_len {
            return false;
        }
        let gen = self.gen;
        let last = self.last;
        match self.acct.get_mut(usize::from(self.cur)) {
            Some(a) if a.gen == gen => {
                a.cur = a.cur.wrapping_add(now.wrapping_sub(last));
                self.last = now;
                true
            }
            _ => false,
        }
    }

    /// Where task `id` is charged: its own slot if it is a live task's ID, else ID 0.
    #[inline(always)]
    fn slot_of(&self, id: u32) -> u16 {
        match self.meta.get((id as usize).wrapping_sub(1)) {
            Some(m) if m.state == State::Alive => id as u16,
            _ => OVERFLOW as u16,
        }
    }

    /// A switch that closes a window, charges a slot for the first time in one, or
    /// follows a task that deleted itself.
    #[cold]
    #[inline(never)]
    fn switch_in_slow(&mut self, now: u32, id: u32) {
        self.advance(now);
        if self.dying {
            // The task switched out deleted itself: this was its last switch.
            self.dying = false;
            self.release(usize::from(self.cur));
        }
        self.cur = self.slot_of(id);
    }

    /// Charges the counts since the last reading to the current slot, closing the
    /// window first if it has elapsed: the full path behind `charge_fast`.
    #[cold]
    #[inline(never)]
    fn advance(&mut self, now: u32) {
        if now.wrapping_sub(self.win_start) >= self.win_len {
            self.roll_over(now);
        }
        let d = now.wrapping_sub(self.last);
        self.last = now;
        self.credit(usize::from(self.cur), d);
    }

    #[inline(always)]
    fn credit(&mut self, slot: usize, d: u32) {
        let gen = self.gen;
        if let Some(a) = self.acct.get_mut(slot) {
            if a.gen != gen {
                let (lo, carry) = a.total_lo.overflowing_add(a.cur);
                a.total_lo = lo;
                a.total_hi = a.total_hi.wrapping_add(u32::from(carry));
                a.prev = if a.gen == gen.wrapping_sub(1) { a.cur } else { 0 };
                a.cur = 0;
                a.gen = gen;
            }
            a.cur = a.cur.wrapping_add(d);
        }
    }

    /// Closes the window under way. It ends exactly `win_len` after its start, and the
    /// counts up to that point are charged to it; the rest go to the next window. If
    /// no hook ran for more than a whole further window (interrupts masked that long),
    /// the closing window takes the whole stall instead: no window is invented that
    /// nobody saw, and the published length says how long it really was.
    #[cold]
    #[inline(never)]
    fn roll_over(&mut self, now: u32) {
        let elapsed = now.wrapping_sub(self.win_start);
        let mut len = if elapsed.wrapping_sub(self.win_len) < self.win_len {
            self.win_len
        } else {
            elapsed
        };
        // After a shorter window was set, the last reading may lie past the new end.
        let since_last = self.last.wrapping_sub(self.win_start);
        if since_last > len {
            len = since_last;
        }
        let end = self.win_start.wrapping_add(len);
        let d = end.wrapping_sub(self.last);
        self.last = end;
        self.credit(usize::from(self.cur), d);
        self.pub_len = len;
        self.win_start = end;
        self.gen = self.gen.wrapping_add(1);
        self.published = true;
        self.refresh_one();
    }

    /// Pulls one slot's stored window numbers forward to at most two windows back
    /// (which means the same: nothing recent), visiting every slot once per `SLOTS`
    /// rollovers, so stored numbers always stay within a few thousand of `gen`.
    fn refresh_one(&mut self) {
        let oldest = self.gen.wrapping_sub(2);
        let i = usize::from(self.refresh);
        self.refresh = if i + 1 >= SLOTS { 0 } else { i as u16 + 1 };
        if let Some(a) = self.acct.get_mut(i) {
            if self.gen.wrapping_sub(a.gen) > 2 {
                a.gen = oldest;
            }
        }
        if let Some(m) = self.meta.get_mut(i.wrapping_sub(1)) {
            if self.gen.wrapping_sub(m.mark) > 2 {
                m.mark = oldest;
            }
        }
    }

    /// Puts a dead task's ID in quarantine, stamped with the window it died in.
    fn release(&mut self, slot: usize) {
        let gen = self.gen;
        let Some(m) = self.meta.get_mut(slot.wrapping_sub(1)) else { return };
        m.short_lived = m.mark == gen;
        m.mark = gen;
        m.state = State::Dead;
        self.alive = self.alive.saturating_sub(1);
        self.pool.quarantine(slot.wrapping_sub(1) as u16, &mut self.meta);
    }

    // ---- Task lifecycle (not per switch; still O(1)) ----------------------------

    /// A task was created (`traceTASK_CREATE`): returns its ID, 0 if every ID is
    /// taken (the task then shares the overflow bucket).
    pub fn task_create(&mut self, now: u32, name: &[u8]) -> u32 {
        self.advance(now);
        let gen = self.gen;
        // An ID whose last windows are gone leaves quarantine: at most one per create,
        // which is enough, because a create only ever needs one.
        if let Some(i) = self.pool.oldest() {
            if self.meta.get(i).is_some_and(|m| gen.wrapping_sub(m.mark) >= 2) {
                self.pool.release_oldest(&self.meta);
                if let Some(m) = self.meta.get_mut(i) {
                    m.state = State::Free;
                }
            }
        }
        let Some(i) = self.pool.take() else {
            self.overflow_tasks = self.overflow_tasks.saturating_add(1);
            return OVERFLOW_ID;
        };
        let slot = i + 1;
        let retired = self.retired().wrapping_add(self.acct(slot).total());
        self.retired = [retired as u32, (retired >> 32) as u32];
        if let Some(a) = self.acct.get_mut(slot) {
            *a = Acct { gen: gen.wrapping_sub(2), ..Acct::ZERO };
        }
        if let Some(m) = self.meta.get_mut(i) {
            let mut stored = [0u8; NAME_LEN];
            for (dst, src) in stored.iter_mut().zip(name.iter().take_while(|&&b| b != 0)) {
                *dst = *src;
            }
            *m = Meta { name: stored, mark: gen, state: State::Alive, short_lived: false, next: 0 };
        }
        self.alive = self.alive.saturating_add(1);
        slot as u32
    }

    /// A task was deleted (`traceTASK_DELETE`). Its time stays in the windows it ran
    /// in, marked deleted. A task deleting itself keeps running (and being charged)
    /// until the next switch, which is when its ID enters quarantine.
    pub fn task_delete(&mut self, now: u32, id: u32) -> Result<(), HookError> {
        self.advance(now);
        if id == OVERFLOW_ID {
            self.overflow_tasks = self.overflow_tasks.saturating_sub(1);
            return Ok(());
        }
        let slot = id as usize;
        match self.meta.get_mut(slot.wrapping_sub(1)) {
            Some(m) if m.state == State::Alive => {
                if usize::from(self.cur) == slot {
                    m.state = State::Dying;
                    self.dying = true;
                } else {
                    self.release(slot);
                }
                Ok(())
            }
            _ => Err(HookError::UnknownId),
        }
    }

    /// The scheduler is starting; `idle_id` is the idle task's ID (not 0: the idle
    /// task is created before any other can fill the pool).
    pub fn scheduler_start(&mut self, idle_id: u32) {
        self.idle = u16::try_from(idle_id).unwrap_or(0);
    }

    // ---- Readers (inside the caller's critical section; loops allowed) ----------

    fn acct(&self, slot: usize) -> Acct {
        self.acct.get(slot).copied().unwrap_or(Acct::ZERO)
    }

    /// A slot's counts since start, or in the published window.
    #[inline(never)]
    fn counts(&self, slot: usize, since_start: bool) -> u64 {
        let a = self.acct(slot);
        if since_start {
            a.total()
        } else {
            u64::from(a.published(self.gen))
        }
    }

    fn retired(&self) -> u64 {
        (u64::from(self.retired[1]) << 32) | u64::from(self.retired[0])
    }

    fn slot_stats(&self) -> SlotStats {
        // Quarantined IDs whose windows are gone are as good as free: they go back to
        // the bitmap at the next create.
        let (mut waiting, mut ready) = (0u32, 0u32);
        for i in self.pool.quarantine_iter(&self.meta) {
            if self.meta.get(i).is_some_and(|m| self.gen.wrapping_sub(m.mark) >= 2) {
                ready += 1;
            } else {
                waiting += 1;
            }
        }
        SlotStats {
            capacity: MAX_TASKS as u32,
            used: u32::from(self.alive),
            quarantined: waiting,
            free: self.pool.free_count() + ready,
            overflow_tasks: u32::from(self.overflow_tasks),
        }
    }

    fn task_row(&self, slot: usize, m: &Meta, counts: u64) -> Row {
        let id = slot as u32;
        Row {
            counts,
            name: m.name,
            id: id as u16,
            kind: if id == u32::from(self.idle) && id != OVERFLOW_ID { RowKind::Idle } else { RowKind::Task },
            deleted: m.state != State::Alive,
            pct: 0,
        }
    }

    /// Copies the last completed window: the shared bucket (if it holds tasks or
    /// time), then every task that existed during the window, in ID order. `None`
    /// until a window has completed.
    pub fn read_window(&self, rows: &mut [Row]) -> Option<Summary> {
        if !self.published {
            return None;
        }
        Some(self.read(rows, false))
    }

    /// Copies the since-start figures: the shared bucket (if used), then every
    /// existing task in ID order; deleted tasks are summed in `Summary::deleted`.
    pub fn read_cumulative(&self, rows: &mut [Row]) -> Summary {
        self.read(rows, true)
    }

    /// Both readers in one walk over the slots (one copy of it in flash); they differ
    /// only in which counts of a slot they take and which tasks they show.
    #[inline(never)]
    fn read(&self, rows: &mut [Row], since_start: bool) -> Summary {
        let gen = self.gen;
        let counts = |slot| self.counts(slot, since_start);
        let mut sink = RowSink { rows, written: 0, missing: 0 };
        let overflow = counts(OVERFLOW);
        if overflow != 0 || self.overflow_tasks != 0 {
            sink.push(Row::summary(RowKind::Overflow, overflow));
        }
        let other = counts(OTHER);
        // Since start: time of tasks no longer shown, and of every slot.
        let mut deleted = self.retired();
        let mut all = deleted.wrapping_add(other).wrapping_add(overflow);
        for (i, m) in self.meta.iter().enumerate() {
            let slot = i + 1;
            let c = counts(slot);
            all = all.wrapping_add(c);
            let shown = match m.state {
                State::Free => false,
                // A window shows a task that existed during it: born before it
                // ended, and not dead before it began nor born and dead after it.
                State::Alive | State::Dying => since_start || m.mark != gen,
                State::Dead => !since_start && gen.wrapping_sub(m.mark) <= 1 && !(m.short_lived && m.mark == gen),
            };
            if shown {
                sink.push(self.task_row(slot, m, c));
            } else {
                deleted = deleted.wrapping_add(c);
            }
        }
        let (window, length, deleted) = if since_start {
            (gen, all, deleted)
        } else {
            (gen.wrapping_sub(1), u64::from(self.pub_len), 0)
        };
        Summary {
            window,
            length,
            other,
            deleted,
            rows: sink.written,
            rows_missing: sink.missing,
            slots: self.slot_stats(),
        }
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod model_tests;
