//! The `kepspec` binary as a user runs it: exit codes, what a run that ran
//! nothing says, what an interrupt leaves behind.

use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn kepspec() -> Command {
    kepspec_in(Path::new(env!("CARGO_MANIFEST_DIR")))
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
    // Known tags that no scenario has together.
    let out = kepspec()
        .args(["run", "--tags", "@kep-961 and @kruise and @recreate"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("no scenario ran")
            && stderr.contains("--tags '@kep-961 and @kruise and @recreate'"),
        "{stderr}"
    );
    let allowed = kepspec()
        .args([
            "run",
            "--tags",
            "@kep-961 and @kruise and @recreate",
            "--allow-empty",
        ])
        .output()
        .unwrap();
    assert_eq!(allowed.status.code(), Some(0), "{allowed:?}");
}

#[test]
fn a_tag_no_feature_has_is_an_input_error_with_a_hint() {
    let out = kepspec()
        .args(["run", "--tags", "@kep3541"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("no feature or scenario has the tag @kep3541")
            && stderr.contains("did you mean @kep-3541?"),
        "{stderr}"
    );
}

#[test]
fn gherkin_mistakes_are_input_errors_naming_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "Feature: f\n  Scenari: y\n    Given a StatefulSet \"web\" with 1 replica\n",
            "misspelt.feature:2",
            "did you mean `Scenario:`?",
        ),
        (
            "Feature: f\n  Scenario Outline: y <n>\n    Given a StatefulSet \"web\" with <n> replica\n    Examples:\n      | n |\n      | 1 | 2 |\n",
            "cells.feature:6",
            "this table row has 2 cells, the row at line 5 has 1",
        ),
        (
            "Feature: f\n  Scenario: y\n    Given a StatefulSet \"web\" with 1 replica and this manifest:\n      \"\"\"\n      a: b\n",
            "docstring.feature:4",
            "never closed",
        ),
        (
            "Feature: f\n  Scenario: y\n    Given a StatefulSet \"web\" having 3 replicas\n",
            "undefined.feature:3",
            "did you mean `",
        ),
    ];
    for (text, place, words) in cases {
        let name = place.split(':').next().unwrap();
        let file = write_feature(dir.path(), name, text);
        for command in ["run", "lint"] {
            let out = kepspec().arg(command).arg(&file).output().unwrap();
            assert_eq!(out.status.code(), Some(2), "{command} {name}: {out:?}");
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(
                stderr.contains(place) && stderr.contains(words),
                "{command} {name}: {stderr}"
            );
        }
    }
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

/// The binary in a folder with nothing in it: no checkout, no features/.
fn kepspec_in(dir: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_kepspec"));
    cmd.current_dir(dir)
        .env("CI", "true")
        .env_remove("KEPSPEC_LOG");
    cmd
}

#[test]
fn from_an_empty_folder_the_bundled_spec_runs() {
    let dir = tempfile::tempdir().unwrap();
    let list = kepspec_in(dir.path()).args(["list"]).output().unwrap();
    assert_eq!(list.status.code(), Some(0), "{list:?}");
    let listed = String::from_utf8_lossy(&list.stdout);
    assert!(
        listed.contains("features/recreate/all_at_once.feature"),
        "{listed}"
    );
    let run = kepspec_in(dir.path())
        .args(["run", "features/base/identity.feature"])
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(0), "{run:?}");
    let missing = kepspec_in(dir.path())
        .args(["run", "features/no-such.feature"])
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(2), "{missing:?}");
    assert!(String::from_utf8_lossy(&missing.stderr).contains("features/no-such.feature"));
}

#[test]
fn a_profile_in_a_third_folder_finds_its_crds_relative_to_itself() {
    let work = tempfile::tempdir().unwrap();
    let third = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(third.path().join("crds")).unwrap();
    std::fs::create_dir_all(third.path().join("profiles")).unwrap();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::copy(
        repo.join("clusters/crds/apps.kruise.io_statefulsets.yaml"),
        third.path().join("crds/kruise.yaml"),
    )
    .unwrap();
    let shipped =
        std::fs::read_to_string(repo.join("clusters/targets/openkruise-advanced-statefulset.yaml"))
            .unwrap()
            .replace(
                "crds: [../crds/apps.kruise.io_statefulsets.yaml]",
                "crds: [../crds/kruise.yaml]",
            )
            .replace("kindConfig: ../kind/upstream.yaml\n", "");
    assert!(shipped.contains("crds: [../crds/kruise.yaml]"));
    let profile = third.path().join("profiles/kruise.yaml");
    std::fs::write(&profile, shipped).unwrap();
    let run = kepspec_in(work.path())
        .args([
            "run",
            "features/vendors/openkruise/paused.feature",
            "--target",
        ])
        .arg(&profile)
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(0), "{run:?}");
    // A shipped profile by name, from the same empty folder.
    let by_name = kepspec_in(work.path())
        .args([
            "run",
            "features/vendors/openkruise/paused.feature",
            "--target",
            "openkruise-advanced-statefulset",
        ])
        .output()
        .unwrap();
    assert_eq!(by_name.status.code(), Some(0), "{by_name:?}");
}

#[test]
fn spec_export_writes_the_bundled_spec_and_keeps_what_is_there() {
    let dir = tempfile::tempdir().unwrap();
    let out = kepspec_in(dir.path())
        .args(["spec", "export", "spec-copy"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let copy = dir.path().join("spec-copy");
    assert!(copy.join("features/recreate/all_at_once.feature").is_file());
    assert!(copy.join("clusters/targets/upstream.yaml").is_file());
    let again = kepspec_in(dir.path())
        .args(["spec", "export", "spec-copy"])
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(2), "{again:?}");
    let lint = kepspec_in(&copy).args(["lint"]).output().unwrap();
    assert_eq!(lint.status.code(), Some(0), "{lint:?}");
}

#[test]
fn cite_without_source_texts_says_what_it_needs() {
    let out = kepspec()
        .args(["cite"])
        .env_remove("KEPSPEC_SOURCES")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("KEPSPEC_SOURCES"));
}

#[test]
fn cite_checks_every_quotation_when_the_texts_are_given() {
    let Some(sources) = std::env::var_os("KEPSPEC_SOURCES") else {
        eprintln!("cite_checks_every_quotation_when_the_texts_are_given: skipped, KEPSPEC_SOURCES names no folder of source texts");
        return;
    };
    let out = kepspec()
        .args(["cite", "--sources"])
        .arg(&sources)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    // A quotation that is not in its source fails, naming the line.
    let dir = tempfile::tempdir().unwrap();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(repo.join("features/recreate/all_at_once.feature")).unwrap();
    let line = text
        .lines()
        .position(|l| l.trim_start().starts_with("# cite: kep-3541 |"))
        .unwrap();
    let broken: Vec<String> = text
        .lines()
        .enumerate()
        .map(|(i, l)| {
            if i == line {
                l.replacen("\"", "\"not said ", 1)
            } else {
                l.to_string()
            }
        })
        .collect();
    let file = write_feature(dir.path(), "broken.feature", &broken.join("\n"));
    let out = kepspec()
        .args(["cite", "--sources"])
        .arg(&sources)
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("broken.feature:{}", line + 1)),
        "{stderr}"
    );
}

/// The JUnit file as a CI system's parser reads it (PyPI `junitparser`, in
/// the interpreter `KEPSPEC_PYTHON` names): dotted classnames, `file` and
/// `line` on every test case, the failing step and its place in the
/// failure's message, the target's identity as suite properties.
#[test]
fn junit_reads_well_in_a_junit_parser() {
    let python = std::env::var("KEPSPEC_PYTHON").unwrap_or_else(|_| "python3".into());
    let has_parser = Command::new(&python)
        .args(["-c", "import junitparser"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_parser {
        assert!(
            std::env::var_os("KEPSPEC_REQUIRE_CLIENTS").is_none(),
            "{python} has no junitparser module"
        );
        eprintln!("junit_reads_well_in_a_junit_parser: skipped, {python} has no junitparser");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let feature = write_feature(
        dir.path(),
        "broken.feature",
        "@base\nFeature: broken on purpose\n  Scenario: a wrong count\n    Given a StatefulSet \"web\" with 1 replica\n    Then within 2 seconds 3 pods of \"web\" exist at the update revision\n",
    );
    let junit = dir.path().join("junit.xml");
    let out = kepspec()
        .args(["run", "--target", "upstream", "--junit"])
        .arg(&junit)
        .arg(&feature)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let script = r#"
import sys, junitparser
xml = junitparser.JUnitXml.fromfile(sys.argv[1])
for suite in xml:
    props = {p.name: p.value for p in suite.properties()}
    print("target", props.get("kepspec.target"), props.get("kepspec.standIn"))
    for case in suite:
        print("case", case.classname, case._elem.get("file"), case._elem.get("line"))
        for r in case.result:
            print("result", type(r).__name__, r.message)
"#;
    let parsed = Command::new(&python)
        .args(["-c", script])
        .arg(&junit)
        .output()
        .unwrap();
    assert!(parsed.status.success(), "{parsed:?}");
    let text = String::from_utf8_lossy(&parsed.stdout);
    let name = feature.display().to_string();
    let dotted = name.trim_end_matches(".feature").replace('/', ".");
    assert!(text.contains("target upstream true"), "{text}");
    assert!(text.contains(&format!("case {dotted} {name} 3")), "{text}");
    assert!(
        text.contains(&format!(
            "result Failure Then within 2 seconds 3 pods of \"web\" exist at the update revision ({name}:5): "
        )),
        "{text}"
    );
}

#[test]
fn a_stand_in_only_target_refuses_a_real_cluster() {
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = dir.path().join("kubeconfig");
    std::fs::write(&kubeconfig, "apiVersion: v1\nkind: Config\n").unwrap();
    let out = kepspec_in(dir.path())
        .args(["run", "--target", "kep-literal", "--cluster"])
        .arg(format!("kubeconfig={}", kubeconfig.display()))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("kep-literal.yaml: a stand-in only (spec.standIn.only)"),
        "{stderr}"
    );
}
