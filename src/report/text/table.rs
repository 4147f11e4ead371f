//! The report as a table, one line per task, for people.

use super::*;
use crate::engine::NAME_LEN;

impl Report<'_> {
    /// The head, before the tasks.
    #[inline(never)]
    pub(super) fn table_head(&mut self) {
        let (h, clock, opts) = (self.header, self.clock, self.opts);
        let us = counts_to_us(self.span(), clock.hz);
        let out = &mut self.out;
        if opts.cumulative {
            out.put(b"CPU usage since start: ");
            out.duration(b"", us, 0);
            out.put(b" (");
            out.int(u64::from(h.window));
            out.put(b" windows)");
        } else {
            out.put(b"CPU usage, window #");
            out.int(u64::from(h.window));
            out.put(b": ");
            out.duration(b"", us, 0);
        }
        if CORES > 1 {
            out.put(b" on ");
            out.int(CORES as u64);
            out.put(b" cores");
        }
        out.put(b", clock ");
        out.put(clock.name.as_bytes());
        out.byte(b' ');
        out.int(u64::from(clock.hz));
        out.put(b" Hz");
        if CORES > 1 {
            out.put(b"; shares of all cores");
        }
        out.put(b"\n  ID  ");
        out.name_cell(b"TASK");
        cells::table_head(out, opts, true);
    }

    /// The lines after the tasks, before idle's: the others summed, the deleted, and
    /// the rule.
    #[inline(never)]
    pub(super) fn table_tail(&mut self) {
        let opts = self.opts;
        let more = self.survey.tasks.less(self.printed);
        let deleted = self.survey.deleted;
        let out = &mut self.out;
        if more.lines != 0 {
            out.put(b"      (");
            let digits = out.num(u64::from(more.lines), 0, b' ');
            let label: &[u8] = if more.lines == 1 { b" more task)" } else { b" more tasks)" };
            out.put(label);
            // Not cut to the name column, unlike a name: the count must show.
            out.fill(b' ', NAME_LEN.saturating_sub(1 + digits + label.len()));
            out.share(b" ", more.share(), more.counts != 0, 7);
            out.byte(b'\n');
        }
        if opts.cumulative || deleted.lines != 0 {
            out.put(b"      (");
            let mut columns = 1;
            if !opts.cumulative {
                columns += out.num(u64::from(deleted.lines), 0, b' ') + 1;
                out.byte(b' ');
            }
            // ("(N deleted)" in a window: the count and the label fit the name column.)
            let label: &[u8] = if opts.cumulative { b"deleted tasks)" } else { b"deleted)" };
            out.put(label);
            out.fill(b' ', NAME_LEN.saturating_sub(columns + label.len()));
            out.share(b" ", deleted.share(), deleted.counts != 0, 7);
            out.byte(b'\n');
        }
        out.put(b"  ");
        let columns = cells::table_head(out, opts, false);
        out.fill(b'-', NAME_LEN + 6 + columns);
        out.byte(b'\n');
    }

    /// The lines after idle's: interrupts, sleep, other, load and the ID pool.
    #[inline(never)]
    pub(super) fn table_rest(&mut self) -> Result<(), Changed> {
        let clock = self.clock;
        // One line read at a time into `line`, in the engine's order (idle's again,
        // for its share).
        let mut line = Line::EMPTY;
        let idle = self.idle(&mut line)?.unwrap_or_default();
        let mut shares = self.summaries();
        let isr = self.summary(&mut shares, 0, &mut line)?;
        let out = &mut self.out;
        summary_share(out, b"interrupts", isr, b"  ");
        out.int(line.row.runs);
        out.put(b" interrupts, longest ");
        longest(out, b"", clock, &line.row, 0);
        out.byte(b'\n');
        let sleep = self.summary(&mut shares, 1, &mut line)?;
        summary_share(&mut self.out, b"sleep", sleep, b"  asleep in tickless idle\n");
        let other = self.summary(&mut shares, 2, &mut line)?;
        summary_share(&mut self.out, b"other", other, b"  kernel and unattributed\n");
        let (load, busy) = self.load(idle, sleep);
        let out = &mut self.out;
        out.put(b"      ");
        out.name_cell(b"load");
        out.share(b" ", load, busy, 7);
        out.put(b"  100% - idle - sleep\n");
        if CORES > 1 {
            self.table_cores()?;
        }
        self.table_load_avg()
    }

    /// Each core's line (several cores): its busy time, idle, interrupts and sleep,
    /// each a share of that core's time.
    #[inline(never)]
    fn table_cores(&mut self) -> Result<(), Changed> {
        let mut line = Line::EMPTY;
        for k in 0..CORES {
            let core = self.core(k, &mut line)?;
            let out = &mut self.out;
            out.put(b"      core ");
            let digits = out.num(k as u64, 0, b' ');
            out.fill(b' ', NAME_LEN.saturating_sub(5 + digits));
            out.share(b" ", core.busy, core.busy != 0, 7);
            out.put(b"  busy; idle ");
            out.share(b"", core.idle, core.idle != 0, 0);
            out.put(b", interrupts ");
            out.share(b"", core.interrupts, core.interrupts != 0, 0);
            out.put(b", sleep ");
            out.share(b"", core.sleep, core.sleep != 0, 0);
            out.byte(b'\n');
        }
        Ok(())
    }

    /// The smoothed loads and the ID pool: the last lines. (Apart, so that the loads
    /// are not on the stack while the lines above are read.)
    #[inline(never)]
    fn table_load_avg(&mut self) -> Result<(), Changed> {
        let load_avg = self.src.load_avg()?;
        let out = &mut self.out;
        for (i, a) in load_avg.iter().enumerate() {
            out.put(match i {
                0 => b"load avg   1 s ",
                1 => b"  10 s ",
                _ => b"  60 s ",
            });
            if a.len == 0 {
                out.byte(b'-');
            } else {
                out.share(b"", pct_of(a.busy, a.len), a.busy != 0, 6);
            }
        }
        // The pool as it is now (the figures above are of the window or since start).
        out.put(b"\nIDs now: ");
        let slots = self.survey.slots;
        out.int(u64::from(slots.used));
        out.put(b" used, ");
        out.int(u64::from(slots.quarantined));
        out.put(b" quarantined, ");
        out.int(u64::from(slots.free));
        out.put(b" free of ");
        out.int(u64::from(slots.capacity));
        out.put(b"; tasks without one: ");
        out.int(u64::from(slots.overflow_tasks));
        out.byte(b'\n');
        Ok(())
    }
}

/// The start of a line of interrupts, sleep or other: its name and share, then
/// `text`.
fn summary_share(out: &mut Out<'_>, name: &[u8], sum: Sum, text: &[u8]) {
    out.put(b"      ");
    out.name_cell(name);
    out.share(b" ", sum.share(), sum.counts != 0, 7);
    out.put(text);
}
/// `lead`, then a longest run: `0` for none, a duration otherwise (`0.000 ms` for a
/// run too short for a microsecond), right-aligned in `width`.
#[inline(always)]
fn longest(out: &mut Out<'_>, lead: &[u8], clock: ClockInfo<'_>, row: &Row, width: usize) {
    if row.longest == 0 {
        out.num_in(lead, 0, width, b' ', b"");
    } else {
        out.duration(lead, counts_to_us(u64::from(row.longest), clock.hz), width);
    }
}
