//! Field mapping between the spec's apps/v1 StatefulSet shape and a vendor's.
//!
//! A profile's `spec.fields` maps dotted paths of the spec's shape to dotted
//! paths of the vendor's, e.g.
//! `spec.updateStrategy.rollingUpdate.maxUnavailable: spec.updateStrategy.maxUnavailable`.
//! Paths name object keys only (no list indexes, no keys containing dots)
//! and start with `spec` or `status`. Objects and merge patches the harness
//! sends are moved [`to_target`](FieldMap::to_target); objects it reads back
//! are moved [`from_target`](FieldMap::from_target), so checks keep using
//! the spec's paths. A field absent from the object is left alone, and so is
//! a move whose destination runs through a value that is not an object.
//! Objects a move leaves empty are removed.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

/// A checked set of path moves.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FieldMap {
    moves: Vec<(Vec<String>, Vec<String>)>,
}

fn split(path: &str) -> Result<Vec<String>, String> {
    let parts: Vec<String> = path.split('.').map(str::to_string).collect();
    if parts.iter().any(|p| p.is_empty()) {
        return Err(format!("`{path}` is not a dotted path of object keys"));
    }
    match parts.first().map(String::as_str) {
        Some("spec") | Some("status") if parts.len() > 1 => Ok(parts),
        _ => Err(format!(
            "`{path}` must start with `spec.` or `status.` (apiVersion, kind and metadata are not mapped)"
        )),
    }
}

fn is_prefix(a: &[String], b: &[String]) -> bool {
    a.len() <= b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

impl FieldMap {
    /// Where the target keeps a field of the spec's shape (None: unmapped).
    pub fn to_target_path(&self, spec_path: &str) -> Option<String> {
        self.moves
            .iter()
            .find(|(f, _)| f.join(".") == spec_path)
            .map(|(_, t)| t.join("."))
    }

    /// Checks a profile's `spec.fields`. An error names the offending key
    /// (the spec's path) and what is wrong with it.
    pub fn new(map: &BTreeMap<String, String>) -> Result<Self, (String, String)> {
        let mut moves = Vec::new();
        for (from, to) in map {
            let f = split(from).map_err(|m| (from.clone(), m))?;
            let t = split(to).map_err(|m| (from.clone(), m))?;
            if f == t {
                continue;
            }
            moves.push((f, t));
        }
        for (i, (f1, t1)) in moves.iter().enumerate() {
            for (f2, t2) in moves.iter().skip(i + 1) {
                let key = f1.join(".");
                if is_prefix(f1, f2) || is_prefix(f2, f1) {
                    return Err((
                        key,
                        format!("overlaps `{}`: mapped paths must not nest", f2.join(".")),
                    ));
                }
                if is_prefix(t1, t2) || is_prefix(t2, t1) {
                    return Err((
                        key,
                        format!(
                            "its target `{}` overlaps the target of `{}`",
                            t1.join("."),
                            f2.join(".")
                        ),
                    ));
                }
            }
        }
        Ok(Self { moves })
    }

    /// True when nothing moves.
    pub fn is_empty(&self) -> bool {
        self.moves.is_empty()
    }

    /// Rewrites an object or merge patch of the spec's shape into the vendor's.
    pub fn to_target(&self, obj: &mut Value) {
        for (from, to) in &self.moves {
            relocate(obj, from, to);
        }
    }

    /// Rewrites an object of the vendor's shape into the spec's.
    pub fn from_target(&self, obj: &mut Value) {
        for (from, to) in &self.moves {
            relocate(obj, to, from);
        }
    }

    /// Maps a JSON pointer of the spec's shape (`/spec/replicas`) to the
    /// vendor's; pointers below a mapped path keep their tail.
    pub fn pointer_to_target(&self, pointer: &str) -> String {
        let parts: Vec<String> = pointer
            .split('/')
            .skip(1)
            .map(|p| p.replace("~1", "/").replace("~0", "~"))
            .collect();
        for (from, to) in &self.moves {
            if is_prefix(from, &parts) {
                let mapped = to.iter().chain(parts[from.len()..].iter());
                return mapped
                    .map(|p| format!("/{}", p.replace('~', "~0").replace('/', "~1")))
                    .collect();
            }
        }
        pointer.to_string()
    }
}

/// Removes the value at `path`, and the objects on the way that it leaves
/// empty (in a merge patch an empty object changes nothing; in an object it
/// stands for the defaults, as an absent one does).
fn take(obj: &mut Value, path: &[String]) -> Option<Value> {
    let (first, rest) = path.split_first()?;
    let map = obj.as_object_mut()?;
    if rest.is_empty() {
        return map.remove(first);
    }
    let child = map.get_mut(first)?;
    let value = take(child, rest)?;
    if child.as_object().is_some_and(Map::is_empty) {
        map.remove(first);
    }
    Some(value)
}

fn put(obj: &mut Value, path: &[String], value: Value) -> Result<(), Value> {
    let Some((last, parents)) = path.split_last() else {
        return Err(value);
    };
    let mut cur = obj;
    for p in parents {
        let Some(map) = cur.as_object_mut() else {
            return Err(value);
        };
        cur = map
            .entry(p.clone())
            .or_insert_with(|| Value::Object(Map::new()));
    }
    match cur.as_object_mut() {
        Some(map) => {
            map.insert(last.clone(), value);
            Ok(())
        }
        None => Err(value),
    }
}

fn relocate(obj: &mut Value, from: &[String], to: &[String]) {
    if let Some(value) = take(obj, from) {
        if let Err(value) = put(obj, to, value) {
            // The destination is blocked: leave the value where it was.
            let _ = put(obj, from, value);
        }
    }
}
