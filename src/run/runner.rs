//! Runs features with cucumber against an [`Environment`] and turns what
//! happened into a [`report::model::Run`](crate::report::model::Run).
//!
//! The runner owns the order of things a user relies on: the text is parsed
//! and every step resolved before any cluster is touched (input problems exit
//! with 2); each scenario gets its own namespace and recorder in the `before`
//! hook and gives them back in the `after` hook; the results become the
//! summary, JUnit, JSON and HTML reports.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use cucumber::codegen::WorldInventory;
use cucumber::event;
use cucumber::feature::Ext as _;
use cucumber::gherkin;
use cucumber::{parser, World};
use futures::{future::LocalBoxFuture, stream, FutureExt};
use tokio_util::sync::CancellationToken;

use super::collector::{self, Collector, Key};
use super::features::{InputProblem, Selection};
use super::roster::Roster;
use crate::harness::env::Environment;
use crate::harness::scenario::Scenario;
use crate::harness::staging::ISOLATED_TAG;
use crate::history::{Timeline, Violation};
use crate::report::model::{self, Status};

/// A cucumber World that carries a [`Scenario`].
pub trait ScenarioWorld: World + WorldInventory + std::fmt::Debug + Send + Sync {
    /// The scenario slot the `before` hook fills.
    fn slot(&mut self) -> &mut Option<Scenario>;
}

/// The tag of scenarios that take long on any cluster (a chain of
/// `minReadySeconds`, a slow termination, a lagging view), as the upstream
/// e2e framework labels its `[Slow]` tests. The features holding one start
/// first, so the longest scenarios do not begin last and keep the run
/// waiting on them alone; the tag selects and skips nothing.
pub const SLOW_TAG: &str = "slow";

/// The text prefix that marks a step failure caused by the feature file
/// itself rather than by the system under test.
pub const INPUT_ERROR: &str = "input error:";

/// What the `after` hook keeps of a scenario for the reports.
#[derive(Default)]
struct Artifacts {
    timeline: Option<Timeline>,
    violation: Option<Violation>,
    deviations: Vec<String>,
    facts: Vec<(String, String)>,
    /// The failed scenario's folder, relative to the report folder.
    folder: Option<String>,
}

type Shelf = Arc<Mutex<HashMap<Key, Artifacts>>>;

/// Options of one run.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Scenarios at once.
    pub concurrency: super::throttle::Concurrency,
    /// Stop at the first failure.
    pub fail_fast: bool,
    /// Keep the namespaces of failed scenarios.
    pub keep_on_failure: bool,
    /// Print one line per scenario as it finishes.
    pub progress: bool,
    /// Where failed scenarios leave their objects (the report directory).
    pub artifacts: Option<PathBuf>,
    /// How many times the scenarios run (`--repeat`); rounds run
    /// concurrently, each scenario of round k named `... (run k)`.
    pub rounds: usize,
    /// Keep the timelines of passed scenarios for the report (a single
    /// run); a repeat run keeps only the failed ones, so memory stays bounded.
    pub keep_passed_timelines: bool,
    /// Cancelled when the run is interrupted: no scenario starts after it,
    /// the running ones are dropped.
    pub cancel: CancellationToken,
}

impl Default for RunOptions {
    fn default() -> Self {
        Self {
            concurrency: super::throttle::Concurrency::EMBEDDED,
            fail_fast: false,
            keep_on_failure: false,
            progress: true,
            artifacts: None,
            rounds: 1,
            keep_passed_timelines: true,
            cancel: CancellationToken::new(),
        }
    }
}

/// Parses and checks the features: every problem, or the features ready to run.
pub fn load<W: ScenarioWorld>(
    paths: &[PathBuf],
) -> Result<Vec<gherkin::Feature>, Vec<InputProblem>> {
    let files = super::features::discover(paths).map_err(|p| vec![p])?;
    let mut features = Vec::new();
    let mut problems = Vec::new();
    for file in files {
        let text = crate::bundle::read_to_string(&file).unwrap_or_default();
        let text_problems = super::features::text_problems(&file, &text);
        if !text_problems.is_empty() {
            problems.extend(text_problems);
            continue;
        }
        match super::features::parse(&file).and_then(|f| {
            f.expand_examples().map_err(|e| InputProblem {
                place: file.display().to_string(),
                message: e.to_string(),
            })
        }) {
            Ok(f) => {
                problems.extend(super::manifests::check(&f, &text));
                features.push(f);
            }
            Err(p) => problems.push(p),
        }
    }
    problems.extend(super::features::lint(&features, &W::collection()));
    if problems.is_empty() {
        Ok(features)
    } else {
        Err(problems)
    }
}

/// Orders the run so the scenarios that take longest start first: the
/// `@slow` ones, then those holding the longest fixed windows (the seconds
/// of their `for N seconds` steps), each feature and rule sorted so, and the
/// features by their first scenario. A stable sort keeps everything else in
/// its order. Cucumber starts the scenarios in this order, so the run does
/// not end waiting on a long one begun late. The windows are read from the
/// text, not from earlier runs: the order is the same on every machine.
fn longest_first(features: &mut [gherkin::Feature]) {
    use std::cmp::Reverse;
    let slow_in = |tags: &[String]| tags.iter().any(|t| t == SLOW_TAG);
    // Sorted ascending, so the longest (slow, then most held) comes first.
    let key = |slow: bool, sc: &gherkin::Scenario| Reverse((slow, held_seconds(sc)));
    let quickest = Reverse((false, 0));
    for f in features.iter_mut() {
        let feature_slow = slow_in(&f.tags);
        f.scenarios
            .sort_by_key(|sc| key(feature_slow || slow_in(&sc.tags), sc));
        for r in &mut f.rules {
            let rule_slow = feature_slow || slow_in(&r.tags);
            r.scenarios
                .sort_by_key(|sc| key(rule_slow || slow_in(&sc.tags), sc));
        }
        f.rules.sort_by_key(|r| {
            let rule_slow = feature_slow || slow_in(&r.tags);
            r.scenarios
                .iter()
                .map(|sc| key(rule_slow || slow_in(&sc.tags), sc))
                .min()
                .unwrap_or(quickest)
        });
    }
    features.sort_by_cached_key(|f| {
        super::roster::scenarios_of(f)
            .map(|(r, sc)| key(is_slow(f, r, sc), sc))
            .min()
            .unwrap_or(quickest)
    });
}

/// The seconds a scenario is held by its fixed windows: the sum of `N` over
/// its steps that say `for N seconds`.
fn held_seconds(sc: &gherkin::Scenario) -> u64 {
    sc.steps
        .iter()
        .filter_map(|step| {
            let rest = step.value.split("for ").nth(1)?;
            let (n, after) = rest.split_once(' ')?;
            after
                .starts_with("seconds")
                .then(|| n.parse::<u64>().ok())
                .flatten()
        })
        .sum()
}

/// Whether a scenario is tagged `@slow`, itself or through its feature or
/// rule.
fn is_slow(
    feature: &gherkin::Feature,
    rule: Option<&gherkin::Rule>,
    sc: &gherkin::Scenario,
) -> bool {
    tags_of(feature, rule, sc).any(|t| t == SLOW_TAG)
}

/// Every tag of a scenario, inherited ones included, without `@`.
fn tags_of<'a>(
    feature: &'a gherkin::Feature,
    rule: Option<&'a gherkin::Rule>,
    scenario: &'a gherkin::Scenario,
) -> impl Iterator<Item = &'a str> {
    feature
        .tags
        .iter()
        .chain(rule.into_iter().flat_map(|r| r.tags.iter()))
        .chain(scenario.tags.iter())
        .map(String::as_str)
}

/// Starts a scenario in the shared environment or, for `@isolated`, in one
/// of its own.
async fn start_scenario(
    shared: Arc<Environment>,
    isolated: bool,
    name: &str,
) -> anyhow::Result<Scenario> {
    if !isolated {
        return Scenario::start(shared, name).await;
    }
    if shared.embedded.is_none() {
        anyhow::bail!("@{ISOLATED_TAG} scenarios need the embedded cluster");
    }
    let env = shared.isolated().await?;
    let mut sc = Scenario::start(Arc::new(env), name).await?;
    sc.isolated = true;
    Ok(sc)
}

/// Feeds already parsed features to cucumber.
struct Parsed(Vec<gherkin::Feature>);

impl<I> cucumber::Parser<I> for Parsed {
    type Cli = cucumber::cli::Empty;
    type Output = stream::Iter<std::vec::IntoIter<parser::Result<gherkin::Feature>>>;
    fn parse(self, _input: I, _cli: Self::Cli) -> Self::Output {
        stream::iter(self.0.into_iter().map(Ok).collect::<Vec<_>>())
    }
}

/// The outcome of [`run_once`].
pub struct Outcome {
    /// What finished (and, when interrupted, what was running, as skipped).
    pub run: model::Run,
    /// Whether the run was interrupted before every scenario finished.
    pub interrupted: bool,
}

/// The features cut down to what the selection runs (for callers that have
/// no plan of their own).
pub fn select(features: &[gherkin::Feature], selection: &Selection) -> Vec<gherkin::Feature> {
    Roster::new(features, selection, |p| {
        selection.skipped.get(&p.key).cloned()
    })
    .prune(features)
}

/// The features of round `round` of a repeat run: every scenario named
/// `... (run k)`, so that rounds never share a key.
fn round_of(features: &[gherkin::Feature], round: usize, rounds: usize) -> Vec<gherkin::Feature> {
    if rounds <= 1 {
        return features.to_vec();
    }
    let mut out = features.to_vec();
    for f in &mut out {
        let scenarios = f
            .scenarios
            .iter_mut()
            .chain(f.rules.iter_mut().flat_map(|r| r.scenarios.iter_mut()));
        for sc in scenarios {
            sc.name = format!("{} (run {round})", sc.name);
        }
    }
    out
}

/// The folder a failed scenario's artifacts go to: unique per feature,
/// line (an outline's example has its own) and round.
pub fn artifacts_folder(path: &str, line: u32, name: &str) -> String {
    let stem = std::path::Path::new(path)
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_default();
    let round = name
        .rsplit_once(" (run ")
        .and_then(|(_, r)| r.strip_suffix(')'))
        .map(|r| format!("-r{r}"))
        .unwrap_or_default();
    format!(
        "{stem}-L{line}{round}-{}",
        crate::harness::scenario::namespace_slug(name)
    )
}

/// Runs the given scenarios (already selected: every scenario of
/// `features` runs) `opts.rounds` times; returns the results.
pub async fn run_once<W: ScenarioWorld>(
    env: Arc<Environment>,
    features: Vec<gherkin::Feature>,
    opts: &RunOptions,
) -> Outcome {
    let shelf: Shelf = Arc::default();
    let started = Instant::now();
    let rounds = opts.rounds.max(1);
    let mut all = Vec::new();
    let mut round_keys = HashMap::new();
    for round in 1..=rounds {
        for f in round_of(&features, round, rounds) {
            if rounds > 1 {
                for (_, sc) in super::roster::scenarios_of(&f) {
                    round_keys.insert(collector::key(&f, sc), round as u32);
                }
            }
            all.push(f);
        }
    }
    longest_first(&mut all);
    let total: usize = all
        .iter()
        .map(|f| super::roster::scenarios_of(f).count())
        .sum();
    let collector = Collector::new(
        opts.progress,
        total,
        round_keys,
        env.profile.deviations().clone(),
    );
    let results = collector.results();

    let throttle = Arc::new(super::throttle::Throttle::new(opts.concurrency));
    let before_throttle = throttle.clone();
    let before_cancel = opts.cancel.clone();
    let before_env = env.clone();
    let after_shelf = shelf.clone();
    let after_throttle = throttle.clone();
    let after_results = results.clone();
    let keep_on_failure = opts.keep_on_failure;
    let keep_passed = opts.keep_passed_timelines;
    let artifacts_dir = opts.artifacts.clone();
    let cancel = opts.cancel.clone();
    let runner = W::cucumber::<PathBuf>()
        .with_parser(Parsed(all))
        .with_writer(collector)
        .with_cli(cucumber::cli::Opts::<_, _, _, cucumber::cli::Empty>::default())
        .max_concurrent_scenarios(throttle.at_most())
        .before(move |feature, rule, scenario, world: &mut W| {
            let shared = before_env.clone();
            let isolated = tags_of(feature, rule, scenario).any(|t| t == ISOLATED_TAG);
            let slow = is_slow(feature, rule, scenario);
            let throttle = before_throttle.clone();
            let cancel = before_cancel.clone();
            async move {
                // Counted as running until its After hook ends.
                throttle.admit(&cancel, slow).await;
                match start_scenario(shared, isolated, &scenario.name).await {
                    Ok(sc) => *world.slot() = Some(sc),
                    Err(err) => tracing::error!("scenario setup failed: {err:#}"),
                }
            }
            .boxed_local()
        })
        .after(
            move |feature, rule, scenario, finished, world: Option<&mut W>| {
                let shelf = after_shelf.clone();
                let results = after_results.clone();
                let tags: Vec<String> = tags_of(feature, rule, scenario)
                    .map(|t| format!("@{t}"))
                    .collect();
                let artifacts_dir = artifacts_dir.clone();
                let failed = !matches!(finished, event::ScenarioFinished::StepPassed);
                let k = collector::key(feature, scenario);
                let admitted = super::throttle::Admitted(after_throttle.clone());
                let fut: LocalBoxFuture<'_, ()> = async move {
                    let _admitted = admitted;
                    let Some(world) = world else { return };
                    let Some(sc) = world.slot().take() else {
                        return;
                    };
                    // A fault step that matched nothing is an error, not a silent pass.
                    let untriggered = crate::harness::faults::check_all_triggered(&sc).err();
                    // A status written from a view the scenario deliberately
                    // staled is not judged by how fresh it is.
                    let judge_status = !sc.faults.iter().any(|f| f.stale_view);
                    // Whether the status must catch up with every rest of
                    // the pods: not where faults or staged components (a
                    // controller stopped, restarted or changing leader) can
                    // hold the status back for a reason of their own.
                    let judge_rests = judge_status && sc.faults.is_empty() && !sc.isolated;
                    let violation = sc.last_violation.clone();
                    // A scenario that checks a declared behaviour deviation
                    // passes with it.
                    let mut deviations = sc.env.profile.deviations().checked_by(&tags);
                    for d in &sc.deviations {
                        if !deviations.contains(d) {
                            deviations.push(d.clone());
                        }
                    }
                    let facts = sc.facts.clone();
                    let Scenario {
                        recorder,
                        env,
                        isolated,
                        client,
                        namespace,
                        ..
                    } = sc;
                    // The history ends here, before the cleanup deletes
                    // everything: the artifacts show the objects as the
                    // scenario left them. Every kind's watch first catches
                    // up with the objects as they are, and the history ends
                    // where all of them had, so no status is judged against
                    // pods its watch has not delivered yet.
                    let cut = recorder.settle().await;
                    let mut timeline = recorder.stop().await;
                    if let Some(rv) = cut {
                        timeline.cut_after_rv(rv);
                    }
                    // What the controller reported must have been true,
                    // whatever the scenario's own steps looked at.
                    let lie = judge_status
                        .then(|| crate::harness::checks::status_lies(&timeline))
                        .flatten()
                        .or_else(|| {
                            judge_rests
                                .then(|| crate::harness::checks::status_lags(&timeline))
                                .flatten()
                        });
                    let scenario_failed = failed;
                    let failed = failed || untriggered.is_some() || lie.is_some();
                    let mut folder = None;
                    if let (true, Some(dir)) = (failed, &artifacts_dir) {
                        let relative = format!("failed/{}", artifacts_folder(&k.0, k.1, &k.2));
                        match crate::harness::artifacts::write(&dir.join(&relative), &timeline) {
                            Ok(()) => folder = Some(relative),
                            Err(err) => {
                                tracing::warn!(%err, "could not write the failure artifacts")
                            }
                        }
                    }
                    if !(failed && keep_on_failure) {
                        Scenario::delete_namespace(&env, &client, &namespace).await;
                    }
                    if isolated {
                        // The scenario's own cluster goes with it.
                        match Arc::try_unwrap(env) {
                            Ok(env) => env.shutdown().await,
                            Err(env) => env.stop().await,
                        }
                    }
                    // The line printed when the scenario finishes says
                    // whether it passed only through a deviation.
                    results.with_scenario(&k, |s| s.deviations = deviations.clone());
                    let violation = violation.or_else(|| lie.clone());
                    if let Ok(mut shelf) = shelf.lock() {
                        shelf.insert(
                            k,
                            Artifacts {
                                timeline: (failed || keep_passed).then_some(timeline),
                                violation,
                                deviations,
                                facts,
                                folder,
                            },
                        );
                    }
                    // Reported by cucumber as a failed After hook, which fails the scenario.
                    if let Some(err) = untriggered.filter(|_| !scenario_failed) {
                        panic!("{err}");
                    }
                    if let Some(v) = lie.filter(|_| !scenario_failed) {
                        panic!("{v}");
                    }
                }
                .boxed_local();
                fut
            },
        );
    let runner = if opts.fail_fast {
        runner.fail_fast()
    } else {
        runner
    };
    let previous_hook = std::panic::take_hook();
    // Step failures travel as panics inside cucumber; their messages are
    // reported by the writer, not printed by the default hook.
    std::panic::set_hook(Box::new(|_| {}));
    let interrupted = tokio::select! {
        _ = runner.filter_run(PathBuf::from("features"), |_, _, _| true) => false,
        _ = cancel.cancelled() => true,
    };
    std::panic::set_hook(previous_hook);
    if opts.progress {
        collector::clear_bar_line();
    }
    let (mut run, running) = results.take();
    if interrupted {
        for k in &running {
            mark_interrupted(&mut run, k);
        }
    }
    if let Ok(mut shelf) = shelf.lock() {
        for feature in &mut run.features {
            for sc in &mut feature.scenarios {
                if let Some(a) = shelf.remove(&(feature.path.clone(), sc.line, sc.name.clone())) {
                    sc.timeline = a.timeline;
                    sc.violation = a.violation;
                    sc.deviations = a.deviations;
                    sc.facts = a.facts;
                    sc.artifacts = a.folder;
                }
            }
        }
    }
    run.duration = started.elapsed();
    Outcome { run, interrupted }
}

fn mark_interrupted(run: &mut model::Run, k: &Key) {
    let found = run
        .features
        .iter_mut()
        .filter(|f| f.path == k.0)
        .flat_map(|f| f.scenarios.iter_mut())
        .find(|s| s.line == k.1 && s.name == k.2);
    if let Some(sc) = found {
        sc.status = Status::Skipped {
            reason: crate::report::model::INTERRUPTED_WHILE_RUNNING.into(),
        };
    }
}

/// Whether any failed step says its cause is the feature text.
pub fn has_input_error(run: &model::Run) -> bool {
    run.features
        .iter()
        .flat_map(|f| &f.scenarios)
        .flat_map(|s| &s.steps)
        .any(|s| {
            s.message
                .as_deref()
                .is_some_and(|m| m.starts_with(INPUT_ERROR))
        })
}

#[cfg(test)]
mod tests {
    use super::{artifacts_folder, gherkin, held_seconds, longest_first};

    fn feature(text: &str) -> gherkin::Feature {
        gherkin::Feature::parse(text, gherkin::GherkinEnv::default()).unwrap()
    }

    fn order(features: &[gherkin::Feature]) -> Vec<String> {
        features
            .iter()
            .flat_map(|f| super::super::roster::scenarios_of(f).map(move |(_, sc)| sc.name.clone()))
            .collect()
    }

    #[test]
    fn slow_scenarios_start_first_and_the_rest_keep_their_order() {
        let quick = feature("Feature: quick\n  Scenario: q1\n  Scenario: q2\n");
        let mixed =
            feature("Feature: mixed\n  Scenario: m1\n  @slow\n  Scenario: m2\n  Scenario: m3\n");
        let ruled = feature(concat!(
            "Feature: ruled\n",
            "  Rule: a\n",
            "    Scenario: a1\n",
            "      Given a step\n",
            "  Rule: b\n",
            "    Scenario: b1\n",
            "      Given a step\n",
            "    @slow\n",
            "    Scenario: b2\n",
            "      Given a step\n",
        ));
        let mut all = vec![quick, mixed, ruled];
        longest_first(&mut all);
        assert_eq!(
            order(&all),
            ["m2", "m1", "m3", "b2", "b1", "a1", "q1", "q2"],
            "the slow one of each feature and rule first, the rest as written"
        );
    }

    #[test]
    fn the_longest_fixed_windows_start_first_after_the_slow_ones() {
        let windows = feature(concat!(
            "Feature: windows\n",
            "  Scenario: w0\n",
            "    Given a step\n",
            "  Scenario: w3\n",
            "    Then for 3 seconds no pod of \"web\" is created or deleted\n",
            "  Scenario: w5\n",
            "    Then for 2 seconds no pod of \"web\" is created or deleted\n",
            "    And for 3 seconds pod \"web-0\" is neither deleted nor replaced\n",
            "  @slow\n",
            "  Scenario: s\n",
            "    Given a step\n",
        ));
        let quick = feature("Feature: quick\n  Scenario: q\n    Given a step\n");
        let held = feature(concat!(
            "Feature: held\n",
            "  Scenario: h4\n",
            "    Then for 4 seconds no pod of \"web\" is created or deleted\n",
        ));
        assert_eq!(held_seconds(&held.scenarios[0]), 4);
        let mut all = vec![quick, held, windows];
        longest_first(&mut all);
        assert_eq!(order(&all), ["s", "w5", "w3", "w0", "h4", "q"]);
    }

    #[test]
    fn artifact_folders_differ_by_line_and_round() {
        let a = artifacts_folder("features/x/budget.feature", 28, "a percentage rounds down");
        let b = artifacts_folder("features/x/budget.feature", 29, "a percentage rounds down");
        let c = artifacts_folder(
            "features/x/budget.feature",
            28,
            "a percentage rounds down (run 2)",
        );
        assert_eq!(a, "budget-L28-a-percentage-rounds-down");
        assert_ne!(a, b);
        assert_eq!(c, "budget-L28-r2-a-percentage-rounds-down-run-2");
    }
}
