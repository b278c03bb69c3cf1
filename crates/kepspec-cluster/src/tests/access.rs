//! Authentication, the fault hook and switching gates.

use std::time::Duration;

use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, PostParams};
use serde_json::json;

use super::super::faults::{FaultAction, FaultRule};
use super::bad_input::assert_status;
use super::{cluster, post_json, raw};

const CMS: &str = "/api/v1/namespaces/default/configmaps";

#[tokio::test]
async fn bearer_token_is_required() {
    let c = cluster().await;
    assert_status(
        &raw(&c, "GET", CMS, None, b"", false).await,
        401,
        "Unauthorized",
    );
    assert_status(
        &raw(&c, "GET", "/api", None, b"", false).await,
        401,
        "Unauthorized",
    );
    assert_eq!(
        raw(&c, "GET", "/version", None, b"", false).await.status,
        200
    );
    let mut cfg = c.client_config();
    cfg.auth_info.token = Some("wrong".to_string().into());
    let bad = kube::Client::try_from(cfg).unwrap();
    let e = Api::<ConfigMap>::namespaced(bad, "default")
        .list(&Default::default())
        .await
        .unwrap_err();
    assert!(matches!(e, kube::Error::Api(s) if s.code == 401));
    c.shutdown().await;
}

#[tokio::test]
async fn fault_rules_fail_and_delay_requests_and_the_log_records_them() {
    let c = cluster().await;
    let client = c.client().await.unwrap();
    let cms: Api<ConfigMap> = Api::namespaced(client, "default");
    let faults = c.faults();
    faults.add_rule(FaultRule {
        verb: Some("create".into()),
        resource: Some("configmaps".into()),
        actions: vec![
            FaultAction::Delay(Duration::from_millis(50)),
            FaultAction::Fail {
                code: 500,
                message: "injected".into(),
            },
        ],
        times: Some(1),
        ..Default::default()
    });
    let cm: ConfigMap = serde_json::from_value(json!({"metadata": {"name": "f"}})).unwrap();
    let t = std::time::Instant::now();
    let e = cms.create(&PostParams::default(), &cm).await.unwrap_err();
    assert!(t.elapsed() >= Duration::from_millis(50));
    assert!(
        matches!(&e, kube::Error::Api(s) if s.code == 500 && s.message == "injected"),
        "{e:?}"
    );
    cms.create(&PostParams::default(), &cm).await.unwrap();
    let log = faults.requests();
    let creates: Vec<_> = log
        .iter()
        .filter(|r| r.verb == "create" && r.resource == "configmaps")
        .collect();
    assert_eq!(creates.len(), 2);
    assert_eq!(creates[0].namespace, "default");
    assert_eq!(creates[0].path, CMS);
    c.shutdown().await;
}

#[tokio::test]
async fn set_gates_keeps_stored_objects() {
    let c = cluster().await;
    let body = super::client::sts_json("web", 1);
    let r = post_json(&c, "/apis/apps/v1/namespaces/default/statefulsets", &body).await;
    assert_eq!(r.status, 201);
    let gates = super::super::admission::ApiGates {
        statefulset_recreate_strategy: false,
        ..Default::default()
    };
    c.set_gates(gates).await;
    let r = raw(
        &c,
        "GET",
        "/apis/apps/v1/namespaces/default/statefulsets/web",
        None,
        b"",
        true,
    )
    .await;
    assert_eq!(r.status, 200);
    let mut recreate = super::client::sts_json("db", 1);
    recreate["spec"]["updateStrategy"] = json!({"type": "Recreate"});
    let r = post_json(
        &c,
        "/apis/apps/v1/namespaces/default/statefulsets",
        &recreate,
    )
    .await;
    assert_status(&r, 422, "Invalid");
    c.shutdown().await;
}
