//! What a sync decides on besides the set: the set's pods and revisions and
//! the claims of its namespace, taken from the watch caches, or read
//! consistently from the apiserver when a cache stays behind.

use std::sync::Arc;

use k8s_openapi::api::apps::v1::ControllerRevision;
use k8s_openapi::api::core::v1::{PersistentVolumeClaim, Pod};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;
use kube::api::{Api, ListParams};
use kube::core::DynamicObject;
use kube::discovery::ApiResource;
use kube::runtime::reflector::Store;
use kube::{Client, ResourceExt};

use super::execute::ActionError;

/// The objects a sync decides on, besides the set.
pub(crate) struct View {
    /// The set's pods (controlled by it), and until [`super::adoption::claim`]
    /// ran, the namespace's orphans too: shared with the watch cache, so a
    /// sync of a 1,000-pod set copies no pod (a change copies one first,
    /// `Arc::make_mut`).
    pub pods: Vec<Arc<Pod>>,
    /// The claims in the set's namespace.
    pub claims: Vec<PersistentVolumeClaim>,
    /// The set's revisions (controlled by it), and orphans as for pods.
    pub revisions: Vec<Arc<ControllerRevision>>,
}

/// Whether `refs` name the object with `uid` as controller.
pub(crate) fn controlled_by(uid: &str, refs: &[OwnerReference]) -> bool {
    refs.iter()
        .any(|r| r.controller == Some(true) && r.uid == uid)
}

/// Whether `refs` name the object with `uid` as controller, or no
/// controller at all (an orphan the set may adopt).
fn controlled_by_or_orphan(uid: &str, refs: &[OwnerReference]) -> bool {
    controlled_by(uid, refs) || !refs.iter().any(|r| r.controller == Some(true))
}

/// Which objects a sync of one set decides on.
struct Keep {
    namespace: String,
    uid: String,
    /// The defect `claim-others-pods`: other controllers' objects too.
    #[cfg(kepspec_defects)]
    others_too: bool,
}

impl Keep {
    fn of(set: &DynamicObject) -> Keep {
        Keep {
            namespace: set.namespace().unwrap_or_default(),
            uid: set.uid().unwrap_or_default(),
            #[cfg(kepspec_defects)]
            others_too: super::defects::Defect::active()
                == Some(super::defects::Defect::ClaimOthersPods),
        }
    }

    /// In the set's namespace.
    fn here<K: kube::Resource>(&self, o: &K) -> bool {
        o.meta().namespace.as_deref() == Some(self.namespace.as_str())
    }

    /// In the set's namespace, and the set's or nobody's.
    fn owned<K: kube::Resource>(&self, o: &K) -> bool {
        #[cfg(kepspec_defects)]
        if self.others_too {
            return self.here(o);
        }
        self.here(o)
            && controlled_by_or_orphan(
                &self.uid,
                o.meta().owner_references.as_deref().unwrap_or_default(),
            )
    }
}

impl View {
    /// Keeps the set's own pods and revisions, the orphans among them, and
    /// the claims of its namespace.
    pub(crate) fn of_set(
        set: &DynamicObject,
        pods: impl Iterator<Item = Pod>,
        claims: impl Iterator<Item = PersistentVolumeClaim>,
        revisions: impl Iterator<Item = ControllerRevision>,
    ) -> View {
        let keep = Keep::of(set);
        View {
            pods: pods.filter(|p| keep.owned(p)).map(Arc::new).collect(),
            claims: claims.filter(|c| keep.here(c)).collect(),
            revisions: revisions.filter(|r| keep.owned(r)).map(Arc::new).collect(),
        }
    }

    /// The set's objects as the caches hold them: pods and revisions
    /// shared with the caches, claims (which a sync may change) copied.
    pub(crate) fn cached(
        set: &DynamicObject,
        pods: &Store<Pod>,
        claims: &Store<PersistentVolumeClaim>,
        revisions: &Store<ControllerRevision>,
    ) -> View {
        let keep = Keep::of(set);
        fn share<K>(store: &Store<K>, keep: impl Fn(&K) -> bool) -> Vec<Arc<K>>
        where
            K: kube::Resource + Clone + 'static,
            K::DynamicType: Eq + std::hash::Hash + Clone,
        {
            store.state().into_iter().filter(|o| keep(o)).collect()
        }
        View {
            pods: share(pods, |p| keep.owned(p)),
            claims: share(claims, |c| keep.here(c))
                .into_iter()
                .map(Arc::unwrap_or_clone)
                .collect(),
            revisions: share(revisions, |r| keep.owned(r)),
        }
    }

    /// The set (of type `resource`) and its objects read with consistent
    /// reads (no resourceVersion), or `None` if the set is gone.
    pub(crate) async fn consistent(
        client: &Client,
        resource: &ApiResource,
        set: &DynamicObject,
    ) -> Result<Option<(DynamicObject, View)>, ActionError> {
        let ns = set.namespace().unwrap_or_default();
        let read = |what: &str| {
            let action = format!("read {what} in {ns}");
            move |source| ActionError { action, source }
        };
        let sets: Api<DynamicObject> = Api::namespaced_with(client.clone(), &ns, resource);
        let Some(set) = sets
            .get_opt(&set.name_any())
            .await
            .map_err(read("the set"))?
        else {
            return Ok(None);
        };
        let all = ListParams::default();
        let pods = Api::<Pod>::namespaced(client.clone(), &ns)
            .list(&all)
            .await
            .map_err(read("pods"))?;
        let claims = Api::<PersistentVolumeClaim>::namespaced(client.clone(), &ns)
            .list(&all)
            .await
            .map_err(read("claims"))?;
        let revisions = Api::<ControllerRevision>::namespaced(client.clone(), &ns)
            .list(&all)
            .await
            .map_err(read("revisions"))?;
        let view = View::of_set(
            &set,
            pods.items.into_iter(),
            claims.items.into_iter(),
            revisions.items.into_iter(),
        );
        Ok(Some((set, view)))
    }
}
