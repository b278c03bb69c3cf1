//! `kepspec run`: the main job, from the command line's options to an exit
//! code, with the reports written on the way.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use std::time::Duration;

use super::env::{Environment, EnvironmentOptions};
use super::features::Selection;
use super::interrupt::{Interrupt, EXIT_INTERRUPTED};
use super::plan::RunPlan;
use super::runner::{self, RunOptions, ScenarioWorld};
use super::verdict::{self, Expectations, Requirement};
use crate::cli::{ClusterChoice, RunArgs, TargetChoice, EXIT_ERROR, EXIT_PASSED};
use crate::report::{self, model};
use crate::target::{ClusterFacts, FeatureGates, Profile, Shard};

/// Runs the specification as the options say; returns the exit code.
pub async fn run<W: ScenarioWorld>(args: &RunArgs) -> u8 {
    let features = match runner::load::<W>(&args.feature_paths()) {
        Ok(f) => f,
        Err(problems) => {
            for p in &problems {
                eprintln!("error: {p}");
            }
            return EXIT_ERROR;
        }
    };
    if let Err(msg) = check_outputs(args) {
        eprintln!("error: {msg}");
        return EXIT_ERROR;
    }
    let profile = match Profile::resolve(&args.target) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_ERROR;
        }
    };
    let tags = profile.selection_with(args.tags.as_deref());
    let mut selection = match Selection::new(tags.as_deref(), args.name.as_deref()) {
        Ok(s) => s,
        Err(p) => {
            eprintln!("error: {p}");
            return EXIT_ERROR;
        }
    };
    match args.shard.as_deref().map(str::parse::<Shard>).transpose() {
        Ok(shard) => selection.shard = shard,
        Err(e) => {
            eprintln!("error: --shard: {e}");
            return EXIT_ERROR;
        }
    }
    if args.cluster == ClusterChoice::Kind {
        return super::on_kind::run::<W>(args, &profile).await;
    }
    if args.dry_run {
        println!(
            "# --cluster {}: nothing to provision; the scenarios run in-process",
            target_name(args)
        );
        return EXIT_PASSED;
    }
    let env_opts = match environment_options(args, &profile) {
        Ok(o) => o,
        Err(msg) => {
            eprintln!("error: {msg}");
            return EXIT_ERROR;
        }
    };
    run_selected::<W>(args, features, selection, env_opts).await
}

/// What the cluster can run: read from it, with the gates the user gave.
async fn cluster_facts(env: &Environment, given: &FeatureGates) -> ClusterFacts {
    crate::cluster::facts::read(&env.client, env.embedded.is_some(), given).await
}

/// Why a scenario the selection takes is reported as skipped on this
/// target and cluster, or None when it runs.
fn skip_of(p: &super::plan::Planned, env: &Environment, facts: &ClusterFacts) -> Option<String> {
    let explore = format!("@{}", crate::explore::plan::EXPLORE_TAG);
    if p.tags.contains(&explore) {
        return Some(crate::explore::plan::EXPLORE_SKIP.to_string());
    }
    if p.tags.iter().any(|t| t == "@metrics") && env.controller_metrics().is_none() {
        return Some(format!(
            "reads the controller's metrics, which kepspec reads only from the bundled controller running in-process (target {})",
            env.profile.name()
        ));
    }
    env.profile.skip_reason(&p.name, &p.tags, facts)
}

/// Adds the scenarios of the plan that have no result (skipped by the plan,
/// or never started: an interrupt or --fail-fast) to a run's results.
fn complete_from_plan(run: &mut model::Run, plan: &RunPlan, rounds: usize, not_run: &str) {
    let rounds = rounds.max(1);
    for p in &plan.scenarios {
        let names: Vec<(Option<u32>, String)> = if p.skip.is_some() || rounds == 1 {
            vec![(None, p.name.clone())]
        } else {
            (1..=rounds)
                .map(|r| (Some(r as u32), format!("{} (run {r})", p.name)))
                .collect()
        };
        for (round, name) in names {
            let present = run
                .features
                .iter()
                .filter(|f| f.path == p.path)
                .flat_map(|f| &f.scenarios)
                .any(|s| s.line == p.line && s.name == name);
            if present {
                continue;
            }
            let reason = p.skip.clone().unwrap_or_else(|| not_run.to_string());
            if p.skip.is_some() {
                super::out::line(format!("skip {}:{} {} ({reason})", p.path, p.line, p.name));
            }
            let mut entry = model::Scenario::new(
                name,
                p.line,
                p.tags.clone(),
                model::Status::Skipped { reason },
            );
            entry.round = round;
            match run.features.iter_mut().find(|x| x.path == p.path) {
                Some(feature) => feature.scenarios.push(entry),
                None => run.features.push(model::Feature {
                    name: p.feature.clone(),
                    path: p.path.clone(),
                    scenarios: vec![entry],
                }),
            }
        }
    }
    // File order, then line, then round.
    run.features.sort_by(|a, b| a.path.cmp(&b.path));
    for f in &mut run.features {
        f.scenarios.sort_by_key(|s| (s.line, s.round));
    }
}

/// The report folder and JUnit file can be written: checked before the
/// run, so a typo does not cost a whole run's results.
fn check_outputs(args: &RunArgs) -> Result<(), String> {
    if let Some(dir) = &args.report {
        std::fs::create_dir_all(dir)
            .and_then(|()| {
                let probe = dir.join(".kepspec-write-check");
                std::fs::write(&probe, b"")?;
                std::fs::remove_file(&probe)
            })
            .map_err(|e| format!("--report {}: cannot write there: {e}", dir.display()))?;
    }
    if let Some(file) = &args.junit {
        let parent = file
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        std::fs::create_dir_all(parent).map_err(|e| {
            format!(
                "--junit {}: cannot create {}: {e}",
                file.display(),
                parent.display()
            )
        })?;
        if file.is_dir() {
            return Err(format!(
                "--junit {}: is a folder, not a file",
                file.display()
            ));
        }
    }
    Ok(())
}

/// The word `--target` takes for a target.
pub fn target_label(t: &TargetChoice) -> String {
    match t {
        TargetChoice::Bundled => "bundled".into(),
        TargetChoice::Upstream => "upstream".into(),
        TargetChoice::Profile(p) => p.display().to_string(),
    }
}

async fn run_selected<W: ScenarioWorld>(
    args: &RunArgs,
    features: Vec<cucumber::gherkin::Feature>,
    selection: Selection,
    env_opts: EnvironmentOptions,
) -> u8 {
    let interrupt = Interrupt::install();
    let cancelled = interrupt.token();
    let env = tokio::select! {
        env = Environment::start(&env_opts) => match env {
            Ok(env) => Arc::new(env),
            Err(err) => {
                eprintln!("error: {err:#}");
                return EXIT_ERROR;
            }
        },
        _ = cancelled.cancelled() => return EXIT_INTERRUPTED,
    };
    let given = match (&args.cluster, args.feature_gates.as_deref()) {
        (ClusterChoice::Kubeconfig(_), Some(spec)) => match FeatureGates::parse(spec) {
            Ok(g) => g,
            Err(e) => {
                eprintln!("error: --feature-gates: {e}");
                return EXIT_ERROR;
            }
        },
        _ => FeatureGates::default(),
    };
    let facts = cluster_facts(&env, &given).await;
    super::out::text_raw(&facts.describe());
    let plan = RunPlan::new(&features, &selection, |p| skip_of(p, &env, &facts));
    let opts = RunOptions {
        concurrency: args.concurrency(),
        fail_fast: args.fail_fast,
        keep_on_failure: args.keep_on_failure,
        progress: true,
        artifacts: args.report.clone(),
        rounds: args.repeat,
        keep_passed_timelines: args.repeat <= 1,
        cancel: interrupt.token(),
    };
    let outcome = runner::run_once::<W>(env.clone(), plan.prune(&features), &opts).await;
    let mut total = outcome.run;
    total.target = target_name(args);
    total.properties = facts.properties();
    if outcome.interrupted {
        let left = env.delete_live_namespaces(Duration::from_secs(30)).await;
        if !left.is_empty() {
            eprintln!(
                "warning: could not delete these scenario namespaces: {}",
                left.join(", ")
            );
        }
        total
            .problems
            .push("the run was interrupted: scenarios not finished are reported as skipped".into());
    }
    env.stop().await;
    let not_run = if outcome.interrupted {
        "not run: the run was interrupted"
    } else {
        "not run: --fail-fast stopped the run after a failure"
    };
    complete_from_plan(&mut total, &plan, args.repeat, not_run);
    let expect = Expectations {
        allow_empty: args.allow_empty,
        require: match args.require.iter().map(|r| Requirement::parse(r)).collect() {
            Ok(r) => r,
            Err(e) => {
                eprintln!("error: {e}");
                return EXIT_ERROR;
            }
        },
        selection: selection_words(args),
    };
    let verdict = verdict::verdict(&total, &expect);
    total.problems.extend(verdict.problems.iter().cloned());
    print_summary(&total);
    for p in &total.problems {
        eprintln!("error: {p}");
    }
    if let Err(err) = write_reports(&total, args) {
        eprintln!("error: cannot write reports: {err}");
        return EXIT_ERROR;
    }
    if outcome.interrupted {
        return EXIT_INTERRUPTED;
    }
    if runner::has_input_error(&total) {
        return EXIT_ERROR;
    }
    verdict.code
}

/// The selection in the user's words: `features/x --tags '...' --name '...'`.
fn selection_words(args: &RunArgs) -> String {
    let mut words: Vec<String> = args
        .feature_paths()
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    if let Some(t) = &args.tags {
        words.push(format!("--tags '{t}'"));
    }
    if let Some(n) = &args.name {
        words.push(format!("--name '{n}'"));
    }
    if let Some(s) = &args.shard {
        words.push(format!("--shard {s}"));
    }
    if !matches!(args.target, TargetChoice::Bundled) {
        words.push(format!("--target {}", target_label(&args.target)));
    }
    words.join(" ")
}

fn target_name(args: &RunArgs) -> String {
    let cluster = match &args.cluster {
        ClusterChoice::Embedded => "embedded".to_string(),
        ClusterChoice::Kubeconfig(p) => format!(
            "kubeconfig {}",
            p.as_ref()
                .map(|p| p.display().to_string())
                .unwrap_or_default()
        ),
        ClusterChoice::Kind => "kind".to_string(),
    };
    format!("{} on {cluster}", target_label(&args.target))
}

/// What the options ask to start.
pub fn environment_options(
    args: &RunArgs,
    profile: &Profile,
) -> Result<EnvironmentOptions, String> {
    let mut opts = EnvironmentOptions {
        profile: profile.clone(),
        root: std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")),
        ..EnvironmentOptions::default()
    };
    match &args.cluster {
        ClusterChoice::Embedded => {
            let version = args.kube_version.unwrap_or(crate::sim::DEFAULT_VERSION);
            opts.kube_version = version;
            let spec = args.feature_gates.as_deref().unwrap_or("");
            opts.apiserver_gates = crate::sim::admission::ApiGates::parse_for(spec, version)
                .map_err(|e| format!("--feature-gates: {e}"))?;
            opts.controller_gates = crate::controller::ControllerGates::parse_for(spec, version)
                .map_err(|e| format!("--feature-gates: {e}"))?;
        }
        ClusterChoice::Kubeconfig(path) => {
            if args.kube_version.is_some() {
                return Err("--kube-version sets the version the embedded cluster plays; a real cluster reports its own".into());
            }
            opts.embedded = false;
            opts.kubeconfig = path.clone();
        }
        ClusterChoice::Kind => return Err("--cluster kind is provisioned by `run_on_kind`".into()),
    }
    // On the embedded cluster the bundled controller runs in-process for
    // the bundled target, and stands in for any target whose profile says
    // how (its CRDs, the implementation to behave as). On an existing
    // cluster the implementation under test is expected to run there.
    let embedded = args.cluster == ClusterChoice::Embedded;
    if embedded && !profile.has_stand_in() {
        return Err(format!(
            "target {} runs only on a real cluster (--cluster kind or kubeconfig): its profile declares no standIn for the embedded cluster",
            target_label(&args.target)
        ));
    }
    opts.bundled_controller = embedded;
    if let Some(b) = profile.behave_as() {
        let implementation = b
            .parse::<crate::controller::behave::Implementation>()
            .map_err(|e| format!("{}: spec.standIn.behaveAs: {e}", profile.name()))?;
        opts.implementation = implementation;
        opts.apiserver_gates.implementation = implementation;
    }
    Ok(opts)
}

/// The summary table printed at the end of a run.
pub fn summary_table(run: &model::Run) -> String {
    let mut out = String::new();
    out.push_str(&format!(
        "{:<60} {:>6} {:>9} {:>6} {:>7} {:>8}\n",
        "feature", "passed", "deviation", "failed", "skipped", "time"
    ));
    for f in &run.features {
        let t = f.totals();
        out.push_str(&format!(
            "{:<60} {:>6} {:>9} {:>6} {:>7} {:>7.1}s\n",
            truncate(&f.path, 60),
            t.passed - t.with_deviation,
            t.with_deviation,
            t.failed + t.not_implemented,
            t.skipped,
            f.duration().as_secs_f64()
        ));
    }
    let t = run.totals();
    out.push_str(&format!(
        "{} scenarios in {:.1}s ({})\n",
        t.scenarios,
        run.duration.as_secs_f64(),
        run.target
    ));
    let mut reasons: std::collections::BTreeMap<&str, usize> = Default::default();
    for s in run.features.iter().flat_map(|f| &f.scenarios) {
        if let model::Status::Skipped { reason } = &s.status {
            *reasons.entry(reason.as_str()).or_default() += 1;
        }
    }
    if !reasons.is_empty() {
        out.push_str("skipped, by reason:\n");
        let mut reasons: Vec<(&str, usize)> = reasons.into_iter().collect();
        reasons.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        for (reason, n) in reasons {
            out.push_str(&format!("  {n:>4}  {reason}\n"));
        }
    }
    // The closing line CI systems read.
    out.push_str(&format!(
        "{} passed ({} with declared deviations), {} failed, {} skipped\n",
        t.passed,
        t.with_deviation,
        t.failed + t.not_implemented,
        t.skipped
    ));
    out
}

fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let tail: String = s
            .chars()
            .rev()
            .take(n - 1)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        format!("…{tail}")
    }
}

fn print_summary(run: &model::Run) {
    super::out::line("");
    super::out::text_raw(&summary_table(run));
}

fn write_reports(run: &model::Run, args: &RunArgs) -> std::io::Result<()> {
    if let Some(path) = &args.junit {
        report::write_file(path, &report::junit::render(run))?;
    }
    if let Some(dir) = &args.report {
        std::fs::create_dir_all(dir)?;
        report::write_file(&dir.join("index.html"), &report::html::render(run))?;
        let json = report::json::render(run).map_err(std::io::Error::other)?;
        report::write_file(&dir.join("result.json"), &json)?;
        let table = report::comparison::table(run, |f, s| format!("s{f}-{s}"));
        if !table.is_empty() {
            report::write_file(
                &dir.join("comparison.md"),
                &report::comparison::markdown(&table),
            )?;
        }
        super::out::line(format!(
            "report: {}",
            Path::new(dir).join("index.html").display()
        ));
    }
    Ok(())
}
