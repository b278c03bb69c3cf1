//! Prometheus text-format metrics of the controller.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio_util::sync::CancellationToken;

/// Per-set gauges.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SetGauges {
    /// `spec.replicas - status.availableReplicas`, floored at 0.
    pub unavailable_replicas: i64,
    /// The maxUnavailable in force (1 when unset or gated off).
    pub max_unavailable: i64,
}

#[derive(Debug, Default)]
struct Inner {
    sets: BTreeMap<(String, String), SetGauges>,
    reconciles: u64,
    errors: u64,
    stale_skips: u64,
    consistent_reads: u64,
    duration_sum: f64,
    duration_buckets: [u64; BUCKETS.len()],
}

const BUCKETS: [f64; 8] = [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1.0, 5.0];

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
            m.sets
                .insert((namespace.to_string(), name.to_string()), gauges);
        });
    }

    /// Forgets a deleted set.
    pub fn forget(&self, namespace: &str, name: &str) {
        self.with(|m| {
            m.sets.remove(&(namespace.to_string(), name.to_string()));
        });
    }

    /// The exposition text.
    pub fn render(&self) -> String {
        self.with(|m| {
            let mut out = String::new();
            let _ = writeln!(out, "# HELP statefulset_unavailable_replicas Replicas of the StatefulSet that are not available.");
            let _ = writeln!(out, "# TYPE statefulset_unavailable_replicas gauge");
            for ((ns, name), g) in &m.sets {
                let _ = writeln!(out, "statefulset_unavailable_replicas{{namespace=\"{ns}\",statefulset=\"{name}\"}} {}", g.unavailable_replicas);
            }
            let _ = writeln!(out, "# HELP statefulset_max_unavailable The maxUnavailable in force for the StatefulSet.");
            let _ = writeln!(out, "# TYPE statefulset_max_unavailable gauge");
            for ((ns, name), g) in &m.sets {
                let _ = writeln!(out, "statefulset_max_unavailable{{namespace=\"{ns}\",statefulset=\"{name}\"}} {}", g.max_unavailable);
            }
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
pub async fn serve(
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
            },
        );
        m.reconciled(Duration::from_millis(3), false);
        m.reconciled(Duration::from_millis(300), true);
        let text = m.render();
        assert!(text
            .contains("statefulset_unavailable_replicas{namespace=\"ns\",statefulset=\"web\"} 2"));
        assert!(
            text.contains("statefulset_max_unavailable{namespace=\"ns\",statefulset=\"web\"} 3")
        );
        assert!(text.contains("statefulset_controller_reconcile_total 2"));
        assert!(text.contains("statefulset_controller_reconcile_errors_total 1"));
        assert!(text
            .contains("statefulset_controller_reconcile_duration_seconds_bucket{le=\"0.005\"} 1"));
        m.forget("ns", "web");
        assert!(!m.render().contains("statefulset=\"web\""));
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
            body.contains("statefulset_max_unavailable{namespace=\"ns\",statefulset=\"db\"} 1"),
            "{body}"
        );
        stop.cancel();
    }
}
