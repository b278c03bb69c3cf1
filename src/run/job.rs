//! `kepspec run`: the main job, from the command line's options to an exit
//! code, with the reports written on the way.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use std::time::Duration;

use super::features::Selection;
use super::interrupt::{Interrupt, EXIT_INTERRUPTED};
use super::roster::Roster;
use super::runner::{self, RunOptions, ScenarioWorld};
use super::verdict::{self, Expectations, Requirement};
use crate::cli::{ClusterChoice, RunArgs, TargetChoice, EXIT_ERROR, EXIT_PASSED};
use crate::harness::env::{Environment, EnvironmentOptions};
use crate::profiles::{ClusterFacts, FeatureGates, Profile};
use crate::report::{self, model};
use crate::run::shard::Shard;

/// Runs the specification as the options say; returns the exit code.
pub async fn run<W: ScenarioWorld>(args: &RunArgs) -> u8 {
    let (paths, locations) = match locations(&args.feature_paths()) {
        Ok(split) => split,
        Err(p) => {
            eprintln!("error: {p}");
            return EXIT_ERROR;
        }
    };
    let features = match runner::load::<W>(&paths) {
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
    if let Some(expr) = &args.tags {
        if let Err(problem) = known_tags(expr, &features) {
            eprintln!("error: {problem}");
            return EXIT_ERROR;
        }
    }
    let tags = profile.selection_with(args.tags.as_deref());
    let mut selection = match Selection::new(tags.as_deref(), args.name.as_deref()) {
        Ok(s) => s,
        Err(p) => {
            eprintln!("error: {p}");
            return EXIT_ERROR;
        }
    };
    selection.locations = locations;
    match args.shard.as_deref().map(str::parse::<Shard>).transpose() {
        Ok(shard) => selection.shard = shard,
        Err(e) => {
            eprintln!("error: --shard: {e}");
            return EXIT_ERROR;
        }
    }
    if args.context.is_some() && !matches!(args.cluster, ClusterChoice::Kubeconfig(_)) {
        eprintln!("error: --context names a context of a kubeconfig: use it with --cluster kubeconfig[=PATH]");
        return EXIT_ERROR;
    }
    if args.cluster != ClusterChoice::Embedded && profile.stand_in_only() {
        eprintln!(
            "error: --target {}: a stand-in only (spec.standIn.only): no released implementation behaves as it, so it runs on the embedded cluster alone (--cluster embedded)",
            target_label(&args.target)
        );
        return EXIT_ERROR;
    }
    if args.cluster == ClusterChoice::Kind {
        return super::on_kind::run::<W>(args, &profile).await;
    }
    if args.dry_run {
        println!(
            "# {}: nothing to provision; the scenarios run in-process",
            target_identity(args, &profile).0
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
fn skip_of(
    p: &super::roster::RosterEntry,
    env: &Environment,
    facts: &ClusterFacts,
) -> Option<String> {
    let explore = format!("@{}", crate::explore::crash_point::EXPLORE_TAG);
    if p.tags.contains(&explore) {
        return Some(crate::explore::crash_point::EXPLORE_SKIP.to_string());
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
fn complete_from_plan(run: &mut model::Run, plan: &Roster, rounds: usize, not_run: &str) {
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
            let mut entry = model::ScenarioResult::new(
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

/// The feature paths with any `:LINE` suffixes taken off, and the lines
/// each such file's selection keeps (keyed as the file's scenarios are).
#[allow(clippy::type_complexity)]
fn locations(
    given: &[PathBuf],
) -> Result<
    (
        Vec<PathBuf>,
        std::collections::BTreeMap<String, std::collections::BTreeSet<usize>>,
    ),
    super::features::InputProblem,
> {
    let mut paths = Vec::new();
    let mut lines: std::collections::BTreeMap<String, std::collections::BTreeSet<usize>> =
        Default::default();
    for arg in given {
        let Some((file, wanted)) = super::features::split_location(arg) else {
            paths.push(arg.clone());
            continue;
        };
        let discovered = super::features::discover(std::slice::from_ref(&file))?;
        let Some(path) = discovered.first() else {
            continue;
        };
        let feature = super::features::parse(path)?;
        let kept = super::features::resolve_lines(&feature, &wanted).map_err(|unknown| {
            super::features::InputProblem {
                place: arg.display().to_string(),
                message: format!(
                    "no scenario or example at line{} {}",
                    if unknown.len() == 1 { "" } else { "s" },
                    unknown
                        .iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            }
        })?;
        lines
            .entry(path.display().to_string())
            .or_default()
            .extend(kept);
        if !paths.contains(path) {
            paths.push(path.clone());
        }
    }
    Ok((paths, lines))
}

/// Every tag a `--tags` expression names is a tag of some feature, rule,
/// scenario or example of the selection: a mistyped tag would otherwise
/// select nothing and say only that nothing ran.
fn known_tags(
    expr: &str,
    features: &[cucumber::gherkin::Feature],
) -> Result<(), super::features::InputProblem> {
    let mut known = std::collections::BTreeSet::new();
    for f in features {
        known.extend(f.tags.iter().cloned());
        for r in &f.rules {
            known.extend(r.tags.iter().cloned());
            for sc in &r.scenarios {
                known.extend(sc.tags.iter().cloned());
            }
        }
        for sc in &f.scenarios {
            known.extend(sc.tags.iter().cloned());
        }
    }
    let named: Vec<&str> = expr
        .split(|c: char| c.is_whitespace() || c == '(' || c == ')')
        .filter_map(|w| w.strip_prefix('@'))
        .collect();
    for tag in named {
        if known.contains(tag) {
            continue;
        }
        let hint = known
            .iter()
            .min_by_key(|k| super::features::edit_distance(tag, k))
            .filter(|k| super::features::edit_distance(tag, k) <= 2)
            .map(|k| format!(" (did you mean @{k}?)"))
            .unwrap_or_default();
        return Err(super::features::InputProblem {
            place: "--tags".into(),
            message: format!("no feature or scenario has the tag @{tag}{hint}"),
        });
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
    if env.embedded.is_none() {
        // Nothing kepspec started reconciles this cluster's sets: check that
        // something does before any scenario waits on it.
        if let Err(problem) =
            super::preflight::check(&env.client, &env.profile, super::preflight::BOUND).await
        {
            eprintln!("error: {problem}");
            env.stop().await;
            return EXIT_ERROR;
        }
    }
    let facts = cluster_facts(&env, &given).await;
    super::out::text_raw(&facts.describe());
    let plan = Roster::new(&features, &selection, |p| skip_of(p, &env, &facts));
    let opts = RunOptions {
        concurrency: args.concurrency(),
        fail_fast: args.fail_fast,
        keep_on_failure: args.keep_on_failure,
        progress: true,
        artifacts: args.report.clone(),
        rounds: args.repeat,
        // A passing scenario's timeline is only read when asked for: the
        // whole spec's result.json and HTML stay small.
        keep_passed_timelines: args.keep_timelines,
        cancel: interrupt.token(),
    };
    let outcome = runner::run_once::<W>(env.clone(), plan.prune(&features), &opts).await;
    let mut total = outcome.run;
    let (label, identity) = target_identity(args, &env_opts.profile);
    total.target = label;
    total.properties = identity;
    total.properties.extend(facts.properties());
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

/// What ran, in words a reader of a summary line, a JUnit file or an HTML
/// report cannot mistake: the target, the cluster, and, where kepspec's own
/// controller played the target on the embedded cluster, that it was a
/// stand-in and for what. With the same facts as report properties.
pub fn target_identity(args: &RunArgs, profile: &Profile) -> (String, Vec<(String, String)>) {
    let cluster = match &args.cluster {
        ClusterChoice::Embedded => "the embedded cluster".to_string(),
        ClusterChoice::Kubeconfig(p) => format!(
            "the cluster of kubeconfig {}",
            p.as_ref()
                .map(|p| p.display().to_string())
                .unwrap_or_else(|| "$KUBECONFIG".into())
        ),
        ClusterChoice::Kind => "kind".to_string(),
    };
    let embedded = args.cluster == ClusterChoice::Embedded;
    let name = profile.name().to_string();
    let what = profile.spec_description();
    let stand_in = embedded && !matches!(args.target, TargetChoice::Bundled);
    // A deliberate defect switched on is said first: such a run is of a
    // controller made wrong on purpose.
    let active_defect = embedded.then(crate::controller::active_defect).flatten();
    let defect = active_defect
        .map(|d| format!("DELIBERATELY DEFECTIVE controller ({d}, from KEPSPEC_DEFECT): "))
        .unwrap_or_default();
    let label = if !embedded {
        format!("{name} ({what}) on {cluster}")
    } else if !stand_in {
        format!("{defect}{name} (kepspec's own controller) on {cluster}")
    } else {
        let behaving = profile
            .behave_as()
            .map(|b| format!(" behaving as {b}"))
            .unwrap_or_default();
        format!(
            "{defect}{name}: STAND-IN, kepspec's controller{behaving} played {what}, on {cluster}; \
             not a run of that implementation"
        )
    };
    // The cluster itself is named by the cluster facts' properties.
    let mut properties = vec![
        ("kepspec.target".to_string(), name),
        ("kepspec.standIn".to_string(), stand_in.to_string()),
    ];
    if stand_in {
        properties.push((
            "kepspec.standIn.by".to_string(),
            match profile.behave_as() {
                Some(b) => format!("kepspec's controller behaving as {b}"),
                None => "kepspec's controller".to_string(),
            },
        ));
    }
    if let Some(d) = active_defect {
        properties.push(("kepspec.defect".to_string(), d.to_string()));
    }
    (label, properties)
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
            opts.apiserver_gates = crate::sim::ApiGates::parse_for(spec, version)
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
            opts.context = args.context.clone();
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
            .parse::<crate::controller::Implementation>()
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
    if let Some(path) = &args.summary {
        // Appended: a CI job summary file collects every step's part.
        use std::io::Write as _;
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)?;
        file.write_all(report::markdown::render(run).as_bytes())?;
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

#[cfg(test)]
mod tests {
    use super::*;

    fn run_args(words: &[&str]) -> RunArgs {
        let cli = <crate::cli::Cli as clap::Parser>::try_parse_from(
            ["kepspec", "run"].iter().chain(words.iter()),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        match cli.command {
            crate::cli::Command::Run(args) => *args,
            other => panic!("{other:?}"),
        }
    }

    fn property<'a>(props: &'a [(String, String)], key: &str) -> Option<&'a str> {
        props
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    #[test]
    fn a_stand_in_says_so_and_a_real_run_does_not() {
        let (label, props) = target_identity(&run_args(&[]), &Profile::bundled());
        assert_eq!(
            label,
            "bundled (kepspec's own controller) on the embedded cluster"
        );
        assert_eq!(property(&props, "kepspec.standIn"), Some("false"));

        let args = run_args(&["--target", "upstream"]);
        let (label, props) = target_identity(&args, &Profile::upstream());
        assert!(
            label
                .starts_with("upstream: STAND-IN, kepspec's controller behaving as upstream-v1.37"),
            "{label}"
        );
        assert!(
            label.contains("not a run of that implementation"),
            "{label}"
        );
        assert_eq!(property(&props, "kepspec.target"), Some("upstream"));
        assert_eq!(property(&props, "kepspec.standIn"), Some("true"));
        assert_eq!(
            property(&props, "kepspec.standIn.by"),
            Some("kepspec's controller behaving as upstream-v1.37")
        );

        let args = run_args(&["--target", "upstream", "--cluster", "kind"]);
        let (label, props) = target_identity(&args, &Profile::upstream());
        assert_eq!(
            label,
            "upstream (kube-controller-manager's StatefulSet controller) on kind"
        );
        assert_eq!(property(&props, "kepspec.standIn"), Some("false"));
    }
}
