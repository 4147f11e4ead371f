//! `make header`: writes `include/freertos_cpu_usage.h` (or the path given) from the
//! library's sources.

use std::process::ExitCode;

fn main() -> ExitCode {
    let root = freertos_cpu_usage_header::repo_root();
    let dest = std::env::args_os().nth(1).map_or_else(|| root.join("include/freertos_cpu_usage.h"), Into::into);
    let text = match freertos_cpu_usage_header::generate(&root) {
        Ok(text) => text,
        Err(e) => {
            eprintln!("header: {e}");
            return ExitCode::FAILURE;
        }
    };
    if std::fs::read_to_string(&dest).is_ok_and(|old| old == text) {
        println!("{} is up to date", dest.display());
        return ExitCode::SUCCESS;
    }
    match std::fs::write(&dest, text) {
        Ok(()) => {
            println!("wrote {}", dest.display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("header: cannot write {}: {e}", dest.display());
            ExitCode::FAILURE
        }
    }
}
