//! Feature files as a reader sees them: found under the given paths, parsed,
//! selected by tags and name, and checked against the step vocabulary before
//! anything touches a cluster. Every problem names its file and line.

use std::path::{Path, PathBuf};

use cucumber::gherkin::{self, GherkinEnv};
use cucumber::tag::Ext as _;

/// A problem with the specification's text itself (exit code 2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputProblem {
    /// `features/x.feature:12` or a path.
    pub place: String,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for InputProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.place, self.message)
    }
}

/// The feature paths a command takes: the ones given, or `features` (on
/// disk when it is there, else the bundled spec).
pub(crate) fn or_default(given: &[PathBuf]) -> Vec<PathBuf> {
    if given.is_empty() {
        vec![PathBuf::from("features")]
    } else {
        given.to_vec()
    }
}

/// Every `.feature` file under the paths, sorted.
pub(crate) fn discover(paths: &[PathBuf]) -> Result<Vec<PathBuf>, InputProblem> {
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            walk(path, &mut files).map_err(|e| InputProblem {
                place: path.display().to_string(),
                message: e.to_string(),
            })?;
        } else if path.is_file() {
            files.push(path.clone());
        } else if let Some(bundled) = bundled_features(path) {
            files.extend(bundled);
        } else {
            return Err(InputProblem {
                place: path.display().to_string(),
                message: "no such file or folder, on disk or in the bundled spec".into(),
            });
        }
    }
    files.sort();
    files.dedup();
    Ok(files)
}

/// The bundled feature files a path that is not on disk names: the file,
/// or every feature under the folder (see [`crate::bundle`]).
fn bundled_features(path: &Path) -> Option<Vec<PathBuf>> {
    if crate::bundle::get(path).is_some() {
        return Some(vec![PathBuf::from(crate::bundle::key(path)?)]);
    }
    let files: Vec<PathBuf> = crate::bundle::under(path)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "feature"))
        .collect();
    (!files.is_empty()).then_some(files)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            walk(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "feature") {
            out.push(path);
        }
    }
    Ok(())
}

/// Parses one feature file; a syntax error names the file and line.
pub(crate) fn parse(path: &Path) -> Result<gherkin::Feature, InputProblem> {
    let text = crate::bundle::read_to_string(path).map_err(|e| InputProblem {
        place: path.display().to_string(),
        message: format!("cannot read: {e}"),
    })?;
    // Editors on some systems start UTF-8 files with a byte order mark.
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text).to_string();
    gherkin::Feature::parse(&text, GherkinEnv::default())
        .map(|mut f| {
            f.path = Some(path.to_path_buf());
            f
        })
        .map_err(|e| {
            // gherkin words it `Error at LINE:COL: {expected tokens}`.
            let msg = e.to_string();
            let (line, rest) = msg
                .strip_prefix("Error at ")
                .and_then(|r| r.split_once(':'))
                .map(|(line, rest)| (line.to_string(), rest.to_string()))
                .unwrap_or_else(|| ("1".into(), msg.clone()));
            let col_and_expected = rest
                .split_once(": ")
                .map(|(_, exp)| exp.to_string())
                .unwrap_or(rest);
            if let Some(n) = unclosed_docstring(&text) {
                return InputProblem {
                    place: format!("{}:{n}", path.display()),
                    message: "the docstring opened here (\"\"\") is never closed".into(),
                };
            }
            match stray_line(&text) {
                Some((n, content)) => InputProblem {
                    place: format!("{}:{n}", path.display()),
                    message: format!(
                        "syntax error: `{}` is not a step, table row, docstring, tag or keyword",
                        content.trim()
                    ),
                },
                None => InputProblem {
                    place: format!("{}:{line}", path.display()),
                    message: format!("syntax error, expected one of {col_and_expected}"),
                },
            }
        })
}

/// The line of a docstring delimiter (`"""` or a fence) that no later
/// delimiter closes.
fn unclosed_docstring(text: &str) -> Option<usize> {
    let mut open: Option<usize> = None;
    for (i, line) in text.lines().enumerate() {
        let l = line.trim();
        if l.starts_with("\"\"\"") || l.starts_with("```") {
            open = match open {
                Some(_) => None,
                None => Some(i + 1),
            };
        }
    }
    open
}

/// The Gherkin keywords a line may begin with, followed by a colon.
const KEYWORDS: [&str; 7] = [
    "Feature",
    "Background",
    "Scenario",
    "Scenario Outline",
    "Scenario Template",
    "Examples",
    "Rule",
];

/// Edit distance of two short words (Levenshtein), for "did you mean"
/// hints on keywords and tags.
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let next = (prev + usize::from(ca != cb))
                .min(row[j] + 1)
                .min(row[j + 1] + 1);
            prev = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

/// Problems the Gherkin parser lets through, read from the text: a line
/// that is almost a keyword (`Scenari: y`, which Gherkin takes for narrative
/// text), and table rows (data tables, Examples) whose cell count differs
/// from their header's.
pub(crate) fn text_problems(path: &Path, text: &str) -> Vec<InputProblem> {
    let place = |n: usize| format!("{}:{n}", path.display());
    let mut problems = Vec::new();
    let mut in_docstring = false;
    let mut header: Option<(usize, usize)> = None;
    for (i, line) in text.lines().enumerate() {
        let l = line.trim();
        if l.starts_with("\"\"\"") || l.starts_with("```") {
            in_docstring = !in_docstring;
            continue;
        }
        if in_docstring {
            continue;
        }
        if l.starts_with('|') {
            // Cells between unescaped pipes.
            let mut cells: usize = 0;
            let mut escaped = false;
            for c in l.chars() {
                match c {
                    '\\' if !escaped => escaped = true,
                    '|' if !escaped => cells += 1,
                    _ => escaped = false,
                }
            }
            let cells = cells.saturating_sub(1);
            match header {
                None => header = Some((i + 1, cells)),
                Some((first, n)) if n != cells => problems.push(InputProblem {
                    place: place(i + 1),
                    message: format!(
                        "this table row has {cells} cell{}, the row at line {first} has {n}",
                        if cells == 1 { "" } else { "s" }
                    ),
                }),
                Some(_) => {}
            }
            continue;
        }
        if !l.starts_with('#') {
            header = None;
        }
        let Some((word, _)) = l.split_once(':') else {
            continue;
        };
        if word.is_empty() || word.len() > 20 || KEYWORDS.contains(&word) {
            continue;
        }
        if let Some(keyword) = KEYWORDS.iter().find(|k| {
            edit_distance(&word.to_lowercase(), &k.to_lowercase()) <= 2
                && word.chars().next().is_some_and(char::is_uppercase)
        }) {
            problems.push(InputProblem {
                place: place(i + 1),
                message: format!(
                    "`{word}:` is not a Gherkin keyword (did you mean `{keyword}:`?); Gherkin would take this line for narrative text"
                ),
            });
        }
    }
    problems
}

/// The first line after a scenario's steps have begun that Gherkin cannot
/// place: the parser itself only reports where it gave up, often the end.
fn stray_line(text: &str) -> Option<(usize, &str)> {
    const BLOCKS: [&str; 7] = [
        "Feature:",
        "Background:",
        "Scenario:",
        "Scenario Outline:",
        "Scenario Template:",
        "Examples:",
        "Rule:",
    ];
    const STEPS: [&str; 6] = ["Given ", "When ", "Then ", "And ", "But ", "* "];
    let mut in_steps = false;
    let mut in_docstring = false;
    for (i, line) in text.lines().enumerate() {
        let l = line.trim();
        if l.starts_with("\"\"\"") || l.starts_with("```") {
            in_docstring = !in_docstring;
            continue;
        }
        let neutral =
            l.is_empty() || l.starts_with('#') || l.starts_with('@') || l.starts_with('|');
        if in_docstring || neutral {
            continue;
        }
        if BLOCKS.iter().any(|b| l.starts_with(b)) {
            in_steps = l.starts_with("Examples:");
            continue;
        }
        if STEPS.iter().any(|k| l.starts_with(k)) {
            in_steps = true;
            continue;
        }
        if in_steps {
            return Some((i + 1, line));
        }
    }
    None
}

/// Which scenarios a run takes.
#[derive(Clone, Debug, Default)]
pub struct Selection {
    /// Tag expression (`@kep-3541 and not @slow`).
    pub tags: Option<gherkin::tagexpr::TagOperation>,
    /// Scenario name regex.
    pub name: Option<regex::Regex>,
    /// This job's shard of the scenarios.
    pub shard: Option<crate::run::shard::Shard>,
    /// Scenarios (`path:line`) reported as skipped instead of run, with why.
    pub skipped: std::collections::BTreeMap<String, String>,
    /// Files given as `PATH:LINE[:LINE...]`: only the scenarios (and
    /// examples) at those lines of them are selected.
    pub locations: std::collections::BTreeMap<String, std::collections::BTreeSet<usize>>,
}

impl Selection {
    /// Parses the user's tag expression and name regex.
    pub fn new(tags: Option<&str>, name: Option<&str>) -> Result<Self, InputProblem> {
        let tags = tags
            .map(|t| {
                t.parse::<gherkin::tagexpr::TagOperation>()
                    .map_err(|e| InputProblem {
                        place: "--tags".into(),
                        message: format!("invalid tag expression `{t}`: {e}"),
                    })
            })
            .transpose()?;
        let name = name
            .map(|n| {
                regex::Regex::new(n).map_err(|e| InputProblem {
                    place: "--name".into(),
                    message: format!("invalid regex: {e}"),
                })
            })
            .transpose()?;
        Ok(Self {
            tags,
            name,
            shard: None,
            skipped: Default::default(),
            locations: Default::default(),
        })
    }

    /// The key of a scenario: `features/x.feature:12`.
    pub fn key(feature: &gherkin::Feature, scenario: &gherkin::Scenario) -> String {
        let path = feature.path.clone().unwrap_or_default();
        crate::run::shard::scenario_key(&path, scenario.position.line)
    }

    /// Whether the tags, name and shard select a scenario (skips aside).
    pub fn selects(
        &self,
        feature: &gherkin::Feature,
        rule: Option<&gherkin::Rule>,
        scenario: &gherkin::Scenario,
    ) -> bool {
        let tags: Vec<&String> = feature
            .tags
            .iter()
            .chain(rule.iter().flat_map(|r| r.tags.iter()))
            .chain(scenario.tags.iter())
            .collect();
        self.tags
            .as_ref()
            .is_none_or(|op| op.eval(tags.iter().map(|t| t.as_str())))
            && self
                .name
                .as_ref()
                .is_none_or(|re| re.is_match(&scenario.name))
            && self
                .shard
                .as_ref()
                .is_none_or(|s| s.contains(&Self::key(feature, scenario)))
            && self.at_location(feature, scenario)
    }

    /// Whether a `PATH:LINE` selection, if its file has one, names the
    /// scenario.
    fn at_location(&self, feature: &gherkin::Feature, scenario: &gherkin::Scenario) -> bool {
        let path = feature
            .path
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        self.locations
            .get(&path)
            .is_none_or(|lines| lines.contains(&scenario.position.line))
    }

    /// Whether a scenario runs: selected and not skipped.
    pub fn accepts(
        &self,
        feature: &gherkin::Feature,
        rule: Option<&gherkin::Rule>,
        scenario: &gherkin::Scenario,
    ) -> bool {
        self.selects(feature, rule, scenario)
            && !self.skipped.contains_key(&Self::key(feature, scenario))
    }
}

/// A path given as `PATH:LINE[:LINE...]` (cucumber's, behave's and godog's
/// way of naming scenarios by where they are written), as the path and the
/// lines; None when the argument names no lines.
pub(crate) fn split_location(arg: &Path) -> Option<(PathBuf, Vec<usize>)> {
    let text = arg.to_str()?;
    let mut parts = text.split(':');
    let path = parts.next()?;
    let lines: Vec<usize> = parts
        .map(|p| p.parse::<usize>().ok())
        .collect::<Option<_>>()?;
    if lines.is_empty() || !path.ends_with(".feature") {
        return None;
    }
    Some((PathBuf::from(path), lines))
}

/// The lines under which the scenarios a `PATH:LINE` names run (after an
/// outline's examples are expanded): a scenario's own line or any of its
/// steps names it; an outline's line or steps name every example, an
/// `Examples:` line the examples of that block, an example row itself. An
/// error names the lines that hold no scenario.
pub(crate) fn resolve_lines(
    feature: &gherkin::Feature,
    lines: &[usize],
) -> Result<std::collections::BTreeSet<usize>, Vec<usize>> {
    let scenarios: Vec<&gherkin::Scenario> = feature
        .scenarios
        .iter()
        .chain(feature.rules.iter().flat_map(|r| r.scenarios.iter()))
        .collect();
    let mut out = std::collections::BTreeSet::new();
    let mut unknown = Vec::new();
    for &line in lines {
        let mut found = false;
        for sc in &scenarios {
            // The lines expanded examples run under (cucumber's
            // expand_examples: the block's line + the row's index + 2).
            let blocks: Vec<(usize, Vec<usize>)> = sc
                .examples
                .iter()
                .map(|ex| {
                    let rows = ex
                        .table
                        .as_ref()
                        .map_or(0, |t| t.rows.len().saturating_sub(1));
                    (
                        ex.position.line,
                        (0..rows).map(|i| ex.position.line + i + 2).collect(),
                    )
                })
                .collect();
            let own =
                line == sc.position.line || sc.steps.iter().any(|st| st.position.line == line);
            if sc.examples.is_empty() {
                if own {
                    out.insert(sc.position.line);
                    found = true;
                }
                continue;
            }
            for (block_line, rows) in &blocks {
                if own || line == *block_line {
                    out.extend(rows.iter().copied());
                    found = true;
                } else if rows.contains(&line) {
                    out.insert(line);
                    found = true;
                }
            }
        }
        if !found {
            unknown.push(line);
        }
    }
    if unknown.is_empty() {
        Ok(out)
    } else {
        Err(unknown)
    }
}

/// Every step of a feature with where it is written.
pub(crate) fn steps_of(feature: &gherkin::Feature) -> Vec<(&gherkin::Step, String)> {
    let path = feature
        .path
        .as_ref()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    let place = |s: &gherkin::Step| format!("{path}:{}", s.position.line);
    let mut out = Vec::new();
    let backgrounds = feature
        .background
        .iter()
        .chain(feature.rules.iter().filter_map(|r| r.background.as_ref()));
    for bg in backgrounds {
        out.extend(bg.steps.iter().map(|s| (s, place(s))));
    }
    let scenarios = feature
        .scenarios
        .iter()
        .chain(feature.rules.iter().flat_map(|r| r.scenarios.iter()));
    for sc in scenarios {
        out.extend(sc.steps.iter().map(|s| (s, place(s))));
    }
    out
}

/// Checks every step against the vocabulary: undefined and ambiguous steps
/// are problems, each with its file:line.
pub(crate) fn lint<W>(
    features: &[gherkin::Feature],
    steps: &cucumber::step::Collection<W>,
) -> Vec<InputProblem> {
    let mut problems = Vec::new();
    for feature in features {
        for (step, place) in steps_of(feature) {
            match steps.find(step) {
                Ok(Some(_)) => {}
                Ok(None) => problems.push(InputProblem {
                    place,
                    message: match closest_step(&step.value) {
                        Some(hint) => format!(
                            "undefined step: {} {} (did you mean `{hint}`?)",
                            step.keyword.trim(),
                            step.value
                        ),
                        None => format!("undefined step: {} {}", step.keyword.trim(), step.value),
                    },
                }),
                Err(e) => problems.push(InputProblem {
                    place,
                    message: format!("ambiguous step: {} ({e})", step.value),
                }),
            }
        }
    }
    problems
}

/// The words of a step or phrase, with quoted values and parameters as one
/// placeholder each.
fn step_words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if c == '"' {
            let end = rest[1..].find('"').map_or(rest.len(), |e| e + 2);
            out.push("_".to_string());
            rest = &rest[end.min(rest.len())..];
        } else if c == '{' {
            let end = rest.find('}').map_or(rest.len(), |e| e + 1);
            out.push("_".to_string());
            rest = &rest[end..];
        } else if c.is_whitespace() {
            rest = &rest[c.len_utf8()..];
        } else {
            let end = rest
                .find(|c: char| c.is_whitespace() || c == '"' || c == '{')
                .unwrap_or(rest.len());
            let word = &rest[..end];
            out.push(if word.chars().all(|c| c.is_ascii_digit()) {
                "_".to_string()
            } else {
                word.to_lowercase()
            });
            rest = &rest[end..];
        }
    }
    out
}

/// The catalogue's phrase closest to an undefined step, when one is close.
fn closest_step(text: &str) -> Option<String> {
    let words = step_words(text);
    let mut best: Option<(f64, String)> = None;
    for def in super::step_catalogue::catalogue()
        .into_iter()
        .filter(|d| !d.regex)
    {
        let theirs = step_words(&def.phrase);
        let common = words.iter().filter(|w| theirs.contains(w)).count();
        let score = 2.0 * common as f64 / (words.len() + theirs.len()).max(1) as f64;
        if best.as_ref().is_none_or(|(b, _)| score > *b) {
            best = Some((score, def.phrase));
        }
    }
    best.filter(|(score, _)| *score >= 0.6).map(|(_, p)| p)
}

/// Step definitions no feature uses, each with where it is defined.
pub(crate) fn unused_steps<W>(features: &[gherkin::Feature]) -> Vec<String>
where
    W: cucumber::codegen::WorldInventory,
{
    use cucumber::codegen::{inventory, StepConstructor};
    let all_steps: Vec<&gherkin::Step> = features
        .iter()
        .flat_map(|f| steps_of(f).into_iter().map(|(s, _)| s))
        .collect();
    let mut out = Vec::new();
    let mut check = |ty: gherkin::StepType, loc: cucumber::step::Location, re: regex::Regex| {
        if !all_steps
            .iter()
            .any(|s| s.ty == ty && re.is_match(&s.value))
        {
            let path = loc.path.replace("src/../", "");
            out.push(format!(
                "{path}:{}: unused {ty:?} step `{}`",
                loc.line,
                re.as_str()
            ));
        }
    };
    for s in inventory::iter::<W::Given> {
        let (loc, re, _) = s.inner();
        check(gherkin::StepType::Given, loc, re());
    }
    for s in inventory::iter::<W::When> {
        let (loc, re, _) = s.inner();
        check(gherkin::StepType::When, loc, re());
    }
    for s in inventory::iter::<W::Then> {
        let (loc, re, _) = s.inner();
        check(gherkin::StepType::Then, loc, re());
    }
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feature(text: &str) -> gherkin::Feature {
        gherkin::Feature::parse(text, GherkinEnv::default()).unwrap()
    }

    #[test]
    fn a_location_names_scenarios_and_examples_by_line() {
        assert_eq!(
            split_location(Path::new("features/a.feature:12:30")),
            Some((PathBuf::from("features/a.feature"), vec![12, 30]))
        );
        assert_eq!(split_location(Path::new("features/a.feature")), None);
        assert_eq!(split_location(Path::new("features/a.feature:x")), None);
        let f = feature(
            "Feature: f\n\n  Scenario: one\n    Given a\n\n  Scenario Outline: two <n>\n    Given b <n>\n    Examples:\n      | n |\n      | 1 |\n      | 2 |\n",
        );
        // A scenario by its own line or a step's; an outline's every example
        // by its line, a step's or its Examples line; one example by its row.
        assert_eq!(resolve_lines(&f, &[3]).unwrap(), [3].into());
        assert_eq!(resolve_lines(&f, &[4]).unwrap(), [3].into());
        assert_eq!(resolve_lines(&f, &[6]).unwrap(), [10, 11].into());
        assert_eq!(resolve_lines(&f, &[8]).unwrap(), [10, 11].into());
        assert_eq!(resolve_lines(&f, &[11]).unwrap(), [11].into());
        assert_eq!(resolve_lines(&f, &[1, 9]), Err(vec![1, 9]));
        // The lines are those the expanded examples run under.
        let expanded = cucumber::feature::Ext::expand_examples(f).unwrap();
        let lines: Vec<usize> = expanded.scenarios.iter().map(|s| s.position.line).collect();
        assert_eq!(lines, [3, 10, 11]);
    }

    #[test]
    fn syntax_errors_name_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.feature");
        std::fs::write(
            &path,
            "Feature: x\n  Scenario: y\n    Given a\n  Nonsense here\n",
        )
        .unwrap();
        let err = parse(&path).unwrap_err();
        assert!(err.place.ends_with("bad.feature:4"), "{err}");
        assert!(
            err.message.contains("`Nonsense here` is not a step"),
            "{err}"
        );
    }

    #[test]
    fn selection_inherits_feature_tags() {
        let f = feature("@kep-3541\nFeature: x\n  @slow\n  Scenario: a\n    Given s\n  Scenario: b\n    Given s\n");
        let sel = Selection::new(Some("@kep-3541 and not @slow"), None).unwrap();
        let picked: Vec<_> = f
            .scenarios
            .iter()
            .filter(|s| sel.accepts(&f, None, s))
            .map(|s| s.name.as_str())
            .collect();
        assert_eq!(picked, vec!["b"]);
        let by_name = Selection::new(None, Some("^a$")).unwrap();
        assert!(by_name.accepts(&f, None, &f.scenarios[0]));
        assert!(!by_name.accepts(&f, None, &f.scenarios[1]));
        assert!(Selection::new(Some("@a and"), None).is_err());
    }

    #[test]
    fn a_byte_order_mark_is_not_a_syntax_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bom.feature");
        std::fs::write(&path, "\u{feff}Feature: x\n  Scenario: y\n    Given a\n").unwrap();
        assert_eq!(parse(&path).unwrap().name, "x");
    }

    #[test]
    fn discover_reports_missing_paths() {
        let err = discover(&[PathBuf::from("/no/such/features")]).unwrap_err();
        assert!(err.message.contains("no such file"));
    }
}
