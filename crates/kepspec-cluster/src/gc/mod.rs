//! The garbage collector and namespace lifecycle controller, running in
//! process against the store: ownerReference cascading (background,
//! foreground, orphan) and emptying namespaces that are being deleted; with
//! them, the small kube-controller-manager loops that keep what every
//! cluster holds (each namespace's `default` ServiceAccount, the rules of
//! aggregated ClusterRoles).

use std::borrow::Borrow;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::delete::{delete_in, DeleteOpts, Propagation};
use super::faults::Faults;
use super::meta::{finalizers, meta_str, set_finalizers};
use super::objects::{update_in, Target};
use super::resources::{self, ResourceInfo};
use super::store::{Gr, ObjKey, Store};

mod relevance;
pub(crate) use relevance::{matters, Known};

/// One thing the collector decided to do.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum GcAction {
    /// Delete an object with a propagation policy.
    Delete(ObjKey, Propagation),
    /// Drop the owner references with these uids from an object.
    DropOwnerRefs(ObjKey, Vec<String>),
    /// Remove a finalizer from an object.
    RemoveFinalizer(ObjKey, String),
    /// Remove the `kubernetes` namespace finalizer (spec.finalizers).
    FinalizeNamespace(String),
}

fn deleting(o: &Value) -> bool {
    o["metadata"].get("deletionTimestamp").is_some()
}

fn has_finalizer(o: &Value, f: &str) -> bool {
    finalizers(o).iter().any(|x| x == f)
}

fn refs(o: &Value) -> Vec<(String, bool)> {
    o["metadata"]["ownerReferences"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| {
            let uid = r["uid"].as_str()?.to_string();
            Some((uid, r["blockOwnerDeletion"].as_bool() == Some(true)))
        })
        .collect()
}

/// Decides the collector's next actions from a snapshot of every object (pure).
pub(crate) fn plan<V: Borrow<Value>>(objects: &[(ObjKey, V)]) -> Vec<GcAction> {
    let objects: Vec<(&ObjKey, &Value)> = objects.iter().map(|(k, o)| (k, o.borrow())).collect();
    let by_uid: HashMap<&str, &Value> = objects
        .iter()
        .filter_map(|(_, o)| Some((meta_str(o, "uid")?, *o)))
        .collect();
    let mut actions = Vec::new();
    let mut blocked: HashSet<String> = HashSet::new();
    let mut has_dependents: HashSet<String> = HashSet::new();
    for &(key, o) in &objects {
        let rs = refs(o);
        if rs.is_empty() {
            continue;
        }
        let mut live = 0;
        let mut dangling = Vec::new();
        let mut foreground = Vec::new();
        let mut orphaning = Vec::new();
        let mut blocking_fg = false;
        for (uid, block) in &rs {
            has_dependents.insert(uid.clone());
            match by_uid.get(uid.as_str()) {
                None => dangling.push(uid.clone()),
                Some(owner) if deleting(owner) && has_finalizer(owner, "orphan") => {
                    orphaning.push(uid.clone())
                }
                Some(owner) if deleting(owner) && has_finalizer(owner, "foregroundDeletion") => {
                    foreground.push(uid.clone());
                    if *block {
                        blocked.insert(uid.clone());
                        blocking_fg = true;
                    }
                }
                Some(_) => live += 1,
            }
        }
        if !orphaning.is_empty() {
            actions.push(GcAction::DropOwnerRefs(key.clone(), orphaning));
            continue;
        }
        if deleting(o) {
            continue;
        }
        if live == 0 {
            let p = if blocking_fg {
                Propagation::Foreground
            } else {
                Propagation::Background
            };
            actions.push(GcAction::Delete(key.clone(), p));
        } else if !dangling.is_empty() || !foreground.is_empty() {
            // Upstream's attemptToDeleteItem: an object with a live owner
            // loses its references to absent owners and to owners deleting
            // their dependents in the foreground, in one patch.
            dangling.extend(foreground);
            actions.push(GcAction::DropOwnerRefs(key.clone(), dangling));
        }
    }
    for &(key, o) in &objects {
        if !deleting(o) {
            continue;
        }
        let uid = meta_str(o, "uid").unwrap_or_default();
        if has_finalizer(o, "foregroundDeletion") && !blocked.contains(uid) {
            actions.push(GcAction::RemoveFinalizer(
                key.clone(),
                "foregroundDeletion".into(),
            ));
        }
        if has_finalizer(o, "orphan") && !has_dependents.contains(uid) {
            actions.push(GcAction::RemoveFinalizer(key.clone(), "orphan".into()));
        }
    }
    let ns_gr = Gr::new("", "namespaces");
    for &(key, o) in objects.iter().filter(|(k, o)| k.gr == ns_gr && deleting(o)) {
        let ns = &key.name;
        let mut empty = true;
        for &(k, dep) in objects.iter().filter(|(k, _)| &k.namespace == ns) {
            empty = false;
            if !deleting(dep) {
                actions.push(GcAction::Delete(k.clone(), Propagation::Background));
            }
        }
        let kube_fin = o["spec"]["finalizers"]
            .as_array()
            .is_some_and(|a| a.iter().any(|f| f == "kubernetes"));
        if empty && kube_fin {
            actions.push(GcAction::FinalizeNamespace(ns.clone()));
        }
    }
    actions
}

fn info_for(infos: &[ResourceInfo], gr: &Gr) -> Option<ResourceInfo> {
    infos.iter().find(|i| &i.gr() == gr).cloned()
}

/// Carries out one action; failures (conflicts, already gone) are left for the next pass.
fn perform(store: &Store, infos: &[ResourceInfo], action: &GcAction) -> bool {
    let key = match action {
        GcAction::Delete(k, _)
        | GcAction::DropOwnerRefs(k, _)
        | GcAction::RemoveFinalizer(k, _) => k.clone(),
        GcAction::FinalizeNamespace(ns) => ObjKey::new(&Gr::new("", "namespaces"), "", ns),
    };
    let Some(info) = info_for(infos, &key.gr) else {
        // Storage whose type is no longer served (a deleted CRD's objects).
        return store.transact(|t| t.remove(&key)).is_some();
    };
    store.transact(|t| {
        let before = t.resource_version();
        let acted = act(t, &info, &key, action);
        acted && t.resource_version() != before
    })
}

/// Performs `action` on `key` in one transaction; false when it failed.
fn act(
    t: &mut super::store::Txn<'_>,
    info: &ResourceInfo,
    key: &ObjKey,
    action: &GcAction,
) -> bool {
    let Some(mut obj) = t.get(key).cloned() else {
        return false;
    };
    match action {
        GcAction::Delete(_, p) => {
            let opts = DeleteOpts {
                propagation: Some(*p),
                ..Default::default()
            };
            return delete_in(t, info, &key.namespace, &key.name, &opts).is_ok();
        }
        GcAction::FinalizeNamespace(_) => {
            if let Some(a) = obj
                .get_mut("spec")
                .and_then(|s| s.get_mut("finalizers"))
                .and_then(Value::as_array_mut)
            {
                a.retain(|f| f != "kubernetes");
            }
            if finalizers(&obj).is_empty() {
                return t.remove_as(key, obj).is_some();
            }
            t.update(key, obj);
            return true;
        }
        GcAction::DropOwnerRefs(_, uids) => {
            if let Some(a) = obj["metadata"]["ownerReferences"].as_array_mut() {
                a.retain(|r| {
                    !r["uid"]
                        .as_str()
                        .is_some_and(|u| uids.iter().any(|x| x == u))
                });
                if a.is_empty() {
                    if let Some(m) = obj["metadata"].as_object_mut() {
                        m.remove("ownerReferences");
                    }
                }
            }
        }
        GcAction::RemoveFinalizer(_, f) => {
            let rest: Vec<String> = finalizers(&obj).into_iter().filter(|x| x != f).collect();
            set_finalizers(&mut obj, &rest);
        }
    }
    update_in(
        t,
        info,
        &key.namespace,
        &key.name,
        obj,
        Target::Main,
        None,
        false,
    )
    .is_ok()
}

/// The objects a pass decides on: those that name owners, are being
/// deleted or carry finalizers, every object named as an owner, the
/// namespaces and ServiceAccounts, everything in a namespace being deleted
/// and everything of a resource no longer served. The rest (events, most
/// of all, and whatever nothing owns) cannot give the collector work.
/// They are shared with the store, not copied: the store's lock is held only
/// while they are picked.
fn relevant_objects(store: &Store, served: &HashSet<Gr>) -> (Vec<(ObjKey, Arc<Value>)>, Known) {
    let ns_gr = Gr::new("", "namespaces");
    let sa_gr = super::bootstrap::service_accounts();
    store.with_objects(|objects| {
        let mut owners: HashSet<&str> = HashSet::new();
        let mut ending: HashSet<&str> = HashSet::new();
        for (k, o) in objects {
            for r in o["metadata"]["ownerReferences"]
                .as_array()
                .into_iter()
                .flatten()
            {
                owners.extend(r["uid"].as_str());
            }
            if k.gr == ns_gr && deleting(o) {
                ending.insert(k.name.as_str());
            }
        }
        let listed = |v: &Value| v.as_array().is_some_and(|a| !a.is_empty());
        let relevant: Vec<(ObjKey, Arc<Value>)> = objects
            .iter()
            .filter(|(k, o)| {
                let m = &o["metadata"];
                listed(&m["ownerReferences"])
                    || listed(&m["finalizers"])
                    || deleting(o)
                    || k.gr == ns_gr
                    || k.gr == sa_gr
                    || ending.contains(k.namespace.as_str())
                    || !served.contains(&k.gr)
                    || m["uid"].as_str().is_some_and(|u| owners.contains(u))
            })
            .map(|(k, o)| (k.clone(), Arc::clone(o)))
            .collect();
        let known = Known::of(&relevant, &owners, false);
        (relevant, known)
    })
}

/// The namespace an action changes something in ("" for cluster-scoped
/// objects).
fn namespace_of(action: &GcAction) -> &str {
    match action {
        GcAction::Delete(k, _)
        | GcAction::DropOwnerRefs(k, _)
        | GcAction::RemoveFinalizer(k, _) => &k.namespace,
        GcAction::FinalizeNamespace(ns) => ns,
    }
}

/// One pass: how many actions took effect, and what it found. Actions in a
/// namespace a fault holds the collector off are left for a later pass.
fn collect_pass(store: &Store, faults: &Faults) -> (usize, Known) {
    let infos = resources::all(store);
    let served: HashSet<Gr> = infos.iter().map(ResourceInfo::gr).collect();
    let (objects, mut known) = relevant_objects(store, &served);
    let mut actions = plan(&objects);
    let (releases, storage_waiting) = storage_releases(store);
    actions.extend(releases);
    known.storage_waiting = storage_waiting;
    for (k, _) in &objects {
        if !served.contains(&k.gr) {
            actions.push(GcAction::Delete(k.clone(), Propagation::Background));
        }
    }
    let restored = super::bootstrap::missing_service_accounts(&objects)
        .iter()
        .filter(|ns| {
            store.transact(|t| {
                let before = t.resource_version();
                super::objects::create_default_service_account(t, ns);
                t.resource_version() != before
            })
        })
        .count();
    let acted = actions
        .iter()
        .filter(|a| !faults.collector_holds(namespace_of(a)))
        .filter(|a| perform(store, &infos, a))
        .count();
    (restored + acted, known)
}

/// The group/resource of ClusterRoles.
fn cluster_roles() -> Gr {
    Gr::new("rbac.authorization.k8s.io", "clusterroles")
}

/// kube-controller-manager's clusterrole-aggregation controller, run until
/// it changes nothing: writes into every ClusterRole with an
/// `aggregationRule` the rules of the roles its selectors match
/// ([`super::rbac::aggregate`]; `view` feeds `edit`, `edit` feeds `admin`).
pub(crate) fn settle_cluster_roles(store: &Store) {
    let infos = resources::all(store);
    for _ in 0..10 {
        if aggregate_cluster_roles(store, &infos) == 0 {
            return;
        }
    }
}

/// One round of [`settle_cluster_roles`]: how many roles it changed.
fn aggregate_cluster_roles(store: &Store, infos: &[ResourceInfo]) -> usize {
    let gr = cluster_roles();
    let Some(info) = info_for(infos, &gr) else {
        return 0;
    };
    let changes = store.with_objects(|objects| {
        let roles: Vec<&Value> = super::store::of_resource(objects, &gr, None)
            .map(|(_, o)| o.as_ref())
            .collect();
        super::rbac::aggregate(&roles)
    });
    changes
        .into_iter()
        .filter(|(name, rules)| {
            store.transact(|t| {
                let key = ObjKey::new(&gr, "", name);
                let Some(mut obj) = t.get(&key).cloned() else {
                    return false;
                };
                obj["rules"] = rules.clone();
                update_in(t, &info, "", name, obj, Target::Main, None, false).is_ok()
            })
        })
        .count()
}

/// What the pvc-protection and pv-protection controllers release now
/// (read only when some claim or volume is being deleted), and whether some
/// claim or volume waits for them.
fn storage_releases(store: &Store) -> (Vec<GcAction>, bool) {
    use super::storage_protection::{releases, PVC_PROTECTION, PV_PROTECTION};
    let (pvcs, pvs, pods) = (
        Gr::new("", "persistentvolumeclaims"),
        Gr::new("", "persistentvolumes"),
        Gr::new("", "pods"),
    );
    store.with_objects(|objects| {
        let of = |gr| super::store::of_resource(objects, gr, None);
        let waiting = of(&pvcs).chain(of(&pvs)).any(|(_, o)| {
            deleting(o) && (has_finalizer(o, PVC_PROTECTION) || has_finalizer(o, PV_PROTECTION))
        });
        if !waiting {
            return (Vec::new(), false);
        }
        let storage = of(&pvcs).chain(of(&pvs)).chain(of(&pods));
        (releases(storage.map(|(k, o)| (k, o.as_ref()))), true)
    })
}

/// Passes until one changes nothing (at most 100); what the last one found
/// (`None` after a panic or if the passes never settled: every change then
/// counts again).
fn collect_until_settled(store: &Store, faults: &Faults) -> Option<Known> {
    for _ in 0..100 {
        let pass =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| collect_pass(store, faults)));
        match pass {
            Ok((0, known)) => return Some(known),
            Ok(_) => {}
            Err(_) => {
                tracing::error!("garbage collector pass panicked; continuing");
                return None;
            }
        }
    }
    None
}

/// The least time between two rounds of passes. A change after a quiet
/// spell is acted on at once; a burst of them (a 1,000-pod rollout) is
/// taken in rounds at most this often, as the watch delay of upstream's
/// collector would group them, instead of a scan of every object per change.
const MIN_GAP: std::time::Duration = std::time::Duration::from_millis(100);

/// Runs the collector until cancelled: a full pass at start, then one
/// whenever a committed change [`matters`] given what the last pass found
/// (all of them again if the event window has moved past what it saw), and
/// a full one when a fault's hold on a namespace (or a stale view) starts
/// or ends.
pub(crate) async fn run(store: Store, faults: Faults, cancel: CancellationToken) {
    let mut changed = store.subscribe();
    let mut holds = faults.subscribe_views();
    let mut seen: Option<u64> = None;
    let mut known: Option<Known> = None;
    let mut last_round: Option<tokio::time::Instant> = None;
    let roles_gr = cluster_roles();
    loop {
        if let Some(at) = last_round {
            tokio::select! {
                _ = tokio::time::sleep_until(at + MIN_GAP) => {}
                _ = cancel.cancelled() => return,
            }
        }
        let (due, roles_changed) = match seen.map(|rv| store.all_events_after(rv)) {
            Some(Ok((events, rv))) => {
                seen = Some(rv);
                (
                    events.iter().any(|e| matters(e, known.as_ref())),
                    events.iter().any(|e| e.key.gr == roles_gr),
                )
            }
            Some(Err(_)) | None => {
                seen = Some(store.resource_version());
                (true, true)
            }
        };
        // Aggregation reads only ClusterRoles: it runs when one changed,
        // not in every pass of the collector.
        if roles_changed {
            settle_cluster_roles(&store);
        }
        if due {
            known = collect_until_settled(&store, &faults);
            last_round = Some(tokio::time::Instant::now());
        }
        let hold_end = faults.next_hold_end().map(tokio::time::Instant::from_std);
        tokio::select! {
            r = changed.changed() => if r.is_err() { return; },
            _ = async {
                match hold_end {
                    Some(at) => tokio::time::sleep_until(at).await,
                    None => std::future::pending().await,
                }
            } => seen = None,
            r = holds.changed() => {
                if r.is_err() {
                    return;
                }
                seen = None;
            }
            _ = cancel.cancelled() => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(gr: &Gr, ns: &str, name: &str, v: Value) -> (ObjKey, Value) {
        (ObjKey::new(gr, ns, name), v)
    }

    fn sts(uid: &str, fins: &[&str], deleting: bool) -> Value {
        let mut m = json!({"name": "web", "uid": uid, "finalizers": fins});
        if deleting {
            m["deletionTimestamp"] = json!("2026-01-01T00:00:00Z");
        }
        json!({"metadata": m})
    }

    fn pod(owner: &str, block: bool) -> Value {
        json!({"metadata": {"name": "web-0", "uid": "p1", "ownerReferences": [{"uid": owner, "blockOwnerDeletion": block}]}})
    }

    #[test]
    fn dangling_dependents_are_deleted_in_background() {
        let pods = Gr::new("", "pods");
        let a = plan(&[obj(&pods, "d", "web-0", pod("gone", true))]);
        assert_eq!(
            a,
            vec![GcAction::Delete(
                ObjKey::new(&pods, "d", "web-0"),
                Propagation::Background
            )]
        );
    }

    #[test]
    fn a_live_owner_keeps_its_dependent_and_the_absent_ones_are_dropped() {
        let pods = Gr::new("", "pods");
        let sets = Gr::new("apps", "statefulsets");
        let owner = obj(&sets, "d", "web", sts("s1", &[], false));
        let mut dependent = pod("s1", false);
        dependent["metadata"]["ownerReferences"]
            .as_array_mut()
            .expect("references")
            .push(json!({"uid": "gone"}));
        let a = plan(&[owner, obj(&pods, "d", "web-0", dependent)]);
        assert_eq!(
            a,
            vec![GcAction::DropOwnerRefs(
                ObjKey::new(&pods, "d", "web-0"),
                vec!["gone".to_string()]
            )]
        );
    }

    #[test]
    fn foreground_waits_for_blocking_dependents() {
        let pods = Gr::new("", "pods");
        let sets = Gr::new("apps", "statefulsets");
        let owner = obj(&sets, "d", "web", sts("s1", &["foregroundDeletion"], true));
        let a = plan(&[owner.clone(), obj(&pods, "d", "web-0", pod("s1", true))]);
        assert_eq!(
            a,
            vec![GcAction::Delete(
                ObjKey::new(&pods, "d", "web-0"),
                Propagation::Foreground
            )]
        );
        let a = plan(std::slice::from_ref(&owner));
        assert_eq!(
            a,
            vec![GcAction::RemoveFinalizer(
                owner.0.clone(),
                "foregroundDeletion".into()
            )]
        );
        // a non-blocking dependent does not hold the owner
        let a = plan(&[owner.clone(), obj(&pods, "d", "web-0", pod("s1", false))]);
        assert!(a.contains(&GcAction::RemoveFinalizer(
            owner.0.clone(),
            "foregroundDeletion".into()
        )));
    }

    #[test]
    fn orphan_drops_references_then_finalizer() {
        let pods = Gr::new("", "pods");
        let sets = Gr::new("apps", "statefulsets");
        let owner = obj(&sets, "d", "web", sts("s1", &["orphan"], true));
        let a = plan(&[owner.clone(), obj(&pods, "d", "web-0", pod("s1", true))]);
        assert_eq!(
            a,
            vec![GcAction::DropOwnerRefs(
                ObjKey::new(&pods, "d", "web-0"),
                vec!["s1".into()]
            )]
        );
        let a = plan(&[
            owner.clone(),
            obj(&pods, "d", "web-0", json!({"metadata": {"name": "web-0"}})),
        ]);
        assert_eq!(a, vec![GcAction::RemoveFinalizer(owner.0, "orphan".into())]);
    }

    #[test]
    fn terminating_namespace_is_emptied_then_finalized() {
        let nss = Gr::new("", "namespaces");
        let cms = Gr::new("", "configmaps");
        let ns = obj(
            &nss,
            "",
            "t",
            json!({"metadata": {"name": "t", "deletionTimestamp": "x"}, "spec": {"finalizers": ["kubernetes"]}}),
        );
        let a = plan(&[
            ns.clone(),
            obj(&cms, "t", "c", json!({"metadata": {"name": "c"}})),
        ]);
        assert_eq!(
            a,
            vec![GcAction::Delete(
                ObjKey::new(&cms, "t", "c"),
                Propagation::Background
            )]
        );
        assert_eq!(plan(&[ns]), vec![GcAction::FinalizeNamespace("t".into())]);
    }
}
