//! The exploration's verdicts and how they are printed.

use std::time::Duration;

use crate::report::model::{self, Status};
use crate::sim::faults::RequestRecord;

/// What one crash point did to the scenario.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Every property held.
    Passed,
    /// A step failed; its words and message.
    Broke {
        /// The failed step.
        step: String,
        /// Its message.
        message: String,
    },
    /// The rerun made fewer writes than the recording: the point was not reached.
    NotReached,
}

impl Verdict {
    /// Whether the point is fine (passed, or not reached in this run).
    pub fn passed(&self) -> bool {
        !matches!(self, Verdict::Broke { .. })
    }
}

/// One crash point and its verdict.
#[derive(Clone, Debug)]
pub struct Point {
    /// Its number (the Nth write after the crash-point step).
    pub n: u64,
    /// The write as recorded in the first run.
    pub recorded: String,
    /// The write the fault hit in this run, when it differs from the recorded one.
    pub hit: Option<String>,
    /// The verdict.
    pub verdict: Verdict,
    /// How long the rerun took.
    pub took: Duration,
}

/// `delete pods/web-2`, `update statefulsets/web/status`.
pub(super) fn describe(r: &RequestRecord) -> String {
    let mut s = format!("{} {}", r.verb, r.resource);
    for part in [&r.name, &r.subresource] {
        if !part.is_empty() {
            s.push('/');
            s.push_str(part);
        }
    }
    s
}

impl Point {
    /// The verdict of a rerun.
    pub fn new(
        n: u64,
        recorded: &RequestRecord,
        hit: Option<&RequestRecord>,
        scenario: Option<&model::ScenarioResult>,
        took: Duration,
    ) -> Self {
        let recorded = describe(recorded);
        let verdict = match (hit, scenario) {
            (_, None) => Verdict::Broke {
                step: "(run)".into(),
                message: "the scenario did not run".into(),
            },
            (_, Some(s)) if s.status != Status::Passed => Verdict::Broke {
                step: s
                    .failed_step()
                    .map(|st| format!("{} {}", st.keyword, st.text))
                    .unwrap_or_default(),
                message: s.failure_message().unwrap_or_default(),
            },
            (None, Some(_)) => Verdict::NotReached,
            (Some(_), Some(_)) => Verdict::Passed,
        };
        let hit = hit.map(describe).filter(|h| *h != recorded);
        Self {
            n,
            recorded,
            hit,
            verdict,
            took,
        }
    }

    /// One line (more for a broken point).
    pub fn line(&self) -> String {
        let what = match &self.hit {
            Some(h) => format!("{} (this run: {h})", self.recorded),
            None => self.recorded.clone(),
        };
        let head = match &self.verdict {
            Verdict::Passed => "pass",
            Verdict::NotReached => "n/r ",
            Verdict::Broke { .. } => "FAIL",
        };
        let mut s = format!(
            "  {head} #{:<3} after {what:<48} {:.1}s",
            self.n,
            self.took.as_secs_f64()
        );
        if let Verdict::Broke { step, message } = &self.verdict {
            s.push_str(&format!("\n         broke: {step}"));
            for l in message.lines().take(6) {
                s.push_str(&format!("\n           {l}"));
            }
        }
        s
    }
}

/// The first run's summary.
pub(super) fn baseline_line(s: &model::ScenarioResult, writes: usize) -> String {
    let status = if s.status == Status::Passed {
        "passed"
    } else {
        "FAILED"
    };
    format!(
        "baseline {status} in {:.1}s, {writes} controller writes recorded",
        s.duration.as_secs_f64()
    )
}

/// The closing summary.
pub(super) fn summary(points: &[Point], took: Duration) -> String {
    let count = |f: fn(&Verdict) -> bool| points.iter().filter(|p| f(&p.verdict)).count();
    format!(
        "{} points: {} passed, {} broke, {} not reached; {:.1}s in all",
        points.len(),
        count(|v| *v == Verdict::Passed),
        count(|v| matches!(v, Verdict::Broke { .. })),
        count(|v| *v == Verdict::NotReached),
        took.as_secs_f64()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(verb: &str, name: &str, sub: &str) -> RequestRecord {
        RequestRecord {
            verb: verb.into(),
            resource: "pods".into(),
            name: name.into(),
            subresource: sub.into(),
            ..Default::default()
        }
    }

    #[test]
    fn writes_are_described_and_unreached_points_named() {
        assert_eq!(describe(&rec("delete", "web-2", "")), "delete pods/web-2");
        assert_eq!(describe(&rec("create", "", "")), "create pods");
        let p = Point::new(
            3,
            &rec("delete", "web-2", ""),
            None,
            Some(&model::ScenarioResult {
                name: "s".into(),
                line: 1,
                tags: vec![],
                status: Status::Passed,
                steps: vec![],
                started: None,
                duration: Duration::ZERO,
                timeline: None,
                violation: None,
                deviations: Vec::new(),
                round: None,
                facts: Vec::new(),
                artifacts: None,
            }),
            Duration::ZERO,
        );
        assert_eq!(p.verdict, Verdict::NotReached);
        assert!(p.line().contains("#3") && p.line().contains("delete pods/web-2"));
    }
}
