//! The structured merge of server-side apply, on JSON values: the field set
//! of a configuration, the merge of a configuration into a live object, the
//! comparison of two objects and the pruning of fields no manager owns any
//! more (structured-merge-diff's `ToFieldSet`, `Merge`, `Compare` and the
//! updater's `prune`).

use serde_json::{Map, Value};

use super::schema::{atomic_object, item_key, list_type, value_key, ListType};
use super::set::{display, FieldSet, Path};

/// The fields a configuration sets. `Err` names the list item that lacks
/// its key, as structured-merge-diff refuses it.
pub(super) fn field_set(config: &Value) -> Result<FieldSet, String> {
    let mut out = FieldSet::default();
    if let Some(m) = config.as_object() {
        object_set(m, &mut Vec::new(), &mut out)?;
    }
    Ok(out)
}

fn object_set(m: &Map<String, Value>, path: &mut Path, out: &mut FieldSet) -> Result<(), String> {
    for (k, v) in m {
        path.push(format!("f:{k}"));
        value_set(k, v, path, out)?;
        path.pop();
    }
    Ok(())
}

/// The paths of the value `v` of field `field` at `path`: leaves, atomic
/// nodes, empty objects and list items are members; structs are not.
fn value_set(field: &str, v: &Value, path: &mut Path, out: &mut FieldSet) -> Result<(), String> {
    match v {
        Value::Object(m) if !m.is_empty() && !atomic_object(field) => object_set(m, path, out),
        Value::Array(items) => match list_type(field, items.first()) {
            ListType::Atomic => {
                out.insert(path);
                Ok(())
            }
            ListType::Set => {
                for it in items {
                    path.push(value_key(it));
                    out.insert(path);
                    path.pop();
                }
                Ok(())
            }
            ListType::Map { keys, atomic } => {
                for (i, it) in items.iter().enumerate() {
                    let pe = item_key(keys, it)
                        .map_err(|e| format!("{}: element {i}: {e}", display(path)))?;
                    path.push(pe);
                    item_set(atomic, it, path, out)?;
                    path.pop();
                }
                Ok(())
            }
        },
        _ => {
            out.insert(path);
            Ok(())
        }
    }
}

fn item_set(atomic: bool, item: &Value, path: &mut Path, out: &mut FieldSet) -> Result<(), String> {
    out.insert(path);
    match item.as_object() {
        Some(m) if !atomic => object_set(m, path, out),
        _ => Ok(()),
    }
}

/// Merges `config` into `live`: objects field by field, associative lists
/// item by item (live order, new items after), sets by value; anything else
/// (scalars, atomic lists and objects) is replaced. A `null` unsets.
pub(super) fn merge(live: &Value, config: &Value) -> Value {
    merge_value("", Some(live), config)
}

fn merge_value(field: &str, live: Option<&Value>, config: &Value) -> Value {
    match (live, config) {
        (Some(Value::Object(l)), Value::Object(c)) if !atomic_object(field) => {
            let mut out = l.clone();
            for (k, v) in c {
                if v.is_null() {
                    out.remove(k);
                    continue;
                }
                let merged = merge_value(k, out.get(k), v);
                out.insert(k.clone(), merged);
            }
            Value::Object(out)
        }
        (Some(Value::Array(l)), Value::Array(c)) => {
            match list_type(field, c.first().or(l.first())) {
                ListType::Atomic => config.clone(),
                ListType::Set => {
                    let mut out = l.clone();
                    for it in c {
                        if !out.contains(it) {
                            out.push(it.clone());
                        }
                    }
                    Value::Array(out)
                }
                ListType::Map { keys, atomic } => {
                    let mut out = l.clone();
                    for it in c {
                        let key = item_key(keys, it).ok();
                        match out.iter().position(|x| item_key(keys, x).ok() == key) {
                            Some(i) if !atomic => out[i] = merge_value("", Some(&out[i]), it),
                            Some(i) => out[i] = it.clone(),
                            None => out.push(it.clone()),
                        }
                    }
                    Value::Array(out)
                }
            }
        }
        _ => config.clone(),
    }
}

/// What changed from `old` to `new`: the paths added or modified, and the
/// paths removed. `metadata.managedFields` is no field a manager owns, so
/// it is left out (read in place: neither object is copied).
pub(super) fn compare(old: &Value, new: &Value) -> (FieldSet, FieldSet) {
    let mut changed = FieldSet::default();
    let mut removed = FieldSet::default();
    let empty = Map::new();
    let (o, n) = (
        old.as_object().unwrap_or(&empty),
        new.as_object().unwrap_or(&empty),
    );
    compare_objects(o, n, &mut Vec::new(), &mut changed, &mut removed);
    (changed, removed)
}

fn compare_objects(
    o: &Map<String, Value>,
    n: &Map<String, Value>,
    path: &mut Path,
    changed: &mut FieldSet,
    removed: &mut FieldSet,
) {
    let in_metadata = path.len() == 1 && path[0] == "f:metadata";
    for k in o.keys().chain(n.keys().filter(|k| !o.contains_key(*k))) {
        if in_metadata && k == "managedFields" {
            continue;
        }
        path.push(format!("f:{k}"));
        compare_value(k, o.get(k), n.get(k), path, changed, removed);
        path.pop();
    }
}

fn compare_value(
    field: &str,
    old: Option<&Value>,
    new: Option<&Value>,
    path: &mut Path,
    changed: &mut FieldSet,
    removed: &mut FieldSet,
) {
    match (old, new) {
        (Some(o), Some(n)) if o == n => {}
        (Some(Value::Object(o)), Some(Value::Object(n)))
            if !atomic_object(field) && !o.is_empty() && !n.is_empty() =>
        {
            compare_objects(o, n, path, changed, removed);
        }
        (Some(Value::Array(o)), Some(Value::Array(n))) => {
            compare_lists(field, o, n, path, changed, removed);
        }
        (o, n) => {
            // Sets built from values already checked for keys never fail.
            if let Some(o) = o {
                let _ = value_set(field, o, path, removed);
            }
            if let Some(n) = n {
                let _ = value_set(field, n, path, changed);
            }
        }
    }
}

fn compare_lists(
    field: &str,
    o: &[Value],
    n: &[Value],
    path: &mut Path,
    changed: &mut FieldSet,
    removed: &mut FieldSet,
) {
    match list_type(field, n.first().or(o.first())) {
        ListType::Atomic => changed.insert(path),
        ListType::Set => {
            for it in n.iter().filter(|it| !o.contains(it)) {
                path.push(value_key(it));
                changed.insert(path);
                path.pop();
            }
            for it in o.iter().filter(|it| !n.contains(it)) {
                path.push(value_key(it));
                removed.insert(path);
                path.pop();
            }
        }
        ListType::Map { keys, atomic } => {
            let keyed = |items: &[Value]| -> Vec<(String, Value)> {
                items
                    .iter()
                    .filter_map(|it| item_key(keys, it).ok().map(|k| (k, it.clone())))
                    .collect()
            };
            let (ko, kn) = (keyed(o), keyed(n));
            for (k, it) in &kn {
                path.push(k.clone());
                match ko.iter().find(|(x, _)| x == k) {
                    Some((_, old)) if old == it => {}
                    Some(_) if atomic => changed.insert(path),
                    Some((_, old)) => {
                        let empty = Map::new();
                        compare_objects(
                            old.as_object().unwrap_or(&empty),
                            it.as_object().unwrap_or(&empty),
                            path,
                            changed,
                            removed,
                        );
                    }
                    None => {
                        let _ = item_set(atomic, it, path, changed);
                    }
                }
                path.pop();
            }
            for (k, it) in ko.iter().filter(|(k, _)| !kn.iter().any(|(x, _)| x == k)) {
                path.push(k.clone());
                let _ = item_set(atomic, it, path, removed);
                path.pop();
            }
        }
    }
}

/// Removes from `obj` each path of `gone` that `kept` does not touch (no
/// manager owns it or anything below it), and objects that removal leaves
/// empty; the key fields of a kept list item stay.
pub(super) fn prune(obj: &mut Value, gone: &FieldSet, kept: &FieldSet) {
    for p in gone.paths() {
        if kept.touches(&p) || is_key_field(&p) {
            continue;
        }
        remove_path(obj, &p, kept, &mut Vec::new());
    }
}

fn is_key_field(p: &[String]) -> bool {
    let [.., item, field] = p else {
        return false;
    };
    let (Some(k), Some(f)) = (item.strip_prefix("k:"), field.strip_prefix("f:")) else {
        return false;
    };
    serde_json::from_str::<Map<String, Value>>(k).is_ok_and(|m| m.contains_key(f))
}

/// Removes `path` below `v` (whose own path is `at`); true when `v` is an
/// object or list left empty by it that nothing keeps.
fn remove_path(v: &mut Value, path: &[String], kept: &FieldSet, at: &mut Path) -> bool {
    let Some((pe, rest)) = path.split_first() else {
        return false;
    };
    let field = at
        .last()
        .and_then(|l| l.strip_prefix("f:"))
        .unwrap_or("")
        .to_string();
    at.push(pe.clone());
    let emptied = match v {
        Value::Object(m) => {
            let Some(f) = pe.strip_prefix("f:") else {
                at.pop();
                return false;
            };
            let gone = match m.get_mut(f) {
                Some(_) if rest.is_empty() => true,
                Some(c) => remove_path(c, rest, kept, at),
                None => false,
            };
            if gone {
                m.remove(f);
            }
            m.is_empty()
        }
        Value::Array(items) => {
            let ty = list_type(&field, items.first());
            let pos = items.iter().position(|it| match ty {
                ListType::Map { keys, .. } => item_key(keys, it).ok().as_deref() == Some(pe),
                _ => value_key(it) == *pe,
            });
            if let Some(i) = pos {
                let gone = rest.is_empty() || remove_path(&mut items[i], rest, kept, at);
                if gone {
                    items.remove(i);
                }
            }
            items.is_empty()
        }
        _ => false,
    };
    at.pop();
    emptied && !kept.touches(at)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_configuration_owns_its_leaves_items_and_atomic_nodes_not_its_structs() {
        let cfg = json!({"spec": {"replicas": 2, "selector": {"matchLabels": {"a": "b"}},
            "template": {"spec": {"containers": [{"name": "app", "image": "x", "args": ["a"]}]}}},
            "metadata": {"finalizers": ["f"]}});
        let s = field_set(&cfg).unwrap();
        let printed: Vec<String> = s.paths().iter().map(|p| display(p)).collect();
        assert_eq!(
            printed,
            [
                ".metadata.finalizers[=\"f\"]",
                ".spec.replicas",
                ".spec.selector",
                ".spec.template.spec.containers[name=\"app\"]",
                ".spec.template.spec.containers[name=\"app\"].args",
                ".spec.template.spec.containers[name=\"app\"].image",
                ".spec.template.spec.containers[name=\"app\"].name",
            ]
        );
        let err = field_set(&json!({"spec": {"containers": [{"image": "x"}]}})).unwrap_err();
        assert!(err.starts_with(".spec.containers: element 0: "), "{err}");
    }

    #[test]
    fn merge_keeps_live_items_and_replaces_atomic_values() {
        let live = json!({"spec": {"containers": [{"name": "a", "image": "1", "args": ["x"]},
            {"name": "b", "image": "2"}], "selector": {"matchLabels": {"a": "1", "b": "2"}}}});
        let cfg = json!({"spec": {"containers": [{"name": "a", "image": "3", "args": ["y"]}],
            "selector": {"matchLabels": {"a": "1"}}}});
        let m = merge(&live, &cfg);
        assert_eq!(
            m["spec"]["containers"][0],
            json!({"name": "a", "image": "3", "args": ["y"]})
        );
        assert_eq!(m["spec"]["containers"][1]["name"], "b");
        assert_eq!(m["spec"]["selector"], json!({"matchLabels": {"a": "1"}}));
    }

    #[test]
    fn compare_reports_modified_added_and_removed_paths() {
        let old = json!({"data": {"a": "1", "b": "2"}, "spec": {"containers": [{"name": "a", "image": "1"}]}});
        let new = json!({"data": {"a": "9", "c": "3"}, "spec": {"containers": [{"name": "z", "image": "1"}]}});
        let (changed, removed) = compare(&old, &new);
        let p = |s: &FieldSet| s.paths().iter().map(|p| display(p)).collect::<Vec<_>>();
        assert_eq!(
            p(&changed),
            [
                ".data.a",
                ".data.c",
                ".spec.containers[name=\"z\"]",
                ".spec.containers[name=\"z\"].image",
                ".spec.containers[name=\"z\"].name"
            ]
        );
        assert_eq!(
            p(&removed),
            [
                ".data.a",
                ".data.b",
                ".spec.containers[name=\"a\"]",
                ".spec.containers[name=\"a\"].image",
                ".spec.containers[name=\"a\"].name"
            ]
        );
    }

    #[test]
    fn prune_removes_what_nobody_keeps_and_objects_left_empty() {
        let mut obj =
            json!({"data": {"a": "1", "b": "2"}, "metadata": {"labels": {"x": "1"}, "name": "n"}});
        let gone =
            field_set(&json!({"data": {"b": ""}, "metadata": {"labels": {"x": ""}}})).unwrap();
        let kept = field_set(&json!({"data": {"a": ""}})).unwrap();
        prune(&mut obj, &gone, &kept);
        assert_eq!(obj, json!({"data": {"a": "1"}, "metadata": {"name": "n"}}));
    }
}
