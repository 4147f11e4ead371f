//! `cpu-usage-top`: the host side of freertos-cpu-usage. It talks to the device's
//! serial shell ([`source`], [`session`]), follows `show_cpu_usage -m -d -f` and reads
//! its lines ([`window`], [`history`]), and shows ([`ui`]), plots ([`plot`]) and
//! serves ([`prometheus`]) what it reads; an event trace dump ([`trace`]) becomes a
//! Perfetto timeline ([`perfetto`]). Counts in messages agree with their nouns
//! ([`words`]).

#![deny(missing_docs)]

pub mod gdb;
pub mod history;
pub mod perfetto;
pub mod plot;
pub mod prometheus;
pub mod readout;
pub mod session;
pub mod source;
pub mod trace;
pub mod ui;
pub mod window;
pub mod words;
