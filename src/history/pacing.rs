//! Checkers of how a controller paces its work, each in the direction that
//! must happen and the one that must not: OrderedReady waits for each pod to
//! be gone before the next deletion, Parallel does not; KEP-961's
//! OrderedReady never terminates pods out of order, its Parallel refills the
//! budget as soon as a replacement is available.

// `Violation` is the documented error of every checker.
#![allow(clippy::result_large_err)]

use super::checks::{Breach, Clause, Violation};
use super::timeline::{Change, Entry, Kind, Timeline};
use super::views::{ordinal_of, state_before, SetScope, State};

/// Whether `e` marks the first request to delete a pod: it carries a
/// deletionTimestamp, or the pod is removed without one observed.
pub(super) fn deletion_request(e: &Entry, state: &State<'_>) -> bool {
    e.kind == Kind::Pod
        && match e.change {
            Change::Deleted => state
                .pods
                .get(e.name.as_str())
                .is_some_and(|p| !p.terminating),
            _ => {
                e.pod_facts().terminating
                    && !state
                        .pods
                        .get(e.name.as_str())
                        .is_some_and(|p| p.terminating)
            }
        }
}

/// StatefulSet concepts, OrderedReady: "Before a Pod is terminated, all of
/// its successors must be completely shutdown" — each pod of `names` (in
/// order) is gone before the deletion of the next one is requested.
pub(crate) fn deleted_one_after_another(
    t: &Timeline,
    clause: &Clause,
    from_seq: u64,
    names: &[&str],
) -> Result<(), Violation> {
    let mut state = state_before(t, from_seq);
    let skip = usize::try_from(from_seq).unwrap_or(usize::MAX);
    for e in t.entries().iter().skip(skip) {
        if deletion_request(e, &state) {
            if let Some(i) = names.iter().position(|n| *n == e.name) {
                let still_there: Vec<&str> = names[..i]
                    .iter()
                    .copied()
                    .filter(|n| state.pods.contains_key(n))
                    .collect();
                if !still_there.is_empty() {
                    return Err(Violation::at_entry(
                        t,
                        clause,
                        e.seq,
                        Breach::new(
                            format!(
                                "{} was deleted while {} still existed",
                                e.name,
                                still_there.join(", ")
                            ),
                            std::iter::once(e.name.clone())
                                .chain(still_there.iter().map(|s| s.to_string()))
                                .collect(),
                        ),
                    ));
                }
            }
        }
        state.apply(e);
    }
    Ok(())
}

/// StatefulSet concepts, Parallel: pods are terminated "in parallel" — at
/// some moment two pods of the set were being deleted at once.
pub(crate) fn deleted_concurrently(
    t: &Timeline,
    clause: &Clause,
    from_seq: u64,
    set: &str,
) -> Result<(), Violation> {
    let mut state = state_before(t, from_seq);
    let skip = usize::try_from(from_seq).unwrap_or(usize::MAX);
    let mut most = 0;
    for e in t.entries().iter().skip(skip) {
        state.apply(e);
        let n = state.pods_of(set).filter(|p| p.terminating).count();
        most = most.max(n);
        if n >= 2 {
            return Ok(());
        }
    }
    Err(Violation::at_entry(
        t,
        clause,
        t.next_seq().saturating_sub(1),
        Breach::new(
            format!("pods of {set} were deleted one at a time (at most {most} terminating at once): the controller waited"),
            vec![],
        ),
    ))
}

/// The unavailable replacements (pods created at or after `from_seq` at
/// `revision`) of the set in `state`.
fn unavailable_replacements(
    state: &State<'_>,
    scope: &SetScope,
    revision: &str,
    from_seq: u64,
) -> Vec<String> {
    state
        .pods_of(&scope.set)
        .filter(|p| p.created_seq >= from_seq && p.revision == Some(revision))
        .filter(|p| !p.available(state.at, scope.min_ready))
        .map(|p| p.name().to_string())
        .collect()
}

/// KEP-961, OrderedReady with maxUnavailable (Choice 1 or 3, never 2):
/// pods terminate in order. A pod of another revision is deleted only when
/// no replacement with a higher ordinal is unavailable while a pod between
/// them is available ("if pod with ordinal 3 is running and available but 4
/// is not, we still wait for 4 to be running and available before moving
/// on to 2").
pub(crate) fn terminated_in_order(
    t: &Timeline,
    clause: &Clause,
    from_seq: u64,
    scope: &SetScope,
    revision: &str,
) -> Result<(), Violation> {
    let mut state = state_before(t, from_seq);
    let skip = usize::try_from(from_seq).unwrap_or(usize::MAX);
    for e in t.entries().iter().skip(skip) {
        if deletion_request(e, &state) {
            if let Some(k) = ordinal_of(&scope.set, &e.name) {
                let now = state.scope_of(scope);
                // A higher ordinal of the range is not yet replaced when its
                // pod is missing, terminating, or a replacement not yet
                // available ("we still wait for 4 to be running and
                // available").
                let end = now.ordinal_start.saturating_add(now.replicas.max(0));
                let pending: Vec<(i32, String)> = ((k + 1)..end)
                    .filter_map(|j| match state.pod_at(&now.set, j) {
                        None => Some((j, format!("{}-{j} (missing)", now.set))),
                        Some(p) if p.terminating => {
                            Some((j, format!("{} (terminating)", p.name())))
                        }
                        Some(p)
                            if p.created_seq >= from_seq
                                && p.revision == Some(revision)
                                && !p.available(state.at, now.min_ready) =>
                        {
                            Some((j, p.name().to_string()))
                        }
                        Some(_) => None,
                    })
                    .collect();
                for (j, name) in &pending {
                    let skipped: Vec<String> = ((k + 1)..*j)
                        .filter_map(|o| state.pod_at(&now.set, o))
                        .filter(|p| p.available(state.at, now.min_ready))
                        .map(|p| p.name().to_string())
                        .collect();
                    if !skipped.is_empty() {
                        return Err(Violation::at_entry(
                            t,
                            clause,
                            e.seq,
                            Breach::new(
                                format!(
                                    "{} was deleted while the replacement {name} was not yet available and {} between them was: out of order",
                                    e.name,
                                    skipped.join(", ")
                                ),
                                std::iter::once(e.name.clone())
                                    .chain(std::iter::once(name.clone()))
                                    .chain(skipped)
                                    .collect(),
                            ),
                        ));
                    }
                }
            }
        }
        state.apply(e);
    }
    Ok(())
}

/// KEP-961, Choice 2 (Parallel keeps "always maxUnavailable number of Pods
/// terminating ... except the last batch"): at some moment a pod of another
/// revision was deleted while an earlier replacement was still unavailable —
/// the budget was refilled without waiting for a whole batch.
pub(crate) fn budget_refilled_continuously(
    t: &Timeline,
    clause: &Clause,
    from_seq: u64,
    scope: &SetScope,
    revision: &str,
) -> Result<(), Violation> {
    let mut state = state_before(t, from_seq);
    let skip = usize::try_from(from_seq).unwrap_or(usize::MAX);
    for e in t.entries().iter().skip(skip) {
        if deletion_request(e, &state)
            && ordinal_of(&scope.set, &e.name).is_some()
            && !unavailable_replacements(&state, &state.scope_of(scope), revision, from_seq)
                .is_empty()
        {
            return Ok(());
        }
        state.apply(e);
    }
    Err(Violation::at_entry(
        t,
        clause,
        t.next_seq().saturating_sub(1),
        Breach::new(
            format!(
                "no pod of {} was deleted while an earlier replacement was still unavailable: the controller worked in batches",
                scope.set
            ),
            vec![],
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::fixture::TimelineBuilder;

    fn clause() -> Clause {
        Clause::from("test")
    }

    #[test]
    fn one_after_another_needs_each_pod_gone_before_the_next_deletion() {
        let mut b = TimelineBuilder::new();
        b.ready_set("web", 3, "r1");
        let start = b.timeline().next_seq();
        // Right: web-2 gone, then web-1 deleted.
        b.at(1.0)
            .terminate("web-2")
            .at(2.0)
            .delete_pod("web-2")
            .at(2.1)
            .terminate("web-1");
        assert!(
            deleted_one_after_another(b.timeline(), &clause(), start, &["web-2", "web-1"]).is_ok()
        );
        // Wrong: web-1 deleted while web-2 was still terminating.
        let mut w = TimelineBuilder::new();
        w.ready_set("web", 3, "r1");
        let start = w.timeline().next_seq();
        w.at(1.0)
            .terminate("web-2")
            .at(1.1)
            .terminate("web-1")
            .at(2.0)
            .delete_pod("web-2");
        let v = deleted_one_after_another(w.timeline(), &clause(), start, &["web-2", "web-1"])
            .unwrap_err();
        assert!(
            v.message
                .contains("web-1 was deleted while web-2 still existed"),
            "{v}"
        );
        // ... which is exactly what Parallel must show.
        assert!(deleted_concurrently(w.timeline(), &clause(), start, "web").is_ok());
        assert!(deleted_concurrently(b.timeline(), &clause(), 0, "web").is_err());
    }

    #[test]
    fn batches_in_order_and_a_continuous_budget_are_told_apart() {
        let scope = SetScope::new("web", 5);
        // KEP-961 Choice 2: web-4 and web-3 replaced; web-3 is available
        // first and web-2 is deleted while web-4 is not: out of order.
        let mut c = TimelineBuilder::new();
        c.ready_set("web", 5, "old");
        let start = c.timeline().next_seq();
        c.at(1.0).terminate("web-4").terminate("web-3");
        c.at(2.0).delete_pod("web-4").delete_pod("web-3");
        c.at(2.1)
            .create_pod("web-4", "new")
            .create_pod("web-3", "new");
        c.at(3.0).ready("web-3");
        c.at(3.1).terminate("web-2");
        assert!(
            budget_refilled_continuously(c.timeline(), &clause(), start, &scope, "new").is_ok()
        );
        let v = terminated_in_order(c.timeline(), &clause(), start, &scope, "new").unwrap_err();
        assert!(
            v.message.contains(
                "web-2 was deleted while the replacement web-4 was not yet available and web-3"
            ),
            "{v}"
        );
        // Choice 1: web-2 deleted only once both replacements are available.
        let mut b = TimelineBuilder::new();
        b.ready_set("web", 5, "old");
        let start = b.timeline().next_seq();
        b.at(1.0).terminate("web-4").terminate("web-3");
        b.at(2.0).delete_pod("web-4").delete_pod("web-3");
        b.at(2.1)
            .create_pod("web-4", "new")
            .create_pod("web-3", "new");
        b.at(3.0).ready("web-3").at(3.5).ready("web-4");
        b.at(3.6).terminate("web-2");
        assert!(terminated_in_order(b.timeline(), &clause(), start, &scope, "new").is_ok());
        assert!(
            budget_refilled_continuously(b.timeline(), &clause(), start, &scope, "new").is_err()
        );
        // Choice 3: web-2 deleted once web-4 is available, web-3 not yet.
        let mut t3 = TimelineBuilder::new();
        t3.ready_set("web", 5, "old");
        let start = t3.timeline().next_seq();
        t3.at(1.0).terminate("web-4").terminate("web-3");
        t3.at(2.0).delete_pod("web-4").delete_pod("web-3");
        t3.at(2.1)
            .create_pod("web-4", "new")
            .create_pod("web-3", "new");
        t3.at(3.0).ready("web-4");
        t3.at(3.1).terminate("web-2");
        assert!(terminated_in_order(t3.timeline(), &clause(), start, &scope, "new").is_ok());
    }

    #[test]
    fn a_higher_ordinal_not_yet_recreated_counts_as_unavailable() {
        // web-3 is replaced and available, web-4 is gone and not yet
        // created again (OrderedReady creates web-3 first): deleting web-2
        // now skips ahead of web-4. The check once counted only replacements
        // that existed, and let this pass.
        let scope = SetScope::new("web", 5);
        let mut w = TimelineBuilder::new();
        w.ready_set("web", 5, "old");
        let start = w.timeline().next_seq();
        w.at(1.0).terminate("web-4").terminate("web-3");
        w.at(2.0).delete_pod("web-4").delete_pod("web-3");
        w.at(2.1).create_pod("web-3", "new").at(3.0).ready("web-3");
        w.at(3.1).terminate("web-2");
        let v = terminated_in_order(w.timeline(), &clause(), start, &scope, "new").unwrap_err();
        assert!(
            v.message.contains(
                "web-2 was deleted while the replacement web-4 (missing) was not yet available and web-3"
            ),
            "{v}"
        );
        // Waiting for web-4 is in order.
        let mut r = TimelineBuilder::new();
        r.ready_set("web", 5, "old");
        let start = r.timeline().next_seq();
        r.at(1.0).terminate("web-4").terminate("web-3");
        r.at(2.0).delete_pod("web-4").delete_pod("web-3");
        r.at(2.1).create_pod("web-3", "new").at(3.0).ready("web-3");
        r.at(3.1).create_pod("web-4", "new").at(4.0).ready("web-4");
        r.at(4.1).terminate("web-2");
        assert!(terminated_in_order(r.timeline(), &clause(), start, &scope, "new").is_ok());
    }
}
