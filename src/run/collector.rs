//! Collects cucumber's events into the report model, and prints one line
//! per finished scenario (with a progress bar under them on a terminal).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use cucumber::event::{
    self, Cucumber as Ev, Feature as FeatureEv, Rule as RuleEv, Scenario as ScenarioEv,
    Step as StepEv,
};
use cucumber::gherkin;
use cucumber::{parser, writer, Event, World};

use crate::report::model::{self, Status};

/// A scenario of a run: its file, line and name (which carries the round of
/// a `--repeat` run, so rounds never share a key).
pub type Key = (String, u32, String);

/// The key of a scenario.
pub fn key(feature: &gherkin::Feature, scenario: &gherkin::Scenario) -> Key {
    (
        feature
            .path
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_default(),
        scenario.position.line as u32,
        scenario.name.clone(),
    )
}

/// Whether a progress bar is on screen: log lines clear it first.
static BAR_ON_SCREEN: AtomicBool = AtomicBool::new(false);

/// Whether this process draws a progress bar: stdout is a terminal and the
/// run is not in CI.
pub fn bar_wanted() -> bool {
    use std::io::IsTerminal as _;
    std::io::stdout().is_terminal() && std::env::var_os("CI").is_none()
}

/// Clears the progress bar's line if one is drawn, so that a log line or a
/// message starts on a clean line (the bar is redrawn at the next event).
pub fn clear_bar_line() {
    if BAR_ON_SCREEN.swap(false, Ordering::SeqCst) {
        use std::io::Write as _;
        let mut out = std::io::stdout().lock();
        let _ = write!(out, "\r\x1b[2K");
        let _ = out.flush();
    }
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

/// Results as they arrive, shared with whoever finishes the run (also when
/// it is interrupted).
#[derive(Clone, Default)]
pub struct Results {
    inner: Arc<Mutex<Collected>>,
}

#[derive(Default)]
struct Collected {
    run: model::Run,
    started: HashMap<Key, Instant>,
    /// When each running step started, by scenario and step line.
    step_started: HashMap<(Key, u32), jiff::Timestamp>,
}

impl Results {
    /// The run so far, and the scenarios started but not finished.
    pub fn take(&self) -> (model::Run, Vec<Key>) {
        match self.inner.lock() {
            Ok(mut c) => {
                let running = c.started.keys().cloned().collect();
                c.started.clear();
                (std::mem::take(&mut c.run), running)
            }
            Err(_) => (model::Run::default(), Vec::new()),
        }
    }

    /// Applies `f` to the scenario with this key, if it was recorded.
    pub fn with_scenario(&self, k: &Key, f: impl FnOnce(&mut model::ScenarioResult)) {
        if let Ok(mut c) = self.inner.lock() {
            if let Some(sc) = c
                .run
                .features
                .iter_mut()
                .filter(|feat| feat.path == k.0)
                .flat_map(|feat| feat.scenarios.iter_mut())
                .find(|s| s.line == k.1 && s.name == k.2)
            {
                f(sc);
            }
        }
    }
}

/// Collects cucumber's events into [`Results`].
pub struct Collector {
    results: Results,
    progress: bool,
    /// Scenarios the run takes, for the progress bar.
    total: usize,
    finished: usize,
    bar: bool,
    /// The round of each scenario of a `--repeat` run, by key.
    rounds: HashMap<Key, u32>,
    /// The target's declared deviations, to name the undeclared ones a
    /// failed scenario could be replaced by.
    deviations: crate::profiles::deviation::Deviations,
}

impl Collector {
    /// A collector for a run of `total` scenarios; `progress` prints a line
    /// per scenario.
    pub fn new(
        progress: bool,
        total: usize,
        rounds: HashMap<Key, u32>,
        deviations: crate::profiles::deviation::Deviations,
    ) -> Self {
        Self {
            results: Results::default(),
            progress,
            total,
            finished: 0,
            bar: progress && bar_wanted(),
            rounds,
            deviations,
        }
    }

    /// The shared results.
    pub fn results(&self) -> Results {
        self.results.clone()
    }

    fn draw_bar(&self, running: usize) {
        if self.bar {
            use std::io::Write as _;
            let mut out = std::io::stdout().lock();
            let _ = write!(
                out,
                "\r\x1b[2K{}",
                progress_bar(self.finished, running, self.total)
            );
            let _ = out.flush();
            BAR_ON_SCREEN.store(true, Ordering::SeqCst);
        }
    }

    fn on_scenario<W>(
        &mut self,
        feature: &gherkin::Feature,
        rule: Option<&gherkin::Rule>,
        sc: &gherkin::Scenario,
        ev: &ScenarioEv<W>,
    ) {
        let k = key(feature, sc);
        let round = self.rounds.get(&k).copied();
        let Ok(mut c) = self.results.inner.lock() else {
            return;
        };
        let entry = scenario_mut(&mut c.run, feature, sc, round);
        let mut line = None;
        match ev {
            ScenarioEv::Started => {
                c.started.insert(k.clone(), Instant::now());
            }
            // A scenario's time counts from the end of its setup: the Before
            // hook also waits for the run's throttle to let it start.
            ScenarioEv::Hook(event::HookType::Before, event::Hook::Passed) => {
                entry.started = Some(jiff::Timestamp::now());
                c.started.insert(k.clone(), Instant::now());
            }
            ScenarioEv::Hook(kind, event::Hook::Failed(_, info)) => {
                entry.status = Status::Failed;
                entry.steps.push(model::Step {
                    keyword: format!("{kind:?} hook"),
                    text: String::new(),
                    line: sc.position.line as u32,
                    status: Status::Failed,
                    message: Some(panic_text(info)),
                    started: None,
                });
            }
            ScenarioEv::Background(step, s) | ScenarioEv::Step(step, s) => {
                let step_key = (k.clone(), step.position.line as u32);
                let (status, message) = match s {
                    StepEv::Started => {
                        c.step_started.insert(step_key, jiff::Timestamp::now());
                        return;
                    }
                    StepEv::Passed(..) => (Status::Passed, None),
                    StepEv::Skipped => (
                        Status::Skipped {
                            reason: "an earlier step failed or the step is undefined".into(),
                        },
                        None,
                    ),
                    StepEv::Failed(_, _, _, err) => (Status::Failed, Some(step_error_text(err))),
                };
                let started = c.step_started.remove(&step_key);
                let entry = scenario_mut(&mut c.run, feature, sc, round);
                if status == Status::Failed {
                    entry.status = Status::Failed;
                }
                entry.steps.push(model::Step {
                    keyword: step.keyword.trim().to_string(),
                    text: step.value.clone(),
                    line: step.position.line as u32,
                    status,
                    message,
                    started,
                });
            }
            ScenarioEv::Finished => {
                let entry = scenario_mut(&mut c.run, feature, sc, round);
                if entry.status == Status::Failed {
                    not_run_steps(entry, feature, rule, sc);
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
                let mark = match entry.status {
                    Status::Passed if entry.passed_with_deviation() => "dev ",
                    Status::Passed => "ok  ",
                    Status::Failed => "FAIL",
                    Status::Skipped { .. } => "skip",
                    Status::NotImplemented => "todo",
                };
                let name = entry.name.clone();
                let alternatives = if entry.status == Status::Failed {
                    self.deviations.undeclared_alternatives(&entry.tags)
                } else {
                    Vec::new()
                };
                let failure = entry.failure_message();
                let failed_step = entry
                    .failed_step()
                    .map(|st| format!("{} {} ({}:{})", st.keyword.trim(), st.text, k.0, st.line));
                let t0 = c.started.remove(&k);
                let entry = scenario_mut(&mut c.run, feature, sc, round);
                if let Some(t0) = t0 {
                    entry.duration = t0.elapsed();
                }
                let secs = entry.duration.as_secs_f64();
                self.finished += 1;
                let mut text = format!("{mark} {}:{} {name} ({secs:.1}s)", k.0, k.1);
                if let Some(step) = failed_step {
                    text.push_str("\n       failed step: ");
                    text.push_str(&step);
                }
                if let Some(msg) = failure {
                    for l in msg.lines() {
                        text.push_str("\n       ");
                        text.push_str(l);
                    }
                }
                for alt in alternatives {
                    text.push_str("\n       ");
                    text.push_str(&alt);
                }
                line = Some(text);
            }
            _ => {}
        }
        let running = c.started.len();
        drop(c);
        if self.progress {
            if let Some(text) = line {
                clear_bar_line();
                super::out::line(text);
            }
            self.draw_bar(running);
        }
    }
}

/// Appends the steps cucumber never started after a failure (the
/// background's and the scenario's, in order), so every report shows them
/// as not run rather than leaving them out.
fn not_run_steps(
    entry: &mut model::ScenarioResult,
    feature: &gherkin::Feature,
    rule: Option<&gherkin::Rule>,
    sc: &gherkin::Scenario,
) {
    let background = feature.background.iter().flat_map(|b| &b.steps);
    let rule_background = rule
        .and_then(|r| r.background.as_ref())
        .into_iter()
        .flat_map(|b| &b.steps);
    for step in background.chain(rule_background).chain(&sc.steps) {
        let line = step.position.line as u32;
        if entry.steps.iter().any(|s| s.line == line) {
            continue;
        }
        entry.steps.push(model::Step {
            keyword: step.keyword.trim().to_string(),
            text: step.value.clone(),
            line,
            status: Status::Skipped {
                reason: model::NOT_RUN_AFTER_FAILURE.into(),
            },
            message: None,
            started: None,
        });
    }
}

fn scenario_mut<'r>(
    run: &'r mut model::Run,
    feature: &gherkin::Feature,
    sc: &gherkin::Scenario,
    round: Option<u32>,
) -> &'r mut model::ScenarioResult {
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
    let si = match scenarios
        .iter()
        .position(|s| s.line == line && s.name == sc.name)
    {
        Some(i) => i,
        None => {
            let tags = feature
                .tags
                .iter()
                .chain(sc.tags.iter())
                .map(|t| format!("@{t}"))
                .collect();
            let mut s = model::ScenarioResult::new(sc.name.clone(), line, tags, Status::Passed);
            s.round = round;
            scenarios.push(s);
            scenarios.len() - 1
        }
    };
    &mut scenarios[si]
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
                    self.on_scenario(feature, None, sc, &retryable.event)
                }
                FeatureEv::Rule(rule, RuleEv::Scenario(sc, retryable)) => {
                    self.on_scenario(feature, Some(rule), sc, &retryable.event)
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

/// A duration for reports of scenarios that never finished.
pub fn since(t0: Option<Instant>) -> Duration {
    t0.map(|t| t.elapsed()).unwrap_or_default()
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
