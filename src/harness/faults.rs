//! Fault injection as steps: rules installed on the scenario's own embedded
//! apiserver, scoped to the controller's requests in the scenario's
//! namespace, each remembered with the words that asked for it so that a
//! fault that never fired fails the scenario instead of passing silently.

use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use tokio::sync::mpsc;

use super::env::{Environment, CONTROLLER_AGENT};
use super::scenario::Scenario;
use super::staging::ISOLATED_TAG;
use crate::sim::faults::{
    CollectorHold, FaultAction, FaultRule, Faults, Hits, Listener, Occurrence, RequestRecord,
    RuleId,
};
use crate::sim::stale::{Lag, StaleView};

/// The tag of scenarios that need the embedded cluster's precision.
pub const EMBEDDED_ONLY_TAG: &str = "embedded-only";

/// What must be seen of an injected fault for its scenario to pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MustFire {
    /// Nothing: the fault may never act (a crash point past the last write).
    No,
    /// It acted on a request: failed, delayed or ended it, restarted the
    /// controller after it, or answered a read behind the present.
    Acted,
    /// A request of the controller was served under it (for a stale view
    /// the controller may rightly escape with consistent reads).
    Served,
}

impl MustFire {
    fn shown_by(self, hits: Option<Hits>) -> bool {
        match (self, hits) {
            (MustFire::No, _) => true,
            (_, None) => false,
            (MustFire::Acted, Some(h)) => h.applied > 0,
            (MustFire::Served, Some(h)) => h.matched > 0,
        }
    }
}

/// A fault the scenario injected.
#[derive(Clone, Debug)]
pub struct Injected {
    /// The step's words.
    pub words: String,
    /// The server-side rule.
    pub rule: RuleId,
    /// What must be seen of it for the scenario to pass.
    pub must_fire: MustFire,
    /// Whether it serves the controller a stale view (its status may then
    /// report what its lagging view shows, for longer than any bound).
    pub stale_view: bool,
}

/// Which of the controller's requests a fault is about.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Target {
    /// The verb, if one.
    pub verb: Option<String>,
    /// The resource (plural), if one.
    pub resource: Option<String>,
    /// The object's name, if one.
    pub name: Option<String>,
    /// The subresource (`Some("status")` for status writes).
    pub subresource: Option<String>,
    /// Only writes.
    pub writes_only: bool,
}

impl Target {
    /// Every write.
    pub fn writes() -> Self {
        Self {
            writes_only: true,
            ..Self::default()
        }
    }

    /// Status writes (of any object).
    pub fn status_writes() -> Self {
        Self {
            writes_only: true,
            subresource: Some("status".into()),
            ..Self::default()
        }
    }

    /// `deletes pod web-1`, `creates pod web-0`, ... : a verb on a named object.
    pub fn object(verb: &str, kind: &str, name: &str) -> Result<Self, String> {
        let verb = match verb {
            "creates" => "create",
            "deletes" => "delete",
            "updates" => "update",
            "patches" => "patch",
            other => {
                return Err(format!(
                    "unknown action {other:?}: expected creates, deletes, updates or patches"
                ))
            }
        };
        let resource = match kind {
            "pod" => "pods",
            "PersistentVolumeClaim" | "claim" => "persistentvolumeclaims",
            "StatefulSet" => "statefulsets",
            "ControllerRevision" => "controllerrevisions",
            other => {
                return Err(format!(
                    "unknown kind {other:?}: expected pod, PersistentVolumeClaim, StatefulSet or ControllerRevision"
                ))
            }
        };
        Ok(Self {
            verb: Some(verb.into()),
            resource: Some(resource.into()),
            name: Some(name.into()),
            writes_only: true,
            subresource: None,
        })
    }

    /// The rule matching the controller's requests of this target in a namespace.
    pub fn rule(
        &self,
        namespace: &str,
        select: Occurrence,
        actions: Vec<FaultAction>,
    ) -> FaultRule {
        FaultRule {
            verb: self.verb.clone(),
            resource: self.resource.clone(),
            namespace: Some(namespace.to_string()),
            name: self.name.clone(),
            subresource: self.subresource.clone(),
            user_agent_contains: Some(CONTROLLER_AGENT.to_string()),
            writes_only: self.writes_only,
            select,
            actions,
            times: None,
        }
    }
}

/// `first`, `second`, `third`, `2nd`, `10th`, ... as a number.
pub fn ordinal(word: &str) -> Result<u64, String> {
    let named = [
        "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth",
        "tenth",
    ];
    if let Some(i) = named.iter().position(|w| *w == word) {
        return Ok(i as u64 + 1);
    }
    let digits = word.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    match digits.parse::<u64>() {
        Ok(n) if n > 0 && digits.len() < word.len() => Ok(n),
        _ => Err(format!(
            "{word:?} is not an ordinal (first, second, 3rd, 10th, ...)"
        )),
    }
}

/// Checks an injected status code.
pub fn fault_code(code: u16) -> Result<u16, String> {
    match code {
        409 | 429 | 500 | 503 => Ok(code),
        other => Err(format!(
            "status code {other} is not injectable; use 409, 429, 500 or 503"
        )),
    }
}

fn input(msg: impl std::fmt::Display) -> anyhow::Error {
    anyhow::anyhow!("{} {msg}", crate::run::runner::INPUT_ERROR)
}

pub(crate) fn faults_of(sc: &Scenario) -> anyhow::Result<Faults> {
    if !sc.isolated {
        return Err(input(format!(
            "fault injection needs a cluster of its own; tag the scenario @{ISOLATED_TAG} @{EMBEDDED_ONLY_TAG}"
        )));
    }
    embedded_faults(sc, "fault injection")
}

/// The embedded cluster's fault registry; `what` names the step's need in
/// the error on any other cluster.
fn embedded_faults(sc: &Scenario, what: &str) -> anyhow::Result<Faults> {
    sc.env.embedded.as_ref().map(|c| c.faults()).ok_or_else(|| {
        input(format!(
            "{what} needs the embedded cluster (@{EMBEDDED_ONLY_TAG})"
        ))
    })
}

/// Installs a rule and remembers it with the words that asked for it.
pub fn inject(
    sc: &mut Scenario,
    words: &str,
    rule: FaultRule,
    must_fire: bool,
) -> anyhow::Result<RuleId> {
    let id = faults_of(sc)?.add_rule(rule);
    sc.faults.push(Injected {
        words: words.to_string(),
        rule: id,
        stale_view: false,
        must_fire: if must_fire {
            MustFire::Acted
        } else {
            MustFire::No
        },
    });
    Ok(id)
}

/// Fails the selected controller requests of a target with a status code.
pub fn fail(
    sc: &mut Scenario,
    words: &str,
    target: &Target,
    select: Occurrence,
    code: u16,
) -> anyhow::Result<()> {
    let code = fault_code(code).map_err(input)?;
    let action = FaultAction::Fail {
        code,
        message: format!("injected by kepspec: {words}"),
    };
    let rule = target.rule(&sc.namespace, select, vec![action]);
    inject(sc, words, rule, true).map(|_| ())
}

/// Delays the selected controller requests of a target.
pub fn delay(
    sc: &mut Scenario,
    words: &str,
    target: &Target,
    select: Occurrence,
    by: Duration,
) -> anyhow::Result<()> {
    let rule = target.rule(&sc.namespace, select, vec![FaultAction::Delay(by)]);
    inject(sc, words, rule, true).map(|_| ())
}

/// Ends every watch the controller opens after `after`: dropped, or with 410.
/// The controller is restarted once so that the watches it already holds are
/// replaced by ones the rule applies to.
pub async fn end_watches(
    sc: &mut Scenario,
    words: &str,
    after: Duration,
    expire: bool,
) -> anyhow::Result<()> {
    let action = if expire {
        FaultAction::ExpireWatch(after)
    } else {
        FaultAction::DropWatch(after)
    };
    let rule = FaultRule {
        verb: Some("watch".into()),
        user_agent_contains: Some(CONTROLLER_AGENT.to_string()),
        actions: vec![action],
        ..FaultRule::default()
    };
    inject(sc, words, rule, true)?;
    super::staging::restart_controller(sc).await
}

/// The resources a stale view can be limited to: the ones the controller
/// watches.
pub const STALE_RESOURCES: [&str; 4] = [
    "pods",
    "statefulsets",
    "controllerrevisions",
    "persistentvolumeclaims",
];

/// Serves the controller a stale view for `lasting`: its watches (the open
/// ones too) deliver each change only once it trails by `lag`, and its reads
/// that allow a cache answer from that past; afterwards it catches up.
/// `resource` limits the view to one resource (plural), one lagging
/// informer; its others stay current. The fault fired once a read of the
/// controller was answered behind (or, with [`MustFire::Served`], once the
/// controller read under it).
pub fn stale_view(
    sc: &mut Scenario,
    words: &str,
    lag: Lag,
    lasting: Duration,
    must_fire: MustFire,
    resource: Option<&str>,
) -> anyhow::Result<()> {
    if let Some(r) = resource.filter(|r| !STALE_RESOURCES.contains(r)) {
        return Err(input(format!(
            "\"{r}\" is not a resource the controller watches; one of {}",
            STALE_RESOURCES.join(", ")
        )));
    }
    let id = faults_of(sc)?.add_stale_view(StaleView {
        user_agent_contains: CONTROLLER_AGENT.to_string(),
        resource: resource.map(str::to_string),
        lag,
        until: Instant::now() + lasting,
    });
    sc.faults.push(Injected {
        words: words.to_string(),
        rule: id,
        must_fire,
        stale_view: true,
    });
    Ok(())
}

/// Holds the embedded cluster's garbage collector off the scenario's
/// namespace for `lasting`: it neither deletes nor changes the namespace's
/// objects meanwhile, as if its work queue had not reached them, then takes
/// them up at once. Only the scenario's namespace is held, so the scenario
/// need not run alone. It need not hold anything back: a controller that
/// deletes its claims itself gives the collector nothing to do, so the
/// checks that rely on the hold say themselves whether their window opened.
pub fn hold_collector(sc: &mut Scenario, words: &str, lasting: Duration) -> anyhow::Result<()> {
    let faults = embedded_faults(sc, "holding the garbage collector")?;
    let id = faults.add_collector_hold(CollectorHold {
        namespace: sc.namespace.clone(),
        until: Instant::now() + lasting,
    });
    sc.faults.push(Injected {
        words: words.to_string(),
        rule: id,
        must_fire: MustFire::No,
        stale_view: false,
    });
    Ok(())
}

/// Ends the scenario's holds on the garbage collector now.
pub fn release_collector(sc: &mut Scenario) -> anyhow::Result<()> {
    let faults = embedded_faults(sc, "holding the garbage collector")?;
    faults.end_collector_holds(&sc.namespace);
    Ok(())
}

/// Restarts the controller onto a view frozen right at the scenario's
/// latest write to the set `set`, for `lasting`: the controller starts
/// against an apiserver whose cache is older than what it already acted on
/// (the "time travel" of a restarted client). Its consistent lists still
/// see the present, so the fault counts as fired once the restarted
/// controller read under it, behind the present or not.
pub async fn restart_onto_past(
    sc: &mut Scenario,
    words: &str,
    set: &str,
    lasting: Duration,
) -> anyhow::Result<()> {
    let key = (crate::history::timeline::Kind::StatefulSet, set.to_string());
    let Some(&written) = sc.written.get(&key) else {
        return Err(input(format!(
            "the scenario has not changed StatefulSet {set:?}, so there is no such moment to go back to"
        )));
    };
    stale_view(sc, words, Lag::At(written), lasting, MustFire::Served, None)?;
    super::staging::restart_controller(sc).await
}

/// Restarts the controller (its only replica) right after the selected
/// request of a target has been answered.
pub async fn restart_after(
    sc: &mut Scenario,
    words: &str,
    target: &Target,
    select: Occurrence,
) -> anyhow::Result<()> {
    restart_after_with(sc, words, target, select, None, true)
}

/// [`restart_after`], also sending each request it restarted after to `seen`
/// once the restart is done; `must_fire` says whether a restart that never
/// happens fails the scenario.
pub fn restart_after_with(
    sc: &mut Scenario,
    words: &str,
    target: &Target,
    select: Occurrence,
    seen: Option<mpsc::UnboundedSender<RequestRecord>>,
    must_fire: bool,
) -> anyhow::Result<()> {
    let faults = faults_of(sc)?;
    let (tx, rx) = mpsc::unbounded_channel();
    let actions = vec![FaultAction::Fence, FaultAction::Notify(Listener(tx))];
    let rule = target.rule(&sc.namespace, select, actions);
    inject(sc, words, rule, must_fire)?;
    spawn_restarter(Arc::downgrade(&sc.env), faults, rx, seen);
    Ok(())
}

/// Sends every selected request of a target to a channel (no fault).
pub fn watch_requests(
    sc: &mut Scenario,
    words: &str,
    target: &Target,
    select: Occurrence,
) -> anyhow::Result<mpsc::UnboundedReceiver<RequestRecord>> {
    let (tx, rx) = mpsc::unbounded_channel();
    let rule = target.rule(
        &sc.namespace,
        select,
        vec![FaultAction::Notify(Listener(tx))],
    );
    inject(sc, words, rule, false)?;
    Ok(rx)
}

/// Restarts the only controller replica for each request received: the
/// rule has fenced the controller off right after the request (every later
/// request of it fails), so it stops as if it had crashed there; the fence is
/// lifted and a new replica starts. The task holds the environment weakly so
/// that a fault that never fires does not keep the scenario's cluster alive.
fn spawn_restarter(
    env: Weak<Environment>,
    faults: Faults,
    mut rx: mpsc::UnboundedReceiver<RequestRecord>,
    seen: Option<mpsc::UnboundedSender<RequestRecord>>,
) {
    tokio::spawn(async move {
        while let Some(record) = rx.recv().await {
            let Some(env) = env.upgrade() else { return };
            let replicas = env.replicas().await;
            let [replica] = replicas.as_slice() else {
                tracing::error!(
                    count = replicas.len(),
                    "restart fault: expected exactly one controller replica"
                );
                faults.lift_fence(CONTROLLER_AGENT);
                continue;
            };
            tracing::info!(seq = record.seq, verb = %record.verb, name = %record.name, "restarting the controller after its request");
            env.stop_replica(&replica.identity).await;
            faults.lift_fence(CONTROLLER_AGENT);
            if let Err(err) = env.start_replica(replica.clone()).await {
                tracing::error!(%err, "restart fault: the controller did not start again");
            }
            if let Some(seen) = &seen {
                let _ = seen.send(record);
            }
        }
    });
}

/// Makes the node running a pod of the scenario NotReady (its Ready
/// condition `Unknown`, as the node lifecycle controller sets it when the
/// kubelet stops reporting) for a while, then Ready again; returns the node.
/// The node simulator turns the pods on a NotReady node unready.
pub async fn node_not_ready_for(
    sc: &mut Scenario,
    pod: &str,
    how_long: Duration,
) -> anyhow::Result<String> {
    use k8s_openapi::api::core::v1::{Node, Pod};
    use kube::api::{Api, Patch, PatchParams};

    faults_of(sc)?;
    let pods: Api<Pod> = Api::namespaced(sc.env.client.clone(), &sc.namespace);
    let node = pods
        .get(pod)
        .await
        .map_err(|e| anyhow::anyhow!("pod {pod:?}: {e}"))?
        .spec
        .and_then(|s| s.node_name)
        .ok_or_else(|| anyhow::anyhow!("pod {pod:?} is not on a node yet"))?;
    let nodes: Api<Node> = Api::all(sc.env.client.clone());
    let ready = |status: &str| {
        Patch::Strategic(serde_json::json!({"status": {"conditions": [{
            "type": "Ready", "status": status, "reason": "KubeletNotReady",
            "message": "injected by kepspec"}]}}))
    };
    nodes
        .patch_status(&node, &PatchParams::default(), &ready("Unknown"))
        .await?;
    let (name, back) = (node.clone(), ready("True"));
    tokio::spawn(async move {
        tokio::time::sleep(how_long).await;
        if let Err(err) = nodes
            .patch_status(&name, &PatchParams::default(), &back)
            .await
        {
            tracing::warn!(%err, node = %name, "could not make the node Ready again");
        }
    });
    Ok(node)
}

/// The injected faults that must fire and never did, by their words.
pub fn untriggered(sc: &Scenario) -> Vec<String> {
    let Some(cluster) = sc.env.embedded.as_ref() else {
        return Vec::new();
    };
    let faults = cluster.faults();
    sc.faults
        .iter()
        .filter(|f| !f.must_fire.shown_by(faults.hits(f.rule)))
        .map(|f| f.words.clone())
        .collect()
}

/// Fails naming every injected fault that never fired.
pub fn check_all_triggered(sc: &Scenario) -> anyhow::Result<()> {
    let missing = untriggered(sc);
    if missing.is_empty() {
        return Ok(());
    }
    anyhow::bail!(
        "{} injected fault(s) never triggered, so the scenario did not test what it says:\n{}",
        missing.len(),
        missing
            .iter()
            .map(|w| format!("  - {w}"))
            .collect::<Vec<_>>()
            .join("\n")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_shows_a_fault_fired() {
        let served = Some(Hits {
            matched: 3,
            applied: 0,
        });
        assert!(MustFire::No.shown_by(None));
        assert!(!MustFire::Acted.shown_by(None));
        assert!(!MustFire::Acted.shown_by(served));
        assert!(MustFire::Served.shown_by(served));
        assert!(MustFire::Acted.shown_by(Some(Hits {
            matched: 3,
            applied: 1
        })));
    }

    #[test]
    fn ordinals_and_codes() {
        assert_eq!(ordinal("first"), Ok(1));
        assert_eq!(ordinal("3rd"), Ok(3));
        assert_eq!(ordinal("12th"), Ok(12));
        assert!(ordinal("12").is_err());
        assert!(ordinal("zeroth").is_err());
        assert_eq!(fault_code(409), Ok(409));
        assert!(fault_code(418).is_err());
    }

    #[test]
    fn targets_become_controller_rules_in_the_namespace() {
        let t = Target::object("deletes", "pod", "web-1").unwrap();
        let r = t.rule("ns", Occurrence::Nth(1), vec![]);
        assert_eq!(r.verb.as_deref(), Some("delete"));
        assert_eq!(r.resource.as_deref(), Some("pods"));
        assert_eq!(r.namespace.as_deref(), Some("ns"));
        assert_eq!(r.user_agent_contains.as_deref(), Some(CONTROLLER_AGENT));
        assert!(Target::object("eats", "pod", "x").is_err());
        assert!(Target::object("creates", "node", "x").is_err());
        let s = Target::status_writes().rule("ns", Occurrence::Every, vec![]);
        assert!(s.writes_only && s.subresource.as_deref() == Some("status"));
    }

    #[test]
    fn a_rule_that_never_matched_is_reported_by_its_words() {
        let faults = Faults::new(10);
        let fired = faults.add_rule(Target::writes().rule("ns", Occurrence::Every, vec![]));
        let idle = faults.add_rule(Target::status_writes().rule("ns", Occurrence::Every, vec![]));
        faults.on_request(RequestRecord {
            verb: "create".into(),
            resource: "pods".into(),
            namespace: "ns".into(),
            user_agent: format!("{CONTROLLER_AGENT}/c"),
            ..Default::default()
        });
        assert_eq!(faults.hits(fired).map(|h| h.applied), Some(1));
        assert_eq!(faults.hits(idle).map(|h| h.applied), Some(0));
    }
}
