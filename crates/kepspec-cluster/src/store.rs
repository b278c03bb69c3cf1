//! The object store: JSON objects keyed by group/resource/namespace/name, one
//! resourceVersion counter for everything, and a bounded event log that
//! watches resume from. Every event keeps the object's state before the
//! change, so the state of a type at any resourceVersion still inside the
//! log can be rebuilt (for stale views, see [`super::faults`]).

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Instant;

use axum::body::Bytes;
use serde_json::Value;

/// A group and plural resource name; the storage partition of a type.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Gr {
    /// API group ("" for core).
    pub group: String,
    /// Plural resource name.
    pub resource: String,
}

impl Gr {
    /// Builds a `Gr`.
    pub fn new(group: &str, resource: &str) -> Self {
        Gr {
            group: group.to_string(),
            resource: resource.to_string(),
        }
    }
}

/// The full key of one stored object ("" namespace for cluster-scoped).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ObjKey {
    /// Storage partition.
    pub gr: Gr,
    /// Namespace, empty for cluster-scoped objects.
    pub namespace: String,
    /// Object name.
    pub name: String,
}

impl ObjKey {
    /// Builds a key.
    pub fn new(gr: &Gr, namespace: &str, name: &str) -> Self {
        ObjKey {
            gr: gr.clone(),
            namespace: namespace.to_string(),
            name: name.to_string(),
        }
    }
}

/// Watch event types, as on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventType {
    /// `ADDED`
    Added,
    /// `MODIFIED`
    Modified,
    /// `DELETED`
    Deleted,
}

impl EventType {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            EventType::Added => "ADDED",
            EventType::Modified => "MODIFIED",
            EventType::Deleted => "DELETED",
        }
    }
}

/// One committed change.
#[derive(Debug)]
pub struct Event {
    /// The resourceVersion the change was committed at.
    pub rv: u64,
    /// What happened.
    pub kind: EventType,
    /// Which object.
    pub key: ObjKey,
    /// The object after the change (the last state for deletions), shared
    /// with the store while it is the object's current state.
    pub object: Arc<Value>,
    /// The stored object before the change (`None` for creations): for
    /// selector transitions in watches and for rebuilding older states.
    pub prev: Option<Arc<Value>>,
    /// When the change was committed.
    pub at: Instant,
    /// The watch lines made of this event, one per encoding: every watcher
    /// asking for the same encoding gets the same bytes.
    pub lines: Lines,
}

/// Encoded watch lines of one event, by encoding key (see [`Lines::get`]).
#[derive(Default)]
pub struct Lines(Mutex<Vec<(String, Bytes)>>);

impl Lines {
    /// The line for `key`, made by `make` the first time it is asked for.
    /// Concurrent askers for the same event wait for the first one.
    pub fn get(&self, key: &str, make: impl FnOnce() -> Bytes) -> Bytes {
        let mut cached = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((_, b)) = cached.iter().find(|(k, _)| k == key) {
            return b.clone();
        }
        let b = make();
        cached.push((key.to_string(), b.clone()));
        b
    }
}

impl std::fmt::Debug for Lines {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Lines")
    }
}

/// A resume point that has been compacted away.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expired {
    /// The requested resourceVersion.
    pub requested: u64,
    /// The oldest resourceVersion that can still be resumed from.
    pub oldest: u64,
}

struct Inner {
    rv: u64,
    objects: BTreeMap<ObjKey, Arc<Value>>,
    log: VecDeque<Arc<Event>>,
    window: usize,
    compacted_through: u64,
}

impl Inner {
    /// Whether every event after `rv` is still in the log.
    fn kept_since(&self, rv: u64) -> Result<(), Expired> {
        if rv < self.compacted_through {
            return Err(Expired {
                requested: rv,
                oldest: self.compacted_through,
            });
        }
        Ok(())
    }
}

/// A cheap, cloneable handle on the shared store.
#[derive(Clone)]
pub struct Store {
    inner: Arc<Mutex<Inner>>,
    changed: Arc<tokio::sync::watch::Sender<u64>>,
}

/// Exclusive access to the store for one atomic operation.
pub struct Txn<'a> {
    inner: MutexGuard<'a, Inner>,
    dirty: bool,
}

fn set_rv(obj: &mut Value, rv: u64) {
    if let Some(meta) = obj.get_mut("metadata").and_then(Value::as_object_mut) {
        meta.insert("resourceVersion".into(), Value::String(rv.to_string()));
    }
}

impl Store {
    /// An empty store keeping `window` events for watch resumption.
    pub fn new(window: usize) -> Self {
        let (tx, _rx) = tokio::sync::watch::channel(0);
        Store {
            inner: Arc::new(Mutex::new(Inner {
                rv: 1,
                objects: BTreeMap::new(),
                log: VecDeque::new(),
                window: window.max(1),
                compacted_through: 0,
            })),
            changed: Arc::new(tx),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        match self.inner.lock() {
            Ok(g) => g,
            Err(poisoned) => poisoned.into_inner(),
        }
    }

    /// Runs `f` with exclusive access; watchers are woken afterwards if it wrote.
    pub fn transact<R>(&self, f: impl FnOnce(&mut Txn<'_>) -> R) -> R {
        let (out, dirty, rv) = {
            let mut txn = Txn {
                inner: self.lock(),
                dirty: false,
            };
            let out = f(&mut txn);
            (out, txn.dirty, txn.inner.rv)
        };
        if dirty {
            self.changed.send_replace(rv);
        }
        out
    }

    /// A copy of one object.
    pub fn get(&self, gr: &Gr, namespace: &str, name: &str) -> Option<Value> {
        self.lock()
            .objects
            .get(&ObjKey::new(gr, namespace, name))
            .map(|o| Value::clone(o))
    }

    /// All objects of a type (in one namespace if given) and the current
    /// resourceVersion; the objects are shared with the store, not copied.
    pub fn list(&self, gr: &Gr, namespace: Option<&str>) -> (Vec<Arc<Value>>, u64) {
        let inner = self.lock();
        let items = of_resource(&inner.objects, gr, namespace)
            .map(|(_, v)| Arc::clone(v))
            .collect();
        (items, inner.rv)
    }

    /// The latest committed resourceVersion.
    pub fn resource_version(&self) -> u64 {
        self.lock().rv
    }

    /// A receiver that changes whenever something is committed.
    pub fn subscribe(&self) -> tokio::sync::watch::Receiver<u64> {
        self.changed.subscribe()
    }

    /// Events of `gr` (in `namespace` if given) committed after `after`, with
    /// the resourceVersion they bring a watcher up to, or `Expired` if some of
    /// them have been compacted away.
    pub fn events_after(
        &self,
        gr: &Gr,
        namespace: Option<&str>,
        after: u64,
    ) -> Result<(Vec<Arc<Event>>, u64), Expired> {
        let inner = self.lock();
        inner.kept_since(after)?;
        let start = inner.log.partition_point(|e| e.rv <= after);
        let events = inner
            .log
            .range(start..)
            .filter(|e| &e.key.gr == gr && namespace.is_none_or(|ns| e.key.namespace == ns))
            .cloned()
            .collect();
        Ok((events, inner.rv.max(after)))
    }

    /// Every event committed after `after`, of any type, with the
    /// resourceVersion they bring a reader up to, or `Expired`.
    pub fn all_events_after(&self, after: u64) -> Result<(Vec<Arc<Event>>, u64), Expired> {
        let inner = self.lock();
        inner.kept_since(after)?;
        let start = inner.log.partition_point(|e| e.rv <= after);
        Ok((
            inner.log.range(start..).cloned().collect(),
            inner.rv.max(after),
        ))
    }

    /// All objects of a type (in one namespace if given) as they were at
    /// resourceVersion `at`, rebuilt by undoing the later events, or
    /// `Expired` if some of those have been compacted away. `at` at or
    /// beyond the latest resourceVersion gives the current state.
    pub fn list_at(
        &self,
        gr: &Gr,
        namespace: Option<&str>,
        at: u64,
    ) -> Result<Vec<Arc<Value>>, Expired> {
        let inner = self.lock();
        inner.kept_since(at)?;
        let mut state: BTreeMap<ObjKey, &Arc<Value>> = of_resource(&inner.objects, gr, namespace)
            .map(|(k, v)| (k.clone(), v))
            .collect();
        let start = inner.log.partition_point(|e| e.rv <= at);
        for e in inner.log.range(start..).rev() {
            if &e.key.gr != gr || namespace.is_some_and(|ns| e.key.namespace != ns) {
                continue;
            }
            match &e.prev {
                Some(prev) => state.insert(e.key.clone(), prev),
                None => state.remove(&e.key),
            };
        }
        Ok(state.into_values().map(Arc::clone).collect())
    }

    /// One object as it was at resourceVersion `at` (see [`Self::list_at`]).
    pub fn get_at(
        &self,
        gr: &Gr,
        namespace: &str,
        name: &str,
        at: u64,
    ) -> Result<Option<Value>, Expired> {
        let inner = self.lock();
        inner.kept_since(at)?;
        let key = ObjKey::new(gr, namespace, name);
        let mut obj = inner.objects.get(&key);
        let start = inner.log.partition_point(|e| e.rv <= at);
        for e in inner.log.range(start..).rev().filter(|e| e.key == key) {
            obj = e.prev.as_ref();
        }
        Ok(obj.map(|o| Value::clone(o)))
    }

    /// The newest resourceVersion committed at or before `instant`: the
    /// view of a reader that lags by a duration. Gives the oldest point
    /// the log can rebuild if every logged change is newer.
    pub fn resource_version_at(&self, instant: Instant) -> u64 {
        let inner = self.lock();
        let newer = inner.log.partition_point(|e| e.at <= instant);
        match newer.checked_sub(1).and_then(|i| inner.log.get(i)) {
            Some(e) => e.rv,
            None => inner.log.front().map_or(inner.rv, |e| {
                e.rv.saturating_sub(1).max(inner.compacted_through)
            }),
        }
    }

    /// Whether a change of `gr` (in `namespace` if given) was committed
    /// after `after`: a view at `after` differs from the current one.
    pub fn changed_since(&self, gr: &Gr, namespace: Option<&str>, after: u64) -> bool {
        let inner = self.lock();
        let start = inner.log.partition_point(|e| e.rv <= after);
        inner
            .log
            .range(start..)
            .any(|e| &e.key.gr == gr && namespace.is_none_or(|ns| e.key.namespace == ns))
    }

    /// Every stored key and object (for the garbage collector).
    pub fn snapshot(&self) -> Vec<(ObjKey, Value)> {
        self.lock()
            .objects
            .iter()
            .map(|(k, v)| (k.clone(), Value::clone(v)))
            .collect()
    }

    /// Runs `read` on every stored object, under the store's lock (keep it
    /// short: every request waits for it).
    pub fn with_objects<R>(&self, read: impl FnOnce(&BTreeMap<ObjKey, Arc<Value>>) -> R) -> R {
        read(&self.lock().objects)
    }
}

/// The objects of `gr` (in `namespace` if given), from the key range they
/// occupy: no scan of the rest.
pub(crate) fn of_resource<'a>(
    objects: &'a BTreeMap<ObjKey, Arc<Value>>,
    gr: &'a Gr,
    namespace: Option<&'a str>,
) -> impl Iterator<Item = (&'a ObjKey, &'a Arc<Value>)> + Clone + 'a {
    let lo = ObjKey::new(gr, namespace.unwrap_or(""), "");
    objects
        .range(lo..)
        .take_while(move |(k, _)| &k.gr == gr && namespace.is_none_or(|ns| k.namespace == ns))
}

impl Txn<'_> {
    /// The stored object under `key`.
    pub fn get(&self, key: &ObjKey) -> Option<&Value> {
        self.inner.objects.get(key).map(|o| &**o)
    }

    /// The stored object under `key`, shared (no copy).
    pub fn get_shared(&self, key: &ObjKey) -> Option<Arc<Value>> {
        self.inner.objects.get(key).cloned()
    }

    /// All objects of a type (in one namespace if given).
    pub fn list(&self, gr: &Gr, namespace: Option<&str>) -> Vec<(ObjKey, Value)> {
        of_resource(&self.inner.objects, gr, namespace)
            .map(|(k, v)| (k.clone(), Value::clone(v)))
            .collect()
    }

    /// Whether any object lives in `namespace`.
    pub fn namespace_has_objects(&self, namespace: &str) -> bool {
        self.inner.objects.keys().any(|k| k.namespace == namespace)
    }

    /// The current resourceVersion.
    pub fn resource_version(&self) -> u64 {
        self.inner.rv
    }

    /// Commits a change at the next resourceVersion: `object` (already
    /// stamped with it) becomes the event's object, `prev` the state before.
    fn record(
        &mut self,
        kind: EventType,
        key: &ObjKey,
        rv: u64,
        object: Arc<Value>,
        prev: Option<Arc<Value>>,
    ) {
        self.inner.rv = rv;
        self.inner.log.push_back(Arc::new(Event {
            rv,
            kind,
            key: key.clone(),
            object,
            prev,
            at: Instant::now(),
            lines: Lines::default(),
        }));
        while self.inner.log.len() > self.inner.window {
            if let Some(old) = self.inner.log.pop_front() {
                self.inner.compacted_through = old.rv;
            }
        }
        self.dirty = true;
    }

    /// `obj` in kube-apiserver's field order, stamped with the next
    /// resourceVersion, shared between the store and the event log.
    fn stamp(&self, obj: Value) -> (u64, Arc<Value>) {
        let rv = self.inner.rv + 1;
        let mut obj = go_field_order(obj);
        set_rv(&mut obj, rv);
        (rv, Arc::new(obj))
    }

    /// Stores a new object (the caller checked it is absent) at a new resourceVersion.
    pub fn create(&mut self, key: &ObjKey, obj: Value) -> Value {
        let (rv, obj) = self.stamp(obj);
        self.record(EventType::Added, key, rv, obj.clone(), None);
        self.inner.objects.insert(key.clone(), obj.clone());
        Value::clone(&obj)
    }

    /// Replaces a stored object at a new resourceVersion.
    pub fn update(&mut self, key: &ObjKey, obj: Value) -> Value {
        let (rv, obj) = self.stamp(obj);
        let prev = self.inner.objects.insert(key.clone(), obj.clone());
        self.record(EventType::Modified, key, rv, obj.clone(), prev);
        Value::clone(&obj)
    }

    /// Removes an object; returns its last state (stamped with the deletion's resourceVersion).
    pub fn remove(&mut self, key: &ObjKey) -> Option<Value> {
        let stored = self.inner.objects.remove(key)?;
        let last = Value::clone(&stored);
        Some(self.record_removal(key, last, stored))
    }

    /// Removes an object, reporting `last` as its final state.
    pub fn remove_as(&mut self, key: &ObjKey, last: Value) -> Option<Value> {
        let stored = self.inner.objects.remove(key)?;
        Some(self.record_removal(key, last, stored))
    }

    fn record_removal(&mut self, key: &ObjKey, obj: Value, stored: Arc<Value>) -> Value {
        let rv = self.inner.rv + 1;
        let mut obj = obj;
        set_rv(&mut obj, rv);
        let obj = Arc::new(obj);
        self.record(EventType::Deleted, key, rv, obj.clone(), Some(stored));
        Value::clone(&obj)
    }
}

/// An object's top-level fields in the order kube-apiserver writes them,
/// which is the order of the Go struct it decoded into: `kind` and
/// `apiVersion` (TypeMeta), `metadata`, then the body, `status` last; the
/// body's own fields keep the order they came in.
pub(crate) fn go_field_order(obj: Value) -> Value {
    let Value::Object(mut map) = obj else {
        return obj;
    };
    let mut out = serde_json::Map::with_capacity(map.len());
    for key in ["kind", "apiVersion", "metadata"] {
        if let Some(v) = map.remove(key) {
            out.insert(key.to_string(), v);
        }
    }
    let status = map.remove("status");
    out.extend(map);
    if let Some(v) = status {
        out.insert("status".to_string(), v);
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn objects_are_stored_kind_first_and_status_last() {
        let obj = json!({"apiVersion": "v1", "status": {}, "spec": {"a": 1}, "metadata": {"name": "x"}, "kind": "Pod"});
        let keys: Vec<String> = go_field_order(obj)
            .as_object()
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default();
        assert_eq!(keys, ["kind", "apiVersion", "metadata", "spec", "status"]);
    }

    fn pod(name: &str) -> Value {
        json!({"metadata": {"name": name, "namespace": "default"}})
    }

    #[test]
    fn one_counter_and_events_after() {
        let s = Store::new(100);
        let gr = Gr::new("", "pods");
        let k = ObjKey::new(&gr, "default", "a");
        let a = s.transact(|t| t.create(&k, pod("a")));
        assert_eq!(a["metadata"]["resourceVersion"], "2");
        let cm = Gr::new("", "configmaps");
        s.transact(|t| t.create(&ObjKey::new(&cm, "default", "c"), pod("c")));
        let b = s.transact(|t| t.update(&k, pod("a")));
        assert_eq!(b["metadata"]["resourceVersion"], "4");
        let (evs, rv) = s.events_after(&gr, None, 2).unwrap();
        assert_eq!(rv, 4);
        assert_eq!(evs.len(), 1);
        assert_eq!(evs[0].kind, EventType::Modified);
        assert!(evs[0].prev.is_some());
        let gone = s.transact(|t| t.remove(&k)).unwrap();
        assert_eq!(gone["metadata"]["resourceVersion"], "5");
        assert!(s.get(&gr, "default", "a").is_none());
    }

    #[test]
    fn compaction_expires_old_resume_points() {
        let s = Store::new(2);
        let gr = Gr::new("", "pods");
        for n in ["a", "b", "c", "d"] {
            s.transact(|t| t.create(&ObjKey::new(&gr, "default", n), pod(n)));
        }
        // rvs 2..5; only 4 and 5 kept.
        assert!(s.events_after(&gr, None, 2).is_err());
        assert_eq!(s.events_after(&gr, None, 3).unwrap().0.len(), 2);
    }

    fn labelled(name: &str, v: u32) -> Value {
        json!({"metadata": {"name": name, "namespace": "default", "labels": {"v": v.to_string()}}})
    }

    #[test]
    fn older_states_are_rebuilt_from_the_log() {
        let s = Store::new(100);
        let gr = Gr::new("", "pods");
        let (a, b) = (
            ObjKey::new(&gr, "default", "a"),
            ObjKey::new(&gr, "default", "b"),
        );
        s.transact(|t| t.create(&a, labelled("a", 1))); // 2
        s.transact(|t| {
            t.create(
                &ObjKey::new(&Gr::new("", "configmaps"), "default", "c"),
                pod("c"),
            )
        }); // 3
        s.transact(|t| t.update(&a, labelled("a", 2))); // 4
        s.transact(|t| t.create(&b, labelled("b", 1))); // 5
        s.transact(|t| t.remove(&a)); // 6
        let names = |at| {
            s.list_at(&gr, Some("default"), at)
                .unwrap()
                .iter()
                .map(|o| {
                    format!(
                        "{}@{}",
                        o["metadata"]["name"].as_str().unwrap(),
                        o["metadata"]["resourceVersion"].as_str().unwrap()
                    )
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(names(1), Vec::<String>::new());
        assert_eq!(names(3), ["a@2"]);
        assert_eq!(names(4), ["a@4"]);
        assert_eq!(names(5), ["a@4", "b@5"]);
        assert_eq!(names(6), ["b@5"]);
        assert_eq!(names(99), ["b@5"]);
        let a4 = s.get_at(&gr, "default", "a", 4).unwrap().unwrap();
        assert_eq!(a4["metadata"]["labels"]["v"], "2");
        assert_eq!(s.get_at(&gr, "default", "a", 6).unwrap(), None);
        assert_eq!(s.get_at(&gr, "default", "b", 4).unwrap(), None);
        assert!(s.changed_since(&gr, None, 5));
        assert!(!s.changed_since(&gr, None, 6));
        assert!(!s.changed_since(&Gr::new("", "configmaps"), None, 3));
    }

    #[test]
    fn a_compacted_past_cannot_be_rebuilt() {
        let s = Store::new(2);
        let gr = Gr::new("", "pods");
        for n in ["a", "b", "c"] {
            s.transact(|t| t.create(&ObjKey::new(&gr, "default", n), pod(n)));
        }
        // rvs 2..=4; only the events at 3 and 4 are kept, so the state at 2
        // can still be rebuilt, the one at 1 not.
        assert!(s.list_at(&gr, None, 1).is_err());
        assert!(s.get_at(&gr, "default", "a", 1).is_err());
        assert_eq!(s.list_at(&gr, None, 2).unwrap().len(), 1);
        assert_eq!(s.list_at(&gr, None, 3).unwrap().len(), 2);
    }

    #[test]
    fn a_reader_lagging_by_time_sees_what_was_committed_by_then() {
        let s = Store::new(100);
        let gr = Gr::new("", "pods");
        let pause = || std::thread::sleep(std::time::Duration::from_millis(2));
        let before = Instant::now();
        pause();
        s.transact(|t| t.create(&ObjKey::new(&gr, "default", "a"), pod("a"))); // 2
        pause();
        let between = Instant::now();
        pause();
        s.transact(|t| t.create(&ObjKey::new(&gr, "default", "b"), pod("b"))); // 3
        assert_eq!(s.resource_version_at(before), 1);
        assert_eq!(s.resource_version_at(between), 2);
        assert_eq!(s.resource_version_at(Instant::now()), 3);
    }

    #[test]
    fn list_is_scoped_by_namespace() {
        let s = Store::new(10);
        let gr = Gr::new("", "pods");
        s.transact(|t| t.create(&ObjKey::new(&gr, "a", "x"), pod("x")));
        s.transact(|t| t.create(&ObjKey::new(&gr, "b", "y"), pod("y")));
        assert_eq!(s.list(&gr, Some("a")).0.len(), 1);
        assert_eq!(s.list(&gr, None).0.len(), 2);
        assert_eq!(s.list(&Gr::new("", "pod"), None).0.len(), 0);
    }
}
