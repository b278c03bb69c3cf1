//! OpenKruise's StatefulSet webhooks, as the embedded cluster plays them for
//! the stand-in of `apps.kruise.io/v1beta1 StatefulSet` (Kruise installs
//! them beside its controller; kube-apiserver calls them on every create and
//! update). Read from openkruise/kruise at 07169cf
//! (clusters/targets/openkruise-facts.md):
//!
//! - mutating: `apis/apps/defaults/v1beta1.go`, `SetDefaultsStatefulSet`
//!   (with `StatefulSetAutoDeletePVC` on, as the profile installs Kruise);
//! - validating, webhook `vstatefulset.kb.io`:
//!   `pkg/webhook/statefulset/validating/statefulset_validation.go`, the
//!   rules of Kruise's own fields (maxUnavailable and scaleStrategy with
//!   Parallel, unorderedUpdate, podUpdatePolicy and its readiness gate).
//!
//! A refusal is what kube-apiserver returns for a webhook that answers
//! `admission.Errored(422, err)`: code 422, the message prefixed with
//! `admission webhook "vstatefulset.kb.io" denied the request: `.

use kepspec_core::Lookup as _;
use serde_json::{json, Value};

use super::fielderr::{go_int_or_string, go_quote, FieldError};

/// The validating webhook's name.
pub(crate) const WEBHOOK: &str = "vstatefulset.kb.io";
/// The readiness gate in-place updates need.
pub(crate) const IN_PLACE_UPDATE_READY: &str = "InPlaceUpdateReady";

/// Applies Kruise's defaults to an Advanced StatefulSet.
pub(crate) fn default(obj: &mut Value) {
    let Some(spec) = obj.get_mut("spec").and_then(Value::as_object_mut) else {
        return;
    };
    spec.entry("podManagementPolicy")
        .or_insert_with(|| json!("OrderedReady"));
    let strategy = spec.entry("updateStrategy").or_insert_with(|| json!({}));
    if let Some(strategy) = strategy.as_object_mut() {
        let kind = strategy
            .entry("type")
            .or_insert_with(|| json!("RollingUpdate"))
            .clone();
        if kind == "RollingUpdate" {
            let rolling = strategy.entry("rollingUpdate").or_insert_with(|| json!({}));
            if let Some(r) = rolling.as_object_mut() {
                r.entry("partition").or_insert_with(|| json!(0));
                r.entry("maxUnavailable").or_insert_with(|| json!(1));
                r.entry("podUpdatePolicy")
                    .or_insert_with(|| json!("ReCreate"));
                r.entry("minReadySeconds").or_insert_with(|| json!(0));
            }
        }
    }
    let retention = spec
        .entry("persistentVolumeClaimRetentionPolicy")
        .or_insert_with(|| json!({}));
    if let Some(r) = retention.as_object_mut() {
        r.entry("whenDeleted").or_insert_with(|| json!("Retain"));
        r.entry("whenScaled").or_insert_with(|| json!("Retain"));
    }
    spec.entry("replicas").or_insert_with(|| json!(1));
    spec.entry("revisionHistoryLimit")
        .or_insert_with(|| json!(10));
}

/// Kruise's validation of its own fields, and on update of an
/// `InPlaceOnly` set its template rule; the refusal message, if any.
pub(crate) fn validate(obj: &Value, old: Option<&Value>) -> Option<String> {
    let errs = errors(obj);
    if errs.is_empty() {
        return old.and_then(|old| in_place_only(obj, old)).map(|e| {
            format!(
                "admission webhook {} denied the request: {e}",
                go_quote(WEBHOOK)
            )
        });
    }
    let bodies: Vec<String> = errs.iter().map(FieldError::to_string).collect();
    // utilerrors.NewAggregate: one error as it is, several in brackets.
    let aggregate = if bodies.len() == 1 {
        bodies[0].clone()
    } else {
        format!("[{}]", bodies.join(", "))
    };
    Some(format!(
        "admission webhook {} denied the request: {aggregate}",
        go_quote(WEBHOOK)
    ))
}

fn errors(obj: &Value) -> Vec<FieldError> {
    let mut out = Vec::new();
    let spec = obj.get("spec").cloned().unwrap_or(Value::Null);
    let parallel = spec.get("podManagementPolicy").and_then(Value::as_str) == Some("Parallel");
    let rolling = spec.lookup("/updateStrategy/rollingUpdate");
    if let Some(m) = spec.lookup("/scaleStrategy/maxUnavailable") {
        out.extend(max_unavailable(
            m,
            parallel,
            "spec.scaleStrategy.maxUnavailable",
        ));
    }
    if spec.lookup("/updateStrategy/type").and_then(Value::as_str) != Some("RollingUpdate") {
        return out;
    }
    let Some(rolling) = rolling else {
        return out;
    };
    if let Some(m) = rolling.get("maxUnavailable") {
        out.extend(max_unavailable(
            m,
            parallel,
            "spec.updateStrategy.rollingUpdate.maxUnavailable",
        ));
    }
    if rolling.get("unorderedUpdate").is_some() && !parallel {
        out.push(FieldError::required(
            "spec.updateStrategy.rollingUpdate.unorderedUpdate",
            "unorderedUpdate can only work with Parallel PodManagementPolicyType",
        ));
    }
    let policy = rolling
        .get("podUpdatePolicy")
        .and_then(Value::as_str)
        .unwrap_or("");
    match policy {
        "ReCreate" => {}
        "InPlaceIfPossible" | "InPlaceOnly" => {
            let gated = spec
                .lookup("/template/spec/readinessGates")
                .and_then(Value::as_array)
                .is_some_and(|gates| {
                    gates.iter().any(|g| {
                        g.get("conditionType").and_then(Value::as_str)
                            == Some(IN_PLACE_UPDATE_READY)
                    })
                });
            if !gated {
                out.push(FieldError::invalid(
                    "spec.template.spec.readinessGates",
                    readiness_gates(spec.lookup("/template/spec/readinessGates")),
                    &format!(
                        "must contains {IN_PLACE_UPDATE_READY} when podUpdatePolicy is {policy}"
                    ),
                ));
            }
        }
        "" => out.push(FieldError::required(
            "spec.updateStrategy.rollingUpdate.podUpdatePolicy",
            "",
        )),
        other => out.push(FieldError::invalid(
            "spec.updateStrategy.rollingUpdate.podUpdatePolicy",
            go_quote(other),
            "must be 'ReCreate', InPlaceIfPossible or 'InPlaceOnly'",
        )),
    }
    out
}

/// `validateTemplateInPlaceOnly`: under `InPlaceOnly`, an update may change
/// the template's spec only by replacing container images; the first other
/// operation of the JSON patch between the two specs is named
/// (`<op> <path>`, as Kruise prints it).
fn in_place_only(obj: &Value, old: &Value) -> Option<String> {
    let policy = obj
        .lookup("/spec/updateStrategy/rollingUpdate/podUpdatePolicy")
        .and_then(Value::as_str);
    if policy != Some("InPlaceOnly") {
        return None;
    }
    let spec = |o: &Value| {
        o.lookup("/spec/template/spec")
            .cloned()
            .unwrap_or(Value::Null)
    };
    let mut ops = Vec::new();
    diff(&spec(old), &spec(obj), "", &mut ops);
    let image = regex::Regex::new(r"^/containers/[0-9]+/image$").ok()?;
    ops.into_iter()
        .find(|(op, path)| *op != "replace" || !image.is_match(path))
        .map(|(op, path)| {
            format!("invalid template modified with InPlaceOnly strategy: {op} {path}, currently only image update is allowed for InPlaceOnly")
        })
}

/// The operations of a JSON patch from `a` to `b` (`add`, `remove`,
/// `replace` and the JSON pointer), objects by key, arrays by index.
fn diff(a: &Value, b: &Value, at: &str, out: &mut Vec<(&'static str, String)>) {
    let child = |key: &str| format!("{at}/{}", key.replace('~', "~0").replace('/', "~1"));
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (k, va) in x {
                match y.get(k) {
                    Some(vb) => diff(va, vb, &child(k), out),
                    None => out.push(("remove", child(k))),
                }
            }
            for k in y.keys().filter(|k| !x.contains_key(*k)) {
                out.push(("add", child(k)));
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            for (i, va) in x.iter().enumerate() {
                match y.get(i) {
                    Some(vb) => diff(va, vb, &child(&i.to_string()), out),
                    None => out.push(("remove", child(&i.to_string()))),
                }
            }
            for i in x.len()..y.len() {
                out.push(("add", child(&i.to_string())));
            }
        }
        _ if a != b => out.push(("replace", at.to_string())),
        _ => {}
    }
}

/// `validateMaxUnavailableField`: a value of at least 1, and anything but
/// the integer 1 only with Parallel.
fn max_unavailable(value: &Value, parallel: bool, field: &str) -> Vec<FieldError> {
    let mut out = Vec::new();
    let shown = go_int_or_string(value);
    let at_least_one = match value {
        Value::Number(n) => n.as_i64().is_some_and(|n| n >= 1),
        // A percentage of 1 replica, rounded up, as the webhook computes it.
        Value::String(s) => s
            .strip_suffix('%')
            .and_then(|p| p.parse::<i64>().ok())
            .is_some_and(|p| p > 0),
        _ => false,
    };
    if !at_least_one {
        out.push(FieldError::invalid(
            field,
            shown.clone(),
            "should not be less than 1",
        ));
    }
    let is_one = value.as_i64() == Some(1);
    if !parallel && !is_one {
        out.push(FieldError::invalid(
            field,
            shown,
            "can only work with Parallel PodManagementPolicyType",
        ));
    }
    out
}

/// `[]v1.PodReadinessGate` as Go's `%#v` prints it.
fn readiness_gates(value: Option<&Value>) -> String {
    let gates: Vec<String> = value
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|g| {
            format!(
                "v1.PodReadinessGate{{ConditionType:{}}}",
                go_quote(g.get("conditionType").and_then(Value::as_str).unwrap_or(""))
            )
        })
        .collect();
    if gates.is_empty() {
        "[]v1.PodReadinessGate(nil)".to_string()
    } else {
        format!("[]v1.PodReadinessGate{{{}}}", gates.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(spec: Value) -> Value {
        let mut obj =
            json!({"apiVersion": "apps.kruise.io/v1beta1", "kind": "StatefulSet", "spec": spec});
        default(&mut obj);
        obj
    }

    #[test]
    fn defaults_are_kruises() {
        let obj = set(json!({}));
        assert_eq!(obj["spec"]["podManagementPolicy"], "OrderedReady");
        assert_eq!(obj["spec"]["replicas"], 1);
        let r = &obj["spec"]["updateStrategy"]["rollingUpdate"];
        assert_eq!(r["maxUnavailable"], 1);
        assert_eq!(r["podUpdatePolicy"], "ReCreate");
        assert_eq!(
            obj["spec"]["persistentVolumeClaimRetentionPolicy"]["whenDeleted"],
            "Retain"
        );
        assert_eq!(validate(&obj, None), None);
    }

    #[test]
    fn max_unavailable_other_than_one_needs_parallel() {
        let obj = set(json!({"updateStrategy": {"rollingUpdate": {"maxUnavailable": 2}}}));
        assert_eq!(
            validate(&obj, None).unwrap(),
            "admission webhook \"vstatefulset.kb.io\" denied the request: spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:0, IntVal:2, StrVal:\"\"}: can only work with Parallel PodManagementPolicyType"
        );
        let ok = set(
            json!({"podManagementPolicy": "Parallel", "updateStrategy": {"rollingUpdate": {"maxUnavailable": 2}}}),
        );
        assert_eq!(validate(&ok, None), None);
    }

    #[test]
    fn in_place_needs_its_readiness_gate() {
        let obj = set(
            json!({"updateStrategy": {"rollingUpdate": {"podUpdatePolicy": "InPlaceIfPossible"}},
            "template": {"spec": {"containers": []}}}),
        );
        assert!(validate(&obj, None).unwrap().ends_with(
            "spec.template.spec.readinessGates: Invalid value: []v1.PodReadinessGate(nil): must contains InPlaceUpdateReady when podUpdatePolicy is InPlaceIfPossible"
        ));
    }

    #[test]
    fn unordered_update_needs_parallel() {
        let obj = set(json!({"updateStrategy": {"rollingUpdate": {"unorderedUpdate": {}}}}));
        assert!(validate(&obj, None).unwrap().ends_with(
            "spec.updateStrategy.rollingUpdate.unorderedUpdate: Required value: unorderedUpdate can only work with Parallel PodManagementPolicyType"
        ));
    }

    #[test]
    fn in_place_only_allows_only_image_changes() {
        let spec = |image: &str, env: &str| {
            set(
                json!({"updateStrategy": {"rollingUpdate": {"podUpdatePolicy": "InPlaceOnly"}},
                "template": {"spec": {"readinessGates": [{"conditionType": "InPlaceUpdateReady"}],
                    "containers": [{"name": "app", "image": image, "env": [{"name": "V", "value": env}]}]}}}),
            )
        };
        let old = spec("a:1", "1");
        assert_eq!(validate(&spec("a:2", "1"), Some(&old)), None);
        assert_eq!(
            validate(&spec("a:1", "2"), Some(&old)).unwrap(),
            "admission webhook \"vstatefulset.kb.io\" denied the request: invalid template modified with InPlaceOnly strategy: replace /containers/0/env/0/value, currently only image update is allowed for InPlaceOnly"
        );
    }
}
