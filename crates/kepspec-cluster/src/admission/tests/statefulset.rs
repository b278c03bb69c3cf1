//! StatefulSet admission rules with upstream's exact messages: defaults,
//! selector, scalar and update rules (strategy and gate rules are in
//! `tests_strategy`).

use super::super::*;
use serde_json::{json, Value};

pub(super) fn set() -> Value {
    json!({
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {
            "selector": {"matchLabels": {"app": "web"}},
            "serviceName": "web",
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "app", "image": "registry.k8s.io/pause:3.10"}]}
            }
        }
    })
}

pub(super) fn run(obj: &mut Value, old: Option<&Value>, gates: &ApiGates) -> Result<(), Invalid> {
    let mut req = AdmissionRequest {
        group: "apps",
        resource: "statefulsets",
        operation: if old.is_some() {
            Operation::Update
        } else {
            Operation::Create
        },
        object: obj,
        old_object: old,
        gates,
    };
    admit(&mut req)
}

pub(super) fn create(obj: Value, gates: &ApiGates) -> Result<Value, Invalid> {
    let mut obj = obj;
    run(&mut obj, None, gates).map(|()| obj)
}

pub(super) fn stored(obj: Value, gates: &ApiGates) -> Value {
    create(obj, gates).unwrap()
}

pub(super) fn update(
    old: &Value,
    edit: impl FnOnce(&mut Value),
    gates: &ApiGates,
) -> Result<Value, Invalid> {
    let mut new = old.clone();
    edit(&mut new);
    run(&mut new, Some(old), gates).map(|()| new)
}

pub(super) fn messages(r: Result<Value, Invalid>) -> Vec<String> {
    r.unwrap_err()
        .causes
        .iter()
        .map(|c| format!("{}: {}", c.field, c.message))
        .collect()
}

pub(super) fn gates(recreate: bool, max_unavailable: bool) -> ApiGates {
    ApiGates {
        statefulset_recreate_strategy: recreate,
        max_unavailable_statefulset: max_unavailable,
        enforced_rolling_update_in_statefulset: false,
        implementation: Default::default(),
    }
}

#[test]
fn defaults_match_apps_v1() {
    let s = stored(set(), &ApiGates::default());
    let spec = &s["spec"];
    assert_eq!(spec["replicas"], 1);
    assert_eq!(spec["podManagementPolicy"], "OrderedReady");
    assert_eq!(
        spec["updateStrategy"],
        json!({"type": "RollingUpdate", "rollingUpdate": {"partition": 0, "maxUnavailable": 1}})
    );
    assert_eq!(spec["revisionHistoryLimit"], 10);
    assert_eq!(
        spec["persistentVolumeClaimRetentionPolicy"],
        json!({"whenDeleted": "Retain", "whenScaled": "Retain"})
    );
    assert!(spec.get("minReadySeconds").is_none());
    let pod = &spec["template"]["spec"];
    assert_eq!(pod["restartPolicy"], "Always");
    assert_eq!(pod["containers"][0]["imagePullPolicy"], "IfNotPresent");
    assert_eq!(s["status"], json!({"replicas": 0, "availableReplicas": 0}));
}

#[test]
fn max_unavailable_is_not_defaulted_with_the_gate_off() {
    let s = stored(set(), &gates(true, false));
    assert_eq!(
        s["spec"]["updateStrategy"],
        json!({"type": "RollingUpdate", "rollingUpdate": {"partition": 0}})
    );
}

#[test]
fn claim_templates_get_defaults() {
    let mut obj = set();
    obj["spec"]["volumeClaimTemplates"] = json!([{"metadata": {"name": "data"},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}]);
    let s = stored(obj, &ApiGates::default());
    let claim = &s["spec"]["volumeClaimTemplates"][0];
    assert_eq!(claim["spec"]["volumeMode"], "Filesystem");
    assert_eq!(claim["status"], json!({"phase": "Pending"}));
}

#[test]
fn selector_rules() {
    let mut obj = set();
    obj["spec"].as_object_mut().unwrap().remove("selector");
    assert_eq!(
        messages(create(obj, &ApiGates::default())),
        vec!["spec.selector: Required value"]
    );

    let mut obj = set();
    obj["spec"]["selector"] = json!({});
    assert_eq!(
        messages(create(obj, &ApiGates::default())),
        vec!["spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for statefulset"]
    );

    let mut obj = set();
    obj["spec"]["selector"] = json!({"matchLabels": {"app": "other"}});
    assert_eq!(
        messages(create(obj, &ApiGates::default())),
        vec!["spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"web\"}: `selector` does not match template `labels`"]
    );

    let mut obj = set();
    obj["spec"]["selector"] =
        json!({"matchExpressions": [{"key": "app", "operator": "In", "values": ["web", "api"]}]});
    assert!(create(obj, &ApiGates::default()).is_ok());
}

#[test]
fn scalar_rules() {
    let mut obj = set();
    obj["spec"]["replicas"] = json!(-1);
    obj["spec"]["minReadySeconds"] = json!(-5);
    obj["spec"]["ordinals"] = json!({"start": -1});
    obj["spec"]["podManagementPolicy"] = json!("Random");
    let err = create(obj, &ApiGates::default()).unwrap_err();
    assert_eq!(
        err.message(),
        "StatefulSet.apps \"web\" is invalid: [spec.podManagementPolicy: Invalid value: \"Random\": must be 'OrderedReady' or 'Parallel', spec.replicas: Invalid value: -1: must be greater than or equal to 0, spec.minReadySeconds: Invalid value: -5: must be greater than or equal to 0, spec.ordinals.start: Invalid value: -1: must be greater than or equal to 0]"
    );
}

#[test]
fn template_rules() {
    let mut obj = set();
    obj["spec"]["template"]["spec"]["restartPolicy"] = json!("Never");
    obj["spec"]["template"]["spec"]["activeDeadlineSeconds"] = json!(10);
    assert_eq!(
        messages(create(obj, &ApiGates::default())),
        vec![
            "spec.template.spec.restartPolicy: Unsupported value: \"Never\": supported values: \"Always\"",
            "spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in StatefulSet is not Supported",
        ]
    );
}

#[test]
fn retention_policy_values() {
    let mut obj = set();
    obj["spec"]["persistentVolumeClaimRetentionPolicy"] = json!({"whenDeleted": "Keep"});
    assert_eq!(
        messages(create(obj, &ApiGates::default())),
        vec!["spec.persistentVolumeClaimRetentionPolicy.whenDeleted: Unsupported value: \"Keep\": supported values: \"Retain\", \"Delete\""]
    );
}

#[test]
fn names_must_be_dns_labels_and_are_not_rechecked_on_update() {
    let mut obj = set();
    obj["metadata"]["name"] = json!("web.v2");
    let err = create(obj, &ApiGates::default()).unwrap_err();
    assert_eq!(err.name, "web.v2");
    assert_eq!(err.causes[0].field, "metadata.name");
    assert!(err.causes[0]
        .message
        .starts_with("Invalid value: \"web.v2\": a lowercase RFC 1123 label"));
    let mut obj = set();
    obj["metadata"]["name"] = json!("");
    assert_eq!(
        messages(create(obj, &ApiGates::default())),
        vec!["metadata.name: Required value: name or generateName is required"]
    );
}

#[test]
fn mutable_fields_may_change() {
    let g = ApiGates::default();
    let old = stored(set(), &g);
    let new = update(
        &old,
        |s| {
            s["spec"]["replicas"] = json!(5);
            s["spec"]["minReadySeconds"] = json!(3);
            s["spec"]["revisionHistoryLimit"] = json!(2);
            s["spec"]["ordinals"] = json!({"start": 1});
            s["spec"]["persistentVolumeClaimRetentionPolicy"] =
                json!({"whenDeleted": "Delete", "whenScaled": "Delete"});
            s["spec"]["updateStrategy"] = json!({"type": "OnDelete"});
            s["spec"]["template"]["metadata"]["annotations"] =
                json!({"kubectl.kubernetes.io/restartedAt": "now"});
        },
        &g,
    );
    assert!(new.is_ok(), "{:?}", new.err().map(|e| e.message()));
    // Status is not reset on update.
    let mut with_status = old.clone();
    with_status["status"] = json!({"replicas": 3});
    let kept = update(&with_status, |_| {}, &g).unwrap();
    assert_eq!(kept["status"], json!({"replicas": 3}));
}

#[test]
fn other_fields_are_immutable() {
    let g = ApiGates::default();
    let old = stored(set(), &g);
    let expected = "StatefulSet.apps \"web\" is invalid: spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden";
    let r = update(&old, |s| s["spec"]["serviceName"] = json!("other"), &g);
    assert_eq!(r.unwrap_err().message(), expected);
    let r = update(
        &old,
        |s| s["spec"]["podManagementPolicy"] = json!("Parallel"),
        &g,
    );
    assert_eq!(r.unwrap_err().message(), expected);
    let r = update(
        &old,
        |s| {
            s["spec"]["volumeClaimTemplates"] = json!([{"metadata": {"name": "data"}, "spec": {}}]);
        },
        &g,
    );
    assert_eq!(r.unwrap_err().message(), expected);
    // The selector is immutable too, and must still match.
    let r = update(
        &old,
        |s| {
            s["spec"]["selector"] = json!({"matchLabels": {"app": "web", "x": "y"}});
            s["spec"]["template"]["metadata"]["labels"]["x"] = json!("y");
        },
        &g,
    );
    assert_eq!(r.unwrap_err().message(), expected);
}

#[test]
fn garbage_shapes_do_not_panic() {
    for body in [
        json!(null),
        json!([]),
        json!({"spec": 3}),
        json!({"spec": {"updateStrategy": "x", "template": []}}),
    ] {
        let _ = create(body, &ApiGates::default());
    }
}

#[test]
fn an_undefaulted_stored_set_can_still_be_scaled() {
    let g = ApiGates::default();
    let mut old = set();
    old["spec"]["volumeClaimTemplates"] = json!([{"metadata": {"name": "data"}, "spec": {}}]);
    let new = update(&old, |s| s["spec"]["replicas"] = json!(3), &g);
    assert!(new.is_ok(), "{:?}", new.err().map(|e| e.message()));
}
