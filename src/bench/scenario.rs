//! Harness: the fixed cost of a scenario on the embedded cluster — the
//! steps every scenario takes around its own: create its namespace, start
//! the recorder, stop it, delete the namespace.

use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::Namespace;
use kube::api::{Api, DeleteParams, PostParams};
use kube::Client;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::measure::{round, Summary};
use super::recreate::CONTROLLER_AGENT;
use super::report::{Row, Section};
use super::support::{client_as, BENCH_AGENT};
use super::Mode;
use crate::controller::{self, ControllerOptions};
use crate::history::{Recorder, SetKind};
use crate::sim::{ClusterConfig, EmbeddedCluster};

/// Goal for the whole trivial scenario.
const GOAL: Duration = Duration::from_millis(100);

/// A step's name and how to read its time.
type Part = (&'static str, fn(&Steps) -> Duration);

/// The four steps of a trivial scenario, timed.
#[derive(Clone, Copy, Debug, Default)]
struct Steps {
    create_namespace: Duration,
    start_recorder: Duration,
    stop_recorder: Duration,
    delete_namespace: Duration,
}

impl Steps {
    fn total(&self) -> Duration {
        self.create_namespace + self.start_recorder + self.stop_recorder + self.delete_namespace
    }
}

/// Median cost of a trivial scenario, with the bundled controller running.
pub(crate) async fn overhead(mode: Mode) -> anyhow::Result<Section> {
    let runs = mode.pick(5, 20);
    let cluster = EmbeddedCluster::start(ClusterConfig::default()).await?;
    let client = client_as(&cluster, BENCH_AGENT)?;
    let cancel = CancellationToken::new();
    let ctl = tokio::spawn(controller::run(
        client_as(&cluster, CONTROLLER_AGENT)?,
        ControllerOptions::default(),
        cancel.clone(),
    ));
    let mut steps = Vec::with_capacity(runs);
    let mut failure = None;
    for i in 0..runs {
        match trivial_scenario(&client, &format!("bench-scenario-{i}")).await {
            Ok(s) => steps.push(s),
            Err(e) => {
                failure = Some(e);
                break;
            }
        }
    }
    cancel.cancel();
    let _ = tokio::time::timeout(Duration::from_secs(5), ctl).await;
    cluster.shutdown().await;
    if let Some(e) = failure {
        return Err(e);
    }

    let mut s = Section::new("scenario", "Harness overhead per scenario");
    let total = Summary::of(&steps.iter().map(Steps::total).collect::<Vec<_>>());
    s.row(Row::goal(
        "trivial scenario end to end",
        runs,
        total.median_range(),
        format!("median < {}", round(GOAL)),
        total.p50 < GOAL,
    ));
    let parts: [Part; 4] = [
        ("create namespace", |s| s.create_namespace),
        ("start recorder (5 watches listed)", |s| s.start_recorder),
        ("stop recorder", |s| s.stop_recorder),
        ("delete namespace (request)", |s| s.delete_namespace),
    ];
    for (what, part) in parts {
        let sum = Summary::of(&steps.iter().map(part).collect::<Vec<_>>());
        s.row(Row::info(what, runs, sum.median_range()));
    }
    s.note(
        "The same calls `Scenario::start` and the runner's cleanup make: POST the namespace, \
         `Recorder::start` (watches on pods, claims, StatefulSets, ControllerRevisions and \
         events; returns once each has listed), `Recorder::stop`, DELETE the namespace \
         (not waiting for it to be gone). The bundled controller runs meanwhile, as in a run.",
    );
    Ok(s)
}

async fn trivial_scenario(client: &Client, name: &str) -> anyhow::Result<Steps> {
    let namespaces = Api::<Namespace>::all(client.clone());
    let ns: Namespace = serde_json::from_value(json!({
        "metadata": {"name": name, "labels": {"kepspec.io/scenario": "true"}}
    }))?;
    let mut steps = Steps::default();
    let t = Instant::now();
    namespaces.create(&PostParams::default(), &ns).await?;
    steps.create_namespace = t.elapsed();
    let t = Instant::now();
    let recorder = Recorder::start(client.clone(), name, SetKind::default()).await?;
    steps.start_recorder = t.elapsed();
    let t = Instant::now();
    let _timeline = recorder.stop().await;
    steps.stop_recorder = t.elapsed();
    let t = Instant::now();
    namespaces.delete(name, &DeleteParams::default()).await?;
    steps.delete_namespace = t.elapsed();
    Ok(steps)
}
