//! Per-pod lives and per-instant counts derived from a timeline.

use super::timeline::{Change, Kind, Timeline};
use super::views::{split_ordinal, SetScope, State};
use std::collections::BTreeMap;
use std::time::Duration;

/// One pod object's life (one uid) from first sight to deletion.
#[derive(Clone, Debug, PartialEq)]
pub struct PodLife {
    /// metadata.name
    pub name: String,
    /// Ordinal parsed from the name.
    pub ordinal: Option<i32>,
    /// metadata.uid
    pub uid: String,
    /// The latest revision label seen.
    pub revision: Option<String>,
    /// First seen.
    pub created: Duration,
    /// First seen bound to a node.
    pub scheduled: Option<Duration>,
    /// Ready intervals, the last one open (`None`) if still ready.
    pub ready: Vec<(Duration, Option<Duration>)>,
    /// First seen with a deletionTimestamp.
    pub terminating: Option<Duration>,
    /// Deleted entry time.
    pub gone: Option<Duration>,
    /// True when the deletion was inferred from a relist.
    pub gone_inferred: bool,
    /// seq of the first entry.
    pub first_seq: u64,
    /// seq of the last entry.
    pub last_seq: u64,
}

/// Every pod life in the timeline, ordered by first appearance.
pub fn pod_lives(t: &Timeline) -> Vec<PodLife> {
    let mut lives: Vec<PodLife> = Vec::new();
    let mut by_uid: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for e in t.of_kind(Kind::Pod) {
        let f = e.pod_facts();
        let idx = *by_uid.entry(e.uid.as_str()).or_insert_with(|| {
            lives.push(PodLife {
                name: e.name.clone(),
                ordinal: split_ordinal(&e.name).map(|(_, n)| n),
                uid: e.uid.clone(),
                revision: None,
                created: e.at,
                scheduled: None,
                ready: Vec::new(),
                terminating: None,
                gone: None,
                gone_inferred: false,
                first_seq: e.seq,
                last_seq: e.seq,
            });
            lives.len() - 1
        });
        let life = &mut lives[idx];
        life.last_seq = e.seq;
        if let Some(r) = f.revision {
            if life.revision.as_deref() != Some(r) {
                life.revision = Some(r.to_string());
            }
        }
        if f.scheduled && life.scheduled.is_none() {
            life.scheduled = Some(e.at);
        }
        if f.terminating && life.terminating.is_none() {
            life.terminating = Some(e.at);
        }
        let open = life.ready.last().is_some_and(|(_, end)| end.is_none());
        let ready_now = f.ready && e.change != Change::Deleted;
        if ready_now && !open {
            life.ready.push((e.at, None));
        } else if !ready_now && open {
            if let Some(last) = life.ready.last_mut() {
                last.1 = Some(e.at);
            }
        }
        if e.change == Change::Deleted {
            life.gone = Some(e.at);
            life.gone_inferred = e.inferred;
        }
    }
    lives
}

/// Counts of the scope's pods after one entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instant {
    /// seq of the entry.
    pub seq: u64,
    /// Time of the entry.
    pub at: Duration,
    /// Existing pods of the set (terminating included, any ordinal).
    pub alive: usize,
    /// Ready and not terminating.
    pub ready: usize,
    /// Terminating.
    pub terminating: usize,
    /// Available among the ordinals in range.
    pub available: usize,
    /// `replicas - available` among the ordinals in range.
    pub unavailable: usize,
    /// Existing pods per revision label (`""` for none).
    pub by_revision: BTreeMap<String, usize>,
}

/// One [`Instant`] per entry of the timeline (the state after the entry).
pub fn instants(t: &Timeline, scope: &SetScope) -> Vec<Instant> {
    let mut state = State::of(t);
    let mut out = Vec::with_capacity(t.len());
    for e in t.entries() {
        state.apply(e);
        let mut inst = Instant {
            seq: e.seq,
            at: e.at,
            alive: 0,
            ready: 0,
            terminating: 0,
            available: state.available_in(scope),
            unavailable: state.unavailable_in(scope),
            by_revision: BTreeMap::new(),
        };
        for p in state.pods_of(&scope.set) {
            inst.alive += 1;
            inst.ready += usize::from(p.ready && !p.terminating);
            inst.terminating += usize::from(p.terminating);
            *inst
                .by_revision
                .entry(p.revision.unwrap_or_default().to_string())
                .or_default() += 1;
        }
        out.push(inst);
    }
    out
}
