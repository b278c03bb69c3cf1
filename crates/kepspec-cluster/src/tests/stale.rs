//! Stale views: one client's watches and cacheable reads lag, consistent
//! reads and other clients do not, and the held changes flow once the view
//! ends.

use std::time::{Duration, Instant};

use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, GetParams, ListParams, PostParams, WatchEvent, WatchParams};
use kube::Client;
use serde_json::json;

use super::super::stale::{Lag, StaleView};
use super::super::EmbeddedCluster;
use super::cluster;

fn cm(name: &str) -> ConfigMap {
    serde_json::from_value(json!({"metadata": {"name": name}})).unwrap()
}

fn names(list: &kube::api::ObjectList<ConfigMap>) -> Vec<String> {
    list.items
        .iter()
        .filter_map(|c| c.metadata.name.clone())
        .collect()
}

/// The ConfigMaps of "default" for a client with this user agent.
fn configmaps_as(c: &EmbeddedCluster, agent: &'static str) -> Api<ConfigMap> {
    let mut config = c.client_config();
    config.headers.push((
        http::header::USER_AGENT,
        http::HeaderValue::from_static(agent),
    ));
    Api::namespaced(Client::try_from(config).unwrap(), "default")
}

type Events = futures::stream::BoxStream<'static, kube::Result<WatchEvent<ConfigMap>>>;

/// The name in the next watch event but bookmarks, which must be an ADDED one.
async fn next(w: &mut Events) -> String {
    loop {
        match tokio::time::timeout(Duration::from_secs(20), w.try_next()).await {
            Ok(Ok(Some(WatchEvent::Bookmark(_)))) => continue,
            Ok(Ok(Some(WatchEvent::Added(o)))) => return o.metadata.name.unwrap_or_default(),
            other => panic!("expected an ADDED event, got {other:?}"),
        }
    }
}

#[tokio::test]
async fn a_stale_client_sees_the_past_until_its_view_ends() {
    let c = cluster().await;
    let stale = configmaps_as(&c, "stale-client/1");
    let fresh: Api<ConfigMap> = Api::namespaced(c.client().await.unwrap(), "default");
    let a = fresh
        .create(&PostParams::default(), &cm("a"))
        .await
        .unwrap();
    let a_rv = a.metadata.resource_version.clone().unwrap();

    let id = c.faults().add_stale_view(StaleView {
        user_agent_contains: "stale-client".into(),
        resource: None,
        lag: Lag::Versions(2),
        until: Instant::now() + Duration::from_secs(3600),
    });
    let mut watch: Events = stale
        .watch(&WatchParams::default().timeout(60), &a_rv)
        .await
        .unwrap()
        .boxed();
    for n in ["b", "c"] {
        fresh.create(&PostParams::default(), &cm(n)).await.unwrap();
    }

    let cached = ListParams::default().match_any();
    let old = stale.list(&cached).await.unwrap();
    assert_eq!(names(&old), ["a"], "a cacheable list is served stale");
    assert_eq!(
        old.metadata.resource_version.as_deref(),
        Some(a_rv.as_str())
    );
    let consistent = stale.list(&ListParams::default()).await.unwrap();
    assert_eq!(
        names(&consistent),
        ["a", "b", "c"],
        "a consistent list is not"
    );
    assert_eq!(names(&fresh.list(&cached).await.unwrap()), ["a", "b", "c"]);
    let cached_get = GetParams::any();
    assert!(matches!(
        stale.get_with("b", &cached_get).await,
        Err(kube::Error::Api(s)) if s.code == 404
    ));
    assert!(stale.get_opt("b").await.unwrap().is_some());

    // One more change moves the view one version on: "b" shows, "c" not yet.
    fresh
        .create(&PostParams::default(), &cm("d"))
        .await
        .unwrap();
    assert_eq!(next(&mut watch).await, "b");
    c.faults().end_stale_view(id);
    assert_eq!(next(&mut watch).await, "c");
    assert_eq!(next(&mut watch).await, "d");
    assert_eq!(
        names(&stale.list(&cached).await.unwrap()),
        ["a", "b", "c", "d"]
    );

    let hits = c.faults().hits(id).unwrap();
    assert!(hits.matched >= 3 && hits.applied >= 3, "{hits:?}");
    c.shutdown().await;
}

#[tokio::test]
async fn a_time_lag_delivers_each_change_after_the_lag() {
    let c = cluster().await;
    let slow = configmaps_as(&c, "slow-client/1");
    let fresh: Api<ConfigMap> = Api::namespaced(c.client().await.unwrap(), "default");
    let lag = Duration::from_millis(300);
    c.faults().add_stale_view(StaleView {
        user_agent_contains: "slow-client".into(),
        resource: None,
        lag: Lag::Time(lag),
        until: Instant::now() + Duration::from_secs(3600),
    });
    let mut watch = slow
        .watch(&WatchParams::default().timeout(60), "0")
        .await
        .unwrap()
        .boxed();
    let created = Instant::now();
    fresh
        .create(&PostParams::default(), &cm("x"))
        .await
        .unwrap();
    let ev = tokio::time::timeout(Duration::from_secs(20), watch.try_next())
        .await
        .expect("the change arrives")
        .unwrap();
    assert!(matches!(ev, Some(WatchEvent::Added(_))), "{ev:?}");
    assert!(created.elapsed() >= lag, "not before the lag");
    c.shutdown().await;
}
