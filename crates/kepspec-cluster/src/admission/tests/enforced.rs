//! The KEP-3541 draft's EnforcedRollingUpdate on the API side.

use super::super::*;
use super::statefulset::{create, gates, messages, set, stored, update};
use serde_json::json;

fn on() -> ApiGates {
    ApiGates {
        enforced_rolling_update_in_statefulset: true,
        ..ApiGates::default()
    }
}

#[test]
fn the_type_and_its_block_are_kept_with_the_gate_on() {
    let mut obj = set();
    obj["spec"]["updateStrategy"] =
        json!({"type": "EnforcedRollingUpdate", "enforcedRollingUpdate": {"partition": 1}});
    let s = stored(obj, &on());
    assert_eq!(
        s["spec"]["updateStrategy"],
        json!({"type": "EnforcedRollingUpdate", "enforcedRollingUpdate": {"partition": 1}})
    );
}

#[test]
fn with_the_gate_off_the_type_is_refused_as_any_unsupported_type() {
    let mut obj = set();
    obj["spec"]["updateStrategy"] = json!({"type": "EnforcedRollingUpdate"});
    let err = create(obj, &gates(true, true)).unwrap_err();
    assert_eq!(
        err.message(),
        "StatefulSet.apps \"web\" is invalid: spec.updateStrategy: Invalid value: apps.StatefulSetUpdateStrategy{Type:\"EnforcedRollingUpdate\", RollingUpdate:(*apps.RollingUpdateStatefulSetStrategy)(nil)}: must be 'RollingUpdate' or 'OnDelete'"
    );
}

#[test]
fn with_the_gate_off_a_new_block_is_dropped_and_a_stored_one_kept() {
    let off = gates(true, true);
    let mut obj = set();
    obj["spec"]["updateStrategy"] =
        json!({"type": "RollingUpdate", "enforcedRollingUpdate": {"partition": 1}});
    let s = stored(obj, &off);
    assert!(s["spec"]["updateStrategy"]
        .get("enforcedRollingUpdate")
        .is_none());
    // Stored while the gate was on: kept, and the set stays updatable.
    let mut obj = set();
    obj["spec"]["updateStrategy"] =
        json!({"type": "EnforcedRollingUpdate", "enforcedRollingUpdate": {"partition": 1}});
    let old = stored(obj, &on());
    let new = update(&old, |s| s["spec"]["replicas"] = json!(5), &off).unwrap();
    assert_eq!(
        new["spec"]["updateStrategy"]["enforcedRollingUpdate"],
        json!({"partition": 1})
    );
}

#[test]
fn the_block_belongs_to_its_type_and_is_validated_as_rolling_update_is() {
    let mut obj = set();
    obj["spec"]["updateStrategy"] =
        json!({"type": "RollingUpdate", "enforcedRollingUpdate": {"partition": 1}});
    assert_eq!(
        messages(create(obj, &on())),
        vec!["spec.updateStrategy.enforcedRollingUpdate: Invalid value: apps.RollingUpdateStatefulSetStrategy{Partition:1, MaxUnavailable:(*intstr.IntOrString)(nil)}: only allowed for updateStrategy 'EnforcedRollingUpdate'"]
    );
    let mut obj = set();
    obj["spec"]["updateStrategy"] =
        json!({"type": "EnforcedRollingUpdate", "enforcedRollingUpdate": {"partition": -1}});
    let m = messages(create(obj, &on()));
    assert!(
        m.iter().any(|m| m
            .starts_with("spec.updateStrategy.enforcedRollingUpdate.partition: Invalid value: -1")),
        "{m:?}"
    );
}
