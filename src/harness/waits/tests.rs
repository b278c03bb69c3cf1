use super::*;
use crate::history::fixture::TimelineBuilder;
use crate::history::views::template_revision;
use crate::history::{Change, Entry, Kind};
use serde_json::json;

/// An apps/v1 set `web` of `replicas` with a real template, at generation
/// `generation`, whose status reports `update` as its update revision.
fn set(replicas: i32, version: &str, generation: i64, update: &str) -> Value {
    json!({
        "apiVersion": "apps/v1", "kind": "StatefulSet",
        "metadata": {"name": "web", "uid": "web#1", "generation": generation, "resourceVersion": "900"},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "app", "image": "registry.k8s.io/pause:3.10",
                    "env": [{"name": "VERSION", "value": version}]}]}
            }
        },
        "status": {"observedGeneration": generation, "updateRevision": update, "currentRevision": update}
    })
}

fn with_set(b: &mut TimelineBuilder, obj: Value) -> Timeline {
    let mut t = b.build();
    t.push(Entry::new(
        Duration::from_secs(30),
        Kind::StatefulSet,
        Change::Modified,
        obj,
    ));
    t
}

#[test]
fn a_controller_that_never_makes_the_new_revision_is_not_taken_at_its_word() {
    // The template says VERSION 2, the controller still reports the
    // revision of VERSION 1 as its update revision, and every pod runs it:
    // trusting status.updateRevision, the rollout would look complete.
    let old = template_revision(&set(2, "1", 1, "")).expect("a revision for an apps/v1 template");
    let mut b = TimelineBuilder::new();
    b.ready_set("web", 2, &old);
    let t = with_set(&mut b, set(2, "2", 2, &old));
    let gap = rollout_gap(&t, "web", None).expect("the new template's revision is not reported");
    assert!(gap.contains(&old), "{gap}");

    // A controller that reports the new revision and runs every pod at it
    // completes the rollout.
    let new = template_revision(&set(2, "2", 2, "")).expect("a revision");
    let mut b = TimelineBuilder::new();
    b.ready_set("web", 2, &new);
    let t = with_set(&mut b, set(2, "2", 2, &new));
    assert_eq!(rollout_gap(&t, "web", None), None);
}

#[test]
fn a_quiet_window_waits_for_a_controller_that_has_not_seen_the_change() {
    // A dead or slow controller never writes observedGeneration 2: a window
    // of "nothing happens" cannot begin, so it cannot pass.
    let mut b = TimelineBuilder::new();
    let mut obj = set(2, "2", 2, "web-x");
    obj["status"]["observedGeneration"] = json!(1);
    let t = with_set(&mut b, obj);
    let gap = observation_gap(&state_before(&t, t.next_seq())).expect("not observed");
    assert!(gap.contains("generation 2"));

    let t = with_set(&mut TimelineBuilder::new(), set(2, "2", 2, "web-x"));
    assert_eq!(observation_gap(&state_before(&t, t.next_seq())), None);
}
