//! The tasks' lifecycle as the kernel's hooks report it: creation (an ID from the
//! pool, or the shared bucket), deletion (the ID into quarantine), the kernel's own
//! tasks as the scheduler starts. Not per switch, but still O(1).

use super::*;

impl<const IDS: usize, const SLOTS: usize, const WORDS: usize, const CORES: usize> Engine<IDS, SLOTS, WORDS, CORES> {
    /// A task was created (`traceTASK_CREATE`, on core `k`): returns its ID, 0 if every ID is
    /// taken (the task then shares the overflow bucket). Until the scheduler starts,
    /// the last [`Self::KEPT_FOR_KERNEL`] IDs are kept for the idle and timer tasks, which
    /// the kernel creates last ([`Engine::kernel_task`]).
    pub fn task_create(&mut self, k: usize, now: u32, name: &[u8]) -> u32 {
        self.advance(k, now);
        let window = self.window;
        // An ID whose last windows are gone leaves quarantine: at most one per create,
        // which is enough, because a create only ever needs one.
        if let Some(i) = self.pool.oldest() {
            if self.meta.get(i).is_some_and(|m| window.wrapping_sub(m.mark) >= 2) {
                self.pool.release_oldest(&self.meta);
                if let Some(m) = self.meta.get_mut(i) {
                    m.state = TaskState::Free;
                }
            }
        }
        match self.pool.take() {
            Some(i) if self.phase & SCHEDULING != 0 || i < IDS - Self::KEPT_FOR_KERNEL => self.seat(i, name),
            taken => {
                if let Some(i) = taken {
                    self.pool.put(i);
                }
                self.overflow_tasks = self.overflow_tasks.saturating_add(1);
                #[cfg(feature = "shell")]
                {
                    self.overflow_in_window[0] = self.overflow_in_window[0].saturating_add(1);
                    self.overflow_since_start = self.overflow_since_start.saturating_add(1);
                    // (The since-start line of the bucket counts it: see `Stamp`.)
                    self.changes = self.changes.wrapping_add(1);
                }
                OVERFLOW_ID
            }
        }
    }

    /// Gives slot index `i`, just taken from the pool, to a new task called `name`:
    /// returns its ID.
    fn seat(&mut self, i: usize, name: &[u8]) -> u32 {
        let window = self.window;
        let slot = i + 1;
        #[cfg(feature = "shell")]
        if let Some(a) = self.acct.get(slot) {
            let total = a.total_with_current();
            if total != 0 {
                self.retired.set(self.retired.get().wrapping_add(total));
                // The since-start figures moved from a line to `retired`: see `Stamp`.
                self.changes = self.changes.wrapping_add(1);
            }
        }
        if let Some(a) = self.acct.get_mut(slot) {
            *a = Acct { window: window.wrapping_sub(2), ..Acct::ZERO };
        }
        if let Some(m) = self.meta.get_mut(i) {
            let mut stored = [0u8; NAME_LEN];
            for (dst, src) in stored.iter_mut().zip(name.iter().take_while(|&&b| b != 0)) {
                *dst = *src;
            }
            *m = Meta { name: stored, mark: window, state: TaskState::Alive, short_lived: false, next: 0 };
        }
        slot as u32
    }

    /// One of the kernel's own tasks (the idle task, the timer service task), with
    /// the ID it got at creation, as the scheduler starts: returns the ID it keeps
    /// from now on. One that landed in the overflow bucket, because the application
    /// created more tasks than IDs before starting the scheduler, takes one of the
    /// IDs kept for it, so the idle line and the load are always right.
    /// `running`: the kernel has already switched it in on core `k` (the first task
    /// to run), so it is charged under its new ID from here.
    pub fn kernel_task(&mut self, k: usize, id: u32, name: &[u8], running: bool) -> u32 {
        if id != OVERFLOW_ID || self.phase & SCHEDULING != 0 {
            return id;
        }
        let Some(i) = self.pool.take() else { return id };
        // It never ran there: as if it had had its ID from the start.
        self.overflow_tasks = self.overflow_tasks.saturating_sub(1);
        #[cfg(feature = "shell")]
        {
            self.overflow_in_window[0] = self.overflow_in_window[0].saturating_sub(1);
            self.overflow_since_start = self.overflow_since_start.saturating_sub(1);
        }
        // A common switch may have put a stale ID on this slot: its time is not the
        // new task's (see `Engine::switch_in`). (A create does this in `advance`.)
        self.forget_dead(k);
        let id = self.seat(i, name);
        if running {
            let slot = id as u16;
            let r = &mut self.run[k & Self::CORE_MASK];
            if r.flags & (IN_ISR | ASLEEP) != 0 {
                r.task = slot;
            } else {
                r.charged = slot;
            }
        }
        id
    }

    /// A task was deleted (`traceTASK_DELETE`, on core `k`). Its time stays in the
    /// windows it ran in, marked deleted. A task deleted while it runs (itself, or on
    /// another core) keeps running (and being charged) until its core's next switch,
    /// which is when its ID enters quarantine.
    pub fn task_delete(&mut self, k: usize, now: u32, id: u32) -> Result<(), HookError> {
        self.advance(k, now);
        if id == OVERFLOW_ID {
            self.overflow_tasks = self.overflow_tasks.saturating_sub(1);
            return Ok(());
        }
        let slot = id as usize;
        // The core it runs on, if any (a task runs on one core at a time).
        let on = self
            .run
            .iter()
            .position(|r| usize::from(if r.flags & (IN_ISR | ASLEEP) != 0 { r.task } else { r.charged }) == slot);
        match self.meta.get_mut(slot.wrapping_sub(1)) {
            Some(m) if m.state == TaskState::Alive => {
                if let Some(r) = on.and_then(|j| self.run.get_mut(j)) {
                    m.state = TaskState::Dying;
                    r.flags |= DYING;
                } else {
                    self.release(slot);
                }
                Ok(())
            }
            _ => Err(HookError::UnknownId),
        }
    }

    /// The scheduler is starting; `idle_id` is the idle task's ID (never 0 after
    /// [`Engine::kernel_task`]). Accounting restarts next ([`Engine::restart`]).
    pub fn scheduler_start(&mut self, idle_id: u32) {
        self.idle = u16::try_from(idle_id).unwrap_or(0);
        self.phase |= SCHEDULING;
        if CORES > 1 {
            // Every core starts with an idle task (the kernel switches in only the
            // first core's; the others' first event is their idle task's switch-out).
            for (k, r) in self.run.iter_mut().enumerate() {
                r.charged = Self::idle_of(k) as u16;
            }
        }
    }

    /// With several cores, one of the idle tasks (which have no core of their own),
    /// with the ID it got at creation, as the scheduler starts: it gives that ID back
    /// and takes the idle tasks' ID, [`Self::IDLE`], which charges the idle slot of
    /// whichever core it runs on (see "Cores"). Returns that ID. On one core, the
    /// idle task is a kernel task as any other ([`Engine::kernel_task`]).
    pub fn idle_task(&mut self, k: usize, id: u32, name: &[u8], running: bool) -> u32 {
        if CORES == 1 {
            return self.kernel_task(k, id, name, running);
        }
        let slot = id as usize;
        if id == OVERFLOW_ID {
            self.overflow_tasks = self.overflow_tasks.saturating_sub(1);
            #[cfg(feature = "shell")]
            {
                self.overflow_in_window[0] = self.overflow_in_window[0].saturating_sub(1);
                self.overflow_since_start = self.overflow_since_start.saturating_sub(1);
            }
        } else if let Some(m) = self.meta.get_mut(slot.wrapping_sub(1)) {
            // It never ran under it: free at once, no quarantine.
            if m.state == TaskState::Alive && self.phase & SCHEDULING == 0 {
                *m = Meta::FREE;
                self.pool.put(slot - 1);
            }
        }
        Self::IDLE as u32
    }

    // ---- For the event trace (`crate::trace`) -------------------------------------

    /// The slot being charged now on core `k` (a slot index, see "Slots").
    #[cfg(feature = "trace")]
    #[inline(always)]
    pub(crate) fn charged_slot(&self, k: usize) -> u16 {
        self.run[k & Self::CORE_MASK].charged
    }

    /// The window under way, its start, and the last clock reading: every hook that
    /// changes the charged slot or closes a window reads the clock, and leaves its
    /// reading here.
    #[cfg(feature = "trace")]
    #[inline(always)]
    pub(crate) fn trace_clock(&self, k: usize) -> (u32, u32, u32) {
        (self.window, self.win_start, self.run[k & Self::CORE_MASK].last)
    }

    /// Task `id`'s name, also after its death; `None` for an ID never used.
    #[cfg(feature = "trace")]
    pub(crate) fn slot_name(&self, id: usize) -> Option<[u8; NAME_LEN]> {
        let m = self.meta.get(id.wrapping_sub(1))?;
        (m.state != TaskState::Free || m.name[0] != 0).then_some(m.name)
    }
}
