//! Staging components for version-skew scenarios: the apiserver's and the
//! controllers' feature gates, controller replicas, restarts and leader
//! changes. Only scenarios with an environment of their own (`@isolated`)
//! may do this; everything else shares its cluster with other scenarios.

use std::time::Duration;

use super::env::{Environment, ReplicaSpec};
use super::scenario::Scenario;
use crate::controller::ControllerGates;
use crate::sim::ApiGates;

/// The tag that gives a scenario an environment of its own.
pub const ISOLATED_TAG: &str = "isolated";

/// The feature gates the KEPs define (the last is the KEP-3541 draft's).
pub const GATES: [&str; 3] = [
    "StatefulSetRecreateStrategy",
    "MaxUnavailableStatefulSet",
    crate::controller::ENFORCED_GATE,
];

/// Checks a gate's name, naming the known ones.
pub fn known_gate(name: &str) -> Result<(), String> {
    if GATES.contains(&name) {
        Ok(())
    } else {
        Err(format!(
            "unknown feature gate {name:?}; known gates: {}",
            GATES.join(", ")
        ))
    }
}

/// The apiserver gates with one changed.
pub fn apiserver_with(mut gates: ApiGates, name: &str, on: bool) -> Result<ApiGates, String> {
    known_gate(name)?;
    match name {
        "StatefulSetRecreateStrategy" => gates.statefulset_recreate_strategy = on,
        crate::controller::ENFORCED_GATE => gates.enforced_rolling_update_in_statefulset = on,
        _ => gates.max_unavailable_statefulset = on,
    }
    Ok(gates)
}

/// The controller gates with one changed.
pub fn controller_with(
    mut gates: ControllerGates,
    name: &str,
    on: bool,
) -> Result<ControllerGates, String> {
    known_gate(name)?;
    match name {
        "StatefulSetRecreateStrategy" => gates.statefulset_recreate_strategy = on,
        crate::controller::ENFORCED_GATE => gates.enforced_rolling_update_in_statefulset = on,
        _ => gates.max_unavailable_statefulset = on,
    }
    Ok(gates)
}

fn own_env(sc: &Scenario) -> anyhow::Result<&Environment> {
    if !sc.isolated {
        anyhow::bail!(
            "{} this step changes cluster components; tag the scenario @{ISOLATED_TAG} so it gets a cluster of its own",
            crate::run::runner::INPUT_ERROR
        );
    }
    Ok(&sc.env)
}

/// Restarts the embedded apiserver with one gate changed; stored objects stay.
pub async fn set_apiserver_gate(sc: &mut Scenario, name: &str, on: bool) -> anyhow::Result<()> {
    let gates = apiserver_with(sc.apiserver_gates.clone(), name, on).map_err(input)?;
    let env = own_env(sc)?;
    let cluster = env.embedded.as_ref().ok_or_else(|| {
        anyhow::anyhow!("the apiserver can only be restarted on the embedded cluster")
    })?;
    cluster.set_gates(gates.clone()).await;
    sc.apiserver_gates = gates;
    Ok(())
}

fn input(msg: String) -> anyhow::Error {
    anyhow::anyhow!("{} {msg}", crate::run::runner::INPUT_ERROR)
}

/// The only running replica, or an error naming the choice.
async fn single_replica(env: &Environment) -> anyhow::Result<ReplicaSpec> {
    let mut replicas = env.replicas().await;
    match replicas.len() {
        1 => Ok(replicas.remove(0)),
        0 => anyhow::bail!("no controller replica is running"),
        _ => anyhow::bail!(
            "{} several controller replicas run ({}); name one",
            crate::run::runner::INPUT_ERROR,
            replicas
                .iter()
                .map(|r| r.identity.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// Restarts the controller (the only replica) with one gate changed.
pub async fn restart_controller_with(
    sc: &mut Scenario,
    name: &str,
    on: bool,
) -> anyhow::Result<()> {
    let env = own_env(sc)?;
    let replica = single_replica(env).await?;
    let gates = controller_with(replica.gates.clone(), name, on).map_err(input)?;
    env.restart_replica(&replica.identity, gates).await
}

/// Restarts the controller (the only replica) as it is: a crash and a new start.
pub async fn restart_controller(sc: &mut Scenario) -> anyhow::Result<()> {
    let env = own_env(sc)?;
    let replica = single_replica(env).await?;
    env.restart_replica(&replica.identity, replica.gates).await
}

/// Starts another replica that campaigns for the lease.
pub async fn add_replica(
    sc: &mut Scenario,
    identity: &str,
    gate: Option<(&str, bool)>,
) -> anyhow::Result<()> {
    let env = own_env(sc)?;
    let mut gates = env.controller_gates();
    if let Some((name, on)) = gate {
        gates = controller_with(gates, name, on).map_err(input)?;
    }
    env.start_replica(ReplicaSpec {
        identity: identity.to_string(),
        gates,
        leader_election: true,
    })
    .await
}

/// Stops the replica that holds the lease; returns its identity.
pub async fn stop_leader(sc: &mut Scenario) -> anyhow::Result<String> {
    let env = own_env(sc)?;
    let holder = env
        .lease_holder()
        .await
        .ok_or_else(|| anyhow::anyhow!("no controller replica holds the lease"))?;
    if !env.stop_replica(&holder).await {
        anyhow::bail!("the lease holder {holder:?} is not one of this scenario's replicas");
    }
    Ok(holder)
}

/// Waits until a replica holds the lease.
pub async fn wait_for_leader(
    sc: &mut Scenario,
    identity: &str,
    timeout: Duration,
) -> anyhow::Result<()> {
    let env = own_env(sc)?;
    let deadline = tokio::time::Instant::now() + timeout;
    loop {
        // The lease is not among the recorded kinds; its renewals are few and
        // slow, so this one wait looks at it directly.
        if env.lease_holder().await.as_deref() == Some(identity) {
            return Ok(());
        }
        if tokio::time::Instant::now() >= deadline {
            anyhow::bail!(
                "controller replica {identity:?} did not take the lease within {:.0}s (holder: {:?})",
                timeout.as_secs_f64(),
                env.lease_holder().await
            );
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gates_are_changed_by_name_and_unknown_ones_named() {
        let g = apiserver_with(ApiGates::default(), "StatefulSetRecreateStrategy", false).unwrap();
        assert!(!g.statefulset_recreate_strategy && g.max_unavailable_statefulset);
        let c = controller_with(
            ControllerGates::default(),
            "MaxUnavailableStatefulSet",
            false,
        )
        .unwrap();
        assert!(c.statefulset_recreate_strategy && !c.max_unavailable_statefulset);
        let err = controller_with(ControllerGates::default(), "Recreate", true).unwrap_err();
        assert!(err.contains("unknown feature gate \"Recreate\""), "{err}");
    }
}
