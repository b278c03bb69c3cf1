//! The status catches up whenever the pods rest: wherever no pod of a set
//! changed for [`QUIET`], the set's status says exactly what its pods are
//! by the end of that rest ([`super::status_truth::settled_gap`]: every
//! count, `observedGeneration`, and a promoted `currentRevision` under
//! RollingUpdate and Recreate). Upstream writes the status at the end of every sync
//! (`updateStatefulSetStatus`), and a sync follows every pod event, so a
//! controller whose status stops short of a change that came alone (one
//! pod turning ready, nothing else) is caught here even where no step waits
//! for the status.

// `Violation` is the documented error of every checker.
#![allow(clippy::result_large_err)]

use kepspec_core::Lookup as _;
use std::time::Duration;

use super::checks::{Breach, Clause, Violation};
use super::status_truth::settled_gap;
use super::timeline::{Kind, Timeline};
use super::views::{ordinal_of, State};

/// How long the pods must rest before the status must have caught up.
pub(crate) const QUIET: Duration = Duration::from_secs(5);

/// Every rest of `set`'s pods of at least [`QUIET`] ended with a status
/// that says what the pods are (judged at the rest's last moment).
pub(crate) fn converges_when_quiet(
    t: &Timeline,
    clause: &Clause,
    set: &str,
) -> Result<(), Violation> {
    let entries = t.entries();
    let is_pod = |i: usize| {
        entries
            .get(i)
            .is_some_and(|e| e.kind == Kind::Pod && ordinal_of(set, &e.name).is_some())
    };
    let end = entries.last().map(|e| e.at).unwrap_or_default();
    let mut state = State::new();
    for (i, e) in entries.iter().enumerate() {
        state.apply(e);
        if !is_pod(i) {
            continue;
        }
        // The rest lasts until the next pod change of the set, or the end.
        let next = (i + 1..entries.len()).find(|&j| is_pod(j));
        let until = next.map_or(end, |j| entries[j].at);
        if until.saturating_sub(e.at) < QUIET {
            continue;
        }
        let mut last = next.unwrap_or(entries.len());
        let mut until = until;
        // A spec change inside the rest (a new generation) starts what the
        // status must catch up with anew: judged is the rest before it,
        // unless the pods rested long enough after it too.
        if let Some(k) = last_generation_change(t, set, i + 1, last) {
            if until.saturating_sub(entries[k].at) < QUIET {
                last = k;
                until = entries[k].at;
                if until.saturating_sub(e.at) < QUIET {
                    continue;
                }
            }
        }
        let mut rest = state.clone();
        for later in &entries[i + 1..last] {
            rest.apply(later);
        }
        rest.at = rest.at.max(until);
        let Some(obj) = rest.sets.get(set).map(|e| &e.object) else {
            continue;
        };
        if obj.lookup("/metadata/deletionTimestamp").is_some() {
            continue;
        }
        if let Some(gap) = settled_gap(&rest, set) {
            let at_seq = entries[last.saturating_sub(1)].seq;
            return Err(Violation::at_entry(
                t,
                clause,
                at_seq,
                Breach::new(
                    format!(
                        "the pods of {set} rested for {:.1}s from entry #{}, and still {gap}",
                        until.saturating_sub(e.at).as_secs_f64(),
                        e.seq
                    ),
                    vec![],
                ),
            ));
        }
    }
    Ok(())
}

/// The index of the last entry in `from..to` that gives `set` a new
/// `metadata.generation` (a change of its spec).
fn last_generation_change(t: &Timeline, set: &str, from: usize, to: usize) -> Option<usize> {
    let entries = t.entries();
    let generation = |i: usize| {
        entries[i]
            .object
            .lookup("/metadata/generation")
            .and_then(serde_json::Value::as_i64)
    };
    let is_set = |i: usize| entries[i].kind == Kind::StatefulSet && entries[i].name == set;
    let mut previous = (0..from).rev().find(|&i| is_set(i)).and_then(generation);
    let mut found = None;
    for i in (from..to).filter(|&i| is_set(i)) {
        let now = generation(i);
        if now != previous {
            found = Some(i);
        }
        previous = now;
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::fixture::TimelineBuilder;
    use serde_json::json;

    fn status(ready: i64) -> serde_json::Value {
        json!({
            "observedGeneration": 1, "replicas": 2, "readyReplicas": ready,
            "availableReplicas": ready, "updatedReplicas": 2, "currentReplicas": 2,
            "currentRevision": "r1", "updateRevision": "r1"
        })
    }

    /// web-0 and web-1 at r1; web-1 ready at 1 s; nothing else until 10 s.
    fn history(caught_up: bool) -> crate::history::Timeline {
        let mut b = TimelineBuilder::new();
        b.set_spec(
            "web",
            json!({"replicas": 2, "selector": {"matchLabels": {"app": "web"}}}),
        );
        b.create_pod("web-0", "r1").ready("web-0");
        b.create_pod("web-1", "r1");
        b.set_status("web", status(1));
        b.at(1.0).ready("web-1");
        if caught_up {
            b.at(1.2).set_status("web", status(2));
        }
        b.at(10.0).event("web", "Normal", "Nothing", "the end");
        b.build()
    }

    #[test]
    fn a_status_that_stops_short_of_a_rest_fails_and_one_that_catches_up_passes() {
        let clause = Clause::from("test");
        assert!(converges_when_quiet(&history(true), &clause, "web").is_ok());
        let err = converges_when_quiet(&history(false), &clause, "web").unwrap_err();
        assert!(
            format!("{err:?}").contains("readyReplicas 1 where 2 such pods exist"),
            "{err:?}"
        );
    }

    #[test]
    fn a_rest_shorter_than_quiet_is_not_judged() {
        let clause = Clause::from("test");
        let mut b = TimelineBuilder::new();
        b.set_spec("web", json!({"replicas": 2}));
        b.create_pod("web-0", "r1").ready("web-0");
        b.create_pod("web-1", "r1");
        b.set_status("web", status(1));
        b.at(1.0).ready("web-1");
        b.at(3.0).event("web", "Normal", "Nothing", "the end");
        assert!(converges_when_quiet(&b.build(), &clause, "web").is_ok());
    }

    #[test]
    fn a_spec_change_at_the_end_of_a_rest_is_not_judged_before_the_controller_could_see_it() {
        // The status caught up with generation 1; at 6 s the user writes
        // generation 2 and a pod changes 10 ms later: the rest before the
        // write is judged (and passes), not the write itself.
        let mut b = TimelineBuilder::new();
        b.set_spec(
            "web",
            json!({"replicas": 2, "selector": {"matchLabels": {"app": "web"}}}),
        );
        b.create_pod("web-0", "r1").ready("web-0");
        b.create_pod("web-1", "r1").ready("web-1");
        b.set_status("web", status(2));
        b.at(6.0).set_spec(
            "web",
            json!({"replicas": 2, "minReadySeconds": 1, "selector": {"matchLabels": {"app": "web"}}}),
        );
        b.at(6.01).delete_pod("web-1");
        b.at(6.5).event("web", "Normal", "Nothing", "the end");
        let clause = Clause::from("test");
        let t = b.build();
        let verdict = converges_when_quiet(&t, &clause, "web");
        assert!(verdict.is_ok(), "{verdict:?}");
    }
}
