use super::*;
use crate::history::fixture::TimelineBuilder;
use crate::history::rules::*;
use crate::history::timeline::{Change, Entry, Kind};
use crate::history::views::SetScope;
use serde_json::json;

fn clause() -> Clause {
    Clause::new(
        "KEP-3541 Proposed Recreate Strategy Algorithm",
        "all old-revision pods are deleted and fully gone before any new-revision pod is created",
    )
}

/// A Recreate rollout done right: 3 pods of "a" deleted, gone, then 3 of "b".
fn good_recreate() -> (Timeline, u64) {
    let mut b = TimelineBuilder::new();
    b.ready_set("web", 3, "a");
    let start = b.timeline().next_seq();
    b.at(1.0)
        .terminate("web-2")
        .terminate("web-1")
        .terminate("web-0");
    b.at(2.0)
        .delete_pod("web-2")
        .delete_pod("web-1")
        .delete_pod("web-0");
    b.at(3.0).create_pod("web-0", "b").at(3.5).ready("web-0");
    b.at(4.0).create_pod("web-1", "b").at(4.5).ready("web-1");
    b.at(5.0).create_pod("web-2", "b").at(5.5).ready("web-2");
    (b.build(), start)
}

#[test]
fn recreate_that_waits_for_termination_passes() {
    let (t, start) = good_recreate();
    no_mixed_revisions(&t, &clause(), start, "web", Some("b")).unwrap();
    no_mixed_revisions(&t, &clause(), 0, "web", None).unwrap();
    deleted_in_order(
        &t,
        &clause(),
        start,
        &["web-2", "web-1", "web-0"],
        DeletionMark::Requested,
    )
    .unwrap();
    deleted_in_order(
        &t,
        &clause(),
        start,
        &["web-2", "web-1", "web-0"],
        DeletionMark::Gone,
    )
    .unwrap();
    created_in_order(&t, &clause(), start, &["web-0", "web-1", "web-2"]).unwrap();
    created_after_predecessors_ready(
        &t,
        &clause(),
        start,
        &SetScope::new("web", 3),
        PredecessorWait::Available,
    )
    .unwrap();
    claims_kept_uid(&t, &clause(), start, Some("web")).unwrap();
}

#[test]
fn new_revision_pod_created_while_an_old_one_terminates_is_caught() {
    let mut b = TimelineBuilder::new();
    b.ready_set("web", 2, "a");
    let start = b.timeline().next_seq();
    b.at(1.0).terminate("web-0").terminate("web-1");
    b.at(1.5).delete_pod("web-0");
    let culprit = b.timeline().next_seq();
    b.at(2.0).create_pod("web-0", "b");
    b.at(3.0).delete_pod("web-1");
    let t = b.build();
    let v = no_mixed_revisions(&t, &clause(), start, "web", Some("b")).unwrap_err();
    assert_eq!(v.seq, culprit);
    assert_eq!(v.at, Duration::from_secs(2));
    assert_eq!(v.pods, ["web-0", "web-1"]);
    assert!(
        v.message.contains("web-1 (revision a, terminating)"),
        "{}",
        v.message
    );
    assert_eq!(v.clause, clause());
    let text = v.to_string();
    // What broke first, with when and where; then the clause it breaks.
    let first = text.lines().next().unwrap_or_default();
    assert!(
        first.starts_with("web-0 of revision b was created while")
            && first.ends_with(&format!("(at +2.000s, timeline entry #{culprit})")),
        "{text}"
    );
    assert!(
        text.lines()
            .nth(1)
            .is_some_and(|l| l
                .starts_with("  breaks KEP-3541 Proposed Recreate Strategy Algorithm: \"all old")),
        "{text}"
    );
    assert!(
        text.contains(&format!("> #{culprit} +2.000s pod web-0 ADDED")),
        "{text}"
    );
    assert!(v.excerpt.len() >= 4 && v.excerpt.len() <= 6);
}

#[test]
fn deletion_order_is_checked() {
    let mut b = TimelineBuilder::new();
    b.ready_set("web", 3, "a");
    b.at(1.0).terminate("web-2");
    let culprit = b.timeline().next_seq();
    b.at(2.0).terminate("web-0");
    b.at(3.0).terminate("web-1");
    let t = b.build();
    let names = ["web-2", "web-1", "web-0"];
    let v = deleted_in_order(&t, &clause(), 0, &names, DeletionMark::Requested).unwrap_err();
    assert_eq!(v.seq, culprit);
    assert_eq!(v.pods, ["web-0", "web-1"]);
    assert!(v
        .message
        .starts_with("web-0 was deleted while web-1 was not yet deleted"));
    // Nobody is gone: with the Gone mark every name is missing.
    let v = deleted_in_order(&t, &clause(), 0, &names, DeletionMark::Gone).unwrap_err();
    assert!(
        v.message.starts_with("never deleted: web-2, web-1, web-0"),
        "{}",
        v.message
    );
}

#[test]
fn a_missing_predecessor_deletion_is_caught_at_the_successor() {
    let mut b = TimelineBuilder::new();
    b.ready_set("web", 2, "a");
    b.at(1.0).delete_pod("web-0");
    let t = b.build();
    let v = deleted_in_order(
        &t,
        &clause(),
        0,
        &["web-1", "web-0"],
        DeletionMark::Requested,
    )
    .unwrap_err();
    assert_eq!(v.pods, ["web-0", "web-1"]);
    assert_eq!(v.at, Duration::from_secs(1));
}

#[test]
fn creation_order_is_checked() {
    let mut b = TimelineBuilder::new();
    b.create_pod("web-1", "a").create_pod("web-0", "a");
    let t = b.build();
    let v = created_in_order(&t, &clause(), 0, &["web-0", "web-1"]).unwrap_err();
    assert_eq!(v.seq, 0);
    assert_eq!(v.pods, ["web-1", "web-0"]);
}

#[test]
fn ordered_ready_creation_before_predecessor_ready_is_caught() {
    let mut b = TimelineBuilder::new();
    b.create_pod("web-0", "a").at(1.0).ready("web-0");
    b.at(2.0).create_pod("web-1", "a");
    b.at(3.0).create_pod("web-2", "a");
    let t = b.build();
    let v = created_after_predecessors_ready(
        &t,
        &clause(),
        0,
        &SetScope::new("web", 3),
        PredecessorWait::Available,
    )
    .unwrap_err();
    assert_eq!(v.seq, 3);
    assert_eq!(v.pods, ["web-2", "web-1"]);
    // minReadySeconds: web-1 waits for web-0 to be available for 5s.
    let scope = SetScope {
        min_ready: Duration::from_secs(5),
        reserved: Default::default(),
        ..SetScope::new("web", 2)
    };
    let v = created_after_predecessors_ready(&t, &clause(), 0, &scope, PredecessorWait::Available)
        .unwrap_err();
    assert_eq!(v.seq, 2);
}

#[test]
fn unavailability_budget_is_checked_at_every_instant() {
    let mut b = TimelineBuilder::new();
    b.ready_set("web", 5, "a");
    let start = b.timeline().next_seq();
    b.at(1.0).terminate("web-4").terminate("web-3");
    b.at(2.0).delete_pod("web-4").delete_pod("web-3");
    b.at(3.0).create_pod("web-4", "b").create_pod("web-3", "b");
    b.at(4.0).ready("web-4").ready("web-3");
    let ok_until = b.timeline().next_seq();
    b.at(5.0).terminate("web-2").terminate("web-1");
    let culprit = b.timeline().next_seq();
    b.at(5.5).unready("web-0");
    let t = b.build();
    let scope = SetScope::new("web", 5);
    let clause = Clause::new(
        "KEP-961 maxUnavailable",
        "at most maxUnavailable pods unavailable",
    );
    let v = at_most_unavailable(&t, &clause, start, &scope, 2).unwrap_err();
    assert_eq!(v.seq, culprit);
    assert_eq!(v.pods, ["web-0", "web-1", "web-2"]);
    assert!(v
        .message
        .starts_with("3 of 5 pods unavailable (at most 2 allowed)"));
    let mut prefix = t.clone();
    prefix = Timeline::from_entries(prefix.entries()[..ok_until as usize].to_vec());
    at_most_unavailable(&prefix, &clause, start, &scope, 2).unwrap();
    assert!(at_most_unavailable(&prefix, &clause, start, &scope, 1).is_err());
    at_most_unavailable(&t, &clause, start, &scope, 3).unwrap();
}

#[test]
fn min_ready_seconds_makes_fresh_pods_unavailable() {
    let mut b = TimelineBuilder::new();
    b.ready_set("web", 2, "a");
    b.at(1.0).terminate("web-1");
    b.at(2.0).delete_pod("web-1").create_pod("web-1", "b");
    b.at(3.0).ready("web-1");
    b.at(4.0).terminate("web-0");
    let t = b.build();
    let scope = SetScope {
        min_ready: Duration::from_secs(10),
        reserved: Default::default(),
        ..SetScope::new("web", 2)
    };
    let v = at_most_unavailable(&t, &Clause::from("x"), 6, &scope, 1).unwrap_err();
    assert_eq!(v.at, Duration::from_secs(4));
    at_most_unavailable(&t, &Clause::from("x"), 6, &SetScope::new("web", 2), 1).unwrap();
}

#[test]
fn claims_must_keep_their_uid() {
    let mut b = TimelineBuilder::new();
    b.ready_set("web", 2, "a");
    b.claim("other-claim");
    let start = b.timeline().next_seq();
    b.at(1.0).delete(Kind::PersistentVolumeClaim, "data-web-1");
    let t = b.build();
    let v = claims_kept_uid(&t, &clause(), start, Some("web")).unwrap_err();
    assert!(v.message.contains("data-web-1"), "{}", v.message);
    assert_eq!(v.seq, start);

    let mut b = TimelineBuilder::new();
    b.ready_set("web", 1, "a");
    let mut t = b.build();
    let mut replaced = Entry::new(
        Duration::from_secs(2),
        Kind::PersistentVolumeClaim,
        Change::Modified,
        json!({"metadata": {"name": "data-web-0", "uid": "other", "resourceVersion": "99"}}),
    );
    replaced.seq = 0;
    let seq = t.push(replaced);
    let v = claims_kept_uid(&t, &clause(), seq, None).unwrap_err();
    assert_eq!(v.seq, seq);
    assert!(v.message.contains("changed uid"), "{}", v.message);
    assert!(is_claim_of("web", "data-web-0"));
    assert!(!is_claim_of("web", "web-0"));
    assert!(!is_claim_of("web", "data-web-x"));
}

#[test]
fn pods_below_the_partition_stay_untouched() {
    let mut b = TimelineBuilder::new();
    b.ready_set("web", 3, "a");
    let start = b.timeline().next_seq();
    b.at(1.0)
        .terminate("web-2")
        .delete_pod("web-2")
        .create_pod("web-2", "b");
    let t = b.build();
    partition_untouched(&t, &clause(), start, "web", 2).unwrap();
    let v = partition_untouched(&t, &clause(), start, "web", 3).unwrap_err();
    assert!(v
        .message
        .contains("web-2 below partition 3 got a deletionTimestamp"));
}

#[test]
fn always_never_and_eventually() {
    let (t, start) = good_recreate();
    let c = clause();
    always(&t, &c, 0, |s, _| {
        if s.pods.len() <= 3 {
            Ok(())
        } else {
            Err(Breach::new("too many", vec![]))
        }
    })
    .unwrap();
    let v = never(&t, &c, start, |s, _| {
        (s.pods_of("web").count() == 0).then(|| Breach::new("no pods", vec![]))
    })
    .unwrap_err();
    assert_eq!(v.at, Duration::from_secs(2));
}

#[test]
fn conditions_and_events() {
    let mut b = TimelineBuilder::new();
    b.set_status("web", json!({"conditions": [{"type": "Progressing", "status": "True", "reason": "RecreateInProgress"}]}));
    b.event(
        "web",
        "Normal",
        "RecreateStarted",
        "Deleting all pods for Recreate update",
    );
    b.set_status("web", json!({"conditions": [{"type": "Progressing", "status": "True", "reason": "RecreateComplete"}]}));
    let t = b.build();
    let c = clause();
    let done = ConditionSpec {
        type_: "Progressing",
        status: "True",
        reason: Some("RecreateComplete"),
        message: None,
    };
    let running = ConditionSpec {
        reason: Some("RecreateInProgress"),
        message: None,
        ..done.clone()
    };
    condition_at_end(&t, &c, "web", &done).unwrap();
    let v = condition_at_end(&t, &c, "web", &running).unwrap_err();
    assert!(
        v.message.contains("Progressing=True (RecreateComplete)"),
        "{}",
        v.message
    );
    condition_seen(&t, &c, 0, "web", &running).unwrap();
    assert!(condition_seen(&t, &c, 2, "web", &running).is_err());
    assert!(condition_at_end(&t, &c, "db", &done).is_err());
    let started = EventSpec {
        reason: "RecreateStarted",
        involved: Some("web"),
        type_: Some("Normal"),
    };
    event_recorded(&t, &c, 0, &started, Some(1)).unwrap();
    assert!(event_recorded(&t, &c, 0, &started, Some(2)).is_err());
    assert!(event_recorded(&t, &c, 2, &started, None).is_err());
    let other = EventSpec {
        involved: Some("db"),
        ..started.clone()
    };
    assert_eq!(event_occurrences(&t, 0, &other), 0);
}

/// Builds a timeline of `n` entries: a 50-pod set rolling through revisions.
fn big_timeline(n: usize) -> Timeline {
    let mut b = TimelineBuilder::new();
    b.ready_set("web", 50, "r0");
    let mut rev = 0;
    let mut secs = 0.0;
    while b.timeline().len() < n {
        rev += 1;
        for i in (0..50).rev() {
            let name = format!("web-{i}");
            secs += 0.01;
            b.at(secs).terminate(&name).delete_pod(&name);
            b.create_pod(&name, &format!("r{rev}")).ready(&name);
        }
    }
    b.build()
}

#[test]
fn checkers_handle_a_large_timeline() {
    let t = big_timeline(5_000);
    let scope = SetScope::new("web", 50);
    let c = clause();
    at_most_unavailable(&t, &c, 150, &scope, 1).unwrap();
    assert!(at_most_unavailable(&t, &c, 0, &scope, 1).is_err());
    claims_kept_uid(&t, &c, 150, Some("web")).unwrap();
    assert!(no_mixed_revisions(&t, &c, 0, "web", None).is_err());
}

#[test]
#[ignore = "timing report; run with --ignored --nocapture"]
fn bench_checkers_on_100k_entries() {
    let t0 = std::time::Instant::now();
    let t = big_timeline(100_000);
    println!("built {} entries in {:?}", t.len(), t0.elapsed());
    let scope = SetScope::new("web", 50);
    let c = clause();
    let names: Vec<String> = (0..50).rev().map(|i| format!("web-{i}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    type Run<'a> = (&'static str, Box<dyn Fn() -> bool + 'a>);
    let runs: Vec<Run<'_>> = vec![
        (
            "at_most_unavailable",
            Box::new(|| at_most_unavailable(&t, &c, 150, &scope, 1).is_ok()),
        ),
        (
            "no_mixed_revisions",
            Box::new(|| no_mixed_revisions(&t, &c, 0, "web", None).is_ok()),
        ),
        (
            "claims_kept_uid",
            Box::new(|| claims_kept_uid(&t, &c, 150, Some("web")).is_ok()),
        ),
        (
            "deleted_in_order",
            Box::new(|| deleted_in_order(&t, &c, 0, &names, DeletionMark::Requested).is_ok()),
        ),
        (
            "created_after_predecessors_ready",
            Box::new(|| {
                created_after_predecessors_ready(&t, &c, 0, &scope, PredecessorWait::Available)
                    .is_ok()
            }),
        ),
        (
            "pod_lives",
            Box::new(|| !crate::history::views::pod_lives(&t).is_empty()),
        ),
    ];
    for (name, f) in runs {
        let s = std::time::Instant::now();
        let ok = f();
        println!("{name}: {:?} (ok={ok})", s.elapsed());
    }
}

#[test]
fn observed_generation_going_back_is_caught() {
    let mut b = TimelineBuilder::new();
    b.set_status("web", json!({"observedGeneration": 1}))
        .at(1.0)
        .set_status("web", json!({"observedGeneration": 2}))
        .at(2.0)
        .set_status("web", json!({"observedGeneration": 2, "readyReplicas": 3}));
    observed_generation_monotonic(b.timeline(), &clause(), "web").unwrap();
    observed_generation_monotonic(b.timeline(), &clause(), "other").unwrap();
    b.at(3.0)
        .set_status("web", json!({"observedGeneration": 1}));
    let v = observed_generation_monotonic(&b.build(), &clause(), "web").unwrap_err();
    assert!(
        v.to_string().contains("observedGeneration 1")
            && v.to_string().contains("after reporting 2"),
        "{v}"
    );
}

/// A second change during a Recreate: pods of the intermediate revision "b"
/// are created while "a" is still terminating, then replaced by "c". Looking
/// only at creations of the final revision ("c") misses the first transition;
/// every creation is checked now.
#[test]
fn mixing_at_an_intermediate_revision_is_caught() {
    let mut b = TimelineBuilder::new();
    b.ready_set("web", 2, "a");
    let start = b.timeline().next_seq();
    b.at(1.0).terminate("web-0").terminate("web-1");
    b.at(1.5).delete_pod("web-0");
    let culprit = b.timeline().next_seq();
    b.at(2.0).create_pod("web-0", "b");
    b.at(2.5).delete_pod("web-1");
    b.at(3.0).terminate("web-0").at(3.5).delete_pod("web-0");
    b.at(4.0).create_pod("web-0", "c").create_pod("web-1", "c");
    let t = b.build();
    assert!(no_mixed_revisions(&t, &clause(), start, "web", Some("c")).is_ok());
    let v = no_mixed_revisions(&t, &clause(), start, "web", None).unwrap_err();
    assert_eq!(v.seq, culprit);
}

#[test]
fn the_budget_is_judged_by_the_spec_in_force_at_each_moment() {
    // Two replicas, one replaced at a time; then scaled to 4 and web-2 and
    // web-3 created. Judged with the last spec (4 replicas) over the whole
    // history, web-2 and web-3 would count as missing from the start and
    // the rollout would break a budget of 1; judged by the spec in force,
    // it never does, and the scale-up itself takes 2 at once.
    let mut b = crate::history::fixture::TimelineBuilder::new();
    b.set_spec("web", serde_json::json!({"replicas": 2}));
    b.ready_set("web", 2, "r1");
    let from = b.timeline().next_seq();
    b.at(1.0).terminate("web-1").delete_pod("web-1");
    b.create_pod("web-1", "r2").ready("web-1");
    b.at(2.0)
        .set_spec("web", serde_json::json!({"replicas": 4}));
    b.create_pod("web-2", "r2").create_pod("web-3", "r2");
    let scope = crate::history::SetScope::new("web", 4);
    let t = b.build();
    let cut = t
        .entries()
        .iter()
        .find(|e| e.kind == Kind::StatefulSet && e.at >= std::time::Duration::from_secs(2))
        .map(|e| e.seq)
        .expect("the scale is recorded");
    // Before the scale: never more than 1 unavailable.
    let before: Timeline = {
        let mut t2 = Timeline::new();
        for e in t.entries().iter().filter(|e| e.seq < cut) {
            t2.push(e.clone());
        }
        t2
    };
    assert!(at_most_unavailable(&before, &clause(), from, &scope, 1).is_ok());
    // After it, 2 at once (the new replicas not yet ready).
    assert!(at_most_unavailable(&t, &clause(), from, &scope, 1).is_err());
}

/// A second template change (revision "c") lands while the first Recreate's
/// pods terminate; a controller that saw it late creates web-0 at the
/// intermediate "b", deletes it, and only then creates the "c" pods. Nothing
/// ever mixed revisions, so only `created_only_at` catches it.
#[test]
fn a_pod_of_an_intermediate_revision_breaks_created_only_at() {
    let mut b = TimelineBuilder::new();
    b.ready_set("web", 2, "a");
    let start = b.timeline().next_seq();
    b.at(1.0).terminate("web-1").terminate("web-0");
    b.at(2.0).delete_pod("web-1").delete_pod("web-0");
    b.at(3.0).create_pod("web-0", "b");
    b.at(3.5).terminate("web-0").at(4.0).delete_pod("web-0");
    b.at(5.0).create_pod("web-0", "c").at(5.5).ready("web-0");
    b.at(6.0).create_pod("web-1", "c").at(6.5).ready("web-1");
    let t = b.build();
    no_mixed_revisions(&t, &clause(), start, "web", None).unwrap();
    let v = created_only_at(&t, &clause(), start, "web", "c").unwrap_err();
    assert!(
        v.message.contains("web-0 was created at revision b"),
        "{}",
        v.message
    );
    // The right controller's history passes.
    let (good, start) = good_recreate();
    created_only_at(&good, &clause(), start, "web", "b").unwrap();
}

#[test]
fn recreate_in_progress_must_come_before_the_new_pods() {
    let spec = ConditionSpec {
        type_: "Progressing",
        status: "True",
        reason: Some("RecreateInProgress"),
        message: None,
    };
    let in_progress = serde_json::json!({"conditions": [
        {"type": "Progressing", "status": "True", "reason": "RecreateInProgress"}
    ]});
    let mut b = TimelineBuilder::new();
    b.ready_set("web", 1, "a");
    let from = b.timeline().next_seq();
    b.delete_pod("web-0")
        .set_status("web", in_progress.clone())
        .create_pod("web-0", "b");
    condition_seen_before_creation(&b.build(), &clause(), from, "web", &spec).unwrap();
    // Reported only once the new pod exists: Phase 1 never said it.
    let mut b = TimelineBuilder::new();
    b.ready_set("web", 1, "a");
    let from = b.timeline().next_seq();
    b.delete_pod("web-0")
        .create_pod("web-0", "b")
        .set_status("web", in_progress);
    let t = b.build();
    condition_seen(&t, &clause(), from, "web", &spec).unwrap();
    let v = condition_seen_before_creation(&t, &clause(), from, "web", &spec).unwrap_err();
    assert!(
        v.to_string()
            .contains("was not reported on web before web-0 was created"),
        "{v}"
    );
}
