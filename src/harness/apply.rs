//! Applying a set's manifest again, as `kubectl apply -f` does for fields
//! someone else changed since: the StatefulSet concepts page says
//! "applying that manifest overwrites the manual scaling that you
//! previously did". kubectl's three-way patch sets every field whose live
//! value differs from the manifest; [`changed_fields`] computes that part
//! as a JSON merge patch (kubectl sends a strategic merge patch, which for
//! a changed map field or a replaced list says the same).

use serde_json::{Map, Value};

/// The merge patch that puts back every field `manifest` sets whose value
/// in `live` differs: maps are compared key by key, lists element by
/// element, anything else whole.
/// None when nothing differs.
pub(crate) fn changed_fields(manifest: &Value, live: &Value) -> Option<Value> {
    match (manifest, live) {
        (Value::Object(m), Value::Object(l)) => {
            let patch: Map<String, Value> = m
                .iter()
                .filter(|(k, _)| !matches!(k.as_str(), "status" | "apiVersion" | "kind"))
                .filter_map(|(k, v)| {
                    let changed = match l.get(k) {
                        Some(lv) => changed_fields(v, lv),
                        None => Some(v.clone()),
                    };
                    changed.map(|c| (k.clone(), c))
                })
                .collect();
            (!patch.is_empty()).then_some(Value::Object(patch))
        }
        // A list the live object holds element by element, with fields
        // only defaulting added, is unchanged (kubectl's strategic merge
        // matches elements by their merge key and leaves such fields).
        (Value::Array(m), Value::Array(l))
            if m.len() == l.len()
                && m.iter().zip(l).all(|(a, b)| changed_fields(a, b).is_none()) =>
        {
            None
        }
        (m, l) if m == l => None,
        (m, _) => Some(m.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_the_fields_changed_under_the_manifest_are_put_back() {
        let manifest = json!({"apiVersion": "apps/v1", "kind": "StatefulSet",
            "metadata": {"name": "web", "labels": {"app": "web"}},
            "spec": {"replicas": 2, "template": {"spec": {"containers": [{"name": "app", "image": "a"}]}}}});
        let mut live = manifest.clone();
        live["spec"]["replicas"] = json!(4);
        live["metadata"]["uid"] = json!("u1");
        live["metadata"]["labels"]["extra"] = json!("x");
        live["spec"]["template"]["spec"]["containers"][0]["imagePullPolicy"] =
            json!("IfNotPresent");
        live["status"] = json!({"replicas": 4});
        assert_eq!(
            changed_fields(&manifest, &live),
            Some(json!({"spec": {"replicas": 2}}))
        );
        live["spec"]["template"]["spec"]["containers"][0]["image"] = json!("b");
        assert_eq!(
            changed_fields(&manifest, &live),
            Some(json!({"spec": {
                "replicas": 2,
                "template": {"spec": {"containers": [{"name": "app", "image": "a"}]}}}}))
        );
        let mut same = manifest.clone();
        same["metadata"]["uid"] = json!("u1");
        assert_eq!(changed_fields(&manifest, &same), None);
    }
}
