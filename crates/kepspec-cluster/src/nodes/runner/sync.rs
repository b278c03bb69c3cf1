//! The kubelet's and the volume provisioner's I/O.

use super::super::events::Source;
use super::writes::{Failed, Undo, Write};
use super::*;
use futures::FutureExt;

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
            self.mark_not_ready(&pod, key);
            return;
        }
        if self.removing.contains(&uid) {
            return;
        }
        let now = Timestamp::now();
        if self.rejected.contains(&uid) {
            // Nothing of a rejected pod runs: once deleted it is removed.
            if pod.metadata.deletion_timestamp.is_some() {
                let write = self.remove(key, uid);
                self.writers.send(key, write);
            }
            return;
        }
        if !self.runtimes.contains_key(&uid) {
            let admitted = self.pods.values().filter(|p| {
                p.spec.as_ref().and_then(|s| s.node_name.as_deref()) == Some(node.as_str())
                    && self.runtimes.contains_key(&uid_of(*p))
            });
            if !admission::admits(&pod, admitted) {
                self.reject(&pod, key, &node);
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
            self.record(&pod, ev, source);
        }
        // The status first, then (once it is written) the removal: a pod
        // is removed only after its stopped containers were reported.
        let status = (self.written.get(&uid) != Some(&result.status)).then(|| {
            self.written.insert(uid.clone(), result.status.clone());
            self.status_write(key, &uid, result.status.clone())
        });
        let remove = result.remove.then(|| self.remove(key, uid));
        match (status, remove) {
            (Some(status), Some(remove)) => {
                let write = async move {
                    status.await?;
                    remove.await
                };
                self.writers.send(key, write.boxed());
            }
            (Some(write), None) | (None, Some(write)) => self.writers.send(key, write),
            // Nothing changed: no write is queued.
            (None, None) => {}
        }
        if result.remove {
            return;
        }
        if let Some(at) = result.next_wake {
            self.wake_at(Wake::Pod(key.clone()), at);
        }
    }

    /// The kubelet's status write; a pod already gone is not an error.
    fn status_write(&self, key: &Key, uid: &str, status: Value) -> Write {
        let api: Api<Pod> = Api::namespaced(self.client.clone(), &key.0);
        let (key, uid) = (key.clone(), uid.to_string());
        async move {
            let patch = Patch::Strategic(json!({"status": status}));
            match api
                .patch_status(&key.1, &PatchParams::default(), &patch)
                .await
            {
                Ok(_) => Ok(()),
                Err(kube::Error::Api(e)) if e.code == 404 => Err(Failed {
                    undo: None,
                    retry: None,
                    unrecord: None,
                }),
                Err(e) => {
                    tracing::warn!("node simulator: status of {}/{}: {e}", key.0, key.1);
                    Err(Failed {
                        undo: Some(Undo::Written(uid)),
                        retry: Some(Wake::Pod(key)),
                        unrecord: None,
                    })
                }
            }
        }
        .boxed()
    }

    /// Removes a pod whose containers have all stopped (DELETE with
    /// gracePeriodSeconds=0, on the uid seen); it counts as being removed
    /// until the deletion fails.
    fn remove(&mut self, key: &Key, uid: String) -> Write {
        self.removing.insert(uid.clone());
        let api: Api<Pod> = Api::namespaced(self.client.clone(), &key.0);
        let key = key.clone();
        async move {
            let params = DeleteParams {
                grace_period_seconds: Some(0),
                preconditions: Some(Preconditions {
                    uid: Some(uid.clone()),
                    resource_version: None,
                }),
                ..DeleteParams::default()
            };
            match api.delete(&key.1, &params).await {
                Ok(_) => Ok(()),
                Err(kube::Error::Api(e)) if e.code == 404 || e.code == 409 => Ok(()),
                Err(e) => {
                    tracing::warn!("node simulator: removing {}/{}: {e}", key.0, key.1);
                    Err(Failed {
                        undo: Some(Undo::Removing(uid)),
                        retry: Some(Wake::Pod(key)),
                        unrecord: None,
                    })
                }
            }
        }
        .boxed()
    }

    /// Rejects a pod at admission: writes phase Failed with the reason and
    /// records the kubelet's event ([`admission`]).
    fn reject(&mut self, pod: &Pod, key: &Key, node: &str) {
        let api: Api<Pod> = Api::namespaced(self.client.clone(), &key.0);
        let patch = json!({"status": admission::rejected_status()});
        let uid = uid_of(pod);
        self.rejected.insert(uid.clone());
        let source = Source {
            component: "kubelet",
            host: Some(node),
        };
        let rejected = admission::rejected_event();
        let unrecord = self.new_event(pod, &rejected);
        let event = self.event_write(pod, &rejected, source);
        let failed = Failed {
            undo: Some(Undo::Rejected(uid)),
            retry: Some(Wake::Pod(key.clone())),
            unrecord,
        };
        let write = super::writes::status_then_event(api, key.1.clone(), patch, event, failed);
        self.writers.send(key, write);
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
    fn mark_not_ready(&mut self, pod: &Pod, key: &Key) {
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
        let name = key.1.clone();
        let write = async move {
            if let Err(e) = api
                .patch_status(&name, &PatchParams::default(), &Patch::Strategic(patch))
                .await
            {
                tracing::warn!("node simulator: marking {name} not ready: {e}");
            }
            Ok(())
        };
        self.writers.send(key, write.boxed());
    }
}
