//! Builds the FreeRTOS kernel (freertos-next's sources; freertos-build picks the POSIX
//! port on x86_64 Linux) with freertos-cpu-usage's hooks at the end of its
//! configuration.

fn main() {
    let mut b = freertos_build::Builder::new();
    // heap_4's arena, from which each task's TCB and FreeRTOS stack come. On the POSIX
    // port a task's code runs on its own pthread's stack, and its FreeRTOS stack only
    // holds the port's record of the thread.
    b.heap_size(128 * 1024);
    b.max_task_priorities(4);
    // config/UserConfig.h: the declaration of xPortIsInsideInterrupt (src/main.rs).
    b.user_config_dir("config");
    freertos_cpu_usage_build::add_hooks(&mut b);
    b.compile().unwrap_or_else(|e| panic!("building the FreeRTOS kernel: {e:?}"));
}
