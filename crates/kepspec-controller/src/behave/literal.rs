//! KEP-3541 and KEP-961 taken at their words (`behaveAs: kep-literal`):
//! where a feature follows another source (upstream's code, the concepts
//! page, the pseudo-code against a note), this reading does what the KEP's
//! sentence says instead. It is the third implementation the spec is
//! measured against; `clusters/targets/kep-literal.yaml` declares each
//! difference below as a deviation, with the sentence as its evidence.
//!
//! Each rule is a pure change of the plan the bundled controller makes for
//! the same observed state.

use k8s_openapi::api::apps::v1::{StatefulSet, StatefulSetUpdateStrategy};
use k8s_openapi::api::core::v1::Pod;

use super::super::plan::{
    self, Action, ControllerGates, DeleteReason, Observed, Phase, Plan, PlanError, RecreatePhase,
};
use super::super::{pods, status};

/// The plan of one sync under the literal reading.
pub(super) fn plan(obs: &Observed<'_>, gates: &ControllerGates) -> Result<Plan, PlanError> {
    let mut made = plan::plan(obs, gates)?;
    // Deviation type-change-no-rollout.
    mark_fallback(obs.set, &mut made);
    if pending_from_another_strategy(obs.set, &made) {
        let (set, raw) = with_strategy(obs, "OnDelete");
        made = plan::plan(
            &Observed {
                set: &set,
                set_raw: &raw,
                ..*obs
            },
            gates,
        )?;
    }
    // Deviation recreate-next-on-ready.
    if made.phase == Phase::Recreate(RecreatePhase::ReadyForCreation)
        && ordered_ready(obs.set)
        && obs.set.spec.min_ready_seconds.unwrap_or(0) > 0
    {
        let mut set = obs.set.clone();
        set.spec.min_ready_seconds = None;
        let sooner = plan::plan(&Observed { set: &set, ..*obs }, gates)?;
        // The pods it creates, with the status of the set as it is.
        made.actions = sooner.actions;
        made.batches = sooner.batches;
    }
    // Deviation condemned-waits-for-predecessors.
    if ordered_ready(obs.set) && strategy_type(obs.set) != Some(plan::ENFORCED_TYPE) {
        hold_condemned(obs, &mut made);
    }
    Ok(made)
}

/// KEP-3541, "Notes/Constraints/Caveats": "Strategy Type Change Does Not
/// Trigger Rollout"; the Recreate behaviour starts only when the template
/// changes or a rollout is forced. A Recreate that would start for an update
/// revision the set was already rolling out under another strategy (its
/// observed `Progressing` condition names that revision in the message of
/// RollingUpdate, OnDelete or EnforcedRollingUpdate) is not started: the
/// pods stay as they are, as under OnDelete, until the next template change.
fn pending_from_another_strategy(set: &StatefulSet, made: &Plan) -> bool {
    if !matches!(
        made.phase,
        Phase::Recreate(RecreatePhase::NeedsDeletion | RecreatePhase::WaitingTermination)
    ) {
        return false;
    }
    let Some(update) = made.status.update_revision.as_deref() else {
        return false;
    };
    let named: Vec<String> = OTHER_STRATEGIES
        .iter()
        .map(|label| format!("{label} to revision {update}:"))
        .collect();
    set.status
        .as_ref()
        .and_then(|s| s.conditions.as_deref())
        .unwrap_or(&[])
        .iter()
        .any(|c| {
            c.type_.as_deref() == Some(status::PROGRESSING)
                && !matches!(
                    c.reason.as_deref(),
                    Some(status::RECREATE_IN_PROGRESS | status::RECREATE_COMPLETE)
                )
                && c.message
                    .as_deref()
                    .is_some_and(|m| named.iter().any(|n| m.starts_with(n.as_str())))
        })
}

/// How the `Progressing` message of each other strategy starts.
const OTHER_STRATEGIES: [&str; 3] = [
    "Rolling update",
    "OnDelete update",
    "Enforced rolling update",
];

/// A Recreate set rolled as RollingUpdate because the controller's gate is
/// off says so in its `Progressing` message, so that a gate-on controller
/// taking over does not mistake the update for one started under another
/// strategy (the KEP's "Leader may change during upgrade, causing behavior
/// to switch between Recreate and RollingUpdate").
fn mark_fallback(set: &StatefulSet, made: &mut Plan) {
    if strategy_type(set) != Some("Recreate") || !matches!(made.phase, Phase::RollingUpdate { .. })
    {
        return;
    }
    for c in made.status.conditions.iter_mut().flatten() {
        if c.type_.as_deref() != Some(status::PROGRESSING) {
            continue;
        }
        if let Some(rest) = c
            .message
            .as_deref()
            .and_then(|m| m.strip_prefix("Rolling update"))
        {
            c.message = Some(format!(
                "Recreate, rolled one pod at a time (gate off),{rest}"
            ));
        }
    }
}

/// The set (typed and as served) with another update strategy type.
fn with_strategy(obs: &Observed<'_>, type_: &str) -> (StatefulSet, serde_json::Value) {
    let mut set = obs.set.clone();
    set.spec.update_strategy = Some(StatefulSetUpdateStrategy {
        type_: Some(type_.into()),
        rolling_update: None,
    });
    let mut raw = obs.set_raw.clone();
    if let Some(spec) = raw.get_mut("spec").and_then(|s| s.as_object_mut()) {
        spec.insert(
            "updateStrategy".into(),
            serde_json::json!({ "type": type_ }),
        );
    }
    (set, raw)
}

/// StatefulSet concepts, "Deployment and Scaling Guarantees": "Before a
/// scaling operation is applied to a Pod, all of its predecessors must be
/// Running and Ready"; KEP-961, Beta: "the controller should first wait for
/// the predecessor condemned pods to become available before deleting
/// them". An OrderedReady scale-down deletes a pod only when every member
/// of a lower ordinal is Running, Ready and available.
fn hold_condemned(obs: &Observed<'_>, made: &mut Plan) {
    let name = obs.set.metadata.name.as_deref().unwrap_or_default();
    let min_ready = obs.set.spec.min_ready_seconds.unwrap_or(0);
    let members: Vec<&Pod> = obs
        .pods
        .iter()
        .map(AsRef::as_ref)
        .filter(|p| pods::is_member(name, p))
        .collect();
    let held = |ordinal: i32| {
        members.iter().any(|p| {
            pods::ordinal(p).is_some_and(|o| o < ordinal)
                && !(pods::is_running_and_ready(p) && pods::is_available(p, min_ready, obs.now))
        })
    };
    made.actions.retain(|a| match a {
        Action::DeletePod {
            name: pod,
            reason: DeleteReason::ScaleDown,
            ..
        } => !pods::parent_and_ordinal(pod).is_some_and(|(_, o)| held(o)),
        _ => true,
    });
}

fn ordered_ready(set: &StatefulSet) -> bool {
    set.spec.pod_management_policy.as_deref() != Some("Parallel")
}

fn strategy_type(set: &StatefulSet) -> Option<&str> {
    set.spec
        .update_strategy
        .as_ref()
        .and_then(|u| u.type_.as_deref())
}

#[cfg(test)]
mod tests;
