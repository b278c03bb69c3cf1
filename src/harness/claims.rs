//! Who owns a PersistentVolumeClaim. The retention policy works only through
//! ownerReferences (upstream-statefulset-facts, "Identity"): whenDeleted
//! Delete makes the set an owner, whenScaled Delete makes the pod one once
//! its ordinal leaves the range, and the garbage collector deletes. A
//! controller that deletes claims itself reaches the same end state, so these
//! checks read the references, and their order against the pod's deletion
//! (StatefulSet concepts, "PersistentVolumeClaim retention").

#![allow(clippy::result_large_err)]

use kepspec_core::Lookup as _;
use std::time::Duration;

use serde_json::Value;

use super::checks::keep;
use super::clauses;
use super::scenario::Scenario;
use super::waits::wait;
use crate::history::checks::{Breach, Violation};
use crate::history::views::{state_before, State};
use crate::history::{Change, Kind, Timeline};

/// An owner a claim must name: a StatefulSet or a pod, by name (its uid is
/// the one the object has when the check runs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Owner {
    /// `StatefulSet` or `Pod`.
    pub kind: Kind,
    /// metadata.name
    pub name: String,
}

/// Parses `nothing`, `the StatefulSet "web"`, `pod "web-2"`, or several
/// joined by ` and `.
pub fn parse_owners(text: &str) -> anyhow::Result<Vec<Owner>> {
    if text.trim() == "nothing" {
        return Ok(Vec::new());
    }
    text.split(" and ")
        .map(|part| {
            let part = part.trim();
            let (kind, rest) = if let Some(rest) = part.strip_prefix("the StatefulSet ") {
                (Kind::StatefulSet, rest)
            } else if let Some(rest) = part.strip_prefix("pod ") {
                (Kind::Pod, rest)
            } else {
                anyhow::bail!(
                    "{part:?}: an owner is `the StatefulSet \"name\"` or `pod \"name\"` (or `nothing`)"
                )
            };
            let name = rest
                .strip_prefix('"')
                .and_then(|r| r.strip_suffix('"'))
                .filter(|n| !n.is_empty())
                .ok_or_else(|| anyhow::anyhow!("{part:?}: the name goes in double quotes"))?;
            Ok(Owner {
                kind,
                name: name.to_string(),
            })
        })
        .collect()
}

/// An object's ownerReferences, as recorded.
pub(super) fn owner_refs(object: &Value) -> &[Value] {
    object
        .lookup("/metadata/ownerReferences")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// What keeps `claim` from being owned by exactly `want` in `state`: each
/// wanted owner referenced with the uid it has now (a StatefulSet as the
/// controller, as upstream's e2e expects), and no other reference than
/// those in `besides` (references the scenario wrote, each exactly as
/// written and each still there).
pub fn owner_gap(state: &State, claim: &str, want: &[Owner], besides: &[Value]) -> Option<String> {
    let Some(entry) = state.claims.get(claim) else {
        return Some(format!("the PersistentVolumeClaim {claim} does not exist"));
    };
    let refs = owner_refs(&entry.object);
    let text = |r: &Value, f: &str| r.get(f).and_then(Value::as_str).unwrap_or("").to_string();
    let describe = || {
        let names: Vec<String> = refs
            .iter()
            .map(|r| format!("{} {}", text(r, "kind"), text(r, "name")))
            .collect();
        if names.is_empty() {
            "no owner".to_string()
        } else {
            names.join(", ")
        }
    };
    for owner in want {
        let uid = match owner.kind {
            Kind::Pod => state
                .pods
                .get(owner.name.as_str())
                .map(|p| p.uid().to_string()),
            _ => state.sets.get(owner.name.as_str()).map(|e| e.uid.clone()),
        };
        let Some(uid) = uid else {
            return Some(format!(
                "{} {} does not exist (the claim names {})",
                owner.kind.api_kind(),
                owner.name,
                describe()
            ));
        };
        let found = refs
            .iter()
            .find(|r| text(r, "kind") == owner.kind.api_kind() && text(r, "name") == owner.name);
        match found {
            None => {
                return Some(format!(
                    "{claim} names {}, not {} {}",
                    describe(),
                    owner.kind.api_kind(),
                    owner.name
                ))
            }
            Some(r) if text(r, "uid") != uid => {
                return Some(format!(
                    "{claim} names {} {} with uid {}, not its current uid {uid}",
                    owner.kind.api_kind(),
                    owner.name,
                    text(r, "uid")
                ))
            }
            Some(r) if r.get("controller").and_then(Value::as_bool) != Some(true) => {
                return Some(format!(
                    "{claim} names {} {} as an owner that is not its controller",
                    owner.kind.api_kind(),
                    owner.name
                ))
            }
            Some(_) => {}
        }
    }
    if let Some(lost) = besides.iter().find(|b| !refs.contains(b)) {
        return Some(format!(
            "{claim} names {}, no longer the {} {} it was given",
            describe(),
            text(lost, "kind"),
            text(lost, "name")
        ));
    }
    let extra: Vec<String> = refs
        .iter()
        .filter(|r| !besides.contains(r))
        .filter(|r| {
            !want
                .iter()
                .any(|o| text(r, "kind") == o.kind.api_kind() && text(r, "name") == o.name)
        })
        .map(|r| format!("{} {}", text(r, "kind"), text(r, "name")))
        .collect();
    (!extra.is_empty()).then(|| format!("{claim} also names {}", extra.join(", ")))
}

/// Waits until `claim` is owned by exactly `want` (and `besides`, see
/// [`owner_gap`]).
pub async fn claim_owned_by(
    sc: &mut Scenario,
    claim: &str,
    want: Vec<Owner>,
    besides: Vec<Value>,
    timeout: Duration,
) -> anyhow::Result<()> {
    let claim = claim.to_string();
    wait(sc, timeout, clauses::retention_owners(), move |t| {
        owner_gap(&state_before(t, t.next_seq()), &claim, &want, &besides)
    })
    .await
}

/// Whether `a` happened before `b`. Pods and claims are recorded from
/// separate watches, so the order of arrival across kinds is not the order
/// of the writes: the resourceVersions are compared (they rise with every
/// write of the embedded apiserver and of etcd), the order of arrival only
/// where one is not a number.
fn before(a: &crate::history::Entry, b: &crate::history::Entry) -> bool {
    match (
        a.resource_version.parse::<u64>(),
        b.resource_version.parse::<u64>(),
    ) {
        (Ok(x), Ok(y)) => x < y,
        _ => a.seq < b.seq,
    }
}

/// The first entry in which `pod` was being deleted (a deletionTimestamp or
/// gone), if it was.
fn pod_deletion<'t>(t: &'t Timeline, pod: &str) -> Option<&'t crate::history::Entry> {
    t.entries().iter().find(|e| {
        e.kind == Kind::Pod
            && e.name == pod
            && (e.change == Change::Deleted || e.pod_facts().terminating)
    })
}

/// The ownerReferences of an object's version that name pod `pod`.
fn pod_refs<'e, 'p>(
    e: &'e crate::history::Entry,
    pod: &'p str,
) -> impl Iterator<Item = &'e Value> + use<'e, 'p> {
    e.object
        .lookup("/metadata/ownerReferences")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(move |r| {
            r.get("kind").and_then(Value::as_str) == Some("Pod")
                && r.get("name").and_then(Value::as_str) == Some(pod)
        })
}

/// `claim` named `pod` as an owner before the deletion of `pod` was
/// requested (StatefulSet concepts: "no Pod will be deleted before its owner
/// reference has been updated"), and `pod` was deleted.
pub fn owned_before_deleted(t: &Timeline, claim: &str, pod: &str) -> Result<(), Violation> {
    let clause = clauses::retention_crash_safety();
    let Some(deleted) = pod_deletion(t, pod) else {
        let last = t.next_seq().saturating_sub(1);
        return Err(Violation::at_entry(
            t,
            &clause,
            last,
            Breach::new(format!("{pod} was never deleted"), vec![pod.to_string()]),
        ));
    };
    let named = t.entries().iter().any(|e| {
        before(e, deleted)
            && e.kind == Kind::PersistentVolumeClaim
            && e.name == claim
            && pod_refs(e, pod).next().is_some()
    });
    if named {
        return Ok(());
    }
    Err(Violation::at_entry(
        t,
        &clause,
        deleted.seq,
        Breach::new(
            format!("{pod} was deleted before {claim} named it as an owner"),
            vec![pod.to_string()],
        ),
    ))
}

/// `claim` was not deleted (no deletionTimestamp, not gone) before `pod`
/// was gone (StatefulSet concepts: "after their Pods have been deleted").
pub fn claim_outlived_pod(t: &Timeline, claim: &str, pod: &str) -> Result<(), Violation> {
    let clause = clauses::retention_after_pods();
    let pod_gone = t
        .entries()
        .iter()
        .find(|e| e.kind == Kind::Pod && e.name == pod && e.change == Change::Deleted);
    let claim_deleted = t.entries().iter().find(|e| {
        e.kind == Kind::PersistentVolumeClaim
            && e.name == claim
            && (e.change == Change::Deleted
                || e.object.lookup("/metadata/deletionTimestamp").is_some())
    });
    match (claim_deleted, pod_gone) {
        (Some(c), Some(p)) if before(c, p) => Err(Violation::at_entry(
            t,
            &clause,
            c.seq,
            Breach::new(
                format!("{claim} was being deleted while {pod} still existed"),
                vec![pod.to_string()],
            ),
        )),
        (Some(c), None) => Err(Violation::at_entry(
            t,
            &clause,
            c.seq,
            Breach::new(
                format!("{claim} was deleted and {pod} never went"),
                vec![pod.to_string()],
            ),
        )),
        _ => Ok(()),
    }
}

/// Waits (bounded) until the recorder has seen the object gone: a pod's
/// deletion and its claim's arrive on separate watches, in either order.
async fn until_gone_recorded(sc: &Scenario, kind: Kind, name: &str) {
    let _ = sc
        .recorder
        .wait_for(Scenario::default_wait(), |t| {
            t.entries()
                .iter()
                .any(|e| e.kind == kind && e.name == name && e.change == Change::Deleted)
                .then_some(())
        })
        .await;
}

/// No pod `pod` was created while its claim `claim` was being deleted (a
/// deletionTimestamp set, not yet gone): the draft's mitigation of the PVC
/// deletion race, "StatefulSet controller waits for PVC cleanup before
/// creating new pods" (upstream refuses with "pvc `<name>` is being deleted").
/// Entries are ordered by resourceVersion, as the two kinds arrive on
/// separate watches.
pub fn no_pod_while_claim_deleting(t: &Timeline, claim: &str, pod: &str) -> Result<(), Violation> {
    let clause = clauses::claim_cleanup_first();
    let deleting: Vec<(&crate::history::Entry, Option<&crate::history::Entry>)> = t
        .entries()
        .iter()
        .filter(|e| {
            e.kind == Kind::PersistentVolumeClaim
                && e.name == claim
                && e.change != Change::Deleted
                && e.object.lookup("/metadata/deletionTimestamp").is_some()
        })
        .map(|from| {
            let gone = t.entries().iter().find(|e| {
                e.kind == Kind::PersistentVolumeClaim
                    && e.name == claim
                    && e.uid == from.uid
                    && e.change == Change::Deleted
            });
            (from, gone)
        })
        .collect();
    let created = t
        .entries()
        .iter()
        .filter(|e| e.kind == Kind::Pod && e.name == pod && e.change == Change::Added);
    for c in created {
        let during = deleting
            .iter()
            .any(|(from, gone)| before(from, c) && gone.is_none_or(|g| before(c, g)));
        if during {
            return Err(Violation::at_entry(
                t,
                &clause,
                c.seq,
                Breach::new(
                    format!("{pod} was created while {claim} was being deleted"),
                    vec![pod.to_string()],
                ),
            ));
        }
    }
    Ok(())
}

/// The uids of the pods named `pod` a claim version names as owners.
fn pod_owner_uids<'e>(e: &'e crate::history::Entry, pod: &str) -> Vec<&'e str> {
    pod_refs(e, pod)
        .filter_map(|r| r.get("uid").and_then(Value::as_str))
        .collect()
}

/// The version of `claim` current just before entry `at` (None if it did
/// not exist then).
fn claim_before<'t>(
    t: &'t Timeline,
    claim: &str,
    at: &crate::history::Entry,
) -> Option<&'t crate::history::Entry> {
    t.entries()
        .iter()
        .filter(|e| e.kind == Kind::PersistentVolumeClaim && e.name == claim && before(e, at))
        .max_by(|a, b| {
            if before(a, b) {
                std::cmp::Ordering::Less
            } else {
                std::cmp::Ordering::Greater
            }
        })
        .filter(|e| e.change != Change::Deleted)
}

/// No pod `pod` of `set` was created while its claim `claim` still named an
/// earlier pod of that name as an owner (upstream's `PodClaimIsStale`: under
/// whenScaled Delete such a claim is the garbage collector's to delete, and
/// the pod waits for it). The check must have had something to judge: the
/// set was scaled back over the pod's ordinal while the claim named the
/// earlier pod after it was gone.
pub fn no_pod_on_stale_claim(
    t: &Timeline,
    set: &str,
    claim: &str,
    pod: &str,
) -> Result<(), Violation> {
    let clause = clauses::stale_claim_blocks_creation();
    let last = t.next_seq().saturating_sub(1);
    for c in t
        .entries()
        .iter()
        .filter(|e| e.kind == Kind::Pod && e.name == pod && e.change == Change::Added)
    {
        let Some(version) = claim_before(t, claim, c) else {
            continue;
        };
        if let Some(earlier) = pod_owner_uids(version, pod)
            .into_iter()
            .find(|u| *u != c.uid)
        {
            return Err(Violation::at_entry(
                t,
                &clause,
                c.seq,
                Breach::new(
                    format!(
                        "{pod} (uid {}) was created while {claim} still named an earlier pod {pod} (uid {earlier}) as its owner",
                        c.uid
                    ),
                    vec![pod.to_string()],
                ),
            ));
        }
    }
    let ordinal = crate::history::views::ordinal_of(set, pod).map(i64::from);
    let judged = t
        .entries()
        .iter()
        .filter(|d| d.kind == Kind::Pod && d.name == pod && d.change == Change::Deleted)
        .any(|d| {
            t.entries()
                .iter()
                .filter(|u| {
                    u.kind == Kind::StatefulSet
                        && u.name == set
                        && before(d, u)
                        && u.object
                            .lookup("/spec/replicas")
                            .and_then(Value::as_i64)
                            .zip(ordinal)
                            .is_some_and(|(r, o)| r > o)
                })
                .any(|u| {
                    claim_before(t, claim, u)
                        .is_some_and(|v| pod_owner_uids(v, pod).contains(&d.uid.as_str()))
                })
        });
    if judged {
        return Ok(());
    }
    Err(Violation::at_entry(
        t,
        &clause,
        last,
        Breach::new(
            format!(
                "{set} never asked for {pod} again while {claim} still named the earlier {pod} after it was gone, so nothing was checked"
            ),
            vec![pod.to_string()],
        ),
    ))
}

/// A claim/pod ordering rule of this module.
pub type Rule = fn(&Timeline, &str, &str) -> Result<(), Violation>;

/// Judges `rule` for `claim` and `pod` on the scenario's history once the
/// recorder has seen `gone` deleted (or waited for it in vain): the pod's
/// and the claim's entries arrive on separate watches.
pub async fn check(
    sc: &mut Scenario,
    rule: Rule,
    gone: (Kind, &str),
    claim: &str,
    pod: &str,
) -> anyhow::Result<()> {
    until_gone_recorded(sc, gone.0, gone.1).await;
    let t = sc.timeline().await?;
    let result = rule(&t, claim, pod);
    keep(sc, result)
}

/// Judges [`no_pod_on_stale_claim`] on the scenario's history.
pub async fn check_stale_claim(
    sc: &mut Scenario,
    set: &str,
    claim: &str,
    pod: &str,
) -> anyhow::Result<()> {
    let t = sc.timeline().await?;
    let result = no_pod_on_stale_claim(&t, set, claim, pod);
    keep(sc, result)
}

#[cfg(test)]
mod tests;
