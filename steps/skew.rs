//! Steps that stage cluster components: feature gates, controller
//! replicas, restarts and leader changes (scenarios tagged `@isolated`).

use std::time::Duration;

use crate::harness::staging;
use cucumber::{given, then, when, Parameter};

use super::world::KepWorld;

/// `on` or `off`.
#[derive(Debug, Default, Parameter)]
#[param(name = "switch", regex = "on|off")]
pub struct Switch(pub bool);

impl std::str::FromStr for Switch {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "on" => Ok(Self(true)),
            "off" => Ok(Self(false)),
            other => Err(format!("expected on or off, got {other:?}")),
        }
    }
}

#[given(expr = "the apiserver runs with feature gate {string} {switch}")]
#[when(expr = "the apiserver restarts with feature gate {string} {switch}")]
async fn apiserver_gate(w: &mut KepWorld, gate: String, on: Switch) -> anyhow::Result<()> {
    staging::set_apiserver_gate(w.sc()?, &gate, on.0).await
}

#[given(expr = "the controller runs with feature gate {string} {switch}")]
#[when(expr = "the controller restarts with feature gate {string} {switch}")]
async fn controller_gate(w: &mut KepWorld, gate: String, on: Switch) -> anyhow::Result<()> {
    staging::restart_controller_with(w.sc()?, &gate, on.0).await
}

#[when(expr = "the controller restarts")]
async fn controller_restart(w: &mut KepWorld) -> anyhow::Result<()> {
    staging::restart_controller(w.sc()?).await
}

#[given(expr = "a second controller replica {string} runs with feature gate {string} {switch}")]
#[when(expr = "a second controller replica {string} starts with feature gate {string} {switch}")]
async fn second_replica(
    w: &mut KepWorld,
    identity: String,
    gate: String,
    on: Switch,
) -> anyhow::Result<()> {
    staging::add_replica(w.sc()?, &identity, Some((&gate, on.0))).await
}

#[when(expr = "the leading controller replica stops")]
async fn stop_leader(w: &mut KepWorld) -> anyhow::Result<()> {
    staging::stop_leader(w.sc()?).await.map(|_| ())
}

#[given(expr = "within {int} seconds controller replica {string} leads")]
#[then(expr = "within {int} seconds controller replica {string} leads")]
async fn leads(w: &mut KepWorld, secs: u64, identity: String) -> anyhow::Result<()> {
    staging::wait_for_leader(w.sc()?, &identity, Duration::from_secs(secs)).await
}

#[when(expr = "an attempt is made to change the update strategy of {string} to {string}")]
async fn attempt_strategy(w: &mut KepWorld, set: String, strategy: String) -> anyhow::Result<()> {
    let sc = w.sc()?;
    sc.last_refusal = sc.set_strategy(&set, &strategy).await.err();
    Ok(())
}
