//! StatefulSet admission: defaults, the registry strategy's gate handling
//! (`dropStatefulSetDisabledFields`), `ValidateStatefulSet` and
//! `ValidateStatefulSetUpdate`.

use super::fielderr::{go_int_or_string, go_quote, go_string_map, FieldError};
use super::meta::{self, int_at, nonnegative, semantic, str_at};
use super::{defaults, enforced, selector, AdmissionRequest, ApiGates, Operation};
use kepspec_core::Lookup as _;
use serde_json::{json, Map, Value};

/// The fields of a StatefulSet spec that an update may change.
const MUTABLE_SPEC_FIELDS: [&str; 7] = [
    "replicas",
    "ordinals",
    "template",
    "updateStrategy",
    "revisionHistoryLimit",
    "persistentVolumeClaimRetentionPolicy",
    "minReadySeconds",
];

const FORBIDDEN_UPDATE: &str = "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden";

/// Defaults, prepares and validates a StatefulSet create or update.
pub(super) fn admit(req: &mut AdmissionRequest<'_>) -> Vec<FieldError> {
    defaults::statefulset(req.object, req.gates);
    let old = req
        .old_object
        .filter(|_| req.operation == Operation::Update);
    drop_disabled_fields(req.object, old, req.gates);
    if req.operation == Operation::Create {
        if let Some(root) = req.object.as_object_mut() {
            root.insert(
                "status".into(),
                json!({"replicas": 0, "availableReplicas": 0}),
            );
        }
    }
    let allowed = Allowed {
        recreate: req.gates.statefulset_recreate_strategy
            || old.is_some_and(|o| strategy_type(o) == Some("Recreate")),
        enforced: enforced::allowed(req.gates, old),
    };
    let mut errs = Vec::new();
    match old {
        None => {
            errs.extend(meta::validate_create_name(
                req.object,
                meta::dns1123_label_errors,
            ));
            errs.extend(validate_spec(req.object, allowed));
        }
        Some(old) => {
            errs.extend(validate_spec(req.object, allowed));
            errs.extend(validate_switch_away(req.object, old, req.gates));
            // The stored object is compared as decoded, i.e. with defaults.
            let mut old = old.clone();
            defaults::statefulset(&mut old, req.gates);
            errs.extend(validate_downgraded_recreate(req.object, &old, req.gates));
            errs.extend(validate_immutable(req.object, &old));
        }
    }
    errs
}

/// KEP-3541, "Test Plan": "For alpha, add test to verify that we cannot
/// switch strategies from Recreate to RollingUpdate or OnDelete" — refused
/// while the gate is on (alpha); with the gate off, switching back is how a
/// downgrade keeps a set updatable ("Downgrade"). The field error is the
/// one an earlier revision of kubernetes PR #137187 tested (Forbidden at
/// spec.updateStrategy.type); its detail is kepspec's words. Upstream v1.37
/// (as far as its indexed strategy tests show) allows the switch, which
/// `implementation: upstream-v1.37` reproduces.
fn validate_switch_away(new: &Value, old: &Value, gates: &super::ApiGates) -> Vec<FieldError> {
    let from_recreate = strategy_type(old) == Some("Recreate");
    let to = strategy_type(new).unwrap_or("");
    let upstream = gates.implementation == kepspec_core::Implementation::UpstreamV1_37;
    if from_recreate
        && to != "Recreate"
        && !to.is_empty()
        && gates.statefulset_recreate_strategy
        && !upstream
    {
        return vec![FieldError::forbidden(
            "spec.updateStrategy.type",
            "a StatefulSet cannot switch away from Recreate while the StatefulSetRecreateStrategy feature is alpha",
        )];
    }
    Vec::new()
}

/// `implementation: kep-literal` only. KEP-3541, "Downgrade": StatefulSets
/// that already have type: Recreate stored "remain stored, but any update
/// that touches the spec may be rejected unless the strategy is changed back
/// to RollingUpdate/OnDelete first". Upstream's strategy tests accept such
/// an update (the stored type ratchets); the literal reading takes the
/// KEP's other answer: with the gate off, a spec change that keeps Recreate
/// is refused, naming the way out. Writes that leave the spec alone pass.
fn validate_downgraded_recreate(new: &Value, old: &Value, gates: &ApiGates) -> Vec<FieldError> {
    let literal = gates.implementation == kepspec_core::Implementation::KepLiteral;
    if !literal
        || gates.statefulset_recreate_strategy
        || strategy_type(old) != Some("Recreate")
        || strategy_type(new) != Some("Recreate")
        || new.get("spec") == old.get("spec")
    {
        return Vec::new();
    }
    vec![FieldError::forbidden(
        "spec.updateStrategy.type",
        "the StatefulSetRecreateStrategy feature is disabled: change the update strategy back to RollingUpdate or OnDelete before changing the spec",
    )]
}

fn strategy_type(obj: &Value) -> Option<&str> {
    obj.lookup("/spec/updateStrategy/type")
        .and_then(Value::as_str)
}

/// With `MaxUnavailableStatefulSet` off, a `maxUnavailable` the stored
/// object does not already use is dropped. Under `implementation:
/// kep-literal` it is dropped from every write, stored or not: KEP-961,
/// "Downgrade": "the field gets ignored by apiserver, and controller behaves
/// as if the field is not set".
fn drop_disabled_fields(obj: &mut Value, old: Option<&Value>, gates: &ApiGates) {
    enforced::drop_disabled(obj, old, gates);
    let literal = gates.implementation == kepspec_core::Implementation::KepLiteral;
    let in_use = !literal
        && old.is_some_and(|o| {
            o.lookup("/spec/updateStrategy/rollingUpdate/maxUnavailable")
                .is_some_and(|v| !v.is_null())
        });
    if gates.max_unavailable_statefulset || in_use {
        return;
    }
    if let Some(Value::Object(ru)) = obj.pointer_mut("/spec/updateStrategy/rollingUpdate") {
        ru.remove("maxUnavailable");
    }
}

/// The strategy types beyond OnDelete and RollingUpdate a write may use.
#[derive(Clone, Copy, Debug)]
struct Allowed {
    /// KEP-3541 `Recreate`.
    recreate: bool,
    /// The KEP-3541 draft's `EnforcedRollingUpdate`.
    enforced: bool,
}

/// `ValidateStatefulSetSpec`.
fn validate_spec(obj: &Value, allowed: Allowed) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let empty = Map::new();
    let spec = obj.get("spec").and_then(Value::as_object).unwrap_or(&empty);

    match str_at(spec, "podManagementPolicy") {
        "" => errs.push(FieldError::required("spec.podManagementPolicy", "")),
        "OrderedReady" | "Parallel" => {}
        other => errs.push(FieldError::invalid(
            "spec.podManagementPolicy",
            go_quote(other),
            "must be 'OrderedReady' or 'Parallel'",
        )),
    }

    errs.extend(validate_update_strategy(spec, allowed));

    if let Some(policy) = spec
        .get("persistentVolumeClaimRetentionPolicy")
        .and_then(Value::as_object)
    {
        for key in ["whenDeleted", "whenScaled"] {
            let v = str_at(policy, key);
            if v != "Retain" && v != "Delete" {
                errs.push(FieldError::not_supported(
                    &format!("spec.persistentVolumeClaimRetentionPolicy.{key}"),
                    v,
                    &["Retain", "Delete"],
                ));
            }
        }
    }

    errs.extend(nonnegative(
        int_at(spec, "replicas").unwrap_or(0),
        "spec.replicas",
    ));
    errs.extend(nonnegative(
        int_at(spec, "minReadySeconds").unwrap_or(0),
        "spec.minReadySeconds",
    ));
    if let Some(start) = spec
        .get("ordinals")
        .and_then(|o| o.get("start"))
        .and_then(Value::as_i64)
    {
        errs.extend(nonnegative(start, "spec.ordinals.start"));
    }

    let template_labels = spec
        .get("template")
        .and_then(|t| t.lookup("/metadata/labels"))
        .and_then(Value::as_object);
    match spec.get("selector") {
        Some(Value::Object(sel)) => {
            let sel_errs = selector::validate(sel, "spec.selector");
            let valid = sel_errs.is_empty();
            errs.extend(sel_errs);
            if selector::is_empty(sel) {
                errs.push(FieldError::invalid(
                    "spec.selector",
                    selector::go_render_empty(sel),
                    "empty selector is invalid for statefulset",
                ));
            } else if valid && !selector::matches(sel, template_labels) {
                errs.push(FieldError::invalid(
                    "spec.template.metadata.labels",
                    go_string_map(template_labels),
                    "`selector` does not match template `labels`",
                ));
            }
        }
        _ => errs.push(FieldError::required("spec.selector", "")),
    }

    let template_spec = spec
        .get("template")
        .and_then(|t| t.get("spec"))
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    errs.extend(meta::labels_errors(
        spec.get("template")
            .and_then(|t| t.lookup("/metadata/labels")),
        "spec.template.metadata.labels",
    ));
    match template_spec.get("containers").and_then(Value::as_array) {
        Some(list) if !list.is_empty() => errs.extend(super::pod::validate_containers(
            list,
            "spec.template.spec.containers",
        )),
        _ => errs.push(FieldError::required("spec.template.spec.containers", "")),
    }
    let restart = str_at(template_spec, "restartPolicy");
    if restart != "Always" {
        errs.push(FieldError::not_supported(
            "spec.template.spec.restartPolicy",
            restart,
            &["Always"],
        ));
    }
    if template_spec
        .get("activeDeadlineSeconds")
        .is_some_and(|v| !v.is_null())
    {
        errs.push(FieldError::forbidden(
            "spec.template.spec.activeDeadlineSeconds",
            "activeDeadlineSeconds in StatefulSet is not Supported",
        ));
    }
    errs
}

fn validate_update_strategy(spec: &Map<String, Value>, allowed: Allowed) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let empty = Map::new();
    let strategy = spec
        .get("updateStrategy")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let rolling = strategy.get("rollingUpdate").filter(|v| !v.is_null());
    let path = "spec.updateStrategy.rollingUpdate";
    match str_at(strategy, "type") {
        "" => errs.push(FieldError::required("spec.updateStrategy", "")),
        "RollingUpdate" => {
            if let Some(Value::Object(ru)) = rolling {
                errs.extend(validate_rolling_update(ru, path));
            }
        }
        t @ ("OnDelete" | "Recreate" | enforced::TYPE)
            if t == "OnDelete"
                || (t == "Recreate" && allowed.recreate)
                || (t == enforced::TYPE && allowed.enforced) =>
        {
            if let Some(ru) = rolling {
                errs.push(FieldError::invalid(
                    path,
                    go_render_rolling_update(ru),
                    "only allowed for updateStrategy 'RollingUpdate'",
                ));
            }
        }
        // pkg/apis/apps/validation/validation.go, ValidateStatefulSetSpec:
        // any other type (Recreate with the gate off included, as the
        // v1.37 strategy tests expect: field.Invalid at spec.updateStrategy)
        // is refused with the whole strategy as the value.
        other => {
            errs.push(FieldError::invalid(
                "spec.updateStrategy",
                go_render_strategy(other, rolling),
                "must be 'RollingUpdate' or 'OnDelete'",
            ));
        }
    }
    if allowed.enforced {
        errs.extend(enforced::validate(
            strategy,
            validate_rolling_update,
            go_render_rolling_update,
        ));
    }
    errs
}

/// A `apps.StatefulSetUpdateStrategy` as Go's `%#v` prints it in a field
/// error (a pointer prints as an address; a fixed one stands in for it).
fn go_render_strategy(type_: &str, rolling: Option<&Value>) -> String {
    let ru = match rolling {
        Some(_) => "(*apps.RollingUpdateStatefulSetStrategy)(0xc000123450)".to_string(),
        None => "(*apps.RollingUpdateStatefulSetStrategy)(nil)".to_string(),
    };
    format!(
        "apps.StatefulSetUpdateStrategy{{Type:{}, RollingUpdate:{ru}}}",
        go_quote(type_)
    )
}

/// `validateRollingUpdateStatefulSet` of the block at `path`.
fn validate_rolling_update(ru: &Map<String, Value>, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    errs.extend(nonnegative(
        int_at(ru, "partition").unwrap_or(0),
        &format!("{path}.partition"),
    ));
    let Some(max) = ru.get("maxUnavailable").filter(|v| !v.is_null()) else {
        return errs;
    };
    let field = format!("{path}.maxUnavailable");
    let rendered = go_int_or_string(max);
    match max {
        Value::String(s) => {
            if percent_value(s).is_none() {
                errs.push(FieldError::invalid(&field, rendered.clone(), PERCENT_MSG));
            }
        }
        other => {
            let n = other.as_i64().unwrap_or_default();
            if n < 0 {
                errs.extend(nonnegative(n, &field));
            }
        }
    }
    if int_or_percent_value(max) == 0 {
        errs.push(FieldError::invalid(&field, rendered.clone(), "cannot be 0"));
    }
    if let Value::String(s) = max {
        if percent_value(s).is_some_and(|p| p > 100) {
            errs.push(FieldError::invalid(
                &field,
                rendered,
                "must not be greater than 100%",
            ));
        }
    }
    errs
}

const PERCENT_MSG: &str = "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')";

/// The number of a valid percent string (`[0-9]+%`).
fn percent_value(s: &str) -> Option<i64> {
    let digits = s.strip_suffix('%')?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// `getIntOrPercentValue`: a percent's number, an int, or the `Atoi` of a
/// non-percent string (0 when that fails).
fn int_or_percent_value(v: &Value) -> i64 {
    match v {
        Value::String(s) => percent_value(s).unwrap_or_else(|| s.parse().unwrap_or(0)),
        other => other.as_i64().unwrap_or(0),
    }
}

/// Go's `%#v` of the internal `apps.RollingUpdateStatefulSetStrategy`.
fn go_render_rolling_update(ru: &Value) -> String {
    let partition = ru.get("partition").and_then(Value::as_i64).unwrap_or(0);
    let max = if ru.get("maxUnavailable").is_some_and(|v| !v.is_null()) {
        "(*intstr.IntOrString)(0xc000a1c2e0)"
    } else {
        "(*intstr.IntOrString)(nil)"
    };
    format!("apps.RollingUpdateStatefulSetStrategy{{Partition:{partition}, MaxUnavailable:{max}}}")
}

/// The part of `ValidateStatefulSetUpdate` that forbids changes outside the
/// mutable fields.
fn validate_immutable(new: &Value, old: &Value) -> Vec<FieldError> {
    let empty = Map::new();
    let old_spec = old.get("spec").and_then(Value::as_object).unwrap_or(&empty);
    let mut new_spec = new
        .get("spec")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    for key in MUTABLE_SPEC_FIELDS {
        match old_spec.get(key) {
            Some(v) => new_spec.insert(key.to_string(), v.clone()),
            None => new_spec.remove(key),
        };
    }
    if semantic(&Value::Object(new_spec)) != semantic(&Value::Object(old_spec.clone())) {
        vec![FieldError::forbidden("spec", FORBIDDEN_UPDATE)]
    } else {
        Vec::new()
    }
}
