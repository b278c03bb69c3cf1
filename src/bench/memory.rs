//! Embedded cluster memory: the growth of the process's resident memory
//! while the cluster stores many pods.

use std::time::Instant;

use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, PostParams};

use super::measure::{memory, mib, rate, Memory};
use super::report::{Row, Section};
use super::support::{bare_pod, client_as, create_namespace, in_parallel, share, BENCH_AGENT};
use super::Mode;
use crate::sim::Gr;
use crate::sim::{ClusterConfig, EmbeddedCluster};

/// Memory goal: 300 MiB for 10,000 pods (pro rata for other counts).
const GOAL_KIB_PER_10K_PODS: u64 = 300 * 1024;

/// Concurrent clients creating the pods.
const CLIENTS: usize = 4;

/// Resident memory growth with N pods stored (node simulator off).
pub(crate) async fn stored_pods(mode: Mode) -> anyhow::Result<Section> {
    let count = mode.pick(1_000, 10_000);
    let mut s = Section::new("memory", "Embedded cluster memory with stored pods");
    let before = memory().ok_or_else(|| anyhow::anyhow!("no /proc/self/status"))?;
    let cluster = EmbeddedCluster::start(ClusterConfig {
        run_nodes: false,
        ..ClusterConfig::default()
    })
    .await?;
    let admin = client_as(&cluster, BENCH_AGENT)?;
    create_namespace(&admin, "bench-memory").await?;
    let clients = (0..CLIENTS)
        .map(|_| client_as(&cluster, BENCH_AGENT))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let t0 = Instant::now();
    in_parallel(CLIENTS, |w| {
        let api: Api<Pod> = Api::namespaced(clients[w].clone(), "bench-memory");
        let items: Vec<usize> = share(count, CLIENTS, w).collect();
        async move {
            for i in items {
                api.create(&PostParams::default(), &bare_pod(&format!("pod-{i}"))?)
                    .await?;
            }
            anyhow::Ok(())
        }
    })
    .await?;
    let elapsed = t0.elapsed();
    drop(clients);
    let after = memory().ok_or_else(|| anyhow::anyhow!("no /proc/self/status"))?;
    let (stored, _) = cluster
        .store()
        .list(&Gr::new("", "pods"), Some("bench-memory"));
    let json_bytes: usize = stored
        .iter()
        .map(|p| serde_json::to_vec(p).map_or(0, |v| v.len()))
        .sum();
    cluster.shutdown().await;
    report(&mut s, count, stored.len(), before, after, json_bytes);
    s.row(Row::info(
        "pod creates while filling",
        count,
        rate(count, elapsed, "pods"),
    ));
    s.note(
        "RSS is the whole process (VmRSS in /proc/self/status) before the cluster starts \
         and after the pods are stored: it includes the store, the watch window (up to \
         10,000 events holding object copies), the request log, and allocator slack. \
         Memory freed by benchmarks that ran earlier in the same process is reused, so \
         this benchmark runs early; run it alone (`--only memory`) for the cleanest number.",
    );
    Ok(s)
}

fn report(
    s: &mut Section,
    count: usize,
    stored: usize,
    before: Memory,
    after: Memory,
    json_bytes: usize,
) {
    let delta = after.rss_kib.saturating_sub(before.rss_kib);
    let goal = GOAL_KIB_PER_10K_PODS * count as u64 / 10_000;
    s.row(Row::goal(
        "RSS growth with the pods stored",
        count,
        mib(delta),
        format!("< {}", mib(goal)),
        delta < goal && stored == count,
    ));
    let per_pod = delta as f64 / count.max(1) as f64;
    s.row(Row::info(
        "RSS growth per pod",
        count,
        format!("{per_pod:.1} KiB"),
    ));
    s.row(Row::info(
        "stored pod JSON (as served), per pod",
        stored,
        format!(
            "{:.1} KiB",
            json_bytes as f64 / 1024.0 / stored.max(1) as f64
        ),
    ));
    s.row(Row::info(
        "process RSS before / after / peak (VmHWM)",
        count,
        format!(
            "{} / {} / {}",
            mib(before.rss_kib),
            mib(after.rss_kib),
            mib(after.hwm_kib)
        ),
    ));
}
