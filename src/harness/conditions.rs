//! KEP-3541, Goal 6: "Add Progressing state condition to StatefulSet status
//! for all strategies". The KEP names reasons only for Recreate, so these
//! checks read whether the condition is there, not what it says (status
//! truth judges a completion reason wherever one is reported).
//!
//! Upstream v1.37 sets it for Recreate only (calibration-facts: review
//! dropped the RollingUpdate and OnDelete reasons, and the proposal for every
//! strategy, kubernetes#133696, closed unmerged); its profile declares that
//! as the deviation `progressing-for-recreate-only`, which
//! [`progressing_absent`] checks.

#![allow(clippy::result_large_err)]

use kepspec_core::Lookup as _;
use serde_json::Value;

use super::checks::keep;
use super::clauses;
use super::scenario::Scenario;
use crate::history::checks::{Breach, Violation};
use crate::history::{Clause, Kind, Timeline};

/// The first entry of `set` after `from` whose status reports the set's
/// latest generation observed: from there on, a controller has seen the
/// last change.
fn observed_latest(t: &Timeline, set: &str, from: u64) -> Option<u64> {
    let versions: Vec<_> = t.of_object(Kind::StatefulSet, set).collect();
    let latest = versions
        .last()?
        .object
        .lookup("/metadata/generation")
        .and_then(Value::as_i64)?;
    versions
        .iter()
        .filter(|e| e.seq >= from)
        .find(|e| {
            e.object
                .lookup("/status/observedGeneration")
                .and_then(Value::as_i64)
                .is_some_and(|g| g >= latest)
        })
        .map(|e| e.seq)
}

/// Judges every version of `set` from the one that observed its latest
/// generation to the end with `breach` (None: fine).
fn judge(
    t: &Timeline,
    clause: &Clause,
    set: &str,
    from: u64,
    breach: impl Fn(&Value) -> Option<String>,
) -> Result<(), Violation> {
    let Some(start) = observed_latest(t, set, from) else {
        return Err(Violation::at_entry(
            t,
            clause,
            t.next_seq().saturating_sub(1),
            Breach::new(
                format!("{set} never reported its latest generation observed"),
                vec![],
            ),
        ));
    };
    for e in t
        .of_object(Kind::StatefulSet, set)
        .filter(|e| e.seq >= start)
    {
        if let Some(why) = breach(&e.object) {
            return Err(Violation::at_entry(
                t,
                clause,
                e.seq,
                Breach::new(why, vec![]),
            ));
        }
    }
    Ok(())
}

/// From the moment the controller observed the change to the end, every
/// recorded version of `set` carries a `Progressing` condition.
pub async fn progressing_throughout(sc: &mut Scenario, set: &str) -> anyhow::Result<()> {
    let t = sc.timeline().await?;
    let from = sc.baseline(&t);
    let result = judge(&t, &clauses::progressing_every_strategy(), set, from, |o| {
        (!has_condition(o, "Progressing"))
            .then(|| format!("{set} reports no Progressing condition"))
    });
    keep(sc, result)
}

/// Upstream's declared alternative: from the change on, no recorded
/// version of `set` carries a `Progressing` condition.
pub async fn progressing_absent(sc: &mut Scenario, set: &str) -> anyhow::Result<()> {
    let t = sc.timeline().await?;
    let from = sc.baseline(&t);
    let result = judge(&t, &clauses::progressing_recreate_only(), set, from, |o| {
        has_condition(o, "Progressing").then(|| format!("{set} reports a Progressing condition"))
    });
    keep(sc, result)
}

/// Whether a recorded set carries a condition of type `kind`.
fn has_condition(set: &Value, kind: &str) -> bool {
    set.lookup("/status/conditions")
        .and_then(Value::as_array)
        .is_some_and(|cs| cs.iter().any(|c| c["type"] == kind))
}

/// From the moment the controller observed the last change to the end, no
/// recorded version of `set` carries a condition of type `kind`: the KEP-3541
/// draft's `StatefulSetUpdateStrategy` ("indicates active strategy") goes
/// when the set switches to another strategy.
pub async fn condition_absent(sc: &mut Scenario, set: &str, kind: &str) -> anyhow::Result<()> {
    let clause = match kind {
        "StatefulSetUpdateStrategy" => clauses::enforced_strategy_condition(),
        "Progressing" => clauses::progressing_recreate_only(),
        other => anyhow::bail!(
            "no source states when the condition {other:?} must be absent; known: StatefulSetUpdateStrategy, Progressing"
        ),
    };
    let t = sc.timeline().await?;
    let from = sc.baseline(&t);
    let result = judge(&t, &clause, set, from, |o| {
        has_condition(o, kind).then(|| format!("{set} still reports the condition {kind}"))
    });
    keep(sc, result)
}

/// The `Progressing` condition's status and reason in a recorded set.
fn progressing_state(set: &Value) -> Option<(String, String)> {
    let c = set
        .lookup("/status/conditions")
        .and_then(Value::as_array)?
        .iter()
        .find(|c| c["type"] == "Progressing")?;
    let text = |k: &str| c[k].as_str().unwrap_or_default().to_string();
    Some((text("status"), text("reason")))
}

/// From the moment the controller observed the change, the `Progressing`
/// condition's status or reason while the rollout went on differs from
/// what it says at the end: a condition that reads the same throughout does
/// not tell a rollout in progress from a finished one.
pub async fn progressing_tells_the_end(sc: &mut Scenario, set: &str) -> anyhow::Result<()> {
    let t = sc.timeline().await?;
    let from = sc.baseline(&t);
    let result = tells_the_end(&t, &clauses::progressing_every_strategy(), set, from);
    keep(sc, result)
}

/// [`progressing_tells_the_end`] over a timeline.
fn tells_the_end(t: &Timeline, clause: &Clause, set: &str, from: u64) -> Result<(), Violation> {
    let Some(start) = observed_latest(t, set, from) else {
        return judge(t, clause, set, from, |_| None);
    };
    let states: Vec<(u64, Option<(String, String)>)> = t
        .of_object(Kind::StatefulSet, set)
        .filter(|e| e.seq >= start)
        .map(|e| (e.seq, progressing_state(&e.object)))
        .collect();
    let Some((seq, last)) = states.last() else {
        return Ok(());
    };
    if states.iter().any(|(_, s)| s != last) {
        return Ok(());
    }
    let said = match last {
        Some((status, reason)) => format!("{status} ({reason})"),
        None => "nothing".to_string(),
    };
    Err(Violation::at_entry(
        t,
        clause,
        *seq,
        Breach::new(
            format!(
                "{set}'s Progressing condition said {said} from the moment the change was observed to the end of the rollout: it never told the rollout in progress from the rollout finished"
            ),
            vec![],
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::fixture::TimelineBuilder;
    use serde_json::json;

    fn progressing(reason: &str) -> Value {
        json!({"observedGeneration": 2, "conditions": [
            {"type": "Progressing", "status": "True", "reason": reason}
        ]})
    }

    #[test]
    fn a_constant_progressing_condition_tells_nothing() {
        let clause = clauses::progressing_every_strategy();
        let mut b = TimelineBuilder::new();
        b.set_spec("web", json!({"replicas": 2}))
            .set_spec("web", json!({"replicas": 2, "x": 1}))
            .set_status("web", progressing("Progressing"))
            .set_status("web", progressing("Progressing"));
        let v = tells_the_end(&b.build(), &clause, "web", 0).unwrap_err();
        assert!(
            v.to_string().contains("never told the rollout in progress"),
            "{v}"
        );
        let mut b = TimelineBuilder::new();
        b.set_spec("web", json!({"replicas": 2}))
            .set_spec("web", json!({"replicas": 2, "x": 1}))
            .set_status("web", progressing("RollingUpdateInProgress"))
            .set_status("web", progressing("RollingUpdateComplete"));
        tells_the_end(&b.build(), &clause, "web", 0).unwrap();
    }
}
