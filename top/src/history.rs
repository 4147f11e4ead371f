//! The windows read so far: the last ones kept for the history graphs, and which
//! tasks came and went between the last two.

use std::collections::{BTreeSet, VecDeque};

use crate::window::Window;

/// A task as the viewer tells tasks apart: the library recycles IDs, so the ID alone
/// is not enough; a name alone is not either (two tasks may share one).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TaskKey {
    /// The library's ID (0: the shared overflow bucket).
    pub id: u32,
    /// The task's name as the device reports it.
    pub name: String,
}

/// What changed in the task list from the window before to the latest.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Churn {
    /// In the latest window, not in the one before.
    pub new: BTreeSet<TaskKey>,
    /// Deleted during the latest window, or in the one before and gone now.
    pub gone: BTreeSet<TaskKey>,
}

/// The last windows, oldest first. `Clone` lets a viewer freeze what it shows while
/// it keeps reading.
#[derive(Clone, Debug)]
pub struct History {
    windows: VecDeque<Window>,
    capacity: usize,
    churn: Churn,
    /// Windows the device completed that never arrived (window numbers skipped).
    pub missed: u64,
    /// Windows read since start.
    pub received: u64,
}

impl History {
    /// Keeps the last `capacity` windows (at least one).
    pub fn new(capacity: usize) -> Self {
        History { windows: VecDeque::new(), capacity: capacity.max(1), churn: Churn::default(), missed: 0, received: 0 }
    }

    /// Adds the next window. A window whose number is not above the last one's (the
    /// device restarted, or the same window was asked for twice) is kept too; only a
    /// skip forward counts as missed windows.
    pub fn push(&mut self, w: Window) {
        if let Some(last) = self.windows.back() {
            if w.window == last.window {
                return;
            }
            if w.window > last.window {
                self.missed += w.window - last.window - 1;
            }
        }
        self.churn = match self.windows.back() {
            Some(before) => churn(before, &w),
            None => Churn::default(),
        };
        self.received += 1;
        if self.windows.len() == self.capacity {
            self.windows.pop_front();
        }
        self.windows.push_back(w);
    }

    /// The last window read.
    pub fn latest(&self) -> Option<&Window> {
        self.windows.back()
    }

    /// The windows kept, oldest first.
    pub fn windows(&self) -> impl DoubleEndedIterator<Item = &Window> + ExactSizeIterator {
        self.windows.iter()
    }

    /// The tasks that came and went in the latest window.
    pub fn churn(&self) -> &Churn {
        &self.churn
    }

    /// The load of each window kept, in percent, oldest first.
    pub fn load_series(&self) -> Vec<f64> {
        self.windows.iter().map(|w| w.load_pct).collect()
    }

    /// A task's share in each window kept (0 where it did not run), oldest first.
    pub fn task_series(&self, key: &TaskKey) -> Vec<f64> {
        self.windows
            .iter()
            .map(|w| w.tasks.iter().find(|t| t.id == key.id && t.name == key.name).map_or(0.0, |t| t.usage_pct))
            .collect()
    }
}

fn keys(w: &Window) -> BTreeSet<TaskKey> {
    w.tasks.iter().map(|t| TaskKey { id: t.id, name: t.name.clone() }).collect()
}

fn churn(before: &Window, now: &Window) -> Churn {
    let (old, new) = (keys(before), keys(now));
    let mut gone: BTreeSet<TaskKey> = old.difference(&new).cloned().collect();
    gone.extend(now.tasks.iter().filter(|t| t.deleted).map(|t| TaskKey { id: t.id, name: t.name.clone() }));
    Churn { new: new.difference(&old).cloned().collect(), gone }
}
