//! Watches: kube-rs watcher, resume from a resourceVersion, 410 Gone,
//! bookmarks, initial events, timeouts, selectors.

use std::time::Duration;

use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, DeleteParams, Patch, PatchParams, PostParams};
use kube::runtime::watcher;
use serde_json::json;

use super::super::ClusterConfig;
use super::{cluster, cluster_with, raw, WatchStream};

fn cm(name: &str, labels: serde_json::Value) -> ConfigMap {
    serde_json::from_value(
        json!({"metadata": {"name": name, "labels": labels}, "data": {"k": "v"}}),
    )
    .unwrap()
}

const CMS: &str = "/api/v1/namespaces/default/configmaps";

#[tokio::test]
async fn kube_runtime_watcher_sees_every_change() {
    let c = cluster_with(ClusterConfig {
        run_nodes: false,
        bookmark_interval: Duration::from_millis(100),
        ..Default::default()
    })
    .await;
    let client = c.client().await.unwrap();
    let api: Api<ConfigMap> = Api::namespaced(client, "default");
    api.create(&PostParams::default(), &cm("before", json!({"w": "1"})))
        .await
        .unwrap();
    let mut events = watcher(api.clone(), watcher::Config::default().labels("w=1")).boxed();
    let mut seen = Vec::new();
    // initial list
    while let Some(ev) = tokio::time::timeout(Duration::from_secs(5), events.try_next())
        .await
        .unwrap()
        .unwrap()
    {
        let done = matches!(ev, watcher::Event::InitDone);
        seen.push(format!("{ev:?}").split('(').next().unwrap().to_string());
        if done {
            break;
        }
    }
    assert_eq!(seen, vec!["Init", "InitApply", "InitDone"]);
    api.create(&PostParams::default(), &cm("a", json!({"w": "1"})))
        .await
        .unwrap();
    api.create(&PostParams::default(), &cm("ignored", json!({"w": "2"})))
        .await
        .unwrap();
    api.patch(
        "a",
        &PatchParams::default(),
        &Patch::Merge(json!({"data": {"k": "v2"}})),
    )
    .await
    .unwrap();
    api.delete("a", &DeleteParams::default()).await.unwrap();
    let mut got = Vec::new();
    while got.len() < 3 {
        let ev = tokio::time::timeout(Duration::from_secs(5), events.try_next())
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        match ev {
            watcher::Event::Apply(o) => got.push(format!(
                "apply {} {}",
                o.metadata.name.unwrap(),
                o.data.unwrap()["k"]
            )),
            watcher::Event::Delete(o) => got.push(format!("delete {}", o.metadata.name.unwrap())),
            _ => {}
        }
    }
    assert_eq!(got, vec!["apply a v", "apply a v2", "delete a"]);
    c.shutdown().await;
}

#[tokio::test]
async fn watch_resumes_from_resource_version_and_reports_410_when_compacted() {
    let c = cluster_with(ClusterConfig {
        run_nodes: false,
        watch_window: 5,
        ..Default::default()
    })
    .await;
    let body = |n: &str| {
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": n}}).to_string()
    };
    let first = raw(
        &c,
        "POST",
        CMS,
        Some("application/json"),
        body("c0").as_bytes(),
        true,
    )
    .await
    .json();
    let rv0 = first["metadata"]["resourceVersion"]
        .as_str()
        .unwrap()
        .to_string();
    raw(
        &c,
        "POST",
        CMS,
        Some("application/json"),
        body("c1").as_bytes(),
        true,
    )
    .await;
    raw(
        &c,
        "POST",
        CMS,
        Some("application/json"),
        body("c2").as_bytes(),
        true,
    )
    .await;
    let (status, mut w) =
        WatchStream::open(&c, &format!("{CMS}?watch=true&resourceVersion={rv0}")).await;
    assert_eq!(status, 200);
    let e1 = w.next(Duration::from_secs(5)).await.unwrap();
    assert_eq!(
        (
            e1["type"].as_str(),
            e1["object"]["metadata"]["name"].as_str()
        ),
        (Some("ADDED"), Some("c1"))
    );
    assert_eq!(e1["object"]["kind"], "ConfigMap");
    let e2 = w.next(Duration::from_secs(5)).await.unwrap();
    assert_eq!(e2["object"]["metadata"]["name"], "c2");
    // push the window past rv0
    for i in 3..10 {
        raw(
            &c,
            "POST",
            CMS,
            Some("application/json"),
            body(&format!("c{i}")).as_bytes(),
            true,
        )
        .await;
    }
    let (status, mut old) =
        WatchStream::open(&c, &format!("{CMS}?watch=true&resourceVersion={rv0}")).await;
    assert_eq!(status, 200);
    let err = old.next(Duration::from_secs(5)).await.unwrap();
    assert_eq!(err["type"], "ERROR");
    assert_eq!(err["object"]["code"], 410);
    assert_eq!(err["object"]["reason"], "Expired");
    assert!(err["object"]["message"]
        .as_str()
        .unwrap()
        .starts_with(&format!("too old resource version: {rv0} (")));
    assert!(
        old.next(Duration::from_secs(5)).await.is_none(),
        "stream ends after the error"
    );
    c.shutdown().await;
}

#[tokio::test]
async fn bookmarks_initial_events_and_timeout() {
    let c = cluster_with(ClusterConfig {
        run_nodes: false,
        bookmark_interval: Duration::from_millis(100),
        ..Default::default()
    })
    .await;
    let client = c.client().await.unwrap();
    let api: Api<ConfigMap> = Api::namespaced(client, "default");
    api.create(&PostParams::default(), &cm("x", json!({})))
        .await
        .unwrap();
    let path = format!("{CMS}?watch=true&allowWatchBookmarks=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&timeoutSeconds=2");
    let (_, mut w) = WatchStream::open(&c, &path).await;
    let added = w.next(Duration::from_secs(5)).await.unwrap();
    assert_eq!(added["type"], "ADDED");
    let end = w.next(Duration::from_secs(5)).await.unwrap();
    assert_eq!(end["type"], "BOOKMARK");
    assert_eq!(
        end["object"]["metadata"]["annotations"]["k8s.io/initial-events-end"],
        "true"
    );
    let periodic = w.next(Duration::from_secs(5)).await.unwrap();
    assert_eq!(periodic["type"], "BOOKMARK");
    assert_eq!(periodic["object"]["kind"], "ConfigMap");
    // timeoutSeconds=2 ends the stream
    let started = std::time::Instant::now();
    while w.next(Duration::from_secs(5)).await.is_some() {}
    assert!(started.elapsed() < Duration::from_secs(4));
    c.shutdown().await;
}

#[tokio::test]
async fn label_changes_turn_into_added_and_deleted() {
    let c = cluster().await;
    let client = c.client().await.unwrap();
    let api: Api<ConfigMap> = Api::namespaced(client, "default");
    let made = api
        .create(&PostParams::default(), &cm("m", json!({"app": "web"})))
        .await
        .unwrap();
    let rv = made.metadata.resource_version.unwrap();
    let (_, mut w) = WatchStream::open(
        &c,
        &format!("{CMS}?watch=1&labelSelector=app%3Dweb&resourceVersion={rv}"),
    )
    .await;
    api.patch(
        "m",
        &PatchParams::default(),
        &Patch::Merge(json!({"metadata": {"labels": {"app": "db"}}})),
    )
    .await
    .unwrap();
    api.patch(
        "m",
        &PatchParams::default(),
        &Patch::Merge(json!({"metadata": {"labels": {"app": "web"}}})),
    )
    .await
    .unwrap();
    let a = w.next(Duration::from_secs(5)).await.unwrap();
    let b = w.next(Duration::from_secs(5)).await.unwrap();
    assert_eq!(
        (a["type"].as_str(), b["type"].as_str()),
        (Some("DELETED"), Some("ADDED"))
    );
    c.shutdown().await;
}

#[tokio::test]
async fn watch_stream_closes_on_shutdown() {
    let c = cluster().await;
    let (_, mut w) = WatchStream::open(&c, &format!("{CMS}?watch=true&resourceVersion=1")).await;
    let handle = tokio::spawn(async move { w.next(Duration::from_secs(10)).await });
    tokio::time::sleep(Duration::from_millis(50)).await;
    c.shutdown().await;
    let r = tokio::time::timeout(Duration::from_secs(8), handle)
        .await
        .unwrap()
        .unwrap();
    assert!(r.is_none());
    let _ = futures::stream::iter([0]).next().await;
}

#[tokio::test]
async fn watching_a_named_object_filters_by_name() {
    let c = cluster().await;
    let client = c.client().await.unwrap();
    let api: Api<ConfigMap> = Api::namespaced(client, "default");
    let (status, mut w) =
        WatchStream::open(&c, &format!("{CMS}/only?watch=true&resourceVersion=1")).await;
    assert_eq!(status, 200);
    api.create(&PostParams::default(), &cm("other", json!({})))
        .await
        .unwrap();
    api.create(&PostParams::default(), &cm("only", json!({})))
        .await
        .unwrap();
    let e = w.next(Duration::from_secs(5)).await.unwrap();
    assert_eq!(e["object"]["metadata"]["name"], "only");
    c.shutdown().await;
}

#[tokio::test]
async fn kube_runtime_watcher_with_streaming_lists() {
    let c = cluster().await;
    let client = c.client().await.unwrap();
    let api: Api<ConfigMap> = Api::namespaced(client, "default");
    api.create(&PostParams::default(), &cm("s1", json!({})))
        .await
        .unwrap();
    let mut events = watcher(api.clone(), watcher::Config::default().streaming_lists()).boxed();
    let mut init = Vec::new();
    loop {
        let ev = tokio::time::timeout(Duration::from_secs(5), events.try_next())
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        match ev {
            watcher::Event::InitApply(o) => init.push(o.metadata.name.unwrap()),
            watcher::Event::InitDone => break,
            _ => {}
        }
    }
    assert_eq!(init, vec!["s1"]);
    api.create(&PostParams::default(), &cm("s2", json!({})))
        .await
        .unwrap();
    loop {
        let ev = tokio::time::timeout(Duration::from_secs(5), events.try_next())
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        if let watcher::Event::Apply(o) = ev {
            assert_eq!(o.metadata.name.as_deref(), Some("s2"));
            break;
        }
    }
    c.shutdown().await;
}

#[tokio::test]
async fn kube_runtime_watcher_relists_after_410() {
    use super::super::faults::{FaultAction, FaultRule};
    let c = cluster_with(ClusterConfig {
        run_nodes: false,
        watch_window: 3,
        ..Default::default()
    })
    .await;
    let client = c.client().await.unwrap();
    let api: Api<ConfigMap> = Api::namespaced(client, "default");
    let mut events = watcher(api.clone(), watcher::Config::default().timeout(1)).boxed();
    loop {
        let ev = tokio::time::timeout(Duration::from_secs(5), events.try_next())
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        if matches!(ev, watcher::Event::InitDone) {
            break;
        }
    }
    // kube-rs issues its watch lazily (when polled next), from the list's resourceVersion;
    // the window moves past it first, and the held-back watch gets 410 Gone
    c.faults().add_rule(FaultRule {
        verb: Some("watch".into()),
        resource: Some("configmaps".into()),
        actions: vec![FaultAction::Delay(Duration::from_millis(1500))],
        times: Some(1),
        ..Default::default()
    });
    tokio::time::sleep(Duration::from_millis(1200)).await;
    for i in 0..6 {
        api.create(&PostParams::default(), &cm(&format!("gap-{i}"), json!({})))
            .await
            .unwrap();
    }
    let mut relisted = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while relisted.len() < 6 && tokio::time::Instant::now() < deadline {
        match tokio::time::timeout(Duration::from_secs(5), events.next()).await {
            Ok(Some(Ok(watcher::Event::InitApply(o)))) => relisted.push(o.metadata.name.unwrap()),
            Ok(Some(Ok(watcher::Event::Apply(o)))) => panic!(
                "saw {:?} as a live event; expected a relist after 410",
                o.metadata.name
            ),
            Ok(Some(_)) => {}
            Ok(None) | Err(_) => break,
        }
    }
    relisted.sort();
    assert_eq!(
        relisted,
        (0..6).map(|i| format!("gap-{i}")).collect::<Vec<_>>()
    );
    let log: Vec<String> = c
        .faults()
        .requests()
        .into_iter()
        .map(|r| format!("{} {}", r.verb, r.path))
        .collect();
    let watches = log.iter().filter(|r| r.starts_with("watch ")).count();
    assert!(watches >= 1, "{log:?}");
    let first_watch = log.iter().position(|r| r.starts_with("watch ")).unwrap();
    assert!(
        log[first_watch..].iter().any(|r| r.starts_with("list ")),
        "relist after 410: {log:?}"
    );
    c.shutdown().await;
}
