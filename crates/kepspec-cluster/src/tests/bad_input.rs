//! Bad input always gets a Status error (never a panic or a dropped
//! connection).

use serde_json::{json, Value};

use super::{cluster, post_json, raw};

const CMS: &str = "/api/v1/namespaces/default/configmaps";

pub(super) fn assert_status(r: &super::RawResponse, code: u16, reason: &str) -> serde_json::Value {
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
    assert_status(&post_json(&c, CMS, &wrong_kind).await, 400, "BadRequest");
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
    assert_status(&post_json(&c, CMS, &missing_name).await, 422, "Invalid");
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
        &raw(
            &c,
            "POST",
            CMS,
            Some("application/vnd.kubernetes.protobuf"),
            b"k8s\0",
            true,
        )
        .await,
        400,
        "BadRequest",
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

/// Deeply nested flow collections are refused at once (the YAML scanner is
/// quadratic in their nesting: 80 KB once took 19 s), for creates and
/// server-side apply alike, and the server keeps serving.
#[tokio::test]
async fn deeply_nested_yaml_is_refused_at_once() {
    let c = cluster().await;
    let n = 1_000_000;
    let body = format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: deep\ndata:\n  x: {}{}\n",
        "[".repeat(n),
        "]".repeat(n)
    );
    let apply = format!("{CMS}/deep?fieldManager=t");
    for (method, path, content_type) in [
        ("POST", CMS, "application/yaml"),
        ("PATCH", apply.as_str(), "application/apply-patch+yaml"),
    ] {
        let r = raw(&c, method, path, Some(content_type), body.as_bytes(), true).await;
        let s = assert_status(&r, 400, "BadRequest");
        assert!(
            s["message"].as_str().unwrap().contains("deeper than 128"),
            "{method} {path}: {s}"
        );
    }
    assert_eq!(
        raw(&c, "GET", "/version", None, b"", true).await.status,
        200
    );
    c.shutdown().await;
}

/// kube-apiserver reads a body without Content-Type as JSON (the official
/// Python client sends creates and replaces that way); a pending foreground
/// deletion is a 200 (202 only for `orphanDependents=false`); a watch with
/// `sendInitialEvents` but no `resourceVersionMatch=NotOlderThan` is a 422.
#[tokio::test]
async fn requests_are_read_as_kube_apiserver_reads_them() {
    let c = cluster().await;
    let cm = |name: &str, finalizer: bool| {
        let mut v = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"a": "1"}});
        if finalizer {
            v["metadata"]["finalizers"] = json!(["example.com/hold"]);
        }
        v.to_string()
    };
    let created = raw(&c, "POST", CMS, None, cm("plain", false).as_bytes(), true).await;
    assert_eq!(created.status, 201, "{created:?}");
    let mut replaced: Value = serde_json::from_slice(&created.body).unwrap();
    replaced["data"]["a"] = json!("2");
    let put = raw(
        &c,
        "PUT",
        &format!("{CMS}/plain"),
        None,
        replaced.to_string().as_bytes(),
        true,
    )
    .await;
    assert_eq!(put.status, 200, "{put:?}");
    let none_body = raw(&c, "POST", CMS, None, b"not json", true).await;
    assert_status(&none_body, 400, "BadRequest");

    for (name, options, code) in [
        ("held-fg", r#"{"propagationPolicy":"Foreground"}"#, 200),
        ("held-orphan-false", r#"{"orphanDependents":false}"#, 202),
        ("held-bg", r#"{"propagationPolicy":"Background"}"#, 200),
    ] {
        assert_eq!(
            raw(
                &c,
                "POST",
                CMS,
                Some("application/json"),
                cm(name, true).as_bytes(),
                true
            )
            .await
            .status,
            201
        );
        let del = raw(
            &c,
            "DELETE",
            &format!("{CMS}/{name}"),
            None,
            options.as_bytes(),
            true,
        )
        .await;
        assert_eq!(del.status, code, "{name}: {del:?}");
    }

    let watch = raw(
        &c,
        "GET",
        &format!("{CMS}?watch=true&sendInitialEvents=true"),
        None,
        b"",
        true,
    )
    .await;
    assert_status(&watch, 422, "Invalid");
    let text = String::from_utf8_lossy(&watch.body);
    assert!(
        text.contains("sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"),
        "{text}"
    );
}
