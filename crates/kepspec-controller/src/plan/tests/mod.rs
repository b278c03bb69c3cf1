//! The decision core's unit tests, by topic: each builds an observed
//! world with `super::fixtures` and checks the plan made of it.

mod base;
mod enforced;
mod kruise;
mod recreate;
mod replicas;
mod rolling;
