//! Tests of the shipped profiles against the shipped spec, sharding over the
//! real scenarios, and the stand-in on the embedded cluster; shared helpers.

use std::path::{Path, PathBuf};

use cucumber::gherkin::{self, GherkinEnv};
use serde_json::json;

use super::*;
use crate::run::shard::{scenario_key, shard, Shard};

pub(super) fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub(super) fn kruise() -> Profile {
    let path = root().join("clusters/targets/openkruise-advanced-statefulset.yaml");
    Profile::load(&path).unwrap_or_else(|e| panic!("{e}"))
}

pub(super) fn tags(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

/// One scenario of the shipped spec: its key, name and inherited tags.
pub(super) struct SpecScenario {
    pub key: String,
    pub name: String,
    pub tags: Vec<String>,
}

pub(super) fn spec_scenarios() -> Vec<SpecScenario> {
    let mut files = Vec::new();
    let mut dirs = vec![root().join("features")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "feature") {
                files.push(path);
            }
        }
    }
    files.sort();
    let mut out = Vec::new();
    for file in files {
        let feature = gherkin::Feature::parse_path(&file, GherkinEnv::default())
            .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let rel = file.strip_prefix(root()).unwrap().to_path_buf();
        let scenarios = feature.scenarios.iter().map(|s| (s, Vec::new())).chain(
            feature
                .rules
                .iter()
                .flat_map(|r| r.scenarios.iter().map(|s| (s, r.tags.clone()))),
        );
        for (sc, rule_tags) in scenarios {
            let all_tags: Vec<String> = feature
                .tags
                .iter()
                .chain(rule_tags.iter())
                .chain(sc.tags.iter())
                .cloned()
                .collect();
            // An outline's scenarios are named with each row's values, as
            // a run names them (and exclusions match them).
            let mut names = Vec::new();
            for examples in &sc.examples {
                let Some(table) = examples.table.as_ref() else {
                    continue;
                };
                let Some((header, rows)) = table.rows.split_first() else {
                    continue;
                };
                for row in rows {
                    let mut name = sc.name.clone();
                    for (column, value) in header.iter().zip(row) {
                        name = name.replace(&format!("<{column}>"), value);
                    }
                    names.push(name);
                }
            }
            if names.is_empty() {
                names.push(sc.name.clone());
            }
            names.dedup();
            for name in names {
                out.push(SpecScenario {
                    key: scenario_key(&rel, sc.position.line),
                    name,
                    tags: all_tags.clone(),
                });
            }
        }
    }
    assert!(out.len() > 20, "the spec has scenarios");
    out
}

// ---- the shipped profiles -------------------------------------------------

#[test]
fn every_shipped_profile_loads_with_its_crds() {
    let dir = root().join("clusters/targets");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if !path.extension().is_some_and(|e| e == "yaml" || e == "yml") {
            continue;
        }
        let profile = Profile::load(&path).unwrap_or_else(|e| panic!("{e}"));
        profile.crds().unwrap_or_else(|e| panic!("{e}"));
        assert!(
            profile.kind_config().is_file(),
            "{}: kindConfig does not exist",
            path.display()
        );
        let stem = path.file_stem().unwrap().to_string_lossy().to_string();
        assert_eq!(profile.name(), stem, "file name and metadata.name agree");
        seen += 1;
    }
    assert!(seen >= 2, "profiles under {}", dir.display());
}

#[test]
fn built_in_profiles_are_apps_v1_statefulset() {
    let sts = kube::discovery::ApiResource::erase::<k8s_openapi::api::apps::v1::StatefulSet>(&());
    for p in [Profile::bundled(), Profile::upstream()] {
        assert_eq!(p.api_resource(), sts, "{}", p.name());
        assert!(p.is_apps_v1() && p.has_stand_in());
        assert!(p.claims_tags(&tags(&["kep-3541", "validation"])));
        assert!(p.install_commands().is_empty() && p.ready_command().is_none());
        assert!(p.crds().unwrap().is_empty());
        assert!(p.kind_config().is_file());
    }
    // Only the bundled controller implements the KEP-3541 draft.
    assert!(Profile::bundled().selection().is_none());
    assert_eq!(Profile::upstream().selection(), Some("not @kep-3541-draft"));
    assert!(!Profile::upstream().claims_tags(&tags(&["kep-3541-draft"])));
    assert_eq!(
        Profile::bundled().reason("RecreateComplete"),
        "RecreateComplete"
    );
    // Upstream's words are declared deviations, each with its evidence.
    let up = Profile::upstream();
    let alts = up
        .deviations()
        .condition("Progressing", "True", "RecreateComplete");
    assert_eq!(alts.len(), 1);
    assert_eq!(alts[0].1.status, "False");
    assert_eq!(alts[0].1.reason, "RecreateCompleted");
    assert_eq!(
        up.deviations().event("RecreateStarted").map(|(_, t)| t),
        Some(None)
    );
    for id in ["controller-gate-off-no-fallback", "switch-away-allowed"] {
        assert!(up.deviations().behaviour(id).is_some(), "{id}");
    }
    assert!(up
        .deviations()
        .0
        .iter()
        .all(|d| !d.evidence.trim().is_empty()));
    assert_eq!(up.behave_as(), Some("upstream-v1.37"));
}

#[test]
fn the_upstream_file_says_what_the_built_in_does() {
    let file = Profile::load(&root().join("clusters/targets/upstream.yaml")).unwrap();
    let built = Profile::upstream();
    assert_eq!(file.name(), built.name());
    assert_eq!(file.spec.resource, built.spec.resource);
    assert_eq!(file.spec.reasons, built.spec.reasons);
    assert_eq!(file.spec.deviations, built.spec.deviations);
    assert_eq!(file.spec.supports, built.spec.supports);
    assert_eq!(file.kind_config(), root().join(built.kind_config()));
}

#[test]
fn targets_resolve_from_the_command_line() {
    use crate::cli::TargetChoice;
    assert_eq!(
        Profile::resolve(&TargetChoice::Bundled).unwrap().name(),
        "bundled"
    );
    assert_eq!(
        Profile::resolve(&TargetChoice::Upstream).unwrap().name(),
        "upstream"
    );
    let missing = TargetChoice::Profile(PathBuf::from("/no/such/profile.yaml"));
    let err = Profile::resolve(&missing).unwrap_err().to_string();
    assert!(
        err.starts_with("/no/such/profile.yaml: cannot read"),
        "{err}"
    );
}

#[test]
fn openkruise_serves_its_own_group_and_installs_with_helm() {
    let p = kruise();
    let r = p.api_resource();
    assert_eq!(r.api_version, "apps.kruise.io/v1beta1");
    assert_eq!(
        (r.kind.as_str(), r.plural.as_str()),
        ("StatefulSet", "statefulsets")
    );
    assert!(!p.is_apps_v1());
    assert_eq!(p.required_programs(), vec!["helm", "kubectl"]);
    let cmds = p.setup_commands(Path::new("/tmp/kc"), Path::new("/src"));
    assert_eq!(cmds.len(), 3);
    assert!(cmds.iter().all(|c| !c.to_string().contains("${")));
    assert!(cmds[1]
        .to_string()
        .contains("--kubeconfig /tmp/kc upgrade --install kruise"));
    assert_eq!(
        cmds[2].purpose,
        "wait for openkruise-advanced-statefulset to be ready"
    );
    assert!(cmds[2]
        .args
        .contains(&"deployment/kruise-controller-manager".to_string()));
    assert_eq!(p.ready_command().unwrap().timeout().as_secs(), 300);
    let crds = p.crds().unwrap();
    assert_eq!(crds.len(), 1);
    assert_eq!(crds[0]["metadata"]["name"], "statefulsets.apps.kruise.io");
    let v = &crds[0]["spec"]["versions"][0];
    // Kruise's own structural schema: no spec.minReadySeconds, the pod
    // template kept whole.
    let spec = &v["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"];
    assert!(spec.get("minReadySeconds").is_none());
    assert_eq!(
        spec["template"]["x-kubernetes-preserve-unknown-fields"],
        true
    );
    assert!(
        spec["updateStrategy"]["properties"]["rollingUpdate"]["properties"]["minReadySeconds"]
            .is_object()
    );
    assert_eq!(
        p.fields().to_target_path("spec.minReadySeconds").as_deref(),
        Some("spec.updateStrategy.rollingUpdate.minReadySeconds")
    );
    assert!(v["subresources"]["status"].is_object());
    assert_eq!(
        v["subresources"]["scale"]["specReplicasPath"],
        ".spec.replicas"
    );
}

#[test]
fn openkruise_claims_documented_behaviour_only() {
    let p = kruise();
    let all = spec_scenarios();
    let claimed: Vec<&SpecScenario> = all
        .iter()
        .filter(|s| p.claims_tags(&s.tags) && p.exclusion(&s.name).is_none())
        .collect();
    let has = |s: &SpecScenario, t: &str| s.tags.iter().any(|x| x == t);
    for s in &claimed {
        assert!(!has(s, "validation"), "claims validation: {}", s.key);
        assert!(!has(s, "skew"), "claims upstream gate skew: {}", s.key);
        assert!(
            !has(s, "kep-3541") && !has(s, "recreate"),
            "claims Recreate: {}",
            s.key
        );
        assert!(
            !has(s, "gate-StatefulSetRecreateStrategy"),
            "claims Recreate: {}",
            s.key
        );
    }
    for t in ["kep-961", "partition", "base", "identity", "retention"] {
        assert!(
            claimed.iter().any(|s| has(s, t)),
            "claims nothing tagged @{t}"
        );
    }
    // Every exclusion still names a scenario the tags would claim.
    for ex in &p.spec.supports.exclude {
        let re = regex::Regex::new(&ex.scenario).unwrap();
        assert!(
            all.iter()
                .any(|s| p.claims_tags(&s.tags) && re.is_match(&s.name)),
            "exclusion `{}` matches no claimed scenario",
            ex.scenario
        );
    }
    assert!(claimed.len() < all.len());
}

// ---- sharding ----------------------------------------------------------------

#[test]
fn shard_text_parses_with_clear_errors() {
    assert_eq!("2/3".parse::<Shard>(), Ok(Shard { index: 2, total: 3 }));
    assert_eq!(
        " 1 / 1 ".parse::<Shard>().map(|s| s.to_string()),
        Ok("1/1".into())
    );
    for (text, why) in [
        ("0/2", "I must be between 1 and 2"),
        ("3/2", "I must be between 1 and 2"),
        ("1/0", "N must be at least 1"),
        ("1", "expected I/N, e.g. 1/2"),
        ("a/2", "I is not a whole number"),
        ("1/-2", "N is not a whole number"),
    ] {
        let e = text.parse::<Shard>().unwrap_err();
        assert_eq!(e, format!("invalid shard `{text}`: {why}"));
    }
}

#[test]
fn shards_cover_every_scenario_exactly_once() {
    let mut keys: Vec<String> = spec_scenarios().into_iter().map(|s| s.key).collect();
    keys.extend((1..500).map(|i| format!("features/x/f{}.feature:{i}", i % 7)));
    for total in 1..=6 {
        for key in &keys {
            let owners = (1..=total).filter(|&i| shard(i, total, key)).count();
            assert_eq!(owners, 1, "{key} in {owners} of {total} shards");
        }
        for index in 1..=total {
            let n = keys.iter().filter(|k| shard(index, total, k)).count();
            assert!(
                n * total * 2 > keys.len(),
                "shard {index}/{total} holds only {n} of {}",
                keys.len()
            );
        }
    }
    assert!(!shard(0, 2, "k") && !shard(3, 2, "k") && !shard(1, 0, "k"));
    // The assignment is part of CI's contract: pinned, so a change is seen.
    let pinned: Vec<bool> = (1..=3)
        .map(|i| shard(i, 3, "features/base/identity.feature:10"))
        .collect();
    assert_eq!(pinned.iter().filter(|b| **b).count(), 1);
    let s = Shard { index: 1, total: 2 };
    assert_eq!(s.contains("a:1"), shard(1, 2, "a:1"));
    assert_eq!(
        scenario_key(Path::new("./features/a.feature"), 3),
        "features/a.feature:3"
    );
}

// ---- standing in on the embedded cluster -----------------------------------

#[tokio::test]
async fn the_openkruise_resource_is_served_once_its_crd_is_installed() {
    let cluster = crate::sim::EmbeddedCluster::start(crate::sim::ClusterConfig {
        run_nodes: false,
        ..Default::default()
    })
    .await
    .unwrap();
    let client = cluster.client().await.unwrap();
    let p = kruise();
    let resource = p.api_resource();
    let crds = p.crds().unwrap();
    standin::install_crds(&client, &crds, &resource, std::time::Duration::from_secs(5))
        .await
        .unwrap();
    // Twice is fine.
    standin::install_crds(&client, &crds, &resource, std::time::Duration::from_secs(5))
        .await
        .unwrap();
    let set = p.to_target(json!({
        "apiVersion": "apps/v1", "kind": "StatefulSet",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {"replicas": 2, "serviceName": "web", "podManagementPolicy": "Parallel",
                 "selector": {"matchLabels": {"app": "web"}},
                 "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 2}},
                 "template": {"metadata": {"labels": {"app": "web"}},
                              "spec": {"containers": [{"name": "app", "image": "registry.k8s.io/pause:3.10"}]}}}
    }));
    let obj: kube::api::DynamicObject = serde_json::from_value(set).unwrap();
    let api: kube::Api<kube::api::DynamicObject> =
        kube::Api::namespaced_with(client.clone(), "default", &resource);
    api.create(&Default::default(), &obj).await.unwrap();
    let got = api.get("web").await.unwrap();
    let got = serde_json::to_value(&got).unwrap();
    assert_eq!(got["apiVersion"], "apps.kruise.io/v1beta1");
    assert_eq!(
        got["spec"]["updateStrategy"]["rollingUpdate"]["maxUnavailable"],
        2
    );
    let apps: kube::Api<k8s_openapi::api::apps::v1::StatefulSet> =
        kube::Api::namespaced(client, "default");
    assert!(
        apps.get_opt("web").await.unwrap().is_none(),
        "not an apps/v1 set"
    );
    cluster.shutdown().await;
}

/// The whole stand-in: CRD installed, the bundled controller started on the
/// profile's resource, pods owned by (and status written to) the vendor kind.
#[tokio::test]
async fn the_bundled_controller_stands_in_for_openkruise() {
    use kube::api::{Api, DynamicObject, ListParams};
    let cluster = crate::sim::EmbeddedCluster::start(crate::sim::ClusterConfig::default())
        .await
        .unwrap();
    let client = cluster.client().await.unwrap();
    let p = kruise();
    let resource = p.api_resource();
    let crds = p.crds().unwrap();
    standin::install_crds(&client, &crds, &resource, std::time::Duration::from_secs(5))
        .await
        .unwrap();
    let stop = tokio_util::sync::CancellationToken::new();
    let opts = crate::controller::ControllerOptions {
        resource: resource.clone(),
        namespace: Some("default".into()),
        ..Default::default()
    };
    let controller = tokio::spawn(crate::controller::run(client.clone(), opts, stop.clone()));
    let set = p.to_target(json!({
        "apiVersion": "apps/v1", "kind": "StatefulSet",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {"replicas": 2, "serviceName": "web", "podManagementPolicy": "Parallel",
                 "selector": {"matchLabels": {"app": "web"}},
                 "template": {"metadata": {"labels": {"app": "web"}},
                              "spec": {"containers": [{"name": "app", "image": "registry.k8s.io/pause:3.10"}]}}}
    }));
    let obj: DynamicObject = serde_json::from_value(set).unwrap();
    let sets: Api<DynamicObject> = Api::namespaced_with(client.clone(), "default", &resource);
    sets.create(&Default::default(), &obj).await.unwrap();
    let pods: Api<k8s_openapi::api::core::v1::Pod> = Api::namespaced(client, "default");
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(30);
    let (owners, ready) = loop {
        let list = pods.list(&ListParams::default()).await.unwrap();
        let owners: Vec<String> = list
            .items
            .iter()
            .flat_map(|p| p.metadata.owner_references.iter().flatten())
            .map(|o| format!("{} {} {}", o.api_version, o.kind, o.name))
            .collect();
        let status = serde_json::to_value(sets.get_status("web").await.unwrap()).unwrap();
        let ready = status["status"]["readyReplicas"].as_i64().unwrap_or(0);
        if owners.len() == 2 && ready == 2 {
            break (owners, ready);
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "pods owned by the stand-in: {owners:?}, status: {}",
            status["status"]
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    };
    assert!(
        owners
            .iter()
            .all(|o| o == "apps.kruise.io/v1beta1 StatefulSet web"),
        "{owners:?}"
    );
    assert_eq!(ready, 2);
    stop.cancel();
    let _ = controller.await;
    cluster.shutdown().await;
}

mod ci;
mod gating;
mod profile;
