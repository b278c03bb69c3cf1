//! The coverage map: which scenarios check each testable promise of the
//! source texts (`coverage/promises.yaml`, ids from seed-promises.md) and
//! each of upstream's own StatefulSet tests (`coverage/upstream-tests.yaml`),
//! and why the others are not checked (`coverage/explained.yaml`).
//!
//! A scenario says what it covers in a comment right above it (among or
//! above its tags): `# covers: R1 R12 E3`. The map is built from those
//! comments, so it cannot drift from the features: an id no catalogue
//! knows, an entry neither covered nor explained, or one both covered and
//! explained is a problem that names its place.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::features::InputProblem;

/// The comment that names what a scenario covers.
pub(crate) const COVERS: &str = "# covers:";

/// The catalogues, relative to the repository root.
pub(crate) const PROMISES: &str = "coverage/promises.yaml";
/// Upstream's tests.
pub(crate) const UPSTREAM: &str = "coverage/upstream-tests.yaml";
/// Why an entry has no scenario.
pub(crate) const EXPLAINED: &str = "coverage/explained.yaml";

/// One thing a scenario can cover.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Entry {
    /// Stable id (`R1`, `M12`, `E3`, `I4`).
    pub id: String,
    /// Where it comes from: a source text, or an upstream test file.
    pub source: String,
    /// The promise's words, or the upstream test's name.
    pub text: String,
}

/// Why an entry has no scenario.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Why {
    /// A scenario could check it; none does yet (what it would need).
    Gap(String),
    /// An API observer cannot check it (why).
    NotTestable(String),
}

/// A scenario naming an id in its `# covers:` comment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Claim {
    /// The id named.
    pub id: String,
    /// `features/x.feature:12` of the comment.
    pub at: String,
    /// `x.feature — <scenario title>` (no line: the map should not change
    /// when a feature's narrative grows).
    pub scenario: String,
    /// Why the scenario does not run on every target that claims its tags
    /// (`@embedded-only`, `@metrics`, `@deviates-<id>`, `@deviation-<id>`),
    /// if so.
    pub limit: Option<String>,
}

/// Why a scenario with these tags (feature's and its own) does not run on
/// every target that claims them.
pub(crate) fn limit_of(tags: &[&str]) -> Option<String> {
    let mut limits = Vec::new();
    for tag in tags {
        let tag = tag.trim_start_matches('@');
        if tag == "embedded-only" {
            limits.push("embedded cluster only".to_string());
        } else if tag == "metrics" {
            limits.push("the bundled controller only, whose metrics kepspec reads".to_string());
        } else if let Some(id) = tag.strip_prefix(crate::profiles::deviation::DEVIATES_PREFIX) {
            limits.push(format!("not on a target declaring {id}"));
        } else if let Some(id) = tag.strip_prefix(crate::profiles::deviation::DEVIATION_PREFIX) {
            limits.push(format!("only on a target declaring {id}"));
        }
    }
    (!limits.is_empty()).then(|| limits.join("; "))
}

/// One row of the map.
#[derive(Clone, Debug)]
pub(crate) struct Row {
    /// What is covered.
    pub entry: Entry,
    /// The scenarios that cover it, each with its limit.
    pub covered_by: Vec<(String, Option<String>)>,
    /// Why nothing covers it, when nothing does.
    pub why: Option<Why>,
}

/// The two tables.
#[derive(Clone, Debug, Default)]
pub(crate) struct Map {
    /// Seed promises, in catalogue order.
    pub promises: Vec<Row>,
    /// Upstream's tests, in catalogue order.
    pub upstream: Vec<Row>,
}

/// Counts of one table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Counts {
    /// Rows in all.
    pub total: usize,
    /// Rows some scenario covers that runs on every target claiming it.
    pub covered: usize,
    /// Rows covered only by scenarios some claiming targets do not run.
    pub partly: usize,
    /// Rows explained as gaps.
    pub gaps: usize,
    /// Rows explained as not testable.
    pub not_testable: usize,
}

impl Counts {
    /// Counts `rows`.
    pub(crate) fn of(rows: &[Row]) -> Counts {
        let mut c = Counts {
            total: rows.len(),
            ..Counts::default()
        };
        for r in rows {
            match (&r.covered_by.is_empty(), &r.why) {
                (false, _) if r.covered_everywhere() => c.covered += 1,
                (false, _) => c.partly += 1,
                (true, Some(Why::Gap(_))) => c.gaps += 1,
                (true, Some(Why::NotTestable(_))) => c.not_testable += 1,
                (true, None) => {}
            }
        }
        c
    }

    /// `195 in all: 120 covered, 3 covered on some targets only, 60 not yet
    /// (gaps), 15 not testable by an API observer`.
    pub(crate) fn sentence(&self) -> String {
        format!(
            "{} in all: {} covered, {} covered on some targets only, {} not yet (gaps), {} not testable by an API observer",
            self.total, self.covered, self.partly, self.gaps, self.not_testable
        )
    }
}

impl Row {
    /// Whether some scenario covering it runs on every target claiming it.
    pub(crate) fn covered_everywhere(&self) -> bool {
        self.covered_by.iter().any(|(_, limit)| limit.is_none())
    }
}

fn problem(place: impl Into<String>, message: impl Into<String>) -> InputProblem {
    InputProblem {
        place: place.into(),
        message: message.into(),
    }
}

fn yaml(text: &str, place: &str) -> Result<Value, InputProblem> {
    crate::yaml::from_str::<Value>(text).map_err(|e| problem(place, e.to_string()))
}

fn field<'v>(v: &'v Value, key: &str, place: &str) -> Result<&'v str, InputProblem> {
    v.get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.trim().is_empty())
        .ok_or_else(|| problem(place, format!("needs a non-empty string `{key}`")))
}

fn entries_of<'v>(
    doc: &'v Value,
    key: &str,
    file: &str,
) -> Result<&'v serde_json::Map<String, Value>, InputProblem> {
    doc.get(key)
        .and_then(Value::as_object)
        .filter(|m| !m.is_empty())
        .ok_or_else(|| problem(file, format!("needs a non-empty mapping `{key}` of ids")))
}

/// The entries of a catalogue: the mapping `key` of `file`, each with a
/// `source` field and a `text` field.
fn parse_catalogue(
    text: &str,
    file: &str,
    key: &str,
    (source, words): (&str, &str),
) -> Result<Vec<Entry>, InputProblem> {
    let doc = yaml(text, file)?;
    let mut out = Vec::new();
    for (id, v) in entries_of(&doc, key, file)? {
        let place = format!("{file}: {key}.{id}");
        out.push(Entry {
            id: id.clone(),
            source: field(v, source, &place)?.to_string(),
            text: field(v, words, &place)?.to_string(),
        });
    }
    Ok(out)
}

/// The seed promises of `coverage/promises.yaml`.
pub(crate) fn parse_promises(text: &str) -> Result<Vec<Entry>, InputProblem> {
    parse_catalogue(text, PROMISES, "promises", ("source", "promise"))
}

/// Upstream's tests of `coverage/upstream-tests.yaml`.
pub(crate) fn parse_upstream(text: &str) -> Result<Vec<Entry>, InputProblem> {
    parse_catalogue(text, UPSTREAM, "tests", ("file", "name"))
}

/// The explanations of `coverage/explained.yaml`.
pub(crate) fn parse_explained(text: &str) -> Result<BTreeMap<String, Why>, InputProblem> {
    let doc = yaml(text, EXPLAINED)?;
    let map = doc.as_object().ok_or_else(|| {
        problem(
            EXPLAINED,
            "needs a mapping from id to `gap` or `not_testable`",
        )
    })?;
    let mut out = BTreeMap::new();
    for (id, v) in map {
        let place = format!("{EXPLAINED}: {id}");
        let why = match (v.get("gap"), v.get("not_testable")) {
            (Some(_), None) => Why::Gap(field(v, "gap", &place)?.to_string()),
            (None, Some(_)) => Why::NotTestable(field(v, "not_testable", &place)?.to_string()),
            _ => {
                return Err(problem(
                    place,
                    "needs exactly one of `gap` or `not_testable`",
                ))
            }
        };
        out.insert(id.clone(), why);
    }
    Ok(out)
}

fn scenario_keyword(line: &str) -> Option<&str> {
    let t = line.trim_start();
    [
        "Scenario Outline:",
        "Scenario Template:",
        "Scenario:",
        "Example:",
    ]
    .iter()
    .find_map(|k| t.strip_prefix(k))
    .map(str::trim)
}

/// The `# covers:` claims of one feature file's text; `label` names the
/// file in places (`features/x.feature`) and `short` in scenario refs.
pub(crate) fn claims_in(text: &str, label: &str, short: &str) -> Result<Vec<Claim>, InputProblem> {
    let mut out = Vec::new();
    // Ids waiting for their scenario, with the line that named them.
    let mut pending: Vec<(String, usize)> = Vec::new();
    // The feature's tags, and those seen since the last step or scenario.
    let mut feature_tags: Vec<&str> = Vec::new();
    let mut tags: Vec<&str> = Vec::new();
    let mut in_feature = false;
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        let t = line.trim();
        if t.starts_with('@') {
            let these = t.split_whitespace().take_while(|w| !w.starts_with('#'));
            if in_feature {
                tags.extend(these);
            } else {
                feature_tags.extend(these);
            }
            continue;
        }
        if t.starts_with("Feature:") {
            in_feature = true;
            continue;
        }
        if let Some(ids) = t.strip_prefix(COVERS) {
            let ids: Vec<&str> = ids.split_whitespace().collect();
            if ids.is_empty() {
                return Err(problem(format!("{label}:{n}"), "`# covers:` names no id"));
            }
            pending.extend(ids.into_iter().map(|id| (id.to_string(), n)));
            continue;
        }
        if let Some(title) = scenario_keyword(line) {
            let all: Vec<&str> = feature_tags.iter().chain(tags.iter()).copied().collect();
            let limit = limit_of(&all);
            for (id, at) in pending.drain(..) {
                out.push(Claim {
                    id,
                    at: format!("{label}:{at}"),
                    scenario: format!("{short} \u{2014} {title}"),
                    limit: limit.clone(),
                });
            }
            tags.clear();
            continue;
        }
        let between = t.is_empty() || t.starts_with('#');
        if !between {
            tags.clear();
        }
        if !between {
            if let Some((_, at)) = pending.first() {
                return Err(problem(
                    format!("{label}:{at}"),
                    format!("a `# covers:` comment must stand right above a Scenario (line {n} comes first)"),
                ));
            }
        }
    }
    if let Some((_, at)) = pending.first() {
        return Err(problem(
            format!("{label}:{at}"),
            "a `# covers:` comment must stand right above a Scenario (none follows)",
        ));
    }
    Ok(out)
}

/// Builds the map, or every problem found.
pub(crate) fn build(
    promises: Vec<Entry>,
    upstream: Vec<Entry>,
    explained: &BTreeMap<String, Why>,
    claims: &[Claim],
) -> Result<Map, Vec<String>> {
    let mut problems = Vec::new();
    let known: BTreeMap<&str, ()> = promises
        .iter()
        .chain(upstream.iter())
        .map(|e| (e.id.as_str(), ()))
        .collect();
    for c in claims {
        if !known.contains_key(c.id.as_str()) {
            problems.push(format!(
                "{}: `# covers:` names {}, which neither {PROMISES} nor {UPSTREAM} lists",
                c.at, c.id
            ));
        }
    }
    for id in explained.keys() {
        if !known.contains_key(id.as_str()) {
            problems.push(format!("{EXPLAINED}: {id} is in neither catalogue"));
        }
    }
    let rows = |entries: Vec<Entry>, problems: &mut Vec<String>| -> Vec<Row> {
        entries
            .into_iter()
            .map(|entry| {
                let mut covered_by: Vec<(String, Option<String>)> = claims
                    .iter()
                    .filter(|c| c.id == entry.id)
                    .map(|c| (c.scenario.clone(), c.limit.clone()))
                    .collect();
                covered_by.dedup();
                let why = explained.get(&entry.id).cloned();
                match (covered_by.is_empty(), &why) {
                    (true, None) => problems.push(format!(
                        "{} is neither covered by a scenario (`# covers: {}`) nor explained in {EXPLAINED}",
                        entry.id, entry.id
                    )),
                    (false, Some(_)) => problems.push(format!(
                        "{} is covered by {} and still explained in {EXPLAINED}: remove the explanation",
                        entry.id,
                        covered_by
                            .iter()
                            .map(|(s, _)| s.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    )),
                    _ => {}
                }
                Row {
                    entry,
                    covered_by,
                    why,
                }
            })
            .collect()
    };
    let map = Map {
        promises: rows(promises, &mut problems),
        upstream: rows(upstream, &mut problems),
    };
    if problems.is_empty() {
        Ok(map)
    } else {
        Err(problems)
    }
}

fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

fn table(out: &mut String, rows: &[Row], what: &str) {
    let _ = writeln!(out, "| id | {what} | source | covered by |");
    let _ = writeln!(out, "|---|---|---|---|");
    for r in rows {
        let by = match (&r.covered_by[..], &r.why) {
            ([], Some(Why::Gap(w))) => format!("**gap**: {w}"),
            ([], Some(Why::NotTestable(w))) => format!("*not testable*: {w}"),
            ([], None) => "**missing**".to_string(),
            (by, _) => {
                let by: Vec<String> = by
                    .iter()
                    .map(|(s, limit)| match limit {
                        Some(l) => format!("{s} *({l})*"),
                        None => s.clone(),
                    })
                    .collect();
                let by = by.join("<br>");
                if r.covered_everywhere() {
                    by
                } else {
                    format!("**on some targets only**: {by}")
                }
            }
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} |",
            r.entry.id,
            cell(&r.entry.text),
            cell(&r.entry.source),
            cell(&by)
        );
    }
}

/// The map as Markdown: counts, then both tables.
pub(crate) fn markdown(map: &Map) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# Coverage map\n");
    let _ = writeln!(
        out,
        "Generated by `kepspec list --coverage` from the `# covers:` comments of the features, \
         {PROMISES}, {UPSTREAM} and {EXPLAINED}; a test keeps this file in step.\n"
    );
    let _ = writeln!(
        out,
        "## Seed promises\n\n{}.\n",
        Counts::of(&map.promises).sentence()
    );
    table(&mut out, &map.promises, "promise");
    let _ = writeln!(
        out,
        "\n## Upstream's StatefulSet tests\n\n{}.\n",
        Counts::of(&map.upstream).sentence()
    );
    table(&mut out, &map.upstream, "test");
    out
}

/// Reads the catalogues under `root` and the claims of `features`; input
/// problems (an unreadable or malformed file, a misplaced comment) first,
/// then the map or its problems.
pub(crate) fn load(
    root: &Path,
    features: &[PathBuf],
) -> Result<Result<Map, Vec<String>>, InputProblem> {
    let read = |rel: &str| {
        crate::bundle::read_to_string(&root.join(rel)).map_err(|e| problem(rel, e.to_string()))
    };
    let promises = parse_promises(&read(PROMISES)?)?;
    let upstream = parse_upstream(&read(UPSTREAM)?)?;
    let explained = parse_explained(&read(EXPLAINED)?)?;
    let mut claims = Vec::new();
    for file in features {
        let label = file.display().to_string();
        let text =
            crate::bundle::read_to_string(file).map_err(|e| problem(&label, e.to_string()))?;
        let short = label
            .split_once("features/")
            .map_or(label.as_str(), |(_, rest)| rest)
            .to_string();
        claims.extend(claims_in(&text, &label, &short)?);
    }
    Ok(build(promises, upstream, &explained, &claims))
}

#[cfg(test)]
mod tests;
