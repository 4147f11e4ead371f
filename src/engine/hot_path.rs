//! The hot path: what the kernel's hooks call on every switch, tick, interrupt and
//! sleep, with everything they call, top to bottom (see "Hot path" in the engine's
//! docs): no allocation, no division, no floating point, no loop over tasks and no
//! panic path.

#[cfg(feature = "watchdogs")]
use super::watchdog::{Alert, AlertKind, LOAD_ALERT, SLICE_ALERT, SLICE_BEFORE, SLICE_NOW};
use super::*;

impl<const IDS: usize, const SLOTS: usize, const WORDS: usize> Engine<IDS, SLOTS, WORDS> {
    /// Task `id` is being switched in (`traceTASK_SWITCHED_IN`): the task running
    /// until now is charged up to `now`, and its run ends. An ID that is not a live
    /// task's (corrupted, or set by `vTaskSetTaskNumber`) is charged to ID 0.
    ///
    /// The common case checks only that `id` is at most `IDS` (so it is its slot's
    /// index, see "Slots"), not that its task lives: a slot whose task is dead or was
    /// never created has no time in the window under way (`DIED` covers the window
    /// its task died in), so whatever charges it next fails its fast path, and every
    /// slow path first moves the charge of such a slot to ID 0 (`forget_dead`), as if
    /// it had been checked here.
    #[inline]
    pub fn switch_in(&mut self, now: u32, id: u32) {
        // The common case: nothing but a task was running, the window runs on, the
        // task was already charged in it, and its run is not its longest in it (the
        // last two are `switch_in_less_common`'s, each a few times per task and
        // window).
        let d = now.wrapping_sub(self.last);
        if d < self.left && id as usize <= IDS {
            // (`get` checks that no flag is set and the charged slot is an index.)
            let (charged, window, run) =
                (self.charged_and_flags() as usize, self.window, now.wrapping_sub(self.run_start));
            if let Some(a) = self.acct.get(charged) {
                if a.window == window && run <= a.longest {
                    self.end_common_run(charged, now, d, id);
                } else {
                    Self::switch_in_less_common(now, id, run, self);
                }
                return;
            }
        }
        Self::switch_in_slow(now, id, self);
    }

    /// The end of a common switch: the run of slot `charged`, which was charged in
    /// the window under way, is charged up to `now`, `d` counts after the last
    /// reading, and task `id`'s begins.
    #[inline(always)]
    fn end_common_run(&mut self, charged: usize, now: u32, d: u32, id: u32) {
        if let Some(a) = self.acct.get_mut(charged) {
            a.counts = a.counts.wrapping_add(d);
            a.runs = a.runs.wrapping_add(1);
        }
        self.last = now;
        self.left = self.left.wrapping_sub(d);
        self.run_start = now;
        // (`id` is at most `IDS`: its slot.)
        self.charged = id as u16;
    }

    /// A common switch (no flag set, the ID in range, the window running on) whose
    /// run of `run` counts is its slot's longest in the window so far, or the slot's
    /// first charge in the window (`switch_in_first`): the run is kept, unless the
    /// slice watchdog may have to report it (the slow path).
    #[cold]
    #[inline(never)]
    fn switch_in_less_common(now: u32, id: u32, run: u32, e: &mut Self) {
        #[cfg(feature = "watchdogs")]
        if run > !e.watch.slice_inv {
            return Self::switch_in_slow(now, id, e);
        }
        let (charged, window) = (usize::from(e.charged), e.window);
        match e.acct.get_mut(charged) {
            Some(a) if a.window == window => a.longest = run,
            _ => return Self::switch_in_first(now, id, run, e),
        }
        e.end_common_run(charged, now, now.wrapping_sub(e.last), id);
    }

    /// `switch_in_less_common` for a slot's first charge in the window: the slot is
    /// moved on to the window, unless it is a dead task's (which `forget_dead`, on
    /// the slow path, charges to ID 0).
    #[cold]
    #[inline(never)]
    fn switch_in_first(now: u32, id: u32, run: u32, e: &mut Self) {
        let charged = usize::from(e.charged);
        if e.meta.get(charged.wrapping_sub(1)).is_some_and(|m| !m.is_live()) {
            return Self::switch_in_slow(now, id, e);
        }
        // (A slot moved on has no run in the window yet: this one is its longest.)
        e.credit(charged, 0);
        if let Some(a) = e.acct.get_mut(charged) {
            a.longest = run;
        }
        e.end_common_run(charged, now, now.wrapping_sub(e.last), id);
    }

    /// A tick (`traceTASK_INCREMENT_TICK`): keeps readings less than a counter wrap
    /// apart and closes windows when nothing switches. Returns true when a watchdog
    /// has tripped ([`Engine::take_alert`]).
    #[inline]
    pub fn tick(&mut self, now: u32) -> bool {
        if !self.charge_fast(now) {
            Self::advance_at(now, self);
        }
        #[cfg(feature = "watchdogs")]
        return self.watch.pending != 0;
        #[cfg(not(feature = "watchdogs"))]
        false
    }

    /// `advance`, with the reading first: the hooks' common paths then keep it in
    /// the register the clock returned it in. (So do the other slow paths the
    /// hooks' common paths end in.)
    #[cold]
    #[inline(never)]
    fn advance_at(now: u32, e: &mut Self) -> u32 {
        e.advance_rare(now)
    }

    /// An interrupt handler starts. Only the outermost of nested ones counts: its
    /// time, from here to its exit, is charged to interrupts, not to what it
    /// interrupted.
    #[inline]
    pub fn isr_enter(&mut self, now: u32) {
        // The common case: a task was running (not asleep, not in a handler) and was
        // already charged in this window, which runs on. (Its run may have begun
        // windows ago, as the idle task's does in an idle system: `LONG`.)
        if self.flags & BUT_LONG_DIED == 0 && self.charge_fast(now) {
            // (What the task ran before the handler, `isr_below`, is left for a slow
            // path to work out, if one comes before the exit: `LAZY`.)
            self.task = self.charged;
            self.charged = Self::ISR as u16;
            self.isr_start = now;
            self.flags |= IN_ISR | LAZY;
            return;
        }
        Self::isr_enter_slow(now, self);
    }

    #[cold]
    #[inline(never)]
    fn isr_enter_slow(now: u32, e: &mut Self) {
        e.isr_enter_rare(now);
    }

    /// The body of `isr_enter_slow`.
    #[inline(always)]
    fn isr_enter_rare(&mut self, now: u32) {
        // (Before accounting starts, what this does is discarded by `restart`, which
        // starts it.)
        if self.flags & IN_ISR != 0 {
            // A nested handler: its time is the outermost one's, whose exit is no
            // longer the common one (no `LAZY`).
            self.settle_below();
            self.isr_depth = self.isr_depth.saturating_add(1);
        } else {
            let now = self.advance(now);
            // (The carry stays, and with it `LONG`: the exit must resume the run
            // through `resumed`.)
            self.isr_below = if self.flags & ASLEEP != 0 {
                self.sleep_carry.saturating_add(now.wrapping_sub(self.sleep_start))
            } else {
                self.run_carry.saturating_add(now.wrapping_sub(self.run_start))
            };
            if self.flags & ASLEEP == 0 {
                self.task = self.charged;
            }
            self.charged = Self::ISR as u16;
            self.isr_start = now;
            self.flags |= IN_ISR;
        }
    }

    /// An interrupt handler ends (an exit with no handler under way is ignored).
    #[inline]
    pub fn isr_exit(&mut self, now: u32) {
        // The common case: the outermost handler of a task (not of a sleep) ends,
        // entered on the fast path with no slow path since (`LAZY`: so in this
        // window, not nested, nothing carried), and the window runs on. The task's
        // run goes on from where it was: its start moves on by the handler's time.
        let d = now.wrapping_sub(self.last);
        if self.flags & BUT_LONG_DIED == IN_ISR | LAZY && d < self.left {
            let (window, run) = (self.window, now.wrapping_sub(self.isr_start));
            // (The interrupt slot is the one charged while a handler runs.)
            if let Some(a) = self.acct.get_mut(Self::ISR) {
                if a.window == window {
                    a.counts = a.counts.wrapping_add(d);
                    a.runs = a.runs.wrapping_add(1);
                    if run > a.longest {
                        a.longest = run;
                    }
                    self.last = now;
                    self.left = self.left.wrapping_sub(d);
                    self.run_start = self.run_start.wrapping_add(run);
                    self.flags &= !(IN_ISR | LAZY);
                    self.charged = self.task;
                    return;
                }
            }
        }
        Self::isr_exit_slow(now, self);
    }

    #[cold]
    #[inline(never)]
    fn isr_exit_slow(now: u32, e: &mut Self) {
        e.isr_exit_rare(now);
    }

    /// The body of `isr_exit_slow`.
    #[inline(always)]
    fn isr_exit_rare(&mut self, now: u32) {
        // (Before accounting starts, what this does is discarded by `restart`.)
        if self.flags & IN_ISR == 0 {
            return;
        }
        if self.isr_depth != 0 {
            self.isr_depth -= 1;
            return;
        }
        let now = self.advance(now);
        self.note_run(Self::ISR, self.isr_carry.saturating_add(now.wrapping_sub(self.isr_start)));
        self.isr_carry = 0;
        self.flags &= !IN_ISR;
        let (start, carry) = self.resumed(now, self.isr_below);
        if self.flags & ASLEEP != 0 {
            self.charged = Self::SLEEP as u16;
            (self.sleep_start, self.sleep_carry) = (start, carry);
        } else {
            self.charged = self.task;
            (self.run_start, self.run_carry) = (start, carry);
            self.flags &= !PENDING;
        }
        self.sync_long();
    }

    /// The idle task goes to sleep (`traceLOW_POWER_IDLE_BEGIN`): the time until it
    /// wakes is sleep, not idle.
    pub fn sleep_begin(&mut self, now: u32) {
        if self.flags & (ASLEEP | IN_ISR) != 0 {
            return;
        }
        let now = self.advance(now);
        self.task = self.charged;
        self.sleep_task_run = self.run_carry.saturating_add(now.wrapping_sub(self.run_start));
        self.sleep_start = now;
        self.charged = Self::SLEEP as u16;
        self.flags |= ASLEEP;
    }

    /// The idle task woke up (`traceLOW_POWER_IDLE_END`).
    pub fn sleep_end(&mut self, now: u32) {
        if self.flags & (ASLEEP | IN_ISR) != ASLEEP {
            return;
        }
        let now = self.advance(now);
        self.note_run(Self::SLEEP, self.sleep_carry.saturating_add(now.wrapping_sub(self.sleep_start)));
        self.sleep_carry = 0;
        self.flags &= !(ASLEEP | PENDING);
        self.charged = self.task;
        (self.run_start, self.run_carry) = self.resumed(now, self.sleep_task_run);
        self.sync_long();
    }

    /// Where a run that has had `own` counts by `now` starts again, and its counts
    /// before that: not before the window's start, so that measuring it from there
    /// cannot wrap before the window closes.
    fn resumed(&self, now: u32, own: u32) -> (u32, u32) {
        let into = now.wrapping_sub(self.win_start);
        if own <= into {
            (now.wrapping_sub(own), 0)
        } else {
            (self.win_start, own - into)
        }
    }

    /// `LONG` is set exactly while a carry is not zero.
    fn sync_long(&mut self) {
        if self.run_carry | self.isr_carry | self.sleep_carry != 0 {
            self.flags |= LONG;
        } else {
            self.flags &= !LONG;
        }
    }

    /// The common case of a tick, in as few instructions as it takes: the window
    /// runs on and the running slot was already charged in it, so the counts since
    /// the last reading are one add. Returns false, having changed nothing, when the
    /// full path (`advance`) is needed: at most twice per slot and window.
    #[inline(always)]
    fn charge_fast(&mut self, now: u32) -> bool {
        let d = now.wrapping_sub(self.last);
        if d >= self.left {
            return false;
        }
        let window = self.window;
        match self.acct.get_mut(usize::from(self.charged)) {
            Some(a) if a.window == window => {
                a.counts = a.counts.wrapping_add(d);
                self.last = now;
                self.left = self.left.wrapping_sub(d);
                true
            }
            _ => false,
        }
    }

    /// Stores `isr_below` if the fast path of the interrupt under way left it to
    /// work out (`LAZY`): the task's run up to the handler, from the run's start and
    /// carry, which nothing but that handler's exit changes meanwhile.
    #[inline(always)]
    fn settle_below(&mut self) {
        if self.flags & LAZY != 0 {
            self.isr_below = self.run_carry.saturating_add(self.isr_start.wrapping_sub(self.run_start));
            self.flags &= !LAZY;
        }
    }

    /// Where task `id` is charged: its own slot if it is a live task's ID, else ID 0.
    #[inline(always)]
    fn slot_of(&self, id: u32) -> u16 {
        match self.meta.get((id as usize).wrapping_sub(1)) {
            Some(m) if m.state == TaskState::Alive => id as u16,
            _ => Self::OVERFLOW as u16,
        }
    }

    /// The charged slot and the flags as one number (the flags in the high half), as
    /// the common switch checks them: below `SLOTS`, no flag is set and it is the
    /// slot's index. (Side by side in the engine, so this is one 32-bit load.)
    #[inline(always)]
    fn charged_and_flags(&self) -> u32 {
        u32::from(self.charged) | u32::from(self.flags) << 16
    }

    /// Charges to ID 0 what a common switch put on a task slot without checking that
    /// its task lives (the slot's task is dead, or was never created): the start of
    /// every slow path, before anything is charged, so no such slot is ever charged.
    #[cold]
    #[inline(never)]
    pub(super) fn forget_dead(&mut self) {
        // (`task` is only ever set from `charged` after this, or to a live task.)
        if self.meta.get(usize::from(self.charged).wrapping_sub(1)).is_some_and(|m| !m.is_live()) {
            self.charged = Self::OVERFLOW as u16;
        }
    }

    /// A switch that closes a window, charges a slot for the first time in one,
    /// follows a task that deleted itself, or happens inside an interrupt handler.
    #[cold]
    #[inline(never)]
    fn switch_in_slow(now: u32, id: u32, e: &mut Self) {
        e.switch_in_rare(now, id);
    }

    /// The body of `switch_in_slow`.
    #[inline(always)]
    fn switch_in_rare(&mut self, now: u32, id: u32) {
        let now = self.advance(now);
        let paused = self.flags & (IN_ISR | ASLEEP) != 0;
        let out = usize::from(if paused { self.task } else { self.charged });
        // The task's own time: up to the interrupt (or sleep) it is paused in.
        let run = if self.flags & ASLEEP != 0 {
            self.sleep_task_run
        } else if paused {
            self.isr_below
        } else {
            self.run_carry.saturating_add(now.wrapping_sub(self.run_start))
        };
        // A task switched in inside a handler and out again before it ended never ran.
        if self.flags & PENDING == 0 {
            self.note_run(out, run);
        }
        self.run_carry = 0;
        if self.flags & DYING != 0 {
            // The task switched out deleted itself: this was its last switch.
            self.flags &= !DYING;
            self.release(out);
        }
        let next = self.slot_of(id);
        if paused {
            // A port that switches inside the handler: the new task's run starts
            // when the handler (or sleep) ends.
            self.task = next;
            if self.flags & ASLEEP == 0 {
                // (Asleep, it is the sleep's own time, and the sleep goes on.)
                self.isr_below = 0;
            }
            self.sleep_task_run = 0;
            self.flags |= PENDING;
        } else {
            self.charged = next;
            self.run_start = now;
        }
        self.sync_long();
    }

    /// Charges the counts since the last reading to the current slot, closing the
    /// window first if it has elapsed (unless a reader holds it open). Returns the
    /// reading taken: `now`, or the last one if `now` steps back from it (see
    /// [`Engine::reading`]), which the caller goes on with.
    #[inline(always)]
    pub(super) fn advance(&mut self, now: u32) -> u32 {
        Self::advance_at(now, self)
    }

    /// A clock reading as the engine takes it: one up to [`MAX_STEP_BACK`] counts
    /// earlier than the last is the last (no time passed), so no difference of two
    /// readings is ever negative. (Every slow path takes its reading through
    /// `advance`, which calls this; the common paths check `now - last` against the
    /// time left in the window, which a step back fails.)
    #[inline(always)]
    fn reading(&self, now: u32) -> u32 {
        if self.last.wrapping_sub(now).wrapping_sub(1) < MAX_STEP_BACK {
            self.last
        } else {
            now
        }
    }

    /// The body of `advance`.
    #[inline(always)]
    fn advance_rare(&mut self, now: u32) -> u32 {
        let now = self.reading(now);
        self.settle_below();
        // A slot charged in the window under way is live (a switch checks liveness
        // in the window a task with time in it died in: `DIED`), so only a slot not
        // charged in it yet needs the check.
        let window = self.window;
        if self.acct.get(usize::from(self.charged)).map_or(true, |a| a.window != window) {
            self.forget_dead();
        }
        if now.wrapping_sub(self.last) >= self.left {
            if self.held_open(now) {
                // The window goes on to here; each hook takes this path until the
                // reader is done.
                self.left = now.wrapping_sub(self.last);
            } else {
                self.roll_over(now);
            }
        }
        let d = now.wrapping_sub(self.last);
        self.last = now;
        self.left = self.left.wrapping_sub(d);
        self.credit(usize::from(self.charged), d);
        now
    }

    /// A reader holds the window under way open, and `now` is less than one more
    /// window past its end (the bound: a reader that never lets go stretches one
    /// window, by one window at most).
    #[inline(always)]
    fn held_open(&self, now: u32) -> bool {
        self.hold != 0 && now.wrapping_sub(self.win_start).wrapping_sub(self.win_len) < self.win_len
    }

    /// Adds `d` counts to a slot in the window under way, moving the slot on to it
    /// first if its figures are of an earlier window.
    fn credit(&mut self, slot: usize, d: u32) {
        let window = self.window;
        let old = self.acct.get(slot).map_or(window, |a| a.window);
        let len = self.len_of(old);
        if let Some(a) = self.acct.get_mut(slot) {
            if a.window != window {
                a.fold(window, len);
            }
            a.counts = a.counts.wrapping_add(d);
        }
    }

    /// The length of window `window` if it is the published one; otherwise the length
    /// set now, which is what every window had unless it was changed or a stall
    /// stretched one (see `peak` in the README).
    pub(super) fn len_of(&self, window: u32) -> u32 {
        if window == self.window.wrapping_sub(1) && self.published() {
            self.pub_len
        } else {
            self.win_len
        }
    }

    /// One run of a slot ended (or a window closes while it goes on): counted, and
    /// kept if it is the window's longest.
    fn note_run(&mut self, slot: usize, run: u32) {
        self.credit(slot, 0);
        #[cfg(feature = "watchdogs")]
        let limit = !self.watch.slice_inv;
        if let Some(a) = self.acct.get_mut(slot) {
            a.runs = a.runs.wrapping_add(1);
            if run > a.longest {
                a.longest = run;
                #[cfg(feature = "watchdogs")]
                if run > limit {
                    self.slice_over(slot, run);
                }
            }
        }
    }

    /// A run is over the slice watchdog's limit: if it is a task's, remember the
    /// longest such run of the window. (Interrupts, sleep and the time before the
    /// first task are not slices.)
    #[cfg(feature = "watchdogs")]
    #[cold]
    #[inline(never)]
    pub(super) fn slice_over(&mut self, slot: usize, run: u32) {
        // (Nor is the idle task's: it running long is an idle system.)
        // (`idle` is 0, the shared bucket's, until the scheduler starts.)
        if slot > IDS || (slot != Self::OVERFLOW && slot == usize::from(self.idle)) {
            return;
        }
        let w = &mut self.watch;
        if w.slice_over & SLICE_NOW == 0 || run > w.slice_len {
            w.slice_over |= SLICE_NOW;
            w.slice_len = run;
            w.slice_slot = slot as u16;
        }
    }

    /// Closes the window under way. It ends at `last + left` (`win_len` after its start;
    /// later if a reader held it open, or if a shorter window was set after the last
    /// reading), and the counts up to that point are charged to it; the rest go to
    /// the next window. If no hook ran for more than a whole further window
    /// (interrupts masked that long), the closing window takes the whole stall
    /// instead: no window is invented that nobody saw, and the published length says
    /// how long it really was.
    #[cold]
    #[inline(never)]
    fn roll_over(&mut self, now: u32) {
        let elapsed = now.wrapping_sub(self.win_start);
        let len = if elapsed.wrapping_sub(self.win_len) < self.win_len {
            self.last.wrapping_add(self.left).wrapping_sub(self.win_start)
        } else {
            elapsed
        };
        let end = self.win_start.wrapping_add(len);
        let d = end.wrapping_sub(self.last);
        self.last = end;
        self.credit(usize::from(self.charged), d);
        self.note_runs_going_on(end);
        #[cfg(feature = "watchdogs")]
        self.close_watch(len);
        self.pub_len = len;
        #[cfg(feature = "shell")]
        {
            self.overflow_in_window = [self.overflow_tasks, self.overflow_in_window[0]];
        }
        self.win_start = end;
        self.left = self.win_len;
        self.hold = 0;
        self.window = self.window.wrapping_add(1);
        // No slot has time in the new window yet, a dead task's neither.
        self.flags &= !DIED;
        self.refresh_one();
    }

    /// The runs still going on at the end of a window count in it, with their
    /// length so far: the task's, and the sleep's and interrupt's it is paused in.
    #[inline(always)] // (called by `roll_over` alone: one function, as it reads)
    fn note_runs_going_on(&mut self, end: u32) {
        let in_isr = self.flags & IN_ISR != 0;
        let asleep = self.flags & ASLEEP != 0;
        // Each run going on is measured from `end` on, with its length so far carried.
        if in_isr {
            let run = self.isr_carry.saturating_add(end.wrapping_sub(self.isr_start));
            (self.isr_start, self.isr_carry) = (end, run);
            self.note_run(Self::ISR, run);
        }
        if asleep {
            let sleep = if in_isr {
                self.isr_below
            } else {
                let run = self.sleep_carry.saturating_add(end.wrapping_sub(self.sleep_start));
                (self.sleep_start, self.sleep_carry) = (end, run);
                run
            };
            self.note_run(Self::SLEEP, sleep);
        }
        let (task, run) = if asleep {
            (self.task, self.sleep_task_run)
        } else if in_isr {
            (self.task, self.isr_below)
        } else if usize::from(self.charged) != Self::OTHER {
            let run = self.run_carry.saturating_add(end.wrapping_sub(self.run_start));
            (self.run_start, self.run_carry) = (end, run);
            (self.charged, run)
        } else {
            (self.charged, 0)
        };
        self.sync_long();
        // A task switched in inside a handler has no run before the handler ends.
        if self.phase & STARTED != 0 && usize::from(task) != Self::OTHER && self.flags & PENDING == 0 {
            self.note_run(usize::from(task), run);
        }
    }

    /// The window under way (`len` counts) closes: the smoothed loads take it in and
    /// the watchdogs judge it.
    #[cfg(feature = "watchdogs")]
    #[inline(always)] // (called by `roll_over` alone: one function, as it reads)
    fn close_watch(&mut self, len: u32) {
        let window = self.window;
        let in_window = |a: Option<&Acct>| a.map_or(0, |a| if a.window == window { a.counts } else { 0 });
        let idle = if self.idle == 0 { 0 } else { in_window(self.acct.get(usize::from(self.idle))) };
        let asleep = in_window(self.acct.get(Self::SLEEP));
        let busy = len.saturating_sub(idle).saturating_sub(asleep);
        for (avg, &keep) in self.load_avg.iter_mut().zip(self.smooth.iter()) {
            let keep = u64::from(keep);
            let take = u64::from(SMOOTH_ONE) - keep;
            // 16-bit fractions of counts below 2^32: every product stays below 2^64.
            avg.busy = (avg.busy * keep + (u64::from(busy) << 16) * take) >> 16;
            avg.len = (avg.len * keep + (u64::from(len) << 16) * take) >> 16;
        }

        let w = &mut self.watch;
        if w.load_windows != 0 {
            let over = u64::from(busy) * 10_000 > u64::from(w.load_pct) * u64::from(len);
            if !over {
                w.load_streak = 0;
            } else if w.load_streak < w.load_windows {
                w.load_streak += 1;
                if w.load_streak == w.load_windows {
                    w.alerts[LOAD_ALERT] =
                        Alert { kind: AlertKind::Load, window, value: busy, limit: len, ..Alert::NONE };
                    w.pending |= 1 << LOAD_ALERT;
                }
            }
        }
        if w.slice_over == SLICE_NOW {
            let slot = usize::from(w.slice_slot);
            let id = if slot == Self::OVERFLOW { OVERFLOW_ID as u16 } else { slot as u16 };
            let name = self.meta.get(slot.wrapping_sub(1)).map_or([0; NAME_LEN], |m| m.name);
            let w = &mut self.watch;
            w.alerts[SLICE_ALERT] =
                Alert { kind: AlertKind::Slice, window, value: w.slice_len, limit: !w.slice_inv, id, name };
            w.pending |= 1 << SLICE_ALERT;
        }
        let w = &mut self.watch;
        w.slice_over = if w.slice_over & SLICE_NOW != 0 { SLICE_BEFORE } else { 0 };
    }

    /// Moves one slot's figures on to at most two windows back (which reads the same:
    /// nothing recent, and the since-start figures complete), visiting every slot
    /// once per `SLOTS` rollovers, so stored window numbers always stay within a few
    /// thousand of `window`.
    #[inline(always)] // (called by `roll_over` alone: one function, as it reads)
    fn refresh_one(&mut self) {
        let oldest = self.window.wrapping_sub(2);
        let i = usize::from(self.refresh);
        self.refresh = if i + 1 >= SLOTS { 0 } else { i as u16 + 1 };
        let win_len = self.win_len;
        if let Some(a) = self.acct.get_mut(i) {
            if self.window.wrapping_sub(a.window) > 2 {
                a.fold(oldest, win_len);
            }
        }
        if let Some(m) = self.meta.get_mut(i.wrapping_sub(1)) {
            if self.window.wrapping_sub(m.mark) > 2 {
                m.mark = oldest;
            }
        }
    }

    /// Puts a dead task's ID in quarantine, stamped with the window it died in. If
    /// the task has time in the window under way, a common switch could charge its
    /// slot again (it checks only the range of the ID): `DIED` sends switches down
    /// the slow path, which checks liveness, until the window closes.
    pub(super) fn release(&mut self, slot: usize) {
        let window = self.window;
        if self.acct.get(slot).is_some_and(|a| a.window == window) {
            self.flags |= DIED;
        }
        let Some(m) = self.meta.get_mut(slot.wrapping_sub(1)) else { return };
        m.short_lived = m.mark == window;
        m.mark = window;
        m.state = TaskState::Dead;
        self.pool.quarantine(slot.wrapping_sub(1) as u16, &mut self.meta);
    }
}
