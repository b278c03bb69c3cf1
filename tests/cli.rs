//! The `kepspec` binary as a user runs it: exit codes, what a run that ran
//! nothing says, what an interrupt leaves behind.

use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn kepspec() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_kepspec"));
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("CI", "true")
        .env_remove("KEPSPEC_LOG");
    cmd
}

fn write_feature(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

const SLOW: &str = "\
@base
Feature: a scenario that takes long
  Scenario: nothing happens for a while
    Given a StatefulSet \"web\" with 1 replica
    And all pods of \"web\" are running and ready
    Then for 120 seconds no pod of \"web\" is created or deleted
";

#[test]
fn a_selection_of_nothing_fails_unless_allowed() {
    let out = kepspec()
        .args(["run", "--tags", "@kep3541"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("no scenario ran") && stderr.contains("--tags '@kep3541'"),
        "{stderr}"
    );
    let allowed = kepspec()
        .args(["run", "--tags", "@kep3541", "--allow-empty"])
        .output()
        .unwrap();
    assert_eq!(allowed.status.code(), Some(0), "{allowed:?}");
}

#[test]
fn an_empty_folder_and_a_name_that_matches_nothing_fail() {
    let dir = tempfile::tempdir().unwrap();
    let out = kepspec().args(["run"]).arg(dir.path()).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let out = kepspec()
        .args([
            "run",
            "features/base/identity.feature",
            "--name",
            "^no such scenario$",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
}

#[test]
fn counts_of_zero_are_usage_errors() {
    for flag in ["--concurrency", "--repeat"] {
        let out = kepspec().args(["run", flag, "0"]).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{flag}: {out:?}");
    }
}

/// Starts `kepspec cluster up --with-controller`; returns it and its kubeconfig.
fn cluster_up(dir: &Path) -> (Child, PathBuf) {
    let kubeconfig = dir.join("kubeconfig");
    let mut child = kepspec()
        .args(["cluster", "up", "--with-controller", "--kubeconfig"])
        .arg(&kubeconfig)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut lines = BufReader::new(stdout).lines();
    for line in lines.by_ref() {
        if line.unwrap().starts_with("Ctrl-C stops it") {
            break;
        }
    }
    // Keep draining so the child never blocks on a full pipe.
    std::thread::spawn(move || for _ in lines {});
    (child, kubeconfig)
}

fn signal(child: &Child, sig: &str) {
    let status = Command::new("kill")
        .args([sig, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

fn wait_with_timeout(child: &mut Child, limit: Duration) -> Option<i32> {
    let t0 = Instant::now();
    while t0.elapsed() < limit {
        if let Some(status) = child.try_wait().unwrap() {
            return status.code();
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = child.kill();
    None
}

fn scenario_namespaces(kubeconfig: &Path) -> Vec<String> {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let kc = kube::config::Kubeconfig::read_from(kubeconfig).unwrap();
        let config = kube::Config::from_custom_kubeconfig(kc, &Default::default())
            .await
            .unwrap();
        let client = kube::Client::try_from(config).unwrap();
        let api: kube::Api<k8s_openapi::api::core::v1::Namespace> = kube::Api::all(client);
        api.list(&kube::api::ListParams::default().labels("kepspec.io/scenario=true"))
            .await
            .unwrap()
            .items
            .into_iter()
            .filter(|ns| ns.metadata.deletion_timestamp.is_none())
            .filter_map(|ns| ns.metadata.name)
            .collect()
    })
}

#[test]
fn an_interrupt_cleans_up_writes_the_reports_and_exits_130() {
    let dir = tempfile::tempdir().unwrap();
    let (mut cluster, kubeconfig) = cluster_up(dir.path());
    let feature = write_feature(dir.path(), "slow.feature", SLOW);
    let junit = dir.path().join("junit.xml");
    let mut run = kepspec()
        .arg("run")
        .arg(&feature)
        .arg(format!("--cluster=kubeconfig={}", kubeconfig.display()))
        .arg("--junit")
        .arg(&junit)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the scenario's namespace exists and its set is running.
    let t0 = Instant::now();
    while scenario_namespaces(&kubeconfig).is_empty() {
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "no scenario started"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    std::thread::sleep(Duration::from_secs(3));
    signal(&run, "-INT");
    let code = wait_with_timeout(&mut run, Duration::from_secs(60));
    let left = scenario_namespaces(&kubeconfig);
    signal(&cluster, "-INT");
    let _ = wait_with_timeout(&mut cluster, Duration::from_secs(30));
    assert_eq!(code, Some(130));
    assert!(left.is_empty(), "namespaces left behind: {left:?}");
    let xml = std::fs::read_to_string(&junit).expect("JUnit written");
    assert!(xml.contains("interrupted while running"), "{xml}");
}

#[test]
fn the_coverage_map_is_printed_and_its_problems_named() {
    let out = kepspec().args(["list", "--coverage"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("## Seed promises") && stdout.contains("| R1 |"),
        "{stdout}"
    );
    let dir = tempfile::tempdir().unwrap();
    // An id no catalogue knows: the map cannot be built (exit 1, the place named).
    let unknown = write_feature(
        dir.path(),
        "unknown.feature",
        "@base\nFeature: f\n  # covers: R999\n  Scenario: s\n    Given a StatefulSet \"web\" with 1 replica\n",
    );
    let out = kepspec()
        .args(["list", "--coverage"])
        .arg(&unknown)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("unknown.feature:3: `# covers:` names R999"),
        "{stderr}"
    );
    // A comment that belongs to no scenario is an input error (exit 2).
    let stray = write_feature(
        dir.path(),
        "stray.feature",
        "@base\nFeature: f\n  # covers: R1\n  Background:\n    Given a StatefulSet \"web\" with 1 replica\n  Scenario: s\n    Then pod \"web-0\" exists\n",
    );
    let out = kepspec()
        .args(["list", "--coverage"])
        .arg(&stray)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("stray.feature:3: a `# covers:` comment must stand right above a Scenario"),
        "{stderr}"
    );
}
