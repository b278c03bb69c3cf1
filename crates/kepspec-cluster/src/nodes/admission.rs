//! The kubelet's admission of a pod bound to its node: a pod asking for a
//! host port another admitted pod of the node holds is rejected, as the
//! kubelet's predicate admit handler does with the scheduler's NodePorts
//! check (pkg/kubelet/lifecycle/predicate.go, `generalFilter`; the reason
//! and its text from the scheduler's nodeports plugin). The kubelet writes
//! phase Failed with the predicate's name as reason and "Pod was rejected: "
//! before its error text as message (pkg/kubelet/kubelet.go, `rejectPod`),
//! and records a Warning event with the same reason. Rejected pods hold no
//! port; a pod being deleted still does.

use k8s_openapi::api::core::v1::{ContainerPort, Pod};
use serde_json::{json, Value};

use super::events::PodEvent;

/// The predicate's name, the rejected pod's `status.reason`.
pub(super) const REASON: &str = "NodePorts";
/// The nodeports plugin's reason text.
pub(super) const DESCRIPTION: &str = "node(s) didn't have free ports for the requested pod ports";

/// One host port a pod asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct HostPort {
    ip: String,
    protocol: String,
    port: i32,
}

impl HostPort {
    fn of(p: &ContainerPort) -> Option<HostPort> {
        let port = p.host_port.filter(|&n| n > 0)?;
        Some(HostPort {
            ip: p
                .host_ip
                .clone()
                .filter(|ip| !ip.is_empty())
                .unwrap_or_else(|| "0.0.0.0".into()),
            protocol: p
                .protocol
                .clone()
                .filter(|p| !p.is_empty())
                .unwrap_or_else(|| "TCP".into()),
            port,
        })
    }

    /// Whether the two cannot both be held on one node.
    pub(super) fn conflicts(&self, other: &HostPort) -> bool {
        self.port == other.port
            && self.protocol == other.protocol
            && (self.ip == other.ip || self.ip == "0.0.0.0" || other.ip == "0.0.0.0")
    }
}

/// The host ports a pod asks for: of its containers and of its restartable
/// (sidecar) init containers.
pub(super) fn host_ports(pod: &Pod) -> Vec<HostPort> {
    let Some(spec) = pod.spec.as_ref() else {
        return Vec::new();
    };
    let sidecars = spec
        .init_containers
        .iter()
        .flatten()
        .filter(|c| c.restart_policy.as_deref() == Some("Always"));
    spec.containers
        .iter()
        .chain(sidecars)
        .flat_map(|c| c.ports.iter().flatten())
        .filter_map(HostPort::of)
        .collect()
}

/// Whether `pod` may run beside the pods already admitted on its node.
/// `admitted` is read only when the pod asks for a host port (most do not).
pub(super) fn admits<'p>(pod: &Pod, admitted: impl IntoIterator<Item = &'p Pod>) -> bool {
    let wanted = host_ports(pod);
    if wanted.is_empty() {
        return true;
    }
    let held = held_ports(admitted);
    !wanted.iter().any(|w| held.iter().any(|h| w.conflicts(h)))
}

/// The host ports these pods hold (a pod that ended holds none).
pub(super) fn held_ports<'p>(pods: impl IntoIterator<Item = &'p Pod>) -> Vec<HostPort> {
    pods.into_iter()
        .filter(|p| {
            let phase = p.status.as_ref().and_then(|s| s.phase.as_deref());
            !matches!(phase, Some("Failed" | "Succeeded"))
        })
        .flat_map(host_ports)
        .collect()
}

/// The predicate's error text.
fn error_text() -> String {
    format!("Predicate {REASON} failed: {DESCRIPTION}")
}

/// The status the kubelet writes for a rejected pod (a strategic merge
/// patch of `status`).
pub(super) fn rejected_status() -> Value {
    json!({
        "phase": "Failed",
        "reason": REASON,
        "message": format!("Pod was rejected: {}", error_text()),
    })
}

/// The kubelet's event for a rejected pod.
pub(super) fn rejected_event() -> PodEvent {
    PodEvent {
        type_: "Warning",
        reason: REASON,
        message: error_text(),
        field_path: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod(ports: Value, phase: Option<&str>) -> Pod {
        serde_json::from_value(json!({
            "metadata": {"name": "p"},
            "spec": {"containers": [{"name": "c", "image": "i", "ports": ports}]},
            "status": {"phase": phase},
        }))
        .expect("pod")
    }

    #[test]
    fn a_host_port_held_on_the_node_rejects_the_pod() {
        let held = pod(
            json!([{"containerPort": 21017, "hostPort": 21017}]),
            Some("Running"),
        );
        let wants = pod(json!([{"containerPort": 80, "hostPort": 21017}]), None);
        assert!(!admits(&wants, [&held]));
        // Another port, another protocol, or no host port at all: admitted.
        let other = pod(json!([{"containerPort": 80, "hostPort": 21018}]), None);
        assert!(admits(&other, [&held]));
        let udp = pod(
            json!([{"containerPort": 80, "hostPort": 21017, "protocol": "UDP"}]),
            None,
        );
        assert!(admits(&udp, [&held]));
        let none = pod(json!([{"containerPort": 21017}]), None);
        assert!(admits(&none, [&held]));
    }

    #[test]
    fn addresses_conflict_when_equal_or_either_is_the_wildcard_and_terminal_pods_hold_nothing() {
        let on_ip = |ip: &str| {
            pod(
                json!([{"containerPort": 1, "hostPort": 9, "hostIP": ip}]),
                Some("Running"),
            )
        };
        assert!(!admits(&on_ip("10.0.0.1"), [&on_ip("10.0.0.1")]));
        assert!(admits(&on_ip("10.0.0.1"), [&on_ip("10.0.0.2")]));
        assert!(!admits(&on_ip("10.0.0.1"), [&on_ip("0.0.0.0")]));
        let failed = pod(json!([{"containerPort": 1, "hostPort": 9}]), Some("Failed"));
        assert!(admits(&on_ip("10.0.0.1"), [&failed]));
    }

    #[test]
    fn the_rejection_is_worded_as_the_kubelet_words_it() {
        assert_eq!(
            rejected_status()["message"],
            "Pod was rejected: Predicate NodePorts failed: node(s) didn't have free ports for the requested pod ports"
        );
        assert_eq!(rejected_event().reason, "NodePorts");
    }
}
