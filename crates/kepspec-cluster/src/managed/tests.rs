use serde_json::{json, Value};

use super::*;

const NOW: &str = "2026-11-24T12:00:00Z";
const MAIN: Scope = Scope::Main {
    status_subresource: true,
};

fn who(name: &str, operation: Operation) -> Manager {
    Manager {
        name: name.into(),
        operation,
        api_version: "apps/v1".into(),
        subresource: String::new(),
    }
}

/// An apply by manager `ci` of the object itself.
fn ci_apply(live: Option<&Value>, cfg: &Value, force: bool) -> Result<Value, ApplyError> {
    apply(live, cfg, &who("ci", Operation::Apply), MAIN, force, NOW)
}

/// An update of the object itself by `manager`.
fn update_by(old: Option<&Value>, new: &mut Value, manager: &str) {
    record_update(old, new, None, &who(manager, Operation::Update), MAIN, NOW);
}

fn set(name: &str, replicas: i64, image: &str) -> Value {
    json!({"apiVersion": "apps/v1", "kind": "StatefulSet",
        "metadata": {"name": name, "uid": "u1", "resourceVersion": "7"},
        "spec": {"replicas": replicas, "template": {"spec": {"containers": [{"name": "app", "image": image}]}}}})
}

fn managers(obj: &Value) -> Vec<(String, String)> {
    obj["metadata"]["managedFields"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|e| {
                    (
                        e["manager"].as_str().unwrap_or("").to_string(),
                        e["operation"].as_str().unwrap_or("").to_string(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

fn owned(obj: &Value, manager: &str) -> Vec<String> {
    obj["metadata"]["managedFields"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|e| e["manager"] == manager)
        .flat_map(|e| FieldSet::from_fields_v1(&e["fieldsV1"]).paths())
        .map(|p| display(&p))
        .collect()
}

#[test]
fn a_create_owns_what_it_wrote_except_the_server_owned_metadata() {
    let mut obj = set("web", 1, "a");
    update_by(None, &mut obj, "kubectl-create");
    assert_eq!(
        owned(&obj, "kubectl-create"),
        [
            ".spec.replicas",
            ".spec.template.spec.containers[name=\"app\"]",
            ".spec.template.spec.containers[name=\"app\"].image",
            ".spec.template.spec.containers[name=\"app\"].name",
        ]
    );
    assert_eq!(obj["metadata"]["managedFields"][0]["time"], NOW);
    assert_eq!(
        obj["metadata"]["managedFields"][0]["fieldsType"],
        "FieldsV1"
    );
}

#[test]
fn an_apply_that_changes_another_managers_field_conflicts_unless_forced() {
    let mut live = set("web", 1, "a");
    update_by(None, &mut live, "kubectl-client-side-apply");
    let cfg = json!({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "web"},
        "spec": {"replicas": 3}});
    let err = ci_apply(Some(&live), &cfg, false).unwrap_err();
    assert_eq!(
        err.message(),
        "Apply failed with 1 conflict: conflict with \"kubectl-client-side-apply\" using apps/v1: .spec.replicas"
    );
    let forced = ci_apply(Some(&live), &cfg, true).unwrap();
    assert_eq!(forced["spec"]["replicas"], 3);
    assert_eq!(owned(&forced, "ci"), [".spec.replicas"]);
    assert!(!owned(&forced, "kubectl-client-side-apply").contains(&".spec.replicas".to_string()));
    assert_eq!(
        managers(&forced),
        [
            ("ci".into(), "Apply".into()),
            ("kubectl-client-side-apply".into(), "Update".into())
        ]
    );
}

#[test]
fn applying_the_same_value_shares_the_field_and_several_conflicts_are_grouped() {
    let mut live = set("web", 1, "a");
    update_by(None, &mut live, "mgr");
    let same = json!({"metadata": {"name": "web"}, "spec": {"replicas": 1}});
    let shared = ci_apply(Some(&live), &same, false).unwrap();
    assert!(owned(&shared, "mgr").contains(&".spec.replicas".to_string()));
    assert_eq!(owned(&shared, "ci"), [".spec.replicas"]);
    let both = json!({"metadata": {"name": "web"}, "spec": {"replicas": 2,
        "template": {"spec": {"containers": [{"name": "app", "image": "b"}]}}}});
    let err = ci_apply(Some(&live), &both, false).unwrap_err();
    assert_eq!(
        err.message(),
        "Apply failed with 2 conflicts: conflicts with \"mgr\" using apps/v1:\n- .spec.replicas\n- .spec.template.spec.containers[name=\"app\"].image"
    );
}

#[test]
fn an_apply_removes_what_it_stops_applying_unless_someone_else_owns_it() {
    let cm = |data: Value| json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": data});
    let me = who("ci", Operation::Apply);
    let first = apply(
        None,
        &cm(json!({"a": "1", "b": "2", "c": "3"})),
        &me,
        MAIN,
        false,
        NOW,
    )
    .unwrap();
    let mut edited = first.clone();
    edited["data"]["c"] = json!("9");
    update_by(Some(&first), &mut edited, "kubectl-edit");
    assert_eq!(owned(&edited, "kubectl-edit"), [".data.c"]);
    assert_eq!(owned(&edited, "ci"), [".data.a", ".data.b"]);
    let second = apply(Some(&edited), &cm(json!({"a": "1"})), &me, MAIN, false, NOW).unwrap();
    assert_eq!(second["data"], json!({"a": "1", "c": "9"}));
    assert_eq!(owned(&second, "ci"), [".data.a"]);
}

#[test]
fn status_is_owned_only_through_the_status_subresource() {
    let mut obj = set("web", 1, "a");
    obj["status"] = json!({"replicas": 1});
    update_by(None, &mut obj, "c");
    assert!(owned(&obj, "c").iter().all(|p| !p.starts_with(".status")));
    let mut next = obj.clone();
    next["status"]["replicas"] = json!(2);
    let mut status_writer = who("c", Operation::Update);
    status_writer.subresource = "status".into();
    record_update(
        Some(&obj),
        &mut next,
        None,
        &status_writer,
        Scope::Status,
        NOW,
    );
    let entry = next["metadata"]["managedFields"]
        .as_array()
        .and_then(|a| a.iter().find(|e| e["subresource"] == "status"))
        .cloned()
        .unwrap_or_default();
    assert_eq!(entry["fieldsV1"], json!({"f:status": {"f:replicas": {}}}));
}

#[test]
fn a_request_may_clear_managed_fields_with_one_empty_entry() {
    let mut obj = set("web", 1, "a");
    update_by(None, &mut obj, "a");
    let mut next = obj.clone();
    next["spec"]["replicas"] = json!(2);
    let sent = json!([{}]);
    record_update(
        Some(&obj),
        &mut next,
        Some(&sent),
        &who("b", Operation::Update),
        MAIN,
        NOW,
    );
    assert_eq!(managers(&next), [("b".into(), "Update".into())]);
    assert_eq!(
        Manager::of_request(None, "kubectl/v1.32.0 (linux/amd64)"),
        "kubectl"
    );
    assert_eq!(Manager::of_request(Some(""), ""), "unknown");
}
