//! The official Python client (`kubernetes` 37 from PyPI) against the
//! embedded server, with no workaround: the script uses the client as its
//! documentation shows.
//!
//! The interpreter is `KEPSPEC_PYTHON` (default `python3`). Without the
//! client installed the test is skipped with a message, unless
//! `KEPSPEC_REQUIRE_CLIENTS` is set (as `.ci/run` does), where a missing
//! client fails it: a CI job must not pass hollow.

use std::process::Stdio;
use std::time::Duration;

use tokio::process::Command;

const SCRIPT: &str = include_str!("python_client.py");

fn interpreter() -> String {
    std::env::var("KEPSPEC_PYTHON").unwrap_or_else(|_| "python3".into())
}

/// The client's version, or why it is not usable.
async fn client_version(python: &str) -> Result<String, String> {
    let out = Command::new(python)
        .args(["-c", "import kubernetes; print(kubernetes.__version__)"])
        .stdin(Stdio::null())
        .output()
        .await
        .map_err(|e| format!("{python}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "{python} has no `kubernetes` module: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

#[tokio::test]
async fn official_python_client_creates_replaces_patches_watches_deletes() {
    let python = interpreter();
    let version = match client_version(&python).await {
        Ok(v) => v,
        Err(why) if std::env::var_os("KEPSPEC_REQUIRE_CLIENTS").is_some() => {
            panic!("KEPSPEC_REQUIRE_CLIENTS is set but the Python client is missing: {why}")
        }
        Err(why) => {
            println!("skipped: {why}");
            return;
        }
    };
    assert!(
        version.starts_with("37."),
        "expected the kubernetes 37 Python client, found {version}"
    );
    // A window of 50 changes, so the script can write its way past it and
    // see the 410s a cluster answers for what it no longer keeps.
    let c = super::cluster_with(crate::ClusterConfig {
        run_nodes: false,
        watch_window: 50,
        ..Default::default()
    })
    .await;
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = dir.path().join("config");
    c.write_kubeconfig(&kubeconfig).unwrap();
    let script = dir.path().join("client.py");
    std::fs::write(&script, SCRIPT).unwrap();
    let run = Command::new(&python)
        .arg(&script)
        .arg(&kubeconfig)
        .env("HOME", dir.path())
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .output();
    let out = tokio::time::timeout(Duration::from_secs(120), run)
        .await
        .expect("the Python client script did not finish in 120 s")
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.trim_end().ends_with("ok"),
        "python client script failed:\n{stdout}\n{stderr}"
    );
}
