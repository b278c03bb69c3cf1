//! Create and update semantics shared by the HTTP handlers and the
//! in-process controllers (garbage collector, namespace lifecycle).

use kepspec_core::Lookup as _;
use serde_json::{json, Value};

use super::admission::{self, AdmissionRequest, ApiGates, Operation};
use super::managed::{self, Manager};
use super::meta::{self, meta_mut, meta_str};
use super::resources::ResourceInfo;
use super::status::{ApiError, Cause};
use super::store::{Gr, ObjKey, Txn};

pub(crate) use super::update::update_in;

/// Which part of an object a write addresses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Target {
    /// The main resource (status changes are ignored when a status subresource exists).
    Main,
    /// The `status` subresource (everything but status is ignored).
    Status,
    /// A pod's `ephemeralcontainers` subresource (everything but
    /// `spec.ephemeralContainers` is ignored).
    EphemeralContainers,
}

/// The namespace partition key.
/// A write made through the API: the admission gates in force and the
/// field manager it is recorded for.
pub(crate) struct ApiWrite<'a> {
    /// Admission gates.
    pub gates: &'a ApiGates,
    /// Who writes (`fieldManager`, or the User-Agent's prefix).
    pub manager: Manager,
}

/// The part of the object a write to `target` may own.
pub(crate) fn scope(info: &ResourceInfo, target: Target) -> managed::Scope {
    match target {
        Target::Status => managed::Scope::Status,
        Target::Main | Target::EphemeralContainers => managed::Scope::Main {
            status_subresource: info.status,
        },
    }
}

/// Sets the managedFields a write stores: recorded for an update, kept as
/// computed for an apply (`sent`), carried over from `old` for an
/// in-process writer.
pub(crate) fn record_fields(
    info: &ResourceInfo,
    target: Target,
    old: Option<&Value>,
    new: &mut Value,
    sent: Option<&Value>,
    by: Option<&ApiWrite<'_>>,
) {
    let keep = |new: &mut Value, v: Option<&Value>| {
        let m = meta_mut(new);
        match v {
            Some(v) => m.insert("managedFields".into(), v.clone()),
            None => m.remove("managedFields"),
        };
    };
    match by {
        Some(w) if w.manager.operation == managed::Operation::Update => managed::record_update(
            old,
            new,
            sent,
            &w.manager,
            scope(info, target),
            &meta::now_rfc3339(),
        ),
        Some(_) => keep(new, sent),
        None => keep(new, old.and_then(|o| o.lookup("/metadata/managedFields"))),
    }
}

pub(crate) fn namespaces_gr() -> Gr {
    Gr::new("", "namespaces")
}

pub(super) fn invalid_one(
    info: &ResourceInfo,
    name: &str,
    reason: &str,
    field: &str,
    msg: &str,
) -> ApiError {
    ApiError::invalid(
        &info.group,
        &info.kind,
        name,
        vec![Cause {
            reason: reason.to_string(),
            message: msg.to_string(),
            field: field.to_string(),
        }],
    )
}

pub(super) fn admit(
    info: &ResourceInfo,
    op: Operation,
    obj: &mut Value,
    old: Option<&Value>,
    gates: &ApiGates,
) -> Result<(), ApiError> {
    // OpenKruise's webhooks, for the stand-in of its StatefulSet (see
    // `admission::kruise`): its defaults, then its validation.
    if info.group == kepspec_core::names::KRUISE_GROUP && info.plural == "statefulsets" {
        admission::kruise::default(obj);
        if let Some(message) = admission::kruise::validate(obj, old) {
            return Err(ApiError::new(422, "", message));
        }
    }
    let mut req = AdmissionRequest {
        group: &info.group,
        resource: &info.plural,
        operation: op,
        object: obj,
        old_object: old,
        gates,
    };
    // ObjectMeta's labels and ownerReferences are validated for every kind,
    // first, as `ValidateObjectMeta` does before the kind's own rules.
    let mut labels =
        admission::meta::labels_errors(req.object.lookup("/metadata/labels"), "metadata.labels");
    labels.extend(admission::meta::owner_references_errors(
        req.object.lookup("/metadata/ownerReferences"),
        "metadata.ownerReferences",
    ));
    let result = admission::admit(&mut req);
    let name = admission::meta::name(req.object).to_string();
    let inv = match result {
        Ok(()) if labels.is_empty() => return Ok(()),
        Ok(()) => admission::Invalid {
            kind: info.kind.clone(),
            group: info.group.clone(),
            name,
            causes: labels.iter().map(|e| e.to_cause()).collect(),
        },
        Err(mut inv) => {
            inv.kind = info.kind.clone();
            inv.group = info.group.clone();
            let mut causes: Vec<_> = labels.iter().map(|e| e.to_cause()).collect();
            causes.append(&mut inv.causes);
            inv.causes = causes;
            inv
        }
    };
    Err(invalid_error(info, inv))
}

/// The validation of a write to a pod's `ephemeralcontainers`
/// (`ValidatePodEphemeralContainersUpdate`), as a 422.
pub(crate) fn admit_ephemeral(
    info: &ResourceInfo,
    new: &Value,
    old: &Value,
) -> Result<(), ApiError> {
    let errs = admission::ephemeral_update_errors(new, old);
    if errs.is_empty() {
        return Ok(());
    }
    Err(invalid_error(
        info,
        admission::Invalid {
            kind: info.kind.clone(),
            group: info.group.clone(),
            name: admission::meta::name(new).to_string(),
            causes: errs.iter().map(|e| e.to_cause()).collect(),
        },
    ))
}

fn invalid_error(info: &ResourceInfo, inv: admission::Invalid) -> ApiError {
    let causes = inv
        .causes
        .iter()
        .map(|c| Cause {
            reason: c.reason.clone(),
            message: c.message.clone(),
            field: c.field.clone(),
        })
        .collect();
    let mut e = ApiError::invalid(&info.group, &inv.kind, &inv.name, causes);
    e.message = inv.message();
    e
}

/// Checks `apiVersion`/`kind` of a request body against the endpoint and fills them in.
pub(crate) fn check_type(info: &ResourceInfo, obj: &mut Value) -> Result<(), ApiError> {
    let Some(map) = obj.as_object_mut() else {
        return Err(ApiError::bad_request(
            "the object provided is not a JSON object",
        ));
    };
    let want_av = info.api_version();
    if let Some(av) = map.get("apiVersion").and_then(Value::as_str) {
        if av != want_av {
            return Err(ApiError::bad_request(format!(
                "the API version in the data ({av}) does not match the expected API version ({want_av})"
            )));
        }
    }
    if let Some(k) = map.get("kind").and_then(Value::as_str) {
        if k != info.kind {
            return Err(ApiError::bad_request(format!(
                "the kind in the data ({k}) does not match the expected kind ({})",
                info.kind
            )));
        }
    }
    map.insert("apiVersion".into(), json!(want_av));
    map.insert("kind".into(), json!(info.kind));
    if let Some(m) = map.get_mut("metadata").and_then(Value::as_object_mut) {
        drop_empty_meta(m);
    }
    // Decoding into the kind's typed form refuses values of the wrong type
    // or range (400), as kube-apiserver's decoder does.
    if let Some(Err(e)) = super::typed::round_trip(info, obj) {
        return Err(e);
    }
    // A custom resource gets its schema's defaults, and its values must
    // keep to the schema (422).
    if let Some(schema) = &info.schema {
        super::structural::apply_defaults(schema, obj);
        let errs = super::structural::type_errors(schema, obj);
        if !errs.is_empty() {
            let name = meta_str(obj, "name").unwrap_or_default().to_string();
            let causes = errs
                .iter()
                .map(|e| Cause {
                    reason: e.reason().into(),
                    message: e.message(),
                    field: e.field.clone(),
                })
                .collect();
            let mut err = ApiError::invalid(&info.group, &info.kind, &name, causes);
            err.message = format!(
                "{}.{} {name:?} is invalid: {}",
                info.kind,
                info.group,
                errs.iter()
                    .map(|e| format!("{}: {}", e.field, e.message()))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            return Err(err);
        }
    }
    super::fields::prune(info, obj);
    if super::convert::is_events_v1(info) {
        *obj = super::convert::events_v1_to_core(obj);
    }
    Ok(())
}

/// Namespaces always carry `kubernetes.io/metadata.name=<name>` (upstream defaulting).
pub(super) fn label_namespace(info: &ResourceInfo, obj: &mut Value, name: &str) {
    if !(info.group.is_empty() && info.plural == "namespaces") {
        return;
    }
    let m = meta_mut(obj);
    if !m.get("labels").is_some_and(Value::is_object) {
        m.insert("labels".into(), json!({}));
    }
    if let Some(l) = m.get_mut("labels").and_then(Value::as_object_mut) {
        l.insert("kubernetes.io/metadata.name".into(), json!(name));
    }
}

/// Drops the `omitempty` ObjectMeta fields that are present but empty, as a
/// decode/encode round trip through the typed ObjectMeta does upstream.
fn drop_empty_meta(m: &mut serde_json::Map<String, Value>) {
    m.retain(|k, v| {
        let empty = match v {
            Value::Null => true,
            Value::String(s) => s.is_empty(),
            Value::Array(a) => a.is_empty(),
            Value::Object(o) => o.is_empty(),
            _ => false,
        };
        !(empty
            && matches!(
                k.as_str(),
                "labels"
                    | "annotations"
                    | "finalizers"
                    | "ownerReferences"
                    | "generateName"
                    | "namespace"
                    | "resourceVersion"
                    | "uid"
                    | "managedFields"
                    | "selfLink"
                    | "deletionTimestamp"
                    | "creationTimestamp"
            ))
    });
}

/// Fails a create with 404 (or 403 while terminating) unless the namespace is usable.
pub(crate) fn check_namespace(
    txn: &Txn<'_>,
    info: &ResourceInfo,
    ns: &str,
    name: &str,
) -> Result<(), ApiError> {
    if !info.namespaced {
        return Ok(());
    }
    let Some(nsobj) = txn.get(&ObjKey::new(&namespaces_gr(), "", ns)) else {
        return Err(ApiError::not_found("", "namespaces", ns));
    };
    if nsobj["metadata"].get("deletionTimestamp").is_some() {
        let msg = format!(
            "unable to create new content in namespace {ns} because it is being terminated"
        );
        let mut e = ApiError::new(
            403,
            "Forbidden",
            format!(
                "{} {name:?} is forbidden: {msg}",
                super::status::qualified(&info.plural, &info.group)
            ),
        );
        e.name = Some(name.to_string());
        e.group = Some(info.group.clone());
        e.kind = Some(info.plural.clone());
        e.causes = vec![Cause {
            reason: "NamespaceTerminating".into(),
            message: msg,
            field: "metadata.namespace".into(),
        }];
        return Err(e);
    }
    Ok(())
}

fn reset_status_on_create(info: &ResourceInfo, obj: &mut Value) {
    let Some(map) = obj.as_object_mut() else {
        return;
    };
    match (info.group.as_str(), info.plural.as_str()) {
        ("apps", "statefulsets") => {
            map.insert(
                "status".into(),
                json!({"replicas": 0, "availableReplicas": 0}),
            );
        }
        ("", "pods") | ("", "persistentvolumeclaims") | ("", "persistentvolumes") => {
            map.insert("status".into(), json!({"phase": "Pending"}));
        }
        ("", "namespaces") => {
            map.insert("status".into(), json!({"phase": "Active"}));
            let spec = map.entry("spec").or_insert_with(|| json!({}));
            if let Some(s) = spec.as_object_mut() {
                s.insert("finalizers".into(), json!(["kubernetes"]));
            }
        }
        ("", "services") => {
            map.insert("status".into(), json!({"loadBalancer": {}}));
        }
        ("apiextensions.k8s.io", "customresourcedefinitions") => {
            let names = map
                .get("spec")
                .and_then(|s| s.get("names"))
                .cloned()
                .unwrap_or(json!({}));
            let storage: Vec<Value> = map
                .get("spec")
                .and_then(|s| s["versions"].as_array())
                .into_iter()
                .flatten()
                .filter(|v| v["storage"].as_bool() == Some(true))
                .filter_map(|v| v.get("name").cloned())
                .collect();
            let now = meta::now_rfc3339();
            map.insert(
                "status".into(),
                json!({
                    "acceptedNames": names,
                    "conditions": [
                        {"type": "NamesAccepted", "status": "True", "lastTransitionTime": now, "reason": "NoConflicts", "message": "no conflicts found"},
                        {"type": "Established", "status": "True", "lastTransitionTime": now, "reason": "InitialNamesAccepted", "message": "the initial names have been accepted"}
                    ],
                    "storedVersions": storage
                }),
            );
        }
        _ if info.status && !info.builtin => {
            map.remove("status");
        }
        _ => {}
    }
}

/// Why `name` is not a valid name for the kind, if it is not: a path
/// segment for RBAC objects (`ValidateRBACName`, apimachinery's
/// path.IsValidPathSegmentName: `system:auth-delegator`), a DNS label for
/// namespaces, a DNS subdomain otherwise.
fn name_error(info: &ResourceInfo, name: &str) -> Option<String> {
    if info.builtin && info.group == "rbac.authorization.k8s.io" {
        return admission::meta::path_segment_error(name);
    }
    if !meta::is_dns1123_subdomain(name) {
        return Some("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')".into());
    }
    if info.group.is_empty() && info.plural == "namespaces" && !meta::is_dns1123_label(name) {
        return Some("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')".into());
    }
    None
}

/// A create body carrying a resourceVersion the storage would read as a
/// version (a non-zero number: "0" and non-numbers are cleared, as
/// `ObjectResourceVersion` fails or reads 0 for them).
fn set_on_create(obj: &Value) -> bool {
    obj.lookup("/metadata/resourceVersion")
        .and_then(Value::as_str)
        .and_then(|v| v.parse::<u64>().ok())
        .is_some_and(|v| v != 0)
}

/// Creates an object in `ns` (ignored for cluster-scoped resources).
/// `by` = `None` skips admission and field ownership (in-process writers).
pub(crate) fn create_in(
    txn: &mut Txn<'_>,
    info: &ResourceInfo,
    ns: &str,
    mut obj: Value,
    by: Option<&ApiWrite<'_>>,
    dry_run: bool,
) -> Result<Value, ApiError> {
    check_type(info, &mut obj)?;
    let gates = by.map(|w| w.gates);
    let sent = obj.lookup("/metadata/managedFields").cloned();
    let ns = if info.namespaced { ns } else { "" };
    if gates.is_some() && set_on_create(&obj) {
        // etcd3 store's Create refuses it with a plain error, which the
        // handler answers as a 500 with no reason (ErrorToAPIStatus).
        return Err(ApiError::new(
            500,
            "",
            "resourceVersion should not be set on objects to be created",
        ));
    }
    {
        let m = meta_mut(&mut obj);
        if let Some(body_ns) = m.get("namespace").and_then(Value::as_str) {
            if info.namespaced && !body_ns.is_empty() && body_ns != ns {
                return Err(ApiError::bad_request("the namespace of the provided object does not match the namespace sent on the request"));
            }
        }
        if info.namespaced {
            m.insert("namespace".into(), json!(ns));
        } else {
            m.remove("namespace");
        }
        let name = m.get("name").and_then(Value::as_str).unwrap_or("");
        if name.is_empty() {
            match m.get("generateName").and_then(Value::as_str) {
                Some(g) if !g.is_empty() => {
                    let n = meta::generate_name(g);
                    m.insert("name".into(), json!(n));
                }
                _ => {
                    return Err(invalid_one(
                        info,
                        "",
                        "FieldValueRequired",
                        "metadata.name",
                        "Required value: name or generateName is required",
                    ));
                }
            }
        }
        for f in [
            "uid",
            "creationTimestamp",
            "deletionTimestamp",
            "deletionGracePeriodSeconds",
            "resourceVersion",
            "selfLink",
            "managedFields",
        ] {
            m.remove(f);
        }
    }
    let name = meta_str(&obj, "name").unwrap_or_default().to_string();
    if let Some(why) = name_error(info, &name) {
        let msg = format!("Invalid value: {name:?}: {why}");
        return Err(invalid_one(
            info,
            &name,
            "FieldValueInvalid",
            "metadata.name",
            &msg,
        ));
    }
    check_namespace(txn, info, ns, &name)?;
    label_namespace(info, &mut obj, &name);
    reset_status_on_create(info, &mut obj);
    if let Some(g) = gates {
        admit(info, Operation::Create, &mut obj, None, g)?;
        if info.group.is_empty() && info.plural == "pods" {
            let accounts = super::bootstrap::service_accounts();
            super::bootstrap::admit_pod(&mut obj, ns, |a| {
                txn.get(&ObjKey::new(&accounts, ns, a)).is_some()
            })?;
        }
        if info.group.is_empty() && info.plural == "persistentvolumeclaims" {
            let classes = super::storage_class::storage_classes();
            super::storage_class::admit_claim(&mut obj, || {
                txn.list(&classes, None)
                    .into_iter()
                    .map(|(_, c)| c)
                    .collect()
            });
        }
    }
    let key = ObjKey::new(&info.gr(), ns, &name);
    if txn.get(&key).is_some() {
        return Err(ApiError::already_exists(&info.group, &info.plural, &name));
    }
    {
        let m = meta_mut(&mut obj);
        m.insert("uid".into(), json!(meta::new_uid()));
        m.insert("creationTimestamp".into(), json!(meta::now_rfc3339()));
        if info.generation {
            m.insert("generation".into(), json!(1));
        } else {
            m.remove("generation");
        }
    }
    if info.plural == "services" && info.group.is_empty() {
        super::defaults::service(&mut obj, txn.resource_version());
    }
    record_fields(info, Target::Main, None, &mut obj, sent.as_ref(), by);
    if dry_run {
        return Ok(obj);
    }
    let created = txn.create(&key, obj);
    if info.group.is_empty() && info.plural == "namespaces" {
        create_default_service_account(txn, &name);
    }
    Ok(created)
}

/// Makes namespace `ns`'s default ServiceAccount (see `bootstrap`).
pub(crate) fn create_default_service_account(txn: &mut Txn<'_>, ns: &str) {
    let (key, mut sa) = super::bootstrap::default_service_account(ns);
    if txn.get(&key).is_some() {
        return;
    }
    let m = meta_mut(&mut sa);
    m.insert("uid".into(), json!(meta::new_uid()));
    m.insert("creationTimestamp".into(), json!(meta::now_rfc3339()));
    txn.create(&key, sa);
}
