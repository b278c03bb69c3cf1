//! Listing StatefulSets across namespaces by label and deleting them as a
//! collection, as upstream's conformance test "should list, patch and
//! delete a collection of StatefulSets" does (coverage E15). The cluster
//! may hold other scenarios' sets under the same label, so a list is judged
//! by what it says of this scenario's namespace only.

use kube::api::{Api, DeleteParams, ListParams};
use kube::core::DynamicObject;
use kube::ResourceExt;

use super::scenario::{RequestError, Scenario};

impl Scenario {
    /// The names of the StatefulSets of this scenario's namespace that a
    /// list across every namespace, selected by `labels`, returns.
    pub async fn list_sets_everywhere(&self, labels: &str) -> Result<Vec<String>, RequestError> {
        let all: Api<DynamicObject> = Api::all_with(self.client.clone(), &self.resource);
        let list = all
            .list(&ListParams::default().labels(labels))
            .await
            .map_err(|e| {
                RequestError::from_kube(
                    format!(
                        "list {} in every namespace by {labels}",
                        self.resource.plural
                    ),
                    e,
                )
            })?;
        Ok(list
            .items
            .iter()
            .filter(|s| s.namespace().as_deref() == Some(self.namespace.as_str()))
            .map(|s| s.name_any())
            .collect())
    }

    /// Deletes the StatefulSets of this namespace that `labels` selects, as
    /// one collection (a grace period of one second, as upstream's test).
    pub async fn delete_sets_collection(&mut self, labels: &str) -> Result<(), RequestError> {
        self.note_change().await;
        let params = DeleteParams {
            grace_period_seconds: Some(1),
            ..DeleteParams::default()
        };
        self.sets_api()
            .delete_collection(&params, &ListParams::default().labels(labels))
            .await
            .map(|_| ())
            .map_err(|e| {
                RequestError::from_kube(
                    format!("delete the {} selected by {labels}", self.resource.plural),
                    e,
                )
            })
    }
}

/// Checks, until `timeout` (at least once), that a list across every
/// namespace selected by `labels` holds exactly `set` of this scenario's
/// namespace, or none with `None`.
pub async fn list_holds(
    sc: &Scenario,
    labels: &str,
    set: Option<&str>,
    timeout: std::time::Duration,
) -> anyhow::Result<()> {
    let want: Vec<String> = set.map(str::to_string).into_iter().collect();
    let deadline = tokio::time::Instant::now() + timeout;
    loop {
        let found = sc.list_sets_everywhere(labels).await?;
        if found == want {
            return Ok(());
        }
        anyhow::ensure!(
            tokio::time::Instant::now() < deadline,
            "a list selected by {labels} holds {found:?} of this scenario's namespace, expected {want:?}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
}
