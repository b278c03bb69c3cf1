//! The bundled StatefulSet controller.
//!
//! Split as upstream splits it: [`plan`] decides (pure: observed state in,
//! actions and status out, named after the KEP phases), [`execute`] acts
//! (API calls and events), [`run`] keeps the loop (watches, work queue,
//! requeues, feature gates) with [`freshness`] (never deciding on a cache
//! older than its own writes) and [`view`] (what a sync decides on).

pub mod adoption;
pub mod behave;
pub mod command;
#[cfg(kepspec_defects)]
pub mod defects;
pub mod events;
pub mod execute;
pub mod freshness;
pub mod histogram;
pub mod leader;
pub mod metrics;
pub mod metrics_draft;
pub mod metrics_queue;
pub mod plan;
pub mod pods;
pub mod revision;
pub mod rollouts;
pub mod run;
pub mod status;
pub mod vendor;
pub mod view;

pub use plan::{ControllerGates, Observed, Plan, ENFORCED_GATE, KRUISE_GROUP};
pub use run::{run, ControllerOptions};

/// The deliberate defect `KEPSPEC_DEFECT` switches on, by name: only in a
/// build that has them (debug builds, or the `defects` feature).
pub fn active_defect() -> Option<&'static str> {
    #[cfg(kepspec_defects)]
    {
        defects::Defect::active().map(defects::Defect::name)
    }
    #[cfg(not(kepspec_defects))]
    {
        None
    }
}
