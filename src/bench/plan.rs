//! Controller: the time of one reconcile decision (`plan::plan`) for a large
//! set, without any I/O.

use std::time::Instant;

use jiff::{SignedDuration, Timestamp};
use k8s_openapi::api::apps::v1::{ControllerRevision, StatefulSet};
use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use serde_json::{json, Value};

use super::measure::{duration, Summary};
use super::report::{Row, Section};
use super::support::IMAGE;
use super::Mode;
use crate::controller::plan::{plan, ControllerGates, Observed};
use crate::controller::{pods, revision};

/// Replicas of the planned set.
const REPLICAS: i32 = 1_000;

/// Median `plan()` time for a 1,000-replica Recreate set: at rest, and at the
/// start of a rollout (template changed, every pod to be deleted).
pub(crate) async fn reconcile(mode: Mode) -> anyhow::Result<Section> {
    let iterations = mode.pick(20, 200);
    let gates = ControllerGates::default();
    let mut s = Section::new("plan", "Controller reconcile decision (plan)");
    let stable = World::stable(REPLICAS)?;
    let changed = stable.with_image("registry.k8s.io/pause:3.9")?;
    for (what, world) in [
        ("at rest (all pods ready, current revision)", &stable),
        ("Recreate rollout start (all pods outdated)", &changed),
    ] {
        let obs = world.observed();
        let mut samples = Vec::with_capacity(iterations);
        let mut actions = 0;
        for _ in 0..iterations {
            let t0 = Instant::now();
            let p = plan(&obs, &gates).map_err(|e| anyhow::anyhow!("plan failed: {e}"))?;
            samples.push(t0.elapsed());
            actions = p.actions.len();
        }
        let sum = Summary::of(&samples);
        s.row(Row::info(
            format!("plan() {what}, {actions} actions"),
            format!("{REPLICAS} pods × {iterations}"),
            format!("{} (p99 {})", duration(sum.p50), duration(sum.p99)),
        ));
    }
    s.note(
        "The observed state is built once (typed set, one ControllerRevision, 1,000 typed \
         Running and Ready pods) and `plan()` is called in a loop; the median is reported. \
         The in-process controller shares the pods with its caches (no copy) and \
         serializes the set on every sync; that is not included.",
    );
    Ok(s)
}

/// An observed state of set `web` with its pods.
struct World {
    raw: Value,
    set: StatefulSet,
    pods: Vec<std::sync::Arc<Pod>>,
    revisions: Vec<ControllerRevision>,
    now: Timestamp,
}

impl World {
    /// A Recreate set of `replicas` Ready pods at its only revision, with
    /// the status the planner itself reports for it.
    fn stable(replicas: i32) -> anyhow::Result<World> {
        let raw = json!({
            "apiVersion": "apps/v1",
            "kind": "StatefulSet",
            "metadata": {"name": "web", "namespace": "bench", "uid": "set-uid", "generation": 1},
            "spec": {
                "replicas": replicas,
                "serviceName": "web",
                "podManagementPolicy": "OrderedReady",
                "revisionHistoryLimit": 10,
                "selector": {"matchLabels": {"app": "web"}},
                "updateStrategy": {"type": "Recreate"},
                "template": {
                    "metadata": {"labels": {"app": "web"}},
                    "spec": {"containers": [{"name": "app", "image": IMAGE}]}
                }
            }
        });
        let set: StatefulSet = serde_json::from_value(raw.clone())?;
        let now = Timestamp::now();
        let data = revision::revision_data(&raw)?;
        let mut rev = revision::new_revision(&set, data, 1, 0);
        rev.metadata.creation_timestamp = Some(Time(now));
        let rev_name = rev.metadata.name.clone().unwrap_or_default();
        let ready_since = now - SignedDuration::from_hours(1);
        let pods = (0..replicas)
            .map(|o| ready_pod(&set, o, &rev_name, ready_since).map(std::sync::Arc::new))
            .collect::<anyhow::Result<Vec<_>>>()?;
        let mut world = World {
            raw,
            set,
            pods,
            revisions: vec![rev],
            now,
        };
        let status = plan(&world.observed(), &ControllerGates::default())
            .map_err(|e| anyhow::anyhow!("plan failed: {e}"))?
            .status;
        world.raw["status"] = serde_json::to_value(status)?;
        world.set = serde_json::from_value(world.raw.clone())?;
        Ok(world)
    }

    /// The same world after the template's image changed.
    fn with_image(&self, image: &str) -> anyhow::Result<World> {
        let mut raw = self.raw.clone();
        raw["spec"]["template"]["spec"]["containers"][0]["image"] = json!(image);
        raw["metadata"]["generation"] = json!(2);
        Ok(World {
            set: serde_json::from_value(raw.clone())?,
            raw,
            pods: self.pods.clone(),
            revisions: self.revisions.clone(),
            now: self.now,
        })
    }

    fn observed(&self) -> Observed<'_> {
        Observed {
            set_raw: &self.raw,
            set: &self.set,
            pods: &self.pods,
            claims: &[],
            revisions: &self.revisions,
            now: self.now,
        }
    }
}

/// Pod `web-<ordinal>` as the controller creates it, Running and Ready since `since`.
fn ready_pod(
    set: &StatefulSet,
    ordinal: i32,
    revision: &str,
    since: Timestamp,
) -> anyhow::Result<Pod> {
    let mut pod = pods::new_pod(set, &set.spec.template, ordinal, revision);
    pod.metadata.uid = Some(format!("uid-web-{ordinal}"));
    pod.metadata.namespace = Some("bench".to_string());
    pod.metadata.generate_name = None;
    pod.metadata.creation_timestamp = Some(Time(since));
    pod.status = Some(serde_json::from_value(json!({
        "phase": "Running",
        "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": Time(since)}]
    }))?);
    Ok(pod)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_worlds_plan_as_expected() {
        let gates = ControllerGates::default();
        let stable = World::stable(5).unwrap();
        let at_rest = plan(&stable.observed(), &gates).unwrap();
        assert!(at_rest.actions.is_empty(), "{:?}", at_rest.actions);
        let changed = stable.with_image("other:1").unwrap();
        let start = plan(&changed.observed(), &gates).unwrap();
        let deletes = start
            .actions
            .iter()
            .filter(|a| matches!(a, crate::controller::plan::Action::DeletePod { .. }))
            .count();
        assert_eq!(deletes, 5);
    }
}
