use super::*;

fn at(second: i64) -> Timestamp {
    Timestamp::from_second(second).unwrap()
}

fn input<'a>(
    observed: Option<&'a StatefulSetStatus>,
    counts: ReplicaCounts,
    progress: Option<Progress>,
) -> StatusInput<'a> {
    StatusInput {
        observed,
        generation: Some(2),
        current_revision: "web-old",
        update_revision: "web-new",
        collision_count: 0,
        counts,
        spec_replicas: 3,
        completes: true,
        progress,
        enforced: None,
        now: at(100),
    }
}

fn progress(reason: &'static str) -> Option<Progress> {
    Some(Progress {
        reason,
        message: "m".to_string(),
    })
}

#[test]
fn complete_rollout_moves_current_revision() {
    let counts = ReplicaCounts {
        replicas: 3,
        ready: 3,
        available: 3,
        current: 0,
        updated: 3,
    };
    let status = build(&input(None, counts, None));
    assert_eq!(status.current_revision.as_deref(), Some("web-new"));
    assert_eq!(status.current_replicas, Some(3));
}

#[test]
fn incomplete_rollout_keeps_current_revision() {
    // One pod not ready yet; availability is not part of the rule (#136831).
    let counts = ReplicaCounts {
        replicas: 3,
        ready: 2,
        available: 0,
        current: 0,
        updated: 3,
    };
    let status = build(&input(None, counts, None));
    assert_eq!(status.current_revision.as_deref(), Some("web-old"));
    let mut on_delete = input(None, ReplicaCounts { ready: 3, ..counts }, None);
    on_delete.completes = false;
    assert_eq!(
        build(&on_delete).current_revision.as_deref(),
        Some("web-old")
    );
}

#[test]
fn every_field_is_explicit() {
    let status = build(&input(None, ReplicaCounts::default(), None));
    assert_eq!(status.ready_replicas, Some(0));
    assert_eq!(status.available_replicas, Some(0));
    assert_eq!(status.collision_count, Some(0));
    assert_eq!(status.observed_generation, Some(2));
    assert_eq!(status.conditions, None);
}

#[test]
fn transition_time_stays_while_status_stays() {
    let first = build(&input(
        None,
        ReplicaCounts::default(),
        progress(RECREATE_IN_PROGRESS),
    ));
    let mut later = input(
        Some(&first),
        ReplicaCounts::default(),
        progress(RECREATE_COMPLETE),
    );
    later.now = at(500);
    let second = build(&later);
    let c = &second.conditions.clone().unwrap()[0];
    assert_eq!(c.reason.as_deref(), Some(RECREATE_COMPLETE));
    assert_eq!(c.last_transition_time, Some(Time(at(100))));
    // Same inputs give the same status: nothing to write.
    assert!(!needs_update(Some(&second), &build(&later)));
}

#[test]
fn transition_time_moves_when_status_changes() {
    let old = StatefulSetCondition {
        type_: Some(PROGRESSING.into()),
        status: Some("False".into()),
        last_transition_time: Some(Time(at(1))),
        ..StatefulSetCondition::default()
    };
    let other = StatefulSetCondition {
        type_: Some("Other".into()),
        ..StatefulSetCondition::default()
    };
    let new = progressing(&Progress {
        reason: ROLLING_UPDATE_COMPLETE,
        message: String::new(),
    });
    let out = set_condition(&[other.clone(), old], new, at(7));
    assert_eq!(out.len(), 2);
    assert_eq!(out[0], other);
    assert_eq!(out[1].last_transition_time, Some(Time(at(7))));
}

#[test]
fn recreate_rollout_is_recognised_by_revision() {
    let status = build(&input(
        None,
        ReplicaCounts::default(),
        Some(Progress {
            reason: RECREATE_IN_PROGRESS,
            message: format!("{} deleting", recreate_prefix("web-new")),
        }),
    ));
    assert!(recreate_recorded(Some(&status), "web-new"));
    assert!(!recreate_recorded(Some(&status), "web-newer"));
    assert!(!recreate_recorded(None, "web-new"));
}

#[test]
fn needs_update_treats_absent_counts_as_zero() {
    let desired = build(&input(None, ReplicaCounts::default(), None));
    let served = StatefulSetStatus {
        ready_replicas: None,
        available_replicas: None,
        current_replicas: None,
        updated_replicas: None,
        collision_count: None,
        ..desired.clone()
    };
    assert!(!needs_update(Some(&served), &desired));
    let changed = StatefulSetStatus {
        ready_replicas: Some(1),
        ..desired.clone()
    };
    assert!(needs_update(Some(&changed), &desired));
}

#[test]
fn counts_follow_upstream_rules() {
    use k8s_openapi::api::core::v1::Pod;
    let pod = |rev: &str, phase: &str, ready: bool, terminating: bool| -> Pod {
        serde_json::from_value(serde_json::json!({
            "metadata": {"name": "web-0", "labels": {"controller-revision-hash": rev},
                         "deletionTimestamp": if terminating { Some(Time(at(50))) } else { None }},
            "status": {"phase": phase, "conditions": [{"type": "Ready", "status": if ready {"True"} else {"False"}, "lastTransitionTime": Time(at(0))}]}
        }))
        .unwrap()
    };
    let pods = [
        pod("web-old", "Running", true, false),
        pod("web-new", "Running", true, false),
        pod("web-new", "Running", true, true),
        pod("web-new", "Pending", false, false),
    ];
    let counts = ReplicaCounts::of(&pods, 60, at(100), "web-old", "web-new");
    assert_eq!(
        counts,
        ReplicaCounts {
            replicas: 4,
            ready: 3,
            available: 3,
            current: 1,
            updated: 2
        }
    );
    let counts = ReplicaCounts::of(&pods, 200, at(100), "web-old", "web-new");
    assert_eq!(counts.available, 0);
}
