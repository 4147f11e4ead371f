//! The build's settings, and the one engine the C API keeps.
//!
//! build.rs reads them from the environment (`CPU_USAGE_MAX_TASKS`,
//! `CPU_USAGE_NAME_LEN`, `CPU_USAGE_TRACE_EVENTS`) and writes them, with the ABI
//! version from Cargo.toml, to `$OUT_DIR/config.rs`; `make header` echoes them into
//! `include/freertos_cpu_usage.h`. The engine itself takes its number of task IDs as
//! a parameter ([`crate::engine::Engine`]); `MAX_TASKS` only picks the instance behind
//! the C API ([`ApiEngine`]), which the report and the event trace read.

include!(concat!(env!("OUT_DIR"), "/config.rs"));

/// The engine behind the C API (one static of it, in `ffi`): `MAX_TASKS` task IDs.
pub type ApiEngine = crate::engine::engine_for!(MAX_TASKS);
