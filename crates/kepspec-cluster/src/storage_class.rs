//! StorageClasses as a kind cluster has them, and kube-apiserver's
//! DefaultStorageClass admission (plugin/pkg/admission/storage/storageclass/setdefault):
//! a claim created without a class gets the default one.
//!
//! kind installs one StorageClass, `standard`, annotated as the default,
//! provisioner `rancher.io/local-path`, `volumeBindingMode:
//! WaitForFirstConsumer`, `reclaimPolicy: Delete`
//! (kind's pkg/build/nodeimage/const_storage.go); the embedded cluster
//! starts with the same.

use serde_json::{json, Value};

use super::store::Gr;

/// The annotation that makes a class the default.
pub const IS_DEFAULT: &str = "storageclass.kubernetes.io/is-default-class";
/// Its beta form, still honoured upstream.
pub(crate) const BETA_IS_DEFAULT: &str = "storageclass.beta.kubernetes.io/is-default-class";
/// The claim annotation that names a class in place of `spec.storageClassName`.
pub(crate) const BETA_CLAIM_CLASS: &str = "volume.beta.kubernetes.io/storage-class";

/// The group/resource of StorageClasses.
pub(crate) fn storage_classes() -> Gr {
    Gr::new("storage.k8s.io", "storageclasses")
}

/// kind's default StorageClass.
pub(crate) fn kind_default() -> Value {
    json!({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
        "metadata": {"name": "standard", "annotations": {IS_DEFAULT: "true"}},
        "provisioner": "rancher.io/local-path",
        "reclaimPolicy": "Delete",
        "volumeBindingMode": "WaitForFirstConsumer"})
}

/// Whether a class is marked default (either annotation, value `true`).
fn is_default(class: &Value) -> bool {
    let a = &class["metadata"]["annotations"];
    [IS_DEFAULT, BETA_IS_DEFAULT]
        .iter()
        .any(|k| a[*k].as_str() == Some("true"))
}

/// The default class's name, as upstream's `GetDefaultClass` chooses among
/// several: the newest by creationTimestamp, then the first by name.
pub fn default_class(classes: &[Value]) -> Option<String> {
    let created = |c: &Value| {
        c["metadata"]["creationTimestamp"]
            .as_str()
            .and_then(|t| t.parse::<jiff::Timestamp>().ok())
    };
    let name = |c: &Value| {
        c["metadata"]["name"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    classes
        .iter()
        .filter(|c| is_default(c))
        .min_by(|a, b| created(b).cmp(&created(a)).then(name(a).cmp(&name(b))))
        .map(name)
}

/// Whether a claim asks for a class itself: `spec.storageClassName` set,
/// even to "" (no class), or the beta annotation present
/// (`PersistentVolumeClaimHasClass`).
fn has_class(claim: &Value) -> bool {
    !claim["spec"]["storageClassName"].is_null()
        || !claim["metadata"]["annotations"][BETA_CLAIM_CLASS].is_null()
}

/// The DefaultStorageClass admission of a claim being created.
pub(crate) fn admit_claim(claim: &mut Value, classes: impl FnOnce() -> Vec<Value>) {
    if has_class(claim) {
        return;
    }
    if let (Some(class), Some(spec)) = (default_class(&classes()), claim.get_mut("spec")) {
        if let Some(spec) = spec.as_object_mut() {
            spec.insert("storageClassName".into(), json!(class));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class(name: &str, created: &str, default: bool) -> Value {
        let mut c = json!({"metadata": {"name": name, "creationTimestamp": created}});
        if default {
            c["metadata"]["annotations"] = json!({IS_DEFAULT: "true"});
        }
        c
    }

    #[test]
    fn the_newest_default_class_wins_then_the_first_by_name() {
        let classes = vec![
            class("old", "2026-01-01T00:00:00Z", true),
            class("plain", "2026-06-01T00:00:00Z", false),
            class("new-b", "2026-03-01T00:00:00Z", true),
            class("new-a", "2026-03-01T00:00:00Z", true),
        ];
        assert_eq!(default_class(&classes).as_deref(), Some("new-a"));
        assert_eq!(default_class(&classes[1..2]), None);
    }

    #[test]
    fn only_a_claim_naming_no_class_gets_the_default() {
        let classes = || vec![kind_default()];
        let mut none = json!({"spec": {"accessModes": ["ReadWriteOnce"]}});
        admit_claim(&mut none, classes);
        assert_eq!(none["spec"]["storageClassName"], "standard");
        let mut empty = json!({"spec": {"storageClassName": ""}});
        admit_claim(&mut empty, classes);
        assert_eq!(empty["spec"]["storageClassName"], "");
        let mut beta = json!({"metadata": {"annotations": {BETA_CLAIM_CLASS: "fast"}}, "spec": {}});
        admit_claim(&mut beta, classes);
        assert!(beta["spec"].get("storageClassName").is_none());
        let mut no_default = json!({"spec": {}});
        admit_claim(&mut no_default, Vec::new);
        assert!(no_default["spec"].get("storageClassName").is_none());
    }
}
