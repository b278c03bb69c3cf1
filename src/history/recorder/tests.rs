//! The recorder against the embedded cluster.

use super::*;
use crate::history::timeline::Change;
use crate::sim::{ClusterConfig, EmbeddedCluster};
use k8s_openapi::api::core::v1::Namespace;
use kube::api::{DeleteParams, PostParams};
use serde_json::json;

async fn create<K>(client: &kube::Client, ns: &str, obj: serde_json::Value) -> K
where
    K: kube::Resource<DynamicType = (), Scope = k8s_openapi::NamespaceResourceScope>
        + Clone
        + serde::de::DeserializeOwned
        + serde::Serialize
        + std::fmt::Debug,
{
    let api: Api<K> = Api::namespaced(client.clone(), ns);
    let obj: K = serde_json::from_value(obj).unwrap();
    api.create(&PostParams::default(), &obj).await.unwrap()
}

/// A cluster without the node simulator, a client of it, and namespace `ns`.
async fn cluster_with_namespace(cfg: ClusterConfig, ns: &str) -> (EmbeddedCluster, kube::Client) {
    let cluster = EmbeddedCluster::start(ClusterConfig {
        run_nodes: false,
        ..cfg
    })
    .await
    .unwrap();
    let client = cluster.client().await.unwrap();
    let ns: Namespace = serde_json::from_value(json!({"metadata": {"name": ns}})).unwrap();
    Api::<Namespace>::all(client.clone())
        .create(&PostParams::default(), &ns)
        .await
        .unwrap();
    (cluster, client)
}

fn pod(name: &str) -> serde_json::Value {
    json!({"metadata": {"name": name, "labels": {"controller-revision-hash": "web-1"}},
        "spec": {"containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10"}]}})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn records_initial_list_live_changes_and_waits_on_events() {
    let (cluster, client) = cluster_with_namespace(ClusterConfig::default(), "rec").await;
    let _: PersistentVolumeClaim = create(
        &client,
        "rec",
        json!({"metadata": {"name": "data-web-0"},
            "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}),
    )
    .await;
    let _: Pod = create(&client, "rec", pod("web-0")).await;

    let rec = Recorder::start(client.clone(), "rec", SetKind::default())
        .await
        .unwrap();
    let t = rec.snapshot();
    let initial: Vec<_> = t
        .entries()
        .iter()
        .map(|e| (e.kind, e.change, e.name.as_str(), e.at))
        .collect();
    assert!(initial.contains(&(Kind::Pod, Change::Added, "web-0", Duration::ZERO)));
    assert!(initial.contains(&(
        Kind::PersistentVolumeClaim,
        Change::Added,
        "data-web-0",
        Duration::ZERO
    )));

    let mark = rec.next_seq();
    let _: Pod = create(&client, "rec", pod("web-1")).await;
    let seq = rec
        .wait_for(Duration::from_secs(10), |t| {
            t.of_object(Kind::Pod, "web-1")
                .find(|e| e.change == Change::Added)
                .map(|e| e.seq)
        })
        .await
        .unwrap();
    assert!(seq >= mark);

    // A pod that was never bound is removed at once.
    Api::<Pod>::namespaced(client.clone(), "rec")
        .delete("web-0", &DeleteParams::default())
        .await
        .unwrap();
    rec.wait_for(Duration::from_secs(10), |t| {
        t.of_object(Kind::Pod, "web-0")
            .find(|e| e.change == Change::Deleted && !e.inferred)
            .map(|_| ())
    })
    .await
    .unwrap();

    let err = rec
        .wait_for(Duration::from_millis(200), |_| None::<()>)
        .await
        .unwrap_err();
    assert!(!err.stopped);
    assert!(err.waited >= Duration::from_millis(200));
    let text = err.to_string();
    assert!(text.contains("condition not met within"), "{text}");
    assert!(text.contains("pod web-0 DELETED"), "{text}");

    let t = rec.stop().await;
    let rvs: Vec<u64> = t.entries().iter().filter_map(|e| e.rv_number()).collect();
    assert_eq!(
        rvs.len(),
        t.len(),
        "the embedded cluster's resourceVersions are numeric"
    );
    assert!(rvs.windows(2).all(|w| w[0] <= w[1]), "{rvs:?}");
    assert!(t.entries().windows(2).all(|w| w[0].at <= w[1].at));
    assert!(t
        .entries()
        .iter()
        .enumerate()
        .all(|(i, e)| e.seq == i as u64));
    cluster.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_relist_after_410_infers_deletions_and_invents_nothing() {
    use crate::sim::faults::{FaultAction, FaultRule};
    use k8s_openapi::api::core::v1::ConfigMap;
    let (cluster, client) = cluster_with_namespace(
        ClusterConfig {
            watch_window: 3,
            ..ClusterConfig::default()
        },
        "relist",
    )
    .await;
    let _: Pod = create(&client, "relist", pod("web-0")).await;
    let _: Pod = create(&client, "relist", pod("web-1")).await;
    let rec = Recorder::start_with(
        client.clone(),
        "relist",
        RecorderOptions {
            watch_timeout: Some(1),
            ..RecorderOptions::default()
        },
    )
    .await
    .unwrap();
    // The next pod watch waits, so the watch misses what happens meanwhile
    // and resumes from a version older than the cluster's watch window.
    cluster.faults().add_rule(FaultRule {
        verb: Some("watch".into()),
        resource: Some("pods".into()),
        namespace: Some("relist".into()),
        actions: vec![FaultAction::Delay(Duration::from_secs(2))],
        times: Some(1),
        ..FaultRule::default()
    });
    tokio::time::sleep(Duration::from_millis(1500)).await;
    Api::<Pod>::namespaced(client.clone(), "relist")
        .delete("web-0", &DeleteParams::default())
        .await
        .unwrap();
    for i in 0..6 {
        let _: ConfigMap = create(
            &client,
            "relist",
            json!({"metadata": {"name": format!("filler-{i}")}}),
        )
        .await;
    }
    let deleted = rec
        .wait_for(Duration::from_secs(20), |t| {
            t.of_object(Kind::Pod, "web-0")
                .find(|e| e.change == Change::Deleted)
                .cloned()
        })
        .await
        .unwrap();
    let errors = rec.watch_errors();
    let t = rec.stop().await;
    cluster.shutdown().await;
    assert!(
        deleted.inferred,
        "expected a relist; watch errors: {errors:?}"
    );
    assert!(errors.iter().any(|e| e.starts_with("pod:")), "{errors:?}");
    let web1: Vec<_> = t.of_object(Kind::Pod, "web-1").collect();
    assert_eq!(web1.len(), 1, "web-1 did not change: {web1:?}");
    assert_eq!(web1[0].change, Change::Added);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn catch_up_returns_once_every_kind_delivered_the_objects_as_they_are() {
    let (_cluster, client) = cluster_with_namespace(ClusterConfig::default(), "up").await;
    let rec = Recorder::start(client.clone(), "up", SetKind::default())
        .await
        .unwrap();
    // Writes of two kinds, with no wait between them and the check.
    let mut versions = std::collections::BTreeMap::new();
    for i in 0..5 {
        let p: Pod = create(&client, "up", pod(&format!("web-{i}"))).await;
        let rv = p.metadata.resource_version.unwrap().parse().unwrap();
        versions.insert((Kind::Pod, format!("web-{i}")), rv);
    }
    let c: PersistentVolumeClaim = create(
        &client,
        "up",
        json!({"metadata": {"name": "data-web-0"},
            "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}),
    )
    .await;
    let rv = c.metadata.resource_version.unwrap().parse().unwrap();
    versions.insert((Kind::PersistentVolumeClaim, "data-web-0".into()), rv);
    let cut = rec.catch_up(Duration::from_secs(30)).await.unwrap();
    assert_eq!(rec.snapshot().missing(&versions), None);
    // The cut lies after every write made before the catch-up.
    let newest = versions.values().copied().max().unwrap();
    assert!(cut.is_some_and(|c| c >= newest), "{cut:?} < {newest}");
    // A version the cluster never reached is reported as missing.
    versions.insert((Kind::Pod, "web-0".into()), u64::MAX);
    let gap = rec.snapshot().missing(&versions).unwrap();
    assert!(gap.contains("pod web-0"), "{gap}");
    rec.stop().await;
}

#[test]
fn an_object_becomes_the_json_serde_would_write_for_it() {
    let pod: DynamicObject = serde_json::from_value(json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "web-0", "namespace": "ns", "labels": {"app": "web"}},
        "spec": {"containers": [{"name": "c", "image": "i"}]},
        "status": {"phase": "Running"}
    }))
    .unwrap();
    let written = serde_json::to_value(pod.clone()).unwrap();
    let made = to_json(pod);
    assert_eq!(made, written);
    assert_eq!(
        serde_json::to_string(&made).unwrap(),
        serde_json::to_string(&written).unwrap(),
        "the same keys in the same order"
    );
}
