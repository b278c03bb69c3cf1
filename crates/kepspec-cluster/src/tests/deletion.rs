//! Graceful deletion, finalizers, garbage collection and namespace deletion.

use std::time::Duration;

use k8s_openapi::api::core::v1::{ConfigMap, Namespace, Pod};
use kube::api::{Api, DeleteParams, Patch, PatchParams, PostParams, PropagationPolicy};
use serde_json::json;

use super::super::EmbeddedCluster;
use super::cluster;

fn pod(name: &str, node: &str, extra_meta: serde_json::Value) -> Pod {
    let mut meta = json!({"name": name});
    if let Some(m) = extra_meta.as_object() {
        for (k, v) in m {
            meta[k] = v.clone();
        }
    }
    serde_json::from_value(
        json!({"metadata": meta, "spec": {"nodeName": node, "terminationGracePeriodSeconds": 5,
        "containers": [{"name": "c", "image": "busybox:1.36"}]}}),
    )
    .unwrap()
}

async fn eventually<F: FnMut() -> bool>(mut f: F) {
    for _ in 0..200 {
        if f() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("condition not reached");
}

fn exists(c: &EmbeddedCluster, group: &str, res: &str, ns: &str, name: &str) -> bool {
    c.store()
        .get(&super::super::store::Gr::new(group, res), ns, name)
        .is_some()
}

#[tokio::test]
async fn graceful_pod_deletion_and_finalizers() {
    let c = cluster().await;
    let pods: Api<Pod> = Api::namespaced(c.client().await.unwrap(), "default");
    pods.create(&PostParams::default(), &pod("g", "n1", json!({})))
        .await
        .unwrap();
    let r = pods.delete("g", &DeleteParams::default()).await.unwrap();
    let p = r.left().expect("graceful delete returns the pod");
    assert_eq!(p.metadata.deletion_grace_period_seconds, Some(5));
    assert!(p.metadata.deletion_timestamp.is_some());
    assert!(exists(&c, "", "pods", "default", "g"));
    pods.delete(
        "g",
        &DeleteParams {
            grace_period_seconds: Some(0),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    assert!(!exists(&c, "", "pods", "default", "g"));

    // unscheduled pods go at once
    pods.create(&PostParams::default(), &pod("u", "", json!({})))
        .await
        .unwrap();
    pods.delete("u", &DeleteParams::default()).await.unwrap();
    assert!(!exists(&c, "", "pods", "default", "u"));

    // finalizers hold the object until an update empties them
    pods.create(
        &PostParams::default(),
        &pod("f", "", json!({"finalizers": ["example.com/hold"]})),
    )
    .await
    .unwrap();
    pods.delete("f", &DeleteParams::default()).await.unwrap();
    let held = pods.get("f").await.unwrap();
    assert!(held.metadata.deletion_timestamp.is_some());
    let add = Patch::Merge(json!({"metadata": {"finalizers": ["example.com/hold", "x/y"]}}));
    let e = pods
        .patch("f", &PatchParams::default(), &add)
        .await
        .unwrap_err();
    assert!(matches!(e, kube::Error::Api(s) if s.code == 422));
    let clear = Patch::Merge(json!({"metadata": {"finalizers": null}}));
    pods.patch("f", &PatchParams::default(), &clear)
        .await
        .unwrap();
    assert!(!exists(&c, "", "pods", "default", "f"));
    c.shutdown().await;
}

async fn owner_and_dependents(c: &EmbeddedCluster, name: &str) -> String {
    let client = c.client().await.unwrap();
    let cms: Api<ConfigMap> = Api::namespaced(client.clone(), "default");
    let owner: ConfigMap = serde_json::from_value(json!({"metadata": {"name": name}})).unwrap();
    let owner = cms.create(&PostParams::default(), &owner).await.unwrap();
    let uid = owner.metadata.uid.unwrap();
    let pods: Api<Pod> = Api::namespaced(client, "default");
    for i in 0..2 {
        let refs = json!({"ownerReferences": [{"apiVersion": "v1", "kind": "ConfigMap", "name": name, "uid": uid, "controller": true, "blockOwnerDeletion": true}],
            "finalizers": if i == 0 { json!(["example.com/slow"]) } else { json!([]) }});
        pods.create(
            &PostParams::default(),
            &pod(&format!("{name}-{i}"), "", refs),
        )
        .await
        .unwrap();
    }
    uid
}

#[tokio::test]
async fn garbage_collection_background_foreground_orphan() {
    let c = cluster().await;
    let client = c.client().await.unwrap();
    let cms: Api<ConfigMap> = Api::namespaced(client.clone(), "default");
    let pods: Api<Pod> = Api::namespaced(client.clone(), "default");
    let release = Patch::Merge(json!({"metadata": {"finalizers": null}}));

    // background: owner goes at once, dependents follow
    owner_and_dependents(&c, "bg").await;
    cms.delete("bg", &DeleteParams::background()).await.unwrap();
    assert!(!exists(&c, "", "configmaps", "default", "bg"));
    eventually(|| !exists(&c, "", "pods", "default", "bg-1")).await;
    pods.patch("bg-0", &PatchParams::default(), &release)
        .await
        .unwrap();
    eventually(|| !exists(&c, "", "pods", "default", "bg-0")).await;

    // foreground: owner waits for blocking dependents
    owner_and_dependents(&c, "fg").await;
    cms.delete("fg", &DeleteParams::foreground()).await.unwrap();
    let o = cms.get("fg").await.unwrap();
    assert_eq!(
        o.metadata.finalizers,
        Some(vec!["foregroundDeletion".to_string()])
    );
    eventually(|| !exists(&c, "", "pods", "default", "fg-1")).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(
        exists(&c, "", "configmaps", "default", "fg"),
        "held by fg-0"
    );
    pods.patch("fg-0", &PatchParams::default(), &release)
        .await
        .unwrap();
    eventually(|| !exists(&c, "", "configmaps", "default", "fg")).await;

    // orphan: dependents lose the reference and stay
    owner_and_dependents(&c, "or").await;
    let dp = DeleteParams {
        propagation_policy: Some(PropagationPolicy::Orphan),
        ..Default::default()
    };
    cms.delete("or", &dp).await.unwrap();
    eventually(|| !exists(&c, "", "configmaps", "default", "or")).await;
    let p = pods.get("or-1").await.unwrap();
    assert!(p.metadata.owner_references.is_none());
    assert!(p.metadata.deletion_timestamp.is_none());
    c.shutdown().await;
}

#[tokio::test]
async fn namespace_deletion_empties_it_first() {
    let c = cluster().await;
    let client = c.client().await.unwrap();
    let nss: Api<Namespace> = Api::all(client.clone());
    let ns: Namespace = serde_json::from_value(json!({"metadata": {"name": "doomed"}})).unwrap();
    let made = nss.create(&PostParams::default(), &ns).await.unwrap();
    assert_eq!(made.status.unwrap().phase.as_deref(), Some("Active"));
    assert_eq!(
        made.metadata.labels.unwrap()["kubernetes.io/metadata.name"],
        "doomed"
    );
    let pods: Api<Pod> = Api::namespaced(client.clone(), "doomed");
    pods.create(
        &PostParams::default(),
        &pod("p", "", json!({"finalizers": ["example.com/slow"]})),
    )
    .await
    .unwrap();
    nss.delete("doomed", &DeleteParams::default())
        .await
        .unwrap();
    let t = nss.get("doomed").await.unwrap();
    assert_eq!(t.status.unwrap().phase.as_deref(), Some("Terminating"));
    let e = pods
        .create(&PostParams::default(), &pod("q", "", json!({})))
        .await
        .unwrap_err();
    assert!(matches!(&e, kube::Error::Api(s) if s.code == 403), "{e:?}");
    eventually(|| {
        c.store()
            .get(&super::super::store::Gr::new("", "pods"), "doomed", "p")
            .is_some_and(|p| p["metadata"].get("deletionTimestamp").is_some())
    })
    .await;
    assert!(exists(&c, "", "namespaces", "", "doomed"));
    pods.patch(
        "p",
        &PatchParams::default(),
        &Patch::Merge(json!({"metadata": {"finalizers": null}})),
    )
    .await
    .unwrap();
    eventually(|| !exists(&c, "", "namespaces", "", "doomed")).await;
    c.shutdown().await;
}
