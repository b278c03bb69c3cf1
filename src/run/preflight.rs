//! Before the first scenario on a cluster kepspec did not start: is anything
//! reconciling the target's resource? A probe set (no replicas, in a
//! namespace of its own) is created, and something must write its
//! `status.observedGeneration` within [`BOUND`]; otherwise the run stops with
//! one error naming what to start, instead of every scenario failing after
//! its own timeout on a status nobody writes.

use kepspec_core::Lookup as _;
use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::Namespace;
use kube::api::{Api, DeleteParams, DynamicObject, PostParams};
use kube::Client;
use serde_json::json;

use crate::profiles::Profile;

/// How long the probe waits for a controller to acknowledge its set.
pub(crate) const BOUND: Duration = Duration::from_secs(30);

/// The probe's manifest: a set of the profile's resource with no replicas.
fn probe_set(profile: &Profile, name: &str) -> serde_json::Value {
    let r = profile.api_resource();
    json!({
        "apiVersion": r.api_version,
        "kind": r.kind,
        "metadata": {"name": name},
        "spec": {
            "replicas": 0,
            "serviceName": name,
            "selector": {"matchLabels": {"kepspec.io/preflight": name}},
            "template": {
                "metadata": {"labels": {"kepspec.io/preflight": name}},
                "spec": {"containers": [{"name": "pause", "image": "registry.k8s.io/pause:3.10"}]}
            }
        }
    })
}

/// Why nothing seems to reconcile the target's resource, or Ok when a
/// controller acknowledged the probe within `bound`.
pub(crate) async fn check(
    client: &Client,
    profile: &Profile,
    bound: Duration,
) -> Result<(), String> {
    let suffix = format!("{:06x}", rand::random::<u32>() & 0x00ff_ffff);
    let ns_name = format!("kepspec-preflight-{suffix}");
    let namespaces: Api<Namespace> = Api::all(client.clone());
    let ns: Namespace = serde_json::from_value(json!({"metadata": {"name": ns_name}}))
        .map_err(|e| e.to_string())?;
    namespaces
        .create(&PostParams::default(), &ns)
        .await
        .map_err(|e| format!("preflight: cannot create namespace {ns_name}: {e}"))?;
    let result = probe(client, profile, &ns_name, bound).await;
    let _ = namespaces.delete(&ns_name, &DeleteParams::default()).await;
    result
}

async fn probe(
    client: &Client,
    profile: &Profile,
    ns: &str,
    bound: Duration,
) -> Result<(), String> {
    let resource = profile.api_resource();
    let api: Api<DynamicObject> = Api::namespaced_with(client.clone(), ns, &resource);
    let name = "probe";
    let object: DynamicObject =
        serde_json::from_value(probe_set(profile, name)).map_err(|e| e.to_string())?;
    api.create(&PostParams::default(), &object)
        .await
        .map_err(|e| {
            format!(
                "preflight: cannot create a {} {}/{name}: {e}",
                resource.kind, ns
            )
        })?;
    let start = Instant::now();
    loop {
        if let Ok(set) = api.get(name).await {
            let generation = set.metadata.generation.unwrap_or(1);
            let observed = set
                .data
                .lookup("/status/observedGeneration")
                .and_then(serde_json::Value::as_i64);
            if observed.is_some_and(|o| o >= generation) {
                return Ok(());
            }
        }
        if start.elapsed() >= bound {
            return Err(format!(
                "nothing reconciles {}/{} {} on this cluster: a probe set's status.observedGeneration \
                 was not written within {} s. Start the controller under test (target {}): \
                 kube-controller-manager's statefulset controller, `kepspec controller --kubeconfig PATH` \
                 for the bundled one, or the vendor's, then run again",
                resource.group,
                resource.version,
                resource.kind,
                bound.as_secs(),
                profile.name()
            ));
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{ClusterConfig, EmbeddedCluster};

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_cluster_without_a_controller_fails_the_probe_and_one_with_passes() {
        let cluster = EmbeddedCluster::start(ClusterConfig::default())
            .await
            .expect("cluster");
        let client = cluster.client().await.expect("client");
        let profile = Profile::bundled();
        let started = Instant::now();
        let bound = Duration::from_secs(2);
        let e = check(&client, &profile, bound)
            .await
            .expect_err("no controller");
        assert!(e.contains("nothing reconciles apps/v1 StatefulSet"), "{e}");
        assert!(started.elapsed() >= bound);
        let stop = tokio_util::sync::CancellationToken::new();
        let controller = tokio::spawn(crate::controller::run(
            client.clone(),
            crate::controller::ControllerOptions::default(),
            stop.clone(),
        ));
        check(&client, &profile, Duration::from_secs(20))
            .await
            .expect("the bundled controller acknowledges");
        stop.cancel();
        let _ = controller.await;
        cluster.shutdown().await;
    }
}
