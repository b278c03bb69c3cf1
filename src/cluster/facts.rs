//! Reading what a cluster is from the cluster itself: `/version` (the
//! emulated version when the server emulates one) and the
//! `kubernetes_feature_enabled` metric of kube-apiserver's `/metrics`. What
//! the user (`--feature-gates`) or kepspec's own kind run says overrides
//! what was read; what nothing says takes the release's default.

use kube::Client;

use crate::profiles::{ClusterFacts, FeatureGates, Version};

/// The facts of the cluster `client` talks to; `given` are the gate
/// settings the user or the provisioning run stated.
pub(crate) async fn read(client: &Client, embedded: bool, given: &FeatureGates) -> ClusterFacts {
    let (version, version_source) = match client.apiserver_version().await {
        Ok(info) => match Version::of_server(&info) {
            Ok(v) => {
                let emulated = info.emulation_minor.is_some()
                    && info.emulation_minor.as_deref() != Some(info.minor.as_str());
                let src = if emulated {
                    "/version, emulated"
                } else {
                    "/version"
                };
                (v, src.to_string())
            }
            Err(e) => (Version::new(0, 0), format!("/version unreadable: {e}")),
        },
        Err(e) => (Version::new(0, 0), format!("/version unreadable: {e}")),
    };
    let read = match metrics_text(client).await {
        Ok(text) => FeatureGates::from_metrics(&text),
        Err(e) => {
            tracing::info!("cannot read the cluster's feature gates from /metrics: {e}");
            FeatureGates::default()
        }
    };
    ClusterFacts {
        embedded,
        version,
        version_source,
        gates: read.overridden_by(given),
    }
}

async fn metrics_text(client: &Client) -> anyhow::Result<String> {
    let req = http::Request::get("/metrics").body(Vec::new())?;
    Ok(client.request_text(req).await?)
}
