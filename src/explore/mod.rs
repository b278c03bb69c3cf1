//! `kepspec explore`: run one scenario once to record every write the
//! controller makes after the scenario's crash-point step, then rerun it with
//! a controller restart (or a failed request) right after each of those
//! writes in turn, checking the scenario's own properties each time, and
//! report which points break what.

pub mod crash_point;
mod report;

use std::sync::Arc;
use std::time::Instant;

use crate::cli::{ExploreArgs, EXIT_ERROR, EXIT_FAILED, EXIT_PASSED};
use crate::harness::env::{Environment, EnvironmentOptions};
use crate::report::model::{self, Status};
use crate::run::features::Selection;
use crate::run::runner::{self, RunOptions, ScenarioWorld};
pub use crash_point::Instruction;
pub use report::{Point, Verdict};

/// Runs the exploration the arguments ask for; returns the exit code.
pub async fn explore<W: ScenarioWorld>(args: &ExploreArgs) -> u8 {
    match explore_inner::<W>(args).await {
        Ok(points) => {
            if points.iter().all(|p| p.verdict.passed()) {
                EXIT_PASSED
            } else {
                EXIT_FAILED
            }
        }
        Err(err) => {
            eprintln!("error: {err:#}");
            EXIT_ERROR
        }
    }
}

async fn explore_inner<W: ScenarioWorld>(args: &ExploreArgs) -> anyhow::Result<Vec<Point>> {
    let paths = if args.features.is_empty() {
        vec!["features/faults".into()]
    } else {
        args.features.clone()
    };
    let features = runner::load::<W>(&paths).map_err(|problems| {
        anyhow::anyhow!(problems
            .iter()
            .map(|p| p.to_string())
            .collect::<Vec<_>>()
            .join("\n"))
    })?;
    let selection = Selection::new(None, Some(&args.name)).map_err(|p| anyhow::anyhow!("{p}"))?;
    // Exactly one scenario, decided before anything runs.
    let plan = crate::run::roster::Roster::new(&features, &selection, |_| None);
    match plan.scenarios.as_slice() {
        [_] => {}
        [] => anyhow::bail!("--name {} selects no scenario", args.name),
        many => anyhow::bail!(
            "--name {} selects {} scenarios ({}); it must select exactly one",
            args.name,
            many.len(),
            many.iter()
                .map(|p| format!("{}:{} {}", p.path, p.line, p.name))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
    let features = plan.prune(&features);
    if let Some(code) = args.fail {
        crate::harness::faults::fault_code(code).map_err(|e| anyhow::anyhow!(e))?;
    }
    let opts = EnvironmentOptions {
        bundled_controller: false,
        ..EnvironmentOptions::default()
    };
    let env = Arc::new(Environment::start(&opts).await?);
    let run_opts = RunOptions {
        concurrency: crate::run::throttle::Concurrency::Fixed(1),
        progress: false,
        ..RunOptions::default()
    };
    let started = Instant::now();

    crash_point::set(Some(Instruction::Record));
    let baseline = runner::run_once::<W>(env.clone(), features.clone(), &run_opts)
        .await
        .run;
    let scenario = only_scenario(&baseline)?;
    let writes = crash_point::writes();
    println!(
        "scenario: {} ({})",
        scenario.name,
        report::baseline_line(scenario, writes.len())
    );
    if scenario.status != Status::Passed {
        crash_point::set(None);
        anyhow::bail!("the scenario fails without any fault; explore needs a passing scenario");
    }
    if writes.is_empty() {
        crash_point::set(None);
        anyhow::bail!(
            "no controller write was recorded: the scenario needs the step \"the controller may crash after any of its writes\" before its action"
        );
    }
    let mode = match args.fail {
        Some(code) => format!("the controller's write failing with {code}"),
        None => "a controller restart right after the write".to_string(),
    };
    println!("{} crash points: {mode}", writes.len());
    let mut points = Vec::new();
    for (i, write) in writes.iter().enumerate() {
        let n = i as u64 + 1;
        crash_point::set(Some(match args.fail {
            Some(code) => Instruction::FailWrite(n, code),
            None => Instruction::CrashAfter(n),
        }));
        let t0 = Instant::now();
        let run = runner::run_once::<W>(env.clone(), features.clone(), &run_opts)
            .await
            .run;
        let hit = crash_point::writes().into_iter().next();
        let point = Point::new(
            n,
            write,
            hit.as_ref(),
            only_scenario(&run).ok(),
            t0.elapsed(),
        );
        println!("{}", point.line());
        points.push(point);
    }
    crash_point::set(None);
    println!("{}", report::summary(&points, started.elapsed()));
    if let Ok(env) = Arc::try_unwrap(env) {
        env.shutdown().await;
    }
    Ok(points)
}

fn only_scenario(run: &model::Run) -> anyhow::Result<&model::ScenarioResult> {
    let all: Vec<&model::ScenarioResult> = run.features.iter().flat_map(|f| &f.scenarios).collect();
    match all.as_slice() {
        [one] => Ok(one),
        [] => anyhow::bail!("--name selects no scenario"),
        many => anyhow::bail!(
            "--name selects {} scenarios ({}); it must select exactly one",
            many.len(),
            many.iter()
                .map(|s| s.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}
