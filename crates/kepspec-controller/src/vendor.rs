//! Reconciling a vendor's look-alike of apps/v1 StatefulSet (for example
//! OpenKruise's `apps.kruise.io/v1beta1 StatefulSet`, served by a CRD): the
//! plan speaks apps/v1, so references to the vendor kind are read as
//! references to a StatefulSet and written back as the vendor's.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use super::plan::{Action, Plan};

/// apiVersion and kind of the StatefulSet the plan works with.
pub(crate) const APPS_V1: (&str, &str) = ("apps/v1", "StatefulSet");

/// The set's JSON as apps/v1, for decoding into the typed StatefulSet.
pub(crate) fn as_apps_v1(raw: &serde_json::Value) -> serde_json::Value {
    let mut v = raw.clone();
    v["apiVersion"] = serde_json::Value::from(APPS_V1.0);
    v["kind"] = serde_json::Value::from(APPS_V1.1);
    v
}

/// Rewrites the set's controller references from one apiVersion/kind to another.
pub(crate) fn retarget(meta: &mut ObjectMeta, uid: &str, from: (&str, &str), to: (&str, &str)) {
    if from == to {
        return;
    }
    for r in meta.owner_references.iter_mut().flatten() {
        if r.uid == uid && r.api_version == from.0 && r.kind == from.1 {
            r.api_version = to.0.to_string();
            r.kind = to.1.to_string();
        }
    }
}

/// [`retarget`] over every object a plan writes.
pub(crate) fn retarget_plan(plan: &mut Plan, uid: &str, from: (&str, &str), to: (&str, &str)) {
    for action in plan.actions.iter_mut() {
        match action {
            Action::CreateRevision(r) => retarget(&mut r.metadata, uid, from, to),
            Action::CreateClaim { claim, .. } | Action::UpdateClaim(claim) => {
                retarget(&mut claim.metadata, uid, from, to)
            }
            Action::CreatePod(p) | Action::UpdatePod(p) => retarget(&mut p.metadata, uid, from, to),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;

    #[test]
    fn only_the_sets_own_references_change_kind() {
        let owner = |uid: &str, api: &str, kind: &str| OwnerReference {
            api_version: api.into(),
            kind: kind.into(),
            name: "web".into(),
            uid: uid.into(),
            controller: Some(true),
            ..OwnerReference::default()
        };
        let mut meta = ObjectMeta {
            owner_references: Some(vec![
                owner("u1", "apps.kruise.io/v1beta1", "StatefulSet"),
                owner("u2", "apps.kruise.io/v1beta1", "StatefulSet"),
            ]),
            ..ObjectMeta::default()
        };
        retarget(
            &mut meta,
            "u1",
            ("apps.kruise.io/v1beta1", "StatefulSet"),
            APPS_V1,
        );
        let refs = meta.owner_references.unwrap();
        assert_eq!(refs[0].api_version, "apps/v1");
        assert_eq!(refs[1].api_version, "apps.kruise.io/v1beta1");
        let raw = serde_json::json!({"apiVersion": "apps.kruise.io/v1beta1", "kind": "StatefulSet", "spec": {}});
        assert_eq!(as_apps_v1(&raw)["apiVersion"], "apps/v1");
    }
}
