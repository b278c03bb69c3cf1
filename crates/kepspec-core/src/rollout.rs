//! Whether a StatefulSet's rollout is complete, read from the set alone, for
//! every update strategy. `kubectl rollout status` answers this for
//! RollingUpdate only (its StatefulSet status viewer refuses the others:
//! "rollout status is only available for RollingUpdate strategy type"),
//! so a Recreate or OnDelete set needs this to be waited for.
//!
//! For RollingUpdate the answer is kubectl's (`StatefulSetStatusViewer` in
//! k8s.io/kubectl/pkg/polymorphichelpers/rollout_status.go): the latest
//! generation observed, every replica ready, and either every pod at or
//! above the partition updated or the current revision promoted. For the
//! other strategies it asks the same of the whole set: the latest generation
//! observed, exactly `replicas` pods, every one updated, ready and
//! available, and the current revision promoted to the update revision.

use k8s_openapi::api::apps::v1::StatefulSet;

/// Where a rollout stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RolloutState {
    /// Complete; the message says at what.
    Complete(String),
    /// Not yet; the message says what it waits for.
    Waiting(String),
}

/// Where the rollout of `set` stands.
pub fn rollout_state(set: &StatefulSet) -> RolloutState {
    let name = set.metadata.name.as_deref().unwrap_or("statefulset");
    let Some(status) = set.status.as_ref() else {
        return RolloutState::Waiting(format!("Waiting for {name}'s status to be written..."));
    };
    let generation = set.metadata.generation.unwrap_or(0);
    if status.observed_generation.unwrap_or(0) < generation {
        return RolloutState::Waiting(format!(
            "Waiting for {name}'s spec update (generation {generation}) to be observed..."
        ));
    }
    let want = set.spec.replicas.unwrap_or(1);
    let n = |v: Option<i32>| v.unwrap_or(0);
    let strategy = set
        .spec
        .update_strategy
        .as_ref()
        .and_then(|u| u.type_.as_deref())
        .unwrap_or("RollingUpdate");
    let update = status.update_revision.as_deref().unwrap_or_default();
    let current = status.current_revision.as_deref().unwrap_or_default();
    if n(status.ready_replicas) < want {
        return RolloutState::Waiting(format!(
            "Waiting for {} pods to be ready...",
            want - n(status.ready_replicas)
        ));
    }
    if strategy == "RollingUpdate" {
        let partition = set
            .spec
            .update_strategy
            .as_ref()
            .and_then(|u| u.rolling_update.as_ref())
            .and_then(|r| r.partition)
            .unwrap_or(0);
        if partition > 0 {
            let staged = want.saturating_sub(partition);
            if n(status.updated_replicas) < staged {
                return RolloutState::Waiting(format!(
                    "Waiting for partitioned roll out to finish: {} out of {staged} new pods have been updated...",
                    n(status.updated_replicas)
                ));
            }
            return RolloutState::Complete(format!(
                "partitioned roll out complete: {} new pods have been updated...",
                n(status.updated_replicas)
            ));
        }
        if update != current {
            return RolloutState::Waiting(format!(
                "waiting for statefulset rolling update to complete {} pods at revision {update}...",
                n(status.updated_replicas)
            ));
        }
        return RolloutState::Complete(format!(
            "statefulset rolling update complete {} pods at revision {current}...",
            n(status.current_replicas)
        ));
    }
    if status.replicas != want {
        return RolloutState::Waiting(format!(
            "Waiting for {name} to have {want} pods ({} now)...",
            status.replicas
        ));
    }
    if n(status.updated_replicas) < want {
        let left = want - n(status.updated_replicas);
        let how = if strategy == "OnDelete" {
            " (OnDelete: each is replaced once it is deleted)"
        } else {
            ""
        };
        return RolloutState::Waiting(format!(
            "Waiting for {left} pods to be replaced at revision {update}{how}..."
        ));
    }
    if n(status.available_replicas) < want {
        return RolloutState::Waiting(format!(
            "Waiting for {} pods to be available...",
            want - n(status.available_replicas)
        ));
    }
    if update != current {
        return RolloutState::Waiting(format!(
            "Waiting for {name}'s current revision to become {update}..."
        ));
    }
    RolloutState::Complete(format!(
        "{strategy} roll out complete: {want} pods at revision {update}"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn set(strategy: serde_json::Value, status: serde_json::Value) -> StatefulSet {
        serde_json::from_value(json!({
            "metadata": {"name": "web", "generation": 2},
            "spec": {"replicas": 3, "serviceName": "web", "selector": {},
                     "template": {}, "updateStrategy": strategy},
            "status": status,
        }))
        .unwrap()
    }

    fn done(updated: i32, available: i32, current: &str) -> serde_json::Value {
        json!({"observedGeneration": 2, "replicas": 3, "readyReplicas": 3,
               "availableReplicas": available, "updatedReplicas": updated,
               "currentReplicas": 3, "currentRevision": current, "updateRevision": "web-b"})
    }

    #[test]
    fn recreate_is_complete_once_every_pod_is_updated_available_and_promoted() {
        let recreate = json!({"type": "Recreate"});
        let complete = rollout_state(&set(recreate.clone(), done(3, 3, "web-b")));
        assert!(
            matches!(complete, RolloutState::Complete(_)),
            "{complete:?}"
        );
        for (status, waits_for) in [
            (done(3, 3, "web-a"), "current revision"),
            (done(2, 3, "web-b"), "replaced"),
            (done(3, 2, "web-b"), "available"),
            (json!({"observedGeneration": 1}), "observed"),
        ] {
            match rollout_state(&set(recreate.clone(), status)) {
                RolloutState::Waiting(m) => assert!(m.contains(waits_for), "{m}"),
                other => panic!("{other:?}"),
            }
        }
    }

    #[test]
    fn rolling_update_reads_as_kubectl_does() {
        let rolling = json!({"type": "RollingUpdate", "rollingUpdate": {"partition": 1}});
        match rollout_state(&set(rolling, done(2, 3, "web-a"))) {
            RolloutState::Complete(m) => {
                assert!(m.starts_with("partitioned roll out complete"), "{m}")
            }
            other => panic!("{other:?}"),
        }
        let plain = json!({"type": "RollingUpdate"});
        assert!(matches!(
            rollout_state(&set(plain, done(3, 3, "web-a"))),
            RolloutState::Waiting(_)
        ));
    }

    #[test]
    fn on_delete_says_it_waits_for_deletions() {
        match rollout_state(&set(json!({"type": "OnDelete"}), done(1, 3, "web-a"))) {
            RolloutState::Waiting(m) => assert!(m.contains("OnDelete"), "{m}"),
            other => panic!("{other:?}"),
        }
    }
}
