//! Server-side apply and field ownership over HTTP, through kube-rs as an
//! apply-based controller uses it.

use k8s_openapi::api::apps::v1::StatefulSet;
use k8s_openapi::api::core::v1::Pod;
use kepspec_core::Lookup as _;
use kube::api::{Api, Patch, PatchParams, PostParams};
use serde_json::{json, Value};

use super::client::{err_of, sts_json};
use super::{cluster, raw};

/// (manager, operation, subresource) of each managedFields entry, in order.
fn entries(obj: &impl serde::Serialize) -> Vec<(String, String, String)> {
    let v = serde_json::to_value(obj).unwrap();
    v["metadata"]["managedFields"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|e| {
            let s = |k: &str| e[k].as_str().unwrap_or("").to_string();
            (s("manager"), s("operation"), s("subresource"))
        })
        .collect()
}

fn owns(obj: &impl serde::Serialize, manager: &str, pointer: &str) -> bool {
    let v = serde_json::to_value(obj).unwrap();
    v["metadata"]["managedFields"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|e| e["manager"] == manager && e["fieldsV1"].lookup(pointer).is_some())
}

fn pod(labels: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "ap", "labels": labels},
        "spec": {"containers": [{"name": "c", "image": "busybox:1.36"}]}})
}

#[tokio::test]
async fn an_apply_owns_what_it_applies_and_removes_what_it_stops_applying() {
    let c = cluster().await;
    let pods: Api<Pod> = Api::namespaced(c.client().await.unwrap(), "default");
    let mine = PatchParams::apply("kepspec-test");
    let made = pods
        .patch("ap", &mine, &Patch::Apply(pod(json!({"a": "1"}))))
        .await
        .unwrap();
    assert_eq!(
        entries(&made),
        [("kepspec-test".into(), "Apply".into(), String::new())]
    );
    assert!(owns(&made, "kepspec-test", "/f:metadata/f:labels/f:a"));
    // Another manager's label stays when the first stops applying its own.
    let theirs = PatchParams::apply("other");
    let cfg = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "ap", "labels": {"o": "1"}}});
    pods.patch("ap", &theirs, &Patch::Apply(cfg)).await.unwrap();
    let next = pods
        .patch("ap", &mine, &Patch::Apply(pod(json!({"b": "2"}))))
        .await
        .unwrap();
    let labels = next.metadata.labels.clone().unwrap_or_default();
    assert_eq!(
        (labels.get("a"), labels.get("b"), labels.get("o")),
        (None, Some(&"2".to_string()), Some(&"1".to_string())),
        "{labels:?}"
    );
    // An apply that changes nothing writes nothing.
    let same = pods
        .patch("ap", &mine, &Patch::Apply(pod(json!({"b": "2"}))))
        .await
        .unwrap();
    assert_eq!(
        same.metadata.resource_version,
        next.metadata.resource_version
    );
    c.shutdown().await;
}

#[tokio::test]
async fn an_apply_that_changes_another_managers_field_is_a_409_unless_forced() {
    let c = cluster().await;
    let sets: Api<StatefulSet> = Api::namespaced(c.client().await.unwrap(), "default");
    let web: StatefulSet = serde_json::from_value(sts_json("web", 2)).unwrap();
    let pp = PostParams {
        field_manager: Some("creator".into()),
        ..Default::default()
    };
    let made = sets.create(&pp, &web).await.unwrap();
    assert_eq!(
        entries(&made),
        [("creator".into(), "Update".into(), String::new())]
    );
    let cfg = json!({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "web"},
        "spec": {"replicas": 5}});
    let err = err_of(
        sets.patch("web", &PatchParams::apply("ci"), &Patch::Apply(&cfg))
            .await
            .unwrap_err(),
    );
    assert_eq!((err.code, err.reason.as_str()), (409, "Conflict"));
    assert_eq!(
        err.message,
        "Apply failed with 1 conflict: conflict with \"creator\" using apps/v1: .spec.replicas"
    );
    let cause = &err.details.as_ref().unwrap().causes[0];
    assert_eq!(
        (
            cause.reason.as_str(),
            cause.message.as_str(),
            cause.field.as_str()
        ),
        (
            "FieldManagerConflict",
            "conflict with \"creator\" using apps/v1",
            ".spec.replicas"
        )
    );
    let forced = sets
        .patch(
            "web",
            &PatchParams::apply("ci").force(),
            &Patch::Apply(&cfg),
        )
        .await
        .unwrap();
    assert_eq!(forced.spec.replicas, Some(5));
    assert!(owns(&forced, "ci", "/f:spec/f:replicas"));
    assert!(!owns(&forced, "creator", "/f:spec/f:replicas"));
    // An update takes the field back without a conflict; the applier's next
    // change of it conflicts with the updater.
    let scaled = sets
        .patch(
            "web",
            &PatchParams {
                field_manager: Some("hpa".into()),
                ..Default::default()
            },
            &Patch::Merge(json!({"spec": {"replicas": 7}})),
        )
        .await
        .unwrap();
    assert!(
        owns(&scaled, "hpa", "/f:spec/f:replicas") && !owns(&scaled, "ci", "/f:spec/f:replicas")
    );
    let again = json!({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "web"},
        "spec": {"replicas": 6}});
    let err = err_of(
        sets.patch("web", &PatchParams::apply("ci"), &Patch::Apply(&again))
            .await
            .unwrap_err(),
    );
    assert!(
        err.message
            .contains("conflict with \"hpa\" using apps/v1: .spec.replicas"),
        "{}",
        err.message
    );
    // A status write is recorded with its subresource.
    let st = sets
        .patch_status(
            "web",
            &PatchParams {
                field_manager: Some("controller".into()),
                ..Default::default()
            },
            &Patch::Merge(json!({"status": {"replicas": 1}})),
        )
        .await
        .unwrap();
    assert!(entries(&st).contains(&("controller".into(), "Update".into(), "status".into())));
    c.shutdown().await;
}

#[tokio::test]
async fn apply_requests_are_checked_as_kube_apiserver_checks_them() {
    let c = cluster().await;
    let path = "/api/v1/namespaces/default/configmaps/cm";
    let send = |q: &'static str, body: &'static [u8], ct: &'static str| {
        let c = &c;
        async move { raw(c, "PATCH", &format!("{path}{q}"), Some(ct), body, true).await }
    };
    let yaml = "application/apply-patch+yaml";
    let r = send("", b"apiVersion: v1\nkind: ConfigMap\n", yaml).await;
    assert_eq!(r.status, 422);
    assert_eq!(
        r.json()["message"],
        "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required for apply patch"
    );
    let r = send(
        "?fieldManager=m",
        b"kind: ConfigMap\ndata:\n  a: '1'\n",
        yaml,
    )
    .await;
    assert_eq!(r.status, 400);
    assert_eq!(
        r.json()["message"],
        "Incorrect version specified in apply patch. Specified patch version: , expected: v1"
    );
    let r = send(
        "?fieldManager=m",
        b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  managedFields: []\n",
        yaml,
    )
    .await;
    assert_eq!(
        (r.status, r.json()["message"].clone()),
        (400, json!("metadata.managedFields must be nil"))
    );
    let r = send(
        "?fieldManager=m",
        b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  a: '1'\n",
        yaml,
    )
    .await;
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    let r = send(
        "?fieldManager=m&force=true",
        b"{\"data\": {\"a\": \"2\"}}",
        "application/merge-patch+json",
    )
    .await;
    assert_eq!(r.status, 422);
    assert_eq!(
        r.json()["details"]["causes"][0],
        json!({"reason": "FieldValueForbidden", "message": "Forbidden: may not be specified for non-apply patch", "field": "force"})
    );
    c.shutdown().await;
}
