//! `kepspec run`: the main job, from the command line's options to an exit
//! code, with the reports written on the way.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::env::{Environment, EnvironmentOptions};
use super::features::Selection;
use super::runner::{self, RunOptions, ScenarioWorld};
use crate::cli::{ClusterChoice, RunArgs, TargetChoice, EXIT_ERROR, EXIT_FAILED, EXIT_PASSED};
use crate::cluster::kind::{self, KindPlan, KindTarget};
use crate::report::{self, model};
use crate::target::gating::kind_config_for;
use crate::target::{ClusterFacts, FeatureGates, Profile, Shard, Version};
use cucumber::gherkin::Feature;

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
        return run_on_kind::<W>(args, &profile).await;
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

/// What a cluster can run: its version and gates (the embedded cluster can run everything).
async fn cluster_facts(env: &Environment) -> ClusterFacts {
    let version = match env.client.apiserver_version().await {
        Ok(info) => Version::of_server(&info).unwrap_or(Version { major: 1, minor: 0 }),
        Err(_) => Version { major: 1, minor: 0 },
    };
    let gates = match std::env::var("KEPSPEC_CLUSTER_FEATURE_GATES") {
        Ok(spec) => FeatureGates::parse(&spec).unwrap_or_default(),
        Err(_) => FeatureGates::default(),
    };
    ClusterFacts {
        embedded: env.embedded.is_some(),
        version,
        gates,
    }
}

/// The scenarios the selection takes that the target or cluster cannot run, with why.
fn skips(
    features: &[Feature],
    selection: &Selection,
    env: &Environment,
    facts: &ClusterFacts,
) -> std::collections::BTreeMap<String, String> {
    let mut out = std::collections::BTreeMap::new();
    for f in features {
        let rules = f
            .rules
            .iter()
            .flat_map(|r| r.scenarios.iter().map(move |s| (Some(r), s)));
        for (rule, sc) in f.scenarios.iter().map(|s| (None, s)).chain(rules) {
            if !selection.selects(f, rule, sc) {
                continue;
            }
            let tags: Vec<String> = f
                .tags
                .iter()
                .chain(rule.iter().flat_map(|r| r.tags.iter()))
                .chain(sc.tags.iter())
                .map(|t| format!("@{t}"))
                .collect();
            let mut reason = env.profile.skip_reason(&sc.name, &tags, facts);
            if reason.is_none() && !facts.embedded && tags.iter().any(|t| t == "@isolated") {
                reason = Some("needs a cluster of its own (@isolated), which only the embedded cluster provides".into());
            }
            if let Some(r) = reason {
                out.insert(Selection::key(f, sc), r);
            }
        }
    }
    out
}

/// Adds the skipped scenarios to a run's results.
fn report_skips(
    run: &mut model::Run,
    features: &[Feature],
    skipped: &std::collections::BTreeMap<String, String>,
) {
    for f in features {
        let path = f
            .path
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        let rules = f.rules.iter().flat_map(|r| r.scenarios.iter());
        for sc in f.scenarios.iter().chain(rules) {
            let Some(reason) = skipped.get(&Selection::key(f, sc)) else {
                continue;
            };
            println!("skip {path}:{} {} ({reason})", sc.position.line, sc.name);
            let entry = model::Scenario {
                name: sc.name.clone(),
                line: sc.position.line as u32,
                tags: f
                    .tags
                    .iter()
                    .chain(sc.tags.iter())
                    .map(|t| format!("@{t}"))
                    .collect(),
                status: model::Status::Skipped {
                    reason: reason.clone(),
                },
                steps: Vec::new(),
                duration: std::time::Duration::ZERO,
                timeline: None,
                violation: None,
            };
            match run.features.iter_mut().find(|x| x.path == path) {
                Some(feature) => feature.scenarios.push(entry),
                None => run.features.push(model::Feature {
                    name: f.name.clone(),
                    path: path.clone(),
                    scenarios: vec![entry],
                }),
            }
        }
    }
}

/// `--cluster kind`: provision, run against the written kubeconfig, tear down.
async fn run_on_kind<W: ScenarioWorld>(args: &RunArgs, profile: &Profile) -> u8 {
    let target = match &args.target {
        TargetChoice::Bundled => KindTarget::Bundled,
        // Upstream and vendors bring their own controller: nothing to build.
        TargetChoice::Upstream | TargetChoice::Profile(_) => KindTarget::Upstream,
    };
    let root = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let kubeconfig = root.join(format!("kind-{}.kubeconfig", args.kind_name));
    let mut plan = KindPlan::new(&root, target, &kubeconfig);
    plan.name = args.kind_name.clone();
    plan.reuse = args.reuse_cluster;
    plan.keep = args.keep_cluster;
    plan.node_image = args.node_image.clone();
    if let TargetChoice::Profile(_) = args.target {
        plan.config_override = Some(profile.kind_config(&root));
        plan.install = profile.setup_commands(&kubeconfig, &root);
    }
    // Gates a node image's Kubernetes does not know would stop its
    // components from starting: drop them from the config for that version.
    if let Some(version) = args.node_image.as_deref().and_then(Version::of_node_image) {
        let config = plan.config();
        let filtered = std::fs::read_to_string(&config)
            .map_err(|e| format!("{}: {e}", config.display()))
            .and_then(|text| kind_config_for(&text, version));
        match filtered {
            Ok(text) => {
                let path = std::env::temp_dir()
                    .join(format!("kepspec-kind-{}-{version}.yaml", args.kind_name));
                if let Err(e) = std::fs::write(&path, text) {
                    eprintln!("error: cannot write {}: {e}", path.display());
                    return EXIT_ERROR;
                }
                plan.config_override = Some(path);
            }
            Err(e) => {
                eprintln!("error: {e}");
                return EXIT_ERROR;
            }
        }
    }
    let mut inner = args.clone();
    inner.cluster = ClusterChoice::Kubeconfig(Some(kubeconfig.clone()));
    inner.dry_run = false;
    if args.dry_run {
        for c in plan.setup() {
            println!("{c}    # {}", c.purpose);
        }
        println!(
            "kepspec run --cluster kubeconfig={} --target {}    # the scenarios",
            kubeconfig.display(),
            target_label(&args.target)
        );
        for c in plan.teardown(args.report.as_deref()) {
            println!("{c}    # {}", c.purpose);
        }
        return EXIT_PASSED;
    }
    if let Err(msg) = kind::check_tools(target, kind::on_path) {
        eprintln!("error: {msg}");
        return EXIT_ERROR;
    }
    if let Some(missing) = profile
        .required_programs()
        .into_iter()
        .find(|p| !kind::on_path(p))
    {
        eprintln!(
            "error: `{missing}` is not installed or not on PATH; the target profile {} needs it",
            profile.name()
        );
        return EXIT_ERROR;
    }
    if let Err(msg) = kind::execute(&plan.setup()) {
        eprintln!("error: {msg}");
        let _ = kind::execute(&plan.teardown(None));
        return EXIT_ERROR;
    }
    let code = Box::pin(run::<W>(&inner)).await;
    match kind::execute(&plan.teardown(args.report.as_deref())) {
        Ok(outputs) => {
            if let (Some(dir), Some(log)) = (
                &args.report,
                outputs.first().filter(|_| target == KindTarget::Bundled),
            ) {
                let _ = std::fs::create_dir_all(dir);
                let _ = report::write_file(&dir.join("controller.log"), log);
            }
        }
        Err(msg) => eprintln!("warning: {msg}"),
    }
    code
}

fn target_label(t: &TargetChoice) -> String {
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
    let env = match Environment::start(&env_opts).await {
        Ok(env) => Arc::new(env),
        Err(err) => {
            eprintln!("error: {err:#}");
            return EXIT_ERROR;
        }
    };
    let facts = cluster_facts(&env).await;
    let mut selection = selection;
    selection.skipped = skips(&features, &selection, &env, &facts);
    let opts = RunOptions {
        concurrency: args.concurrency,
        fail_fast: args.fail_fast,
        keep_on_failure: args.keep_on_failure,
        progress: true,
        artifacts: args.report.clone(),
    };
    let mut total = model::Run {
        target: target_name(args),
        ..model::Run::default()
    };
    for round in 0..args.repeat.max(1) {
        let mut run =
            runner::run_once::<W>(env.clone(), features.clone(), selection.clone(), &opts).await;
        if args.repeat > 1 {
            for sc in run.features.iter_mut().flat_map(|f| f.scenarios.iter_mut()) {
                sc.name = format!("{} (run {})", sc.name, round + 1);
            }
        }
        total.duration += run.duration;
        total.features.extend(run.features);
        if args.fail_fast && !total.passed() {
            break;
        }
    }
    env.stop().await;
    report_skips(&mut total, &features, &selection.skipped);
    print_summary(&total);
    if let Err(err) = write_reports(&total, args) {
        eprintln!("error: cannot write reports: {err}");
        return EXIT_ERROR;
    }
    if runner::has_input_error(&total) {
        return EXIT_ERROR;
    }
    if total.passed() {
        EXIT_PASSED
    } else {
        EXIT_FAILED
    }
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
        ClusterChoice::Embedded => {}
        ClusterChoice::Kubeconfig(path) => {
            opts.embedded = false;
            opts.kubeconfig = path.clone();
        }
        ClusterChoice::Kind => return Err("--cluster kind is provisioned by `run_on_kind`".into()),
    }
    match &args.target {
        // On a cluster of its own the bundled controller runs in-process; on
        // an existing cluster it is expected to be deployed there already.
        TargetChoice::Bundled => opts.bundled_controller = args.cluster == ClusterChoice::Embedded,
        TargetChoice::Upstream => {
            if args.cluster == ClusterChoice::Embedded {
                return Err("--target upstream needs a real cluster (--cluster kind or kubeconfig): the embedded cluster has no kube-controller-manager".into());
            }
            opts.bundled_controller = false;
        }
        TargetChoice::Profile(p) => {
            // On the embedded cluster the bundled controller stands in for the
            // vendor's, reconciling the profile's resource.
            if args.cluster == ClusterChoice::Embedded && !profile.has_stand_in() {
                return Err(format!(
                    "{}: the profile has no standIn CRDs, so it cannot run on the embedded cluster",
                    p.display()
                ));
            }
            opts.bundled_controller = args.cluster == ClusterChoice::Embedded;
        }
    }
    Ok(opts)
}

/// The summary table printed at the end of a run.
pub fn summary_table(run: &model::Run) -> String {
    let mut out = String::new();
    out.push_str(&format!(
        "{:<60} {:>6} {:>6} {:>6} {:>8}\n",
        "feature", "passed", "failed", "skipped", "time"
    ));
    for f in &run.features {
        let t = f.totals();
        out.push_str(&format!(
            "{:<60} {:>6} {:>6} {:>6} {:>7.1}s\n",
            truncate(&f.path, 60),
            t.passed,
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
    // The closing line CI systems read.
    out.push_str(&format!(
        "{} passed, {} failed, {} skipped\n",
        t.passed,
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
    println!();
    print!("{}", summary_table(run));
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
        println!("report: {}", Path::new(dir).join("index.html").display());
    }
    Ok(())
}
