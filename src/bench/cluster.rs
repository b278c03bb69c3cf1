//! Embedded cluster: start-up time and create+delete throughput over HTTP.

use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::{ConfigMap, Pod};
use kube::api::{Api, DeleteParams, PostParams};
use kube::Client;

use super::measure::{duration, rate, round, Summary};
use super::report::{Row, Section};
use super::support::{
    bare_pod, client_as, create_namespace, in_parallel, share, small_config_map, BENCH_AGENT,
};
use super::Mode;
use crate::sim::{ClusterConfig, EmbeddedCluster};

/// Start-up goal: `EmbeddedCluster::start` to the first answered request.
const STARTUP_GOAL: Duration = Duration::from_millis(50);

/// Concurrent clients of the throughput benchmark.
const CLIENTS: usize = 4;

/// Time from `EmbeddedCluster::start` to the first successful `GET /version`
/// through a kube client, with and without the node simulator.
pub(crate) async fn startup(mode: Mode) -> anyhow::Result<Section> {
    let runs = mode.pick(5, 15);
    let mut s = Section::new("startup", "Embedded cluster start-up");
    for (label, run_nodes) in [("default config", true), ("node simulator off", false)] {
        let mut samples = Vec::with_capacity(runs);
        for _ in 0..runs {
            let cfg = ClusterConfig {
                run_nodes,
                ..ClusterConfig::default()
            };
            let t0 = Instant::now();
            let cluster = EmbeddedCluster::start(cfg).await?;
            let client = cluster.client().await?;
            client.apiserver_version().await?;
            samples.push(t0.elapsed());
            cluster.shutdown().await;
        }
        let sum = Summary::of(&samples);
        s.row(Row::goal(
            format!("start to first GET /version ({label})"),
            runs,
            sum.median_range(),
            format!("median < {}", round(STARTUP_GOAL)),
            sum.p50 < STARTUP_GOAL,
        ));
    }
    s.note(
        "Each run starts a fresh cluster, builds a kube client from `client_config()` \
         and awaits `apiserver_version()`; shutdown is not timed.",
    );
    Ok(s)
}

/// Create+delete throughput of ConfigMaps and of Pods, `CLIENTS` concurrent
/// clients, node simulator off.
pub(crate) async fn crud(mode: Mode) -> anyhow::Result<Section> {
    let objects = mode.pick(200, 2_000);
    let cluster = EmbeddedCluster::start(ClusterConfig {
        run_nodes: false,
        ..ClusterConfig::default()
    })
    .await?;
    let admin = client_as(&cluster, BENCH_AGENT)?;
    create_namespace(&admin, "bench-crud").await?;
    let mut s = Section::new("crud", "Embedded cluster create+delete throughput");
    for kind in [Object::ConfigMap, Object::Pod] {
        let clients = (0..CLIENTS)
            .map(|_| client_as(&cluster, BENCH_AGENT))
            .collect::<anyhow::Result<Vec<_>>>()?;
        let t0 = Instant::now();
        let latencies = in_parallel(CLIENTS, |w| {
            create_delete(
                clients[w].clone(),
                kind,
                share(objects, CLIENTS, w).collect(),
            )
        })
        .await?;
        let elapsed = t0.elapsed();
        let latencies: Vec<Duration> = latencies.into_iter().flatten().collect();
        let sum = Summary::of(&latencies);
        s.row(Row::info(
            format!("{} create+delete, {CLIENTS} clients", kind.word()),
            objects,
            rate(objects, elapsed, "objects"),
        ));
        s.row(Row::info(
            format!("{} request latency p50 / p99", kind.word()),
            latencies.len(),
            format!("{} / {}", duration(sum.p50), duration(sum.p99)),
        ));
    }
    cluster.shutdown().await;
    s.note(format!(
        "{CLIENTS} kube clients (one connection pool each) share the objects round-robin; \
         each creates an object and deletes it before the next. An object is one create \
         plus one delete, so requests/s is twice objects/s. Pods have no node, so their \
         delete removes them at once."
    ));
    Ok(s)
}

#[derive(Clone, Copy, Debug)]
enum Object {
    ConfigMap,
    Pod,
}

impl Object {
    fn word(self) -> &'static str {
        match self {
            Object::ConfigMap => "ConfigMap",
            Object::Pod => "Pod",
        }
    }
}

/// Creates and deletes the objects numbered `items`; returns each request's latency.
async fn create_delete(
    client: Client,
    kind: Object,
    items: Vec<usize>,
) -> anyhow::Result<Vec<Duration>> {
    let cms: Api<ConfigMap> = Api::namespaced(client.clone(), "bench-crud");
    let pods: Api<Pod> = Api::namespaced(client, "bench-crud");
    let (pp, dp) = (PostParams::default(), DeleteParams::default());
    let mut latencies = Vec::with_capacity(items.len() * 2);
    for i in items {
        let name = format!("obj-{i}");
        let t0 = Instant::now();
        match kind {
            Object::ConfigMap => {
                cms.create(&pp, &small_config_map(&name)?).await?;
                latencies.push(t0.elapsed());
                let t1 = Instant::now();
                cms.delete(&name, &dp).await?;
                latencies.push(t1.elapsed());
            }
            Object::Pod => {
                pods.create(&pp, &bare_pod(&name)?).await?;
                latencies.push(t0.elapsed());
                let t1 = Instant::now();
                pods.delete(&name, &dp).await?;
                latencies.push(t1.elapsed());
            }
        }
    }
    Ok(latencies)
}
