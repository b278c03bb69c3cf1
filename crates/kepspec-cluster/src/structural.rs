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
pub(crate) fn prune(obj: &mut Value, paths: &[String]) {
    super::typed::remove_paths(obj, paths);
}

/// One value the schema refuses: its field path and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TypeError {
    /// `spec.replicas`.
    pub field: String,
    /// `string`, `integer`, `number`, `boolean`, `array`, `object`, `null`
    /// (for a wrong type; otherwise the JSON type of the value).
    pub found: &'static str,
    /// What the schema says (for a wrong type).
    pub expected: String,
    /// Which rule the value breaks.
    pub rule: Rule,
}

/// The schema rule a value breaks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rule {
    /// `type` (or `x-kubernetes-int-or-string`).
    Type,
    /// `required`: the field is missing.
    Required,
    /// `enum`: the value (as Go prints it) and the allowed ones.
    Enum(String, Vec<String>),
    /// `minimum`, `maximum`, `pattern` and the like: the value as Go
    /// prints it and kube-openapi's sentence.
    Invalid(String, String),
}

impl TypeError {
    /// The cause's message, as apiextensions-apiserver turns kube-openapi's
    /// result into field errors (`kubeOpenAPIResultToFieldErrors`).
    pub fn message(&self) -> String {
        match &self.rule {
            Rule::Type => format!(
                "Invalid value: \"{}\": {} in body must be of type {}: \"{}\"",
                self.found, self.field, self.expected, self.found
            ),
            Rule::Required => "Required value".to_string(),
            Rule::Enum(value, allowed) => format!(
                "Unsupported value: {value}: supported values: {}",
                allowed.join(", ")
            ),
            Rule::Invalid(value, sentence) => format!("Invalid value: {value}: {sentence}"),
        }
    }

    /// The cause's reason.
    pub fn reason(&self) -> &'static str {
        match self.rule {
            Rule::Required => "FieldValueRequired",
            Rule::Enum(..) => "FieldValueNotSupported",
            _ => "FieldValueInvalid",
        }
    }
}

/// A value as Go's `%#v` of a field error prints it: strings quoted,
/// numbers and booleans bare.
fn go_value(v: &Value) -> String {
    match v {
        Value::String(s) => format!("{s:?}"),
        other => other.to_string(),
    }
}

/// The value rules other than the type: `enum`, `minimum`/`maximum` (and
/// their exclusive forms), `pattern`, `minLength`/`maxLength` in runes,
/// `minItems`/`maxItems`, with kube-openapi's sentences.
fn value_rules(schema: &Value, v: &Value, at: &str, out: &mut Vec<TypeError>) {
    let mut invalid = |sentence: String| {
        out.push(TypeError {
            field: at.to_string(),
            found: json_type(v),
            expected: String::new(),
            rule: Rule::Invalid(go_value(v), sentence),
        })
    };
    if let Some(n) = v.as_f64() {
        let exclusive = |k: &str| schema[k] == true;
        if let Some(min) = schema.get("minimum").and_then(Value::as_f64) {
            if exclusive("exclusiveMinimum") && n <= min {
                invalid(format!(
                    "{at} in body should be greater than {}",
                    schema["minimum"]
                ));
            } else if n < min {
                invalid(format!(
                    "{at} in body should be greater than or equal to {}",
                    schema["minimum"]
                ));
            }
        }
        if let Some(max) = schema.get("maximum").and_then(Value::as_f64) {
            if exclusive("exclusiveMaximum") && n >= max {
                invalid(format!(
                    "{at} in body should be less than {}",
                    schema["maximum"]
                ));
            } else if n > max {
                invalid(format!(
                    "{at} in body should be less than or equal to {}",
                    schema["maximum"]
                ));
            }
        }
    }
    if let Some(text) = v.as_str() {
        let runes = text.chars().count() as u64;
        if let Some(min) = schema.get("minLength").and_then(Value::as_u64) {
            if runes < min {
                invalid(format!("{at} in body should be at least {min} chars long"));
            }
        }
        if let Some(max) = schema.get("maxLength").and_then(Value::as_u64) {
            if runes > max {
                invalid(format!("{at} in body should be at most {max} chars long"));
            }
        }
        if let Some(pattern) = schema.get("pattern").and_then(Value::as_str) {
            if regex::Regex::new(pattern).is_ok_and(|re| !re.is_match(text)) {
                invalid(format!("{at} in body should match '{pattern}'"));
            }
        }
    }
    if let Some(items) = v.as_array() {
        let n = items.len() as u64;
        if let Some(min) = schema.get("minItems").and_then(Value::as_u64) {
            if n < min {
                invalid(format!("{at} in body should have at least {min} items"));
            }
        }
        if let Some(max) = schema.get("maxItems").and_then(Value::as_u64) {
            if n > max {
                invalid(format!("{at} in body should have at most {max} items"));
            }
        }
    }
    if let Some(allowed) = schema.get("enum").and_then(Value::as_array) {
        if !allowed.contains(v) {
            out.push(TypeError {
                field: at.to_string(),
                found: json_type(v),
                expected: String::new(),
                rule: Rule::Enum(go_value(v), allowed.iter().map(go_value).collect()),
            });
        }
    }
}

/// The `required` properties of an object schema that `has` says are
/// missing.
fn missing_required(
    schema: &Value,
    has: impl Fn(&str) -> bool,
    at: &str,
    out: &mut Vec<TypeError>,
) {
    for r in schema["required"].as_array().into_iter().flatten() {
        if let Some(name) = r.as_str() {
            if !has(name) {
                out.push(TypeError {
                    field: if at.is_empty() {
                        name.to_string()
                    } else {
                        format!("{at}.{name}")
                    },
                    found: "null",
                    expected: String::new(),
                    rule: Rule::Required,
                });
            }
        }
    }
}

/// Fills the `default` of every property the object lacks, at any depth, as
/// kube-apiserver defaults a custom resource from its structural schema
/// (apiextensions-apiserver `pkg/apiserver/schema/defaulting`).
pub(crate) fn apply_defaults(schema: &Value, obj: &mut Value) {
    match obj {
        Value::Object(map) => {
            if let Some(props) = schema.get("properties").and_then(Value::as_object) {
                for (k, s) in props {
                    if matches!(k.as_str(), "apiVersion" | "kind" | "metadata") {
                        continue;
                    }
                    if !map.contains_key(k) {
                        if let Some(d) = s.get("default") {
                            map.insert(k.clone(), d.clone());
                        }
                    }
                    if let Some(child) = map.get_mut(k) {
                        apply_defaults(s, child);
                    }
                }
            }
        }
        Value::Array(items) => {
            if let Some(s) = schema.get("items") {
                for child in items {
                    apply_defaults(s, child);
                }
            }
        }
        _ => {}
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

/// Every value of `obj` (outside metadata) the schema refuses: wrong types,
/// missing required fields, values outside their enum, bounds, lengths or
/// pattern.
pub fn type_errors(schema: &Value, obj: &Value) -> Vec<TypeError> {
    let mut out = Vec::new();
    if let Some(map) = obj.as_object() {
        // apiVersion, kind and metadata are always there for the schema.
        let has = |k: &str| map.contains_key(k) || matches!(k, "apiVersion" | "kind" | "metadata");
        missing_required(schema, has, "", &mut out);
    }
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
                rule: Rule::Type,
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
            rule: Rule::Type,
        });
        return;
    }
    value_rules(schema, v, at, out);
    match v {
        Value::Object(map) => {
            missing_required(schema, |k| map.contains_key(k), at, out);
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

    #[test]
    fn value_rules_speak_as_apiextensions_apiserver() {
        let schema = json!({"type": "object", "properties": {"spec": {"type": "object",
            "required": ["size"],
            "properties": {
                "size": {"type": "integer", "minimum": 1, "exclusiveMaximum": true, "maximum": 10},
                "mode": {"type": "string", "enum": ["fast", "safe"], "default": "safe"},
                "tags": {"type": "array", "maxItems": 1, "items": {"type": "string", "maxLength": 3}}}}}});
        let messages = |obj: Value| -> Vec<String> {
            type_errors(&schema, &obj)
                .iter()
                .map(|e| format!("{}: {}", e.field, e.message()))
                .collect()
        };
        assert_eq!(
            messages(json!({"spec": {"size": 10, "tags": ["a", "long"]}})),
            [
                "spec.size: Invalid value: 10: spec.size in body should be less than 10",
                "spec.tags: Invalid value: [\"a\",\"long\"]: spec.tags in body should have at most 1 items",
                "spec.tags[1]: Invalid value: \"long\": spec.tags[1] in body should be at most 3 chars long",
            ]
        );
        assert_eq!(messages(json!({"spec": {}})), ["spec.size: Required value"]);
        let mut obj = json!({"spec": {"size": 2}});
        apply_defaults(&schema, &mut obj);
        assert_eq!(obj["spec"]["mode"], "safe");
        assert!(messages(obj).is_empty());
    }

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
