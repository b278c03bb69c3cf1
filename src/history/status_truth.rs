//! Is what a controller reports in a StatefulSet's status true of the pods?
//!
//! Every status the controller wrote is compared with the pods the recorder
//! saw around it. A controller reports from its cache, which may lag a
//! little, so a claim is true when the pods bore it out at some moment
//! between the controller's previous status write (less a slack of
//! [`SLACK`], and never more than [`MAX_LAG`] before this one) and this one. What is checked (upstream's
//! `computeReplicaStatus` and completion rule):
//! - `replicas`, `readyReplicas`, `availableReplicas`, `updatedReplicas`,
//!   `currentReplicas` never claim more pods than existed with that quality;
//! - `currentRevision` moves to the update revision only once the rollout
//!   was complete (every replica existing, at the update revision, ready);
//! - a `Progressing` condition that says a rollout is complete says so only
//!   once it was;
//! - a `Progressing` condition keeps its `lastTransitionTime` while its
//!   status stays the same, and takes a new one when the status changes
//!   (API conventions: "the last time the condition transitioned from one
//!   status to another").
//!
//! [`settled_gap`] judges the other direction, once the pods stop changing:
//! the status then says exactly what the pods are.

// `Violation` is the documented error of every checker.
#![allow(clippy::result_large_err)]

use kepspec_core::Lookup as _;
use std::time::Duration;

use serde_json::Value;

use super::checks::{Breach, Clause, Violation};
use super::timeline::{Change, Kind, Timeline};
use super::views::{SetScope, State};

/// How far before the controller's previous status write its view may reach.
pub(crate) const SLACK: Duration = Duration::from_secs(3);
/// How old a view a status may be written from at most (a controller that
/// sees its cache lag its own writes turns to consistent reads within 5 s).
pub(crate) const MAX_LAG: Duration = Duration::from_secs(10);

/// The `Progressing` reasons that report a finished rollout, and whether
/// they promise readiness too: KEP-3541's `RecreateComplete` ("phase
/// Complete": every replica exists at the update revision), upstream
/// v1.37's `RecreateCompleted` ("all pods have been recreated with the
/// update revision and are ready", PR #137187), and the bundled
/// controller's own for the other strategies (updated and ready).
const COMPLETE_REASONS: [(&str, bool); 4] = [
    ("RecreateComplete", false),
    ("RecreateCompleted", true),
    ("RollingUpdateComplete", true),
    ("OnDeleteComplete", true),
];

/// What the pods were at one moment, for one status.
#[derive(Clone, Copy, Debug, Default)]
struct Truth {
    replicas: i64,
    ready: i64,
    available: i64,
    updated: i64,
    current: i64,
    complete: bool,
    created: bool,
}

/// What the pods of `state` bore out, availability judged by the clock at
/// `clock` (a status written at some moment may use any pod state it saw
/// since its previous write, but only the clock of its own writing).
fn truth(state: &State<'_>, base: &SetScope, status: &Value, clock: Duration) -> Truth {
    let scope = state.scope_of(base);
    let update = status.get("updateRevision").and_then(Value::as_str);
    let current = status.get("currentRevision").and_then(Value::as_str);
    let mut t = Truth::default();
    for p in state.pods_of(&scope.set) {
        t.replicas += 1;
        if p.ready {
            t.ready += 1;
            if p.ready_for(clock, scope.min_ready) {
                t.available += 1;
            }
        }
        if !p.terminating {
            if update.is_some() && p.revision == update {
                t.updated += 1;
            }
            if current.is_some() && p.revision == current {
                t.current += 1;
            }
        }
    }
    let want = i64::from(scope.replicas);
    t.complete = update.is_some() && t.updated == want && t.ready == want && t.replicas == want;
    t.created = update.is_some() && t.updated == want;
    t
}

fn int(status: &Value, key: &str) -> i64 {
    status.get(key).and_then(Value::as_i64).unwrap_or(0)
}

/// The completion a status's `Progressing` condition claims: None, or
/// whether it promises readiness.
fn claims_completion(status: &Value) -> Option<bool> {
    status
        .get("conditions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|c| c.get("type").and_then(Value::as_str) == Some("Progressing"))
        .find_map(|c| {
            let reason = c.get("reason").and_then(Value::as_str)?;
            COMPLETE_REASONS
                .iter()
                .find(|(r, _)| *r == reason)
                .map(|(_, ready)| *ready)
        })
}

/// Why the status of `set` in `state` does not yet say exactly what its pods
/// are, or None when it does: what upstream's `updateStatefulSetStatus`
/// writes after any sync (pkg/controller/statefulset/stateful_set_control.go,
/// `computeReplicaStatus` and `completeRollingUpdate`), so a controller whose
/// status stops short of the pods it settled never satisfies it.
/// - `observedGeneration` is the set's generation;
/// - each count equals the pods of that quality, counted against the
///   revisions the status itself names;
/// - under `RollingUpdate` (upstream's `completeRollingUpdate`) and under
///   `Recreate` (upstream's Recreate e2e tests, kubernetes PR #137187,
///   `test/e2e/apps/statefulset.go`: "current revision %s does not equal
///   update revision %s on update completion"), a complete rollout has
///   `currentRevision` equal to `updateRevision`; not under `OnDelete`,
///   which upstream never promotes for.
pub(crate) fn settled_gap(state: &State<'_>, set: &str) -> Option<String> {
    let Some(obj) = state.sets.get(set).map(|e| &e.object) else {
        return Some(format!("{set} has not been observed"));
    };
    let generation = obj
        .lookup("/metadata/generation")
        .and_then(Value::as_i64)
        .unwrap_or(0);
    let default = Value::Null;
    let status = obj.get("status").unwrap_or(&default);
    let observed = int(status, "observedGeneration");
    if observed < generation {
        return Some(format!(
            "{set} status observed generation {observed}, the set is at generation {generation}"
        ));
    }
    let t = truth(state, &SetScope::new(set, 1), status, state.at);
    let mut gaps = Vec::new();
    for (key, seen) in [
        ("replicas", t.replicas),
        ("readyReplicas", t.ready),
        ("availableReplicas", t.available),
        ("updatedReplicas", t.updated),
        ("currentReplicas", t.current),
    ] {
        let claimed = int(status, key);
        if claimed != seen {
            gaps.push(format!("{key} {claimed} where {seen} such pods exist"));
        }
    }
    let promotes = matches!(
        obj.lookup("/spec/updateStrategy/type")
            .and_then(Value::as_str),
        None | Some("RollingUpdate") | Some("Recreate")
    );
    let (current, update) = (
        status.get("currentRevision").and_then(Value::as_str),
        status.get("updateRevision").and_then(Value::as_str),
    );
    if promotes && t.complete && current != update {
        gaps.push(format!(
            "currentRevision {} although every replica runs update revision {} and is ready",
            current.unwrap_or("(none)"),
            update.unwrap_or("(none)")
        ));
    }
    (!gaps.is_empty()).then(|| {
        format!(
            "the status of {set} does not match its pods: {}",
            gaps.join("; ")
        )
    })
}

/// KEP-3541's SLI: during a Recreate the status shows "the transition from
/// all pods deleted (0 available) to all new pods created and ready". Some
/// status of `set` written at or after `from_seq` reported no available and
/// no ready replica; a controller that stays silent while no pod exists (or
/// keeps reporting the old pods) never does.
pub(crate) fn reported_downtime(
    t: &Timeline,
    clause: &Clause,
    from_seq: u64,
    set: &str,
) -> Result<(), Violation> {
    let skip = usize::try_from(from_seq).unwrap_or(usize::MAX);
    let writes = t
        .entries()
        .iter()
        .skip(skip)
        .filter(|e| e.kind == Kind::StatefulSet && e.name == set && e.change != Change::Deleted)
        .filter_map(|e| e.object.get("status"));
    let mut least: Option<(i64, i64)> = None;
    for status in writes {
        let seen = (
            int(status, "availableReplicas"),
            int(status, "readyReplicas"),
        );
        if seen == (0, 0) {
            return Ok(());
        }
        least = Some(least.map_or(seen, |l| l.min(seen)));
    }
    Err(Violation::at_entry(
        t,
        clause,
        t.next_seq().saturating_sub(1),
        Breach::new(
            match least {
                Some((a, r)) => format!(
                    "the status of {set} never reported 0 available replicas during the update (at least {a} available, {r} ready)"
                ),
                None => format!("the controller wrote no status of {set} during the update"),
            },
            vec![],
        ),
    ))
}

/// The `Progressing` condition of a status: (status, lastTransitionTime).
fn progressing(status: &Value) -> Option<(Option<&str>, Option<&str>)> {
    status
        .get("conditions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .find(|c| c.get("type").and_then(Value::as_str) == Some("Progressing"))
        .map(|c| {
            (
                c.get("status").and_then(Value::as_str),
                c.get("lastTransitionTime").and_then(Value::as_str),
            )
        })
}

/// Whether `Progressing` moved its `lastTransitionTime` without a change of
/// status, or changed status without a new one. `computed_after` is the
/// earliest wall time at which the controller can have decided the `after`
/// status: once it had seen the status before it and the generation the
/// status observes. lastTransitionTime has whole seconds (metav1.Time), so
/// a transition decided within a second of the time it keeps may rightly
/// show that time, also when its write lands much later (a write held up by
/// an outage).
fn transition_lie(
    before: &Value,
    after: &Value,
    computed_after: Option<jiff::Timestamp>,
) -> Option<String> {
    let (Some((was, was_at)), Some((is, is_at))) = (progressing(before), progressing(after)) else {
        return None;
    };
    if was == is && was_at != is_at {
        return Some(format!(
            "Progressing stayed {} but its lastTransitionTime moved from {} to {}",
            is.unwrap_or("(unset)"),
            was_at.unwrap_or("(unset)"),
            is_at.unwrap_or("(unset)")
        ));
    }
    let same_second = || {
        let at = is_at.and_then(|t| t.parse::<jiff::Timestamp>().ok());
        matches!((at, computed_after), (Some(at), Some(c)) if c.as_second() - at.as_second() <= 1)
    };
    if was != is && was_at.is_some() && was_at == is_at && !same_second() {
        return Some(format!(
            "Progressing changed from {} to {} but kept lastTransitionTime {}",
            was.unwrap_or("(unset)"),
            is.unwrap_or("(unset)"),
            is_at.unwrap_or("(unset)")
        ));
    }
    None
}

/// Every status of `set` in `t` was true of the pods when it was written.
pub(crate) fn status_truthful(t: &Timeline, clause: &Clause, set: &str) -> Result<(), Violation> {
    let base = SetScope::new(set, 1);
    let mut state = State::of(t);
    // (time, state snapshot facts) are recomputed per status: keep the
    // moments since the window opened.
    let mut moments: Vec<(Duration, State<'_>)> = Vec::new();
    let mut previous_status: Option<&Value> = None;
    let mut previous_write_at = Duration::ZERO;
    // When each generation of the set was first recorded.
    let mut generation_seen: Vec<(i64, Duration)> = Vec::new();
    // The update revision whose rollout was seen complete.
    let mut completed_revision: Option<&Value> = None;
    for e in t.entries() {
        state.apply(e);
        moments.push((e.at, state.clone()));
        if e.kind != Kind::StatefulSet || e.name != set || e.change == Change::Deleted {
            continue;
        }
        let generation = e
            .object
            .lookup("/metadata/generation")
            .and_then(Value::as_i64);
        if let Some(g) = generation.filter(|g| generation_seen.iter().all(|(s, _)| s != g)) {
            generation_seen.push((g, e.at));
        }
        let Some(status) = e.object.get("status") else {
            continue;
        };
        if previous_status == Some(status) {
            continue;
        }
        let opened = previous_write_at
            .saturating_sub(SLACK)
            .max(e.at.saturating_sub(MAX_LAG));
        moments.retain(|(at, _)| *at >= opened);
        let truths: Vec<Truth> = moments
            .iter()
            .map(|(_, s)| truth(s, &base, status, e.at))
            .collect();
        let best = |f: fn(&Truth) -> i64| truths.iter().map(f).max().unwrap_or(0);
        let mut lies = Vec::new();
        for (key, f) in [
            ("replicas", (|t: &Truth| t.replicas) as fn(&Truth) -> i64),
            ("readyReplicas", |t: &Truth| t.ready),
            ("availableReplicas", |t: &Truth| t.available),
            ("updatedReplicas", |t: &Truth| t.updated),
            ("currentReplicas", |t: &Truth| t.current),
        ] {
            let claimed = int(status, key);
            let seen = best(f);
            if claimed > seen {
                lies.push(format!(
                    "{key}: {claimed} (at most {seen} such pods existed)"
                ));
            }
        }
        let previously_completed =
            completed_revision.is_some() && completed_revision == status.get("updateRevision");
        let completed = truths.iter().any(|t| t.complete);
        let update = status.get("updateRevision").and_then(Value::as_str);
        let current = status.get("currentRevision").and_then(Value::as_str);
        // A move from one current revision to another (the first revision
        // of a new set is current from the start, as upstream makes it).
        let before = previous_status.and_then(|p| p.get("currentRevision").and_then(Value::as_str));
        let promoted =
            update.is_some() && current == update && before.is_some() && before != current;
        if promoted && !completed && !previously_completed {
            lies.push(format!(
                "currentRevision moved to {} before every replica ran it and was ready",
                current.unwrap_or_default()
            ));
        }
        let observed = status.get("observedGeneration").and_then(Value::as_i64);
        let generation_at = generation_seen
            .iter()
            .find(|(g, _)| Some(*g) == observed)
            .map_or(Duration::ZERO, |(_, at)| *at);
        let computed_after = t.origin.and_then(|o| {
            let at = previous_write_at.max(generation_at);
            o.checked_add(jiff::SignedDuration::try_from(at).unwrap_or_default())
                .ok()
        });
        if let Some(lie) = previous_status.and_then(|p| transition_lie(p, status, computed_after)) {
            lies.push(lie);
        }
        if let Some(ready) = claims_completion(status) {
            let held = if ready {
                completed || previously_completed
            } else {
                truths.iter().any(|t| t.created) || previously_completed
            };
            let new_claim = previous_status.and_then(claims_completion).is_none()
                || previous_status.and_then(|p| p.get("updateRevision"))
                    != status.get("updateRevision");
            if new_claim && !held {
                lies.push("Progressing reported the rollout complete before it was".to_string());
            }
        }
        if !lies.is_empty() {
            return Err(Violation::at_entry(
                t,
                clause,
                e.seq,
                Breach::new(
                    format!(
                        "the status of {set} claimed what its pods never showed: {}",
                        lies.join("; ")
                    ),
                    vec![],
                ),
            ));
        }
        // A completion seen once stays true for later writes of the same
        // revision (a controller may report it late).
        if completed {
            completed_revision = status.get("updateRevision");
        }
        previous_status = Some(status);
        previous_write_at = e.at;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::fixture::TimelineBuilder;
    use serde_json::json;

    fn set_spec(b: &mut TimelineBuilder, replicas: i64, status: Value) {
        b.set_status("web", status);
        let _ = replicas;
    }

    /// web-0..web-2 available long since, web-3 ready at 12.1 (available
    /// at 13.1 with minReadySeconds 1), web-2 turns unready at 13.08, and a
    /// status written at `at` claims `available`.
    fn race(at: f64, available: i64) -> Result<(), Violation> {
        let mut b = TimelineBuilder::new();
        b.set_spec("web", json!({"replicas": 4, "minReadySeconds": 1}));
        b.ready_set("web", 3, "r1");
        b.at(12.1).create_pod("web-3", "r1").ready("web-3");
        b.at(12.8).set_status(
            "web",
            json!({"replicas": 4, "readyReplicas": 4, "availableReplicas": 3}),
        );
        b.at(13.08).unready("web-2");
        b.at(at).set_status(
            "web",
            json!({"replicas": 4, "readyReplicas": 4, "availableReplicas": available}),
        );
        status_truthful(b.timeline(), &Clause::from("t"), "web")
    }

    #[test]
    fn availability_is_judged_by_the_clock_of_the_write_over_any_state_since_the_last() {
        // Written at 13.105 from a view a few milliseconds behind (web-2
        // still ready) and the clock of 13.105 (web-3 available): true of
        // what the controller could know.
        assert!(race(13.105, 4).is_ok());
        // Written at 12.9, web-3 was not available by any clock yet.
        let v = race(12.9, 4).expect_err("web-3 is not available at 12.9");
        assert!(v.message.contains("availableReplicas: 4 (at most 3"), "{v}");
        // Never 5.
        assert!(race(13.105, 5).is_err());
    }

    #[test]
    fn a_true_status_passes_and_an_invented_count_fails() {
        let mut b = TimelineBuilder::new();
        b.ready_set("web", 2, "r1");
        set_spec(
            &mut b,
            2,
            json!({"replicas": 2, "readyReplicas": 2, "updateRevision": "r1", "currentRevision": "r1", "updatedReplicas": 2, "currentReplicas": 2}),
        );
        assert!(status_truthful(b.timeline(), &Clause::from("t"), "web").is_ok());
        b.at(10.0).unready("web-1");
        b.at(20.0);
        set_spec(
            &mut b,
            2,
            json!({"replicas": 2, "readyReplicas": 2, "updateRevision": "r1", "currentRevision": "r1", "updatedReplicas": 2, "currentReplicas": 2, "observedGeneration": 2}),
        );
        let v = status_truthful(b.timeline(), &Clause::from("t"), "web").unwrap_err();
        assert!(v.message.contains("readyReplicas: 2 (at most 1"), "{v}");
    }

    #[test]
    fn promoting_the_current_revision_before_the_rollout_completes_fails() {
        let mut b = TimelineBuilder::new();
        b.ready_set("web", 2, "r1");
        set_spec(
            &mut b,
            2,
            json!({"replicas": 2, "readyReplicas": 2, "updateRevision": "r1", "currentRevision": "r1"}),
        );
        b.at(10.0).delete_pod("web-1").create_pod("web-1", "r2");
        set_spec(
            &mut b,
            2,
            json!({"replicas": 2, "readyReplicas": 1, "updateRevision": "r2", "currentRevision": "r2", "updatedReplicas": 1}),
        );
        let v = status_truthful(b.timeline(), &Clause::from("t"), "web").unwrap_err();
        assert!(
            v.message.contains("currentRevision moved to r2 before"),
            "{v}"
        );
    }

    fn settled(b: &TimelineBuilder) -> Option<String> {
        let t = b.timeline();
        settled_gap(&crate::history::views::state_before(t, t.next_seq()), "web")
    }

    #[test]
    fn a_settled_status_must_say_exactly_what_the_pods_are() {
        let mut b = TimelineBuilder::new();
        b.set_spec("web", json!({"replicas": 2}));
        b.ready_set("web", 2, "r1");
        let exact = json!({"observedGeneration": 1, "replicas": 2, "readyReplicas": 2,
            "availableReplicas": 2, "updatedReplicas": 2, "currentReplicas": 2,
            "updateRevision": "r1", "currentRevision": "r1"});
        b.set_status("web", exact.clone());
        assert_eq!(settled(&b), None);
        // A count that stops short of the pods (a skipped status write).
        let mut short = exact.clone();
        short["currentReplicas"] = json!(0);
        b.set_status("web", short);
        let gap = settled(&b).unwrap_or_default();
        assert!(gap.contains("currentReplicas 0 where 2"), "{gap}");
        // A generation the controller has not observed.
        b.set_spec("web", json!({"replicas": 2}));
        b.set_status("web", exact);
        let gap = settled(&b).unwrap_or_default();
        assert!(gap.contains("observed generation 1"), "{gap}");
    }

    #[test]
    fn a_complete_rolling_update_promotes_the_current_revision_and_on_delete_need_not() {
        let mut b = TimelineBuilder::new();
        b.set_spec("web", json!({"replicas": 1}));
        b.ready_set("web", 1, "r2");
        b.set_status(
            "web",
            json!({"observedGeneration": 1, "replicas": 1, "readyReplicas": 1,
                "availableReplicas": 1, "updatedReplicas": 1, "currentReplicas": 0,
                "updateRevision": "r2", "currentRevision": "r1"}),
        );
        let gap = settled(&b).unwrap_or_default();
        assert!(gap.contains("currentRevision r1 although"), "{gap}");
        let mut b2 = TimelineBuilder::new();
        b2.set_spec(
            "web",
            json!({"replicas": 1, "updateStrategy": {"type": "OnDelete"}}),
        );
        b2.ready_set("web", 1, "r2");
        b2.set_status(
            "web",
            json!({"observedGeneration": 1, "replicas": 1, "readyReplicas": 1,
                "availableReplicas": 1, "updatedReplicas": 1, "currentReplicas": 0,
                "updateRevision": "r2", "currentRevision": "r1"}),
        );
        assert_eq!(settled(&b2), None);
    }

    fn with_progressing(status: &str, at: &str) -> Value {
        json!({"replicas": 0, "conditions": [{"type": "Progressing", "status": status,
            "reason": "RecreateInProgress", "lastTransitionTime": at}]})
    }

    #[test]
    fn progressing_moves_its_transition_time_exactly_when_its_status_changes() {
        let judge = |writes: &[(&str, &str)]| {
            let mut b = TimelineBuilder::new();
            for (i, (status, at)) in writes.iter().enumerate() {
                b.at(i as f64);
                b.set_status("web", with_progressing(status, at));
            }
            status_truthful(b.timeline(), &Clause::from("t"), "web")
        };
        let (t0, t1) = ("2026-01-01T00:00:00Z", "2026-01-01T00:00:05Z");
        assert!(judge(&[("True", t0), ("True", t0), ("False", t1)]).is_ok());
        let v = judge(&[("True", t0), ("True", t1)]).unwrap_err();
        assert!(
            v.message
                .contains("stayed True but its lastTransitionTime moved"),
            "{v}"
        );
        let v = judge(&[("True", t0), ("False", t0)]).unwrap_err();
        assert!(v.message.contains("kept lastTransitionTime"), "{v}");
    }

    #[test]
    fn a_transition_decided_in_the_second_it_keeps_may_land_late_but_a_copied_time_may_not() {
        // Origin 00:00:00.2; the rollout ends at +0.1 s (False stamped :00).
        let judge = |change_at: f64, true_at: f64| {
            let mut b = TimelineBuilder::new();
            b.set_spec("web", json!({"replicas": 0}));
            let mut done = with_progressing("False", "2026-01-01T00:00:00Z");
            done["observedGeneration"] = json!(1);
            b.at(0.1).set_status("web", done);
            b.at(change_at)
                .set_spec("web", json!({"replicas": 0, "x": 1}));
            let mut again = with_progressing("True", "2026-01-01T00:00:00Z");
            again["observedGeneration"] = json!(2);
            b.at(true_at).set_status("web", again);
            let mut t = b.build();
            t.origin = "2026-01-01T00:00:00.2Z".parse().ok();
            status_truthful(&t, &Clause::from("t"), "web")
        };
        // Changed in the same second, written 8 s later (an outage): the
        // transition was decided at :00.
        assert!(judge(0.3, 8.0).is_ok());
        // Changed 5 s later: a True stamped :00 copied the False's time.
        let v = judge(5.0, 5.1).unwrap_err();
        assert!(v.message.contains("kept lastTransitionTime"), "{v}");
    }

    #[test]
    fn the_downtime_must_show_in_some_status() {
        let mut b = TimelineBuilder::new();
        b.set_status(
            "web",
            json!({"replicas": 2, "readyReplicas": 2, "availableReplicas": 2}),
        );
        let from = b.timeline().next_seq();
        b.at(1.0).set_status(
            "web",
            json!({"replicas": 1, "readyReplicas": 1, "availableReplicas": 1}),
        );
        let v = reported_downtime(b.timeline(), &Clause::from("t"), from, "web").unwrap_err();
        assert!(v.message.contains("never reported 0 available"), "{v}");
        b.at(2.0).set_status("web", json!({"replicas": 0}));
        assert!(reported_downtime(b.timeline(), &Clause::from("t"), from, "web").is_ok());
        // A silent controller.
        let mut s = TimelineBuilder::new();
        s.set_status(
            "web",
            json!({"replicas": 2, "readyReplicas": 2, "availableReplicas": 2}),
        );
        let from = s.timeline().next_seq();
        let v = reported_downtime(s.timeline(), &Clause::from("t"), from, "web").unwrap_err();
        assert!(v.message.contains("wrote no status"), "{v}");
    }
}
