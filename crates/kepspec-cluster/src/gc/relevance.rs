//! Which committed changes can give the collector work, judged against what
//! its last pass found ([`Known`]), as upstream's graph builder knows the
//! owners and dependents of every object: a pod deleted or created by a
//! 1,000-pod rollout, naming an owner the collector already knows to be
//! there, gives it nothing to do and starts no pass.

use std::collections::HashSet;

use serde_json::Value;

use super::{deleting, has_finalizer, refs};
use crate::meta::{finalizers, meta_str};
use crate::store::{Event, EventType, Gr, ObjKey};

/// What the last pass found, as far as deciding on later changes needs it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Known {
    /// Uids of objects that exist and that some object names as owner.
    pub live_owners: HashSet<String>,
    /// Uids of objects being deleted with a `foregroundDeletion` or
    /// `orphan` finalizer: waiting for their dependents.
    pub finalizing: HashSet<String>,
    /// Namespaces being deleted.
    pub ending: HashSet<String>,
    /// Whether a claim or volume waits for its protection finalizer.
    pub storage_waiting: bool,
}

impl Known {
    /// What a pass over `objects` (every object it decides on) finds;
    /// `owners` are the uids any stored object names as owner.
    pub(crate) fn of<V: std::borrow::Borrow<Value>>(
        objects: &[(ObjKey, V)],
        owners: &HashSet<&str>,
        storage_waiting: bool,
    ) -> Known {
        let ns_gr = Gr::new("", "namespaces");
        let mut known = Known {
            storage_waiting,
            ..Known::default()
        };
        for (k, o) in objects {
            let o = o.borrow();
            let uid = meta_str(o, "uid").unwrap_or_default();
            if owners.contains(uid) {
                known.live_owners.insert(uid.to_string());
            }
            if deleting(o) && (has_finalizer(o, "foregroundDeletion") || has_finalizer(o, "orphan"))
            {
                known.finalizing.insert(uid.to_string());
            }
            if k.gr == ns_gr && deleting(o) {
                known.ending.insert(k.name.clone());
            }
        }
        known
    }
}

/// Whether a committed change can give the collector work, given what its
/// last pass found (`None`: nothing known yet, every change counts as
/// before).
///
/// - CustomResourceDefinitions (what is served), claims and volumes always
///   count, and so does the removal of a ServiceAccount; a namespace counts
///   when its deletion starts or ends or its finalizers change (before any
///   pass, always).
/// - A deletion counts when the object was a live owner, names an owner
///   waiting for its dependents, lived in a namespace being deleted, or was
///   a pod while a claim waits for its protection finalizer.
/// - A creation counts when it names an owner not known to be there (a
///   dangling reference to collect), is being deleted already, or lands in a
///   namespace being deleted.
/// - An update counts when it changes the owners or finalizers named, or
///   starts the object's deletion while it carries finalizers or is an
///   owner.
///
/// Everything else, status and spec changes most of all, cannot.
pub(crate) fn matters(ev: &Event, known: Option<&Known>) -> bool {
    let core = ev.key.gr.group.is_empty();
    if core && ev.key.gr.resource == "namespaces" && known.is_some() {
        return namespace_matters(ev);
    }
    // Once something is known, a ServiceAccount counts by its removal (the
    // default one is made again); its creation and changes go by the rules
    // of every object below.
    let account = core && ev.key.gr.resource == "serviceaccounts";
    if account && known.is_some() && ev.kind == EventType::Deleted {
        return true;
    }
    let always = !(account && known.is_some())
        && matches!(
            (ev.key.gr.group.as_str(), ev.key.gr.resource.as_str()),
            ("", "namespaces")
                | ("", "serviceaccounts")
                | ("", "persistentvolumeclaims")
                | ("", "persistentvolumes")
                | ("apiextensions.k8s.io", _)
        );
    if always {
        return true;
    }
    let Some(known) = known else {
        return matters_without_knowledge(ev);
    };
    let o = &*ev.object;
    let uid = meta_str(o, "uid").unwrap_or_default();
    let in_ending = known.ending.contains(&ev.key.namespace);
    match ev.kind {
        EventType::Deleted => {
            known.live_owners.contains(uid)
                || refs(o).iter().any(|(u, _)| known.finalizing.contains(u))
                || in_ending
                || (known.storage_waiting && ev.key.gr == Gr::new("", "pods"))
        }
        EventType::Added => {
            refs(o).iter().any(|(u, _)| !known.live_owners.contains(u)) || deleting(o) || in_ending
        }
        EventType::Modified => {
            let Some(prev) = ev.prev.as_deref() else {
                return true;
            };
            owners_or_finalizers_changed(prev, o)
                || (deleting(o)
                    && !deleting(prev)
                    && (!finalizers(o).is_empty() || known.live_owners.contains(uid)))
        }
    }
}

/// A namespace's change counts when it can start or finish the deletion of
/// its contents: its own deletion (or its start), and a change of its
/// finalizers. Its creation cannot (its default ServiceAccount is made in
/// the same transaction), nor can a change of its labels or status.
fn namespace_matters(ev: &Event) -> bool {
    match ev.kind {
        EventType::Deleted => true,
        EventType::Added => deleting(&ev.object),
        EventType::Modified => ev.prev.as_deref().is_none_or(|prev| {
            deleting(&ev.object) != deleting(prev)
                || finalizers(prev) != finalizers(&ev.object)
                || spec_finalizers(prev) != spec_finalizers(&ev.object)
        }),
    }
}

/// A namespace's `spec.finalizers` (the ones the namespace controller
/// removes once the namespace is empty).
fn spec_finalizers(o: &Value) -> Option<&Value> {
    o.get("spec").and_then(|s| s.get("finalizers"))
}

/// Before any pass: a deletion, an object being deleted, one that names
/// owners or changed its owners or finalizers.
fn matters_without_knowledge(ev: &Event) -> bool {
    match ev.kind {
        EventType::Deleted => true,
        _ if deleting(&ev.object) => true,
        EventType::Added => !refs(&ev.object).is_empty(),
        EventType::Modified => ev
            .prev
            .as_ref()
            .is_none_or(|p| owners_or_finalizers_changed(p, &ev.object)),
    }
}

/// Whether an update changed the owners or the finalizers an object names
/// (the references compared in place, not copied: this runs for every
/// committed change).
fn owners_or_finalizers_changed(prev: &Value, now: &Value) -> bool {
    prev["metadata"]["ownerReferences"] != now["metadata"]["ownerReferences"]
        || finalizers(prev) != finalizers(now)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn event(kind: EventType, resource: &str, prev: Option<Value>, object: Value) -> Event {
        Event {
            rv: 1,
            kind,
            key: ObjKey::new(&Gr::new("", resource), "d", "x"),
            object: object.into(),
            prev: prev.map(Into::into),
            at: std::time::Instant::now(),
            lines: Default::default(),
        }
    }

    #[test]
    fn before_any_pass_every_change_to_owners_finalizers_or_deletion_matters() {
        let owned = json!({"metadata": {"ownerReferences": [{"uid": "u1"}]}});
        let plain = json!({"metadata": {"name": "x"}, "status": {"phase": "Running"}});
        let running = json!({"metadata": {"name": "x"}, "status": {"phase": "Pending"}});
        let m = |k, r, p, o| matters(&event(k, r, p, o), None);
        assert!(m(EventType::Deleted, "pods", None, plain.clone()));
        assert!(m(EventType::Added, "pods", None, owned.clone()));
        assert!(!m(EventType::Added, "pods", None, plain.clone()));
        assert!(!m(
            EventType::Modified,
            "pods",
            Some(running.clone()),
            plain.clone()
        ));
        assert!(!m(
            EventType::Modified,
            "pods",
            Some(owned.clone()),
            owned.clone()
        ));
        assert!(m(
            EventType::Modified,
            "pods",
            Some(plain.clone()),
            owned.clone()
        ));
        let fin = json!({"metadata": {"finalizers": ["f"]}});
        assert!(m(EventType::Modified, "pods", Some(plain.clone()), fin));
        let going = json!({"metadata": {"deletionTimestamp": "2026-11-24T12:00:00Z"}});
        assert!(m(EventType::Modified, "pods", Some(plain.clone()), going));
        assert!(m(EventType::Added, "namespaces", None, plain.clone()));
        assert!(m(
            EventType::Modified,
            "serviceaccounts",
            Some(running),
            plain
        ));
    }

    fn pod(uid: &str, owner: &str) -> Value {
        json!({"metadata": {"name": "x", "uid": uid,
            "ownerReferences": [{"uid": owner, "controller": true}]}})
    }

    fn known(live_owners: &[&str]) -> Known {
        Known {
            live_owners: live_owners.iter().map(|s| s.to_string()).collect(),
            ..Known::default()
        }
    }

    #[test]
    fn a_rollouts_pod_churn_under_a_known_owner_starts_no_pass() {
        let k = known(&["set"]);
        let m = |kind, prev, o| matters(&event(kind, "pods", prev, o), Some(&k));
        assert!(!m(EventType::Added, None, pod("p1", "set")));
        assert!(!m(EventType::Deleted, None, pod("p1", "set")));
        let mut going = pod("p1", "set");
        going["metadata"]["deletionTimestamp"] = json!("2026-11-24T12:00:00Z");
        assert!(!m(
            EventType::Modified,
            Some(pod("p1", "set")),
            going.clone()
        ));
        let mut later = going.clone();
        later["status"] = json!({"phase": "Succeeded"});
        assert!(!m(EventType::Modified, Some(going), later));
    }

    #[test]
    fn what_can_give_work_still_starts_a_pass() {
        let mut k = known(&["set", "p-owner"]);
        let m =
            |k: &Known, kind, resource, prev, o| matters(&event(kind, resource, prev, o), Some(k));
        // A dependent naming an owner not known to be there (dangling).
        assert!(m(&k, EventType::Added, "pods", None, pod("p1", "gone")));
        // A live owner deleted: its dependents go.
        assert!(m(
            &k,
            EventType::Deleted,
            "pods",
            None,
            pod("p-owner", "set")
        ));
        // Owners changed.
        assert!(m(
            &k,
            EventType::Modified,
            "pods",
            Some(pod("p1", "set")),
            pod("p1", "other")
        ));
        // Deletion started with a finalizer (foreground, orphan).
        let mut fin = pod("p1", "set");
        fin["metadata"]["finalizers"] = json!(["foregroundDeletion"]);
        let mut going = fin.clone();
        going["metadata"]["deletionTimestamp"] = json!("2026-11-24T12:00:00Z");
        assert!(m(&k, EventType::Modified, "pods", Some(fin), going));
        // A dependent of an owner waiting for its dependents is gone.
        k.finalizing.insert("set".into());
        assert!(m(&k, EventType::Deleted, "pods", None, pod("p1", "set")));
        k.finalizing.clear();
        // Anything gone from a namespace being deleted.
        k.ending.insert("d".into());
        assert!(m(
            &k,
            EventType::Deleted,
            "configmaps",
            None,
            json!({"metadata": {}})
        ));
        k.ending.clear();
        // A pod gone while a claim waits for pvc-protection.
        k.storage_waiting = true;
        assert!(m(&k, EventType::Deleted, "pods", None, pod("p1", "set")));
        // A namespace when its deletion starts or ends, or its finalizers
        // change; not when it is created or only its labels or status change.
        let live_ns = json!({"metadata": {"name": "d"}, "spec": {"finalizers": ["kubernetes"]}});
        let labelled = json!({"metadata": {"name": "d", "labels": {"a": "b"}},
            "spec": {"finalizers": ["kubernetes"]}, "status": {"phase": "Active"}});
        let ending = json!({"metadata": {"name": "d", "deletionTimestamp": "2026-11-24T12:00:00Z"},
            "spec": {"finalizers": ["kubernetes"]}});
        let finalized = json!({"metadata": {"name": "d", "deletionTimestamp": "2026-11-24T12:00:00Z"},
            "spec": {"finalizers": []}});
        assert!(!m(
            &k,
            EventType::Added,
            "namespaces",
            None,
            live_ns.clone()
        ));
        assert!(!m(
            &k,
            EventType::Modified,
            "namespaces",
            Some(live_ns.clone()),
            labelled
        ));
        assert!(m(
            &k,
            EventType::Modified,
            "namespaces",
            Some(live_ns.clone()),
            ending.clone()
        ));
        assert!(m(
            &k,
            EventType::Modified,
            "namespaces",
            Some(ending),
            finalized
        ));
        assert!(m(&k, EventType::Deleted, "namespaces", None, live_ns));
        // A ServiceAccount's removal, not its creation.
        let sa = json!({"metadata": {"name": "default"}});
        assert!(m(
            &k,
            EventType::Deleted,
            "serviceaccounts",
            None,
            sa.clone()
        ));
        assert!(!m(&k, EventType::Added, "serviceaccounts", None, sa));
        // Claims and volumes always.
        for r in ["persistentvolumeclaims", "persistentvolumes"] {
            assert!(
                m(&k, EventType::Modified, r, Some(json!({})), json!({})),
                "{r}"
            );
        }
    }

    #[test]
    fn known_collects_live_owners_waiting_owners_and_ending_namespaces() {
        let pods = Gr::new("", "pods");
        let ns = Gr::new("", "namespaces");
        let objects = vec![
            (
                ObjKey::new(&pods, "d", "owner"),
                json!({"metadata": {"uid": "o1",
                "deletionTimestamp": "2026-11-24T12:00:00Z", "finalizers": ["orphan"]}}),
            ),
            (
                ObjKey::new(&pods, "d", "plain"),
                json!({"metadata": {"uid": "o2"}}),
            ),
            (
                ObjKey::new(&ns, "", "d"),
                json!({"metadata": {"uid": "n1",
                "deletionTimestamp": "2026-11-24T12:00:00Z"}}),
            ),
        ];
        let owners: HashSet<&str> = ["o1", "missing"].into_iter().collect();
        let k = Known::of(&objects, &owners, true);
        assert_eq!(k.live_owners, HashSet::from(["o1".to_string()]));
        assert_eq!(k.finalizing, HashSet::from(["o1".to_string()]));
        assert_eq!(k.ending, HashSet::from(["d".to_string()]));
        assert!(k.storage_waiting);
    }
}
