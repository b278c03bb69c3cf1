use super::*;
use crate::history::fixture::TimelineBuilder;
use serde_json::json;

#[test]
fn ordinals_come_from_the_last_numeric_suffix() {
    assert_eq!(split_ordinal("web-0"), Some(("web", 0)));
    assert_eq!(split_ordinal("my-web-12"), Some(("my-web", 12)));
    assert_eq!(split_ordinal("web-x"), None);
    assert_eq!(split_ordinal("web-"), None);
    assert_eq!(split_ordinal("web"), None);
    assert_eq!(split_ordinal("web-99999999999"), None);
    assert_eq!(ordinal_of("web", "web-3"), Some(3));
    assert_eq!(ordinal_of("web", "my-web-3"), None);
    assert_eq!(ordinal_of("my", "my-web-3"), None);
}

#[test]
fn pod_facts_read_revision_readiness_and_deletion() {
    let pod = json!({
        "metadata": {"name": "web-0", "labels": {"controller-revision-hash": "web-abc"},
            "deletionTimestamp": "2026-01-01T00:00:00Z"},
        "spec": {"nodeName": "n1"},
        "status": {"phase": "Running",
            "conditions": [{"type": "Ready", "status": "False"}, {"type": "PodScheduled", "status": "True"}],
            "containerStatuses": [{"state": {"waiting": {"reason": "ImagePullBackOff"}}}]}
    });
    let f = PodFacts::of(&pod);
    assert_eq!(f.revision, Some("web-abc"));
    assert_eq!(f.phase, Some("Running"));
    assert!(!f.ready);
    assert!(f.terminating);
    assert!(f.scheduled);
    assert_eq!(f.waiting_reason, Some("ImagePullBackOff"));
    assert_eq!(PodFacts::of(&json!(null)), PodFacts::default());
}

#[test]
fn availability_honours_min_ready_seconds() {
    let mut b = TimelineBuilder::new();
    b.at(1.0).create_pod("web-0", "a").at(2.0).ready("web-0");
    b.at(4.0).create_pod("web-1", "a");
    let t = b.build();
    let scope = SetScope {
        min_ready: Duration::from_secs(3),
        reserved: Default::default(),
        ..SetScope::new("web", 2)
    };
    let mut s = State::new();
    for e in t.entries() {
        s.apply(e);
    }
    assert_eq!(s.at, Duration::from_secs(4));
    assert_eq!(s.available_in(&scope), 0, "ready for 2s < 3s");
    assert_eq!(s.unavailable_in(&scope), 2);
    assert_eq!(s.unavailable_names(&scope), ["web-0", "web-1"]);
    let p = s.pod_at("web", 0).unwrap();
    assert!(p.available(Duration::from_secs(5), scope.min_ready));
    assert_eq!(s.unavailable_in(&SetScope::new("web", 2)), 1);
    assert_eq!(
        s.unavailable_names(&SetScope::new("web", 3)),
        ["web-1", "web-2 (missing)"]
    );
}

#[test]
fn pods_ready_in_the_initial_list_are_available_at_once() {
    let mut b = TimelineBuilder::new();
    b.ready_set("web", 2, "a");
    let t = b.build();
    let scope = SetScope {
        min_ready: Duration::from_secs(30),
        reserved: Default::default(),
        ..SetScope::new("web", 2)
    };
    let s = state_before(&t, t.next_seq());
    assert_eq!(s.unavailable_in(&scope), 0);
}

#[test]
fn pods_of_ignores_other_sets_with_a_common_prefix() {
    let mut b = TimelineBuilder::new();
    b.create_pod("web-0", "a")
        .create_pod("web-x-0", "a")
        .create_pod("webz-1", "a")
        .create_pod("web-1", "a");
    let t = b.build();
    let s = state_before(&t, 100);
    let names: Vec<_> = s.pods_of("web").map(|p| p.name().to_string()).collect();
    assert_eq!(names, ["web-0", "web-1"]);
}

#[test]
fn pod_lives_track_each_uid() {
    let mut b = TimelineBuilder::new();
    b.at(0.0).create_pod("web-0", "a");
    b.at(1.0).ready("web-0");
    b.at(2.0).unready("web-0");
    b.at(3.0).ready("web-0");
    b.at(4.0).terminate("web-0");
    b.at(5.0).delete_pod("web-0");
    b.at(6.0).create_pod("web-0", "b");
    let t = b.build();
    let lives = pod_lives(&t);
    assert_eq!(lives.len(), 2);
    let s = Duration::from_secs;
    let first = &lives[0];
    assert_eq!(first.uid, "web-0#1");
    assert_eq!(first.ordinal, Some(0));
    assert_eq!(first.revision.as_deref(), Some("a"));
    assert_eq!(first.scheduled, Some(s(1)));
    assert_eq!(first.ready, vec![(s(1), Some(s(2))), (s(3), Some(s(5)))]);
    assert_eq!(first.terminating, Some(s(4)));
    assert_eq!(first.gone, Some(s(5)));
    assert!(!first.gone_inferred);
    assert_eq!((first.first_seq, first.last_seq), (0, 5));
    let second = &lives[1];
    assert_eq!(second.uid, "web-0#2");
    assert_eq!(second.revision.as_deref(), Some("b"));
    assert_eq!(second.gone, None);
    assert!(second.ready.is_empty());
}

#[test]
fn instants_count_by_revision() {
    let mut b = TimelineBuilder::new();
    b.ready_set("web", 2, "a");
    b.at(1.0).terminate("web-1");
    b.at(2.0).delete_pod("web-1");
    b.at(3.0).create_pod("web-1", "b");
    let t = b.build();
    let is = instants(&t, &SetScope::new("web", 2));
    assert_eq!(is.len(), t.len());
    let after_term = &is[is.len() - 3];
    assert_eq!(after_term.terminating, 1);
    assert_eq!(after_term.unavailable, 1);
    assert_eq!(after_term.ready, 1);
    let last = is.last().unwrap();
    assert_eq!(last.alive, 2);
    assert_eq!(last.unavailable, 1);
    assert_eq!(last.by_revision.get("a"), Some(&1));
    assert_eq!(last.by_revision.get("b"), Some(&1));
}

#[test]
fn a_set_has_the_pods_it_controls_and_the_orphans_it_may_adopt() {
    let mut b = TimelineBuilder::new();
    b.set_status("web", json!({})).ready_set("web", 3, "a");
    // web-0 stays the set's; web-1 becomes an orphan, then one being
    // deleted; another controller takes web-2.
    b.pod_owners("web-1", serde_json::Value::Null);
    b.pod_owners(
        "web-2",
        json!([{"apiVersion": "v1", "kind": "ConfigMap", "name": "web", "uid": "cm",
                "controller": true}]),
    );
    let names = |t: &Timeline| {
        state_before(t, t.next_seq())
            .pods_of("web")
            .map(|p| p.name().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(names(b.timeline()), ["web-0", "web-1"]);
    assert!(state_before(b.timeline(), b.timeline().next_seq())
        .pod_at("web", 2)
        .is_none());
    b.terminate("web-1");
    assert_eq!(names(b.timeline()), ["web-0"]);
}

#[test]
fn a_vendor_set_has_the_pods_its_own_kind_controls() {
    let mut b = TimelineBuilder::new();
    b.set_status("web", json!({}))
        .set_kind("web", "example.com/v1", "WidgetSet")
        .create_pod("web-0", "a")
        .create_pod("web-1", "a");
    // web-0 is controlled by the recorded set's kind; web-1 by an apps/v1
    // StatefulSet of the same name, which is not the recorded set.
    b.pod_owners(
        "web-0",
        json!([{"apiVersion": "example.com/v1", "kind": "WidgetSet", "name": "web",
                "uid": "w", "controller": true}]),
    );
    let t = b.timeline();
    let state = state_before(t, t.next_seq());
    let names: Vec<_> = state.pods_of("web").map(|p| p.name().to_string()).collect();
    assert_eq!(names, ["web-0"]);
    assert!(state.pod_at("web", 0).is_some());
    assert!(state.pod_at("web", 1).is_none());
}

#[test]
fn fold_sees_the_state_before_and_scan_after() {
    let mut b = TimelineBuilder::new();
    b.create_pod("web-0", "a").create_pod("web-1", "a");
    let t = b.build();
    let before = fold(&t, 1, |s, _| ControlFlow::Break(s.pods.len()));
    let after = scan(&t, 1, |s, _| ControlFlow::Break(s.pods.len()));
    assert_eq!((before, after), (Some(1), Some(2)));
}
