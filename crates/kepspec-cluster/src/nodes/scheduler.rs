//! The scheduler's decisions without I/O: a pod's requests, which nodes fit,
//! which one to pick, and the Unschedulable message when none does.

use super::super::admission::quantity::{self, milli_of};
use k8s_openapi::api::core::v1::{Node, PersistentVolumeClaim, Pod};
use std::collections::BTreeMap;

use super::admission::HostPort;

/// Requested or allocatable resources: cpu in millicores, memory in
/// thousandths of a byte (milli-units, like `MilliValue`), and pod slots.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Resources {
    /// CPU in millicores.
    pub cpu: i128,
    /// Memory in milli-bytes.
    pub memory: i128,
    /// Pods.
    pub pods: i128,
    /// CPU and memory as scoring counts them: a container that requests
    /// none counts 100m CPU and 200 MiB (upstream's
    /// `schedutil.DefaultMilliCPURequest` / `DefaultMemoryRequest`), so pods
    /// without requests still spread over nodes.
    pub score: (i128, i128),
}

impl std::ops::Add for Resources {
    type Output = Resources;
    fn add(self, o: Resources) -> Resources {
        Resources {
            cpu: self.cpu + o.cpu,
            memory: self.memory + o.memory,
            pods: self.pods + o.pods,
            score: (self.score.0 + o.score.0, self.score.1 + o.score.1),
        }
    }
}

/// What the scheduler knows about one node.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct NodeInfo {
    /// Node name.
    pub name: String,
    /// `status.allocatable`.
    pub allocatable: Resources,
    /// Node labels.
    pub labels: BTreeMap<String, String>,
    /// `spec.unschedulable` (cordoned).
    pub unschedulable: bool,
    /// The Ready condition is True.
    pub ready: bool,
}

impl NodeInfo {
    /// Reads a Node object.
    pub(crate) fn from_node(node: &Node) -> Self {
        let alloc = node.status.as_ref().and_then(|s| s.allocatable.as_ref());
        let get = |k: &str| {
            alloc
                .and_then(|a| a.get(k))
                .and_then(|q| quantity::parse_milli(&q.0))
                .unwrap_or(0)
        };
        NodeInfo {
            name: node.metadata.name.clone().unwrap_or_default(),
            allocatable: Resources {
                cpu: get("cpu"),
                memory: get("memory"),
                pods: get("pods") / 1000,
                score: (get("cpu"), get("memory")),
            },
            labels: node.metadata.labels.clone().unwrap_or_default(),
            unschedulable: node
                .spec
                .as_ref()
                .and_then(|s| s.unschedulable)
                .unwrap_or(false),
            ready: node
                .status
                .as_ref()
                .and_then(|s| s.conditions.as_ref())
                .is_some_and(|cs| cs.iter().any(|c| c.type_ == "Ready" && c.status == "True")),
        }
    }
}

fn container_requests(c: &k8s_openapi::api::core::v1::Container) -> Resources {
    let req = c.resources.as_ref().and_then(|r| r.requests.as_ref());
    let get = |k: &str| {
        req.and_then(|r| r.get(k))
            .and_then(|q| milli_of(&serde_json::Value::String(q.0.clone())))
            .unwrap_or(0)
    };
    let (cpu, memory) = (get("cpu"), get("memory"));
    Resources {
        cpu,
        memory,
        pods: 0,
        score: (
            if cpu == 0 { DEFAULT_MILLI_CPU } else { cpu },
            if memory == 0 {
                DEFAULT_MEMORY_MILLI_BYTES
            } else {
                memory
            },
        ),
    }
}

/// 100m CPU (k8s.io/kubernetes/pkg/scheduler/util/pod_resources.go).
const DEFAULT_MILLI_CPU: i128 = 100;
/// 200 MiB, in milli-bytes as quantities are kept here.
const DEFAULT_MEMORY_MILLI_BYTES: i128 = 200 * 1024 * 1024 * 1000;

/// The pod's effective request: the larger of the sum over containers and
/// the largest init container, plus overhead, plus one pod slot.
pub(super) fn pod_requests(pod: &Pod) -> Resources {
    let Some(spec) = pod.spec.as_ref() else {
        return Resources {
            pods: 1,
            score: (DEFAULT_MILLI_CPU, DEFAULT_MEMORY_MILLI_BYTES),
            ..Default::default()
        };
    };
    let sum = spec
        .containers
        .iter()
        .map(container_requests)
        .fold(Resources::default(), |a, b| a + b);
    let init = spec
        .init_containers
        .iter()
        .flatten()
        .map(container_requests)
        .fold(Resources::default(), |a, b| Resources {
            cpu: a.cpu.max(b.cpu),
            memory: a.memory.max(b.memory),
            pods: 0,
            score: (a.score.0.max(b.score.0), a.score.1.max(b.score.1)),
        });
    let overhead = spec.overhead.as_ref().map_or(Resources::default(), |o| {
        let get = |k: &str| {
            o.get(k)
                .and_then(|q| quantity::parse_milli(&q.0))
                .unwrap_or(0)
        };
        let (cpu, memory) = (get("cpu"), get("memory"));
        Resources {
            cpu,
            memory,
            pods: 0,
            score: (cpu, memory),
        }
    });
    Resources {
        cpu: sum.cpu.max(init.cpu) + overhead.cpu,
        memory: sum.memory.max(init.memory) + overhead.memory,
        pods: 1,
        score: (
            sum.score.0.max(init.score.0) + overhead.score.0,
            sum.score.1.max(init.score.1) + overhead.score.1,
        ),
    }
}

/// Whether a pod still holds its node's resources (not Succeeded/Failed).
pub(super) fn holds_resources(pod: &Pod) -> bool {
    !matches!(
        pod.status.as_ref().and_then(|s| s.phase.as_deref()),
        Some("Succeeded" | "Failed")
    )
}

/// Why the pod cannot wait for scheduling on its volumes: `Err(message)`
/// for a claim that does not exist (shown as Unschedulable), `Ok(false)`
/// while a claim is not yet bound (the scheduler waits silently, like
/// `WaitForFirstConsumer` on kind), `Ok(true)` when all are bound.
pub(super) fn claims_ready(
    pod: &Pod,
    claims: &BTreeMap<String, PersistentVolumeClaim>,
) -> Result<bool, String> {
    let Some(volumes) = pod.spec.as_ref().and_then(|s| s.volumes.as_ref()) else {
        return Ok(true);
    };
    let mut all_bound = true;
    for v in volumes {
        let Some(src) = &v.persistent_volume_claim else {
            continue;
        };
        match claims.get(&src.claim_name) {
            None => {
                return Err(format!(
                    "persistentvolumeclaim \"{}\" not found",
                    src.claim_name
                ))
            }
            Some(c) => {
                if c.metadata.deletion_timestamp.is_some() {
                    return Err(format!(
                        "persistentvolumeclaim \"{}\" is being deleted",
                        src.claim_name
                    ));
                }
                let bound = c.status.as_ref().and_then(|s| s.phase.as_deref()) == Some("Bound");
                all_bound &= bound;
            }
        }
    }
    Ok(all_bound)
}

/// Picks a node for a pod needing `request`, given what is already used on
/// each node. The least allocated (by CPU, then memory fraction) wins, ties
/// by name. `Err` carries the scheduler's FailedScheduling message.
/// A node where another pod holds one of the host ports `wanted` is
/// filtered out by the NodePorts plugin (after NodeAffinity, before
/// NodeResourcesFit), which preemption could help.
pub(super) fn place_with_ports(
    request: &Resources,
    node_selector: &BTreeMap<String, String>,
    wanted: &[HostPort],
    held: &BTreeMap<String, Vec<HostPort>>,
    nodes: &[NodeInfo],
    used: &BTreeMap<String, Resources>,
) -> Result<String, String> {
    if nodes.is_empty() {
        return Err("no nodes available to schedule pods".to_string());
    }
    let mut failures: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut not_helpful = 0usize;
    let mut no_victims = 0usize;
    let mut best: Option<(i128, &NodeInfo)> = None;
    for node in nodes {
        // Filter plugins in the default order; a node stops at the first
        // plugin that rejects it (NodeUnschedulable, TaintToleration,
        // NodeAffinity, then NodeResourcesFit with all its reasons).
        let mut reasons: Vec<&'static str> = Vec::new();
        let mut resource_only = false;
        let u = used.get(&node.name).copied().unwrap_or_default();
        let a = node.allocatable;
        if node.unschedulable {
            reasons.push("node(s) were unschedulable");
        } else if !node.ready {
            reasons.push("node(s) had untolerated taint {node.kubernetes.io/not-ready: }");
        } else if node_selector
            .iter()
            .any(|(k, v)| node.labels.get(k) != Some(v))
        {
            reasons.push("node(s) didn't match Pod's node affinity/selector");
        } else if held
            .get(&node.name)
            .is_some_and(|h| wanted.iter().any(|w| h.iter().any(|x| w.conflicts(x))))
        {
            resource_only = true;
            reasons.push(super::admission::DESCRIPTION);
        } else {
            resource_only = true;
            if u.pods + 1 > a.pods {
                reasons.push("Too many pods");
            }
            if request.cpu > 0 && u.cpu + request.cpu > a.cpu {
                reasons.push("Insufficient cpu");
            }
            if request.memory > 0 && u.memory + request.memory > a.memory {
                reasons.push("Insufficient memory");
            }
        }
        if reasons.is_empty() {
            // Score: free share after placement, in parts per million.
            let share = |used: i128, alloc: i128| {
                if alloc > 0 {
                    (alloc - used) * 1_000_000 / alloc
                } else {
                    0
                }
            };
            let score = share(u.score.0 + request.score.0, a.cpu)
                + share(u.score.1 + request.score.1, a.memory);
            if best.is_none_or(|(s, n)| score > s || (score == s && node.name < n.name)) {
                best = Some((score, node));
            }
            continue;
        }
        for r in reasons {
            *failures.entry(r).or_default() += 1;
        }
        if resource_only {
            no_victims += 1;
        } else {
            not_helpful += 1;
        }
    }
    if let Some((_, node)) = best {
        return Ok(node.name.clone());
    }
    let total = nodes.len();
    let mut parts: Vec<String> = failures.iter().map(|(r, n)| format!("{n} {r}")).collect();
    parts.sort();
    let mut pre: Vec<String> = Vec::new();
    if no_victims > 0 {
        pre.push(format!(
            "{no_victims} No preemption victims found for incoming pod"
        ));
    }
    if not_helpful > 0 {
        pre.push(format!(
            "{not_helpful} Preemption is not helpful for scheduling"
        ));
    }
    pre.sort();
    Err(format!(
        "0/{total} nodes are available: {}. preemption: 0/{total} nodes are available: {}.",
        parts.join(", "),
        pre.join(", ")
    ))
}

/// The message for a pod whose volumes keep it from any node.
pub(super) fn volume_failure_message(reason: &str, total: usize) -> String {
    format!("0/{total} nodes are available: {reason}. preemption: 0/{total} nodes are available: {total} Preemption is not helpful for scheduling.")
}
