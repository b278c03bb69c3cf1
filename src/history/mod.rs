//! The history of a scenario and the properties checked over it.
//!
//! - [`timeline`]: the ordered entries (the single source of truth);
//! - [`merge`] and [`recorder`]: watches of one namespace into a timeline;
//! - [`views`]: per-pod facts and the per-instant [`views::State`];
//! - [`lives`]: per-pod lives and per-instant counts;
//! - [`checks`]: the primitives (`always`, `never`, order) and [`checks::Violation`];
//! - [`rules`]: named StatefulSet properties built on the primitives, and
//!   [`signals`]: conditions and events;
//! - [`pacing`]: how a controller paces deletions and replacements, and
//!   [`status_truth`]: whether what it reports was true;
//! - [`fixture`]: a builder of hand-written timelines for tests.

pub(crate) mod checks;
pub(crate) mod fixture;
pub(crate) mod lives;
pub(crate) mod merge;
pub(crate) mod pacing;
pub(crate) mod recorder;
mod render;
pub mod rules;
pub(crate) mod sequence;
pub(crate) mod signals;
pub(crate) mod status_quiet;
pub(crate) mod status_truth;
pub(crate) mod timeline;
pub mod views;

pub use checks::{Breach, Clause, Violation};
pub use recorder::{Recorder, RecorderOptions, SetKind, WaitTimeout};
pub use timeline::{Change, Entry, Kind, Timeline};
pub use views::{pod_lives, PodLife, SetScope, State};
