//! ControllerRevisions of a StatefulSet, hashed exactly as upstream hashes them.
//!
//! Upstream (`pkg/controller/statefulset` and `pkg/controller/history`) stores
//! a revision as a strategic-merge patch that restores the pod template:
//! `{"spec":{"template":{...,"$patch":"replace"}}}`, encoded by Go's
//! `encoding/json` from a `map[string]interface{}` (sorted keys, HTML-safe
//! escaping, numbers printed as `float64`). The revision name is
//! `<set name cut to 223 bytes>-<hash>`, where the hash is the 32-bit FNV-1
//! (not FNV-1a) of those bytes followed by the decimal text of the set's
//! `collisionCount`, printed in decimal and passed through
//! `rand.SafeEncodeString`.
//!
//! Only `.spec.template` takes part, so changing the update strategy alone
//! never makes a new revision, while any template change (including the
//! `kubectl.kubernetes.io/restartedAt` annotation) does.

use std::collections::BTreeMap;

use k8s_openapi::api::apps::v1::{ControllerRevision, StatefulSet};
use k8s_openapi::api::core::v1::PodTemplateSpec;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference};
use k8s_openapi::apimachinery::pkg::runtime::RawExtension;
use serde_json::{Map, Value};

/// Label on a ControllerRevision carrying its hash.
pub const CONTROLLER_REVISION_HASH_LABEL: &str = "controller.kubernetes.io/hash";

/// Longest set-name prefix kept in a revision name (253 - 1 - 29).
const MAX_PREFIX_BYTES: usize = 223;

/// Why a revision could not be built or read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RevisionError {
    /// The set has no `.spec.template` object.
    #[error("StatefulSet has no spec.template object")]
    MissingTemplate,
    /// A stored ControllerRevision does not hold a template patch.
    #[error("ControllerRevision {name} does not contain a pod template: {reason}")]
    CorruptRevision {
        /// Name of the revision.
        name: String,
        /// What is wrong with its data.
        reason: String,
    },
}

/// Encodes a JSON value as Go's `encoding/json` encodes the same data decoded
/// into `interface{}`: object keys sorted bytewise, `<`, `>`, `&`, U+2028 and
/// U+2029 escaped, numbers printed as `float64`, no insignificant whitespace.
pub fn go_json(v: &Value) -> Vec<u8> {
    let mut out = String::new();
    write_value(&mut out, v, false);
    out.into_bytes()
}

/// [`go_json`] of the value with its null-valued object members dropped
/// (what [`go_json`] of `strip_nulls(v)` gives), without copying it.
fn go_json_without_nulls(v: &Value) -> Vec<u8> {
    let mut out = String::new();
    write_value(&mut out, v, true);
    out.into_bytes()
}

fn write_value(out: &mut String, v: &Value, skip_nulls: bool) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&go_float(n.as_f64().unwrap_or(0.0))),
        Value::String(s) => write_string(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(out, item, skip_nulls);
            }
            out.push(']');
        }
        Value::Object(map) => {
            let sorted: BTreeMap<&String, &Value> = map
                .iter()
                .filter(|(_, item)| !(skip_nulls && item.is_null()))
                .collect();
            out.push('{');
            for (i, (k, item)) in sorted.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(out, k);
                out.push(':');
                write_value(out, item, skip_nulls);
            }
            out.push('}');
        }
    }
}

fn write_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => {
                out.push_str(&format!("\\u{:04x}", c as u32));
            }
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Formats a float as Go's `encoding/json` does: shortest representation,
/// plain notation within [1e-6, 1e21), exponent notation (`1e+21`, `1e-7`)
/// outside it.
fn go_float(f: f64) -> String {
    if !f.is_finite() {
        return "null".to_string();
    }
    let abs = f.abs();
    if abs != 0.0 && !(1e-6..1e21).contains(&abs) {
        let text = format!("{f:e}");
        let (mantissa, exponent) = text.split_once('e').unwrap_or((text.as_str(), "0"));
        let exponent: i32 = exponent.parse().unwrap_or(0);
        if exponent < 0 {
            format!("{mantissa}e-{}", -exponent)
        } else {
            format!("{mantissa}e+{exponent:02}")
        }
    } else {
        format!("{f}")
    }
}

/// 32-bit FNV-1 (multiply, then xor) of `bytes`.
pub fn fnv1_32(bytes: &[u8]) -> u32 {
    fnv1_32_continue(0x811c_9dc5, bytes)
}

fn fnv1_32_continue(mut hash: u32, bytes: &[u8]) -> u32 {
    for b in bytes {
        hash = hash.wrapping_mul(0x0100_0193);
        hash ^= u32::from(*b);
    }
    hash
}

/// `rand.SafeEncodeString` of apimachinery: maps every byte to an alphabet
/// without vowels (and without digits that look like letters).
pub fn safe_encode(s: &str) -> String {
    const ALPHANUMS: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    s.chars()
        .map(|c| char::from(ALPHANUMS[(c as usize) % ALPHANUMS.len()]))
        .collect()
}

/// Reduces a StatefulSet as served by the apiserver to the data upstream
/// stores in its ControllerRevisions: `{"spec":{"template":{...,"$patch":"replace"}}}`.
///
/// Members whose value is `null` are dropped, as the apiserver's typed
/// round trip drops them (for example `metadata.creationTimestamp: null`).
pub fn revision_data(set: &Value) -> Result<Value, RevisionError> {
    let template = set
        .get("spec")
        .and_then(|spec| spec.get("template"))
        .and_then(Value::as_object)
        .ok_or(RevisionError::MissingTemplate)?;
    let mut template = strip_null_members(template);
    template.insert("$patch".to_string(), Value::String("replace".to_string()));
    let mut spec = Map::new();
    spec.insert("template".to_string(), sorted(Value::Object(template)));
    let mut data = Map::new();
    data.insert("spec".to_string(), Value::Object(spec));
    Ok(Value::Object(data))
}

fn strip_null_members(map: &Map<String, Value>) -> Map<String, Value> {
    map.iter()
        .filter(|(_, item)| !item.is_null())
        .map(|(k, item)| (k.clone(), strip_nulls(item)))
        .collect()
}

fn strip_nulls(v: &Value) -> Value {
    match v {
        Value::Object(map) => Value::Object(strip_null_members(map)),
        Value::Array(items) => Value::Array(items.iter().map(strip_nulls).collect()),
        other => other.clone(),
    }
}

/// Rebuilds a value with every object's keys in sorted order, so that it
/// serializes the way upstream's revision data is stored.
fn sorted(v: Value) -> Value {
    match v {
        Value::Object(map) => {
            let entries: BTreeMap<String, Value> = map.into_iter().collect();
            Value::Object(
                entries
                    .into_iter()
                    .map(|(k, item)| (k, sorted(item)))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.into_iter().map(sorted).collect()),
        other => other,
    }
}

/// The revision hash: FNV-1 over `go_json(data)` then the decimal
/// `collision_count`, as `SafeEncodeString` of the decimal hash value.
pub fn hash_revision(data: &Value, collision_count: i32) -> String {
    let hash = fnv1_32(&go_json(data));
    let hash = fnv1_32_continue(hash, collision_count.to_string().as_bytes());
    safe_encode(&hash.to_string())
}

/// ControllerRevision name `<set name cut to 223 bytes>-<hash>`.
pub fn revision_name(set_name: &str, hash: &str) -> String {
    let mut cut = set_name.len().min(MAX_PREFIX_BYTES);
    while !set_name.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}-{}", &set_name[..cut], hash)
}

/// The revision number for a new revision: one more than the largest, 1 for
/// an empty history.
pub fn next_revision_number(revisions: &[ControllerRevision]) -> i64 {
    revisions
        .iter()
        .map(|r| r.revision.unwrap_or(0))
        .max()
        .map_or(1, |max| max + 1)
}

/// Sorts revisions as upstream's `SortControllerRevisions`: by revision
/// number, then creation time, then name.
pub fn sort_revisions(revisions: &mut [ControllerRevision]) {
    revisions.sort_by(|a, b| {
        let key = |r: &ControllerRevision| {
            (
                r.revision.unwrap_or(0),
                r.metadata.creation_timestamp.as_ref().map(|t| t.0),
                r.metadata.name.clone().unwrap_or_default(),
            )
        };
        key(a).cmp(&key(b))
    });
}

/// The key by which two revisions hold the same data when equal: the
/// canonical encoding with `null` members dropped, so a revision written
/// before v1.34 (with `"creationTimestamp":null` in the template) still
/// equals the same template today, as upstream's compatibility test
/// requires. Make it once to compare one template with many revisions.
pub fn data_key(data: &Value) -> Vec<u8> {
    go_json_without_nulls(data)
}

/// The controller reference every object of the set carries.
pub fn controller_ref(set: &StatefulSet) -> OwnerReference {
    OwnerReference {
        api_version: "apps/v1".to_string(),
        kind: "StatefulSet".to_string(),
        name: set.metadata.name.clone().unwrap_or_default(),
        uid: set.metadata.uid.clone().unwrap_or_default(),
        controller: Some(true),
        block_owner_deletion: Some(true),
    }
}

/// Builds the ControllerRevision for `data` as upstream's `newRevision`:
/// labels of the template plus the hash label, the set's annotations, a
/// controller reference, and the name derived from the hash.
pub fn new_revision(
    set: &StatefulSet,
    data: Value,
    revision: i64,
    collision_count: i32,
) -> ControllerRevision {
    let set_name = set.metadata.name.clone().unwrap_or_default();
    let hash = hash_revision(&data, collision_count);
    let mut labels = template_labels(set);
    labels.insert(CONTROLLER_REVISION_HASH_LABEL.to_string(), hash.clone());
    ControllerRevision {
        metadata: ObjectMeta {
            name: Some(revision_name(&set_name, &hash)),
            namespace: set.metadata.namespace.clone(),
            labels: Some(labels),
            annotations: Some(set.metadata.annotations.clone().unwrap_or_default()),
            owner_references: Some(vec![controller_ref(set)]),
            ..ObjectMeta::default()
        },
        data: RawExtension(data),
        revision: Some(revision),
    }
}

fn template_labels(set: &StatefulSet) -> BTreeMap<String, String> {
    set.spec
        .template
        .metadata
        .as_ref()
        .and_then(|meta| meta.labels.clone())
        .unwrap_or_default()
}

/// The pod template a revision restores (upstream's `ApplyRevision` limited
/// to what a StatefulSet revision holds).
pub fn revision_template(revision: &ControllerRevision) -> Result<PodTemplateSpec, RevisionError> {
    let name = revision.metadata.name.clone().unwrap_or_default();
    let corrupt = |reason: String| RevisionError::CorruptRevision {
        name: name.clone(),
        reason,
    };
    let template = revision
        .data
        .0
        .get("spec")
        .and_then(|spec| spec.get("template"))
        .and_then(Value::as_object)
        .ok_or_else(|| corrupt("no spec.template".to_string()))?;
    let mut template = template.clone();
    template.remove("$patch");
    serde_json::from_value(Value::Object(template)).map_err(|e| corrupt(e.to_string()))
}

#[cfg(test)]
mod tests;
