//! The KEP-3541 draft's "Comparison with Existing Solutions", executed: the
//! same stuck-pod situations under RollingUpdate, Recreate and
//! EnforcedRollingUpdate. The steps here break a set's template in one of
//! four ways, apply a fix that works or one that is broken too, wait for
//! the outcome, and record what the history shows as the scenario's facts,
//! which the report gathers into the comparison table
//! ([`crate::report::comparison`]).

use kepspec_core::Lookup as _;
use std::time::Duration;

use serde_json::{json, Value};

use super::scenario::{RequestError, Scenario};
use super::{checks, clauses};
use crate::history::views::{state_before, PodFacts};
use crate::history::{Kind, Timeline};

/// The key under which a scenario remembers how its pods are stuck.
const STUCK_KEY: &str = "comparison: stuck";
/// The key under which it remembers the fix it applied.
const FIX_KEY: &str = "comparison: fix";
/// A second readiness gate, which nothing satisfies either.
const OTHER_GATE: &str = "kepspec.io/also-never";

/// How a template leaves its pods stuck (the draft's "Example Scenario"
/// and KEP-3541's "Test Plan": ImagePullBackOff, Pending, CrashLoopBackOff).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stuck {
    /// An image that does not exist.
    ImagePullBackOff,
    /// A CPU request larger than any node.
    Unschedulable,
    /// A command that exits.
    CrashLoopBackOff,
    /// A readiness gate nothing satisfies.
    NeverReady,
}

impl Stuck {
    /// The words of the steps: `in ImagePullBackOff`, `unschedulable`,
    /// `in CrashLoopBackOff`, `never ready`.
    pub fn parse(words: &str) -> Result<Stuck, String> {
        Ok(match words {
            "in ImagePullBackOff" => Stuck::ImagePullBackOff,
            "unschedulable" => Stuck::Unschedulable,
            "in CrashLoopBackOff" => Stuck::CrashLoopBackOff,
            "never ready" => Stuck::NeverReady,
            other => {
                return Err(format!(
                    "unknown way to leave pods stuck {other:?}; known: in ImagePullBackOff, unschedulable, in CrashLoopBackOff, never ready"
                ))
            }
        })
    }

    /// The words [`Self::parse`] reads.
    pub fn words(self) -> &'static str {
        match self {
            Stuck::ImagePullBackOff => "in ImagePullBackOff",
            Stuck::Unschedulable => "unschedulable",
            Stuck::CrashLoopBackOff => "in CrashLoopBackOff",
            Stuck::NeverReady => "never ready",
        }
    }

    /// The container of a template that leaves pods stuck this way;
    /// `second` makes a different template broken the same way. `None` for
    /// [`Stuck::NeverReady`], whose break is a readiness gate.
    fn container(self, second: bool) -> Option<Value> {
        let n = if second { "2" } else { "1" };
        match self {
            Stuck::ImagePullBackOff => Some(json!({
                "name": "app",
                "image": format!("registry.k8s.io/pause:no-such-tag-{n}"),
            })),
            Stuck::Unschedulable => Some(json!({
                "name": "app",
                "resources": {"requests": {"cpu": if second { "1001" } else { "1000" }}},
            })),
            Stuck::CrashLoopBackOff => Some(json!({
                "name": "app",
                "image": "busybox:1.36",
                "command": ["sh", "-c", format!("exit {n}")],
            })),
            Stuck::NeverReady => None,
        }
    }

    /// The container of a template that works again.
    /// A fix is a revision of its own (never the first template back), so
    /// recovering means replacing every replica.
    fn fixed_container(self) -> Value {
        let fixed = json!([{"name": "FIXED", "value": "1"}]);
        match self {
            Stuck::ImagePullBackOff | Stuck::NeverReady => {
                json!({"name": "app", "image": "registry.k8s.io/pause:3.10", "env": fixed})
            }
            Stuck::Unschedulable => json!({
                "name": "app",
                "resources": {"requests": {"cpu": "10m"}},
                "env": fixed,
            }),
            Stuck::CrashLoopBackOff => json!({
                "name": "app",
                "image": "busybox:1.36",
                "command": ["sleep", "3600"],
                "env": fixed,
            }),
        }
    }
}

/// Whether a pod is stuck: not terminating, not Ready, and waiting in
/// ImagePullBackOff, ErrImagePull or CrashLoopBackOff, unschedulable, or
/// Running with every container ready but a readiness gate unmet.
pub fn is_stuck(pod: &Value) -> bool {
    let f = PodFacts::of(pod);
    if f.terminating || f.ready {
        return false;
    }
    let waiting = matches!(
        f.waiting_reason,
        Some("ImagePullBackOff" | "ErrImagePull" | "CrashLoopBackOff")
    );
    let condition = |kind: &str| {
        pod.lookup("/status/conditions")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .find(|c| c["type"] == kind)
            .and_then(|c| c["status"].as_str())
            .map(str::to_string)
    };
    let unschedulable = condition("PodScheduled").as_deref() == Some("False");
    let gate_unmet =
        f.phase == Some("Running") && condition("ContainersReady").as_deref() == Some("True");
    waiting || unschedulable || gate_unmet
}

fn input(message: String) -> anyhow::Error {
    anyhow::anyhow!("{} {message}", crate::run::runner::INPUT_ERROR)
}

fn strategic(container: Value) -> Value {
    json!({"spec": {"template": {"spec": {"containers": [container]}}}})
}

/// Changes `set`'s template so that its pods are stuck `how`.
pub async fn break_template(sc: &mut Scenario, set: &str, how: &str) -> anyhow::Result<()> {
    let stuck = Stuck::parse(how).map_err(input)?;
    sc.remembered.insert(STUCK_KEY.into(), how.into());
    apply(sc, set, stuck, Some(false)).await?;
    Ok(())
}

/// Applies a fix to the template `break_template` broke: one that works, or
/// one broken the same way (a new revision all the same).
pub async fn fix(sc: &mut Scenario, set: &str, works: bool) -> anyhow::Result<()> {
    let how = sc.remembered.get(STUCK_KEY).cloned().ok_or_else(|| {
        input("no template was broken before the fix (\"... is changed to a template that leaves its pods ...\")".into())
    })?;
    let stuck = Stuck::parse(&how).map_err(input)?;
    let fix = if works { "works" } else { "is broken too" };
    sc.remembered.insert(FIX_KEY.into(), fix.into());
    apply(sc, set, stuck, if works { None } else { Some(true) }).await?;
    Ok(())
}

/// `broken`: Some(second?) for a broken template, None for the fix.
async fn apply(
    sc: &mut Scenario,
    set: &str,
    stuck: Stuck,
    broken: Option<bool>,
) -> Result<(), RequestError> {
    let container = match broken {
        Some(second) => stuck.container(second),
        None => Some(stuck.fixed_container()),
    };
    if broken.is_none() && stuck == Stuck::NeverReady {
        // The readiness gate goes and the container changes, in one write.
        let mut patch = strategic(stuck.fixed_container());
        patch["spec"]["template"]["spec"]["readinessGates"] = Value::Null;
        return sc
            .strategic_patch_set(set, patch, &format!("fix the template of {set}"))
            .await;
    }
    match container {
        Some(c) => {
            sc.strategic_patch_set(set, strategic(c), &format!("change the template of {set}"))
                .await
        }
        None => {
            let gates = match broken {
                None => Value::Null,
                Some(false) => json!([{"conditionType": super::setspec::READINESS_GATE}]),
                Some(true) => json!([{"conditionType": OTHER_GATE}]),
            };
            sc.patch_set(
                set,
                json!({"spec": {"template": {"spec": {"readinessGates": gates}}}}),
            )
            .await
        }
    }
}

/// Waits until a pod of `set` created since the scenario's first change is stuck.
pub async fn some_pod_stuck(sc: &mut Scenario, set: &str, timeout: Duration) -> anyhow::Result<()> {
    let set = set.to_string();
    let from = sc.baseline_mark();
    super::waits::wait(sc, timeout, clauses::pod_state(), move |t| {
        let from = from.resolve(t);
        let now = state_before(t, t.next_seq());
        let stuck = now
            .pods_of(&set)
            .any(|p| p.created_seq >= from && is_stuck(&p.entry.object));
        (!stuck).then(|| format!("no pod of {set} created since the change is stuck"))
    })
    .await
}

/// The facts of a comparison scenario, from its history.
fn facts(t: &Timeline, sc: &Scenario, set: &str) -> Vec<(String, String)> {
    let spec = t
        .of_object(Kind::StatefulSet, set)
        .last()
        .map(|e| e.object["spec"].clone())
        .unwrap_or_default();
    let text = |p: &str, default: &str| {
        spec.lookup(p)
            .and_then(Value::as_str)
            .unwrap_or(default)
            .to_string()
    };
    let from = sc.baseline(t);
    let scope = checks::scope_of(t, set);
    let mut most = 0;
    let mut state = state_before(t, from);
    let skip = usize::try_from(from).unwrap_or(usize::MAX);
    for e in t.entries().iter().skip(skip) {
        state.apply(e);
        most = most.max(state.unavailable_in(&state.scope_of(&scope)));
    }
    let mixed = crate::history::rules::no_mixed_revisions(
        t,
        &clauses::recreate_no_mixing(),
        from,
        set,
        None,
    )
    .is_err();
    let in_sequence = crate::history::sequence::replaced_in_sequence(
        t,
        &clauses::enforced_sequence(),
        from,
        &scope,
    )
    .is_ok();
    let yes = |b: bool| if b { "yes" } else { "no" }.to_string();
    vec![
        (
            "strategy".into(),
            text("/updateStrategy/type", "RollingUpdate"),
        ),
        (
            "policy".into(),
            text("/podManagementPolicy", "OrderedReady"),
        ),
        (
            "stuck".into(),
            sc.remembered.get(STUCK_KEY).cloned().unwrap_or_default(),
        ),
        (
            "fix".into(),
            sc.remembered.get(FIX_KEY).cloned().unwrap_or_default(),
        ),
        ("most unavailable".into(), most.to_string()),
        ("mixed revisions".into(), yes(mixed)),
        ("in sequence".into(), yes(in_sequence)),
    ]
}

/// Waits until every replica runs the update revision and is ready, then
/// records the facts, the time from the fix to recovery among them.
pub async fn recovers(sc: &mut Scenario, set: &str, timeout: Duration) -> anyhow::Result<()> {
    let before = sc.timeline().await?;
    let generation = before
        .of_object(Kind::StatefulSet, set)
        .last()
        .and_then(|e| e.object.lookup("/metadata/generation").cloned());
    super::waits::set_rolled_out(sc, set, None, timeout).await?;
    let t = sc.timeline().await?;
    let fixed_at = t
        .of_object(Kind::StatefulSet, set)
        .find(|e| e.object.lookup("/metadata/generation") == generation.as_ref())
        .map(|e| e.at);
    let done_at = t.last().map(|e| e.at);
    let mut facts = facts(&t, sc, set);
    facts.push(("outcome".into(), "recovers".into()));
    if let (Some(a), Some(b)) = (fixed_at, done_at) {
        facts.push((
            "time to recover".into(),
            format!("{:.1}", b.saturating_sub(a).as_secs_f64()),
        ));
    }
    sc.facts.extend(facts);
    Ok(())
}

/// The quiet a stuck set must keep: no pod created or deleted for this long.
const QUIET: Duration = Duration::from_secs(5);

/// Waits (at most `timeout`) until the controller has observed the last
/// change and no pod of `set` was created or deleted for 5 seconds; then
/// some replica must still not run the update revision ready.
pub async fn stays_stuck(sc: &mut Scenario, set: &str, timeout: Duration) -> anyhow::Result<()> {
    super::waits::controller_observed(sc, timeout).await?;
    let name = set.to_string();
    super::waits::wait(sc, timeout, clauses::pod_state(), move |t| {
        let last = t
            .entries()
            .iter()
            .rev()
            .find(|e| {
                e.kind == Kind::Pod
                    && crate::history::views::ordinal_of(&name, &e.name).is_some()
                    && (e.change != crate::history::Change::Modified || e.pod_facts().terminating)
            })
            .map(|e| e.at)
            .unwrap_or_default();
        let now = state_before(t, t.next_seq()).now().at;
        (now.saturating_sub(last) < QUIET).then(|| format!("pods of {name} still change"))
    })
    .await?;
    let t = sc.timeline().await?;
    let update = super::waits::update_revision(&t, set).map(str::to_string);
    let state = state_before(&t, t.next_seq());
    let healthy = state
        .pods_of(set)
        .filter(|p| !p.terminating && p.ready && p.revision == update.as_deref())
        .count();
    let scope = checks::scope_of(&t, set);
    if healthy >= usize::try_from(scope.replicas).unwrap_or(0) {
        anyhow::bail!("{set} recovered: every replica runs the update revision and is ready");
    }
    let mut facts = facts(&t, sc, set);
    facts.push(("outcome".into(), "stays stuck".into()));
    sc.facts.extend(facts);
    Ok(())
}

/// The replacements' guarantee a strategy promises: the reverse ordinal
/// sequence (RollingUpdate, EnforcedRollingUpdate) or never two revisions
/// at once (Recreate).
pub async fn guarantee(sc: &mut Scenario, set: &str, sequence: bool) -> anyhow::Result<()> {
    if sequence {
        checks::enforced_order(sc, set, false).await
    } else {
        checks::no_mixed_revisions(sc).await
    }
}
