//! Steps on a pod's controller reference: orphaning, relabelling, and who
//! controls it (upstream's e2e "should adopt matching orphans and release
//! non-matching pods").

use std::time::Duration;

use crate::harness::ownership;
use cucumber::{given, then, when};

use super::world::KepWorld;

#[when(expr = "the ownerReferences of pod {string} are removed")]
async fn orphan(w: &mut KepWorld, pod: String) -> anyhow::Result<()> {
    Ok(ownership::orphan(w.sc()?, &pod).await?)
}

#[when(expr = "the labels of pod {string} are removed")]
async fn remove_labels(w: &mut KepWorld, pod: String) -> anyhow::Result<()> {
    Ok(ownership::remove_labels(w.sc()?, &pod).await?)
}

#[when(expr = "the labels of pod {string} are restored")]
async fn restore_labels(w: &mut KepWorld, pod: String) -> anyhow::Result<()> {
    Ok(ownership::restore_labels(w.sc()?, &pod).await?)
}

#[then(expr = "within {int} seconds pod {string} is controlled by the StatefulSet {string}")]
async fn controlled_by(w: &mut KepWorld, n: u64, pod: String, set: String) -> anyhow::Result<()> {
    ownership::controlled_by(w.sc()?, &pod, Some(&set), Duration::from_secs(n)).await
}

#[then(expr = "within {int} seconds pod {string} is controlled by nothing")]
async fn controlled_by_nothing(w: &mut KepWorld, n: u64, pod: String) -> anyhow::Result<()> {
    ownership::controlled_by(w.sc()?, &pod, None, Duration::from_secs(n)).await
}

#[when(expr = "a pod {string} with the labels of {string} is created")]
async fn stray(w: &mut KepWorld, pod: String, set: String) -> anyhow::Result<()> {
    Ok(crate::harness::ownership::stray_pod(w.sc()?, &pod, &set, None).await?)
}

#[when(
    expr = "a pod {string} with the labels of {string} and the ConfigMap {string} as its controller is created"
)]
async fn other_controllers_pod(
    w: &mut KepWorld,
    pod: String,
    set: String,
    cm: String,
) -> anyhow::Result<()> {
    Ok(crate::harness::ownership::stray_pod(w.sc()?, &pod, &set, Some(&cm)).await?)
}

#[then(expr = "for {int} seconds pod {string} keeps the controller the scenario last left it with")]
async fn controller_kept(w: &mut KepWorld, n: u64, pod: String) -> anyhow::Result<()> {
    ownership::controller_kept(w.sc()?, &pod, Duration::from_secs(n)).await
}

#[then(expr = "for {int} seconds pod {string} is controlled by nothing")]
async fn never_controlled(w: &mut KepWorld, n: u64, pod: String) -> anyhow::Result<()> {
    crate::harness::ownership::never_controlled(w.sc()?, &pod, Duration::from_secs(n)).await
}

#[then(expr = "pod {string} was neither deleted nor created again")]
async fn kept(w: &mut KepWorld, pod: String) -> anyhow::Result<()> {
    ownership::kept(w.sc()?, &pod).await
}

#[when(expr = "the pods of {string} are pinned to the node of pod {string}")]
async fn pin(w: &mut KepWorld, set: String, pod: String) -> anyhow::Result<()> {
    Ok(crate::harness::nodes::pin(w.sc()?, &set, &pod).await?)
}

#[when(expr = "the node of pod {string} is cordoned")]
async fn cordon(w: &mut KepWorld, pod: String) -> anyhow::Result<()> {
    Ok(crate::harness::nodes::cordon(w.sc()?, &pod, true).await?)
}

#[when(expr = "the node of pod {string} is uncordoned")]
async fn uncordon(w: &mut KepWorld, pod: String) -> anyhow::Result<()> {
    Ok(crate::harness::nodes::cordon(w.sc()?, &pod, false).await?)
}

#[then(
    expr = "within {int} seconds pod {string} runs on the node the pods of {string} are pinned to"
)]
async fn on_pinned_node(w: &mut KepWorld, n: u64, pod: String, set: String) -> anyhow::Result<()> {
    crate::harness::nodes::on_pinned_node(w.sc()?, &pod, &set, Duration::from_secs(n)).await
}

#[when(expr = "the Ready condition of pod {string} is backdated by {int} seconds")]
async fn backdate_ready(w: &mut KepWorld, pod: String, by: u64) -> anyhow::Result<()> {
    Ok(crate::harness::ownership::backdate_ready(w.sc()?, &pod, Duration::from_secs(by)).await?)
}

#[given(expr = "a pod {string} holding host port {int} runs on a schedulable node")]
async fn port_holder(w: &mut KepWorld, pod: String, port: i32) -> anyhow::Result<()> {
    let sc = w.sc()?;
    crate::harness::host_ports::hold_port(sc, &pod, port).await?;
    crate::harness::waits::pod_readiness(sc, &pod, true, Duration::from_secs(60)).await
}

#[when(
    expr = "a StatefulSet {string} with {int} replica(s) whose pods ask for host port {int} on the node of pod {string} is submitted"
)]
async fn submit_on_port(
    w: &mut KepWorld,
    set: String,
    replicas: i32,
    port: i32,
    holder: String,
) -> anyhow::Result<()> {
    crate::harness::host_ports::submit_on_node_of(w.sc()?, &set, replicas, port, &holder).await
}

#[then(
    expr = "within {int} seconds pod {string} was rejected by its node with reason {string} and deleted"
)]
async fn rejected(w: &mut KepWorld, n: u64, pod: String, reason: String) -> anyhow::Result<()> {
    crate::harness::host_ports::rejected_and_deleted(w.sc()?, &pod, &reason, Duration::from_secs(n))
        .await
}
