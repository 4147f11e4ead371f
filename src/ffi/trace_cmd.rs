//! The shell command of the event trace (the `trace` feature): start, stop, dump.

use core::ffi::{c_char, c_int};
use core::sync::atomic::Ordering;

use super::status::cpu_usage_status as St;
use super::{sink, with_library};
use crate::report::Sink;
use crate::trace;

/// The shell command `cpu_usage_trace`: `start` (clear and record), `stop`, `dump`
/// (stop and print the events, in the format of the README's "Event trace"),
/// `status` or nothing (the state). Output goes where `show_cpu_usage`'s does.
/// Records only in firmware built with `CPU_USAGE_TRACE` 1 (`status` says when no
/// traced hook has run); a full trace loses its oldest events. Returns 0, or prints
/// what is wrong and returns `CPU_USAGE_ERR_OPTION` (a word it does not know, or
/// `start` while another task prints a dump), `CPU_USAGE_ERR_NULL` or
/// `CPU_USAGE_ERR_NO_OUTPUT`. (The `trace` feature.)
///
/// # Safety
/// As `show_cpu_usage`.
#[no_mangle]
pub unsafe extern "C" fn cpu_usage_trace(argc: c_int, argv: *mut *mut c_char) -> c_int {
    // SAFETY: forwarded contract.
    unsafe {
        sink::command(argc, argv, b"cpu_usage_trace", |out, args| {
            let word = args.words().next();
            match trace::parse_trace(word).filter(|_| args.len() <= 1) {
                Some(cmd) => run(out, cmd),
                None => {
                    sink::write_bad_args(out, b"cpu_usage_trace", St::CPU_USAGE_ERR_OPTION);
                    trace::write_trace_usage(out);
                    St::CPU_USAGE_ERR_OPTION.code()
                }
            }
        })
    }
}

fn run(out: &mut dyn Sink, cmd: trace::TraceCmd) -> i32 {
    use trace::TraceCmd;
    // Nobody may start the ring while a dump reads it outside the critical section.
    if !super::claim(&trace::DUMPING) {
        out.put(b"cpu_usage_trace: busy (another task is printing a dump)\n");
        return St::CPU_USAGE_ERR_OPTION.code();
    }
    // SAFETY (each `trace::ring()`): inside the critical section, or, for the dump,
    // reading the stopped ring while holding DUMPING.
    let hz = with_library(|st| {
        let ring = unsafe { trace::ring() };
        match cmd {
            TraceCmd::Start => ring.start(st.engine),
            TraceCmd::Stop | TraceCmd::Dump => {
                ring.stop(st.engine);
            }
            TraceCmd::Status => {}
        }
        st.config.clock.hz
    });
    let ring = unsafe { trace::ring() };
    if cmd == TraceCmd::Dump {
        trace::write_dump(out, ring, hz, |id| with_library(|st| st.engine.slot_name(id)));
    } else {
        trace::write_trace_status(out, ring, trace::hooks_seen());
    }
    trace::DUMPING.store(false, Ordering::Release);
    St::CPU_USAGE_OK.code()
}
