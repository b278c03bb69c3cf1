//! Custom resources as kube-apiserver keeps them: pruned to their
//! structural schema and checked against its types.
//!
//! kube-apiserver drops every field a CustomResourceDefinition's
//! `openAPIV3Schema` does not specify, except under a node with
//! `x-kubernetes-preserve-unknown-fields: true` (apiextensions-apiserver
//! `pkg/apiserver/schema/pruning`); with `fieldValidation=Warn` (the
//! default) it names each dropped field in a `Warning` header, with
//! `Strict` it refuses the request. A value of the wrong type is a 422:
//! `spec.replicas: Invalid value: "string": spec.replicas in body must be
//! of type integer: "string"` (kube-openapi's validation errors).
//! `metadata` is not pruned here (it is ObjectMeta for every kind).

use serde_json::{Map, Value};

/// The paths (`spec.minReadySeconds`, `spec.x[0].y`) of the fields of `obj`
/// that `schema` does not specify. `apiVersion`, `kind` and `metadata` are
/// always known.
pub fn unknown_paths(schema: &Value, obj: &Value) -> Vec<String> {
    let mut out = Vec::new();
    if let (Some(props), Some(map)) = (schema.get("properties"), obj.as_object()) {
        for (k, v) in map {
            if matches!(k.as_str(), "apiVersion" | "kind" | "metadata") {
                continue;
            }
            match props.get(k) {
                Some(s) => walk(s, v, k, &mut out),
                None if preserves(schema) => {}
                None => out.push(k.clone()),
            }
        }
    }
    out
}

fn preserves(schema: &Value) -> bool {
    schema["x-kubernetes-preserve-unknown-fields"] == true
}

fn walk(schema: &Value, v: &Value, at: &str, out: &mut Vec<String>) {
    match v {
        Value::Object(map) => {
            let props = schema.get("properties").and_then(Value::as_object);
            let additional = schema.get("additionalProperties").filter(|a| a.is_object());
            for (k, child) in map {
                let path = format!("{at}.{k}");
                match (props.and_then(|p| p.get(k)), additional) {
                    (Some(s), _) => walk(s, child, &path, out),
                    (None, Some(s)) => walk(s, child, &path, out),
                    (None, None) if preserves(schema) || schema["additionalProperties"] == true => {
                    }
                    (None, None) => out.push(path),
                }
            }
        }
        Value::Array(items) => {
            if let Some(s) = schema.get("items") {
                for (i, child) in items.iter().enumerate() {
                    walk(s, child, &format!("{at}[{i}]"), out);
                }
            }
        }
        _ => {}
    }
}

/// Removes the fields at `paths` (as [`unknown_paths`] names them).
pub fn prune(obj: &mut Value, paths: &[String]) {
    super::typed::remove_paths(obj, paths);
}

/// One value of the wrong type: its field path, the value's JSON type, the
/// schema's type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TypeError {
    /// `spec.replicas`.
    pub field: String,
    /// `string`, `integer`, `number`, `boolean`, `array`, `object`, `null`.
    pub found: &'static str,
    /// What the schema says.
    pub expected: String,
}

impl TypeError {
    /// kube-openapi's message, as kube-apiserver words it in the cause.
    pub fn message(&self) -> String {
        format!(
            "Invalid value: \"{}\": {} in body must be of type {}: \"{}\"",
            self.found, self.field, self.expected, self.found
        )
    }
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Every value of `obj` (outside metadata) whose type the schema contradicts.
pub fn type_errors(schema: &Value, obj: &Value) -> Vec<TypeError> {
    let mut out = Vec::new();
    if let (Some(props), Some(map)) = (schema.get("properties"), obj.as_object()) {
        for (k, v) in map {
            if matches!(k.as_str(), "apiVersion" | "kind" | "metadata") {
                continue;
            }
            if let Some(s) = props.get(k) {
                check(s, v, k, &mut out);
            }
        }
    }
    out
}

fn check(schema: &Value, v: &Value, at: &str, out: &mut Vec<TypeError>) {
    let found = json_type(v);
    if v.is_null() {
        // Nulls of non-nullable fields are dropped by the apiserver's
        // defaulting of custom resources rather than refused.
        return;
    }
    if schema["x-kubernetes-int-or-string"] == true {
        if !matches!(found, "integer" | "string") {
            out.push(TypeError {
                field: at.to_string(),
                found,
                expected: "integer or string".into(),
            });
        }
        return;
    }
    let Some(expected) = schema["type"].as_str() else {
        return;
    };
    let ok = match expected {
        "number" => matches!(found, "number" | "integer"),
        other => other == found,
    };
    if !ok {
        out.push(TypeError {
            field: at.to_string(),
            found,
            expected: expected.to_string(),
        });
        return;
    }
    match v {
        Value::Object(map) => {
            let props = schema.get("properties").and_then(Value::as_object);
            let additional = schema.get("additionalProperties").filter(|a| a.is_object());
            for (k, child) in map {
                let s = props.and_then(|p| p.get(k)).or(additional);
                if let Some(s) = s {
                    check(s, child, &format!("{at}.{k}"), out);
                }
            }
        }
        Value::Array(items) => {
            if let Some(s) = schema.get("items") {
                for (i, child) in items.iter().enumerate() {
                    check(s, child, &format!("{at}[{i}]"), out);
                }
            }
        }
        _ => {}
    }
}

/// The `openAPIV3Schema` of one version of a CRD, if it has one.
pub fn schema_of(version: &Map<String, Value>) -> Option<Value> {
    version
        .get("schema")
        .and_then(|s| s.get("openAPIV3Schema"))
        .cloned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({"type": "object", "properties": {
            "spec": {"type": "object", "properties": {
                "replicas": {"type": "integer"},
                "template": {"x-kubernetes-preserve-unknown-fields": true},
                "updateStrategy": {"type": "object", "properties": {
                    "rollingUpdate": {"type": "object", "properties": {
                        "minReadySeconds": {"type": "integer"},
                        "maxUnavailable": {"anyOf": [{"type": "integer"}, {"type": "string"}], "x-kubernetes-int-or-string": true}
                    }}
                }},
                "selector": {"type": "object", "properties": {
                    "matchLabels": {"type": "object", "additionalProperties": {"type": "string"}}
                }}
            }},
            "status": {"type": "object", "properties": {"replicas": {"type": "integer"}}}
        }})
    }

    #[test]
    fn fields_the_schema_does_not_specify_are_unknown_except_where_preserved() {
        let obj = json!({"apiVersion": "x/v1", "kind": "X", "metadata": {"name": "a", "anything": 1},
            "spec": {"replicas": 1, "minReadySeconds": 5,
                "template": {"whatever": {"deep": true}},
                "selector": {"matchLabels": {"app": "web"}},
                "updateStrategy": {"rollingUpdate": {"minReadySeconds": 5, "partition": 1}}},
            "extra": true});
        let unknown = unknown_paths(&schema(), &obj);
        assert_eq!(
            unknown,
            vec![
                "spec.minReadySeconds",
                "spec.updateStrategy.rollingUpdate.partition",
                "extra"
            ]
        );
        let mut pruned = obj.clone();
        prune(&mut pruned, &unknown);
        assert!(pruned["spec"].get("minReadySeconds").is_none());
        assert_eq!(
            pruned["spec"]["updateStrategy"]["rollingUpdate"]["minReadySeconds"],
            5
        );
        assert_eq!(pruned["spec"]["template"]["whatever"]["deep"], true);
    }

    #[test]
    fn values_of_the_wrong_type_are_named_like_kube_openapi() {
        let obj = json!({"spec": {"replicas": "three",
            "updateStrategy": {"rollingUpdate": {"maxUnavailable": true}}}});
        let errs = type_errors(&schema(), &obj);
        assert_eq!(errs.len(), 2);
        assert_eq!(
            errs[0].message(),
            "Invalid value: \"string\": spec.replicas in body must be of type integer: \"string\""
        );
        assert_eq!(
            errs[1].field,
            "spec.updateStrategy.rollingUpdate.maxUnavailable"
        );
        assert!(type_errors(&schema(), &json!({"spec": {"replicas": 3, "updateStrategy": {"rollingUpdate": {"maxUnavailable": "50%"}}}})).is_empty());
    }
}
