//! Freshness of the controller's caches (the KEP-5647 rule): each watch
//! tracks the newest resourceVersion it delivered against the newest one
//! the controller's own writes produced, and a sync of a set waits until
//! every cache has seen what the set's last sync wrote, or reads
//! consistently once it has waited [`STALE_LIMIT`].

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use super::execute::Freshness;

/// How far one watch has caught up with the controller's own writes.
#[derive(Debug, Default)]
pub(crate) struct Track {
    /// Newest resourceVersion the watch delivered.
    pub seen: AtomicU64,
    /// Newest resourceVersion the controller's own writes produced.
    pub written: AtomicU64,
    /// `written` when the current relist began.
    relist_floor: AtomicU64,
}

/// What a watch reports to its [`Track`].
#[derive(Clone, Copy, Debug)]
pub(crate) enum Observation {
    /// An object at this resourceVersion.
    Object(u64),
    /// A (re)list began (after a 410 Gone, a dropped watch, or at start).
    RelistStarted,
    /// The list is complete: the cache reflects every write made before it
    /// began, even writes whose objects are gone (their Deleted events were
    /// never delivered).
    RelistDone,
}

impl Track {
    /// Takes in what the watch reported.
    pub(crate) fn observe(&self, o: Observation) {
        match o {
            Observation::Object(rv) => {
                self.seen.fetch_max(rv, Ordering::SeqCst);
            }
            Observation::RelistStarted => {
                self.relist_floor
                    .store(self.written.load(Ordering::SeqCst), Ordering::SeqCst);
            }
            Observation::RelistDone => {
                self.seen
                    .fetch_max(self.relist_floor.load(Ordering::SeqCst), Ordering::SeqCst);
            }
        }
    }

    /// Whether the watch has delivered resourceVersion `expected` or later.
    pub(crate) fn caught_up(&self, expected: u64) -> bool {
        self.seen.load(Ordering::SeqCst) >= expected
    }
}

/// One watch against the newest write of the controller's it must have
/// seen, for a log line: `seen 41 of 42`, or `caught up (42)`.
pub(crate) fn lag(track: &Track, expected: u64) -> String {
    let seen = track.seen.load(Ordering::SeqCst);
    if track.caught_up(expected) {
        format!("caught up ({seen})")
    } else {
        format!("seen {seen} of {expected}")
    }
}

/// The newest resourceVersion each watch has delivered.
#[derive(Debug, Default)]
pub(crate) struct Seen {
    /// The sets' watch.
    pub sets: Track,
    /// The pods' watch.
    pub pods: Track,
    /// The revisions' watch.
    pub revisions: Track,
}

/// How long a sync waits for its caches before reading consistently
/// instead: against a watch that lags, or can never deliver what was
/// expected.
pub(crate) const STALE_LIMIT: Duration = Duration::from_secs(5);

/// How current the caches are for one set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CacheState {
    /// Every cache has seen what the last sync of the set wrote.
    Fresh,
    /// Some cache has not yet: skip the sync, the watch event will queue it.
    Behind,
    /// Some cache has been behind for longer than [`STALE_LIMIT`]: read
    /// consistently from the apiserver instead of waiting longer.
    Overdue,
}

/// Whether every cache has caught up with what the last sync of a set
/// wrote (`expected`, and since when it is expected), as of `now`. The set
/// handed to the sync must itself be at least as new as the last write to
/// it (`set_rv`): the sets' watch may have delivered that write while the
/// object the sync was given still predates it, and a status computed from
/// it would take back what the write recorded (a promoted currentRevision).
pub(crate) fn cache_state(
    seen: &Seen,
    expected: Option<(Freshness, Instant)>,
    set_rv: Option<u64>,
    now: Instant,
) -> CacheState {
    match expected {
        None => CacheState::Fresh,
        Some((f, since)) => {
            let caught_up = seen.pods.caught_up(f.pods)
                && seen.sets.caught_up(f.sets)
                && set_rv.is_none_or(|rv| rv >= f.sets)
                && seen.revisions.caught_up(f.revisions);
            if caught_up {
                CacheState::Fresh
            } else if now.saturating_duration_since(since) > STALE_LIMIT {
                CacheState::Overdue
            } else {
                CacheState::Behind
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_relist_catches_up_with_writes_made_before_it_began() {
        let t = Track::default();
        t.written.store(50, Ordering::SeqCst);
        t.observe(Observation::Object(40));
        assert!(!t.caught_up(50), "the write at 50 has not been seen");
        // The watch is closed with 410; the deleted object never shows up again.
        t.observe(Observation::RelistStarted);
        t.observe(Observation::Object(45));
        assert!(!t.caught_up(50));
        t.observe(Observation::RelistDone);
        assert!(t.caught_up(50), "a list begun after the write reflects it");
        // A write made during the relist is not covered by it.
        t.written.store(60, Ordering::SeqCst);
        assert!(!t.caught_up(60));
    }

    #[test]
    fn a_cache_behind_for_too_long_is_overdue() {
        let seen = Seen::default();
        seen.pods.observe(Observation::Object(10));
        let f = Freshness {
            pods: 10,
            ..Freshness::default()
        };
        let t0 = Instant::now();
        assert_eq!(cache_state(&seen, None, None, t0), CacheState::Fresh);
        assert_eq!(
            cache_state(&seen, Some((f, t0)), None, t0),
            CacheState::Fresh
        );
        let ahead = Freshness { pods: 11, ..f };
        assert_eq!(
            cache_state(&seen, Some((ahead, t0)), None, t0),
            CacheState::Behind
        );
        let later = t0 + STALE_LIMIT + Duration::from_millis(1);
        assert_eq!(
            cache_state(&seen, Some((ahead, t0)), None, later),
            CacheState::Overdue
        );
    }

    #[test]
    fn a_set_older_than_the_last_write_to_it_is_behind() {
        let seen = Seen::default();
        seen.sets.observe(Observation::Object(20));
        let f = Freshness {
            sets: 20,
            ..Freshness::default()
        };
        let t0 = Instant::now();
        // The watch delivered the write at 20, but the object handed to the
        // sync is the one at 18.
        assert_eq!(
            cache_state(&seen, Some((f, t0)), Some(18), t0),
            CacheState::Behind
        );
        assert_eq!(
            cache_state(&seen, Some((f, t0)), Some(20), t0),
            CacheState::Fresh
        );
        let later = t0 + STALE_LIMIT + Duration::from_millis(1);
        assert_eq!(
            cache_state(&seen, Some((f, t0)), Some(18), later),
            CacheState::Overdue
        );
    }
}
