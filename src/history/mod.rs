//! The history of a scenario and the properties checked over it.
//!
//! - [`timeline`]: the ordered entries (the single source of truth);
//! - [`merge`] and [`recorder`]: watches of one namespace into a timeline;
//! - [`views`]: per-pod facts and the per-instant [`views::State`];
//! - [`lives`]: per-pod lives and per-instant counts;
//! - [`checks`]: the primitives (`always`, `never`, `eventually_within`,
//!   order) and [`checks::Violation`];
//! - [`rules`]: named StatefulSet properties built on the primitives, and
//!   [`signals`]: conditions and events;
//! - [`pacing`]: how a controller paces deletions and replacements, and
//!   [`status_truth`]: whether what it reports was true;
//! - [`fixture`]: a builder of hand-written timelines for tests.

pub mod checks;
pub mod fixture;
pub mod lives;
pub mod merge;
pub mod pacing;
pub mod recorder;
mod render;
pub mod rules;
pub mod sequence;
pub mod signals;
pub mod status_quiet;
pub mod status_truth;
pub mod timeline;
pub mod views;

pub use checks::{Breach, Clause, Violation};
pub use recorder::{Recorder, RecorderOptions, SetKind, WaitTimeout};
pub use timeline::{Change, Entry, Kind, Timeline};
pub use views::{pod_lives, PodLife, SetScope, State};
