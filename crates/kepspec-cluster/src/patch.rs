//! Patch application: JSON patch (RFC 6902), JSON merge patch (RFC 7386) and
//! strategic merge patch with the patch-merge keys of the built-in types.

use serde_json::{Map, Value};

use super::managed::{self, ListType};

/// The patch flavours the server accepts, by content type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PatchType {
    /// `application/json-patch+json`
    Json,
    /// `application/merge-patch+json`
    Merge,
    /// `application/strategic-merge-patch+json`
    Strategic,
    /// `application/apply-patch+yaml` (server-side apply)
    Apply,
}

impl PatchType {
    /// Maps a Content-Type (parameters ignored) to a patch type.
    pub(crate) fn from_content_type(ct: &str) -> Option<Self> {
        let base = ct.split(';').next().unwrap_or("").trim();
        match base {
            "application/json-patch+json" => Some(PatchType::Json),
            "application/merge-patch+json" => Some(PatchType::Merge),
            "application/strategic-merge-patch+json" => Some(PatchType::Strategic),
            "application/apply-patch+yaml" | "application/apply-patch+json" => {
                Some(PatchType::Apply)
            }
            _ => None,
        }
    }
}

/// Why a patch could not be applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum PatchError {
    /// The patch document itself is malformed (upstream: 400).
    Decode(String),
    /// The patch is well-formed but does not apply, e.g. a failed `test` (upstream: 422).
    Apply(String),
}

/// Applies an RFC 6902 JSON patch.
pub(crate) fn apply_json_patch(doc: &Value, patch: &Value) -> Result<Value, PatchError> {
    let ops: json_patch::Patch = serde_json::from_value(patch.clone())
        .map_err(|e| PatchError::Decode(format!("invalid JSON patch: {e}")))?;
    let mut out = doc.clone();
    json_patch::patch(&mut out, &ops.0).map_err(|e| PatchError::Apply(e.to_string()))?;
    Ok(out)
}

/// Applies an RFC 7386 merge patch.
pub(crate) fn apply_merge_patch(doc: &Value, patch: &Value) -> Value {
    let mut out = doc.clone();
    json_patch::merge(&mut out, patch);
    out
}

/// The patch merge key of a list field of the built-in types, from the field
/// name and (for `ports`) the element shape: the first key of the list's
/// server-side apply keys (`+patchMergeKey` is that key for every list both
/// know), and `type` for a node's addresses, which apply replaces whole.
fn merge_key(field: &str, sample: Option<&Value>) -> Option<&'static str> {
    match (field, managed::list_type(field, sample)) {
        (_, ListType::Map { keys, .. }) => keys.first().copied(),
        ("addresses", _) => Some("type"),
        ("ports", _) => Some("port"),
        _ => None,
    }
}

/// List fields of primitives whose patch strategy is `merge` (set union).
fn merges_primitives(field: &str) -> bool {
    managed::list_type(field, None) == ListType::Set
}

fn is_directive(k: &str) -> bool {
    k.starts_with("$setElementOrder/")
        || k.starts_with("$deleteFromPrimitiveList/")
        || k == "$retainKeys"
        || k == "$patch"
}

/// Applies a strategic merge patch.
pub fn apply_strategic_merge_patch(doc: &Value, patch: &Value) -> Result<Value, String> {
    if !patch.is_object() {
        return Err("strategic merge patch must be a JSON object".to_string());
    }
    Ok(merge_map_value(Some(doc), patch).unwrap_or(Value::Object(Map::new())))
}

/// Merges a patch map into an original value; `None` means "delete".
fn merge_map_value(orig: Option<&Value>, patch: &Value) -> Option<Value> {
    let Some(pm) = patch.as_object() else {
        return Some(patch.clone());
    };
    match pm.get("$patch").and_then(Value::as_str) {
        Some("delete") => return None,
        Some("replace") => return Some(Value::Object(strip_directives(pm))),
        _ => {}
    }
    let mut out = match orig {
        Some(Value::Object(m)) => m.clone(),
        _ => Map::new(),
    };
    for (k, pv) in pm {
        if let Some(field) = k.strip_prefix("$deleteFromPrimitiveList/") {
            if let (Some(Value::Array(cur)), Some(del)) = (out.get_mut(field), pv.as_array()) {
                cur.retain(|x| !del.contains(x));
            }
            continue;
        }
        if is_directive(k) {
            continue;
        }
        if pv.is_null() {
            out.remove(k);
            continue;
        }
        let merged = match pv {
            Value::Object(_) => merge_map_value(out.get(k), pv),
            Value::Array(items) => Some(merge_list(k, out.get(k), items)),
            _ => Some(pv.clone()),
        };
        match merged {
            Some(v) => {
                out.insert(k.clone(), v);
            }
            None => {
                out.remove(k);
            }
        }
    }
    Some(Value::Object(out))
}

fn strip_directives(m: &Map<String, Value>) -> Map<String, Value> {
    m.iter()
        .filter(|(k, _)| !is_directive(k))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

fn merge_list(field: &str, orig: Option<&Value>, patch: &[Value]) -> Value {
    let replace = patch
        .iter()
        .any(|p| p.get("$patch").and_then(Value::as_str) == Some("replace"));
    let items: Vec<&Value> = patch
        .iter()
        .filter(|p| p.get("$patch").and_then(Value::as_str) != Some("replace"))
        .collect();
    let orig_items: Vec<Value> = match orig {
        Some(Value::Array(a)) if !replace => a.clone(),
        _ => Vec::new(),
    };
    if replace {
        return Value::Array(
            items
                .iter()
                .map(|v| match v.as_object() {
                    Some(m) => Value::Object(strip_directives(m)),
                    None => (*v).clone(),
                })
                .collect(),
        );
    }
    if merges_primitives(field) {
        let mut out = orig_items;
        for p in items {
            if !out.contains(p) {
                out.push(p.clone());
            }
        }
        return Value::Array(out);
    }
    let Some(key) = merge_key(field, items.first().copied().or(orig_items.first())) else {
        return Value::Array(
            items
                .iter()
                .map(|v| merge_map_value(None, v).unwrap_or(Value::Null))
                .collect(),
        );
    };
    let mut out = orig_items;
    for p in items {
        let Some(id) = p.get(key) else {
            out.push(p.clone());
            continue;
        };
        let pos = out.iter().position(|o| o.get(key) == Some(id));
        let delete = p.get("$patch").and_then(Value::as_str) == Some("delete");
        match (pos, delete) {
            (Some(i), true) => {
                out.remove(i);
            }
            (None, true) => {}
            (Some(i), false) => {
                if let Some(v) = merge_map_value(Some(&out[i]), p) {
                    out[i] = v;
                }
            }
            (None, false) => {
                if let Some(v) = merge_map_value(None, p) {
                    out.push(v);
                }
            }
        }
    }
    Value::Array(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn content_types() {
        assert_eq!(
            PatchType::from_content_type("application/merge-patch+json; charset=utf-8"),
            Some(PatchType::Merge)
        );
        assert_eq!(PatchType::from_content_type("application/json"), None);
    }

    #[test]
    fn json_patch_with_test_op() {
        let doc = json!({"spec": {"replicas": 3}});
        let ok = apply_json_patch(
            &doc,
            &json!([{"op": "test", "path": "/spec/replicas", "value": 3},
                    {"op": "replace", "path": "/spec/replicas", "value": 5}]),
        )
        .unwrap();
        assert_eq!(ok["spec"]["replicas"], 5);
        assert!(apply_json_patch(
            &doc,
            &json!([{"op": "test", "path": "/spec/replicas", "value": 4}])
        )
        .is_err());
        assert!(apply_json_patch(&doc, &json!({"op": "x"})).is_err());
    }

    #[test]
    fn merge_patch_replaces_lists_and_deletes_nulls() {
        let doc = json!({"a": {"b": 1, "c": 2}, "l": [1, 2]});
        let out = apply_merge_patch(&doc, &json!({"a": {"b": null}, "l": [3]}));
        assert_eq!(out, json!({"a": {"c": 2}, "l": [3]}));
    }

    #[test]
    fn strategic_merges_containers_by_name() {
        let doc = json!({"spec": {"containers": [
            {"name": "a", "image": "x:1", "env": [{"name": "E", "value": "1"}]},
            {"name": "b", "image": "y:1"}]}});
        let patch = json!({"spec": {"containers": [
            {"name": "a", "image": "x:2", "env": [{"name": "F", "value": "2"}]},
            {"name": "b", "$patch": "delete"},
            {"name": "c", "image": "z:1"}],
            "$setElementOrder/containers": [{"name": "a"}, {"name": "c"}]}});
        let out = apply_strategic_merge_patch(&doc, &patch).unwrap();
        let cs = out["spec"]["containers"].as_array().unwrap();
        assert_eq!(cs.len(), 2);
        assert_eq!(cs[0]["image"], "x:2");
        assert_eq!(cs[0]["env"].as_array().unwrap().len(), 2);
        assert_eq!(cs[1]["name"], "c");
        assert!(out["spec"].get("$setElementOrder/containers").is_none());
    }

    #[test]
    fn strategic_directives() {
        let doc = json!({"metadata": {"finalizers": ["a"], "labels": {"x": "1", "y": "2"}},
            "spec": {"tolerations": [{"key": "a"}], "ports": [{"port": 80, "name": "http"}],
                     "conditions": [{"type": "Ready", "status": "False"}]}});
        let patch = json!({"metadata": {"finalizers": ["b"], "labels": {"$patch": "replace", "z": "3"}},
            "spec": {"tolerations": [{"key": "b"}], "ports": [{"port": 80, "name": "web"}],
                     "conditions": [{"type": "Ready", "status": "True"}]}});
        let out = apply_strategic_merge_patch(&doc, &patch).unwrap();
        assert_eq!(out["metadata"]["finalizers"], json!(["a", "b"]));
        assert_eq!(out["metadata"]["labels"], json!({"z": "3"}));
        assert_eq!(out["spec"]["tolerations"], json!([{"key": "b"}]));
        assert_eq!(out["spec"]["ports"], json!([{"port": 80, "name": "web"}]));
        assert_eq!(
            out["spec"]["conditions"],
            json!([{"type": "Ready", "status": "True"}])
        );
        let out = apply_strategic_merge_patch(
            &out,
            &json!({"metadata": {"$deleteFromPrimitiveList/finalizers": ["a"]},
                    "spec": {"tolerations": [{"$patch": "replace"}], "ports": {"$patch": "delete"}}}),
        )
        .unwrap();
        assert_eq!(out["metadata"]["finalizers"], json!(["b"]));
        assert_eq!(out["spec"]["tolerations"], json!([]));
        assert!(out["spec"].get("ports").is_none());
    }
}
