//! Cluster providers beyond the embedded one (kind clusters provisioned with
//! the `kind`, `docker` and `kubectl` tools) and what a cluster is, read
//! from it ([`facts`]).

pub(crate) mod facts;
pub(crate) mod kind;
pub(crate) mod kubeconfig;
