//! The node simulator against the embedded API server, over HTTP with
//! kube-rs like any other client.

use crate::{ClusterConfig, EmbeddedCluster};
use k8s_openapi::api::core::v1::{
    Event as CoreEvent, Node, PersistentVolume, PersistentVolumeClaim, Pod,
};
use kube::api::{Api, DeleteParams, Patch, PatchParams, PostParams};
use kube::runtime::wait::await_condition;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

const WAIT: Duration = Duration::from_secs(10);

async fn cluster() -> (EmbeddedCluster, kube::Client) {
    let cluster = EmbeddedCluster::start(ClusterConfig::default())
        .await
        .unwrap();
    let client = cluster.client().await.unwrap();
    (cluster, client)
}

async fn create_pod(api: &Api<Pod>, body: Value) -> Pod {
    let pod: Pod = serde_json::from_value(body).unwrap();
    api.create(&PostParams::default(), &pod).await.unwrap()
}

async fn wait_pod(api: &Api<Pod>, name: &str, what: &str, cond: impl Fn(&Pod) -> bool) -> Pod {
    let fut = await_condition(api.clone(), name, move |p: Option<&Pod>| {
        p.is_some_and(&cond)
    });
    match tokio::time::timeout(WAIT, fut).await {
        Ok(Ok(Some(p))) => p,
        other => {
            let now = api.get_opt(name).await.ok().flatten();
            panic!(
                "pod {name} never got {what}: {other:?}; now: {:#?}",
                now.map(|p| p.status)
            );
        }
    }
}

fn waiting_reason(p: &Pod) -> Option<String> {
    p.status
        .as_ref()?
        .container_statuses
        .as_ref()?
        .first()?
        .state
        .as_ref()?
        .waiting
        .as_ref()?
        .reason
        .clone()
}

fn condition(p: &Pod, type_: &str) -> Option<(String, Option<String>, Option<String>)> {
    let c = p
        .status
        .as_ref()?
        .conditions
        .as_ref()?
        .iter()
        .find(|c| c.type_ == type_)?
        .clone();
    Some((c.status, c.reason, c.message))
}

fn is_ready(p: &Pod) -> bool {
    condition(p, "Ready").is_some_and(|c| c.0 == "True")
}

#[tokio::test]
async fn nodes_are_registered_ready() {
    let (cluster, client) = cluster().await;
    let nodes: Api<Node> = Api::all(client);
    let node = tokio::time::timeout(
        WAIT,
        await_condition(nodes.clone(), "kind-worker3", |n: Option<&Node>| {
            n.and_then(|n| {
                n.status
                    .as_ref()?
                    .conditions
                    .as_ref()?
                    .iter()
                    .find(|c| c.type_ == "Ready")
                    .map(|c| c.status == "True")
            })
            .unwrap_or(false)
        }),
    )
    .await
    .unwrap()
    .unwrap()
    .unwrap();
    let alloc = node.status.unwrap().allocatable.unwrap();
    assert_eq!(alloc["cpu"].0, "4");
    assert_eq!(alloc["pods"].0, "110");
    cluster.shutdown().await;
}

#[tokio::test]
async fn a_pod_runs_and_an_unknown_image_backs_off() {
    let (cluster, client) = cluster().await;
    let pods: Api<Pod> = Api::namespaced(client, "default");
    create_pod(&pods, json!({"metadata": {"name": "good"}, "spec": {"containers": [{"name": "app", "image": "registry.k8s.io/pause:3.10"}]}})).await;
    create_pod(&pods, json!({"metadata": {"name": "bad"}, "spec": {"containers": [{"name": "app", "image": "registry.k8s.io/pause:no-such-tag"}]}})).await;
    let good = wait_pod(&pods, "good", "Ready", is_ready).await;
    let status = good.status.unwrap();
    assert_eq!(status.phase.as_deref(), Some("Running"));
    assert!(status.pod_ip.is_some() && status.host_ip.is_some() && status.start_time.is_some());
    assert!(good
        .spec
        .unwrap()
        .node_name
        .unwrap()
        .starts_with("kind-worker"));
    let bad = wait_pod(&pods, "bad", "ImagePullBackOff", |p| {
        waiting_reason(p).as_deref() == Some("ImagePullBackOff")
    })
    .await;
    let cs = &bad.status.unwrap().container_statuses.unwrap()[0];
    assert_eq!(
        cs.state
            .as_ref()
            .unwrap()
            .waiting
            .as_ref()
            .unwrap()
            .message
            .as_deref(),
        Some("Back-off pulling image \"registry.k8s.io/pause:no-such-tag\"")
    );
    let events: Api<CoreEvent> = Api::namespaced(pods.clone().into_client(), "default");
    let list = events.list(&Default::default()).await.unwrap();
    let seen: Vec<(String, String)> = list
        .items
        .iter()
        .map(|e| {
            (
                e.involved_object.name.clone().unwrap_or_default(),
                e.reason.clone().unwrap_or_default(),
            )
        })
        .collect();
    let has = |pod: &str, reason: &str| seen.iter().any(|(p, r)| p == pod && r == reason);
    assert!(
        has("good", "Scheduled") && has("good", "Started"),
        "{seen:?}"
    );
    assert!(has("bad", "Failed") && has("bad", "BackOff"), "{seen:?}");
    cluster.shutdown().await;
}

#[tokio::test]
async fn a_readiness_gate_drives_ready() {
    let (cluster, client) = cluster().await;
    let pods: Api<Pod> = Api::namespaced(client, "default");
    create_pod(
        &pods,
        json!({"metadata": {"name": "gated"}, "spec": {
        "readinessGates": [{"conditionType": "example.com/ready"}],
        "containers": [{"name": "app", "image": "registry.k8s.io/pause:3.10"}]}}),
    )
    .await;
    let p = wait_pod(&pods, "gated", "ContainersReady", |p| {
        condition(p, "ContainersReady").is_some_and(|c| c.0 == "True")
    })
    .await;
    let ready = condition(&p, "Ready").unwrap();
    assert_eq!(ready.0, "False");
    assert_eq!(ready.1.as_deref(), Some("ReadinessGatesNotReady"));
    let patch =
        json!({"status": {"conditions": [{"type": "example.com/ready", "status": "True"}]}});
    pods.patch_status("gated", &PatchParams::default(), &Patch::Strategic(patch))
        .await
        .unwrap();
    let p = wait_pod(&pods, "gated", "Ready", is_ready).await;
    let ready = condition(&p, "Ready").unwrap();
    assert_eq!(
        (ready.1, ready.2),
        (None, None),
        "reason and message are cleared"
    );
    let types: Vec<String> = p
        .status
        .unwrap()
        .conditions
        .unwrap()
        .into_iter()
        .map(|c| c.type_)
        .collect();
    assert!(
        types.contains(&"example.com/ready".to_string()),
        "the gate condition survives the kubelet's writes: {types:?}"
    );
    cluster.shutdown().await;
}

#[tokio::test]
async fn pre_stop_sleep_delays_removal() {
    let (cluster, client) = cluster().await;
    let pods: Api<Pod> = Api::namespaced(client, "default");
    create_pod(
        &pods,
        json!({"metadata": {"name": "slow"}, "spec": {"containers": [{"name": "app",
        "image": "registry.k8s.io/pause:3.10",
        "lifecycle": {"preStop": {"exec": {"command": ["sh", "-c", "sleep 1"]}}}}]}}),
    )
    .await;
    wait_pod(&pods, "slow", "Ready", is_ready).await;
    let started = Instant::now();
    pods.delete("slow", &DeleteParams::default()).await.unwrap();
    let p = pods.get("slow").await.unwrap();
    assert!(p.metadata.deletion_timestamp.is_some());
    let gone = tokio::time::timeout(
        WAIT,
        await_condition(pods.clone(), "slow", |p: Option<&Pod>| p.is_none()),
    )
    .await;
    assert!(gone.is_ok(), "the pod is removed after its preStop hook");
    let took = started.elapsed();
    assert!(
        took >= Duration::from_millis(900),
        "removed too early: {took:?}"
    );
    cluster.shutdown().await;
}

#[tokio::test]
async fn an_oversized_request_stays_pending_unschedulable() {
    let (cluster, client) = cluster().await;
    let pods: Api<Pod> = Api::namespaced(client, "default");
    create_pod(
        &pods,
        json!({"metadata": {"name": "huge"}, "spec": {"containers": [{"name": "app",
        "image": "registry.k8s.io/pause:3.10", "resources": {"requests": {"cpu": "64"}}}]}}),
    )
    .await;
    let p = wait_pod(&pods, "huge", "Unschedulable", |p| {
        condition(p, "PodScheduled").is_some_and(|c| c.0 == "False")
    })
    .await;
    let (_, reason, message) = condition(&p, "PodScheduled").unwrap();
    assert_eq!(reason.as_deref(), Some("Unschedulable"));
    assert_eq!(
        message.as_deref(),
        Some("0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.")
    );
    assert_eq!(p.status.unwrap().phase.as_deref(), Some("Pending"));
    assert!(p.spec.unwrap().node_name.is_none());
    cluster.shutdown().await;
}

#[tokio::test]
async fn a_claim_binds_and_its_pod_starts() {
    let (cluster, client) = cluster().await;
    let claims: Api<PersistentVolumeClaim> = Api::namespaced(client.clone(), "default");
    let pods: Api<Pod> = Api::namespaced(client.clone(), "default");
    create_pod(
        &pods,
        json!({"metadata": {"name": "user"}, "spec": {
        "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "data"}}],
        "containers": [{"name": "app", "image": "registry.k8s.io/pause:3.10"}]}}),
    )
    .await;
    let claim: PersistentVolumeClaim = serde_json::from_value(json!({"metadata": {"name": "data"},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}))
    .unwrap();
    let claim = claims.create(&PostParams::default(), &claim).await.unwrap();
    let uid = claim.metadata.uid.unwrap();
    let bound = tokio::time::timeout(
        WAIT,
        await_condition(
            claims.clone(),
            "data",
            |c: Option<&PersistentVolumeClaim>| {
                c.and_then(|c| c.status.as_ref()?.phase.clone()).as_deref() == Some("Bound")
            },
        ),
    )
    .await
    .unwrap()
    .unwrap()
    .unwrap();
    assert_eq!(bound.spec.unwrap().volume_name, Some(format!("pvc-{uid}")));
    let pvs: Api<PersistentVolume> = Api::all(client);
    let pv = pvs.get(&format!("pvc-{uid}")).await.unwrap();
    assert_eq!(pv.status.unwrap().phase.as_deref(), Some("Bound"));
    wait_pod(&pods, "user", "Ready", is_ready).await;
    claims
        .delete("data", &DeleteParams::default())
        .await
        .unwrap();
    // kubernetes.io/pvc-protection holds the claim while pod "user" uses it.
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    let held = claims.get("data").await.unwrap();
    assert!(held.metadata.deletion_timestamp.is_some());
    assert_eq!(
        held.metadata.finalizers,
        Some(vec!["kubernetes.io/pvc-protection".to_string()])
    );
    assert!(pvs.get(&format!("pvc-{uid}")).await.is_ok(), "still there");
    pods.delete("user", &DeleteParams::default()).await.unwrap();
    let gone = tokio::time::timeout(
        WAIT,
        await_condition(
            pvs,
            &format!("pvc-{uid}"),
            |p: Option<&PersistentVolume>| p.is_none(),
        ),
    )
    .await;
    assert!(
        gone.is_ok(),
        "the volume is reclaimed with its claim once the pod is gone"
    );
    cluster.shutdown().await;
}

#[tokio::test]
async fn a_crashing_container_reaches_crash_loop_back_off() {
    let (cluster, client) = cluster().await;
    let pods: Api<Pod> = Api::namespaced(client, "default");
    create_pod(
        &pods,
        json!({"metadata": {"name": "crash"}, "spec": {"containers": [{"name": "app",
        "image": "busybox:1.36", "command": ["sh", "-c", "exit 1"]}]}}),
    )
    .await;
    let p = wait_pod(&pods, "crash", "CrashLoopBackOff", |p| {
        waiting_reason(p).as_deref() == Some("CrashLoopBackOff")
    })
    .await;
    let cs = &p.status.unwrap().container_statuses.unwrap()[0];
    assert!(cs.restart_count >= 1);
    let state = cs.state.as_ref().unwrap();
    let set = [
        state.waiting.is_some(),
        state.running.is_some(),
        state.terminated.is_some(),
    ];
    assert_eq!(
        set.iter().filter(|s| **s).count(),
        1,
        "one state at a time: {state:?}"
    );
    assert_eq!(
        cs.last_state
            .as_ref()
            .unwrap()
            .terminated
            .as_ref()
            .unwrap()
            .exit_code,
        1
    );
    cluster.shutdown().await;
}

#[tokio::test]
async fn pods_on_a_not_ready_node_turn_unready_and_recover() {
    let (cluster, client) = cluster().await;
    let pods: Api<Pod> = Api::namespaced(client.clone(), "default");
    let nodes: Api<Node> = Api::all(client);
    create_pod(
        &pods,
        json!({"metadata": {"name": "p"}, "spec": {
        "nodeSelector": {"kubernetes.io/hostname": "kind-worker2"},
        "containers": [{"name": "app", "image": "registry.k8s.io/pause:3.10"}]}}),
    )
    .await;
    wait_pod(&pods, "p", "Ready", is_ready).await;
    let ready = |status: &str| {
        json!({"status": {"conditions": [{"type": "Ready", "status": status,
        "reason": "KubeletNotReady", "message": "fault"}]}})
    };
    nodes
        .patch_status(
            "kind-worker2",
            &PatchParams::default(),
            &Patch::Strategic(ready("Unknown")),
        )
        .await
        .unwrap();
    wait_pod(&pods, "p", "not Ready", |p| !is_ready(p)).await;
    nodes
        .patch_status(
            "kind-worker2",
            &PatchParams::default(),
            &Patch::Strategic(ready("True")),
        )
        .await
        .unwrap();
    wait_pod(&pods, "p", "Ready again", is_ready).await;
    cluster.shutdown().await;
}

mod kubelet;
mod scheduler;
