//! The watchdogs: a load above a threshold for some windows in a row, and a task's
//! run longer than a limit. Their settings and the alerts waiting to be taken are
//! here; the hot path (`hot_path.rs`) judges each window as it closes and each new
//! longest run, and touches nothing else of them.

use super::{Engine, NAME_LEN};

/// What a watchdog saw.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AlertKind {
    /// Load stayed above its threshold for the windows asked.
    Load,
    /// A run was longer than the threshold.
    Slice,
}

/// Where each watchdog's alert waits in `Watch::alerts`: load first.
/// `Watch::slice_over`: the window under way had a run over the limit.
pub(super) const SLICE_NOW: u8 = 1;
/// `Watch::slice_over`: the window before had.
pub(super) const SLICE_BEFORE: u8 = 2;

pub(super) const LOAD_ALERT: usize = 0;
pub(super) const SLICE_ALERT: usize = 1;

/// A watchdog that tripped, waiting to be delivered (see [`Engine::take_alert`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Alert {
    /// Which watchdog.
    pub kind: AlertKind,
    /// The window that completed the trip.
    pub window: u32,
    /// Load: the window's busy counts. Slice: the run's length in counts.
    pub value: u32,
    /// Load: the window's length in counts. Slice: the threshold in counts.
    pub limit: u32,
    /// Slice: the task's ID (0 for the shared bucket; interrupts and sleep never
    /// trip it). Load: 0.
    pub id: u16,
    /// Slice: the task's name.
    pub name: [u8; NAME_LEN],
}

impl Alert {
    pub(super) const NONE: Alert =
        Alert { kind: AlertKind::Load, window: 0, value: 0, limit: 0, id: 0, name: [0; NAME_LEN] };
}

/// The watchdogs' settings and state; all of it is touched only at rollover and
/// on a new longest run.
#[derive(Clone, Copy)]
pub(super) struct Watch {
    /// Load threshold in hundredths of a percent, and the windows in a row it must
    /// be exceeded; `windows` 0 is off.
    pub(super) load_pct: u32,
    pub(super) load_windows: u32,
    /// Windows in a row above the threshold so far.
    pub(super) load_streak: u32,
    /// Longest acceptable run in counts, bit-inverted so that 0 (all-zero state)
    /// means off: a run is over the limit when `run > !slice_inv`.
    pub(super) slice_inv: u32,
    /// Whether the window under way ([`SLICE_NOW`]) and the one before
    /// ([`SLICE_BEFORE`]) had a run over the limit (one byte: the watchdog's state
    /// then fits a word less).
    pub(super) slice_over: u8,
    /// The longest over-limit run of the window under way.
    pub(super) slice_slot: u16,
    pub(super) slice_len: u32,
    /// Tripped, not yet taken: load, slice.
    /// (Not `Option`s: `None` would be a non-zero byte, and the engine's static
    /// would move from `.bss` to `.data`, costing its whole size in flash.)
    pub(super) alerts: [Alert; 2],
    /// Bit `1 << i`: `alerts[i]` is pending.
    pub(super) pending: u8,
}

impl Watch {
    pub(super) const OFF: Watch = Watch {
        load_pct: 0,
        load_windows: 0,
        load_streak: 0,
        slice_inv: 0,
        slice_over: 0,
        slice_slot: 0,
        slice_len: 0,
        alerts: [Alert::NONE; 2],
        pending: 0,
    };
}

impl<const IDS: usize, const SLOTS: usize, const WORDS: usize, const CORES: usize> Engine<IDS, SLOTS, WORDS, CORES> {
    /// Trips the load watchdog when the load (everything but idle and sleep) is above
    /// `pct_hundredths` for `windows` windows in a row; `windows` 0 turns it off.
    pub fn set_load_watchdog(&mut self, pct_hundredths: u32, windows: u32) {
        self.watch.load_pct = pct_hundredths;
        self.watch.load_windows = windows;
        self.watch.load_streak = 0;
    }

    /// Trips the slice watchdog on a task's run longer than `counts`; `None` turns it
    /// off.
    /// The runs of the window under way count already: one over the new limit that
    /// is not its task's longest would otherwise go unseen until the next window.
    pub fn set_slice_watchdog(&mut self, counts: Option<u32>) {
        self.watch.slice_inv = !counts.unwrap_or(u32::MAX);
        self.watch.slice_over &= !SLICE_NOW;
        let Some(limit) = counts else { return };
        for slot in 0..=IDS {
            let Some(&a) = self.acct.get(slot) else { continue };
            if a.window == self.window && a.longest > limit {
                self.slice_over(slot, a.longest);
            }
        }
    }

    /// The watchdog settings: `(load hundredths, windows, slice limit)`.
    pub fn watchdogs(&self) -> (u32, u32, Option<u32>) {
        let w = &self.watch;
        (w.load_pct, w.load_windows, (w.slice_inv != 0).then_some(!w.slice_inv))
    }

    /// Takes a tripped watchdog's alert, if any (load first).
    pub fn take_alert(&mut self) -> Option<Alert> {
        let w = &mut self.watch;
        let i = w.pending.trailing_zeros() as usize;
        let alert = w.alerts.get(i).copied().filter(|_| w.pending != 0)?;
        w.pending &= w.pending - 1;
        Some(alert)
    }
}
