//! Standing in for a vendor's controller: install the profile's CRDs on a
//! cluster (normally the embedded one) and wait until their resources are
//! served, so the bundled controller, started with the profile's
//! [`api_resource`](super::Profile::api_resource), reconciles the vendor's
//! kind and the whole profile path (resource, field mapping, reasons) runs
//! without the vendor's software.

use std::time::Duration;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, Patch, PatchParams};
use kube::discovery::ApiResource;
use kube::Client;
use serde_json::Value;

/// Applies each CRD (server-side apply, so it can run twice) and waits up to
/// `timeout` until `resource` is listed by the server.
pub(crate) async fn install_crds(
    client: &Client,
    crds: &[Value],
    resource: &ApiResource,
    timeout: Duration,
) -> anyhow::Result<()> {
    let api: Api<CustomResourceDefinition> = Api::all(client.clone());
    let params = PatchParams::apply("kepspec").force();
    for crd in crds {
        let name = crd["metadata"]["name"].as_str().unwrap_or_default();
        api.patch(name, &params, &Patch::Apply(crd))
            .await
            .map_err(|e| anyhow::anyhow!("cannot install CustomResourceDefinition {name}: {e}"))?;
    }
    let deadline = tokio::time::Instant::now() + timeout;
    let sets: Api<kube::api::DynamicObject> = Api::all_with(client.clone(), resource);
    loop {
        match sets.list(&Default::default()).await {
            Ok(_) => return Ok(()),
            Err(e) if tokio::time::Instant::now() >= deadline => {
                return Err(anyhow::anyhow!(
                    "{} {} is not served after {:?}: {e}",
                    resource.api_version,
                    resource.plural,
                    timeout
                ))
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
        }
    }
}
