//! The metrics the KEP-3541 draft names ("Monitoring Requirements"),
//! recorded by the bundled controller. The draft gives names and a
//! sentence each; labels and buckets are kepspec's choice:
//! - `statefulset_forced_pod_replacements_total` ("Counter with
//!   success/failure labels"): `result`, and the set as upstream labels it
//!   (`statefulset_namespace`, `statefulset_name`);
//! - `statefulset_enforced_rolling_updates_total` ("Rate of successful vs
//!   failed enforced rolling updates"): `result` is `success` when a rollout
//!   under EnforcedRollingUpdate completes, `failure` when another revision
//!   supersedes it first;
//! - `statefulset_update_duration_seconds` ("Histogram of update completion
//!   times by strategy type"): `strategy_type`, from the first sync that saw
//!   a rollout to the one that completed it;
//! - `statefulset_stuck_pod_duration_seconds` ("how long pods remain in
//!   non-Ready state before forced replacement"): since the pod's Ready
//!   condition last turned False, or since its creation;
//! - `statefulset_strategy_distribution` ("distribution of update
//!   strategies in use across cluster"): sets per `strategy_type`;
//! - `statefulset_safety_halt_total` ("times EnforcedRollingUpdate halted
//!   due to highest ordinal pod failure"): once per rollout.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::Duration;

use super::rollouts::{Ended, Rollouts, Seen};

/// `statefulset_forced_pod_replacements_total`.
pub(crate) const FORCED_REPLACEMENTS: &str = "statefulset_forced_pod_replacements_total";
/// `statefulset_enforced_rolling_updates_total`.
pub(crate) const ENFORCED_ROLLING_UPDATES: &str = "statefulset_enforced_rolling_updates_total";
/// `statefulset_update_duration_seconds`.
pub(crate) const UPDATE_DURATION: &str = "statefulset_update_duration_seconds";
/// `statefulset_stuck_pod_duration_seconds`.
pub(crate) const STUCK_POD_DURATION: &str = "statefulset_stuck_pod_duration_seconds";
/// `statefulset_strategy_distribution`.
pub(crate) const STRATEGY_DISTRIBUTION: &str = "statefulset_strategy_distribution";
/// `statefulset_safety_halt_total`.
pub(crate) const SAFETY_HALTS: &str = "statefulset_safety_halt_total";

const BUCKETS: [f64; 9] = [1.0, 5.0, 10.0, 30.0, 60.0, 300.0, 600.0, 1800.0, 3600.0];

/// The draft metrics' buckets.
#[derive(Clone, Debug)]
struct DraftBuckets;

impl super::histogram::Bounds for DraftBuckets {
    const UPPER: &'static [f64] = &BUCKETS;
}

type Histogram = super::histogram::Histogram<DraftBuckets>;

type SetKey = (String, String);

/// The draft's metrics of one controller.
#[derive(Debug, Default)]
pub(crate) struct DraftMetrics {
    rollouts: Rollouts,
    forced: BTreeMap<(SetKey, bool), u64>,
    enforced: BTreeMap<(SetKey, bool), u64>,
    halts: BTreeMap<SetKey, u64>,
    durations: BTreeMap<String, Histogram>,
    stuck: Histogram,
    strategies: BTreeMap<SetKey, String>,
}

fn set_labels((ns, set): &SetKey) -> String {
    format!("statefulset_name=\"{set}\",statefulset_namespace=\"{ns}\"")
}

impl DraftMetrics {
    /// Records one sync of a set.
    pub(crate) fn synced(&mut self, key: SetKey, seen: &Seen<'_>) {
        self.strategies
            .insert(key.clone(), seen.strategy.to_string());
        for ended in self.rollouts.observe(key.clone(), seen) {
            match ended {
                Ended::Completed { strategy, took } => {
                    if strategy == super::plan::ENFORCED_TYPE {
                        *self.enforced.entry((key.clone(), true)).or_default() += 1;
                    }
                    self.durations.entry(strategy).or_default().observe(took);
                }
                Ended::Superseded { strategy } => {
                    if strategy == super::plan::ENFORCED_TYPE {
                        *self.enforced.entry((key.clone(), false)).or_default() += 1;
                    }
                }
                Ended::Halted => *self.halts.entry(key.clone()).or_default() += 1,
            }
        }
    }

    /// Counts one forced replacement: whether the delete succeeded, and how
    /// long the pod had not been Ready.
    pub(crate) fn forced(&mut self, key: SetKey, succeeded: bool, stuck_for: Option<Duration>) {
        *self.forced.entry((key, succeeded)).or_default() += 1;
        if let Some(d) = stuck_for {
            self.stuck.observe(d);
        }
    }

    /// Forgets a deleted set (its counters stay, as a counter's do).
    pub(crate) fn forget(&mut self, key: &SetKey) {
        self.strategies.remove(key);
        self.rollouts.forget(key);
    }

    /// The exposition text of the draft's metrics.
    pub(crate) fn render(&self, out: &mut String) {
        let head = |out: &mut String, name: &str, kind: &str, help: &str| {
            let _ = writeln!(out, "# HELP {name} [ALPHA] {help} (KEP-3541 draft)");
            let _ = writeln!(out, "# TYPE {name} {kind}");
        };
        let result = |ok: bool| if ok { "success" } else { "failure" };
        head(
            out,
            FORCED_REPLACEMENTS,
            "counter",
            "Pods EnforcedRollingUpdate replaced although they were not available.",
        );
        for ((key, ok), n) in &self.forced {
            let _ = writeln!(
                out,
                "{FORCED_REPLACEMENTS}{{result=\"{}\",{}}} {n}",
                result(*ok),
                set_labels(key)
            );
        }
        head(out, ENFORCED_ROLLING_UPDATES, "counter", "Rollouts under EnforcedRollingUpdate that completed (success) or were superseded first (failure).");
        for ((key, ok), n) in &self.enforced {
            let _ = writeln!(
                out,
                "{ENFORCED_ROLLING_UPDATES}{{result=\"{}\",{}}} {n}",
                result(*ok),
                set_labels(key)
            );
        }
        head(
            out,
            SAFETY_HALTS,
            "counter",
            "Rollouts the safety halt stopped: the highest ordinal failing at the update revision.",
        );
        for (key, n) in &self.halts {
            let _ = writeln!(out, "{SAFETY_HALTS}{{{}}} {n}", set_labels(key));
        }
        head(
            out,
            UPDATE_DURATION,
            "histogram",
            "Time from the first sync that saw a rollout to its completion, by strategy type.",
        );
        for (strategy, h) in &self.durations {
            h.render(
                out,
                UPDATE_DURATION,
                &format!("strategy_type=\"{strategy}\""),
            );
        }
        head(
            out,
            STUCK_POD_DURATION,
            "histogram",
            "How long pods were not Ready before a forced replacement.",
        );
        self.stuck.render(out, STUCK_POD_DURATION, "");
        head(
            out,
            STRATEGY_DISTRIBUTION,
            "gauge",
            "StatefulSets per update strategy type.",
        );
        let mut counts: BTreeMap<&str, u64> = BTreeMap::new();
        for s in self.strategies.values() {
            *counts.entry(s.as_str()).or_default() += 1;
        }
        for (strategy, n) in counts {
            let _ = writeln!(
                out,
                "{STRATEGY_DISTRIBUTION}{{strategy_type=\"{strategy}\"}} {n}"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    #[test]
    fn a_superseded_then_completed_rollout_renders_every_metric() {
        let mut m = DraftMetrics::default();
        let key = || ("ns".to_string(), "web".to_string());
        let t0 = Instant::now();
        let seen = |u: &'static str, c: &'static str, halted: bool, s: u64| Seen {
            strategy: "EnforcedRollingUpdate",
            update_revision: u,
            current_revision: c,
            settled: u == c,
            halted,
            now: t0 + Duration::from_secs(s),
        };
        m.synced(key(), &seen("a", "a", false, 0));
        m.synced(key(), &seen("b", "a", true, 1));
        m.forced(key(), true, Some(Duration::from_secs(7)));
        m.synced(key(), &seen("c", "a", false, 2));
        m.synced(key(), &seen("c", "c", false, 5));
        let mut out = String::new();
        m.render(&mut out);
        for line in [
            "statefulset_forced_pod_replacements_total{result=\"success\",statefulset_name=\"web\",statefulset_namespace=\"ns\"} 1",
            "statefulset_enforced_rolling_updates_total{result=\"failure\",statefulset_name=\"web\",statefulset_namespace=\"ns\"} 1",
            "statefulset_enforced_rolling_updates_total{result=\"success\",statefulset_name=\"web\",statefulset_namespace=\"ns\"} 1",
            "statefulset_safety_halt_total{statefulset_name=\"web\",statefulset_namespace=\"ns\"} 1",
            "statefulset_update_duration_seconds_count{strategy_type=\"EnforcedRollingUpdate\"} 1",
            "statefulset_update_duration_seconds_sum{strategy_type=\"EnforcedRollingUpdate\"} 3",
            "statefulset_stuck_pod_duration_seconds_bucket{le=\"10\"} 1",
            "statefulset_stuck_pod_duration_seconds_count 1",
            "statefulset_strategy_distribution{strategy_type=\"EnforcedRollingUpdate\"} 1",
        ] {
            assert!(out.contains(line), "missing {line}\n{out}");
        }
        m.forget(&key());
        let mut out = String::new();
        m.render(&mut out);
        assert!(!out.contains("statefulset_strategy_distribution{"));
    }
}
