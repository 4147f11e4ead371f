//! The hot path: what the kernel's hooks call on every switch, tick, interrupt and
//! sleep, with everything they call, top to bottom (see "Hot path" in the engine's
//! docs): no allocation, no division, no floating point, no loop over tasks and no
//! panic path.

#[cfg(feature = "watchdogs")]
use super::watchdog::{Alert, AlertKind, LOAD_ALERT, SLICE_ALERT, SLICE_BEFORE, SLICE_NOW};
use super::*;

impl<const IDS: usize, const SLOTS: usize, const WORDS: usize, const CORES: usize> Engine<IDS, SLOTS, WORDS, CORES> {
    /// Task `id` is being switched in on core `k` (`traceTASK_SWITCHED_IN`): the task
    /// running there until now is charged up to `now`, and its run ends. An ID that is
    /// not a live task's (corrupted, or set by `vTaskSetTaskNumber`) is charged to ID 0.
    /// With several cores, the idle tasks' ID ([`Self::IDLE`]) charges core `k`'s idle
    /// slot (see "Cores").
    ///
    /// The common case checks only that `id` is at most `IDS` (so it is its slot's
    /// index, see "Slots"), not that its task lives: a slot whose task is dead or was
    /// never created has no time in the window under way (`DIED` covers the window
    /// its task died in), so whatever charges it next fails its fast path, and every
    /// slow path first moves the charge of such a slot to ID 0 (`forget_dead`), as if
    /// it had been checked here.
    #[inline]
    pub fn switch_in(&mut self, k: usize, now: u32, id: u32) {
        // The common case: nothing but a task was running, the window runs on, the
        // task was already charged in it, and its run is not its longest in it (the
        // last two are `switch_in_less_common`'s, each a few times per task and
        // window).
        let id = if CORES > 1 && id as usize == Self::IDLE { Self::idle_of(k) as u32 } else { id };
        let r = &self.run[k & Self::CORE_MASK];
        let d = now.wrapping_sub(r.last);
        if d < r.left && Self::switchable(id) {
            // (`get` checks that no flag is set and the charged slot is an index.)
            let (charged, window, run) = (r.charged_and_flags() as usize, self.window, now.wrapping_sub(r.run_start));
            if let Some(a) = self.acct.get(charged) {
                if a.window == window && run <= a.longest {
                    self.end_common_run(k, charged, now, d, id);
                } else {
                    self.pass_core(k);
                    Self::switch_in_less_common(now, id, run, self);
                }
                return;
            }
        }
        self.pass_core(k);
        Self::switch_in_slow(now, id, self);
    }

    /// A slot the common switch may store as charged: a task ID's (at most `IDS`)
    /// or, with several cores, an idle slot.
    #[inline(always)]
    fn switchable(id: u32) -> bool {
        if CORES > 1 {
            id as usize <= IDS || id as usize >= Self::IDLE
        } else {
            id as usize <= IDS
        }
    }

    /// Leaves core `k` where the slow path about to be called finds it
    /// (`slow_core`): with one core, nothing (it is 0). (So the slow paths take the
    /// arguments they took before there were cores, and a one-core build's hooks
    /// set up their calls as they did.)
    #[inline(always)]
    fn pass_core(&mut self, k: usize) {
        if CORES > 1 {
            self.slow_core = (k & Self::CORE_MASK) as u8;
        }
    }

    /// The core of the hook whose slow path runs (`pass_core`).
    #[inline(always)]
    fn slow_core(&self) -> usize {
        if CORES > 1 {
            usize::from(self.slow_core) & Self::CORE_MASK
        } else {
            0
        }
    }

    /// Core `k`'s slot of idle time (several cores).
    #[inline(always)]
    pub(super) const fn idle_of(k: usize) -> usize {
        Self::IDLE + (k & Self::CORE_MASK)
    }

    /// Core `k`'s slot of interrupts.
    #[inline(always)]
    pub(super) const fn isr_of(k: usize) -> usize {
        Self::ISR + (k & Self::CORE_MASK)
    }

    /// Core `k`'s slot of sleep.
    #[inline(always)]
    pub(super) const fn sleep_of(k: usize) -> usize {
        Self::SLEEP + (k & Self::CORE_MASK)
    }

    /// The end of a common switch on core `k`: the run of slot `charged`, which was
    /// charged in the window under way, is charged up to `now`, `d` counts after the
    /// last reading, and task `id`'s begins.
    #[inline(always)]
    fn end_common_run(&mut self, k: usize, charged: usize, now: u32, d: u32, id: u32) {
        if let Some(a) = self.acct.get_mut(charged) {
            a.counts = a.counts.wrapping_add(d);
            a.runs = a.runs.wrapping_add(1);
        }
        let r = &mut self.run[k & Self::CORE_MASK];
        r.last = now;
        r.left = r.left.wrapping_sub(d);
        r.run_start = now;
        // (`id` is a slot: at most `IDS`, or an idle slot.)
        r.charged = id as u16;
    }

    /// A common switch (no flag set, the ID in range, the window running on) whose
    /// run of `run` counts is its slot's longest in the window so far, or the slot's
    /// first charge in the window (`switch_in_first`): the run is kept, unless the
    /// slice watchdog may have to report it (the slow path).
    #[cold]
    #[inline(never)]
    fn switch_in_less_common(now: u32, id: u32, run: u32, e: &mut Self) {
        let k = e.slow_core();
        #[cfg(feature = "watchdogs")]
        if run > !e.watch.slice_inv {
            return Self::switch_in_slow(now, id, e);
        }
        let (charged, window) = (usize::from(e.run[k & Self::CORE_MASK].charged), e.window);
        match e.acct.get_mut(charged) {
            Some(a) if a.window == window => a.longest = run,
            _ => return Self::switch_in_first(now, id, run, e),
        }
        let d = now.wrapping_sub(e.run[k & Self::CORE_MASK].last);
        e.end_common_run(k, charged, now, d, id);
    }

    /// `switch_in_less_common` for a slot's first charge in the window: the slot is
    /// moved on to the window, unless it is a dead task's (which `forget_dead`, on
    /// the slow path, charges to ID 0).
    #[cold]
    #[inline(never)]
    fn switch_in_first(now: u32, id: u32, run: u32, e: &mut Self) {
        let k = e.slow_core();
        let charged = usize::from(e.run[k & Self::CORE_MASK].charged);
        if e.meta.get(charged.wrapping_sub(1)).is_some_and(|m| !m.is_live()) {
            return Self::switch_in_slow(now, id, e);
        }
        // (A slot moved on has no run in the window yet: this one is its longest.)
        e.credit(charged, 0);
        if let Some(a) = e.acct.get_mut(charged) {
            a.longest = run;
        }
        let d = now.wrapping_sub(e.run[k & Self::CORE_MASK].last);
        e.end_common_run(k, charged, now, d, id);
    }

    /// A tick on core `k` (`traceTASK_INCREMENT_TICK`): keeps readings less than a
    /// counter wrap apart and closes windows when nothing switches. Returns true when
    /// a watchdog has tripped ([`Engine::take_alert`]).
    #[inline]
    pub fn tick(&mut self, k: usize, now: u32) -> bool {
        if !self.charge_fast(k, now) {
            self.pass_core(k);
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
        e.advance_rare(e.slow_core(), now)
    }

    /// An interrupt handler starts on core `k`. Only the outermost of nested ones
    /// counts: its time, from here to its exit, is charged to the core's interrupts,
    /// not to what it interrupted.
    #[inline]
    pub fn isr_enter(&mut self, k: usize, now: u32) {
        // The common case: a task was running (not asleep, not in a handler) and was
        // already charged in this window, which runs on. (Its run may have begun
        // windows ago, as the idle task's does in an idle system: `LONG`.)
        if self.run[k & Self::CORE_MASK].flags & BUT_LONG_DIED == 0 && self.charge_fast(k, now) {
            // (What the task ran before the handler, `isr_below`, is left for a slow
            // path to work out, if one comes before the exit: `LAZY`.)
            let r = &mut self.run[k & Self::CORE_MASK];
            r.task = r.charged;
            r.charged = Self::isr_of(k) as u16;
            r.isr_start = now;
            r.flags |= IN_ISR | LAZY;
            return;
        }
        self.pass_core(k);
        Self::isr_enter_slow(now, self);
    }

    #[cold]
    #[inline(never)]
    fn isr_enter_slow(now: u32, e: &mut Self) {
        e.isr_enter_rare(e.slow_core(), now);
    }

    /// The body of `isr_enter_slow`.
    #[inline(always)]
    fn isr_enter_rare(&mut self, k: usize, now: u32) {
        // (Before accounting starts, what this does is discarded by `restart`, which
        // starts it.)
        if self.run[k & Self::CORE_MASK].flags & IN_ISR != 0 {
            // A nested handler: its time is the outermost one's, whose exit is no
            // longer the common one (no `LAZY`).
            self.settle_below(k);
            let r = &mut self.run[k & Self::CORE_MASK];
            r.isr_depth = r.isr_depth.saturating_add(1);
        } else {
            let now = self.advance(k, now);
            let r = &mut self.run[k & Self::CORE_MASK];
            // (The carry stays, and with it `LONG`: the exit must resume the run
            // through `resumed`.)
            r.isr_below = if r.flags & ASLEEP != 0 {
                r.sleep_carry.saturating_add(now.wrapping_sub(r.sleep_start))
            } else {
                r.run_carry.saturating_add(now.wrapping_sub(r.run_start))
            };
            if r.flags & ASLEEP == 0 {
                r.task = r.charged;
            }
            r.charged = Self::isr_of(k) as u16;
            r.isr_start = now;
            r.flags |= IN_ISR;
        }
    }

    /// An interrupt handler ends on core `k` (an exit with no handler under way is
    /// ignored).
    #[inline]
    pub fn isr_exit(&mut self, k: usize, now: u32) {
        // The common case: the outermost handler of a task (not of a sleep) ends,
        // entered on the fast path with no slow path since (`LAZY`: so in this
        // window, not nested, nothing carried), and the window runs on. The task's
        // run goes on from where it was: its start moves on by the handler's time.
        let r = &mut self.run[k & Self::CORE_MASK];
        let d = now.wrapping_sub(r.last);
        if r.flags & BUT_LONG_DIED == IN_ISR | LAZY && d < r.left {
            let (window, run) = (self.window, now.wrapping_sub(r.isr_start));
            // (The core's interrupt slot is the one charged while a handler runs.)
            if let Some(a) = self.acct.get_mut(Self::isr_of(k)) {
                if a.window == window {
                    a.counts = a.counts.wrapping_add(d);
                    a.runs = a.runs.wrapping_add(1);
                    if run > a.longest {
                        a.longest = run;
                    }
                    r.last = now;
                    r.left = r.left.wrapping_sub(d);
                    r.run_start = r.run_start.wrapping_add(run);
                    r.flags &= !(IN_ISR | LAZY);
                    r.charged = r.task;
                    return;
                }
            }
        }
        self.pass_core(k);
        Self::isr_exit_slow(now, self);
    }

    #[cold]
    #[inline(never)]
    fn isr_exit_slow(now: u32, e: &mut Self) {
        e.isr_exit_rare(e.slow_core(), now);
    }

    /// The body of `isr_exit_slow`.
    #[inline(always)]
    fn isr_exit_rare(&mut self, k: usize, now: u32) {
        // (Before accounting starts, what this does is discarded by `restart`.)
        let r = &mut self.run[k & Self::CORE_MASK];
        if r.flags & IN_ISR == 0 {
            return;
        }
        if r.isr_depth != 0 {
            r.isr_depth -= 1;
            return;
        }
        let now = self.advance(k, now);
        let r = &self.run[k & Self::CORE_MASK];
        let isr_run = r.isr_carry.saturating_add(now.wrapping_sub(r.isr_start));
        let below = r.isr_below;
        self.note_run(Self::isr_of(k), isr_run);
        let (start, carry) = self.resumed(now, below);
        let r = &mut self.run[k & Self::CORE_MASK];
        r.isr_carry = 0;
        r.flags &= !IN_ISR;
        if r.flags & ASLEEP != 0 {
            r.charged = Self::sleep_of(k) as u16;
            (r.sleep_start, r.sleep_carry) = (start, carry);
        } else {
            r.charged = r.task;
            (r.run_start, r.run_carry) = (start, carry);
            r.flags &= !PENDING;
        }
        r.sync_long();
    }

    /// The idle task on core `k` goes to sleep (`traceLOW_POWER_IDLE_BEGIN`): the
    /// time until it wakes is the core's sleep, not idle.
    pub fn sleep_begin(&mut self, k: usize, now: u32) {
        if self.run[k & Self::CORE_MASK].flags & (ASLEEP | IN_ISR) != 0 {
            return;
        }
        let now = self.advance(k, now);
        let r = &mut self.run[k & Self::CORE_MASK];
        r.task = r.charged;
        r.sleep_task_run = r.run_carry.saturating_add(now.wrapping_sub(r.run_start));
        r.sleep_start = now;
        r.charged = Self::sleep_of(k) as u16;
        r.flags |= ASLEEP;
    }

    /// The idle task on core `k` woke up (`traceLOW_POWER_IDLE_END`).
    pub fn sleep_end(&mut self, k: usize, now: u32) {
        if self.run[k & Self::CORE_MASK].flags & (ASLEEP | IN_ISR) != ASLEEP {
            return;
        }
        let now = self.advance(k, now);
        let r = &self.run[k & Self::CORE_MASK];
        let (sleep, task_run) = (r.sleep_carry.saturating_add(now.wrapping_sub(r.sleep_start)), r.sleep_task_run);
        self.note_run(Self::sleep_of(k), sleep);
        let (start, carry) = self.resumed(now, task_run);
        let r = &mut self.run[k & Self::CORE_MASK];
        r.sleep_carry = 0;
        r.flags &= !(ASLEEP | PENDING);
        r.charged = r.task;
        (r.run_start, r.run_carry) = (start, carry);
        r.sync_long();
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

    /// The common case of a tick on core `k`, in as few instructions as it takes:
    /// the window runs on and the core's running slot was already charged in it, so
    /// the counts since the last reading are one add. Returns false, having changed
    /// nothing, when the full path (`advance`) is needed: at most twice per slot and
    /// window.
    #[inline(always)]
    fn charge_fast(&mut self, k: usize, now: u32) -> bool {
        let r = &mut self.run[k & Self::CORE_MASK];
        let d = now.wrapping_sub(r.last);
        if d >= r.left {
            return false;
        }
        let window = self.window;
        match self.acct.get_mut(usize::from(r.charged)) {
            Some(a) if a.window == window => {
                a.counts = a.counts.wrapping_add(d);
                r.last = now;
                r.left = r.left.wrapping_sub(d);
                true
            }
            _ => false,
        }
    }

    /// Stores core `k`'s `isr_below` if the fast path of the interrupt under way left
    /// it to work out (`LAZY`): the task's run up to the handler, from the run's start
    /// and carry, which nothing but that handler's exit changes meanwhile.
    #[inline(always)]
    fn settle_below(&mut self, k: usize) {
        let r = &mut self.run[k & Self::CORE_MASK];
        if r.flags & LAZY != 0 {
            r.isr_below = r.run_carry.saturating_add(r.isr_start.wrapping_sub(r.run_start));
            r.flags &= !LAZY;
        }
    }

    /// Where task `id` is charged on core `k`: its own slot if it is a live task's
    /// ID, the core's idle slot for the idle tasks' ID on several cores, else ID 0.
    #[inline(always)]
    fn slot_of(&self, k: usize, id: u32) -> u16 {
        // (The common switch may have mapped the idle tasks' ID already.)
        if CORES > 1 && (id as usize == Self::IDLE || id as usize == Self::idle_of(k)) {
            return Self::idle_of(k) as u16;
        }
        match self.meta.get((id as usize).wrapping_sub(1)) {
            Some(m) if m.state == TaskState::Alive => id as u16,
            _ => Self::OVERFLOW as u16,
        }
    }

    /// Charges to ID 0 what a common switch put on core `k`'s task slot without
    /// checking that its task lives (the slot's task is dead, or was never created):
    /// the start of every slow path, before anything is charged, so no such slot is
    /// ever charged.
    #[cold]
    #[inline(never)]
    pub(super) fn forget_dead(&mut self, k: usize) {
        // (`task` is only ever set from `charged` after this, or to a live task.)
        let r = &mut self.run[k & Self::CORE_MASK];
        if self.meta.get(usize::from(r.charged).wrapping_sub(1)).is_some_and(|m| !m.is_live()) {
            r.charged = Self::OVERFLOW as u16;
        }
    }

    /// A switch that closes a window, charges a slot for the first time in one,
    /// follows a task that deleted itself, or happens inside an interrupt handler.
    #[cold]
    #[inline(never)]
    fn switch_in_slow(now: u32, id: u32, e: &mut Self) {
        e.switch_in_rare(e.slow_core(), now, id);
    }

    /// The body of `switch_in_slow`.
    #[inline(always)]
    fn switch_in_rare(&mut self, k: usize, now: u32, id: u32) {
        let now = self.advance(k, now);
        let r = &self.run[k & Self::CORE_MASK];
        let paused = r.flags & (IN_ISR | ASLEEP) != 0;
        let out = usize::from(if paused { r.task } else { r.charged });
        // The task's own time: up to the interrupt (or sleep) it is paused in.
        let run = if r.flags & ASLEEP != 0 {
            r.sleep_task_run
        } else if paused {
            r.isr_below
        } else {
            r.run_carry.saturating_add(now.wrapping_sub(r.run_start))
        };
        // A task switched in inside a handler and out again before it ended never ran.
        if r.flags & PENDING == 0 {
            self.note_run(out, run);
        }
        let r = &mut self.run[k & Self::CORE_MASK];
        r.run_carry = 0;
        if r.flags & DYING != 0 {
            // The task switched out deleted itself (or was deleted while it ran
            // here): this was its last switch.
            r.flags &= !DYING;
            self.release(out);
        }
        let next = self.slot_of(k, id);
        let r = &mut self.run[k & Self::CORE_MASK];
        if paused {
            // A port that switches inside the handler: the new task's run starts
            // when the handler (or sleep) ends.
            r.task = next;
            if r.flags & ASLEEP == 0 {
                // (Asleep, it is the sleep's own time, and the sleep goes on.)
                r.isr_below = 0;
            }
            r.sleep_task_run = 0;
            r.flags |= PENDING;
        } else {
            r.charged = next;
            r.run_start = now;
        }
        r.sync_long();
    }

    /// Charges the counts since core `k`'s last reading to its current slot, closing
    /// the window first if it has elapsed (unless a reader holds it open). Returns
    /// the reading taken: `now`, or the last one if `now` steps back from it (see
    /// [`Engine::reading`]), which the caller goes on with.
    #[inline(always)]
    pub(super) fn advance(&mut self, k: usize, now: u32) -> u32 {
        self.pass_core(k);
        Self::advance_at(now, self)
    }

    /// A clock reading as the engine takes it on core `k`: one up to
    /// [`MAX_STEP_BACK`] counts earlier than the core's last is the last (no time
    /// passed), so no difference of two readings is ever negative. (Every slow path
    /// takes its reading through `advance`, which calls this; the common paths check
    /// `now - last` against the time left in the window, which a step back fails.)
    #[inline(always)]
    fn reading(&self, k: usize, now: u32) -> u32 {
        let last = self.run[k & Self::CORE_MASK].last;
        if last.wrapping_sub(now).wrapping_sub(1) < MAX_STEP_BACK {
            last
        } else {
            now
        }
    }

    /// The body of `advance`.
    #[inline(always)]
    fn advance_rare(&mut self, k: usize, now: u32) -> u32 {
        let now = self.reading(k, now);
        self.settle_below(k);
        self.forget_if_dead(k);
        let r = &self.run[k & Self::CORE_MASK];
        if now.wrapping_sub(r.last) >= r.left {
            if self.held_open(now) {
                // The window goes on to here, on every core; each hook takes this
                // path until the reader is done.
                let reach = now.wrapping_sub(self.win_start);
                let win_start = self.win_start;
                for r in self.run.iter_mut() {
                    r.left = reach.wrapping_sub(r.last.wrapping_sub(win_start));
                }
            } else {
                self.roll_over(k, now);
            }
        }
        let r = &mut self.run[k & Self::CORE_MASK];
        let d = now.wrapping_sub(r.last);
        r.last = now;
        r.left = r.left.wrapping_sub(d);
        let charged = usize::from(r.charged);
        self.credit(charged, d);
        now
    }

    /// `forget_dead` for core `k`, if its slot has not been charged in the window
    /// under way: a slot charged in it is live (a switch checks liveness in the
    /// window a task with time in it died in: `DIED`), so only a slot not charged in
    /// it yet needs the check.
    #[inline(always)]
    fn forget_if_dead(&mut self, k: usize) {
        let window = self.window;
        let charged = usize::from(self.run[k & Self::CORE_MASK].charged);
        if self.acct.get(charged).map_or(true, |a| a.window != window) {
            self.forget_dead(k);
        }
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
        // (Nor is the idle task's: it running long is an idle system. With several
        // cores the idle slots are past `IDS`.)
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

    /// Closes the window under way (core `k`'s hook found it elapsed at `now`). It
    /// ends at `last + left` (`win_len` after its start; later if a reader held it
    /// open, or if a shorter window was set after the last reading: the same instant
    /// on every core), and the counts up to that point are charged to it, on every
    /// core; the rest go to the next window. If no hook ran for more than a whole
    /// further window (interrupts masked that long), the closing window takes the
    /// whole stall instead: no window is invented that nobody saw, and the published
    /// length says how long it really was.
    #[cold]
    #[inline(never)]
    fn roll_over(&mut self, k: usize, now: u32) {
        self.seq_step();
        let (win_start, win_len) = (self.win_start, self.win_len);
        let elapsed = now.wrapping_sub(win_start);
        let r = &self.run[k & Self::CORE_MASK];
        let len = if elapsed.wrapping_sub(win_len) < win_len {
            r.last.wrapping_add(r.left).wrapping_sub(win_start)
        } else {
            elapsed
        };
        let end = win_start.wrapping_add(len);
        let k = k & Self::CORE_MASK;
        for j in 0..CORES {
            // (`advance` did this for core `k`.)
            if j != k {
                self.forget_if_dead(j);
            }
            let r = &mut self.run[j];
            // (Every core's last reading is at most `end`: the hooks run one at a
            // time and read one clock; core `k`'s is by the choice of `end`. One
            // past it is left where it is.)
            let past = r.last.wrapping_sub(win_start);
            if j == k || past <= len {
                r.last = end;
                let charged = usize::from(r.charged);
                self.credit(charged, len - past);
            }
            self.note_runs_going_on(j, end);
        }
        #[cfg(feature = "watchdogs")]
        self.close_watch(len);
        self.pub_len = len;
        #[cfg(feature = "shell")]
        {
            self.overflow_in_window = [self.overflow_tasks, self.overflow_in_window[0]];
        }
        self.win_start = end;
        self.hold = 0;
        self.window = self.window.wrapping_add(1);
        for r in self.run.iter_mut() {
            r.left = win_len.wrapping_sub(r.last.wrapping_sub(end));
            // No slot has time in the new window yet, a dead task's neither.
            r.flags &= !DIED;
        }
        self.refresh_one();
        self.seq_step();
    }

    /// The read-out's sequence counter steps: odd from the first of a pair of steps
    /// to the second, around everything that changes which figures are published
    /// (see `readout.rs`). The fences keep the compiler from moving stores across it
    /// (they are no instruction on one core).
    #[inline(always)]
    pub(super) fn seq_step(&mut self) {
        compiler_fence(Ordering::Release);
        self.seq = self.seq.wrapping_add(1);
        compiler_fence(Ordering::Release);
    }

    /// The runs still going on on core `k` at the end of a window count in it, with
    /// their length so far: the task's, and the sleep's and interrupt's it is paused
    /// in.
    #[inline(always)] // (called by `roll_over` alone: one function, as it reads)
    fn note_runs_going_on(&mut self, k: usize, end: u32) {
        let r = &mut self.run[k & Self::CORE_MASK];
        let in_isr = r.flags & IN_ISR != 0;
        let asleep = r.flags & ASLEEP != 0;
        // Each run going on is measured from `end` on, with its length so far carried.
        if in_isr {
            let run = r.isr_carry.saturating_add(end.wrapping_sub(r.isr_start));
            (r.isr_start, r.isr_carry) = (end, run);
            self.note_run(Self::isr_of(k), run);
        }
        let r = &mut self.run[k & Self::CORE_MASK];
        if asleep {
            let sleep = if in_isr {
                r.isr_below
            } else {
                let run = r.sleep_carry.saturating_add(end.wrapping_sub(r.sleep_start));
                (r.sleep_start, r.sleep_carry) = (end, run);
                run
            };
            self.note_run(Self::sleep_of(k), sleep);
        }
        let r = &mut self.run[k & Self::CORE_MASK];
        let (task, run) = if asleep {
            (r.task, r.sleep_task_run)
        } else if in_isr {
            (r.task, r.isr_below)
        } else if usize::from(r.charged) != Self::OTHER {
            let run = r.run_carry.saturating_add(end.wrapping_sub(r.run_start));
            (r.run_start, r.run_carry) = (end, run);
            (r.charged, run)
        } else {
            (r.charged, 0)
        };
        r.sync_long();
        // A task switched in inside a handler has no run before the handler ends.
        if self.phase & STARTED != 0 && usize::from(task) != Self::OTHER && r.flags & PENDING == 0 {
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
        // What every core was not busy with: the idle task's time, and sleep. With
        // several cores, the busy time is their sum, and the smoothed loads take the
        // average core's (a shift: the core count is a power of two).
        let mut rest = 0u64;
        for k in 0..CORES {
            let idle = if CORES > 1 {
                in_window(self.acct.get(Self::idle_of(k)))
            } else if self.idle == 0 {
                0
            } else {
                in_window(self.acct.get(usize::from(self.idle)))
            };
            rest += u64::from(idle) + u64::from(in_window(self.acct.get(Self::sleep_of(k))));
        }
        let all = u64::from(len) * CORES as u64;
        let busy_all = all.saturating_sub(rest);
        let busy = (busy_all >> CORES.trailing_zeros()) as u32;
        for (avg, &keep) in self.load_avg.iter_mut().zip(self.smooth.iter()) {
            let keep = u64::from(keep);
            let take = u64::from(SMOOTH_ONE) - keep;
            // 16-bit fractions of counts below 2^32: every product stays below 2^64.
            avg.busy = (avg.busy * keep + (u64::from(busy) << 16) * take) >> 16;
            avg.len = (avg.len * keep + (u64::from(len) << 16) * take) >> 16;
        }

        let w = &mut self.watch;
        if w.load_windows != 0 {
            let over = busy_all * 10_000 > u64::from(w.load_pct) * all;
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
            for r in self.run.iter_mut() {
                r.flags |= DIED;
            }
        }
        let Some(m) = self.meta.get_mut(slot.wrapping_sub(1)) else { return };
        m.short_lived = m.mark == window;
        m.mark = window;
        m.state = TaskState::Dead;
        self.pool.quarantine(slot.wrapping_sub(1) as u16, &mut self.meta);
    }
}

impl Run {
    /// The charged slot and the flags as one number (the flags in the high half), as
    /// the common switch checks them: below `SLOTS`, no flag is set and it is the
    /// slot's index. (Side by side, so this is one 32-bit load.)
    #[inline(always)]
    fn charged_and_flags(&self) -> u32 {
        u32::from(self.charged) | u32::from(self.flags) << 16
    }

    /// `LONG` is set exactly while a carry is not zero.
    fn sync_long(&mut self) {
        if self.run_carry | self.isr_carry | self.sleep_carry != 0 {
            self.flags |= LONG;
        } else {
            self.flags &= !LONG;
        }
    }
}
