//! Bad input always gets a Status error (never a panic or a dropped
//! connection); authentication; the fault hook.

use std::time::Duration;

use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, PostParams};
use serde_json::json;

use super::super::faults::{FaultAction, FaultRule};
use super::{cluster, raw};

const CMS: &str = "/api/v1/namespaces/default/configmaps";

fn assert_status(r: &super::RawResponse, code: u16, reason: &str) -> serde_json::Value {
    assert_eq!(r.status, code, "{}", String::from_utf8_lossy(&r.body));
    let s = r.json();
    assert_eq!(s["kind"], "Status");
    assert_eq!(s["apiVersion"], "v1");
    assert_eq!(s["status"], "Failure");
    assert_eq!(s["code"], code);
    assert_eq!(s["reason"], reason);
    assert!(r
        .headers
        .iter()
        .any(|(k, v)| k == "content-type" && v == "application/json"));
    s
}

#[tokio::test]
async fn malformed_bodies_are_bad_requests() {
    let c = cluster().await;
    let s = assert_status(
        &raw(
            &c,
            "POST",
            CMS,
            Some("application/json"),
            b"{\"metadata\": ",
            true,
        )
        .await,
        400,
        "BadRequest",
    );
    assert!(s["message"]
        .as_str()
        .unwrap()
        .starts_with("couldn't get version/kind; json parse error"));
    assert_status(
        &raw(&c, "POST", CMS, Some("application/json"), b"[1,2]", true).await,
        400,
        "BadRequest",
    );
    assert_status(
        &raw(
            &c,
            "POST",
            CMS,
            Some("application/json"),
            &[0xff, 0xfe, 0x00],
            true,
        )
        .await,
        400,
        "BadRequest",
    );
    assert_status(
        &raw(
            &c,
            "POST",
            CMS,
            Some("application/yaml"),
            b"metadata: [unclosed",
            true,
        )
        .await,
        400,
        "BadRequest",
    );
    let ok_yaml = raw(
        &c,
        "POST",
        CMS,
        Some("application/yaml"),
        b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y\n",
        true,
    )
    .await;
    assert_eq!(ok_yaml.status, 201);
    let wrong_kind = json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "k"}});
    assert_status(
        &raw(
            &c,
            "POST",
            CMS,
            Some("application/json"),
            wrong_kind.to_string().as_bytes(),
            true,
        )
        .await,
        400,
        "BadRequest",
    );
    let renamed = json!({"metadata": {"name": "other"}});
    assert_status(
        &raw(
            &c,
            "PUT",
            &format!("{CMS}/y"),
            Some("application/json"),
            renamed.to_string().as_bytes(),
            true,
        )
        .await,
        400,
        "BadRequest",
    );
    assert_status(
        &raw(
            &c,
            "PATCH",
            &format!("{CMS}/y"),
            Some("application/merge-patch+json"),
            b"{not json",
            true,
        )
        .await,
        400,
        "BadRequest",
    );
    assert_status(
        &raw(
            &c,
            "PATCH",
            &format!("{CMS}/y"),
            Some("application/json-patch+json"),
            b"{\"op\":1}",
            true,
        )
        .await,
        400,
        "BadRequest",
    );
    let failing_test = br#"[{"op":"test","path":"/data/k","value":"nope"}]"#;
    let patch_url = format!("{CMS}/y");
    let r = raw(
        &c,
        "PATCH",
        &patch_url,
        Some("application/json-patch+json"),
        failing_test,
        true,
    )
    .await;
    let s = assert_status(&r, 422, "Invalid");
    assert_eq!(
        s["details"]["causes"][0]["reason"],
        "UnexpectedServerResponse"
    );
    assert_status(
        &raw(
            &c,
            "DELETE",
            &format!("{CMS}/y"),
            Some("application/json"),
            b"{oops",
            true,
        )
        .await,
        400,
        "BadRequest",
    );
    assert_status(
        &raw(
            &c,
            "GET",
            &format!("{CMS}?labelSelector=a%20in%20b"),
            None,
            b"",
            true,
        )
        .await,
        400,
        "BadRequest",
    );
    assert_status(
        &raw(
            &c,
            "GET",
            &format!("{CMS}?watch=1&resourceVersion=abc"),
            None,
            b"",
            true,
        )
        .await,
        400,
        "BadRequest",
    );
    assert_status(
        &raw(&c, "GET", &format!("{CMS}?limit=x"), None, b"", true).await,
        400,
        "BadRequest",
    );
    assert_status(
        &raw(
            &c,
            "GET",
            &format!("{CMS}?limit=1&continue=%21%21"),
            None,
            b"",
            true,
        )
        .await,
        400,
        "BadRequest",
    );
    let missing_name = json!({"metadata": {}});
    assert_status(
        &raw(
            &c,
            "POST",
            CMS,
            Some("application/json"),
            missing_name.to_string().as_bytes(),
            true,
        )
        .await,
        422,
        "Invalid",
    );
    c.shutdown().await;
}

#[tokio::test]
async fn unknown_resources_methods_and_media_types() {
    let c = cluster().await;
    let s = assert_status(
        &raw(
            &c,
            "GET",
            "/api/v1/namespaces/default/widgets",
            None,
            b"",
            true,
        )
        .await,
        404,
        "NotFound",
    );
    assert_eq!(
        s["message"],
        "the server could not find the requested resource"
    );
    assert_status(
        &raw(
            &c,
            "GET",
            "/apis/nope.example.com/v1/things",
            None,
            b"",
            true,
        )
        .await,
        404,
        "NotFound",
    );
    assert_status(
        &raw(
            &c,
            "GET",
            "/apis/apps/v1/namespaces/default/statefulsets/web/bogus",
            None,
            b"",
            true,
        )
        .await,
        404,
        "NotFound",
    );
    assert_status(
        &raw(&c, "GET", "/totally/unknown", None, b"", true).await,
        404,
        "NotFound",
    );
    assert_status(
        &raw(&c, "PUT", CMS, Some("application/json"), b"{}", true).await,
        405,
        "MethodNotAllowed",
    );
    assert_status(
        &raw(
            &c,
            "POST",
            "/version",
            Some("application/json"),
            b"{}",
            true,
        )
        .await,
        405,
        "MethodNotAllowed",
    );
    assert_status(
        &raw(&c, "POST", CMS, Some("text/plain"), b"hello", true).await,
        415,
        "UnsupportedMediaType",
    );
    assert_status(
        &raw(&c, "POST", CMS, None, b"{}", true).await,
        415,
        "UnsupportedMediaType",
    );
    assert_status(
        &raw(
            &c,
            "POST",
            CMS,
            Some("application/vnd.kubernetes.protobuf"),
            b"k8s\0",
            true,
        )
        .await,
        415,
        "UnsupportedMediaType",
    );
    let body =
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "m"}}).to_string();
    assert_eq!(
        raw(
            &c,
            "POST",
            CMS,
            Some("application/json"),
            body.as_bytes(),
            true
        )
        .await
        .status,
        201
    );
    assert_status(
        &raw(
            &c,
            "PATCH",
            &format!("{CMS}/m"),
            Some("application/json"),
            b"{}",
            true,
        )
        .await,
        415,
        "UnsupportedMediaType",
    );
    assert_status(
        &raw(
            &c,
            "PATCH",
            &format!("{CMS}/absent"),
            Some("application/merge-patch+json"),
            b"{}",
            true,
        )
        .await,
        404,
        "NotFound",
    );
    c.shutdown().await;
}

#[tokio::test]
async fn oversized_bodies_get_413() {
    let c = cluster().await;
    let mut big = b"{\"metadata\":{\"name\":\"big\"},\"data\":{\"k\":\"".to_vec();
    big.extend(std::iter::repeat_n(b'x', 4 * 1024 * 1024));
    big.extend_from_slice(b"\"}}");
    let s = assert_status(
        &raw(&c, "POST", CMS, Some("application/json"), &big, true).await,
        413,
        "RequestEntityTooLarge",
    );
    assert!(s["message"].as_str().unwrap().contains("3145728"));
    // still serving
    assert_eq!(
        raw(&c, "GET", "/version", None, b"", true).await.status,
        200
    );
    c.shutdown().await;
}

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
    let r = raw(
        &c,
        "POST",
        "/apis/apps/v1/namespaces/default/statefulsets",
        Some("application/json"),
        body.to_string().as_bytes(),
        true,
    )
    .await;
    assert_eq!(r.status, 201);
    let mut gates = super::super::admission::ApiGates::default();
    gates.statefulset_recreate_strategy = false;
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
    let r = raw(
        &c,
        "POST",
        "/apis/apps/v1/namespaces/default/statefulsets",
        Some("application/json"),
        recreate.to_string().as_bytes(),
        true,
    )
    .await;
    assert_status(&r, 422, "Invalid");
    c.shutdown().await;
}

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
    let bodies: [&[u8]; 8] = [
        b"",
        b"{}",
        b"null",
        b"[]",
        b"{\"metadata\":{\"name\":\"x\"},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"busybox:1.36\"}]}}",
        b"{\"metadata\":{\"name\":5,\"finalizers\":\"x\",\"ownerReferences\":{}},\"spec\":[]}",
        b"[{\"op\":\"remove\",\"path\":\"/metadata\"}]",
        b"\x00\x01\x02garbage",
    ];
    for _ in 0..300 {
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
    c.shutdown().await;
}
