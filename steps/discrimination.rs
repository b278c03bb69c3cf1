//! `cargo test --features defects --test discrimination`: proves the spec
//! can fail. For every deliberate controller defect, the whole spec runs
//! against the defective controller and at least one scenario must fail;
//! against the correct controller every scenario must pass. A defect of the
//! OpenKruise stand-in runs under the OpenKruise profile
//! ([`Defect::target`]), whose claim the correct controller must pass too.
//!
//! A defect run stops at its first failed scenario (`--fail-fast`): one is
//! all the gate needs. `-- --count` runs the whole spec for every defect
//! instead and prints how many scenarios each one fails (the defect table
//! of docs/src/discrimination.md).

use std::process::{Command, ExitCode};

use kepspec::controller::defects::{Defect, VARIABLE};

/// A run's exit code and the lines of its failed scenarios.
type SpecResult = (Option<i32>, Vec<String>);

/// Runs the spec with a defect (or none) on a target (None: bundled);
/// returns the exit code and the failed scenarios' lines.
fn run_spec(defect: Option<&str>, target: Option<&str>, fail_fast: bool) -> SpecResult {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_kepspec"));
    cmd.args(["run", "--concurrency", "8"])
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
            let failed = stdout
                .lines()
                .filter(|l| l.starts_with("FAIL"))
                .map(|l| l.trim_start_matches("FAIL ").to_string())
                .collect();
            (out.status.code(), failed)
        }
        Err(err) => {
            eprintln!("cannot run kepspec: {err}");
            (None, Vec::new())
        }
    }
}

/// How many defect runs go at once.
const DEFECTS_AT_ONCE: usize = 3;

/// Runs the spec once per defect, `at_once` at a time; results in the order
/// of [`Defect::ALL`].
fn run_defects(at_once: usize, fail_fast: bool) -> Vec<(&'static str, SpecResult)> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Mutex;
    let next = AtomicUsize::new(0);
    let results = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..at_once.max(1) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some((name, _)) = Defect::ALL.get(i) else {
                    break;
                };
                let r = run_spec(Some(name), Defect::target(name), fail_fast);
                if let Ok(mut all) = results.lock() {
                    all.push((i, *name, r));
                }
            });
        }
    });
    let mut all = results.into_inner().unwrap_or_default();
    all.sort_by_key(|(i, _, _)| *i);
    all.into_iter().map(|(_, n, r)| (n, r)).collect()
}

fn main() -> ExitCode {
    let count = std::env::args().any(|a| a == "--count");
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
    for target in targets {
        let on = target.unwrap_or("the bundled target");
        let (code, failures) = run_spec(None, target, false);
        if code == Some(0) {
            println!("ok   the correct controller passes every scenario on {on}");
            passed += 1;
        } else {
            println!(
                "FAIL the correct controller fails {} scenario(s) on {on} (exit {code:?}):",
                failures.len()
            );
            for f in &failures {
                println!("       {f}");
            }
            failed += 1;
        }
    }
    // A defect run mostly waits (for timeouts of the checks it fails), so a
    // few run side by side; the correct controller ran alone above.
    let results = run_defects(DEFECTS_AT_ONCE, !count);
    for (name, (code, failures)) in results {
        if code == Some(1) && !failures.is_empty() {
            if count {
                println!("ok   {name}: caught by {} scenario(s)", failures.len());
            } else {
                println!("ok   {name}: caught (the run stopped at its first failure)");
            }
            for f in failures.iter().take(3) {
                println!("       {f}");
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
