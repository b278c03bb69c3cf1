//! Cluster providers beyond the embedded one: kind clusters provisioned with
//! the `kind`, `docker` and `kubectl` tools.

pub mod kind;
