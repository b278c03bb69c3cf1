//! The volume provisioner and PV controller's decisions without I/O: which
//! claims need a volume, the PersistentVolume to create (like kind's
//! local-path provisioner), and the binding writes.

use k8s_openapi::api::core::v1::PersistentVolumeClaim;
use serde_json::{json, Value};

/// A claim that is not being deleted, not bound and names no volume yet.
pub(super) fn needs_volume(pvc: &PersistentVolumeClaim) -> bool {
    let bound = pvc.status.as_ref().and_then(|s| s.phase.as_deref()) == Some("Bound");
    let named = pvc
        .spec
        .as_ref()
        .and_then(|s| s.volume_name.as_deref())
        .is_some_and(|v| !v.is_empty());
    pvc.metadata.deletion_timestamp.is_none() && !bound && !named
}

/// A claim that names a volume but whose status is not Bound yet.
pub(super) fn needs_bound_status(pvc: &PersistentVolumeClaim) -> bool {
    let bound = pvc.status.as_ref().and_then(|s| s.phase.as_deref()) == Some("Bound");
    let named = pvc
        .spec
        .as_ref()
        .and_then(|s| s.volume_name.as_deref())
        .is_some_and(|v| !v.is_empty());
    pvc.metadata.deletion_timestamp.is_none() && named && !bound
}

/// The provisioned volume's name: `pvc-<claim uid>`.
pub(super) fn volume_name(pvc: &PersistentVolumeClaim) -> String {
    format!("pvc-{}", pvc.metadata.uid.as_deref().unwrap_or_default())
}

fn requested_storage(pvc: &PersistentVolumeClaim) -> String {
    pvc.spec
        .as_ref()
        .and_then(|s| s.resources.as_ref())
        .and_then(|r| r.requests.as_ref())
        .and_then(|r| r.get("storage"))
        .map_or_else(|| "1Gi".to_string(), |q| q.0.clone())
}

fn access_modes(pvc: &PersistentVolumeClaim) -> Value {
    let modes = pvc
        .spec
        .as_ref()
        .and_then(|s| s.access_modes.clone())
        .filter(|m| !m.is_empty())
        .unwrap_or_else(|| vec!["ReadWriteOnce".to_string()]);
    json!(modes)
}

/// The PersistentVolume provisioned for the claim (reclaim policy Delete,
/// a hostPath under the local-path provisioner's directory).
pub(super) fn persistent_volume(pvc: &PersistentVolumeClaim) -> Value {
    let name = volume_name(pvc);
    let ns = pvc.metadata.namespace.clone().unwrap_or_default();
    let claim = pvc.metadata.name.clone().unwrap_or_default();
    let mut spec = json!({
        "capacity": {"storage": requested_storage(pvc)},
        "accessModes": access_modes(pvc),
        "persistentVolumeReclaimPolicy": "Delete",
        "volumeMode": pvc.spec.as_ref().and_then(|s| s.volume_mode.clone()).unwrap_or_else(|| "Filesystem".into()),
        "hostPath": {"path": format!("/var/local-path-provisioner/{name}_{ns}_{claim}"), "type": "DirectoryOrCreate"},
        "claimRef": {
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "namespace": ns,
            "name": claim,
            "uid": pvc.metadata.uid.clone().unwrap_or_default(),
            "resourceVersion": pvc.metadata.resource_version.clone().unwrap_or_default(),
        },
    });
    if let Some(class) = pvc.spec.as_ref().and_then(|s| s.storage_class_name.clone()) {
        spec["storageClassName"] = json!(class);
    }
    json!({
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {
            "name": name,
            "annotations": {"pv.kubernetes.io/provisioned-by": "rancher.io/local-path"},
        },
        "spec": spec,
    })
}

/// The merge patch binding the claim to the volume (the PV controller's
/// write to the claim's main resource).
pub(super) fn claim_binding(volume: &str) -> Value {
    json!({
        "metadata": {"annotations": {
            "pv.kubernetes.io/bind-completed": "yes",
            "pv.kubernetes.io/bound-by-controller": "yes",
            "volume.beta.kubernetes.io/storage-provisioner": "rancher.io/local-path",
            "volume.kubernetes.io/storage-provisioner": "rancher.io/local-path",
        }},
        "spec": {"volumeName": volume},
    })
}

/// The claim's Bound status.
pub(super) fn claim_status(pvc: &PersistentVolumeClaim) -> Value {
    json!({"status": {
        "phase": "Bound",
        "accessModes": access_modes(pvc),
        "capacity": {"storage": requested_storage(pvc)},
    }})
}

/// The volume's Bound status.
pub(super) fn volume_status() -> Value {
    json!({"status": {"phase": "Bound"}})
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claim(v: Value) -> PersistentVolumeClaim {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn pending_claims_need_a_volume() {
        let c = claim(
            json!({"metadata": {"name": "data-web-0", "namespace": "ns", "uid": "u1", "resourceVersion": "7"},
            "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "2Gi"}}, "storageClassName": "standard"},
            "status": {"phase": "Pending"}}),
        );
        assert!(needs_volume(&c));
        assert!(!needs_bound_status(&c));
        let pv = persistent_volume(&c);
        assert_eq!(pv["metadata"]["name"], "pvc-u1");
        assert_eq!(pv["spec"]["capacity"]["storage"], "2Gi");
        assert_eq!(pv["spec"]["storageClassName"], "standard");
        assert_eq!(pv["spec"]["claimRef"]["uid"], "u1");
        assert_eq!(pv["spec"]["claimRef"]["name"], "data-web-0");
        assert_eq!(claim_binding("pvc-u1")["spec"]["volumeName"], "pvc-u1");
        assert_eq!(
            claim_status(&c)["status"],
            json!({"phase": "Bound", "accessModes": ["ReadWriteOnce"], "capacity": {"storage": "2Gi"}})
        );
    }

    #[test]
    fn bound_or_deleted_claims_are_left_alone() {
        let bound = claim(
            json!({"metadata": {"name": "a"}, "spec": {"volumeName": "pvc-1"}, "status": {"phase": "Bound"}}),
        );
        assert!(!needs_volume(&bound));
        assert!(!needs_bound_status(&bound));
        let half = claim(
            json!({"metadata": {"name": "a"}, "spec": {"volumeName": "pvc-1"}, "status": {"phase": "Pending"}}),
        );
        assert!(!needs_volume(&half));
        assert!(needs_bound_status(&half));
        let deleting = claim(
            json!({"metadata": {"name": "a", "deletionTimestamp": "2026-01-01T00:00:00Z"}, "status": {"phase": "Pending"}}),
        );
        assert!(!needs_volume(&deleting));
    }
}
