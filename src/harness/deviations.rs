//! What a check accepts besides the spec's own words: the target's declared
//! deviations (and `reasons` renames), each with the label the report shows
//! when a scenario passes only through it.

use crate::profiles::Profile;

/// A condition state the target declares in place of the spec's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ConditionAlternative {
    /// How the report names the deviation.
    pub label: String,
    /// Status the target sets.
    pub status: String,
    /// Reason the target sets.
    pub reason: String,
    /// Message the target sets, when declared.
    pub message: Option<String>,
}

/// The declared alternatives to the condition the spec expects.
pub(crate) fn condition(
    profile: &Profile,
    type_: &str,
    status: &str,
    reason: &str,
) -> Vec<ConditionAlternative> {
    let mut out: Vec<ConditionAlternative> = profile
        .deviations()
        .condition(type_, status, reason)
        .into_iter()
        .map(|(d, target)| ConditionAlternative {
            label: d.describe(),
            status: target.status.clone(),
            reason: target.reason.clone(),
            message: target.message.clone(),
        })
        .collect();
    let renamed = profile.reason(reason);
    if renamed != reason {
        out.push(ConditionAlternative {
            label: format!(
                "reasons: the target names {reason} {renamed} (spec.reasons of {})",
                profile.name()
            ),
            status: status.to_string(),
            reason: renamed,
            message: None,
        });
    }
    out
}

/// The declared alternative to an event the spec expects: its label and
/// the reason the target emits instead (None: none at all).
pub(crate) fn event(profile: &Profile, reason: &str) -> Option<(String, Option<String>)> {
    if let Some((d, target)) = profile.deviations().event(reason) {
        return Some((d.describe(), target.map(str::to_string)));
    }
    let renamed = profile.reason(reason);
    (renamed != reason).then(|| {
        (
            format!(
                "reasons: the target names {reason} {renamed} (spec.reasons of {})",
                profile.name()
            ),
            Some(renamed),
        )
    })
}

/// The declared alternative wording of a refusal.
pub(crate) fn refusal(profile: &Profile, text: &str) -> Option<(String, String)> {
    profile
        .deviations()
        .refusal(text)
        .map(|(d, t)| (d.describe(), t.to_string()))
}

/// "the target declares: ..." or "the target declares no deviation here".
pub(crate) fn declared(labels: &[String]) -> String {
    if labels.is_empty() {
        "the target declares no deviation here".to_string()
    } else {
        format!("the target declares instead: {}", labels.join("; "))
    }
}
