//! Stale views: one client is served the cluster as it was some time ago,
//! the way a lagging watch cache serves it (an apiserver replica that fell
//! behind, a slow informer). For as long as the view is installed, that
//! client's watches deliver each change only once it is older than the lag,
//! and its reads that allow cached data (`resourceVersion=0`, or
//! `resourceVersionMatch=NotOlderThan`) are answered from the lagging state.
//! Reads without a resourceVersion stay consistent, as kube-apiserver serves
//! them from etcd (or a consistent cache read): that is how a client can
//! escape a stale cache. When the view's time is up, the held changes flow
//! and the client is current again.
//!
//! The lag is counted in resource versions (the view trails the newest
//! committed resourceVersion by N, so a quiet cluster keeps it frozen), in
//! time (the view shows what was committed at least D ago), or the view is
//! frozen at one resourceVersion (a cache that stopped).

use std::time::{Duration, Instant};

use super::store::Store;

/// How far behind a stale view trails.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lag {
    /// This many resource versions behind the newest committed one.
    Versions(u64),
    /// Changes appear this long after they were committed.
    Time(Duration),
    /// Frozen at this resourceVersion: nothing later shows until the end.
    At(u64),
}

/// A stale view for the clients whose user agent contains a string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StaleView {
    /// User-Agent substring of the clients served stale.
    pub user_agent_contains: String,
    /// The one resource (plural, e.g. `pods`) served stale, or every
    /// resource: one informer of a client can lag while its others are
    /// current.
    pub resource: Option<String>,
    /// How far behind.
    pub lag: Lag,
    /// When the view ends and the client is current again.
    pub until: Instant,
}

impl StaleView {
    /// Whether the view is still in force at `now`.
    pub fn active(&self, now: Instant) -> bool {
        now < self.until
    }

    /// Whether it applies to a client's reads of a resource (plural).
    pub fn serves(&self, user_agent: &str, resource: &str) -> bool {
        user_agent.contains(self.user_agent_contains.as_str())
            && self.resource.as_deref().is_none_or(|r| r == resource)
    }

    /// The resourceVersion the client sees now.
    pub fn view(&self, store: &Store, now: Instant) -> u64 {
        match self.lag {
            Lag::Versions(n) => store.resource_version().saturating_sub(n),
            Lag::Time(d) => match now.checked_sub(d) {
                Some(then) => store.resource_version_at(then),
                None => store.resource_version_at(now),
            },
            Lag::At(rv) => rv.min(store.resource_version()),
        }
    }

    /// When a change committed at `at` becomes visible, given the view
    /// stays in force: at the end of the view for a version lag (or
    /// earlier, when enough later changes are committed, which wakes
    /// the watcher anyway), after the lag for a time lag.
    pub fn visible_at(&self, committed: Instant) -> Instant {
        match self.lag {
            Lag::Versions(_) | Lag::At(_) => self.until,
            Lag::Time(d) => (committed + d).min(self.until),
        }
    }
}

/// Whether a read may be answered from a lagging cache, as kube-apiserver
/// decides it: any `resourceVersion` with no match or a `NotOlderThan`
/// match ("0" being the common case). Returns the resourceVersion the
/// answer must be at least as new as. An unset resourceVersion asks for a
/// consistent read; an `Exact` one for that very version.
pub fn cacheable_read(resource_version: &str, version_match: &str) -> Option<u64> {
    match version_match {
        "" | "NotOlderThan" => resource_version.parse().ok(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{Gr, ObjKey};
    use serde_json::json;

    fn store_with(n: u64) -> Store {
        let s = Store::new(100);
        let gr = Gr::new("", "pods");
        for i in 0..n {
            let name = format!("p{i}");
            s.transact(|t| {
                t.create(
                    &ObjKey::new(&gr, "d", &name),
                    json!({"metadata": {"name": name}}),
                )
            });
        }
        s
    }

    #[test]
    fn a_view_of_one_resource_serves_only_that_resource() {
        let v = StaleView {
            user_agent_contains: "ctl".into(),
            resource: Some("pods".into()),
            lag: Lag::Versions(1),
            until: Instant::now() + Duration::from_secs(1),
        };
        assert!(v.serves("ctl/1", "pods"));
        assert!(!v.serves("ctl/1", "statefulsets"));
        assert!(!v.serves("kube-rs/1", "pods"));
        let every = StaleView {
            resource: None,
            ..v
        };
        assert!(every.serves("ctl/1", "statefulsets"));
    }

    #[test]
    fn a_version_lag_trails_the_newest_resource_version() {
        let s = store_with(5); // resourceVersions 2..=6
        let now = Instant::now();
        let v = StaleView {
            user_agent_contains: "ctl".into(),
            resource: None,
            lag: Lag::Versions(3),
            until: now + Duration::from_secs(1),
        };
        assert_eq!(v.view(&s, now), 3);
        assert!(v.active(now));
        assert!(!v.active(now + Duration::from_secs(1)));
        assert!(v.serves("kepspec-ctl/1", "pods") && !v.serves("kube-rs/5", "pods"));
        assert_eq!(v.visible_at(now), v.until);
        let frozen = StaleView {
            lag: Lag::At(4),
            ..v.clone()
        };
        assert_eq!(frozen.view(&s, now), 4);
        let ahead = StaleView {
            lag: Lag::At(60),
            ..v
        };
        assert_eq!(ahead.view(&s, now), 6, "never ahead of the store");
    }

    #[test]
    fn a_time_lag_shows_what_was_committed_by_then() {
        let s = store_with(2);
        let now = Instant::now();
        let v = StaleView {
            user_agent_contains: "ctl".into(),
            resource: None,
            lag: Lag::Time(Duration::from_secs(3600)),
            until: now + Duration::from_secs(7200),
        };
        assert_eq!(v.view(&s, now), 1, "nothing is an hour old");
        assert_eq!(
            v.visible_at(now),
            now + Duration::from_secs(3600),
            "a change shows after the lag"
        );
        let short = StaleView {
            lag: Lag::Time(Duration::ZERO),
            ..v
        };
        assert_eq!(short.view(&s, Instant::now()), 3);
    }

    #[test]
    fn only_reads_that_allow_a_cache_are_served_stale() {
        assert_eq!(cacheable_read("0", ""), Some(0));
        assert_eq!(cacheable_read("0", "NotOlderThan"), Some(0));
        assert_eq!(cacheable_read("42", "NotOlderThan"), Some(42));
        assert_eq!(cacheable_read("", ""), None, "a consistent read");
        assert_eq!(cacheable_read("42", "Exact"), None);
        assert_eq!(cacheable_read("42", ""), Some(42), "legacy not-older-than");
    }
}
