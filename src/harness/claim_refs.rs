//! ownerReferences a scenario writes on a claim by hand, and whether the
//! controller keeps them, as upstream's e2e test "should not delete PVCs
//! when there is another controller" writes and reads them: an owner that
//! is neither the claim's pod nor its set (a ConfigMap, not a controller), a
//! controller reference to a StatefulSet that does not exist (a stale uid),
//! and the claim's own set or pod named as an owner that is not its
//! controller.
//!
//! The write replaces the claim's whole list, as the upstream test's
//! `SetOwnerReferences` does; what was written is remembered with the
//! resourceVersion of the write, so a check can judge every version of the
//! claim the recorder saw from then on.

#![allow(clippy::result_large_err)]

use k8s_openapi::api::core::v1::PersistentVolumeClaim;
use kube::api::{Api, Patch, PatchParams};
use kube::ResourceExt;
use serde_json::{json, Value};

use super::checks::keep;
use super::clauses;
use super::scenario::{RequestError, Scenario};
use crate::history::checks::{Breach, Violation};
use crate::history::{Kind, Timeline};

/// The uid upstream's test gives its stale StatefulSet reference.
pub const STALE_UID: &str = "9d86d6ae-4e06-4ff1-bc55-f77f52e272e9";

/// What a scenario makes of a claim's ownerReferences.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Given {
    /// A ConfigMap as an owner that is not the controller (no `controller`
    /// or `blockOwnerDeletion` field, as upstream's test writes it).
    External(String),
    /// A StatefulSet of this name that does not exist, with upstream's
    /// stale uid, as controller with blockOwnerDeletion; written with the
    /// finalizer named (the garbage collector deletes a claim whose only
    /// owner is gone at once, so both go in one write, as upstream's test
    /// does).
    StaleSet(String, String),
    /// The claim's own set, by its live uid, with `controller: false` and
    /// blockOwnerDeletion.
    NotController(String),
    /// The claim's pod of this name, by its live uid, with
    /// `controller: false` and blockOwnerDeletion.
    PodNotController(String),
    /// A ConfigMap (first) as the controller, with blockOwnerDeletion, and
    /// the claim's own set (second) as an owner that is not its controller.
    ControlledBesideSet(String, String),
}

fn key(claim: &str) -> String {
    format!("ownerReferences given to PersistentVolumeClaim {claim}")
}

fn rv_key(claim: &str) -> String {
    format!("resourceVersion of the ownerReferences given to PersistentVolumeClaim {claim}")
}

async fn references(sc: &Scenario, given: &Given, what: &str) -> Result<Vec<Value>, RequestError> {
    Ok(match given {
        Given::External(cm) => vec![sc.config_map_reference(cm, what).await?],
        Given::StaleSet(name, _) => vec![json!({
            "apiVersion": "apps/v1", "kind": "StatefulSet", "name": name, "uid": STALE_UID,
            "controller": true, "blockOwnerDeletion": true,
        })],
        Given::NotController(set) => vec![own_set_reference(sc, set, what).await?],
        Given::PodNotController(pod) => {
            let uid = sc
                .pods_api()
                .get(pod)
                .await
                .map_err(|e| RequestError::from_kube(what.to_string(), e))?
                .uid()
                .unwrap_or_default();
            vec![json!({
                "apiVersion": "v1", "kind": "Pod", "name": pod, "uid": uid,
                "controller": false, "blockOwnerDeletion": true,
            })]
        }
        Given::ControlledBesideSet(cm, set) => {
            let mut controller = sc.config_map_reference(cm, what).await?;
            controller["controller"] = json!(true);
            controller["blockOwnerDeletion"] = json!(true);
            vec![controller, own_set_reference(sc, set, what).await?]
        }
    })
}

/// The claim's own set, by its live uid, as an owner that is not its
/// controller: the target's own resource (apps/v1, or a vendor's kind).
async fn own_set_reference(sc: &Scenario, set: &str, what: &str) -> Result<Value, RequestError> {
    let uid = sc
        .sets_api()
        .get(set)
        .await
        .map_err(|e| RequestError::from_kube(what.to_string(), e))?
        .uid()
        .unwrap_or_default();
    Ok(json!({
        "apiVersion": sc.resource.api_version, "kind": sc.resource.kind,
        "name": set, "uid": uid, "controller": false, "blockOwnerDeletion": true,
    }))
}

/// Replaces the claim's ownerReferences with the ones `given` names (and
/// remembers them).
pub async fn give(sc: &mut Scenario, claim: &str, given: &Given) -> Result<(), RequestError> {
    let what = format!("set the ownerReferences of PersistentVolumeClaim {claim}");
    let refs = references(sc, given, &what).await?;
    sc.note_change().await;
    let mut patch = json!({ "metadata": { "ownerReferences": refs } });
    if let Given::StaleSet(_, finalizer) = given {
        patch["metadata"]["finalizers"] = json!([finalizer]);
    }
    let written = Api::<PersistentVolumeClaim>::namespaced(sc.client.clone(), &sc.namespace)
        .patch(claim, &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .map_err(|e| RequestError::from_kube(what, e))?;
    sc.wrote(Kind::PersistentVolumeClaim, &written.metadata);
    sc.remembered
        .insert(key(claim), Value::Array(refs).to_string());
    sc.remembered.insert(
        rv_key(claim),
        written.metadata.resource_version.unwrap_or_default(),
    );
    Ok(())
}

/// The references the scenario gave `claim`, and the resourceVersion of
/// that write.
pub fn given(sc: &Scenario, claim: &str) -> anyhow::Result<(Vec<Value>, u64)> {
    let missing = || {
        anyhow::anyhow!(
            "no step of this scenario gave the PersistentVolumeClaim {claim} ownerReferences"
        )
    };
    let refs: Vec<Value> = sc
        .remembered
        .get(&key(claim))
        .and_then(|s| serde_json::from_str(s).ok())
        .ok_or_else(missing)?;
    let rv = sc
        .remembered
        .get(&rv_key(claim))
        .and_then(|s| s.parse().ok())
        .ok_or_else(missing)?;
    Ok((refs, rv))
}

fn describe(refs: &[Value]) -> String {
    if refs.is_empty() {
        return "none".to_string();
    }
    let text = |r: &Value, f: &str| r.get(f).and_then(Value::as_str).unwrap_or("").to_string();
    refs.iter()
        .map(|r| {
            let controller = match r.get("controller").and_then(Value::as_bool) {
                Some(true) => " (controller)",
                Some(false) => " (controller: false)",
                None => "",
            };
            format!("{} {}{controller}", text(r, "kind"), text(r, "name"))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Every version of `claim` recorded from the write at `since` on still
/// carries each of `given` unchanged (`exact`: carries nothing else). A claim
/// no version of which was recorded since is a failure, not a pass.
pub fn kept_since(
    t: &Timeline,
    claim: &str,
    given: &[Value],
    since: u64,
    exact: bool,
) -> Result<(), Violation> {
    let clause = clauses::foreign_claim_owners();
    let mut judged = 0;
    for e in t.entries() {
        if e.kind != Kind::PersistentVolumeClaim || e.name != claim {
            continue;
        }
        if e.rv_number().is_none_or(|rv| rv < since) {
            continue;
        }
        judged += 1;
        let refs = super::claims::owner_refs(&e.object);
        let lost: Vec<&Value> = given.iter().filter(|g| !refs.contains(g)).collect();
        let extra = exact && refs.len() != given.len();
        if !lost.is_empty() || extra {
            let message = format!(
                "{claim} was given the ownerReferences {} and then named {}",
                describe(given),
                describe(refs)
            );
            return Err(Violation::at_entry(
                t,
                &clause,
                e.seq,
                Breach::new(message, vec![claim.to_string()]),
            ));
        }
    }
    if judged == 0 {
        let last = t.next_seq().saturating_sub(1);
        return Err(Violation::at_entry(
            t,
            &clause,
            last,
            Breach::new(
                format!("no version of {claim} was recorded since its ownerReferences were given"),
                vec![claim.to_string()],
            ),
        ));
    }
    Ok(())
}

/// Checks [`kept_since`] on the scenario's timeline so far.
pub async fn check_kept(sc: &mut Scenario, claim: &str, exact: bool) -> anyhow::Result<()> {
    let (refs, since) = given(sc, claim)?;
    let t = sc.timeline().await?;
    let result = kept_since(&t, claim, &refs, since, exact);
    keep(sc, result)
}

/// Waits until `claim` names, of the ownerReferences the scenario gave it,
/// only the ConfigMap's, and nothing else: the set has removed its own
/// reference and added none.
pub async fn only_config_map_left(
    sc: &mut Scenario,
    claim: &str,
    timeout: std::time::Duration,
) -> anyhow::Result<()> {
    let (refs, _) = given(sc, claim)?;
    let config_map: Vec<Value> = refs
        .into_iter()
        .filter(|r| r.get("kind").and_then(Value::as_str) == Some("ConfigMap"))
        .collect();
    if config_map.is_empty() {
        anyhow::bail!("no step of this scenario gave the PersistentVolumeClaim {claim} a ConfigMap as an owner");
    }
    super::claims::claim_owned_by(sc, claim, Vec::new(), config_map, timeout).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::{Change, Entry};
    use std::time::Duration;

    fn claim(rv: u64, refs: Value) -> (Kind, Change, Value) {
        (
            Kind::PersistentVolumeClaim,
            Change::Modified,
            json!({"metadata": {"name": "data-web-1", "resourceVersion": rv.to_string(),
                "ownerReferences": refs}}),
        )
    }

    fn timeline(versions: Vec<(Kind, Change, Value)>) -> Timeline {
        let mut t = Timeline::new();
        for (i, (kind, change, object)) in versions.into_iter().enumerate() {
            t.push(Entry::new(
                Duration::from_millis(i as u64),
                kind,
                change,
                object,
            ));
        }
        t
    }

    fn external() -> Value {
        json!({"apiVersion": "v1", "kind": "ConfigMap", "name": "random-owner", "uid": "u1"})
    }

    fn set_ref() -> Value {
        json!({"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "web", "uid": "s1",
            "controller": true, "blockOwnerDeletion": true})
    }

    #[test]
    fn a_given_owner_kept_beside_the_set_passes_and_a_dropped_one_fails() {
        let given = vec![external()];
        let kept = timeline(vec![
            claim(5, json!([external()])),
            claim(7, json!([external(), set_ref()])),
        ]);
        assert!(kept_since(&kept, "data-web-1", &given, 5, false).is_ok());
        // Exact: the set's reference is one more than was given.
        assert!(kept_since(&kept, "data-web-1", &given, 5, true).is_err());
        // A controller that replaces the list with its own reference.
        let replaced = timeline(vec![
            claim(5, json!([external()])),
            claim(7, json!([set_ref()])),
        ]);
        let err = kept_since(&replaced, "data-web-1", &given, 5, false).unwrap_err();
        assert_eq!(err.seq, 1);
        // A controller that makes the given owner its controller changes it.
        let mut taken = external();
        taken["controller"] = json!(false);
        let rewritten = timeline(vec![claim(5, json!([taken]))]);
        assert!(kept_since(&rewritten, "data-web-1", &given, 5, false).is_err());
    }

    #[test]
    fn versions_before_the_write_are_not_judged_and_none_after_it_fails() {
        let given = vec![external()];
        let t = timeline(vec![claim(3, json!([])), claim(5, json!([external()]))]);
        assert!(kept_since(&t, "data-web-1", &given, 5, true).is_ok());
        assert!(kept_since(&t, "data-web-1", &given, 9, true).is_err());
    }
}
