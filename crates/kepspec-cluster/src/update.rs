//! The `update` verb (and the tail of every patch): preconditions, the
//! status split, immutable metadata, generation, finalizer-driven removal.

use kepspec_core::Lookup as _;
use serde_json::{json, Value};

use super::admission::Operation;
use super::meta::{blocking_finalizers, finalizers, meta_mut, meta_str};
use super::objects::{
    admit, check_type, invalid_one, label_namespace, record_fields, ApiWrite, Target,
};
use super::resources::ResourceInfo;
use super::status::ApiError;
use super::store::{ObjKey, Txn};

/// Whether the part of an object that bumps `metadata.generation` (the
/// spec) differs between `new` and `old`.
fn spec_changed(info: &ResourceInfo, new: &Value, old: &Value) -> bool {
    if info.builtin {
        return new.get("spec") != old.get("spec");
    }
    // A custom resource: everything but metadata and status, whatever the
    // order of the keys (as two JSON objects compare).
    let (Some(a), Some(b)) = (new.as_object(), old.as_object()) else {
        return new != old;
    };
    let spec = |k: &&String| k.as_str() != "metadata" && k.as_str() != "status";
    a.keys().filter(spec).count() != b.keys().filter(spec).count()
        || a.iter()
            .filter(|(k, _)| spec(k))
            .any(|(k, v)| b.get(k.as_str()) != Some(v))
}

/// Replaces an object (the `update` verb and the tail of every patch).
/// `by` = `None` skips admission and field ownership (in-process writers).
#[allow(clippy::too_many_arguments)]
pub(crate) fn update_in(
    txn: &mut Txn<'_>,
    info: &ResourceInfo,
    ns: &str,
    name: &str,
    mut obj: Value,
    target: Target,
    by: Option<&ApiWrite<'_>>,
    dry_run: bool,
) -> Result<Value, ApiError> {
    check_type(info, &mut obj)?;
    let gates = by.map(|w| w.gates);
    let sent = obj.lookup("/metadata/managedFields").cloned();
    let ns = if info.namespaced { ns } else { "" };
    let body_name = meta_str(&obj, "name").unwrap_or_default().to_string();
    if !body_name.is_empty() && body_name != name {
        return Err(ApiError::bad_request(format!(
            "the name of the object ({body_name}) does not match the name on the URL ({name})"
        )));
    }
    if let Some(body_ns) = meta_str(&obj, "namespace") {
        if info.namespaced && !body_ns.is_empty() && body_ns != ns {
            return Err(ApiError::bad_request("the namespace of the provided object does not match the namespace sent on the request"));
        }
    }
    let key = ObjKey::new(&info.gr(), ns, name);
    let Some(old) = txn.get_shared(&key) else {
        return Err(ApiError::not_found(&info.group, &info.plural, name));
    };
    let old_rv = meta_str(&old, "resourceVersion")
        .unwrap_or_default()
        .to_string();
    let unconditional_ok = info.builtin && info.plural != "customresourcedefinitions";
    if !unconditional_ok && meta_str(&obj, "resourceVersion").is_none_or(str::is_empty) {
        return Err(invalid_one(
            info,
            name,
            "FieldValueInvalid",
            "metadata.resourceVersion",
            "Invalid value: 0x0: must be specified for an update",
        ));
    }
    if let Some(rv) = meta_str(&obj, "resourceVersion") {
        if !rv.is_empty() && rv != old_rv {
            return Err(ApiError::conflict(&info.group, &info.plural, name));
        }
    }
    if let Some(uid) = meta_str(&obj, "uid") {
        let old_uid = meta_str(&old, "uid").unwrap_or_default();
        if !uid.is_empty() && uid != old_uid {
            return Err(ApiError::conflict_because(&info.group, &info.plural, name, &format!("Precondition failed: UID in precondition: {uid}, UID in object meta: {old_uid}")));
        }
    }
    let mut new = match target {
        Target::Status => {
            let mut n = Value::clone(&old);
            if let Some(m) = n.as_object_mut() {
                match obj.get("status") {
                    Some(s) => m.insert("status".into(), s.clone()),
                    None => m.remove("status"),
                };
            }
            n
        }
        Target::EphemeralContainers => {
            // podEphemeralContainersStrategy's PrepareForUpdate: only the
            // ephemeral containers are taken from the request.
            let mut n = Value::clone(&old);
            let sent = obj.lookup("/spec/ephemeralContainers").cloned();
            if let Some(spec) = n.get_mut("spec").and_then(Value::as_object_mut) {
                match sent.filter(|v| !v.is_null()) {
                    Some(list) => spec.insert("ephemeralContainers".into(), list),
                    None => spec.remove("ephemeralContainers"),
                };
            }
            n
        }
        Target::Main => {
            let mut n = obj;
            if let Some(m) = n.as_object_mut() {
                if info.status {
                    match old.get("status") {
                        Some(s) => m.insert("status".into(), s.clone()),
                        None => m.remove("status"),
                    };
                }
                if info.plural == "namespaces" && info.group.is_empty() {
                    if let Some(f) = old.get("spec").and_then(|s| s.get("finalizers")) {
                        let spec = m.entry("spec").or_insert_with(|| json!({}));
                        if let Some(s) = spec.as_object_mut() {
                            s.insert("finalizers".into(), f.clone());
                        }
                    }
                }
            }
            n
        }
    };
    {
        let old_meta = &old["metadata"];
        let m = meta_mut(&mut new);
        for f in [
            "uid",
            "creationTimestamp",
            "deletionTimestamp",
            "deletionGracePeriodSeconds",
            "generation",
            "namespace",
            "name",
        ] {
            match old_meta.get(f) {
                Some(v) => m.insert(f.into(), v.clone()),
                None => m.remove(f),
            };
        }
        m.remove("managedFields");
        m.remove("selfLink");
    }
    if old["metadata"].get("deletionTimestamp").is_some() {
        let before = finalizers(&old);
        let added: Vec<String> = finalizers(&new)
            .into_iter()
            .filter(|f| !before.contains(f))
            .collect();
        if !added.is_empty() {
            let msg = format!("Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{{{}}}", added.iter().map(|f| format!("{f:?}")).collect::<Vec<_>>().join(", "));
            return Err(invalid_one(
                info,
                name,
                "FieldValueForbidden",
                "metadata.finalizers",
                &msg,
            ));
        }
    }
    label_namespace(info, &mut new, name);
    if target == Target::Main {
        if let Some(g) = gates {
            admit(info, Operation::Update, &mut new, Some(&old), g)?;
        }
    }
    if target == Target::EphemeralContainers {
        super::objects::admit_ephemeral(info, &new, &old)?;
    }
    if info.generation && spec_changed(info, &new, &old) {
        let g = old["metadata"]["generation"].as_i64().unwrap_or(0) + 1;
        meta_mut(&mut new).insert("generation".into(), json!(g));
    }
    meta_mut(&mut new).insert("resourceVersion".into(), json!(old_rv));
    record_fields(info, target, Some(&old), &mut new, sent.as_ref(), by);
    if new == *old {
        return Ok(Value::clone(&old));
    }
    if dry_run {
        return Ok(new);
    }
    let is_ns = info.plural == "namespaces" && info.group.is_empty();
    let grace = new["metadata"]["deletionGracePeriodSeconds"]
        .as_i64()
        .unwrap_or(0);
    if new["metadata"].get("deletionTimestamp").is_some()
        && blocking_finalizers(&new, is_ns) == 0
        && grace == 0
    {
        return txn
            .remove_as(&key, new)
            .ok_or_else(|| ApiError::internal("object vanished during update"));
    }
    Ok(txn.update(&key, new))
}
