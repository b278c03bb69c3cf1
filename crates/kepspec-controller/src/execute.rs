//! Performs a [`Plan`]'s actions against the API server, in order, and
//! records the events upstream records for each of them. Decides nothing.

use k8s_openapi::api::apps::v1::ControllerRevision;
use k8s_openapi::api::core::v1::{PersistentVolumeClaim, Pod};
use kube::api::{Api, DeleteParams, Patch, PatchParams, PostParams, Preconditions};
use kube::core::DynamicObject;
use kube::discovery::ApiResource;
use kube::Client;
use serde_json::json;

use super::events::{self, EventType, Regarding};
use super::plan::{Action, Plan};
use super::revision;

/// Where the actions of one set's plan go.
pub(crate) struct Target<'a> {
    /// The client.
    pub client: &'a Client,
    /// The set's resource (apps/v1 statefulsets, or a vendor's).
    pub resource: &'a ApiResource,
    /// The set, for events and status.
    pub regarding: Regarding,
    /// `status.labelSelector` to write (vendor kinds whose scale
    /// subresource reads it, as OpenKruise's CRD does).
    pub label_selector: Option<String>,
}

/// The resourceVersions a sync's writes produced, per kind: the caches must
/// have seen at least these before the set is synced again.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Freshness {
    /// Newest pod write.
    pub pods: u64,
    /// Newest write of the set (its status).
    pub sets: u64,
    /// Newest ControllerRevision write.
    pub revisions: u64,
}

/// What performing a plan did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Outcome {
    /// Number of writes issued (creates, deletes, updates, status), for the
    /// API-efficiency measurements.
    pub writes: usize,
    /// What the caches must catch up with.
    pub freshness: Freshness,
    /// Each forced replacement attempted (the KEP-3541 draft's counter):
    /// the pod, and whether it was deleted.
    pub forced: Vec<(String, bool)>,
}

impl Freshness {
    /// The newer of two, kind by kind.
    pub(crate) fn max(self, other: Freshness) -> Freshness {
        Freshness {
            pods: self.pods.max(other.pods),
            sets: self.sets.max(other.sets),
            revisions: self.revisions.max(other.revisions),
        }
    }
}

impl Outcome {
    /// Adds what another part of the same plan did.
    fn merge(&mut self, other: Outcome) {
        self.writes += other.writes;
        self.freshness = self.freshness.max(other.freshness);
        self.forced.extend(other.forced);
    }
}

/// An object's resourceVersion as a number (0 when it has none).
pub(crate) fn rv(meta: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta) -> u64 {
    meta.resource_version
        .as_deref()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// A failed action: which one and why.
#[derive(Debug, thiserror::Error)]
#[error("{action}: {source}")]
pub(crate) struct ActionError {
    /// The action in words (`create Pod web-0`).
    pub action: String,
    /// The API error.
    #[source]
    pub source: kube::Error,
}

/// A failure a controller expects in normal operation and retries: the
/// object is gone (404) or changed since it was read (409).
fn is_expected(err: &kube::Error) -> bool {
    matches!(err, kube::Error::Api(s) if s.code == 404 || s.code == 409)
}

/// An API error in one line (`404 NotFound: statefulsets.apps "web" not
/// found`), not the client's debug rendering of the whole Status.
pub(crate) fn brief(err: &kube::Error) -> String {
    match err {
        kube::Error::Api(s) => format!("{} {}: {}", s.code, s.reason, s.message),
        other => other.to_string(),
    }
}

fn is_not_found(err: &kube::Error) -> bool {
    matches!(err, kube::Error::Api(s) if s.code == 404)
}

fn is_already_exists(err: &kube::Error) -> bool {
    matches!(err, kube::Error::Api(s) if s.code == 409 && s.reason == "AlreadyExists")
}

/// Performs every action of the plan in order, stopping at the first failure
/// (the loop requeues the set with backoff), then writes the status if it
/// differs from the observed one. The outcome counts every write that took
/// effect, also when an action failed: the caches must catch up with those
/// writes before the next sync decides, or it would act on a set older than
/// the status this sync wrote (and emit RecreateStarted a second time).
pub(crate) async fn perform(
    target: &Target<'_>,
    plan: &Plan,
    observed_status: Option<&k8s_openapi::api::apps::v1::StatefulSetStatus>,
) -> (Outcome, Result<(), ActionError>) {
    let mut outcome = Outcome::default();
    let result = perform_into(target, plan, observed_status, &mut outcome).await;
    (outcome, result)
}

async fn perform_into(
    target: &Target<'_>,
    plan: &Plan,
    observed_status: Option<&k8s_openapi::api::apps::v1::StatefulSetStatus>,
    outcome: &mut Outcome,
) -> Result<(), ActionError> {
    // RecreateStarted is emitted once per rollout, "tracked via condition"
    // (KEP-3541 pseudo-code): only after the status recording the rollout
    // was written, so a failed or lost status write never makes it twice.
    let is_deferred =
        |a: &Action| matches!(a, Action::Event(e) if e.reason == super::plan::RECREATE_STARTED);
    #[cfg_attr(not(kepspec_defects), allow(unused_mut))]
    let mut deferred: Vec<&Action> = plan.actions.iter().filter(|a| is_deferred(a)).collect();
    #[cfg(kepspec_defects)]
    let defect = super::defects::Defect::active();
    #[cfg(kepspec_defects)]
    if defect == Some(super::defects::Defect::EventBeforeStatus) {
        for action in std::mem::take(&mut deferred) {
            perform_one(target, action, outcome).await?;
        }
    }
    let mut failed = None;
    let mut i = 0;
    while i < plan.actions.len() {
        let result = match plan.batches.iter().find(|b| b.start() == i && b.end() > i) {
            Some(batch) => {
                i = batch.end();
                perform_batch(target, &plan.actions, batch, outcome).await
            }
            None => {
                let action = &plan.actions[i];
                i += 1;
                if is_deferred(action) {
                    continue;
                }
                perform_one(target, action, outcome).await
            }
        };
        if let Err(e) = result {
            failed = Some(e);
            break;
        }
    }
    #[cfg(kepspec_defects)]
    if defect == Some(super::defects::Defect::NoStatusOnFailure) {
        if let Some(e) = failed {
            return Err(e);
        }
    }
    // The status is written even when an action failed, as upstream's
    // performUpdate does since kubernetes#108837 (PR #109694): what it
    // reports was computed from what was observed, never from what the
    // failed action would have done beyond the observed pods.
    let mut recorded = true;
    if super::status::needs_update(observed_status, &plan.status) {
        let mut desired = serde_json::to_value(&plan.status).unwrap_or(serde_json::Value::Null);
        if let (Some(selector), Some(map)) = (&target.label_selector, desired.as_object_mut()) {
            map.insert("labelSelector".into(), selector.clone().into());
        }
        match write_status(target, &desired).await {
            Ok(written) => {
                outcome.freshness.sets = outcome.freshness.sets.max(written);
                outcome.writes += 1;
            }
            Err(e) => {
                recorded = false;
                if failed.is_none() {
                    failed = Some(e);
                } else if is_expected(&e.source) {
                    // The set is gone or changed under the sync: the next
                    // sync writes the status from a fresh view.
                    tracing::debug!(error = %brief(&e.source), "status not updated after a failed action");
                } else {
                    tracing::warn!(error = %brief(&e.source), "could not update status after a failed action");
                }
            }
        }
    }
    if recorded {
        for action in deferred {
            perform_one(target, action, outcome).await?;
        }
    }
    match failed {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Performs the lanes of a slow-start batch at once, each lane in order,
/// and returns the first lane's error once every lane is done.
async fn perform_batch(
    target: &Target<'_>,
    actions: &[Action],
    batch: &super::plan::Batch,
    outcome: &mut Outcome,
) -> Result<(), ActionError> {
    let lanes = batch.lanes.iter().map(|lane| async move {
        let mut mine = Outcome::default();
        for action in actions.get(lane.clone()).unwrap_or_default() {
            if let Err(e) = perform_one(target, action, &mut mine).await {
                return (mine, Err(e));
            }
        }
        (mine, Ok(()))
    });
    let mut first_error = None;
    for (mine, result) in futures::future::join_all(lanes).await {
        outcome.merge(mine);
        if let Err(e) = result {
            first_error.get_or_insert(e);
        }
    }
    first_error.map_or(Ok(()), Err)
}

/// Writes a status (a merge patch of the whole status).
pub(crate) async fn write_status(
    target: &Target<'_>,
    status: &serde_json::Value,
) -> Result<u64, ActionError> {
    let api: Api<DynamicObject> = Api::namespaced_with(
        target.client.clone(),
        &target.regarding.namespace,
        target.resource,
    );
    // A merge patch of the whole status: lists (conditions) are replaced whole,
    // fields the controller does not own are kept.
    let patch = json!({ "status": status });
    api.patch_status(
        &target.regarding.name,
        &PatchParams::default(),
        &Patch::Merge(&patch),
    )
    .await
    .map(|set| rv(&set.metadata))
    .map_err(|source| ActionError {
        action: format!("update status of {}", target.regarding.name),
        source,
    })
}

async fn perform_one(
    target: &Target<'_>,
    action: &Action,
    outcome: &mut Outcome,
) -> Result<(), ActionError> {
    let ns = &target.regarding.namespace;
    let client = target.client.clone();
    let set_kind = target.regarding.kind.as_str();
    let set = target.regarding.name.as_str();
    match action {
        Action::CreateRevision(rev) => {
            let api: Api<ControllerRevision> = Api::namespaced(client, ns);
            outcome.writes += 1;
            match api.create(&PostParams::default(), rev).await {
                Ok(created) => {
                    outcome.freshness.revisions =
                        outcome.freshness.revisions.max(rv(&created.metadata));
                    Ok(())
                }
                // Created by an earlier sync whose result we have not seen
                // yet, if it holds the same data. A name taken by other data
                // (a hash collision) fails this sync: the next one, with the
                // taken name in its cache, steps past it and raises
                // collisionCount (upstream's CreateControllerRevision does
                // both in one loop).
                Err(e) if is_already_exists(&e) => match api.get(&name_of(rev)).await {
                    Ok(existing)
                        if revision::data_key(&existing.data.0)
                            == revision::data_key(&rev.data.0) =>
                    {
                        Ok(())
                    }
                    Ok(_) => Err(ActionError {
                        action: format!(
                            "create ControllerRevision {} (the name is taken by other data)",
                            name_of(rev)
                        ),
                        source: e,
                    }),
                    Err(source) => Err(ActionError {
                        action: format!("read ControllerRevision {}", name_of(rev)),
                        source,
                    }),
                },
                Err(source) => Err(ActionError {
                    action: format!("create ControllerRevision {}", name_of(rev)),
                    source,
                }),
            }
        }
        Action::UpdateRevisionNumber { name, revision } => {
            let api: Api<ControllerRevision> = Api::namespaced(client, ns);
            outcome.writes += 1;
            api.patch(
                name,
                &PatchParams::default(),
                &Patch::Merge(&json!({ "revision": revision })),
            )
            .await
            .map(|updated| {
                outcome.freshness.revisions = outcome.freshness.revisions.max(rv(&updated.metadata))
            })
            .map_err(|source| ActionError {
                action: format!("update ControllerRevision {name}"),
                source,
            })
        }
        Action::DeleteRevision { name } => {
            let api: Api<ControllerRevision> = Api::namespaced(client, ns);
            outcome.writes += 1;
            match api.delete(name, &DeleteParams::default()).await {
                Ok(_) => Ok(()),
                Err(e) if is_not_found(&e) => Ok(()),
                Err(source) => Err(ActionError {
                    action: format!("delete ControllerRevision {name}"),
                    source,
                }),
            }
        }
        Action::CreateClaim { claim, pod } => {
            let api: Api<PersistentVolumeClaim> = Api::namespaced(client, ns);
            let claim_name = claim.metadata.name.clone().unwrap_or_default();
            outcome.writes += 1;
            match api.create(&PostParams::default(), claim).await {
                Ok(_) => {
                    let msg = events::claim_message(&claim_name, pod, set_kind, set, None);
                    events::record(
                        target.client,
                        &target.regarding,
                        EventType::Normal,
                        "SuccessfulCreate",
                        &msg,
                    )
                    .await;
                    Ok(())
                }
                Err(e) if is_already_exists(&e) => Ok(()),
                Err(source) => {
                    let msg = events::claim_message(
                        &claim_name,
                        pod,
                        set_kind,
                        set,
                        Some(&events::error_text(&source)),
                    );
                    events::record(
                        target.client,
                        &target.regarding,
                        EventType::Warning,
                        "FailedCreate",
                        &msg,
                    )
                    .await;
                    Err(ActionError {
                        action: format!("create Claim {claim_name}"),
                        source,
                    })
                }
            }
        }
        Action::UpdateClaim(claim) => {
            let api: Api<PersistentVolumeClaim> = Api::namespaced(client, ns);
            let name = claim.metadata.name.clone().unwrap_or_default();
            outcome.writes += 1;
            let result = api.replace(&name, &PostParams::default(), claim).await;
            pod_or_claim_event(target, "update", "Claim", &name, result.as_ref().err()).await;
            result.map(|_| ()).map_err(|source| ActionError {
                action: format!("update Claim {name}"),
                source,
            })
        }
        Action::CreatePod(pod) => {
            let api: Api<Pod> = Api::namespaced(client, ns);
            let name = pod.metadata.name.clone().unwrap_or_default();
            outcome.writes += 1;
            match api.create(&PostParams::default(), pod).await {
                // Already there: our view was behind; the next sync sees it.
                Err(e) if is_already_exists(&e) => Ok(()),
                result => {
                    pod_or_claim_event(target, "create", "Pod", &name, result.as_ref().err()).await;
                    result
                        .map(|created| {
                            outcome.freshness.pods =
                                outcome.freshness.pods.max(rv(&created.metadata))
                        })
                        .map_err(|source| ActionError {
                            action: format!("create Pod {name}"),
                            source,
                        })
                }
            }
        }
        Action::UpdatePod(pod) => {
            let api: Api<Pod> = Api::namespaced(client, ns);
            let name = pod.metadata.name.clone().unwrap_or_default();
            outcome.writes += 1;
            let result = api.replace(&name, &PostParams::default(), pod).await;
            pod_or_claim_event(target, "update", "Pod", &name, result.as_ref().err()).await;
            result
                .map(|updated| {
                    outcome.freshness.pods = outcome.freshness.pods.max(rv(&updated.metadata))
                })
                .map_err(|source| ActionError {
                    action: format!("update Pod {name}"),
                    source,
                })
        }
        Action::DeletePod { name, uid, reason } => {
            let api: Api<Pod> = Api::namespaced(client, ns);
            // The uid precondition makes a retried delete after a restart safe:
            // it can never hit a newer pod that took the same name.
            let params = DeleteParams {
                preconditions: Some(Preconditions {
                    uid: Some(uid.clone()),
                    resource_version: None,
                }),
                ..DeleteParams::default()
            };
            outcome.writes += 1;
            let deleted = api.delete(name, &params).await;
            if *reason == super::plan::DeleteReason::ForcedReplacement {
                let ok = deleted.as_ref().is_ok() || deleted.as_ref().is_err_and(is_not_found);
                outcome.forced.push((name.clone(), ok));
            }
            match deleted {
                Err(e) if is_not_found(&e) => Ok(()),
                result => {
                    pod_or_claim_event(target, "delete", "Pod", name, result.as_ref().err()).await;
                    result
                        .map(|deleted| {
                            // A graceful delete returns the pod, now terminating; an
                            // immediate one returns a Status and the watch brings the
                            // Deleted event at a version we cannot know here.
                            if let either::Either::Left(pod) = deleted {
                                outcome.freshness.pods =
                                    outcome.freshness.pods.max(rv(&pod.metadata));
                            }
                        })
                        .map_err(|source| ActionError {
                            action: format!("delete Pod {name}"),
                            source,
                        })
                }
            }
        }
        Action::PatchPod {
            name,
            patch,
            in_place_revision,
        } => {
            let api: Api<Pod> = Api::namespaced(client, ns);
            outcome.writes += 1;
            let result = api
                .patch(name, &PatchParams::default(), &Patch::Merge(patch))
                .await;
            // OpenKruise's events for an in-place update (stateful_set_control.go).
            if let Some(revision) = in_place_revision {
                let (type_, reason, message) = match &result {
                    Ok(_) => (
                        EventType::Normal,
                        "SuccessfulUpdatePodInPlace",
                        format!("successfully update pod {name} in-place(revision {revision})"),
                    ),
                    Err(e) => (
                        EventType::Warning,
                        "FailedUpdatePodInPlace",
                        format!("failed to update pod {name} in-place(revision {revision}): {e}"),
                    ),
                };
                events::record(target.client, &target.regarding, type_, reason, &message).await;
            }
            result
                .map(|updated| {
                    outcome.freshness.pods = outcome.freshness.pods.max(rv(&updated.metadata))
                })
                .map_err(|source| ActionError {
                    action: format!("patch Pod {name}"),
                    source,
                })
        }
        Action::SetPodConditions { name, conditions } => {
            let api: Api<Pod> = Api::namespaced(client, ns);
            outcome.writes += 1;
            let patch = json!({"status": {"conditions": conditions}});
            api.patch_status(name, &PatchParams::default(), &Patch::Strategic(&patch))
                .await
                .map(|updated| {
                    outcome.freshness.pods = outcome.freshness.pods.max(rv(&updated.metadata))
                })
                .map_err(|source| ActionError {
                    action: format!("update status of Pod {name}"),
                    source,
                })
        }
        Action::Event(spec) => {
            let type_ = if spec.type_ == super::plan::EventType::Warning {
                EventType::Warning
            } else {
                EventType::Normal
            };
            events::record(
                target.client,
                &target.regarding,
                type_,
                &spec.reason,
                &spec.message,
            )
            .await;
            Ok(())
        }
    }
}

async fn pod_or_claim_event(
    target: &Target<'_>,
    verb: &str,
    kind: &str,
    name: &str,
    err: Option<&kube::Error>,
) {
    let set_kind = target.regarding.kind.as_str();
    let set = target.regarding.name.as_str();
    match err {
        None => {
            let msg = events::success_message(verb, kind, name, set_kind, set);
            events::record(
                target.client,
                &target.regarding,
                EventType::Normal,
                &events::reason(verb, true),
                &msg,
            )
            .await;
        }
        Some(e) => {
            let msg =
                events::failure_message(verb, kind, name, set_kind, set, &events::error_text(e));
            events::record(
                target.client,
                &target.regarding,
                EventType::Warning,
                &events::reason(verb, false),
                &msg,
            )
            .await;
        }
    }
}

fn name_of(rev: &ControllerRevision) -> String {
    rev.metadata.name.clone().unwrap_or_default()
}

/// The status of a set the controller cannot act on: the observed status
/// with `Progressing` False, reason `InvalidSpec`, and why.
pub(crate) fn invalid_spec_status(
    observed: Option<&k8s_openapi::api::apps::v1::StatefulSetStatus>,
    generation: Option<i64>,
    why: &str,
) -> serde_json::Value {
    let mut status =
        serde_json::to_value(observed.cloned().unwrap_or_default()).unwrap_or(json!({}));
    let unchanged = observed
        .and_then(|s| s.conditions.as_ref())
        .and_then(|cs| {
            cs.iter()
                .find(|c| c.type_.as_deref() == Some("Progressing"))
        })
        .filter(|c| {
            c.status.as_deref() == Some("False")
                && c.reason.as_deref() == Some("InvalidSpec")
                && c.message.as_deref() == Some(why)
        });
    let since = unchanged
        .map(|c| c.last_transition_time.clone())
        .unwrap_or_else(|| {
            Some(k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(
                jiff::Timestamp::now(),
            ))
        });
    status["observedGeneration"] = json!(generation);
    status["conditions"] = json!([{
        "type": "Progressing",
        "status": "False",
        "reason": "InvalidSpec",
        "message": why,
        "lastTransitionTime": since,
    }]);
    status
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_invalid_spec_is_reported_in_the_progressing_condition() {
        let s = invalid_spec_status(None, Some(3), "selector does not match template labels");
        assert_eq!(s["observedGeneration"], 3);
        assert_eq!(s["conditions"][0]["status"], "False");
        assert_eq!(s["conditions"][0]["reason"], "InvalidSpec");
        assert_eq!(
            s["conditions"][0]["message"],
            "selector does not match template labels"
        );
    }
}
