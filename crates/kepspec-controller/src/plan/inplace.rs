//! OpenKruise in-place update (`rollingUpdate.podUpdatePolicy`
//! `InPlaceIfPossible` / `InPlaceOnly`), as Kruise's
//! `pkg/util/inplaceupdate` does it (clusters/targets/openkruise-facts.md,
//! section 1):
//!
//! 1. a pod whose revision differs from the update revision only in its
//!    containers' images (and the template's labels and annotations) is not
//!    deleted: its condition `InPlaceUpdateReady` is set False (reason
//!    `StartInPlaceUpdate`, with `Ready` False in the same status write),
//!    then the pod is patched: the revision label, the template's labels and
//!    annotations, the state annotation recording each container's imageID,
//!    and the new images;
//! 2. with `inPlaceUpdateStrategy.gracePeriodSeconds`, the images wait that
//!    long after the condition went False (a grace annotation holds them);
//! 3. once every container reports an imageID other than the recorded one,
//!    `InPlaceUpdateReady` is set True and the kubelet makes the pod Ready.
//!
//! Any other change: `InPlaceIfPossible` deletes the pod (ReCreate);
//! `InPlaceOnly` leaves it (Kruise's sync fails with "can not update
//! in-place", and its webhook refuses such a template change in the first
//! place).

use std::collections::BTreeMap;
use std::time::Duration;

use jiff::Timestamp;
use k8s_openapi::api::core::v1::{Pod, PodCondition, PodTemplateSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use serde_json::{json, Value};

use super::super::{pods, revision};
use super::{Action, Replica, SyncState};

/// The pod condition an in-place update holds False.
pub const CONDITION: &str = "InPlaceUpdateReady";
/// What the update records on the pod (kept after it completes, as Kruise).
pub(super) const STATE_ANNOTATION: &str = "apps.kruise.io/inplace-update-state";
/// The images waiting for the grace period to pass.
pub(crate) const GRACE_ANNOTATION: &str = "apps.kruise.io/inplace-update-grace";

/// How a pod of another revision is to be updated.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Way {
    /// Delete it; it is created anew at the update revision.
    Recreate,
    /// Change its images in place.
    InPlace,
    /// Leave it (`InPlaceOnly` and a change that needs a new pod).
    Hold,
}

/// How `pod` reaches the update revision under the set's policy.
pub(super) fn way(sync: &SyncState<'_>, pod: &Pod) -> Way {
    let Some(kruise) = sync.kruise.as_ref() else {
        return Way::Recreate;
    };
    let policy = kruise.pod_update_policy.as_str();
    if !matches!(policy, "InPlaceIfPossible" | "InPlaceOnly") {
        return Way::Recreate;
    }
    let from = sync
        .obs
        .revisions
        .iter()
        .find(|r| r.metadata.name.as_deref() == Some(pods::pod_revision(pod)))
        .and_then(|r| revision::revision_template(r).ok());
    match from {
        Some(from) if images_only(&from, &sync.set.spec.template) => Way::InPlace,
        _ if policy == "InPlaceOnly" => Way::Hold,
        _ => Way::Recreate,
    }
}

/// Whether two templates' pod specs differ in container images only
/// (Kruise's `defaultCalculateInPlaceUpdateSpec`: every change under
/// `/spec` is a `replace` of `/spec/containers/N/image`).
pub fn images_only(from: &PodTemplateSpec, to: &PodTemplateSpec) -> bool {
    let (Ok(mut a), Ok(b)) = (
        serde_json::to_value(&from.spec),
        serde_json::to_value(&to.spec),
    ) else {
        return false;
    };
    let (Some(ca), Some(cb)) = (
        a.get_mut("containers").and_then(Value::as_array_mut),
        b.get("containers").and_then(Value::as_array),
    ) else {
        return a == b;
    };
    if ca.len() != cb.len() {
        return false;
    }
    for (x, y) in ca.iter_mut().zip(cb) {
        if let (Some(x), Some(image)) = (x.as_object_mut(), y.get("image")) {
            x.insert("image".into(), image.clone());
        }
    }
    a == b
}

pub(crate) fn condition(pod: &Pod) -> Option<&PodCondition> {
    pod.status
        .as_ref()?
        .conditions
        .as_ref()?
        .iter()
        .find(|c| c.type_ == CONDITION)
}

pub(crate) fn gated(pod: &Pod) -> bool {
    pod.spec
        .as_ref()
        .and_then(|s| s.readiness_gates.as_ref())
        .is_some_and(|g| g.iter().any(|g| g.condition_type == CONDITION))
}

fn annotation<'p>(pod: &'p Pod, key: &str) -> Option<&'p str> {
    pod.metadata
        .annotations
        .as_ref()?
        .get(key)
        .map(String::as_str)
}

fn set_condition(sync: &mut SyncState<'_>, pod: &Pod, ok: bool) {
    let at = Some(Time(sync.obs.now));
    let mut conditions = vec![PodCondition {
        type_: CONDITION.into(),
        status: if ok { "True" } else { "False" }.into(),
        reason: (!ok).then(|| "StartInPlaceUpdate".to_string()),
        last_transition_time: at.clone(),
        ..PodCondition::default()
    }];
    if !ok {
        // Kruise writes Ready False with it; the kubelet sets it True again.
        conditions.push(PodCondition {
            type_: "Ready".into(),
            status: "False".into(),
            reason: Some("ReadinessGatesNotReady".into()),
            message: Some(format!(
                "the status of pod readiness gate \"{CONDITION}\" is not \"True\", but False"
            )),
            last_transition_time: at,
            ..PodCondition::default()
        });
    }
    sync.actions.push(Action::SetPodConditions {
        name: pod.metadata.name.clone().unwrap_or_default(),
        conditions,
    });
}

/// The container images of the update template, by container name.
fn images(template: &PodTemplateSpec) -> BTreeMap<String, String> {
    template
        .spec
        .as_ref()
        .map(|s| {
            s.containers
                .iter()
                .map(|c| (c.name.clone(), c.image.clone().unwrap_or_default()))
                .collect()
        })
        .unwrap_or_default()
}

/// The `spec.containers` of `pod` with `images` applied.
fn containers_with(pod: &Pod, images: &BTreeMap<String, String>) -> Value {
    let containers = pod
        .spec
        .as_ref()
        .map(|s| s.containers.clone())
        .unwrap_or_default();
    let mut out = serde_json::to_value(containers).unwrap_or(Value::Array(Vec::new()));
    for c in out.as_array_mut().into_iter().flatten() {
        let name = c
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        if let (Some(image), Some(m)) = (images.get(&name), c.as_object_mut()) {
            m.insert("image".into(), json!(image));
        }
    }
    out
}

/// Starts the in-place update of `replica` (step 1, or step 2's first half).
pub(super) fn start(sync: &mut SyncState<'_>, replica: &Replica<'_>) {
    let pod = replica.pod.as_ref();
    let name = pod.metadata.name.clone().unwrap_or_default();
    let grace = sync.kruise.as_ref().map_or(0, |k| k.grace_seconds);
    set_condition(sync, pod, false);
    let template = &sync.set.spec.template;
    let meta = template.metadata.clone().unwrap_or_default();
    let mut labels = json_map(meta.labels);
    labels.insert(pods::REVISION_LABEL.into(), json!(sync.update_revision));
    let mut annotations = json_map(meta.annotations);
    let last: serde_json::Map<String, Value> = pod
        .status
        .as_ref()
        .and_then(|s| s.container_statuses.as_ref())
        .into_iter()
        .flatten()
        .map(|c| (c.name.clone(), json!({"imageID": c.image_id})))
        .collect();
    let state = json!({
        "revision": sync.update_revision,
        "updateTimestamp": sync.obs.now.to_string(),
        "lastContainerStatuses": last,
        "updateImages": true,
    });
    annotations.insert(STATE_ANNOTATION.into(), json!(state.to_string()));
    let wanted = images(template);
    let mut patch = json!({"metadata": {"labels": labels, "annotations": annotations}});
    if grace > 0 {
        let held = json!({"revision": sync.update_revision, "graceSeconds": grace, "containerImages": wanted});
        patch["metadata"]["annotations"][GRACE_ANNOTATION] = json!(held.to_string());
        hold_for(sync, Duration::from_secs(grace.unsigned_abs()));
    } else {
        patch["spec"] = json!({"containers": containers_with(pod, &wanted)});
    }
    sync.actions.push(Action::PatchPod {
        name,
        patch,
        in_place_revision: Some(sync.update_revision.clone()),
    });
}

/// Labels or annotations as a JSON object, for a merge patch.
fn json_map(map: Option<BTreeMap<String, String>>) -> serde_json::Map<String, Value> {
    map.unwrap_or_default()
        .into_iter()
        .map(|(k, v)| (k, json!(v)))
        .collect()
}

fn hold_for(sync: &mut SyncState<'_>, wait: Duration) {
    sync.requeue = Some(sync.requeue.map_or(wait, |r| r.min(wait)));
}

/// Every sync, for each pod (Kruise's `Refresh`): images held by a grace
/// period are applied once it has passed; a finished update, or a new pod
/// with the readiness gate, gets `InPlaceUpdateReady` True.
pub(super) fn refresh(sync: &mut SyncState<'_>, replicas: &[Replica<'_>]) {
    if sync.kruise.is_none() {
        return;
    }
    for replica in replicas.iter().filter(|r| r.exists()) {
        let pod = replica.pod.as_ref();
        if pods::is_terminating(pod) || !gated(pod) {
            continue;
        }
        if let Some(held) = annotation(pod, GRACE_ANNOTATION) {
            finish_grace(sync, pod, held);
            continue;
        }
        let done = condition(pod).is_some_and(|c| c.status == "True");
        if !done && completed(pod) {
            set_condition(sync, pod, true);
        }
    }
}

fn finish_grace(sync: &mut SyncState<'_>, pod: &Pod, held: &str) {
    let Ok(held) = serde_json::from_str::<Value>(held) else {
        return;
    };
    let grace = held
        .get("graceSeconds")
        .and_then(Value::as_i64)
        .unwrap_or(0);
    let since = annotation(pod, STATE_ANNOTATION)
        .and_then(|s| serde_json::from_str::<Value>(s).ok())
        .and_then(|s| {
            s.get("updateTimestamp")?
                .as_str()?
                .parse::<Timestamp>()
                .ok()
        })
        .unwrap_or(sync.obs.now);
    let due = since
        .checked_add(jiff::SignedDuration::from_secs(grace))
        .unwrap_or(since);
    if sync.obs.now < due {
        let left = due.duration_since(sync.obs.now);
        hold_for(
            sync,
            Duration::try_from(left).unwrap_or(Duration::from_secs(1)),
        );
        return;
    }
    let wanted: BTreeMap<String, String> = held
        .get("containerImages")
        .and_then(|m| serde_json::from_value(m.clone()).ok())
        .unwrap_or_default();
    let mut patch = json!({"metadata": {"annotations": {GRACE_ANNOTATION: null}}});
    if held.get("revision").and_then(Value::as_str) == Some(pods::pod_revision(pod)) {
        patch["spec"] = json!({"containers": containers_with(pod, &wanted)});
    }
    sync.actions.push(Action::PatchPod {
        name: pod.metadata.name.clone().unwrap_or_default(),
        patch,
        in_place_revision: None,
    });
}

/// Whether the pod's containers all run what its spec says (Kruise's
/// `defaultCheckContainersInPlaceUpdateCompleted`): every container has a
/// status with an imageID, and none still reports the imageID recorded when
/// the update began together with another image than its spec's. A
/// container whose image did not change keeps its imageID and is done; a
/// pod never updated in place has nothing recorded.
pub(super) fn completed(pod: &Pod) -> bool {
    let statuses = pod
        .status
        .as_ref()
        .and_then(|s| s.container_statuses.clone())
        .unwrap_or_default();
    let recorded: BTreeMap<String, String> = annotation(pod, STATE_ANNOTATION)
        .and_then(|s| serde_json::from_str::<Value>(s).ok())
        .and_then(|s| s.get("lastContainerStatuses").cloned())
        .and_then(|m| m.as_object().cloned())
        .map(|m| {
            m.into_iter()
                .filter_map(|(k, v)| Some((k, v.get("imageID")?.as_str()?.to_string())))
                .collect()
        })
        .unwrap_or_default();
    let containers = pod
        .spec
        .as_ref()
        .map(|s| s.containers.clone())
        .unwrap_or_default();
    !containers.is_empty()
        && containers.iter().all(|c| {
            statuses.iter().any(|s| {
                let unchanged = recorded.get(&s.name) == Some(&s.image_id);
                let wanted = c.image.as_deref().unwrap_or_default();
                s.name == c.name && !s.image_id.is_empty() && !(unchanged && s.image != wanted)
            })
        })
}
