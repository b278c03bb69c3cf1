//! Declared deviations: where a target knowingly differs from what the spec
//! states (the KEP, or the documentation it cites), each with its evidence
//! and the expectation the spec checks instead.
//!
//! ```yaml
//! deviations:
//!   - id: recreate-completed-condition          # a DNS label
//!     summary: ends a Recreate with Progressing False, reason RecreateCompleted
//!     evidence: kubernetes PR #137187 (author, 2026-07-05); capture on v1.37.0
//!     confirmed: true                            # false: not yet confirmed in released code
//!     condition:                                 # exactly one of condition, event, refusal, behaviour
//!       type: Progressing
//!       kep: {status: "True", reason: RecreateComplete}
//!       target: {status: "False", reason: RecreateCompleted, message: All pods recreated successfully}
//!   - id: no-recreate-started-event
//!     event: {kep: RecreateStarted, target: null}          # null: the target emits none
//!   - id: switch-away-allowed
//!     behaviour: {}   # scenarios tagged @deviates-<id> are replaced by those tagged @deviation-<id>
//! ```
//!
//! A check that passes only through a declared deviation records its id,
//! and the scenario is reported as *passed with deviation*; a difference
//! nobody declared stays a failure.

use serde::{Deserialize, Serialize};

/// Tag of a scenario a behaviour deviation replaces (`@deviates-<id>`).
pub(crate) const DEVIATES_PREFIX: &str = "deviates-";
/// Tag of a scenario that checks a behaviour deviation (`@deviation-<id>`).
pub(crate) const DEVIATION_PREFIX: &str = "deviation-";

/// One declared deviation.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Deviation {
    /// A DNS label, used in tags and reports.
    pub id: String,
    /// One line: what the target does instead.
    pub summary: String,
    /// Where this is shown: a release, a file, an issue or PR.
    pub evidence: String,
    /// Whether it was confirmed against released code (false: from a review
    /// thread, a test file or a capture that may not match the release).
    #[serde(default)]
    pub confirmed: bool,
    /// A condition the target sets differently.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub condition: Option<ConditionDeviation>,
    /// An event the target names differently or does not emit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event: Option<EventDeviation>,
    /// A refusal the target words differently.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refusal: Option<RefusalDeviation>,
    /// A behaviour: the spec's scenarios tagged `@deviates-<id>` are
    /// replaced by those tagged `@deviation-<id>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub behaviour: Option<BehaviourDeviation>,
}

/// `condition`: the KEP's status and reason for a condition type, and the target's.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct ConditionDeviation {
    /// The condition type (`Progressing`).
    #[serde(rename = "type")]
    pub type_: String,
    /// What the spec expects.
    pub kep: ConditionState,
    /// What the target sets instead.
    pub target: ConditionState,
}

/// A condition's status, reason and (optionally) message.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct ConditionState {
    /// `True` or `False`.
    pub status: String,
    /// The reason.
    pub reason: String,
    /// The message, when it is part of the expectation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// `event`: the KEP's event reason, and the target's (None: not emitted).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct EventDeviation {
    /// The reason the spec expects.
    pub kep: String,
    /// The reason the target emits instead, or none at all.
    pub target: Option<String>,
}

/// `refusal`: text the spec expects in a refusal, and the target's.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct RefusalDeviation {
    /// What the spec expects the message to contain.
    pub kep: String,
    /// What the target's message contains instead.
    pub target: String,
}

/// `behaviour`: nothing to configure; the scenarios carry the tags.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct BehaviourDeviation {}

impl Deviation {
    /// Checks the declaration: a DNS-label id and exactly one kind.
    pub fn check(&self) -> Result<(), String> {
        let label = !self.id.is_empty()
            && self.id.len() <= 63
            && self
                .id
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
            && !self.id.starts_with('-')
            && !self.id.ends_with('-');
        if !label {
            return Err(format!("id `{}` is not a DNS label", self.id));
        }
        let kinds = [
            self.condition.is_some(),
            self.event.is_some(),
            self.refusal.is_some(),
            self.behaviour.is_some(),
        ];
        if kinds.iter().filter(|k| **k).count() != 1 {
            return Err(format!(
                "deviation `{}` needs exactly one of condition, event, refusal or behaviour",
                self.id
            ));
        }
        if self.summary.trim().is_empty() || self.evidence.trim().is_empty() {
            return Err(format!(
                "deviation `{}` needs a summary and its evidence",
                self.id
            ));
        }
        Ok(())
    }

    /// How a report names it: `id: summary (evidence[, unconfirmed])`.
    pub fn describe(&self) -> String {
        format!(
            "{}: {} ({}{})",
            self.id,
            self.summary,
            self.evidence,
            if self.confirmed { "" } else { "; unconfirmed" }
        )
    }
}

/// A target's deviations, with the questions checks ask of them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Deviations(pub Vec<Deviation>);

impl Deviations {
    /// The declared alternatives to a condition the spec expects.
    pub fn condition(
        &self,
        type_: &str,
        status: &str,
        reason: &str,
    ) -> Vec<(&Deviation, &ConditionState)> {
        self.0
            .iter()
            .filter_map(|d| {
                let c = d.condition.as_ref()?;
                (c.type_ == type_ && c.kep.status == status && c.kep.reason == reason)
                    .then_some((d, &c.target))
            })
            .collect()
    }

    /// The declared alternative to an event the spec expects.
    pub fn event(&self, reason: &str) -> Option<(&Deviation, Option<&str>)> {
        self.0.iter().find_map(|d| {
            let e = d.event.as_ref()?;
            (e.kep == reason).then_some((d, e.target.as_deref()))
        })
    }

    /// The declared alternative wording of a refusal.
    pub fn refusal(&self, kep_text: &str) -> Option<(&Deviation, &str)> {
        self.0.iter().find_map(|d| {
            let r = d.refusal.as_ref()?;
            (r.kep == kep_text).then_some((d, r.target.as_str()))
        })
    }

    /// A declared behaviour deviation by id.
    pub fn behaviour(&self, id: &str) -> Option<&Deviation> {
        self.0.iter().find(|d| d.id == id && d.behaviour.is_some())
    }

    /// By id.
    pub fn get(&self, id: &str) -> Option<&Deviation> {
        self.0.iter().find(|d| d.id == id)
    }

    /// Why a scenario with these tags is not run on this target, from its
    /// behaviour-deviation tags: a KEP scenario the target replaced, or a
    /// deviation scenario for a deviation the target does not declare.
    pub fn skip(&self, tags: &[String], target: &str) -> Option<String> {
        for tag in tags.iter().map(|t| t.strip_prefix('@').unwrap_or(t)) {
            if let Some(id) = tag.strip_prefix(DEVIATES_PREFIX) {
                if let Some(d) = self.behaviour(id) {
                    return Some(format!(
                        "replaced by a declared deviation of target {target}: {}",
                        d.describe()
                    ));
                }
            }
            if let Some(id) = tag.strip_prefix(DEVIATION_PREFIX) {
                if self.behaviour(id).is_none() {
                    return Some(format!(
                        "checks deviation {id}, which target {target} does not declare"
                    ));
                }
            }
        }
        None
    }

    /// For a scenario with these tags that failed: the behaviour
    /// deviations it may be replaced by (`@deviates-<id>`) that this target
    /// does not declare, each as a shipped profile declares it, so the
    /// failure can name the other reading and its sentence.
    pub fn undeclared_alternatives(&self, tags: &[String]) -> Vec<String> {
        tags.iter()
            .map(|t| t.strip_prefix('@').unwrap_or(t))
            .filter_map(|t| t.strip_prefix(DEVIATES_PREFIX))
            .filter(|id| self.behaviour(id).is_none())
            .map(|id| match super::Profile::shipped_deviation(id) {
                Some((profile, d)) => format!(
                    "a target that reads this differently declares deviation {} (as target {profile} does)",
                    d.describe()
                ),
                None => format!("a target that reads this differently declares deviation {id}"),
            })
            .collect()
    }

    /// The behaviour deviations a scenario with these tags checks (it
    /// passes *with* them).
    pub fn checked_by(&self, tags: &[String]) -> Vec<String> {
        tags.iter()
            .map(|t| t.strip_prefix('@').unwrap_or(t))
            .filter_map(|t| t.strip_prefix(DEVIATION_PREFIX))
            .filter_map(|id| self.behaviour(id))
            .map(Deviation::describe)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(yaml: &str) -> Deviation {
        crate::yaml::from_str(yaml).unwrap()
    }

    #[test]
    fn a_declaration_has_one_kind_and_its_evidence() {
        let d = parse("id: x\nsummary: s\nevidence: e\ncondition: {type: Progressing, kep: {status: 'True', reason: A}, target: {status: 'False', reason: B}}\n");
        assert_eq!(d.check(), Ok(()));
        let two =
            parse("id: x\nsummary: s\nevidence: e\nbehaviour: {}\nevent: {kep: A, target: null}\n");
        assert!(two.check().unwrap_err().contains("exactly one"));
        let bad = parse("id: X_1\nsummary: s\nevidence: e\nbehaviour: {}\n");
        assert!(bad.check().unwrap_err().contains("DNS label"));
        assert!(crate::yaml::from_str::<Deviation>(
            "id: x\nsummary: s\nevidence: e\nbehavior: {}\n"
        )
        .is_err());
        assert!(d.describe().ends_with("(e; unconfirmed)"));
    }

    #[test]
    fn behaviour_deviations_swap_the_scenarios_they_name() {
        let all = Deviations(vec![parse(
            "id: switch-away-allowed\nsummary: s\nevidence: e\nbehaviour: {}\n",
        )]);
        let kep = vec![
            "@kep-3541".to_string(),
            "@deviates-switch-away-allowed".to_string(),
        ];
        let alt = vec!["@deviation-switch-away-allowed".to_string()];
        assert!(all
            .skip(&kep, "upstream")
            .unwrap()
            .starts_with("replaced by a declared deviation"));
        assert_eq!(all.skip(&alt, "upstream"), None);
        assert_eq!(all.checked_by(&alt).len(), 1);
        let none = Deviations::default();
        assert_eq!(none.skip(&kep, "bundled"), None);
        assert!(none
            .skip(&alt, "bundled")
            .unwrap()
            .contains("does not declare"));
    }
}
