//! The little schema server-side apply needs: which lists are associative
//! (and by which keys), which are sets, which objects are atomic.
//!
//! Taken from the `+listType`, `+listMapKey`, `+structType` and `+mapType`
//! markers of k8s.io/api and k8s.io/apimachinery (core/v1 `PodSpec`,
//! `Container`, `ServiceSpec`, meta/v1 `ObjectMeta`, `LabelSelector`,
//! `OwnerReference`), by field name, so custom resources that embed those
//! types (as OpenKruise's do) merge the same way. A list not named here is
//! atomic, as it is for an unmarked list upstream.

use serde_json::{Map, Value};

/// How a list merges and which path element names its items.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ListType {
    /// Replaced whole (`+listType=atomic`, the default).
    Atomic,
    /// Items are scalar values (`+listType=set`).
    Set,
    /// Items are objects keyed by these fields (`+listType=map`); `atomic`
    /// when the items themselves are atomic structs.
    Map {
        keys: &'static [&'static str],
        atomic: bool,
    },
}

/// The list type of the list field `field`; `sample` is one of its items
/// (`ports` are keyed differently in containers and Services).
pub(crate) fn list_type(field: &str, sample: Option<&Value>) -> ListType {
    let map = |keys| ListType::Map {
        keys,
        atomic: false,
    };
    match field {
        "containers"
        | "initContainers"
        | "ephemeralContainers"
        | "volumes"
        | "env"
        | "imagePullSecrets"
        | "resourceClaims"
        | "schedulingGates" => map(&["name"]),
        "volumeMounts" => map(&["mountPath"]),
        "volumeDevices" => map(&["devicePath"]),
        "conditions" => map(&["type"]),
        "hostAliases" | "podIPs" | "hostIPs" => map(&["ip"]),
        "topologySpreadConstraints" => map(&["topologyKey", "whenUnsatisfiable"]),
        "ownerReferences" => ListType::Map {
            keys: &["uid"],
            atomic: true,
        },
        "ports" if sample.and_then(|s| s.get("containerPort")).is_some() => {
            map(&["containerPort", "protocol"])
        }
        "ports" if sample.and_then(|s| s.get("port")).is_some() => map(&["port", "protocol"]),
        "finalizers" => ListType::Set,
        _ => ListType::Atomic,
    }
}

/// Whether the object field `field` is replaced whole (`+structType=atomic`
/// or `+mapType=atomic`): label selectors, a Service's selector, the
/// key references of environment variables, a required node selector.
pub(super) fn atomic_object(field: &str) -> bool {
    matches!(
        field,
        "selector"
            | "labelSelector"
            | "namespaceSelector"
            | "secretKeyRef"
            | "configMapKeyRef"
            | "fieldRef"
            | "resourceFieldRef"
            | "requiredDuringSchedulingIgnoredDuringExecution"
    )
}

/// A key field's value when the item leaves it out (`protocol` defaults to
/// TCP, so structured-merge-diff keys the item with it).
fn key_default(key: &str) -> Option<Value> {
    (key == "protocol").then(|| Value::String("TCP".into()))
}

/// The path element of an item of an associative list: `k:{"name":"app"}`
/// with the key fields in order of name. `Err` names the missing key.
pub(super) fn item_key(keys: &[&str], item: &Value) -> Result<String, String> {
    let mut names: Vec<&str> = keys.to_vec();
    names.sort_unstable();
    let mut m = Map::new();
    for k in names {
        let v = item
            .get(k)
            .filter(|v| !v.is_null())
            .cloned()
            .or_else(|| key_default(k))
            .ok_or_else(|| {
                format!(
                    "associative list with keys has an element that omits key field {k:?} (and doesn't have default value)"
                )
            })?;
        m.insert(k.to_string(), v);
    }
    Ok(format!("k:{}", Value::Object(m)))
}

/// The path element of an item of a set: `v:"value"`.
pub(super) fn value_key(item: &Value) -> String {
    format!("v:{item}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ports_are_keyed_with_the_defaulted_protocol() {
        let c = json!({"containerPort": 80});
        let ListType::Map { keys, .. } = list_type("ports", Some(&c)) else {
            panic!("container ports are a map");
        };
        assert_eq!(
            item_key(keys, &c).unwrap(),
            "k:{\"containerPort\":80,\"protocol\":\"TCP\"}"
        );
        let s = json!({"port": 443, "protocol": "UDP"});
        let ListType::Map { keys, .. } = list_type("ports", Some(&s)) else {
            panic!("service ports are a map");
        };
        assert_eq!(
            item_key(keys, &s).unwrap(),
            "k:{\"port\":443,\"protocol\":\"UDP\"}"
        );
    }

    #[test]
    fn an_item_without_its_key_is_refused_and_unnamed_lists_are_atomic() {
        let err = item_key(&["name"], &json!({"image": "x"})).unwrap_err();
        assert!(err.contains("omits key field \"name\""), "{err}");
        assert_eq!(list_type("args", None), ListType::Atomic);
        assert_eq!(list_type("finalizers", None), ListType::Set);
        assert_eq!(value_key(&json!("a")), "v:\"a\"");
    }
}
