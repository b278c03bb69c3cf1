//! Each patch type over HTTP, plus server-side apply.

use k8s_openapi::api::apps::v1::StatefulSet;
use kube::api::{Api, Patch, PatchParams, PostParams};
use serde_json::json;

use super::client::{err_of, sts_json};
use super::{cluster, post_json, raw};

async fn setup() -> (super::super::EmbeddedCluster, Api<StatefulSet>) {
    let c = cluster().await;
    let client = c.client().await.unwrap();
    let sets: Api<StatefulSet> = Api::namespaced(client, "default");
    let web: StatefulSet = serde_json::from_value(sts_json("web", 2)).unwrap();
    sets.create(&PostParams::default(), &web).await.unwrap();
    (c, sets)
}

#[tokio::test]
async fn json_patch_applies_and_test_failure_is_rejected() {
    let (c, sets) = setup().await;
    let pp = PatchParams::default();
    let ok: Patch<json_patch::Patch> = Patch::Json(
        serde_json::from_value(json!([
            {"op": "test", "path": "/spec/replicas", "value": 2},
            {"op": "replace", "path": "/spec/replicas", "value": 4}
        ]))
        .unwrap(),
    );
    let s = sets.patch("web", &pp, &ok).await.unwrap();
    assert_eq!(s.spec.replicas, Some(4));
    assert_eq!(s.metadata.generation, Some(2));
    let bad: Patch<json_patch::Patch> = Patch::Json(
        serde_json::from_value(json!([
            {"op": "test", "path": "/spec/replicas", "value": 2}
        ]))
        .unwrap(),
    );
    let e = err_of(sets.patch("web", &pp, &bad).await.unwrap_err());
    assert_eq!(e.code, 422);
    c.shutdown().await;
}

#[tokio::test]
async fn merge_patch_with_stale_resource_version_conflicts() {
    let (c, sets) = setup().await;
    let pp = PatchParams::default();
    let s = sets
        .patch(
            "web",
            &pp,
            &Patch::Merge(json!({"metadata": {"annotations": {"a": "b"}}})),
        )
        .await
        .unwrap();
    assert_eq!(s.metadata.annotations.unwrap()["a"], "b");
    assert_eq!(
        s.metadata.generation,
        Some(1),
        "metadata changes do not bump generation"
    );
    let stale = json!({"metadata": {"resourceVersion": "2"}, "spec": {"replicas": 9}});
    let e = err_of(
        sets.patch("web", &pp, &Patch::Merge(stale))
            .await
            .unwrap_err(),
    );
    assert_eq!(e.code, 409);
    assert_eq!(e.reason, "Conflict");
    c.shutdown().await;
}

#[tokio::test]
async fn strategic_merge_patch_merges_containers_by_name() {
    let (c, sets) = setup().await;
    let pp = PatchParams::default();
    let patch = json!({"spec": {"template": {"spec": {"containers": [{"name": "side", "image": "busybox:1.36"}]}}}});
    let s = sets
        .patch("web", &pp, &Patch::Strategic(patch))
        .await
        .unwrap();
    let names: Vec<String> = s
        .spec
        .template
        .spec
        .unwrap()
        .containers
        .into_iter()
        .map(|c| c.name)
        .collect();
    assert_eq!(names, vec!["c", "side"]);
    let restart = json!({"spec": {"template": {"metadata": {"annotations": {"kubectl.kubernetes.io/restartedAt": "2026-01-01T00:00:00Z"}}}}});
    let s = sets
        .patch("web", &pp, &Patch::Strategic(restart))
        .await
        .unwrap();
    assert_eq!(s.metadata.generation, Some(3));
    let del = json!({"spec": {"template": {"spec": {"containers": [{"name": "side", "$patch": "delete"}]}}}});
    let s = sets
        .patch("web", &pp, &Patch::Strategic(del))
        .await
        .unwrap();
    assert_eq!(s.spec.template.spec.unwrap().containers.len(), 1);
    // status subresource patch only touches status
    let st = json!({"status": {"replicas": 2, "readyReplicas": 1}, "spec": {"replicas": 100}});
    let s = sets
        .patch_status("web", &pp, &Patch::Merge(st))
        .await
        .unwrap();
    assert_eq!(s.status.unwrap().ready_replicas, Some(1));
    assert_eq!(s.spec.replicas, Some(2));
    c.shutdown().await;
}

#[tokio::test]
async fn empty_metadata_maps_are_dropped_like_upstream() {
    let c = cluster().await;
    let body = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "e", "labels": {}, "annotations": {}, "finalizers": []}});
    let r = post_json(&c, "/api/v1/namespaces/default/configmaps", &body).await;
    let m = &r.json()["metadata"];
    assert!(
        m.get("labels").is_none()
            && m.get("annotations").is_none()
            && m.get("finalizers").is_none(),
        "{m}"
    );
    c.shutdown().await;
}

#[tokio::test]
async fn field_validation_strict_rejects_and_warn_warns() {
    let c = cluster().await;
    let url = "/apis/apps/v1/namespaces/default/statefulsets";
    let mut body = sts_json("typo", 1);
    body["spce"] = json!({});
    let r = post_json(&c, &format!("{url}?fieldValidation=Strict"), &body).await;
    assert_eq!(r.status, 400);
    assert_eq!(
        r.json()["message"],
        "strict decoding error: unknown field \"spce\""
    );
    let r = post_json(&c, url, &body).await;
    assert_eq!(r.status, 201);
    assert!(
        r.headers
            .iter()
            .any(|(k, v)| k == "warning" && v == "299 - \"unknown field \\\"spce\\\"\""),
        "{:?}",
        r.headers
    );
    let p = raw(
        &c,
        "PATCH",
        &format!("{url}/typo?fieldValidation=Strict"),
        Some("application/merge-patch+json"),
        br#"{"metadata":{"lables":{"a":"b"}}}"#,
        true,
    )
    .await;
    assert_eq!(p.status, 400);
    c.shutdown().await;
}
