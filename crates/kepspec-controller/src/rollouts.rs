//! What the controller remembers of each set's rollouts, for the metrics of
//! the KEP-3541 draft ("Monitoring Requirements"): when a rollout to a new
//! revision began, whether it completed or was superseded, and whether the
//! draft's safety halt stopped it. Pure: syncs in, ended rollouts out.
//!
//! A rollout begins when the update revision changes (a rollback to an
//! earlier template included), or, on the first sync of a set, if its
//! update revision differs from its current one; it completes when every
//! replica runs the update revision ready and the current revision is
//! promoted, and is superseded when the update revision changes first. A
//! new set's first pods are no rollout. A restarted controller starts from
//! what it sees.

use std::collections::HashMap;
use std::time::{Duration, Instant};

/// What one sync tells the tracker about a set.
#[derive(Clone, Debug)]
pub struct Seen<'a> {
    /// `spec.updateStrategy.type` as stored (RollingUpdate when unset).
    pub strategy: &'a str,
    /// The status's update revision after the sync.
    pub update_revision: &'a str,
    /// The status's current revision after the sync.
    pub current_revision: &'a str,
    /// Every replica exists, is ready and runs the update revision.
    pub settled: bool,
    /// Whether the draft's safety halt holds the rollout in this sync.
    pub halted: bool,
    /// When the sync happened.
    pub now: Instant,
}

/// A rollout that ended, or a safety halt first seen.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Ended {
    /// Every replica reached the update revision, after this long.
    Completed {
        /// The strategy it ran under.
        strategy: String,
        /// From the first sync that saw it to the one that completed it.
        took: Duration,
    },
    /// Another revision replaced it before it completed.
    Superseded {
        /// The strategy it ran under.
        strategy: String,
    },
    /// The safety halt stopped it (reported once per rollout).
    Halted,
}

#[derive(Clone, Debug)]
struct Tracked {
    revision: String,
    strategy: String,
    started: Option<Instant>,
    halted: bool,
}

/// The rollouts of every set the controller syncs, by (namespace, name).
#[derive(Debug, Default)]
pub(crate) struct Rollouts {
    sets: HashMap<(String, String), Tracked>,
}

impl Rollouts {
    /// Records one sync of `key`; returns what ended with it.
    pub(crate) fn observe(&mut self, key: (String, String), seen: &Seen<'_>) -> Vec<Ended> {
        let mut out = Vec::new();
        let fresh = |started: bool| Tracked {
            revision: seen.update_revision.to_string(),
            strategy: seen.strategy.to_string(),
            started: started.then_some(seen.now),
            halted: false,
        };
        let tracked = self
            .sets
            .entry(key)
            .or_insert_with(|| fresh(seen.update_revision != seen.current_revision));
        if tracked.revision != seen.update_revision {
            if tracked.started.is_some() {
                out.push(Ended::Superseded {
                    strategy: tracked.strategy.clone(),
                });
            }
            *tracked = fresh(true);
        }
        tracked.strategy = seen.strategy.to_string();
        let complete = seen.settled && seen.update_revision == seen.current_revision;
        if let Some(started) = tracked.started.filter(|_| complete) {
            out.push(Ended::Completed {
                strategy: tracked.strategy.clone(),
                took: seen.now.saturating_duration_since(started),
            });
            tracked.started = None;
        }
        if seen.halted && tracked.started.is_some() && !tracked.halted {
            tracked.halted = true;
            out.push(Ended::Halted);
        }
        out
    }

    /// Forgets a deleted set.
    pub(crate) fn forget(&mut self, key: &(String, String)) {
        self.sets.remove(key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seen<'a>(update: &'a str, current: &'a str, halted: bool, now: Instant) -> Seen<'a> {
        Seen {
            strategy: "EnforcedRollingUpdate",
            update_revision: update,
            current_revision: current,
            settled: update == current,
            halted,
            now,
        }
    }

    #[test]
    fn a_rollout_completes_or_is_superseded_and_a_halt_counts_once() {
        let t0 = Instant::now();
        let at = |s: u64| t0 + Duration::from_secs(s);
        let key = || ("ns".to_string(), "web".to_string());
        let mut r = Rollouts::default();
        // A new set: nothing to roll out.
        assert!(r.observe(key(), &seen("a", "a", false, at(0))).is_empty());
        // Revision b begins, halts twice (counted once), then c supersedes it.
        assert!(r.observe(key(), &seen("b", "a", false, at(1))).is_empty());
        assert_eq!(
            r.observe(key(), &seen("b", "a", true, at(2))),
            vec![Ended::Halted]
        );
        assert!(r.observe(key(), &seen("b", "a", true, at(3))).is_empty());
        assert_eq!(
            r.observe(key(), &seen("c", "a", false, at(4))),
            vec![Ended::Superseded {
                strategy: "EnforcedRollingUpdate".into()
            }]
        );
        // c completes 6 seconds after it was first seen.
        assert_eq!(
            r.observe(key(), &seen("c", "c", false, at(10))),
            vec![Ended::Completed {
                strategy: "EnforcedRollingUpdate".into(),
                took: Duration::from_secs(6)
            }]
        );
        assert!(r.observe(key(), &seen("c", "c", false, at(11))).is_empty());
        // A rollback to a: a rollout although the current revision is a,
        // complete once every replica is back and ready.
        let mut back = seen("a", "a", false, at(12));
        back.settled = false;
        assert!(r.observe(key(), &back).is_empty());
        assert_eq!(
            r.observe(key(), &seen("a", "a", false, at(14))),
            vec![Ended::Completed {
                strategy: "EnforcedRollingUpdate".into(),
                took: Duration::from_secs(2)
            }]
        );
        r.forget(&key());
        assert!(r.sets.is_empty());
    }
}
