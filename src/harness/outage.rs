//! The apiserver out of service for the controller: every request the
//! controller starts is answered 503 until the outage ends (the watch
//! streams it already holds are not cut). KEP-3541, "How does this feature
//! react if the API server and/or etcd is unavailable?": "StatefulSet
//! controller cannot read/write StatefulSet or Pod objects, so all updates
//! halt."

use std::time::Duration;

use super::env::CONTROLLER_AGENT;
use super::faults::{faults_of, inject, MustFire};
use super::scenario::Scenario;
use crate::sim::faults::{FaultAction, FaultRule, Occurrence};

/// The words of the step that begins an outage.
pub const WORDS: &str = "the apiserver stops serving the controller";

/// Begins the outage.
pub fn begin(sc: &mut Scenario) -> anyhow::Result<()> {
    let rule = FaultRule {
        verb: None,
        resource: None,
        namespace: None,
        name: None,
        subresource: None,
        user_agent_contains: Some(CONTROLLER_AGENT.to_string()),
        writes_only: false,
        select: Occurrence::Every,
        actions: vec![FaultAction::Fail {
            code: 503,
            message: format!("injected by kepspec: {WORDS}"),
        }],
        times: None,
    };
    inject(sc, WORDS, rule, true).map(|_| ())
}

/// Waits until the controller has been refused at least once: from then on
/// it has seen a change it cannot act on.
pub async fn until_refused(sc: &Scenario, timeout: Duration) -> anyhow::Result<()> {
    let id = current(sc)?;
    let faults = faults_of(sc)?;
    let deadline = tokio::time::Instant::now() + timeout;
    while faults.hits(id).is_none_or(|h| h.applied == 0) {
        if tokio::time::Instant::now() >= deadline {
            anyhow::bail!(
                "the controller made no request in {:.0}s of the outage: nothing shows it tried to act",
                timeout.as_secs_f64()
            );
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    Ok(())
}

/// Ends the outage; the controller must have been refused at least once.
pub fn end(sc: &mut Scenario) -> anyhow::Result<()> {
    let id = current(sc)?;
    let faults = faults_of(sc)?;
    let refused = faults.hits(id).map_or(0, |h| h.applied);
    faults.remove_rule(id);
    // The rule is gone, and with it its count: judged here instead.
    if let Some(injected) = sc.faults.iter_mut().find(|f| f.rule == id) {
        injected.must_fire = MustFire::No;
    }
    anyhow::ensure!(
        refused > 0,
        "the controller made no request during the outage: nothing shows it tried to act"
    );
    Ok(())
}

fn current(sc: &Scenario) -> anyhow::Result<crate::sim::faults::RuleId> {
    sc.faults
        .iter()
        .rev()
        .find(|f| f.words == WORDS && f.must_fire != MustFire::No)
        .map(|f| f.rule)
        .ok_or_else(|| anyhow::anyhow!("no outage is under way: \"{WORDS}\" first"))
}
