use super::*;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use serde_json::json;

fn set() -> StatefulSet {
    serde_json::from_value(json!({
        "metadata": {"name": "web", "namespace": "ns", "uid": "set-uid"},
        "spec": {
            "replicas": 3, "serviceName": "web-svc",
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}, "annotations": {"a": "b"}},
                "spec": {"containers": [{"name": "c", "image": "i"}],
                         "volumes": [{"name": "data", "emptyDir": {}}, {"name": "cache", "emptyDir": {}}]}
            },
            "volumeClaimTemplates": [{"metadata": {"name": "data", "labels": {"tier": "db"}}, "spec": {}}]
        }
    }))
    .unwrap()
}

fn ready_pod(since: Timestamp) -> Pod {
    serde_json::from_value(json!({
        "metadata": {"name": "web-0"},
        "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": Time(since)}]}
    }))
    .unwrap()
}

#[test]
fn ordinals_are_parsed_like_upstream() {
    assert_eq!(parent_and_ordinal("web-0"), Some(("web", 0)));
    assert_eq!(parent_and_ordinal("my-web-12"), Some(("my-web", 12)));
    assert_eq!(parent_and_ordinal("web"), None);
    assert_eq!(parent_and_ordinal("web-"), None);
    assert_eq!(parent_and_ordinal("web-x1"), None);
    // Does not fit an int32.
    assert_eq!(parent_and_ordinal("web-99999999999"), None);
}

#[test]
fn new_pod_carries_identity_revision_and_claims() {
    let set = set();
    let pod = new_pod(&set, &set.spec.template, 2, "web-abc");
    let labels = pod.metadata.labels.clone().unwrap();
    assert_eq!(pod.metadata.name.as_deref(), Some("web-2"));
    assert_eq!(pod.metadata.namespace.as_deref(), Some("ns"));
    assert_eq!(labels["app"], "web");
    assert_eq!(labels[POD_NAME_LABEL], "web-2");
    assert_eq!(labels[POD_INDEX_LABEL], "2");
    assert_eq!(labels[REVISION_LABEL], "web-abc");
    assert_eq!(pod.metadata.annotations.clone().unwrap()["a"], "b");
    let owner = &pod.metadata.owner_references.clone().unwrap()[0];
    assert_eq!(
        (owner.kind.as_str(), owner.uid.as_str()),
        ("StatefulSet", "set-uid")
    );
    assert_eq!(
        (owner.controller, owner.block_owner_deletion),
        (Some(true), Some(true))
    );
    let spec = pod.spec.clone().unwrap();
    assert_eq!(spec.hostname.as_deref(), Some("web-2"));
    assert_eq!(spec.subdomain.as_deref(), Some("web-svc"));
    let volumes = spec.volumes.unwrap();
    // The claim replaces the template volume of the same name; others stay.
    assert_eq!(volumes.len(), 2);
    assert_eq!(volumes[0].name, "data");
    assert_eq!(
        volumes[0]
            .persistent_volume_claim
            .as_ref()
            .unwrap()
            .claim_name,
        "data-web-2"
    );
    assert_eq!(volumes[1].name, "cache");
    assert!(identity_matches(&set, &pod));
    assert!(storage_matches(&set, &pod));
}

#[test]
fn claims_get_template_and_selector_labels() {
    let claims = claims_for(&set(), 1);
    assert_eq!(claims.len(), 1);
    assert_eq!(claims[0].metadata.name.as_deref(), Some("data-web-1"));
    let labels = claims[0].metadata.labels.clone().unwrap();
    assert_eq!(
        (labels["tier"].as_str(), labels["app"].as_str()),
        ("db", "web")
    );
}

#[test]
fn identity_mismatch_is_detected() {
    let set = set();
    let mut pod = new_pod(&set, &set.spec.template, 0, "r");
    pod.metadata.labels.as_mut().unwrap().remove(POD_NAME_LABEL);
    assert!(!identity_matches(&set, &pod));
    pod.spec.as_mut().unwrap().volumes = None;
    assert!(!storage_matches(&set, &pod));
}

#[test]
fn availability_needs_ready_for_strictly_more_than_min_ready_seconds() {
    let now = Timestamp::from_second(1_000_000).unwrap();
    let pod = ready_pod(now - SignedDuration::from_secs(10));
    assert!(is_available(&pod, 0, now));
    assert!(is_available(&pod, 9, now));
    assert!(!is_available(&pod, 10, now));
    assert!(!is_available(&pod, 30, now));
    assert_eq!(
        until_available(&pod, 30, now),
        Some(SignedDuration::from_secs(20))
    );
    assert_eq!(until_available(&pod, 5, now), None);
    assert!(is_healthy(&pod));
    assert!(is_unavailable(&pod, 30, now));
}
