//! A claim's storage class. The StatefulSet concepts page: "If no
//! StorageClass is specified, then the default StorageClass will be used."
//! The controller's part is to leave the class unset when the template
//! names none, so that kube-apiserver's DefaultStorageClass admission fills
//! in the cluster's default; a controller that writes `""` (no class) or a
//! class of its own choosing takes the default away.

use k8s_openapi::api::storage::v1::StorageClass;
use kepspec_core::Lookup as _;
use kube::Api;
use serde_json::Value;

use super::checks::keep;
use super::clauses;
use super::scenario::Scenario;
use crate::history::checks::{never, Breach};
use crate::history::rules;
use crate::history::views::state_before;
use crate::history::{Change, Kind};

/// Every claim of `set`, in every recorded version, names the cluster's
/// default StorageClass (chosen as upstream's `GetDefaultClass` chooses).
pub async fn default_class(sc: &mut Scenario, set: &str) -> anyhow::Result<()> {
    let classes = Api::<StorageClass>::all(sc.client.clone())
        .list(&Default::default())
        .await?;
    let values: Vec<Value> = classes
        .items
        .iter()
        .filter_map(|c| serde_json::to_value(c).ok())
        .collect();
    let Some(default) = crate::sim::storage::default_class(&values) else {
        anyhow::bail!(
            "the cluster has no default StorageClass (annotation {}: \"true\"); \
             the scenario needs one, as kind installs `standard`",
            crate::sim::storage::IS_DEFAULT
        );
    };
    let t = sc.timeline().await?;
    let claims = state_before(&t, t.next_seq())
        .claims
        .keys()
        .filter(|n| rules::is_claim_of(set, n))
        .count();
    if claims == 0 {
        // A check over nothing proves nothing.
        anyhow::bail!("{set} has no PersistentVolumeClaims; nothing to check");
    }
    let result = never(&t, &clauses::default_storage_class(), 0, |_, e| {
        if e.kind != Kind::PersistentVolumeClaim
            || e.change == Change::Deleted
            || !rules::is_claim_of(set, &e.name)
        {
            return None;
        }
        let class = e
            .object
            .lookup("/spec/storageClassName")
            .and_then(Value::as_str);
        (class != Some(default.as_str())).then(|| {
            Breach::new(
                format!(
                    "claim {} names the storage class {} (the cluster's default is {default})",
                    e.name,
                    class
                        .map(|c| format!("{c:?}"))
                        .unwrap_or_else(|| "none".into())
                ),
                vec![],
            )
        })
    });
    keep(sc, result)
}

/// Waits until the claim exists again as another object than the one the
/// scenario started with: a uid never seen before the first change, bound.
pub async fn recreated(
    sc: &mut Scenario,
    claim: &str,
    timeout: std::time::Duration,
) -> anyhow::Result<()> {
    let from = sc.baseline.as_ref().map(|m| m.seq).unwrap_or(0);
    let claim = claim.to_string();
    super::waits::wait(sc, timeout, clauses::missing_claim(), move |t| {
        let uid = |e: &crate::history::Entry| {
            e.object
                .lookup("/metadata/uid")
                .and_then(Value::as_str)
                .map(str::to_string)
        };
        let versions: Vec<_> = t.of_object(Kind::PersistentVolumeClaim, &claim).collect();
        let before: Vec<String> = versions
            .iter()
            .filter(|e| e.seq < from)
            .filter_map(|e| uid(e))
            .collect();
        match versions.last() {
            Some(e) if e.change != Change::Deleted => {
                let bound =
                    e.object.lookup("/status/phase").and_then(Value::as_str) == Some("Bound");
                let new = uid(e).is_some_and(|u| !before.contains(&u));
                match (new, bound) {
                    (true, true) => None,
                    (false, _) => Some(format!(
                        "claim {claim} is still the one from before the change"
                    )),
                    (true, false) => {
                        Some(format!("claim {claim} was created again but is not bound"))
                    }
                }
            }
            _ => Some(format!("claim {claim} does not exist")),
        }
    })
    .await
}
