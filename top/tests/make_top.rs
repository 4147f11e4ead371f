//! `make top` starts at once after `make test`: `make test` builds the viewer as `make
//! top` does (top/top.mk's `TOP_BUILD`, run by the Makefile's `test-build`), so when
//! the tests run, that build has nothing left to do and its executable is the one
//! `make top` runs (`TOP`). A first `make top` used to compile the viewer in another
//! profile for two minutes after `make test` had passed.
//!
//! And `make top` and `make top-qemu` highlight the demo's load, not the viewer's
//! default: the demo runs at about 82% (its workloads alone are set to 75%), above the
//! default 80%, which showed it red all the time. (Checked on the variable and on the
//! command lines both targets run.)

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The words of make variable `var`, the top Makefile's.
fn make_words(var: &str) -> Vec<String> {
    let out = Command::new("make")
        .current_dir(repo_root())
        .args(["-s", "--no-print-directory", "--eval", &format!("cu-print: ; @printf '%s\\n' $({var})"), "cu-print"])
        .output()
        .expect("make");
    assert!(out.status.success(), "make cannot print {var}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).split_whitespace().map(str::to_owned).collect()
}

#[test]
fn make_top_has_nothing_to_build_after_make_test() {
    let build = make_words("TOP_BUILD");
    let top = repo_root().join(make_words("TOP").concat());
    assert!(build.first().is_some_and(|w| w.ends_with("cargo")), "TOP_BUILD is not a cargo command: {build:?}");
    let out = Command::new(&build[0])
        .args(&build[1..])
        .arg("--message-format=json")
        .current_dir(repo_root())
        .output()
        .expect("cargo");
    assert!(out.status.success(), "{build:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    let mut built = Vec::new();
    let mut executable = None;
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let message: serde_json::Value = serde_json::from_str(line).expect("cargo's JSON messages");
        if message["reason"] != "compiler-artifact" {
            continue;
        }
        if message["fresh"] != true {
            built.push(message["target"]["name"].as_str().unwrap_or("?").to_owned());
        }
        if let Some(path) = message["executable"].as_str() {
            executable = Some(PathBuf::from(path));
        }
    }
    assert!(
        built.is_empty(),
        "`{}` had to build {built:?}: `make top` would compile before it starts (make test-build builds the \
         viewer as make top does)",
        build.join(" ")
    );
    let executable = executable.expect("the viewer's executable among cargo's artifacts");
    assert_eq!(
        executable.canonicalize().ok(),
        top.canonicalize().ok(),
        "`make top` runs {}, the build makes {}",
        top.display(),
        executable.display()
    );
}

#[test]
fn make_top_highlights_the_demos_load() {
    let limit: f64 = make_words("TOP_LOAD_LIMIT").concat().parse().expect("TOP_LOAD_LIMIT is a number");
    // The demo's workloads alone: 10 + 25 + 40%; churn and the shell add a few points.
    let demo_set = 75.0;
    assert!(
        limit >= demo_set + 10.0 && limit < 100.0,
        "`make top` highlights a load above {limit}%: the demo's normal load (its workloads at {demo_set}% and \
         churn) must not show red, a load past its settings must"
    );
    // And both targets give it to the viewer they run.
    let top = make_words("TOP").concat();
    for target in ["top", "top-qemu"] {
        let out = Command::new("make")
            .current_dir(repo_root())
            .args(["-n", "--no-print-directory", target])
            .output()
            .expect("make");
        let recipe = String::from_utf8_lossy(&out.stdout);
        let runs = recipe.lines().find(|l| l.trim_start().starts_with(&top)).unwrap_or_else(|| {
            panic!("`make -n {target}` runs no {top}:\n{recipe}{}", String::from_utf8_lossy(&out.stderr))
        });
        assert!(
            runs.split_whitespace().collect::<Vec<_>>().windows(2).any(|w| w == ["--load-limit", &limit.to_string()]),
            "`make {target}` runs the viewer without --load-limit {limit}: {runs}"
        );
    }
}
