//! The controller loop: reflectors over sets, pods, claims and revisions feed
//! one work queue of set keys; each sync reads the caches, asks
//! [`plan`](super::plan::plan) what to do and hands the answer to
//! [`execute`](mod@super::execute).
//!
//! A sync never acts on a cache older than its own last write (the rule
//! upstream adopted with KEP-5647): after writing, the set waits until the
//! watch of each kind it wrote has caught up with the resourceVersions the
//! API server returned, so a pod deleted a moment ago is never deleted twice
//! and an event is never recorded twice for one transition.

use kepspec_core::Lookup as _;
use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::{future, stream, Stream, StreamExt, TryStreamExt};
use k8s_openapi::api::apps::v1::{ControllerRevision, StatefulSet};
use k8s_openapi::api::core::v1::{PersistentVolumeClaim, Pod};
use kube::api::Api;
use kube::core::DynamicObject;
use kube::discovery::ApiResource;
use kube::runtime::controller::{self, Action as Requeue};
use kube::runtime::reflector::{self, ObjectRef, Store};
use kube::runtime::{watcher, WatchStreamExt};
use kube::{Client, Resource, ResourceExt};
use tokio_util::sync::CancellationToken;

use super::events::{self, EventType, Regarding};
use super::execute::{self, Freshness, Target};
use super::freshness::{cache_state, lag, CacheState, Observation, Seen};
use super::metrics::Metrics;
use super::plan::{ControllerGates, Observed};
use super::vendor;
use super::view::View;

/// How the controller runs.
#[derive(Clone, Debug)]
pub struct ControllerOptions {
    /// Controller-side feature gates.
    pub gates: ControllerGates,
    /// Reconcile only this namespace (None: all namespaces).
    pub namespace: Option<String>,
    /// The set resource: apps/v1 StatefulSet, or a vendor's look-alike.
    pub resource: ApiResource,
    /// Where a vendor's look-alike keeps apps/v1's fields (for example
    /// OpenKruise's `spec.updateStrategy.rollingUpdate.minReadySeconds` for
    /// `spec.minReadySeconds`): read back to apps/v1's paths before a sync.
    pub fields: kepspec_core::FieldMap,
    /// The implementation the controller behaves as (default: the KEPs).
    pub implementation: super::behave::Implementation,
    /// Syncs running at once (0: no limit). Keys wait for a sync in the
    /// order they became due, as in client-go's work queue.
    pub concurrency: u16,
    /// Where the loop reports what it did.
    pub metrics: Metrics,
}

impl Default for ControllerOptions {
    fn default() -> Self {
        Self {
            gates: ControllerGates::default(),
            namespace: None,
            resource: ApiResource::erase::<StatefulSet>(&()),
            fields: Default::default(),
            implementation: Default::default(),
            concurrency: 4,
            metrics: Metrics::default(),
        }
    }
}

struct Context {
    client: Client,
    opts: ControllerOptions,
    pods: Store<Pod>,
    claims: Store<PersistentVolumeClaim>,
    revisions: Store<ControllerRevision>,
    seen: Seen,
    /// The sets' cache: a sync reads its set again once it may run.
    sets: Store<DynamicObject>,
    /// The sync slots ([`ControllerOptions::concurrency`]), handed out in
    /// the order syncs asked for them.
    slots: Option<tokio::sync::Semaphore>,
    /// Per set key: what the caches must have seen before the next sync.
    expected: Mutex<HashMap<String, (Freshness, std::time::Instant)>>,
}

/// Why a sync failed (the loop retries it with backoff).
#[derive(Debug, thiserror::Error)]
pub(crate) enum SyncError {
    /// An action failed.
    #[error(transparent)]
    Action(#[from] execute::ActionError),
    /// The set could not be read as a StatefulSet.
    #[error("cannot read {0} as a StatefulSet: {1}")]
    Decode(String, serde_json::Error),
    /// The set is not the one whose cache entry asked to adopt.
    #[error("{0}")]
    Adoption(String),
}

fn rv_of(meta: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta) -> u64 {
    meta.resource_version
        .as_deref()
        .and_then(|rv| rv.parse().ok())
        .unwrap_or(0)
}

fn namespaced<K>(client: &Client, namespace: Option<&str>) -> Api<K>
where
    K: Resource<Scope = k8s_openapi::NamespaceResourceScope, DynamicType = ()>,
{
    match namespace {
        Some(ns) => Api::namespaced(client.clone(), ns),
        None => Api::all(client.clone()),
    }
}

type Queue = std::pin::Pin<
    Box<dyn Stream<Item = Result<Option<ObjectRef<DynamicObject>>, watcher::Error>> + Send>,
>;

/// How the controller's watches list: consistently (no resourceVersion),
/// never from a cache, so a restarted controller cannot start from a view
/// older than the one it already acted on.
fn watcher_config() -> watcher::Config {
    let config = watcher::Config::default();
    #[cfg(kepspec_defects)]
    if super::defects::Defect::active() == Some(super::defects::Defect::RelistFromCache) {
        // Unpaged: kube-rs sends resourceVersion=0 only without a limit.
        let mut any = config.any_semantic();
        any.page_size = None;
        return any;
    }
    config
}

/// Queue entries for the set that controls an object, or, for an orphan,
/// for every set whose selector matches it (upstream's `addPod` and
/// `updatePod` enqueue those, so that one of them adopts it).
fn owner_stream<K>(
    writer: reflector::store::Writer<K>,
    api: Api<K>,
    ar: ApiResource,
    observe: impl Fn(Observation) + Send + 'static,
    orphan_of: impl Fn(&K) -> Vec<ObjectRef<DynamicObject>> + Send + 'static,
) -> Queue
where
    K: Resource<DynamicType = ()>
        + Clone
        + std::fmt::Debug
        + serde::de::DeserializeOwned
        + Send
        + Sync
        + 'static,
{
    // The caches keep no managedFields: no decision reads them, and every
    // sync copies the set's objects out of the cache (kube-rs's advice for
    // reflectors).
    let watch = watcher(api, watcher_config()).modify(|o: &mut K| o.managed_fields_mut().clear());
    reflector::reflector(writer, watch)
        .default_backoff()
        .map_ok(move |event| {
            let obj = match event {
                watcher::Event::Init => {
                    observe(Observation::RelistStarted);
                    return Vec::new();
                }
                watcher::Event::InitDone => {
                    observe(Observation::RelistDone);
                    return Vec::new();
                }
                watcher::Event::Apply(o)
                | watcher::Event::Delete(o)
                | watcher::Event::InitApply(o) => o,
            };
            observe(Observation::Object(rv_of(obj.meta())));
            let ns = obj.namespace().unwrap_or_default();
            let refs = obj.owner_references();
            match refs.iter().find(|r| r.controller == Some(true)) {
                Some(r) if r.kind == ar.kind && r.api_version == ar.api_version => {
                    vec![ObjectRef::new_with(&r.name, ar.clone()).within(&ns)]
                }
                Some(_) => Vec::new(),
                None => orphan_of(&obj),
            }
        })
        .map_ok(|refs| stream::iter(refs.into_iter().map(|r| Ok(Some(r)))))
        .try_flatten()
        .boxed()
}

/// The sets in `sets` whose selector matches an object's labels in its
/// namespace.
fn matching_sets(
    sets: &Store<DynamicObject>,
    ar: &ApiResource,
    meta: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta,
) -> Vec<ObjectRef<DynamicObject>> {
    let ns = meta.namespace.clone().unwrap_or_default();
    sets.state()
        .iter()
        .filter(|s| s.namespace().as_deref() == Some(ns.as_str()))
        .filter(|s| {
            s.data["spec"]["selector"]
                .as_object()
                .is_some_and(|sel| super::adoption::selects(sel, meta))
        })
        .map(|s| ObjectRef::from_obj_with(s.as_ref(), ar.clone()))
        .collect()
}

/// Runs the controller until `cancel` fires.
pub async fn run(
    client: Client,
    opts: ControllerOptions,
    cancel: CancellationToken,
) -> anyhow::Result<()> {
    let ns = opts.namespace.clone();
    let ar = opts.resource.clone();
    let sets_api: Api<DynamicObject> = match &ns {
        Some(ns) => Api::namespaced_with(client.clone(), ns, &ar),
        None => Api::all_with(client.clone(), &ar),
    };

    let sets_writer = reflector::store::Writer::<DynamicObject>::new(ar.clone());
    let sets = sets_writer.as_reader();
    let (pods, pods_writer) = reflector::store::<Pod>();
    let (claims, claims_writer) = reflector::store::<PersistentVolumeClaim>();
    let (revisions, revisions_writer) = reflector::store::<ControllerRevision>();
    let ctx = Arc::new(Context {
        client: client.clone(),
        opts: opts.clone(),
        pods,
        claims,
        revisions,
        seen: Seen::default(),
        sets: sets.clone(),
        slots: (opts.concurrency > 0)
            .then(|| tokio::sync::Semaphore::new(usize::from(opts.concurrency))),
        expected: Mutex::new(HashMap::new()),
    });

    let set_ar = ar.clone();
    let ctx_sets = ctx.clone();
    let set_queue: Queue = reflector::reflector(sets_writer, watcher(sets_api, watcher_config()))
        .default_backoff()
        .map_ok(move |event| {
            let o = match event {
                watcher::Event::Init => {
                    ctx_sets.seen.sets.observe(Observation::RelistStarted);
                    return None;
                }
                watcher::Event::InitDone => {
                    ctx_sets.seen.sets.observe(Observation::RelistDone);
                    return None;
                }
                watcher::Event::Apply(o)
                | watcher::Event::Delete(o)
                | watcher::Event::InitApply(o) => o,
            };
            ctx_sets
                .seen
                .sets
                .observe(Observation::Object(rv_of(&o.metadata)));
            Some(ObjectRef::from_obj_with(&o, set_ar.clone()))
        })
        .boxed();
    let ctx_pods = ctx.clone();
    let (sets_of_pod, pod_ar) = (sets.clone(), ar.clone());
    let pod_queue = owner_stream(
        pods_writer,
        namespaced(&client, ns.as_deref()),
        ar.clone(),
        move |o| ctx_pods.seen.pods.observe(o),
        move |p: &Pod| matching_sets(&sets_of_pod, &pod_ar, &p.metadata),
    );
    let ctx_revs = ctx.clone();
    let (sets_of_rev, rev_ar) = (sets.clone(), ar.clone());
    let revision_queue = owner_stream(
        revisions_writer,
        namespaced(&client, ns.as_deref()),
        ar.clone(),
        move |o| ctx_revs.seen.revisions.observe(o),
        move |r: &ControllerRevision| matching_sets(&sets_of_rev, &rev_ar, &r.metadata),
    );
    // Claims never trigger a sync; their cache only has to be filled.
    let claim_queue: Queue = reflector::reflector(
        claims_writer,
        watcher(namespaced(&client, ns.as_deref()), watcher_config())
            .modify(|c: &mut PersistentVolumeClaim| c.managed_fields_mut().clear()),
    )
    .default_backoff()
    .touched_objects()
    .map_ok(|_: PersistentVolumeClaim| None)
    .boxed();

    let queue_metrics = opts.metrics.clone();
    let queue = stream::select_all(vec![set_queue, pod_queue, revision_queue, claim_queue])
        .try_filter_map(|r| future::ready(Ok(r)))
        .inspect_ok(move |r: &ObjectRef<DynamicObject>| {
            let ns = r.namespace.as_deref().unwrap_or_default();
            queue_metrics.queue_add(&format!("{ns}/{}", r.name));
        });
    // kube-runtime's own limit hands a freed slot to any due key, in no
    // fixed order: under load some sets waited many seconds while others
    // synced again and again. Its runner is left unlimited (it still never
    // runs two syncs of one set at once), and the limit is the fair
    // semaphore in `reconcile`.
    let config = controller::Config::default();
    let applier = controller::applier(
        |set, ctx| Box::pin(reconcile(set, ctx)),
        error_policy,
        ctx.clone(),
        sets,
        queue,
        config,
    )
    .for_each(|result| {
        if let Err(err) = result {
            tracing::debug!(%err, "reconcile");
        }
        future::ready(())
    });
    tokio::select! {
        _ = cancel.cancelled() => {}
        _ = applier => {}
    }
    Ok(())
}

/// Runs the controller only while holding the election's lease (several
/// replicas may run; the leader reconciles), until `cancel` fires.
pub async fn run_elected(
    client: Client,
    opts: ControllerOptions,
    election: super::leader::Election,
    cancel: CancellationToken,
) -> anyhow::Result<()> {
    let lead_client = client.clone();
    let lead = move |term: CancellationToken| {
        let (client, opts) = (lead_client.clone(), opts.clone());
        async move {
            if let Err(err) = run(client, opts, term).await {
                tracing::error!("controller stopped: {err:#}");
            }
        }
    };
    super::leader::run(client, election, cancel, lead).await
}

/// How long after a failed sync the set is synced again.
const RETRY_AFTER: Duration = Duration::from_millis(250);

fn error_policy(set: Arc<DynamicObject>, err: &SyncError, ctx: Arc<Context>) -> Requeue {
    tracing::info!(%err, "sync failed, retrying");
    ctx.opts.metrics.queue_retry(&key_of(&set), RETRY_AFTER);
    Requeue::requeue(RETRY_AFTER)
}

/// When to sync a set again without a change: `None` waits for one.
type Again = Option<Duration>;

/// One sync, as the work queue sees it: the key leaves the queue, the sync
/// runs, and a requested look-again is a delayed re-add (a failure's is
/// recorded by [`error_policy`]).
async fn reconcile(set: Arc<DynamicObject>, ctx: Arc<Context>) -> Result<Requeue, SyncError> {
    // The semaphore is never closed, so acquiring fails never.
    let _slot = match &ctx.slots {
        Some(slots) => slots.acquire().await.ok(),
        None => None,
    };
    // The set as the cache holds it now, not as it was when the sync was
    // asked for; gone from the cache, it was deleted meanwhile.
    let Some(set) = ctx.sets.get(&ObjectRef::from_obj_with(
        set.as_ref(),
        ctx.opts.resource.clone(),
    )) else {
        return Ok(Requeue::await_change());
    };
    let key = key_of(&set);
    let metrics = ctx.opts.metrics.clone();
    metrics.queue_started(&key);
    let started = std::time::Instant::now();
    let result = sync(set, ctx.clone()).await;
    metrics.queue_done(started.elapsed());
    Ok(match result? {
        Some(after) => {
            metrics.queue_retry(&key, after);
            Requeue::requeue(after)
        }
        None => Requeue::await_change(),
    })
}

fn key_of(set: &DynamicObject) -> String {
    format!("{}/{}", set.namespace().unwrap_or_default(), set.name_any())
}

async fn sync(set: Arc<DynamicObject>, ctx: Arc<Context>) -> Result<Again, SyncError> {
    // Never decide on an empty cache: a pod missing from it would look gone.
    ctx.pods.wait_until_ready().await.ok();
    ctx.claims.wait_until_ready().await.ok();
    ctx.revisions.wait_until_ready().await.ok();

    let key = key_of(&set);
    if set.metadata.deletion_timestamp.is_some() {
        #[cfg(kepspec_defects)]
        if super::defects::Defect::active() == Some(super::defects::Defect::ReleaseWhileDeleting) {
            let view = View::cached(&set, &ctx.pods, &ctx.claims, &ctx.revisions);
            let mut written = Freshness::default();
            let claimed =
                super::adoption::claim(&ctx.client, &ctx.opts.resource, &set, view, &mut written)
                    .await;
            record_writes(&ctx, &key, written);
            claimed?;
        }
        return Ok(None);
    }
    let started = std::time::Instant::now();
    let expected = ctx
        .expected
        .lock()
        .map(|m| m.get(&key).copied())
        .unwrap_or_default();
    let set_rv = set
        .metadata
        .resource_version
        .as_deref()
        .and_then(|v| v.parse::<u64>().ok());
    let state = cache_state(&ctx.seen, expected, set_rv, std::time::Instant::now());
    #[cfg(kepspec_defects)]
    let state = if super::defects::Defect::active() == Some(super::defects::Defect::IgnoreOwnWrites)
    {
        CacheState::Fresh
    } else {
        state
    };
    let result = match state {
        CacheState::Fresh => {
            let view = View::cached(&set, &ctx.pods, &ctx.claims, &ctx.revisions);
            sync_fresh(&set, view, &ctx, &key).await
        }
        CacheState::Behind => {
            ctx.opts.metrics.stale_skip();
            // The watch event that brings the cache up to date queues the set
            // again; the timer is only a safety net.
            return Ok(Some(Duration::from_secs(1)));
        }
        CacheState::Overdue => {
            // A watch that lags (or can never deliver what was expected):
            // decide on a consistent read, never on the stale cache.
            ctx.opts.metrics.consistent_read();
            if let Some((f, _)) = expected {
                tracing::info!(
                    set = %key,
                    set_rv = ?set_rv,
                    sets = %lag(&ctx.seen.sets, f.sets),
                    pods = %lag(&ctx.seen.pods, f.pods),
                    revisions = %lag(&ctx.seen.revisions, f.revisions),
                    "a cache stayed behind this controller's last write: reading consistently"
                );
            }
            match View::consistent(&ctx.client, &ctx.opts.resource, &set).await {
                Ok(Some((set, view))) => sync_fresh(&set, view, &ctx, &key).await,
                Ok(None) => return Ok(None),
                Err(e) => Err(e.into()),
            }
        }
    };
    ctx.opts
        .metrics
        .reconciled(started.elapsed(), result.is_err());
    result
}

/// Records the resourceVersions a sync's writes produced: the next sync of
/// the set waits for caches that have seen them.
fn record_writes(ctx: &Context, key: &str, f: Freshness) {
    ctx.seen.pods.written.fetch_max(f.pods, Ordering::SeqCst);
    ctx.seen.sets.written.fetch_max(f.sets, Ordering::SeqCst);
    ctx.seen
        .revisions
        .written
        .fetch_max(f.revisions, Ordering::SeqCst);
    if let Ok(mut expected) = ctx.expected.lock() {
        expected.insert(key.to_string(), (f, std::time::Instant::now()));
    }
}

async fn sync_fresh(
    set: &DynamicObject,
    view: View,
    ctx: &Context,
    key: &str,
) -> Result<Again, SyncError> {
    let key = key.to_string();
    let mut claimed = Freshness::default();
    let view = match super::adoption::claim(
        &ctx.client,
        &ctx.opts.resource,
        set,
        view,
        &mut claimed,
    )
    .await
    {
        Ok(view) => view,
        Err(e) => {
            record_writes(ctx, &key, claimed);
            return Err(e);
        }
    };

    let mut raw = serde_json::to_value(set).map_err(|e| SyncError::Decode(key.clone(), e))?;
    ctx.opts.fields.from_target(&mut raw);
    #[cfg(kepspec_defects)]
    if let Some(d) = super::defects::Defect::active() {
        super::defects::distort_raw(d, &mut raw);
    }
    #[cfg_attr(not(kepspec_defects), allow(unused_mut))]
    let mut typed: StatefulSet = serde_json::from_value(vendor::as_apps_v1(&raw))
        .map_err(|e| SyncError::Decode(key.clone(), e))?;
    let ns = set.namespace().unwrap_or_default();
    let uid = set.uid().unwrap_or_default();
    let View {
        mut pods,
        claims,
        revisions,
    } = view;

    #[cfg_attr(not(kepspec_defects), allow(unused_mut))]
    let mut regarding = Regarding {
        api_version: ctx.opts.resource.api_version.clone(),
        kind: ctx.opts.resource.kind.clone(),
        namespace: ns.clone(),
        name: set.name_any(),
        uid: uid.clone(),
        resource_version: set.resource_version(),
    };
    #[cfg_attr(not(kepspec_defects), allow(unused_mut))]
    let mut gates = ctx.opts.gates.clone();
    #[cfg(kepspec_defects)]
    let defect = super::defects::Defect::active();
    #[cfg(kepspec_defects)]
    if let Some(d) = defect {
        super::defects::distort_input(d, &mut typed, &mut pods, &mut gates);
    }
    #[cfg(kepspec_defects)]
    if defect == Some(super::defects::Defect::EventsWithoutUid) {
        regarding.uid.clear();
    }
    let kind = (
        ctx.opts.resource.api_version.as_str(),
        ctx.opts.resource.kind.as_str(),
    );
    if kind != vendor::APPS_V1 {
        // Copied out of the cache only here (another kind than apps/v1's).
        for p in pods.iter_mut() {
            vendor::retarget(&mut Arc::make_mut(p).metadata, &uid, kind, vendor::APPS_V1);
        }
    }
    let mut claims = claims;
    for c in claims.iter_mut() {
        vendor::retarget(&mut c.metadata, &uid, kind, vendor::APPS_V1);
    }
    #[cfg(kepspec_defects)]
    if defect == Some(super::defects::Defect::ClaimOwnerTakeover) {
        super::defects::forget_foreign_owners(&mut claims, &uid, &pods);
    }
    #[cfg(kepspec_defects)]
    if defect == Some(super::defects::Defect::OwnerByName) {
        super::defects::owners_by_name(&mut claims, &regarding.name);
    }
    #[cfg(kepspec_defects)]
    if defect == Some(super::defects::Defect::StaleRefTakenOver) {
        super::defects::forget_earlier_sets(&mut claims, &typed);
    }
    #[cfg(kepspec_defects)]
    if defect == Some(super::defects::Defect::StaleClaimIgnored) {
        super::defects::forget_absent_pods(&mut claims, &pods);
    }
    #[cfg(kepspec_defects)]
    if defect == Some(super::defects::Defect::StaleByName) {
        super::defects::others_named_like_pods(&mut claims, &typed);
    }
    #[cfg(kepspec_defects)]
    if defect == Some(super::defects::Defect::PodFlagNotRestored) {
        super::defects::pod_refs_as_controllers(&mut claims);
    }
    #[cfg(kepspec_defects)]
    let demoted = if defect == Some(super::defects::Defect::SecondClaimController) {
        super::defects::demote_foreign_controllers(&mut claims, &typed, &pods)
    } else {
        Vec::new()
    };
    #[cfg(kepspec_defects)]
    if defect == Some(super::defects::Defect::IgnoreClaimDeletion) {
        for c in claims.iter_mut() {
            c.metadata.deletion_timestamp = None;
        }
    }
    let mut revisions: Vec<_> = revisions.into_iter().map(Arc::unwrap_or_clone).collect();
    for r in revisions.iter_mut() {
        vendor::retarget(&mut r.metadata, &uid, kind, vendor::APPS_V1);
    }
    #[cfg(kepspec_defects)]
    if let Some(d) = defect {
        super::defects::distort_revisions(d, &mut typed, &revisions);
    }
    let observed = Observed {
        set_raw: &raw,
        set: &typed,
        pods: &pods,
        claims: &claims,
        revisions: &revisions,
        now: jiff::Timestamp::now(),
    };
    let mut plan = match super::behave::plan(ctx.opts.implementation, &observed, &gates) {
        Ok(plan) => plan,
        Err(err) => {
            // A set we cannot act on: say why, once per change of the set.
            events::record(
                &ctx.client,
                &regarding,
                EventType::Warning,
                "FailedSync",
                &err.to_string(),
            )
            .await;
            // ...and in the status, where `kubectl describe` shows it.
            let status = execute::invalid_spec_status(
                typed.status.as_ref(),
                set.metadata.generation,
                &err.to_string(),
            );
            let target = Target {
                client: &ctx.client,
                resource: &ctx.opts.resource,
                regarding,
                label_selector: None,
            };
            execute::write_status(&target, &status).await?;
            return Ok(None);
        }
    };
    // A deliberate defect distorts what the controller does, and so what
    // its metrics say of it.
    #[cfg(kepspec_defects)]
    if let Some(d) = defect {
        let planned = plan.actions.clone();
        super::defects::distort_plan(d, &mut plan, &pods, &typed);
        super::defects::distort_history(d, &mut plan, &typed, &revisions);
        super::defects::second_claim_controller(&mut plan, &demoted);
        if plan.actions != planned {
            // The batches index the planned actions: a distorted plan runs
            // its actions one by one.
            plan.batches.clear();
        }
        let names: Vec<String> = claims
            .iter()
            .filter_map(|c| c.metadata.name.clone())
            .collect();
        for claim in super::defects::claims_to_delete(d, &plan, &names, &typed) {
            let api: Api<PersistentVolumeClaim> = Api::namespaced(ctx.client.clone(), &ns);
            let _ = api.delete(&claim, &Default::default()).await;
        }
    }
    ctx.opts.metrics.synced(
        &ns,
        &regarding.name,
        &super::rollouts::Seen {
            strategy: typed
                .spec
                .update_strategy
                .as_ref()
                .and_then(|u| u.type_.as_deref())
                .unwrap_or("RollingUpdate"),
            update_revision: plan.status.update_revision.as_deref().unwrap_or_default(),
            current_revision: plan.status.current_revision.as_deref().unwrap_or_default(),
            settled: {
                let st = &plan.status;
                let want = super::pods::spec_replicas(&typed);
                st.replicas == want
                    && st.ready_replicas == Some(want)
                    && st.updated_replicas == Some(want)
            },
            halted: matches!(
                plan.phase,
                super::plan::Phase::EnforcedRollingUpdate {
                    safety_halt: true,
                    ..
                }
            ),
            now: std::time::Instant::now(),
        },
    );
    if let Some(gauges) = super::metrics::gauges_of(&plan, &typed, &pods, observed.now) {
        ctx.opts.metrics.set(&ns, &regarding.name, gauges);
    }
    // OpenKruise's scale subresource reads status.labelSelector, which its
    // controller writes (Advanced StatefulSet's CRD, labelSelectorPath).
    let label_selector = (kind != vendor::APPS_V1).then(|| {
        kepspec_core::selector::format_label_selector(
            raw.lookup("/spec/selector")
                .unwrap_or(&serde_json::Value::Null),
        )
    });
    let target = Target {
        client: &ctx.client,
        resource: &ctx.opts.resource,
        regarding,
        label_selector,
    };
    vendor::retarget_plan(&mut plan, &uid, vendor::APPS_V1, kind);
    let (outcome, result) = execute::perform(&target, &plan, typed.status.as_ref()).await;
    // What took effect is recorded before a failure is returned: the next
    // sync (a retry after the failure) must not decide on older caches.
    for (pod, succeeded) in &outcome.forced {
        let stuck_for = pods
            .iter()
            .find(|p| p.metadata.name.as_deref() == Some(pod.as_str()))
            .and_then(|p| super::pods::not_ready_for(p, jiff::Timestamp::now()));
        ctx.opts
            .metrics
            .forced_replacement(&ns, &target.regarding.name, *succeeded, stuck_for);
    }
    record_writes(ctx, &key, outcome.freshness.max(claimed));
    result?;
    Ok(plan.requeue_after)
}
