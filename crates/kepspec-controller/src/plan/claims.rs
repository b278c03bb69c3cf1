//! PersistentVolumeClaims of the pods: which to create, and the
//! ownerReferences the retention policy asks for (upstream's
//! `isClaimOwnerUpToDate` / `updateClaimOwnerRefForSetAndPod`).
//!
//! Retention works only through ownerReferences: `whenDeleted: Delete` makes
//! the set a controller owner of every claim; `whenScaled: Delete` makes the
//! pod the controller owner of the claims of a pod whose ordinal is out of
//! range. Claims carrying a reference to an older set or pod of the same name
//! (stale uid) are left alone.

use k8s_openapi::api::apps::v1::StatefulSet;
use k8s_openapi::api::core::v1::{PersistentVolumeClaim, Pod};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;

use super::super::{pods, revision};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Policy {
    delete_when_deleted: bool,
    delete_when_scaled: bool,
}

fn policy(set: &StatefulSet) -> Policy {
    let p = set
        .spec
        .persistent_volume_claim_retention_policy
        .clone()
        .unwrap_or_default();
    Policy {
        delete_when_deleted: p.when_deleted.as_deref() == Some("Delete"),
        delete_when_scaled: p.when_scaled.as_deref() == Some("Delete"),
    }
}

struct Owner<'a> {
    api_version: &'a str,
    kind: &'a str,
    name: &'a str,
    uid: &'a str,
}

fn set_owner(set: &StatefulSet) -> Owner<'_> {
    Owner {
        api_version: "apps/v1",
        kind: "StatefulSet",
        name: set.metadata.name.as_deref().unwrap_or(""),
        uid: set.metadata.uid.as_deref().unwrap_or(""),
    }
}

fn pod_owner(pod: &Pod) -> Owner<'_> {
    Owner {
        api_version: "v1",
        kind: "Pod",
        name: pod.metadata.name.as_deref().unwrap_or(""),
        uid: pod.metadata.uid.as_deref().unwrap_or(""),
    }
}

fn matches_ref(r: &OwnerReference, owner: &Owner<'_>) -> bool {
    r.api_version == owner.api_version && r.kind == owner.kind && r.name == owner.name
}

fn refs(claim: &PersistentVolumeClaim) -> &[OwnerReference] {
    claim.metadata.owner_references.as_deref().unwrap_or(&[])
}

fn has_ref(claim: &PersistentVolumeClaim, owner: &Owner<'_>) -> bool {
    !owner.uid.is_empty() && refs(claim).iter().any(|r| r.uid == owner.uid)
}

fn has_stale_ref(claim: &PersistentVolumeClaim, owner: &Owner<'_>) -> bool {
    refs(claim)
        .iter()
        .find(|r| matches_ref(r, owner))
        .is_some_and(|r| r.uid != owner.uid)
}

fn has_unexpected_controller(claim: &PersistentVolumeClaim, set: &StatefulSet, pod: &Pod) -> bool {
    let p = policy(set);
    if !p.delete_when_deleted && !p.delete_when_scaled {
        return false;
    }
    let (set, pod) = (set_owner(set), pod_owner(pod));
    refs(claim).iter().any(|r| {
        if matches_ref(r, &set) {
            r.uid != set.uid
        } else if matches_ref(r, &pod) {
            r.uid != pod.uid
        } else {
            r.controller == Some(true)
        }
    })
}

fn has_non_controller_owner(claim: &PersistentVolumeClaim, set: &StatefulSet, pod: &Pod) -> bool {
    let (set, pod) = (set_owner(set), pod_owner(pod));
    refs(claim).iter().any(|r| {
        (r.uid == set.uid || (!pod.uid.is_empty() && r.uid == pod.uid))
            && r.controller != Some(true)
    })
}

fn scaled_down(set: &StatefulSet, pod: &Pod) -> bool {
    let start = pods::start_ordinal(set);
    let end = start.saturating_add(pods::spec_replicas(set));
    !pods::ordinal(pod).is_some_and(|o| (start..end).contains(&o))
}

/// Whether the claim's ownerReferences agree with the retention policy.
pub(super) fn owner_up_to_date(
    claim: &PersistentVolumeClaim,
    set: &StatefulSet,
    pod: &Pod,
) -> bool {
    let (so, po) = (set_owner(set), pod_owner(pod));
    if has_stale_ref(claim, &so) || has_stale_ref(claim, &po) {
        return true;
    }
    if has_unexpected_controller(claim, set, pod) {
        return !(has_ref(claim, &so) || has_ref(claim, &po));
    }
    if has_non_controller_owner(claim, set, pod) {
        return false;
    }
    let p = policy(set);
    let down = scaled_down(set, pod);
    let want_set = p.delete_when_deleted && !(p.delete_when_scaled && down);
    let want_pod = p.delete_when_scaled && down;
    has_ref(claim, &so) == want_set && has_ref(claim, &po) == want_pod
}

/// The claim with ownerReferences set as the retention policy asks.
pub(super) fn with_owner_refs(
    mut claim: PersistentVolumeClaim,
    set: &StatefulSet,
    pod: &Pod,
) -> PersistentVolumeClaim {
    let unexpected = has_unexpected_controller(&claim, set, pod);
    let (so, po) = (set_owner(set), pod_owner(pod));
    let mut out: Vec<OwnerReference> = refs(&claim)
        .iter()
        .filter(|r| !matches_ref(r, &so) && !matches_ref(r, &po))
        .cloned()
        .collect();
    if !unexpected {
        let p = policy(set);
        let down = scaled_down(set, pod);
        if p.delete_when_deleted && !(p.delete_when_scaled && down) {
            out.push(revision::controller_ref(set));
        }
        if p.delete_when_scaled && down && !po.uid.is_empty() {
            out.push(OwnerReference {
                api_version: "v1".to_string(),
                kind: "Pod".to_string(),
                name: po.name.to_string(),
                uid: po.uid.to_string(),
                controller: Some(true),
                block_owner_deletion: Some(true),
            });
        }
    }
    claim.metadata.owner_references = (!out.is_empty()).then_some(out);
    claim
}

/// The claim of `name` as observed, if any.
pub(super) fn find<'a>(
    claims: &'a [PersistentVolumeClaim],
    namespace: Option<&str>,
    name: &str,
) -> Option<&'a PersistentVolumeClaim> {
    claims.iter().find(|c| {
        c.metadata.name.as_deref() == Some(name) && c.metadata.namespace.as_deref() == namespace
    })
}

/// With `whenScaled: Delete`, a claim of the pod to create that is still
/// owned by an earlier pod of the same name: the garbage collector is about
/// to delete it, so the pod must wait (upstream's `PodClaimIsStale`).
pub(super) fn is_stale(claim: &PersistentVolumeClaim, set: &StatefulSet, pod_name: &str) -> bool {
    policy(set).delete_when_scaled
        && refs(claim)
            .iter()
            .any(|r| r.kind == "Pod" && r.api_version == "v1" && r.name == pod_name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn set(policy: Value) -> StatefulSet {
        serde_json::from_value(json!({
            "metadata": {"name": "web", "uid": "set-uid"},
            "spec": {"replicas": 4, "selector": {}, "template": {}, "serviceName": "web",
                "persistentVolumeClaimRetentionPolicy": policy},
        }))
        .expect("set")
    }

    fn pod(ordinal: u32) -> Pod {
        serde_json::from_value(json!({"metadata": {"name": format!("web-{ordinal}"), "uid": format!("pod-{ordinal}")}}))
            .expect("pod")
    }

    fn claim(refs: Value) -> PersistentVolumeClaim {
        serde_json::from_value(json!({"metadata": {"name": "data-web-1", "ownerReferences": refs}}))
            .expect("claim")
    }

    fn external() -> Value {
        json!({"apiVersion": "v1", "kind": "ConfigMap", "name": "random-owner", "uid": "cm"})
    }

    fn owners(c: &PersistentVolumeClaim) -> Vec<(String, Option<bool>)> {
        refs(c)
            .iter()
            .map(|r| (r.kind.clone(), r.controller))
            .collect()
    }

    // Upstream's e2e "should not delete PVCs when there is another controller".
    #[test]
    fn another_owner_is_kept_beside_the_set_and_a_stale_controller_is_left_alone() {
        let set = set(json!({"whenDeleted": "Delete", "whenScaled": "Retain"}));
        let c = claim(json!([external()]));
        assert!(!owner_up_to_date(&c, &set, &pod(1)));
        let updated = with_owner_refs(c, &set, &pod(1));
        assert_eq!(
            owners(&updated),
            vec![
                ("ConfigMap".into(), None),
                ("StatefulSet".into(), Some(true))
            ]
        );
        let stale = claim(
            json!([{"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "unknown",
            "uid": "other", "controller": true, "blockOwnerDeletion": true}]),
        );
        assert!(owner_up_to_date(&stale, &set, &pod(3)));
    }

    #[test]
    fn a_cleared_controller_flag_on_the_sets_reference_is_restored() {
        let set = set(json!({"whenDeleted": "Delete", "whenScaled": "Delete"}));
        let c = claim(
            json!([{"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "web",
            "uid": "set-uid", "controller": false, "blockOwnerDeletion": true}]),
        );
        assert!(!owner_up_to_date(&c, &set, &pod(0)));
        let updated = with_owner_refs(c, &set, &pod(0));
        assert_eq!(owners(&updated), vec![("StatefulSet".into(), Some(true))]);
    }
}
