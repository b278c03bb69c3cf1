//! Adoption and release of pods and ControllerRevisions, as upstream's
//! `ControllerRefManager.ClaimObject` (pkg/controller/controller_ref_manager.go)
//! does for the StatefulSet controller (`getPodsForStatefulSet`,
//! `ClaimControllerRevisions`):
//!
//! - an object this set controls is kept while the set's selector matches
//!   it (for a pod, also while its name makes it a member, `isMemberOf`),
//!   and released otherwise, unless the set is being deleted;
//! - an orphan (no controller reference) in the set's namespace that the
//!   selector matches is adopted, unless the set or the orphan is being
//!   deleted;
//! - an object another controller controls is left alone.
//!
//! Upstream's test "should adopt matching orphans and release non-matching
//! pods" (coverage E2) strips a pod's ownerReferences, then its labels, then
//! restores them. The decision ([`decide`]) is pure; [`claim`] patches as
//! upstream does (a strategic merge patch naming the object's uid).
//!
//! An adoption decided on a cache that is behind can land on an object that
//! changed meanwhile (its labels removed): the patch names only the uid, so
//! it succeeds. The set keeps the patched object only if the decision on
//! what the patch returned is still [`Claim::Own`]; otherwise it leaves the
//! object to the next sync. Upstream goes on with the cached object, whose
//! older resourceVersion makes any later update of it fail; neither ever
//! acts on an object the selector no longer matches. Adoptions and releases
//! are this controller's writes: their resourceVersions are recorded like
//! the plan's, so the next sync waits for caches that have seen them.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference};
use serde_json::{json, Map, Value};

/// The set that claims: what the decision needs of it.
#[derive(Clone, Debug)]
pub(crate) struct Claimant<'a> {
    /// metadata.uid
    pub uid: &'a str,
    /// metadata.name
    pub name: &'a str,
    /// metadata.namespace
    pub namespace: &'a str,
    /// spec.selector, as JSON.
    pub selector: &'a Map<String, Value>,
    /// The set has a deletionTimestamp.
    pub deleting: bool,
}

/// What a sync does with one object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Claim {
    /// The set controls it and keeps it.
    Own,
    /// An orphan the set takes: add the set as controller.
    Adopt,
    /// The set controls it but no longer matches it: remove the reference.
    Release,
    /// Not the set's, and not for the set to take.
    Ignore,
}

fn controller_of(meta: &ObjectMeta) -> Option<&OwnerReference> {
    meta.owner_references
        .as_deref()
        .unwrap_or_default()
        .iter()
        .find(|r| r.controller == Some(true))
}

/// Whether a set's selector (JSON, as the set is served) matches an
/// object's labels.
pub(crate) fn selects(selector: &Map<String, Value>, meta: &ObjectMeta) -> bool {
    match &meta.labels {
        Some(labels) => kepspec_core::selector::matches(selector, labels),
        None => kepspec_core::selector::matches(selector, &Default::default()),
    }
}

/// The decision for one object; `member` is whether its name belongs to the
/// set (always true for revisions).
pub(crate) fn decide(set: &Claimant<'_>, meta: &ObjectMeta, member: bool) -> Claim {
    let matches = member && selects(set.selector, meta);
    match controller_of(meta) {
        Some(r) if r.uid != set.uid => Claim::Ignore,
        Some(_) if matches => Claim::Own,
        Some(_) if set.deleting => Claim::Ignore,
        Some(_) => Claim::Release,
        None if set.deleting
            || !matches
            || meta.deletion_timestamp.is_some()
            || meta.namespace.as_deref() != Some(set.namespace) =>
        {
            Claim::Ignore
        }
        None => Claim::Adopt,
    }
}

/// The decisions of the claim defects, which take one case of upstream's
/// `ClaimObject` the wrong way.
#[cfg(kepspec_defects)]
fn distort(
    defect: Option<super::defects::Defect>,
    claim: Claim,
    set: &Claimant<'_>,
    meta: &ObjectMeta,
    member: bool,
) -> Claim {
    use super::defects::Defect;
    let matches = member && selects(set.selector, meta);
    let controller = controller_of(meta).map(|r| r.uid == set.uid);
    match (defect, controller) {
        (Some(Defect::ClaimOthersPods), Some(false)) if matches => Claim::Own,
        (Some(Defect::ReleaseWhileDeleting), Some(true)) if !matches && set.deleting => {
            Claim::Release
        }
        (Some(Defect::AdoptTerminatingOrphan), None)
            if matches
                && !set.deleting
                && meta.deletion_timestamp.is_some()
                && meta.namespace.as_deref() == Some(set.namespace) =>
        {
            Claim::Adopt
        }
        _ => claim,
    }
}

/// The strategic merge patch that adopts an object (upstream's
/// `ownerRefControllerPatch`): the set as controller, blocking owner
/// deletion, and the object's uid as a precondition.
pub(crate) fn adopt_patch(set: &Claimant<'_>, api_version: &str, kind: &str, uid: &str) -> Value {
    json!({"metadata": {
        "ownerReferences": [{
            "apiVersion": api_version,
            "kind": kind,
            "name": set.name,
            "uid": set.uid,
            "controller": true,
            "blockOwnerDeletion": true,
        }],
        "uid": uid,
    }})
}

/// The strategic merge patch that releases an object (upstream's
/// `GenerateDeleteOwnerRefStrategicMergeBytes`).
pub(crate) fn release_patch(set_uid: &str, uid: &str) -> Value {
    json!({"metadata": {
        "ownerReferences": [{"$patch": "delete", "uid": set_uid}],
        "uid": uid,
    }})
}

/// Claims the set's objects in `view` (which holds the set's own and the
/// namespace's orphans): adopts and releases by patch, and returns the view
/// of what the set now controls. Before its first adoption it reads the set
/// again, as upstream's `RecheckDeletionTimestamp` does, so a set deleted
/// (or deleted and created again) meanwhile adopts nothing.
pub(crate) async fn claim(
    client: &kube::Client,
    resource: &kube::discovery::ApiResource,
    set: &kube::core::DynamicObject,
    view: super::view::View,
    written: &mut super::execute::Freshness,
) -> Result<super::view::View, super::run::SyncError> {
    use kube::ResourceExt;
    let empty = Map::new();
    let selector = set.data["spec"]["selector"].as_object().unwrap_or(&empty);
    let (uid, name, namespace) = (
        set.uid().unwrap_or_default(),
        set.name_any(),
        set.namespace().unwrap_or_default(),
    );
    let claimant = Claimant {
        uid: &uid,
        name: &name,
        namespace: &namespace,
        selector,
        deleting: set.metadata.deletion_timestamp.is_some(),
    };
    #[cfg(kepspec_defects)]
    let defect = super::defects::Defect::active();
    #[cfg(kepspec_defects)]
    let by_selector = defect == Some(super::defects::Defect::AdoptBySelector);
    #[cfg(not(kepspec_defects))]
    let by_selector = false;
    #[cfg_attr(not(kepspec_defects), allow(unused_mut))]
    let mut pod_claims: Vec<Claim> = view
        .pods
        .iter()
        .map(|p| {
            let member = by_selector || super::pods::is_member(&name, p);
            let claim = decide(&claimant, &p.metadata, member);
            #[cfg(kepspec_defects)]
            let claim = distort(defect, claim, &claimant, &p.metadata, member);
            claim
        })
        .collect();
    #[cfg_attr(not(kepspec_defects), allow(unused_mut))]
    let mut revision_claims: Vec<Claim> = view
        .revisions
        .iter()
        .map(|r| decide(&claimant, &r.metadata, true))
        .collect();
    #[cfg(kepspec_defects)]
    if defect == Some(super::defects::Defect::NoAdoption) {
        let own = |c: &mut Claim| {
            *c = match *c {
                Claim::Own | Claim::Release => Claim::Own,
                Claim::Adopt | Claim::Ignore => Claim::Ignore,
            }
        };
        pod_claims.iter_mut().for_each(own);
        revision_claims.iter_mut().for_each(own);
    }
    #[cfg(kepspec_defects)]
    let recheck_first = defect != Some(super::defects::Defect::AdoptWithoutRecheck);
    #[cfg(not(kepspec_defects))]
    let recheck_first = true;
    if recheck_first
        && pod_claims
            .iter()
            .chain(&revision_claims)
            .any(|c| *c == Claim::Adopt)
    {
        recheck(client, resource, &claimant).await?;
    }
    let pods =
        Patcher::<k8s_openapi::api::core::v1::Pod>::new(client, &namespace, &claimant, resource)
            .apply(view.pods, &pod_claims, &mut written.pods)
            .await?;
    let revisions = Patcher::<k8s_openapi::api::apps::v1::ControllerRevision>::new(
        client, &namespace, &claimant, resource,
    )
    .apply(view.revisions, &revision_claims, &mut written.revisions)
    .await?;
    Ok(super::view::View {
        pods,
        claims: view.claims,
        revisions,
    })
}

/// Reads the set again; an error if it is gone, another object now, or
/// being deleted.
async fn recheck(
    client: &kube::Client,
    resource: &kube::discovery::ApiResource,
    set: &Claimant<'_>,
) -> Result<(), super::run::SyncError> {
    let api: kube::Api<kube::core::DynamicObject> =
        kube::Api::namespaced_with(client.clone(), set.namespace, resource);
    let fresh = api
        .get_opt(set.name)
        .await
        .map_err(|source| super::execute::ActionError {
            action: format!("read {} {} before adopting", resource.kind, set.name),
            source,
        })?;
    let uid = fresh.as_ref().and_then(|f| f.metadata.uid.clone());
    let deleting = fresh
        .as_ref()
        .is_some_and(|f| f.metadata.deletion_timestamp.is_some());
    if uid.as_deref() != Some(set.uid) || deleting {
        return Err(super::run::SyncError::Adoption(format!(
            "original {} {}/{} is gone or being deleted: got uid {}, wanted {}",
            resource.kind,
            set.namespace,
            set.name,
            uid.unwrap_or_default(),
            set.uid
        )));
    }
    Ok(())
}

/// Patches one kind of object for a claimant.
struct Patcher<'a, K> {
    api: kube::Api<K>,
    set: &'a Claimant<'a>,
    resource: &'a kube::discovery::ApiResource,
}

impl<'a, K> Patcher<'a, K>
where
    K: kube::Resource<Scope = k8s_openapi::NamespaceResourceScope, DynamicType = ()>
        + Clone
        + serde::de::DeserializeOwned
        + std::fmt::Debug,
{
    fn new(
        client: &kube::Client,
        namespace: &str,
        set: &'a Claimant<'a>,
        resource: &'a kube::discovery::ApiResource,
    ) -> Self {
        Self {
            api: kube::Api::namespaced(client.clone(), namespace),
            set,
            resource,
        }
    }

    /// Keeps what the set owns, adopts and releases as decided; an object
    /// gone meanwhile is skipped, and so is a release the apiserver refuses
    /// as invalid (the uid precondition of an object made again), as
    /// upstream does. An adopted object is kept only if what the patch
    /// returned is still the set's to own. `written` is raised to the
    /// resourceVersion of each patch that took effect.
    async fn apply(
        &self,
        objects: Vec<std::sync::Arc<K>>,
        claims: &[Claim],
        written: &mut u64,
    ) -> Result<Vec<std::sync::Arc<K>>, super::run::SyncError> {
        use kube::api::{Patch, PatchParams};
        let mut kept = Vec::new();
        for (obj, claim) in objects.into_iter().zip(claims) {
            let meta = obj.meta();
            let (name, uid) = (
                meta.name.clone().unwrap_or_default(),
                meta.uid.clone().unwrap_or_default(),
            );
            let (patch, verb) = match claim {
                Claim::Own => {
                    kept.push(obj);
                    continue;
                }
                Claim::Ignore => continue,
                Claim::Adopt => (
                    adopt_patch(
                        self.set,
                        &self.resource.api_version,
                        &self.resource.kind,
                        &uid,
                    ),
                    "adopt",
                ),
                Claim::Release => (release_patch(self.set.uid, &uid), "release"),
            };
            match self
                .api
                .patch(&name, &PatchParams::default(), &Patch::Strategic(patch))
                .await
            {
                Ok(patched) => {
                    #[cfg(kepspec_defects)]
                    if super::defects::Defect::active()
                        == Some(super::defects::Defect::AdoptOnStaleCache)
                    {
                        if *claim == Claim::Adopt {
                            kept.push(std::sync::Arc::new(patched));
                        }
                        continue;
                    }
                    *written = (*written).max(super::execute::rv(patched.meta()));
                    // The name made it a member when it was decided on.
                    if *claim == Claim::Adopt
                        && decide(self.set, patched.meta(), true) == Claim::Own
                    {
                        kept.push(std::sync::Arc::new(patched));
                    }
                }
                Err(kube::Error::Api(e))
                    if e.code == 404 || (e.code == 422 && *claim == Claim::Release) => {}
                Err(source) => {
                    return Err(super::execute::ActionError {
                        action: format!("{verb} {} {name}", K::kind(&())),
                        source,
                    }
                    .into())
                }
            }
        }
        Ok(kept)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn meta(labels: &[(&str, &str)], controller: Option<&str>) -> ObjectMeta {
        ObjectMeta {
            name: Some("web-0".into()),
            namespace: Some("ns".into()),
            uid: Some("pod-uid".into()),
            labels: Some(
                labels
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect::<BTreeMap<_, _>>(),
            ),
            owner_references: controller.map(|uid| {
                vec![OwnerReference {
                    api_version: "apps/v1".into(),
                    kind: "StatefulSet".into(),
                    name: "web".into(),
                    uid: uid.into(),
                    controller: Some(true),
                    block_owner_deletion: Some(true),
                }]
            }),
            ..Default::default()
        }
    }

    fn decide_with(m: &ObjectMeta, deleting: bool, member: bool) -> Claim {
        let selector = json!({"matchLabels": {"app": "web"}});
        let set = Claimant {
            uid: "set-uid",
            name: "web",
            namespace: "ns",
            selector: selector.as_object().unwrap(),
            deleting,
        };
        decide(&set, m, member)
    }

    #[test]
    fn orphans_that_match_are_adopted_and_owned_ones_that_stop_matching_released() {
        let app = [("app", "web")];
        assert_eq!(
            decide_with(&meta(&app, Some("set-uid")), false, true),
            Claim::Own
        );
        assert_eq!(decide_with(&meta(&app, None), false, true), Claim::Adopt);
        assert_eq!(
            decide_with(&meta(&[], Some("set-uid")), false, true),
            Claim::Release
        );
        assert_eq!(decide_with(&meta(&[], None), false, true), Claim::Ignore);
        // Not a member by name: released, never adopted.
        assert_eq!(
            decide_with(&meta(&app, Some("set-uid")), false, false),
            Claim::Release
        );
        assert_eq!(decide_with(&meta(&app, None), false, false), Claim::Ignore);
    }

    #[test]
    fn another_controller_a_deleting_set_or_a_deleting_orphan_change_nothing() {
        let app = [("app", "web")];
        assert_eq!(
            decide_with(&meta(&app, Some("other")), false, true),
            Claim::Ignore
        );
        assert_eq!(decide_with(&meta(&app, None), true, true), Claim::Ignore);
        assert_eq!(
            decide_with(&meta(&[], Some("set-uid")), true, true),
            Claim::Ignore
        );
        let mut gone = meta(&app, None);
        gone.deletion_timestamp = Some(k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(
            jiff::Timestamp::now(),
        ));
        assert_eq!(decide_with(&gone, false, true), Claim::Ignore);
        let mut elsewhere = meta(&app, None);
        elsewhere.namespace = Some("other".into());
        assert_eq!(decide_with(&elsewhere, false, true), Claim::Ignore);
    }

    #[test]
    fn the_patches_name_the_set_and_the_object() {
        let selector = Map::new();
        let set = Claimant {
            uid: "set-uid",
            name: "web",
            namespace: "ns",
            selector: &selector,
            deleting: false,
        };
        let p = adopt_patch(&set, "apps/v1", "StatefulSet", "pod-uid");
        assert_eq!(p["metadata"]["ownerReferences"][0]["uid"], "set-uid");
        assert_eq!(p["metadata"]["ownerReferences"][0]["controller"], true);
        assert_eq!(p["metadata"]["uid"], "pod-uid");
        let r = release_patch("set-uid", "pod-uid");
        assert_eq!(r["metadata"]["ownerReferences"][0]["$patch"], "delete");
    }
}
