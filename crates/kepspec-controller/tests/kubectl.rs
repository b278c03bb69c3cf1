//! The bundled controller against the embedded cluster, driven by the
//! installed `kubectl` the way a user would: `rollout status` reports
//! completion after a rolling update and after a Recreate, and
//! `rollout restart` triggers a Recreate.

use std::process::Command;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use kepspec_cluster::{ClusterConfig, EmbeddedCluster};
use kepspec_controller::{run, ControllerOptions};

const MANIFEST: &str = r#"
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: web
  namespace: default
spec:
  replicas: 2
  serviceName: web
  selector:
    matchLabels: {app: web}
  updateStrategy:
    type: STRATEGY
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
        - name: app
          image: registry.k8s.io/pause:3.10
"#;

fn kubectl(kubeconfig: &std::path::Path, args: &[&str]) -> (bool, String) {
    let out = Command::new("kubectl")
        .arg("--kubeconfig")
        .arg(kubeconfig)
        .args(args)
        .output();
    match out {
        Ok(o) => (
            o.status.success(),
            format!(
                "{}{}",
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr)
            ),
        ),
        Err(e) => (false, e.to_string()),
    }
}

async fn kubectl_async(kubeconfig: std::path::PathBuf, args: Vec<String>) -> (bool, String) {
    tokio::task::spawn_blocking(move || {
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        kubectl(&kubeconfig, &refs)
    })
    .await
    .unwrap_or((false, "kubectl task failed".into()))
}

async fn rollout_status(kc: &std::path::Path) -> (bool, String) {
    let args = [
        "rollout",
        "status",
        "statefulset/web",
        "-n",
        "default",
        "--timeout=60s",
    ];
    kubectl_async(
        kc.to_path_buf(),
        args.iter().map(|s| s.to_string()).collect(),
    )
    .await
}

/// kubectl's `rollout status` knows only RollingUpdate for StatefulSets
/// (1.37.1 still refuses Recreate, calibration-facts "Clients") and says so; for Recreate the rollout is then judged by `kubectl wait`
/// on the status the controller reports.
async fn wait_rolled_out(kc: &std::path::Path, strategy: &str) {
    let (ok, out) = rollout_status(kc).await;
    if strategy == "RollingUpdate" || ok {
        assert!(
            ok && out.contains("complete"),
            "rollout status ({strategy}): {out}"
        );
        return;
    }
    assert!(
        out.contains("rollout status is only available for RollingUpdate strategy type"),
        "{out}"
    );
    let args = [
        "wait",
        "statefulset/web",
        "-n",
        "default",
        "--for=jsonpath={.status.updatedReplicas}=2",
        "--timeout=60s",
    ];
    let (ok, out) = kubectl_async(
        kc.to_path_buf(),
        args.iter().map(|s| s.to_string()).collect(),
    )
    .await;
    assert!(ok, "kubectl wait for updatedReplicas ({strategy}): {out}");
    let args = [
        "wait",
        "statefulset/web",
        "-n",
        "default",
        "--for=jsonpath={.status.readyReplicas}=2",
        "--timeout=60s",
    ];
    let (ok, out) = kubectl_async(
        kc.to_path_buf(),
        args.iter().map(|s| s.to_string()).collect(),
    )
    .await;
    assert!(ok, "kubectl wait for readyReplicas ({strategy}): {out}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_rollout_status_and_restart_with_the_bundled_controller() {
    if Command::new("kubectl")
        .arg("version")
        .arg("--client")
        .output()
        .is_err()
    {
        assert!(
            std::env::var("CI").is_err(),
            "kubectl must be installed in CI"
        );
        eprintln!("skipped: kubectl is not installed");
        return;
    }
    let cluster = EmbeddedCluster::start(ClusterConfig::default())
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let kc = dir.path().join("kubeconfig");
    cluster.write_kubeconfig(&kc).unwrap();
    let stop = CancellationToken::new();
    let controller = tokio::spawn(run(
        cluster.client().await.unwrap(),
        ControllerOptions::default(),
        stop.clone(),
    ));

    let mut last_restart: Option<std::time::Instant> = None;
    for strategy in ["RollingUpdate", "Recreate"] {
        let manifest = dir.path().join(format!("{strategy}.yaml"));
        std::fs::write(&manifest, MANIFEST.replace("STRATEGY", strategy)).unwrap();
        let m = manifest.display().to_string();
        let (ok, out) = kubectl_async(kc.clone(), vec!["apply".into(), "-f".into(), m]).await;
        assert!(ok, "kubectl apply: {out}");
        wait_rolled_out(&kc, strategy).await;
        // kubectl stamps restartedAt to the second and refuses a second
        // restart within the same second: on a fast machine the first
        // round can take less than that.
        if let Some(at) = last_restart {
            let since = at.elapsed();
            if since < Duration::from_millis(1100) {
                tokio::time::sleep(Duration::from_millis(1100) - since).await;
            }
        }
        last_restart = Some(std::time::Instant::now());
        let (ok, out) = kubectl_async(
            kc.clone(),
            ["rollout", "restart", "statefulset/web", "-n", "default"]
                .iter()
                .map(|s| s.to_string())
                .collect(),
        )
        .await;
        assert!(ok, "kubectl rollout restart: {out}");
        tokio::time::sleep(Duration::from_millis(200)).await;
        wait_rolled_out(&kc, strategy).await;
    }
    // After the Recreate restart every pod runs the restarted template.
    let (ok, out) = kubectl(
        &kc,
        &[
            "get",
            "pods",
            "-n",
            "default",
            "-o",
            "jsonpath={.items[*].metadata.labels.controller-revision-hash}",
        ],
    );
    assert!(ok, "{out}");
    let (_, sts) = kubectl(
        &kc,
        &[
            "get",
            "statefulset",
            "web",
            "-n",
            "default",
            "-o",
            "jsonpath={.status.updateRevision}",
        ],
    );
    let revisions: Vec<&str> = out.split_whitespace().collect();
    assert_eq!(revisions.len(), 2, "{out}");
    assert!(
        revisions.iter().all(|r| *r == sts.trim()),
        "pods {revisions:?}, update revision {sts}"
    );
    let (_, events) = kubectl(
        &kc,
        &[
            "get",
            "events",
            "-n",
            "default",
            "-o",
            "jsonpath={.items[*].reason}",
        ],
    );
    assert!(events.contains("RecreateStarted"), "{events}");
    stop.cancel();
    let _ = controller.await;
    cluster.shutdown().await;
}
