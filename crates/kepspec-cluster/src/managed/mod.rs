//! Field ownership: `metadata.managedFields`, recorded for every write made
//! through the API and enforced by server-side apply, as kube-apiserver's
//! field manager does it (k8s.io/apimachinery
//! `pkg/util/managedfields/internal`, on structured-merge-diff's updater):
//!
//! - an update (create, update, any non-apply patch) gives its manager the
//!   fields it added or changed and takes them from every other manager;
//! - an apply gives its manager exactly the fields of its configuration,
//!   refuses with 409 to change a field another manager owns unless forced,
//!   and removes the fields it applied before and no manager owns any more.
//!
//! Managers are identified as `BuildManagerIdentifier` does: name,
//! operation, subresource, and the API version for updaters only. Entries
//! are sorted as `sortEncodedManagedFields` sorts them. `apiVersion`,
//! `kind` and the server-owned metadata are never owned (`stripSet`).

mod merge;
mod schema;
mod set;

use kepspec_core::Lookup as _;
use serde_json::{json, Map, Value};

pub(crate) use schema::{list_type, ListType};
use set::{display, FieldSet};

/// `operation` of a managedFields entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Operation {
    /// Server-side apply.
    Apply,
    /// Create, update or a non-apply patch.
    Update,
}

impl Operation {
    fn as_str(self) -> &'static str {
        match self {
            Operation::Apply => "Apply",
            Operation::Update => "Update",
        }
    }
}

/// Who writes: a field manager.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Manager {
    /// `fieldManager`, or the User-Agent up to its first `/`, or `unknown`.
    pub name: String,
    /// Apply or update.
    pub operation: Operation,
    /// The group/version written (`apps/v1`, `v1`).
    pub api_version: String,
    /// `status`, `scale`, or "" for the object itself.
    pub subresource: String,
}

impl Manager {
    /// The manager of a request: `fieldManager` if given, else the
    /// User-Agent's prefix (`managerOrUserAgent`), else `unknown`.
    pub(crate) fn of_request(field_manager: Option<&str>, user_agent: &str) -> String {
        let name = field_manager
            .filter(|m| !m.is_empty())
            .unwrap_or_else(|| user_agent.split('/').next().unwrap_or(""));
        if name.is_empty() {
            "unknown".into()
        } else {
            name.into()
        }
    }

    fn same(&self, other: &Manager) -> bool {
        self.name == other.name
            && self.operation == other.operation
            && self.subresource == other.subresource
            && (self.operation == Operation::Apply || self.api_version == other.api_version)
    }

    /// As `printManager` prints an identifier in a conflict.
    fn printed(&self) -> String {
        let mut s = Value::String(self.name.clone()).to_string();
        if !self.subresource.is_empty() {
            s.push_str(&format!(
                " with subresource {}",
                Value::String(self.subresource.clone())
            ));
        }
        if self.operation == Operation::Update {
            s.push_str(&format!(" using {}", self.api_version));
        }
        s
    }
}

/// Which part of the object a write may own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Scope {
    /// The object itself; `status` excluded when it is a subresource (the
    /// strategies' reset fields).
    Main {
        /// The kind has a `status` subresource.
        status_subresource: bool,
    },
    /// The `status` subresource: only `status`.
    Status,
}

impl Scope {
    fn filter(self, mut s: FieldSet) -> FieldSet {
        match self {
            Scope::Main {
                status_subresource: true,
            } => {
                s.remove_under(&["f:status".to_string()]);
                s
            }
            Scope::Main { .. } => s,
            Scope::Status => {
                let mut only = FieldSet::default();
                for p in s.paths().into_iter().filter(|p| p[0] == "f:status") {
                    only.insert(&p);
                }
                only
            }
        }
    }
}

/// The fields no manager ever owns (`stripSet`; `metadata` itself only as a
/// member, not what is below it).
fn strip(s: &FieldSet) -> FieldSet {
    let mut gone = FieldSet::default();
    gone.insert(&["f:apiVersion".to_string()]);
    gone.insert(&["f:kind".to_string()]);
    gone.insert(&["f:metadata".to_string()]);
    for f in [
        "name",
        "namespace",
        "creationTimestamp",
        "selfLink",
        "uid",
        "clusterName",
        "generation",
        "managedFields",
        "resourceVersion",
    ] {
        gone.insert(&set::fields(&format!("metadata.{f}")));
    }
    s.difference(&gone)
}

#[derive(Clone, Debug)]
struct Entry {
    manager: Manager,
    time: Option<String>,
    set: FieldSet,
}

fn decode(list: &[Value]) -> Vec<Entry> {
    list.iter()
        .filter_map(|e| {
            let s = |k: &str| e.get(k).and_then(Value::as_str).unwrap_or("").to_string();
            let operation = match e.get("operation")?.as_str()? {
                "Apply" => Operation::Apply,
                _ => Operation::Update,
            };
            Some(Entry {
                manager: Manager {
                    name: s("manager"),
                    operation,
                    api_version: s("apiVersion"),
                    subresource: s("subresource"),
                },
                time: e.get("time").and_then(Value::as_str).map(str::to_string),
                set: FieldSet::from_fields_v1(e.get("fieldsV1").unwrap_or(&Value::Null)),
            })
        })
        .collect()
}

fn entries_of(obj: &Value) -> Vec<Entry> {
    obj.lookup("/metadata/managedFields")
        .and_then(Value::as_array)
        .map(|a| decode(a))
        .unwrap_or_default()
}

/// Writes `entries`, sorted, as the object's managedFields (none: removed).
fn write_entries(obj: &mut Value, mut entries: Vec<Entry>) {
    entries.retain(|e| !e.set.is_empty());
    entries.sort_by(|p, q| {
        let secs = |e: &Entry| {
            e.time
                .as_deref()
                .and_then(|t| t.parse::<jiff::Timestamp>().ok())
                .map_or(0, |t| t.as_second())
        };
        (p.manager.operation.as_str(), secs(p), &p.manager.name)
            .cmp(&(q.manager.operation.as_str(), secs(q), &q.manager.name))
            .then_with(|| p.manager.api_version.cmp(&q.manager.api_version))
            .then_with(|| p.manager.subresource.cmp(&q.manager.subresource))
    });
    let list: Vec<Value> = entries
        .iter()
        .map(|e| {
            let mut m = Map::new();
            m.insert("manager".into(), json!(e.manager.name));
            m.insert("operation".into(), json!(e.manager.operation.as_str()));
            m.insert("apiVersion".into(), json!(e.manager.api_version));
            if let Some(t) = &e.time {
                m.insert("time".into(), json!(t));
            }
            m.insert("fieldsType".into(), json!("FieldsV1"));
            m.insert("fieldsV1".into(), e.set.to_fields_v1());
            if !e.manager.subresource.is_empty() {
                m.insert("subresource".into(), json!(e.manager.subresource));
            }
            Value::Object(m)
        })
        .collect();
    if let Some(meta) = obj.get_mut("metadata").and_then(Value::as_object_mut) {
        if list.is_empty() {
            meta.remove("managedFields");
        } else {
            meta.insert("managedFields".into(), Value::Array(list));
        }
    }
}

/// Adds `who`'s entry owning `set`, stamped `now` unless the set is the
/// one `prev` (its entry before this write) already had.
fn push_own(
    entries: &mut Vec<Entry>,
    prev: Option<Entry>,
    who: &Manager,
    set: FieldSet,
    now: &str,
) {
    let time = match prev {
        Some(p) if p.set == set => p.time,
        _ => Some(now.to_string()),
    };
    entries.push(Entry {
        manager: who.clone(),
        time,
        set,
    });
}

/// Takes `who`'s entry out of `entries`.
fn take(entries: &mut Vec<Entry>, who: &Manager) -> Option<Entry> {
    let i = entries.iter().position(|e| e.manager.same(who))?;
    Some(entries.remove(i))
}

fn without_managed(obj: &Value) -> Value {
    let mut o = obj.clone();
    if let Some(m) = o.get_mut("metadata").and_then(Value::as_object_mut) {
        m.remove("managedFields");
    }
    o
}

/// Records an update by `who` from `old` (none: a create) to `new`, in
/// `new`'s managedFields. `sent` is the managedFields the request carried:
/// a non-empty list replaces the recorded ones (a list of one empty entry
/// clears them), as `decodeLiveOrNew` allows; subresources cannot.
pub(crate) fn record_update(
    old: Option<&Value>,
    new: &mut Value,
    sent: Option<&Value>,
    who: &Manager,
    scope: Scope,
    now: &str,
) {
    let mut entries = match sent.and_then(Value::as_array) {
        Some(a) if !a.is_empty() && who.subresource.is_empty() => {
            if a.len() == 1 && a[0].as_object().is_some_and(Map::is_empty) {
                Vec::new()
            } else {
                decode(a)
            }
        }
        _ => old.map(entries_of).unwrap_or_default(),
    };
    let empty = json!({});
    let (changed, removed) = merge::compare(old.unwrap_or(&empty), new);
    let (changed, removed) = (scope.filter(changed), scope.filter(removed));
    for e in &mut entries {
        e.set = e.set.difference(&changed).difference(&removed);
    }
    let prev = take(&mut entries, who);
    let mut owned = prev
        .as_ref()
        .map(|p| p.set.difference(&removed))
        .unwrap_or_default();
    owned.union(&changed);
    let owned = strip(&owned);
    push_own(&mut entries, prev, who, owned, now);
    write_entries(new, entries);
}

/// Why an apply was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ApplyError {
    /// The configuration cannot be typed (a list item without its key).
    Invalid(String),
    /// Fields other managers own would change: (manager as printed, path).
    Conflicts(Vec<(String, String)>),
}

impl ApplyError {
    /// The message kube-apiserver gives (`getConflictMessage`).
    pub(crate) fn message(&self) -> String {
        match self {
            ApplyError::Invalid(m) => m.clone(),
            ApplyError::Conflicts(c) if c.len() == 1 => {
                format!(
                    "Apply failed with 1 conflict: conflict with {}: {}",
                    c[0].0, c[0].1
                )
            }
            ApplyError::Conflicts(c) => {
                let mut lines = Vec::new();
                let mut last: Option<&str> = None;
                for (m, p) in c {
                    if last != Some(m.as_str()) {
                        lines.push(format!("conflicts with {m}:"));
                        last = Some(m);
                    }
                    lines.push(format!("- {p}"));
                }
                format!(
                    "Apply failed with {} conflicts: {}",
                    c.len(),
                    lines.join("\n")
                )
            }
        }
    }
}

/// Applies `config` for `who` to `live` (none: the apply creates). Returns
/// the object to store, managedFields included.
pub(crate) fn apply(
    live: Option<&Value>,
    config: &Value,
    who: &Manager,
    scope: Scope,
    force: bool,
    now: &str,
) -> Result<Value, ApplyError> {
    let empty = json!({});
    let live = live.unwrap_or(&empty);
    let mut entries = entries_of(live);
    let live = without_managed(live);
    let mut config = config.clone();
    if let Some(m) = config.get_mut("metadata").and_then(Value::as_object_mut) {
        m.remove("managedFields");
    }
    let set = strip(&scope.filter(merge::field_set(&config).map_err(ApplyError::Invalid)?));
    let last = take(&mut entries, who);
    let mut merged = merge::merge(&live, &config);
    let mut kept = set.clone();
    for e in &entries {
        kept.union(&e.set);
    }
    if let Some(l) = &last {
        merge::prune(&mut merged, &l.set.difference(&kept), &kept);
    }
    let (changed, removed) = merge::compare(&live, &merged);
    let (changed, removed) = (scope.filter(changed), scope.filter(removed));
    let mut conflicts: Vec<(String, String)> = entries
        .iter()
        .flat_map(|e| {
            let printed = e.manager.printed();
            e.set
                .intersection(&changed)
                .paths()
                .into_iter()
                .map(move |p| (printed.clone(), display(&p)))
        })
        .collect();
    if !force && !conflicts.is_empty() {
        conflicts.sort();
        return Err(ApplyError::Conflicts(conflicts));
    }
    for e in &mut entries {
        e.set = e.set.difference(&changed).difference(&removed);
    }
    push_own(&mut entries, last, who, set, now);
    write_entries(&mut merged, entries);
    Ok(merged)
}

#[cfg(test)]
mod tests;
