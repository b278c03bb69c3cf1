//! Admission's unit tests: the gates and the admission chain here, each
//! object's rules by topic below.

use super::*;

#[test]
fn gates_parse_from_defaults() {
    assert_eq!(ApiGates::parse("").unwrap(), ApiGates::default());
    let g = ApiGates::parse("StatefulSetRecreateStrategy=false, MaxUnavailableStatefulSet=true")
        .unwrap();
    assert!(!g.statefulset_recreate_strategy);
    assert!(g.max_unavailable_statefulset);
    let g = ApiGates::parse("MaxUnavailableStatefulSet=0").unwrap();
    assert!(g.statefulset_recreate_strategy);
    assert!(!g.max_unavailable_statefulset);
}

#[test]
fn gates_parse_errors_like_component_base() {
    assert_eq!(
        ApiGates::parse("Foo=true").unwrap_err(),
        "unrecognized feature gate: Foo"
    );
    assert_eq!(
        ApiGates::parse("MaxUnavailableStatefulSet=yes").unwrap_err(),
        "invalid value of MaxUnavailableStatefulSet=yes, err: strconv.ParseBool: parsing \"yes\": invalid syntax"
    );
    assert_eq!(
        ApiGates::parse("MaxUnavailableStatefulSet").unwrap_err(),
        "missing bool value for MaxUnavailableStatefulSet"
    );
}

#[test]
fn invalid_message_aggregates_like_upstream() {
    let cause = |f: &str, m: &str| FieldCause {
        reason: "FieldValueInvalid".into(),
        message: m.into(),
        field: f.into(),
    };
    let mut inv = Invalid {
        kind: "StatefulSet".into(),
        group: "apps".into(),
        name: "web".into(),
        causes: vec![cause(
            "spec.replicas",
            "Invalid value: -1: must be greater than or equal to 0",
        )],
    };
    assert_eq!(
        inv.message(),
        "StatefulSet.apps \"web\" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0"
    );
    inv.causes.push(cause(
        "spec.minReadySeconds",
        "Invalid value: -2: must be greater than or equal to 0",
    ));
    inv.causes.push(cause(
        "spec.minReadySeconds",
        "Invalid value: -2: must be greater than or equal to 0",
    ));
    assert_eq!(
        inv.message(),
        "StatefulSet.apps \"web\" is invalid: [spec.replicas: Invalid value: -1: must be greater than or equal to 0, spec.minReadySeconds: Invalid value: -2: must be greater than or equal to 0]"
    );
    inv.kind = "Pod".into();
    inv.group = String::new();
    inv.causes.truncate(1);
    assert!(inv
        .message()
        .starts_with("Pod \"web\" is invalid: spec.replicas"));
}

#[test]
fn unknown_resources_pass_untouched() {
    let mut obj = serde_json::json!({"metadata": {"name": "x"}, "data": {"a": "b"}});
    let before = obj.clone();
    let gates = ApiGates::default();
    let mut req = AdmissionRequest {
        group: "",
        resource: "configmaps",
        operation: Operation::Create,
        object: &mut obj,
        old_object: None,
        gates: &gates,
    };
    assert!(admit(&mut req).is_ok());
    assert_eq!(obj, before);
}

mod enforced;
mod pod;
mod statefulset;
mod strategy;
