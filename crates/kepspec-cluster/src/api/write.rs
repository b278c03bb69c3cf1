//! `create`, `update`, `patch`, `delete`, `deletecollection`.

use axum::body::Bytes;
use axum::response::Response;
use http::StatusCode;
use kepspec_core::Lookup as _;
use serde_json::{json, Value};

use super::super::delete::{delete_in, DeleteOpts, DeleteOutcome, Propagation};
use super::super::fields::{self, FieldValidation};
use super::super::managed::{self, ApplyError, Operation};
use super::super::meta;
use super::super::objects::{create_in, scope, update_in, ApiWrite, Target};
use super::super::patch::{self, PatchType};
use super::super::status::{success_status, ApiError, Cause};
use super::read::{output, Selectors};
use super::{decode_object, json_response, sub, Req};

/// Applies `fieldValidation`: Strict rejects unknown fields, Warn returns them as warnings.
fn check_fields(req: &Req<'_>, obj: &Value) -> Result<Vec<String>, ApiError> {
    let mode = FieldValidation::parse(req.params.get("fieldValidation").map(String::as_str))
        .map_err(ApiError::bad_request)?;
    let unknown = fields::unknown_fields(req.info, obj);
    match mode {
        _ if unknown.is_empty() => Ok(Vec::new()),
        FieldValidation::Strict => Err(ApiError::bad_request(fields::strict_message(&unknown))),
        FieldValidation::Warn => Ok(unknown
            .iter()
            .map(|f| format!("unknown field {f:?}"))
            .collect()),
        FieldValidation::Ignore => Ok(Vec::new()),
    }
}

/// Adds `Warning: 299 - "<text>"` headers.
fn with_warnings(mut resp: Response, warnings: &[String]) -> Response {
    for w in warnings {
        let v = format!("299 - {}", serde_json::Value::String(w.clone()));
        if let Ok(h) = http::HeaderValue::from_str(&v) {
            resp.headers_mut().append(http::header::WARNING, h);
        }
    }
    resp
}

fn target(sub: &str) -> Target {
    match sub {
        "status" => Target::Status,
        "ephemeralcontainers" => Target::EphemeralContainers,
        _ => Target::Main,
    }
}

/// `POST` a collection (or `pods/<name>/binding`).
pub(super) async fn create(req: &Req<'_>, body: Bytes) -> Result<Response, ApiError> {
    let obj = decode_object(&req.content_type(), &body)?;
    if req.sub == "binding" {
        return sub::bind(req, &obj);
    }
    if !req.sub.is_empty() {
        return Err(ApiError::method_not_allowed());
    }
    let warnings = check_fields(req, &obj)?;
    let gates = req.state.gates();
    let by = ApiWrite {
        gates: &gates,
        manager: req.manager(Operation::Update),
    };
    let dry = req.dry_run();
    let created = req
        .state
        .store
        .transact(|t| create_in(t, req.info, req.ns, obj, Some(&by), dry))?;
    Ok(with_warnings(
        object_response(req, StatusCode::CREATED, created),
        &warnings,
    ))
}

/// `PUT` an object or its status/scale/finalize subresource.
pub(super) async fn update(req: &Req<'_>, body: Bytes) -> Result<Response, ApiError> {
    let obj = decode_object(&req.content_type(), &body)?;
    match req.sub {
        "scale" => return sub::update_scale(req, &obj),
        "finalize" => return sub::finalize(req, &obj),
        "binding" | "log" => return Err(ApiError::method_not_allowed()),
        _ => {}
    }
    let warnings = check_fields(req, &obj)?;
    let gates = req.state.gates();
    let by = ApiWrite {
        gates: &gates,
        manager: req.manager(Operation::Update),
    };
    let dry = req.dry_run();
    let out = req.state.store.transact(|t| {
        update_in(
            t,
            req.info,
            req.ns,
            req.name,
            obj,
            target(req.sub),
            Some(&by),
            dry,
        )
    })?;
    Ok(with_warnings(
        object_response(req, StatusCode::OK, out),
        &warnings,
    ))
}

fn parse_patch(pt: PatchType, body: &[u8]) -> Result<Value, ApiError> {
    let v: Value = match pt {
        PatchType::Apply => super::yaml::parse(body)
            .map_err(|e| ApiError::bad_request(format!("error decoding YAML: {e}")))?,
        _ => serde_json::from_slice(body)
            .map_err(|e| ApiError::bad_request(format!("error decoding patch: {e}")))?,
    };
    Ok(v)
}

/// 415 for a patch type the resource does not support (custom resources
/// take no strategic merge patches).
fn unsupported_patch(builtin: bool) -> ApiError {
    let mut accepted = vec![
        "application/json-patch+json",
        "application/merge-patch+json",
    ];
    if builtin {
        accepted.push("application/strategic-merge-patch+json");
    }
    accepted.push("application/apply-patch+yaml");
    ApiError::unsupported_media_type(&accepted)
}

/// Applies a patch of type `pt` to `current` (the object as stored).
pub(super) fn apply_patch(
    pt: PatchType,
    builtin: bool,
    current: &Value,
    patch_doc: &Value,
) -> Result<Value, ApiError> {
    match pt {
        PatchType::Json => patch::apply_json_patch(current, patch_doc).map_err(|e| match e {
            patch::PatchError::Decode(m) => ApiError::bad_request(m),
            patch::PatchError::Apply(m) => ApiError::patch_not_applicable(m),
        }),
        PatchType::Merge => {
            if !patch_doc.is_object() {
                return Err(ApiError::bad_request(
                    "json: cannot unmarshal into Go value of type map[string]interface {}",
                ));
            }
            Ok(patch::apply_merge_patch(current, patch_doc))
        }
        PatchType::Strategic | PatchType::Apply if builtin => {
            patch::apply_strategic_merge_patch(current, patch_doc).map_err(ApiError::bad_request)
        }
        PatchType::Apply => {
            if !patch_doc.is_object() {
                return Err(ApiError::bad_request("apply patch must be an object"));
            }
            Ok(patch::apply_merge_patch(current, patch_doc))
        }
        PatchType::Strategic => Err(unsupported_patch(false)),
    }
}

/// What the field manager refuses in an apply configuration before merging
/// it (`structuredMergeManager.Apply`): another version than the endpoint's,
/// and managedFields.
fn check_apply_config(req: &Req<'_>, doc: &Value) -> Result<(), ApiError> {
    let expected = req.info.api_version();
    let given = doc.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    if given != expected {
        return Err(ApiError::bad_request(format!(
            "Incorrect version specified in apply patch. Specified patch version: {given}, expected: {expected}"
        )));
    }
    if doc
        .lookup("/metadata/managedFields")
        .is_some_and(|m| !m.is_null())
    {
        return Err(ApiError::bad_request("metadata.managedFields must be nil"));
    }
    Ok(())
}

/// `force`: allowed only for apply patches (`ValidatePatchOptions`).
fn force_param(req: &Req<'_>, pt: PatchType) -> Result<bool, ApiError> {
    let force = match req.params.get("force").map(String::as_str) {
        None | Some("false") | Some("") => false,
        Some("true") => true,
        Some(other) => {
            return Err(ApiError::bad_request(format!(
                "invalid value for force: {other:?}"
            )))
        }
    };
    if force && pt != PatchType::Apply {
        return Err(ApiError::invalid(
            "meta.k8s.io",
            "PatchOptions",
            "",
            vec![Cause {
                reason: "FieldValueForbidden".into(),
                message: "Forbidden: may not be specified for non-apply patch".into(),
                field: "force".into(),
            }],
        ));
    }
    Ok(force)
}

/// A refused apply: 409 with a cause per conflicting field
/// (`NewApplyConflict`), or, for a configuration that cannot be typed, the
/// plain error kube-apiserver answers as a 500 with no reason.
fn apply_error(req: &Req<'_>, e: ApplyError) -> ApiError {
    match &e {
        ApplyError::Invalid(m) => ApiError::new(
            500,
            "",
            format!(
                "failed to create typed patch object ({}/{}; {}, Kind={}): {m}",
                req.ns,
                req.name,
                req.info.api_version(),
                req.info.kind
            ),
        ),
        ApplyError::Conflicts(c) => {
            let mut err = ApiError::new(409, "Conflict", e.message());
            err.causes = c
                .iter()
                .map(|(m, p)| Cause {
                    reason: "FieldManagerConflict".into(),
                    message: format!("conflict with {m}"),
                    field: p.clone(),
                })
                .collect();
            err
        }
    }
}

/// `PATCH` an object or a subresource.
pub(super) async fn patch(req: &Req<'_>, body: Bytes) -> Result<Response, ApiError> {
    let ct = req.content_type();
    let pt = PatchType::from_content_type(&ct)
        .filter(|pt| *pt != PatchType::Strategic || req.info.builtin)
        .ok_or_else(|| unsupported_patch(req.info.builtin))?;
    let doc = parse_patch(pt, &body)?;
    if pt == PatchType::Apply && req.params.get("fieldManager").is_none_or(|m| m.is_empty()) {
        return Err(ApiError::invalid(
            "meta.k8s.io",
            "PatchOptions",
            "",
            vec![Cause {
                reason: "FieldValueRequired".into(),
                message: "Required value: is required for apply patch".into(),
                field: "fieldManager".into(),
            }],
        ));
    }
    match req.sub {
        "scale" => return sub::patch_scale(req, pt, &doc),
        "binding" | "finalize" | "log" => return Err(ApiError::method_not_allowed()),
        _ => {}
    }
    let warnings = if pt == PatchType::Json {
        Vec::new()
    } else {
        check_fields(req, &doc)?
    };
    let gates = req.state.gates();
    let operation = if pt == PatchType::Apply {
        Operation::Apply
    } else {
        Operation::Update
    };
    let by = ApiWrite {
        gates: &gates,
        manager: req.manager(operation),
    };
    let force = force_param(req, pt)?;
    if pt == PatchType::Apply {
        check_apply_config(req, &doc)?;
    }
    let dry = req.dry_run();
    let info = req.info;
    let (code, out) = req.state.store.transact(|t| {
        let key = super::super::store::ObjKey::new(
            &info.gr(),
            if info.namespaced { req.ns } else { "" },
            req.name,
        );
        let current = t.get(&key).map(|c| output(info, c.clone()));
        if pt == PatchType::Apply {
            let mut applied = managed::apply(
                current.as_ref(),
                &doc,
                &by.manager,
                scope(info, target(req.sub)),
                force,
                &meta::now_rfc3339(),
            )
            .map_err(|e| apply_error(req, e))?;
            let Some(current) = current else {
                if !req.sub.is_empty() {
                    return Err(ApiError::not_found(&info.group, &info.plural, req.name));
                }
                if let Some(m) = applied.get_mut("metadata").and_then(Value::as_object_mut) {
                    m.entry("name").or_insert_with(|| json!(req.name));
                }
                return create_in(t, info, req.ns, applied, Some(&by), dry)
                    .map(|o| (StatusCode::CREATED, o));
            };
            if let Some(m) = applied.get_mut("metadata").and_then(Value::as_object_mut) {
                let rv = doc["metadata"]
                    .get("resourceVersion")
                    .cloned()
                    .unwrap_or_else(|| current["metadata"]["resourceVersion"].clone());
                m.insert("resourceVersion".into(), rv);
            }
            return update_in(
                t,
                info,
                req.ns,
                req.name,
                applied,
                target(req.sub),
                Some(&by),
                dry,
            )
            .map(|o| (StatusCode::OK, o));
        }
        let Some(view) = current else {
            return Err(ApiError::not_found(&info.group, &info.plural, req.name));
        };
        let patched = apply_patch(pt, info.builtin, &view, &doc)?;
        update_in(
            t,
            info,
            req.ns,
            req.name,
            patched,
            target(req.sub),
            Some(&by),
            dry,
        )
        .map(|o| (StatusCode::OK, o))
    })?;
    Ok(with_warnings(object_response(req, code, out), &warnings))
}

fn delete_opts(req: &Req<'_>, body: &[u8]) -> Result<DeleteOpts, ApiError> {
    let mut o = DeleteOpts {
        dry_run: req.dry_run(),
        ..Default::default()
    };
    if let Some(g) = req.params.get("gracePeriodSeconds") {
        o.grace_period_seconds = Some(
            g.parse()
                .map_err(|_| ApiError::bad_request(format!("invalid gracePeriodSeconds {g:?}")))?,
        );
    }
    if let Some(p) = req.params.get("propagationPolicy") {
        o.propagation =
            Some(Propagation::parse(p).ok_or_else(|| super::super::delete::bad_policy(p))?);
    }
    if let Some(v) = req.params.get("orphanDependents") {
        o.orphan_dependents = Some(v == "true");
        if o.propagation.is_none() {
            o.propagation = Some(if v == "true" {
                Propagation::Orphan
            } else {
                Propagation::Background
            });
        }
    }
    if !body.iter().all(u8::is_ascii_whitespace) {
        o.merge_body(&decode_object(&req.content_type(), body)?)?;
    }
    Ok(o)
}

/// `DELETE` one object.
pub(super) async fn delete(req: &Req<'_>, body: Bytes) -> Result<Response, ApiError> {
    if !req.sub.is_empty() {
        return Err(ApiError::method_not_allowed());
    }
    let opts = delete_opts(req, &body)?;
    let info = req.info;
    if info.group.is_empty()
        && info.plural == "namespaces"
        && matches!(req.name, "default" | "kube-system" | "kube-public")
    {
        let mut e = ApiError::new(
            403,
            "Forbidden",
            format!(
                "namespaces {:?} is forbidden: this namespace may not be deleted",
                req.name
            ),
        );
        e.name = Some(req.name.to_string());
        e.group = Some(String::new());
        e.kind = Some("namespaces".into());
        return Err(e);
    }
    let outcome = req
        .state
        .store
        .transact(|t| delete_in(t, info, req.ns, req.name, &opts))?;
    Ok(match outcome {
        DeleteOutcome::Pending(o) => {
            // As kube-apiserver's delete handler: 202 only for the deprecated
            // `orphanDependents=false`; a pending foreground deletion is a 200.
            let code = if opts.orphan_dependents == Some(false) {
                StatusCode::ACCEPTED
            } else {
                StatusCode::OK
            };
            object_response(req, code, o)
        }
        DeleteOutcome::Deleted(o)
            if info.group.is_empty()
                && matches!(info.plural.as_str(), "pods" | "serviceaccounts") =>
        {
            object_response(req, StatusCode::OK, o)
        }
        DeleteOutcome::Deleted(o) => {
            let uid = o["metadata"]["uid"].as_str().unwrap_or_default();
            json_response(
                StatusCode::OK,
                &success_status(&info.group, &info.plural, req.name, uid),
            )
        }
    })
}

/// `DELETE` a collection (selectors apply).
pub(super) async fn delete_collection(req: &Req<'_>, body: Bytes) -> Result<Response, ApiError> {
    let opts = delete_opts(req, &body)?;
    let sel = Selectors::from_req(req)?;
    let info = req.info;
    let ns = (!req.all_namespaces).then_some(req.ns);
    let (items, rv) = req.state.store.list(&info.gr(), ns);
    let mut out = Vec::new();
    for o in items.into_iter().filter(|o| sel.matches(o)) {
        let name = o["metadata"]["name"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let ons = o["metadata"]["namespace"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        match req
            .state
            .store
            .transact(|t| delete_in(t, info, &ons, &name, &opts))
        {
            Ok(DeleteOutcome::Deleted(o)) | Ok(DeleteOutcome::Pending(o)) => {
                out.push(output(info, o))
            }
            Err(e) if e.code == 404 => {}
            Err(e) => return Err(e),
        }
    }
    let mut meta = serde_json::Map::new();
    meta.insert("resourceVersion".into(), json!(rv.to_string()));
    match req.metadata_only() {
        Some(version) => Ok(super::serialized_response(
            StatusCode::OK,
            &super::partial::List {
                version,
                items: &out,
                meta: &meta,
            },
        )),
        None => Ok(json_response(
            StatusCode::OK,
            &json!({"kind": info.list_kind, "apiVersion": info.api_version(), "metadata": meta, "items": out}),
        )),
    }
}

/// The object a write returns, as the client asked for it: whole, or its
/// metadata only (kube-apiserver's create, update, patch and delete
/// handlers all end in `transformResponseObject`, which turns the object
/// into PartialObjectMetadata when the `Accept` header asks for it; a
/// Status, as an immediate delete of most kinds returns, passes as it is).
fn object_response(req: &Req<'_>, code: StatusCode, obj: Value) -> Response {
    match req.metadata_only() {
        Some(version) => json_response(code, &super::partial::object(version, &obj)),
        None => json_response(code, &output(req.info, obj)),
    }
}
