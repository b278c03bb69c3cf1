//! The bundled controller standing in for another implementation: by
//! default it implements the KEPs with the readings the features name;
//! `kep-literal` takes the KEPs' words where those readings differ
//! ([`literal`]); `upstream-v1.37` makes it act
//! as upstream kube-controller-manager v1.37 is known to act where that
//! differs from KEP-3541 (source `calibration-facts` in spec/sources.yaml), so that
//! `--target upstream` and its declared deviations can be exercised on the
//! embedded cluster. Each difference below names its evidence; the upstream
//! target profile declares the same ones.

use k8s_openapi::api::apps::v1::{StatefulSet, StatefulSetCondition, StatefulSetStatus};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;

use super::plan::{Action, ControllerGates, Observed, Plan, PlanError, RECREATE_STARTED};
use super::status::{PROGRESSING, RECREATE_COMPLETE};

pub use kepspec_core::Implementation;

/// Upstream v1.37's end of a Recreate: `Progressing` status False, reason
/// `RecreateCompleted` (kubernetes PR #137187: the reason constant, and the
/// author's "cleared the progressing condition with Progressing=False when
/// the progressing is done"; live capture on v1.37.0, calibration-facts.md).
pub(crate) const UPSTREAM_RECREATE_COMPLETED: &str = "RecreateCompleted";
/// The message of that condition in the v1.37.0 capture.
pub(crate) const UPSTREAM_RECREATE_COMPLETED_MESSAGE: &str = "All pods recreated successfully";

mod literal;

/// The plan `implementation` makes for one sync: the bundled controller's
/// rules, then what the implementation does instead.
pub(crate) fn plan(
    implementation: Implementation,
    obs: &Observed<'_>,
    gates: &ControllerGates,
) -> Result<Plan, PlanError> {
    if implementation == Implementation::KepLiteral {
        return literal::plan(obs, gates);
    }
    let mut plan = super::plan::plan(obs, gates)?;
    implementation.adjust(obs.set, gates, &mut plan);
    Ok(plan)
}

/// Changes a plan made by the KEPs' rules into what an implementation does
/// instead.
pub(crate) trait Adjust {
    /// Adjusts `plan`, made for `set` under `gates`.
    fn adjust(self, set: &StatefulSet, gates: &ControllerGates, plan: &mut Plan);
}

impl Adjust for Implementation {
    fn adjust(self, set: &StatefulSet, gates: &ControllerGates, plan: &mut Plan) {
        if self != Self::UpstreamV1_37 {
            return;
        }
        let recreate = set
            .spec
            .update_strategy
            .as_ref()
            .and_then(|u| u.type_.as_deref())
            == Some("Recreate");
        // With its gate off, the Recreate code path reports an error
        // ("statefulset %s/%s uses Recreate strategy but feature gate %s is
        // disabled", PR #137187 review diff, 2026-07-06) instead of falling
        // back to RollingUpdate: revisions and status are still written,
        // pods and claims are left alone.
        if recreate && !gates.statefulset_recreate_strategy {
            plan.actions.retain(|a| {
                matches!(
                    a,
                    Action::CreateRevision(_)
                        | Action::UpdateRevisionNumber { .. }
                        | Action::DeleteRevision { .. }
                )
            });
        }
        // No RecreateStarted event in the merged code (not found in PR
        // #137187; calibration-facts.md, unconfirmed).
        plan.actions
            .retain(|a| !matches!(a, Action::Event(e) if e.reason == RECREATE_STARTED));
        let observed = set.status.as_ref();
        let spec_replicas = set.spec.replicas.unwrap_or(1);
        adjust_conditions(&mut plan.status, observed, recreate, spec_replicas);
    }
}

/// Upstream sets `Progressing` only for Recreate (the RollingUpdate and
/// OnDelete reasons were dropped in review of PR #137187; the general
/// proposal #133696 was closed), and ends a Recreate with status False.
fn adjust_conditions(
    status: &mut StatefulSetStatus,
    observed: Option<&StatefulSetStatus>,
    recreate: bool,
    spec_replicas: i32,
) {
    // RecreateCompleted is "set on the Progressing condition when all pods
    // have been recreated with the update revision and are ready" (PR
    // #137187): KEP-3541's Complete phase (every pod created) is not enough.
    let ready_everywhere = status.updated_replicas == Some(spec_replicas)
        && status.ready_replicas == Some(spec_replicas)
        && status.replicas == spec_replicas;
    let Some(conditions) = status.conditions.as_mut() else {
        return;
    };
    if !recreate {
        conditions.retain(|c| c.type_.as_deref() != Some(PROGRESSING));
    }
    for c in conditions.iter_mut() {
        if c.type_.as_deref() == Some(PROGRESSING)
            && c.reason.as_deref() == Some(RECREATE_COMPLETE)
            && !ready_everywhere
        {
            c.reason = Some(super::status::RECREATE_IN_PROGRESS.into());
            continue;
        }
        if c.type_.as_deref() == Some(PROGRESSING) && c.reason.as_deref() == Some(RECREATE_COMPLETE)
        {
            let before = observed
                .and_then(|s| s.conditions.as_deref())
                .unwrap_or(&[])
                .iter()
                .find(|o| o.type_.as_deref() == Some(PROGRESSING))
                .cloned();
            let kept_time = before
                .filter(|b: &StatefulSetCondition| b.status.as_deref() == Some("False"))
                .and_then(|b| b.last_transition_time);
            *c = StatefulSetCondition {
                type_: Some(PROGRESSING.into()),
                status: Some("False".into()),
                reason: Some(UPSTREAM_RECREATE_COMPLETED.into()),
                message: Some(UPSTREAM_RECREATE_COMPLETED_MESSAGE.into()),
                // True to False is a transition: it gets its own time.
                last_transition_time: kept_time.or_else(|| Some(Time(jiff::Timestamp::now()))),
            };
        }
    }
    if conditions.is_empty() {
        status.conditions = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cond(status: &str, reason: &str) -> StatefulSetCondition {
        StatefulSetCondition {
            type_: Some(PROGRESSING.into()),
            status: Some(status.into()),
            reason: Some(reason.into()),
            message: Some("Recreate to revision web-1: done".into()),
            last_transition_time: Some(Time(jiff::Timestamp::UNIX_EPOCH)),
        }
    }

    #[test]
    fn upstream_ends_a_recreate_with_progressing_false() {
        let mut status = StatefulSetStatus {
            conditions: Some(vec![cond("True", RECREATE_COMPLETE)]),
            replicas: 2,
            ready_replicas: Some(1),
            updated_replicas: Some(2),
            ..Default::default()
        };
        // Created but not ready: still in progress.
        adjust_conditions(&mut status, None, true, 2);
        assert_eq!(
            status.conditions.as_ref().unwrap()[0].reason.as_deref(),
            Some("RecreateInProgress")
        );
        status.ready_replicas = Some(2);
        status.conditions = Some(vec![cond("True", RECREATE_COMPLETE)]);
        adjust_conditions(&mut status, None, true, 2);
        let c = &status.conditions.unwrap()[0];
        assert_eq!(c.status.as_deref(), Some("False"));
        assert_eq!(c.reason.as_deref(), Some("RecreateCompleted"));
        assert_eq!(
            c.message.as_deref(),
            Some("All pods recreated successfully")
        );
    }

    #[test]
    fn upstream_sets_no_progressing_for_other_strategies() {
        let mut status = StatefulSetStatus {
            conditions: Some(vec![cond("True", "RollingUpdateComplete")]),
            ..Default::default()
        };
        adjust_conditions(&mut status, None, false, 1);
        assert!(status.conditions.is_none());
        assert_eq!("upstream-v1.37".parse(), Ok(Implementation::UpstreamV1_37));
        assert!("upstream-v1.38".parse::<Implementation>().is_err());
    }
}
