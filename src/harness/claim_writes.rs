//! What a scenario does to a PersistentVolumeClaim directly: hold it with a
//! finalizer and delete it, as a user or a storage controller would.

use k8s_openapi::api::core::v1::PersistentVolumeClaim;
use kube::api::{Api, DeleteParams, Patch, PatchParams};
use kube::ResourceExt;
use serde_json::json;

use super::scenario::{RequestError, Scenario};
use crate::history::Kind;

impl Scenario {
    fn claims_api(&self) -> Api<PersistentVolumeClaim> {
        Api::namespaced(self.client.clone(), &self.namespace)
    }

    /// A claim's finalizers now.
    pub async fn claim_finalizers(&self, claim: &str) -> Result<Vec<String>, RequestError> {
        self.claims_api()
            .get(claim)
            .await
            .map(|c| c.finalizers().to_vec())
            .map_err(|e| RequestError::from_kube(format!("get PersistentVolumeClaim {claim}"), e))
    }

    /// Replaces a claim's finalizers.
    pub async fn set_claim_finalizers(
        &mut self,
        claim: &str,
        finalizers: Vec<String>,
    ) -> Result<(), RequestError> {
        self.note_change().await;
        let patch = json!({ "metadata": { "finalizers": finalizers } });
        self.claims_api()
            .patch(claim, &PatchParams::default(), &Patch::Merge(&patch))
            .await
            .map(|c| self.wrote(Kind::PersistentVolumeClaim, &c.metadata))
            .map_err(|e| {
                RequestError::from_kube(
                    format!("set the finalizers of PersistentVolumeClaim {claim}"),
                    e,
                )
            })
    }

    /// Deletes a claim (a finalizer may keep it, terminating).
    pub async fn delete_claim(&mut self, claim: &str) -> Result<(), RequestError> {
        self.note_change().await;
        self.claims_api()
            .delete(claim, &DeleteParams::default())
            .await
            .map(|o| {
                if let either::Either::Left(c) = o {
                    self.wrote(Kind::PersistentVolumeClaim, &c.metadata);
                }
            })
            .map_err(|e| {
                RequestError::from_kube(format!("delete PersistentVolumeClaim {claim}"), e)
            })
    }
}
