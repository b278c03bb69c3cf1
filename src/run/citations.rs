//! Every quotation of the specification occurs, word for word, in the text it
//! cites.
//!
//! The features quote KEP-3541, KEP-961, the StatefulSet concepts page and the
//! notes on upstream behaviour. Every source is registered in
//! `spec/sources.yaml` (id, title, public location, the file name of its text).
//! Under its narrative, a feature has one comment line per quotation, naming
//! the source's id, the heading the quotation stands under and the quoted
//! words:
//!
//! ```text
//! # cite: kep-3541 | Proposed Recreate Strategy Algorithm | "Guarantees old and new pods never run simultaneously"
//! ```
//!
//! The texts themselves are not part of the repository: the check reads them
//! from the folder `KEPSPEC_SOURCES` names (or `kepspec cite --sources DIR`),
//! where each source's text has the registry's `file` name. Without that
//! folder the quotation check says so in one line and checks nothing.
//!
//! The heading is the exact text of a heading of that file: a `#` line of a
//! Markdown file, a line of its own in a plain-text file. Where a heading is
//! not unique, or a plain-text sub-heading ends its parent's section, a path
//! such as `Upgrade / Downgrade Strategy > Downgrade` names each heading after
//! the one before it. The quotation must lie in the section of the last
//! heading: from the heading to the next heading of the same or a higher level
//! (in plain text, to the next heading). `...` marks an omission: the pieces
//! must occur in this order. Both sides are compared after collapsing
//! whitespace, dropping list markers, Markdown emphasis (`*`, `_`) and code
//! marks (backticks), and straightening curly quotes; case counts.
//!
//! In a narrative, every text in double quotation marks (outside `code`) is
//! either the exact heading of a reference text (a section name) or a
//! quotation that one of the feature's `# cite:` lines holds, and every
//! `# cite:` line is quoted by the narrative.
//!
//! Clauses (`src/harness/clauses.rs`), which failure messages print as
//! `id: "text"`, follow one convention. A clause with a text is a quotation:
//! its id is a source's `clause_prefix` followed by the exact heading, as in
//! `KEP-3541 Proposed Recreate Strategy Algorithm` or
//! `StatefulSet concepts, Rolling Updates`, and its text
//! occurs under that heading. A clause that is not a quotation has an empty
//! text, so that it is printed without quotation marks, and says
//! `(paraphrase)` in its id, which carries the words.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// What separates the pieces of a quotation with omissions once they are
/// joined: a narrative quotation cannot reach across it.
const GAP: &str = "\u{1}";

/// The environment variable naming the folder of the source texts.
pub(crate) const SOURCES_ENV: &str = "KEPSPEC_SOURCES";

/// The folder of the source texts `KEPSPEC_SOURCES` names, if it is set.
pub(crate) fn sources_dir() -> Option<PathBuf> {
    std::env::var_os(SOURCES_ENV)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// One entry of `spec/sources.yaml`. Every field is part of the file's
/// schema (unknown ones are refused) though not every one is read here.
#[allow(dead_code)]
#[derive(Clone, Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SourceEntry {
    /// What `# cite:` lines name.
    pub id: String,
    /// The source's title.
    pub title: String,
    /// The file name of its text in the sources folder.
    pub file: String,
    /// How the ids of clauses quoting it begin (`KEP-3541 `).
    pub clause_prefix: String,
    /// Its canonical public location.
    pub location: Option<String>,
    /// Further public evidence a set of notes summarizes.
    #[serde(default)]
    pub evidence: Vec<String>,
    /// When the text was last read against its location.
    pub read: Option<String>,
    /// Anything a reader should know.
    pub note: Option<String>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct RegistryFile {
    sources: Vec<SourceEntry>,
}

/// Where the registry is, in the spec (on disk, or bundled).
pub(crate) const REGISTRY: &str = "spec/sources.yaml";

/// The registered sources, in the registry's order.
pub(crate) fn registry() -> Result<Vec<SourceEntry>, String> {
    let text = crate::bundle::read_to_string(Path::new(REGISTRY))
        .map_err(|e| format!("{REGISTRY}: cannot read: {e}"))?;
    let file: RegistryFile =
        crate::yaml::from_str(&text).map_err(|e| format!("{REGISTRY}: {e}"))?;
    let mut seen = BTreeSet::new();
    for s in &file.sources {
        if !seen.insert(s.id.as_str()) {
            return Err(format!("{REGISTRY}: source id `{}` appears twice", s.id));
        }
    }
    Ok(file.sources)
}

/// A heading of a reference text.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Heading {
    /// Index of its line.
    line: usize,
    /// 1 for `#`, 2 for `##`, ...; every plain-text heading is 1.
    level: usize,
    text: String,
}

/// One reference text, as lines with their headings.
struct Source {
    markdown: bool,
    lines: Vec<String>,
    headings: Vec<Heading>,
}

impl Source {
    fn parse(name: &str, text: &str) -> Source {
        let markdown = name.ends_with(".md");
        let lines: Vec<String> = text.lines().map(str::to_string).collect();
        let headings = if markdown {
            markdown_headings(&lines)
        } else {
            (0..lines.len())
                .filter(|&i| is_plain_heading(&lines, i))
                .map(|i| Heading {
                    line: i,
                    level: 1,
                    text: lines[i].trim().to_string(),
                })
                .collect()
        };
        Source {
            markdown,
            lines,
            headings,
        }
    }

    /// The lines (and levels) where a cited heading stands: a Markdown
    /// heading with this text, or a plain-text line that is this text.
    fn occurrences(&self, heading: &str) -> Vec<(usize, usize)> {
        if self.markdown {
            self.headings
                .iter()
                .filter(|h| h.text == heading)
                .map(|h| (h.line, h.level))
                .collect()
        } else {
            self.lines
                .iter()
                .enumerate()
                .filter(|(_, l)| !l.starts_with([' ', '\t']) && l.trim() == heading)
                .map(|(i, _)| (i, 1))
                .collect()
        }
    }

    /// The normalized text under the heading at `line`, up to the next
    /// heading of the same or a higher level.
    fn section(&self, line: usize, level: usize) -> String {
        let end = self
            .headings
            .iter()
            .find(|h| h.line > line && h.level <= level)
            .map_or(self.lines.len(), |h| h.line);
        normalize(&self.lines[line + 1..end].join("\n"))
    }

    /// The sections a heading path names: each heading comes after the one
    /// before it; every place where the last one stands counts.
    fn sections(&self, path: &[String]) -> Result<Vec<String>, String> {
        let (last, parents) = path.split_last().ok_or("no heading is named")?;
        let mut after: Option<usize> = None;
        for heading in parents {
            let (line, _) = self
                .occurrences(heading)
                .into_iter()
                .find(|(l, _)| after.is_none_or(|a| *l > a))
                .ok_or_else(|| format!("no heading \"{heading}\""))?;
            after = Some(line);
        }
        let sections: Vec<String> = self
            .occurrences(last)
            .into_iter()
            .filter(|(l, _)| after.is_none_or(|a| *l > a))
            .map(|(l, level)| self.section(l, level))
            .collect();
        if sections.is_empty() {
            Err(format!("no heading \"{}\"", path.join(" > ")))
        } else {
            Ok(sections)
        }
    }
}

/// The `#` headings of Markdown lines, outside fenced code.
fn markdown_headings(lines: &[String]) -> Vec<Heading> {
    let mut headings = Vec::new();
    let mut fenced = false;
    for (i, line) in lines.iter().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        let level = line.chars().take_while(|&c| c == '#').count();
        let rest = &line[level..];
        if fenced || !(1..=6).contains(&level) || !rest.starts_with([' ', '\t']) {
            continue;
        }
        let text = rest.trim();
        if !text.is_empty() {
            headings.push(Heading {
                line: i,
                level,
                text: text.to_string(),
            });
        }
    }
    headings
}

/// Whether line `i` of a plain-text file is a heading: a question, or a
/// short title standing alone between blank lines that is not code.
fn is_plain_heading(lines: &[String], i: usize) -> bool {
    let line = &lines[i];
    let text = line.trim();
    if text.is_empty() || line.starts_with([' ', '\t']) {
        return false;
    }
    if text.ends_with('?') {
        return true;
    }
    let alone = i.checked_sub(1).is_none_or(|j| lines[j].trim().is_empty())
        && lines.get(i + 1).is_none_or(|l| l.trim().is_empty());
    alone
        && text.chars().count() <= 80
        && !text.ends_with(['.', ',', ';', ':'])
        && !["==", "{", "}", " = "]
            .iter()
            .any(|code| text.contains(code))
        && !["//", "#", "-", "+", "FEATURE STATE"]
            .iter()
            .any(|start| text.starts_with(start))
        && text != "N/A"
}

/// A line without its list marker (`•`, `*`, `-`, `1.`).
fn without_list_marker(line: &str) -> &str {
    let body = line.trim_start_matches([' ', '\t']);
    for marker in ["• ", "* ", "- "] {
        if let Some(rest) = body.strip_prefix(marker) {
            return rest;
        }
    }
    let digits = body.len() - body.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    match body[digits..].strip_prefix(". ") {
        Some(rest) if digits > 0 => rest,
        _ => line,
    }
}

/// Text as it is compared: list markers, emphasis and code marks dropped,
/// quotes straightened, whitespace collapsed.
fn normalize(text: &str) -> String {
    let unmarked = text
        .lines()
        .map(without_list_marker)
        .collect::<Vec<_>>()
        .join("\n");
    let chars: Vec<char> = unmarked
        .chars()
        .map(|c| match c {
            '\u{2018}' | '\u{2019}' => '\'',
            '\u{201c}' | '\u{201d}' => '"',
            '•' => ' ',
            c => c,
        })
        .collect();
    let mut kept = String::with_capacity(unmarked.len());
    for (i, &c) in chars.iter().enumerate() {
        let emphasis = match c {
            '*' | '`' => true,
            // `_` inside a word (max_unavailable) is part of it.
            '_' => {
                let before = i > 0 && chars[i - 1].is_alphanumeric();
                let after = chars.get(i + 1).is_some_and(|n| n.is_alphanumeric());
                !(before && after)
            }
            _ => false,
        };
        if !emphasis {
            kept.push(c);
        }
    }
    kept.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The normalized pieces of a quotation, split where `...` marks an omission.
fn fragments(quotation: &str) -> Vec<String> {
    quotation
        .replace('…', "...")
        .split("...")
        .map(normalize)
        .filter(|f| !f.is_empty())
        .collect()
}

/// The first fragment that does not occur in `text` after the one before it.
fn first_missing<'a>(text: &str, fragments: &'a [String]) -> Option<&'a str> {
    let mut from = 0;
    for fragment in fragments {
        match text[from..].find(fragment.as_str()) {
            Some(at) => from += at + fragment.len(),
            None => return Some(fragment.as_str()),
        }
    }
    None
}

/// The reference texts, by file name, and the registry that names them.
struct Reference {
    dir: PathBuf,
    sources: BTreeMap<String, Source>,
    registry: Vec<SourceEntry>,
}

impl Reference {
    /// Reads every `.md` and `.txt` file of `dir`.
    fn load(dir: &Path) -> Result<Reference, String> {
        let registry = registry()?;
        let missing = |why: String| {
            format!(
                "the source texts are missing ({why}): {SOURCES_ENV} names {}, which must hold \
                 the text of every source of {REGISTRY} under its `file` name",
                dir.display()
            )
        };
        let entries = fs::read_dir(dir).map_err(|e| missing(e.to_string()))?;
        let mut sources = BTreeMap::new();
        for entry in entries {
            let path = entry.map_err(|e| missing(e.to_string()))?.path();
            let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
                continue;
            };
            if !(name.ends_with(".md") || name.ends_with(".txt")) {
                continue;
            }
            let text = fs::read_to_string(&path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            sources.insert(name.to_string(), Source::parse(name, &text));
        }
        if sources.is_empty() {
            return Err(missing("no .md or .txt file".to_string()));
        }
        for entry in &registry {
            if !sources.contains_key(&entry.file) {
                return Err(missing(format!(
                    "no {} for source `{}`",
                    entry.file, entry.id
                )));
            }
        }
        Ok(Reference {
            dir: dir.to_path_buf(),
            sources,
            registry,
        })
    }

    /// Every heading of every reference text.
    fn headings(&self) -> BTreeSet<&str> {
        self.sources
            .values()
            .flat_map(|s| s.headings.iter().map(|h| h.text.as_str()))
            .collect()
    }

    /// The text file of a source id.
    fn file_of(&self, id: &str) -> Result<&str, String> {
        self.registry
            .iter()
            .find(|s| s.id == id)
            .map(|s| s.file.as_str())
            .ok_or_else(|| {
                format!(
                    "no source `{id}` in {REGISTRY} (known: {})",
                    self.registry
                        .iter()
                        .map(|s| s.id.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })
    }

    /// Whether `quotation` occurs in the text of source `id` under the
    /// heading path.
    fn check(&self, id: &str, path: &[String], quotation: &str) -> Result<(), String> {
        let file = self.file_of(id)?;
        let source = self
            .sources
            .get(file)
            .ok_or_else(|| format!("no reference text {file} in {}", self.dir.display()))?;
        let wanted = fragments(quotation);
        if wanted.is_empty() {
            return Err("the quotation is empty".to_string());
        }
        let sections = source.sections(path)?;
        if sections.iter().any(|s| first_missing(s, &wanted).is_none()) {
            return Ok(());
        }
        let missing = first_missing(&sections[0], &wanted).unwrap_or_default();
        let elsewhere: Vec<&str> = self
            .sources
            .iter()
            .filter(|(_, s)| normalize(&s.lines.join("\n")).contains(missing))
            .map(|(name, _)| name.as_str())
            .collect();
        let place = if elsewhere.is_empty() {
            "in no reference text".to_string()
        } else {
            format!("it occurs in {}", elsewhere.join(", "))
        };
        Err(format!(
            "not under \"{}\": \"{missing}\" ({place})",
            path.join(" > ")
        ))
    }
}

/// A `# cite:` line of a feature.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Cite {
    /// Its line number, from 1.
    line: usize,
    /// The source's id in `spec/sources.yaml`.
    source: String,
    /// The heading, or the headings from the outermost to the one that holds
    /// the quotation.
    path: Vec<String>,
    text: String,
}

impl Cite {
    /// The quotation's pieces joined by `GAP`: a narrative quotation is
    /// held by this line when all its pieces occur in it, in order.
    fn holds(&self, quotation: &[String]) -> bool {
        first_missing(&fragments(&self.text).join(GAP), quotation).is_none()
    }
}

/// `# cite: <source id> | <heading>[ > <heading>...] | "<text>"`; `None` when the
/// line is no citation.
fn parse_cite(line: usize, text: &str) -> Option<Result<Cite, String>> {
    let fields = text
        .trim()
        .strip_prefix('#')?
        .trim_start()
        .strip_prefix("cite:")?;
    let mut fields = fields.splitn(3, '|').map(str::trim);
    let (Some(file), Some(headings), Some(quoted)) = (fields.next(), fields.next(), fields.next())
    else {
        return Some(Err(
            "expected `# cite: <source id> | <heading> | \"<text>\"`".to_string(),
        ));
    };
    let Some(quotation) = quoted.strip_prefix('"').and_then(|q| q.strip_suffix('"')) else {
        return Some(Err("the quotation must stand in double quotes".to_string()));
    };
    if file.is_empty() || headings.is_empty() {
        return Some(Err("a citation names a source and a heading".to_string()));
    }
    Some(Ok(Cite {
        line,
        source: file.to_string(),
        path: heading_path(headings),
        text: quotation.to_string(),
    }))
}

/// `A > B` as its headings.
fn heading_path(text: &str) -> Vec<String> {
    text.split(" > ").map(|h| h.trim().to_string()).collect()
}

/// The texts in double quotation marks, outside `code`, with their
/// whitespace collapsed; an error when a quotation mark has no partner.
fn quotations(narrative: &str) -> Result<Vec<String>, String> {
    let mut prose = String::with_capacity(narrative.len());
    let mut code = false;
    for c in narrative.chars() {
        if c == '`' {
            code = !code;
        } else if !code {
            prose.push(c);
        }
    }
    let parts: Vec<&str> = prose.split('"').collect();
    if parts.len().is_multiple_of(2) {
        return Err("a quotation mark of the narrative has no partner".to_string());
    }
    Ok(parts
        .iter()
        .skip(1)
        .step_by(2)
        .map(|q| q.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|q| !q.is_empty())
        .collect())
}

/// The problems of one feature file's citations.
fn feature_problems(reference: &Reference, headings: &BTreeSet<&str>, path: &Path) -> Vec<String> {
    let name = path.display().to_string();
    let text = match crate::bundle::read_to_string(path) {
        Ok(text) => text,
        Err(e) => return vec![format!("{name}: cannot read: {e}")],
    };
    let mut problems = Vec::new();
    let mut cites = Vec::new();
    for (i, line) in text.lines().enumerate() {
        match parse_cite(i + 1, line) {
            None => {}
            Some(Err(e)) => problems.push(format!("{name}:{}: {e}", i + 1)),
            Some(Ok(cite)) => {
                if let Err(e) = reference.check(&cite.source, &cite.path, &cite.text) {
                    problems.push(format!("{name}:{}: {e}", cite.line));
                }
                cites.push(cite);
            }
        }
    }
    let narrative = match super::features::parse(path) {
        Ok(feature) => feature.description.unwrap_or_default(),
        Err(e) => {
            problems.push(e.to_string());
            return problems;
        }
    };
    let quoted = match quotations(&narrative) {
        Ok(quoted) => quoted,
        Err(e) => {
            problems.push(format!("{name}: {e}"));
            Vec::new()
        }
    };
    let mut used = vec![false; cites.len()];
    for quotation in quoted {
        if headings.contains(quotation.as_str()) {
            continue;
        }
        let pieces = fragments(&quotation);
        let mut held = false;
        for (cite, used) in cites.iter().zip(used.iter_mut()) {
            if cite.holds(&pieces) {
                held = true;
                *used = true;
            }
        }
        if !held {
            problems.push(format!(
                "{name}: the narrative quotes \"{quotation}\", which is neither a heading of a \
                 reference text nor held by a `# cite:` line"
            ));
        }
    }
    for (cite, used) in cites.iter().zip(used) {
        if !used {
            problems.push(format!(
                "{name}:{}: no quotation of the narrative uses this citation",
                cite.line
            ));
        }
    }
    problems
}

#[cfg(test)]
/// The id and text of every `Clause::new(id, text)` in Rust code; both must
/// be string literals.
fn clause_literals(code: &str) -> Result<Vec<(String, String)>, String> {
    const CALL: &str = "Clause::new(";
    let mut clauses = Vec::new();
    for (at, _) in code.match_indices(CALL) {
        let line = code[..at].matches('\n').count() + 1;
        let not_literal = || format!("line {line}: `Clause::new` takes two string literals");
        let rest = code[at + CALL.len()..].trim_start();
        let (id, rest) = super::literal::string_literal(rest).ok_or_else(not_literal)?;
        let rest = rest
            .trim_start()
            .strip_prefix(',')
            .ok_or_else(not_literal)?;
        let (text, rest) =
            super::literal::string_literal(rest.trim_start()).ok_or_else(not_literal)?;
        let rest = rest.trim_start();
        let rest = rest.strip_prefix(',').unwrap_or(rest).trim_start();
        if !rest.starts_with(')') {
            return Err(not_literal());
        }
        clauses.push((id, text));
    }
    Ok(clauses)
}

#[cfg(test)]
/// The source id and heading path a clause id names, when it begins with a
/// source's `clause_prefix` (the longest that fits: the draft's prefix
/// begins with KEP-3541's).
fn clause_source(registry: &[SourceEntry], id: &str) -> Option<(String, Vec<String>)> {
    registry
        .iter()
        .filter(|s| id.starts_with(&s.clause_prefix))
        .max_by_key(|s| s.clause_prefix.len())
        .map(|s| (s.id.clone(), heading_path(&id[s.clause_prefix.len()..])))
}

/// What checking the citations of some feature files found.
#[derive(Debug, Default)]
pub(crate) struct CitationReport {
    /// `# cite:` lines read.
    pub cites: usize,
    /// Each problem, `file:line: what`.
    pub problems: Vec<String>,
}

/// Checks the citations of these feature files against the source texts in
/// `dir`: every `# cite:` quotation occurs under its heading in its source,
/// and every narrative quotation is a heading or held by a `# cite:` line.
/// An error when the texts cannot be read.
pub(crate) fn check_features(dir: &Path, files: &[PathBuf]) -> Result<CitationReport, String> {
    let reference = Reference::load(dir)?;
    let headings = reference.headings();
    let mut report = CitationReport::default();
    for file in files {
        let text = crate::bundle::read_to_string(file)
            .map_err(|e| format!("{}: cannot read: {e}", file.display()))?;
        report.cites += text.lines().filter(|l| parse_cite(0, l).is_some()).count();
        report
            .problems
            .extend(feature_problems(&reference, &headings, file));
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root() -> &'static Path {
        Path::new(env!("CARGO_MANIFEST_DIR"))
    }

    /// The source texts, when `KEPSPEC_SOURCES` names their folder; without
    /// it the quotation checks say so in one line and check nothing.
    fn reference(check: &str) -> Option<Reference> {
        match sources_dir() {
            Some(dir) => Some(Reference::load(&dir).unwrap_or_else(|e| panic!("{e}"))),
            None => {
                eprintln!("{check}: skipped, {SOURCES_ENV} names no folder of source texts");
                None
            }
        }
    }

    #[test]
    fn the_registry_names_each_source_once_with_a_public_location_or_a_reason() {
        let registry = registry().unwrap_or_else(|e| panic!("{e}"));
        assert!(registry.len() >= 7, "{registry:?}");
        for s in &registry {
            assert!(
                s.location.is_some() || s.note.is_some(),
                "{}: neither a location nor a note saying why there is none",
                s.id
            );
        }
    }

    #[test]
    fn every_cite_line_names_a_registered_source() {
        let registry = registry().unwrap_or_else(|e| panic!("{e}"));
        let files = super::super::features::discover(&[root().join("features")])
            .unwrap_or_else(|e| panic!("{e}"));
        let mut problems = Vec::new();
        for file in &files {
            let text = fs::read_to_string(file).unwrap_or_default();
            for (i, line) in text.lines().enumerate() {
                if let Some(Ok(cite)) = parse_cite(i + 1, line) {
                    if !registry.iter().any(|s| s.id == cite.source) {
                        problems.push(format!("{}:{}: `{}`", file.display(), i + 1, cite.source));
                    }
                }
            }
        }
        assert!(
            problems.is_empty(),
            "unregistered sources:\n{}",
            problems.join("\n")
        );
    }

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn every_citation_occurs_in_its_source() {
        let Some(dir) = sources_dir() else {
            eprintln!(
                "every_citation_occurs_in_its_source: skipped, {SOURCES_ENV} names no folder of source texts"
            );
            return;
        };
        let files = super::super::features::discover(&[PathBuf::from("features")])
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(!files.is_empty(), "no feature file under features/");
        let report = check_features(&dir, &files).unwrap_or_else(|e| panic!("{e}"));
        assert!(report.cites > 0, "no `# cite:` line in features/");
        assert!(
            report.problems.is_empty(),
            "{} problem(s) with the citations of features/ ({} `# cite:` lines):\n{}",
            report.problems.len(),
            report.cites,
            report.problems.join("\n")
        );
    }

    #[test]
    fn every_quoted_clause_occurs_in_its_source() {
        let Some(reference) = reference("every_quoted_clause_occurs_in_its_source") else {
            return;
        };
        let path = root().join("src").join("harness").join("clauses.rs");
        let code = fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        let clauses =
            clause_literals(&code).unwrap_or_else(|e| panic!("src/harness/clauses.rs: {e}"));
        assert!(!clauses.is_empty(), "no clause in src/harness/clauses.rs");
        let mut problems = Vec::new();
        for (id, text) in &clauses {
            if text.is_empty() {
                if !id.contains("(paraphrase)") {
                    problems.push(format!(
                        "{id}: a clause with an empty text is a paraphrase and must say \
                         \"(paraphrase)\" in its id"
                    ));
                }
                continue;
            }
            match clause_source(&reference.registry, id) {
                Some((source, path)) => {
                    if let Err(e) = reference.check(&source, &path, text) {
                        problems.push(format!("{id}: {e}"));
                    }
                }
                None => problems.push(format!(
                    "{id}: the id of a quoted clause must begin with a source name ({}) \
                     followed by a heading; a paraphrase has an empty text",
                    reference
                        .registry
                        .iter()
                        .map(|s| s.clause_prefix.trim_end())
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
            }
        }
        let report = problems.join("\n");
        assert!(
            problems.is_empty(),
            "clauses in src/harness/clauses.rs that are not quotations of their source:\n{report}"
        );
    }

    #[test]
    fn normalizing_ignores_layout_emphasis_and_curly_quotes() {
        assert_eq!(
            normalize("  • **Bold** `code` it\u{2019}s\n  1. wrapped   _text_ of max_unavailable"),
            "Bold code it's wrapped text of max_unavailable"
        );
        assert_eq!(normalize("- a\n* b\n10. c"), "a b c");
    }

    #[test]
    fn an_omission_splits_a_quotation_into_pieces_that_keep_their_order() {
        let pieces = fragments("one ... two \u{2026} three");
        assert_eq!(pieces, strings(&["one", "two", "three"]));
        assert_eq!(first_missing("one, two and three", &pieces), None);
        assert_eq!(first_missing("two, one and three", &pieces), Some("two"));
    }

    #[test]
    fn plain_text_sections_run_to_the_next_heading() {
        let source = Source::parse(
            "x.txt",
            "Title\n\nIntro.\n\nSection\n\nBody of\nthe section.\n\nWhat next?\nAn answer.\n",
        );
        let texts: Vec<&str> = source.headings.iter().map(|h| h.text.as_str()).collect();
        assert_eq!(texts, ["Title", "Section", "What next?"]);
        assert_eq!(
            source.sections(&strings(&["Section"])),
            Ok(strings(&["Body of the section."]))
        );
        assert_eq!(
            source.sections(&strings(&["Title", "What next?"])),
            Ok(strings(&["An answer."]))
        );
        assert!(source
            .sections(&strings(&["What next?", "Section"]))
            .is_err());
    }

    #[test]
    fn markdown_sections_hold_their_subsections() {
        let source = Source::parse(
            "x.md",
            "# A\n## B\ntext b\n### C\ntext c\n## D\n```\n# not a heading\n```\n",
        );
        let texts: Vec<&str> = source.headings.iter().map(|h| h.text.as_str()).collect();
        assert_eq!(texts, ["A", "B", "C", "D"]);
        assert_eq!(
            source.sections(&strings(&["B"])),
            Ok(strings(&["text b ### C text c"]))
        );
    }

    #[test]
    fn a_cite_line_names_a_source_a_heading_path_and_a_quotation() {
        assert_eq!(
            parse_cite(3, "  # cite: kep-961 | A > B | \"say \"hi\" ... there\""),
            Some(Ok(Cite {
                line: 3,
                source: "kep-961".to_string(),
                path: strings(&["A", "B"]),
                text: "say \"hi\" ... there".to_string(),
            }))
        );
        assert_eq!(parse_cite(1, "  # a comment"), None);
        assert!(matches!(parse_cite(1, "# cite: f.md | A"), Some(Err(_))));
        assert!(matches!(
            parse_cite(1, "# cite: f.md | A | words"),
            Some(Err(_))
        ));
    }

    #[test]
    fn narrative_quotations_leave_out_code() {
        assert_eq!(
            quotations("a \"one\" and `x \"y\"` then \"two\nlines \""),
            Ok(strings(&["one", "two lines"]))
        );
        assert!(quotations("an \"unpaired quotation").is_err());
    }

    #[test]
    fn cite_lines_are_comments_not_narrative() {
        let text = "Feature: f\n  A narrative.\n\n  # cite: a.md | H | \"x\"\n\n  Scenario: s\n    Given a step\n";
        let feature = cucumber::gherkin::Feature::parse(text, Default::default())
            .expect("the fixture is a feature");
        assert_eq!(feature.scenarios.len(), 1);
        assert_eq!(
            feature.description.map(|d| normalize(&d)),
            Some("A narrative.".to_string())
        );
    }

    #[test]
    fn clause_literals_are_read_with_their_escapes() {
        assert_eq!(
            clause_literals(
                "Clause::new(\n    \"KEP-961 Proposal\",\n    \"a \\\"b\\\" \\\n     c\",\n)"
            ),
            Ok(vec![(
                "KEP-961 Proposal".to_string(),
                "a \"b\" c".to_string()
            )])
        );
        assert!(clause_literals("Clause::new(id, \"text\")").is_err());
        let registry = registry().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            clause_source(&registry, "StatefulSet concepts, Forced rollback"),
            Some((
                "statefulset-concepts".to_string(),
                strings(&["Forced rollback"])
            ))
        );
        assert_eq!(
            clause_source(&registry, "KEP-3541 draft Design Details"),
            Some(("kep-3541-draft".to_string(), strings(&["Design Details"])))
        );
        assert_eq!(
            clause_source(&registry, "Pod lifecycle (paraphrase): x"),
            None
        );
    }
}
