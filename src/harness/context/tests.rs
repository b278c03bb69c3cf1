use super::*;
use crate::history::fixture::TimelineBuilder;
use crate::history::views::state_before;
use crate::history::{Change, Entry, Kind, Timeline};
use serde_json::json;
use std::time::Duration;

fn held_at_end(t: &Timeline) -> Held {
    held(&state_before(t, t.next_seq()), "web")
}

/// A set of `replicas` whose spec is `spec` (merged over the replicas) and
/// whose status reports `update`.
fn set(b: &mut TimelineBuilder, replicas: i32, spec: Value, update: &str) {
    let mut full = json!({"replicas": replicas});
    if let (Some(full), Some(extra)) = (full.as_object_mut(), spec.as_object()) {
        full.extend(extra.clone());
    }
    b.set_spec("web", full)
        .set_status("web", json!({"updateRevision": update}));
}

#[test]
fn pods_at_the_update_revision_with_their_replicas_have_nothing_to_do() {
    let mut b = TimelineBuilder::new();
    set(&mut b, 3, json!({}), "r1");
    b.ready_set("web", 3, "r1");
    assert_eq!(held_at_end(&b.build()), Held::NothingToDo);
}

#[test]
fn old_pods_are_held_by_the_partition_by_on_delete_or_by_an_unready_update() {
    let mut b = TimelineBuilder::new();
    set(
        &mut b,
        3,
        json!({"updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": 3}}}),
        "r2",
    );
    b.ready_set("web", 3, "r1");
    assert_eq!(held_at_end(b.timeline()), Held::Partition);

    let mut b = TimelineBuilder::new();
    set(
        &mut b,
        3,
        json!({"updateStrategy": {"type": "OnDelete"}}),
        "r2",
    );
    b.ready_set("web", 3, "r1");
    assert_eq!(held_at_end(b.timeline()), Held::OnDelete);

    let mut b = TimelineBuilder::new();
    set(&mut b, 3, json!({}), "r2");
    b.ready_set("web", 2, "r1").create_pod("web-2", "r2");
    assert_eq!(held_at_end(b.timeline()), Held::RolloutWaits);
}

#[test]
fn ordered_ready_holds_creation_and_scale_down_on_an_unready_predecessor() {
    let mut b = TimelineBuilder::new();
    set(&mut b, 3, json!({}), "r1");
    b.ready_set("web", 1, "r1").create_pod("web-1", "r1");
    assert_eq!(held_at_end(b.timeline()), Held::OrderedCreation);

    let mut b = TimelineBuilder::new();
    set(&mut b, 2, json!({}), "r1");
    b.ready_set("web", 3, "r1").unready("web-0");
    assert_eq!(held_at_end(b.timeline()), Held::OrderedTermination);

    // Parallel waits on nothing: a quiet window there has no rule to cite.
    let mut b = TimelineBuilder::new();
    set(&mut b, 3, json!({"podManagementPolicy": "Parallel"}), "r1");
    b.ready_set("web", 1, "r1").create_pod("web-1", "r1");
    assert_eq!(held_at_end(b.timeline()), Held::Unexplained);
}

#[test]
fn a_set_nobody_acted_on_is_unexplained() {
    let mut b = TimelineBuilder::new();
    set(
        &mut b,
        2,
        json!({"updateStrategy": {"type": "Recreate"}}),
        "r1",
    );
    assert_eq!(held_at_end(b.timeline()), Held::Unexplained);
}

fn kruise(t: &mut Timeline, spec: Value) {
    let obj = json!({"apiVersion": "apps.kruise.io/v1beta1", "kind": "StatefulSet",
        "metadata": {"name": "web", "uid": "web#1", "generation": 2, "resourceVersion": "999"},
        "spec": spec, "status": {"updateRevision": "r2"}});
    t.push(Entry::new(
        Duration::from_secs(60),
        Kind::StatefulSet,
        Change::Modified,
        obj,
    ));
}

#[test]
fn open_kruise_sets_are_held_by_paused_the_hook_or_reserved_ordinals() {
    let mut b = TimelineBuilder::new();
    b.ready_set("web", 3, "r1");
    let mut t = b.build();
    kruise(
        &mut t,
        json!({"replicas": 3, "updateStrategy": {"rollingUpdate": {"paused": true}}}),
    );
    assert_eq!(held_at_end(&t), Held::Paused);

    let mut b = TimelineBuilder::new();
    b.ready_set("web", 3, "r2");
    let mut t = b.build();
    kruise(
        &mut t,
        json!({"replicas": 2, "lifecycle": {"preDelete": {"labelsHandler": {"hold": "true"}}}}),
    );
    assert_eq!(held_at_end(&t), Held::PreDeleteHook);

    let mut b = TimelineBuilder::new();
    b.ready_set("web", 3, "r2").delete_pod("web-1");
    let mut t = b.build();
    kruise(&mut t, json!({"replicas": 2, "reserveOrdinals": [1]}));
    assert_eq!(held_at_end(&t), Held::Reserved);
}

#[test]
fn a_field_wait_cites_identity_only_for_identity_fields() {
    let id = |p: &str| field_clause(p).id;
    assert!(id("/spec/hostname").contains("Identity"));
    assert!(id("/metadata/labels/lifecycle.apps.kruise.io~1state").contains("OpenKruise"));
    assert!(id("/status/phase").contains("narrative"));
}

#[test]
fn which_pods_a_set_runs_cites_reserved_ordinals_only_where_a_set_reserves_them() {
    let kruise = json!({"apiVersion": "apps.kruise.io/v1beta1", "spec": {"reserveOrdinals": [1]}});
    let apps = json!({"apiVersion": "apps/v1", "spec": {"ordinals": {"start": 2}}});
    assert!(range_clause(Some(&kruise)).id.contains("OpenKruise"));
    assert!(range_clause(Some(&apps)).id.contains("Identity"));
    assert!(range_clause(None).id.contains("Identity"));
}

#[test]
fn a_pod_the_controller_already_began_deleting_still_holds_its_ordinal() {
    // Partition 3 covers every pod; a wrong controller already deleted
    // web-2 when the window begins: the window is still about the partition.
    let mut b = TimelineBuilder::new();
    set(
        &mut b,
        3,
        json!({"updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": 3}}}),
        "r2",
    );
    b.ready_set("web", 3, "r1").terminate("web-2");
    assert_eq!(held_at_end(b.timeline()), Held::Partition);
}

#[test]
fn a_missing_replica_whose_claim_is_being_deleted_is_held_by_the_claim() {
    let mut b = TimelineBuilder::new();
    set(&mut b, 3, json!({}), "r2");
    b.ready_set("web", 3, "r1").delete_pod("web-2");
    b.claim_owners("data-web-2", json!([]));
    let mut t = b.build();
    let mut claim = t
        .entries()
        .iter()
        .rev()
        .find(|e| e.name == "data-web-2")
        .map(|e| Value::clone(&e.object))
        .expect("claim recorded");
    claim["metadata"]["deletionTimestamp"] = json!("2026-01-01T00:00:00Z");
    claim["metadata"]["resourceVersion"] = json!("998");
    t.push(Entry::new(
        Duration::from_secs(50),
        Kind::PersistentVolumeClaim,
        Change::Modified,
        claim,
    ));
    assert_eq!(held_at_end(&t), Held::ClaimBeingDeleted);
}
