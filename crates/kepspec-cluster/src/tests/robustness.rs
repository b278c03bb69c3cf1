//! Robustness: random requests never break the server; upstream's guard
//! rails (immortal namespaces, conditional custom resource updates).

use std::time::Duration;

use serde_json::json;

use super::bad_input::assert_status;
use super::{cluster, post_json, raw};

#[tokio::test]
async fn random_requests_always_get_a_response() {
    use rand::{Rng, SeedableRng};
    let c = cluster().await;
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let paths = [
        "/api/v1/namespaces/default/pods",
        "/api/v1/namespaces/default/pods/x",
        "/api/v1/namespaces/default/pods/x/status",
        "/api/v1/namespaces/default/pods/x/binding",
        "/apis/apps/v1/namespaces/default/statefulsets/web/scale",
        "/apis/apps/v1/statefulsets",
        "/api/v1/namespaces",
        "/api/v1/namespaces/x",
        "/api/v1/namespaces/x/finalize",
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
        "/apis/events.k8s.io/v1/namespaces/default/events",
        "/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=0",
        "/api/v1/namespaces/default/configmaps?labelSelector=%28%28&limit=-3",
        "/openapi/v3/apis/apps/v1",
        "/apis/%ff/v1",
    ];
    let methods = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];
    let types = [
        "application/json",
        "application/yaml",
        "application/merge-patch+json",
        "application/json-patch+json",
        "application/strategic-merge-patch+json",
        "application/apply-patch+yaml",
        "text/html",
    ];
    let bodies: [&[u8]; 10] = [
        b"{\"metadata\":{\"name\":\"x\"},\"spec\":\"s\",\"status\":7}",
        b"{\"metadata\":{\"name\":\"x\",\"deletionTimestamp\":\"z\",\"finalizers\":[1,{}]},\"spec\":{\"finalizers\":\"k\"}}",
        b"",
        b"{}",
        b"null",
        b"[]",
        b"{\"metadata\":{\"name\":\"x\"},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"busybox:1.36\"}]}}",
        b"{\"metadata\":{\"name\":5,\"finalizers\":\"x\",\"ownerReferences\":{}},\"spec\":[]}",
        b"[{\"op\":\"remove\",\"path\":\"/metadata\"}]",
        b"\x00\x01\x02garbage",
    ];
    for _ in 0..800 {
        let path = paths[rng.random_range(0..paths.len())];
        let method = methods[rng.random_range(0..methods.len())];
        let ct = types[rng.random_range(0..types.len())];
        let body = bodies[rng.random_range(0..bodies.len())];
        let r = raw(
            &c,
            method,
            &format!(
                "{path}{}",
                if path.contains('?') {
                    "&fieldManager=f"
                } else {
                    "?fieldManager=f"
                }
            ),
            Some(ct),
            body,
            true,
        )
        .await;
        assert!(r.status >= 200 && r.status < 600);
        assert_ne!(
            r.status,
            500,
            "{method} {path} {ct}: {}",
            String::from_utf8_lossy(&r.body)
        );
        if r.status >= 400 {
            let s = r.json();
            assert_eq!(s["kind"], "Status", "{method} {path}");
        }
    }
    assert_eq!(
        raw(&c, "GET", "/version", None, b"", true).await.status,
        200
    );
    // the garbage collector still runs
    let owner = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "owner"}});
    let cms = "/api/v1/namespaces/default/configmaps";
    let o = post_json(&c, cms, &owner).await.json();
    let dep = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "dep",
        "ownerReferences": [{"apiVersion": "v1", "kind": "ConfigMap", "name": "owner", "uid": o["metadata"]["uid"]}]}});
    post_json(&c, cms, &dep).await;
    raw(&c, "DELETE", &format!("{cms}/owner"), None, b"", true).await;
    let mut gone = false;
    for _ in 0..100 {
        if raw(&c, "GET", &format!("{cms}/dep"), None, b"", true)
            .await
            .status
            == 404
        {
            gone = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(gone);
    c.shutdown().await;
}

#[tokio::test]
async fn immortal_namespaces_and_unconditional_custom_resource_updates() {
    let c = cluster().await;
    let r = raw(&c, "DELETE", "/api/v1/namespaces/default", None, b"", true).await;
    let s = assert_status(&r, 403, "Forbidden");
    assert_eq!(
        s["message"],
        "namespaces \"default\" is forbidden: this namespace may not be deleted"
    );
    let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "gadgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced", "names": {"plural": "gadgets", "kind": "Gadget"},
            "versions": [{"name": "v1", "served": true, "storage": true}]}});
    let crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
    assert_eq!(post_json(&c, crds, &crd).await.status, 201);
    let g = json!({"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "g"}, "spec": {"a": 1}});
    let url = "/apis/example.com/v1/namespaces/default/gadgets";
    assert_eq!(post_json(&c, url, &g).await.status, 201);
    let r = raw(
        &c,
        "PUT",
        &format!("{url}/g"),
        Some("application/json"),
        g.to_string().as_bytes(),
        true,
    )
    .await;
    let s = assert_status(&r, 422, "Invalid");
    assert_eq!(s["message"], "Gadget.example.com \"g\" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update");
    c.shutdown().await;
}
