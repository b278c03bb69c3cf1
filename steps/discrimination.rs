//! `cargo test --test discrimination`: proves the spec
//! can fail. For every deliberate controller defect, the whole spec runs
//! against the defective controller and at least one scenario must fail;
//! against the correct controller every scenario must pass. A defect of the
//! OpenKruise stand-in runs under the OpenKruise profile
//! ([`Defect::target`]), whose claim the correct controller must pass too.
//!
//! A defect run stops at its first failed scenario (`--fail-fast`): one is
//! all the gate needs. Each defect first runs the scenario that caught it
//! before, recorded in `steps/catches.txt`; only when that one no longer
//! catches it (a scenario moved or changed) does the whole spec run. Either
//! way a scenario of the spec as it is now has failed against the defect.
//! `-- --write-catches` rewrites the record from this run's catches.
//! `-- --defects-only` leaves out the correct controller's runs, for a
//! caller that has just run them (CI runs `cargo test`, whose `spec` and
//! `kruise` tests are those same runs, right before).
//! `-- --count` runs the whole spec for every defect instead and prints how
//! many scenarios each one fails (the defect table of
//! docs/src/discrimination.md).

use std::process::{Command, ExitCode};

use kepspec::controller::defects::{Defect, VARIABLE};

/// A run's exit code and its failed scenarios: each the scenario's line,
/// then the lines that say why (the failed step and its message).
type SpecResult = (Option<i32>, Vec<String>);

/// The record of which scenario caught each defect, relative to the
/// package root: `defect features/x.feature:LINE [SECONDS]` per line, `#`
/// comments. SECONDS is how long that catch took when it was recorded.
const CATCHES: &str = "steps/catches.txt";

/// The recorded catches: by defect, the catching scenarios and the longest
/// time one took.
#[derive(Default)]
struct Record {
    scenarios: std::collections::HashMap<String, Vec<String>>,
    seconds: std::collections::HashMap<String, f64>,
}

/// Reads [`CATCHES`].
fn read_catches() -> Record {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(CATCHES);
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut out = Record::default();
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut words = line.split_whitespace();
        let (Some(defect), Some(location)) = (words.next(), words.next()) else {
            continue;
        };
        out.scenarios
            .entry(defect.to_string())
            .or_default()
            .push(location.to_string());
        if let Some(secs) = words.next().and_then(|w| w.parse::<f64>().ok()) {
            let longest = out.seconds.entry(defect.to_string()).or_default();
            *longest = longest.max(secs);
        }
    }
    out
}

/// The order defects run in: the longest recorded catches first, unknown
/// ones before all (they may need the whole spec), so that the runs side
/// by side end together rather than with one long catch left alone.
fn longest_first(record: &Record) -> Vec<usize> {
    let secs = |i: usize| {
        Defect::ALL
            .get(i)
            .and_then(|(n, _)| record.seconds.get(*n).copied())
            .unwrap_or(f64::INFINITY)
    };
    let mut order: Vec<usize> = (0..Defect::ALL.len()).collect();
    order.sort_by(|a, b| secs(*b).total_cmp(&secs(*a)));
    order
}

/// How long a failed scenario took: the `(12.3s)` its line ends with.
fn seconds_of(failure: &str) -> Option<f64> {
    headline(failure)
        .rsplit_once('(')?
        .1
        .strip_suffix("s)")?
        .parse()
        .ok()
}

/// The `file:line` a failed scenario's line starts with.
fn location(failure: &str) -> &str {
    failure.split_whitespace().next().unwrap_or_default()
}

/// Runs the spec (or only the scenarios at `only`, when given) with a
/// defect (or none) on a target (None: bundled); returns the exit code and
/// the failed scenarios' lines.
fn run_spec(
    defect: Option<&str>,
    target: Option<&str>,
    fail_fast: bool,
    only: &[String],
) -> SpecResult {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_kepspec"));
    cmd.args(["run", "--concurrency", "8"])
        .args(only)
        .current_dir(env!("CARGO_MANIFEST_DIR"));
    if fail_fast {
        cmd.arg("--fail-fast");
    }
    if let Some(t) = target {
        cmd.args(["--target", t]);
    }
    match defect {
        Some(d) => cmd.env(VARIABLE, d),
        None => cmd.env_remove(VARIABLE),
    };
    match cmd.output() {
        Ok(out) => {
            let stdout = String::from_utf8_lossy(&out.stdout);
            (out.status.code(), failures(&stdout))
        }
        Err(err) => {
            eprintln!("cannot run kepspec: {err}");
            (None, Vec::new())
        }
    }
}

/// The failed scenarios of a run's output: a `FAIL` line and the indented
/// lines under it.
fn failures(stdout: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut under_fail = false;
    for line in stdout.lines() {
        if let Some(rest) = line.strip_prefix("FAIL ") {
            out.push(rest.to_string());
            under_fail = true;
        } else if under_fail && line.starts_with("       ") {
            if let Some(last) = out.last_mut() {
                last.push('\n');
                last.push_str(line);
            }
        } else {
            under_fail = false;
        }
    }
    out
}

/// The first line of a failure (the scenario's location and name).
fn headline(failure: &str) -> &str {
    failure.lines().next().unwrap_or_default()
}

/// How many defect runs go at once: a defect's catch mostly waits for the
/// timeout of the check it fails, so more go side by side than there are
/// cores.
const DEFECTS_AT_ONCE: usize = 8;

/// How a defect was caught.
#[derive(Clone, Copy, PartialEq)]
enum Caught {
    /// By the scenario recorded in [`CATCHES`].
    ByRecord,
    /// By a run of the whole spec.
    ByWholeSpec,
}

/// Runs one defect: its recorded scenarios first (unless `count`), then the
/// whole spec if they did not catch it.
fn run_defect(name: &str, count: bool, catches: &[String]) -> (SpecResult, Caught) {
    let target = Defect::target(name);
    if !count && !catches.is_empty() {
        let r = run_spec(Some(name), target, true, catches);
        if r.0 == Some(1) && !r.1.is_empty() {
            return (r, Caught::ByRecord);
        }
    }
    (
        run_spec(Some(name), target, !count, &[]),
        Caught::ByWholeSpec,
    )
}

/// Runs every defect, `at_once` at a time, the longest recorded catches
/// first; results in the order of [`Defect::ALL`].
fn run_defects(at_once: usize, count: bool) -> Vec<(&'static str, SpecResult, Caught)> {
    let catches = read_catches();
    let order = longest_first(&catches);
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Mutex;
    let next = AtomicUsize::new(0);
    let results = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..at_once.max(1) {
            s.spawn(|| {
                while let Some(&i) = order.get(next.fetch_add(1, Ordering::SeqCst)) {
                    let Some((name, _)) = Defect::ALL.get(i) else {
                        break;
                    };
                    let recorded = catches.scenarios.get(*name).cloned().unwrap_or_default();
                    let (r, how) = run_defect(name, count, &recorded);
                    if let Ok(mut all) = results.lock() {
                        all.push((i, *name, r, how));
                    }
                }
            });
        }
    });
    let mut all = results.into_inner().unwrap_or_default();
    all.sort_by_key(|(i, _, _, _)| *i);
    all.into_iter().map(|(_, n, r, how)| (n, r, how)).collect()
}

/// Writes [`CATCHES`]: for each defect, the first scenario that failed.
fn write_catches(results: &[(&str, SpecResult, Caught)]) -> std::io::Result<()> {
    let mut text = String::from(
        "# Which scenario caught each deliberate defect, so the discrimination test\n\
         # runs it first (steps/discrimination.rs). Rewritten by\n\
         # `cargo test --test discrimination -- --write-catches`.\n\
         # Each line: the defect, the scenario, and how many seconds the catch took.\n",
    );
    for (name, (_, failures), _) in results {
        if let Some(f) = failures.first() {
            let secs = seconds_of(f)
                .map(|s| format!(" {s:.1}"))
                .unwrap_or_default();
            text.push_str(&format!("{name} {}{secs}\n", location(f)));
        }
    }
    std::fs::write(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(CATCHES),
        text,
    )
}

fn main() -> ExitCode {
    let count = std::env::args().any(|a| a == "--count");
    let write = std::env::args().any(|a| a == "--write-catches");
    let defects_only = std::env::args().any(|a| a == "--defects-only");
    let mut passed = 0;
    let mut failed = 0;
    let mut targets: Vec<Option<&str>> = vec![None];
    targets.extend(
        Defect::ALL
            .iter()
            .filter_map(|(n, _)| Defect::target(n))
            .map(Some),
    );
    targets.dedup();
    if defects_only {
        targets.clear();
        println!("skip the correct controller's runs (--defects-only)");
    }
    for target in targets {
        let on = target.unwrap_or("the bundled target");
        let (code, failures) = run_spec(None, target, false, &[]);
        if code == Some(0) {
            println!("ok   the correct controller passes every scenario on {on}");
            passed += 1;
        } else {
            println!(
                "FAIL the correct controller fails {} scenario(s) on {on} (exit {code:?}):",
                failures.len()
            );
            for f in &failures {
                // The whole failure: a correct controller's failure is a
                // flaky or wrong scenario, and CI's log is all there is.
                for l in f.lines() {
                    println!("       {}", l.trim_start());
                }
            }
            failed += 1;
        }
    }
    // A defect run mostly waits (for timeouts of the checks it fails), so a
    // few run side by side; the correct controller ran alone above.
    let results = run_defects(DEFECTS_AT_ONCE, count);
    if write {
        if let Err(err) = write_catches(&results) {
            println!("FAIL cannot write {CATCHES}: {err}");
            failed += 1;
        }
    }
    for (name, (code, failures), how) in results {
        if code == Some(1) && !failures.is_empty() {
            if count {
                println!("ok   {name}: caught by {} scenario(s)", failures.len());
            } else if how == Caught::ByRecord {
                println!("ok   {name}: caught by the scenario recorded in {CATCHES}");
            } else {
                println!(
                    "ok   {name}: caught by the whole spec (the run stopped at its first failure; \
                     `-- --write-catches` records the scenario)"
                );
            }
            for f in failures.iter().take(3) {
                println!("       {}", headline(f));
            }
            passed += 1;
        } else {
            println!("FAIL {name}: no scenario failed (exit {code:?})");
            failed += 1;
        }
    }
    println!("{passed} passed, {failed} failed");
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
