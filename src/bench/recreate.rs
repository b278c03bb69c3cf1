//! Controller: the API writes the bundled controller makes for one Recreate
//! rollout of N pods, against the floor any controller needs.

use std::time::{Duration, Instant, SystemTime};

use k8s_openapi::api::apps::v1::StatefulSet;
use kube::api::{Api, Patch, PatchParams, PostParams};
use kube::runtime::wait::await_condition;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::measure::{duration, round};
use super::report::{Row, Section};
use super::support::{client_as, create_namespace, BENCH_AGENT, IMAGE};
use super::writes::WriteCounts;
use super::Mode;
use crate::controller::{self, ControllerOptions};
use crate::sim::{ClusterConfig, EmbeddedCluster};

/// The user agent of the controller's client in this benchmark.
pub(crate) const CONTROLLER_AGENT: &str = "kepspec-bench-controller";

/// The image the rollout changes to.
const NEXT_IMAGE: &str = "registry.k8s.io/pause:3.9";

/// How long a rollout may take before the benchmark gives up.
const ROLLOUT_DEADLINE: Duration = Duration::from_secs(120);

/// Time after the rollout for late writes (status, events) to land in the log.
const SETTLE: Duration = Duration::from_millis(500);

const NAMESPACE: &str = "bench-recreate";

/// The replicas of the large rollout (its goal: rolled out in under
/// `LARGE_GOAL`).
const LARGE: i32 = 1_000;

/// How long the large rollout may take to meet its goal.
const LARGE_GOAL: Duration = Duration::from_secs(10);

/// Writes per Recreate rollout of N = 3, 10, 30 pods (N = 3 in quick mode),
/// and the time of a 1,000-pod Parallel one (100 in quick mode).
pub(crate) async fn writes(mode: Mode) -> anyhow::Result<Section> {
    let mut s = Section::new("recreate", "Controller API writes per Recreate rollout");
    for n in mode.pick(vec![3], vec![3, 10, 30]) {
        let r = rollout(n, "OrderedReady").await?;
        let floor = 2 * n as usize + 2;
        s.row(Row::goal(
            "pod writes (deletes + creates)",
            n,
            format!("{} + {}", r.writes.pod_deletes, r.writes.pod_creates),
            format!("= {n} + {n}"),
            r.writes.pod_deletes == n as usize && r.writes.pod_creates == n as usize,
        ))
        .row(Row::info(
            "all controller writes / floor",
            n,
            format!(
                "{} / {floor} ({:.2}×)",
                r.writes.total,
                r.writes.total as f64 / floor as f64
            ),
        ))
        .row(Row::info(
            "controller writes by kind",
            n,
            r.writes.breakdown(),
        ))
        .row(Row::info(
            "create to ready / template change to rolled out",
            n,
            format!("{} / {}", duration(r.ready), duration(r.rollout)),
        ));
    }
    let large = mode.pick(LARGE / 10, LARGE);
    let r = rollout(large, "Parallel").await?;
    s.row(Row::goal(
        "Parallel: template change to rolled out",
        large,
        duration(r.rollout),
        format!("< {}", round(LARGE_GOAL)),
        r.rollout < LARGE_GOAL,
    ))
    .row(Row::info(
        "Parallel: create to ready; pod writes (deletes + creates)",
        large,
        format!(
            "{}; {} + {}",
            duration(r.ready),
            r.writes.pod_deletes,
            r.writes.pod_creates
        ),
    ))
    .row(Row::info(
        "Parallel: last delete sent; last pod gone; creates from–to",
        large,
        format!(
            "{}; {}; {} – {}",
            duration(r.phases.deleted),
            duration(r.phases.gone),
            duration(r.phases.first_create),
            duration(r.phases.last_create)
        ),
    ));
    s.note(format!(
        "The {large}-pod row is a set with `podManagementPolicy: Parallel` (with \
         OrderedReady, each of the {large} pods waits for its predecessor to be ready, \
         so the time is {large} round trips through controller, scheduler and kubelet), \
         on as many simulated nodes as 110 pods each need, and a third more."
    ));
    s.note(format!(
        "Each N runs on a fresh embedded cluster (node simulator on) with the bundled \
         controller in-process (`ControllerOptions::default()`), its kube client sending \
         `User-Agent: {CONTROLLER_AGENT}`; the benchmark's own requests say `{BENCH_AGENT}` and \
         the node simulator's say nothing, so the request log (`faults().requests()`) \
         attributes every request. Counted: the controller's create/update/patch/delete \
         requests from the template change until the set reports the rollout complete \
         (status: updated = ready = current = N, currentRevision = updateRevision), then \
         {} more for late writes.",
        round(SETTLE)
    ));
    s.note(
        "Floor = N pod deletes + N pod creates + 1 ControllerRevision + 1 status write: \
         what any controller must write for a Recreate rollout. Status writes beyond one \
         and events are the price of reporting progress (readyReplicas, conditions) \
         as it happens, as upstream does.",
    );
    Ok(s)
}

/// What one rollout cost.
struct Rollout {
    writes: WriteCounts,
    ready: Duration,
    rollout: Duration,
    phases: Phases,
}

/// When the rollout's pod writes happened, after the template change:
/// the controller's last delete, the last pod removal (the kubelet's
/// final delete), and its first and last create.
#[derive(Default)]
struct Phases {
    deleted: Duration,
    gone: Duration,
    first_create: Duration,
    last_create: Duration,
}

impl Phases {
    fn of(log: &[crate::sim::faults::RequestRecord], after_seq: u64, from: SystemTime) -> Phases {
        let since = |r: &crate::sim::faults::RequestRecord| {
            r.at.and_then(|at| at.duration_since(from).ok())
                .unwrap_or_default()
        };
        let pods = || {
            log.iter().filter(move |r| {
                r.seq > after_seq && r.resource == "pods" && r.subresource.is_empty()
            })
        };
        let by = |verb: &str, agent: Option<&str>| -> Vec<Duration> {
            pods()
                .filter(|r| r.verb == verb && agent.is_none_or(|a| r.user_agent == a))
                .map(since)
                .collect()
        };
        let creates = by("create", Some(CONTROLLER_AGENT));
        Phases {
            deleted: by("delete", Some(CONTROLLER_AGENT))
                .into_iter()
                .max()
                .unwrap_or_default(),
            gone: by("delete", None)
                .into_iter()
                .filter(|d| creates.first().is_none_or(|c| d <= c))
                .max()
                .unwrap_or_default(),
            first_create: creates.iter().copied().min().unwrap_or_default(),
            last_create: creates.iter().copied().max().unwrap_or_default(),
        }
    }
}

async fn rollout(replicas: i32, policy: &str) -> anyhow::Result<Rollout> {
    eprintln!("bench:   recreate N={replicas} {policy}");
    let mut nodes = crate::sim::NodeSimConfig::default();
    // A simulated node holds 110 pods, as a kubelet's default maxPods: a
    // large set gets as many nodes as it needs, and a third more.
    let needed = (replicas as usize).div_ceil(110) * 4 / 3;
    for i in nodes.nodes.len()..needed {
        nodes.nodes.push(crate::sim::NodeSpec::kind_worker(&format!(
            "kind-worker{}",
            i + 1
        )));
    }
    let cluster = EmbeddedCluster::start(ClusterConfig {
        // Every request of the rollout stays in the log to be counted.
        request_log: 10_000.max(40 * replicas as usize),
        nodes,
        ..ClusterConfig::default()
    })
    .await?;
    let client = client_as(&cluster, BENCH_AGENT)?;
    let cancel = CancellationToken::new();
    let controller = tokio::spawn(controller::run(
        client_as(&cluster, CONTROLLER_AGENT)?,
        ControllerOptions::default(),
        cancel.clone(),
    ));
    let result = measure(&cluster, &client, replicas, policy).await;
    cancel.cancel();
    let _ = tokio::time::timeout(Duration::from_secs(5), controller).await;
    cluster.shutdown().await;
    result
}

async fn measure(
    cluster: &EmbeddedCluster,
    client: &kube::Client,
    replicas: i32,
    policy: &str,
) -> anyhow::Result<Rollout> {
    create_namespace(client, NAMESPACE).await?;
    let sets: Api<StatefulSet> = Api::namespaced(client.clone(), NAMESPACE);
    let t0 = Instant::now();
    sets.create(&PostParams::default(), &recreate_set(replicas, policy)?)
        .await?;
    wait_rolled_out(&sets, replicas).await?;
    let ready = t0.elapsed();

    let faults = cluster.faults();
    let mark = faults.last_seq();
    let patch = json!({"spec": {"template": {"spec": {"containers": [{"name": "app", "image": NEXT_IMAGE}]}}}});
    let t1 = Instant::now();
    let wall = SystemTime::now();
    sets.patch("web", &PatchParams::default(), &Patch::Strategic(patch))
        .await?;
    wait_rolled_out(&sets, replicas).await?;
    let rollout = t1.elapsed();
    tokio::time::sleep(SETTLE).await;

    let log = faults.requests();
    if log.first().is_some_and(|r| r.seq > mark + 1) {
        anyhow::bail!("the request log overflowed; raise ClusterConfig::request_log");
    }
    Ok(Rollout {
        writes: WriteCounts::of(&log, CONTROLLER_AGENT, mark),
        ready,
        rollout,
        phases: Phases::of(&log, mark, wall),
    })
}

/// A Recreate set `web` of `replicas` pause pods managed by `policy`.
fn recreate_set(replicas: i32, policy: &str) -> anyhow::Result<StatefulSet> {
    Ok(serde_json::from_value(json!({
        "metadata": {"name": "web"},
        "spec": {
            "replicas": replicas,
            "podManagementPolicy": policy,
            "serviceName": "web",
            "selector": {"matchLabels": {"app": "web"}},
            "updateStrategy": {"type": "Recreate"},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "app", "image": IMAGE}]}
            }
        }
    }))?)
}

async fn wait_rolled_out(sets: &Api<StatefulSet>, replicas: i32) -> anyhow::Result<()> {
    let done = await_condition(sets.clone(), "web", move |s: Option<&StatefulSet>| {
        rolled_out(s, replicas)
    });
    tokio::time::timeout(ROLLOUT_DEADLINE, done)
        .await
        .map_err(|_| {
            anyhow::anyhow!(
                "set web did not roll out within {}",
                round(ROLLOUT_DEADLINE)
            )
        })??;
    Ok(())
}

/// The set's status reports a finished rollout of `replicas` ready pods.
fn rolled_out(set: Option<&StatefulSet>, replicas: i32) -> bool {
    let Some(set) = set else { return false };
    let Some(st) = &set.status else { return false };
    st.observed_generation.is_some()
        && st.observed_generation >= set.metadata.generation
        && st.replicas == replicas
        && st.ready_replicas == Some(replicas)
        && st.updated_replicas == Some(replicas)
        && st.current_revision.is_some()
        && st.current_revision == st.update_revision
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(generation: i64, status: serde_json::Value) -> StatefulSet {
        let mut s = recreate_set(3, "OrderedReady").unwrap();
        s.metadata.generation = Some(generation);
        s.status = serde_json::from_value(status).unwrap();
        s
    }

    #[test]
    fn rolled_out_needs_a_current_complete_status() {
        let done = json!({"observedGeneration": 2, "replicas": 3, "readyReplicas": 3,
            "updatedReplicas": 3, "currentRevision": "web-b", "updateRevision": "web-b"});
        assert!(rolled_out(Some(&set(2, done.clone())), 3));
        assert!(!rolled_out(Some(&set(3, done.clone())), 3));
        let mut midway = done;
        midway["currentRevision"] = json!("web-a");
        assert!(!rolled_out(Some(&set(2, midway)), 3));
        assert!(!rolled_out(None, 3));
    }
}
