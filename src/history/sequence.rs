//! The KEP-3541 draft's ordering promises, over a whole history
//! (kep-3541-draft-enforced-rolling-update.md, "Proposed EnforcedRollingUpdate
//! Algorithm" and "What are the reasonable SLOs").
//!
//! A *replacement* is a deletion of a pod of the set's ordinal range whose
//! ordinal is next taken by a pod of another revision; its target revision
//! is that new pod's. Deletions nothing replaces, or that a pod of the same
//! revision replaces (a failed pod recreated), are not replacements.

// `Violation` is the documented error of every checker.
#![allow(clippy::result_large_err)]

use super::checks::{Breach, Clause, Violation};
use super::pacing::deletion_request;
use super::timeline::{Change, Entry, Kind, Timeline};
use super::views::{ordinal_of, state_before, SetScope, State};

/// The revision of the pod that next takes `name` after entry `seq`.
fn replaced_by<'t>(t: &'t Timeline, seq: u64, name: &str) -> Option<&'t str> {
    let skip = usize::try_from(seq).unwrap_or(usize::MAX).saturating_add(1);
    t.entries()
        .iter()
        .skip(skip)
        .find(|e| e.kind == Kind::Pod && e.change == Change::Added && e.name == name)
        .and_then(|e| e.pod_facts().revision)
}

/// Each replacement in the history from `from_seq`: the entry, its ordinal,
/// the target revision, and the state just before it.
fn for_each_replacement(
    t: &Timeline,
    from_seq: u64,
    scope: &SetScope,
    mut check: impl FnMut(&Entry, i32, &str, &State<'_>, &SetScope) -> Result<(), Breach>,
    clause: &Clause,
) -> Result<(), Violation> {
    let mut state = state_before(t, from_seq);
    let skip = usize::try_from(from_seq).unwrap_or(usize::MAX);
    for e in t.entries().iter().skip(skip) {
        if deletion_request(e, &state) {
            let now = state.scope_of(scope);
            let old = state.pods.get(e.name.as_str()).and_then(|p| p.revision);
            let target = replaced_by(t, e.seq, &e.name);
            if let (Some(k), Some(target)) = (ordinal_of(&now.set, &e.name), target) {
                if now.in_range(k) && old != Some(target) {
                    check(e, k, target, &state, &now)
                        .map_err(|b| Violation::at_entry(t, clause, e.seq, b))?;
                }
            }
        }
        state.apply(e);
    }
    Ok(())
}

/// "wait_for_predecessors_ready(i+1 to replicas-1)" before `delete_pod(i)`:
/// when a pod is replaced, every higher ordinal of the range already runs
/// the target revision and is Ready, and is not terminating.
pub(crate) fn replaced_in_sequence(
    t: &Timeline,
    clause: &Clause,
    from_seq: u64,
    scope: &SetScope,
) -> Result<(), Violation> {
    for_each_replacement(
        t,
        from_seq,
        scope,
        |e, k, target, state, now| {
            let end = now.ordinal_start.saturating_add(now.replicas.max(0));
            for j in (k + 1)..end {
                let why = match state.pod_at(&now.set, j) {
                    None => Some(format!("{}-{j} did not exist", now.set)),
                    Some(p) if p.terminating => Some(format!("{} was terminating", p.name())),
                    Some(p) if p.revision != Some(target) => Some(format!(
                        "{} ran revision {}",
                        p.name(),
                        p.revision.unwrap_or("(none)")
                    )),
                    Some(p) if !p.ready => Some(format!("{} was not Ready", p.name())),
                    Some(_) => None,
                };
                if let Some(why) = why {
                    return Err(Breach::new(
                        format!(
                            "{} was replaced with revision {target} while {why}: out of sequence",
                            e.name
                        ),
                        vec![e.name.clone(), format!("{}-{j}", now.set)],
                    ));
                }
            }
            Ok(())
        },
        clause,
    )
}

/// The draft's Safety SLO: "0% of forced replacements should occur on
/// StatefulSets where the latest ordinal pod fails to reach Ready state" —
/// no pod below the highest ordinal is replaced while the pod at the
/// highest ordinal is missing, terminating or not Ready.
pub(crate) fn no_replacement_below_unready_highest(
    t: &Timeline,
    clause: &Clause,
    from_seq: u64,
    scope: &SetScope,
) -> Result<(), Violation> {
    for_each_replacement(
        t,
        from_seq,
        scope,
        |e, k, _target, state, now| {
            let highest = now.ordinal_start.saturating_add(now.replicas.max(0)) - 1;
            if k >= highest {
                return Ok(());
            }
            let top = state.pod_at(&now.set, highest);
            if top.is_some_and(|p| p.ready && !p.terminating) {
                return Ok(());
            }
            let name = format!("{}-{highest}", now.set);
            Err(Breach::new(
                format!(
                    "{} was replaced while {name}, the highest ordinal, was not Ready",
                    e.name
                ),
                vec![e.name.clone(), name],
            ))
        },
        clause,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::fixture::TimelineBuilder;

    fn scope() -> SetScope {
        SetScope::new("web", 3)
    }

    /// r1 everywhere; web-2 replaced with a stuck r2, then by force with r3,
    /// then web-1 and web-0 in turn, each once web-2..web-(k+1) are Ready at r3.
    fn draft_history(wrong_order: bool) -> (crate::history::Timeline, u64) {
        let mut b = TimelineBuilder::new();
        b.ready_set("web", 3, "r1");
        let from = b.timeline().next_seq();
        b.at(1.0).terminate("web-2").delete_pod("web-2");
        b.at(2.0)
            .create_pod("web-2", "r2")
            .waiting("web-2", "ImagePullBackOff");
        b.at(3.0).terminate("web-2").delete_pod("web-2");
        b.at(4.0).create_pod("web-2", "r3");
        if wrong_order {
            // web-1 goes before its successor is Ready.
            b.at(4.5).terminate("web-1").delete_pod("web-1");
            b.at(5.0).ready("web-2");
        } else {
            b.at(5.0).ready("web-2");
            b.at(5.5).terminate("web-1").delete_pod("web-1");
        }
        b.at(6.0).create_pod("web-1", "r3").ready("web-1");
        b.at(7.0).terminate("web-0").delete_pod("web-0");
        b.at(8.0).create_pod("web-0", "r3").ready("web-0");
        (b.build(), from)
    }

    #[test]
    fn each_replacement_waits_for_every_higher_ordinal_ready_at_its_revision() {
        let clause = Clause::from("test");
        let (good, from) = draft_history(false);
        assert!(replaced_in_sequence(&good, &clause, from, &scope()).is_ok());
        assert!(no_replacement_below_unready_highest(&good, &clause, from, &scope()).is_ok());
        let (bad, from) = draft_history(true);
        let err = replaced_in_sequence(&bad, &clause, from, &scope()).unwrap_err();
        assert!(
            format!("{err:?}").contains("web-2 was not Ready"),
            "{err:?}"
        );
        assert!(no_replacement_below_unready_highest(&bad, &clause, from, &scope()).is_err());
    }

    #[test]
    fn a_lower_ordinal_replaced_before_a_higher_one_of_the_old_revision_is_out_of_sequence() {
        let clause = Clause::from("test");
        let mut b = TimelineBuilder::new();
        b.ready_set("web", 3, "r1");
        let from = b.timeline().next_seq();
        // web-1 first, while web-2 still runs r1 (Ready): the highest is
        // Ready, so only the sequence check rejects it.
        b.at(1.0).terminate("web-1").delete_pod("web-1");
        b.at(2.0).create_pod("web-1", "r2").ready("web-1");
        let t = b.build();
        let err = replaced_in_sequence(&t, &clause, from, &scope()).unwrap_err();
        assert!(
            format!("{err:?}").contains("web-2 ran revision r1"),
            "{err:?}"
        );
        assert!(no_replacement_below_unready_highest(&t, &clause, from, &scope()).is_ok());
    }
}
