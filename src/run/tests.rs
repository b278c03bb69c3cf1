//! The CI matrix (ci/github-actions.yml) reproduced on the embedded cluster:
//! for each Kubernetes version and target, an embedded cluster plays that
//! release with the gates the row's kind configuration sets, the run reads
//! what it is as it reads a real cluster (`/version`, `/metrics`), and the
//! plan it makes — what runs, what is skipped and why — is pinned here.
//! ci/README.md shows the same numbers.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use clap::Parser as _;
use cucumber::feature::Ext as _;

use super::features::Selection;
use super::on_kind::KindRun;
use super::roster::Roster;
use crate::cli::{Cli, Command, RunArgs};
use crate::profiles::{FeatureGates, Profile, Version};
use crate::run::shard::Shard;
use crate::sim::ApiGates;
use crate::sim::{ClusterConfig, EmbeddedCluster};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn features() -> Vec<cucumber::gherkin::Feature> {
    super::features::discover(&[root().join("features")])
        .unwrap()
        .iter()
        .map(|f| {
            let mut f = super::features::parse(f)
                .unwrap()
                .expand_examples()
                .unwrap();
            // Keys as a run from the project root names them.
            if let Some(p) = &f.path {
                f.path = p.strip_prefix(root()).ok().map(Path::to_path_buf);
            }
            f
        })
        .collect()
}

fn row_args(version: &str, target: &str) -> RunArgs {
    let argv = [
        "kepspec",
        "run",
        "--cluster",
        "kind",
        "--target",
        target,
        "--node-image",
        &format!("kindest/node:{version}"),
    ];
    match Cli::try_parse_from(argv).unwrap().command {
        Command::Run(a) => *a,
        _ => unreachable!(),
    }
}

/// The plan of one row: (runs, skipped by reason, runs per shard of 2 that
/// each `--require` of the row selects).
async fn row(version: &str, target: &str) -> (usize, BTreeMap<String, usize>, Vec<[usize; 3]>) {
    let args = row_args(version, target);
    let profile = Profile::resolve(&args.target).unwrap();
    let kind = KindRun::new(&args, &profile, &root()).unwrap();
    let gates_flag = kind
        .inner
        .iter()
        .find_map(|a| a.strip_prefix("--feature-gates="))
        .unwrap_or("")
        .to_string();
    let v = Version::parse(version).unwrap();
    let cluster = EmbeddedCluster::start(ClusterConfig {
        version: v,
        gates: ApiGates::parse_for(&gates_flag, v).unwrap(),
        run_nodes: false,
        ..ClusterConfig::default()
    })
    .await
    .unwrap();
    let client = cluster.client().await.unwrap();
    // Read as a real cluster is read, with the gates the kind run passes on.
    let facts =
        crate::cluster::facts::read(&client, false, &FeatureGates::parse(&gates_flag).unwrap())
            .await;
    cluster.shutdown().await;
    assert_eq!(facts.version, v);
    let features = features();
    let plan = Roster::new(&features, &Selection::default(), |p| {
        profile.skip_reason(&p.name, &p.tags, &facts)
    });
    let mut skipped = BTreeMap::new();
    for (reason, n) in plan.skip_reasons() {
        skipped.insert(reason, n);
    }
    let mut shards = Vec::new();
    for i in 1..=2 {
        let shard = Shard { index: i, total: 2 };
        let runs: Vec<_> = plan.runs().filter(|p| shard.contains(&p.key)).collect();
        let count = |tag: &str| {
            runs.iter()
                .filter(|p| p.tags.iter().any(|t| t == tag))
                .count()
        };
        shards.push([count("@base"), count("@kep-961"), count("@kep-3541")]);
    }
    (plan.runs().count(), skipped, shards)
}

#[tokio::test]
async fn the_ci_matrix_runs_and_skips_what_each_release_can() {
    let mut report = String::new();
    let mut counts = BTreeMap::new();
    for version in ["v1.35.8", "v1.36.4", "v1.37.0"] {
        for target in ["bundled", "upstream"] {
            let (runs, skipped, shards) = row(version, target).await;
            report.push_str(&format!("{version} {target}: {runs} run\n"));
            for (reason, n) in &skipped {
                report.push_str(&format!("    {n:>3} skipped: {reason}\n"));
            }
            report.push_str(&format!(
                "    per shard [@base, @kep-961, @kep-3541]: {shards:?}\n"
            ));
            // Every shard of every row runs base and KEP-961 scenarios
            // (what the workflow's --require asks), and v1.37 Recreate ones.
            for s in &shards {
                assert!(
                    s[0] > 0 && s[1] > 0,
                    "{version} {target}: a shard runs no @base or @kep-961 scenario\n{report}"
                );
                if version == "v1.37.0" {
                    assert!(
                        s[2] > 0,
                        "{version} {target}: a shard runs no @kep-3541 scenario\n{report}"
                    );
                }
            }
            counts.insert((version, target), (runs, skipped.values().sum::<usize>()));
        }
    }
    // The pinned numbers (ci/README.md shows them): runs and skips per row.
    // Both targets are apps/v1 and are held to the same gates, so they run
    // as many scenarios; upstream's declared deviations swap which ones.
    let expected = [
        (("v1.35.8", "bundled"), (PINNED_135.0, PINNED_135.1)),
        (("v1.35.8", "upstream"), (PINNED_135.0, PINNED_135.1)),
        (("v1.36.4", "bundled"), (PINNED_136.0, PINNED_136.1)),
        (("v1.36.4", "upstream"), (PINNED_136.0, PINNED_136.1)),
        (("v1.37.0", "bundled"), (PINNED_137.0, PINNED_137.1)),
        (("v1.37.0", "upstream"), (PINNED_137.0, PINNED_137.1)),
    ];
    for (row, want) in expected {
        assert_eq!(counts.get(&row), Some(&want), "{row:?}\n{report}");
    }
}

/// (run, skipped) per release; every scenario of the spec is one or the other.
const PINNED_135: (usize, usize) = (121, 196);
const PINNED_136: (usize, usize) = (121, 196);
const PINNED_137: (usize, usize) = (155, 162);

/// skew/gate_matrix.feature: for each gate, every combination of the
/// apiserver's and the controller's setting is a scenario.
#[test]
fn the_gate_matrix_covers_every_row() {
    let path = root().join("features/skew/gate_matrix.feature");
    let feature = super::features::parse(&path)
        .unwrap()
        .expand_examples()
        .unwrap();
    for gate in ["StatefulSetRecreateStrategy", "MaxUnavailableStatefulSet"] {
        let mut rows = std::collections::BTreeSet::new();
        for sc in &feature.scenarios {
            let setting = |who: &str| {
                sc.steps.iter().find_map(|s| {
                    let rest = s
                        .value
                        .strip_prefix(&format!("the {who} runs with feature gate \"{gate}\" "))?;
                    Some(rest == "on")
                })
            };
            let (api, ctl) = (setting("apiserver"), setting("controller"));
            if api.is_none() && ctl.is_none() {
                continue;
            }
            // A component the scenario does not restage keeps the gate on.
            rows.insert((api.unwrap_or(true), ctl.unwrap_or(true)));
        }
        let all: std::collections::BTreeSet<(bool, bool)> =
            [(true, true), (true, false), (false, true), (false, false)].into();
        assert_eq!(rows, all, "{gate}: rows covered {rows:?}");
    }
}
