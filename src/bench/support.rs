//! What the cluster benchmarks share: clients that name themselves, a
//! namespace, minimal objects, and work split over concurrent tasks.

use std::future::Future;

use k8s_openapi::api::core::v1::{ConfigMap, Namespace, Pod};
use kube::api::{Api, PostParams};
use kube::Client;
use serde_json::json;

use crate::sim::EmbeddedCluster;

/// The user agent of the benchmarks' own requests.
pub(crate) const BENCH_AGENT: &str = "kepspec-bench";

/// The image of every pod the benchmarks create (in the node simulator's catalog).
pub(crate) const IMAGE: &str = "registry.k8s.io/pause:3.10";

/// A client of `cluster` whose requests carry `User-Agent: <agent>`, so the
/// request log tells them apart from everyone else's.
pub(crate) fn client_as(cluster: &EmbeddedCluster, agent: &str) -> anyhow::Result<Client> {
    let mut config = cluster.client_config();
    config.headers.push((
        http::header::USER_AGENT,
        http::HeaderValue::from_str(agent)?,
    ));
    Ok(Client::try_from(config)?)
}

/// Creates namespace `name`.
pub(crate) async fn create_namespace(client: &Client, name: &str) -> anyhow::Result<()> {
    let ns: Namespace = serde_json::from_value(json!({"metadata": {"name": name}}))?;
    Api::<Namespace>::all(client.clone())
        .create(&PostParams::default(), &ns)
        .await?;
    Ok(())
}

/// A pod with one container and nothing else (admission fills the defaults).
pub(crate) fn bare_pod(name: &str) -> anyhow::Result<Pod> {
    Ok(serde_json::from_value(json!({
        "metadata": {"name": name, "labels": {"app": "bench"}},
        "spec": {"containers": [{"name": "app", "image": IMAGE}]}
    }))?)
}

/// A ConfigMap with one small key.
pub(crate) fn small_config_map(name: &str) -> anyhow::Result<ConfigMap> {
    Ok(serde_json::from_value(json!({
        "metadata": {"name": name},
        "data": {"key": "value"}
    }))?)
}

/// Runs `work(worker)` for `worker` in `0..workers` as concurrent tasks and
/// collects their results in worker order; the first error wins.
pub(crate) async fn in_parallel<T, F, Fut>(workers: usize, work: F) -> anyhow::Result<Vec<T>>
where
    T: Send + 'static,
    F: Fn(usize) -> Fut,
    Fut: Future<Output = anyhow::Result<T>> + Send + 'static,
{
    let tasks: Vec<_> = (0..workers).map(|w| tokio::spawn(work(w))).collect();
    let mut out = Vec::with_capacity(workers);
    for t in tasks {
        out.push(t.await??);
    }
    Ok(out)
}

/// The items `worker` handles when `count` items are dealt round-robin to
/// `workers` workers.
pub(crate) fn share(count: usize, workers: usize, worker: usize) -> impl Iterator<Item = usize> {
    (worker..count).step_by(workers.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_cover_every_item_once() {
        let mut all: Vec<usize> = (0..3).flat_map(|w| share(10, 3, w)).collect();
        all.sort_unstable();
        assert_eq!(all, (0..10).collect::<Vec<_>>());
        assert_eq!(share(2, 0, 0).count(), 2);
    }

    #[test]
    fn objects_are_valid() {
        assert!(bare_pod("p-1").is_ok());
        assert!(small_config_map("c-1").is_ok());
    }
}
