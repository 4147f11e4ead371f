//! The build's settings, and the one engine the C API keeps.
//!
//! build.rs reads them from the environment (`CPU_USAGE_MAX_TASKS`,
//! `CPU_USAGE_NAME_LEN`, `CPU_USAGE_TRACE_EVENTS`, `CPU_USAGE_CORES`) and writes them, with the ABI
//! version from Cargo.toml, to `$OUT_DIR/config.rs`, and echoes them into the C header
//! it writes ([`C_CONFIG_HEADER`]). The engine itself takes its number of task IDs as
//! a parameter ([`crate::engine::Engine`]); `MAX_TASKS` only picks the instance behind
//! the C API ([`ApiEngine`]), which the report and the event trace read.

include!(concat!(env!("OUT_DIR"), "/config.rs"));

/// The engine behind the C API (one static of it, in `ffi`): `MAX_TASKS` task IDs,
/// `CORES` cores.
pub type ApiEngine = crate::engine::engine_for!(MAX_TASKS, CORES);

/// The C settings' header of this build, as build.rs wrote it into `OUT_DIR`: these
/// settings as C macros. `include/freertos_cpu_usage_config.h` is a copy of it for the
/// default settings (`make header`), and a test compares the two.
pub const C_CONFIG_HEADER: &str = include_str!(concat!(env!("OUT_DIR"), "/include/freertos_cpu_usage_config.h"));
