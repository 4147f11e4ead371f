//! `cpu-usage-top`: the host side of freertos-cpu-usage. It talks to the device's
//! serial shell, follows `show_cpu_usage -m -f`, and shows, records, plots and
//! serves what it reads.

pub mod history;
pub mod session;
pub mod source;
pub mod window;
pub mod plot;
pub mod prometheus;
pub mod ui;
pub mod perfetto;
pub mod trace;
