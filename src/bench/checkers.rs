//! History: the time of every checker in `history::rules` on a large
//! timeline.

use std::time::{Duration, Instant};

use serde_json::json;

use super::measure::{duration, round, Summary};
use super::report::{Row, Section};
use super::Mode;
use crate::history::fixture::TimelineBuilder;
use crate::history::rules::{
    at_most_unavailable, claims_kept_uid, condition_at_end, condition_seen,
    created_after_predecessors_ready, created_in_order, deleted_in_order, event_recorded,
    no_mixed_revisions, partition_untouched, ConditionSpec, DeletionMark, EventSpec,
    PredecessorWait,
};
use crate::history::{pod_lives, Clause, SetScope, Timeline};

/// Pods of the recorded set.
const PODS: i32 = 50;

/// Goal per checker on a 100,000-entry timeline.
const GOAL: Duration = Duration::from_secs(1);

/// A checker run: `Ok(true)` when it passed, `Ok(false)` when it found a violation.
type Check<'a> = Box<dyn Fn() -> bool + 'a>;

/// Each checker once (quick) or three times (full) on a timeline of
/// repeated Recreate rollouts of a 50-pod set.
pub(crate) async fn rules(mode: Mode) -> anyhow::Result<Section> {
    let entries = mode.pick(100_000, 100_000);
    let repeats = mode.pick(1, 3);
    let t0 = Instant::now();
    let (t, baseline) = recreate_history(entries);
    let built = t0.elapsed();
    let mut s = Section::new("checkers", "History checkers on a large timeline");
    let scope = SetScope::new("web", PODS);
    let clause = Clause::new("bench", "benchmark clause");
    let deletion: Vec<String> = (0..PODS).rev().map(|i| format!("web-{i}")).collect();
    let deletion: Vec<&str> = deletion.iter().map(String::as_str).collect();
    let creation: Vec<String> = (0..PODS).map(|i| format!("web-{i}")).collect();
    let creation: Vec<&str> = creation.iter().map(String::as_str).collect();
    let absent = ConditionSpec {
        type_: "Bench",
        status: "True",
        reason: None,
        message: None,
    };
    let started = EventSpec {
        reason: "RecreateStarted",
        involved: Some("web"),
        type_: Some("Normal"),
    };
    let c = &clause;
    let t = &t;
    let checks: Vec<(&str, Check<'_>)> = vec![
        (
            "deleted_in_order",
            Box::new(|| deleted_in_order(t, c, 0, &deletion, DeletionMark::Requested).is_ok()),
        ),
        (
            "created_in_order",
            Box::new(|| created_in_order(t, c, 0, &creation).is_ok()),
        ),
        (
            "created_after_predecessors_ready",
            Box::new(|| {
                created_after_predecessors_ready(t, c, 0, &scope, PredecessorWait::Available)
                    .is_ok()
            }),
        ),
        (
            "at_most_unavailable",
            Box::new(|| at_most_unavailable(t, c, 0, &scope, PODS as usize).is_ok()),
        ),
        (
            "no_mixed_revisions",
            Box::new(|| no_mixed_revisions(t, c, 0, "web", None).is_ok()),
        ),
        (
            "claims_kept_uid",
            Box::new(|| claims_kept_uid(t, c, baseline, Some("web")).is_ok()),
        ),
        (
            "partition_untouched (partition 0)",
            Box::new(|| partition_untouched(t, c, baseline, "web", 0).is_ok()),
        ),
        (
            "condition_seen (absent: full scan)",
            Box::new(|| condition_seen(t, c, 0, "web", &absent).is_ok()),
        ),
        (
            "condition_at_end",
            Box::new(|| condition_at_end(t, c, "web", &absent).is_ok()),
        ),
        (
            "event_recorded",
            Box::new(|| event_recorded(t, c, 0, &started, None).is_ok()),
        ),
        ("views::pod_lives", Box::new(|| !pod_lives(t).is_empty())),
    ];
    for (name, check) in checks {
        let mut samples = Vec::with_capacity(repeats);
        let mut passed = false;
        for _ in 0..repeats {
            let t0 = Instant::now();
            passed = check();
            samples.push(t0.elapsed());
        }
        let sum = Summary::of(&samples);
        let outcome = if passed { "passes" } else { "violation" };
        s.row(Row::goal(
            format!("{name} ({outcome})"),
            t.len(),
            duration(sum.p50),
            format!("< {}", round(GOAL)),
            sum.p50 < GOAL,
        ));
    }
    s.row(Row::info(
        "building the timeline (TimelineBuilder)",
        t.len(),
        duration(built),
    ));
    s.note(format!(
        "The timeline is {} Recreate rollouts of a {PODS}-pod set with claims: per rollout a \
         RecreateStarted event, every pod terminating then deleted in reverse order, every pod \
         created and made Ready in order, a StatefulSet status update. Checkers look at the \
         whole timeline (from entry 0, or from the end of the initial set-up for the ones \
         about objects that existed before). \"violation\" rows were given a property that \
         does not hold, which still needs a full scan. Median of {repeats} run(s).",
        (t.len() - baseline as usize) / rollout_entries(),
    ));
    Ok(s)
}

/// Entries one rollout adds.
fn rollout_entries() -> usize {
    1 + 4 * PODS as usize + 1
}

/// A timeline of at least `entries` entries: a ready set of `PODS` pods with
/// claims, then Recreate rollouts. Returns it with the seq where the
/// rollouts start.
fn recreate_history(entries: usize) -> (Timeline, u64) {
    let mut b = TimelineBuilder::new();
    b.ready_set("web", PODS, "r0");
    b.set_status("web", status("r0"));
    let baseline = b.timeline().len() as u64;
    let mut secs = 0.0;
    let mut rev = 0;
    while b.timeline().len() < entries {
        rev += 1;
        let r = format!("r{rev}");
        secs += 0.01;
        b.at(secs).event(
            "web",
            "Normal",
            "RecreateStarted",
            "Deleting all pods for Recreate update",
        );
        for i in (0..PODS).rev() {
            b.terminate(&format!("web-{i}"));
        }
        for i in (0..PODS).rev() {
            secs += 0.001;
            b.at(secs).delete_pod(&format!("web-{i}"));
        }
        for i in 0..PODS {
            let name = format!("web-{i}");
            secs += 0.001;
            b.at(secs).create_pod(&name, &r);
            secs += 0.001;
            b.at(secs).ready(&name);
        }
        b.set_status("web", status(&r));
    }
    (b.build(), baseline)
}

fn status(revision: &str) -> serde_json::Value {
    json!({
        "replicas": PODS, "readyReplicas": PODS, "updatedReplicas": PODS,
        "currentRevision": revision, "updateRevision": revision,
        "conditions": [{"type": "Progressing", "status": "True", "reason": "Complete"}]
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_history_is_a_clean_recreate_history() {
        let (t, baseline) = recreate_history(2_000);
        assert!(t.len() >= 2_000);
        let c = Clause::new("x", "y");
        let scope = SetScope::new("web", PODS);
        no_mixed_revisions(&t, &c, 0, "web", None).unwrap();
        created_after_predecessors_ready(&t, &c, 0, &scope, PredecessorWait::Available).unwrap();
        claims_kept_uid(&t, &c, baseline, Some("web")).unwrap();
        assert!(at_most_unavailable(&t, &c, 0, &scope, 1).is_err());
        assert_eq!((t.len() - baseline as usize) % rollout_entries(), 0);
    }
}
