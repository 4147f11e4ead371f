//! Adds [freertos-cpu-usage]'s hooks to the FreeRTOS kernel a Rust application builds
//! with `freertos-build` (the kernel builder of `freertos-next`), in one line of its
//! `build.rs`:
//!
//! ```no_run
//! // build.rs
//! let mut b = freertos_build::Builder::new();
//! // ... the kernel's settings ...
//! freertos_cpu_usage_build::add_hooks(&mut b);
//! b.compile().unwrap();
//! ```
//!
//! The library's hooks header must come last in the kernel's configuration, after
//! every setting: this writes a `FreeRTOSConfig.h` that includes the configuration
//! and then the hooks header, and makes it the one the kernel is built with. The
//! headers come from the `freertos-cpu-usage` dependency (its `links` metadata,
//! `DEP_FREERTOS_CPU_USAGE_INCLUDE`), so the application must depend on both
//! `freertos-next` (with its `trace-facility` feature) and `freertos-cpu-usage`; each
//! missing piece stops the build with a message that says what to add.
//!
//! [freertos-cpu-usage]: https://docs.rs/freertos-cpu-usage

use std::env;
use std::fs;
use std::path::{Path, PathBuf};

/// Adds the hooks to a kernel configured by `freertos-next`'s own `FreeRTOSConfig.h`
/// (the `Builder`'s default, with the settings the `Builder` passes).
///
/// # Panics
/// When the application's dependencies lack what the hooks need (the message says
/// what to add), or `OUT_DIR` cannot be written: a build script's way to stop.
pub fn add_hooks(builder: &mut freertos_build::Builder) {
    let crate_dir = var("DEP_FREERTOS_CRATE_DIR").unwrap_or_else(|| {
        panic!("freertos-cpu-usage-build: freertos-next is not a dependency of this package: add it to [dependencies]")
    });
    add_hooks_to_config(builder, Path::new(&crate_dir).join("src/config"));
}

/// Adds the hooks to a kernel configured by the `FreeRTOSConfig.h` in `config_dir`:
/// call this instead of `Builder::freertos_config_dir(config_dir)`.
///
/// # Panics
/// As [`add_hooks`].
pub fn add_hooks_to_config(builder: &mut freertos_build::Builder, config_dir: impl AsRef<Path>) {
    let needs = Needs::from(var).unwrap_or_else(|e| panic!("freertos-cpu-usage-build: {e}"));
    let original = config_dir.as_ref().join("FreeRTOSConfig.h");
    println!("cargo:rerun-if-changed={}", original.display());
    let dir = PathBuf::from(var("OUT_DIR").expect("OUT_DIR: add_hooks runs in a build script")).join("freertos-cpu-usage-config");
    fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("freertos-cpu-usage-build: cannot create {}: {e}", dir.display()));
    let config = dir.join("FreeRTOSConfig.h");
    fs::write(&config, config_text(&original))
        .unwrap_or_else(|e| panic!("freertos-cpu-usage-build: cannot write {}: {e}", config.display()));
    builder.freertos_config_dir(&dir);
    builder.get_cc().include(&needs.include);
}

/// What the hooks need of the application's dependencies, from its build script's
/// environment (`var`).
#[derive(Debug, PartialEq, Eq)]
struct Needs {
    /// The directory of the library's headers.
    include: PathBuf,
}

impl Needs {
    fn from(var: impl Fn(&str) -> Option<String>) -> Result<Needs, String> {
        let include = var("DEP_FREERTOS_CPU_USAGE_INCLUDE").ok_or(
            "freertos-cpu-usage is not a dependency of this package: add it to [dependencies] \
             (its build script says where its headers are)",
        )?;
        // freertos-next passes its features to dependents as kernel settings.
        if var("DEP_FREERTOS_DEF_CONFIGUSE_TRACE_FACILITY").as_deref() != Some("1") {
            return Err("the library's hooks need the kernel's trace facility: \
                        enable freertos-next's feature \"trace-facility\""
                .into());
        }
        Ok(Needs { include: PathBuf::from(include) })
    }
}

fn var(name: &str) -> Option<String> {
    println!("cargo:rerun-if-env-changed={name}");
    env::var(name).ok()
}

/// The configuration the kernel is built with: `original`, then the hooks header.
fn config_text(original: &Path) -> String {
    // (A C string literal: backslashes, as in a Windows path, doubled.)
    let path = original.display().to_string().replace('\\', "\\\\");
    format!(
        "/* FreeRTOSConfig.h written by freertos-cpu-usage-build: the kernel's configuration,\n \
         * then freertos-cpu-usage's hooks, which must come after every setting. */\n\
         #ifndef FREERTOS_CPU_USAGE_BUILD_CONFIG_H\n\
         #define FREERTOS_CPU_USAGE_BUILD_CONFIG_H\n\
         #include \"{path}\"\n\
         #include \"freertos_cpu_usage_hooks.h\"\n\
         #endif\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_of<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| pairs.iter().find(|(k, _)| *k == name).map(|(_, v)| v.to_string())
    }

    #[test]
    fn both_dependencies_with_the_trace_facility_give_the_headers() {
        let env = [("DEP_FREERTOS_CPU_USAGE_INCLUDE", "/x/include"), ("DEP_FREERTOS_DEF_CONFIGUSE_TRACE_FACILITY", "1")];
        assert_eq!(Needs::from(env_of(&env)), Ok(Needs { include: PathBuf::from("/x/include") }));
    }

    #[test]
    fn a_missing_library_dependency_says_to_add_it() {
        let env = [("DEP_FREERTOS_DEF_CONFIGUSE_TRACE_FACILITY", "1")];
        let e = Needs::from(env_of(&env)).unwrap_err();
        assert!(e.contains("freertos-cpu-usage is not a dependency") && e.contains("[dependencies]"), "{e}");
    }

    #[test]
    fn no_trace_facility_names_the_feature() {
        let env = [("DEP_FREERTOS_CPU_USAGE_INCLUDE", "/x/include")];
        let e = Needs::from(env_of(&env)).unwrap_err();
        assert!(e.contains("feature \"trace-facility\""), "{e}");
    }

    #[test]
    fn the_hooks_come_after_the_configuration() {
        let text = config_text(Path::new("/k/src/config/FreeRTOSConfig.h"));
        let config = text.find("#include \"/k/src/config/FreeRTOSConfig.h\"").expect(&text);
        let hooks = text.find("#include \"freertos_cpu_usage_hooks.h\"").expect(&text);
        assert!(config < hooks, "{text}");
        assert!(config_text(Path::new(r"C:\k\FreeRTOSConfig.h")).contains(r#""C:\\k\\FreeRTOSConfig.h""#));
    }
}
