//! Reading the device's event trace, as `cpu_usage_trace dump` prints it: the dump's
//! types and reader are part of the report's contract, in the crate that holds it
//! (`freertos_cpu_usage_report::trace` documents the format).

pub use freertos_cpu_usage_report::trace::*;
