//! The Advanced StatefulSet stand-in: reserved ordinals, the scale budget,
//! paused, specified deletion, update priorities and the preDelete hook.

use serde_json::json;

use super::super::fixtures::*;
use super::super::kruise::{
    trailing_number, Kruise, LIFECYCLE_STATE, PREPARING_DELETE, SPECIFIED_DELETE,
};
use super::super::{Action, DeleteReason};

/// The world as an Advanced StatefulSet.
fn kruise(world: World) -> World {
    world.edit(|s| s["apiVersion"] = json!("apps.kruise.io/v1beta1"))
}

fn rollout(world: World) -> World {
    world.image("app:2")
}

fn label(mut world: World, ordinal: usize, key: &str, value: &str) -> World {
    std::sync::Arc::make_mut(&mut world.pods[ordinal])
        .metadata
        .labels
        .get_or_insert_with(Default::default)
        .insert(key.into(), value.into());
    world
}

fn updated_pods(plan: &super::super::Plan) -> Vec<Action> {
    plan.actions
        .iter()
        .filter(|a| matches!(a, Action::UpdatePod(_)))
        .cloned()
        .collect()
}

#[test]
fn only_the_kruise_group_is_read() {
    let apps = World::new(1).edit(|s| s["spec"]["reserveOrdinals"] = json!([0]));
    assert_eq!(Kruise::of(&apps.raw), None);
    let k = Kruise::of(&kruise(apps).raw).unwrap();
    assert!(k.reserved.contains(0) && !k.reserved.contains(1));
}

#[test]
fn reserved_ordinals_are_skipped_ranges_included() {
    let world = kruise(World::new(4).edit(|s| s["spec"]["reserveOrdinals"] = json!([1, "3-4"])));
    let k = Kruise::of(&world.raw).unwrap();
    assert_eq!(k.reserved.replicas(0, 4), vec![0, 2, 5, 6]);
    // The worked example of Kruise's getStatefulSetReplicasRange.
    let k = Kruise::of(
        &kruise(World::new(4).edit(|s| s["spec"]["reserveOrdinals"] = json!([1, 3]))).raw,
    )
    .unwrap();
    assert_eq!(k.reserved.replicas(2, 4), vec![2, 4, 5, 6]);
    // The last ordinal a pod name can carry is a replica too, and none
    // follows it.
    assert_eq!(
        k.reserved.replicas(i32::MAX - 1, 3),
        vec![i32::MAX - 1, i32::MAX]
    );
    // A range is skipped whole, however wide.
    let k = Kruise::of(
        &kruise(World::new(2).edit(|s| s["spec"]["reserveOrdinals"] = json!(["0-2147483646"]))).raw,
    )
    .unwrap();
    assert_eq!(k.reserved.replicas(0, 2), vec![i32::MAX]);
}

#[test]
fn replicas_4_reserve_1_creates_0_2_3_4() {
    let world = kruise(
        World::new(4)
            .parallel()
            .edit(|s| s["spec"]["reserveOrdinals"] = json!([1]))
            .with_revision(),
    );
    assert_eq!(
        created_names(&world.plan()),
        names(&["web-0", "web-2", "web-3", "web-4"])
    );
}

#[test]
fn a_pod_at_a_newly_reserved_ordinal_is_deleted_and_the_next_created() {
    let world =
        kruise(World::stable(4).parallel()).edit(|s| s["spec"]["reserveOrdinals"] = json!([3]));
    let plan = world.plan();
    assert_eq!(created_names(&plan), names(&["web-4"]));
    assert_eq!(deleted(&plan), names(&["web-3"]));
    assert_eq!(delete_reasons(&plan), vec![DeleteReason::ScaleDown]);
}

#[test]
fn apps_v1_ignores_reserve_ordinals() {
    let world = World::stable(4)
        .parallel()
        .edit(|s| s["spec"]["reserveOrdinals"] = json!([3]));
    assert!(deleted(&world.plan()).is_empty());
}

#[test]
fn the_scale_budget_limits_creations_to_the_unavailable_left() {
    let world = kruise(
        World::new(6)
            .parallel()
            .edit(|s| s["spec"]["scaleStrategy"] = json!({"maxUnavailable": 2}))
            .with_revision(),
    );
    assert_eq!(created_names(&world.plan()), names(&["web-0", "web-1"]));
    let rev = world.revision_name();
    let world = world
        .pod(0, &rev, State::Ready)
        .pod(1, &rev, State::NotReady);
    assert_eq!(created_names(&world.plan()), names(&["web-2"]));
    let world = world.pod(2, &rev, State::Pending);
    assert!(created_names(&world.plan()).is_empty());
}

#[test]
fn a_percentage_scale_budget_rounds_down_to_at_least_one() {
    let world = kruise(
        World::new(5)
            .parallel()
            .edit(|s| s["spec"]["scaleStrategy"] = json!({"maxUnavailable": "10%"}))
            .with_revision(),
    );
    assert_eq!(created_names(&world.plan()), names(&["web-0"]));
}

#[test]
fn paused_updates_nothing_but_recreates_a_missing_pod() {
    let mut world = rollout(kruise(World::stable(3).parallel()))
        .edit(|s| s["spec"]["updateStrategy"]["rollingUpdate"]["paused"] = json!(true));
    assert!(deleted(&world.plan()).is_empty());
    world.pods.remove(1);
    assert_eq!(created_names(&world.plan()), names(&["web-1"]));
    let unpaused = world
        .edit(|s| s["spec"]["updateStrategy"]["rollingUpdate"]["paused"] = json!(false))
        .pod(1, "whatever", State::Ready);
    assert_eq!(deleted(&unpaused.plan()), names(&["web-2"]));
}

#[test]
fn specified_delete_respects_the_budget_and_ignores_the_partition() {
    let world = kruise(World::stable(4).parallel());
    let world = label(
        label(world, 0, SPECIFIED_DELETE, "true"),
        1,
        SPECIFIED_DELETE,
        "true",
    );
    let plan = world.plan();
    assert_eq!(deleted(&plan), names(&["web-1"]));
    assert_eq!(delete_reasons(&plan), vec![DeleteReason::SpecifiedDelete]);
    let rev = world.revision_name();
    let world = world.pod(2, &rev, State::NotReady);
    assert!(deleted(&world.plan()).is_empty(), "the budget of 1 is used");
    let two = world.max_unavailable(json!(2));
    assert_eq!(deleted(&two.plan()), names(&["web-1"]));
}

#[test]
fn specified_delete_is_ignored_by_apps_v1_and_while_paused() {
    let world = label(World::stable(3).parallel(), 1, SPECIFIED_DELETE, "true");
    assert!(deleted(&world.plan()).is_empty());
    let paused = kruise(world)
        .edit(|s| s["spec"]["updateStrategy"]["rollingUpdate"]["paused"] = json!(true));
    assert!(deleted(&paused.plan()).is_empty());
}

#[test]
fn weight_priority_orders_the_update() {
    let world = rollout(kruise(World::stable(4).parallel())).edit(|s| {
        s["spec"]["updateStrategy"]["rollingUpdate"]["unorderedUpdate"] = json!({
            "priorityStrategy": {"weightPriority": [
                {"weight": 50, "matchSelector": {"matchLabels": {"tier": "a"}}},
                {"weight": 30, "matchSelector": {"matchLabels": {"tier": "b"}}}
            ]}
        })
    });
    let world = label(label(world, 0, "tier", "b"), 1, "tier", "a");
    assert_eq!(deleted(&world.plan()), names(&["web-1"]));
    let two = world.max_unavailable(json!(2));
    assert_eq!(deleted(&two.plan()), names(&["web-1", "web-0"]));
}

#[test]
fn order_priority_takes_the_larger_number_first() {
    let world = rollout(kruise(World::stable(3).parallel())).edit(|s| {
        s["spec"]["updateStrategy"]["rollingUpdate"]["unorderedUpdate"] =
            json!({"priorityStrategy": {"orderPriority": [{"orderedKey": "order"}]}})
    });
    let world = label(
        label(label(world, 0, "order", "o-10"), 1, "order", "o-5"),
        2,
        "order",
        "o-1",
    );
    assert_eq!(deleted(&world.plan()), names(&["web-0"]));
    assert_eq!(trailing_number("sts-10"), 10);
    assert_eq!(trailing_number("5"), 5);
    assert_eq!(trailing_number("none"), 0);
}

#[test]
fn unordered_partition_counts_pods_left_alone() {
    let world = rollout(kruise(World::stable(3).parallel()))
        .edit(|s| {
            s["spec"]["updateStrategy"]["rollingUpdate"]["unorderedUpdate"] =
                json!({"priorityStrategy": {"orderPriority": [{"orderedKey": "order"}]}})
        })
        .partition(2)
        .max_unavailable(json!(3));
    let world = label(
        label(label(world, 0, "order", "9"), 1, "order", "1"),
        2,
        "order",
        "2",
    );
    assert_eq!(deleted(&world.plan()), names(&["web-0"]));
}

#[test]
fn a_pod_without_the_order_key_goes_first() {
    // Kruise's getPodLevel gives a pod with none of the keys level -1
    // (openkruise-facts §6; its API comment says "put behind").
    let world = rollout(kruise(World::stable(3).parallel())).edit(|s| {
        s["spec"]["updateStrategy"]["rollingUpdate"]["unorderedUpdate"] =
            json!({"priorityStrategy": {"orderPriority": [{"orderedKey": "order"}]}})
    });
    let world = label(label(world, 0, "order", "9"), 2, "order", "8");
    assert_eq!(deleted(&world.plan()), names(&["web-1"]));
}

#[test]
fn a_pre_delete_hook_holds_a_condemned_pod_until_its_label_goes() {
    let world = kruise(World::stable(3).parallel())
        .edit(|s| {
            s["spec"]["lifecycle"] =
                json!({"preDelete": {"labelsHandler": {"example.com/hold": "true"}}})
        })
        .replicas(2);
    let held = label(world.clone(), 2, "example.com/hold", "true");
    let plan = held.plan();
    assert!(deleted(&plan).is_empty());
    let updates = updated_pods(&plan);
    assert_eq!(updates.len(), 1);
    let Action::UpdatePod(pod) = &updates[0] else {
        unreachable!()
    };
    assert_eq!(
        pod.metadata.labels.as_ref().unwrap()[LIFECYCLE_STATE],
        PREPARING_DELETE
    );
    let marked = label(held, 2, LIFECYCLE_STATE, PREPARING_DELETE);
    assert!(updated_pods(&marked.plan()).is_empty(), "marked once");
    assert_eq!(deleted(&world.plan()), names(&["web-2"]));
}

fn in_place(world: World, policy: &str) -> World {
    kruise(world).edit(|s| {
        s["spec"]["updateStrategy"]["rollingUpdate"]["podUpdatePolicy"] = json!(policy);
        s["spec"]["template"]["spec"]["readinessGates"] =
            json!([{"conditionType": "InPlaceUpdateReady"}]);
    })
}

fn in_place_world(policy: &str) -> World {
    // The gate is in the template from the start: the only change is the image.
    let world = in_place(World::new(2).parallel(), policy).with_revision();
    let rev = world.revision_name();
    world
        .pod(0, &rev, State::Ready)
        .pod(1, &rev, State::Ready)
        .settle_status()
}

fn patches(plan: &super::super::Plan) -> Vec<(String, serde_json::Value)> {
    plan.actions
        .iter()
        .filter_map(|a| match a {
            Action::PatchPod { name, patch, .. } => Some((name.clone(), patch.clone())),
            _ => None,
        })
        .collect()
}

fn conditions(plan: &super::super::Plan) -> Vec<(String, String)> {
    plan.actions
        .iter()
        .filter_map(|a| match a {
            Action::SetPodConditions { name, conditions } => Some((
                name.clone(),
                conditions
                    .iter()
                    .find(|c| c.type_ == super::super::IN_PLACE_UPDATE_READY)?
                    .status
                    .clone(),
            )),
            _ => None,
        })
        .collect()
}

#[test]
fn an_image_change_is_made_in_place_after_the_condition_goes_false() {
    let world = in_place_world("InPlaceIfPossible").image("app:2");
    let plan = world.plan();
    assert!(deleted(&plan).is_empty(), "no pod is deleted");
    assert_eq!(conditions(&plan), vec![("web-1".into(), "False".into())]);
    let p = patches(&plan);
    assert_eq!(p.len(), 1);
    assert_eq!(p[0].0, "web-1");
    assert_eq!(p[0].1["spec"]["containers"][0]["image"], "app:2");
    assert_eq!(
        p[0].1["metadata"]["labels"]["controller-revision-hash"],
        json!(world.revision_name())
    );
    // The condition write comes first.
    let first = plan
        .actions
        .iter()
        .position(|a| matches!(a, Action::SetPodConditions { .. }))
        .unwrap();
    let patch = plan
        .actions
        .iter()
        .position(|a| matches!(a, Action::PatchPod { .. }))
        .unwrap();
    assert!(first < patch);
}

#[test]
fn a_grace_period_holds_the_images_back() {
    let world = in_place_world("InPlaceIfPossible")
        .edit(|s| {
            s["spec"]["updateStrategy"]["rollingUpdate"]["inPlaceUpdateStrategy"] =
                json!({"gracePeriodSeconds": 3})
        })
        .image("app:2");
    let plan = world.plan();
    let p = patches(&plan);
    assert!(p[0].1.get("spec").is_none(), "images wait: {p:?}");
    assert!(p[0].1["metadata"]["annotations"][super::super::inplace::GRACE_ANNOTATION].is_string());
    assert_eq!(plan.requeue_after, Some(std::time::Duration::from_secs(3)));
}

#[test]
fn another_change_recreates_under_in_place_if_possible_and_waits_under_in_place_only() {
    let env = |w: World| {
        w.edit(|s| {
            s["spec"]["template"]["spec"]["containers"][0]["env"] =
                json!([{"name": "V", "value": "2"}])
        })
    };
    let possible = env(in_place_world("InPlaceIfPossible")).plan();
    assert_eq!(deleted(&possible), names(&["web-1"]));
    assert!(patches(&possible).is_empty());
    let only = env(in_place_world("InPlaceOnly")).plan();
    assert!(deleted(&only).is_empty());
    assert!(patches(&only).is_empty());
}

#[test]
fn images_only_sees_nothing_but_images() {
    let t = |image: &str, env: &str| -> k8s_openapi::api::core::v1::PodTemplateSpec {
        serde_json::from_value(json!({"spec": {"containers": [{"name": "a", "image": image, "env": [{"name": "V", "value": env}]}]}}))
            .unwrap()
    };
    assert!(super::super::images_only(&t("x:1", "1"), &t("x:2", "1")));
    assert!(!super::super::images_only(&t("x:1", "1"), &t("x:1", "2")));
}

#[test]
fn an_in_place_update_completes_when_no_container_reports_its_old_image_id() {
    use super::super::inplace::{completed, STATE_ANNOTATION};
    // `app` changes from app:1 (id a1) to app:2; `sidecar` keeps side:1 (id s1).
    let pod = |app: (&str, &str)| -> k8s_openapi::api::core::v1::Pod {
        let state = json!({"lastContainerStatuses": {"app": {"imageID": "a1"}, "sidecar": {"imageID": "s1"}}});
        serde_json::from_value(json!({
            "metadata": {"name": "web-0", "annotations": {STATE_ANNOTATION: state.to_string()}},
            "spec": {"containers": [{"name": "app", "image": "app:2"}, {"name": "sidecar", "image": "side:1"}]},
            "status": {"containerStatuses": [
                {"name": "app", "image": app.0, "imageID": app.1, "ready": true, "restartCount": 0},
                {"name": "sidecar", "image": "side:1", "imageID": "s1", "ready": true, "restartCount": 0}
            ]}
        }))
        .unwrap()
    };
    assert!(
        !completed(&pod(("app:1", "a1"))),
        "app still runs its old image"
    );
    assert!(!completed(&pod(("app:2", ""))), "app:2 not started yet");
    assert!(
        completed(&pod(("app:2", "a2"))),
        "app runs app:2; the sidecar, unchanged, keeps its image ID"
    );
}
