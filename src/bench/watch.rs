//! Embedded cluster watch fan-out: many watchers on the pods of one
//! namespace, and how long each creation takes to reach all of them.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, ApiResource, DynamicObject, ListParams, PostParams, WatchEvent, WatchParams};
use tokio::sync::mpsc;

use super::measure::{duration, rate, Summary};
use super::report::{Row, Section};
use super::support::{bare_pod, client_as, create_namespace, BENCH_AGENT};
use super::Mode;
use crate::sim::{ClusterConfig, EmbeddedCluster};

/// Concurrent watchers.
const WATCHERS: usize = 50;

/// The namespace watched.
const NAMESPACE: &str = "bench-watch";

/// Events per second the watchers must receive in all.
const DELIVERY_GOAL: usize = 5_000;

/// How long the benchmark waits for every watcher to see every event.
const DEADLINE: Duration = Duration::from_secs(120);

/// `WATCHERS` watches on pods, N sequential creates; delivery latency per
/// (watcher, event) and the time until every watcher has seen every event.
pub(crate) async fn fan_out(mode: Mode) -> anyhow::Result<Section> {
    let events = mode.pick(100, 1_000);
    let cluster = EmbeddedCluster::start(ClusterConfig {
        run_nodes: false,
        ..ClusterConfig::default()
    })
    .await?;
    let admin = client_as(&cluster, BENCH_AGENT)?;
    create_namespace(&admin, NAMESPACE).await?;
    let pods: Api<Pod> = Api::namespaced(admin.clone(), NAMESPACE);
    let rv = pods
        .list_metadata(&ListParams::default())
        .await?
        .metadata
        .resource_version
        .unwrap_or_default();

    let watcher_client = client_as(&cluster, "kepspec-bench-watcher")?;
    let ar = ApiResource::erase::<Pod>(&());
    let (ready_tx, mut ready_rx) = mpsc::channel(WATCHERS);
    let watchers: Vec<_> = (0..WATCHERS)
        .map(|_| {
            let api = Api::<DynamicObject>::namespaced_with(watcher_client.clone(), NAMESPACE, &ar);
            tokio::spawn(watch_adds(api, rv.clone(), events, ready_tx.clone()))
        })
        .collect();
    drop(ready_tx);
    for _ in 0..WATCHERS {
        tokio::time::timeout(DEADLINE, ready_rx.recv())
            .await?
            .ok_or_else(|| anyhow::anyhow!("a watcher failed to start"))?;
    }

    let mut sent = HashMap::with_capacity(events);
    let t0 = Instant::now();
    for i in 0..events {
        let name = format!("w-{i}");
        let pod = bare_pod(&name)?;
        sent.insert(name, Instant::now());
        pods.create(&PostParams::default(), &pod).await?;
    }
    let creates = t0.elapsed();

    let mut latencies = Vec::with_capacity(events * WATCHERS);
    let mut last = t0;
    for w in watchers {
        let seen = tokio::time::timeout(DEADLINE, w).await???;
        for (name, at) in seen {
            let from = sent
                .get(&name)
                .ok_or_else(|| anyhow::anyhow!("a watcher saw an unknown pod {name}"))?;
            latencies.push(at.saturating_duration_since(*from));
            last = last.max(at);
        }
    }
    cluster.shutdown().await;

    let sum = Summary::of(&latencies);
    let mut s = Section::new("watch", "Embedded cluster watch fan-out");
    s.row(Row::info(
        format!("creates while {WATCHERS} watchers listen"),
        events,
        rate(events, creates, "pods"),
    ))
    .row(Row::info(
        "delivery latency p50 / p99 / max",
        latencies.len(),
        format!(
            "{} / {} / {}",
            duration(sum.p50),
            duration(sum.p99),
            duration(sum.max)
        ),
    ))
    .row(Row::info(
        "first create to last delivery",
        events * WATCHERS,
        duration(last.saturating_duration_since(t0)),
    ));
    let delivered = (events * WATCHERS) as f64 / last.saturating_duration_since(t0).as_secs_f64();
    s.row(Row::goal(
        "delivered events/s",
        events * WATCHERS,
        format!("{delivered:.0}"),
        format!(">= {DELIVERY_GOAL}"),
        delivered >= DELIVERY_GOAL as f64,
    ));
    s.note(format!(
        "{WATCHERS} watches (`?watch=true` from the namespace's list resourceVersion, one HTTP \
         connection each, one kube client) on the pods of one namespace; one client creates \
         the pods one after another. Latency runs from just before a create is sent to the \
         moment a watcher has decoded its ADDED event, so it includes the create itself; the \
         watchers' JSON decoding shares the cores with the server. Each event is \
         serialized once per encoding and the bytes shared by every watcher asking for it."
    ));
    Ok(s)
}

/// Watches from `rv` until `expect` ADDED events arrived; each with its
/// pod name and arrival time.
async fn watch_adds(
    api: Api<DynamicObject>,
    rv: String,
    expect: usize,
    ready: mpsc::Sender<()>,
) -> anyhow::Result<Vec<(String, Instant)>> {
    let params = WatchParams::default().timeout(290);
    let mut stream = api.watch(&params, &rv).await?.boxed();
    let _ = ready.send(()).await;
    let mut seen = Vec::with_capacity(expect);
    while seen.len() < expect {
        match stream.try_next().await? {
            Some(WatchEvent::Added(obj)) => {
                seen.push((obj.metadata.name.unwrap_or_default(), Instant::now()));
            }
            Some(WatchEvent::Error(e)) => anyhow::bail!("watch error: {}", e.message),
            Some(_) => {}
            None => anyhow::bail!("the watch ended after {} of {expect} events", seen.len()),
        }
    }
    Ok(seen)
}
