//! Pods and claims of a StatefulSet: identity, readiness predicates, and the
//! objects built from the templates (upstream's `stateful_set_utils.go`).

use std::collections::BTreeMap;

use jiff::{SignedDuration, Timestamp};
use k8s_openapi::api::apps::v1::StatefulSet;
use k8s_openapi::api::core::v1::{
    PersistentVolumeClaim, PersistentVolumeClaimVolumeSource, Pod, PodTemplateSpec, Volume,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use super::revision::controller_ref;

/// Pod label naming the ControllerRevision the pod was built from.
pub const REVISION_LABEL: &str = "controller-revision-hash";
/// Pod label carrying the pod's own name.
pub const POD_NAME_LABEL: &str = "statefulset.kubernetes.io/pod-name";
/// Pod label carrying the pod's ordinal.
pub const POD_INDEX_LABEL: &str = "apps.kubernetes.io/pod-index";

/// Splits `<parent>-<ordinal>` as upstream's `(.*)-([0-9]+)$`; `None` when the
/// name has no ordinal or it does not fit an `int32`.
pub fn parent_and_ordinal(name: &str) -> Option<(&str, i32)> {
    let (parent, digits) = name.rsplit_once('-')?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse::<i32>().ok().map(|ordinal| (parent, ordinal))
}

/// The ordinal of a pod, from its name.
pub fn ordinal(pod: &Pod) -> Option<i32> {
    parent_and_ordinal(pod.metadata.name.as_deref()?).map(|(_, ordinal)| ordinal)
}

/// Whether the pod's name says it belongs to the set (upstream's `isMemberOf`).
pub fn is_member(set_name: &str, pod: &Pod) -> bool {
    pod.metadata
        .name
        .as_deref()
        .and_then(parent_and_ordinal)
        .is_some_and(|(parent, _)| parent == set_name)
}

/// Pod name `<set>-<ordinal>`.
pub fn pod_name(set_name: &str, ordinal: i32) -> String {
    format!("{set_name}-{ordinal}")
}

/// Claim name `<claim template>-<set>-<ordinal>`.
pub fn claim_name(template_name: &str, set_name: &str, ordinal: i32) -> String {
    format!("{template_name}-{set_name}-{ordinal}")
}

/// The revision a pod was built from (its `controller-revision-hash` label).
pub fn pod_revision(pod: &Pod) -> &str {
    pod.metadata
        .labels
        .as_ref()
        .and_then(|labels| labels.get(REVISION_LABEL))
        .map_or("", String::as_str)
}

fn phase(pod: &Pod) -> &str {
    pod.status
        .as_ref()
        .and_then(|s| s.phase.as_deref())
        .unwrap_or("")
}

/// Created and maintained by the apiserver (it has a phase).
pub fn is_created(pod: &Pod) -> bool {
    !phase(pod).is_empty()
}

/// Phase Pending.
pub fn is_pending(pod: &Pod) -> bool {
    phase(pod) == "Pending"
}

/// Phase Failed.
pub fn is_failed(pod: &Pod) -> bool {
    phase(pod) == "Failed"
}

/// Phase Succeeded.
pub fn is_succeeded(pod: &Pod) -> bool {
    phase(pod) == "Succeeded"
}

/// Has a deletionTimestamp.
pub fn is_terminating(pod: &Pod) -> bool {
    pod.metadata.deletion_timestamp.is_some()
}

fn ready_condition(pod: &Pod) -> Option<&k8s_openapi::api::core::v1::PodCondition> {
    pod.status
        .as_ref()?
        .conditions
        .as_ref()?
        .iter()
        .find(|c| c.type_ == "Ready")
}

/// The Ready condition is True.
pub fn is_ready(pod: &Pod) -> bool {
    ready_condition(pod).is_some_and(|c| c.status == "True")
}

/// Phase Running and Ready.
pub fn is_running_and_ready(pod: &Pod) -> bool {
    phase(pod) == "Running" && is_ready(pod)
}

/// How long a pod that is not Ready has not been: since its Ready condition
/// turned False, or since its creation when it has none; None for a Ready pod.
pub fn not_ready_for(pod: &Pod, now: Timestamp) -> Option<std::time::Duration> {
    let since = match ready_condition(pod) {
        Some(c) if c.status == "True" => return None,
        Some(c) => c.last_transition_time.as_ref().map(|t| t.0),
        None => None,
    }
    .or_else(|| pod.metadata.creation_timestamp.as_ref().map(|t| t.0))?;
    Some(now.duration_since(since).unsigned_abs())
}

/// Running and ready, not terminating (upstream's `isHealthy`).
pub fn is_healthy(pod: &Pod) -> bool {
    is_running_and_ready(pod) && !is_terminating(pod)
}

/// Upstream's `IsPodAvailable`: Ready, and Ready since strictly more than
/// `min_ready_seconds` before `now` (always when `min_ready_seconds` is 0).
pub fn is_available(pod: &Pod, min_ready_seconds: i32, now: Timestamp) -> bool {
    let Some(condition) = ready_condition(pod).filter(|c| c.status == "True") else {
        return false;
    };
    if min_ready_seconds <= 0 {
        return true;
    }
    condition
        .last_transition_time
        .as_ref()
        .and_then(|t| {
            t.0.checked_add(SignedDuration::from_secs(i64::from(min_ready_seconds)))
                .ok()
        })
        .is_some_and(|available_at| available_at < now)
}

/// Not healthy or not yet available: counts against `maxUnavailable`.
pub fn is_unavailable(pod: &Pod, min_ready_seconds: i32, now: Timestamp) -> bool {
    !is_healthy(pod) || !is_available(pod, min_ready_seconds, now)
}

/// How long until a Ready pod becomes available, if it is Ready but not yet
/// available.
pub fn until_available(
    pod: &Pod,
    min_ready_seconds: i32,
    now: Timestamp,
) -> Option<SignedDuration> {
    if min_ready_seconds <= 0 || !is_ready(pod) || is_available(pod, min_ready_seconds, now) {
        return None;
    }
    let since = ready_condition(pod)?.last_transition_time.as_ref()?.0;
    let at = since
        .checked_add(SignedDuration::from_secs(i64::from(min_ready_seconds)))
        .ok()?;
    Some(at.duration_since(now))
}

/// Start of the ordinal range (`.spec.ordinals.start`, default 0).
pub fn start_ordinal(set: &StatefulSet) -> i32 {
    set.spec
        .ordinals
        .as_ref()
        .and_then(|o| o.start)
        .unwrap_or(0)
}

/// `.spec.replicas` (default 1), never negative.
pub fn spec_replicas(set: &StatefulSet) -> i32 {
    set.spec.replicas.unwrap_or(1).max(0)
}

fn set_name(set: &StatefulSet) -> &str {
    set.metadata.name.as_deref().unwrap_or("")
}

/// The claims a pod of `ordinal` uses, one per claim template, in template
/// order: name, namespace, labels = template labels + selector matchLabels.
pub fn claims_for(set: &StatefulSet, ordinal: i32) -> Vec<PersistentVolumeClaim> {
    let templates = set.spec.volume_claim_templates.as_deref().unwrap_or(&[]);
    let match_labels = set.spec.selector.match_labels.clone().unwrap_or_default();
    templates
        .iter()
        .map(|template| {
            let mut claim = template.clone();
            let template_name = template.metadata.name.as_deref().unwrap_or("");
            claim.metadata.name = Some(claim_name(template_name, set_name(set), ordinal));
            claim.metadata.namespace = set.metadata.namespace.clone();
            let mut labels = claim.metadata.labels.take().unwrap_or_default();
            labels.extend(match_labels.clone());
            claim.metadata.labels = Some(labels);
            claim.status = None;
            claim
        })
        .collect()
}

/// Sets name, namespace and the identity labels of a pod (upstream's
/// `updateIdentity`).
pub fn update_identity(set: &StatefulSet, pod: &mut Pod, ordinal: i32) {
    let name = pod_name(set_name(set), ordinal);
    pod.metadata.name = Some(name.clone());
    pod.metadata.namespace = set.metadata.namespace.clone();
    let labels = pod.metadata.labels.get_or_insert_with(BTreeMap::new);
    labels.insert(POD_NAME_LABEL.to_string(), name);
    labels.insert(POD_INDEX_LABEL.to_string(), ordinal.to_string());
}

/// Replaces the pod's volumes named like claim templates with the claims of
/// its ordinal, keeping every other volume (upstream's `updateStorage`).
pub fn update_storage(set: &StatefulSet, pod: &mut Pod, ordinal: i32) {
    let claims = claims_for(set, ordinal);
    let templates = set.spec.volume_claim_templates.as_deref().unwrap_or(&[]);
    let Some(spec) = pod.spec.as_mut() else {
        return;
    };
    let mut volumes: Vec<Volume> = templates
        .iter()
        .zip(&claims)
        .map(|(template, claim)| Volume {
            name: template.metadata.name.clone().unwrap_or_default(),
            persistent_volume_claim: Some(PersistentVolumeClaimVolumeSource {
                claim_name: claim.metadata.name.clone().unwrap_or_default(),
                read_only: Some(false),
            }),
            ..Volume::default()
        })
        .collect();
    let claimed: Vec<String> = volumes.iter().map(|v| v.name.clone()).collect();
    for volume in spec.volumes.take().unwrap_or_default() {
        if !claimed.contains(&volume.name) {
            volumes.push(volume);
        }
    }
    spec.volumes = (!volumes.is_empty()).then_some(volumes);
}

/// The pod name, namespace and pod-name label match the set (upstream's
/// `identityMatches`).
pub fn identity_matches(set: &StatefulSet, pod: &Pod) -> bool {
    let Some(name) = pod.metadata.name.as_deref() else {
        return false;
    };
    let Some((parent, ordinal)) = parent_and_ordinal(name) else {
        return false;
    };
    parent == set_name(set)
        && name == pod_name(set_name(set), ordinal)
        && pod.metadata.namespace == set.metadata.namespace
        && pod
            .metadata
            .labels
            .as_ref()
            .and_then(|l| l.get(POD_NAME_LABEL))
            .map(String::as_str)
            == Some(name)
}

/// Every claim template is mounted from the claim of the pod's ordinal
/// (upstream's `storageMatches`).
pub fn storage_matches(set: &StatefulSet, pod: &Pod) -> bool {
    let Some(ordinal) = ordinal(pod) else {
        return false;
    };
    let volumes = pod
        .spec
        .as_ref()
        .and_then(|s| s.volumes.as_deref())
        .unwrap_or(&[]);
    let templates = set.spec.volume_claim_templates.as_deref().unwrap_or(&[]);
    templates.iter().all(|template| {
        let template_name = template.metadata.name.as_deref().unwrap_or("");
        volumes.iter().any(|v| {
            v.name == template_name
                && v.persistent_volume_claim
                    .as_ref()
                    .map(|c| c.claim_name.as_str())
                    == Some(claim_name(template_name, set_name(set), ordinal).as_str())
        })
    })
}

/// A new pod of `ordinal` built from `template` at `revision` (upstream's
/// `newVersionedStatefulSetPod`): template labels, annotations, finalizers
/// and spec; controller reference; identity labels; hostname and subdomain;
/// claim volumes; the revision label.
pub fn new_pod(set: &StatefulSet, template: &PodTemplateSpec, ordinal: i32, revision: &str) -> Pod {
    let meta = template.metadata.clone().unwrap_or_default();
    let mut pod = Pod {
        metadata: ObjectMeta {
            generate_name: Some(format!("{}-", set_name(set))),
            labels: meta.labels,
            annotations: meta.annotations,
            finalizers: meta.finalizers,
            owner_references: Some(vec![controller_ref(set)]),
            ..ObjectMeta::default()
        },
        spec: Some(template.spec.clone().unwrap_or_default()),
        status: None,
    };
    update_identity(set, &mut pod, ordinal);
    if let Some(spec) = pod.spec.as_mut() {
        spec.hostname = pod.metadata.name.clone();
        spec.subdomain = set.spec.service_name.clone().filter(|s| !s.is_empty());
    }
    update_storage(set, &mut pod, ordinal);
    pod.metadata
        .labels
        .get_or_insert_with(BTreeMap::new)
        .insert(REVISION_LABEL.to_string(), revision.to_string());
    pod
}

#[cfg(test)]
mod tests;
