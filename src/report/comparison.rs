//! The comparison table of a run: the `@comparison` scenarios' facts
//! gathered in the shape of the KEP-3541 draft's "Comparison with Existing
//! Solutions" table, one row per strategy and pod management policy.
//! Pure: a [`Run`] in, a [`Table`] out, rendered as HTML (each cell linked
//! to its scenarios and their timelines) or Markdown.

use std::fmt::Write;

use super::escape;
use super::model::{Run, ScenarioResult, Status};

/// The tag of the scenarios the table gathers.
pub(crate) const TAG: &str = "@comparison";

/// The table's columns, after the row's name.
pub(crate) const COLUMNS: [&str; 5] = [
    "Sequential ordering",
    "Automatic recovery (a fix that works)",
    "When the fix is broken too",
    "Most pods unavailable at once",
    "Time to recover (median)",
];

/// A cell: its text and the scenarios (report anchors) it is drawn from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Cell {
    /// What the scenarios show.
    pub text: String,
    /// `(anchor, scenario name)` of each scenario behind it.
    pub links: Vec<(String, String)>,
}

/// One strategy under one policy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Row {
    /// `RollingUpdate, OrderedReady`.
    pub name: String,
    /// One cell per [`COLUMNS`] entry.
    pub cells: Vec<Cell>,
}

/// The table, rows in the order their first scenario ran in the features.
pub(crate) type Table = Vec<Row>;

/// A comparison scenario with its report anchor.
struct Case<'a> {
    anchor: String,
    scenario: &'a ScenarioResult,
}

impl Case<'_> {
    fn fact(&self, name: &str) -> Option<&str> {
        self.scenario
            .facts
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    fn link(&self) -> (String, String) {
        (self.anchor.clone(), self.scenario.name.clone())
    }
}

/// The rows of `run`'s comparison scenarios that recorded facts; `anchor`
/// names a scenario's place in the report (feature and scenario index).
pub(crate) fn table(run: &Run, anchor: impl Fn(usize, usize) -> String) -> Table {
    let mut rows: Vec<(String, Vec<Case<'_>>)> = Vec::new();
    for (fi, f) in run.features.iter().enumerate() {
        for (si, s) in f.scenarios.iter().enumerate() {
            if !s.tags.iter().any(|t| t == TAG) || matches!(s.status, Status::Skipped { .. }) {
                continue;
            }
            let case = Case {
                anchor: anchor(fi, si),
                scenario: s,
            };
            let (Some(strategy), Some(policy)) = (case.fact("strategy"), case.fact("policy"))
            else {
                // A scenario that failed before its outcome: a row of its own
                // would say nothing; it is counted where its name says.
                let name = row_of_name(&s.name);
                push(&mut rows, name, case);
                continue;
            };
            push(&mut rows, format!("{strategy}, {policy}"), case);
        }
    }
    rows.into_iter()
        .map(|(name, cases)| Row {
            name,
            cells: cells(&cases),
        })
        .collect()
}

fn push<'a>(rows: &mut Vec<(String, Vec<Case<'a>>)>, name: String, case: Case<'a>) {
    match rows.iter_mut().find(|(n, _)| *n == name) {
        Some((_, cases)) => cases.push(case),
        None => rows.push((name, vec![case])),
    }
}

/// `RollingUpdate under OrderedReady: ...` → `RollingUpdate, OrderedReady`.
fn row_of_name(name: &str) -> String {
    let head = name.split(':').next().unwrap_or(name);
    match head.split_once(" under ") {
        Some((strategy, policy)) => format!("{strategy}, {policy}"),
        None => head.to_string(),
    }
}

fn yes_no(count: usize, of: usize) -> String {
    match count {
        0 => format!("No (0 of {of})"),
        c if c == of => format!("Yes ({c} of {of})"),
        c => format!("{c} of {of}"),
    }
}

fn cells(cases: &[Case<'_>]) -> Vec<Cell> {
    let failed: Vec<&Case<'_>> = cases
        .iter()
        .filter(|c| c.scenario.status == Status::Failed || c.fact("outcome").is_none())
        .collect();
    let done: Vec<&Case<'_>> = cases
        .iter()
        .filter(|c| c.fact("outcome").is_some())
        .collect();
    let with_failures = |text: String| {
        if failed.is_empty() {
            text
        } else {
            format!("{text}; {} failed", failed.len())
        }
    };
    let links = |cs: &[&Case<'_>]| cs.iter().map(|c| c.link()).collect::<Vec<_>>();

    let in_sequence = done
        .iter()
        .filter(|c| c.fact("in sequence") == Some("yes"))
        .count();
    let mixed = done
        .iter()
        .filter(|c| c.fact("mixed revisions") == Some("yes"))
        .count();
    let ordering = format!(
        "{}; {}",
        yes_no(in_sequence, done.len()),
        if mixed == 0 {
            "never two revisions at once".to_string()
        } else {
            format!("two revisions at once in {mixed}")
        }
    );

    let works: Vec<&Case<'_>> = done
        .iter()
        .copied()
        .filter(|c| c.fact("fix") == Some("works"))
        .collect();
    let recovered: Vec<&Case<'_>> = works
        .iter()
        .copied()
        .filter(|c| c.fact("outcome") == Some("recovers"))
        .collect();
    let recovery = yes_no(recovered.len(), works.len());

    let broken: Vec<&Case<'_>> = done
        .iter()
        .copied()
        .filter(|c| c.fact("fix") == Some("is broken too"))
        .collect();
    let stuck = broken
        .iter()
        .filter(|c| c.fact("outcome") == Some("stays stuck"))
        .count();
    let most_broken = broken
        .iter()
        .filter_map(|c| c.fact("most unavailable")?.parse::<u32>().ok())
        .max();
    let when_broken = match most_broken {
        Some(m) => format!(
            "stays stuck in {stuck} of {}, at most {m} unavailable",
            broken.len()
        ),
        None => "not run".to_string(),
    };

    let most = done
        .iter()
        .filter_map(|c| Some((c.fact("most unavailable")?.parse::<u32>().ok()?, *c)))
        .max_by_key(|(m, _)| *m);
    let (most_text, most_links) = match most {
        Some((m, c)) => (m.to_string(), vec![c.link()]),
        None => ("not run".to_string(), Vec::new()),
    };

    let mut times: Vec<f64> = recovered
        .iter()
        .filter_map(|c| c.fact("time to recover")?.parse::<f64>().ok())
        .collect();
    times.sort_by(f64::total_cmp);
    let median = match times.len() {
        0 => "never recovers".to_string(),
        n => format!("{:.1} s", times[n / 2]),
    };

    vec![
        Cell {
            text: with_failures(ordering),
            links: links(&done),
        },
        Cell {
            text: recovery,
            links: links(&works),
        },
        Cell {
            text: when_broken,
            links: links(&broken),
        },
        Cell {
            text: most_text,
            links: most_links,
        },
        Cell {
            text: median,
            links: links(&recovered),
        },
    ]
}

/// The table as an HTML section (nothing when there is no row).
pub(crate) fn html(table: &Table) -> String {
    if table.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "<section id=\"comparison\">\n<h2>Comparison of strategies on stuck pods</h2>\n<p class=\"path\">In the shape of the KEP-3541 draft's \"Comparison with Existing Solutions\"; every cell is drawn from the scenarios it links, each with its timeline.</p>\n<table class=\"comparison\">\n<tr><th>strategy, policy</th>",
    );
    for c in COLUMNS {
        let _ = write!(out, "<th>{}</th>", escape(c));
    }
    out.push_str("</tr>\n");
    for row in table {
        let _ = write!(out, "<tr><th>{}</th>", escape(&row.name));
        for cell in &row.cells {
            let _ = write!(out, "<td>{}", escape(&cell.text));
            if !cell.links.is_empty() {
                out.push_str("<span class=\"refs\">");
                for (i, (anchor, name)) in cell.links.iter().enumerate() {
                    let _ = write!(
                        out,
                        " <a href=\"#{}\" title=\"{}\">{}</a>",
                        escape(anchor),
                        escape(name),
                        i + 1
                    );
                }
                out.push_str("</span>");
            }
            out.push_str("</td>");
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table>\n</section>\n");
    out
}

/// The table as Markdown (nothing when there is no row).
pub(crate) fn markdown(table: &Table) -> String {
    if table.is_empty() {
        return String::new();
    }
    let mut out = format!("| strategy, policy | {} |\n", COLUMNS.join(" | "));
    out.push_str(&format!("|---|{}\n", "---|".repeat(COLUMNS.len())));
    for row in table {
        let cells: Vec<&str> = row.cells.iter().map(|c| c.text.as_str()).collect();
        let _ = writeln!(out, "| {} | {} |", row.name, cells.join(" | "));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::model::Feature;

    fn case(name: &str, facts: &[(&str, &str)], status: Status) -> ScenarioResult {
        let mut s = ScenarioResult::new(name, 1, vec![TAG.into()], status);
        s.facts = facts
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        s
    }

    fn facts<'a>(
        strategy: &'a str,
        fix: &'a str,
        outcome: &'a str,
        most: &'a str,
        time: Option<&'a str>,
    ) -> Vec<(&'a str, &'a str)> {
        let mut f = vec![
            ("strategy", strategy),
            ("policy", "OrderedReady"),
            ("fix", fix),
            ("outcome", outcome),
            ("most unavailable", most),
            ("mixed revisions", "no"),
            (
                "in sequence",
                if strategy == "Recreate" { "no" } else { "yes" },
            ),
        ];
        if let Some(t) = time {
            f.push(("time to recover", t));
        }
        f
    }

    #[test]
    fn rows_gather_their_scenarios_facts_and_link_them() {
        let run = Run {
            features: vec![Feature {
                name: "comparison".into(),
                path: "features/x.feature".into(),
                scenarios: vec![
                    case(
                        "a",
                        &facts("RollingUpdate", "works", "stays stuck", "1", None),
                        Status::Passed,
                    ),
                    case(
                        "b",
                        &facts("RollingUpdate", "is broken too", "stays stuck", "1", None),
                        Status::Passed,
                    ),
                    case(
                        "c",
                        &facts("Recreate", "works", "recovers", "3", Some("2.0")),
                        Status::Passed,
                    ),
                    case(
                        "d",
                        &facts("Recreate", "is broken too", "stays stuck", "3", None),
                        Status::Passed,
                    ),
                    case("Recreate under OrderedReady: e", &[], Status::Failed),
                ],
            }],
            ..Run::default()
        };
        let t = table(&run, |f, s| format!("s{f}-{s}"));
        assert_eq!(t.len(), 2);
        assert_eq!(t[0].name, "RollingUpdate, OrderedReady");
        assert_eq!(
            t[0].cells[0].text,
            "Yes (2 of 2); never two revisions at once"
        );
        assert_eq!(t[0].cells[1].text, "No (0 of 1)");
        assert_eq!(t[0].cells[4].text, "never recovers");
        assert_eq!(
            t[1].cells[0].text,
            "No (0 of 2); never two revisions at once; 1 failed"
        );
        assert_eq!(t[1].cells[1].text, "Yes (1 of 1)");
        assert_eq!(
            t[1].cells[2].text,
            "stays stuck in 1 of 1, at most 3 unavailable"
        );
        assert_eq!(t[1].cells[3].text, "3");
        assert_eq!(t[1].cells[4].text, "2.0 s");
        assert_eq!(
            t[1].cells[1].links,
            vec![("s0-2".to_string(), "c".to_string())]
        );
        let html = html(&t);
        assert!(
            html.contains("<a href=\"#s0-2\" title=\"c\">1</a>"),
            "{html}"
        );
        assert!(markdown(&t).starts_with("| strategy, policy | Sequential ordering |"));
        assert!(markdown(&Table::new()).is_empty());
    }
}
