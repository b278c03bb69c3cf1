//! The node simulator's I/O: watches pods, claims and nodes, applies the
//! pure decisions of `scheduler`, `kubelet` and `volumes`, and performs
//! their writes. Timers are set only for the configured delays.

use super::admission;
use super::clock::plus;
use super::images::ImageCatalog;
use super::kubelet::{self, KubeletContext, PodRuntime};
use super::podstatus::ts;
use super::scheduler::{self, NodeInfo, Resources};
use super::{node, volumes, NodeSimConfig};
use futures::StreamExt;
use jiff::Timestamp;
use k8s_openapi::api::core::v1::{Node, PersistentVolume, PersistentVolumeClaim, Pod};
use kube::api::{Api, DeleteParams, Patch, PatchParams, PostParams, Preconditions};
use kube::runtime::watcher::{self, Event};
use kube::runtime::WatchStreamExt;
use kube::Client;
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// (namespace, name).
type Key = (String, String);

/// Something to look at again when its timer fires.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Wake {
    Pod(Key),
    Claim(Key),
    Schedule,
}

/// How long to wait before retrying a failed write.
const RETRY: Duration = Duration::from_millis(100);

/// Runs the simulator until `cancel` fires.
pub(super) async fn run(
    client: Client,
    cfg: NodeSimConfig,
    cancel: CancellationToken,
) -> anyhow::Result<()> {
    register_nodes(&client, &cfg).await?;
    let pods = watcher(Api::<Pod>::all(client.clone()));
    let claims = watcher(Api::<PersistentVolumeClaim>::all(client.clone()));
    let nodes = watcher(Api::<Node>::all(client.clone()));
    let (mut pods, mut claims, mut nodes) = (pods.boxed(), claims.boxed(), nodes.boxed());
    let (wake_tx, mut wake_rx) = mpsc::unbounded_channel();
    let (failed_tx, mut failed_rx) = mpsc::unbounded_channel();
    let mut sim = Sim::new(client, cfg, wake_tx, failed_tx, cancel.child_token());
    loop {
        tokio::select! {
            _ = cancel.cancelled() => break,
            Some(ev) = pods.next() => match ev {
                Ok(ev) => sim.on_pod(ev),
                Err(e) => tracing::warn!("node simulator: pod watch: {e}"),
            },
            Some(ev) = claims.next() => match ev {
                Ok(ev) => sim.on_claim(ev).await,
                Err(e) => tracing::warn!("node simulator: claim watch: {e}"),
            },
            Some(ev) = nodes.next() => match ev {
                Ok(ev) => sim.on_node(ev),
                Err(e) => tracing::warn!("node simulator: node watch: {e}"),
            },
            Some((wake, at)) = wake_rx.recv() => sim.on_wake(wake, at),
            Some(failed) = failed_rx.recv() => sim.on_failed(failed),
        }
        sim.process().await;
    }
    sim.cancel.cancel();
    Ok(())
}

fn watcher<K>(api: Api<K>) -> impl futures::Stream<Item = Result<Event<K>, watcher::Error>> + Send
where
    K: kube::Resource + Clone + serde::de::DeserializeOwned + std::fmt::Debug + Send + 'static,
{
    // No managedFields in what the simulator keeps: it never reads them.
    watcher::watcher(api, watcher::Config::default())
        .modify(|o: &mut K| kube::ResourceExt::managed_fields_mut(o).clear())
        .default_backoff()
}

async fn register_nodes(client: &Client, cfg: &NodeSimConfig) -> anyhow::Result<()> {
    let api: Api<Node> = Api::all(client.clone());
    let now = ts(Timestamp::now());
    for (i, spec) in cfg.nodes.iter().enumerate() {
        let obj: Node = serde_json::from_value(node::node_object(spec, i))?;
        match api.create(&PostParams::default(), &obj).await {
            Ok(_) => {}
            Err(kube::Error::Api(e)) if e.code == 409 => {}
            Err(e) => return Err(e.into()),
        }
        api.patch_status(
            &spec.name,
            &PatchParams::default(),
            &Patch::Merge(node::node_status(spec, i, &now)),
        )
        .await?;
    }
    Ok(())
}

fn key_of<K: kube::Resource>(obj: &K) -> Key {
    let m = obj.meta();
    (
        m.namespace.clone().unwrap_or_default(),
        m.name.clone().unwrap_or_default(),
    )
}

fn uid_of<K: kube::Resource>(obj: &K) -> String {
    obj.meta().uid.clone().unwrap_or_default()
}

struct Sim {
    client: Client,
    cfg: NodeSimConfig,
    catalog: ImageCatalog,
    /// Our nodes: name -> index.
    own_nodes: BTreeMap<String, usize>,
    pod_ips: Vec<u64>,
    nodes: BTreeMap<String, NodeInfo>,
    pods: BTreeMap<Key, Pod>,
    claims: BTreeMap<Key, PersistentVolumeClaim>,
    pod_init: Option<BTreeMap<Key, Pod>>,
    claim_init: Option<BTreeMap<Key, PersistentVolumeClaim>>,
    node_init: Option<BTreeMap<String, NodeInfo>>,
    runtimes: BTreeMap<String, PodRuntime>,
    written: BTreeMap<String, Value>,
    removing: BTreeSet<String>,
    /// Pods the kubelet rejected at admission (they never run).
    rejected: BTreeSet<String>,
    first_pending: BTreeMap<String, Timestamp>,
    assumed: BTreeMap<String, (String, Resources)>,
    unschedulable: BTreeMap<String, String>,
    claim_seen: BTreeMap<String, Timestamp>,
    claims_done: BTreeSet<String>,
    timers: BTreeMap<Wake, Timestamp>,
    wake_tx: mpsc::UnboundedSender<(Wake, Timestamp)>,
    writers: writes::Writers,
    cancel: CancellationToken,
    dirty_pods: BTreeSet<Key>,
    dirty_claims: BTreeSet<Key>,
    schedule_dirty: bool,
    /// Which watches have delivered their initial list (pods, claims,
    /// nodes): the scheduler waits for all three so that a missing claim
    /// or node is never reported from a partial view.
    synced: [bool; 3],
    /// Events already recorded, by (pod uid, reason, message): their name,
    /// count and first time, so repeats raise the count like upstream's
    /// event correlator.
    recorded: BTreeMap<writes::EventKey, (String, i32)>,
    event_seq: u64,
}

impl Sim {
    fn new(
        client: Client,
        cfg: NodeSimConfig,
        wake_tx: mpsc::UnboundedSender<(Wake, Timestamp)>,
        failed_tx: mpsc::UnboundedSender<writes::Failed>,
        cancel: CancellationToken,
    ) -> Self {
        let own_nodes = cfg
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.name.clone(), i))
            .collect();
        Sim {
            client,
            catalog: ImageCatalog::new(&cfg.images),
            pod_ips: vec![0; cfg.nodes.len()],
            cfg,
            own_nodes,
            nodes: BTreeMap::new(),
            pods: BTreeMap::new(),
            claims: BTreeMap::new(),
            pod_init: None,
            claim_init: None,
            node_init: None,
            runtimes: BTreeMap::new(),
            written: BTreeMap::new(),
            removing: BTreeSet::new(),
            rejected: BTreeSet::new(),
            first_pending: BTreeMap::new(),
            assumed: BTreeMap::new(),
            unschedulable: BTreeMap::new(),
            claim_seen: BTreeMap::new(),
            claims_done: BTreeSet::new(),
            timers: BTreeMap::new(),
            wake_tx,
            writers: writes::Writers::start(failed_tx, cancel.clone()),
            cancel,
            dirty_pods: BTreeSet::new(),
            dirty_claims: BTreeSet::new(),
            schedule_dirty: false,
            synced: [false; 3],
            recorded: BTreeMap::new(),
            event_seq: 0,
        }
    }

    fn on_pod(&mut self, ev: Event<Pod>) {
        match ev {
            Event::Init => self.pod_init = Some(BTreeMap::new()),
            Event::InitApply(p) => {
                if let Some(buf) = self.pod_init.as_mut() {
                    buf.insert(key_of(&p), p);
                }
            }
            Event::InitDone => {
                if let Some(buf) = self.pod_init.take() {
                    let live: BTreeSet<String> = buf.values().map(uid_of).collect();
                    self.forget_pods(|uid| !live.contains(uid));
                    self.dirty_pods.extend(buf.keys().cloned());
                    self.pods = buf;
                    self.schedule_dirty = true;
                    self.synced[0] = true;
                }
            }
            Event::Apply(p) => {
                let key = key_of(&p);
                let uid = uid_of(&p);
                if p.spec.as_ref().and_then(|s| s.node_name.as_ref()).is_some() {
                    self.assumed.remove(&uid);
                    self.first_pending.remove(&uid);
                } else {
                    self.schedule_dirty = true;
                }
                if let Some(old) = self.pods.insert(key.clone(), p) {
                    if uid_of(&old) != uid {
                        let gone = uid_of(&old);
                        self.forget_pods(|u| *u == gone);
                    }
                }
                self.dirty_pods.insert(key);
            }
            Event::Delete(p) => {
                let key = key_of(&p);
                let uid = uid_of(&p);
                if self.pods.get(&key).is_some_and(|cur| uid_of(cur) == uid) {
                    self.pods.remove(&key);
                }
                self.forget_pods(|u| *u == uid);
                self.schedule_dirty = true;
            }
        }
    }

    fn forget_pods(&mut self, gone: impl Fn(&String) -> bool) {
        self.runtimes.retain(|uid, _| !gone(uid));
        self.written.retain(|uid, _| !gone(uid));
        self.removing.retain(|uid| !gone(uid));
        self.rejected.retain(|uid| !gone(uid));
        self.first_pending.retain(|uid, _| !gone(uid));
        self.assumed.retain(|uid, _| !gone(uid));
        self.unschedulable.retain(|uid, _| !gone(uid));
        self.recorded.retain(|k, _| !gone(&k.0));
    }

    async fn on_claim(&mut self, ev: Event<PersistentVolumeClaim>) {
        match ev {
            Event::Init => self.claim_init = Some(BTreeMap::new()),
            Event::InitApply(c) => {
                if let Some(buf) = self.claim_init.as_mut() {
                    buf.insert(key_of(&c), c);
                }
            }
            Event::InitDone => {
                if let Some(buf) = self.claim_init.take() {
                    self.dirty_claims.extend(buf.keys().cloned());
                    self.claims = buf;
                    self.schedule_dirty = true;
                    self.synced[1] = true;
                }
            }
            Event::Apply(c) => {
                let key = key_of(&c);
                self.claims.insert(key.clone(), c);
                self.dirty_claims.insert(key.clone());
                self.schedule_dirty = true;
                // Pods waiting to mount the claim may start now.
                let waiting: Vec<Key> =
                    self.pods.keys().filter(|k| k.0 == key.0).cloned().collect();
                self.dirty_pods.extend(waiting);
            }
            Event::Delete(c) => {
                let key = key_of(&c);
                let uid = uid_of(&c);
                if self.claims.get(&key).is_some_and(|cur| uid_of(cur) == uid) {
                    self.claims.remove(&key);
                }
                self.claim_seen.remove(&uid);
                self.claims_done.remove(&uid);
                // Reclaim policy Delete: the provisioned volume goes with its
                // claim, first `Released` (as the PV controller marks it), so
                // the pv-protection controller lets it go.
                let api: Api<PersistentVolume> = Api::all(self.client.clone());
                let released = Patch::Merge(serde_json::json!({"status": {"phase": "Released"}}));
                if let Err(e) = api
                    .patch_status(
                        &volumes::volume_name(&c),
                        &PatchParams::default(),
                        &released,
                    )
                    .await
                {
                    if !matches!(&e, kube::Error::Api(a) if a.code == 404) {
                        tracing::warn!("node simulator: releasing volume: {e}");
                    }
                }
                match api
                    .delete(&volumes::volume_name(&c), &DeleteParams::default())
                    .await
                {
                    Ok(_) => {}
                    Err(kube::Error::Api(e)) if e.code == 404 => {}
                    Err(e) => tracing::warn!("node simulator: deleting volume: {e}"),
                }
                self.schedule_dirty = true;
            }
        }
    }

    fn on_node(&mut self, ev: Event<Node>) {
        match ev {
            Event::Init => self.node_init = Some(BTreeMap::new()),
            Event::InitApply(n) => {
                if let Some(buf) = self.node_init.as_mut() {
                    let info = NodeInfo::from_node(&n);
                    buf.insert(info.name.clone(), info);
                }
            }
            Event::InitDone => {
                if let Some(buf) = self.node_init.take() {
                    self.nodes = buf;
                    self.synced[2] = true;
                }
            }
            Event::Apply(n) => {
                let info = NodeInfo::from_node(&n);
                self.nodes.insert(info.name.clone(), info);
            }
            Event::Delete(n) => {
                self.nodes
                    .remove(n.metadata.name.as_deref().unwrap_or_default());
            }
        }
        self.schedule_dirty = true;
        let on_nodes: Vec<Key> = self.pods.keys().cloned().collect();
        self.dirty_pods.extend(on_nodes);
    }

    fn on_wake(&mut self, wake: Wake, at: Timestamp) {
        if self.timers.get(&wake) == Some(&at) {
            self.timers.remove(&wake);
        }
        match wake {
            Wake::Pod(k) => {
                self.dirty_pods.insert(k);
            }
            Wake::Claim(k) => {
                self.dirty_claims.insert(k);
            }
            Wake::Schedule => self.schedule_dirty = true,
        }
    }

    /// A queued write failed: undo what the loop took it to have done, and
    /// look again after the retry delay.
    fn on_failed(&mut self, failed: writes::Failed) {
        use writes::Undo;
        match failed.undo {
            Some(Undo::Assumed(uid)) => {
                self.assumed.remove(&uid);
            }
            Some(Undo::Written(uid)) => {
                self.written.remove(&uid);
            }
            Some(Undo::Removing(uid)) => {
                self.removing.remove(&uid);
            }
            Some(Undo::Unschedulable(uid)) => {
                self.unschedulable.remove(&uid);
            }
            Some(Undo::Rejected(uid)) => {
                self.rejected.remove(&uid);
            }
            None => {}
        }
        if let Some(key) = failed.unrecord {
            self.recorded.remove(&key);
        }
        if let Some(wake) = failed.retry {
            self.wake_at(wake, plus(Timestamp::now(), RETRY));
        }
    }

    fn wake_at(&mut self, wake: Wake, at: Timestamp) {
        let now = Timestamp::now();
        if let Some(existing) = self.timers.get(&wake) {
            if *existing <= at && *existing >= now {
                return;
            }
        }
        self.timers.insert(wake.clone(), at);
        let delay = Duration::try_from(at.duration_since(now)).unwrap_or_default()
            + Duration::from_millis(1);
        let tx = self.wake_tx.clone();
        let cancel = self.cancel.clone();
        tokio::spawn(async move {
            tokio::select! {
                _ = tokio::time::sleep(delay) => { let _ = tx.send((wake, at)); }
                _ = cancel.cancelled() => {}
            }
        });
    }

    async fn process(&mut self) {
        if self.cancel.is_cancelled() {
            return;
        }
        if self.synced.iter().all(|s| *s) && std::mem::take(&mut self.schedule_dirty) {
            self.schedule().await;
        }
        for key in std::mem::take(&mut self.dirty_claims) {
            self.bind_claim(&key).await;
        }
        for key in std::mem::take(&mut self.dirty_pods) {
            self.sync_pod(&key).await;
        }
    }
}

mod record;
mod schedule;
mod sync;
mod writes;
