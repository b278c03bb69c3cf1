//! A Prometheus histogram of durations, rendered in the text format with
//! the labels its metric gives it.

use std::fmt::Write as _;
use std::marker::PhantomData;
use std::time::Duration;

/// A metric's bucket upper bounds (seconds), in ascending order.
pub(crate) trait Bounds {
    /// The bounds.
    const UPPER: &'static [f64];
}

/// Cumulative bucket counts for the bounds `B`.
#[derive(Clone, Debug)]
pub(crate) struct Histogram<B> {
    counts: Vec<u64>,
    count: u64,
    sum: f64,
    bounds: PhantomData<B>,
}

impl<B: Bounds> Default for Histogram<B> {
    fn default() -> Self {
        Self {
            counts: vec![0; B::UPPER.len()],
            count: 0,
            sum: 0.0,
            bounds: PhantomData,
        }
    }
}

impl<B: Bounds> Histogram<B> {
    /// Records one duration.
    pub(crate) fn observe(&mut self, d: Duration) {
        let secs = d.as_secs_f64();
        for (n, b) in self.counts.iter_mut().zip(B::UPPER) {
            if secs <= *b {
                *n += 1;
            }
        }
        self.count += 1;
        self.sum += secs;
    }

    /// Appends the `_bucket`, `_sum` and `_count` samples of `name`, with
    /// `labels` (`k="v",...`, or empty) on each.
    pub(crate) fn render(&self, out: &mut String, name: &str, labels: &str) {
        let sep = if labels.is_empty() { "" } else { "," };
        for (b, n) in B::UPPER.iter().zip(&self.counts) {
            let _ = writeln!(out, "{name}_bucket{{{labels}{sep}le=\"{b}\"}} {n}");
        }
        let _ = writeln!(
            out,
            "{name}_bucket{{{labels}{sep}le=\"+Inf\"}} {}",
            self.count
        );
        let braces = if labels.is_empty() {
            String::new()
        } else {
            format!("{{{labels}}}")
        };
        let _ = writeln!(out, "{name}_sum{braces} {}", self.sum);
        let _ = writeln!(out, "{name}_count{braces} {}", self.count);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Two;
    impl Bounds for Two {
        const UPPER: &'static [f64] = &[0.1, 1.0];
    }

    #[test]
    fn buckets_are_cumulative_and_labels_optional() {
        let mut h = Histogram::<Two>::default();
        h.observe(Duration::from_millis(50));
        h.observe(Duration::from_millis(500));
        let mut out = String::new();
        h.render(&mut out, "x", "");
        assert!(out.contains("x_bucket{le=\"0.1\"} 1\n"), "{out}");
        assert!(out.contains("x_bucket{le=\"1\"} 2\n"), "{out}");
        assert!(out.contains("x_bucket{le=\"+Inf\"} 2\n"), "{out}");
        assert!(out.contains("x_count 2\n"), "{out}");
        let mut labelled = String::new();
        h.render(&mut labelled, "x", "name=\"q\"");
        assert!(
            labelled.contains("x_bucket{name=\"q\",le=\"0.1\"} 1\n"),
            "{labelled}"
        );
        assert!(labelled.contains("x_sum{name=\"q\"} 0.55\n"), "{labelled}");
    }
}
