//! Validation of the common core kinds, as kube-apiserver's
//! pkg/apis/core/validation does it for what kepspec's users write:
//! ConfigMap and Secret sizes, a claim's access modes and storage request,
//! a Service's ports, and ObjectMeta's annotation size for every kind.

use kepspec_core::Lookup as _;
use serde_json::Value;

use super::fielderr::FieldError;

/// `core.MaxSecretSize`: the data a ConfigMap or Secret may hold.
const MAX_DATA: usize = 1024 * 1024;
/// `TotalAnnotationSizeLimitB`: the bytes all annotations (keys and values)
/// of an object may take.
const MAX_ANNOTATIONS: usize = 256 * 1024;

fn strings(v: Option<&Value>) -> impl Iterator<Item = (&String, &Value)> {
    v.and_then(Value::as_object).into_iter().flatten()
}

/// The length of a base64 value once decoded (`[]byte` fields travel as
/// base64 in JSON; the typed decoding already refused invalid ones).
fn decoded_len(v: &Value) -> usize {
    let digits = v
        .as_str()
        .unwrap_or_default()
        .bytes()
        .filter(|b| !b.is_ascii_whitespace() && *b != b'=')
        .count();
    digits * 3 / 4
}

/// `ValidateAnnotations`' total size rule.
pub(super) fn annotations(obj: &Value) -> Vec<FieldError> {
    let total: usize = strings(obj.lookup("/metadata/annotations"))
        .map(|(k, v)| k.len() + v.as_str().map_or(0, str::len))
        .sum();
    if total > MAX_ANNOTATIONS {
        return vec![FieldError::too_long(
            "metadata.annotations",
            MAX_ANNOTATIONS,
        )];
    }
    Vec::new()
}

/// `ValidateConfigMap`'s size rule: data and binaryData (decoded) together;
/// the error names the whole object (`field.NewPath("")`, printed `[]`).
pub(super) fn config_map(obj: &Value) -> Vec<FieldError> {
    let data: usize = strings(obj.get("data"))
        .map(|(_, v)| v.as_str().map_or(0, str::len))
        .sum();
    let binary: usize = strings(obj.get("binaryData"))
        .map(|(_, v)| decoded_len(v))
        .sum();
    if data + binary > MAX_DATA {
        return vec![FieldError::too_long("[]", MAX_DATA)];
    }
    Vec::new()
}

/// `ValidateSecret`'s size rule: the decoded data.
pub(super) fn secret(obj: &Value) -> Vec<FieldError> {
    let data: usize = strings(obj.get("data")).map(|(_, v)| decoded_len(v)).sum();
    let string_data: usize = strings(obj.get("stringData"))
        .map(|(_, v)| v.as_str().map_or(0, str::len))
        .sum();
    if data + string_data > MAX_DATA {
        return vec![FieldError::too_long("data", MAX_DATA)];
    }
    Vec::new()
}

/// `ValidatePersistentVolumeClaimSpec`: at least one access mode and a
/// storage request.
pub(super) fn persistent_volume_claim(obj: &Value) -> Vec<FieldError> {
    let spec = &obj["spec"];
    let mut out = Vec::new();
    if spec["accessModes"].as_array().is_none_or(Vec::is_empty) {
        out.push(FieldError::required(
            "spec.accessModes",
            "at least 1 access mode is required",
        ));
    }
    if spec.lookup("/resources/requests/storage").is_none() {
        out.push(FieldError::required("spec.resources[storage]", ""));
    }
    out
}

/// `ValidateService`: ports are required unless the Service is headless or
/// an ExternalName.
pub(super) fn service(obj: &Value) -> Vec<FieldError> {
    let spec = &obj["spec"];
    let headless = spec["clusterIP"].as_str() == Some("None");
    let external = spec["type"].as_str() == Some("ExternalName");
    let no_ports = spec["ports"].as_array().is_none_or(Vec::is_empty);
    if no_ports && !headless && !external {
        return vec![FieldError::required("spec.ports", "")];
    }
    Vec::new()
}

/// `legacyValidateEvent` (`pkg/apis/core/validation/events.go`), which
/// every core/v1 Event create and update goes through: an event without
/// `eventTime` (as client-go's legacy recorder writes them) must name the
/// namespace it is stored in as its `involvedObject.namespace` (or leave
/// both empty, or be in `default`); one with `eventTime` must name a
/// reporting controller, instance and action. The length limits and the
/// name rules of the stricter events.k8s.io/v1 path are not checked.
pub(super) fn event(obj: &Value) -> Vec<FieldError> {
    let namespace = obj
        .lookup("/metadata/namespace")
        .and_then(Value::as_str)
        .unwrap_or("");
    let involved = obj
        .lookup("/involvedObject/namespace")
        .and_then(Value::as_str)
        .unwrap_or("");
    let event_time = obj
        .get("eventTime")
        .and_then(Value::as_str)
        .is_some_and(|t| !t.is_empty() && !t.starts_with("0001-01-01T00:00:00"));
    let mismatch = || {
        FieldError::invalid(
            "involvedObject.namespace",
            super::fielderr::go_quote(involved),
            "does not match event.namespace",
        )
    };
    let mut out = Vec::new();
    if !event_time {
        let agrees = if involved.is_empty() {
            namespace.is_empty() || namespace == "default"
        } else {
            namespace == involved
        };
        if !agrees {
            out.push(mismatch());
        }
        return out;
    }
    if involved.is_empty() && namespace != "default" && namespace != "kube-system" {
        out.push(mismatch());
    }
    for (field, path) in [
        ("reportingComponent", "/reportingComponent"),
        ("reportingInstance", "/reportingInstance"),
        ("action", "/action"),
    ] {
        if obj
            .lookup(path)
            .and_then(Value::as_str)
            .is_none_or(str::is_empty)
        {
            out.push(FieldError::required(field, ""));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn messages(errors: Vec<FieldError>) -> Vec<String> {
        errors.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn an_event_is_stored_in_the_namespace_of_what_it_is_about() {
        let ev = |ns: &str, involved: Option<&str>| {
            let mut v = json!({"metadata": {"namespace": ns}, "involvedObject": {"kind": "StatefulSet", "name": "web"}});
            if let Some(i) = involved {
                v["involvedObject"]["namespace"] = json!(i);
            }
            v
        };
        assert!(event(&ev("s1", Some("s1"))).is_empty());
        assert!(event(&ev("default", None)).is_empty());
        assert_eq!(
            messages(event(&ev("s1", None))),
            vec![r#"involvedObject.namespace: Invalid value: "": does not match event.namespace"#]
        );
        assert_eq!(
            messages(event(&ev("s1", Some("s2")))),
            vec![
                r#"involvedObject.namespace: Invalid value: "s2": does not match event.namespace"#
            ]
        );
        // A new-style event (eventTime set) names its reporter and action.
        let mut new = ev("s1", Some("s1"));
        new["eventTime"] = json!("2026-11-29T05:00:00.000000Z");
        assert_eq!(
            messages(event(&new)),
            vec![
                "reportingComponent: Required value",
                "reportingInstance: Required value",
                "action: Required value",
            ]
        );
    }

    #[test]
    fn sizes_are_counted_as_the_apiserver_counts_them() {
        let big = "x".repeat(MAX_DATA + 1);
        assert_eq!(
            messages(config_map(&json!({"data": {"a": big}}))),
            vec!["[]: Too long: may not be more than 1048576 bytes"]
        );
        assert!(config_map(&json!({"data": {"a": "x".repeat(MAX_DATA)}})).is_empty());
        // One group of "AAAA" (3 zero bytes) more than MAX_DATA holds.
        let encoded = "AAAA".repeat(MAX_DATA / 3 + 1);
        assert_eq!(
            messages(secret(&json!({"data": {"a": encoded}}))),
            vec!["data: Too long: may not be more than 1048576 bytes"]
        );
        let notes = json!({"metadata": {"annotations": {"k": "v".repeat(MAX_ANNOTATIONS)}}});
        assert_eq!(
            messages(annotations(&notes)),
            vec!["metadata.annotations: Too long: may not be more than 262144 bytes"]
        );
    }

    #[test]
    fn claims_and_services_need_their_required_fields() {
        assert_eq!(
            messages(persistent_volume_claim(&json!({"spec": {}}))),
            vec![
                "spec.accessModes: Required value: at least 1 access mode is required",
                "spec.resources[storage]: Required value",
            ]
        );
        let ok = json!({"spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}});
        assert!(persistent_volume_claim(&ok).is_empty());
        assert_eq!(
            messages(service(&json!({"spec": {}}))),
            vec!["spec.ports: Required value"]
        );
        assert!(service(&json!({"spec": {"clusterIP": "None"}})).is_empty());
        assert!(
            service(&json!({"spec": {"type": "ExternalName", "externalName": "x"}})).is_empty()
        );
    }
}
