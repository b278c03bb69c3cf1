//! The Node objects the simulated kubelets register.

use super::NodeSpec;
use serde_json::{json, Value};

/// The node's InternalIP: `172.18.0.<index + 2>` like kind's docker network.
pub(crate) fn host_ip(index: usize) -> String {
    format!("172.18.0.{}", index % 250 + 2)
}

/// The pod IP number `n` on node `index`: `10.244.<index+1>.<n+2>`.
pub(crate) fn pod_ip(index: usize, n: u64) -> String {
    format!("10.244.{}.{}", index % 250 + 1, n % 250 + 2)
}

/// CPU as the kubelet reports it: whole cores when exact, else millicores.
pub(crate) fn cpu_quantity(millis: i64) -> String {
    if millis % 1000 == 0 {
        (millis / 1000).to_string()
    } else {
        format!("{millis}m")
    }
}

/// Memory as the kubelet reports it: `Ki` when exact, else bytes.
pub(crate) fn memory_quantity(bytes: i64) -> String {
    if bytes % 1024 == 0 {
        format!("{}Ki", bytes / 1024)
    } else {
        bytes.to_string()
    }
}

/// The Node object (metadata and spec) for the simulated node.
pub(crate) fn node_object(spec: &NodeSpec, index: usize) -> Value {
    json!({
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": spec.name,
            "labels": {
                "beta.kubernetes.io/arch": "amd64",
                "beta.kubernetes.io/os": "linux",
                "kubernetes.io/arch": "amd64",
                "kubernetes.io/hostname": spec.name,
                "kubernetes.io/os": "linux",
            },
            "annotations": {"node.alpha.kubernetes.io/ttl": "0"},
        },
        "spec": {
            "podCIDR": format!("10.244.{}.0/24", index % 250 + 1),
            "podCIDRs": [format!("10.244.{}.0/24", index % 250 + 1)],
            "providerID": format!("kind://docker/kind/{}", spec.name),
        },
    })
}

/// The node's status: capacity, allocatable, conditions, addresses, info.
pub(crate) fn node_status(spec: &NodeSpec, index: usize, now: &str) -> Value {
    let resources = json!({
        "cpu": cpu_quantity(spec.cpu_millis),
        "memory": memory_quantity(spec.memory_bytes),
        "pods": spec.pods.to_string(),
        "ephemeral-storage": "102626232Ki",
        "hugepages-1Gi": "0",
        "hugepages-2Mi": "0",
    });
    let cond = |type_: &str, status: &str, reason: &str, message: &str| {
        json!({"type": type_, "status": status, "lastHeartbeatTime": now, "lastTransitionTime": now,
               "reason": reason, "message": message})
    };
    json!({"status": {
        "capacity": resources,
        "allocatable": resources,
        "conditions": [
            cond("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
            cond("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
            cond("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
            cond("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
        ],
        "addresses": [
            {"type": "InternalIP", "address": host_ip(index)},
            {"type": "Hostname", "address": spec.name},
        ],
        "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
        "nodeInfo": {
            "machineID": super::clock::hex_id(&spec.name)[..32].to_string(),
            "systemUUID": super::clock::hex_id(&format!("uuid/{}", spec.name))[..32].to_string(),
            "bootID": super::clock::hex_id(&format!("boot/{}", spec.name))[..32].to_string(),
            "kernelVersion": "6.8.0",
            "osImage": "Debian GNU/Linux 12 (bookworm)",
            "containerRuntimeVersion": "containerd://2.1.0",
            "kubeletVersion": "v1.37.0",
            "kubeProxyVersion": "",
            "operatingSystem": "linux",
            "architecture": "amd64",
        },
    }})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantities_and_addresses() {
        assert_eq!(cpu_quantity(4000), "4");
        assert_eq!(cpu_quantity(3500), "3500m");
        assert_eq!(memory_quantity(8 << 30), "8388608Ki");
        assert_eq!(memory_quantity(1000), "1000");
        assert_eq!(host_ip(0), "172.18.0.2");
        assert_eq!(pod_ip(1, 0), "10.244.2.2");
    }

    #[test]
    fn node_objects_look_like_kind() {
        let spec = NodeSpec {
            name: "kind-worker".into(),
            cpu_millis: 4000,
            memory_bytes: 8 << 30,
            pods: 110,
        };
        let n = node_object(&spec, 0);
        assert_eq!(
            n["metadata"]["labels"]["kubernetes.io/hostname"],
            "kind-worker"
        );
        let s = node_status(&spec, 0, "2026-01-01T00:00:00Z");
        assert_eq!(s["status"]["allocatable"]["cpu"], "4");
        assert_eq!(s["status"]["allocatable"]["pods"], "110");
        assert_eq!(s["status"]["conditions"][3]["type"], "Ready");
        assert_eq!(s["status"]["conditions"][3]["status"], "True");
    }
}
