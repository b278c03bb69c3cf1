//! What a scenario does to a PersistentVolumeClaim directly: hold it with a
//! finalizer and delete it, as a user or a storage controller would.

use k8s_openapi::api::core::v1::{ConfigMap, PersistentVolumeClaim};
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

    /// Creates an empty ConfigMap, to stand as another controller of a
    /// claim, as upstream's e2e test uses one.
    pub async fn create_config_map(&mut self, name: &str) -> Result<(), RequestError> {
        let cm: ConfigMap =
            serde_json::from_value(json!({"metadata": {"name": name}})).map_err(|e| {
                RequestError {
                    what: format!("create ConfigMap {name}"),
                    message: e.to_string(),
                    code: None,
                }
            })?;
        Api::<ConfigMap>::namespaced(self.client.clone(), &self.namespace)
            .create(&Default::default(), &cm)
            .await
            .map(|_| ())
            .map_err(|e| RequestError::from_kube(format!("create ConfigMap {name}"), e))
    }

    /// An ownerReference to the scenario's ConfigMap `name` (its current
    /// uid), for a step to make it an owner or a controller; `what` names
    /// the step's action in an error.
    pub(crate) async fn config_map_reference(
        &self,
        name: &str,
        what: &str,
    ) -> Result<serde_json::Value, RequestError> {
        let uid = Api::<ConfigMap>::namespaced(self.client.clone(), &self.namespace)
            .get(name)
            .await
            .map_err(|e| RequestError::from_kube(what.to_string(), e))?
            .uid()
            .unwrap_or_default();
        Ok(json!({"apiVersion": "v1", "kind": "ConfigMap", "name": name, "uid": uid}))
    }

    /// Replaces a claim's ownerReferences: `controller` names a ConfigMap to
    /// stand as its controller, or None to leave it without any.
    pub async fn set_claim_controller(
        &mut self,
        claim: &str,
        controller: Option<&str>,
    ) -> Result<(), RequestError> {
        let what = format!("set the ownerReferences of PersistentVolumeClaim {claim}");
        let refs = match controller {
            Some(cm) => {
                let mut r = self.config_map_reference(cm, &what).await?;
                r["controller"] = json!(true);
                json!([r])
            }
            None => serde_json::Value::Null,
        };
        self.note_change().await;
        let patch = json!({ "metadata": { "ownerReferences": refs } });
        self.claims_api()
            .patch(claim, &PatchParams::default(), &Patch::Merge(&patch))
            .await
            .map(|c| self.wrote(Kind::PersistentVolumeClaim, &c.metadata))
            .map_err(|e| RequestError::from_kube(what, e))
    }
}
