//! Step definitions. Each step parses its words and calls one harness
//! function; no logic lives here that a test of the library cannot reach.
//!
//! They are part of the library, with the [`KepWorld`] they register with,
//! so that the runner is instantiated for that world once, here, and the
//! binary that runs features is a thin `main`. Each registration is a
//! `#[used]` static, which the linker keeps although nothing names it.

pub mod claims;
pub mod comparison;
pub mod faults;
pub mod given;
pub mod kruise;
pub mod ownership;
pub mod requests;
pub mod skew;
pub mod then;
pub mod when;
pub mod world;

pub use world::KepWorld;
