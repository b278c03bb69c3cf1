//! Writing a StatefulSet's status through its status subresource, as
//! upstream's conformance test "should validate Statefulset Status
//! endpoints" does (coverage E16): a read-modify-write adding a condition
//! (`UpdateStatus`, retried on conflict) and a merge patch of
//! `status.conditions`; both must be stored and reach a watch.

use kepspec_core::Lookup as _;
use kube::api::{Patch, PatchParams, PostParams};
use serde_json::{json, Value};

use super::clauses;
use super::scenario::{RequestError, Scenario};
use super::waits::wait;
use crate::history::Kind;

impl Scenario {
    /// Adds a condition (status True) to the set's status with an update of
    /// the status subresource, retrying a conflict with a fresh read.
    pub async fn add_status_condition(
        &mut self,
        set: &str,
        type_: &str,
        reason: &str,
    ) -> Result<(), RequestError> {
        self.note_change().await;
        let what = format!("update the status of {} {set}", self.resource.kind);
        let api = self.sets_api();
        for attempt in 1.. {
            let mut current = api
                .get_status(set)
                .await
                .map_err(|e| RequestError::from_kube(what.clone(), e))?;
            let conditions = &mut current.data["status"]["conditions"];
            if !conditions.is_array() {
                *conditions = json!([]);
            }
            if let Some(list) = conditions.as_array_mut() {
                list.push(json!({"type": type_, "status": "True", "reason": reason,
                    "message": "Set from kepspec"}));
            }
            match api
                .replace_status(set, &PostParams::default(), &current)
                .await
            {
                Ok(o) => {
                    self.wrote(Kind::StatefulSet, &o.metadata);
                    return Ok(());
                }
                Err(kube::Error::Api(e)) if e.code == 409 && attempt < 5 => continue,
                Err(e) => return Err(RequestError::from_kube(what, e)),
            }
        }
        Ok(())
    }

    /// Merge-patches `status.conditions` of the set to one condition of
    /// this type (status True), through the status subresource.
    pub async fn patch_status_condition(
        &mut self,
        set: &str,
        type_: &str,
    ) -> Result<(), RequestError> {
        self.note_change().await;
        let patch = json!({"status": {"conditions": [{"type": type_, "status": "True"}]}});
        self.sets_api()
            .patch_status(set, &PatchParams::default(), &Patch::Merge(&patch))
            .await
            .map(|o| self.wrote(Kind::StatefulSet, &o.metadata))
            .map_err(|e| {
                RequestError::from_kube(
                    format!("patch the status of {} {set}", self.resource.kind),
                    e,
                )
            })
    }
}

/// Waits until a recorded version of the set (seen by the recorder's watch)
/// carries a condition of this type.
pub async fn condition_arrives(
    sc: &mut Scenario,
    set: &str,
    type_: &str,
    timeout: std::time::Duration,
) -> anyhow::Result<()> {
    let (set, type_) = (set.to_string(), type_.to_string());
    let from = sc.baseline.as_ref().map(|m| m.seq).unwrap_or(0);
    wait(sc, timeout, clauses::status_subresource(), move |t| {
        let seen = t
            .of_object(Kind::StatefulSet, &set)
            .filter(|e| e.seq >= from)
            .any(|e| {
                e.object
                    .lookup("/status/conditions")
                    .and_then(Value::as_array)
                    .is_some_and(|cs| cs.iter().any(|c| c["type"] == type_.as_str()))
            });
        (!seen).then(|| format!("no version of {set} with the condition {type_} has been watched"))
    })
    .await
}
