//! Tables for custom resources with `additionalPrinterColumns`.

use serde_json::{json, Value};

use super::super::resources::ResourceInfo;
use super::table::{age, row_object};

/// Evaluates the simple JSONPath forms printer columns use (`.a.b`, `.a[0].b`).
pub(super) fn simple_json_path<'a>(obj: &'a Value, path: &str) -> Option<&'a Value> {
    let mut cur = obj;
    for seg in path
        .trim_start_matches('.')
        .split('.')
        .filter(|s| !s.is_empty())
    {
        let (field, rest) = match seg.find('[') {
            Some(i) => (&seg[..i], &seg[i..]),
            None => (seg, ""),
        };
        if !field.is_empty() {
            cur = cur.get(field)?;
        }
        for idx in rest.split('[').filter(|s| !s.is_empty()) {
            let n: usize = idx.trim_end_matches(']').parse().ok()?;
            cur = cur.get(n)?;
        }
    }
    Some(cur)
}

/// A Table with a custom resource's printer columns.
pub(super) fn custom_table(
    info: &ResourceInfo,
    objects: &[Value],
    list_meta: Value,
    include: &str,
) -> Value {
    let now = jiff::Timestamp::now();
    let mut defs = vec![
        json!({"name": "Name", "type": "string", "format": "name", "description": "", "priority": 0}),
    ];
    for c in &info.printer_columns {
        let ty = if c.type_ == "date" {
            "string"
        } else {
            c.type_.as_str()
        };
        defs.push(json!({"name": c.name, "type": ty, "format": "", "description": "", "priority": c.priority}));
    }
    let rows: Vec<Value> = objects
        .iter()
        .map(|o| {
            let mut cells = vec![o["metadata"]["name"].clone()];
            for c in &info.printer_columns {
                let v = simple_json_path(o, &c.json_path)
                    .cloned()
                    .unwrap_or(Value::Null);
                cells.push(if c.type_ == "date" {
                    json!(age(&v, now))
                } else {
                    v
                });
            }
            json!({"cells": cells, "object": row_object(info, o, include)})
        })
        .collect();
    json!({"kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": list_meta, "columnDefinitions": defs, "rows": rows})
}

#[cfg(test)]
mod tests {
    use super::super::table::table;
    use super::*;

    #[test]
    fn custom_resources_use_their_printer_columns() {
        let crd = json!({"spec": {"group": "apps.kruise.io", "names": {"plural": "statefulsets", "kind": "StatefulSet"},
            "versions": [{"name": "v1beta1", "served": true, "additionalPrinterColumns": [
                {"name": "DESIRED", "type": "integer", "jsonPath": ".spec.replicas"},
                {"name": "FIRST", "type": "string", "jsonPath": ".status.conditions[0].type"},
                {"name": "AGE", "type": "date", "jsonPath": ".metadata.creationTimestamp"}]}]}});
        let info = super::super::super::resources::from_crd(&crd).remove(0);
        let o = json!({"metadata": {"name": "s", "creationTimestamp": "bad"}, "spec": {"replicas": 3}, "status": {"conditions": [{"type": "Ready"}]}});
        let t = table(&info, std::slice::from_ref(&o), json!({}), "None");
        assert_eq!(t["rows"][0]["cells"], json!(["s", 3, "Ready", "<unknown>"]));
        assert_eq!(simple_json_path(&o, ".status.conditions[1].type"), None);
    }
}
