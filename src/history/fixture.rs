//! A builder of hand-written timelines, for tests of checkers and reports.
//!
//! Every call appends one entry at the builder's current time with the next
//! resourceVersion. Pods get uids `<name>#<n>` where `n` counts the lives of
//! that name, so a recreated pod has a new uid.

use super::timeline::{Change, Entry, Kind, Timeline};
use kepspec_core::Lookup as _;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::time::Duration;

/// Builds a [`Timeline`] step by step.
#[derive(Debug, Default)]
pub(crate) struct TimelineBuilder {
    timeline: Timeline,
    rv: u64,
    now: Duration,
    lives: HashMap<String, u32>,
    objects: HashMap<(Kind, String), Value>,
}

impl TimelineBuilder {
    /// An empty builder at time zero.
    pub(crate) fn new() -> TimelineBuilder {
        TimelineBuilder {
            timeline: Timeline::new(),
            ..TimelineBuilder::default()
        }
    }

    /// Moves the clock to `secs` seconds after the start.
    pub(crate) fn at(&mut self, secs: f64) -> &mut Self {
        self.now = Duration::from_secs_f64(secs.max(0.0));
        self
    }

    /// The timeline built so far.
    pub(crate) fn timeline(&self) -> &Timeline {
        &self.timeline
    }

    /// The finished timeline.
    pub(crate) fn build(&mut self) -> Timeline {
        std::mem::take(&mut self.timeline)
    }

    fn push(&mut self, kind: Kind, change: Change, mut obj: Value) -> u64 {
        self.rv += 1;
        if let Some(meta) = obj.get_mut("metadata").and_then(Value::as_object_mut) {
            meta.insert("resourceVersion".into(), json!(self.rv.to_string()));
        }
        let name = obj
            .lookup("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        if change == Change::Deleted {
            self.objects.remove(&(kind, name));
        } else {
            self.objects.insert((kind, name), obj.clone());
        }
        self.timeline.push(Entry::new(self.now, kind, change, obj))
    }

    fn new_uid(&mut self, name: &str) -> String {
        let n = self.lives.entry(name.to_string()).or_insert(0);
        *n += 1;
        format!("{name}#{n}")
    }

    fn modify(&mut self, kind: Kind, name: &str, f: impl FnOnce(&mut Value)) -> &mut Self {
        if let Some(mut obj) = self.objects.get(&(kind, name.to_string())).cloned() {
            f(&mut obj);
            self.push(kind, Change::Modified, obj);
        }
        self
    }

    /// Creates pod `name` with revision label `revision` (Pending),
    /// controlled by the StatefulSet its name makes it a member of, as a
    /// controller creates it.
    pub(crate) fn create_pod(&mut self, name: &str, revision: &str) -> &mut Self {
        let uid = self.new_uid(name);
        let owners = match super::views::split_ordinal(name) {
            Some((set, _)) => json!([{"apiVersion": "apps/v1", "kind": "StatefulSet",
                "name": set, "uid": format!("{set}-uid"), "controller": true,
                "blockOwnerDeletion": true}]),
            None => Value::Null,
        };
        let obj = json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "uid": uid, "ownerReferences": owners,
                "labels": {super::views::REVISION_LABEL: revision}},
            "spec": {},
            "status": {"phase": "Pending"}
        });
        self.push(Kind::Pod, Change::Added, obj);
        self
    }

    /// Pod `name` gets `refs` as its ownerReferences (`null`: none).
    #[cfg(test)]
    pub(crate) fn pod_owners(&mut self, name: &str, refs: Value) -> &mut Self {
        self.modify(Kind::Pod, name, |o| o["metadata"]["ownerReferences"] = refs)
    }

    /// StatefulSet `name` is recorded as a resource of another group and
    /// kind, as a vendor's set is.
    #[cfg(test)]
    pub(crate) fn set_kind(&mut self, name: &str, api_version: &str, kind: &str) -> &mut Self {
        self.modify(Kind::StatefulSet, name, |o| {
            o["apiVersion"] = json!(api_version);
            o["kind"] = json!(kind);
        })
    }

    /// Pod `name` runs and becomes Ready.
    pub(crate) fn ready(&mut self, name: &str) -> &mut Self {
        self.modify(Kind::Pod, name, |o| {
            o["spec"]["nodeName"] = json!("kind-worker");
            o["status"]["phase"] = json!("Running");
            o["status"]["conditions"] = json!([{"type": "Ready", "status": "True"}]);
        })
    }

    /// Pod `name` gets a deletionTimestamp.
    pub(crate) fn terminate(&mut self, name: &str) -> &mut Self {
        self.modify(Kind::Pod, name, |o| {
            o["metadata"]["deletionTimestamp"] = json!("2026-01-01T00:00:00Z");
        })
    }

    /// Pod `name` is removed.
    pub(crate) fn delete_pod(&mut self, name: &str) -> &mut Self {
        self.delete(Kind::Pod, name)
    }

    /// Removes any object.
    pub(crate) fn delete(&mut self, kind: Kind, name: &str) -> &mut Self {
        if let Some(obj) = self.objects.get(&(kind, name.to_string())).cloned() {
            self.push(kind, Change::Deleted, obj);
        }
        self
    }

    /// Creates claim `name` (Bound).
    pub(crate) fn claim(&mut self, name: &str) -> &mut Self {
        let uid = self.new_uid(name);
        let obj = json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
            "metadata": {"name": name, "uid": uid}, "status": {"phase": "Bound"}});
        self.push(Kind::PersistentVolumeClaim, Change::Added, obj);
        self
    }

    /// StatefulSet `name` as recorded last, or a new one at `generation`
    /// with an empty spec, and the change writing it back will be.
    fn set_object(&mut self, name: &str, generation: i64) -> (Change, Value) {
        match self.objects.get(&(Kind::StatefulSet, name.to_string())) {
            Some(o) => (Change::Modified, o.clone()),
            None => {
                let uid = self.new_uid(name);
                let o = json!({"apiVersion": "apps/v1", "kind": "StatefulSet",
                    "metadata": {"name": name, "uid": uid, "generation": generation}, "spec": {}});
                (Change::Added, o)
            }
        }
    }

    /// Creates or updates StatefulSet `name` with the given status.
    pub(crate) fn set_status(&mut self, name: &str, status: Value) -> &mut Self {
        let (change, mut obj) = self.set_object(name, 1);
        obj["status"] = status;
        self.push(Kind::StatefulSet, change, obj);
        self
    }

    /// Records an event about `involved` (kind StatefulSet, with the uid of
    /// the set of that name when one is recorded).
    pub(crate) fn event(
        &mut self,
        involved: &str,
        type_: &str,
        reason: &str,
        message: &str,
    ) -> &mut Self {
        let mut reference = json!({"kind": "StatefulSet", "name": involved});
        if let Some(set) = self.objects.get(&(Kind::StatefulSet, involved.to_string())) {
            reference["uid"] = set["metadata"]["uid"].clone();
        }
        self.event_with_reference(reference, type_, reason, message)
    }

    /// Records an event whose `involvedObject` is `reference` as given.
    pub(crate) fn event_with_reference(
        &mut self,
        reference: Value,
        type_: &str,
        reason: &str,
        message: &str,
    ) -> &mut Self {
        let involved = reference["name"].as_str().unwrap_or_default();
        let name = format!("{involved}.{}", self.rv + 1);
        let uid = self.new_uid(&name);
        let obj = json!({"apiVersion": "v1", "kind": "Event",
            "metadata": {"name": name, "uid": uid},
            "involvedObject": reference,
            "type": type_, "reason": reason, "message": message});
        self.push(Kind::Event, Change::Added, obj);
        self
    }

    /// Creates `replicas` ready pods `<set>-<i>` of `revision` with claims
    /// `data-<set>-<i>`, all at the current time.
    pub(crate) fn ready_set(&mut self, set: &str, replicas: i32, revision: &str) -> &mut Self {
        for i in 0..replicas {
            let name = format!("{set}-{i}");
            self.claim(&format!("data-{name}"));
            self.create_pod(&name, revision).ready(&name);
        }
        self
    }

    /// Pod `name` loses readiness.
    #[cfg(test)]
    pub(crate) fn unready(&mut self, name: &str) -> &mut Self {
        self.modify(Kind::Pod, name, |o| {
            o["status"]["conditions"] = json!([{"type": "Ready", "status": "False"}]);
        })
    }

    /// Pod `name` waits with a container reason (e.g. `ImagePullBackOff`).
    #[cfg(test)]
    pub(crate) fn waiting(&mut self, name: &str, reason: &str) -> &mut Self {
        self.modify(Kind::Pod, name, |o| {
            o["status"]["containerStatuses"] =
                json!([{"name": "c", "state": {"waiting": {"reason": reason}}}]);
        })
    }

    /// Claim `name` gets `refs` as its ownerReferences.
    #[cfg(test)]
    pub(crate) fn claim_owners(&mut self, name: &str, refs: Value) -> &mut Self {
        self.modify(Kind::PersistentVolumeClaim, name, |o| {
            o["metadata"]["ownerReferences"] = refs;
        })
    }

    /// Pod `name` is written with `revision` as its revision label, and with
    /// `image` as its only container's, when given.
    #[cfg(test)]
    pub(crate) fn pod_write(
        &mut self,
        name: &str,
        revision: &str,
        image: Option<&str>,
    ) -> &mut Self {
        self.modify(Kind::Pod, name, |o| {
            o["metadata"]["labels"][super::views::REVISION_LABEL] = json!(revision);
            if let Some(image) = image {
                o["spec"]["containers"] = json!([{"name": "app", "image": image}]);
            }
        })
    }

    /// Replaces the spec of StatefulSet `name` (created if new), raising its
    /// generation as the apiserver does.
    #[cfg(test)]
    pub(crate) fn set_spec(&mut self, name: &str, spec: Value) -> &mut Self {
        let (change, mut obj) = self.set_object(name, 0);
        let generation = obj
            .lookup("/metadata/generation")
            .and_then(Value::as_i64)
            .unwrap_or(0);
        obj["metadata"]["generation"] = json!(generation + 1);
        obj["spec"] = spec;
        self.push(Kind::StatefulSet, change, obj);
        self
    }
}
