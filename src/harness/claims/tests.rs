use super::*;
use crate::history::fixture::TimelineBuilder;
use serde_json::json;

fn set_ref(uid: &str) -> Value {
    json!({"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "web", "uid": uid, "controller": true, "blockOwnerDeletion": true})
}

fn pod_ref(name: &str, uid: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod", "name": name, "uid": uid, "controller": true, "blockOwnerDeletion": true})
}

fn gap(t: &Timeline, claim: &str, owners: &str) -> Option<String> {
    let want = parse_owners(owners).expect("owners parse");
    owner_gap(&state_before(t, t.next_seq()), claim, &want, &[])
}

#[test]
fn owners_parse_from_the_step_words_and_bad_words_say_why() {
    assert_eq!(parse_owners("nothing").expect("nothing"), Vec::new());
    let two = parse_owners(r#"the StatefulSet "web" and pod "web-2""#).expect("two");
    assert_eq!(two.len(), 2);
    assert_eq!(two[1].kind, Kind::Pod);
    let err = parse_owners(r#"the ConfigMap "x""#).expect_err("unknown kind");
    assert!(err.to_string().contains("an owner is"));
    assert!(parse_owners("pod web-2").is_err());
}

#[test]
fn a_claim_must_name_exactly_its_owners_with_their_current_uids() {
    let mut b = TimelineBuilder::new();
    b.set_spec("web", json!({"replicas": 1}));
    b.ready_set("web", 1, "r1");
    // The fixture's first set is uid web#1, its first pod web-0#1.
    b.claim_owners("data-web-0", json!([set_ref("web#1")]));
    let t = b.timeline();
    assert_eq!(gap(t, "data-web-0", r#"the StatefulSet "web""#), None);
    assert!(
        gap(t, "data-web-0", "nothing").is_some_and(|g| g.contains("also names StatefulSet web"))
    );
    assert!(gap(t, "data-web-0", r#"pod "web-0""#).is_some());

    // A reference to an earlier set of the same name is stale.
    b.claim_owners("data-web-0", json!([set_ref("web#0")]));
    assert!(gap(b.timeline(), "data-web-0", r#"the StatefulSet "web""#)
        .is_some_and(|g| g.contains("not its current uid")));

    // The set must be the controller.
    let mut not_controller = set_ref("web#1");
    not_controller["controller"] = json!(false);
    b.claim_owners("data-web-0", json!([not_controller]));
    assert!(gap(b.timeline(), "data-web-0", r#"the StatefulSet "web""#)
        .is_some_and(|g| g.contains("not its controller")));

    b.claim_owners("data-web-0", json!([pod_ref("web-0", "web-0#1")]));
    assert_eq!(gap(b.timeline(), "data-web-0", r#"pod "web-0""#), None);

    // So must the pod.
    let mut not_controller = pod_ref("web-0", "web-0#1");
    not_controller["controller"] = json!(false);
    b.claim_owners("data-web-0", json!([not_controller]));
    assert!(gap(b.timeline(), "data-web-0", r#"pod "web-0""#)
        .is_some_and(|g| g.contains("names Pod web-0 as an owner that is not its controller")));
}

#[test]
fn a_pod_deleted_before_its_claim_names_it_breaks_crash_safety() {
    let mut b = TimelineBuilder::new();
    b.ready_set("web", 3, "r1");
    b.claim_owners("data-web-2", json!([pod_ref("web-2", "web-2#1")]))
        .terminate("web-2")
        .delete_pod("web-2");
    assert!(owned_before_deleted(b.timeline(), "data-web-2", "web-2").is_ok());

    let mut b = TimelineBuilder::new();
    b.ready_set("web", 3, "r1");
    b.terminate("web-2")
        .claim_owners("data-web-2", json!([pod_ref("web-2", "web-2#1")]))
        .delete_pod("web-2");
    let v = owned_before_deleted(b.timeline(), "data-web-2", "web-2").expect_err("late reference");
    assert!(v.message.contains("deleted before data-web-2 named it"));
}

#[test]
fn a_claim_deleted_while_its_pod_exists_is_caught() {
    let mut b = TimelineBuilder::new();
    b.ready_set("web", 3, "r1");
    b.delete_pod("web-2")
        .delete(Kind::PersistentVolumeClaim, "data-web-2");
    assert!(claim_outlived_pod(b.timeline(), "data-web-2", "web-2").is_ok());

    let mut b = TimelineBuilder::new();
    b.ready_set("web", 3, "r1");
    b.delete(Kind::PersistentVolumeClaim, "data-web-2")
        .delete_pod("web-2");
    assert!(claim_outlived_pod(b.timeline(), "data-web-2", "web-2").is_err());
}

#[test]
fn a_pod_created_on_a_claim_naming_its_earlier_incarnation_is_caught() {
    // web-2#1 is condemned, its claim names it, and it goes; the set is
    // scaled back up while the claim still names it.
    let history = |b: &mut TimelineBuilder| {
        b.set_spec("web", json!({"replicas": 3}));
        b.create_pod("web-2", "r1").claim("data-web-2");
        b.set_spec("web", json!({"replicas": 2}));
        b.claim_owners("data-web-2", json!([pod_ref("web-2", "web-2#1")]));
        b.delete_pod("web-2");
        b.set_spec("web", json!({"replicas": 3}));
    };
    let judge =
        |b: &TimelineBuilder| no_pod_on_stale_claim(b.timeline(), "web", "data-web-2", "web-2");

    // Upstream: the pod waits until the garbage collector deletes the claim.
    let mut waits = TimelineBuilder::new();
    history(&mut waits);
    waits.delete(Kind::PersistentVolumeClaim, "data-web-2");
    waits.claim("data-web-2").create_pod("web-2", "r1");
    assert!(judge(&waits).is_ok());

    // The pod made at once gets the claim that is about to go.
    let mut eager = TimelineBuilder::new();
    history(&mut eager);
    eager.create_pod("web-2", "r1");
    let err = judge(&eager).expect_err("created on a stale claim");
    assert!(err
        .to_string()
        .contains("still named an earlier pod web-2 (uid web-2#1)"));

    // A claim gone before the scale-up leaves nothing to judge.
    let mut vacuous = TimelineBuilder::new();
    vacuous.set_spec("web", json!({"replicas": 3}));
    vacuous.create_pod("web-2", "r1").claim("data-web-2");
    vacuous.set_spec("web", json!({"replicas": 2}));
    vacuous.claim_owners("data-web-2", json!([pod_ref("web-2", "web-2#1")]));
    vacuous.delete_pod("web-2");
    vacuous.delete(Kind::PersistentVolumeClaim, "data-web-2");
    vacuous.set_spec("web", json!({"replicas": 3}));
    vacuous.claim("data-web-2").create_pod("web-2", "r1");
    let err = judge(&vacuous).expect_err("nothing judged");
    assert!(err.to_string().contains("nothing was checked"));
}
