//! The README and the manual hold together: every page `docs/src/SUMMARY.md`
//! lists exists, every relative link of the README, the manual and the
//! project files resolves (to a file, and to a heading where it names one),
//! and the README stays a front page. `mdbook build docs` needs nothing more.

use std::path::{Path, PathBuf};

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The targets of the Markdown links `[text](target)` of a text, outside
/// code spans and fenced blocks.
fn links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        // Drop code spans: a link inside backticks is text.
        let prose: String = line
            .split('`')
            .enumerate()
            .filter(|(i, _)| i % 2 == 0)
            .map(|(_, s)| s)
            .collect::<Vec<_>>()
            .join(" ");
        let mut rest = prose.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else { break };
            out.push(after[..end].trim().to_string());
            rest = &after[end..];
        }
    }
    out
}

/// A heading's anchor as mdBook and GitHub write it.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

fn anchors(text: &str) -> Vec<String> {
    let mut fenced = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            out.push(slug(line.trim_start_matches('#').replace('`', "").as_str()));
        }
    }
    out
}

fn markdown_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = ["README.md", "CONTRIBUTING.md", "CHANGELOG.md"]
        .iter()
        .map(|f| repo().join(f))
        .collect();
    for entry in std::fs::read_dir(repo().join("docs/src")).expect("docs/src") {
        let path = entry.expect("entry").path();
        if path.extension().is_some_and(|e| e == "md") {
            files.push(path);
        }
    }
    files
}

#[test]
fn every_page_of_the_summary_exists() {
    let summary = std::fs::read_to_string(repo().join("docs/src/SUMMARY.md")).expect("SUMMARY.md");
    let pages = links(&summary);
    assert!(pages.len() >= 10, "{pages:?}");
    for page in pages {
        assert!(
            repo().join("docs/src").join(&page).is_file(),
            "docs/src/SUMMARY.md lists {page}, which does not exist"
        );
    }
    assert!(repo().join("docs/book.toml").is_file());
}

#[test]
fn every_relative_link_resolves() {
    let mut broken = Vec::new();
    for file in markdown_files() {
        let text = std::fs::read_to_string(&file).expect("readable");
        let dir = file.parent().expect("a folder");
        for link in links(&text) {
            if link.contains("://") || link.starts_with("mailto:") || link.is_empty() {
                continue;
            }
            let (path, anchor) = match link.split_once('#') {
                Some((p, a)) => (p, Some(a)),
                None => (link.as_str(), None),
            };
            let target = if path.is_empty() {
                file.clone()
            } else {
                dir.join(path)
            };
            let name = file
                .strip_prefix(repo())
                .unwrap_or(&file)
                .display()
                .to_string();
            if !target.exists() {
                broken.push(format!("{name}: {link}: no such file"));
                continue;
            }
            if let Some(anchor) = anchor.filter(|_| target.extension().is_some_and(|e| e == "md")) {
                let text = std::fs::read_to_string(&target).expect("readable");
                if !anchors(&text).iter().any(|a| a == anchor) {
                    broken.push(format!("{name}: {link}: no such heading"));
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn the_readme_is_a_front_page() {
    let readme = std::fs::read_to_string(repo().join("README.md")).expect("README.md");
    let lines = readme.lines().count();
    assert!(
        lines <= 250,
        "README.md has {lines} lines; the manual is docs/"
    );
    // It says what kepspec is before any command, and names the two commands.
    let first_command = readme.find("```").unwrap_or(readme.len());
    assert!(readme[..first_command].contains("kepspec is"));
    assert!(readme.contains("cargo run --release -- run"));
    assert!(readme.contains("cargo test"));
    assert!(!readme.contains("../shared"), "a clone has no ../shared");
}

/// The defect table of docs/src/discrimination.md names, for each defect,
/// the scenario `steps/catches.txt` records as its catch: a location there
/// that the record no longer holds points at a line that moved.
#[test]
fn the_defect_table_names_the_recorded_catches() {
    let catches = std::fs::read_to_string(repo().join("steps/catches.txt")).expect("catches");
    let recorded: std::collections::HashMap<&str, &str> = catches
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter_map(|l| {
            let mut words = l.split_whitespace();
            Some((words.next()?, words.next()?))
        })
        .collect();
    let doc = std::fs::read_to_string(repo().join("docs/src/discrimination.md")).expect("doc");
    let mut stale = Vec::new();
    for row in doc.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = row.split(" | ").collect();
        let defect = cells[0].trim_start_matches("| ").trim_matches('`');
        let (Some(example), Some(catch)) = (cells.last(), recorded.get(defect)) else {
            continue;
        };
        let location = example.split_whitespace().next().unwrap_or_default();
        if format!("features/{location}") != *catch {
            stale.push(format!(
                "{defect}: the table says {location}, the record {catch}"
            ));
        }
    }
    assert!(stale.is_empty(), "stale examples:\n{}", stale.join("\n"));
}

#[test]
fn the_link_reader_reads_links_and_skips_code() {
    assert_eq!(
        links("see [a](x.md) and `[b](y.md)`\n```\n[c](z.md)\n```\n[d](w.md#h-1)"),
        ["x.md", "w.md#h-1"]
    );
    assert_eq!(slug("Declared deviations"), "declared-deviations");
    assert_eq!(slug("`kepspec run` options"), "kepspec-run-options");
}
