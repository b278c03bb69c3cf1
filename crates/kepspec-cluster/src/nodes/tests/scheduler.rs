//! Scheduler decisions: requests, placement and messages.

use super::super::scheduler::*;
use k8s_openapi::api::core::v1::{PersistentVolumeClaim, Pod};
use serde_json::json;
use std::collections::BTreeMap;

fn node(name: &str, cpu: i128) -> NodeInfo {
    NodeInfo {
        name: name.into(),
        allocatable: Resources {
            cpu,
            memory: 8 * (1 << 30) * 1000,
            pods: 110,
            score: (cpu, 8 * (1 << 30) * 1000),
        },
        labels: BTreeMap::from([("kubernetes.io/hostname".to_string(), name.to_string())]),
        unschedulable: false,
        ready: true,
    }
}

fn pod(v: serde_json::Value) -> Pod {
    serde_json::from_value(v).unwrap()
}

/// A pod that asks for no host port.
fn place(
    request: &Resources,
    node_selector: &BTreeMap<String, String>,
    nodes: &[NodeInfo],
    used: &BTreeMap<String, Resources>,
) -> Result<String, String> {
    place_with_ports(request, node_selector, &[], &BTreeMap::new(), nodes, used)
}

/// The NodePorts filter: a node where the port is held is passed over; with
/// none left the message is the plugin's, and preemption is considered.
#[test]
fn a_node_holding_the_host_port_is_filtered_out() {
    use super::super::admission::host_ports;
    let with_port = |port: i32| {
        pod(json!({"metadata": {"name": "p"}, "spec": {"containers": [
            {"name": "a", "ports": [{"containerPort": 80, "hostPort": port}]}]}}))
    };
    let wanted = host_ports(&with_port(21017));
    let nodes = vec![node("kind-worker", 4000), node("kind-worker2", 4000)];
    let held = BTreeMap::from([("kind-worker".to_string(), host_ports(&with_port(21017)))]);
    let req = pod_requests(&with_port(21017));
    let (none, unused) = (BTreeMap::new(), BTreeMap::new());
    assert_eq!(
        place_with_ports(&req, &none, &wanted, &held, &nodes, &unused).unwrap(),
        "kind-worker2"
    );
    let both = BTreeMap::from([
        ("kind-worker".to_string(), host_ports(&with_port(21017))),
        ("kind-worker2".to_string(), host_ports(&with_port(21017))),
    ]);
    assert_eq!(
        place_with_ports(&req, &none, &wanted, &both, &nodes, &unused).unwrap_err(),
        "0/2 nodes are available: 2 node(s) didn't have free ports for the requested pod ports. \
         preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod."
    );
    let other = BTreeMap::from([("kind-worker".to_string(), host_ports(&with_port(21018)))]);
    assert_eq!(
        place_with_ports(&req, &none, &wanted, &other, &nodes[..1], &unused).unwrap(),
        "kind-worker"
    );
}

#[test]
fn requests_sum_containers_and_take_the_largest_init() {
    let p = pod(json!({"metadata": {"name": "p"}, "spec": {
        "containers": [
            {"name": "a", "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}},
            {"name": "b", "resources": {"requests": {"cpu": "200m"}}}],
        "initContainers": [{"name": "i", "resources": {"requests": {"cpu": "500m"}}}]}}));
    let r = pod_requests(&p);
    assert_eq!(r.cpu, 500);
    assert_eq!(r.memory, 64 * (1 << 20) * 1000);
    assert_eq!(r.pods, 1);
}

#[test]
fn picks_the_least_allocated_node() {
    let nodes = vec![node("kind-worker", 4000), node("kind-worker2", 4000)];
    let mut used = BTreeMap::new();
    used.insert(
        "kind-worker".to_string(),
        Resources {
            cpu: 1000,
            memory: 0,
            pods: 1,
            score: (1000, 0),
        },
    );
    let req = Resources {
        cpu: 100,
        memory: 0,
        pods: 1,
        score: (100, 0),
    };
    assert_eq!(
        place(&req, &BTreeMap::new(), &nodes, &used).unwrap(),
        "kind-worker2"
    );
    assert_eq!(
        place(&req, &BTreeMap::new(), &nodes, &BTreeMap::new()).unwrap(),
        "kind-worker"
    );
}

#[test]
fn pods_without_requests_spread_over_nodes() {
    // Scoring counts 100m CPU and 200 MiB for a container that requests
    // nothing, so a second such pod goes to the other node.
    let nodes = vec![node("kind-worker", 4000), node("kind-worker2", 4000)];
    let bare = pod(json!({"metadata": {"name": "p"}, "spec": {"containers": [{"name": "a"}]}}));
    let req = pod_requests(&bare);
    let mut used = BTreeMap::new();
    used.insert("kind-worker".to_string(), req);
    assert_eq!(
        place(&req, &BTreeMap::new(), &nodes, &used).unwrap(),
        "kind-worker2"
    );
}

#[test]
fn unschedulable_messages_like_upstream() {
    let nodes = vec![node("a", 4000), node("b", 4000), node("c", 4000)];
    let req = Resources {
        cpu: 64_000,
        memory: 0,
        pods: 1,
        score: (64_000, 0),
    };
    assert_eq!(
        place(&req, &BTreeMap::new(), &nodes, &BTreeMap::new()).unwrap_err(),
        "0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod."
    );
    let selector = BTreeMap::from([("kubernetes.io/hostname".to_string(), "a".to_string())]);
    let req = Resources {
        cpu: 5000,
        memory: 16 * (1 << 30) * 1000,
        pods: 1,
        score: (5000, 16 * (1 << 30) * 1000),
    };
    assert_eq!(
        place(&req, &selector, &nodes, &BTreeMap::new()).unwrap_err(),
        "0/3 nodes are available: 1 Insufficient cpu, 1 Insufficient memory, 2 node(s) didn't match Pod's node affinity/selector. preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling."
    );
    let mut full = BTreeMap::new();
    for n in ["a", "b", "c"] {
        full.insert(
            n.to_string(),
            Resources {
                cpu: 0,
                memory: 0,
                pods: 110,
                score: (0, 0),
            },
        );
    }
    assert!(place(
        &Resources {
            pods: 1,
            ..Default::default()
        },
        &BTreeMap::new(),
        &nodes,
        &full
    )
    .unwrap_err()
    .starts_with("0/3 nodes are available: 3 Too many pods."));
    let mut down = nodes.clone();
    down[0].ready = false;
    down[1].unschedulable = true;
    assert_eq!(
        place(
            &Resources {
                pods: 1,
                ..Default::default()
            },
            &BTreeMap::new(),
            &down,
            &BTreeMap::new()
        )
        .unwrap(),
        "c"
    );
    assert_eq!(
        place(&req, &BTreeMap::new(), &[], &BTreeMap::new()).unwrap_err(),
        "no nodes available to schedule pods"
    );
}

#[test]
fn claims_gate_scheduling() {
    let p = pod(
        json!({"metadata": {"name": "web-0"}, "spec": {"containers": [{"name": "a"}],
        "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "data-web-0"}}]}}),
    );
    let mut claims = BTreeMap::new();
    assert_eq!(
        claims_ready(&p, &claims).unwrap_err(),
        "persistentvolumeclaim \"data-web-0\" not found"
    );
    let pending: PersistentVolumeClaim = serde_json::from_value(
        json!({"metadata": {"name": "data-web-0"}, "status": {"phase": "Pending"}}),
    )
    .unwrap();
    claims.insert("data-web-0".to_string(), pending);
    assert_eq!(claims_ready(&p, &claims), Ok(false));
    let bound: PersistentVolumeClaim = serde_json::from_value(
        json!({"metadata": {"name": "data-web-0"}, "status": {"phase": "Bound"}}),
    )
    .unwrap();
    claims.insert("data-web-0".to_string(), bound);
    assert_eq!(claims_ready(&p, &claims), Ok(true));
    assert_eq!(
        volume_failure_message("persistentvolumeclaim \"x\" not found", 3),
        "0/3 nodes are available: persistentvolumeclaim \"x\" not found. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
    );
}
