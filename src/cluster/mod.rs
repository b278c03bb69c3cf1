//! Cluster providers beyond the embedded one (kind clusters provisioned with
//! the `kind`, `docker` and `kubectl` tools) and what a cluster is, read
//! from it ([`facts`]).

pub mod facts;
pub mod kind;
pub mod kubeconfig;
