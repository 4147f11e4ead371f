//! The clock the input drives, and the windows the library must close by it.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

use freertos_cpu_usage_report::{SinceStart, Window};

use crate::{MAX_WINDOW_COUNTS, MAX_WINDOW_MS};

static NOW: AtomicU32 = AtomicU32::new(0);
static LAST_READ: AtomicU32 = AtomicU32::new(0);
static SINCE_RESTART: AtomicU64 = AtomicU64::new(0);

/// The clock given to the library: reads [`now`], and adds up the counts between
/// consecutive readings, which is exactly the time the library must account for.
///
/// # Safety
/// None needed; `unsafe` only because the library's clock type is.
pub unsafe extern "C" fn fake_clock() -> u32 {
    let now = NOW.load(Relaxed);
    let last = LAST_READ.swap(now, Relaxed);
    SINCE_RESTART.fetch_add(u64::from(now.wrapping_sub(last)), Relaxed);
    now
}

/// What the clock reads.
pub fn now() -> u32 {
    NOW.load(Relaxed)
}

/// Moves the clock by `d` counts, modulo 2^32.
pub fn advance(d: u32) {
    NOW.store(now().wrapping_add(d), Relaxed);
}

/// Sets the clock.
pub fn set_now(v: u32) {
    NOW.store(v, Relaxed);
}

/// Counts the clock has moved since the library last read it (modulo 2^32).
pub fn unread() -> u32 {
    now().wrapping_sub(LAST_READ.load(Relaxed))
}

/// Counts between the clock readings since the last [`restarted`].
pub fn since_restart() -> u64 {
    SINCE_RESTART.load(Relaxed)
}

/// The library restarted its figures at its last reading: count from there.
pub fn restarted() {
    SINCE_RESTART.store(0, Relaxed);
}

/// The window length in counts the library must use for `ms` at `hz`, if valid:
/// `floor(ms × hz / 1000)`, from 1 to 2^31, for 1 ms to an hour.
pub fn window_counts(ms: u32, hz: u32) -> Option<u64> {
    let counts = u64::from(ms) * u64::from(hz) / 1000;
    ((1..=MAX_WINDOW_MS).contains(&ms) && (1..=MAX_WINDOW_COUNTS).contains(&counts)).then_some(counts)
}

/// The windows the library must have closed, from the clock readings, as the
/// documentation defines them: a window ends at the first hook at or past its end,
/// `len` counts after its start, and the next starts there; if no hook came for more
/// than a whole further window, the closing window takes the whole stall instead;
/// and a window never ends before the library's last reading (a shorter window set
/// while one was under way).
pub struct Windows {
    /// The window length in force, in counts.
    pub len: u64,
    /// Start of the window under way.
    start: u32,
    /// Windows closed since the figures (re)started.
    pub closed: u64,
    /// Their counts: what a since-start report covers.
    pub counts: u64,
    /// The last one's length.
    pub last_len: u64,
}

impl Windows {
    /// Figures that start now, with windows of `len` counts.
    pub fn new(len: u64) -> Windows {
        Windows { len, start: now(), closed: 0, counts: 0, last_len: 0 }
    }

    /// A hook is about to read the clock.
    pub fn hook(&mut self) {
        let elapsed = u64::from(now().wrapping_sub(self.start));
        if elapsed < self.len {
            return;
        }
        let len = if elapsed < 2 * self.len { self.len } else { elapsed };
        let len = len.max(u64::from(now().wrapping_sub(unread()).wrapping_sub(self.start)));
        self.closed += 1;
        self.counts += len;
        self.last_len = len;
        self.start = self.start.wrapping_add(len as u32);
    }

    /// The figures restart at the clock's reading now.
    pub fn restart(&mut self) {
        *self = Windows::new(self.len);
        restarted();
    }

    /// The reports (`-m` and `-m -c`) cover these windows: the last one, and since
    /// start all of them; and the window under way has the rest of the counts read
    /// since the restart (no time lost or invented).
    pub fn check(&self, window: Option<&Window>, since_start: &SinceStart) {
        assert_eq!(window.is_some(), self.closed > 0, "a completed window is shown exactly when there is one");
        if let Some(w) = window {
            assert_eq!(w.window, self.closed - 1, "window number");
            assert_eq!(w.window_counts, self.last_len, "window length");
        }
        assert_eq!(since_start.windows, self.closed, "windows since start");
        assert_eq!(since_start.uptime_counts, self.counts, "since start: every completed window");
        let under_way = now().wrapping_sub(unread()).wrapping_sub(self.start);
        assert_eq!(since_restart(), self.counts + u64::from(under_way), "time lost or invented");
    }
}
