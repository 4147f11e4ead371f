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
    let dir = PathBuf::from(var("OUT_DIR").expect("OUT_DIR: add_hooks runs in a build script"))
        .join("freertos-cpu-usage-config");
    fs::create_dir_all(&dir)
        .unwrap_or_else(|e| panic!("freertos-cpu-usage-build: cannot create {}: {e}", dir.display()));
    let config = dir.join("FreeRTOSConfig.h");
    write_config(&config, &config_text(&original), &original)
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

/// Writes `text`, the configuration the kernel is built with, at `path`, dated as
/// `original`, the configuration it includes.
///
/// freertos-build asks cargo to run the build script again when a header of the
/// configuration's directory changes (`rerun-if-changed`), this file among them, and
/// cargo takes a file for changed when it is newer than the script's last run. Written
/// and dated during the run, it always would be: every build would run the script
/// again, rebuilding the kernel and relinking the application. Its text depends only
/// on where `original` is, which the build script's own inputs decide (and `original`
/// has its own `rerun-if-changed`), so its date matters for nothing else: it is
/// written only when its text changes, and takes `original`'s date.
fn write_config(path: &Path, text: &str, original: &Path) -> std::io::Result<()> {
    if fs::read_to_string(path).ok().as_deref() != Some(text) {
        fs::write(path, text)?;
    }
    // (A missing `original` fails the kernel's build at its #include.)
    let date = fs::metadata(original).and_then(|m| m.modified()).unwrap_or(std::time::SystemTime::UNIX_EPOCH);
    fs::File::options().write(true).open(path)?.set_modified(date)
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
        let env =
            [("DEP_FREERTOS_CPU_USAGE_INCLUDE", "/x/include"), ("DEP_FREERTOS_DEF_CONFIGUSE_TRACE_FACILITY", "1")];
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
    fn the_written_configuration_is_never_newer_than_the_one_it_includes() {
        let dir = env::temp_dir().join(format!("freertos-cpu-usage-build-test-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let (original, written) = (dir.join("original.h"), dir.join("FreeRTOSConfig.h"));
        fs::write(&original, "/* settings */\n").unwrap();
        let date = |p: &Path| fs::metadata(p).unwrap().modified().unwrap();
        let old = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000_000);
        fs::File::options().write(true).open(&original).unwrap().set_modified(old).unwrap();

        let text = config_text(&original);
        write_config(&written, &text, &original).unwrap();
        assert_eq!((fs::read_to_string(&written).unwrap(), date(&written)), (text.clone(), old));
        // Again, as every run of the build script does: the file stays as it was.
        write_config(&written, &text, &original).unwrap();
        assert_eq!((fs::read_to_string(&written).unwrap(), date(&written)), (text, old));
        // Another text is written, with the same date.
        write_config(&written, "/* other */\n", &original).unwrap();
        assert_eq!((fs::read_to_string(&written).unwrap(), date(&written)), ("/* other */\n".to_string(), old));
        fs::remove_dir_all(&dir).unwrap();
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
