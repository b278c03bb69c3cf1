//! Custom resources, Events in both APIs, collections, kubeconfig, dry runs.

use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use kube::api::{Api, ListParams, PostParams};
use kube::core::{DynamicObject, GroupVersionKind};
use kube::discovery::{ApiResource, Discovery};
use serde_json::json;

use super::{cluster, post_json, raw};

/// A custom resource is checked against its CRD's structural schema as
/// kube-apiserver checks it: defaults filled in, then required fields,
/// enums, bounds and patterns, each a cause of one 422 with
/// apiextensions-apiserver's words (kube-rs's `crd_api` example expects
/// the refusal).
#[tokio::test]
async fn custom_resources_keep_to_their_schema() {
    let c = cluster().await;
    let client = c.client().await.unwrap();
    let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "gadgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced",
            "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "required": ["spec"], "properties": {
                    "spec": {"type": "object", "required": ["size"], "properties": {
                        "size": {"type": "integer", "minimum": 1, "maximum": 10},
                        "mode": {"type": "string", "enum": ["fast", "safe"], "default": "safe"},
                        "name": {"type": "string", "pattern": "^[a-z]+$"}}}}}}}]}});
    let r = post_json(
        &c,
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
        &crd,
    )
    .await;
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    let gvk = GroupVersionKind::gvk("example.com", "v1", "Gadget");
    let ar = ApiResource::from_gvk_with_plural(&gvk, "gadgets");
    let gadgets: Api<DynamicObject> = Api::namespaced_with(client.clone(), "default", &ar);
    let obj = |spec: serde_json::Value| -> DynamicObject {
        serde_json::from_value(json!({"apiVersion": "example.com/v1", "kind": "Gadget",
            "metadata": {"name": "g"}, "spec": spec}))
        .unwrap()
    };
    let bad = gadgets
        .create(
            &PostParams::default(),
            &obj(json!({"size": 0, "mode": "slow", "name": "Nope"})),
        )
        .await
        .unwrap_err();
    let kube::Error::Api(status) = bad else {
        panic!("expected a refusal, got {bad:?}");
    };
    assert_eq!((status.code, status.reason.as_str()), (422, "Invalid"));
    for part in [
        "spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1",
        "spec.mode: Unsupported value: \"slow\": supported values: \"fast\", \"safe\"",
        "spec.name: Invalid value: \"Nope\": spec.name in body should match '^[a-z]+$'",
    ] {
        assert!(
            status.message.contains(part),
            "{part:?} not in {}",
            status.message
        );
    }
    let missing = gadgets
        .create(&PostParams::default(), &obj(json!({})))
        .await
        .unwrap_err();
    let kube::Error::Api(status) = missing else {
        panic!("expected a refusal, got {missing:?}");
    };
    assert!(
        status.message.contains("spec.size: Required value"),
        "{}",
        status.message
    );
    let made = gadgets
        .create(&PostParams::default(), &obj(json!({"size": 3})))
        .await
        .unwrap();
    assert_eq!(
        made.data["spec"]["mode"], "safe",
        "the default is filled in"
    );
}

#[tokio::test]
async fn crds_are_served_generically_and_discovered() {
    let c = cluster().await;
    let client = c.client().await.unwrap();
    let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced",
            "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "shortNames": ["wd"]},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}},
                "subresources": {"status": {}, "scale": {"specReplicasPath": ".spec.size", "statusReplicasPath": ".status.size"}}}]}});
    let r = post_json(
        &c,
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
        &crd,
    )
    .await;
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    assert!(r.json()["status"]["conditions"]
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c["type"] == "Established"));
    let discovery = Discovery::new(client.clone()).run().await.unwrap();
    assert!(discovery.has_group("example.com"));
    let gvk = GroupVersionKind::gvk("example.com", "v1", "Widget");
    let ar = ApiResource::from_gvk_with_plural(&gvk, "widgets");
    let widgets: Api<DynamicObject> = Api::namespaced_with(client.clone(), "default", &ar);
    let w: DynamicObject = serde_json::from_value(json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w1"}, "spec": {"size": 2}, "status": {"size": 9}})).unwrap();
    let made = widgets.create(&PostParams::default(), &w).await.unwrap();
    assert!(
        made.data.get("status").is_none(),
        "status is dropped on create with a status subresource"
    );
    assert_eq!(made.metadata.generation, Some(1));
    let l = raw(
        &c,
        "GET",
        "/apis/example.com/v1/namespaces/default/widgets",
        None,
        b"",
        true,
    )
    .await
    .json();
    assert_eq!(l["kind"], "WidgetList");
    assert_eq!(l["items"][0]["kind"], "Widget");
    let sm = raw(
        &c,
        "PATCH",
        "/apis/example.com/v1/namespaces/default/widgets/w1",
        Some("application/strategic-merge-patch+json"),
        b"{}",
        true,
    )
    .await;
    assert_eq!(sm.status, 415);
    let s = raw(
        &c,
        "GET",
        "/apis/example.com/v1/namespaces/default/widgets/w1/scale",
        None,
        b"",
        true,
    )
    .await
    .json();
    assert_eq!(s["spec"]["replicas"], 2);
    // deleting the CRD removes its objects
    let d = raw(
        &c,
        "DELETE",
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com",
        None,
        b"",
        true,
    )
    .await;
    assert_eq!(d.status, 200);
    let gone = raw(
        &c,
        "GET",
        "/apis/example.com/v1/namespaces/default/widgets",
        None,
        b"",
        true,
    )
    .await;
    assert_eq!(gone.status, 404);
    c.shutdown().await;
}

#[tokio::test]
async fn events_share_storage_across_both_apis() {
    let c = cluster().await;
    let ev = json!({"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": {"name": "e1"},
        "eventTime": "2026-01-01T00:00:00.000000Z", "reportingController": "statefulset-controller", "reportingInstance": "x",
        "action": "Create", "reason": "SuccessfulCreate", "type": "Normal", "note": "create Pod web-0 in StatefulSet web successful",
        "regarding": {"kind": "StatefulSet", "name": "web", "namespace": "default"}});
    let r = post_json(&c, "/apis/events.k8s.io/v1/namespaces/default/events", &ev).await;
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    assert_eq!(
        r.json()["note"],
        "create Pod web-0 in StatefulSet web successful"
    );
    let core = raw(
        &c,
        "GET",
        "/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3Dweb",
        None,
        b"",
        true,
    )
    .await
    .json();
    assert_eq!(
        core["items"][0]["message"],
        "create Pod web-0 in StatefulSet web successful"
    );
    assert_eq!(core["items"][0]["involvedObject"]["kind"], "StatefulSet");
    let v1 = raw(
        &c,
        "GET",
        "/apis/events.k8s.io/v1/namespaces/default/events?fieldSelector=regarding.name%3Dweb",
        None,
        b"",
        true,
    )
    .await
    .json();
    assert_eq!(v1["items"][0]["regarding"]["name"], "web");
    let p = raw(
        &c,
        "PATCH",
        "/apis/events.k8s.io/v1/namespaces/default/events/e1",
        Some("application/merge-patch+json"),
        br#"{"note":"changed"}"#,
        true,
    )
    .await;
    assert_eq!(p.json()["note"], "changed");
    let got = raw(
        &c,
        "GET",
        "/api/v1/namespaces/default/events/e1",
        None,
        b"",
        true,
    )
    .await
    .json();
    assert_eq!(got["message"], "changed");
    c.shutdown().await;
}

#[tokio::test]
async fn delete_collection_honours_selectors() {
    let c = cluster().await;
    let client = c.client().await.unwrap();
    let cms: Api<ConfigMap> = Api::namespaced(client, "default");
    for (n, l) in [("a", "x"), ("b", "x"), ("c", "y")] {
        let cm: ConfigMap =
            serde_json::from_value(json!({"metadata": {"name": n, "labels": {"l": l}}})).unwrap();
        cms.create(&PostParams::default(), &cm).await.unwrap();
    }
    let out = cms
        .delete_collection(&Default::default(), &ListParams::default().labels("l=x"))
        .await
        .unwrap();
    let deleted = out.left().unwrap();
    assert_eq!(deleted.items.len(), 2);
    let left: Vec<String> = cms
        .list(&ListParams::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .filter_map(|c| c.metadata.name)
        .collect();
    assert_eq!(left, vec!["c"]);
    c.shutdown().await;
}

#[tokio::test]
async fn kube_client_from_the_written_kubeconfig_works() {
    let c = cluster().await;
    let kc = kube::config::Kubeconfig::from_yaml(&c.kubeconfig_yaml()).unwrap();
    assert_eq!(kc.current_context.as_deref(), Some("kepspec-embedded"));
    let cfg = kube::Config::from_custom_kubeconfig(kc, &Default::default())
        .await
        .unwrap();
    let client = kube::Client::try_from(cfg).unwrap();
    let nss: Api<Namespace> = Api::all(client.clone());
    assert!(nss.get("default").await.is_ok());
    let cms: Api<ConfigMap> = Api::default_namespaced(client);
    let cm: ConfigMap =
        serde_json::from_value(json!({"metadata": {"name": "via-kubeconfig"}})).unwrap();
    let made = cms.create(&PostParams::default(), &cm).await.unwrap();
    assert_eq!(made.metadata.namespace.as_deref(), Some("default"));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("kubeconfig");
    c.write_kubeconfig(&path).unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), c.kubeconfig_yaml());
    c.shutdown().await;
}

#[tokio::test]
async fn dry_run_writes_nothing() {
    let c = cluster().await;
    let cms = "/api/v1/namespaces/default/configmaps";
    let body = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "d"}, "data": {"a": "1"}});
    let r = post_json(&c, &format!("{cms}?dryRun=All"), &body).await;
    assert_eq!(r.status, 201);
    assert_eq!(
        raw(&c, "GET", &format!("{cms}/d"), None, b"", true)
            .await
            .status,
        404
    );
    post_json(&c, cms, &body).await;
    let rv_before = c.store().resource_version();
    let p = raw(
        &c,
        "PATCH",
        &format!("{cms}/d?dryRun=All"),
        Some("application/merge-patch+json"),
        br#"{"data":{"a":"2"}}"#,
        true,
    )
    .await;
    assert_eq!(p.json()["data"]["a"], "2");
    let d = raw(
        &c,
        "DELETE",
        &format!("{cms}/d?dryRun=All"),
        None,
        b"",
        true,
    )
    .await;
    assert_eq!(d.status, 200);
    assert_eq!(c.store().resource_version(), rv_before);
    assert_eq!(
        raw(&c, "GET", &format!("{cms}/d"), None, b"", true)
            .await
            .json()["data"]["a"],
        "1"
    );
    c.shutdown().await;
}

#[tokio::test]
async fn pod_logs_are_empty_once_started_and_errors_match_upstream() {
    let c = cluster().await;
    let pods = "/api/v1/namespaces/default/pods";
    let p = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "l"}, "spec": {"containers": [{"name": "c", "image": "busybox:1.36"}]}});
    post_json(&c, pods, &p).await;
    let r = raw(&c, "GET", &format!("{pods}/l/log"), None, b"", true).await;
    assert_eq!(r.status, 400);
    assert_eq!(
        r.json()["message"],
        "container \"c\" in pod \"l\" is waiting to start: ContainerCreating"
    );
    let st = json!({"status": {"containerStatuses": [{"name": "c", "ready": true, "restartCount": 0, "image": "busybox:1.36", "imageID": "", "state": {"running": {"startedAt": "2026-01-01T00:00:00Z"}}}]}});
    raw(
        &c,
        "PATCH",
        &format!("{pods}/l/status"),
        Some("application/merge-patch+json"),
        st.to_string().as_bytes(),
        true,
    )
    .await;
    let r = raw(
        &c,
        "GET",
        &format!("{pods}/l/log?container=c"),
        None,
        b"",
        true,
    )
    .await;
    assert_eq!(r.status, 200);
    assert!(r.body.is_empty());
    let r = raw(
        &c,
        "PUT",
        &format!("{pods}/l/log"),
        Some("application/json"),
        b"{}",
        true,
    )
    .await;
    assert_eq!(r.status, 405);
    c.shutdown().await;
}

/// A create body naming a resourceVersion is refused as etcd3's store
/// refuses it (a 500 without a reason); "0" is read as no version.
#[tokio::test]
async fn a_resource_version_on_a_create_is_refused() {
    let c = cluster().await;
    let cm = |name: &str, rv: &str| {
        json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": name, "resourceVersion": rv}})
    };
    let r = post_json(&c, "/api/v1/namespaces/default/configmaps", &cm("a", "5")).await;
    assert_eq!(r.status, 500);
    let body = r.json();
    assert_eq!(
        body["message"],
        "resourceVersion should not be set on objects to be created"
    );
    assert!(body.get("reason").is_none(), "{body}");
    let r = post_json(&c, "/api/v1/namespaces/default/configmaps", &cm("b", "0")).await;
    assert_eq!(r.status, 201);
    c.shutdown().await;
}

/// Objects are written kind first, then apiVersion and metadata, in
/// kube-apiserver's Go field order, whatever order the client sent.
#[tokio::test]
async fn objects_are_written_kind_first() {
    let c = cluster().await;
    let cm = json!({"data": {"a": "b"}, "metadata": {"name": "ordered"}, "apiVersion": "v1", "kind": "ConfigMap"});
    let r = post_json(&c, "/api/v1/namespaces/default/configmaps", &cm).await;
    assert_eq!(r.status, 201);
    let r = raw(
        &c,
        "GET",
        "/api/v1/namespaces/default/configmaps/ordered",
        None,
        b"",
        true,
    )
    .await;
    let body = String::from_utf8_lossy(&r.body);
    assert!(
        body.starts_with(r#"{"kind":"ConfigMap","apiVersion":"v1","metadata":{"#),
        "{body}"
    );
    c.shutdown().await;
}
