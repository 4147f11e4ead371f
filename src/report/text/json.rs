//! The report as one line of JSON (`show_cpu_usage -m`).

use super::*;

impl Report<'_> {
    /// The head, before the tasks.
    #[inline(never)]
    pub(super) fn json_head(&mut self) {
        let (h, clock, cumulative, span) = (self.header, self.clock, self.opts.cumulative, self.span());
        let out = &mut self.out;
        if cumulative {
            out.put(b"{\"mode\":\"cumulative\"");
            out.key_int(b"windows", u64::from(h.window));
            out.key_int(b"uptime_us", counts_to_us(span, clock.hz));
            out.key_int(b"uptime_counts", span);
        } else {
            out.put(b"{\"mode\":\"window\"");
            out.key_int(b"window", u64::from(h.window));
            out.key_int(b"window_us", counts_to_us(h.length, clock.hz));
            out.key_int(b"window_counts", h.length);
        }
        out.key(b"clock");
        out.json_str(clock.name.as_bytes());
        out.key_int(b"clock_hz", u64::from(clock.hz));
        if CORES > 1 {
            out.key_int(b"cores", CORES as u64);
        }
        out.put(b",\"tasks\":[");
    }

    /// What follows the tasks, up to the idle task's line.
    #[inline(never)]
    pub(super) fn json_tail(&mut self) {
        let cumulative = self.opts.cumulative;
        let out = &mut self.out;
        out.put(b"]");
        // (After the tasks: the walk that prints them counts the IDs.)
        let slots = self.survey.slots;
        out.put(b",\"slots\":{\"capacity\":");
        out.int(u64::from(slots.capacity));
        out.key_int(b"used", u64::from(slots.used));
        out.key_int(b"quarantined", u64::from(slots.quarantined));
        out.key_int(b"free", u64::from(slots.free));
        out.key_int(b"overflow_tasks", u64::from(slots.overflow_tasks));
        out.put(b"}");
        let more = self.survey.tasks.less(self.printed);
        if more.lines != 0 {
            out.put(b",\"more_tasks\":{\"count\":");
            out.int(u64::from(more.lines));
            out.key_int(b"counts", more.counts);
            out.key_pct(b"usage_pct", more.share());
            out.put(b"}");
        }
        let deleted = self.survey.deleted;
        if !cumulative {
            out.key_int(b"deleted_tasks", u64::from(deleted.lines));
        }
        out.key_int(b"deleted_counts", deleted.counts);
        out.key_pct(b"deleted_pct", deleted.share());
    }

    /// Everything after the idle task's line.
    #[inline(never)]
    pub(super) fn json_rest(&mut self) -> Result<(), Changed> {
        let clock = self.clock;
        // One line read at a time into `line`, in the engine's order (idle's again,
        // for its share).
        let mut line = Line::EMPTY;
        let idle = self.idle(&mut line)?.unwrap_or_default();
        let mut shares = self.summaries();
        let isr = self.summary(&mut shares, 0, &mut line)?;
        let out = &mut self.out;
        out.key_int(b"interrupts_counts", isr.counts);
        out.key_pct(b"interrupts_pct", isr.share());
        out.key_int(b"interrupts", line.row.runs);
        out.key_int(b"longest_interrupt_us", counts_to_us(u64::from(line.row.longest), clock.hz));
        let sleep = self.summary(&mut shares, 1, &mut line)?;
        let out = &mut self.out;
        out.key_int(b"sleep_counts", sleep.counts);
        out.key_pct(b"sleep_pct", sleep.share());
        out.key_int(b"sleeps", line.row.runs);
        let other = self.summary(&mut shares, 2, &mut line)?;
        let (load, _) = self.load(idle, sleep);
        let out = &mut self.out;
        out.key_int(b"other_counts", other.counts);
        out.key_pct(b"other_pct", other.share());
        out.key_pct(b"idle_pct", idle.share());
        out.key_pct(b"load_pct", load);
        if CORES > 1 {
            self.json_cores()?;
        }
        let load_avg = self.src.load_avg()?;
        let out = &mut self.out;
        out.put(b",\"load_avg_pct\":");
        for (i, a) in load_avg.iter().enumerate() {
            out.put(if i == 0 { b"[" } else { b"," });
            if a.len == 0 {
                out.put(b"null");
            } else {
                out.pct(u64::from(pct_of(a.busy, a.len)), 0);
            }
        }
        out.put(b"]}\n");
        Ok(())
    }

    /// Each core's figures (several cores): `per_core`, shares of that core's time.
    #[inline(never)]
    fn json_cores(&mut self) -> Result<(), Changed> {
        let mut line = Line::EMPTY;
        for k in 0..CORES {
            let core = self.core(k, &mut line)?;
            let out = &mut self.out;
            out.put(if k == 0 { b",\"per_core\":[{\"core\":" } else { b",{\"core\":" });
            out.int(k as u64);
            out.key_pct(b"busy_pct", core.busy);
            out.key_pct(b"idle_pct", core.idle);
            out.key_pct(b"interrupts_pct", core.interrupts);
            out.key_pct(b"sleep_pct", core.sleep);
            out.key_int(b"interrupts", core.isr_runs);
            out.put(b"}");
        }
        self.out.put(b"]");
        Ok(())
    }
}
