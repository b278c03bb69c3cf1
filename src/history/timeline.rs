//! The timeline: every observed state of every watched object of one
//! scenario, in one order.
//!
//! Entries are appended in arrival order. While every resourceVersion seen so
//! far is a decimal number, the timeline keeps entries sorted by
//! resourceVersion instead, so that the relative order of changes to
//! different kinds (a pod deletion vs. the StatefulSet status update) is the
//! order in which the API server committed them, not the order in which
//! independent watch streams happened to deliver them.
//!
//! That is exact for the embedded cluster, which has a single resourceVersion
//! counter. On a real cluster resourceVersions are opaque by contract; in
//! practice they are etcd revisions, which are one counter per etcd cluster,
//! so the order is still exact unless a kind is stored in a separate etcd
//! (for example events with `--etcd-servers-overrides`). Use
//! [`Ordering::Arrival`] for such clusters. As soon as a non-numeric
//! resourceVersion arrives, the timeline falls back to arrival order for every
//! later entry.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;

/// The kinds of objects a scenario records.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Kind {
    /// core/v1 Pod
    Pod,
    /// core/v1 PersistentVolumeClaim
    PersistentVolumeClaim,
    /// apps/v1 StatefulSet (or the vendor kind the recorder was given)
    StatefulSet,
    /// apps/v1 ControllerRevision
    ControllerRevision,
    /// core/v1 Event
    Event,
}

impl Kind {
    /// The lowercase word used in rendered timeline lines.
    pub fn word(self) -> &'static str {
        match self {
            Kind::Pod => "pod",
            Kind::PersistentVolumeClaim => "pvc",
            Kind::StatefulSet => "statefulset",
            Kind::ControllerRevision => "controllerrevision",
            Kind::Event => "event",
        }
    }

    /// The API's `kind` (as in an ownerReference).
    pub fn api_kind(self) -> &'static str {
        match self {
            Kind::Pod => "Pod",
            Kind::PersistentVolumeClaim => "PersistentVolumeClaim",
            Kind::StatefulSet => "StatefulSet",
            Kind::ControllerRevision => "ControllerRevision",
            Kind::Event => "Event",
        }
    }
}

/// What happened to the object in an entry, as a watch reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Change {
    /// The object appeared (created, or present in the initial list).
    Added,
    /// The object changed.
    Modified,
    /// The object was removed from the API.
    Deleted,
}

impl Change {
    /// The upper-case watch event type (`ADDED`, `MODIFIED`, `DELETED`).
    pub fn word(self) -> &'static str {
        match self {
            Change::Added => "ADDED",
            Change::Modified => "MODIFIED",
            Change::Deleted => "DELETED",
        }
    }
}

/// One observed state of one object.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// Position in the timeline (0-based, dense).
    pub seq: u64,
    /// Time since the scenario started (the recorder's start); entries from
    /// the initial list are at zero.
    pub at: Duration,
    /// Kind of the object.
    pub kind: Kind,
    /// Kind of change.
    pub change: Change,
    /// metadata.name
    pub name: String,
    /// metadata.uid
    pub uid: String,
    /// metadata.resourceVersion of this state.
    pub resource_version: String,
    /// The full object as observed, shared by every copy of the timeline
    /// (a check's copy costs no object's copy).
    pub object: Arc<Value>,
    /// True for a `Deleted` entry the recorder inferred because the object
    /// was missing from a relist (the watch missed the real deletion).
    #[serde(default)]
    pub inferred: bool,
    /// A pod's facts, read from `object` the first time they are asked for
    /// ([`Entry::pod_facts`]): waits judge the whole timeline after every
    /// change, so each state is read once instead of once per judgement.
    #[serde(skip)]
    pub(crate) facts: super::views::FactsCache,
}

impl Entry {
    /// An entry with `seq` 0 (the timeline assigns the real one) built from
    /// an object's metadata.
    pub fn new(at: Duration, kind: Kind, change: Change, object: Value) -> Entry {
        let meta = |k: &str| {
            object
                .get("metadata")
                .and_then(|m| m.get(k))
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        };
        Entry {
            seq: 0,
            at,
            kind,
            change,
            name: meta("name"),
            uid: meta("uid"),
            resource_version: meta("resourceVersion"),
            object: Arc::new(object),
            inferred: false,
            facts: Default::default(),
        }
    }

    /// The resourceVersion as a number, when it is one.
    pub fn rv_number(&self) -> Option<u64> {
        self.resource_version.parse().ok()
    }
}

/// How entries are ordered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum Ordering {
    /// Sorted by numeric resourceVersion while all are numeric (default).
    #[default]
    ResourceVersion,
    /// Strictly by arrival.
    Arrival,
}

/// An append-only, ordered list of entries.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Timeline {
    entries: Vec<Entry>,
    ordering: Ordering,
    /// True while every entry so far had a numeric resourceVersion.
    numeric: bool,
    /// Entries before this index are never reordered (they precede an
    /// inferred deletion, which is placed by arrival).
    #[serde(default)]
    sorted_from: usize,
    /// Wall-clock time of `at` zero (set by the recorder), so timestamps
    /// written by the cluster can be placed on the timeline.
    #[serde(default)]
    pub origin: Option<jiff::Timestamp>,
}

impl Timeline {
    /// An empty timeline ordered by resourceVersion.
    pub fn new() -> Timeline {
        Timeline::with_ordering(Ordering::ResourceVersion)
    }

    /// An empty timeline with the given ordering.
    pub fn with_ordering(ordering: Ordering) -> Timeline {
        Timeline {
            entries: Vec::new(),
            ordering,
            numeric: true,
            sorted_from: 0,
            origin: None,
        }
    }

    /// A timeline ordered by resourceVersion holding `entries` (pushed in
    /// the given order; seqs are reassigned).
    pub fn from_entries(entries: impl IntoIterator<Item = Entry>) -> Timeline {
        let mut t = Timeline::new();
        for e in entries {
            t.push(e);
        }
        t
    }

    /// Adds an entry and returns its seq. Under [`Ordering::ResourceVersion`]
    /// an entry whose resourceVersion is lower than the last one is placed
    /// before the first entry with a higher resourceVersion and the seqs of
    /// the following entries shift by one. `at` is clamped between the
    /// neighbours' times so that times never decrease along the order. Inferred deletions are always
    /// appended.
    pub fn push(&mut self, mut entry: Entry) -> u64 {
        let rv = entry.rv_number();
        if rv.is_none() && !entry.inferred {
            self.numeric = false;
        }
        let mut pos = self.entries.len();
        if self.ordering == Ordering::ResourceVersion && self.numeric && !entry.inferred {
            if let Some(rv) = rv {
                // Entries after an inferred deletion keep arrival order with
                // respect to it; search only the sorted tail after it.
                let floor = self.sorted_from.min(self.entries.len());
                let tail = &self.entries[floor..];
                let idx = tail.partition_point(|e| e.rv_number().is_none_or(|r| r <= rv));
                pos = floor + idx;
            }
        }
        // Keep times non-decreasing along the order.
        if let Some(prev) = pos.checked_sub(1).and_then(|p| self.entries.get(p)) {
            entry.at = entry.at.max(prev.at);
        }
        if let Some(next) = self.entries.get(pos) {
            entry.at = entry.at.min(next.at);
        }
        if entry.inferred {
            self.sorted_from = self.entries.len() + 1;
        }
        if pos < self.entries.len() {
            self.entries.insert(pos, entry);
            for (i, e) in self.entries.iter_mut().enumerate().skip(pos) {
                e.seq = i as u64;
            }
        } else {
            entry.seq = pos as u64;
            self.entries.push(entry);
        }
        pos as u64
    }

    /// All entries in order.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entry with the given seq.
    pub fn get(&self, seq: u64) -> Option<&Entry> {
        self.entries.get(usize::try_from(seq).ok()?)
    }

    /// The last entry.
    pub fn last(&self) -> Option<&Entry> {
        self.entries.last()
    }

    /// The position of the first entry that happened after the cluster was
    /// at resourceVersion `rv` (everything before it has a resourceVersion of
    /// at most `rv`), or `fallback` when the timeline is not ordered by
    /// numeric resourceVersions. Positions shift as late entries are placed
    /// in resourceVersion order; a resourceVersion does not, so a window
    /// that starts "now" is remembered as one and resolved when it is judged.
    pub fn seq_after_rv(&self, rv: u64, fallback: u64) -> u64 {
        if self.ordering != Ordering::ResourceVersion || !self.numeric {
            return fallback;
        }
        self.entries
            .iter()
            .position(|e| {
                if e.inferred {
                    // Placed by arrival: after the mark only if it arrived after it.
                    e.seq >= fallback
                } else {
                    e.rv_number().is_some_and(|r| r > rv)
                }
            })
            .unwrap_or(self.entries.len()) as u64
    }

    /// Drops the entries that happened after the cluster was at
    /// resourceVersion `rv` (a timeline not ordered by numeric
    /// resourceVersions keeps them all: it has no such order to cut). What
    /// is left is the history up to a moment every kind's watch had
    /// delivered ([`super::Recorder::catch_up`]).
    pub fn cut_after_rv(&mut self, rv: u64) {
        let keep = self.seq_after_rv(rv, self.next_seq());
        self.entries
            .truncate(usize::try_from(keep).unwrap_or(usize::MAX));
    }

    /// The first of `versions` (object and resourceVersion) the timeline
    /// has not seen at that resourceVersion or a later one, described.
    pub fn missing(
        &self,
        versions: &std::collections::BTreeMap<(Kind, String), u64>,
    ) -> Option<String> {
        versions.iter().find_map(|((kind, name), rv)| {
            let seen = self.entries.iter().any(|e| {
                e.kind == *kind && e.name == *name && e.rv_number().is_none_or(|r| r >= *rv)
            });
            (!seen).then(|| {
                format!(
                    "the recorder has not yet seen {} {name} at resourceVersion {rv}",
                    kind.word()
                )
            })
        })
    }

    /// The seq the next appended entry would get.
    pub fn next_seq(&self) -> u64 {
        self.entries.len() as u64
    }

    /// The ordering in use.
    pub fn ordering(&self) -> Ordering {
        self.ordering
    }

    /// Entries of one kind.
    pub fn of_kind(&self, kind: Kind) -> impl Iterator<Item = &Entry> {
        self.entries.iter().filter(move |e| e.kind == kind)
    }

    /// Entries about the object with this kind and name.
    pub fn of_object<'a>(&'a self, kind: Kind, name: &'a str) -> impl Iterator<Item = &'a Entry> {
        self.entries
            .iter()
            .filter(move |e| e.kind == kind && e.name == name)
    }

    /// The latest entry for each object of a kind that is not deleted at the
    /// end of the timeline, keyed by name.
    pub fn current(&self, kind: Kind) -> std::collections::BTreeMap<&str, &Entry> {
        let mut out = std::collections::BTreeMap::new();
        for e in self.of_kind(kind) {
            if e.change == Change::Deleted {
                out.remove(e.name.as_str());
            } else {
                out.insert(e.name.as_str(), e);
            }
        }
        out
    }

    /// The time of the last entry (zero when empty).
    pub fn end(&self) -> Duration {
        self.entries.last().map_or(Duration::ZERO, |e| e.at)
    }

    /// A human-readable line for an entry, e.g.
    /// `+1.234s pod web-1 MODIFIED rv=42 rev=web-7c9 Running ready terminating`.
    pub fn render_line(entry: &Entry) -> String {
        super::render::RenderedLine(entry).to_string()
    }

    /// Rendered lines for the entries with seq in `[from, to]`, the entry
    /// `mark` prefixed with `>`, others with a space.
    pub fn excerpt(&self, from: u64, to: u64, mark: u64) -> Vec<String> {
        let len = self.entries.len() as u64;
        if len == 0 {
            return Vec::new();
        }
        let to = to.min(len - 1);
        (from..=to)
            .filter_map(|s| self.get(s))
            .map(|e| {
                let m = if e.seq == mark { '>' } else { ' ' };
                format!("{m} #{} {}", e.seq, Self::render_line(e))
            })
            .collect()
    }

    /// About six lines around `seq`: three before, the entry, two after.
    pub fn excerpt_around(&self, seq: u64) -> Vec<String> {
        self.excerpt(seq.saturating_sub(3), seq.saturating_add(2), seq)
    }
}

#[cfg(test)]
mod tests;
