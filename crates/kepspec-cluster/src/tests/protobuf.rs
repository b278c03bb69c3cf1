//! Protobuf on the wire: kubectl's typed commands (client-go sends their
//! bodies in protobuf and takes protobuf answers first), and a client
//! configured as kube-controller-manager configures itself
//! (`application/vnd.kubernetes.protobuf` bodies, `Accept:
//! application/vnd.kubernetes.protobuf,application/json`) creating,
//! reading, listing, watching and deleting.

use serde_json::{json, Value};

use super::kubectl::{kubectl_paths, Kubectl};
use super::{cluster, request, RawResponse};
use crate::proto;

const PB: &str = "application/vnd.kubernetes.protobuf";
const ACCEPT: &str = "application/vnd.kubernetes.protobuf,application/json";

/// kubectl's typed creates, `auth can-i` and a delete, with kubectl 1.32
/// and 1.37: each object arrives as sent, zero values as Go's types keep
/// them (a Deployment of 0 replicas keeps its 0; a ClusterIP Service's
/// port carries no nodePort).
#[tokio::test]
async fn kubectl_typed_commands_send_and_read_protobuf() {
    for bin in kubectl_paths() {
        let c = cluster().await;
        let k = Kubectl::new(&c, bin);
        k.run(&["create", "namespace", "team"]).await;
        let n = ["-n", "team"];
        let run = |args: &[&str]| {
            let mut all: Vec<&str> = n.to_vec();
            all.extend_from_slice(args);
            all.iter().map(|s| s.to_string()).collect::<Vec<_>>()
        };
        for args in [
            run(&["create", "configmap", "cm", "--from-literal=a=b"]),
            run(&["create", "secret", "generic", "s", "--from-literal=k=v"]),
            run(&["create", "deployment", "d", "--image=nginx", "--replicas=0"]),
            run(&["create", "service", "clusterip", "svc", "--tcp=80:8080"]),
            run(&["create", "job", "j", "--image=busybox"]),
            run(&["create", "role", "r", "--verb=get", "--resource=pods"]),
            run(&["create", "rolebinding", "rb", "--role=r", "--user=u"]),
            run(&[
                "create",
                "poddisruptionbudget",
                "pdb",
                "--selector=app=x",
                "--min-available=50%",
            ]),
            run(&["run", "p", "--image=registry.k8s.io/pause:3.10"]),
        ] {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            k.run(&args).await;
        }
        let get = |kind: &'static str, name: &'static str| {
            let k = &k;
            async move {
                let out = k
                    .run(&["-n", "team", "get", kind, name, "-o", "json"])
                    .await;
                serde_json::from_str::<Value>(&out).expect("JSON")
            }
        };
        assert_eq!(get("configmap", "cm").await["data"], json!({"a": "b"}));
        assert_eq!(get("secret", "s").await["data"], json!({"k": "dg=="}));
        assert_eq!(get("deployment", "d").await["spec"]["replicas"], 0);
        let port = get("service", "svc").await["spec"]["ports"][0].clone();
        assert_eq!(
            port,
            json!({"name": "80-8080", "port": 80, "protocol": "TCP", "targetPort": 8080})
        );
        assert_eq!(get("pdb", "pdb").await["spec"]["minAvailable"], "50%");
        let rb = get("rolebinding", "rb").await;
        assert_eq!(rb["roleRef"]["name"], "r");
        assert_eq!(rb["subjects"][0]["name"], "u");
        assert_eq!(
            k.run(&["auth", "can-i", "create", "pods"]).await.trim(),
            "yes"
        );
        k.run(&["-n", "team", "delete", "configmap", "cm"]).await;
        let err = k.fail(&["-n", "team", "get", "configmap", "cm"]).await;
        assert!(
            err.contains("NotFound") || err.contains("not found"),
            "{err}"
        );
        c.shutdown().await;
    }
}

fn object(r: &RawResponse) -> Value {
    assert_eq!(
        r.header("content-type"),
        Some(PB),
        "status {}: {}",
        r.status,
        String::from_utf8_lossy(&r.body)
    );
    proto::decode(&r.body).unwrap_or_else(|e| panic!("{e}"))
}

/// The protobuf frames of a watch body: (type, object).
fn frames(mut b: &[u8]) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    while b.len() >= 4 {
        let n = u32::from_be_bytes([b[0], b[1], b[2], b[3]]) as usize;
        let event = proto::wire::fields(&b[4..4 + n]).expect("a WatchEvent");
        let text = |num| {
            event.iter().find_map(|(f, r)| match r {
                proto::wire::Raw::Len(v) if *f == num => Some(*v),
                _ => None,
            })
        };
        let kind = String::from_utf8_lossy(text(1).expect("type")).into_owned();
        let ext = proto::wire::fields(text(2).expect("object")).expect("a RawExtension");
        let Some((1, proto::wire::Raw::Len(raw))) = ext.first().copied() else {
            panic!("no raw object");
        };
        out.push((kind, proto::decode(raw).expect("the object")));
        b = &b[4 + n..];
    }
    assert!(b.is_empty(), "a torn frame");
    out
}

/// The headers of a client configured for protobuf (bodies in protobuf,
/// protobuf answers first), authorized by `token` (`Bearer ...`).
fn protobuf_client(token: &str) -> [(&str, &str); 3] {
    [
        ("Authorization", token),
        ("Content-Type", PB),
        ("Accept", ACCEPT),
    ]
}

/// A client configured for protobuf, as kube-controller-manager is: every
/// answer comes back in protobuf and reads back into what was written.
#[tokio::test]
async fn a_protobuf_client_creates_reads_lists_watches_and_deletes() {
    let c = cluster().await;
    let token = format!("Bearer {}", c.token());
    let h = protobuf_client(&token);
    let cm = json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "cm", "labels": {"app": "web"}}, "data": {"a": "b"}});
    let body = proto::encode(&cm).expect("encodes");
    let path = "/api/v1/namespaces/default/configmaps";
    let created = request(&c, "POST", path, &h, &body).await;
    assert_eq!(created.status, 201);
    let created = object(&created);
    assert_eq!(created["data"], json!({"a": "b"}));
    assert_eq!(created["metadata"]["labels"], json!({"app": "web"}));
    let rv = created["metadata"]["resourceVersion"]
        .as_str()
        .expect("rv")
        .to_string();
    assert!(created["metadata"]["uid"]
        .as_str()
        .is_some_and(|u| !u.is_empty()));

    // An update in protobuf.
    let mut changed = created.clone();
    changed["data"]["a"] = json!("c");
    let put = request(
        &c,
        "PUT",
        &format!("{path}/cm"),
        &h,
        &proto::encode(&changed).expect("encodes"),
    )
    .await;
    assert_eq!(put.status, 200);
    assert_eq!(object(&put)["data"]["a"], "c");

    // A get and a list.
    let got = object(&request(&c, "GET", &format!("{path}/cm"), &h, b"").await);
    assert_eq!(got["data"]["a"], "c");
    let list = object(&request(&c, "GET", path, &h, b"").await);
    assert_eq!(list["kind"], "ConfigMapList");
    let names: Vec<&str> = list["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter_map(|i| i["metadata"]["name"].as_str())
        .collect();
    assert!(names.contains(&"cm"), "{names:?}");

    // client-go's metadata client (the garbage collector's informers).
    let meta_accept = "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json";
    let mh = [("Authorization", token.as_str()), ("Accept", meta_accept)];
    let metas = object(&request(&c, "GET", path, &mh, b"").await);
    assert_eq!(metas["kind"], "PartialObjectMetadataList");
    let item = metas["items"]
        .as_array()
        .and_then(|i| i.iter().find(|o| o["metadata"]["name"] == "cm"))
        .cloned()
        .expect("cm");
    // Protobuf carries no kind per item (TypeMeta is not in the message).
    assert!(item.get("data").is_none(), "metadata only: {item}");
    assert!(item["metadata"]["uid"].is_string());

    // A watch from the create: the update, in protobuf frames.
    let w = request(
        &c,
        "GET",
        &format!("{path}?watch=true&resourceVersion={rv}&timeoutSeconds=1"),
        &h,
        b"",
    )
    .await;
    assert_eq!(
        w.header("content-type"),
        Some("application/vnd.kubernetes.protobuf;stream=watch")
    );
    let events = frames(&w.body);
    assert_eq!(
        events
            .first()
            .map(|(t, o)| (t.as_str(), o["data"]["a"].clone())),
        Some(("MODIFIED", json!("c"))),
        "{events:?}"
    );

    // An error is a Status in protobuf.
    let missing = request(&c, "GET", &format!("{path}/nope"), &h, b"").await;
    assert_eq!(missing.status, 404);
    let status = object(&missing);
    assert_eq!(
        (status["kind"].as_str(), status["reason"].as_str()),
        (Some("Status"), Some("NotFound"))
    );

    // A delete with protobuf DeleteOptions (as client-go sends them).
    let opts = json!({"apiVersion": "v1", "kind": "DeleteOptions", "gracePeriodSeconds": 0, "preconditions": {"uid": created["metadata"]["uid"]}});
    let del = request(
        &c,
        "DELETE",
        &format!("{path}/cm"),
        &h,
        &proto::encode(&opts).expect("encodes"),
    )
    .await;
    assert_eq!(del.status, 200, "{}", String::from_utf8_lossy(&del.body));
    let wrong = json!({"apiVersion": "v1", "kind": "DeleteOptions", "preconditions": {"uid": "not-this-one"}});
    let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": [{"name": "a", "image": "registry.k8s.io/pause:3.10"}]}});
    let made = request(
        &c,
        "POST",
        "/api/v1/namespaces/default/pods",
        &h,
        &proto::encode(&pod).expect("encodes"),
    )
    .await;
    assert_eq!(made.status, 201);
    let conflict = request(
        &c,
        "DELETE",
        "/api/v1/namespaces/default/pods/p",
        &h,
        &proto::encode(&wrong).expect("encodes"),
    )
    .await;
    assert_eq!(
        conflict.status, 409,
        "the precondition was read from the protobuf body"
    );
    c.shutdown().await;
}

/// What kube-apiserver refuses: a custom resource in protobuf (415), a
/// body that is not protobuf (400), and a kind the endpoint does not serve.
#[tokio::test]
async fn protobuf_bodies_it_cannot_read_are_refused_with_the_reason() {
    let c = cluster().await;
    let token = format!("Bearer {}", c.token());
    let h = protobuf_client(&token);
    let path = "/api/v1/namespaces/default/configmaps";
    let custom = proto::wrap("example.com/v1", "Widget", b"");
    let r = request(&c, "POST", path, &h, &custom).await;
    assert_eq!(r.status, 415);
    let r = request(&c, "POST", path, &h, b"{\"kind\": \"ConfigMap\"}").await;
    assert_eq!(r.status, 400);
    assert!(object(&r)["message"]
        .as_str()
        .is_some_and(|m| m.contains("protobuf")));
    let secret =
        proto::encode(&json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}}))
            .expect("encodes");
    let r = request(&c, "POST", path, &h, &secret).await;
    assert_eq!(r.status, 400, "{}", String::from_utf8_lossy(&r.body));
    c.shutdown().await;
}
