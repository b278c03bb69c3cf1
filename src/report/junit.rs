//! JUnit XML: one `testsuite` per feature, one `testcase` per scenario, with
//! a dotted `classname` made from the feature path (`features.recreate.
//! all_at_once`, so that Jenkins' last-dot split names the feature) and
//! `file` and `line` attributes (read by GitLab and the common annotation
//! actions). A failed scenario has a `failure` whose message is one line —
//! the failing step with its place, then what it found — and whose body lists
//! the steps and the violation; a skipped one has `skipped` with the reason; a
//! scenario cut short by an interrupt is an `error`; a scenario with an
//! unimplemented step is a `failure` of type `NotImplemented` so that CI does
//! not pass an incomplete specification.

use super::escape;
use super::model::{Feature, Run, ScenarioResult, Status};
use std::fmt::Write;

fn interrupted(s: &ScenarioResult) -> bool {
    matches!(&s.status, Status::Skipped { reason } if reason == super::model::INTERRUPTED_WHILE_RUNNING)
}

/// `features/recreate/all_at_once.feature` as `features.recreate.all_at_once`.
pub(crate) fn classname(path: &str) -> String {
    path.strip_suffix(".feature")
        .unwrap_or(path)
        .replace(['/', '\\'], ".")
        .replace(' ', "_")
}

fn secs(d: std::time::Duration) -> String {
    format!("{:.3}", d.as_secs_f64())
}

/// Renders the run as a JUnit XML document.
pub(crate) fn render(run: &Run) -> String {
    let t = run.totals();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let errors = run
        .features
        .iter()
        .flat_map(|f| &f.scenarios)
        .filter(|s| interrupted(s))
        .count();
    let _ = writeln!(
        out,
        "<testsuites name=\"kepspec\" tests=\"{}\" failures=\"{}\" errors=\"{errors}\" skipped=\"{}\" time=\"{}\">",
        t.scenarios + usize::from(!run.problems.is_empty()),
        t.failed + t.not_implemented + usize::from(!run.problems.is_empty()),
        t.skipped - errors,
        secs(run.duration)
    );
    for f in &run.features {
        feature(&mut out, f, run);
    }
    if !run.problems.is_empty() {
        // A run that failed as a whole (nothing ran, a --require unmet, an
        // interrupt) says so where CI readers look: a failed test case.
        let _ = writeln!(
            out,
            "  <testsuite name=\"kepspec run\" tests=\"1\" failures=\"1\" errors=\"0\" skipped=\"0\" time=\"0.000\">"
        );
        properties(&mut out, run);
        let _ = writeln!(
            out,
            "    <testcase name=\"the run as a whole\" classname=\"kepspec\" time=\"0.000\">\n      <failure message=\"{}\" type=\"RunProblem\">{}</failure>\n    </testcase>",
            escape(&run.problems[0]),
            escape(&run.problems.join("\n"))
        );
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}

fn properties(out: &mut String, run: &Run) {
    if run.properties.is_empty() && run.problems.is_empty() {
        return;
    }
    out.push_str("    <properties>\n");
    for (k, v) in &run.properties {
        let _ = writeln!(
            out,
            "      <property name=\"{}\" value=\"{}\"/>",
            escape(k),
            escape(v)
        );
    }
    for p in &run.problems {
        let _ = writeln!(
            out,
            "      <property name=\"kepspec.run.problem\" value=\"{}\"/>",
            escape(p)
        );
    }
    out.push_str("    </properties>\n");
}

fn feature(out: &mut String, f: &Feature, run: &Run) {
    let t = f.totals();
    let errors = f.scenarios.iter().filter(|s| interrupted(s)).count();
    let _ = writeln!(
        out,
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{errors}\" skipped=\"{}\" time=\"{}\" file=\"{}\">",
        escape(&f.name),
        t.scenarios,
        t.failed + t.not_implemented,
        t.skipped - errors,
        secs(f.duration()),
        escape(&f.path)
    );
    properties(out, run);
    for s in &f.scenarios {
        scenario(out, &f.path, s);
    }
    out.push_str("  </testsuite>\n");
}

fn step_list(s: &ScenarioResult) -> String {
    let mut body = String::new();
    for st in &s.steps {
        let _ = writeln!(
            body,
            "[{}] {} {} (line {})",
            st.status.word(),
            st.keyword.trim(),
            st.text,
            st.line
        );
        if let Some(m) = &st.message {
            for l in m.lines() {
                let _ = writeln!(body, "    {l}");
            }
        }
    }
    if let Some(v) = &s.violation {
        let _ = write!(body, "\n{v}");
    }
    body
}

fn scenario(out: &mut String, path: &str, s: &ScenarioResult) {
    let _ = write!(
        out,
        "    <testcase name=\"{}\" classname=\"{}\" file=\"{}\" line=\"{}\" time=\"{}\"",
        escape(&s.name),
        escape(&classname(path)),
        escape(path),
        s.line,
        secs(s.duration)
    );
    match &s.status {
        Status::Passed if !s.deviations.is_empty() => {
            out.push_str(">\n      <properties>\n");
            let _ = writeln!(
                out,
                "        <property name=\"kepspec.outcome\" value=\"passed with deviation\"/>"
            );
            for d in &s.deviations {
                let _ = writeln!(
                    out,
                    "        <property name=\"kepspec.deviation\" value=\"{}\"/>",
                    escape(d)
                );
            }
            out.push_str("      </properties>\n");
        }
        Status::Passed => {
            out.push_str(">\n");
        }
        Status::Failed => {
            // One line in the attribute (the headline CI viewers show): the
            // failing step and its place, then what it found; the whole
            // text is in the body.
            let found = s.failure_message().and_then(|m| {
                m.lines()
                    .map(str::trim)
                    .find(|l| !l.is_empty())
                    .map(str::to_string)
            });
            let message = match (s.failed_step(), found) {
                (Some(st), Some(found)) => format!(
                    "{} {} ({path}:{}): {found}",
                    st.keyword.trim(),
                    st.text,
                    st.line
                ),
                (Some(st), None) => {
                    format!(
                        "{} {} ({path}:{}) failed",
                        st.keyword.trim(),
                        st.text,
                        st.line
                    )
                }
                (None, Some(found)) => found,
                (None, None) => "scenario failed".to_string(),
            };
            let type_ = if s.violation.is_some() {
                "Violation"
            } else {
                "StepFailed"
            };
            let _ = writeln!(
                out,
                ">\n      <failure message=\"{}\" type=\"{type_}\">{}</failure>",
                escape(&message),
                escape(&step_list(s))
            );
        }
        Status::Skipped { reason } if interrupted(s) => {
            let _ = writeln!(
                out,
                ">\n      <error message=\"{}\" type=\"Interrupted\"/>",
                escape(reason)
            );
        }
        Status::Skipped { reason } => {
            let _ = writeln!(out, ">\n      <skipped message=\"{}\"/>", escape(reason));
        }
        Status::NotImplemented => {
            let step = s
                .steps
                .iter()
                .find(|st| st.status == Status::NotImplemented)
                .map(|st| format!("{} {}", st.keyword.trim(), st.text))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                ">\n      <failure message=\"{}\" type=\"NotImplemented\">{}</failure>",
                escape(&format!("step has no implementation: {step}")),
                escape(&step_list(s))
            );
        }
    }
    // Failures carry the step list in their body already.
    if matches!(s.status, Status::Passed | Status::Skipped { .. }) && !s.steps.is_empty() {
        let _ = writeln!(
            out,
            "      <system-out>{}</system-out>",
            escape(&step_list(s))
        );
    }
    out.push_str("    </testcase>\n");
}
