//! Object metadata checks and small helpers over `serde_json::Value`.

use super::fielderr::{go_quote, FieldError};
use kepspec_core::Lookup as _;
use serde_json::{Map, Value};

/// `metadata.name`, or "" when absent.
pub(crate) fn name(obj: &Value) -> &str {
    obj.lookup("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or_default()
}

/// The object map at `key` inside `parent`, created when absent or not an
/// object.
pub(crate) fn child_obj<'a>(
    parent: &'a mut Map<String, Value>,
    key: &str,
) -> &'a mut Map<String, Value> {
    let slot = parent
        .entry(key.to_string())
        .or_insert_with(|| Value::Object(Map::new()));
    if !slot.is_object() {
        *slot = Value::Object(Map::new());
    }
    match slot {
        Value::Object(m) => m,
        _ => unreachable!("slot was just made an object"),
    }
}

/// Sets `key` to `value` when it is absent, null, or an empty string.
pub(crate) fn default_value(map: &mut Map<String, Value>, key: &str, value: Value) {
    let missing = match map.get(key) {
        None | Some(Value::Null) => true,
        Some(Value::String(s)) => s.is_empty(),
        _ => false,
    };
    if missing {
        map.insert(key.to_string(), value);
    }
}

/// A JSON integer at `key`, if present.
pub(crate) fn int_at(map: &Map<String, Value>, key: &str) -> Option<i64> {
    map.get(key).and_then(Value::as_i64)
}

/// A string at `key`, or "" (absent, null and "" mean the same to Go's
/// non-pointer strings).
pub(crate) fn str_at<'a>(map: &'a Map<String, Value>, key: &str) -> &'a str {
    map.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// `ValidateNonnegativeField`.
pub(crate) fn nonnegative(value: i64, field: &str) -> Option<FieldError> {
    (value < 0).then(|| {
        FieldError::invalid(
            field,
            value.to_string(),
            "must be greater than or equal to 0",
        )
    })
}

const DNS1123_LABEL_MAX: usize = 63;
const DNS1123_SUBDOMAIN_MAX: usize = 253;

fn is_label(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.iter()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
        && b[0] != b'-'
        && b[b.len() - 1] != b'-'
}

/// Upstream's `IsDNS1123Label` messages for `value`.
pub(crate) fn dns1123_label_errors(value: &str) -> Vec<String> {
    let mut out = Vec::new();
    if value.len() > DNS1123_LABEL_MAX {
        out.push(format!(
            "must be no more than {DNS1123_LABEL_MAX} characters"
        ));
    }
    if !is_label(value) {
        out.push("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')".to_string());
    }
    out
}

/// Why `name` is not a valid path segment (apimachinery's
/// `path.IsValidPathSegmentName`, the name rule of RBAC objects), if it is
/// not.
pub(crate) fn path_segment_error(name: &str) -> Option<String> {
    if name == "." || name == ".." {
        return Some(format!("may not be '{name}'"));
    }
    ["/", "%"]
        .iter()
        .find(|bad| name.contains(*bad))
        .map(|bad| format!("may not contain '{bad}'"))
}

/// Upstream's `IsDNS1123Subdomain` messages for `value`.
pub(crate) fn dns1123_subdomain_errors(value: &str) -> Vec<String> {
    let mut out = Vec::new();
    if value.len() > DNS1123_SUBDOMAIN_MAX {
        out.push(format!(
            "must be no more than {DNS1123_SUBDOMAIN_MAX} characters"
        ));
    }
    if !value.split('.').all(is_label) {
        out.push("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')".to_string());
    }
    out
}

/// `[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?`: the shape of label values
/// and of the name part of qualified names.
fn is_label_shaped(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
        && b[0].is_ascii_alphanumeric()
        && b[b.len() - 1].is_ascii_alphanumeric()
}

/// Upstream's `IsValidLabelValue` messages.
pub(crate) fn label_value_errors(value: &str) -> Vec<String> {
    let mut out = Vec::new();
    if value.len() > DNS1123_LABEL_MAX {
        out.push(format!(
            "must be no more than {DNS1123_LABEL_MAX} characters"
        ));
    }
    if !value.is_empty() && !is_label_shaped(value) {
        out.push("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')".to_string());
    }
    out
}

/// Upstream's `IsQualifiedName` messages (label and annotation keys).
pub(crate) fn qualified_name_errors(value: &str) -> Vec<String> {
    let mut out = Vec::new();
    let (prefix, name) = match value.split_once('/') {
        Some((p, n)) if !n.contains('/') => (Some(p), n),
        Some(_) => {
            out.push("a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')".to_string());
            return out;
        }
        None => (None, value),
    };
    if let Some(prefix) = prefix {
        if prefix.is_empty() {
            out.push("prefix part must be non-empty".into());
        } else {
            out.extend(
                dns1123_subdomain_errors(prefix)
                    .into_iter()
                    .map(|m| format!("prefix part {m}")),
            );
        }
    }
    if name.is_empty() {
        out.push("name part must be non-empty".into());
    } else {
        if name.len() > DNS1123_LABEL_MAX {
            out.push(format!(
                "name part must be no more than {DNS1123_LABEL_MAX} characters"
            ));
        }
        if !is_label_shaped(name) {
            out.push("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')".to_string());
        }
    }
    out
}

/// `ValidateLabels`: every key a qualified name, every value a label value,
/// each error at `field` (`metadata.labels`) with the offending key or value.
pub(crate) fn labels_errors(labels: Option<&Value>, field: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for (k, v) in labels.and_then(Value::as_object).into_iter().flatten() {
        for msg in qualified_name_errors(k) {
            errs.push(FieldError::invalid(
                field,
                super::fielderr::go_quote(k),
                &msg,
            ));
        }
        let v = v.as_str().unwrap_or_default();
        for msg in label_value_errors(v) {
            errs.push(FieldError::invalid(
                field,
                super::fielderr::go_quote(v),
                &msg,
            ));
        }
    }
    errs
}

/// `ValidateOwnerReferences` (apimachinery `pkg/api/validation/objectmeta.go`):
/// each reference needs an API version with a version, a kind, a name and
/// a uid (at `field[i].apiVersion` and so on), an Event may own nothing,
/// and only one reference may be marked `controller: true`; each further
/// one is refused at `field` with the whole list as the bad value,
/// rendered as JSON the way `field.Error` prints a slice of structs.
pub(crate) fn owner_references_errors(refs: Option<&Value>, field: &str) -> Vec<FieldError> {
    let list = refs
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    let mut errs = Vec::new();
    let mut first_controller: Option<String> = None;
    for (i, r) in list.iter().enumerate() {
        let at = |child: &str| format!("{field}[{i}].{child}");
        let text = |key: &str| r.get(key).and_then(Value::as_str).unwrap_or_default();
        let (api_version, kind) = (text("apiVersion"), text("kind"));
        let version = match api_version.split('/').collect::<Vec<_>>().as_slice() {
            [version] | [_, version] => *version,
            _ => "",
        };
        if version.is_empty() {
            errs.push(FieldError::invalid(
                &at("apiVersion"),
                go_quote(api_version),
                "version must not be empty",
            ));
        }
        if kind.is_empty() {
            errs.push(FieldError::invalid(
                &at("kind"),
                go_quote(kind),
                "kind must not be empty",
            ));
        }
        for key in ["name", "uid"] {
            if text(key).is_empty() {
                errs.push(FieldError::invalid(
                    &at(key),
                    go_quote(""),
                    &format!("{key} must not be empty"),
                ));
            }
        }
        if api_version == "v1" && kind == "Event" {
            errs.push(FieldError::invalid(
                &format!("{field}[{i}]"),
                owner_reference_json(r),
                "/v1, Kind=Event is disallowed from being an owner",
            ));
        }
        if r.get("controller").and_then(Value::as_bool) == Some(true) {
            let this = format!("{kind}/{}", text("name"));
            match &first_controller {
                Some(first) => errs.push(FieldError::invalid(
                    field,
                    format!(
                        "[{}]",
                        list.iter().map(owner_reference_json).collect::<Vec<_>>().join(",")
                    ),
                    &format!(
                        "Only one reference can have Controller set to true. Found \"true\" in references for {first} and {this}"
                    ),
                )),
                None => first_controller = Some(this),
            }
        }
    }
    errs
}

/// One `metav1.OwnerReference` as Go's `json.Marshal` writes it: the
/// fields in struct order, the two optional flags only when set.
fn owner_reference_json(r: &Value) -> String {
    let mut out = Map::new();
    for key in ["apiVersion", "kind", "name", "uid"] {
        let text = r.get(key).and_then(Value::as_str).unwrap_or_default();
        out.insert(key.to_string(), Value::String(text.to_string()));
    }
    for key in ["controller", "blockOwnerDeletion"] {
        if let Some(flag) = r.get(key).and_then(Value::as_bool) {
            out.insert(key.to_string(), Value::Bool(flag));
        }
    }
    Value::Object(out).to_string()
}

/// `ValidateObjectMeta` for the name on create: a name (or a generateName
/// the server turns into one) is required and must pass `name_errors`.
pub(crate) fn validate_create_name(
    obj: &Value,
    name_errors: fn(&str) -> Vec<String>,
) -> Vec<FieldError> {
    let name = name(obj);
    let generate = obj
        .lookup("/metadata/generateName")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if name.is_empty() {
        if generate.is_empty() {
            return vec![FieldError::required(
                "metadata.name",
                "name or generateName is required",
            )];
        }
        return Vec::new();
    }
    name_errors(name)
        .into_iter()
        .map(|msg| FieldError::invalid("metadata.name", go_quote(name), &msg))
        .collect()
}

/// A copy of `v` with the values Go's semantic equality treats as unset
/// removed: nulls, empty strings, empty lists and empty maps.
pub(crate) fn semantic(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut out = Map::new();
            for (k, v) in m {
                let v = semantic(v);
                if !is_unset(&v) {
                    out.insert(k.clone(), v);
                }
            }
            Value::Object(out)
        }
        Value::Array(a) => Value::Array(a.iter().map(semantic).collect()),
        other => other.clone(),
    }
}

fn is_unset(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(m) => m.is_empty(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names() {
        assert!(dns1123_label_errors("web-0").is_empty());
        assert!(label_value_errors("My_value.1").is_empty());
        assert!(label_value_errors("").is_empty());
        assert_eq!(label_value_errors("-x").len(), 1);
        assert_eq!(label_value_errors(&"a".repeat(64)).len(), 1);
        assert!(qualified_name_errors("app.kubernetes.io/name").is_empty());
        assert_eq!(qualified_name_errors("Bad.Prefix/x").len(), 1);
        assert_eq!(qualified_name_errors("a/b/c").len(), 1);
        assert_eq!(dns1123_label_errors("Web").len(), 1);
        assert_eq!(
            dns1123_label_errors(&"a".repeat(64)),
            vec!["must be no more than 63 characters".to_string()]
        );
        assert!(dns1123_subdomain_errors("a.b-c").is_empty());
        assert_eq!(path_segment_error("system:auth-delegator"), None);
        assert_eq!(path_segment_error("..").as_deref(), Some("may not be '..'"));
        assert_eq!(
            path_segment_error("a/b").as_deref(),
            Some("may not contain '/'")
        );
        assert_eq!(dns1123_subdomain_errors("a..b").len(), 1);
        let errs = validate_create_name(
            &json!({"metadata": {"name": "Web_1"}}),
            dns1123_label_errors,
        );
        assert_eq!(errs.len(), 1);
        assert!(errs[0].to_string().starts_with(
            "metadata.name: Invalid value: \"Web_1\": a lowercase RFC 1123 label must consist of"
        ));
        let errs = validate_create_name(&json!({"metadata": {}}), dns1123_label_errors);
        assert_eq!(
            errs[0].to_string(),
            "metadata.name: Required value: name or generateName is required"
        );
        assert!(validate_create_name(
            &json!({"metadata": {"generateName": "web-"}}),
            dns1123_label_errors
        )
        .is_empty());
    }

    #[test]
    fn only_one_owner_reference_may_be_the_controller() {
        let set = json!({"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "web",
            "uid": "1", "controller": true, "blockOwnerDeletion": true});
        let map = json!({"apiVersion": "v1", "kind": "ConfigMap", "name": "dummy", "uid": "2",
            "controller": true});
        let plain = json!({"apiVersion": "v1", "kind": "Pod", "name": "web-1", "uid": "3"});
        let field = "metadata.ownerReferences";
        assert!(owner_references_errors(Some(&json!([set, plain])), field).is_empty());
        assert!(owner_references_errors(None, field).is_empty());
        let errs = owner_references_errors(Some(&json!([set, plain, map])), field);
        let messages: Vec<String> = errs.iter().map(ToString::to_string).collect();
        assert_eq!(
            messages,
            [concat!(
                r#"metadata.ownerReferences: Invalid value: [{"apiVersion":"apps/v1","kind":"StatefulSet","name":"web","uid":"1","controller":true,"blockOwnerDeletion":true},"#,
                r#"{"apiVersion":"v1","kind":"Pod","name":"web-1","uid":"3"},"#,
                r#"{"apiVersion":"v1","kind":"ConfigMap","name":"dummy","uid":"2","controller":true}]: "#,
                r#"Only one reference can have Controller set to true. Found "true" in references for StatefulSet/web and ConfigMap/dummy"#
            )]
        );
    }

    #[test]
    fn an_owner_reference_names_its_owner_in_full() {
        let errs = owner_references_errors(
            Some(&json!([{"apiVersion": "apps/", "kind": "", "name": "web"}])),
            "metadata.ownerReferences",
        );
        let messages: Vec<String> = errs.iter().map(ToString::to_string).collect();
        assert_eq!(
            messages,
            [
                r#"metadata.ownerReferences[0].apiVersion: Invalid value: "apps/": version must not be empty"#,
                r#"metadata.ownerReferences[0].kind: Invalid value: "": kind must not be empty"#,
                r#"metadata.ownerReferences[0].uid: Invalid value: "": uid must not be empty"#,
            ]
        );
    }

    #[test]
    fn semantic_equality_ignores_unset_values() {
        assert_eq!(
            semantic(&json!({"a": "", "b": [], "c": {}, "d": null, "e": {"f": ""}, "g": 0})),
            json!({"g": 0})
        );
    }

    #[test]
    fn defaults_fill_only_unset() {
        let mut m = Map::new();
        m.insert("a".into(), json!(""));
        m.insert("b".into(), json!("x"));
        default_value(&mut m, "a", json!("A"));
        default_value(&mut m, "b", json!("B"));
        default_value(&mut m, "c", json!(1));
        assert_eq!(Value::Object(m), json!({"a": "A", "b": "x", "c": 1}));
        let mut parent = Map::new();
        parent.insert("spec".into(), json!(3));
        child_obj(&mut parent, "spec").insert("x".into(), json!(1));
        assert_eq!(Value::Object(parent), json!({"spec": {"x": 1}}));
    }
}
