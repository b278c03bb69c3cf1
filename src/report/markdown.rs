//! A Markdown summary of a run, for CI job summaries (GitHub's
//! `$GITHUB_STEP_SUMMARY`, GitLab and Jenkins pages): what ran against what,
//! the totals, every failure first with its failing step and one line of
//! expected against observed, then the features, then why scenarios were
//! skipped.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::model::{Run, Status};

/// A table cell: one line, pipes escaped.
fn cell(text: &str) -> String {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
        .replace('|', "\\|")
}

/// The first line of a message, at most `n` characters.
fn headline(text: &str, n: usize) -> String {
    let first = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or_default();
    if first.chars().count() <= n {
        first.to_string()
    } else {
        format!("{}…", first.chars().take(n - 1).collect::<String>())
    }
}

/// The summary.
pub(crate) fn render(run: &Run) -> String {
    let t = run.totals();
    let mut out = String::new();
    let verdict = if run.passed() && run.problems.is_empty() {
        "passed"
    } else {
        "failed"
    };
    let _ = writeln!(out, "## kepspec: {verdict}\n");
    if !run.target.is_empty() {
        let _ = writeln!(out, "**Target:** {}\n", cell(&run.target));
    }
    let _ = writeln!(
        out,
        "{} passed ({} with declared deviations), {} failed, {} skipped, in {:.1} s\n",
        t.passed,
        t.with_deviation,
        t.failed + t.not_implemented,
        t.skipped,
        run.duration.as_secs_f64()
    );
    for p in &run.problems {
        let _ = writeln!(out, "- **Run problem:** {}", cell(p));
    }
    if !run.problems.is_empty() {
        out.push('\n');
    }
    let failed: Vec<_> = run
        .features
        .iter()
        .flat_map(|f| f.scenarios.iter().map(move |s| (f, s)))
        .filter(|(_, s)| matches!(s.status, Status::Failed | Status::NotImplemented))
        .collect();
    if !failed.is_empty() {
        let _ = writeln!(out, "### Failures\n");
        let _ = writeln!(out, "| scenario | failing step | what broke |");
        let _ = writeln!(out, "|---|---|---|");
        for (f, s) in failed {
            let step = s
                .failed_step()
                .map(|st| format!("{} {} (line {})", st.keyword.trim(), st.text, st.line))
                .unwrap_or_else(|| s.status.word().to_string());
            let what = s
                .failure_message()
                .map(|m| headline(&m, 300))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "| `{}:{}` {} | {} | {} |",
                f.path,
                s.line,
                cell(&s.name),
                cell(&step),
                cell(&what)
            );
        }
        out.push('\n');
    }
    let _ = writeln!(out, "### Features\n");
    let _ = writeln!(
        out,
        "| feature | passed | with deviation | failed | skipped | time |"
    );
    let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|");
    let mut features: Vec<_> = run.features.iter().collect();
    // Features with failures first, then in run order.
    features.sort_by_key(|f| {
        let t = f.totals();
        t.failed + t.not_implemented == 0
    });
    for f in features {
        let t = f.totals();
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} | {} | {:.1} s |",
            f.path,
            t.passed - t.with_deviation,
            t.with_deviation,
            t.failed + t.not_implemented,
            t.skipped,
            f.duration().as_secs_f64()
        );
    }
    let mut reasons: BTreeMap<&str, usize> = BTreeMap::new();
    for s in run.features.iter().flat_map(|f| &f.scenarios) {
        if let Status::Skipped { reason } = &s.status {
            *reasons.entry(reason.as_str()).or_default() += 1;
        }
    }
    if !reasons.is_empty() {
        let _ = writeln!(out, "\n### Skipped, by reason\n");
        let mut reasons: Vec<(&str, usize)> = reasons.into_iter().collect();
        reasons.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        for (reason, n) in reasons {
            let _ = writeln!(out, "- {n} × {}", cell(reason));
        }
    }
    if !run.properties.is_empty() {
        let _ = writeln!(out, "\n<details><summary>Cluster and target</summary>\n");
        for (k, v) in &run.properties {
            let _ = writeln!(out, "- `{k}`: {}", cell(v));
        }
        let _ = writeln!(out, "\n</details>");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::model::{Feature, ScenarioResult, Step};

    #[test]
    fn failures_come_first_with_their_step_and_one_line() {
        let mut failed = ScenarioResult::new("breaks", 12, vec![], Status::Failed);
        failed.steps.push(Step {
            keyword: "Then ".into(),
            text: "no pod | was created".into(),
            line: 14,
            status: Status::Failed,
            message: Some("expected 3, observed 2\nmore".into()),
            started: None,
        });
        let run = Run {
            features: vec![
                Feature {
                    name: "good".into(),
                    path: "a.feature".into(),
                    scenarios: vec![ScenarioResult::new("fine", 3, vec![], Status::Passed)],
                },
                Feature {
                    name: "bad".into(),
                    path: "b.feature".into(),
                    scenarios: vec![
                        failed,
                        ScenarioResult::new(
                            "later",
                            20,
                            vec![],
                            Status::Skipped {
                                reason: "needs a gate".into(),
                            },
                        ),
                    ],
                },
            ],
            target: "upstream: STAND-IN, kepspec's controller".into(),
            ..Run::default()
        };
        let md = render(&run);
        assert!(md.starts_with("## kepspec: failed"), "{md}");
        assert!(md.contains("**Target:** upstream: STAND-IN"), "{md}");
        let failures = md.find("### Failures").unwrap();
        let features = md.find("### Features").unwrap();
        assert!(failures < features);
        assert!(md.contains(
            "| `b.feature:12` breaks | Then no pod \\| was created (line 14) | expected 3, observed 2 |"
        ));
        // The failing feature's row comes before the passing one's.
        assert!(md.find("| `b.feature`").unwrap() < md.find("| `a.feature`").unwrap());
        assert!(md.contains("- 1 × needs a gate"));
        assert!(md.contains("1 passed (0 with declared deviations), 1 failed, 1 skipped"));
    }
}
