//! Pod admission rules.

use super::super::*;
use serde_json::{json, Value};

fn pod() -> Value {
    json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "web-0", "namespace": "default"},
        "spec": {"containers": [{"name": "app", "image": "registry.k8s.io/pause:3.10"}]}
    })
}

fn run(obj: &mut Value, old: Option<&Value>) -> Result<(), Invalid> {
    let gates = ApiGates::default();
    let mut req = AdmissionRequest {
        group: "",
        resource: "pods",
        operation: if old.is_some() {
            Operation::Update
        } else {
            Operation::Create
        },
        object: obj,
        old_object: old,
        gates: &gates,
    };
    admit(&mut req)
}

fn create(mut obj: Value) -> Result<Value, Invalid> {
    run(&mut obj, None).map(|()| obj)
}

fn messages(r: Result<Value, Invalid>) -> Vec<String> {
    r.unwrap_err()
        .causes
        .iter()
        .map(|c| format!("{}: {}", c.field, c.message))
        .collect()
}

#[test]
fn create_sets_pending_status_and_qos() {
    let mut p = pod();
    p["status"] = json!({"phase": "Running"});
    let p = create(p).unwrap();
    assert_eq!(
        p["status"],
        json!({"phase": "Pending", "qosClass": "BestEffort"})
    );
    assert_eq!(p["spec"]["enableServiceLinks"], true);
    assert_eq!(p["spec"]["serviceAccountName"], "default");
}

#[test]
fn qos_classes() {
    let with = |resources: Value| {
        let mut p = pod();
        p["spec"]["containers"][0]["resources"] = resources;
        create(p).unwrap()["status"]["qosClass"].clone()
    };
    assert_eq!(with(json!({"requests": {"cpu": "100m"}})), "Burstable");
    assert_eq!(
        with(json!({"limits": {"cpu": "1", "memory": "1Gi"}})),
        "Guaranteed"
    );
    assert_eq!(
        with(json!({"limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": "500m"}})),
        "Burstable"
    );
    assert_eq!(
        with(json!({"limits": {"cpu": "1000m", "memory": "1Gi"}, "requests": {"cpu": "1"}})),
        "Guaranteed"
    );
}

#[test]
fn required_fields() {
    let mut p = pod();
    p["spec"]["containers"] = json!([]);
    assert_eq!(messages(create(p)), vec!["spec.containers: Required value"]);
    let mut p = pod();
    p["spec"]["containers"] = json!([{"name": "", "image": ""}, {"name": "b", "image": "x"}, {"name": "b", "image": "y"}]);
    assert_eq!(
        messages(create(p)),
        vec![
            "spec.containers[0].name: Required value",
            "spec.containers[0].image: Required value",
            "spec.containers[2].name: Duplicate value: \"b\"",
        ]
    );
    let mut p = pod();
    p["metadata"] = json!({"generateName": "web-"});
    assert!(create(p).is_ok());
    let mut p = pod();
    p["spec"]["restartPolicy"] = json!("Sometimes");
    assert_eq!(
        messages(create(p)),
        vec!["spec.restartPolicy: Unsupported value: \"Sometimes\": supported values: \"Always\", \"OnFailure\", \"Never\""]
    );
    let err = create(json!({"metadata": {"name": "Bad_Name"}, "spec": {"containers": [{"name": "a", "image": "x"}]}})).unwrap_err();
    assert!(err.message().starts_with("Pod \"Bad_Name\" is invalid: metadata.name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain"));
}

#[test]
fn volumes_are_named_and_every_mount_names_one() {
    let mut p = pod();
    p["spec"]["volumes"] = json!([{"name": "data", "persistentVolumeClaim": {"claimName": "data-web-0"}},
        {"name": "scratch", "emptyDir": {}}]);
    p["spec"]["containers"][0]["volumeMounts"] = json!([{"name": "data", "mountPath": "/data"},
        {"name": "scratch", "mountPath": "/tmp"}]);
    assert!(create(p).is_ok());
    let mut p = pod();
    p["spec"]["volumes"] = json!([{"name": "", "emptyDir": {}}, {"name": "Scratch", "emptyDir": {}},
        {"name": "a", "emptyDir": {}}, {"name": "a", "emptyDir": {}}]);
    p["spec"]["initContainers"] = json!([{"name": "init", "image": "x",
        "volumeMounts": [{"name": "a", "mountPath": "/a"}, {"name": "a", "mountPath": "/a"}]}]);
    p["spec"]["containers"][0]["volumeMounts"] = json!([{"name": "scratch", "mountPath": ""}]);
    assert_eq!(
        messages(create(p)),
        vec![
            "spec.volumes[0].name: Required value",
            "spec.volumes[1].name: Invalid value: \"Scratch\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
            "spec.volumes[3].name: Duplicate value: \"a\"",
            "spec.containers[0].volumeMounts[0].name: Not found: \"scratch\"",
            "spec.containers[0].volumeMounts[0].mountPath: Required value",
            "spec.initContainers[0].volumeMounts[1].mountPath: Invalid value: \"/a\": must be unique",
        ]
    );
}

#[test]
fn updates_may_change_images_and_metadata_only() {
    let old = create(pod()).unwrap();
    let mut new = old.clone();
    new["spec"]["containers"][0]["image"] = json!("busybox:1.36");
    new["metadata"]["labels"] = json!({"a": "b"});
    new["spec"]["tolerations"]
        .as_array_mut()
        .unwrap()
        .push(json!({"key": "k", "operator": "Exists"}));
    assert!(run(&mut new, Some(&old)).is_ok());

    let mut new = old.clone();
    new["spec"]["containers"][0]["command"] = json!(["sh"]);
    let err = run(&mut new, Some(&old)).unwrap_err();
    assert_eq!(err.causes[0].field, "spec");
    assert_eq!(err.causes[0].reason, "FieldValueForbidden");
    assert!(err.causes[0].message.starts_with(
        "Forbidden: pod updates may not change fields other than `spec.containers[*].image`"
    ));

    let mut new = old.clone();
    new["spec"]["tolerations"] = json!([]);
    assert!(
        run(&mut new, Some(&old)).is_err(),
        "removing tolerations is forbidden"
    );
}

#[test]
fn claims_and_volumes_are_defaulted() {
    let gates = ApiGates::default();
    let mut pvc = json!({"metadata": {"name": "data-web-0"}, "spec": {"accessModes": ["ReadWriteOnce"],
            "resources": {"requests": {"storage": "1Gi"}}}});
    let mut req = AdmissionRequest {
        group: "",
        resource: "persistentvolumeclaims",
        operation: Operation::Create,
        object: &mut pvc,
        old_object: None,
        gates: &gates,
    };
    assert!(admit(&mut req).is_ok());
    assert_eq!(pvc["status"]["phase"], "Pending");
    assert_eq!(pvc["spec"]["volumeMode"], "Filesystem");
}
