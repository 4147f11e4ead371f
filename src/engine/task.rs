//! The tasks' lifecycle as the kernel's hooks report it: creation (an ID from the
//! pool, or the shared bucket), deletion (the ID into quarantine), the kernel's own
//! tasks as the scheduler starts. Not per switch, but still O(1).

use super::*;

impl<const IDS: usize, const SLOTS: usize, const WORDS: usize> Engine<IDS, SLOTS, WORDS> {
    /// A task was created (`traceTASK_CREATE`): returns its ID, 0 if every ID is
    /// taken (the task then shares the overflow bucket). Until the scheduler starts,
    /// the last [`Self::KEPT_FOR_KERNEL`] IDs are kept for the idle and timer tasks, which
    /// the kernel creates last ([`Engine::kernel_task`]).
    pub fn task_create(&mut self, now: u32, name: &[u8]) -> u32 {
        self.advance(now);
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
    /// `running`: the kernel has already switched it in (the first task to run), so
    /// it is charged under its new ID from here.
    pub fn kernel_task(&mut self, id: u32, name: &[u8], running: bool) -> u32 {
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
        self.forget_dead();
        let id = self.seat(i, name);
        if running {
            let slot = id as u16;
            if self.flags & (IN_ISR | ASLEEP) != 0 {
                self.task = slot;
            } else {
                self.charged = slot;
            }
        }
        id
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
        let running = if self.flags & (IN_ISR | ASLEEP) != 0 { self.task } else { self.charged };
        match self.meta.get_mut(slot.wrapping_sub(1)) {
            Some(m) if m.state == TaskState::Alive => {
                if usize::from(running) == slot {
                    m.state = TaskState::Dying;
                    self.flags |= DYING;
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
    }

    // ---- For the event trace (`crate::trace`) -------------------------------------

    /// The slot being charged now (a slot index, see "Slots").
    #[cfg(feature = "trace")]
    #[inline(always)]
    pub(crate) fn charged_slot(&self) -> u16 {
        self.charged
    }

    /// The window under way, its start, and the last clock reading: every hook that
    /// changes the charged slot or closes a window reads the clock, and leaves its
    /// reading here.
    #[cfg(feature = "trace")]
    #[inline(always)]
    pub(crate) fn trace_clock(&self) -> (u32, u32, u32) {
        (self.window, self.win_start, self.last)
    }

    /// Task `id`'s name, also after its death; `None` for an ID never used.
    #[cfg(feature = "trace")]
    pub(crate) fn slot_name(&self, id: usize) -> Option<[u8; NAME_LEN]> {
        let m = self.meta.get(id.wrapping_sub(1))?;
        (m.state != TaskState::Free || m.name[0] != 0).then_some(m.name)
    }
}
