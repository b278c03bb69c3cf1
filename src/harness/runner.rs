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
use std::time::{Duration, Instant};

use cucumber::codegen::WorldInventory;
use cucumber::event::{
    self, Cucumber as Ev, Feature as FeatureEv, Rule as RuleEv, Scenario as ScenarioEv,
    Step as StepEv,
};
use cucumber::feature::Ext as _;
use cucumber::gherkin;
use cucumber::{parser, writer, Event, World};
use futures::{future::LocalBoxFuture, stream, FutureExt};

use super::env::Environment;
use super::features::{InputProblem, Selection};
use super::scenario::Scenario;
use super::staging::ISOLATED_TAG;
use crate::history::{Timeline, Violation};
use crate::report::model::{self, Status};

/// A cucumber World that carries a [`Scenario`].
pub trait ScenarioWorld: World + WorldInventory + std::fmt::Debug + Send + Sync {
    /// The scenario slot the `before` hook fills.
    fn slot(&mut self) -> &mut Option<Scenario>;
}

/// The text prefix that marks a step failure caused by the feature file
/// itself rather than by the system under test.
pub const INPUT_ERROR: &str = "input error:";

/// What the `after` hook keeps of a scenario for the reports.
#[derive(Default)]
struct Artifacts {
    timeline: Option<Timeline>,
    violation: Option<Violation>,
    namespace: Option<String>,
}

type Key = (String, u32);
type Shelf = Arc<Mutex<HashMap<Key, Artifacts>>>;

fn key(feature: &gherkin::Feature, scenario: &gherkin::Scenario) -> Key {
    (
        feature
            .path
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_default(),
        scenario.position.line as u32,
    )
}

/// Options of one run.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Scenarios at once.
    pub concurrency: usize,
    /// Stop at the first failure.
    pub fail_fast: bool,
    /// Keep the namespaces of failed scenarios.
    pub keep_on_failure: bool,
    /// Print one line per scenario as it finishes.
    pub progress: bool,
    /// Where failed scenarios leave their objects (the report directory).
    pub artifacts: Option<PathBuf>,
}

impl Default for RunOptions {
    fn default() -> Self {
        Self {
            concurrency: 8,
            fail_fast: false,
            keep_on_failure: false,
            progress: true,
            artifacts: None,
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
        match super::features::parse(&file).and_then(|f| {
            f.expand_examples().map_err(|e| InputProblem {
                place: file.display().to_string(),
                message: e.to_string(),
            })
        }) {
            Ok(f) => features.push(f),
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
    let env = Environment::isolated(Default::default(), Default::default()).await?;
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

/// Runs the selected scenarios once; returns the results.
pub async fn run_once<W: ScenarioWorld>(
    env: Arc<Environment>,
    features: Vec<gherkin::Feature>,
    selection: Selection,
    opts: &RunOptions,
) -> model::Run {
    let shelf: Shelf = Arc::default();
    let started = Instant::now();
    let total = features
        .iter()
        .flat_map(|f| {
            let rules = f
                .rules
                .iter()
                .flat_map(|r| r.scenarios.iter().map(move |s| (Some(r), s)));
            f.scenarios
                .iter()
                .map(|s| (None, s))
                .chain(rules)
                .map(move |(r, s)| (f, r, s))
        })
        .filter(|(f, r, s)| selection.accepts(f, *r, s))
        .count();
    let collector = Collector::new(opts.progress, total);
    let results = collector.results.clone();

    let before_env = env.clone();
    let after_shelf = shelf.clone();
    let keep_on_failure = opts.keep_on_failure;
    let artifacts_dir = opts.artifacts.clone();
    let runner = W::cucumber::<PathBuf>()
        .with_parser(Parsed(features))
        .with_writer(collector)
        .with_cli(cucumber::cli::Opts::<_, _, _, cucumber::cli::Empty>::default())
        .max_concurrent_scenarios(opts.concurrency.max(1))
        .before(move |feature, rule, scenario, world: &mut W| {
            let shared = before_env.clone();
            let isolated = tags_of(feature, rule, scenario).any(|t| t == ISOLATED_TAG);
            async move {
                match start_scenario(shared, isolated, &scenario.name).await {
                    Ok(sc) => *world.slot() = Some(sc),
                    Err(err) => tracing::error!("scenario setup failed: {err:#}"),
                }
            }
            .boxed_local()
        })
        .after(
            move |feature, _rule, scenario, finished, world: Option<&mut W>| {
                let shelf = after_shelf.clone();
                let artifacts_dir = artifacts_dir.clone();
                let failed = !matches!(finished, event::ScenarioFinished::StepPassed);
                let k = key(feature, scenario);
                let fut: LocalBoxFuture<'_, ()> = async move {
                    let Some(world) = world else { return };
                    let Some(sc) = world.slot().take() else {
                        return;
                    };
                    // A fault step that matched nothing is an error, not a silent pass.
                    let untriggered = super::faults::check_all_triggered(&sc).err();
                    let violation = sc.last_violation.clone();
                    let namespace = sc.namespace.clone();
                    if !(failed && keep_on_failure) {
                        sc.cleanup().await;
                    }
                    let Scenario {
                        recorder,
                        env,
                        isolated,
                        ..
                    } = sc;
                    let timeline = recorder.stop().await;
                    if let (true, Some(dir)) = (failed, &artifacts_dir) {
                        let dir = dir
                            .join("failed")
                            .join(super::scenario::namespace_slug(&scenario.name));
                        if let Err(err) = super::artifacts::write(&dir, &timeline) {
                            tracing::warn!(%err, "could not write the failure artifacts");
                        }
                    }
                    if isolated {
                        // The scenario's own cluster goes with it.
                        match Arc::try_unwrap(env) {
                            Ok(env) => env.shutdown().await,
                            Err(env) => env.stop().await,
                        }
                    }
                    if let Ok(mut shelf) = shelf.lock() {
                        shelf.insert(
                            k,
                            Artifacts {
                                timeline: Some(timeline),
                                violation,
                                namespace: Some(namespace),
                            },
                        );
                    }
                    // Reported by cucumber as a failed After hook, which fails the scenario.
                    if let Some(err) = untriggered.filter(|_| !failed) {
                        panic!("{err}");
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
    runner
        .filter_run(PathBuf::from("features"), move |f, r, s| {
            selection.accepts(f, r, s)
        })
        .await;
    std::panic::set_hook(previous_hook);

    if opts.progress {
        use std::io::{IsTerminal as _, Write as _};
        if std::io::stdout().is_terminal() && std::env::var_os("CI").is_none() {
            print!("\r\x1b[2K");
            let _ = std::io::stdout().flush();
        }
    }
    let mut run = results.lock().map(|r| r.clone()).unwrap_or_default();
    if let Ok(mut shelf) = shelf.lock() {
        for feature in &mut run.features {
            for sc in &mut feature.scenarios {
                if let Some(a) = shelf.remove(&(feature.path.clone(), sc.line)) {
                    sc.timeline = a.timeline;
                    sc.violation = a.violation;
                    let _ = a.namespace;
                }
            }
        }
    }
    run.duration = started.elapsed();
    run
}

/// Collects cucumber's events into the report model.
struct Collector {
    results: Arc<Mutex<model::Run>>,
    started: HashMap<Key, Instant>,
    progress: bool,
    /// Scenarios the run takes, for the progress bar.
    total: usize,
    finished: usize,
    /// Draw a progress bar (stdout is a terminal); plain lines otherwise.
    bar: bool,
}

/// A one-line progress bar: `[=======>      ] 23/76 scenarios, 3 running`.
pub fn progress_bar(finished: usize, running: usize, total: usize) -> String {
    const WIDTH: usize = 30;
    let filled = (finished * WIDTH)
        .checked_div(total)
        .unwrap_or(0)
        .min(WIDTH);
    let head = if filled < WIDTH { ">" } else { "" };
    let rest = WIDTH.saturating_sub(filled + head.len());
    format!(
        "[{}{head}{}] {finished}/{total} scenarios, {running} running",
        "=".repeat(filled),
        " ".repeat(rest)
    )
}

impl Collector {
    fn new(progress: bool, total: usize) -> Self {
        use std::io::IsTerminal as _;
        Self {
            results: Arc::default(),
            started: HashMap::new(),
            progress,
            total,
            finished: 0,
            bar: progress && std::io::stdout().is_terminal() && std::env::var_os("CI").is_none(),
        }
    }

    fn draw_bar(&self) {
        if self.bar {
            use std::io::Write as _;
            print!(
                "\r\x1b[2K{}",
                progress_bar(self.finished, self.started.len(), self.total)
            );
            let _ = std::io::stdout().flush();
        }
    }

    fn clear_bar(&self) {
        if self.bar {
            print!("\r\x1b[2K");
        }
    }

    fn scenario_mut<'r>(
        run: &'r mut model::Run,
        feature: &gherkin::Feature,
        sc: &gherkin::Scenario,
    ) -> &'r mut model::Scenario {
        let path = feature
            .path
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        let fi = match run.features.iter().position(|f| f.path == path) {
            Some(i) => i,
            None => {
                run.features.push(model::Feature {
                    name: feature.name.clone(),
                    path: path.clone(),
                    scenarios: Vec::new(),
                });
                run.features.len() - 1
            }
        };
        let scenarios = &mut run.features[fi].scenarios;
        let line = sc.position.line as u32;
        let si = match scenarios.iter().position(|s| s.line == line) {
            Some(i) => i,
            None => {
                let tags = feature
                    .tags
                    .iter()
                    .chain(sc.tags.iter())
                    .map(|t| format!("@{t}"))
                    .collect();
                scenarios.push(model::Scenario {
                    name: sc.name.clone(),
                    line,
                    tags,
                    status: Status::Passed,
                    steps: Vec::new(),
                    duration: Duration::ZERO,
                    timeline: None,
                    violation: None,
                });
                scenarios.len() - 1
            }
        };
        &mut scenarios[si]
    }

    fn on_scenario<W>(
        &mut self,
        feature: &gherkin::Feature,
        sc: &gherkin::Scenario,
        ev: &ScenarioEv<W>,
    ) {
        let k = key(feature, sc);
        let Ok(mut run) = self.results.lock() else {
            return;
        };
        let entry = Self::scenario_mut(&mut run, feature, sc);
        match ev {
            ScenarioEv::Started => {
                self.started.insert(k, Instant::now());
                self.draw_bar();
            }
            ScenarioEv::Hook(kind, event::Hook::Failed(_, info)) => {
                entry.status = Status::Failed;
                entry.steps.push(model::Step {
                    keyword: format!("{kind:?} hook"),
                    text: String::new(),
                    line: sc.position.line as u32,
                    status: Status::Failed,
                    message: Some(panic_text(info)),
                });
            }
            ScenarioEv::Background(step, s) | ScenarioEv::Step(step, s) => {
                let (status, message) = match s {
                    StepEv::Started => return,
                    StepEv::Passed(..) => (Status::Passed, None),
                    StepEv::Skipped => (
                        Status::Skipped {
                            reason: "an earlier step failed or the step is undefined".into(),
                        },
                        None,
                    ),
                    StepEv::Failed(_, _, _, err) => (Status::Failed, Some(step_error_text(err))),
                };
                if status == Status::Failed {
                    entry.status = Status::Failed;
                }
                entry.steps.push(model::Step {
                    keyword: step.keyword.trim().to_string(),
                    text: step.value.clone(),
                    line: step.position.line as u32,
                    status,
                    message,
                });
            }
            ScenarioEv::Finished => {
                if let Some(t0) = self.started.remove(&k) {
                    entry.duration = t0.elapsed();
                }
                if entry
                    .steps
                    .iter()
                    .all(|s| matches!(s.status, Status::Skipped { .. }))
                    && !entry.steps.is_empty()
                {
                    entry.status = Status::Skipped {
                        reason: "no step ran".into(),
                    };
                }
                self.finished += 1;
                if self.progress {
                    self.clear_bar();
                    let secs = entry.duration.as_secs_f64();
                    let mark = match entry.status {
                        Status::Passed => "ok  ",
                        Status::Failed => "FAIL",
                        Status::Skipped { .. } => "skip",
                        Status::NotImplemented => "todo",
                    };
                    println!("{mark} {}:{} {} ({secs:.1}s)", k.0, k.1, entry.name);
                    if let Some(msg) = entry.failure_message() {
                        for line in msg.lines() {
                            println!("       {line}");
                        }
                    }
                    self.draw_bar();
                }
            }
            _ => {}
        }
    }
}

fn panic_text(info: &event::Info) -> String {
    info.downcast_ref::<String>()
        .cloned()
        .or_else(|| info.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "(no message)".into())
}

fn step_error_text(err: &event::StepError) -> String {
    match err {
        event::StepError::Panic(info) => panic_text(info),
        other => other.to_string(),
    }
}

impl<W: World + std::fmt::Debug> cucumber::Writer<W> for Collector {
    type Cli = cucumber::cli::Empty;

    async fn handle_event(&mut self, ev: parser::Result<Event<Ev<W>>>, _cli: &Self::Cli) {
        let Ok(ev) = ev else { return };
        if let Ev::Feature(feature, fev) = &ev.value {
            match fev {
                FeatureEv::Scenario(sc, retryable) => {
                    self.on_scenario(feature, sc, &retryable.event)
                }
                FeatureEv::Rule(_, RuleEv::Scenario(sc, retryable)) => {
                    self.on_scenario(feature, sc, &retryable.event)
                }
                _ => {}
            }
        }
    }
}

impl writer::NonTransforming for Collector {}

// The collector keys everything by feature and scenario, so it takes events
// in the order concurrent scenarios produce them.
impl writer::Normalized for Collector {}

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
mod bar_tests {
    use super::progress_bar;

    #[test]
    fn the_bar_fills_with_finished_scenarios() {
        assert_eq!(
            progress_bar(0, 2, 10),
            format!("[>{}] 0/10 scenarios, 2 running", " ".repeat(29))
        );
        assert_eq!(
            progress_bar(10, 0, 10),
            format!("[{}] 10/10 scenarios, 0 running", "=".repeat(30))
        );
        assert!(progress_bar(5, 1, 10).starts_with(&format!("[{}>", "=".repeat(15))));
        assert_eq!(
            progress_bar(0, 0, 0),
            format!("[>{}] 0/0 scenarios, 0 running", " ".repeat(29))
        );
    }
}
