//! The recorder: one `kube::runtime::watcher` per kind on a namespace-scoped
//! API, merged into a shared [`Timeline`]. The decisions live in
//! [`super::merge`]; this file only moves watch events into it.

use super::merge::{KindMerger, WatchSignal};
use super::timeline::{Kind, Timeline};
use futures::StreamExt;
use k8s_openapi::api::apps::v1::{ControllerRevision, StatefulSet};
use k8s_openapi::api::core::v1::{Event, PersistentVolumeClaim, Pod};
use kube::api::{Api, ApiResource, DynamicObject};
use kube::runtime::watcher::{self, watcher};
use kube::runtime::WatchStreamExt;
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard};

/// How often a wait re-judges its probe when nothing new was recorded.
const TICK: std::time::Duration = std::time::Duration::from_millis(500);
use std::time::Duration;
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// How long [`Recorder::start`] waits for the initial lists.
pub(crate) const START_TIMEOUT: Duration = Duration::from_secs(30);

/// The resource recorded as [`Kind::StatefulSet`].
#[derive(Clone, Debug)]
pub struct SetKind {
    /// apps/v1 StatefulSet by default; a vendor kind with the same shape
    /// can be given instead.
    pub resource: ApiResource,
    /// How the vendor's fields map onto apps/v1's: every recorded state of a
    /// set is moved back to the spec's paths, so checks read apps/v1 fields.
    pub fields: crate::profiles::FieldMap,
}

impl Default for SetKind {
    fn default() -> SetKind {
        SetKind {
            resource: ApiResource::erase::<StatefulSet>(&()),
            fields: Default::default(),
        }
    }
}

impl From<ApiResource> for SetKind {
    fn from(resource: ApiResource) -> SetKind {
        SetKind {
            resource,
            fields: Default::default(),
        }
    }
}

impl SetKind {
    /// Records a vendor resource in place of apps/v1 StatefulSet.
    pub fn custom(resource: ApiResource) -> SetKind {
        SetKind::from(resource)
    }
}

/// Settings of a recorder beyond the namespace.
#[derive(Clone, Debug)]
pub struct RecorderOptions {
    /// The resource recorded as [`Kind::StatefulSet`].
    pub set_kind: SetKind,
    /// `timeoutSeconds` of each watch request (`None`: the watcher's
    /// default); a watch that ends is resumed, or relisted after 410 Gone.
    pub watch_timeout: Option<u32>,
    /// How long [`Recorder::start_with`] waits for the initial lists.
    pub start_timeout: Duration,
}

impl Default for RecorderOptions {
    fn default() -> RecorderOptions {
        RecorderOptions {
            set_kind: SetKind::default(),
            watch_timeout: None,
            start_timeout: START_TIMEOUT,
        }
    }
}

/// The probe of [`Recorder::wait_for`] did not succeed in time.
#[derive(Clone, Debug)]
pub struct WaitTimeout {
    /// How long it waited.
    pub waited: Duration,
    /// The timeline when it gave up.
    pub timeline: Timeline,
    /// True when the recorder stopped before the timeout.
    pub stopped: bool,
}

impl fmt::Display for WaitTimeout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.stopped {
            writeln!(f, "the recorder stopped before the condition held")?;
        } else {
            writeln!(
                f,
                "condition not met within {:.3}s",
                self.waited.as_secs_f64()
            )?;
        }
        let n = self.timeline.len() as u64;
        let lines = self.timeline.excerpt(n.saturating_sub(12), n, u64::MAX);
        if lines.is_empty() {
            write!(f, "  (nothing was recorded)")?;
        } else {
            writeln!(f, "  last timeline entries:")?;
            for l in lines {
                writeln!(f, "    {l}")?;
            }
        }
        Ok(())
    }
}

impl std::error::Error for WaitTimeout {}

struct Shared {
    timeline: Mutex<Timeline>,
    changed: watch::Sender<u64>,
    errors: Mutex<Vec<String>>,
}

/// Watch errors kept for diagnosis.
const MAX_ERRORS: usize = 100;

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Timeline> {
        self.timeline.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Records the history of one namespace.
pub struct Recorder {
    shared: Arc<Shared>,
    /// The API of each recorded kind, to read where each stands now.
    apis: Vec<(Kind, Api<DynamicObject>)>,
    started: tokio::time::Instant,
    cancel: CancellationToken,
    tasks: Vec<JoinHandle<()>>,
}

enum Progress {
    Listed,
    Error(String),
}

impl Recorder {
    /// Starts watching pods, claims, the set kind, controller revisions and
    /// events in `namespace`; returns once every watch delivered its initial
    /// list (those objects are entries at time zero).
    pub async fn start(
        client: kube::Client,
        namespace: &str,
        set_kind: impl Into<SetKind>,
    ) -> anyhow::Result<Recorder> {
        let options = RecorderOptions {
            set_kind: set_kind.into(),
            ..RecorderOptions::default()
        };
        Recorder::start_with(client, namespace, options).await
    }

    /// [`Recorder::start`] with every setting.
    pub async fn start_with(
        client: kube::Client,
        namespace: &str,
        options: RecorderOptions,
    ) -> anyhow::Result<Recorder> {
        let (changed, _) = watch::channel(0);
        let mut timeline = Timeline::new();
        timeline.origin = Some(jiff::Timestamp::now());
        let shared = Arc::new(Shared {
            timeline: Mutex::new(timeline),
            changed,
            errors: Mutex::new(Vec::new()),
        });
        let started = tokio::time::Instant::now();
        let cancel = CancellationToken::new();
        let kinds = [
            (Kind::Pod, ApiResource::erase::<Pod>(&())),
            (
                Kind::PersistentVolumeClaim,
                ApiResource::erase::<PersistentVolumeClaim>(&()),
            ),
            (Kind::StatefulSet, options.set_kind.resource.clone()),
            (
                Kind::ControllerRevision,
                ApiResource::erase::<ControllerRevision>(&()),
            ),
            (Kind::Event, ApiResource::erase::<Event>(&())),
        ];
        let (tx, mut rx) = mpsc::unbounded_channel();
        let mut tasks = Vec::new();
        let mut apis = Vec::new();
        for (kind, ar) in kinds {
            let api: Api<DynamicObject> = Api::namespaced_with(client.clone(), namespace, &ar);
            apis.push((kind, api.clone()));
            let mut config = watcher::Config::default();
            if let Some(secs) = options.watch_timeout {
                config = config.timeout(secs);
            }
            let fields = (kind == Kind::StatefulSet).then(|| options.set_kind.fields.clone());
            tasks.push(tokio::spawn(record_kind(
                kind,
                api,
                config,
                fields,
                shared.clone(),
                started,
                cancel.clone(),
                tx.clone(),
            )));
        }
        drop(tx);
        let rec = Recorder {
            shared,
            apis,
            started,
            cancel,
            tasks,
        };
        let mut pending = rec.tasks.len();
        let mut last_error = None;
        let deadline = started + options.start_timeout;
        while pending > 0 {
            match tokio::time::timeout_at(deadline, rx.recv()).await {
                Ok(Some(Progress::Listed)) => pending -= 1,
                Ok(Some(Progress::Error(e))) => last_error = Some(e),
                Ok(None) | Err(_) => {
                    rec.stop().await;
                    anyhow::bail!(
                        "the recorder's watches in namespace {namespace} did not list within {:.0}s{}",
                        options.start_timeout.as_secs_f64(),
                        last_error.map(|e| format!(": {e}")).unwrap_or_default()
                    );
                }
            }
        }
        Ok(rec)
    }

    /// Time since the recorder started (the time base of entries).
    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    /// The seq the next entry will get (a mark for `from_seq` arguments).
    pub fn next_seq(&self) -> u64 {
        self.shared.lock().next_seq()
    }

    /// Watch errors seen so far (each followed by a relist), oldest first,
    /// as `<kind>: <error>`; at most the first 100.
    pub fn watch_errors(&self) -> Vec<String> {
        self.shared
            .errors
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// A copy of the timeline so far.
    pub fn snapshot(&self) -> Timeline {
        self.shared.lock().clone()
    }

    /// Evaluates `probe` now and again after every new entry, until it
    /// returns a value or `timeout` passes (then the error carries the
    /// timeline as it was).
    pub async fn wait_for<T>(
        &self,
        timeout: Duration,
        mut probe: impl FnMut(&Timeline) -> Option<T>,
    ) -> Result<T, WaitTimeout> {
        let mut rx = self.shared.changed.subscribe();
        let begin = tokio::time::Instant::now();
        let deadline = begin + timeout;
        loop {
            rx.borrow_and_update();
            if let Some(v) = probe(&self.shared.lock()) {
                return Ok(v);
            }
            // Re-judge at least every TICK: a probe may depend on the clock
            // (minReadySeconds) as well as on new entries.
            let next = deadline.min(tokio::time::Instant::now() + TICK);
            let stopped = match tokio::time::timeout_at(next, rx.changed()).await {
                Ok(Ok(())) => continue,
                Ok(Err(_)) => true,
                Err(_) if next < deadline => continue,
                Err(_) => false,
            };
            return Err(WaitTimeout {
                waited: begin.elapsed(),
                timeline: self.snapshot(),
                stopped,
            });
        }
    }

    /// Waits until every watch has delivered the objects as they are now,
    /// read with one consistent list per kind, at most `timeout`; returns
    /// the cut (see below), or what was still missing when it gave up, or
    /// the list that failed.
    ///
    /// Watches of different kinds are independent streams: a status the set
    /// watch delivered may describe a pod the pod watch has not delivered
    /// yet. A watch that delivered an object's current version delivered
    /// every earlier change of its kind, so once each listed object is in
    /// the timeline at its listed resourceVersion, every kind's history is
    /// complete up to its own list's resourceVersion (later deletions alone
    /// may still be in flight). The kinds are listed one after another, so
    /// only up to the first list's resourceVersion is every kind complete:
    /// that is the cut. Past it the set watch may already have delivered a
    /// status whose pods the pod watch has not ([`Timeline::cut_after_rv`]
    /// drops what lies past it). `None` when a list named no numeric
    /// resourceVersion.
    pub async fn catch_up(&self, timeout: Duration) -> Result<Option<u64>, String> {
        let deadline = tokio::time::Instant::now() + timeout;
        let mut now = std::collections::BTreeMap::new();
        let mut listed_at = Vec::with_capacity(self.apis.len());
        for (kind, api) in &self.apis {
            let list = tokio::time::timeout_at(deadline, api.list_metadata(&Default::default()))
                .await
                .map_err(|_| format!("listing {} took over {timeout:?}", kind.word()))?
                .map_err(|e| format!("listing {}: {e}", kind.word()))?;
            listed_at.push(
                list.metadata
                    .resource_version
                    .as_deref()
                    .and_then(|v| v.parse::<u64>().ok()),
            );
            for item in list.items {
                let rv = item.metadata.resource_version.and_then(|v| v.parse().ok());
                if let (Some(rv), Some(name)) = (rv, item.metadata.name) {
                    now.insert((*kind, name), rv);
                }
            }
        }
        // The earliest list's resourceVersion, unless some list named none.
        let cut = listed_at
            .into_iter()
            .collect::<Option<Vec<u64>>>()
            .and_then(|rvs| rvs.into_iter().min());
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        self.wait_for(left, |t| t.missing(&now).is_none().then_some(()))
            .await
            .map(|()| cut)
            .map_err(|e| {
                e.timeline
                    .missing(&now)
                    .unwrap_or_else(|| "the recorder stopped".to_string())
            })
    }

    /// [`Recorder::catch_up`] as the harness uses it, within 15 s: the cut,
    /// or None when it could not be had (a gap is logged: the history may
    /// then miss the latest changes).
    pub async fn settle(&self) -> Option<u64> {
        match self.catch_up(Duration::from_secs(15)).await {
            Ok(cut) => cut,
            Err(gap) => {
                tracing::warn!(%gap, "the history may miss the latest changes");
                None
            }
        }
    }

    /// Stops every watch and returns the timeline.
    pub async fn stop(mut self) -> Timeline {
        self.cancel.cancel();
        for t in std::mem::take(&mut self.tasks) {
            let _ = t.await;
        }
        let t = self.shared.lock().clone();
        t
    }
}

impl Drop for Recorder {
    /// A recorder dropped without [`Recorder::stop`] still ends its watches.
    fn drop(&mut self) {
        self.cancel.cancel();
    }
}

#[allow(clippy::too_many_arguments)]
async fn record_kind(
    kind: Kind,
    api: Api<DynamicObject>,
    config: watcher::Config,
    fields: Option<crate::profiles::FieldMap>,
    shared: Arc<Shared>,
    started: tokio::time::Instant,
    cancel: CancellationToken,
    progress: mpsc::UnboundedSender<Progress>,
) {
    let mut merger = KindMerger::new(kind);
    // A timeline keeps no managedFields: no check reads them, and they are
    // most of a small object's size.
    let stream = watcher(api, config)
        .modify(|o: &mut DynamicObject| o.metadata.managed_fields = None)
        .default_backoff();
    let mut stream = std::pin::pin!(stream);
    loop {
        let next = tokio::select! {
            _ = cancel.cancelled() => break,
            n = stream.next() => n,
        };
        let event = match next {
            None => break,
            Some(Err(e)) => {
                tracing::warn!(kind = kind.word(), error = %e, "history watch error; relisting");
                let text = format!("{}: {e}", kind.word());
                {
                    let mut errors = shared.errors.lock().unwrap_or_else(|p| p.into_inner());
                    if errors.len() < MAX_ERRORS {
                        errors.push(text.clone());
                    }
                }
                let _ = progress.send(Progress::Error(text));
                continue;
            }
            Some(Ok(ev)) => ev,
        };
        let json = |o: DynamicObject| {
            let mut v = to_json(o);
            if let Some(f) = &fields {
                f.from_target(&mut v);
            }
            v
        };
        let signal = match event {
            watcher::Event::Init => WatchSignal::Init,
            watcher::Event::InitDone => WatchSignal::InitDone,
            watcher::Event::InitApply(o) => WatchSignal::InitApply(json(o)),
            watcher::Event::Apply(o) => WatchSignal::Apply(json(o)),
            watcher::Event::Delete(o) => WatchSignal::Delete(json(o)),
        };
        let first_list = matches!(signal, WatchSignal::InitDone) && !merger.listed();
        let entries = merger.observe(signal, started.elapsed());
        if !entries.is_empty() {
            let mut t = shared.lock();
            for e in entries {
                t.push(e);
            }
            let n = t.next_seq();
            drop(t);
            shared.changed.send_replace(n);
        }
        if first_list {
            let _ = progress.send(Progress::Listed);
        }
    }
}

/// The object as JSON, as `serde_json::to_value` writes it (apiVersion,
/// kind, metadata, then the rest), with the rest moved rather than
/// written anew: only the typed metadata is serialized.
fn to_json(o: DynamicObject) -> serde_json::Value {
    use serde_json::{Map, Value};
    let DynamicObject {
        types,
        metadata,
        data,
    } = o;
    let Value::Object(rest) = data else {
        let o = DynamicObject {
            types,
            metadata,
            data,
        };
        return serde_json::to_value(o).unwrap_or(Value::Null);
    };
    let mut map = Map::with_capacity(rest.len() + 3);
    if let Some(t) = types {
        map.insert("apiVersion".into(), Value::String(t.api_version));
        map.insert("kind".into(), Value::String(t.kind));
    }
    map.insert(
        "metadata".into(),
        serde_json::to_value(metadata).unwrap_or(Value::Null),
    );
    for (k, v) in rest {
        map.insert(k, v);
    }
    Value::Object(map)
}

#[cfg(test)]
mod tests;
