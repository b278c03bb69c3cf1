//! The kubelet's and the volume provisioner's I/O.

use super::super::events::Source;
use super::*;

impl Sim {
    /// Runs the kubelet for one pod if it is bound to one of our nodes and
    /// that node is Ready (a NotReady node's kubelet is gone: its pods freeze).
    pub(super) async fn sync_pod(&mut self, key: &Key) {
        let Some(pod) = self.pods.get(key).cloned() else {
            return;
        };
        let Some(node) = pod.spec.as_ref().and_then(|s| s.node_name.clone()) else {
            return;
        };
        let Some(&index) = self.own_nodes.get(&node) else {
            return;
        };
        let uid = uid_of(&pod);
        if !self.nodes.get(&node).is_some_and(|n| n.ready) {
            self.mark_not_ready(&pod, key).await;
            return;
        }
        if self.removing.contains(&uid) {
            return;
        }
        let now = Timestamp::now();
        if self.rejected.contains(&uid) {
            // Nothing of a rejected pod runs: once deleted it is removed.
            if pod.metadata.deletion_timestamp.is_some() {
                self.remove(key, uid, now).await;
            }
            return;
        }
        if !self.runtimes.contains_key(&uid) {
            let admitted = self.pods.values().filter(|p| {
                p.spec.as_ref().and_then(|s| s.node_name.as_deref()) == Some(node.as_str())
                    && self.runtimes.contains_key(&uid_of(*p))
            });
            if !admission::admits(&pod, admitted) {
                self.reject(&pod, key, &node, now).await;
                return;
            }
            let n = self.pod_ips.get(index).copied().unwrap_or(0);
            if let Some(slot) = self.pod_ips.get_mut(index) {
                *slot += 1;
            }
            let rt = PodRuntime::new(&pod, now, &node::host_ip(index), &node::pod_ip(index, n));
            self.runtimes.insert(uid.clone(), rt);
        }
        let Some(rt) = self.runtimes.get_mut(&uid) else {
            return;
        };
        let claims: BTreeMap<String, PersistentVolumeClaim> = self
            .claims
            .iter()
            .filter(|((ns, _), _)| *ns == key.0)
            .map(|((_, n), c)| (n.clone(), c.clone()))
            .collect();
        let ctx = KubeletContext {
            catalog: &self.catalog,
            timings: &self.cfg.timings,
            now,
            volumes_ready: scheduler::claims_ready(&pod, &claims) == Ok(true),
        };
        let result = kubelet::sync(&pod, rt, &ctx);
        for ev in &result.events {
            let source = Source {
                component: "kubelet",
                host: Some(&node),
            };
            self.record(&pod, ev, source).await;
        }
        let api: Api<Pod> = Api::namespaced(self.client.clone(), &key.0);
        if self.written.get(&uid) != Some(&result.status) {
            let patch = Patch::Strategic(json!({"status": result.status}));
            match api
                .patch_status(&key.1, &PatchParams::default(), &patch)
                .await
            {
                Ok(_) => {
                    self.written.insert(uid.clone(), result.status.clone());
                }
                Err(kube::Error::Api(e)) if e.code == 404 => return,
                Err(e) => {
                    tracing::warn!("node simulator: status of {}/{}: {e}", key.0, key.1);
                    self.wake_at(Wake::Pod(key.clone()), plus(now, RETRY));
                    return;
                }
            }
        }
        if result.remove {
            self.remove(key, uid, now).await;
            return;
        }
        if let Some(at) = result.next_wake {
            self.wake_at(Wake::Pod(key.clone()), at);
        }
    }

    /// Removes a pod whose containers have all stopped (DELETE with
    /// gracePeriodSeconds=0, on the uid seen).
    async fn remove(&mut self, key: &Key, uid: String, now: Timestamp) {
        let api: Api<Pod> = Api::namespaced(self.client.clone(), &key.0);
        let params = DeleteParams {
            grace_period_seconds: Some(0),
            preconditions: Some(Preconditions {
                uid: Some(uid.clone()),
                resource_version: None,
            }),
            ..DeleteParams::default()
        };
        match api.delete(&key.1, &params).await {
            Ok(_) => {
                self.removing.insert(uid);
            }
            Err(kube::Error::Api(e)) if e.code == 404 || e.code == 409 => {
                self.removing.insert(uid);
            }
            Err(e) => {
                tracing::warn!("node simulator: removing {}/{}: {e}", key.0, key.1);
                self.wake_at(Wake::Pod(key.clone()), plus(now, RETRY));
            }
        }
    }

    /// Rejects a pod at admission: writes phase Failed with the reason and
    /// records the kubelet's event ([`admission`]).
    async fn reject(&mut self, pod: &Pod, key: &Key, node: &str, now: Timestamp) {
        let api: Api<Pod> = Api::namespaced(self.client.clone(), &key.0);
        let patch = Patch::Strategic(json!({"status": admission::rejected_status()}));
        match api
            .patch_status(&key.1, &PatchParams::default(), &patch)
            .await
        {
            Ok(_) => {
                self.rejected.insert(uid_of(pod));
                let source = Source {
                    component: "kubelet",
                    host: Some(node),
                };
                self.record(pod, &admission::rejected_event(), source).await;
            }
            Err(kube::Error::Api(e)) if e.code == 404 => {}
            Err(e) => {
                tracing::warn!("node simulator: rejecting {}/{}: {e}", key.0, key.1);
                self.wake_at(Wake::Pod(key.clone()), plus(now, RETRY));
            }
        }
    }

    /// Provisions and binds a volume for a pending claim after the
    /// configured delay.
    pub(super) async fn bind_claim(&mut self, key: &Key) {
        let Some(claim) = self.claims.get(key).cloned() else {
            return;
        };
        let uid = uid_of(&claim);
        let now = Timestamp::now();
        let api: Api<PersistentVolumeClaim> = Api::namespaced(self.client.clone(), &key.0);
        if volumes::needs_volume(&claim) && !self.claims_done.contains(&uid) {
            let first = *self.claim_seen.entry(uid.clone()).or_insert(now);
            let due = plus(first, self.cfg.timings.bind_volume);
            if due > now {
                self.wake_at(Wake::Claim(key.clone()), due);
                return;
            }
            if let Err(e) = self.provision(&claim, &api).await {
                tracing::warn!("node simulator: binding claim {}/{}: {e}", key.0, key.1);
                self.wake_at(Wake::Claim(key.clone()), plus(now, RETRY));
                return;
            }
            self.claims_done.insert(uid);
        } else if volumes::needs_bound_status(&claim) && !self.claims_done.contains(&uid) {
            let patch = Patch::Merge(volumes::claim_status(&claim));
            match api
                .patch_status(&key.1, &PatchParams::default(), &patch)
                .await
            {
                Ok(_) => {
                    self.claims_done.insert(uid);
                }
                Err(kube::Error::Api(e)) if e.code == 404 => {}
                Err(e) => {
                    tracing::warn!("node simulator: claim status {}/{}: {e}", key.0, key.1);
                    self.wake_at(Wake::Claim(key.clone()), plus(now, RETRY));
                }
            }
        }
    }

    async fn provision(
        &self,
        claim: &PersistentVolumeClaim,
        api: &Api<PersistentVolumeClaim>,
    ) -> Result<(), kube::Error> {
        let name = claim.metadata.name.clone().unwrap_or_default();
        let volume = volumes::volume_name(claim);
        let pvs: Api<PersistentVolume> = Api::all(self.client.clone());
        let pv: PersistentVolume = serde_json::from_value(volumes::persistent_volume(claim))
            .map_err(kube::Error::SerdeError)?;
        match pvs.create(&PostParams::default(), &pv).await {
            Ok(_) => {}
            Err(kube::Error::Api(e)) if e.code == 409 => {}
            Err(e) => return Err(e),
        }
        pvs.patch_status(
            &volume,
            &PatchParams::default(),
            &Patch::Merge(volumes::volume_status()),
        )
        .await?;
        let ignore_gone = |r: Result<PersistentVolumeClaim, kube::Error>| match r {
            Err(kube::Error::Api(e)) if e.code == 404 => Ok(()),
            other => other.map(|_| ()),
        };
        ignore_gone(
            api.patch(
                &name,
                &PatchParams::default(),
                &Patch::Merge(volumes::claim_binding(&volume)),
            )
            .await,
        )?;
        ignore_gone(
            api.patch_status(
                &name,
                &PatchParams::default(),
                &Patch::Merge(volumes::claim_status(claim)),
            )
            .await,
        )
    }

    /// What the node lifecycle controller does to the pods of a node that
    /// stopped being Ready: their Ready condition turns False. The kubelet
    /// rewrites its own status once the node is back.
    async fn mark_not_ready(&mut self, pod: &Pod, key: &Key) {
        let uid = uid_of(pod);
        let ready = pod
            .status
            .as_ref()
            .and_then(|s| s.conditions.as_ref())
            .is_some_and(|cs| cs.iter().any(|c| c.type_ == "Ready" && c.status == "True"));
        // Forget what the kubelet wrote so it writes again on recovery, with
        // a new transition time for Ready.
        self.written.remove(&uid);
        if let Some(rt) = self.runtimes.get_mut(&uid) {
            rt.conditions
                .insert("Ready".to_string(), (false, Timestamp::now()));
        }
        if !ready {
            return;
        }
        let api: Api<Pod> = Api::namespaced(self.client.clone(), &key.0);
        let patch = json!({"status": {"conditions": [{
            "type": "Ready",
            "status": "False",
            "reason": null,
            "message": null,
            "lastTransitionTime": ts(Timestamp::now()),
        }]}});
        if let Err(e) = api
            .patch_status(&key.1, &PatchParams::default(), &Patch::Strategic(patch))
            .await
        {
            tracing::warn!("node simulator: marking {}/{} not ready: {e}", key.0, key.1);
        }
    }
}
