//! How many scenarios run at once. On the embedded cluster the scenarios
//! mostly wait on real seconds (grace periods, `minReadySeconds`, quiet
//! windows) and share the machine's cores with the cluster and the
//! controller; so by default a run starts scenarios while the machine has
//! CPU to spare: always up to a floor, above it only while the machine's
//! cores were less than a given share busy over the last second, and at
//! most up to a ceiling. A run against a real cluster, or one given
//! `--concurrency N`, runs a fixed number at once.
//!
//! The decision ([`may_start`]) is pure; [`Throttle`] feeds it the count of
//! running scenarios and the machine's load from `/proc/stat` (Linux; on
//! other systems the floor is the fixed number).

use std::fmt;
use std::str::FromStr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;

/// How many scenarios run at once.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Concurrency {
    /// Exactly this many (at least 1).
    Fixed(usize),
    /// `at_least` always; more, up to `at_most`, while the machine's cores
    /// were less than `busy_below` (a share, 0 to 1) busy.
    Paced {
        /// Scenarios that start whatever the load.
        at_least: usize,
        /// Scenarios at once, never more.
        at_most: usize,
        /// The machine's busy share under which one more may start.
        busy_below: f64,
    },
}

impl Concurrency {
    /// The default on the embedded cluster: 16 at once whatever the load
    /// (the fixed default before pacing, which the spec passes reliably at
    /// on 2 cores, in a debug build too), up to 64 while the cores are
    /// less than 85 % busy.
    pub const EMBEDDED: Concurrency = Concurrency::Paced {
        at_least: 16,
        at_most: 64,
        busy_below: 0.85,
    };

    /// The most scenarios that can be running at once.
    pub fn at_most(self) -> usize {
        match self {
            Concurrency::Fixed(n) => n.max(1),
            Concurrency::Paced {
                at_least, at_most, ..
            } => at_most.max(at_least).max(1),
        }
    }
}

impl fmt::Display for Concurrency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Concurrency::Fixed(n) => write!(f, "{n}"),
            Concurrency::Paced { .. } => f.write_str("auto"),
        }
    }
}

impl FromStr for Concurrency {
    type Err = String;
    /// `auto` (the embedded cluster's pacing) or a count of at least 1.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        if text == "auto" {
            return Ok(Concurrency::EMBEDDED);
        }
        match text.parse::<usize>() {
            Ok(0) => Err("must be at least 1, or auto".into()),
            Ok(n) => Ok(Concurrency::Fixed(n)),
            Err(e) => Err(format!("not a count or auto: {e}")),
        }
    }
}

/// How a scenario may start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Start {
    /// Within the floor (or the fixed number): whatever the load.
    WithinFloor,
    /// Above a paced run's floor: the cores have room.
    AboveFloor,
}

/// Whether one more scenario may start, with `running` running, the
/// machine `busy` (its busy share over the last second, None if unknown)
/// and the last start above the floor `since_above_floor` ago (None if
/// none yet): above the floor, starts are [`SPACING`] apart.
pub fn may_start(
    concurrency: Concurrency,
    running: usize,
    busy: Option<f64>,
    since_above_floor: Option<Duration>,
) -> Option<Start> {
    match concurrency {
        Concurrency::Fixed(n) => (running < n.max(1)).then_some(Start::WithinFloor),
        Concurrency::Paced {
            at_least,
            at_most,
            busy_below,
        } => {
            if running < at_least.max(1) {
                Some(Start::WithinFloor)
            } else {
                let room = running < at_most && busy.is_some_and(|b| b < busy_below);
                let spaced = since_above_floor.is_none_or(|d| d >= SPACING);
                (room && spaced).then_some(Start::AboveFloor)
            }
        }
    }
}

/// Cumulative CPU time of the machine, in clock ticks: busy and in all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CpuTicks {
    /// Ticks spent neither idle nor waiting for I/O.
    pub busy: u64,
    /// All ticks.
    pub total: u64,
}

impl CpuTicks {
    /// The `cpu` line of `/proc/stat` (user nice system idle iowait irq
    /// softirq steal ...); None if `text` has none.
    pub fn parse(text: &str) -> Option<CpuTicks> {
        let line = text.lines().find(|l| l.starts_with("cpu "))?;
        let ticks: Vec<u64> = line
            .split_whitespace()
            .skip(1)
            .map(str::parse)
            .collect::<Result<_, _>>()
            .ok()?;
        // guest and guest_nice are already counted in user and nice.
        let total: u64 = ticks.iter().take(8).sum();
        let idle = ticks.get(3).copied()? + ticks.get(4).copied().unwrap_or(0);
        Some(CpuTicks {
            busy: total.saturating_sub(idle),
            total,
        })
    }

    /// The busy share between an earlier reading and this one.
    pub fn busy_since(self, earlier: CpuTicks) -> Option<f64> {
        let total = self.total.checked_sub(earlier.total)?;
        let busy = self.busy.checked_sub(earlier.busy)?;
        (total > 0).then(|| busy as f64 / total as f64)
    }
}

fn read_ticks() -> Option<CpuTicks> {
    CpuTicks::parse(&std::fs::read_to_string("/proc/stat").ok()?)
}

/// How often the load is sampled, over how long.
const SAMPLE_EVERY: Duration = Duration::from_millis(250);
const SAMPLE_OVER: usize = 4;
/// Above the floor, at most one start per this long (starts that refill
/// the floor do not count): a scenario's load shows only after it has
/// started.
pub const SPACING: Duration = Duration::from_millis(20);

#[derive(Debug, Default)]
struct Counts {
    running: usize,
    busy: Option<f64>,
    /// When the last scenario above the floor started.
    last_above_floor: Option<Instant>,
    /// Slow scenarios waiting to start: while any does, no other starts.
    slow_waiting: usize,
}

/// Admits scenarios as [`may_start`] says; see the module documentation.
#[derive(Debug)]
pub struct Throttle {
    concurrency: Concurrency,
    counts: Arc<Mutex<Counts>>,
    released: Arc<tokio::sync::Notify>,
    stop: CancellationToken,
}

impl Throttle {
    /// A throttle; a paced one samples the load in a task of the current
    /// Tokio runtime until it is dropped.
    pub fn new(concurrency: Concurrency) -> Throttle {
        let counts = Arc::new(Mutex::new(Counts::default()));
        let stop = CancellationToken::new();
        if matches!(concurrency, Concurrency::Paced { .. }) {
            let counts = counts.clone();
            let stop = stop.clone();
            tokio::spawn(async move {
                let mut window = std::collections::VecDeque::new();
                loop {
                    if let Some(now) = read_ticks() {
                        window.push_back(now);
                        if window.len() > SAMPLE_OVER + 1 {
                            window.pop_front();
                        }
                        let busy = window.front().and_then(|&first| now.busy_since(first));
                        lock(&counts).busy = busy;
                    }
                    tokio::select! {
                        () = stop.cancelled() => return,
                        () = tokio::time::sleep(SAMPLE_EVERY) => {}
                    }
                }
            });
        }
        Throttle {
            concurrency,
            counts,
            released: Arc::new(tokio::sync::Notify::new()),
            stop,
        }
    }

    /// The most scenarios that can be running at once.
    pub fn at_most(&self) -> usize {
        self.concurrency.at_most()
    }

    /// Waits until one more scenario may start and counts it as running;
    /// returns at once when `cancel` is cancelled (the run is ending). A
    /// `slow` scenario (tagged `@slow`) goes before every other waiting:
    /// the longest scenarios begin first, so the run does not end waiting
    /// on one that began late.
    pub async fn admit(&self, cancel: &CancellationToken, slow: bool) {
        let _in_line = slow.then(|| {
            lock(&self.counts).slow_waiting += 1;
            SlowInLine(self.counts.clone())
        });
        loop {
            let released = self.released.notified();
            {
                let mut c = lock(&self.counts);
                let since = c.last_above_floor.map(|t| t.elapsed());
                let start = may_start(self.concurrency, c.running, c.busy, since)
                    .filter(|_| slow || c.slow_waiting == 0);
                if let Some(start) = start {
                    tracing::debug!(running = c.running, busy = ?c.busy, slow, "a scenario starts");
                    c.running += 1;
                    if start == Start::AboveFloor {
                        c.last_above_floor = Some(Instant::now());
                    }
                    return;
                }
            }
            tokio::select! {
                () = cancel.cancelled() => return,
                () = released => {}
                () = tokio::time::sleep(SPACING) => {}
            }
        }
    }

    /// A scenario admitted by [`Throttle::admit`] has ended.
    pub fn release(&self) {
        let mut c = lock(&self.counts);
        c.running = c.running.saturating_sub(1);
        drop(c);
        // Every waiter looks: the one that may start is not necessarily the
        // first to have waited (a slow scenario goes first).
        self.released.notify_waiters();
    }
}

/// A slow scenario waiting in [`Throttle::admit`]; counted until the wait
/// ends, with a start or without one.
struct SlowInLine(Arc<Mutex<Counts>>);

impl Drop for SlowInLine {
    fn drop(&mut self) {
        let mut c = lock(&self.0);
        c.slow_waiting = c.slow_waiting.saturating_sub(1);
    }
}

/// A scenario [`Throttle::admit`] let start; dropping it releases its place.
#[derive(Debug)]
pub struct Admitted(pub Arc<Throttle>);

impl Drop for Admitted {
    fn drop(&mut self) {
        self.0.release();
    }
}

impl Drop for Throttle {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

fn lock(m: &Mutex<Counts>) -> std::sync::MutexGuard<'_, Counts> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PACED: Concurrency = Concurrency::Paced {
        at_least: 2,
        at_most: 4,
        busy_below: 0.7,
    };

    #[test]
    fn a_fixed_count_is_a_ceiling_whatever_the_load() {
        assert!(may_start(Concurrency::Fixed(3), 2, None, None).is_some());
        assert!(may_start(Concurrency::Fixed(3), 2, Some(1.0), None).is_some());
        assert!(may_start(Concurrency::Fixed(3), 3, Some(0.0), None).is_none());
    }

    #[test]
    fn paced_starts_the_floor_always_and_more_only_while_the_cores_are_free() {
        assert!(may_start(PACED, 1, None, None).is_some());
        assert!(may_start(PACED, 1, Some(1.0), None).is_some());
        assert!(
            may_start(PACED, 2, None, None).is_none(),
            "an unknown load admits only the floor"
        );
        assert!(may_start(PACED, 2, Some(0.7), None).is_none());
        assert!(may_start(PACED, 2, Some(0.69), None).is_some());
        assert!(may_start(PACED, 3, Some(0.1), None).is_some());
        assert!(
            may_start(PACED, 4, Some(0.0), None).is_none(),
            "never above the ceiling"
        );
        assert_eq!(
            may_start(PACED, 1, Some(0.1), None),
            Some(Start::WithinFloor)
        );
        assert_eq!(
            may_start(PACED, 2, Some(0.1), Some(SPACING)),
            Some(Start::AboveFloor)
        );
        assert_eq!(
            may_start(PACED, 2, Some(0.1), Some(SPACING / 2)),
            None,
            "above the floor, starts are spaced"
        );
        assert_eq!(
            may_start(PACED, 1, Some(0.1), Some(Duration::ZERO)),
            Some(Start::WithinFloor),
            "refilling the floor is not spaced"
        );
    }

    #[tokio::test]
    async fn a_paced_throttle_starts_more_than_its_floor_when_the_cores_are_free() {
        let free = Concurrency::Paced {
            at_least: 1,
            at_most: 3,
            busy_below: 1.01,
        };
        let throttle = Throttle::new(free);
        let cancel = CancellationToken::new();
        let admitted = tokio::time::timeout(Duration::from_secs(10), async {
            for _ in 0..3 {
                throttle.admit(&cancel, false).await;
            }
        })
        .await;
        assert!(admitted.is_ok(), "three scenarios admitted");
        assert_eq!(lock(&throttle.counts).running, 3);
        throttle.release();
        assert_eq!(lock(&throttle.counts).running, 2);
    }

    #[tokio::test]
    async fn a_slow_scenario_starts_before_the_others_waiting() {
        let throttle = Arc::new(Throttle::new(Concurrency::Fixed(1)));
        let cancel = CancellationToken::new();
        throttle.admit(&cancel, false).await;
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        for (name, slow) in [("quick", false), ("slow", true)] {
            let (mine, cancel, tx) = (throttle.clone(), cancel.clone(), tx.clone());
            tokio::spawn(async move {
                mine.admit(&cancel, slow).await;
                let _ = tx.send(name);
            });
        }
        while lock(&throttle.counts).slow_waiting == 0 {
            tokio::task::yield_now().await;
        }
        let mut order = Vec::new();
        for _ in 0..2 {
            throttle.release();
            let next = tokio::time::timeout(Duration::from_secs(5), rx.recv()).await;
            order.push(next.ok().flatten());
        }
        assert_eq!(order, [Some("slow"), Some("quick")]);
        assert_eq!(lock(&throttle.counts).slow_waiting, 0);
    }

    #[test]
    fn concurrency_parses_counts_and_auto() {
        assert_eq!("auto".parse(), Ok(Concurrency::EMBEDDED));
        assert_eq!("8".parse(), Ok(Concurrency::Fixed(8)));
        assert!("0"
            .parse::<Concurrency>()
            .unwrap_err()
            .contains("at least 1"));
        assert!("many"
            .parse::<Concurrency>()
            .unwrap_err()
            .contains("not a count"));
        assert_eq!(Concurrency::EMBEDDED.to_string(), "auto");
        assert_eq!(Concurrency::EMBEDDED.at_most(), 64);
    }

    #[test]
    fn the_busy_share_comes_from_two_readings_of_proc_stat() {
        let a = CpuTicks::parse("cpu  100 0 50 800 50 0 0 0 0 0\ncpu0 1 2 3 4\n").unwrap();
        assert_eq!(
            a,
            CpuTicks {
                busy: 150,
                total: 1000
            }
        );
        let b = CpuTicks::parse("cpu  160 0 70 820 50 0 0 0 0 0\n").unwrap();
        assert_eq!(b.busy_since(a), Some(0.8));
        assert_eq!(a.busy_since(a), None, "no time passed");
        assert_eq!(a.busy_since(b), None, "a reading from before");
        assert_eq!(CpuTicks::parse("intr 1 2 3"), None);
    }
}
