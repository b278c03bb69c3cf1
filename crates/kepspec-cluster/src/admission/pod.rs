//! Pod admission: defaults, `PrepareForCreate` (status Pending with the QoS
//! class), and the parts of `ValidatePod` / `ValidatePodUpdate` the
//! harness relies on.

use super::fielderr::FieldError;
use super::meta::{self, semantic, str_at};
use super::quantity::milli_of;
use super::{defaults, AdmissionRequest, Operation};
use kepspec_core::Lookup as _;
use serde_json::{json, Map, Value};

const FORBIDDEN_UPDATE: &str = "pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)";

/// Defaults, prepares and validates a Pod create or update.
pub(super) fn admit(req: &mut AdmissionRequest<'_>) -> Vec<FieldError> {
    defaults::pod(req.object, req.operation);
    match (req.operation, req.old_object) {
        (Operation::Update, Some(old)) => {
            // The stored object is compared as decoded, i.e. with defaults.
            let mut old = old.clone();
            defaults::pod(&mut old, Operation::Update);
            validate_update(req.object, &old)
        }
        _ => {
            let qos = qos_class(req.object);
            if let Some(root) = req.object.as_object_mut() {
                root.insert(
                    "status".into(),
                    json!({"phase": "Pending", "qosClass": qos}),
                );
            }
            validate_create(req.object)
        }
    }
}

fn validate_create(obj: &Value) -> Vec<FieldError> {
    let mut errs = meta::validate_create_name(obj, meta::dns1123_subdomain_errors);
    let empty = Map::new();
    let spec = obj.get("spec").and_then(Value::as_object).unwrap_or(&empty);
    let volumes = spec
        .get("volumes")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    errs.extend(validate_volumes(volumes));
    let containers = spec.get("containers").and_then(Value::as_array);
    match containers {
        Some(list) if !list.is_empty() => {
            errs.extend(validate_containers(list, "spec.containers"));
            errs.extend(validate_volume_mounts(list, "spec.containers", volumes));
        }
        _ => errs.push(FieldError::required("spec.containers", "")),
    }
    if let Some(list) = spec.get("initContainers").and_then(Value::as_array) {
        errs.extend(validate_containers(list, "spec.initContainers"));
        errs.extend(validate_volume_mounts(list, "spec.initContainers", volumes));
    }
    // `ValidatePodCreate`: ephemeral containers come only through the
    // pod's ephemeralcontainers subresource.
    if spec
        .get("ephemeralContainers")
        .and_then(Value::as_array)
        .is_some_and(|l| !l.is_empty())
    {
        errs.push(FieldError::forbidden(
            "spec.ephemeralContainers",
            "cannot be set on create",
        ));
    }
    let restart = str_at(spec, "restartPolicy");
    if !matches!(restart, "Always" | "OnFailure" | "Never") {
        errs.push(FieldError::not_supported(
            "spec.restartPolicy",
            restart,
            &["Always", "OnFailure", "Never"],
        ));
    }
    errs
}

/// A name that must be a DNS label: required, and each breach of the label
/// rules an invalid value (containers' and volumes' names alike).
fn label_name_errors(name: &str, field: &str) -> Vec<FieldError> {
    if name.is_empty() {
        return vec![FieldError::required(field, "")];
    }
    meta::dns1123_label_errors(name)
        .iter()
        .map(|msg| FieldError::invalid(field, super::fielderr::go_quote(name), msg))
        .collect()
}

/// `validateContainers`: names (required, DNS labels, unique) and images.
pub(super) fn validate_containers(list: &[Value], path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    for (i, c) in list.iter().enumerate() {
        let name = c.get("name").and_then(Value::as_str).unwrap_or_default();
        let field = format!("{path}[{i}].name");
        errs.extend(label_name_errors(name, &field));
        if !name.is_empty() {
            if seen.contains(&name) {
                errs.push(FieldError::duplicate(&field, name));
            }
            seen.push(name);
        }
        let image = c.get("image").and_then(Value::as_str).unwrap_or_default();
        if image.trim().is_empty() {
            errs.push(FieldError::required(&format!("{path}[{i}].image"), ""));
        }
    }
    errs
}

/// `ValidateVolumes`' names: required, DNS labels, unique.
fn validate_volumes(volumes: &[Value]) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    for (i, v) in volumes.iter().enumerate() {
        let name = v.get("name").and_then(Value::as_str).unwrap_or_default();
        let field = format!("spec.volumes[{i}].name");
        errs.extend(label_name_errors(name, &field));
        if seen.contains(&name) {
            errs.push(FieldError::duplicate(&field, name));
        }
        seen.push(name);
    }
    errs
}

/// `ValidateVolumeMounts`: each mount names a volume of the pod and a
/// mount path, unique within its container.
fn validate_volume_mounts(containers: &[Value], path: &str, volumes: &[Value]) -> Vec<FieldError> {
    let names: Vec<&str> = volumes
        .iter()
        .filter_map(|v| v.get("name").and_then(Value::as_str))
        .collect();
    let mut errs = Vec::new();
    for (i, c) in containers.iter().enumerate() {
        let mounts = c
            .get("volumeMounts")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        let mut paths: Vec<&str> = Vec::new();
        for (j, m) in mounts.iter().enumerate() {
            let at = format!("{path}[{i}].volumeMounts[{j}]");
            let name = m.get("name").and_then(Value::as_str).unwrap_or_default();
            if name.is_empty() {
                errs.push(FieldError::required(&format!("{at}.name"), ""));
            }
            if !names.contains(&name) {
                errs.push(FieldError::not_found(&format!("{at}.name"), name));
            }
            let mount_path = m
                .get("mountPath")
                .and_then(Value::as_str)
                .unwrap_or_default();
            if mount_path.is_empty() {
                errs.push(FieldError::required(&format!("{at}.mountPath"), ""));
            }
            if paths.contains(&mount_path) {
                errs.push(FieldError::invalid(
                    &format!("{at}.mountPath"),
                    super::fielderr::go_quote(mount_path),
                    "must be unique",
                ));
            }
            paths.push(mount_path);
        }
    }
    errs
}

/// `ValidatePodUpdate`'s mutation rule: only images, activeDeadlineSeconds,
/// added tolerations, removed scheduling gates and a grace period may change.
fn validate_update(new: &Value, old: &Value) -> Vec<FieldError> {
    let empty = Map::new();
    let old_spec = old.get("spec").and_then(Value::as_object).unwrap_or(&empty);
    let mut new_spec = new
        .get("spec")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    for list in ["containers", "initContainers"] {
        let old_list = old_spec.get(list).and_then(Value::as_array);
        if let (Some(Value::Array(items)), Some(old_list)) = (new_spec.get_mut(list), old_list) {
            for (item, old_item) in items.iter_mut().zip(old_list) {
                if let (Some(m), Some(img)) = (item.as_object_mut(), old_item.get("image")) {
                    m.insert("image".into(), img.clone());
                }
            }
        }
    }
    for key in [
        "activeDeadlineSeconds",
        "terminationGracePeriodSeconds",
        "schedulingGates",
    ] {
        match old_spec.get(key) {
            Some(v) => new_spec.insert(key.to_string(), v.clone()),
            None => new_spec.remove(key),
        };
    }
    let old_tolerations = old_spec.get("tolerations").and_then(Value::as_array);
    let new_tolerations = new_spec.get("tolerations").and_then(Value::as_array);
    let additions_only = match (old_tolerations, new_tolerations) {
        (Some(o), Some(n)) => o.iter().all(|t| n.contains(t)),
        (Some(o), None) => o.is_empty(),
        _ => true,
    };
    if additions_only {
        match old_spec.get("tolerations") {
            Some(v) => new_spec.insert("tolerations".into(), v.clone()),
            None => new_spec.remove("tolerations"),
        };
    }
    if semantic(&Value::Object(new_spec)) != semantic(&Value::Object(old_spec.clone())) {
        vec![FieldError::forbidden("spec", FORBIDDEN_UPDATE)]
    } else {
        Vec::new()
    }
}

/// `GetPodQOS`: Guaranteed when every container limits cpu and memory with
/// equal requests, BestEffort when nothing is requested or limited,
/// Burstable otherwise.
pub(super) fn qos_class(pod: &Value) -> &'static str {
    let mut any = false;
    let mut guaranteed = true;
    for list in ["initContainers", "containers"] {
        let Some(items) = pod
            .lookup(&format!("/spec/{list}"))
            .and_then(Value::as_array)
        else {
            continue;
        };
        for c in items {
            let requests = c.lookup("/resources/requests").and_then(Value::as_object);
            let limits = c.lookup("/resources/limits").and_then(Value::as_object);
            for res in ["cpu", "memory"] {
                let req = requests.and_then(|r| r.get(res)).and_then(milli_of);
                let lim = limits.and_then(|l| l.get(res)).and_then(milli_of);
                if req.is_some_and(|q| q != 0) || lim.is_some_and(|q| q != 0) {
                    any = true;
                }
                if lim.is_none() || req != lim {
                    guaranteed = false;
                }
            }
        }
    }
    if !any {
        "BestEffort"
    } else if guaranteed {
        "Guaranteed"
    } else {
        "Burstable"
    }
}

/// The fields an ephemeral container may set
/// (`allowedEphemeralContainerFields`, pkg/apis/core/validation/validation.go);
/// any other set field is `Forbidden: cannot be set for an Ephemeral
/// Container` (ports, resources, probes, lifecycle, resizePolicy,
/// restartPolicy).
const EPHEMERAL_ALLOWED: [&str; 17] = [
    "name",
    "image",
    "command",
    "args",
    "workingDir",
    "envFrom",
    "env",
    "volumeMounts",
    "volumeDevices",
    "terminationMessagePath",
    "terminationMessagePolicy",
    "imagePullPolicy",
    "securityContext",
    "stdin",
    "stdinOnce",
    "tty",
    "targetContainerName",
];

/// `ValidatePodEphemeralContainersUpdate`: a static pod takes none; the
/// new list passes `validateEphemeralContainers` (names unique across every
/// container of the pod, a target among the regular and init containers,
/// only the allowed fields); an existing ephemeral container may be neither
/// removed nor changed (matched by name, since a patch may reorder them).
pub(super) fn ephemeral_update_errors(new: &Value, old: &Value) -> Vec<FieldError> {
    if old
        .lookup("/metadata/annotations/kubernetes.io~1config.mirror")
        .is_some()
    {
        return vec![FieldError::forbidden(
            "",
            "static pods do not support ephemeral containers",
        )];
    }
    let list = |pod: &Value, key: &str| -> Vec<Value> {
        pod.lookup(&format!("/spec/{key}"))
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    let name_of = |c: &Value| {
        c.get("name")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    let mut others: Vec<String> = list(new, "containers").iter().map(name_of).collect();
    others.extend(list(new, "initContainers").iter().map(name_of));
    let mut errs = Vec::new();
    let mut all = others.clone();
    let new_list = list(new, "ephemeralContainers");
    for (i, c) in new_list.iter().enumerate() {
        let at = format!("spec.ephemeralContainers[{i}]");
        let name = name_of(c);
        if name.is_empty() {
            errs.push(FieldError::required(&format!("{at}.name"), ""));
        } else {
            for msg in meta::dns1123_label_errors(&name) {
                errs.push(FieldError::invalid(
                    &format!("{at}.name"),
                    super::fielderr::go_quote(&name),
                    &msg,
                ));
            }
            if all.contains(&name) {
                errs.push(FieldError::duplicate(&format!("{at}.name"), &name));
            }
            all.push(name);
        }
        let image = c.get("image").and_then(Value::as_str).unwrap_or_default();
        if image.trim().is_empty() {
            errs.push(FieldError::required(&format!("{at}.image"), ""));
        }
        let target = c
            .get("targetContainerName")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if !target.is_empty() && !others.iter().any(|o| o == target) {
            errs.push(FieldError::not_found(
                &format!("{at}.targetContainerName"),
                target,
            ));
        }
        for (field, value) in c.as_object().into_iter().flatten() {
            let zero = match value {
                Value::Null => true,
                Value::Object(m) => m.is_empty(),
                Value::Array(a) => a.is_empty(),
                Value::String(s) => s.is_empty(),
                Value::Bool(b) => !b,
                Value::Number(n) => n.as_f64() == Some(0.0),
            };
            if !zero && !EPHEMERAL_ALLOWED.contains(&field.as_str()) {
                errs.push(FieldError::forbidden(
                    &format!("{at}.{field}"),
                    "cannot be set for an Ephemeral Container",
                ));
            }
        }
    }
    for old_c in list(old, "ephemeralContainers") {
        let name = name_of(&old_c);
        match new_list.iter().find(|c| name_of(c) == name) {
            None => errs.push(FieldError::forbidden(
                "spec.ephemeralContainers",
                &format!(
                    "existing ephemeral containers {} may not be removed\n",
                    super::fielderr::go_quote(&name)
                ),
            )),
            Some(c) if semantic(c) != semantic(&old_c) => errs.push(FieldError::forbidden(
                "spec.ephemeralContainers",
                &format!(
                    "existing ephemeral containers {} may not be changed\n",
                    super::fielderr::go_quote(&name)
                ),
            )),
            Some(_) => {}
        }
    }
    errs
}
