//! The step catalogue: every step the features can use, read from the
//! attributes of the step definitions (`steps/*.rs`, compiled into the
//! binary by `build.rs`), with its parameters, what it documents and the
//! scenario-layer call it makes. `kepspec steps` prints it; `docs/src/steps.md`
//! holds it after its marker line, and a test keeps the two in step.

use std::fmt::Write as _;

/// The step definitions' sources: (path, text).
static SOURCES: &[(&str, &str)] = include!(concat!(env!("OUT_DIR"), "/step_sources.rs"));

/// The line of `docs/src/steps.md` after which the generated catalogue stands.
pub(crate) const MARKER: &str = "<!-- generated: steps -->";

/// One step definition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct StepDef {
    /// `Given`, `When`, `Then` (several when one function serves several).
    pub keywords: Vec<String>,
    /// The phrase: a cucumber expression, or a regex for the few that need one.
    pub phrase: String,
    /// Whether the phrase is a regex.
    pub regex: bool,
    /// The file that defines it (`steps/then.rs`).
    pub file: String,
    /// The scenario-layer module and function it calls (`waits::pod_waiting`),
    /// when it makes one call of that shape.
    pub calls: Option<String>,
    /// Its doc comment, if any.
    pub doc: String,
}

/// Every step definition of one source file.
fn parse_file(file: &str, text: &str) -> Vec<StepDef> {
    let mut out = Vec::new();
    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let mut keywords = Vec::new();
        let mut phrase = None;
        let mut doc = Vec::new();
        // Doc comments, then one or more step attributes, then the function.
        let mut j = i;
        while j < lines.len() && lines[j].trim_start().starts_with("///") {
            doc.push(lines[j].trim_start().trim_start_matches("///").trim());
            j += 1;
        }
        let start = j;
        while j < lines.len() {
            let line = lines[j].trim_start();
            let Some(keyword) = ["given", "when", "then"]
                .into_iter()
                .find(|k| line.starts_with(&format!("#[{k}(")))
            else {
                break;
            };
            // The attribute runs to the line that closes it.
            let mut attr = String::new();
            while j < lines.len() {
                attr.push_str(lines[j]);
                attr.push('\n');
                if lines[j].trim_end().ends_with(")]") {
                    break;
                }
                j += 1;
            }
            j += 1;
            let mut word = keyword.to_string();
            if let Some(first) = word.get_mut(0..1) {
                first.make_ascii_uppercase();
            }
            keywords.push(word);
            if phrase.is_none() {
                for (key, regex) in [("expr", false), ("regex", true)] {
                    if let Some(at) = attr.find(&format!("{key} =")) {
                        let literal = attr[at + key.len() + 2..].trim_start();
                        if let Some((text, _)) = super::literal::string_literal(literal) {
                            phrase = Some((text, regex));
                            break;
                        }
                    }
                }
            }
        }
        if j == start {
            i += 1;
            continue;
        }
        // The body's first `module::function(` call into the scenario layer.
        let mut calls = None;
        let mut depth = 0i32;
        let mut opened = false;
        let mut k = j;
        while k < lines.len() {
            let line = lines[k];
            if opened || line.contains('{') {
                for part in line.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':')) {
                    if calls.is_none()
                        && part.matches("::").count() == 1
                        && !part.starts_with("Self")
                        && part.chars().next().is_some_and(|c| c.is_ascii_lowercase())
                        && !["std", "kepspec", "anyhow", "super", "crate"]
                            .contains(&part.split("::").next().unwrap_or_default())
                    {
                        calls = Some(part.to_string());
                    }
                }
            }
            depth += line.matches('{').count() as i32 - line.matches('}').count() as i32;
            opened |= line.contains('{');
            k += 1;
            if opened && depth <= 0 {
                break;
            }
        }
        if let Some((phrase, regex)) = phrase {
            out.push(StepDef {
                keywords,
                phrase,
                regex,
                file: file.to_string(),
                calls,
                doc: doc.join(" "),
            });
        }
        i = k.max(i + 1);
    }
    out
}

/// Every step definition, in file order.
pub(crate) fn catalogue() -> Vec<StepDef> {
    SOURCES
        .iter()
        .flat_map(|(file, text)| parse_file(file, text))
        .collect()
}

fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

/// The parameters a cucumber expression takes (`{string}`, `{int}`, ...).
fn parameters(phrase: &str) -> Vec<&str> {
    phrase
        .split('{')
        .skip(1)
        .filter_map(|p| p.split_once('}').map(|(name, _)| name))
        .collect()
}

/// The catalogue as Markdown, one table per step file.
pub(crate) fn markdown(steps: &[StepDef]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{} steps.\n", steps.len());
    let mut current = "";
    for s in steps {
        if s.file != current {
            current = &s.file;
            let _ = writeln!(out, "\n## `{current}`\n");
            let _ = writeln!(out, "| keyword | step | parameters | calls |");
            let _ = writeln!(out, "|---|---|---|---|");
        }
        let phrase = if s.regex {
            format!("regex `{}`", s.phrase)
        } else {
            format!("`{}`", s.phrase)
        };
        let params = if s.regex {
            "(regex captures)".to_string()
        } else {
            parameters(&s.phrase).join(", ")
        };
        let _ = writeln!(
            out,
            "| {} | {}{} | {} | {} |",
            s.keywords.join(", "),
            cell(&phrase),
            if s.doc.is_empty() {
                String::new()
            } else {
                format!("<br>{}", cell(&s.doc))
            },
            cell(&params),
            s.calls
                .as_deref()
                .map(|c| format!("`{c}`"))
                .unwrap_or_default()
        );
    }
    out
}

/// The catalogue as plain lines for a terminal: keyword, phrase.
pub(crate) fn text(steps: &[StepDef]) -> String {
    let mut out = String::new();
    for s in steps {
        let _ = writeln!(out, "{:<12} {}", s.keywords.join("/"), s.phrase);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attributes_give_keywords_phrases_and_calls() {
        let src = r##"
/// Waits for it.
#[when(expr = "within {int} seconds pod {string} is ready")]
#[then(
    expr = "within {int} seconds pod {string} is ready"
)]
async fn ready(w: &mut KepWorld, n: u64, pod: String) -> anyhow::Result<()> {
    waits::pod_ready(w.sc()?, &pod, secs(n)).await
}

#[given(regex = r#"^a "([^"]+)" thing$"#)]
fn thing(w: &mut KepWorld, name: String) {
    w.sc();
}
"##;
        let steps = parse_file("steps/x.rs", src);
        assert_eq!(steps.len(), 2, "{steps:?}");
        assert_eq!(steps[0].keywords, ["When", "Then"]);
        assert_eq!(
            steps[0].phrase,
            "within {int} seconds pod {string} is ready"
        );
        assert_eq!(steps[0].calls.as_deref(), Some("waits::pod_ready"));
        assert_eq!(steps[0].doc, "Waits for it.");
        assert!(steps[1].regex);
        assert_eq!(steps[1].phrase, r#"^a "([^"]+)" thing$"#);
        assert_eq!(parameters(&steps[0].phrase), ["int", "string"]);
    }

    #[test]
    fn every_step_definition_is_in_the_catalogue() {
        let steps = catalogue();
        // Every step attribute of the sources is one entry or shares one
        // function with another attribute.
        let attributes: usize = SOURCES
            .iter()
            .map(|(_, t)| {
                t.lines()
                    .filter(|l| {
                        let l = l.trim_start();
                        l.starts_with("#[given(")
                            || l.starts_with("#[when(")
                            || l.starts_with("#[then(")
                    })
                    .count()
            })
            .sum();
        let keywords: usize = steps.iter().map(|s| s.keywords.len()).sum();
        assert_eq!(keywords, attributes);
        assert!(steps.len() > 150, "{}", steps.len());
    }

    #[test]
    fn the_manual_holds_the_catalogue() {
        let page = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/src/steps.md"),
        )
        .unwrap_or_default();
        let generated = page
            .split_once(MARKER)
            .map(|(_, rest)| rest.trim_start_matches('\n'))
            .unwrap_or_default();
        assert!(
            generated == markdown(&catalogue()),
            "docs/src/steps.md is not what `kepspec steps --markdown` prints after its \
             `{MARKER}` line: regenerate it with \
             `cargo run --quiet -- steps --markdown --into docs/src/steps.md`"
        );
    }
}
