//! Turning one kind's watch signals into timeline entries, without I/O.
//!
//! - The first complete list (Init, InitApply..., InitDone) becomes `Added`
//!   entries at time zero: those objects existed before the scenario acted.
//! - A later relist (after a watch error or expiry) is compared with what is
//!   known by name, uid and resourceVersion: unchanged objects produce
//!   nothing, changed ones `Modified`, new ones `Added`, and objects missing
//!   from the relist (or replaced by a new uid under the same name) an
//!   inferred `Deleted` carrying the last known state.
//! - Live `Apply`/`Delete` become `Added`/`Modified`/`Deleted`; an exact
//!   repeat of a known resourceVersion is dropped.

use super::timeline::{Change, Entry, Kind};
use serde_json::Value;
use std::collections::HashMap;
use std::time::Duration;

/// A watch event of one kind, with the object as JSON.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum WatchSignal {
    /// A (re)list starts.
    Init,
    /// An object of the list.
    InitApply(Value),
    /// The list is complete.
    InitDone,
    /// An object was added or modified.
    Apply(Value),
    /// An object was deleted.
    Delete(Value),
}

#[derive(Clone, Debug)]
struct Known {
    uid: String,
    rv: String,
    object: Value,
}

/// Merge state for one kind.
#[derive(Debug)]
pub(crate) struct KindMerger {
    kind: Kind,
    known: HashMap<String, Known>,
    relist: Option<Vec<Value>>,
    listed: bool,
}

fn meta<'a>(o: &'a Value, key: &str) -> &'a str {
    o.get("metadata")
        .and_then(|m| m.get(key))
        .and_then(Value::as_str)
        .unwrap_or_default()
}

impl KindMerger {
    /// A merger for `kind` that has seen nothing.
    pub(crate) fn new(kind: Kind) -> KindMerger {
        KindMerger {
            kind,
            known: HashMap::new(),
            relist: None,
            listed: false,
        }
    }

    /// True once the first complete list was observed.
    pub(crate) fn listed(&self) -> bool {
        self.listed
    }

    /// Entries (seq 0, to be assigned by the timeline) for one signal
    /// observed at `now`.
    pub(crate) fn observe(&mut self, signal: WatchSignal, now: Duration) -> Vec<Entry> {
        match signal {
            WatchSignal::Init => {
                self.relist = Some(Vec::new());
                Vec::new()
            }
            WatchSignal::InitApply(o) => {
                match &mut self.relist {
                    Some(buf) => buf.push(o),
                    None => self.relist = Some(vec![o]),
                }
                Vec::new()
            }
            WatchSignal::InitDone => {
                let listed = self.relist.take().unwrap_or_default();
                let at = if self.listed { now } else { Duration::ZERO };
                self.listed = true;
                self.reconcile(listed, at)
            }
            WatchSignal::Apply(o) => self.apply(o, now),
            WatchSignal::Delete(o) => {
                self.known.remove(meta(&o, "name"));
                vec![Entry::new(now, self.kind, Change::Deleted, o)]
            }
        }
    }

    fn inferred_deletion(&self, old: Known, at: Duration) -> Entry {
        let mut e = Entry::new(at, self.kind, Change::Deleted, old.object);
        e.inferred = true;
        e
    }

    fn apply(&mut self, o: Value, at: Duration) -> Vec<Entry> {
        let name = meta(&o, "name").to_string();
        let uid = meta(&o, "uid").to_string();
        let rv = meta(&o, "resourceVersion").to_string();
        let mut out = Vec::new();
        let change = match self.known.remove(&name) {
            Some(k) if k.uid == uid && k.rv == rv => {
                self.known.insert(name, k);
                return out;
            }
            Some(k) if k.uid == uid => Change::Modified,
            Some(k) => {
                out.push(self.inferred_deletion(k, at));
                Change::Added
            }
            None => Change::Added,
        };
        self.known.insert(
            name,
            Known {
                uid,
                rv,
                object: o.clone(),
            },
        );
        out.push(Entry::new(at, self.kind, change, o));
        out
    }

    fn reconcile(&mut self, listed: Vec<Value>, at: Duration) -> Vec<Entry> {
        let mut out = Vec::new();
        let mut seen: HashMap<String, ()> = HashMap::with_capacity(listed.len());
        for o in listed {
            seen.insert(meta(&o, "name").to_string(), ());
            out.extend(self.apply(o, at));
        }
        let mut missing: Vec<String> = self
            .known
            .keys()
            .filter(|n| !seen.contains_key(*n))
            .cloned()
            .collect();
        missing.sort();
        for name in missing {
            if let Some(k) = self.known.remove(&name) {
                out.push(self.inferred_deletion(k, at));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(name: &str, uid: &str, rv: &str) -> Value {
        json!({"metadata": {"name": name, "uid": uid, "resourceVersion": rv}})
    }

    fn summary(es: &[Entry]) -> Vec<String> {
        es.iter()
            .map(|e| {
                format!(
                    "{} {} {}{}",
                    e.change.word(),
                    e.name,
                    e.resource_version,
                    if e.inferred { " inferred" } else { "" }
                )
            })
            .collect()
    }

    fn list(m: &mut KindMerger, objs: Vec<Value>, now: Duration) -> Vec<Entry> {
        let mut out = m.observe(WatchSignal::Init, now);
        for o in objs {
            out.extend(m.observe(WatchSignal::InitApply(o), now));
        }
        out.extend(m.observe(WatchSignal::InitDone, now));
        out
    }

    #[test]
    fn initial_list_is_added_at_zero() {
        let mut m = KindMerger::new(Kind::Pod);
        let es = list(&mut m, vec![obj("a", "1", "5")], Duration::from_secs(3));
        assert_eq!(summary(&es), ["ADDED a 5"]);
        assert_eq!(es[0].at, Duration::ZERO);
        assert!(m.listed());
    }

    #[test]
    fn relist_with_no_changes_records_nothing() {
        let mut m = KindMerger::new(Kind::Pod);
        list(
            &mut m,
            vec![obj("a", "1", "5"), obj("b", "2", "6")],
            Duration::ZERO,
        );
        let es = list(
            &mut m,
            vec![obj("a", "1", "5"), obj("b", "2", "6")],
            Duration::from_secs(1),
        );
        assert!(es.is_empty(), "{:?}", summary(&es));
    }

    #[test]
    fn relist_records_changes_and_infers_deletions() {
        let mut m = KindMerger::new(Kind::Pod);
        list(
            &mut m,
            vec![obj("a", "1", "5"), obj("b", "2", "6"), obj("c", "3", "7")],
            Duration::ZERO,
        );
        let es = list(
            &mut m,
            vec![obj("a", "1", "9"), obj("b", "4", "10"), obj("d", "5", "11")],
            Duration::from_secs(2),
        );
        assert_eq!(
            summary(&es),
            [
                "MODIFIED a 9",
                "DELETED b 6 inferred",
                "ADDED b 10",
                "ADDED d 11",
                "DELETED c 7 inferred"
            ]
        );
        assert!(es.iter().all(|e| e.at == Duration::from_secs(2)));
    }

    #[test]
    fn live_events_and_duplicates() {
        let mut m = KindMerger::new(Kind::Pod);
        list(&mut m, vec![], Duration::ZERO);
        let t = Duration::from_secs(1);
        let mut es = m.observe(WatchSignal::Apply(obj("a", "1", "5")), t);
        es.extend(m.observe(WatchSignal::Apply(obj("a", "1", "5")), t));
        es.extend(m.observe(WatchSignal::Apply(obj("a", "1", "6")), t));
        es.extend(m.observe(WatchSignal::Delete(obj("a", "1", "7")), t));
        es.extend(m.observe(WatchSignal::Apply(obj("a", "2", "8")), t));
        assert_eq!(
            summary(&es),
            ["ADDED a 5", "MODIFIED a 6", "DELETED a 7", "ADDED a 8"]
        );
    }
}
