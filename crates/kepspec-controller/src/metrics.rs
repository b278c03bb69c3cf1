//! Prometheus text-format metrics of the controller.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio_util::sync::CancellationToken;

/// Per-set gauges of KEP-961, named and labelled as upstream's
/// pkg/controller/statefulset/metrics/metrics.go registers them (subsystem
/// `statefulset_controller`; labels `statefulset_namespace`,
/// `statefulset_name`, `pod_management_policy`), and like upstream recorded
/// only while the MaxUnavailableStatefulSet gate is on and the set uses
/// RollingUpdate (upstream: when a sync reaches its update step; here after
/// every such sync).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SetGauges {
    /// Replicas of the ordinal range that are not available (missing ones
    /// included): `spec.replicas` less the available pods in range.
    pub unavailable_replicas: i64,
    /// The maxUnavailable in force, already scaled from a percentage.
    pub max_unavailable: i64,
    /// `spec.podManagementPolicy` as stored.
    pub pod_management_policy: String,
    /// A rollout is under way: the update revision is not yet the current one.
    pub rolling_out: bool,
}

/// Upstream's full name of the maxUnavailable gauge.
pub(crate) const MAX_UNAVAILABLE: &str = "statefulset_controller_statefulset_max_unavailable";
/// Upstream's full name of the unavailable-replicas gauge.
pub(crate) const UNAVAILABLE_REPLICAS: &str =
    "statefulset_controller_statefulset_unavailable_replicas";
/// KEP-961's violation counter ("What specific metrics should inform a
/// rollback?"), under the subsystem of the gauges beside it (upstream
/// serves no such metric).
pub(crate) const UNAVAILABILITY_VIOLATION: &str =
    "statefulset_controller_statefulset_unavailability_violation";

/// A set's count of maxUnavailable violations.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Violations {
    /// The last recorded sync found the budget exceeded.
    violating: bool,
    /// Times a sync found it exceeded after one that did not.
    count: u64,
}

/// KEP-961 counts "the number of times the maxUnavailable condition is
/// violated (i.e. spec.replicas - availableReplicas > maxUnavailable)". The
/// KEP does not say what one time is nor whether a set still being created
/// violates a rolling update's budget; the bundled controller counts each
/// entry into that state while a rollout is under way (update revision not
/// yet current), not each sync that finds it, and not a first creation.
fn violated(before: &Violations, g: &SetGauges) -> Violations {
    let violating = g.rolling_out && g.unavailable_replicas > g.max_unavailable;
    Violations {
        violating,
        count: before.count + u64::from(violating && !before.violating),
    }
}

#[derive(Debug, Default)]
struct Inner {
    sets: BTreeMap<(String, String), SetGauges>,
    violations: BTreeMap<(String, String), Violations>,
    /// The StatefulSet work queue's metrics.
    queue: super::metrics_queue::WorkQueue,
    /// The KEP-3541 draft's metrics.
    draft: super::metrics_draft::DraftMetrics,
    reconciles: u64,
    errors: u64,
    stale_skips: u64,
    consistent_reads: u64,
    duration_sum: f64,
    duration_buckets: [u64; BUCKETS.len()],
}

const BUCKETS: [f64; 8] = [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1.0, 5.0];

/// The gauges a sync records (pure): as upstream's
/// `updateStatefulSetAfterInvariantEstablished` sets them, only for a
/// RollingUpdate set with the MaxUnavailableStatefulSet gate on (the plan
/// carries a budget then); `None` leaves the last recorded values, as
/// upstream does.
pub(crate) fn gauges_of(
    plan: &super::plan::Plan,
    set: &k8s_openapi::api::apps::v1::StatefulSet,
    pods: &[std::sync::Arc<k8s_openapi::api::core::v1::Pod>],
    now: jiff::Timestamp,
) -> Option<SetGauges> {
    use super::pods as p;
    let super::plan::Phase::RollingUpdate {
        max_unavailable: Some(budget),
        ..
    } = plan.phase
    else {
        return None;
    };
    let spec = &set.spec;
    let replicas = spec.replicas.unwrap_or(1).max(0);
    let start = p::start_ordinal(set);
    let min_ready = spec.min_ready_seconds.unwrap_or(0);
    let available = pods
        .iter()
        .filter(|pod| {
            p::ordinal(pod).is_some_and(|o| o >= start && o < start.saturating_add(replicas))
        })
        .filter(|pod| !p::is_terminating(pod) && p::is_available(pod, min_ready, now))
        .count();
    let available = i64::try_from(available).unwrap_or(i64::MAX);
    Some(SetGauges {
        unavailable_replicas: (i64::from(replicas) - available).max(0),
        max_unavailable: i64::from(budget),
        pod_management_policy: spec
            .pod_management_policy
            .clone()
            .unwrap_or_else(|| "OrderedReady".into()),
        rolling_out: plan.status.update_revision != plan.status.current_revision,
    })
}

/// The controller's metrics; cheap to clone.
#[derive(Clone, Debug, Default)]
pub struct Metrics(Arc<Mutex<Inner>>);

impl Metrics {
    fn with<R>(&self, f: impl FnOnce(&mut Inner) -> R) -> R {
        let mut guard = self.0.lock().unwrap_or_else(|p| p.into_inner());
        f(&mut guard)
    }

    /// Records one sync and how long it took.
    pub fn reconciled(&self, took: Duration, failed: bool) {
        self.with(|m| {
            m.reconciles += 1;
            if failed {
                m.errors += 1;
            }
            let secs = took.as_secs_f64();
            m.duration_sum += secs;
            for (i, b) in BUCKETS.iter().enumerate() {
                if secs <= *b {
                    m.duration_buckets[i] += 1;
                }
            }
        });
    }

    /// Records a sync skipped because a cache was behind the last write.
    pub fn stale_skip(&self) {
        self.with(|m| m.stale_skips += 1);
    }

    /// Counts a sync that read from the apiserver because a cache stayed behind.
    pub fn consistent_read(&self) {
        self.with(|m| m.consistent_reads += 1);
    }

    /// Sets a set's gauges.
    pub fn set(&self, namespace: &str, name: &str, gauges: SetGauges) {
        self.with(|m| {
            let key = (namespace.to_string(), name.to_string());
            let v = m.violations.entry(key.clone()).or_default();
            *v = violated(v, &gauges);
            m.sets.insert(key, gauges);
        });
    }

    /// The work queue is asked to sync `key` (`namespace/name`).
    pub fn queue_add(&self, key: &str) {
        self.with(|m| m.queue.add(key, std::time::Instant::now()));
    }

    /// A sync of `key` starts.
    pub fn queue_started(&self, key: &str) {
        self.with(|m| m.queue.started(key, std::time::Instant::now()));
    }

    /// A sync ended after `took`.
    pub fn queue_done(&self, took: Duration) {
        self.with(|m| m.queue.done(took));
    }

    /// `key` is to be synced again after `after`.
    pub fn queue_retry(&self, key: &str, after: Duration) {
        self.with(|m| m.queue.retry(key, after, std::time::Instant::now()));
    }

    /// Counts one forced replacement (the delete call's outcome, and how
    /// long the pod had not been Ready).
    pub fn forced_replacement(
        &self,
        namespace: &str,
        name: &str,
        succeeded: bool,
        stuck_for: Option<Duration>,
    ) {
        self.with(|m| {
            m.draft.forced(
                (namespace.to_string(), name.to_string()),
                succeeded,
                stuck_for,
            )
        });
    }

    /// Records a sync of a set for the rollout metrics.
    pub fn synced(&self, namespace: &str, name: &str, seen: &super::rollouts::Seen<'_>) {
        self.with(|m| {
            m.draft
                .synced((namespace.to_string(), name.to_string()), seen)
        });
    }

    /// Forgets a deleted set.
    pub fn forget(&self, namespace: &str, name: &str) {
        self.with(|m| {
            let key = (namespace.to_string(), name.to_string());
            m.sets.remove(&key);
            m.violations.remove(&key);
            m.queue.forget(&format!("{namespace}/{name}"));
            m.draft.forget(&key);
        });
    }

    /// The exposition text.
    pub fn render(&self) -> String {
        self.with(|m| {
            let mut out = String::new();
            let gauge = |out: &mut String, name: &str, help: &str, value: fn(&SetGauges) -> i64| {
                let _ = writeln!(out, "# HELP {name} [ALPHA] {help}");
                let _ = writeln!(out, "# TYPE {name} gauge");
                for ((ns, set), g) in &m.sets {
                    let _ = writeln!(
                        out,
                        "{name}{{pod_management_policy=\"{}\",statefulset_name=\"{set}\",statefulset_namespace=\"{ns}\"}} {}",
                        g.pod_management_policy,
                        value(g)
                    );
                }
            };
            gauge(
                &mut out,
                MAX_UNAVAILABLE,
                "Maximum number of unavailable pods allowed during StatefulSet rolling updates",
                |g| g.max_unavailable,
            );
            gauge(
                &mut out,
                UNAVAILABLE_REPLICAS,
                "Current number of unavailable pods in StatefulSet",
                |g| g.unavailable_replicas,
            );
            let _ = writeln!(out, "# HELP {UNAVAILABILITY_VIOLATION} [ALPHA] Times a StatefulSet's rolling update had more unavailable replicas than maxUnavailable allows");
            let _ = writeln!(out, "# TYPE {UNAVAILABILITY_VIOLATION} counter");
            for ((ns, set), v) in &m.violations {
                let policy = m.sets.get(&(ns.clone(), set.clone())).map(|g| g.pod_management_policy.as_str()).unwrap_or_default();
                let _ = writeln!(
                    out,
                    "{UNAVAILABILITY_VIOLATION}{{pod_management_policy=\"{policy}\",statefulset_name=\"{set}\",statefulset_namespace=\"{ns}\"}} {}",
                    v.count
                );
            }
            m.queue.render(&mut out);
            m.draft.render(&mut out);
            let _ = writeln!(out, "# HELP statefulset_controller_reconcile_total Syncs performed.");
            let _ = writeln!(out, "# TYPE statefulset_controller_reconcile_total counter");
            let _ = writeln!(out, "statefulset_controller_reconcile_total {}", m.reconciles);
            let _ = writeln!(out, "# HELP statefulset_controller_reconcile_errors_total Syncs that failed.");
            let _ = writeln!(out, "# TYPE statefulset_controller_reconcile_errors_total counter");
            let _ = writeln!(out, "statefulset_controller_reconcile_errors_total {}", m.errors);
            let _ = writeln!(out, "# HELP statefulset_controller_stale_sync_skips_total Syncs skipped because a cache was older than the controller's last write.");
            let _ = writeln!(out, "# TYPE statefulset_controller_stale_sync_skips_total counter");
            let _ = writeln!(out, "statefulset_controller_stale_sync_skips_total {}", m.stale_skips);
            let _ = writeln!(out, "# HELP statefulset_controller_consistent_reads_total Syncs that read from the apiserver because a cache stayed behind the controller's last write.");
            let _ = writeln!(out, "# TYPE statefulset_controller_consistent_reads_total counter");
            let _ = writeln!(out, "statefulset_controller_consistent_reads_total {}", m.consistent_reads);
            let _ = writeln!(out, "# HELP statefulset_controller_reconcile_duration_seconds Time per sync.");
            let _ = writeln!(out, "# TYPE statefulset_controller_reconcile_duration_seconds histogram");
            for (i, b) in BUCKETS.iter().enumerate() {
                let _ = writeln!(out, "statefulset_controller_reconcile_duration_seconds_bucket{{le=\"{b}\"}} {}", m.duration_buckets[i]);
            }
            let _ = writeln!(out, "statefulset_controller_reconcile_duration_seconds_bucket{{le=\"+Inf\"}} {}", m.reconciles);
            let _ = writeln!(out, "statefulset_controller_reconcile_duration_seconds_sum {}", m.duration_sum);
            let _ = writeln!(out, "statefulset_controller_reconcile_duration_seconds_count {}", m.reconciles);
            out
        })
    }
}

/// Serves `/metrics` (and `/healthz`) until `stop`.
pub(crate) async fn serve(
    addr: SocketAddr,
    metrics: Metrics,
    stop: CancellationToken,
) -> anyhow::Result<SocketAddr> {
    use axum::routing::get;
    let app = axum::Router::new()
        .route(
            "/metrics",
            get(move || {
                let m = metrics.clone();
                async move {
                    (
                        [(http::header::CONTENT_TYPE, "text/plain; version=0.0.4")],
                        m.render(),
                    )
                }
            }),
        )
        .route("/healthz", get(|| async { "ok" }));
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let bound = listener.local_addr()?;
    tokio::spawn(async move {
        let _ = axum::serve(listener, app)
            .with_graceful_shutdown(async move { stop.cancelled().await })
            .await;
    });
    Ok(bound)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_the_kep_gauges_and_counters() {
        let m = Metrics::default();
        m.set(
            "ns",
            "web",
            SetGauges {
                unavailable_replicas: 2,
                max_unavailable: 3,
                pod_management_policy: "Parallel".into(),
                rolling_out: true,
            },
        );
        m.reconciled(Duration::from_millis(3), false);
        m.reconciled(Duration::from_millis(300), true);
        let text = m.render();
        assert!(text.contains("statefulset_controller_statefulset_unavailable_replicas{pod_management_policy=\"Parallel\",statefulset_name=\"web\",statefulset_namespace=\"ns\"} 2"), "{text}");
        assert!(text.contains("statefulset_controller_statefulset_max_unavailable{pod_management_policy=\"Parallel\",statefulset_name=\"web\",statefulset_namespace=\"ns\"} 3"), "{text}");
        assert!(text.contains("statefulset_controller_reconcile_total 2"));
        assert!(text.contains("statefulset_controller_reconcile_errors_total 1"));
        assert!(text
            .contains("statefulset_controller_reconcile_duration_seconds_bucket{le=\"0.005\"} 1"));
        m.forget("ns", "web");
        assert!(!m.render().contains("statefulset_name=\"web\""));
    }

    #[test]
    fn a_violation_is_counted_once_per_entry_and_only_during_a_rollout() {
        let g = |unavailable, rolling_out| SetGauges {
            unavailable_replicas: unavailable,
            max_unavailable: 1,
            pod_management_policy: "OrderedReady".into(),
            rolling_out,
        };
        let count = |m: &Metrics| {
            kepspec_core::scrape::gauge(
                &m.render(),
                "statefulset_unavailability_violation",
                "ns",
                "web",
            )
        };
        let m = Metrics::default();
        // A first creation: three missing of three, no rollout.
        m.set("ns", "web", g(3, false));
        assert_eq!(count(&m), Some(0.0));
        m.set("ns", "web", g(1, true));
        m.set("ns", "web", g(2, true));
        m.set("ns", "web", g(2, true));
        m.set("ns", "web", g(3, true));
        assert_eq!(count(&m), Some(1.0));
        m.set("ns", "web", g(1, true));
        m.set("ns", "web", g(2, true));
        assert_eq!(count(&m), Some(2.0));
    }

    #[test]
    fn gauges_follow_upstream_only_with_the_gate_on_and_count_missing_pods() {
        use super::super::plan::fixtures::World;
        use super::super::plan::ControllerGates;
        let on = ControllerGates {
            statefulset_recreate_strategy: true,
            max_unavailable_statefulset: true,
            enforced_rolling_update_in_statefulset: false,
        };
        let world = World::stable(3)
            .max_unavailable(serde_json::json!(2))
            .gates(on);
        let mut world = world.image("app:2");
        world.pods.remove(2);
        let plan = world.plan();
        let g = gauges_of(&plan, &world.set, &world.pods, world.now);
        assert_eq!(
            g,
            Some(SetGauges {
                unavailable_replicas: 1,
                max_unavailable: 2,
                pod_management_policy: "OrderedReady".into(),
                rolling_out: true,
            })
        );
        let off = world.gates(ControllerGates {
            statefulset_recreate_strategy: true,
            max_unavailable_statefulset: false,
            enforced_rolling_update_in_statefulset: false,
        });
        assert_eq!(gauges_of(&off.plan(), &off.set, &off.pods, off.now), None);
    }

    #[tokio::test]
    async fn serves_metrics_over_http() {
        let m = Metrics::default();
        m.set(
            "ns",
            "db",
            SetGauges {
                unavailable_replicas: 0,
                max_unavailable: 1,
                pod_management_policy: "OrderedReady".into(),
                rolling_out: false,
            },
        );
        let stop = CancellationToken::new();
        let addr = serve("127.0.0.1:0".parse().unwrap(), m, stop.clone())
            .await
            .unwrap();
        let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        stream
            .write_all(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            .await
            .unwrap();
        let mut body = String::new();
        stream.read_to_string(&mut body).await.unwrap();
        assert!(
            body.contains("statefulset_controller_statefulset_max_unavailable{pod_management_policy=\"OrderedReady\",statefulset_name=\"db\",statefulset_namespace=\"ns\"} 1"),
            "{body}"
        );
        stop.cancel();
    }
}
