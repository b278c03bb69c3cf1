//! The scheduler's I/O: binding and Unschedulable status writes.

use super::super::events::{self, Source};
use super::writes::{Failed, Undo};
use super::*;
use futures::FutureExt;

const SCHEDULER: Source<'static> = Source {
    component: "default-scheduler",
    host: None,
};

impl Sim {
    /// One scheduling pass over the pending pods, highest priority and
    /// oldest first.
    pub(super) async fn schedule(&mut self) {
        let now = Timestamp::now();
        // Keys, not copies: most passes schedule few of the pending pods.
        let mut pending = Vec::new();
        for pod in self.pods.values() {
            let spec = pod.spec.as_ref();
            let ours = spec
                .and_then(|s| s.scheduler_name.as_deref())
                .is_none_or(|s| s == "default-scheduler");
            if spec.and_then(|s| s.node_name.as_ref()).is_none()
                && ours
                && pod.metadata.deletion_timestamp.is_none()
                && !self
                    .assumed
                    .contains_key(pod.metadata.uid.as_deref().unwrap_or_default())
            {
                let priority = spec.and_then(|s| s.priority).unwrap_or(0);
                let created = pod.metadata.creation_timestamp.as_ref().map(|t| t.0);
                pending.push((std::cmp::Reverse(priority), created, key_of(pod)));
            }
        }
        if pending.is_empty() {
            // Most passes of a rollout's readiness phase: nothing to place,
            // so what the nodes hold is not summed.
            return;
        }
        let mut used: BTreeMap<String, Resources> = BTreeMap::new();
        for pod in self.pods.values() {
            if let Some(n) = pod.spec.as_ref().and_then(|s| s.node_name.as_deref()) {
                if scheduler::holds_resources(pod) {
                    let u = used.entry(n.to_string()).or_default();
                    *u = *u + scheduler::pod_requests(pod);
                }
            }
        }
        for (node, req) in self.assumed.values() {
            let u = used.entry(node.clone()).or_default();
            *u = *u + *req;
        }
        pending.sort();
        let nodes: Vec<NodeInfo> = self.nodes.values().cloned().collect();
        // The host ports held per node, read once a pending pod asks for one.
        let mut held: Option<BTreeMap<String, Vec<admission::HostPort>>> = None;
        for (_, _, key) in pending {
            // Assumed pods were left out of `pending`; a pass binds each
            // pending pod at most once.
            let Some(uid) = self.pods.get(&key).map(uid_of) else {
                continue;
            };
            let first = *self.first_pending.entry(uid.clone()).or_insert(now);
            let due = plus(first, self.cfg.timings.schedule);
            if due > now {
                self.wake_at(Wake::Schedule, due);
                continue;
            }
            let Some(pod) = self.pods.get(&key).cloned() else {
                continue;
            };
            let (ns, _) = key_of(&pod);
            let claims: BTreeMap<String, PersistentVolumeClaim> = self
                .claims
                .iter()
                .filter(|((cns, _), _)| *cns == ns)
                .map(|((_, n), c)| (n.clone(), c.clone()))
                .collect();
            match scheduler::claims_ready(&pod, &claims) {
                Err(reason) => {
                    let msg = scheduler::volume_failure_message(&reason, nodes.len());
                    self.mark_unschedulable(&pod, msg, now);
                    continue;
                }
                Ok(false) => continue,
                Ok(true) => {}
            }
            let request = scheduler::pod_requests(&pod);
            let selector = pod
                .spec
                .as_ref()
                .and_then(|s| s.node_selector.clone())
                .unwrap_or_default();
            let wanted = admission::host_ports(&pod);
            if !wanted.is_empty() && held.is_none() {
                held = Some(self.held_ports());
            }
            let no_ports = BTreeMap::new();
            let held_now = held.as_ref().unwrap_or(&no_ports);
            match scheduler::place_with_ports(&request, &selector, &wanted, held_now, &nodes, &used)
            {
                Ok(node) => {
                    if let Some(h) = held.as_mut() {
                        h.entry(node.clone()).or_default().extend(wanted);
                    }
                    self.bind(&pod, &node);
                    let u = used.entry(node.clone()).or_default();
                    *u = *u + request;
                    self.assumed.insert(uid.clone(), (node, request));
                    self.unschedulable.remove(&uid);
                }
                Err(msg) => self.mark_unschedulable(&pod, msg, now),
            }
        }
    }

    /// Binds `pod` to `node` and records the Scheduled event once bound;
    /// the pod counts as bound (assumed) until the binding fails.
    /// The host ports held on each node: by the pods bound to it, and by
    /// those this scheduler bound whose binding has not come back yet.
    fn held_ports(&self) -> BTreeMap<String, Vec<admission::HostPort>> {
        let mut held: BTreeMap<String, Vec<admission::HostPort>> = BTreeMap::new();
        for pod in self.pods.values() {
            let bound = pod.spec.as_ref().and_then(|s| s.node_name.clone());
            let node = bound.or_else(|| self.assumed.get(&uid_of(pod)).map(|(n, _)| n.clone()));
            if let Some(node) = node {
                held.entry(node)
                    .or_default()
                    .extend(admission::held_ports([pod]));
            }
        }
        held
    }

    fn bind(&mut self, pod: &Pod, node: &str) {
        let (ns, name) = key_of(pod);
        let uid = uid_of(pod);
        let api: Api<Pod> = Api::namespaced(self.client.clone(), &ns);
        let binding = json!({
            "apiVersion": "v1",
            "kind": "Binding",
            "metadata": {"name": name, "namespace": ns, "uid": uid},
            "target": {"apiVersion": "v1", "kind": "Node", "name": node},
        });
        let scheduled = events::scheduled(&ns, &name, node);
        let unrecord = self.new_event(pod, &scheduled);
        let event = self.event_write(pod, &scheduled, SCHEDULER);
        let write = async move {
            match api
                .create_subresource::<Value, Value>(
                    "binding",
                    &name,
                    &PostParams::default(),
                    &binding,
                )
                .await
            {
                Ok(_) => {
                    event.await;
                    Ok(())
                }
                Err(kube::Error::Api(e)) if e.code == 404 || e.code == 409 => Err(Failed {
                    undo: Some(Undo::Assumed(uid)),
                    retry: None,
                    unrecord,
                }),
                Err(e) => {
                    tracing::warn!("node simulator: binding {ns}/{name}: {e}");
                    Err(Failed {
                        undo: Some(Undo::Assumed(uid)),
                        retry: Some(Wake::Schedule),
                        unrecord,
                    })
                }
            }
        };
        self.writers.send(&key_of(pod), write.boxed());
    }

    /// Writes PodScheduled=False with `message` and records the
    /// FailedScheduling event, unless the pod already says so.
    fn mark_unschedulable(&mut self, pod: &Pod, message: String, now: Timestamp) {
        let uid = uid_of(pod);
        if self.unschedulable.get(&uid) == Some(&message) {
            return;
        }
        let (ns, name) = key_of(pod);
        let api: Api<Pod> = Api::namespaced(self.client.clone(), &ns);
        let already = pod
            .status
            .as_ref()
            .and_then(|s| s.conditions.as_ref())
            .and_then(|cs| {
                cs.iter()
                    .find(|c| c.type_ == "PodScheduled" && c.status == "False")
            })
            .and_then(|c| c.last_transition_time.as_ref())
            .map(|t| ts(t.0));
        let patch = json!({"status": {"conditions": [{
            "type": "PodScheduled",
            "status": "False",
            "reason": "Unschedulable",
            "message": message,
            "lastTransitionTime": already.unwrap_or_else(|| ts(now)),
        }]}});
        let failed_scheduling = events::failed_scheduling(&message);
        let unrecord = self.new_event(pod, &failed_scheduling);
        let event = self.event_write(pod, &failed_scheduling, SCHEDULER);
        self.unschedulable.insert(uid.clone(), message);
        let failed = Failed {
            undo: Some(Undo::Unschedulable(uid)),
            retry: Some(Wake::Schedule),
            unrecord,
        };
        let write = super::writes::status_then_event(api, name, patch, event, failed);
        self.writers.send(&key_of(pod), write);
    }
}
