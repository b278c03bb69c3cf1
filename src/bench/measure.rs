//! Measuring: duration summaries (median, percentiles), the process's
//! memory from /proc/self/status, and the formatting of both.

use std::time::Duration;

use super::machine::kib_field;

/// A summary of repeated timings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Summary {
    /// Number of samples.
    pub n: usize,
    /// Smallest sample.
    pub min: Duration,
    /// Median (nearest rank).
    pub p50: Duration,
    /// 99th percentile (nearest rank).
    pub p99: Duration,
    /// Largest sample.
    pub max: Duration,
}

impl Summary {
    /// Summarizes `samples` (all zero when there are none).
    pub(crate) fn of(samples: &[Duration]) -> Summary {
        let mut sorted = samples.to_vec();
        sorted.sort_unstable();
        Summary {
            n: sorted.len(),
            min: sorted.first().copied().unwrap_or_default(),
            p50: percentile(&sorted, 50.0),
            p99: percentile(&sorted, 99.0),
            max: sorted.last().copied().unwrap_or_default(),
        }
    }

    /// `p50 X (min A, max B)`.
    pub(crate) fn median_range(&self) -> String {
        format!(
            "{} (min {}, max {})",
            duration(self.p50),
            duration(self.min),
            duration(self.max)
        )
    }
}

/// The nearest-rank `p`th percentile of sorted samples (zero if empty).
pub(crate) fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// A measured duration in the unit that suits it, with three significant
/// digits or so: `850 µs`, `12.3 ms`, `512 ms`, `4.21 s`, `26.0 s`.
pub(crate) fn duration(d: Duration) -> String {
    let us = d.as_secs_f64() * 1e6;
    if us < 1_000.0 {
        format!("{us:.0} µs")
    } else if us < 100_000.0 {
        format!("{:.1} ms", us / 1e3)
    } else if us < 1_000_000.0 {
        format!("{:.0} ms", us / 1e3)
    } else if us < 10_000_000.0 {
        format!("{:.2} s", us / 1e6)
    } else {
        format!("{:.1} s", us / 1e6)
    }
}

/// A round duration such as a goal: `50 ms`, `1 s`, `60 s`.
pub(crate) fn round(d: Duration) -> String {
    if d.subsec_nanos() == 0 {
        format!("{} s", d.as_secs())
    } else if d.as_nanos().is_multiple_of(1_000_000) {
        format!("{} ms", d.as_millis())
    } else {
        duration(d)
    }
}

/// A rate: `1234 objects/s`.
pub(crate) fn rate(count: usize, elapsed: Duration, unit: &str) -> String {
    format!("{:.0} {unit}/s", per_second(count, elapsed))
}

/// `count / elapsed` in events per second (0 for a zero duration).
pub(crate) fn per_second(count: usize, elapsed: Duration) -> f64 {
    let secs = elapsed.as_secs_f64();
    if secs > 0.0 {
        count as f64 / secs
    } else {
        0.0
    }
}

/// KiB as MiB with one decimal.
pub(crate) fn mib(kib: u64) -> String {
    format!("{:.1} MiB", kib as f64 / 1024.0)
}

/// The process's resident memory now (`VmRSS`) and at its peak (`VmHWM`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Memory {
    /// Resident set size, KiB.
    pub rss_kib: u64,
    /// Peak resident set size, KiB.
    pub hwm_kib: u64,
}

/// Reads [`Memory`] from /proc/self/status (`None` where there is no /proc).
pub(crate) fn memory() -> Option<Memory> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    Some(Memory {
        rss_kib: kib_field(&status, "VmRSS:")?,
        hwm_kib: kib_field(&status, "VmHWM:")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn percentiles_use_the_nearest_rank() {
        let samples: Vec<Duration> = (1..=100).rev().map(ms).collect();
        let s = Summary::of(&samples);
        assert_eq!(
            (s.n, s.min, s.p50, s.p99, s.max),
            (100, ms(1), ms(50), ms(99), ms(100))
        );
        let three = Summary::of(&[ms(30), ms(10), ms(20)]);
        assert_eq!((three.p50, three.p99), (ms(20), ms(30)));
        assert_eq!(Summary::of(&[]).p50, Duration::ZERO);
    }

    #[test]
    fn formats_units() {
        assert_eq!(duration(Duration::from_micros(850)), "850 µs");
        assert_eq!(duration(Duration::from_micros(12_340)), "12.3 ms");
        assert_eq!(duration(Duration::from_micros(512_400)), "512 ms");
        assert_eq!(duration(Duration::from_millis(4_210)), "4.21 s");
        assert_eq!(duration(Duration::from_millis(26_020)), "26.0 s");
        assert_eq!(round(Duration::from_millis(50)), "50 ms");
        assert_eq!(round(Duration::from_secs(60)), "60 s");
        assert_eq!(round(Duration::from_micros(1_500)), "1.5 ms");
        assert_eq!(
            rate(500, Duration::from_millis(250), "objects"),
            "2000 objects/s"
        );
        assert_eq!(per_second(5, Duration::ZERO), 0.0);
        assert_eq!(mib(1536), "1.5 MiB");
    }

    #[test]
    fn reads_this_process_memory() {
        if std::path::Path::new("/proc/self/status").exists() {
            let m = memory().expect("VmRSS and VmHWM");
            assert!(m.rss_kib > 0 && m.hwm_kib >= m.rss_kib / 2);
        }
    }
}
