//! Reading the engine one line at a time.
//!
//! A report never holds all of its lines: a reader takes the [`Header`], then each
//! [`Line`] it needs by its position, each in a critical section of its own, and
//! formats it outside. What it reads stays the same between two rollovers: the
//! published window does not change, and the since-start figures run to the end of
//! that window. Creates and deletes after that end do not change it either: a line
//! says whether its task existed, and was deleted, as of the window's end.
//!
//! # Readers hold the rollover
//! So that a report is always of one window however long it takes to go out, a
//! reader holds the window under way open from its header to its last line
//! ([`Engine::hold`], [`Engine::let_go`]): the hook that would close it lets it run
//! on instead, and the window closes at the first hook after the reader is done,
//! that much longer (its length says by how much). A reader that never lets go holds
//! one window, by at most one more window: then the window closes anyway, and the
//! reader sees another [`Stamp`]. So does a reader of a window when accounting
//! restarts, and a since-start reader when a new task takes an ID whose since-start
//! figures were still shown (they move to [`Header::retired`]) or joins the shared
//! bucket.
//!
//! # Positions
//! Every report apportions its shares over the lines in this one order, whatever it
//! prints and in which order: 0 is the bucket shared by tasks without an ID,
//! `1..=IDS` are the task IDs, then interrupts, sleep, and "other"
//! ([`Engine::LINES`] in all); on several cores each core's interrupts, each core's
//! sleep, "other", then each core's idle time (a core's line has the core's number
//! for its ID). A line's position is its slot's index in the engine
//! (see "Slots" there) and its number in the trace's dump. Since start, the time of tasks whose IDs were taken by new tasks
//! ([`Header::retired`]) comes before all of them.

#[cfg(feature = "watchdogs")]
use super::Smoothed;
use super::{Acct, Engine, Row, RowKind, TaskState};

/// What a reader read its header at: see "Readers hold the rollover".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Stamp {
    window: u32,
    restarts: u8,
    changes: u16,
}

impl Stamp {
    /// No stamp read yet.
    pub const ZERO: Stamp = Stamp { window: 0, restarts: 0, changes: 0 };

    /// A reader stamped `self` reads (of a window, or `since_start`) the same
    /// figures as one stamped `other`.
    pub fn matches(self, other: Stamp, since_start: bool) -> bool {
        self.window == other.window
            && self.restarts == other.restarts
            && (!since_start || self.changes == other.changes)
    }
}

/// A report's figures besides its lines.
#[derive(Clone, Copy, Debug)]
pub struct Header {
    /// The figures the lines must be of.
    pub stamp: Stamp,
    /// Sequence number of the window (windows completed before it), or for a
    /// since-start report the number of windows completed so far.
    pub window: u32,
    /// Counts covered: the window's length. Since start, 0: the lines' counts (and
    /// `retired`) add up to it, and a reader sums them (so the windows need no
    /// running total).
    pub length: u64,
    /// Since start: counts of tasks whose IDs new tasks took (they come before every
    /// line, see "Positions"). 0 for a window.
    pub retired: u64,
    /// Tasks that shared ID 0 at any time in the window (since start: since
    /// accounting started), those with time in its line and those without.
    pub overflow_tasks: u32,
    /// Tasks sharing ID 0 now, as the ID pool's figures are of now.
    pub overflow_now: u32,
    /// The idle task's ID, 0 until the scheduler starts.
    pub idle: u16,
}

impl Header {
    /// A blank header, for a reader's place to read one into.
    pub const EMPTY: Header =
        Header { stamp: Stamp::ZERO, window: 0, length: 0, retired: 0, overflow_tasks: 0, overflow_now: 0, idle: 0 };
}

/// What an ID is used for now, for the ID pool's figures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seat {
    /// Not an ID: the summary lines and the shared bucket.
    None,
    /// A new task can take it (quarantine over, or never used).
    Free,
    /// An existing task's (a deleted task still running included).
    Used,
    /// A deleted task's, whose windows are still shown.
    Quarantined,
}

/// One line of a report, as read.
#[derive(Clone, Copy, Debug)]
pub struct Line {
    /// Its figures.
    pub row: Row,
    /// The report shows it: a task that existed during the window (since start: one
    /// that exists), the shared bucket when it holds tasks or time, and the summary
    /// lines. The counts of a line not shown belong to deleted tasks.
    pub shown: bool,
    /// Its ID's use now.
    pub seat: Seat,
}

impl Line {
    /// A blank line, for a reader's place to read lines into.
    pub const EMPTY: Line = Line { row: Row::EMPTY, shown: false, seat: Seat::None };
}

impl<const IDS: usize, const SLOTS: usize, const WORDS: usize, const CORES: usize> Engine<IDS, SLOTS, WORDS, CORES> {
    /// Positions of a report's lines, see the module's docs: one per slot.
    pub const LINES: usize = SLOTS;
    /// The position of the interrupts' line (its slot); sleep and "other" follow it.
    pub const INTERRUPTS_AT: usize = Self::ISR;
    /// The position of the sleep line.
    pub const SLEEP_AT: usize = Self::SLEEP;
    /// The position of the "other" line.
    pub const OTHER_AT: usize = Self::OTHER;

    /// What a header read now would be stamped with.
    pub fn stamp(&self) -> Stamp {
        #[cfg(feature = "shell")]
        let changes = self.changes;
        #[cfg(not(feature = "shell"))]
        let changes = 0;
        Stamp { window: self.window, restarts: self.restarts, changes }
    }

    /// The figures a reader stamped `stamp` reads (of a window, or `since_start`)
    /// are still those of its header.
    pub fn still(&self, stamp: Stamp, since_start: bool) -> bool {
        self.stamp().matches(stamp, since_start)
    }

    /// A reader holds the window under way open until [`Engine::let_go`] (see
    /// "Readers hold the rollover"): returns the stamp to let go with.
    pub fn hold(&mut self) -> Stamp {
        self.hold = self.hold.saturating_add(1);
        self.stamp()
    }

    /// The reader that held the window with `stamp` is done (nothing if that window
    /// has closed since: its hold went with it).
    pub fn let_go(&mut self, stamp: Stamp) {
        if self.still(stamp, false) {
            self.hold = self.hold.saturating_sub(1);
        }
    }

    /// A number that changes each time a window completes (the windows completed
    /// since accounting (re)started, wrapping); `None` until the first completes.
    pub fn window_mark(&self) -> Option<u32> {
        self.published().then_some(self.window)
    }

    /// The header of the last completed window or, `since_start`, of everything up to
    /// its end (before the first window ends: nothing yet, but the tasks); `None`
    /// for a window until one has completed.
    pub fn header(&self, since_start: bool) -> Option<Header> {
        if !self.published() && !since_start {
            return None;
        }
        let (window, length, retired) = if since_start {
            (self.window, 0, self.retired())
        } else {
            (self.window.wrapping_sub(1), u64::from(self.pub_len), 0)
        };
        Some(Header {
            stamp: self.stamp(),
            window,
            length,
            retired,
            overflow_tasks: u32::from(self.overflow_over(since_start)),
            overflow_now: u32::from(self.overflow_tasks),
            idle: self.idle,
        })
    }

    /// Load (everything but idle and sleep) smoothed over about 1 s, 10 s and 60 s,
    /// as of the last completed window: the same between two rollovers, like a
    /// header's figures. (Apart from the header, which a reader keeps for the whole
    /// report: these are read when printed.) (The `watchdogs` feature.)
    #[cfg(feature = "watchdogs")]
    pub fn load_avg(&self) -> [Smoothed; 3] {
        self.load_avg
    }

    /// The line at position `at` (see "Positions"): of the last completed window, or
    /// since start up to its end. Past the last position: an empty "other" line.
    pub fn line(&self, at: usize, since_start: bool) -> Line {
        let mut line = Line::EMPTY;
        self.read_line(at, since_start, &mut line);
        line
    }

    /// [`Engine::line`] into `line`, written in place: a reader keeps one line on
    /// its stack, not a line and the copy it came in. (Inlined into its one caller
    /// in the library, which runs it in a critical section.)
    #[inline]
    pub fn read_line(&self, at: usize, since_start: bool, line: &mut Line) {
        // (A pattern cannot name a constant of a generic type: the positions after the
        // tasks' are told apart by their distance from the first of them. A position
        // is its slot; past the last, "other". A core's line has the core's number
        // for its ID.)
        let (slot, kind, core) = match at.checked_sub(Self::ISR) {
            Some(k) if k < CORES => (at, RowKind::Interrupts, k),
            Some(k) if k < 2 * CORES => (at, RowKind::Sleep, k - CORES),
            Some(k) if CORES > 1 && k > 2 * CORES && at < SLOTS => (at, RowKind::Idle, k - 2 * CORES - 1),
            Some(_) => (Self::OTHER, RowKind::Other, 0),
            None if at == Self::OVERFLOW => (Self::OVERFLOW, RowKind::Overflow, 0),
            None if at == usize::from(self.idle) => (at, RowKind::Idle, 0),
            None => (at, RowKind::Task, 0),
        };
        let row = &mut line.row;
        self.figures(slot, kind, since_start, row);
        row.id = core as u16;
        let window = self.window;
        let Some(m) = self.meta.get(at.wrapping_sub(1)) else {
            // The bucket is shown while it has tasks or time; the summary lines always.
            line.shown = kind != RowKind::Overflow || row.counts != 0 || self.overflow_over(since_start) != 0;
            line.seat = Seat::None;
            return;
        };
        // Of the window's end, whatever happened after it: a task born after it is
        // not in the report, one deleted after it is there and not deleted.
        // (Before the first window has ended, since start shows the tasks that live.)
        let before_any = since_start && !self.published();
        let shown = match m.state {
            TaskState::Free => false,
            // A window shows a task that existed during it: born before it ended,
            // and not dead before it began nor born and dead after it; since start,
            // one that existed at its end.
            TaskState::Alive | TaskState::Dying => m.mark != window || before_any,
            TaskState::Dead if since_start => m.mark == window && !m.short_lived && !before_any,
            TaskState::Dead => window.wrapping_sub(m.mark) <= 1 && !(m.short_lived && m.mark == window),
        };
        // Quarantined IDs whose windows are gone are as good as free: they go back to
        // the bitmap at the next create.
        let seat = match m.state {
            TaskState::Free => Seat::Free,
            TaskState::Alive | TaskState::Dying => Seat::Used,
            TaskState::Dead if window.wrapping_sub(m.mark) >= 2 => Seat::Free,
            TaskState::Dead => Seat::Quarantined,
        };
        row.name = m.name;
        row.id = at as u16;
        // (A task that deleted itself is deleted at its last switch-out.)
        row.deleted = m.state == TaskState::Dead && m.mark != window;
        (line.shown, line.seat) = (shown, seat);
    }

    /// A slot's figures, by reference: a copy would sit on the reader's stack.
    fn acct(&self, slot: usize) -> &Acct {
        const ZERO: &Acct = &Acct::ZERO;
        self.acct.get(slot).unwrap_or(ZERO)
    }

    /// A slot's row: its figures in the published window, or since start up to its
    /// end.
    #[inline(always)] // (called by `read_line` alone)
    fn figures(&self, slot: usize, kind: RowKind, since_start: bool, row: &mut Row) {
        let a = self.acct(slot);
        if !since_start {
            let (counts, runs, longest) = a.published(self.window);
            let window = self.window.wrapping_sub(1);
            *row = Row {
                counts: u64::from(counts),
                runs: u64::from(runs),
                longest,
                longest_window: window,
                peak: counts,
                peak_len: self.pub_len,
                peak_window: window,
                kind,
                ..Row::EMPTY
            };
            return;
        }
        self.since_start(a, kind, row);
    }

    /// Since start up to the end of the last completed window: the folded windows,
    /// and the one the slot was last charged in if it has completed. (Into `row`, in
    /// place: a row returned would be built on the reader's stack, then copied.)
    #[cfg(feature = "shell")]
    #[inline(always)] // (called by `figures` alone)
    fn since_start(&self, a: &Acct, kind: RowKind, row: &mut Row) {
        let done = a.window != self.window;
        *row = Row {
            counts: a.total.get().wrapping_add(if done { u64::from(a.counts) } else { 0 }),
            runs: a.runs_total.get().wrapping_add(if done { u64::from(a.runs) } else { 0 }),
            longest: a.longest_ever,
            longest_window: a.longest_ever_window,
            peak: a.peak,
            peak_len: a.peak_len,
            peak_window: a.peak_window,
            kind,
            ..Row::EMPTY
        };
        if done {
            if a.longest > a.longest_ever {
                row.longest = a.longest;
                row.longest_window = a.window;
            }
            let len = self.len_of(a.window);
            if a.is_peak(a.counts, len) {
                (row.peak, row.peak_len, row.peak_window) = (a.counts, len, a.window);
            }
        }
    }

    /// The minimal build keeps no since-start figures.
    #[cfg(not(feature = "shell"))]
    #[inline(always)]
    fn since_start(&self, _: &Acct, kind: RowKind, row: &mut Row) {
        *row = Row { kind, ..Row::EMPTY };
    }

    /// The tasks that shared the overflow bucket in the published window, or since
    /// start.
    #[cfg(feature = "shell")]
    fn overflow_over(&self, since_start: bool) -> u16 {
        if since_start {
            self.overflow_since_start
        } else {
            self.overflow_in_window[1]
        }
    }

    /// The minimal build keeps no count of a window's bucket tasks: those now.
    #[cfg(not(feature = "shell"))]
    fn overflow_over(&self, _since_start: bool) -> u16 {
        self.overflow_tasks
    }

    #[cfg(feature = "shell")]
    fn retired(&self) -> u64 {
        self.retired.get()
    }

    #[cfg(not(feature = "shell"))]
    fn retired(&self) -> u64 {
        0
    }
}

/// Everything a report reads, gathered into an array: for the engine's tests, which
/// compare whole reports.
#[cfg(test)]
pub(crate) mod gather {
    use super::*;
    use crate::engine::SlotStats;

    /// The figures of a report besides its rows.
    #[derive(Clone, Copy, Debug, Default)]
    pub struct Summary {
        pub window: u32,
        pub length: u64,
        pub other: u64,
        /// Since start: counts of tasks that no longer exist.
        pub deleted: u64,
        pub rows: usize,
        pub rows_missing: usize,
        pub slots: SlotStats,
        /// Tasks that shared the overflow bucket in the window, or since start.
        pub overflow_tasks: u32,
        #[cfg(feature = "watchdogs")]
        pub load_avg: [Smoothed; 3],
    }

    impl<const IDS: usize, const SLOTS: usize, const WORDS: usize, const CORES: usize> Engine<IDS, SLOTS, WORDS, CORES> {
        /// The last completed window's lines shown, in position order ("other" in
        /// the summary); `None` until a window has completed.
        pub fn read_window(&self, rows: &mut [Row]) -> Option<Summary> {
            self.header(false)?;
            Some(self.read(rows, false))
        }

        /// The since-start lines shown, deleted tasks summed.
        pub fn read_cumulative(&self, rows: &mut [Row]) -> Summary {
            self.read(rows, true)
        }

        fn read(&self, rows: &mut [Row], since_start: bool) -> Summary {
            let h = self.header(since_start);
            let mut s = Summary {
                window: h.map_or(self.window, |h| h.window),
                length: h.map_or(0, |h| h.length),
                deleted: h.map_or(0, |h| h.retired),
                overflow_tasks: h.map_or(0, |h| h.overflow_tasks),
                #[cfg(feature = "watchdogs")]
                load_avg: self.load_avg,
                ..Summary::default()
            };
            s.slots = SlotStats { capacity: IDS as u32, overflow_tasks: u32::from(self.overflow_tasks), ..s.slots };
            for at in 0..Self::LINES {
                let line = self.line(at, since_start);
                match line.seat {
                    Seat::None => {}
                    Seat::Free => s.slots.free += 1,
                    Seat::Used => s.slots.used += 1,
                    Seat::Quarantined => s.slots.quarantined += 1,
                }
                if at == Self::OTHER_AT {
                    s.other = line.row.counts;
                } else if !line.shown {
                    s.deleted += line.row.counts;
                } else if let Some(slot) = rows.get_mut(s.rows) {
                    *slot = line.row;
                    s.rows += 1;
                } else {
                    s.rows_missing += 1;
                }
            }
            if since_start {
                s.length = rows.iter().take(s.rows).fold(s.deleted + s.other, |sum, r| sum + r.counts);
            } else {
                s.deleted = 0;
            }
            s
        }
    }
}
