//! The node simulator: a scheduler, kubelets and a volume provisioner that
//! act as ordinary clients of the API server, the way the real components
//! do on a kind cluster.
//!
//! - `scheduler`: binds pending pods to a node that fits their requests
//!   (through the `binding` subresource) or marks them
//!   `PodScheduled=False/Unschedulable` with upstream's message;
//! - `admission`: the kubelet rejects a pod asking for a host port another
//!   pod of its node holds (phase Failed, reason NodePorts);
//! - `kubelet` / `podstatus` / `termination`: runs bound pods: image pulls
//!   against a catalog (`images`), container starts, exits and restart
//!   back-off, readiness probes' initial delay and readiness gates, preStop
//!   hooks and the grace period, then removes the pod once its containers
//!   have stopped;
//! - `volumes`: provisions and binds a PersistentVolume for each pending
//!   claim, and deletes it with its claim (reclaim policy Delete);
//! - `events`: the Events both record, worded like upstream's;
//! - `runner`: the watch-driven loop doing the I/O.
//!
//! All decisions are pure functions of the observed objects and the clock;
//! the loop only reacts to watch events and to timers set for the
//! configured delays ([`Timings`]).

mod admission;
mod clock;
mod events;
mod images;
mod kubelet;
pub(crate) mod node;
mod podstatus;
mod runner;
mod scheduler;
mod termination;
mod volumes;

#[cfg(test)]
mod tests;

use std::time::Duration;

/// One simulated node.
#[derive(Clone, Debug)]
pub struct NodeSpec {
    /// Node name.
    pub name: String,
    /// Allocatable CPU in millicores.
    pub cpu_millis: i64,
    /// Allocatable memory in bytes.
    pub memory_bytes: i64,
    /// Maximum pods.
    pub pods: i64,
}

impl NodeSpec {
    /// A node with kind's usual size: 4 CPUs, 8Gi, 110 pods.
    pub fn kind_worker(name: &str) -> Self {
        NodeSpec {
            name: name.to_string(),
            cpu_millis: 4000,
            memory_bytes: 8 << 30,
            pods: 110,
        }
    }
}

/// Delays of the simulated components (real ones scaled down).
#[derive(Clone, Debug)]
pub struct Timings {
    /// From a pod's creation to its binding.
    pub schedule: Duration,
    /// An image pull attempt.
    pub pull: Duration,
    /// Creating and starting a container (also how long an exited
    /// container is shown as terminated before its restart).
    pub start: Duration,
    /// The first CrashLoopBackOff delay (doubles per restart, capped at 30×;
    /// the kubelet's 10s..5m scaled).
    pub crash_backoff: Duration,
    /// The first ImagePullBackOff delay (doubles, capped at 30×).
    pub pull_backoff: Duration,
    /// How long a container takes to exit after SIGTERM (after preStop).
    pub stop: Duration,
    /// From a claim's creation to its binding.
    pub bind_volume: Duration,
}

impl Default for Timings {
    fn default() -> Self {
        Timings {
            schedule: Duration::from_millis(10),
            pull: Duration::from_millis(20),
            start: Duration::from_millis(20),
            crash_backoff: Duration::from_millis(100),
            pull_backoff: Duration::from_millis(100),
            stop: Duration::from_millis(10),
            bind_volume: Duration::from_millis(20),
        }
    }
}

/// Node simulator settings.
#[derive(Clone, Debug)]
pub struct NodeSimConfig {
    /// Nodes to register.
    pub nodes: Vec<NodeSpec>,
    /// The image catalog: images the nodes can pull, with optional
    /// behaviour attributes (see `ImageCatalog::new`).
    pub images: Vec<String>,
    /// Delays.
    pub timings: Timings,
}

impl Default for NodeSimConfig {
    fn default() -> Self {
        NodeSimConfig {
            nodes: ["kind-worker", "kind-worker2", "kind-worker3"]
                .iter()
                .map(|n| NodeSpec::kind_worker(n))
                .collect(),
            images: [
                "registry.k8s.io/pause:3.10",
                "registry.k8s.io/pause:3.9",
                "busybox:1.36 exit=0",
                "busybox:1.37 exit=0",
                "nginx:1.27",
                "registry.k8s.io/e2e-test-images/agnhost:2.53",
            ]
            .iter()
            .map(|s| s.to_string())
            .collect(),
            timings: Timings::default(),
        }
    }
}

/// Registers the nodes, then schedules, runs and removes pods and binds
/// claims until `cancel` fires. Everything is driven by watches; timers
/// exist only for the configured delays.
pub(crate) async fn run(
    client: kube::Client,
    cfg: NodeSimConfig,
    cancel: tokio_util::sync::CancellationToken,
) -> anyhow::Result<()> {
    runner::run(client, cfg, cancel).await
}
