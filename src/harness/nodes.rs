//! What upstream's e2e test "PVC should be recreated when pod is pending
//! due to missing PVC" (coverage E31) does to nodes: pin a set's pods to
//! one node by its hostname label, cordon that node and uncordon it. A
//! cordon changes the whole cluster, so scenarios using it run `@isolated`.

use kepspec_core::Lookup as _;
use std::time::Duration;

use k8s_openapi::api::core::v1::{Node, Pod};
use kube::api::{Api, Patch, PatchParams};
use serde_json::{json, Value};

use super::clauses;
use super::scenario::{RequestError, Scenario};
use super::waits::wait;
use crate::history::Kind;

/// The hostname label kube-scheduler's nodeSelector matches.
const HOSTNAME: &str = "kubernetes.io/hostname";

/// The node a pod runs on now.
async fn node_of(sc: &Scenario, pod: &str) -> Result<String, RequestError> {
    let what = format!("read the node of pod {pod}");
    Api::<Pod>::namespaced(sc.client.clone(), &sc.namespace)
        .get(pod)
        .await
        .map_err(|e| RequestError::from_kube(what.clone(), e))?
        .spec
        .and_then(|s| s.node_name)
        .ok_or_else(|| RequestError {
            what,
            message: format!("pod {pod} is not on a node yet"),
            code: None,
        })
}

/// Pins the set's pods to the node `pod` runs on: the template's
/// nodeSelector names that node's hostname label (a template change).
pub async fn pin(sc: &mut Scenario, set: &str, pod: &str) -> Result<(), RequestError> {
    let node = node_of(sc, pod).await?;
    let hostname = Api::<Node>::all(sc.client.clone())
        .get(&node)
        .await
        .map_err(|e| RequestError::from_kube(format!("read node {node}"), e))?
        .metadata
        .labels
        .and_then(|l| l.get(HOSTNAME).cloned())
        .unwrap_or(node);
    let patch = json!({"spec": {"template": {"spec": {"nodeSelector": {HOSTNAME: hostname}}}}});
    sc.patch_set(set, patch).await
}

/// Marks the node of `pod` unschedulable (or schedulable again).
pub async fn cordon(sc: &mut Scenario, pod: &str, cordoned: bool) -> Result<(), RequestError> {
    let key = format!("node of pod {pod}");
    let node = match sc.remembered.get(&key) {
        Some(node) => node.clone(),
        None => node_of(sc, pod).await?,
    };
    sc.remembered.insert(key, node.clone());
    sc.note_change().await;
    Api::<Node>::all(sc.client.clone())
        .patch(
            &node,
            &PatchParams::default(),
            &Patch::Merge(&json!({"spec": {"unschedulable": cordoned}})),
        )
        .await
        .map(|_| ())
        .map_err(|e| RequestError::from_kube(format!("cordon node {node}"), e))
}

/// Waits until `pod` runs on the node the set's template pins it to.
pub async fn on_pinned_node(
    sc: &mut Scenario,
    pod: &str,
    set: &str,
    timeout: Duration,
) -> anyhow::Result<()> {
    let (pod, set) = (pod.to_string(), set.to_string());
    wait(sc, timeout, clauses::pod_state(), move |t| {
        let pinned = t.of_object(Kind::StatefulSet, &set).last().and_then(|e| {
            e.object
                .lookup("/spec/template/spec/nodeSelector")
                .and_then(|s| s.get(HOSTNAME))
                .and_then(Value::as_str)
                .map(str::to_string)
        });
        let on = t.of_object(Kind::Pod, &pod).last().and_then(|e| {
            e.object
                .lookup("/spec/nodeName")
                .and_then(Value::as_str)
                .map(str::to_string)
        });
        match (pinned, on) {
            (None, _) => Some(format!("{set} pins its pods to no node")),
            (Some(p), Some(o)) if p == o => None,
            (Some(p), o) => Some(format!(
                "pod {pod} is on {}, pinned to {p}",
                o.unwrap_or_else(|| "no node".into())
            )),
        }
    })
    .await
}
