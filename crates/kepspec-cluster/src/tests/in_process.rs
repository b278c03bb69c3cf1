//! A client in the process (`client_in_process`) against one over the
//! network (`client`), on the same cluster: the same answers byte for
//! byte, the same request log, the same credentials rule, the same retries
//! of a 503, and watches that see the other's writes.

use std::time::Duration;

use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, PostParams, WatchEvent, WatchParams};
use serde_json::json;

use super::cluster;
use crate::faults::{FaultAction, FaultRule};

fn config_map(name: &str) -> ConfigMap {
    serde_json::from_value(json!({
        "metadata": {"name": name, "labels": {"app": "x"}},
        "data": {"k": "v"}
    }))
    .unwrap()
}

async fn text(client: &kube::Client, path: &str) -> (u16, String) {
    let req = http::Request::get(path).body(Vec::new()).unwrap();
    match client.request_text(req).await {
        Ok(body) => (200, body),
        Err(kube::Error::Api(s)) => (s.code, s.message),
        Err(e) => panic!("{path}: {e}"),
    }
}

#[tokio::test]
async fn reads_answer_byte_for_byte_as_over_the_network() {
    let c = cluster().await;
    let net = c.client().await.unwrap();
    let local = c.client_in_process(&c.client_config()).unwrap();
    Api::<ConfigMap>::namespaced(net.clone(), "default")
        .create(&PostParams::default(), &config_map("a"))
        .await
        .unwrap();
    Api::<ConfigMap>::namespaced(local.clone(), "default")
        .create(&PostParams::default(), &config_map("b"))
        .await
        .unwrap();
    for path in [
        "/api/v1/namespaces/default/configmaps/a",
        "/api/v1/namespaces/default/configmaps/b",
        "/api/v1/namespaces/default/configmaps?labelSelector=app%3Dx",
        "/api/v1/namespaces/default/configmaps?limit=1",
        "/api/v1/namespaces/default/configmaps/missing",
        "/apis/apps/v1",
        "/version",
    ] {
        assert_eq!(text(&net, path).await, text(&local, path).await, "{path}");
    }
    c.shutdown().await;
}

#[tokio::test]
async fn the_log_the_credentials_and_the_retries_are_those_of_the_network_client() {
    let c = cluster().await;
    let mut config = c.client_config();
    config.headers.push((
        http::header::USER_AGENT,
        http::HeaderValue::from_static("kepspec-test/in-process"),
    ));
    let local = c.client_in_process(&config).unwrap();
    let cms: Api<ConfigMap> = Api::namespaced(local, "default");

    // A 503 is retried by kube-rs's own retry policy, as over the network.
    c.faults().add_rule(FaultRule {
        verb: Some("create".into()),
        resource: Some("configmaps".into()),
        actions: vec![FaultAction::Fail {
            code: 503,
            message: "injected".into(),
        }],
        times: Some(1),
        ..Default::default()
    });
    cms.create(&PostParams::default(), &config_map("r"))
        .await
        .unwrap();
    let creates: Vec<_> = c
        .faults()
        .requests()
        .into_iter()
        .filter(|r| r.verb == "create" && r.resource == "configmaps")
        .collect();
    assert_eq!(creates.len(), 2, "the refused create and its retry");
    for r in &creates {
        assert_eq!(r.user_agent, "kepspec-test/in-process");
        assert_eq!(r.path, "/api/v1/namespaces/default/configmaps");
        assert_eq!(r.namespace, "default");
    }

    // Without the token, refused as over the network.
    let mut anonymous = c.client_config();
    anonymous.auth_info.token = None;
    let refused = c.client_in_process(&anonymous).unwrap();
    let e = Api::<ConfigMap>::namespaced(refused, "default")
        .get("r")
        .await
        .unwrap_err();
    assert!(matches!(&e, kube::Error::Api(s) if s.code == 401), "{e:?}");
    c.shutdown().await;
}

#[tokio::test]
async fn a_watch_in_the_process_sees_writes_over_the_network() {
    let c = cluster().await;
    let net = c.client().await.unwrap();
    let local = c.client_in_process(&c.client_config()).unwrap();
    let watched: Api<ConfigMap> = Api::namespaced(local, "default");
    let mut events = watched
        .watch(&WatchParams::default().timeout(10), "0")
        .await
        .unwrap()
        .boxed();
    Api::<ConfigMap>::namespaced(net, "default")
        .create(&PostParams::default(), &config_map("w"))
        .await
        .unwrap();
    let first = tokio::time::timeout(Duration::from_secs(5), events.try_next())
        .await
        .expect("an event within 5s")
        .unwrap();
    match first {
        Some(WatchEvent::Added(cm)) => assert_eq!(cm.metadata.name.as_deref(), Some("w")),
        other => panic!("expected ADDED w, got {other:?}"),
    }
    c.shutdown().await;
}
