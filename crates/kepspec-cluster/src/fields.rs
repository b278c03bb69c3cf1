//! Unknown-field detection for `fieldValidation` (Strict / Warn / Ignore):
//! at every depth for the built-in kinds with a typed form
//! ([`super::typed`]), else at the top level and in ObjectMeta.

use serde_json::Value;

use super::resources::ResourceInfo;

const META: &[&str] = &[
    "name",
    "generateName",
    "namespace",
    "selfLink",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "labels",
    "annotations",
    "ownerReferences",
    "finalizers",
    "managedFields",
];

/// Top-level fields (besides apiVersion/kind/metadata) of a type, when known.
fn top_level(info: &ResourceInfo) -> Option<&'static [&'static str]> {
    if !info.builtin {
        return None;
    }
    Some(match (info.group.as_str(), info.plural.as_str()) {
        ("apps", "statefulsets")
        | ("", "pods")
        | ("", "services")
        | ("", "namespaces")
        | ("", "persistentvolumeclaims")
        | ("", "persistentvolumes") => &["spec", "status"],
        ("", "configmaps") => &["data", "binaryData", "immutable"],
        ("", "secrets") => &["data", "stringData", "type", "immutable"],
        ("", "serviceaccounts") => &[
            "secrets",
            "imagePullSecrets",
            "automountServiceAccountToken",
        ],
        ("apps", "controllerrevisions") => &["data", "revision"],
        ("coordination.k8s.io", "leases") => &["spec"],
        _ => return None,
    })
}

/// The unknown fields of an object, as upstream names them (`spce`, `metadata.lables`).
pub(crate) fn unknown_fields(info: &ResourceInfo, obj: &Value) -> Vec<String> {
    if let Some(Ok(typed)) = super::typed::round_trip(info, obj) {
        return super::typed::unknown_paths(obj, &typed);
    }
    if let Some(schema) = &info.schema {
        return super::structural::unknown_paths(schema, obj);
    }
    let mut out = Vec::new();
    let Some(map) = obj.as_object() else {
        return out;
    };
    if let Some(known) = top_level(info) {
        for k in map.keys() {
            let base =
                matches!(k.as_str(), "apiVersion" | "kind" | "metadata") || k.starts_with('$');
            if !base && !known.contains(&k.as_str()) {
                out.push(k.clone());
            }
        }
    }
    if info.builtin {
        if let Some(meta) = map.get("metadata").and_then(Value::as_object) {
            for k in meta
                .keys()
                .filter(|k| !META.contains(&k.as_str()) && !k.starts_with('$'))
            {
                out.push(format!("metadata.{k}"));
            }
        }
    }
    out
}

/// Drops unknown fields, as decoding into the typed object does upstream.
pub(crate) fn prune(info: &ResourceInfo, obj: &mut Value) {
    let unknown = unknown_fields(info, obj);
    if info.schema.is_some() {
        super::structural::prune(obj, &unknown);
        return;
    }
    if info.builtin
        && unknown
            .iter()
            .any(|f| f.contains('.') && !f.starts_with("metadata."))
    {
        super::typed::remove_paths(obj, &unknown);
        return;
    }
    let Some(map) = obj.as_object_mut() else {
        return;
    };
    for f in unknown {
        match f.strip_prefix("metadata.") {
            Some(k) => {
                if let Some(m) = map.get_mut("metadata").and_then(Value::as_object_mut) {
                    m.remove(k);
                }
            }
            None => {
                map.remove(&f);
            }
        }
    }
}

/// What the request asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FieldValidation {
    /// Reject unknown fields (400).
    Strict,
    /// Accept, with a `Warning` header per unknown field (the server default).
    Warn,
    /// Accept silently.
    Ignore,
}

impl FieldValidation {
    /// From the `fieldValidation` query parameter.
    pub(crate) fn parse(p: Option<&str>) -> Result<Self, String> {
        match p.unwrap_or("") {
            "Strict" => Ok(FieldValidation::Strict),
            "" | "Warn" => Ok(FieldValidation::Warn),
            "Ignore" => Ok(FieldValidation::Ignore),
            other => Err(format!(
                "fieldValidation must be one of Ignore, Warn, or Strict, got {other:?}"
            )),
        }
    }
}

/// The message upstream uses for strict decoding failures.
pub(crate) fn strict_message(unknown: &[String]) -> String {
    let parts: Vec<String> = unknown
        .iter()
        .map(|f| format!("unknown field {f:?}"))
        .collect();
    format!("strict decoding error: {}", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::super::resources::builtins;
    use super::*;
    use serde_json::json;

    fn info(plural: &str) -> ResourceInfo {
        builtins().into_iter().find(|r| r.plural == plural).unwrap()
    }

    #[test]
    fn finds_top_level_and_metadata_typos() {
        let o = json!({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "a", "lables": {}}, "spce": {}, "spec": {}});
        assert_eq!(
            unknown_fields(&info("statefulsets"), &o),
            vec!["metadata.lables", "spce"]
        );
        assert_eq!(
            strict_message(&["spce".into()]),
            "strict decoding error: unknown field \"spce\""
        );
        let cm = json!({"metadata": {"name": "a"}, "data": {}, "immutable": true});
        assert!(unknown_fields(&info("configmaps"), &cm).is_empty());
        let mut pruned = o.clone();
        prune(&info("statefulsets"), &mut pruned);
        assert_eq!(
            pruned,
            json!({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "a"}, "spec": {}})
        );
        assert_eq!(FieldValidation::parse(None), Ok(FieldValidation::Warn));
        assert!(FieldValidation::parse(Some("Loud")).is_err());
    }
}
