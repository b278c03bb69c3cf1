//! StatefulSet update strategies and the KEP-3541 / KEP-961 feature gates,
//! with upstream's exact messages.

use super::super::*;
use super::statefulset::{create, gates, messages, set, stored, update};
use serde_json::{json, Value};

#[test]
fn recreate_is_accepted_with_the_gate_on() {
    let mut obj = set();
    obj["spec"]["updateStrategy"] = json!({"type": "Recreate"});
    let s = stored(obj, &ApiGates::default());
    assert_eq!(s["spec"]["updateStrategy"], json!({"type": "Recreate"}));
}

#[test]
fn recreate_is_rejected_on_create_with_the_gate_off() {
    let mut obj = set();
    obj["spec"]["updateStrategy"] = json!({"type": "Recreate"});
    let err = create(obj, &gates(false, true)).unwrap_err();
    // pkg/apis/apps/validation/validation.go's default branch; field.Invalid
    // at spec.updateStrategy is what v1.37's strategy tests expect.
    assert_eq!(
        err.message(),
        "StatefulSet.apps \"web\" is invalid: spec.updateStrategy: Invalid value: apps.StatefulSetUpdateStrategy{Type:\"Recreate\", RollingUpdate:(*apps.RollingUpdateStatefulSetStrategy)(nil)}: must be 'RollingUpdate' or 'OnDelete'"
    );
    assert_eq!(err.causes[0].reason, "FieldValueInvalid");
    assert_eq!(err.causes[0].field, "spec.updateStrategy");
}

#[test]
fn switching_to_recreate_is_rejected_with_the_gate_off() {
    let off = gates(false, true);
    let old = stored(set(), &off);
    let r = update(
        &old,
        |s| s["spec"]["updateStrategy"] = json!({"type": "Recreate"}),
        &off,
    );
    assert_eq!(
        messages(r),
        vec!["spec.updateStrategy: Invalid value: apps.StatefulSetUpdateStrategy{Type:\"Recreate\", RollingUpdate:(*apps.RollingUpdateStatefulSetStrategy)(nil)}: must be 'RollingUpdate' or 'OnDelete'"]
    );
}

#[test]
fn switching_away_from_recreate_is_forbidden_while_the_gate_is_alpha() {
    let mut obj = set();
    obj["spec"]["updateStrategy"] = json!({"type": "Recreate"});
    let old = stored(obj, &ApiGates::default());
    for to in ["RollingUpdate", "OnDelete"] {
        let r = update(
            &old,
            |s| s["spec"]["updateStrategy"] = json!({"type": to}),
            &ApiGates::default(),
        );
        assert_eq!(
            messages(r),
            vec!["spec.updateStrategy.type: Forbidden: a StatefulSet cannot switch away from Recreate while the StatefulSetRecreateStrategy feature is alpha"]
        );
    }
    // Upstream v1.37 lets it switch (its strategy tests).
    let upstream = ApiGates {
        implementation: kepspec_core::Implementation::UpstreamV1_37,
        ..ApiGates::default()
    };
    assert!(update(
        &old,
        |s| s["spec"]["updateStrategy"] = json!({"type": "OnDelete"}),
        &upstream
    )
    .is_ok());
}

#[test]
fn a_stored_recreate_survives_the_gate_going_off() {
    let mut obj = set();
    obj["spec"]["updateStrategy"] = json!({"type": "Recreate"});
    let old = stored(obj, &ApiGates::default());
    let off = gates(false, true);
    // A template change keeps the stored strategy.
    let new = update(
        &old,
        |s| s["spec"]["template"]["spec"]["containers"][0]["image"] = json!("busybox:1.36"),
        &off,
    )
    .unwrap();
    assert_eq!(new["spec"]["updateStrategy"], json!({"type": "Recreate"}));
    // Switching back is allowed.
    let back = update(
        &old,
        |s| s["spec"]["updateStrategy"] = json!({"type": "OnDelete"}),
        &off,
    )
    .unwrap();
    assert_eq!(back["spec"]["updateStrategy"]["type"], "OnDelete");
    let rolling = update(
        &old,
        |s| s["spec"]["updateStrategy"] = json!({"type": "RollingUpdate"}),
        &off,
    )
    .unwrap();
    // An explicit type without rollingUpdate is not given one (upstream
    // defaults rollingUpdate only when the type itself was defaulted).
    assert_eq!(
        rolling["spec"]["updateStrategy"],
        json!({"type": "RollingUpdate"})
    );
}

#[test]
fn unknown_strategy_types_are_invalid() {
    let mut obj = set();
    obj["spec"]["updateStrategy"] = json!({"type": "Blue"});
    assert_eq!(
        messages(create(obj, &ApiGates::default())),
        vec!["spec.updateStrategy: Invalid value: apps.StatefulSetUpdateStrategy{Type:\"Blue\", RollingUpdate:(*apps.RollingUpdateStatefulSetStrategy)(nil)}: must be 'RollingUpdate' or 'OnDelete'"]
    );
}

#[test]
fn rolling_update_only_with_rolling_update() {
    for t in ["OnDelete", "Recreate"] {
        let mut obj = set();
        obj["spec"]["updateStrategy"] = json!({"type": t, "rollingUpdate": {"partition": 2}});
        assert_eq!(
            messages(create(obj, &ApiGates::default())),
            vec!["spec.updateStrategy.rollingUpdate: Invalid value: apps.RollingUpdateStatefulSetStrategy{Partition:2, MaxUnavailable:(*intstr.IntOrString)(nil)}: only allowed for updateStrategy 'RollingUpdate'"]
        );
    }
}

#[test]
fn partition_must_not_be_negative() {
    let mut obj = set();
    obj["spec"]["updateStrategy"] =
        json!({"type": "RollingUpdate", "rollingUpdate": {"partition": -1}});
    assert_eq!(
        messages(create(obj, &ApiGates::default())),
        vec!["spec.updateStrategy.rollingUpdate.partition: Invalid value: -1: must be greater than or equal to 0"]
    );
}

fn max_unavailable(v: Value) -> Result<Value, Invalid> {
    let mut obj = set();
    obj["spec"]["updateStrategy"] =
        json!({"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": v}});
    create(obj, &ApiGates::default())
}

#[test]
fn max_unavailable_rules() {
    assert!(max_unavailable(json!(1)).is_ok());
    assert!(max_unavailable(json!(7)).is_ok());
    assert!(max_unavailable(json!("1%")).is_ok());
    assert!(max_unavailable(json!("100%")).is_ok());
    let f = "spec.updateStrategy.rollingUpdate.maxUnavailable";
    assert_eq!(
        messages(max_unavailable(json!(0))),
        vec![format!(
            "{f}: Invalid value: intstr.IntOrString{{Type:0, IntVal:0, StrVal:\"\"}}: cannot be 0"
        )]
    );
    assert_eq!(
        messages(max_unavailable(json!("0%"))),
        vec![format!("{f}: Invalid value: intstr.IntOrString{{Type:1, IntVal:0, StrVal:\"0%\"}}: cannot be 0")]
    );
    assert_eq!(
        messages(max_unavailable(json!(-2))),
        vec![format!(
            "{f}: Invalid value: -2: must be greater than or equal to 0"
        )]
    );
    assert_eq!(
        messages(max_unavailable(json!("101%"))),
        vec![format!("{f}: Invalid value: intstr.IntOrString{{Type:1, IntVal:0, StrVal:\"101%\"}}: must not be greater than 100%")]
    );
    assert_eq!(
        messages(max_unavailable(json!("half"))),
        vec![
            format!("{f}: Invalid value: intstr.IntOrString{{Type:1, IntVal:0, StrVal:\"half\"}}: a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"),
            format!("{f}: Invalid value: intstr.IntOrString{{Type:1, IntVal:0, StrVal:\"half\"}}: cannot be 0"),
        ]
    );
}

#[test]
fn max_unavailable_is_dropped_on_create_with_the_gate_off() {
    let off = gates(true, false);
    let mut obj = set();
    obj["spec"]["updateStrategy"] =
        json!({"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 3}});
    let s = stored(obj, &off);
    assert_eq!(
        s["spec"]["updateStrategy"]["rollingUpdate"],
        json!({"partition": 0})
    );
    // Dropped before validation: even an invalid value passes silently.
    let mut obj = set();
    obj["spec"]["updateStrategy"] =
        json!({"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 0}});
    assert!(create(obj, &off).is_ok());
}

#[test]
fn max_unavailable_is_kept_on_update_when_already_stored() {
    let mut obj = set();
    obj["spec"]["updateStrategy"] =
        json!({"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 3}});
    let old = stored(obj, &ApiGates::default());
    let off = gates(true, false);
    let new = update(
        &old,
        |s| s["spec"]["updateStrategy"]["rollingUpdate"]["maxUnavailable"] = json!(2),
        &off,
    )
    .unwrap();
    assert_eq!(
        new["spec"]["updateStrategy"]["rollingUpdate"]["maxUnavailable"],
        2
    );
    // Not stored before: a new value is dropped on update too.
    let plain = stored(set(), &off);
    let new = update(
        &plain,
        |s| s["spec"]["updateStrategy"]["rollingUpdate"]["maxUnavailable"] = json!(2),
        &off,
    )
    .unwrap();
    assert!(new["spec"]["updateStrategy"]["rollingUpdate"]
        .get("maxUnavailable")
        .is_none());
}

fn literal(recreate: bool, max_unavailable: bool) -> ApiGates {
    ApiGates {
        implementation: kepspec_core::Implementation::KepLiteral,
        ..gates(recreate, max_unavailable)
    }
}

#[test]
fn literally_a_downgraded_recreate_refuses_spec_changes_until_switched_back() {
    let mut obj = set();
    obj["spec"]["updateStrategy"] = json!({"type": "Recreate"});
    let old = stored(obj, &ApiGates::default());
    let off = literal(false, true);
    let image = |s: &mut Value| {
        s["spec"]["template"]["spec"]["containers"][0]["image"] = json!("busybox:1.36")
    };
    assert_eq!(
        messages(update(&old, image, &off)),
        vec!["spec.updateStrategy.type: Forbidden: the StatefulSetRecreateStrategy feature is disabled: change the update strategy back to RollingUpdate or OnDelete before changing the spec"]
    );
    // A write that leaves the spec alone passes; switching back passes.
    assert!(update(&old, |s| s["metadata"]["labels"] = json!({"a": "b"}), &off).is_ok());
    assert!(update(
        &old,
        |s| s["spec"]["updateStrategy"] = json!({"type": "RollingUpdate"}),
        &off
    )
    .is_ok());
    // With the gate on, nothing changes.
    assert!(update(&old, image, &literal(true, true)).is_ok());
}

#[test]
fn literally_a_stored_max_unavailable_is_dropped_by_a_gate_off_apiserver() {
    let mut obj = set();
    obj["spec"]["updateStrategy"] =
        json!({"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 3}});
    let old = stored(obj, &ApiGates::default());
    let new = update(
        &old,
        |s| s["spec"]["template"]["spec"]["containers"][0]["image"] = json!("busybox:1.36"),
        &literal(true, false),
    )
    .unwrap();
    assert!(new["spec"]["updateStrategy"]["rollingUpdate"]
        .get("maxUnavailable")
        .is_none());
}
