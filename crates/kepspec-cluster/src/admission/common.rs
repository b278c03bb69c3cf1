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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn messages(errors: Vec<FieldError>) -> Vec<String> {
        errors.iter().map(ToString::to_string).collect()
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
