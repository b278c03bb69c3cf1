//! Step definitions. Each step parses its words and calls one harness
//! function; no logic lives here that a test of the library cannot reach.
//!
//! This module is compiled into each binary that runs features (the
//! `kepspec` CLI and the `spec` test target) so that cucumber's step registry
//! is linked in whole.

/// The allocator of every binary that runs features: the embedded cluster
/// and the recorder allocate and free JSON trees on every change, which
/// mimalloc serves in about two thirds of glibc's CPU time.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
