//! Decoding a built-in object as kube-apiserver does: into its typed form.
//!
//! kube-apiserver decodes every request body of a built-in kind into the Go
//! struct of that kind before anything else looks at it. A value of the
//! wrong JSON type, or a number out of the field's range, fails there with a
//! 400 BadRequest whose message is built by `transformDecodeError`
//! (staging/src/k8s.io/apiserver/pkg/endpoints/handlers/rest.go):
//! `StatefulSet in version "v1" cannot be handled as a StatefulSet: json:
//! cannot unmarshal string into Go struct field StatefulSetSpec.spec.replicas
//! of type int32`. Fields the struct does not have are dropped (and reported
//! as `unknown field "spec.x"` under `fieldValidation=Warn|Strict`).
//!
//! The embedded apiserver does the same with the k8s-openapi types, which
//! carry the Go structs' field names and types. Where the Go struct's name
//! is not known from the path, the message names the kind (a difference
//! listed in docs/src/embedded-cluster.md).

use kepspec_core::Lookup as _;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

use super::resources::ResourceInfo;
use super::status::ApiError;

/// A built-in kind's typed form: what decodes and encodes it, and what
/// describes it in OpenAPI.
pub(crate) trait BuiltIn: DeserializeOwned + Serialize + schemars::JsonSchema {}
impl<T: DeserializeOwned + Serialize + schemars::JsonSchema> BuiltIn for T {}

/// Something done with the typed form of one built-in kind.
pub(crate) trait KindVisitor {
    /// What it gives.
    type Out;
    /// Does it with `T`, the kind's typed form.
    fn visit<T: BuiltIn>(self) -> Self::Out;
}

/// Runs `visitor` with the typed form of `group/version` `kind`, or gives
/// None for kinds without one here (custom resources).
pub(crate) fn with_kind<V: KindVisitor>(
    group: &str,
    version: &str,
    kind: &str,
    visitor: V,
) -> Option<V::Out> {
    use k8s_openapi::api::{
        apps, authorization, batch, coordination, core, discovery, policy, rbac, storage,
    };
    macro_rules! kinds {
        ($(($group:literal, $version:literal, $kind:literal, $ty:ty)),* $(,)?) => {
            match (group, version, kind) {
                $(($group, $version, $kind) => Some(visitor.visit::<$ty>()),)*
                _ => None,
            }
        };
    }
    kinds![
        ("apps", "v1", "StatefulSet", apps::v1::StatefulSet),
        (
            "apps",
            "v1",
            "ControllerRevision",
            apps::v1::ControllerRevision
        ),
        ("apps", "v1", "Deployment", apps::v1::Deployment),
        ("apps", "v1", "ReplicaSet", apps::v1::ReplicaSet),
        ("apps", "v1", "DaemonSet", apps::v1::DaemonSet),
        ("batch", "v1", "Job", batch::v1::Job),
        (
            "discovery.k8s.io",
            "v1",
            "EndpointSlice",
            discovery::v1::EndpointSlice
        ),
        (
            "authorization.k8s.io",
            "v1",
            "SelfSubjectAccessReview",
            authorization::v1::SelfSubjectAccessReview
        ),
        (
            "authorization.k8s.io",
            "v1",
            "SelfSubjectRulesReview",
            authorization::v1::SelfSubjectRulesReview
        ),
        ("", "v1", "Pod", core::v1::Pod),
        ("", "v1", "ConfigMap", core::v1::ConfigMap),
        ("", "v1", "Secret", core::v1::Secret),
        ("", "v1", "Service", core::v1::Service),
        ("", "v1", "ServiceAccount", core::v1::ServiceAccount),
        ("", "v1", "Namespace", core::v1::Namespace),
        ("", "v1", "Node", core::v1::Node),
        (
            "",
            "v1",
            "PersistentVolumeClaim",
            core::v1::PersistentVolumeClaim
        ),
        ("", "v1", "PersistentVolume", core::v1::PersistentVolume),
        ("", "v1", "Endpoints", core::v1::Endpoints),
        (
            "coordination.k8s.io",
            "v1",
            "Lease",
            coordination::v1::Lease
        ),
        (
            "policy",
            "v1",
            "PodDisruptionBudget",
            policy::v1::PodDisruptionBudget
        ),
        ("rbac.authorization.k8s.io", "v1", "Role", rbac::v1::Role),
        (
            "rbac.authorization.k8s.io",
            "v1",
            "ClusterRole",
            rbac::v1::ClusterRole
        ),
        (
            "rbac.authorization.k8s.io",
            "v1",
            "RoleBinding",
            rbac::v1::RoleBinding
        ),
        (
            "rbac.authorization.k8s.io",
            "v1",
            "ClusterRoleBinding",
            rbac::v1::ClusterRoleBinding
        ),
        (
            "storage.k8s.io",
            "v1",
            "StorageClass",
            storage::v1::StorageClass
        ),
    ]
}

/// Every built-in kind with a typed form, as (group, version, kind).
pub(crate) const BUILT_IN: &[(&str, &str, &str)] = &[
    ("apps", "v1", "StatefulSet"),
    ("apps", "v1", "ControllerRevision"),
    ("apps", "v1", "Deployment"),
    ("apps", "v1", "ReplicaSet"),
    ("apps", "v1", "DaemonSet"),
    ("batch", "v1", "Job"),
    ("discovery.k8s.io", "v1", "EndpointSlice"),
    ("authorization.k8s.io", "v1", "SelfSubjectAccessReview"),
    ("authorization.k8s.io", "v1", "SelfSubjectRulesReview"),
    ("", "v1", "Pod"),
    ("", "v1", "ConfigMap"),
    ("", "v1", "Secret"),
    ("", "v1", "Service"),
    ("", "v1", "ServiceAccount"),
    ("", "v1", "Namespace"),
    ("", "v1", "Node"),
    ("", "v1", "PersistentVolumeClaim"),
    ("", "v1", "PersistentVolume"),
    ("", "v1", "Endpoints"),
    ("coordination.k8s.io", "v1", "Lease"),
    ("policy", "v1", "PodDisruptionBudget"),
    ("rbac.authorization.k8s.io", "v1", "Role"),
    ("rbac.authorization.k8s.io", "v1", "ClusterRole"),
    ("rbac.authorization.k8s.io", "v1", "RoleBinding"),
    ("rbac.authorization.k8s.io", "v1", "ClusterRoleBinding"),
    ("storage.k8s.io", "v1", "StorageClass"),
];

/// Decodes `obj` into the typed form of its kind and back; returns the
/// typed form as JSON (unknown fields gone), or None for kinds without a
/// typed form here (custom resources).
pub fn round_trip(info: &ResourceInfo, obj: &Value) -> Option<Result<Value, ApiError>> {
    struct Through<'a>(&'a ResourceInfo, &'a Value);
    impl KindVisitor for Through<'_> {
        type Out = Result<Value, ApiError>;
        fn visit<T: BuiltIn>(self) -> Self::Out {
            through::<T>(self.0, self.1)
        }
    }
    if (
        info.group.as_str(),
        info.version.as_str(),
        info.kind.as_str(),
    ) == ("apps", "v1", "StatefulSet")
    {
        return Some(statefulset(info, obj));
    }
    with_kind(&info.group, &info.version, &info.kind, Through(info, obj))
}

/// A StatefulSet as the KEP-3541 draft's Go type has it: apps/v1 plus
/// `spec.updateStrategy.enforcedRollingUpdate`, of the type of
/// `rollingUpdate` ("API Changes"). Whether it is kept is the admission
/// chain's decision (its gate).
fn statefulset(info: &ResourceInfo, obj: &Value) -> Result<Value, ApiError> {
    use k8s_openapi::api::apps::v1::{RollingUpdateStatefulSetStrategy, StatefulSet};
    let mut typed = through::<StatefulSet>(info, obj)?;
    let pointer = "/spec/updateStrategy/enforcedRollingUpdate";
    let Some(block) = obj.lookup(pointer).filter(|v| !v.is_null()) else {
        return Ok(typed);
    };
    let value = decode::<RollingUpdateStatefulSetStrategy>(
        info,
        obj,
        block,
        "spec.updateStrategy.enforcedRollingUpdate.",
    )?;
    if let Some(Value::Object(strategy)) = typed.pointer_mut("/spec/updateStrategy") {
        strategy.insert(super::admission::enforced::BLOCK.into(), value);
    }
    Ok(typed)
}

fn through<T: DeserializeOwned + Serialize>(
    info: &ResourceInfo,
    obj: &Value,
) -> Result<Value, ApiError> {
    decode::<T>(info, obj, obj, "")
}

/// Decodes `value` (found at `prefix` in `obj`) into `T` and back, with
/// kube-apiserver's message for a value of the wrong type.
fn decode<T: DeserializeOwned + Serialize>(
    info: &ResourceInfo,
    obj: &Value,
    value: &Value,
    prefix: &str,
) -> Result<Value, ApiError> {
    let typed: T = serde_path_to_error::deserialize(value).map_err(|e| {
        let path = format!("{prefix}{}", go_path(&e.path().to_string()));
        ApiError::bad_request(format!(
            "{kind} in version {version:?} cannot be handled as a {kind}: {}",
            go_message(info, &path, &e.inner().to_string(), obj),
            kind = info.kind,
            version = info.version,
        ))
    })?;
    serde_json::to_value(&typed).map_err(|e| ApiError::internal(e.to_string()))
}

/// serde_path_to_error's path (`spec.template.spec.containers[0].image`)
/// as Go's decoder prints it (the same, without a leading dot).
fn go_path(path: &str) -> String {
    path.trim_start_matches('.').to_string()
}

/// `json: cannot unmarshal <json type> into Go struct field <Struct>.<path>
/// of type <go type>`, from serde's `invalid type: string "x", expected i32`.
fn go_message(info: &ResourceInfo, path: &str, serde_msg: &str, obj: &Value) -> String {
    let found = value_at(obj, path);
    let json_type = match found {
        Some(Value::String(_)) => "string".to_string(),
        Some(Value::Number(n)) => format!("number {n}"),
        Some(Value::Bool(_)) => "bool".to_string(),
        Some(Value::Array(_)) => "array".to_string(),
        Some(Value::Object(_)) => "object".to_string(),
        Some(Value::Null) | None => "value".to_string(),
    };
    let expected = serde_msg
        .rsplit_once("expected ")
        .map(|(_, e)| e.trim().trim_end_matches('.'))
        .unwrap_or("");
    let go_type = match expected {
        "i32" => "int32",
        "i64" => "int64",
        "u32" => "uint32",
        "u64" => "uint64",
        "f64" => "float64",
        "a boolean" => "bool",
        "a string" => "string",
        "a sequence" => "[]interface {}",
        "a map" => "map[string]interface {}",
        _ => "",
    };
    if go_type.is_empty() {
        return format!(
            "json: cannot unmarshal into Go struct field {}: {serde_msg}",
            struct_field(info, path)
        );
    }
    // Numbers in range but of the wrong JSON type are named by type only.
    let json_type = match found {
        Some(Value::Number(_)) if !serde_msg.starts_with("invalid value") => "number".to_string(),
        _ => json_type,
    };
    format!(
        "json: cannot unmarshal {json_type} into Go struct field {} of type {go_type}",
        struct_field(info, path)
    )
}

/// `StatefulSetSpec.spec.replicas`: the Go struct holding the field (known
/// for the paths users commonly get wrong), then the path.
fn struct_field(info: &ResourceInfo, path: &str) -> String {
    let parts: Vec<&str> = path
        .split('.')
        .map(|p| p.split('[').next().unwrap_or(p))
        .collect();
    // A map's entries belong to the struct holding the map.
    const MAPS: [&str; 6] = [
        "labels",
        "annotations",
        "matchLabels",
        "data",
        "nodeSelector",
        "stringData",
    ];
    let mut field = parts.len().saturating_sub(1);
    if field >= 1 && MAPS.contains(&parts[field - 1]) {
        field -= 1;
    }
    let parts = &parts[..=field.min(parts.len().saturating_sub(1))];
    let parent = parts
        .len()
        .checked_sub(2)
        .and_then(|i| parts.get(i))
        .copied();
    let owner = match parent {
        None => info.kind.clone(),
        Some("metadata") => "ObjectMeta".into(),
        Some("spec") if parts.len() == 2 => format!("{}Spec", info.kind),
        Some("status") if parts.len() == 2 => format!("{}Status", info.kind),
        Some("spec") => "PodSpec".into(),
        Some("template") => "PodTemplateSpec".into(),
        Some("containers") | Some("initContainers") => "Container".into(),
        Some("updateStrategy") => format!("{}UpdateStrategy", info.kind),
        Some("rollingUpdate") => format!("RollingUpdate{}Strategy", info.kind),
        Some("resources") => "ResourceRequirements".into(),
        Some("selector") => "LabelSelector".into(),
        Some(_) => info.kind.clone(),
    };
    format!("{owner}.{path}")
}

fn value_at<'v>(obj: &'v Value, path: &str) -> Option<&'v Value> {
    let mut cur = obj;
    for part in path.split('.').filter(|p| !p.is_empty()) {
        let (key, indexes) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        cur = cur.get(key)?;
        for idx in indexes.split('[').filter(|s| !s.is_empty()) {
            let n: usize = idx.trim_end_matches(']').parse().ok()?;
            cur = cur.get(n)?;
        }
    }
    Some(cur)
}

/// The paths of `original`'s fields that its typed form does not have
/// (`spec.updateStratgy`, `spec.template.spec.containers[0].imagePullPolicyy`),
/// as kube-apiserver's strict decoding names them. Null values and `$`
/// directives are not fields.
pub fn unknown_paths(original: &Value, typed: &Value) -> Vec<String> {
    let mut out = Vec::new();
    walk(original, typed, "", &mut out);
    out
}

fn walk(original: &Value, typed: &Value, at: &str, out: &mut Vec<String>) {
    match (original, typed) {
        (Value::Object(o), Value::Object(t)) => {
            for (k, v) in o {
                if v.is_null() || k.starts_with('$') {
                    continue;
                }
                let path = if at.is_empty() {
                    k.clone()
                } else {
                    format!("{at}.{k}")
                };
                match t.get(k) {
                    Some(tv) => walk(v, tv, &path, out),
                    None => out.push(path),
                }
            }
        }
        (Value::Array(o), Value::Array(t)) if o.len() == t.len() => {
            for (i, (ov, tv)) in o.iter().zip(t).enumerate() {
                walk(ov, tv, &format!("{at}[{i}]"), out);
            }
        }
        _ => {}
    }
}

/// Removes the fields at `paths` (as [`unknown_paths`] names them) from `obj`.
pub(crate) fn remove_paths(obj: &mut Value, paths: &[String]) {
    for path in paths {
        let mut parts: Vec<String> = Vec::new();
        for part in path.split('.') {
            match part.find('[') {
                Some(i) => {
                    parts.push(part[..i].to_string());
                    for idx in part[i..].split('[').filter(|s| !s.is_empty()) {
                        parts.push(format!("[{}", idx));
                    }
                }
                None => parts.push(part.to_string()),
            }
        }
        let Some((last, parents)) = parts.split_last() else {
            continue;
        };
        if let Some(parent) =
            parents
                .iter()
                .try_fold(&mut *obj, |cur, p| match p.strip_prefix('[') {
                    Some(idx) => idx
                        .trim_end_matches(']')
                        .parse::<usize>()
                        .ok()
                        .and_then(move |n| cur.get_mut(n)),
                    None => cur.get_mut(p.as_str()),
                })
        {
            if let Some(m) = parent.as_object_mut() {
                m.remove(last);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sts_info() -> ResourceInfo {
        super::super::resources::builtins()
            .into_iter()
            .find(|i| i.kind == "StatefulSet")
            .unwrap()
    }

    fn sts(replicas: Value) -> Value {
        json!({"apiVersion": "apps/v1", "kind": "StatefulSet",
            "metadata": {"name": "web", "labels": {"app": "web"}},
            "spec": {"replicas": replicas, "serviceName": "web",
                "selector": {"matchLabels": {"app": "web"}},
                "template": {"metadata": {"labels": {"app": "web"}},
                    "spec": {"containers": [{"name": "app", "image": "x"}]}}}})
    }

    fn refusal(obj: &Value) -> String {
        match round_trip(&sts_info(), obj) {
            Some(Err(e)) => {
                assert_eq!(e.code, 400);
                e.message.clone()
            }
            other => panic!("not refused: {other:?}"),
        }
    }

    #[test]
    fn a_string_where_an_integer_belongs_is_a_bad_request_naming_the_field() {
        assert_eq!(
            refusal(&sts(json!("three"))),
            "StatefulSet in version \"v1\" cannot be handled as a StatefulSet: json: cannot unmarshal string into Go struct field StatefulSetSpec.spec.replicas of type int32"
        );
    }

    #[test]
    fn a_number_out_of_range_is_refused() {
        assert_eq!(
            refusal(&sts(json!(2_147_483_648_i64))),
            "StatefulSet in version \"v1\" cannot be handled as a StatefulSet: json: cannot unmarshal number 2147483648 into Go struct field StatefulSetSpec.spec.replicas of type int32"
        );
    }

    #[test]
    fn a_label_value_that_is_a_number_is_refused() {
        let mut obj = sts(json!(1));
        obj["metadata"]["labels"]["n"] = json!(1);
        let msg = refusal(&obj);
        assert!(
            msg.ends_with(
                "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels.n of type string"
            ),
            "{msg}"
        );
    }

    #[test]
    fn unknown_fields_are_found_at_any_depth_and_removed() {
        let mut obj = sts(json!(1));
        obj["spec"]["updateStratgy"] = json!({"type": "Recreate"});
        obj["spec"]["template"]["spec"]["containers"][0]["imagePullPolicyy"] = json!("Never");
        obj["spec"]["minReadySeconds"] = Value::Null;
        let typed = round_trip(&sts_info(), &obj).unwrap().unwrap();
        let unknown = unknown_paths(&obj, &typed);
        assert_eq!(
            unknown,
            vec![
                "spec.template.spec.containers[0].imagePullPolicyy".to_string(),
                "spec.updateStratgy".to_string(),
            ]
        );
        remove_paths(&mut obj, &unknown);
        assert!(obj["spec"].get("updateStratgy").is_none());
        assert!(obj["spec"]["template"]["spec"]["containers"][0]
            .get("imagePullPolicyy")
            .is_none());
        assert_eq!(
            obj["spec"]["template"]["spec"]["containers"][0]["image"],
            "x"
        );
    }
}
