//! The work queue's metrics, as client-go's workqueue records them for
//! kube-controller-manager's StatefulSet queue (`name="statefulset"`, the
//! `TypedRateLimitingQueueConfig` of pkg/controller/statefulset/stateful_set.go),
//! and as KEP-961 lists them among its SLIs: `workqueue_depth`,
//! `workqueue_adds_total`, `workqueue_queue_duration_seconds`,
//! `workqueue_work_duration_seconds`, `workqueue_retries_total`.
//!
//! The bundled controller's queue is kube-runtime's scheduler, which keeps
//! no such counts, so this is a model of client-go's queue fed by what the
//! controller sees: a key added while it is already waiting is not counted
//! again (client-go's `dirty` set), a sync takes it off the queue (`Get`),
//! and every delayed re-add, an error's back-off as much as a sync's
//! requested look-again (`AddAfter`), counts as a retry and, once due, as an
//! add when the sync it brings starts.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::time::{Duration, Instant};

/// The queue's name, as upstream's StatefulSet controller names it.
pub(crate) const QUEUE: &str = "statefulset";

/// Upper bounds of the duration histograms: component-base's workqueue
/// metrics use ten exponential buckets from 10 ns.
const BUCKETS: [f64; 10] = [1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 0.01, 0.1, 1.0, 10.0];

/// The workqueue's buckets.
#[derive(Clone, Debug)]
struct QueueBuckets;

impl super::histogram::Bounds for QueueBuckets {
    const UPPER: &'static [f64] = &BUCKETS;
}

type Histogram = super::histogram::Histogram<QueueBuckets>;

/// The queue's state and counts.
#[derive(Clone, Debug, Default)]
pub(crate) struct WorkQueue {
    /// Keys waiting for a sync, with when they were added.
    waiting: HashMap<String, Instant>,
    /// Keys a delayed re-add will bring back, with when it is due.
    delayed: HashMap<String, Instant>,
    adds: u64,
    retries: u64,
    queued_for: Histogram,
    worked_for: Histogram,
}

impl WorkQueue {
    /// A watch event (or anything else) asks for a sync of `key`.
    pub(crate) fn add(&mut self, key: &str, now: Instant) {
        if self.waiting.contains_key(key) {
            return;
        }
        self.adds += 1;
        self.waiting.insert(key.to_string(), now);
    }

    /// A sync of `key` starts: the key leaves the queue. A delayed re-add
    /// that fell due brings it as an add of its own.
    pub(crate) fn started(&mut self, key: &str, now: Instant) {
        let due = self.delayed.remove(key).filter(|due| *due <= now);
        match self.waiting.remove(key) {
            Some(added) => self
                .queued_for
                .observe(now.saturating_duration_since(added)),
            None => {
                if let Some(due) = due {
                    self.adds += 1;
                    self.queued_for.observe(now.saturating_duration_since(due));
                }
            }
        }
    }

    /// A sync of `key` ended after `took`.
    pub(crate) fn done(&mut self, took: Duration) {
        self.worked_for.observe(took);
    }

    /// `key` is to be added again after `after` (client-go's `AddAfter`,
    /// which counts a retry).
    pub(crate) fn retry(&mut self, key: &str, after: Duration, now: Instant) {
        self.retries += 1;
        let due = now + after;
        self.delayed
            .entry(key.to_string())
            .and_modify(|d| *d = (*d).min(due))
            .or_insert(due);
    }

    /// Forgets a deleted set's key.
    pub(crate) fn forget(&mut self, key: &str) {
        self.waiting.remove(key);
        self.delayed.remove(key);
    }

    /// Keys waiting for a sync.
    pub(crate) fn depth(&self) -> usize {
        self.waiting.len()
    }

    /// The exposition text.
    pub(crate) fn render(&self, out: &mut String) {
        let counter = |out: &mut String, name: &str, kind: &str, help: &str, v: u64| {
            let _ = writeln!(out, "# HELP {name} [BETA] {help}");
            let _ = writeln!(out, "# TYPE {name} {kind}");
            let _ = writeln!(out, "{name}{{name=\"{QUEUE}\"}} {v}");
        };
        counter(
            out,
            "workqueue_adds_total",
            "counter",
            "Total number of adds handled by workqueue",
            self.adds,
        );
        counter(
            out,
            "workqueue_depth",
            "gauge",
            "Current depth of workqueue",
            self.depth() as u64,
        );
        let histogram = |out: &mut String, h: &Histogram, name: &str, help: &str| {
            let _ = writeln!(out, "# HELP {name} [BETA] {help}");
            let _ = writeln!(out, "# TYPE {name} histogram");
            h.render(out, name, &format!("name=\"{QUEUE}\""));
        };
        histogram(
            out,
            &self.queued_for,
            "workqueue_queue_duration_seconds",
            "How long in seconds an item stays in workqueue before being requested.",
        );
        histogram(
            out,
            &self.worked_for,
            "workqueue_work_duration_seconds",
            "How long in seconds processing an item from workqueue takes.",
        );
        counter(
            out,
            "workqueue_retries_total",
            "counter",
            "Total number of retries handled by workqueue",
            self.retries,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(q: &WorkQueue, name: &str) -> String {
        let mut out = String::new();
        q.render(&mut out);
        out.lines()
            .find(|l| l.starts_with(&format!("{name}{{name=\"statefulset\"}} ")))
            .map(|l| l.rsplit(' ').next().unwrap_or_default().to_string())
            .unwrap_or_default()
    }

    #[test]
    fn a_key_added_while_it_waits_is_counted_once_and_leaves_when_its_sync_starts() {
        let t0 = Instant::now();
        let mut q = WorkQueue::default();
        q.add("ns/web", t0);
        q.add("ns/web", t0 + Duration::from_millis(5));
        q.add("ns/db", t0);
        assert_eq!(sample(&q, "workqueue_adds_total"), "2");
        assert_eq!(sample(&q, "workqueue_depth"), "2");
        q.started("ns/web", t0 + Duration::from_millis(10));
        assert_eq!(sample(&q, "workqueue_depth"), "1");
        assert_eq!(sample(&q, "workqueue_queue_duration_seconds_count"), "1");
        assert_eq!(sample(&q, "workqueue_queue_duration_seconds_sum"), "0.01");
        // Added again while its sync runs: waiting again.
        q.add("ns/web", t0 + Duration::from_millis(11));
        q.done(Duration::from_millis(3));
        assert_eq!(sample(&q, "workqueue_depth"), "2");
        assert_eq!(sample(&q, "workqueue_adds_total"), "3");
        assert_eq!(sample(&q, "workqueue_work_duration_seconds_count"), "1");
    }

    #[test]
    fn a_delayed_re_add_is_a_retry_and_an_add_once_due() {
        let t0 = Instant::now();
        let mut q = WorkQueue::default();
        q.add("ns/web", t0);
        q.started("ns/web", t0);
        q.retry("ns/web", Duration::from_millis(250), t0);
        assert_eq!(sample(&q, "workqueue_retries_total"), "1");
        assert_eq!(sample(&q, "workqueue_depth"), "0");
        q.started("ns/web", t0 + Duration::from_millis(300));
        assert_eq!(sample(&q, "workqueue_adds_total"), "2");
        assert_eq!(sample(&q, "workqueue_queue_duration_seconds_count"), "2");
        // A sync that starts before the re-add is due owes it nothing.
        q.retry("ns/web", Duration::from_secs(10), t0);
        q.started("ns/web", t0 + Duration::from_millis(400));
        assert_eq!(sample(&q, "workqueue_adds_total"), "2");
    }
}
