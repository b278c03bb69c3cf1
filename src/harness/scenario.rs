//! One scenario's world: its namespace, its recorder, and the actions steps
//! take on the cluster. Every action is one API call (or one wait) a reader
//! can map to a `kubectl` command.

use kepspec_core::Lookup as _;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::core::v1::{Namespace, Pod};
use kube::api::{Api, DeleteParams, DynamicObject, Patch, PatchParams, PostParams};
use kube::discovery::ApiResource;
use kube::{Client, Resource};
use serde_json::{json, Value};

use super::env::Environment;
use super::setspec::{SetSpec, READINESS_GATE};
use crate::history::recorder::Recorder;
use crate::history::Kind;

/// A failed request, with what was asked and what the server said.
#[derive(Debug, thiserror::Error)]
#[error("{what}: {message}")]
pub struct RequestError {
    /// What the step asked for, in words.
    pub what: String,
    /// The server's answer (the Status message) or the transport error.
    pub message: String,
    /// The HTTP status code, when the server answered.
    pub code: Option<u16>,
}

impl RequestError {
    pub(crate) fn from_kube(what: impl Into<String>, err: kube::Error) -> Self {
        let (message, code) = match &err {
            kube::Error::Api(s) => (s.message.clone(), Some(s.code)),
            other => (other.to_string(), None),
        };
        Self {
            what: what.into(),
            message,
            code,
        }
    }
}

/// The world of one scenario.
pub struct Scenario {
    /// The shared environment.
    pub env: Arc<Environment>,
    /// The client steps use.
    pub client: Client,
    /// The scenario's own namespace.
    pub namespace: String,
    /// The set resource under test.
    pub resource: ApiResource,
    /// Records everything in the namespace from the start.
    pub recorder: Recorder,
    /// The sets the scenario created, by name.
    pub sets: BTreeMap<String, SetSpec>,
    /// The answer to the last write that was expected to be refused.
    pub last_refusal: Option<RequestError>,
    /// The point just before the scenario's first change: everything before
    /// it is the state the scenario started from.
    pub baseline: Option<Mark>,
    /// The embedded apiserver's request log position at the same point
    /// (None on other clusters).
    pub request_mark: Option<u64>,
    /// The request log position when the scenario's namespace was made,
    /// before any request of its own (None on other clusters).
    pub request_start: Option<u64>,
    /// The first property a check found broken, for the report's picture.
    pub last_violation: Option<crate::history::Violation>,
    /// Revision names the scenario remembered under a name of its own.
    pub remembered: BTreeMap<String, String>,
    /// The newest resourceVersion of each object this scenario wrote.
    pub written: BTreeMap<(Kind, String), u64>,
    /// Whether the environment is the scenario's own (`@isolated`).
    pub isolated: bool,
    /// The apiserver's gates as the scenario set them (own environment only).
    pub apiserver_gates: crate::sim::ApiGates,
    /// Faults the scenario injected, each with the words that asked for it.
    pub faults: Vec<super::faults::Injected>,
    /// Host ports the scenario holds on nodes (given back when it ends).
    pub held_ports: Vec<super::host_ports::HeldPort>,
    /// The target's declared deviations the scenario's checks accepted.
    pub deviations: Vec<String>,
    /// What the scenario measured for the report (the comparison table's
    /// cells), as name and value.
    pub facts: Vec<(String, String)>,
}

/// The paths of the scalar leaves of `sent` that `stored` lacks (arrays are
/// compared as wholes: present or not).
fn missing_leaves(sent: &Value, stored: &Value, at: &str, out: &mut Vec<String>) {
    if let Value::Object(m) = sent {
        for (k, v) in m {
            let path = format!("{at}.{k}");
            match stored.get(k) {
                Some(s) if !s.is_null() => missing_leaves(v, s, &path, out),
                _ if v.is_null() => {}
                _ => out.push(path),
            }
        }
    }
}

/// The first of the scenario's own writes the timeline has not seen yet.
pub(crate) fn caught_up(
    t: &crate::history::Timeline,
    written: &BTreeMap<(Kind, String), u64>,
) -> Option<String> {
    t.missing(written)
}

impl std::fmt::Debug for Scenario {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scenario")
            .field("namespace", &self.namespace)
            .finish()
    }
}

/// A point of the scenario's history: the cluster's resourceVersion at that
/// moment (exact, whatever order entries arrive in later) and, for
/// timelines not ordered by resourceVersion, the recorder's position then.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mark {
    /// The cluster's resourceVersion when the mark was taken.
    pub rv: Option<u64>,
    /// The recorder's next position when the mark was taken.
    pub seq: u64,
}

impl Mark {
    /// The start of the history.
    pub const START: Mark = Mark {
        rv: Some(0),
        seq: 0,
    };

    /// The position in `t` of the first entry after the mark.
    pub fn resolve(&self, t: &crate::history::Timeline) -> u64 {
        match self.rv {
            Some(rv) => t.seq_after_rv(rv, self.seq),
            None => self.seq,
        }
    }
}

/// A namespace name for a scenario: readable, unique, a DNS label.
pub(crate) fn namespace_for(scenario_name: &str) -> String {
    let slug = namespace_slug(scenario_name);
    let suffix: u32 = rand::random::<u32>() % 0xfffff;
    format!("kepspec-{slug}-{suffix:05x}")
}

/// A scenario's name as a short DNS-label-safe slug.
pub(crate) fn namespace_slug(scenario_name: &str) -> String {
    let mut slug: String = scenario_name
        .to_ascii_lowercase()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    slug = slug
        .split('-')
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join("-");
    slug.truncate(40);
    slug.trim_end_matches('-').to_string()
}

impl Scenario {
    /// Creates the scenario's namespace and starts recording it.
    pub async fn start(env: Arc<Environment>, scenario_name: &str) -> anyhow::Result<Self> {
        let client = env.client.clone();
        let namespace = namespace_for(scenario_name);
        let ns: Namespace = serde_json::from_value(json!({
            "metadata": { "name": namespace, "labels": { "kepspec.io/scenario": "true" } }
        }))?;
        Api::<Namespace>::all(client.clone())
            .create(&PostParams::default(), &ns)
            .await
            .map_err(|e| RequestError::from_kube(format!("create namespace {namespace}"), e))?;
        env.namespace_created(&namespace);
        let resource = env.profile.api_resource();
        let env_gates = env.apiserver_gates();
        let set_kind = crate::history::SetKind {
            resource: resource.clone(),
            fields: env.profile.fields().clone(),
        };
        let recorder = Recorder::start(client.clone(), &namespace, set_kind).await?;
        let request_start = env.embedded.as_ref().map(|c| c.faults().last_seq());
        Ok(Self {
            env,
            client,
            namespace,
            resource,
            recorder,
            sets: BTreeMap::new(),
            last_refusal: None,
            baseline: None,
            request_mark: None,
            request_start,
            last_violation: None,
            remembered: BTreeMap::new(),
            written: BTreeMap::new(),
            isolated: false,
            apiserver_gates: env_gates,
            faults: Vec::new(),
            held_ports: Vec::new(),
            deviations: Vec::new(),
            facts: Vec::new(),
        })
    }

    /// Deletes the namespace (and with it everything the scenario made).
    pub async fn cleanup(&self) {
        Self::delete_namespace(&self.env, &self.client, &self.namespace).await;
    }

    /// Deletes a scenario's namespace and forgets it in the environment.
    pub async fn delete_namespace(env: &Environment, client: &Client, namespace: &str) {
        let api = Api::<Namespace>::all(client.clone());
        match api.delete(namespace, &DeleteParams::default()).await {
            Ok(_) => env.namespace_deleted(namespace),
            Err(kube::Error::Api(s)) if s.code == 404 => env.namespace_deleted(namespace),
            Err(err) => tracing::warn!(%err, %namespace, "cleanup failed"),
        }
    }

    pub(crate) fn sets_api(&self) -> Api<DynamicObject> {
        Api::namespaced_with(self.client.clone(), &self.namespace, &self.resource)
    }

    pub(crate) fn pods_api(&self) -> Api<Pod> {
        Api::namespaced(self.client.clone(), &self.namespace)
    }

    /// Creates a pod of the scenario's own (not a set's) from its manifest,
    /// as a change of the scenario; `what` names the request in errors.
    pub(crate) async fn create_pod(
        &mut self,
        what: String,
        manifest: serde_json::Value,
    ) -> Result<Pod, RequestError> {
        let pod: Pod = serde_json::from_value(manifest).map_err(|e| RequestError {
            what: what.clone(),
            message: e.to_string(),
            code: None,
        })?;
        self.note_change().await;
        let created = self
            .pods_api()
            .create(&kube::api::PostParams::default(), &pod)
            .await
            .map_err(|e| RequestError::from_kube(what, e))?;
        self.wrote(Kind::Pod, &created.metadata);
        Ok(created)
    }

    /// Creates a set from its spec.
    pub async fn create_set(&mut self, spec: SetSpec) -> Result<(), RequestError> {
        let obj = spec.to_object();
        let stored = self.create_set_object(&spec.name, obj.clone()).await?;
        self.sets.insert(spec.name.clone(), spec);
        self.check_kept(&obj, &stored)
    }

    /// Creates a set the scenario relies on from a full object (a YAML
    /// docstring): the cluster must keep every field it sets.
    pub async fn create_required_set(
        &mut self,
        name: &str,
        obj: Value,
    ) -> Result<(), RequestError> {
        let stored = self.create_set_object(name, obj.clone()).await?;
        self.check_kept(&obj, &stored)
    }

    /// Creates a set from a full object; returns the stored object, with the
    /// target's fields moved back to apps/v1's paths.
    pub async fn create_set_object(
        &mut self,
        name: &str,
        obj: Value,
    ) -> Result<Value, RequestError> {
        let obj = self.env.profile.to_target(obj);
        let obj: DynamicObject = serde_json::from_value(obj).map_err(|e| RequestError {
            what: format!("create {} {name}", self.resource.kind),
            message: e.to_string(),
            code: None,
        })?;
        let created = self
            .sets_api()
            .create(&PostParams::default(), &obj)
            .await
            .map_err(|e| {
                RequestError::from_kube(format!("create {} {name}", self.resource.kind), e)
            })?;
        self.wrote(Kind::StatefulSet, created.meta());
        let stored = serde_json::to_value(&created).unwrap_or(Value::Null);
        Ok(self.env.profile.from_target(stored))
    }

    /// A set the scenario relies on must be stored with every field the
    /// scenario set: a target that drops one (a field it does not have, or
    /// keeps elsewhere without a profile mapping) would otherwise be judged
    /// against settings it never saw. The one drop a scenario can stage is
    /// KEP-961's: an apiserver with MaxUnavailableStatefulSet off drops a new
    /// maxUnavailable.
    fn check_kept(&self, sent: &Value, stored: &Value) -> Result<(), RequestError> {
        let mut missing = Vec::new();
        missing_leaves(
            sent.get("spec").unwrap_or(&Value::Null),
            stored.get("spec").unwrap_or(&Value::Null),
            "spec",
            &mut missing,
        );
        let gate_drop = "spec.updateStrategy.rollingUpdate.maxUnavailable";
        missing.retain(|p| p != gate_drop || self.apiserver_gates.max_unavailable_statefulset);
        if missing.is_empty() {
            return Ok(());
        }
        let name = sent
            .lookup("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        Err(RequestError {
            what: format!("create {} {name}", self.resource.kind),
            message: format!(
                "the cluster did not keep {} that the scenario set: the target ignores or prunes {} (a target profile's `fields` can map a field to where the target keeps it)",
                missing.join(", "),
                if missing.len() == 1 { "it" } else { "them" }
            ),
            code: None,
        })
    }

    /// Applies a JSON merge patch to a set (what `kubectl patch --type merge` does).
    pub async fn patch_set(&mut self, name: &str, patch: Value) -> Result<(), RequestError> {
        self.note_change().await;
        let patch = self.env.profile.to_target(patch);
        self.sets_api()
            .patch(name, &PatchParams::default(), &Patch::Merge(&patch))
            .await
            .map(|o| self.wrote(Kind::StatefulSet, o.meta()))
            .map_err(|e| RequestError::from_kube(format!("patch {} {name}", self.resource.kind), e))
    }

    /// Applies the manifest the set was created from again, as `kubectl
    /// apply -f` does: a merge patch of every field whose live value
    /// differs from it (see `apply`); nothing is sent when none does.
    pub async fn apply_again(&mut self, name: &str) -> Result<(), RequestError> {
        let what = format!("apply the manifest of {} {name} again", self.resource.kind);
        let Some(spec) = self.sets.get(name) else {
            return Err(RequestError {
                what,
                message: format!("{name} was not created from a manifest by this scenario"),
                code: None,
            });
        };
        let manifest = spec.to_object();
        let live = self
            .sets_api()
            .get(name)
            .await
            .map_err(|e| RequestError::from_kube(what.clone(), e))?;
        let live = self
            .env
            .profile
            .from_target(serde_json::to_value(&live).unwrap_or(Value::Null));
        match super::apply::changed_fields(&manifest, &live) {
            Some(patch) => self.patch_set(name, patch).await,
            None => Ok(()),
        }
    }

    /// Replaces the set's whole spec with `spec` (an update, as a client
    /// that read the set and writes back the spec it holds), keeping
    /// metadata and status as stored. A 409 Conflict (the controller wrote
    /// the status between the read and the write) is retried with a fresh
    /// read, as upstream's e2e `updateStatefulSetWithRetries` does; any
    /// other refusal is returned.
    pub async fn replace_spec(&mut self, name: &str, spec: Value) -> Result<(), RequestError> {
        self.note_change().await;
        let what = format!("replace the spec of {} {name}", self.resource.kind);
        let api = self.sets_api();
        let spec = self.env.profile.to_target(json!({ "spec": spec }))["spec"].clone();
        let mut attempts = 0;
        loop {
            attempts += 1;
            let current = api
                .get(name)
                .await
                .map_err(|e| RequestError::from_kube(what.clone(), e))?;
            let mut obj = serde_json::to_value(&current).unwrap_or(Value::Null);
            obj["spec"] = spec.clone();
            let obj: DynamicObject = serde_json::from_value(obj).map_err(|e| RequestError {
                what: what.clone(),
                message: e.to_string(),
                code: None,
            })?;
            match api.replace(name, &PostParams::default(), &obj).await {
                Ok(o) => {
                    self.wrote(Kind::StatefulSet, o.meta());
                    return Ok(());
                }
                Err(kube::Error::Api(s)) if s.code == 409 && attempts < 10 => continue,
                Err(e) => return Err(RequestError::from_kube(what, e)),
            }
        }
    }

    /// Changes the image of the set's first container.
    pub async fn set_image(&mut self, name: &str, image: &str) -> Result<(), RequestError> {
        // A strategic merge patch keyed by container name, as `kubectl set image` sends.
        let patch = json!({ "spec": { "template": { "spec": { "containers": [ { "name": "app", "image": image } ] } } } });
        self.strategic_patch_set(name, patch, &format!("set image of {name} to {image}"))
            .await
    }

    /// What `kubectl rollout restart` does: stamps the template with
    /// `kubectl.kubernetes.io/restartedAt`.
    pub async fn rollout_restart(&mut self, name: &str) -> Result<(), RequestError> {
        let now = jiff::Timestamp::now()
            .strftime("%Y-%m-%dT%H:%M:%SZ")
            .to_string();
        let patch = json!({ "spec": { "template": { "metadata": { "annotations": { "kubectl.kubernetes.io/restartedAt": now } } } } });
        self.patch_set(name, patch).await
    }

    /// Sets an environment variable of the set's container (a template change).
    pub async fn set_env(
        &mut self,
        name: &str,
        var: &str,
        value: &str,
    ) -> Result<(), RequestError> {
        let what = format!("set {var}={value} on {name}");
        self.strategic_patch_set(name, env_patch(var, value), &what)
            .await
    }

    /// Creates a ControllerRevision of the set that holds the name the set's
    /// next revision would get once `var` is set to `value` (upstream's hash
    /// of the template the apiserver would store, asked for with a dry run,
    /// and of the set's `status.collisionCount`), with other data: a
    /// template that differs by one annotation. Returns the name taken.
    pub async fn take_revision_name(
        &mut self,
        name: &str,
        var: &str,
        value: &str,
    ) -> Result<String, RequestError> {
        use crate::controller::revision;
        use k8s_openapi::api::apps::v1::ControllerRevision;
        let what = format!("take the name of {name}'s revision for {var}={value}");
        let fail = |message: String| RequestError {
            what: what.clone(),
            message,
            code: None,
        };
        let api = self.sets_api();
        let current = api
            .get(name)
            .await
            .map_err(|e| RequestError::from_kube(what.clone(), e))?;
        // The very patch `set_env` sends, so the name is the one it makes.
        let patch = self.env.profile.to_target(env_patch(var, value));
        let changed = if self.env.profile.is_apps_v1() {
            let dry_run = PatchParams {
                dry_run: true,
                ..PatchParams::default()
            };
            let served = api
                .patch(name, &dry_run, &Patch::Strategic(&patch))
                .await
                .map_err(|e| RequestError::from_kube(what.clone(), e))?;
            serde_json::to_value(&served).map_err(|e| fail(e.to_string()))?
        } else {
            let doc = serde_json::to_value(&current).map_err(|e| fail(e.to_string()))?;
            crate::sim::apply_strategic_merge_patch(&doc, &patch).map_err(fail)?
        };
        let collisions = changed
            .lookup("/status/collisionCount")
            .and_then(Value::as_i64)
            .and_then(|c| i32::try_from(c).ok())
            .unwrap_or(0);
        let data = revision::revision_data(&changed).map_err(|e| fail(e.to_string()))?;
        let taken = revision::revision_name(name, &revision::hash_revision(&data, collisions));
        let mut other = data;
        if let Some(template) = other
            .pointer_mut("/spec/template")
            .and_then(Value::as_object_mut)
        {
            let meta = template
                .entry("metadata")
                .or_insert_with(|| json!({}))
                .as_object_mut();
            if let Some(meta) = meta {
                let annotations = meta.entry("annotations").or_insert_with(|| json!({}));
                annotations["kepspec.io/other-template"] = json!("true");
            }
        }
        let labels = current
            .data
            .lookup("/spec/selector/matchLabels")
            .cloned()
            .unwrap_or_else(|| json!({}));
        let owner = json!({
            "apiVersion": self.resource.api_version,
            "kind": self.resource.kind,
            "name": name,
            "uid": current.metadata.uid,
            "controller": true,
            "blockOwnerDeletion": true,
        });
        let manifest = json!({
            "apiVersion": "apps/v1",
            "kind": "ControllerRevision",
            "metadata": {
                "name": taken,
                "namespace": self.namespace,
                "labels": labels,
                "ownerReferences": [owner],
            },
            "data": other,
            // Below every revision the set made, so it is never the newest.
            "revision": 0,
        });
        let revision: ControllerRevision =
            serde_json::from_value(manifest).map_err(|e| fail(e.to_string()))?;
        self.note_change().await;
        let revisions: Api<ControllerRevision> =
            Api::namespaced(self.client.clone(), &self.namespace);
        let created = revisions
            .create(&PostParams::default(), &revision)
            .await
            .map_err(|e| RequestError::from_kube(what.clone(), e))?;
        self.wrote(Kind::ControllerRevision, created.meta());
        Ok(taken)
    }

    /// Sets the CPU request of the set's container (a template change).
    pub async fn set_cpu_request(&mut self, name: &str, cpu: &str) -> Result<(), RequestError> {
        let patch = json!({ "spec": { "template": { "spec": { "containers": [
            { "name": "app", "resources": { "requests": { "cpu": cpu } } }
        ] } } } });
        self.strategic_patch_set(
            name,
            patch,
            &format!("set the cpu request of {name} to {cpu}"),
        )
        .await
    }

    /// Sets the command of the set's container (a template change).
    pub async fn set_command(
        &mut self,
        name: &str,
        command: &[String],
    ) -> Result<(), RequestError> {
        let patch = json!({ "spec": { "template": { "spec": { "containers": [
            { "name": "app", "command": command }
        ] } } } });
        self.strategic_patch_set(name, patch, &format!("set the command of {name}"))
            .await
    }

    /// Sets or removes the template's readiness gates (a template change).
    pub async fn set_template_readiness_gate(
        &mut self,
        name: &str,
        present: bool,
    ) -> Result<(), RequestError> {
        let gates = if present {
            json!([{ "conditionType": READINESS_GATE }])
        } else {
            Value::Null
        };
        self.patch_set(
            name,
            json!({ "spec": { "template": { "spec": { "readinessGates": gates } } } }),
        )
        .await
    }

    /// Changes `.spec.updateStrategy.type` alone (dropping a rollingUpdate
    /// block, which only RollingUpdate may carry).
    pub async fn set_strategy(&mut self, name: &str, strategy: &str) -> Result<(), RequestError> {
        let mut s = json!({ "type": strategy });
        if strategy != "RollingUpdate" {
            s["rollingUpdate"] = Value::Null;
        }
        // The KEP-3541 draft's block belongs to its own type only; a null
        // in a merge patch removes it (and names nothing on a server that
        // never had the field).
        if strategy != "EnforcedRollingUpdate" {
            s["enforcedRollingUpdate"] = Value::Null;
        }
        self.patch_set(name, json!({ "spec": { "updateStrategy": s } }))
            .await
    }

    /// Changes `.spec.replicas`.
    pub async fn scale(&mut self, name: &str, replicas: i32) -> Result<(), RequestError> {
        self.patch_set(name, json!({ "spec": { "replicas": replicas } }))
            .await
    }

    /// Sets the replicas through the scale subresource, as upstream's e2e
    /// test does: read the Scale, change `spec.replicas`, write it back.
    pub async fn scale_subresource(
        &mut self,
        name: &str,
        replicas: i32,
    ) -> Result<(), RequestError> {
        self.note_change().await;
        let kind = self.resource.kind.clone();
        let what = || format!("scale {kind} {name} through its scale subresource");
        let mut scale = self
            .sets_api()
            .get_scale(name)
            .await
            .map_err(|e| RequestError::from_kube(what(), e))?;
        scale.spec.get_or_insert_with(Default::default).replicas = Some(replicas);
        self.sets_api()
            .replace_scale(name, &kube::api::PostParams::default(), &scale)
            .await
            .map(|o| self.wrote(Kind::StatefulSet, &o.metadata))
            .map_err(|e| RequestError::from_kube(what(), e))
    }

    /// The set's Scale as the scale subresource serves it.
    pub async fn read_scale(
        &self,
        name: &str,
    ) -> Result<k8s_openapi::api::autoscaling::v1::Scale, RequestError> {
        self.sets_api().get_scale(name).await.map_err(|e| {
            RequestError::from_kube(
                format!("read the scale of {} {name}", self.resource.kind),
                e,
            )
        })
    }

    /// Sets `.spec.updateStrategy.rollingUpdate.partition`.
    pub async fn set_partition(&mut self, name: &str, partition: i32) -> Result<(), RequestError> {
        self.patch_set(name, json!({ "spec": { "updateStrategy": { "rollingUpdate": { "partition": partition } } } })).await
    }

    /// Sets `.spec.updateStrategy.rollingUpdate.maxUnavailable` (a number or a percentage).
    pub async fn set_max_unavailable(
        &mut self,
        name: &str,
        value: &str,
    ) -> Result<(), RequestError> {
        let v = value
            .parse::<i64>()
            .map(Value::from)
            .unwrap_or_else(|_| Value::from(value));
        self.patch_set(
            name,
            json!({ "spec": { "updateStrategy": { "rollingUpdate": { "maxUnavailable": v } } } }),
        )
        .await
    }

    /// Deletes the set as `kubectl delete statefulset` does (background
    /// cascade), or with `foreground` as `kubectl delete --cascade=foreground`
    /// does: the set stays, being deleted, until the garbage collector has
    /// removed the dependents that block its deletion.
    pub async fn delete_set(&mut self, name: &str, foreground: bool) -> Result<(), RequestError> {
        self.note_change().await;
        let params = if foreground {
            DeleteParams::foreground()
        } else {
            DeleteParams::background()
        };
        self.sets_api()
            .delete(name, &params)
            .await
            .map(|o| {
                if let either::Either::Left(o) = o {
                    self.wrote(Kind::StatefulSet, o.meta());
                }
            })
            .map_err(|e| {
                RequestError::from_kube(format!("delete {} {name}", self.resource.kind), e)
            })
    }

    /// Reports a pod Failed through its status, as a kubelet does when a pod
    /// is evicted or its node fails it.
    pub async fn fail_pod(&mut self, pod: &str) -> Result<(), RequestError> {
        let status =
            json!({ "phase": "Failed", "reason": "Evicted", "message": "failed by the scenario" });
        self.end_pod(pod, status, "fail").await
    }

    /// Reports a pod Succeeded through its status (every container exited
    /// 0), as upstream's integration test TestDeletingAndTerminatingPods
    /// does.
    pub async fn succeed_pod(&mut self, pod: &str) -> Result<(), RequestError> {
        let status = json!({ "phase": "Succeeded", "message": "succeeded by the scenario" });
        self.end_pod(pod, status, "succeed").await
    }

    async fn end_pod(&mut self, pod: &str, status: Value, verb: &str) -> Result<(), RequestError> {
        self.note_change().await;
        let patch = json!({ "status": status });
        self.pods_api()
            .patch_status(pod, &PatchParams::default(), &Patch::Merge(&patch))
            .await
            .map(|o| self.wrote(Kind::Pod, o.meta()))
            .map_err(|e| RequestError::from_kube(format!("{verb} pod {pod}"), e))
    }

    pub(crate) async fn strategic_patch_set(
        &mut self,
        name: &str,
        patch: Value,
        what: &str,
    ) -> Result<(), RequestError> {
        self.note_change().await;
        let patch = self.env.profile.to_target(patch);
        let api = self.sets_api();
        let result = if self.env.profile.is_apps_v1() {
            api.patch(name, &PatchParams::default(), &Patch::Strategic(&patch))
                .await
        } else {
            // Custom resources take no strategic merge patches: merge the
            // same way here (the vendor kind has the apps/v1 shape) and
            // replace, guarded by the resourceVersion just read; a conflict
            // (the controller wrote the status meanwhile) reads again, as
            // client-go's RetryOnConflict does.
            let mut attempt = 0;
            loop {
                attempt += 1;
                let replaced = match api.get(name).await {
                    Ok(current) => {
                        let doc = serde_json::to_value(&current).unwrap_or(Value::Null);
                        let merged = crate::sim::apply_strategic_merge_patch(&doc, &patch)
                            .and_then(|m| {
                                serde_json::from_value::<DynamicObject>(m)
                                    .map_err(|e| e.to_string())
                            })
                            .map_err(|message| RequestError {
                                what: what.to_string(),
                                message,
                                code: None,
                            })?;
                        api.replace(name, &PostParams::default(), &merged).await
                    }
                    Err(e) => Err(e),
                };
                match replaced {
                    Err(kube::Error::Api(e)) if e.code == 409 && attempt < CONFLICT_RETRIES => {}
                    other => break other,
                }
            }
        };
        result
            .map(|o| self.wrote(Kind::StatefulSet, o.meta()))
            .map_err(|e| RequestError::from_kube(what.to_string(), e))
    }

    /// Removes one label from a pod (a merge patch, as `kubectl label pod
    /// web-1 name-`).
    pub async fn remove_pod_label(&mut self, pod: &str, label: &str) -> Result<(), RequestError> {
        self.set_pod_label(pod, label, None).await
    }

    /// Sets (or, with `None`, removes) a label of a pod with a merge patch.
    pub async fn set_pod_label(
        &mut self,
        pod: &str,
        label: &str,
        value: Option<&str>,
    ) -> Result<(), RequestError> {
        self.note_change().await;
        let mut labels = serde_json::Map::new();
        labels.insert(
            label.to_string(),
            value.map_or(serde_json::Value::Null, serde_json::Value::from),
        );
        self.pods_api()
            .patch(
                pod,
                &PatchParams::default(),
                &Patch::Merge(&json!({ "metadata": { "labels": labels } })),
            )
            .await
            .map(|o| self.wrote(Kind::Pod, o.meta()))
            .map_err(|e| RequestError::from_kube(format!("set label {label} of pod {pod}"), e))
    }

    /// Replaces a pod's finalizers.
    pub async fn set_pod_finalizers(
        &mut self,
        pod: &str,
        finalizers: Vec<String>,
    ) -> Result<(), RequestError> {
        self.pods_api()
            .patch(
                pod,
                &PatchParams::default(),
                &Patch::Merge(&json!({ "metadata": { "finalizers": finalizers } })),
            )
            .await
            .map(|o| self.wrote(Kind::Pod, o.meta()))
            .map_err(|e| RequestError::from_kube(format!("set the finalizers of pod {pod}"), e))
    }

    /// A pod's finalizers now.
    pub async fn pod_finalizers(&self, pod: &str) -> Result<Vec<String>, RequestError> {
        self.pods_api()
            .get(pod)
            .await
            .map(|p| p.metadata.finalizers.unwrap_or_default())
            .map_err(|e| RequestError::from_kube(format!("get pod {pod}"), e))
    }

    /// Submits a set that may be refused; the answer is kept for `Then` steps.
    pub async fn submit_set_object(&mut self, obj: Value) -> Result<(), RequestError> {
        let name = obj
            .lookup("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        self.last_refusal = self.create_set_object(&name, obj).await.err();
        Ok(())
    }

    /// Deletes a pod (gracefully, as `kubectl delete pod` does).
    pub async fn delete_pod(&mut self, name: &str) -> Result<(), RequestError> {
        self.note_change().await;
        self.pods_api()
            .delete(name, &DeleteParams::default())
            .await
            .map(|o| {
                if let either::Either::Left(o) = o {
                    self.wrote(Kind::Pod, o.meta());
                }
            })
            .map_err(|e| RequestError::from_kube(format!("delete pod {name}"), e))
    }

    /// Sets the scenario's readiness gate condition on a pod, the way a
    /// readiness-gate controller would: through the status subresource.
    pub async fn set_readiness(&mut self, pod: &str, ready: bool) -> Result<(), RequestError> {
        let status = if ready { "True" } else { "False" };
        let now = jiff::Timestamp::now()
            .strftime("%Y-%m-%dT%H:%M:%SZ")
            .to_string();
        let patch = json!({ "status": { "conditions": [ {
            "type": READINESS_GATE, "status": status, "lastTransitionTime": now
        } ] } });
        self.pods_api()
            .patch_status(pod, &PatchParams::default(), &Patch::Strategic(&patch))
            .await
            .map(|o| self.wrote(Kind::Pod, o.meta()))
            .map_err(|e| {
                RequestError::from_kube(format!("set {READINESS_GATE}={status} on pod {pod}"), e)
            })
    }

    /// The pods' names of a set as they are now.
    pub async fn pod_names(&self, set: &str) -> Result<Vec<String>, RequestError> {
        let list = self
            .pods_api()
            .list(&kube::api::ListParams::default().labels(&format!("app={set}")))
            .await
            .map_err(|e| RequestError::from_kube(format!("list pods of {set}"), e))?;
        Ok(list
            .items
            .into_iter()
            .filter_map(|p| p.metadata.name)
            .collect())
    }

    /// Remembers the resourceVersion of a write, so that later waits and
    /// checks first let the recorder catch up with it.
    pub(crate) fn wrote(
        &mut self,
        kind: Kind,
        meta: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta,
    ) {
        if let (Some(rv), Some(name)) = (
            meta.resource_version
                .as_deref()
                .and_then(|v| v.parse::<u64>().ok()),
            &meta.name,
        ) {
            self.written.insert((kind, name.clone()), rv);
        }
    }

    /// The timeline once the recorder has seen every write this scenario
    /// made, each on the watch of its own kind (watches of different kinds
    /// are independent streams, so one being ahead says nothing of another).
    /// Every other kind's watch first catches up with the objects as they
    /// are ([`crate::history::Recorder::catch_up`]), and the timeline ends
    /// where every kind's watch had delivered everything, so a check never
    /// reads a status its pods' watch has not caught up with.
    pub async fn timeline(&self) -> anyhow::Result<crate::history::Timeline> {
        let cut = self.recorder.settle().await;
        let written = self.written.clone();
        let mut t = self
            .recorder
            .wait_for(Self::default_wait(), |t| {
                caught_up(t, &written).is_none().then(|| t.clone())
            })
            .await
            .map_err(|e| {
                anyhow::anyhow!("the recorder did not see the scenario's own writes: {e}")
            })?;
        if let Some(rv) = cut {
            t.cut_after_rv(rv);
        }
        Ok(t)
    }

    /// Remembers where the scenario's first change begins: everything
    /// before it is the state the scenario started from.
    pub(crate) async fn note_change(&mut self) {
        if self.baseline.is_none() {
            self.baseline = Some(self.mark_now().await);
            self.request_mark = super::requests::log_position(self);
        }
    }

    /// A mark of this moment: the cluster's current resourceVersion, read
    /// with a consistent list (one item) of the scenario's pods. Without an
    /// answer it falls back to the newest resourceVersion the recorder saw.
    pub async fn mark_now(&self) -> Mark {
        let seq = self.recorder.next_seq();
        let listed = self
            .pods_api()
            .list_metadata(&kube::api::ListParams::default().limit(1))
            .await
            .ok()
            .and_then(|l| l.metadata.resource_version)
            .and_then(|v| v.parse::<u64>().ok());
        let rv = listed.or_else(|| {
            self.recorder
                .snapshot()
                .entries()
                .iter()
                .filter_map(|e| e.rv_number())
                .max()
        });
        Mark { rv, seq }
    }

    /// The mark of the first change ([`Mark::START`] when nothing changed yet).
    pub fn baseline_mark(&self) -> Mark {
        self.baseline.unwrap_or(Mark::START)
    }

    /// The position in `t` of the scenario's first change.
    pub fn baseline(&self, t: &crate::history::Timeline) -> u64 {
        self.baseline_mark().resolve(t)
    }

    /// How long a wait may take at most when a step names no bound.
    pub fn default_wait() -> Duration {
        Duration::from_secs(60)
    }
}

/// The strategic merge patch that sets environment variable `var` of the
/// set's container `app` (a template change).
/// How many times a read-modify-write of a custom resource is tried when
/// another writer wins (client-go's `retry.DefaultRetry` tries 5 times).
const CONFLICT_RETRIES: u32 = 5;

fn env_patch(var: &str, value: &str) -> Value {
    json!({ "spec": { "template": { "spec": { "containers": [
        { "name": "app", "env": [ { "name": var, "value": value } ] }
    ] } } } })
}
