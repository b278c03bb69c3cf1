//! The machine-readable result: the [`Run`] model as JSON.

use super::model::Run;

/// Renders the run as pretty-printed JSON.
pub(crate) fn render(run: &Run) -> Result<String, serde_json::Error> {
    serde_json::to_string_pretty(run)
}

/// Reads a run back from JSON written by [`render`].
#[cfg(test)]
pub(crate) fn parse(text: &str) -> Result<Run, serde_json::Error> {
    serde_json::from_str(text)
}
