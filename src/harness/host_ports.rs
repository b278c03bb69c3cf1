//! Upstream's e2e test "Should recreate evicted statefulset": a pod holding
//! a host port runs on a node, then a set whose pods ask for the same port
//! on that node (`spec.nodeName`, past the scheduler) is created; the node
//! rejects its pod (phase Failed, reason NodePorts), the controller deletes
//! it and creates it again until the port is free, and then it runs.

use kepspec_core::Lookup as _;
use std::time::Duration;

use std::collections::BTreeSet;
use std::sync::{Mutex, PoisonError};

use k8s_openapi::api::core::v1::{Node, Pod};
use kube::api::{Api, ListParams};
use serde_json::{json, Value};

use super::clauses;
use super::scenario::{RequestError, Scenario};
use super::setspec::{SetSpec, DEFAULT_IMAGE};
use super::waits::wait;
use crate::history::{Change, Kind, Timeline};

fn remember_key(pod: &str) -> String {
    format!("node of pod {pod}")
}

/// The node and host port pairs the scenarios of this process hold, from
/// the holder's creation to the scenario's end: scenarios run at once on
/// one cluster (`--repeat` runs this one many times), and two holders of
/// one port on one node would have the second rejected.
static HELD: Mutex<BTreeSet<(String, i32)>> = Mutex::new(BTreeSet::new());

/// One node and host port pair a scenario holds; given back when the
/// scenario ends.
#[derive(Debug)]
pub struct HeldPort(String, i32);

impl Drop for HeldPort {
    fn drop(&mut self) {
        HELD.lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&(self.0.clone(), self.1));
    }
}

/// Whether a pod not yet finished on `node` holds host port `port`: a pod
/// another scenario left behind, or anything else on a real cluster.
async fn port_in_use(sc: &Scenario, node: &str, port: i32) -> Result<bool, RequestError> {
    let what = format!("list the pods on node {node}");
    let pods = Api::<Pod>::all(sc.client.clone())
        .list(&ListParams::default().fields(&format!("spec.nodeName={node}")))
        .await
        .map_err(|e| RequestError::from_kube(what, e))?;
    Ok(pods.items.iter().any(|p| {
        let phase = p.status.as_ref().and_then(|s| s.phase.as_deref());
        let finished = matches!(phase, Some("Succeeded" | "Failed"));
        let holds = p.spec.as_ref().is_some_and(|s| {
            s.containers
                .iter()
                .flat_map(|c| c.ports.iter().flatten())
                .any(|cp| cp.host_port == Some(port))
        });
        holds && !finished
    }))
}

/// A schedulable node (see [`schedulable_nodes`]) on which neither another
/// scenario of this process nor a running pod holds host port `port`, the
/// first by name; waits up to a minute for one.
async fn node_with_free_port(sc: &Scenario, port: i32) -> Result<HeldPort, RequestError> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        for node in schedulable_nodes(sc).await? {
            if HELD
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .contains(&(node.clone(), port))
                || port_in_use(sc, &node, port).await?
            {
                continue;
            }
            // Taken only if still free: another scenario may have taken it
            // while this one listed the pods.
            if HELD
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .insert((node.clone(), port))
            {
                return Ok(HeldPort(node, port));
            }
        }
        if tokio::time::Instant::now() >= deadline {
            return Err(RequestError {
                what: format!("pick a ready schedulable node with host port {port} free"),
                message: "for 60 s every such node had the port held by another pod".into(),
                code: None,
            });
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

/// The Ready nodes without a NoSchedule or NoExecute taint that are not
/// cordoned, by name (upstream's test takes a random ready schedulable
/// node).
async fn schedulable_nodes(sc: &Scenario) -> Result<Vec<String>, RequestError> {
    let what = "pick a ready schedulable node".to_string();
    let nodes = Api::<Node>::all(sc.client.clone())
        .list(&ListParams::default())
        .await
        .map_err(|e| RequestError::from_kube(what.clone(), e))?;
    let mut fit: Vec<String> = nodes
        .items
        .iter()
        .filter(|n| {
            let spec = n.spec.as_ref();
            let ready = n
                .status
                .as_ref()
                .and_then(|s| s.conditions.as_ref())
                .is_some_and(|c| c.iter().any(|c| c.type_ == "Ready" && c.status == "True"));
            let cordoned = spec.and_then(|s| s.unschedulable).unwrap_or(false);
            let tainted = spec
                .and_then(|s| s.taints.as_ref())
                .is_some_and(|t| t.iter().any(|t| t.effect != "PreferNoSchedule"));
            ready && !cordoned && !tainted
        })
        .filter_map(|n| n.metadata.name.clone())
        .collect();
    fit.sort();
    if fit.is_empty() {
        return Err(RequestError {
            what,
            message: "no node is Ready, schedulable and untainted".into(),
            code: None,
        });
    }
    Ok(fit)
}

/// Creates pod `name` holding host port `port` on a schedulable node.
pub async fn hold_port(sc: &mut Scenario, name: &str, port: i32) -> Result<(), RequestError> {
    let held = node_with_free_port(sc, port).await?;
    let node = held.0.clone();
    sc.held_ports.push(held);
    let what = format!("create pod {name} holding host port {port}");
    sc.create_pod(
        what,
        json!({
            "metadata": {"name": name},
            "spec": {
                "nodeName": node,
                "containers": [{"name": "holder", "image": DEFAULT_IMAGE,
                    "ports": [{"name": "conflict", "containerPort": port, "hostPort": port}]}],
            },
        }),
    )
    .await?;
    sc.remembered.insert(remember_key(name), node);
    Ok(())
}

/// Submits set `name` whose pods ask for host port `port` on the node of
/// pod `holder` (its template's `spec.nodeName`, as upstream's test sets).
pub async fn submit_on_node_of(
    sc: &mut Scenario,
    name: &str,
    replicas: i32,
    port: i32,
    holder: &str,
) -> anyhow::Result<()> {
    let node = sc
        .remembered
        .get(&remember_key(holder))
        .cloned()
        .ok_or_else(|| {
            anyhow::anyhow!("no step of this scenario created pod {holder} holding a host port")
        })?;
    let spec = SetSpec::new(name, replicas);
    let mut obj = spec.to_object();
    let template = obj
        .pointer_mut("/spec/template/spec")
        .and_then(Value::as_object_mut)
        .ok_or_else(|| anyhow::anyhow!("the set's manifest has no spec.template.spec"))?;
    template.insert("nodeName".into(), json!(node));
    let first = template
        .get_mut("containers")
        .and_then(|c| c.get_mut(0))
        .and_then(Value::as_object_mut)
        .ok_or_else(|| anyhow::anyhow!("the set's manifest has no container"))?;
    let port = json!({"name": "conflict", "containerPort": port, "hostPort": port});
    match first.get_mut("ports").and_then(Value::as_array_mut) {
        Some(ports) => ports.push(port),
        None => {
            first.insert("ports".into(), json!([port]));
        }
    }
    sc.create_required_set(name, obj).await?;
    sc.sets.insert(name.to_string(), spec);
    Ok(())
}

/// What keeps the history from showing `pod` rejected by its node with
/// `reason` (phase Failed) and that pod object deleted afterwards.
pub fn rejection_gap(t: &Timeline, pod: &str, reason: &str) -> Option<String> {
    let entries = t.entries();
    let rejected = entries.iter().position(|e| {
        e.kind == Kind::Pod
            && e.name == pod
            && e.object.lookup("/status/phase").and_then(Value::as_str) == Some("Failed")
            && e.object.lookup("/status/reason").and_then(Value::as_str) == Some(reason)
    });
    let Some(at) = rejected else {
        return Some(format!("{pod} was never Failed with reason {reason}"));
    };
    let uid = &entries[at].uid;
    let deleted = entries[at..]
        .iter()
        .any(|e| e.kind == Kind::Pod && e.uid == *uid && e.change == Change::Deleted);
    (!deleted).then(|| format!("{pod} was Failed with reason {reason} and never deleted"))
}

/// Waits until `pod` was rejected with `reason` and deleted.
pub async fn rejected_and_deleted(
    sc: &mut Scenario,
    pod: &str,
    reason: &str,
    timeout: Duration,
) -> anyhow::Result<()> {
    let (pod, reason) = (pod.to_string(), reason.to_string());
    wait(sc, timeout, clauses::failed_pods(), move |t| {
        rejection_gap(t, &pod, &reason)
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::Entry;

    fn pod(change: Change, uid: &str, status: Value) -> Entry {
        Entry::new(
            Duration::ZERO,
            Kind::Pod,
            change,
            json!({"metadata": {"name": "web-0", "uid": uid}, "status": status}),
        )
    }

    #[test]
    fn a_rejection_counts_once_that_pod_object_is_deleted() {
        let mut t = Timeline::new();
        t.push(pod(Change::Added, "a", json!({"phase": "Pending"})));
        assert!(rejection_gap(&t, "web-0", "NodePorts").is_some_and(|g| g.contains("never Failed")));
        t.push(pod(
            Change::Modified,
            "a",
            json!({"phase": "Failed", "reason": "NodePorts"}),
        ));
        assert!(
            rejection_gap(&t, "web-0", "NodePorts").is_some_and(|g| g.contains("never deleted"))
        );
        // Another object of the same name going does not count.
        t.push(pod(Change::Deleted, "b", json!({})));
        assert!(rejection_gap(&t, "web-0", "NodePorts").is_some());
        t.push(pod(Change::Deleted, "a", json!({"phase": "Failed"})));
        assert_eq!(rejection_gap(&t, "web-0", "NodePorts"), None);
        // Failed for another reason is not this rejection.
        assert!(rejection_gap(&t, "web-0", "Evicted").is_some());
    }
}
