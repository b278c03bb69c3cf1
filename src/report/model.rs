//! The results of a run, as every report writer reads them.

use crate::history::{Timeline, Violation};
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// The skip reason of a scenario an interrupt cut short while it ran; JUnit
/// reports such a scenario as an error, not a skip.
pub(crate) const INTERRUPTED_WHILE_RUNNING: &str = "interrupted while running";

/// Outcome of a scenario or a step.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Status {
    /// Everything held.
    Passed,
    /// A step failed.
    Failed,
    /// Not run, with the reason (e.g. a tag filter, a missing cluster
    /// capability, an earlier failure).
    Skipped {
        /// Why it was skipped.
        reason: String,
    },
    /// A step has no implementation.
    NotImplemented,
}

impl Status {
    /// A short lowercase word: passed, failed, skipped, not implemented.
    pub fn word(&self) -> &'static str {
        match self {
            Status::Passed => "passed",
            Status::Failed => "failed",
            Status::Skipped { .. } => "skipped",
            Status::NotImplemented => "not implemented",
        }
    }
}

/// One step of a scenario.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// `Given`, `When`, `Then`, `And`, `But`.
    pub keyword: String,
    /// The step text.
    pub text: String,
    /// Line in the feature file.
    pub line: u32,
    /// Outcome.
    pub status: Status,
    /// The failure (or other) message.
    pub message: Option<String>,
    /// Wall-clock time the step started (none for a step that never ran):
    /// with the timeline's origin it places the step on the swimlane.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started: Option<jiff::Timestamp>,
}

/// The skip reason of a step after the failing one, which cucumber never
/// starts.
pub(crate) const NOT_RUN_AFTER_FAILURE: &str = "not run: an earlier step failed";

/// One scenario (an example of a scenario outline counts as one).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScenarioResult {
    /// Scenario name.
    pub name: String,
    /// Line in the feature file.
    pub line: u32,
    /// Tags including the feature's, with `@`.
    pub tags: Vec<String>,
    /// Outcome.
    pub status: Status,
    /// Steps in order.
    pub steps: Vec<Step>,
    /// When the scenario started (its setup done, the run's throttle
    /// passed): with `duration`, when it ran within the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started: Option<jiff::Timestamp>,
    /// Wall time.
    pub duration: Duration,
    /// The recorded history, if any.
    pub timeline: Option<Timeline>,
    /// The first violated property, if any.
    pub violation: Option<Violation>,
    /// The target's declared deviations the scenario's checks accepted in
    /// place of the KEP's words: a pass with any is a *pass with deviation*.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub deviations: Vec<String>,
    /// The round of a `--repeat` run (1-based), None for a single run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub round: Option<u32>,
    /// What the scenario measured, as name and value (the comparison
    /// table's cells).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub facts: Vec<(String, String)>,
    /// The folder (relative to the report folder) holding the objects and
    /// timeline of a failed scenario, when they were written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifacts: Option<String>,
}

impl ScenarioResult {
    /// A scenario of the given name and line with nothing recorded yet.
    pub fn new(name: impl Into<String>, line: u32, tags: Vec<String>, status: Status) -> Self {
        Self {
            name: name.into(),
            line,
            tags,
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

    /// Passed, through at least one declared deviation.
    pub fn passed_with_deviation(&self) -> bool {
        self.status == Status::Passed && !self.deviations.is_empty()
    }

    /// The message of the first failed step, or of the violation.
    pub fn failure_message(&self) -> Option<String> {
        self.steps
            .iter()
            .find(|s| s.status == Status::Failed)
            .and_then(|s| s.message.clone())
            .or_else(|| self.violation.as_ref().map(|v| v.message.clone()))
    }

    /// The failed step, if any.
    pub fn failed_step(&self) -> Option<&Step> {
        self.steps.iter().find(|s| s.status == Status::Failed)
    }
}

/// One feature file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Feature {
    /// Feature name.
    pub name: String,
    /// Path of the feature file, relative to the features directory.
    pub path: String,
    /// Scenarios in file order.
    pub scenarios: Vec<ScenarioResult>,
}

/// Counts of scenario outcomes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Totals {
    /// Scenarios run.
    pub scenarios: usize,
    /// Passed.
    pub passed: usize,
    /// Failed.
    pub failed: usize,
    /// Skipped.
    pub skipped: usize,
    /// With unimplemented steps.
    pub not_implemented: usize,
    /// Of the passed, those that passed through a declared deviation.
    #[serde(default)]
    pub with_deviation: usize,
}

impl Totals {
    /// Adds one scenario's outcome.
    pub fn add(&mut self, scenario: &ScenarioResult) {
        self.scenarios += 1;
        if scenario.passed_with_deviation() {
            self.with_deviation += 1;
        }
        match &scenario.status {
            Status::Passed => self.passed += 1,
            Status::Failed => self.failed += 1,
            Status::Skipped { .. } => self.skipped += 1,
            Status::NotImplemented => self.not_implemented += 1,
        }
    }
}

/// A whole run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Run {
    /// Features in run order.
    pub features: Vec<Feature>,
    /// Wall time of the run.
    #[serde(default)]
    pub duration: Duration,
    /// What ran against (e.g. `embedded`, a kubeconfig context).
    #[serde(default)]
    pub target: String,
    /// What the cluster was found to be: version, feature gates and where
    /// each fact came from (`key` -> `value`), for the reports.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub properties: Vec<(String, String)>,
    /// Why the run failed although no scenario did (nothing ran, a
    /// `--require` unmet) or was cut short (interrupted).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub problems: Vec<String>,
}

impl Run {
    /// Outcome counts over all scenarios.
    pub fn totals(&self) -> Totals {
        let mut t = Totals::default();
        for s in self.features.iter().flat_map(|f| &f.scenarios) {
            t.add(s);
        }
        t
    }

    /// True when no scenario failed or is not implemented.
    pub fn passed(&self) -> bool {
        let t = self.totals();
        t.failed == 0 && t.not_implemented == 0
    }
}

impl Feature {
    /// Outcome counts of this feature.
    pub fn totals(&self) -> Totals {
        let mut t = Totals::default();
        for s in &self.scenarios {
            t.add(s);
        }
        t
    }

    /// Total scenario time.
    pub fn duration(&self) -> Duration {
        self.scenarios.iter().map(|s| s.duration).sum()
    }
}
