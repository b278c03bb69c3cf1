//! Observed states for the planner's tests: a set "web" in namespace
//! "default", its pods in named states, claims and revisions.

use jiff::{SignedDuration, Timestamp};
use k8s_openapi::api::apps::v1::{ControllerRevision, StatefulSet, StatefulSetStatus};
use k8s_openapi::api::core::v1::{PersistentVolumeClaim, Pod};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use serde_json::{json, Value};

use super::super::{pods, revision, status};
use super::{plan, Action, ControllerGates, DeleteReason, Observed, Plan};

/// A pod state named after what `kubectl get pods` would show.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum State {
    /// Running and Ready for an hour.
    Ready,
    /// Running, Ready since this many seconds.
    ReadyFor(i64),
    /// Running but not Ready.
    NotReady,
    /// Pending, not scheduled (e.g. requests larger than any node).
    Pending,
    /// Pending, container waiting in ImagePullBackOff.
    ImagePullBackOff,
    /// Running, container restarting, not Ready.
    CrashLoopBackOff,
    /// Phase Failed.
    Failed,
    /// Phase Succeeded.
    Succeeded,
    /// Running and Ready, with a deletionTimestamp.
    Terminating,
}

/// The fixed time of every test.
pub(crate) fn now() -> Timestamp {
    Timestamp::from_second(1_800_000_000).unwrap()
}

/// One observed state.
#[derive(Clone, Debug)]
pub(crate) struct World {
    pub(crate) raw: Value,
    pub(crate) set: StatefulSet,
    pub(crate) pods: Vec<std::sync::Arc<Pod>>,
    pub(crate) claims: Vec<PersistentVolumeClaim>,
    pub(crate) revisions: Vec<ControllerRevision>,
    pub(crate) now: Timestamp,
    pub(crate) gates: ControllerGates,
}

impl World {
    /// A fresh set of `replicas` with image `app:1`, OrderedReady,
    /// RollingUpdate partition 0, no pods, no revisions.
    pub(crate) fn new(replicas: i32) -> Self {
        let raw = json!({
            "apiVersion": "apps/v1",
            "kind": "StatefulSet",
            "metadata": {"name": "web", "namespace": "default", "uid": "set-uid", "generation": 1},
            "spec": {
                "replicas": replicas,
                "serviceName": "web",
                "podManagementPolicy": "OrderedReady",
                "revisionHistoryLimit": 10,
                "selector": {"matchLabels": {"app": "web"}},
                "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": 0}},
                "template": {
                    "metadata": {"labels": {"app": "web"}},
                    "spec": {"containers": [{"name": "app", "image": "app:1"}], "terminationGracePeriodSeconds": 30}
                }
            }
        });
        let mut world = Self {
            set: StatefulSet::default(),
            raw,
            pods: Vec::new(),
            claims: Vec::new(),
            revisions: Vec::new(),
            now: now(),
            gates: ControllerGates::default(),
        };
        world.retype();
        world
    }

    /// A set whose `replicas` pods all run, Ready, at its only revision.
    pub(crate) fn stable(replicas: i32) -> Self {
        let mut world = Self::new(replicas).with_revision();
        let rev = world.revision_name();
        for ordinal in 0..replicas {
            world = world.pod(ordinal, &rev, State::Ready);
        }
        world.settle_status()
    }

    fn retype(&mut self) {
        self.set = serde_json::from_value(super::super::vendor::as_apps_v1(&self.raw)).unwrap();
    }

    /// Edits the raw set.
    pub(crate) fn edit(mut self, f: impl FnOnce(&mut Value)) -> Self {
        f(&mut self.raw);
        self.retype();
        self
    }

    /// `updateStrategy: {type: Recreate}`.
    pub(crate) fn recreate(self) -> Self {
        self.edit(|s| s["spec"]["updateStrategy"] = json!({"type": "Recreate"}))
    }

    /// `updateStrategy: {type: OnDelete}`.
    pub(crate) fn on_delete(self) -> Self {
        self.edit(|s| s["spec"]["updateStrategy"] = json!({"type": "OnDelete"}))
    }

    /// `podManagementPolicy: Parallel`.
    pub(crate) fn parallel(self) -> Self {
        self.edit(|s| s["spec"]["podManagementPolicy"] = json!("Parallel"))
    }

    /// `rollingUpdate.partition`.
    pub(crate) fn partition(self, partition: i32) -> Self {
        self.edit(|s| s["spec"]["updateStrategy"]["rollingUpdate"]["partition"] = json!(partition))
    }

    /// `rollingUpdate.maxUnavailable`.
    pub(crate) fn max_unavailable(self, value: Value) -> Self {
        self.edit(|s| s["spec"]["updateStrategy"]["rollingUpdate"]["maxUnavailable"] = value)
    }

    /// `minReadySeconds`.
    pub(crate) fn min_ready(self, seconds: i32) -> Self {
        self.edit(|s| s["spec"]["minReadySeconds"] = json!(seconds))
    }

    /// `replicas`.
    pub(crate) fn replicas(self, replicas: i32) -> Self {
        self.edit(|s| s["spec"]["replicas"] = json!(replicas))
    }

    /// Changes the template's image (a new revision).
    pub(crate) fn image(self, image: &str) -> Self {
        self.edit(|s| s["spec"]["template"]["spec"]["containers"][0]["image"] = json!(image))
    }

    /// Adds a volume claim template.
    pub(crate) fn claim_template(self, name: &str) -> Self {
        self.edit(|s| {
            s["spec"]["volumeClaimTemplates"] = json!([{
                "metadata": {"name": name},
                "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}
            }])
        })
    }

    /// Controller gates.
    pub(crate) fn gates(mut self, gates: ControllerGates) -> Self {
        self.gates = gates;
        self
    }

    /// Name of the revision of the current template (collision count 0).
    pub(crate) fn revision_name(&self) -> String {
        let data = revision::revision_data(&self.raw).unwrap();
        revision::revision_name("web", &revision::hash_revision(&data, 0))
    }

    /// Stores the current template as the next revision.
    pub(crate) fn with_revision(mut self) -> Self {
        let data = revision::revision_data(&self.raw).unwrap();
        let number = revision::next_revision_number(&self.revisions);
        let mut rev = revision::new_revision(&self.set, data, number, 0);
        rev.metadata.creation_timestamp = Some(Time(self.now));
        self.revisions.push(rev);
        self
    }

    /// Writes the status the planner wants, as the executor would.
    pub(crate) fn settle_status(mut self) -> Self {
        let status = self.plan().status;
        self.raw["status"] = serde_json::to_value(&status).unwrap();
        self.retype();
        self
    }

    /// Sets the observed status.
    pub(crate) fn status(self, status: StatefulSetStatus) -> Self {
        self.edit(|s| s["status"] = serde_json::to_value(&status).unwrap())
    }

    /// Adds pod `web-<ordinal>` at `revision` in `state`.
    pub(crate) fn pod(mut self, ordinal: i32, revision: &str, state: State) -> Self {
        self.pods.push(std::sync::Arc::new(make_pod(
            &self.set, ordinal, revision, state, self.now,
        )));
        self
    }

    /// Adds the claims of `ordinal` as the controller would have created them.
    pub(crate) fn claims_of(mut self, ordinal: i32) -> Self {
        for mut claim in pods::claims_for(&self.set, ordinal) {
            claim.metadata.uid = Some(format!("claim-uid-{ordinal}"));
            self.claims.push(claim);
        }
        self
    }

    /// The observed state.
    pub(crate) fn observed(&self) -> Observed<'_> {
        Observed {
            set_raw: &self.raw,
            set: &self.set,
            pods: &self.pods,
            claims: &self.claims,
            revisions: &self.revisions,
            now: self.now,
        }
    }

    /// Plans one sync.
    pub(crate) fn plan(&self) -> Plan {
        plan(&self.observed(), &self.gates).unwrap()
    }
}

fn make_pod(set: &StatefulSet, ordinal: i32, revision: &str, state: State, now: Timestamp) -> Pod {
    let mut pod = pods::new_pod(set, &set.spec.template, ordinal, revision);
    pod.metadata.uid = Some(format!("uid-web-{ordinal}"));
    pod.metadata.generate_name = None;
    let ready_since = match state {
        State::ReadyFor(seconds) => now - SignedDuration::from_secs(seconds),
        _ => now - SignedDuration::from_secs(3600),
    };
    let (phase, ready, waiting) = match state {
        State::Ready | State::ReadyFor(_) | State::Terminating => ("Running", true, None),
        State::NotReady => ("Running", false, None),
        State::Pending => ("Pending", false, None),
        State::ImagePullBackOff => ("Pending", false, Some("ImagePullBackOff")),
        State::CrashLoopBackOff => ("Running", false, Some("CrashLoopBackOff")),
        State::Failed => ("Failed", false, None),
        State::Succeeded => ("Succeeded", false, None),
    };
    let mut status = json!({
        "phase": phase,
        "conditions": [{"type": "Ready", "status": if ready { "True" } else { "False" },
                        "lastTransitionTime": Time(ready_since)}]
    });
    if let Some(reason) = waiting {
        status["containerStatuses"] = json!([{"name": "app", "image": "x", "imageID": "", "ready": false,
                                               "restartCount": 3, "state": {"waiting": {"reason": reason}}}]);
    }
    pod.status = Some(serde_json::from_value(status).unwrap());
    if state == State::Terminating {
        pod.metadata.deletion_timestamp = Some(Time(now));
    }
    pod
}

/// Names of the pods the plan deletes, in order.
pub(crate) fn deleted(plan: &Plan) -> Vec<String> {
    plan.actions
        .iter()
        .filter_map(|a| match a {
            Action::DeletePod { name, .. } => Some(name.clone()),
            _ => None,
        })
        .collect()
}

/// Reasons of the pod deletions, in order.
pub(crate) fn delete_reasons(plan: &Plan) -> Vec<DeleteReason> {
    plan.actions
        .iter()
        .filter_map(|a| match a {
            Action::DeletePod { reason, .. } => Some(*reason),
            _ => None,
        })
        .collect()
}

/// Names and revision labels of the pods the plan creates, in order.
pub(crate) fn created(plan: &Plan) -> Vec<(String, String)> {
    plan.actions
        .iter()
        .filter_map(|a| match a {
            Action::CreatePod(pod) => Some((
                pod.metadata.name.clone().unwrap_or_default(),
                pods::pod_revision(pod).to_string(),
            )),
            _ => None,
        })
        .collect()
}

/// Names of the pods the plan creates, in order.
pub(crate) fn created_names(plan: &Plan) -> Vec<String> {
    created(plan).into_iter().map(|(name, _)| name).collect()
}

/// Reasons of the events the plan records.
pub(crate) fn events(plan: &Plan) -> Vec<String> {
    plan.actions
        .iter()
        .filter_map(|a| match a {
            Action::Event(e) => Some(e.reason.clone()),
            _ => None,
        })
        .collect()
}

/// Reason and message of the planned `Progressing` condition.
pub(crate) fn progressing(plan: &Plan) -> (String, String) {
    let condition = plan
        .status
        .conditions
        .as_ref()
        .and_then(|cs| {
            cs.iter()
                .find(|c| c.type_.as_deref() == Some(status::PROGRESSING))
        })
        .expect("a Progressing condition");
    (
        condition.reason.clone().unwrap_or_default(),
        condition.message.clone().unwrap_or_default(),
    )
}

/// Names of the strings in `names`.
pub(crate) fn names(names: &[&str]) -> Vec<String> {
    names.iter().map(|s| s.to_string()).collect()
}
