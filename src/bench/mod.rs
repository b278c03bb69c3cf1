//! Benchmarks: how fast and how large kepspec's parts are, measured in one
//! process on loopback and reported as Markdown. Speed and memory are
//! measured here, never asserted in timed tests.
//!
//! - embedded cluster: [`cluster`] (start-up, create+delete throughput),
//!   [`memory`] (resident memory with many pods), [`watch`] (fan-out);
//! - controller: [`recreate`] (API writes per Recreate rollout, counted in
//!   the request log by user agent), [`plan`] (reconcile decision time);
//! - harness: [`checkers`] (every rule on a 100,000-entry timeline),
//!   [`scenario`] (fixed cost of a scenario), [`suite`] (`kepspec run`).
//!
//! [`run`] runs the benchmarks [`BenchOptions`] select, in the order of
//! [`BENCHMARKS`], and prints progress to stderr; a benchmark that fails is
//! reported as an error row and the others still run.

pub(crate) mod checkers;
pub(crate) mod cluster;
pub(crate) mod machine;
pub(crate) mod measure;
pub(crate) mod memory;
pub(crate) mod plan;
pub(crate) mod protobuf;
pub(crate) mod recreate;
pub(crate) mod report;
pub(crate) mod scenario;
pub(crate) mod suite;
pub(crate) mod support;
pub(crate) mod watch;
pub(crate) mod writes;

use std::time::Instant;

pub use machine::Machine;
pub use report::{Report, Row, Section, Verdict};

/// What to run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BenchOptions {
    /// Small sizes and few iterations (a smoke test, under 30 s); the full
    /// suite wall time is skipped.
    pub quick: bool,
    /// Run only the benchmarks whose name contains one of these
    /// comma-separated words (see [`BENCHMARKS`]).
    pub only: Option<String>,
    /// Another kepspec binary (e.g. the previous commit's build) to run the
    /// whole-spec benchmark with too, alternating with this one.
    pub baseline: Option<std::path::PathBuf>,
    /// The directory the baseline runs in (the current one when `None`).
    pub baseline_dir: Option<std::path::PathBuf>,
    /// Runs of the whole spec per binary (at least 1).
    pub rounds: u32,
}

/// Quick or full sizes, as passed to every benchmark.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mode {
    /// Quick mode.
    pub quick: bool,
}

impl Mode {
    /// `quick` in quick mode, `full` otherwise.
    pub fn pick<T>(self, quick: T, full: T) -> T {
        if self.quick {
            quick
        } else {
            full
        }
    }
}

/// A benchmark: the name `only` matches, and what it measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Benchmark {
    /// Short name.
    pub name: &'static str,
    /// What it measures.
    pub about: &'static str,
}

/// Every benchmark, in running order (memory early: see [`memory`]).
pub const BENCHMARKS: &[Benchmark] = &[
    Benchmark {
        name: "startup",
        about: "embedded cluster start to first GET /version",
    },
    Benchmark {
        name: "memory",
        about: "resident memory with 10,000 pods stored",
    },
    Benchmark {
        name: "crud",
        about: "create+delete throughput, 4 concurrent clients",
    },
    Benchmark {
        name: "watch",
        about: "50 watchers, delivery latency of pod creations",
    },
    Benchmark {
        name: "protobuf",
        about:
            "protobuf against JSON: a pod's size, encode and decode time; a list through the server",
    },
    Benchmark {
        name: "recreate",
        about: "controller writes per Recreate rollout of 3, 10, 30 pods; a 1,000-pod one's time",
    },
    Benchmark {
        name: "plan",
        about: "plan() time for a 1,000-replica set",
    },
    Benchmark {
        name: "checkers",
        about: "every history rule on a 100,000-entry timeline",
    },
    Benchmark {
        name: "scenario",
        about: "trivial scenario: namespace + recorder, start to cleanup",
    },
    Benchmark {
        name: "suite",
        about: "`kepspec run` wall time and CPU, beside a baseline binary's (full mode only)",
    },
];

/// The benchmarks `only` selects: all of them for `None`, otherwise those
/// whose name contains one of its comma-separated words. An error names the
/// benchmarks when the filter selects none.
pub fn select(only: Option<&str>) -> anyhow::Result<Vec<Benchmark>> {
    let Some(filter) = only else {
        return Ok(BENCHMARKS.to_vec());
    };
    let words: Vec<String> = filter
        .split(',')
        .map(|w| w.trim().to_ascii_lowercase())
        .filter(|w| !w.is_empty())
        .collect();
    let chosen: Vec<Benchmark> = BENCHMARKS
        .iter()
        .filter(|b| words.iter().any(|w| b.name.contains(w.as_str())))
        .copied()
        .collect();
    if chosen.is_empty() {
        let names: Vec<&str> = BENCHMARKS.iter().map(|b| b.name).collect();
        anyhow::bail!(
            "no benchmark matches {filter:?}; the benchmarks are: {}",
            names.join(", ")
        );
    }
    Ok(chosen)
}

/// Runs the selected benchmarks and returns the report.
pub async fn run(opts: BenchOptions) -> anyhow::Result<Report> {
    let chosen = select(opts.only.as_deref())?;
    let mode = Mode { quick: opts.quick };
    let started = jiff::Timestamp::now();
    let t0 = Instant::now();
    let machine = Machine::detect();
    let mut sections = Vec::with_capacity(chosen.len());
    for b in chosen {
        eprintln!("bench: {} — {}", b.name, b.about);
        let t = Instant::now();
        let mut section = match run_one(b.name, mode, &opts).await {
            Ok(s) => s,
            Err(err) => {
                eprintln!("bench: {} failed: {err:#}", b.name);
                Section::failed(b.name, b.about, &err)
            }
        };
        section.elapsed = t.elapsed();
        eprintln!(
            "bench: {} done in {:.1} s",
            b.name,
            section.elapsed.as_secs_f64()
        );
        sections.push(section);
    }
    Ok(Report {
        quick: opts.quick,
        started,
        elapsed: t0.elapsed(),
        machine,
        sections,
    })
}

async fn run_one(name: &str, mode: Mode, opts: &BenchOptions) -> anyhow::Result<Section> {
    match name {
        "startup" => cluster::startup(mode).await,
        "memory" => memory::stored_pods(mode).await,
        "crud" => cluster::crud(mode).await,
        "watch" => watch::fan_out(mode).await,
        "protobuf" => protobuf::costs(mode).await,
        "recreate" => recreate::writes(mode).await,
        "plan" => plan::reconcile(mode).await,
        "checkers" => checkers::rules(mode).await,
        "scenario" => scenario::overhead(mode).await,
        "suite" => {
            suite::wall_time(
                mode,
                opts.baseline.as_deref(),
                opts.baseline_dir.as_deref(),
                opts.rounds,
            )
            .await
        }
        other => anyhow::bail!("unknown benchmark {other}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(only: Option<&str>) -> Vec<&'static str> {
        select(only).unwrap().iter().map(|b| b.name).collect()
    }

    #[test]
    fn only_selects_by_name_words() {
        assert_eq!(names(None).len(), BENCHMARKS.len());
        assert_eq!(names(Some("plan")), vec!["plan"]);
        assert_eq!(names(Some(" Watch , suite")), vec!["watch", "suite"]);
        let err = select(Some("nothing")).unwrap_err().to_string();
        assert!(err.contains("startup, memory"), "{err}");
        assert!(select(Some(",")).is_err());
    }

    #[test]
    fn an_unknown_benchmark_is_an_error() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let err = rt
            .block_on(run_one(
                "nope",
                Mode { quick: true },
                &BenchOptions::default(),
            ))
            .unwrap_err();
        assert!(err.to_string().contains("unknown benchmark"));
    }

    #[test]
    fn mode_picks_sizes() {
        assert_eq!(Mode { quick: true }.pick(1, 2), 1);
        assert_eq!(Mode { quick: false }.pick(1, 2), 2);
    }
}
