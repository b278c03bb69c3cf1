//! Views derived from a timeline: facts about one pod state, the per-instant
//! [`State`] folded over the entries, per-pod lives and per-instant counts.
//!
//! Vocabulary:
//! - ordinal: the number after the last `-` of a pod name (`(.*)-([0-9]+)$`);
//! - revision: the `controller-revision-hash` label;
//! - ready: condition `Ready` with status `True`;
//! - terminating: `metadata.deletionTimestamp` is set;
//! - gone: a `Deleted` entry was recorded;
//! - available: ready, not terminating, and ready for at least
//!   minReadySeconds. Pods already ready in the initial list (at zero) count
//!   as available at once: they were ready before the scenario started.

use super::timeline::{Change, Entry, Kind, Timeline};
use crate::controller::plan::ReservedOrdinals;
use kepspec_core::Lookup as _;
use serde_json::Value;
use std::collections::BTreeMap;

pub use super::lives::{instants, pod_lives, Instant, PodLife};
use std::ops::ControlFlow;
use std::time::Duration;

/// The label carrying a pod's revision.
pub const REVISION_LABEL: &str = "controller-revision-hash";

/// Splits `web-12` into `("web", 12)`; `None` without a numeric suffix.
pub fn split_ordinal(name: &str) -> Option<(&str, i32)> {
    let (parent, digits) = name.rsplit_once('-')?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((parent, digits.parse().ok()?))
}

/// The ordinal of a pod of set `set`, if the name is `<set>-<n>`.
pub fn ordinal_of(set: &str, name: &str) -> Option<i32> {
    match split_ordinal(name) {
        Some((parent, n)) if parent == set => Some(n),
        _ => None,
    }
}

/// The ControllerRevision name upstream gives a set's current template
/// (apps/v1 sets only; None for other kinds, whose naming may differ): the
/// hash of the template and `status.collisionCount`.
pub fn template_revision(obj: &Value) -> Option<String> {
    use crate::controller::revision;
    if obj.get("apiVersion").and_then(Value::as_str) != Some("apps/v1") {
        return None;
    }
    let name = obj.lookup("/metadata/name").and_then(Value::as_str)?;
    let collisions = obj
        .lookup("/status/collisionCount")
        .and_then(Value::as_i64)
        .and_then(|c| i32::try_from(c).ok())
        .unwrap_or(0);
    let data = revision::revision_data(obj).ok()?;
    Some(revision::revision_name(
        name,
        &revision::hash_revision(&data, collisions),
    ))
}

/// Facts read from one pod object.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PodFacts<'a> {
    /// `controller-revision-hash` label.
    pub revision: Option<&'a str>,
    /// status.phase
    pub phase: Option<&'a str>,
    /// Ready condition is True.
    pub ready: bool,
    /// deletionTimestamp is set.
    pub terminating: bool,
    /// spec.nodeName is set or PodScheduled is True.
    pub scheduled: bool,
    /// The first container waiting reason (e.g. `ImagePullBackOff`).
    pub waiting_reason: Option<&'a str>,
}

/// A pod object's revision: its `controller-revision-hash` label.
pub fn revision_label(pod: &Value) -> Option<&str> {
    pod.lookup("/metadata/labels")
        .and_then(|l| l.get(REVISION_LABEL))
        .and_then(Value::as_str)
}

impl<'a> PodFacts<'a> {
    /// Reads the facts of a pod object; missing fields give defaults.
    pub fn of(pod: &'a Value) -> PodFacts<'a> {
        let conditions = pod
            .lookup("/status/conditions")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        let cond_true = |ty: &str| {
            conditions.iter().any(|c| {
                c.get("type").and_then(Value::as_str) == Some(ty)
                    && c.get("status").and_then(Value::as_str) == Some("True")
            })
        };
        let waiting_reason = pod
            .lookup("/status/containerStatuses")
            .and_then(Value::as_array)
            .and_then(|cs| {
                cs.iter()
                    .find_map(|c| c.lookup("/state/waiting/reason").and_then(Value::as_str))
            });
        PodFacts {
            revision: revision_label(pod),
            phase: pod.lookup("/status/phase").and_then(Value::as_str),
            ready: cond_true("Ready"),
            terminating: pod
                .lookup("/metadata/deletionTimestamp")
                .is_some_and(|v| !v.is_null()),
            scheduled: pod
                .lookup("/spec/nodeName")
                .and_then(Value::as_str)
                .is_some_and(|n| !n.is_empty())
                || cond_true("PodScheduled"),
            waiting_reason,
        }
    }
}

/// [`PodFacts`] of one recorded state, owned, with the Ready condition's
/// lastTransitionTime.
#[derive(Clone, Debug, Default)]
pub(crate) struct Reading {
    revision: Option<Box<str>>,
    phase: Option<Box<str>>,
    ready: bool,
    terminating: bool,
    scheduled: bool,
    waiting_reason: Option<Box<str>>,
    ready_transition: Option<jiff::Timestamp>,
    /// The kind and name its controller reference gives, when it has one.
    controller: Option<(Box<str>, Box<str>)>,
}

impl Reading {
    fn of(pod: &Value) -> Reading {
        let f = PodFacts::of(pod);
        Reading {
            revision: f.revision.map(Box::from),
            phase: f.phase.map(Box::from),
            ready: f.ready,
            terminating: f.terminating,
            scheduled: f.scheduled,
            waiting_reason: f.waiting_reason.map(Box::from),
            ready_transition: if f.ready {
                State::ready_transition(pod)
            } else {
                None
            },
            controller: pod
                .lookup("/metadata/ownerReferences")
                .and_then(Value::as_array)
                .and_then(|refs| refs.iter().find(|r| r["controller"] == true))
                .map(|r| {
                    let field = |f: &str| Box::from(r[f].as_str().unwrap_or_default());
                    (field("kind"), field("name"))
                }),
        }
    }

    /// Whether the pod may be a pod of set `parent`, as upstream's
    /// `ClaimObject` decides: its controller reference names that set (of
    /// the kind the recorded set has, `set_kind`, when the set was
    /// recorded: the target's resource, whatever it is called), or it has
    /// none and is not being deleted (an orphan the set may adopt). A pod
    /// another controller controls, and an orphan being deleted, are never
    /// a set's, whatever their names: no controller counts them in its
    /// status.
    fn may_belong_to(&self, parent: &str, set_kind: Option<&str>) -> bool {
        match &self.controller {
            Some((kind, name)) => &**name == parent && set_kind.is_none_or(|k| k == &**kind),
            None => !self.terminating,
        }
    }

    fn facts(&self) -> PodFacts<'_> {
        PodFacts {
            revision: self.revision.as_deref(),
            phase: self.phase.as_deref(),
            ready: self.ready,
            terminating: self.terminating,
            scheduled: self.scheduled,
            waiting_reason: self.waiting_reason.as_deref(),
        }
    }
}

/// An entry's [`Reading`], made on first use. It is derived from the
/// entry's object, so it takes no part in comparing entries.
#[derive(Clone, Default)]
pub struct FactsCache {
    reading: std::sync::OnceLock<Reading>,
    template_revision: std::sync::OnceLock<Option<Box<str>>>,
}

impl PartialEq for FactsCache {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl std::fmt::Debug for FactsCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FactsCache")
    }
}

impl Entry {
    fn reading(&self) -> &Reading {
        self.facts.reading.get_or_init(|| Reading::of(&self.object))
    }

    /// [`template_revision`] of this entry's object (a set), computed once
    /// per entry: waits ask it after every change.
    pub fn template_revision(&self) -> Option<&str> {
        self.facts
            .template_revision
            .get_or_init(|| template_revision(&self.object).map(Box::from))
            .as_deref()
    }

    /// [`PodFacts::of`] this entry's object, read once per entry.
    pub fn pod_facts(&self) -> PodFacts<'_> {
        self.reading().facts()
    }
}

/// A pod that exists at an instant (terminating ones included).
#[derive(Clone, Debug)]
pub struct PodNow<'t> {
    /// The latest entry of this pod.
    pub entry: &'t Entry,
    /// Ordinal parsed from the name.
    pub ordinal: Option<i32>,
    /// The name without `-<ordinal>` (the set's name for its pods).
    pub parent: Option<&'t str>,
    /// Revision label of the latest state.
    pub revision: Option<&'t str>,
    /// Ready condition True in the latest state.
    pub ready: bool,
    /// deletionTimestamp set in the latest state.
    pub terminating: bool,
    /// When the current ready interval began.
    pub ready_since: Option<Duration>,
    /// True when the pod was ready in the initial list.
    pub ready_before_start: bool,
    /// The Ready condition's lastTransitionTime and the timeline's origin,
    /// when both are known: availability is then counted the way
    /// controllers count it.
    pub ready_wall: Option<(jiff::Timestamp, jiff::Timestamp)>,
    /// When the pod was first seen.
    pub created: Duration,
    /// seq of the first entry of this pod.
    pub created_seq: u64,
}

impl PodNow<'_> {
    /// metadata.name
    pub fn name(&self) -> &str {
        &self.entry.name
    }

    /// metadata.uid
    pub fn uid(&self) -> &str {
        &self.entry.uid
    }

    /// Ready, not terminating, and ready for at least `min_ready` at `at`.
    pub fn available(&self, at: Duration, min_ready: Duration) -> bool {
        !self.terminating && self.ready_for(at, min_ready)
    }

    /// Ready for at least `min_ready` at `at`, terminating or not (how
    /// upstream's `computeReplicaStatus` counts `availableReplicas`).
    pub fn ready_for(&self, at: Duration, min_ready: Duration) -> bool {
        if !self.ready {
            return false;
        }
        if self.ready_before_start {
            return true;
        }
        if let Some((since, origin)) = self.ready_wall {
            let now = origin.checked_add(jiff::SignedDuration::try_from(at).unwrap_or_default());
            let due =
                since.checked_add(jiff::SignedDuration::try_from(min_ready).unwrap_or_default());
            if let (Ok(now), Ok(due)) = (now, due) {
                return now >= due;
            }
        }
        self.ready_since.is_some_and(|s| at >= s + min_ready)
    }
}

/// Which pods form "the set" for counting and their availability rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetScope {
    /// StatefulSet name; pods are `<set>-<ordinal>`.
    pub set: String,
    /// Desired replicas.
    pub replicas: i32,
    /// `.spec.ordinals.start` (0 by default).
    pub ordinal_start: i32,
    /// `.spec.minReadySeconds`.
    pub min_ready: Duration,
    /// An OpenKruise Advanced StatefulSet's `.spec.reserveOrdinals`: skipped,
    /// so the range runs past `start + replicas` by as many.
    pub reserved: ReservedOrdinals,
}

impl SetScope {
    /// A scope with ordinals starting at 0 and no minReadySeconds.
    pub fn new(set: &str, replicas: i32) -> SetScope {
        SetScope {
            set: set.to_string(),
            replicas,
            ordinal_start: 0,
            min_ready: Duration::ZERO,
            reserved: ReservedOrdinals::default(),
        }
    }

    /// True when `ordinal` is in `[start, start + replicas)` (reserved
    /// ordinals skipped).
    pub fn in_range(&self, ordinal: i32) -> bool {
        if self.reserved.is_empty() {
            return ordinal >= self.ordinal_start
                && i64::from(ordinal) < i64::from(self.ordinal_start) + i64::from(self.replicas);
        }
        self.ordinals().contains(&ordinal)
    }

    /// The ordinals of the replicas, in order.
    pub fn ordinals(&self) -> Vec<i32> {
        self.reserved.replicas(self.ordinal_start, self.replicas)
    }
}

/// `.spec.reserveOrdinals` of an OpenKruise Advanced StatefulSet (integers
/// and `"a-b"` ranges, read as the stand-in reads them); empty for any
/// other kind.
pub fn reserved_ordinals(set: &serde_json::Value) -> ReservedOrdinals {
    ReservedOrdinals::of(set.lookup("/spec/reserveOrdinals"))
}

/// The state of the namespace after some prefix of the timeline.
#[derive(Clone, Debug, Default)]
pub struct State<'t> {
    /// seq of the last applied entry (`None` before any).
    pub seq: Option<u64>,
    /// Time of the last applied entry.
    pub at: Duration,
    /// Existing pods by name.
    pub pods: BTreeMap<&'t str, PodNow<'t>>,
    /// Existing claims by name.
    pub claims: BTreeMap<&'t str, &'t Entry>,
    /// Existing StatefulSets by name.
    pub sets: BTreeMap<&'t str, &'t Entry>,
    /// Existing ControllerRevisions by name.
    pub revisions: BTreeMap<&'t str, &'t Entry>,
    /// Existing events by name.
    pub events: BTreeMap<&'t str, &'t Entry>,
    /// Wall-clock time of the timeline's zero, when known.
    pub origin: Option<jiff::Timestamp>,
}

impl<'t> State<'t> {
    /// The empty state.
    pub fn new() -> State<'t> {
        State::default()
    }

    /// The empty state of a timeline (with its wall-clock origin).
    pub fn of(t: &Timeline) -> State<'t> {
        State {
            origin: t.origin,
            ..State::default()
        }
    }

    /// The Ready condition's lastTransitionTime of a pod object.
    fn ready_transition(pod: &Value) -> Option<jiff::Timestamp> {
        pod.lookup("/status/conditions")
            .and_then(Value::as_array)
            .and_then(|cs| {
                cs.iter()
                    .find(|c| c.get("type").and_then(Value::as_str) == Some("Ready"))
            })
            .and_then(|c| c.get("lastTransitionTime"))
            .and_then(Value::as_str)
            .and_then(|t| t.parse::<jiff::Timestamp>().ok())
    }

    /// Applies one entry.
    pub fn apply(&mut self, e: &'t Entry) {
        self.seq = Some(e.seq);
        self.at = e.at;
        let map = match e.kind {
            Kind::Pod => return self.apply_pod(e),
            Kind::PersistentVolumeClaim => &mut self.claims,
            Kind::StatefulSet => &mut self.sets,
            Kind::ControllerRevision => &mut self.revisions,
            Kind::Event => &mut self.events,
        };
        if e.change == Change::Deleted {
            map.remove(e.name.as_str());
        } else {
            map.insert(e.name.as_str(), e);
        }
    }

    fn apply_pod(&mut self, e: &'t Entry) {
        if e.change == Change::Deleted {
            self.pods.remove(e.name.as_str());
            return;
        }
        let f = e.pod_facts();
        let prev = self
            .pods
            .get(e.name.as_str())
            .filter(|p| p.entry.uid == e.uid);
        let (created, created_seq, was_ready, since, before) = match prev {
            Some(p) => (
                p.created,
                p.created_seq,
                p.ready,
                p.ready_since,
                p.ready_before_start,
            ),
            None => (e.at, e.seq, false, None, false),
        };
        // Controllers read the Ready condition's lastTransitionTime from the
        // pod as it is now (upstream's podutil.IsPodAvailable); a write that
        // moves it (upstream's TestStatefulSetAvailable backdates it) counts
        // from then on.
        let ready_wall = match (f.ready, self.origin) {
            (true, Some(origin)) => e
                .reading()
                .ready_transition
                .map(|t| (t, origin))
                .or_else(|| prev.and_then(|p| p.ready_wall).filter(|_| was_ready)),
            _ => None,
        };
        let (ready_since, ready_before_start) = match (f.ready, was_ready) {
            (true, true) => (since, before),
            (true, false) => (Some(e.at), e.at == Duration::ZERO),
            (false, _) => (None, false),
        };
        let split = split_ordinal(&e.name);
        self.pods.insert(
            e.name.as_str(),
            PodNow {
                entry: e,
                ordinal: split.map(|(_, n)| n),
                parent: split.map(|(p, _)| p).filter(|p| {
                    let set_kind = self.sets.get(p).and_then(|s| s.object["kind"].as_str());
                    e.reading().may_belong_to(p, set_kind)
                }),
                revision: f.revision,
                ready: f.ready,
                terminating: f.terminating,
                ready_since,
                ready_before_start,
                ready_wall,
                created,
                created_seq,
            },
        );
    }

    /// Existing pods named `<set>-<ordinal>`.
    pub fn pods_of<'s, 'n>(
        &'s self,
        set: &'n str,
    ) -> impl Iterator<Item = &'s PodNow<'t>> + use<'s, 'n, 't> {
        self.pods
            .range::<str, _>((std::ops::Bound::Included(set), std::ops::Bound::Unbounded))
            .take_while(move |(n, _)| n.starts_with(set))
            .map(|(_, p)| p)
            .filter(move |p| p.parent == Some(set))
    }

    /// The existing pod of `set` with `ordinal`.
    pub fn pod_at(&self, set: &str, ordinal: i32) -> Option<&PodNow<'t>> {
        let name = format!("{set}-{ordinal}");
        match self.pods.get(name.as_str()) {
            Some(p) if p.parent == Some(set) => Some(p),
            Some(_) => None,
            // Non-canonical spellings such as `web-01`.
            None => self.pods_of(set).find(|p| p.ordinal == Some(ordinal)),
        }
    }

    /// This state judged at the present moment rather than at its last
    /// entry: what "ready for minReadySeconds" means depends on the clock,
    /// and a wait must see a pod become available although nothing was
    /// recorded since it turned ready (a controller that stopped acting, or
    /// one that never requeues). Unchanged without a wall-clock origin.
    pub fn now(mut self) -> Self {
        if let Some(origin) = self.origin {
            let elapsed = jiff::Timestamp::now().duration_since(origin).unsigned_abs();
            self.at = self.at.max(elapsed);
        }
        self
    }

    /// The scope of `base.set` as the set's spec stands in this state
    /// (replicas, `.spec.ordinals.start`, minReadySeconds), so a check over
    /// the whole history judges each moment by the spec in force then;
    /// `base` while the set has not been observed.
    pub fn scope_of(&self, base: &SetScope) -> SetScope {
        let Some(obj) = self.sets.get(base.set.as_str()).map(|e| &e.object) else {
            return base.clone();
        };
        let int = |p: &str| obj.lookup(p).and_then(serde_json::Value::as_i64);
        SetScope {
            set: base.set.clone(),
            replicas: int("/spec/replicas")
                .and_then(|v| i32::try_from(v).ok())
                .unwrap_or(base.replicas),
            ordinal_start: int("/spec/ordinals/start")
                .and_then(|v| i32::try_from(v).ok())
                .unwrap_or(0),
            min_ready: Duration::from_secs(int("/spec/minReadySeconds").unwrap_or(0).max(0) as u64),
            reserved: reserved_ordinals(obj),
        }
    }

    /// Available pods of the scope whose ordinal is in range.
    pub fn available_in(&self, scope: &SetScope) -> usize {
        self.pods_of(&scope.set)
            .filter(|p| p.ordinal.is_some_and(|o| scope.in_range(o)))
            .filter(|p| p.available(self.at, scope.min_ready))
            .count()
    }

    /// `replicas - available` over the scope's ordinal range (a missing pod
    /// is unavailable).
    pub fn unavailable_in(&self, scope: &SetScope) -> usize {
        let replicas = usize::try_from(scope.replicas).unwrap_or(0);
        replicas.saturating_sub(self.available_in(scope))
    }

    /// Names of the pods in the scope's range that are not available, and
    /// `<set>-<n> (missing)` for missing ordinals.
    pub fn unavailable_names(&self, scope: &SetScope) -> Vec<String> {
        let mut out = Vec::new();
        for o in scope.ordinals() {
            match self.pod_at(&scope.set, o) {
                Some(p) if p.available(self.at, scope.min_ready) => {}
                Some(p) => out.push(p.name().to_string()),
                None => out.push(format!("{}-{o} (missing)", scope.set)),
            }
        }
        out
    }
}

/// Folds `f` over the states of `t`: for every entry with seq >= `from_seq`,
/// `f(state_before, entry)` is called, then the entry is applied. Entries
/// before `from_seq` are applied silently. Returns the value `f` broke with.
pub fn fold<'t, R>(
    t: &'t Timeline,
    from_seq: u64,
    mut f: impl FnMut(&State<'t>, &'t Entry) -> ControlFlow<R>,
) -> Option<R> {
    let mut state = State::of(t);
    for e in t.entries() {
        if e.seq >= from_seq {
            if let ControlFlow::Break(r) = f(&state, e) {
                return Some(r);
            }
        }
        state.apply(e);
    }
    None
}

/// Like [`fold`], but `f` sees the state after the entry is applied.
pub fn scan<'t, R>(
    t: &'t Timeline,
    from_seq: u64,
    mut f: impl FnMut(&State<'t>, &'t Entry) -> ControlFlow<R>,
) -> Option<R> {
    let mut state = State::of(t);
    for e in t.entries() {
        state.apply(e);
        if e.seq >= from_seq {
            if let ControlFlow::Break(r) = f(&state, e) {
                return Some(r);
            }
        }
    }
    None
}

/// The state after applying every entry with seq < `seq`.
pub fn state_before(t: &Timeline, seq: u64) -> State<'_> {
    let mut state = State::of(t);
    for e in t.entries().iter().take_while(|e| e.seq < seq) {
        state.apply(e);
    }
    state
}

#[cfg(test)]
mod tests;
