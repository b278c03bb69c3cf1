//! Subresources other than status: `scale`, `pods/binding`, `namespaces/finalize`.

use axum::response::Response;
use http::StatusCode;
use kepspec_core::Lookup as _;
use serde_json::{json, Value};

use super::super::managed::Operation;
use super::super::meta::{self, meta_mut};
use super::super::objects::{update_in, ApiWrite, Target};
use super::super::patch::PatchType;
use super::super::resources::ResourceInfo;
use super::super::status::{ApiError, Cause};
use super::super::store::{ObjKey, Txn};
use super::read::output;
use super::write::apply_patch;
use super::{json_response, Req};
use kepspec_core::selector::format_label_selector;

fn pointer(path: &str) -> String {
    path.trim_start_matches('.')
        .split('.')
        .fold(String::new(), |mut acc, seg| {
            acc.push('/');
            acc.push_str(seg);
            acc
        })
}

/// The `autoscaling/v1` Scale view of an object.
pub(crate) fn scale_of(info: &ResourceInfo, obj: &Value) -> Value {
    let Some((spec_path, status_path, sel_path)) = &info.scale else {
        return json!({});
    };
    let spec_replicas = obj.lookup(&pointer(spec_path)).cloned().unwrap_or(json!(0));
    let status_replicas = obj
        .lookup(&pointer(status_path))
        .cloned()
        .unwrap_or(json!(0));
    let selector = if info.builtin {
        format_label_selector(&obj["spec"]["selector"])
    } else {
        sel_path
            .as_ref()
            .and_then(|p| obj.lookup(&pointer(p)))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    let m = &obj["metadata"];
    json!({
        "kind": "Scale",
        "apiVersion": "autoscaling/v1",
        "metadata": {
            "name": m["name"], "namespace": m["namespace"], "uid": m["uid"],
            "resourceVersion": m["resourceVersion"], "creationTimestamp": m["creationTimestamp"]
        },
        "spec": {"replicas": spec_replicas},
        "status": {"replicas": status_replicas, "selector": selector}
    })
}

fn write_scale(
    t: &mut Txn<'_>,
    req: &Req<'_>,
    current: &Value,
    scale: &Value,
) -> Result<Value, ApiError> {
    let info = req.info;
    let Some((spec_path, _, _)) = &info.scale else {
        return Err(ApiError::unknown_path());
    };
    let replicas = scale["spec"]["replicas"].as_i64().unwrap_or(0);
    if replicas < 0 {
        return Err(ApiError::invalid(
            "autoscaling",
            "Scale",
            req.name,
            vec![Cause {
                reason: "FieldValueInvalid".into(),
                message: format!("Invalid value: {replicas}: must be greater than or equal to 0"),
                field: "spec.replicas".into(),
            }],
        ));
    }
    let mut obj = current.clone();
    let ptr = pointer(spec_path);
    match obj.pointer_mut(&ptr) {
        Some(v) => *v = json!(replicas),
        None => {
            let (parent, leaf) = ptr.rsplit_once('/').unwrap_or(("", "replicas"));
            if let Some(p) = obj.pointer_mut(parent).and_then(Value::as_object_mut) {
                p.insert(leaf.to_string(), json!(replicas));
            }
        }
    }
    if let Some(rv) = scale["metadata"]["resourceVersion"]
        .as_str()
        .filter(|s| !s.is_empty())
    {
        meta_mut(&mut obj).insert("resourceVersion".into(), json!(rv));
    }
    let gates = req.state.gates();
    let by = ApiWrite {
        gates: &gates,
        manager: req.manager(Operation::Update),
    };
    let out = update_in(
        t,
        info,
        req.ns,
        req.name,
        obj,
        Target::Main,
        Some(&by),
        req.dry_run(),
    )?;
    Ok(scale_of(info, &out))
}

fn current(t: &Txn<'_>, req: &Req<'_>) -> Result<Value, ApiError> {
    t.get(&ObjKey::new(&req.info.gr(), req.ns, req.name))
        .cloned()
        .ok_or_else(|| ApiError::not_found(&req.info.group, &req.info.plural, req.name))
}

/// `PUT .../scale`.
pub(crate) fn update_scale(req: &Req<'_>, scale: &Value) -> Result<Response, ApiError> {
    let out = req.state.store.transact(|t| {
        let cur = current(t, req)?;
        write_scale(t, req, &cur, scale)
    })?;
    Ok(json_response(StatusCode::OK, &out))
}

/// `PATCH .../scale`.
pub(crate) fn patch_scale(req: &Req<'_>, pt: PatchType, doc: &Value) -> Result<Response, ApiError> {
    let out = req.state.store.transact(|t| {
        let cur = current(t, req)?;
        let scale = scale_of(req.info, &cur);
        let patched = apply_patch(pt, true, &scale, doc)?;
        write_scale(t, req, &cur, &patched)
    })?;
    Ok(json_response(StatusCode::OK, &out))
}

/// `POST pods/<name>/binding`: sets spec.nodeName and the PodScheduled condition.
pub(crate) fn bind(req: &Req<'_>, binding: &Value) -> Result<Response, ApiError> {
    let node = binding["target"]["name"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    if node.is_empty() {
        return Err(ApiError::invalid(
            "",
            "Binding",
            req.name,
            vec![Cause {
                reason: "FieldValueRequired".into(),
                message: "Required value".into(),
                field: "target.name".into(),
            }],
        ));
    }
    let info = req.info;
    req.state.store.transact(|t| {
        let key = ObjKey::new(&info.gr(), req.ns, req.name);
        let mut pod = current(t, req)?;
        let conflict = |why: String| ApiError::conflict_because("", "pods/binding", req.name, &why);
        if pod["metadata"].get("deletionTimestamp").is_some() {
            return Err(conflict(format!("pod {} is being deleted, cannot be assigned to a host", req.name)));
        }
        if let Some(n) = pod["spec"]["nodeName"].as_str().filter(|n| !n.is_empty()) {
            return Err(conflict(format!("pod {} is already assigned to node {n:?}", req.name)));
        }
        if let Some(uid) = binding["metadata"]["uid"].as_str().filter(|u| !u.is_empty()) {
            if pod["metadata"]["uid"].as_str() != Some(uid) {
                return Err(conflict(format!("Precondition failed: UID in precondition: {uid}, UID in object meta: {}", pod["metadata"]["uid"].as_str().unwrap_or_default())));
            }
        }
        if !pod["spec"].is_object() {
            pod["spec"] = json!({});
        }
        pod["spec"]["nodeName"] = json!(node);
        if !pod["status"].is_object() {
            pod["status"] = json!({});
        }
        let conds = pod["status"]
            .as_object_mut()
            .map(|s| s.entry("conditions").or_insert_with(|| json!([])));
        if let Some(Value::Array(cs)) = conds {
            cs.retain(|c| c["type"] != "PodScheduled");
            cs.push(json!({"type": "PodScheduled", "status": "True", "lastProbeTime": null, "lastTransitionTime": meta::now_rfc3339()}));
        }
        if !req.dry_run() {
            t.update(&key, pod);
        }
        Ok(())
    })?;
    Ok(json_response(
        StatusCode::CREATED,
        &json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201}),
    ))
}

/// `PUT namespaces/<name>/finalize`: replaces spec.finalizers.
pub(crate) fn finalize(req: &Req<'_>, ns_obj: &Value) -> Result<Response, ApiError> {
    let info = req.info;
    let out = req.state.store.transact(|t| {
        let key = ObjKey::new(&info.gr(), "", req.name);
        let mut cur = current(t, req)?;
        if !cur["spec"].is_object() {
            cur["spec"] = json!({});
        }
        if let Some(spec) = cur.get_mut("spec").and_then(Value::as_object_mut) {
            match ns_obj["spec"].get("finalizers") {
                Some(f) if !f.is_null() => spec.insert("finalizers".into(), f.clone()),
                _ => spec.remove("finalizers"),
            };
        }
        let done = cur["metadata"].get("deletionTimestamp").is_some()
            && meta::blocking_finalizers(&cur, true) == 0;
        Ok::<_, ApiError>(if done {
            t.remove_as(&key, cur.clone()).unwrap_or(cur)
        } else {
            t.update(&key, cur)
        })
    })?;
    Ok(json_response(StatusCode::OK, &output(info, out)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selector_formatting() {
        let s = json!({"matchLabels": {"b": "2", "a": "1"}, "matchExpressions": [{"key": "t", "operator": "In", "values": ["y", "x"]}, {"key": "u", "operator": "DoesNotExist"}]});
        assert_eq!(format_label_selector(&s), "a=1,b=2,t in (x,y),!u");
        assert_eq!(pointer(".spec.replicas"), "/spec/replicas");
    }
}
