# short-name.sed - a demangled Rust function name, shortened to its type and method
# for the benchmarks' tables (sed -E): `<freertos_cpu_usage::ffi::sink::LineSink as
# freertos_cpu_usage::report::out::Sink>::put` becomes `LineSink::put`,
# `freertos_cpu_usage::report::text::<impl freertos_cpu_usage::report::text::Report>::in_order`
# becomes `Report::in_order`; spaces become `_` (the name is one word).
s/^<(.*) as .*>::([^:]+)$/\1::\2/
s/^.*<impl ([^<>]*(<[^<>]*>)?)>::/\1::/
s/<[^<>]*>//g
s/^.*::([^:]+::[^:]+)$/\1/
s/ /_/g
