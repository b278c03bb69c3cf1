//! Named checkers for StatefulSet semantics, thin predicates over the
//! primitives in [`super::checks`]. Every one takes the [`Clause`] it
//! verifies and `from_seq`, the first entry it looks at (entries before it
//! only build up the state).

// `Violation` is the documented error of every checker; checks run a few
// times per scenario, so its size does not matter.
#![allow(clippy::result_large_err)]

use super::checks::{always, in_order, no_entry, Breach, Clause, Violation};
use super::timeline::{Change, Entry, Kind, Timeline};
use super::views::{ordinal_of, split_ordinal, state_before, SetScope};
use std::collections::HashMap;

pub use super::signals::{
    condition_at_end, condition_seen, condition_seen_before_creation, event_occurrences,
    event_recorded, ConditionSpec, EventSpec,
};

/// What counts as a pod's deletion for ordering checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum DeletionMark {
    /// The first entry with a deletionTimestamp, or the Deleted entry if the
    /// pod was removed without one being observed.
    #[default]
    Requested,
    /// The Deleted entry (the pod is gone from the API).
    Gone,
}

/// Pods `names` are deleted in the given order (each pod's first deletion at
/// or after `from_seq`), and all of them are deleted.
pub fn deleted_in_order(
    t: &Timeline,
    clause: &Clause,
    from_seq: u64,
    names: &[&str],
    mark: DeletionMark,
) -> Result<(), Violation> {
    in_order(t, clause, from_seq, names, "deleted", |e| {
        e.kind == Kind::Pod
            && (e.change == Change::Deleted
                || (mark == DeletionMark::Requested && e.pod_facts().terminating))
    })
}

/// Pods `names` are created in the given order (each one's first `Added` at
/// or after `from_seq`), and all of them are created.
pub fn created_in_order(
    t: &Timeline,
    clause: &Clause,
    from_seq: u64,
    names: &[&str],
) -> Result<(), Violation> {
    in_order(t, clause, from_seq, names, "created", |e| {
        e.kind == Kind::Pod && e.change == Change::Added
    })
}

/// What a pod's predecessors must have been when it was created.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PredecessorWait {
    /// Running and Ready (KEP-3541's Phase 3, the concepts page's
    /// ordering guarantee).
    RunningAndReady,
    /// Running and Ready for the set's minReadySeconds (available).
    Available,
}

/// OrderedReady: a pod of the set is created only while every pod with a
/// lower ordinal in the scope's range exists, is Running and Ready and not
/// terminating, and, when `wait` is Available, has been Ready for the
/// set's minReadySeconds.
pub fn created_after_predecessors_ready(
    t: &Timeline,
    clause: &Clause,
    from_seq: u64,
    scope: &SetScope,
    wait: PredecessorWait,
) -> Result<(), Violation> {
    let mut state = state_before(t, from_seq);
    let skip = usize::try_from(from_seq).unwrap_or(usize::MAX);
    for e in t.entries().iter().skip(skip) {
        if let (Kind::Pod, Change::Added) = (e.kind, e.change) {
            if let Some(o) = ordinal_of(&scope.set, &e.name) {
                let mut scope = state.scope_of(scope);
                if wait == PredecessorWait::RunningAndReady {
                    scope.min_ready = std::time::Duration::ZERO;
                }
                let not_ready: Vec<String> = (scope.ordinal_start..o)
                    .filter(|p| scope.in_range(*p))
                    .filter(|p| {
                        !state
                            .pod_at(&scope.set, *p)
                            .is_some_and(|pod| pod.available(e.at, scope.min_ready))
                    })
                    .map(|p| match state.pod_at(&scope.set, p) {
                        Some(pod) if pod.terminating => format!("{}-{p} (terminating)", scope.set),
                        Some(_) => format!("{}-{p}", scope.set),
                        None => format!("{}-{p} (missing)", scope.set),
                    })
                    .collect();
                if !not_ready.is_empty() {
                    let msg = format!(
                        "{} was created while {} {} not Running and Ready{}",
                        e.name,
                        not_ready.join(", "),
                        if not_ready.len() == 1 { "was" } else { "were" },
                        if scope.min_ready.is_zero() {
                            String::new()
                        } else {
                            format!(" for minReadySeconds ({}s)", scope.min_ready.as_secs())
                        }
                    );
                    let mut pods = vec![e.name.clone()];
                    pods.extend(not_ready);
                    return Err(Violation::at_entry(
                        t,
                        clause,
                        e.seq,
                        Breach::new(msg, pods),
                    ));
                }
            }
        }
        state.apply(e);
    }
    Ok(())
}

/// At no instant are more than `max` pods of the scope unavailable
/// (`replicas - available` over the ordinal range; see [`SetScope`]).
pub fn at_most_unavailable(
    t: &Timeline,
    clause: &Clause,
    from_seq: u64,
    scope: &SetScope,
    max: usize,
) -> Result<(), Violation> {
    // Unavailability changes only with pod entries; between them it can
    // only fall (pods reaching minReadySeconds), so other entries are
    // skipped unless the last count was over the budget.
    let mut last: Option<usize> = None;
    always(t, clause, from_seq, |s, e| {
        if e.kind != Kind::Pod && last.is_some_and(|n| n <= max) {
            return Ok(());
        }
        // The spec in force at that moment decides what "the set" is.
        let scope = s.scope_of(scope);
        let n = s.unavailable_in(&scope);
        last = Some(n);
        if n <= max {
            return Ok(());
        }
        let pods = s.unavailable_names(&scope);
        Err(Breach::new(
            format!(
                "{n} of {} pods unavailable (at most {max} allowed): {}",
                scope.replicas,
                pods.join(", ")
            ),
            pods,
        ))
    })
}

/// No pod of the set is created while a pod of the set with another revision
/// exists (terminating pods included). With `revision` given, only creations
/// of pods of that revision are checked.
pub fn no_mixed_revisions(
    t: &Timeline,
    clause: &Clause,
    from_seq: u64,
    set: &str,
    revision: Option<&str>,
) -> Result<(), Violation> {
    let mut state = state_before(t, from_seq);
    let skip = usize::try_from(from_seq).unwrap_or(usize::MAX);
    for e in t.entries().iter().skip(skip) {
        if e.kind == Kind::Pod && e.change == Change::Added && ordinal_of(set, &e.name).is_some() {
            let rev = e.pod_facts().revision;
            if revision.is_none_or(|r| rev == Some(r)) {
                let others: Vec<String> = state
                    .pods_of(set)
                    .filter(|p| p.revision != rev && p.uid() != e.uid)
                    .map(|p| {
                        let how = if p.terminating { ", terminating" } else { "" };
                        format!(
                            "{} (revision {}{how})",
                            p.name(),
                            p.revision.unwrap_or("none")
                        )
                    })
                    .collect();
                if !others.is_empty() {
                    let msg = format!(
                        "{} of revision {} was created while {} existed",
                        e.name,
                        rev.unwrap_or("none"),
                        others.join(", ")
                    );
                    let mut pods = vec![e.name.clone()];
                    pods.extend(
                        state
                            .pods_of(set)
                            .filter(|p| p.revision != rev)
                            .map(|p| p.name().to_string()),
                    );
                    return Err(Violation::at_entry(
                        t,
                        clause,
                        e.seq,
                        Breach::new(msg, pods),
                    ));
                }
            }
        }
        state.apply(e);
    }
    Ok(())
}

/// Every pod of `set` created at or after `from_seq` has `revision`: a
/// controller that created pods of a revision the set moved past (an
/// intermediate template, seen late) breaks it, even when it deleted them
/// again before creating the final ones.
pub fn created_only_at(
    t: &Timeline,
    clause: &Clause,
    from_seq: u64,
    set: &str,
    revision: &str,
) -> Result<(), Violation> {
    let skip = usize::try_from(from_seq).unwrap_or(usize::MAX);
    for e in t.entries().iter().skip(skip) {
        if e.kind == Kind::Pod && e.change == Change::Added && ordinal_of(set, &e.name).is_some() {
            let rev = e.pod_facts().revision;
            if rev != Some(revision) {
                return Err(Violation::at_entry(
                    t,
                    clause,
                    e.seq,
                    Breach::new(
                        format!(
                            "{} was created at revision {}, not at the update revision {revision} the set ended at",
                            e.name,
                            rev.unwrap_or("none")
                        ),
                        vec![e.name.clone()],
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The set's `status.observedGeneration` never goes down: a controller
/// never reports a spec older than one it already reported acting on.
pub fn observed_generation_monotonic(
    t: &Timeline,
    clause: &Clause,
    set: &str,
) -> Result<(), Violation> {
    let mut highest: Option<(i64, &str)> = None;
    for e in t.entries() {
        if e.kind != Kind::StatefulSet || e.name != set || e.change == Change::Deleted {
            continue;
        }
        let Some(observed) = e.object["status"]["observedGeneration"].as_i64() else {
            continue;
        };
        if let Some((top, rv)) = highest.filter(|(top, _)| observed < *top) {
            let msg = format!(
                "{set} reports observedGeneration {observed} at resourceVersion {}, after reporting {top} at resourceVersion {rv}",
                e.resource_version
            );
            return Err(Violation::at_entry(
                t,
                clause,
                e.seq,
                Breach::new(msg, Vec::new()),
            ));
        }
        highest = Some((observed, e.resource_version.as_str()));
    }
    Ok(())
}

/// True when `claim` is named `<template>-<set>-<ordinal>`.
pub fn is_claim_of(set: &str, claim: &str) -> bool {
    split_ordinal(claim).is_some_and(|(parent, _)| {
        parent
            .strip_suffix(set)
            .is_some_and(|rest| rest.ends_with('-') && rest.len() > 1)
    })
}

/// Every claim that exists before `from_seq` (of `set`'s templates when
/// given) is never deleted afterwards and keeps its uid.
pub fn claims_kept_uid(
    t: &Timeline,
    clause: &Clause,
    from_seq: u64,
    set: Option<&str>,
) -> Result<(), Violation> {
    let start = state_before(t, from_seq);
    let kept: HashMap<&str, &str> = start
        .claims
        .iter()
        .filter(|(n, _)| set.is_none_or(|s| is_claim_of(s, n)))
        .map(|(n, e)| (*n, e.uid.as_str()))
        .collect();
    no_entry(t, clause, from_seq, |e| {
        if e.kind != Kind::PersistentVolumeClaim {
            return None;
        }
        let uid = kept.get(e.name.as_str())?;
        if e.change == Change::Deleted {
            return Some(Breach::new(
                format!("claim {} (uid {uid}) was deleted", e.name),
                vec![],
            ));
        }
        (e.uid != *uid).then(|| {
            Breach::new(
                format!("claim {} changed uid from {uid} to {}", e.name, e.uid),
                vec![],
            )
        })
    })
}

/// Pods of the set with ordinal < `partition` that exist before `from_seq`
/// are never deleted, never terminating, and keep their uid.
pub fn partition_untouched(
    t: &Timeline,
    clause: &Clause,
    from_seq: u64,
    set: &str,
    partition: i32,
) -> Result<(), Violation> {
    let start = state_before(t, from_seq);
    let kept: HashMap<&str, &str> = start
        .pods_of(set)
        .filter(|p| p.ordinal.is_some_and(|o| o < partition))
        .map(|p| (p.entry.name.as_str(), p.entry.uid.as_str()))
        .collect();
    no_entry(t, clause, from_seq, |e| {
        if e.kind != Kind::Pod {
            return None;
        }
        let uid = kept.get(e.name.as_str())?;
        let pods = vec![e.name.clone()];
        let why = if e.change == Change::Deleted {
            format!("was deleted (uid {uid})")
        } else if e.uid != *uid {
            format!("was replaced (uid {uid} -> {})", e.uid)
        } else if e.pod_facts().terminating {
            "got a deletionTimestamp".to_string()
        } else {
            return None;
        };
        Some(Breach::new(
            format!("{} below partition {partition} {why}", e.name),
            pods,
        ))
    })
}

/// Convenience for predicates: `Some(breach)` when `cond` is false.
pub fn require(cond: bool, breach: impl FnOnce() -> Breach) -> Option<Breach> {
    (!cond).then(breach)
}

/// The entries of kind `kind` at or after `from_seq` (for custom checks).
pub fn entries_from(t: &Timeline, kind: Kind, from_seq: u64) -> impl Iterator<Item = &Entry> {
    let skip = usize::try_from(from_seq).unwrap_or(usize::MAX);
    t.entries()
        .iter()
        .skip(skip)
        .filter(move |e| e.kind == kind)
}
