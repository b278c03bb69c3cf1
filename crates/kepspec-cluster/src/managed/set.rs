//! Field sets as `managedFields` records them (`fieldsType: FieldsV1`).
//!
//! A path is a list of elements in the FieldsV1 spelling: `f:<field>`,
//! `k:<key object>` (an item of an associative list), `v:<value>` (an item of
//! a set) and `i:<index>`. A node is a *member* when the path to it is in the
//! set; a member with children is written with a `.` entry, as
//! structured-merge-diff's `SetToFields` does.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

/// One path: its elements from the object's root.
pub(super) type Path = Vec<String>;

/// A set of field paths, as a tree.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct FieldSet {
    member: bool,
    children: BTreeMap<String, FieldSet>,
}

impl FieldSet {
    /// Whether the set holds no path.
    pub(super) fn is_empty(&self) -> bool {
        !self.member && self.children.values().all(FieldSet::is_empty)
    }

    /// Adds `path`.
    pub(super) fn insert(&mut self, path: &[String]) {
        let mut node = self;
        for pe in path {
            node = node.children.entry(pe.clone()).or_default();
        }
        node.member = true;
    }

    /// The node at `path`, if any path of the set passes through it.
    fn node(&self, path: &[String]) -> Option<&FieldSet> {
        let mut node = self;
        for pe in path {
            node = node.children.get(pe)?;
        }
        (!node.is_empty()).then_some(node)
    }

    /// Whether `path` or any path below it is in the set.
    pub(super) fn touches(&self, path: &[String]) -> bool {
        self.node(path).is_some()
    }

    /// Adds every path of `other`.
    pub(super) fn union(&mut self, other: &FieldSet) {
        self.member |= other.member;
        for (pe, c) in &other.children {
            self.children.entry(pe.clone()).or_default().union(c);
        }
    }

    /// The paths of `self` that are not in `other` (members only: a path of
    /// `other` does not take the paths below it away).
    pub(super) fn difference(&self, other: &FieldSet) -> FieldSet {
        let mut out = FieldSet {
            member: self.member && !other.member,
            children: BTreeMap::new(),
        };
        for (pe, c) in &self.children {
            let d = match other.children.get(pe) {
                Some(o) => c.difference(o),
                None => c.clone(),
            };
            if !d.is_empty() {
                out.children.insert(pe.clone(), d);
            }
        }
        out
    }

    /// The paths in both sets.
    pub(super) fn intersection(&self, other: &FieldSet) -> FieldSet {
        let mut out = FieldSet {
            member: self.member && other.member,
            children: BTreeMap::new(),
        };
        for (pe, c) in &self.children {
            if let Some(o) = other.children.get(pe) {
                let i = c.intersection(o);
                if !i.is_empty() {
                    out.children.insert(pe.clone(), i);
                }
            }
        }
        out
    }

    /// Removes `path` and every path below it.
    pub(super) fn remove_under(&mut self, path: &[String]) {
        match path.split_first() {
            None => *self = FieldSet::default(),
            Some((pe, rest)) => {
                if let Some(c) = self.children.get_mut(pe) {
                    c.remove_under(rest);
                    if c.is_empty() {
                        self.children.remove(pe);
                    }
                }
            }
        }
    }

    /// Every path in the set, parents before children.
    pub(super) fn paths(&self) -> Vec<Path> {
        let mut out = Vec::new();
        self.collect(&mut Vec::new(), &mut out);
        out
    }

    fn collect(&self, prefix: &mut Path, out: &mut Vec<Path>) {
        if self.member && !prefix.is_empty() {
            out.push(prefix.clone());
        }
        for (pe, c) in &self.children {
            prefix.push(pe.clone());
            c.collect(prefix, out);
            prefix.pop();
        }
    }

    /// The FieldsV1 document.
    pub(super) fn to_fields_v1(&self) -> Value {
        let mut m = Map::new();
        if self.member && !self.children.is_empty() {
            m.insert(".".into(), Value::Object(Map::new()));
        }
        for (pe, c) in &self.children {
            if !c.is_empty() {
                m.insert(pe.clone(), c.to_fields_v1());
            }
        }
        Value::Object(m)
    }

    /// Reads a FieldsV1 document (anything else reads as the empty set).
    pub(super) fn from_fields_v1(v: &Value) -> FieldSet {
        let mut out = FieldSet::default();
        if let Some(m) = v.as_object() {
            for (k, c) in m {
                if k == "." {
                    out.member = true;
                    continue;
                }
                let mut child = FieldSet::from_fields_v1(c);
                if c.as_object().is_some_and(Map::is_empty) {
                    child.member = true;
                }
                out.children.insert(k.clone(), child);
            }
        }
        out
    }
}

/// A path as structured-merge-diff prints it in conflicts:
/// `.spec.template.spec.containers[name="app"].image`, `[="x"]`, `[0]`.
pub(super) fn display(path: &[String]) -> String {
    let mut s = String::new();
    for pe in path {
        if let Some(f) = pe.strip_prefix("f:") {
            s.push('.');
            s.push_str(f);
        } else if let Some(k) = pe.strip_prefix("k:") {
            let fields: Vec<String> = match serde_json::from_str::<Map<String, Value>>(k) {
                Ok(m) => {
                    let mut v: Vec<String> = m.iter().map(|(n, v)| format!("{n}={v}")).collect();
                    v.sort();
                    v
                }
                Err(_) => vec![k.to_string()],
            };
            s.push_str(&format!("[{}]", fields.join(",")));
        } else if let Some(v) = pe.strip_prefix("v:") {
            s.push_str(&format!("[={v}]"));
        } else if let Some(i) = pe.strip_prefix("i:") {
            s.push_str(&format!("[{i}]"));
        } else {
            s.push_str(pe);
        }
    }
    s
}

/// Builds a path from dotted field names (`"spec.replicas"`).
pub(super) fn fields(dotted: &str) -> Path {
    dotted.split('.').map(|f| format!("f:{f}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn fields_v1_round_trips_with_dot_for_members_with_children() {
        let v = json!({"f:metadata": {"f:labels": {".": {}, "f:app": {}}},
            "f:spec": {"f:containers": {"k:{\"name\":\"app\"}": {".": {}, "f:image": {}}}}});
        let s = FieldSet::from_fields_v1(&v);
        assert_eq!(s.to_fields_v1(), v);
        assert!(s.touches(&fields("metadata.labels")));
        assert_eq!(s.paths().len(), 4);
    }

    #[test]
    fn difference_and_intersection_work_on_members() {
        let mut a = FieldSet::default();
        a.insert(&fields("spec.replicas"));
        a.insert(&fields("spec.paused"));
        let mut b = FieldSet::default();
        b.insert(&fields("spec.replicas"));
        assert_eq!(a.difference(&b).paths(), vec![fields("spec.paused")]);
        assert_eq!(a.intersection(&b).paths(), vec![fields("spec.replicas")]);
        a.remove_under(&fields("spec"));
        assert!(a.is_empty());
    }

    #[test]
    fn paths_print_as_structured_merge_diff_does() {
        let p = vec![
            "f:spec".to_string(),
            "f:containers".to_string(),
            "k:{\"name\":\"app\"}".to_string(),
            "f:image".to_string(),
        ];
        assert_eq!(display(&p), ".spec.containers[name=\"app\"].image");
        let p = vec!["f:metadata".into(), "f:finalizers".into(), "v:\"x\"".into()];
        assert_eq!(display(&p), ".metadata.finalizers[=\"x\"]");
    }
}
