// Long runs of the engine on a simulated clock: weeks of a fast counter and a
// thousand wraps of a slow one, every sampled window and the since-start figures
// exactly what a fixed schedule says.

use super::*;

const WRAP: u64 = 1 << 32;

/// A repeating schedule of who runs for how long (`None`: no task switched in, which
/// only happens before the first switch), and what it implies: counts of one of them from the start up to `t`, worked out from
/// the schedule alone.
struct Schedule<'a> {
    slices: &'a [(Option<usize>, u64)],
}

impl Schedule<'_> {
    fn period(&self) -> u64 {
        self.slices.iter().map(|s| s.1).sum()
    }

    fn until(&self, who: Option<usize>, t: u64) -> u64 {
        let period = self.period();
        let per_period: u64 = self.slices.iter().filter(|s| s.0 == who).map(|s| s.1).sum();
        let mut counts = t / period * per_period;
        let mut at = 0;
        for &(w, len) in self.slices {
            if w == who {
                counts += len.min((t % period).saturating_sub(at));
            }
            at += len;
        }
        counts
    }
}

/// Runs whole periods of `slices` (each at most a window long, so no stall) until
/// `min_elapsed` counts have passed, from the counter value `start`. Hooks come at
/// every switch, plus a tick every `fine` counts within `margin` of every counter
/// wrap (a tick exactly at the wrap included). Every `sample`-th window, and the
/// since-start figures then and at the end, must be exactly what the schedule says.
fn long_run(
    start: u32,
    win: u32,
    slices: &[(Option<usize>, u64)],
    min_elapsed: u64,
    fine: u64,
    margin: u64,
    sample: u64,
) {
    let names: [&[u8]; 4] = [b"IDLE", b"a", b"b", b"c"];
    assert!(slices.iter().all(|s| s.1 <= u64::from(win) && s.0.map_or(true, |i| i < names.len())));
    let sched = Schedule { slices };
    let mut e = Engine::new(0);
    e.set_window(win);
    e.restart(start);
    let ids: Vec<u32> = names.iter().map(|n| e.task_create(0, start, n)).collect();
    e.scheduler_start(ids[0]);
    let win = u64::from(win);
    let at = |offset: u64| (u64::from(start) + offset) as u32;
    let periods = min_elapsed.div_ceil(sched.period());
    let mut rows = [Row::EMPTY; IDS + 4];

    let check_since_start = |e: &Engine, rows: &mut [Row], now: u64| {
        // Up to the end of the last completed window.
        let t = now / win * win;
        if !cfg!(feature = "shell") {
            return; // (the minimal build keeps no since-start figures)
        }
        let s = e.read_cumulative(rows);
        assert_eq!((s.length, s.window as u64, s.deleted), (t, t / win, 0), "since start, at {now}");
        assert_eq!(s.other, sched.until(None, t), "other since start, at {t}");
        for (i, &id) in ids.iter().enumerate() {
            let r = rows[..s.rows].iter().find(|r| u32::from(r.id) == id).unwrap();
            assert_eq!(r.counts, sched.until(Some(i), t), "task {id} since start, at {t}");
        }
    };
    let mut windows_done = 0;
    let mut after_hook = |e: &Engine, rows: &mut [Row], t: u64| {
        if t / win == windows_done {
            return;
        }
        windows_done = t / win;
        let k = windows_done - 1;
        if k % sample != 0 {
            return;
        }
        let (from, to) = (k * win, (k + 1) * win);
        let s = e.read_window(rows).unwrap();
        let got = &rows[..s.rows];
        assert_eq!((s.window as u64, s.length), (k, win));
        assert_eq!(got.iter().map(|r| r.counts).sum::<u64>() + s.other, win, "window {k} does not add up");
        assert_eq!(s.other, sched.until(None, to) - sched.until(None, from), "other in window {k}");
        for (i, &id) in ids.iter().enumerate() {
            let r = got.iter().find(|r| u32::from(r.id) == id).unwrap();
            assert_eq!(r.counts, sched.until(Some(i), to) - sched.until(Some(i), from), "task {id} in window {k}");
        }
        check_since_start(e, rows, t);
    };

    let mut t = 0u64;
    let mut next_wrap = WRAP - u64::from(start);
    for _ in 0..periods {
        for &(who, len) in slices {
            let end = t + len;
            if let Some(i) = who {
                e.switch_in(0, at(t), ids[i]);
                after_hook(&e, &mut rows, t);
            }
            while next_wrap + margin < t {
                next_wrap += WRAP;
            }
            let mut wrap = next_wrap;
            while wrap < end + margin {
                let mut tick = wrap.saturating_sub(margin);
                while tick <= wrap + margin {
                    if tick > t && tick < end {
                        e.tick(0, at(tick));
                        after_hook(&e, &mut rows, tick);
                    }
                    tick += fine;
                }
                wrap += WRAP;
            }
            t = end;
        }
    }
    // Close the last window exactly at its end, so that nothing is pending.
    let end = t.div_ceil(win) * win;
    e.tick(0, at(end));
    after_hook(&e, &mut rows, end);
    assert!((u64::from(start) + end) >> 32 >= min_elapsed >> 32, "fewer counter wraps than meant");
    check_since_start(&e, &mut rows, end);
}

/// 30 days at 1 GHz: 2.6e15 counts, about 603,000 wraps of the 32-bit counter, 1 s
/// windows. Switches at most 0.9 s apart, plus 1 ms ticks for 5 ms either side of
/// every wrap. Since-start figures run far past 2^32 and must be exact at the end.
#[test]
fn thirty_days_at_one_ghz_neither_overflow_nor_drift() {
    const MS: u64 = 1_000_000;
    // 2.5 s: a, c, b, the idle task; not a whole number of windows, and the odd
    // counts put switches at every offset within a window over time.
    let slices = [(Some(1), 700 * MS + 1), (Some(3), 50 * MS - 1), (Some(2), 900 * MS + 7), (Some(0), 850 * MS - 7)];
    let days = 30 * 24 * 3600 * 1000 * MS;
    long_run(u32::MAX - 123_456_789, 1000 * MS as u32, &slices, days, MS, 5 * MS, 1009);
}

/// 1,000 wraps of the 32-bit counter of a 1 MHz timer (about 50 days), 1 s windows,
/// and a tick every 1 ms for a whole second either side of every wrap.
#[test]
fn a_thousand_wraps_of_a_slow_counter() {
    const MS: u64 = 1_000;
    // 3 s: a for a whole window, c, b, the idle task for a whole window.
    let slices = [(Some(1), 1000 * MS), (Some(3), 200 * MS + 3), (Some(2), 800 * MS - 3), (Some(0), 1000 * MS)];
    long_run(0xFFFF_0000, 1000 * MS as u32, &slices, 1000 * WRAP, MS, 1000 * MS, 997);
}
