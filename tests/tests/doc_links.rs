//! Every relative link in README.md and docs/*.md leads somewhere: the file or folder
//! exists, and a `#fragment` names a heading of the page it points into (GitHub's
//! anchors: the heading's text in lower case, punctuation dropped, spaces as hyphens,
//! `-1`, `-2`... for repeats). Moving a section from one page to another breaks the
//! links into it without a word from any build; this is the word.
//!
//! Links to other sites are not followed (no network in the tests). Links inside code
//! (fenced blocks and `inline code`) are text, not links, and are skipped.

use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};

/// A link as written: the page it is in, its line, and its target.
#[derive(Debug)]
struct Link {
    page: PathBuf,
    line: usize,
    target: String,
}

/// The repository root (this crate lives in `tests/`).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("tests/ has a parent").to_path_buf()
}

/// The pages whose links are checked: README.md and every docs/*.md.
fn pages(root: &Path) -> Vec<PathBuf> {
    let mut pages = vec![root.join("README.md")];
    let docs = root.join("docs");
    let mut more: Vec<PathBuf> = fs::read_dir(&docs)
        .unwrap_or_else(|e| panic!("{}: {e}", docs.display()))
        .map(|entry| entry.expect("a readable docs/ entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    more.sort();
    pages.extend(more);
    pages
}

/// The lines of a page that are prose, with their 1-based numbers: fenced code blocks
/// left out.
fn prose_lines(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut fence: Option<&str> = None;
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        let marker = if trimmed.starts_with("```") {
            Some("```")
        } else if trimmed.starts_with("~~~") {
            Some("~~~")
        } else {
            None
        };
        match (fence, marker) {
            (None, Some(m)) => fence = Some(m),
            (Some(f), Some(m)) if f == m => fence = None,
            (None, None) => out.push((i + 1, line)),
            _ => {}
        }
    }
    out
}

/// A line with its inline code spans blanked out (a backtick run opens a span that
/// the same run closes, as CommonMark has it).
fn without_code_spans(line: &str) -> String {
    let bytes = line.as_bytes();
    let mut out = String::with_capacity(line.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'`' {
            let run = bytes[i..].iter().take_while(|&&b| b == b'`').count();
            let fence = &line[i..i + run];
            if let Some(end) = line[i + run..].find(fence) {
                i += run + end + run;
                out.push(' ');
                continue;
            }
            out.push_str(fence);
            i += run;
            continue;
        }
        let c = line[i..].chars().next().expect("a char at a char boundary");
        out.push(c);
        i += c.len_utf8();
    }
    out
}

/// The targets of the inline links and images of one line of prose: `[text](target)`
/// and `[text](target "title")`.
fn link_targets(line: &str) -> Vec<String> {
    let line = without_code_spans(line);
    let mut out = Vec::new();
    let mut rest = line.as_str();
    while let Some(at) = rest.find("](") {
        let after = &rest[at + 2..];
        let mut depth = 0usize;
        let mut end = None;
        for (j, c) in after.char_indices() {
            match c {
                '(' => depth += 1,
                ')' if depth == 0 => {
                    end = Some(j);
                    break;
                }
                ')' => depth -= 1,
                _ => {}
            }
        }
        let Some(end) = end else { break };
        let inner = after[..end].trim();
        let target = inner.split_whitespace().next().unwrap_or("");
        let target = target.trim_start_matches('<').trim_end_matches('>');
        out.push(target.to_string());
        rest = &after[end..];
    }
    out
}

/// Every link of a page.
fn links(page: &Path, text: &str) -> Vec<Link> {
    prose_lines(text)
        .into_iter()
        .flat_map(|(n, line)| {
            link_targets(line).into_iter().map(move |target| Link { page: page.to_path_buf(), line: n, target })
        })
        .collect()
}

/// A heading's text as GitHub renders it: code spans, emphasis and link targets
/// reduced to their text.
fn heading_text(raw: &str) -> String {
    let mut text = String::new();
    let mut rest = raw;
    // [text](target) -> text
    while let Some(open) = rest.find('[') {
        let Some(mid) = rest[open..].find("](") else { break };
        let Some(close) = rest[open + mid..].find(')') else { break };
        text.push_str(&rest[..open]);
        text.push_str(&rest[open + 1..open + mid]);
        rest = &rest[open + mid + close + 1..];
    }
    text.push_str(rest);
    text.replace(['`', '*'], "")
}

/// GitHub's anchor for a heading's text: lower case; letters, digits, `-`, `_` and
/// spaces kept, every other character dropped; spaces become hyphens.
fn slug(text: &str) -> String {
    text.trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == '-' || *c == '_' || *c == ' ')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors a page's headings give, repeats numbered as GitHub numbers them.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    for (_, line) in prose_lines(text) {
        let hashes = line.chars().take_while(|&c| c == '#').count();
        if hashes == 0 || hashes > 6 || !line[hashes..].starts_with(' ') {
            continue;
        }
        let base = slug(&heading_text(line[hashes..].trim().trim_end_matches('#')));
        let mut anchor = base.clone();
        let mut n = 0;
        while seen.contains(&anchor) {
            n += 1;
            anchor = format!("{base}-{n}");
        }
        seen.insert(anchor);
    }
    seen
}

/// What is wrong with a link, if anything: `None` for a good one.
fn check(link: &Link) -> Option<String> {
    let target = link.target.as_str();
    if target.is_empty() {
        return Some("empty link".into());
    }
    if target.contains("://") || target.starts_with("mailto:") {
        return None;
    }
    let (path, fragment) = match target.split_once('#') {
        Some((p, f)) => (p, Some(f)),
        None => (target, None),
    };
    let dir = link.page.parent().expect("a page is in a folder");
    let file = if path.is_empty() { link.page.clone() } else { dir.join(path) };
    if !file.exists() {
        return Some(format!("{} does not exist", file.display()));
    }
    let fragment = fragment?;
    if file.extension() != Some(OsStr::new("md")) {
        return Some(format!("#{fragment} into {}, which has no headings", file.display()));
    }
    let text = fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    if anchors(&text).contains(fragment) {
        None
    } else {
        Some(format!("{} has no heading #{fragment}", file.display()))
    }
}

#[test]
fn every_relative_link_of_the_readme_and_docs_leads_somewhere() {
    let root = root();
    let mut checked = 0;
    let mut broken = Vec::new();
    for page in pages(&root) {
        let text = fs::read_to_string(&page).unwrap_or_else(|e| panic!("{}: {e}", page.display()));
        for link in links(&page, &text) {
            checked += 1;
            if let Some(why) = check(&link) {
                let page = link.page.strip_prefix(&root).unwrap_or(&link.page);
                let why = why.replace(&format!("{}/", root.display()), "");
                broken.push(format!("{}:{}: ({}) {why}", page.display(), link.line, link.target));
            }
        }
    }
    assert!(checked >= 20, "only {checked} links found in README.md and docs/: is the link reader broken?");
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn the_readme_links_every_page_of_docs() {
    let root = root();
    let readme = fs::read_to_string(root.join("README.md")).expect("README.md");
    let linked: BTreeSet<String> = links(&root.join("README.md"), &readme)
        .into_iter()
        .map(|l| l.target.split('#').next().unwrap_or("").to_string())
        .collect();
    let unlinked: Vec<String> = pages(&root)
        .into_iter()
        .skip(1)
        .map(|p| format!("docs/{}", p.file_name().expect("a file").to_string_lossy()))
        .filter(|p| !linked.contains(p))
        .collect();
    assert!(unlinked.is_empty(), "docs/ pages the README does not link: {unlinked:?}");
}

/// The checker itself: each kind of fault it is there for is found, and what is not
/// a link is left alone.
#[test]
fn the_checker_finds_what_it_is_for() {
    let dir = std::env::temp_dir().join(format!("doc-links-{}", std::process::id()));
    fs::create_dir_all(&dir).expect("a scratch folder");
    let page = dir.join("page.md");
    let text = "# Title\n\n## See it: cpu-usage-top\n\n## Why not the kernel's own run-time stats?\n\n\
                ## Twice\n\n## Twice\n\n\
                [a](#see-it-cpu-usage-top) [b](#why-not-the-kernels-own-run-time-stats) \
                [c](#twice-1) [d](page.md#title) [e](https://example.com/x) ![f](page.md \"t\")\n\
                [g](missing.md) [h](#no-such-heading) [i](page.md#twice-2)\n\
                `[not](a-link.md)` and\n```\n[not](either.md)\n# not a heading\n```\n";
    fs::write(&page, text).expect("write the page");
    let found: Vec<(String, Option<String>)> =
        links(&page, text).iter().map(|l| (l.target.clone(), check(l))).collect();
    fs::remove_dir_all(&dir).ok();
    let targets: Vec<&str> = found.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(
        targets,
        [
            "#see-it-cpu-usage-top",
            "#why-not-the-kernels-own-run-time-stats",
            "#twice-1",
            "page.md#title",
            "https://example.com/x",
            "page.md",
            "missing.md",
            "#no-such-heading",
            "page.md#twice-2",
        ]
    );
    let bad: Vec<&str> = found.iter().filter(|(_, why)| why.is_some()).map(|(t, _)| t.as_str()).collect();
    assert_eq!(bad, ["missing.md", "#no-such-heading", "page.md#twice-2"]);
}
