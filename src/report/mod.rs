//! Turning a copy of the engine's figures into the `show_cpu_usage` text and JSON.
//!
//! Pure formatting of the lines a [`Source`] gives one at a time (the engine's, each
//! copied in a short critical section, or a test's), with integer fixed point only
//! (no float, no `core::fmt`, no panic path). Percentages are hundredths of a
//! percent, handed out by cumulative rounding ([`Shares`]) so that the lines of a
//! report add up to exactly 100.00%, as the counts behind them add up exactly to the
//! window. The `cpu_usage_watchdog` command's arguments and texts are here
//! too, under the same rules.

mod args;
mod out;
mod text;
mod usage;
mod watchdog;

pub use args::{parse, BadArgs, Options, Problem};
pub use out::{Go, Sink};
#[cfg(test)]
pub(crate) use text::TASK_LINES_WRITTEN;
pub use text::{write_report, Changed, ClockInfo, Source, BATCH};
pub use usage::{write_error, write_no_window, write_usage, write_window_refused, write_window_set};
pub use watchdog::{parse_watchdog, write_watchdog_error, write_watchdog_status, write_watchdog_usage, WatchCmd};

pub use crate::engine::arith::{counts_to_us, div_rem, pct_of, Shares};

#[cfg(test)]
mod tests;
