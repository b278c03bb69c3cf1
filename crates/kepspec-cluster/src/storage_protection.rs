//! Storage object in-use protection, as a real cluster has it: the
//! `StorageObjectInUseProtection` admission plugin puts the
//! `kubernetes.io/pvc-protection` finalizer on every new claim and
//! `kubernetes.io/pv-protection` on every new volume, and
//! kube-controller-manager's pvc-protection and pv-protection controllers
//! take it off a claim being deleted once no scheduled pod names it in a
//! `persistentVolumeClaim` volume (`podUsesPVC`, whatever the pod's phase),
//! and off a volume being deleted once it is no longer `Bound`. So a claim
//! deleted under a running pod stays, terminating, until the pod is gone.

use serde_json::Value;

use super::gc::GcAction;
use super::meta::finalizers;
use super::store::{Gr, ObjKey};

/// The claim finalizer.
pub(crate) const PVC_PROTECTION: &str = "kubernetes.io/pvc-protection";
/// The volume finalizer.
pub(crate) const PV_PROTECTION: &str = "kubernetes.io/pv-protection";

/// The admission plugin: a new claim or volume gets its finalizer.
pub(crate) fn admit_create(resource: &str, obj: &mut Value) {
    let finalizer = match resource {
        "persistentvolumeclaims" => PVC_PROTECTION,
        "persistentvolumes" => PV_PROTECTION,
        _ => return,
    };
    let mut list = finalizers(obj);
    if !list.iter().any(|f| f == finalizer) {
        list.push(finalizer.to_string());
        super::meta::set_finalizers(obj, &list);
    }
}

fn deleting_with(o: &Value, finalizer: &str) -> bool {
    o["metadata"].get("deletionTimestamp").is_some() && finalizers(o).iter().any(|f| f == finalizer)
}

/// Whether a scheduled pod names the claim in one of its volumes.
fn in_use(pods: &[&Value], claim: &str) -> bool {
    pods.iter().any(|p| {
        p["spec"]["nodeName"]
            .as_str()
            .is_some_and(|n| !n.is_empty())
            && p["spec"]["volumes"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|v| v["persistentVolumeClaim"]["claimName"].as_str() == Some(claim))
    })
}

/// The finalizers the two controllers take off now (pure): `objects` are
/// every claim, volume and pod.
pub(crate) fn releases<'a>(
    objects: impl Iterator<Item = (&'a ObjKey, &'a Value)> + Clone,
) -> Vec<GcAction> {
    let (pvcs, pvs, pods) = (
        Gr::new("", "persistentvolumeclaims"),
        Gr::new("", "persistentvolumes"),
        Gr::new("", "pods"),
    );
    let mut out = Vec::new();
    for (k, o) in objects.clone() {
        if k.gr == pvcs && deleting_with(o, PVC_PROTECTION) {
            let in_ns: Vec<&Value> = objects
                .clone()
                .filter(|(pk, _)| pk.gr == pods && pk.namespace == k.namespace)
                .map(|(_, p)| p)
                .collect();
            if !in_use(&in_ns, &k.name) {
                out.push(GcAction::RemoveFinalizer(k.clone(), PVC_PROTECTION.into()));
            }
        } else if k.gr == pvs
            && deleting_with(o, PV_PROTECTION)
            && o["status"]["phase"].as_str() != Some("Bound")
        {
            out.push(GcAction::RemoveFinalizer(k.clone(), PV_PROTECTION.into()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn key(resource: &str, name: &str) -> ObjKey {
        ObjKey::new(
            &Gr::new("", resource),
            if resource == "persistentvolumes" {
                ""
            } else {
                "ns"
            },
            name,
        )
    }

    #[test]
    fn a_claim_is_released_only_once_no_scheduled_pod_names_it() {
        let claim = json!({"metadata": {"name": "data-web-0", "deletionTimestamp": "2026-01-01T00:00:00Z",
            "finalizers": [PVC_PROTECTION, "kepspec.io/hold"]}});
        let pod = |node: &str| {
            json!({"metadata": {"name": "web-0"}, "spec": {"nodeName": node,
            "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "data-web-0"}}]},
            "status": {"phase": "Succeeded"}})
        };
        let running = [
            (key("persistentvolumeclaims", "data-web-0"), claim.clone()),
            (key("pods", "web-0"), pod("node-1")),
        ];
        assert!(
            releases(running.iter().map(|(k, v)| (k, v))).is_empty(),
            "a finished pod still holds it, as upstream"
        );
        let unscheduled = [
            (key("persistentvolumeclaims", "data-web-0"), claim.clone()),
            (key("pods", "web-0"), pod("")),
        ];
        let released = [(key("persistentvolumeclaims", "data-web-0"), claim)];
        for objects in [&unscheduled[..], &released[..]] {
            assert_eq!(
                releases(objects.iter().map(|(k, v)| (k, v))),
                vec![GcAction::RemoveFinalizer(
                    key("persistentvolumeclaims", "data-web-0"),
                    PVC_PROTECTION.into()
                )]
            );
        }
    }

    #[test]
    fn a_volume_is_released_once_not_bound_and_new_objects_get_their_finalizer() {
        let pv = |phase: &str| {
            json!({"metadata": {"name": "pv-1", "deletionTimestamp": "2026-01-01T00:00:00Z",
            "finalizers": [PV_PROTECTION]}, "status": {"phase": phase}})
        };
        let bound = [(key("persistentvolumes", "pv-1"), pv("Bound"))];
        assert!(releases(bound.iter().map(|(k, v)| (k, v))).is_empty());
        let released = [(key("persistentvolumes", "pv-1"), pv("Released"))];
        assert_eq!(releases(released.iter().map(|(k, v)| (k, v))).len(), 1);
        let mut claim = json!({"metadata": {"name": "c", "finalizers": ["a"]}});
        admit_create("persistentvolumeclaims", &mut claim);
        admit_create("persistentvolumeclaims", &mut claim);
        assert_eq!(
            claim["metadata"]["finalizers"],
            json!(["a", PVC_PROTECTION])
        );
        let mut cm = json!({"metadata": {"name": "c"}});
        admit_create("configmaps", &mut cm);
        assert!(cm["metadata"].get("finalizers").is_none());
    }
}
