//! `pods/<name>/ephemeralcontainers`, as kube-apiserver serves it
//! (pkg/registry/core/pod/strategy.go `podEphemeralContainersStrategy`,
//! pkg/apis/core/validation/validation.go
//! `ValidatePodEphemeralContainersUpdate`).

use serde_json::json;

use super::{cluster, post_json, raw};

const PODS: &str = "/api/v1/namespaces/default/pods";
const SUB: &str = "/api/v1/namespaces/default/pods/p/ephemeralcontainers";

fn debugger(name: &str) -> serde_json::Value {
    json!({"name": name, "image": "busybox", "terminationMessagePolicy": "File",
        "resources": {}, "securityContext": {"capabilities": {"add": ["SYS_PTRACE"]}}})
}

async fn patch(c: &crate::EmbeddedCluster, body: serde_json::Value) -> super::RawResponse {
    raw(
        c,
        "PATCH",
        SUB,
        Some("application/strategic-merge-patch+json"),
        body.to_string().as_bytes(),
        true,
    )
    .await
}

#[tokio::test]
async fn an_ephemeral_container_is_added_and_then_neither_changed_nor_removed() {
    let c = cluster().await;
    let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
        "spec": {"containers": [{"name": "app", "image": "registry.k8s.io/pause:3.10"}]}});
    // Not on create.
    let mut with = pod.clone();
    with["spec"]["ephemeralContainers"] = json!([debugger("dbg")]);
    let r = post_json(&c, PODS, &with).await;
    assert_eq!(r.status, 422);
    assert!(r.json()["message"]
        .as_str()
        .unwrap()
        .contains("spec.ephemeralContainers: Forbidden: cannot be set on create"));
    assert_eq!(post_json(&c, PODS, &pod).await.status, 201);

    // kubectl debug's patch: only spec.ephemeralContainers is taken.
    let r = patch(
        &c,
        json!({"spec": {"ephemeralContainers": [debugger("dbg")], "activeDeadlineSeconds": 5},
            "metadata": {"labels": {"sneaked": "in"}}}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    let out = r.json();
    assert_eq!(out["kind"], "Pod");
    assert_eq!(out["spec"]["ephemeralContainers"][0]["name"], "dbg");
    assert!(out["spec"].get("activeDeadlineSeconds").is_none());
    assert!(out["metadata"]["labels"].get("sneaked").is_none());
    let got = raw(&c, "GET", SUB, None, b"", true).await;
    assert_eq!(
        got.json()["spec"]["ephemeralContainers"][0]["image"],
        "busybox"
    );

    // A second one is added beside it.
    let r = patch(
        &c,
        json!({"spec": {"$setElementOrder/ephemeralContainers": [{"name": "dbg"}, {"name": "dbg2"}],
            "ephemeralContainers": [debugger("dbg2")]}}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    assert_eq!(
        r.json()["spec"]["ephemeralContainers"]
            .as_array()
            .unwrap()
            .len(),
        2
    );

    // Neither changed nor removed.
    let mut changed = debugger("dbg");
    changed["image"] = json!("alpine");
    let r = patch(&c, json!({"spec": {"ephemeralContainers": [changed]}})).await;
    assert_eq!(r.status, 422);
    let msg = r.json()["message"].as_str().unwrap().to_string();
    assert!(
        msg.contains("spec.ephemeralContainers: Forbidden: existing ephemeral containers \"dbg\" may not be changed"),
        "{msg}"
    );
    let r = raw(
        &c,
        "PATCH",
        SUB,
        Some("application/merge-patch+json"),
        json!({"spec": {"ephemeralContainers": [debugger("dbg")]}})
            .to_string()
            .as_bytes(),
        true,
    )
    .await;
    assert_eq!(r.status, 422);
    let msg = r.json()["message"].as_str().unwrap().to_string();
    assert!(
        msg.contains("existing ephemeral containers \"dbg2\" may not be removed"),
        "{msg}"
    );
    c.shutdown().await;
}

#[tokio::test]
async fn an_ephemeral_container_takes_only_the_allowed_fields() {
    let c = cluster().await;
    let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
        "spec": {"containers": [{"name": "app", "image": "registry.k8s.io/pause:3.10"}]}});
    assert_eq!(post_json(&c, PODS, &pod).await.status, 201);
    let mut bad = debugger("app");
    bad["ports"] = json!([{"containerPort": 80}]);
    bad["targetContainerName"] = json!("nope");
    let r = patch(&c, json!({"spec": {"ephemeralContainers": [bad]}})).await;
    assert_eq!(r.status, 422);
    let body = r.json();
    let causes: Vec<(String, String)> = body["details"]["causes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["field"].as_str().unwrap_or("").to_string(),
                c["message"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    for want in [
        (
            "spec.ephemeralContainers[0].name",
            "Duplicate value: \"app\"",
        ),
        (
            "spec.ephemeralContainers[0].targetContainerName",
            "Not found: \"nope\"",
        ),
        (
            "spec.ephemeralContainers[0].ports",
            "Forbidden: cannot be set for an Ephemeral Container",
        ),
    ] {
        assert!(
            causes.iter().any(|(f, m)| f == want.0 && m == want.1),
            "{want:?} not in {causes:?}"
        );
    }
    // A plain pod update may not add one either.
    let mut got = raw(&c, "GET", &format!("{PODS}/p"), None, b"", true)
        .await
        .json();
    got["spec"]["ephemeralContainers"] = json!([debugger("dbg")]);
    let r = raw(
        &c,
        "PUT",
        &format!("{PODS}/p"),
        Some("application/json"),
        got.to_string().as_bytes(),
        true,
    )
    .await;
    assert_eq!(r.status, 422);
    c.shutdown().await;
}
