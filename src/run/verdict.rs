//! The verdict of a run: its exit code and, when it is not a plain pass or
//! fail, the sentence that says why. A run is never green on nothing: one
//! that ran no scenario fails unless the user allowed it (`--allow-empty`),
//! and every `--require EXPR` fails the run when no scenario its tag
//! expression selects actually ran.

use cucumber::gherkin::tagexpr::TagOperation;
use cucumber::tag::Ext as _;

use crate::cli::{EXIT_FAILED, EXIT_PASSED};
use crate::report::model::{self, Status};

/// A `--require` tag expression, parsed.
#[derive(Clone, Debug)]
pub(crate) struct Requirement {
    /// The expression as the user wrote it.
    pub text: String,
    op: TagOperation,
}

impl Requirement {
    /// Parses `--require EXPR`.
    pub(crate) fn parse(text: &str) -> Result<Self, String> {
        let op = text
            .parse::<TagOperation>()
            .map_err(|e| format!("--require: invalid tag expression `{text}`: {e}"))?;
        Ok(Self {
            text: text.to_string(),
            op,
        })
    }

    /// Whether a scenario with these tags (with `@`) is one the requirement names.
    pub(crate) fn names(&self, tags: &[String]) -> bool {
        self.op
            .eval(tags.iter().map(|t| t.strip_prefix('@').unwrap_or(t)))
    }
}

/// What a run must show to pass besides no failure.
#[derive(Clone, Debug, Default)]
pub(crate) struct Expectations {
    /// `--allow-empty`: a run that runs no scenario may pass.
    pub allow_empty: bool,
    /// `--require`: each must select at least one scenario that ran.
    pub require: Vec<Requirement>,
    /// How the selection was made, in the user's words, for the message.
    pub selection: String,
}

/// An exit code and the reasons it is not what the scenarios alone say.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Verdict {
    /// The exit code.
    pub code: u8,
    /// Why the run failed although no scenario did (empty, requirements).
    pub problems: Vec<String>,
}

fn ran(s: &model::ScenarioResult) -> bool {
    matches!(
        s.status,
        Status::Passed | Status::Failed | Status::NotImplemented
    )
}

/// The verdict on a finished run.
pub(crate) fn verdict(run: &model::Run, expect: &Expectations) -> Verdict {
    let scenarios: Vec<&model::ScenarioResult> =
        run.features.iter().flat_map(|f| &f.scenarios).collect();
    let mut problems = Vec::new();
    let ran_count = scenarios.iter().filter(|s| ran(s)).count();
    if ran_count == 0 && !expect.allow_empty {
        if scenarios.is_empty() {
            problems.push(format!(
                "no scenario ran: {} selected none (a tag or name that matches nothing?); pass --allow-empty if that is intended",
                expect.selection
            ));
        } else {
            let mut reasons: Vec<String> = scenarios
                .iter()
                .filter_map(|s| match &s.status {
                    Status::Skipped { reason } => Some(reason.clone()),
                    _ => None,
                })
                .collect();
            reasons.sort();
            reasons.dedup();
            problems.push(format!(
                "no scenario ran: all {} scenarios {} selected were skipped ({}); pass --allow-empty if that is intended",
                scenarios.len(),
                expect.selection,
                reasons.join("; ")
            ));
        }
    }
    for req in &expect.require {
        let named: Vec<&&model::ScenarioResult> =
            scenarios.iter().filter(|s| req.names(&s.tags)).collect();
        if !named.iter().any(|s| ran(s)) {
            problems.push(if named.is_empty() {
                format!(
                    "--require {}: no selected scenario has these tags",
                    req.text
                )
            } else {
                format!(
                    "--require {}: none of its {} selected scenarios ran (all skipped)",
                    req.text,
                    named.len()
                )
            });
        }
    }
    let code = if problems.is_empty() && run.passed() {
        EXIT_PASSED
    } else {
        EXIT_FAILED
    };
    Verdict { code, problems }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn scenario(name: &str, tags: &[&str], status: Status) -> model::ScenarioResult {
        model::ScenarioResult {
            name: name.into(),
            line: 1,
            tags: tags.iter().map(|t| t.to_string()).collect(),
            status,
            steps: Vec::new(),
            started: None,
            duration: Duration::ZERO,
            timeline: None,
            violation: None,
            deviations: Vec::new(),
            round: None,
            facts: Vec::new(),
            artifacts: None,
        }
    }

    fn run(scenarios: Vec<model::ScenarioResult>) -> model::Run {
        model::Run {
            features: vec![model::Feature {
                name: "f".into(),
                path: "features/f.feature".into(),
                scenarios,
            }],
            ..model::Run::default()
        }
    }

    fn skipped(reason: &str) -> Status {
        Status::Skipped {
            reason: reason.into(),
        }
    }

    #[test]
    fn a_run_of_nothing_fails_unless_allowed() {
        let expect = Expectations {
            selection: "--tags '@kep3541'".into(),
            ..Expectations::default()
        };
        let v = verdict(&model::Run::default(), &expect);
        assert_eq!(v.code, EXIT_FAILED);
        assert!(
            v.problems[0].contains("--tags '@kep3541' selected none"),
            "{v:?}"
        );
        let allowed = Expectations {
            allow_empty: true,
            ..expect.clone()
        };
        assert_eq!(verdict(&model::Run::default(), &allowed).code, EXIT_PASSED);
    }

    #[test]
    fn a_run_that_skipped_everything_fails_and_says_why() {
        let r = run(vec![
            scenario("a", &["@kep-3541"], skipped("needs feature gate X")),
            scenario("b", &["@kep-3541"], skipped("needs feature gate X")),
        ]);
        let v = verdict(&r, &Expectations::default());
        assert_eq!(v.code, EXIT_FAILED);
        assert!(v.problems[0].contains("all 2 scenarios"), "{v:?}");
        assert!(v.problems[0].contains("needs feature gate X"), "{v:?}");
    }

    #[test]
    fn a_requirement_needs_one_of_its_scenarios_to_run() {
        let r = run(vec![
            scenario("a", &["@kep-3541"], skipped("gate off")),
            scenario("b", &["@base"], Status::Passed),
        ]);
        let expect = Expectations {
            require: vec![Requirement::parse("@kep-3541").unwrap()],
            ..Expectations::default()
        };
        let v = verdict(&r, &expect);
        assert_eq!(v.code, EXIT_FAILED);
        assert!(
            v.problems[0].contains("none of its 1 selected scenarios ran"),
            "{v:?}"
        );
        let base = Expectations {
            require: vec![Requirement::parse("@base").unwrap()],
            ..Expectations::default()
        };
        assert_eq!(verdict(&r, &base).code, EXIT_PASSED);
        let missing = Expectations {
            require: vec![Requirement::parse("@kep-961").unwrap()],
            ..Expectations::default()
        };
        assert!(verdict(&r, &missing).problems[0].contains("no selected scenario"));
        assert!(Requirement::parse("@a and").is_err());
    }

    #[test]
    fn a_failed_scenario_fails_the_run() {
        let r = run(vec![scenario("a", &["@base"], Status::Failed)]);
        assert_eq!(verdict(&r, &Expectations::default()).code, EXIT_FAILED);
    }
}
