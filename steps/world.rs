//! The cucumber World: one [`Scenario`] per scenario.

use crate::harness::Scenario;
use crate::run::runner::{ScenarioWorld, INPUT_ERROR};

/// The world of one scenario. Created empty; the runner's `before` hook
/// gives it its [`Scenario`] (namespace, recorder) once the scenario's name is known.
#[derive(Debug, Default, cucumber::World)]
pub struct KepWorld {
    /// The scenario's context, once started.
    pub scenario: Option<Scenario>,
}

impl KepWorld {
    /// The started scenario.
    pub fn sc(&mut self) -> anyhow::Result<&mut Scenario> {
        self.scenario.as_mut().ok_or_else(|| {
            anyhow::anyhow!("scenario not started: its namespace could not be created")
        })
    }
}

impl ScenarioWorld for KepWorld {
    fn slot(&mut self) -> &mut Option<Scenario> {
        &mut self.scenario
    }
}

/// An error in the words of a step rather than in the system under test.
pub fn input_error(msg: impl std::fmt::Display) -> anyhow::Error {
    anyhow::anyhow!("{INPUT_ERROR} {msg}")
}
