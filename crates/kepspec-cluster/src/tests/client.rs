//! kube-rs clients against the embedded server: CRUD, conflicts, status
//! split, scale, binding, list paging and selectors, CRDs, discovery.

use k8s_openapi::api::apps::v1::StatefulSet;
use k8s_openapi::api::core::v1::{ConfigMap, Namespace, Pod};
use kube::api::{Api, ListParams, PostParams};
use kube::core::GroupVersionKind;
use kube::discovery::Discovery;
use serde_json::json;

use super::{cluster, post_json, raw};

pub(super) fn sts_json(name: &str, replicas: i32) -> serde_json::Value {
    json!({
        "apiVersion": "apps/v1", "kind": "StatefulSet",
        "metadata": {"name": name, "labels": {"app": name}},
        "spec": {
            "replicas": replicas, "serviceName": name,
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}},
                         "spec": {"containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10"}]}}
        }
    })
}

pub(super) fn err_of(e: kube::Error) -> kube::core::Status {
    match e {
        kube::Error::Api(s) => *s,
        other => panic!("expected an API error, got {other:?}"),
    }
}

#[tokio::test]
async fn server_binds_loopback_and_serves_kube_client_crud() {
    let c = cluster().await;
    assert!(c.url().starts_with("http://127.0.0.1:"));
    let client = c.client().await.unwrap();
    let sets: Api<StatefulSet> = Api::namespaced(client.clone(), "default");
    let web: StatefulSet = serde_json::from_value(sts_json("web", 2)).unwrap();
    let created = sets.create(&PostParams::default(), &web).await.unwrap();
    let meta = &created.metadata;
    assert_eq!(meta.generation, Some(1));
    assert_eq!(meta.uid.as_ref().map(String::len), Some(36));
    assert!(meta.creation_timestamp.is_some());
    let again = err_of(sets.create(&PostParams::default(), &web).await.unwrap_err());
    assert_eq!(again.code, 409);
    assert_eq!(again.reason, "AlreadyExists");
    assert_eq!(again.message, "statefulsets.apps \"web\" already exists");

    // stale update -> 409 Conflict with upstream's message
    let mut stale = created.clone();
    let mut fresh = created.clone();
    fresh.spec.replicas = Some(3);
    let updated = sets
        .replace("web", &PostParams::default(), &fresh)
        .await
        .unwrap();
    assert_eq!(updated.metadata.generation, Some(2));
    stale.spec.replicas = Some(4);
    let e = err_of(
        sets.replace("web", &PostParams::default(), &stale)
            .await
            .unwrap_err(),
    );
    assert_eq!(e.code, 409);
    assert_eq!(e.message, "Operation cannot be fulfilled on statefulsets.apps \"web\": the object has been modified; please apply your changes to the latest version and try again");

    // status split: main endpoint ignores status, /status ignores the rest
    let mut with_status = updated.clone();
    with_status.status.as_mut().unwrap().replicas = 7;
    let main = sets
        .replace("web", &PostParams::default(), &with_status)
        .await
        .unwrap();
    assert_eq!(main.status.as_ref().unwrap().replicas, 0);
    let mut st = main.clone();
    st.status.as_mut().unwrap().replicas = 3;
    st.status.as_mut().unwrap().observed_generation = Some(2);
    st.spec.replicas = Some(9);
    let after = sets
        .replace_status("web", &PostParams::default(), &st)
        .await
        .unwrap();
    assert_eq!(after.status.as_ref().unwrap().replicas, 3);
    assert_eq!(after.spec.replicas, Some(3));
    assert_eq!(
        after.metadata.generation,
        Some(2),
        "status writes do not bump generation"
    );

    // metadata-only change does not bump generation
    let mut labeled = after.clone();
    labeled
        .metadata
        .labels
        .get_or_insert_with(Default::default)
        .insert("x".into(), "y".into());
    let l = sets
        .replace("web", &PostParams::default(), &labeled)
        .await
        .unwrap();
    assert_eq!(l.metadata.generation, Some(2));

    // scale subresource
    let scale = sets.get_scale("web").await.unwrap();
    assert_eq!(scale.spec.unwrap().replicas, Some(3));
    assert_eq!(scale.status.unwrap().selector.as_deref(), Some("app=web"));
    let pp = kube::api::PatchParams::default();
    let patch = kube::api::Patch::Merge(json!({"spec": {"replicas": 5}}));
    let s = sets.patch_scale("web", &pp, &patch).await.unwrap();
    assert_eq!(s.spec.unwrap().replicas, Some(5));
    assert_eq!(sets.get("web").await.unwrap().spec.replicas, Some(5));
    c.shutdown().await;
}

#[tokio::test]
async fn missing_namespace_generate_name_and_not_found() {
    let c = cluster().await;
    let client = c.client().await.unwrap();
    let cms: Api<ConfigMap> = Api::namespaced(client.clone(), "nope");
    let cm: ConfigMap = serde_json::from_value(json!({"metadata": {"name": "a"}})).unwrap();
    let e = err_of(cms.create(&PostParams::default(), &cm).await.unwrap_err());
    assert_eq!(
        (e.code, e.message.as_str()),
        (404, "namespaces \"nope\" not found")
    );
    let cms: Api<ConfigMap> = Api::namespaced(client.clone(), "default");
    let g: ConfigMap =
        serde_json::from_value(json!({"metadata": {"generateName": "gen-"}})).unwrap();
    let made = cms.create(&PostParams::default(), &g).await.unwrap();
    assert!(made.metadata.name.unwrap().starts_with("gen-"));
    let e = err_of(cms.get("absent").await.unwrap_err());
    assert_eq!(e.reason, "NotFound");
    assert_eq!(e.message, "configmaps \"absent\" not found");
    let nss: Api<Namespace> = Api::all(client);
    let names: Vec<String> = nss
        .list(&ListParams::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .filter_map(|n| n.metadata.name)
        .collect();
    assert!(names.contains(&"default".to_string()) && names.contains(&"kube-system".to_string()));
    c.shutdown().await;
}

#[tokio::test]
async fn list_paging_and_selectors() {
    let c = cluster().await;
    let client = c.client().await.unwrap();
    let pods: Api<Pod> = Api::namespaced(client.clone(), "default");
    for i in 0..5 {
        let tier = if i % 2 == 0 { "even" } else { "odd" };
        let p: Pod = serde_json::from_value(json!({"metadata": {"name": format!("p{i}"), "labels": {"tier": tier}},
            "spec": {"containers": [{"name": "c", "image": "busybox:1.36"}], "nodeName": if i == 0 { "n1" } else { "" }}})).unwrap();
        pods.create(&PostParams::default(), &p).await.unwrap();
    }
    let page = pods.list(&ListParams::default().limit(2)).await.unwrap();
    assert_eq!(page.items.len(), 2);
    assert_eq!(page.metadata.remaining_item_count, Some(3));
    let token = page.metadata.continue_.clone().unwrap();
    let page2 = pods
        .list(&ListParams::default().limit(2).continue_token(&token))
        .await
        .unwrap();
    assert_eq!(page2.items[0].metadata.name.as_deref(), Some("p2"));
    assert_eq!(
        page2.metadata.resource_version,
        page.metadata.resource_version
    );
    let sel = pods
        .list(&ListParams::default().labels("tier in (odd),!missing"))
        .await
        .unwrap();
    assert_eq!(sel.items.len(), 2);
    let notin = pods
        .list(&ListParams::default().labels("tier notin (odd)"))
        .await
        .unwrap();
    assert_eq!(notin.items.len(), 3);
    let f = pods
        .list(&ListParams::default().fields("spec.nodeName=n1"))
        .await
        .unwrap();
    assert_eq!(f.items.len(), 1);
    let f = pods
        .list(&ListParams::default().fields("metadata.name!=p1"))
        .await
        .unwrap();
    assert_eq!(f.items.len(), 4);
    let bad = raw(
        &c,
        "GET",
        "/api/v1/namespaces/default/pods?fieldSelector=spec.bogus%3Dx",
        None,
        b"",
        true,
    )
    .await;
    assert_eq!(bad.status, 400);
    assert_eq!(
        bad.json()["message"],
        "field label not supported: spec.bogus"
    );
    // list items of built-in types carry no apiVersion/kind, as upstream
    let l = raw(
        &c,
        "GET",
        "/api/v1/namespaces/default/pods",
        None,
        b"",
        true,
    )
    .await
    .json();
    assert_eq!(l["kind"], "PodList");
    assert!(l["items"][0].get("kind").is_none());
    c.shutdown().await;
}

#[tokio::test]
async fn pod_binding_sets_node_and_condition() {
    let c = cluster().await;
    let pods = "/api/v1/namespaces/default/pods";
    let p = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "b"}, "spec": {"containers": [{"name": "c", "image": "busybox:1.36"}]}});
    assert_eq!(post_json(&c, pods, &p).await.status, 201);
    let bind = json!({"apiVersion": "v1", "kind": "Binding", "metadata": {"name": "b"}, "target": {"kind": "Node", "name": "n1"}});
    let r = post_json(&c, &format!("{pods}/b/binding"), &bind).await;
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    let got = raw(&c, "GET", &format!("{pods}/b"), None, b"", true)
        .await
        .json();
    assert_eq!(got["spec"]["nodeName"], "n1");
    assert!(got["status"]["conditions"]
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c["type"] == "PodScheduled" && c["status"] == "True"));
    let r = post_json(&c, &format!("{pods}/b/binding"), &bind).await;
    assert_eq!(r.status, 409);
    assert_eq!(r.json()["message"], "Operation cannot be fulfilled on pods/binding \"b\": pod b is already assigned to node \"n1\"");
    c.shutdown().await;
}

#[tokio::test]
async fn discovery_and_version() {
    let c = cluster().await;
    let client = c.client().await.unwrap();
    let v = client.apiserver_version().await.unwrap();
    assert_eq!(v.git_version, "v1.37.0");
    let d = Discovery::new(client).run().await.unwrap();
    let (ar, caps) = d
        .resolve_gvk(&GroupVersionKind::gvk("apps", "v1", "StatefulSet"))
        .unwrap();
    assert_eq!(ar.plural, "statefulsets");
    assert!(caps.subresources.iter().any(|(s, _)| s.plural == "scale"
        || s.plural == "statefulsets/scale"
        || s.plural.ends_with("scale")));
    c.shutdown().await;
}

/// Reads past the store's window: a continue token and an Exact list whose
/// resourceVersion is no longer kept are 410 Expired with kube-apiserver's
/// messages; an Exact list ahead of the store is 504, as etcd3's store
/// answers (storage/etcd3/errors.go, NewTooLargeResourceVersionError).
#[tokio::test]
async fn reads_past_the_window_expire() {
    use kube::api::ListParams;
    let c = super::cluster_with(crate::ClusterConfig {
        run_nodes: false,
        watch_window: 5,
        ..Default::default()
    })
    .await;
    let client = c.client().await.unwrap();
    let cms: Api<ConfigMap> = Api::namespaced(client.clone(), "default");
    let make = |name: String| -> ConfigMap {
        serde_json::from_value(json!({"metadata": {"name": name}})).unwrap()
    };
    for i in 0..3 {
        cms.create(&PostParams::default(), &make(format!("c{i}")))
            .await
            .unwrap();
    }
    let first = cms.list(&ListParams::default().limit(2)).await.unwrap();
    let token = first.metadata.continue_.clone().unwrap();
    let at = first.metadata.resource_version.clone().unwrap();
    // Within the window: the rest of the snapshot.
    let rest = cms
        .list(&ListParams::default().limit(2).continue_token(&token))
        .await
        .unwrap();
    assert_eq!(rest.items.len(), 1);
    for i in 0..10 {
        cms.create(&PostParams::default(), &make(format!("d{i}")))
            .await
            .unwrap();
    }
    let e = err_of(
        cms.list(&ListParams::default().limit(2).continue_token(&token))
            .await
            .unwrap_err(),
    );
    assert_eq!((e.code, e.reason.as_str()), (410, "Expired"));
    assert!(
        e.message
            .starts_with("The provided continue parameter is too old"),
        "{}",
        e.message
    );
    let exact = ListParams::default()
        .at(&at)
        .matching(kube::api::VersionMatch::Exact);
    let e = err_of(cms.list(&exact).await.unwrap_err());
    assert_eq!(
        (e.code, e.message.as_str()),
        (410, "The resourceVersion for the provided list is too old.")
    );
    // Raw: kube-rs retries a 504 that names a Retry-After, as it would
    // against kube-apiserver.
    let r = super::raw(
        &c,
        "GET",
        "/api/v1/namespaces/default/configmaps?resourceVersion=999999&resourceVersionMatch=Exact",
        None,
        b"",
        true,
    )
    .await;
    assert_eq!(r.status, 504);
    assert_eq!(r.header("retry-after"), Some("1"));
    let message = r.json()["message"].as_str().unwrap_or_default().to_string();
    assert!(
        message.starts_with("Too large resource version: 999999"),
        "{message}"
    );
}

/// Metadata-only writes: kube-rs's `patch_metadata` (its own cluster test
/// `can_operate_on_pod_metadata`) and a raw create, delete and
/// deletecollection asking for PartialObjectMetadata get metadata only, as
/// kube-apiserver's `transformResponseObject` answers every write; an
/// immediate delete's Status stays a Status.
#[tokio::test]
async fn metadata_only_writes() {
    use kube::api::{Patch, PatchParams};
    let c = cluster().await;
    let client = c.client().await.unwrap();
    let pods: Api<Pod> = Api::namespaced(client.clone(), "default");
    let pod: Pod = serde_json::from_value(json!({"metadata": {"name": "p1"},
        "spec": {"containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10"}]}}))
    .unwrap();
    pods.create(&PostParams::default(), &pod).await.unwrap();
    let patch = json!({"metadata": {"labels": {"patched": "yes"}}});
    let meta = pods
        .patch_metadata("p1", &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .unwrap();
    let types = meta.types.clone().unwrap();
    assert_eq!(
        (types.api_version.as_str(), types.kind.as_str()),
        ("meta.k8s.io/v1", "PartialObjectMetadata")
    );
    assert_eq!(meta.metadata.labels.unwrap()["patched"], "yes");
    let accept = (
        "Accept",
        "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1",
    );
    let token = format!("Bearer {}", c.token());
    let auth = ("Authorization", token.as_str());
    let json_body = ("Content-Type", "application/json");
    let body =
        |r: &super::RawResponse| -> serde_json::Value { serde_json::from_slice(&r.body).unwrap() };
    // Create: 201 with the metadata only.
    let cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "m2", "labels": {"k": "v"}}, "data": {"big": "x"}});
    let r = super::request(
        &c,
        "POST",
        "/api/v1/namespaces/default/configmaps",
        &[accept, auth, json_body],
        cm.to_string().as_bytes(),
    )
    .await;
    assert_eq!(r.status, 201);
    let created = body(&r);
    assert_eq!(created["kind"], "PartialObjectMetadata");
    assert_eq!(created["metadata"]["labels"]["k"], "v");
    assert!(created.get("data").is_none(), "{created}");
    // Delete of a pod (its store returns the deleted object): metadata only.
    let r = super::request(
        &c,
        "DELETE",
        "/api/v1/namespaces/default/pods/p1?gracePeriodSeconds=0",
        &[accept, auth],
        b"",
    )
    .await;
    assert_eq!(r.status, 200);
    assert_eq!(body(&r)["kind"], "PartialObjectMetadata", "{:?}", body(&r));
    // Delete of a ConfigMap: a Status, not transformed.
    let r = super::request(
        &c,
        "DELETE",
        "/api/v1/namespaces/default/configmaps/m2",
        &[accept, auth],
        b"",
    )
    .await;
    assert_eq!(r.status, 200);
    assert_eq!(body(&r)["kind"], "Status");
}

/// Metadata-only reads: kube-rs's `get_metadata`, `list_metadata` and a
/// watcher of `PartialObjectMeta` get PartialObjectMetadata(List), not the full objects.
#[tokio::test]
async fn metadata_only_get_list_and_watch() {
    use futures::StreamExt;
    use kube::core::PartialObjectMeta;
    use kube::runtime::{watcher, WatchStreamExt};
    let c = cluster().await;
    let client = c.client().await.unwrap();
    let cms: Api<ConfigMap> = Api::namespaced(client.clone(), "default");
    let cm: ConfigMap = serde_json::from_value(
        json!({"metadata": {"name": "m1", "labels": {"k": "v"}}, "data": {"big": "x".repeat(1000)}}),
    )
    .unwrap();
    cms.create(&PostParams::default(), &cm).await.unwrap();
    let one = cms.get_metadata("m1").await.unwrap();
    let types = one.types.clone().unwrap();
    assert_eq!(
        (types.api_version.as_str(), types.kind.as_str()),
        ("meta.k8s.io/v1", "PartialObjectMetadata")
    );
    assert_eq!(one.metadata.labels.unwrap()["k"], "v");
    let list = cms.list_metadata(&ListParams::default()).await.unwrap();
    assert_eq!(list.items.len(), 1);
    assert!(list.metadata.resource_version.is_some());
    let metas: Api<PartialObjectMeta<ConfigMap>> = Api::namespaced(client.clone(), "default");
    let mut events = watcher(metas, watcher::Config::default())
        .applied_objects()
        .boxed();
    let first = tokio::time::timeout(std::time::Duration::from_secs(10), events.next())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(first.metadata.name.as_deref(), Some("m1"));
}
