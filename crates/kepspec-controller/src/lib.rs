//! The bundled StatefulSet controller.
//!
//! Split as upstream splits it: [`plan`] decides (pure: observed state in,
//! actions and status out, named after the KEP phases), `execute` acts
//! (API calls and events), `run` keeps the loop (watches, work queue,
//! requeues, feature gates) with `freshness` (never deciding on a cache
//! older than its own writes) and `view` (what a sync decides on). Public:
//! the decision core ([`plan`], [`revision`], [`pods`]), the loop's entry
//! points ([`run()`], [`run_elected`]), leader election ([`leader`]), the
//! `kepspec-controller` command ([`command`]) and, in builds with them, the
//! deliberate defects.

#![warn(unreachable_pub)]

mod adoption;
mod behave;
pub mod command;
#[cfg(kepspec_defects)]
pub mod defects;
mod events;
mod execute;
mod freshness;
mod histogram;
pub mod leader;
mod metrics;
mod metrics_draft;
mod metrics_queue;
pub mod plan;
pub mod pods;
pub mod revision;
mod rollouts;
mod run;
mod status;
mod vendor;
mod view;

pub use behave::Implementation;
pub use metrics::Metrics;
pub use plan::{ControllerGates, Observed, Plan, ENFORCED_GATE, KRUISE_GROUP};
pub use run::{run, run_elected, ControllerOptions};

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
