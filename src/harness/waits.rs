//! Waits and checks over the scenario's recorded history. Waits are
//! event-driven: each new timeline entry re-evaluates the probe, so a wait
//! ends the moment the history satisfies it and never polls.

use kepspec_core::Lookup as _;
use std::time::Duration;

use serde_json::Value;

use super::clauses;
use super::scenario::Scenario;
use crate::history::checks::Breach;
use crate::history::rules::ConditionSpec;
use crate::history::views::{state_before, State};
use crate::history::{Entry, Kind, Timeline, Violation};

/// The latest recorded state of a set.
pub fn latest_set<'t>(t: &'t Timeline, set: &str) -> Option<&'t Value> {
    latest_set_entry(t, set).map(|e| &*e.object)
}

fn latest_set_entry<'t>(t: &'t Timeline, set: &str) -> Option<&'t Entry> {
    t.entries()
        .iter()
        .rev()
        .find(|e| e.kind == Kind::StatefulSet && e.name == set)
}

/// An integer field of the set's status in `state` (0 when absent, as Go's
/// `omitempty` drops zeros).
fn status_int(state: &State<'_>, set: &str, field: &str) -> i64 {
    state
        .sets
        .get(set)
        .and_then(|e| e.object.get("status"))
        .and_then(|s| s.get(field))
        .and_then(Value::as_i64)
        .unwrap_or(0)
}

/// Why a wait cannot judge a set yet: its status lags its spec.
fn not_reported(set: &str) -> String {
    format!("{set} status does not yet report the update revision of its current generation")
}

/// The update revision the controller reports for the set's current
/// generation (None while the status is behind the spec).
pub fn update_revision<'t>(t: &'t Timeline, set: &str) -> Option<&'t str> {
    revision_of_current_generation(latest_set_entry(t, set)?)
}

/// The current revision the controller reports for the set's current
/// generation (None while the status is behind the spec).
pub fn current_revision<'t>(t: &'t Timeline, set: &str) -> Option<&'t str> {
    let entry = latest_set_entry(t, set)?;
    revision_of_current_generation(entry)?;
    entry
        .object
        .lookup("/status/currentRevision")
        .and_then(Value::as_str)
}

fn revision_of_current_generation(entry: &Entry) -> Option<&str> {
    let obj = &*entry.object;
    let generation = obj
        .lookup("/metadata/generation")
        .and_then(Value::as_i64)
        .unwrap_or(0);
    let observed = obj
        .lookup("/status/observedGeneration")
        .and_then(Value::as_i64)
        .unwrap_or(-1);
    if observed < generation {
        return None;
    }
    let reported = obj
        .lookup("/status/updateRevision")
        .and_then(Value::as_str)?;
    // For apps/v1 the revision of a template is known (upstream's hash of
    // the template and status.collisionCount), so the controller's word is
    // checked rather than trusted: a controller that never makes the new
    // revision never reports it.
    match entry.template_revision() {
        Some(expected) if expected != reported => None,
        _ => Some(reported),
    }
}

/// Why a wait cannot judge a set yet: its status lags its spec, or reports
/// an update revision that is not its template's.
fn not_reported_in(set: &str, entry: &Entry) -> String {
    let reported = entry
        .object
        .lookup("/status/updateRevision")
        .and_then(Value::as_str);
    match (entry.template_revision(), reported) {
        (Some(expected), Some(r)) if expected != r => format!(
            "{set} status reports update revision {r}, but its current template's revision is {expected}"
        ),
        _ => not_reported(set),
    }
}

/// Why a set is not rolled out in `state`, or None when it is: exactly `n`
/// pods exist (terminating ones count), all at the update revision, all Ready.
pub fn rollout_gap_in(state: &State<'_>, set: &str, n: Option<usize>) -> Option<String> {
    let Some(entry) = state.sets.get(set).copied() else {
        return Some(format!("{set} has not been observed"));
    };
    let obj = &*entry.object;
    let replicas = obj
        .lookup("/spec/replicas")
        .and_then(Value::as_u64)
        .unwrap_or(1) as usize;
    let n = n.unwrap_or(replicas);
    let Some(revision) = revision_of_current_generation(entry) else {
        return Some(not_reported_in(set, entry));
    };
    let pods: Vec<_> = state.pods_of(set).collect();
    let lagging: Vec<String> = pods
        .iter()
        .filter(|p| p.revision != Some(revision) || !p.ready || p.terminating)
        .map(|p| {
            format!(
                "{} (revision {}, {}{})",
                p.name(),
                p.revision.unwrap_or("none"),
                if p.ready { "ready" } else { "not ready" },
                if p.terminating { ", terminating" } else { "" }
            )
        })
        .collect();
    if pods.len() == n && lagging.is_empty() {
        None
    } else {
        Some(format!(
            "{} of {n} pods exist; update revision {revision}; not there yet: {}",
            pods.len(),
            if lagging.is_empty() {
                "none".to_string()
            } else {
                lagging.join(", ")
            }
        ))
    }
}

/// [`rollout_gap_in`] at the end of the timeline.
pub fn rollout_gap(t: &Timeline, set: &str, n: Option<usize>) -> Option<String> {
    rollout_gap_in(&state_before(t, t.next_seq()), set, n)
}

pub(crate) async fn wait(
    sc: &mut Scenario,
    timeout: Duration,
    clause: crate::history::Clause,
    probe: impl FnMut(&Timeline) -> Option<String>,
) -> anyhow::Result<()> {
    // The probe returns why the condition does not hold yet; the wait ends
    // when it returns nothing.
    let mut probe = probe;
    let mut last_gap = String::new();
    let written = sc.written.clone();
    let result = sc
        .recorder
        .wait_for(timeout, |t| {
            // Never judge a timeline that has not yet seen the scenario's own writes.
            if let Some(gap) = super::scenario::caught_up(t, &written) {
                last_gap = gap;
                return None;
            }
            match probe(t) {
                None => Some(()),
                Some(gap) => {
                    last_gap = gap;
                    None
                }
            }
        })
        .await;
    match result {
        Ok(()) => Ok(()),
        Err(timeout_err) => Err(fail_at_end(
            sc,
            &timeout_err.timeline,
            &clause,
            format!(
                "not within {:.0} s; as of the last recorded change: {last_gap}",
                timeout.as_secs_f64()
            ),
        )),
    }
}

/// A violation of `clause` at the end of the timeline: kept for the
/// report, returned as the step's error.
fn fail_at_end(
    sc: &mut Scenario,
    t: &Timeline,
    clause: &crate::history::Clause,
    message: String,
) -> anyhow::Error {
    let v = Violation::at_entry(
        t,
        clause,
        t.next_seq().saturating_sub(1),
        Breach::new(message, vec![]),
    );
    sc.last_violation = Some(v.clone());
    anyhow::anyhow!("{v}")
}

/// Waits until the controller has observed the latest generation of every
/// set in the scenario (`status.observedGeneration`), so that a window in
/// which "nothing happens" starts only once the controller has seen the
/// change it must not act on: a dead or slow controller cannot pass it.
pub async fn controller_observed(sc: &mut Scenario, timeout: Duration) -> anyhow::Result<()> {
    wait(sc, timeout, clauses::observed_generation(), |t| {
        observation_gap(&state_before(t, t.next_seq()))
    })
    .await
}

/// A set whose latest generation the controller has not observed yet.
pub fn observation_gap(state: &State<'_>) -> Option<String> {
    state.sets.iter().find_map(|(set, e)| {
        let obj = &e.object;
        if obj.lookup("/metadata/deletionTimestamp").is_some() {
            return None;
        }
        let generation = obj.lookup("/metadata/generation").and_then(Value::as_i64).unwrap_or(0);
        let observed = obj
            .lookup("/status/observedGeneration")
            .and_then(Value::as_i64)
            .unwrap_or(0);
        (observed < generation).then(|| {
            format!("the controller has not yet observed generation {generation} of {set} (observedGeneration {observed})")
        })
    })
}

/// How long a controller has to make its status say what its pods are once
/// they stopped changing. Upstream writes status at the end of every sync,
/// and every pod change starts one; the bound only has to outlast a slow
/// machine.
pub const STATUS_SETTLES_WITHIN: Duration = Duration::from_secs(30);

/// Waits until the set's pods all run the update revision and are ready,
/// and then until the controller's status says exactly that
/// ([`crate::history::status_truth::settled_gap`]).
pub async fn set_rolled_out(
    sc: &mut Scenario,
    set: &str,
    n: Option<usize>,
    timeout: Duration,
) -> anyhow::Result<()> {
    let owned = set.to_string();
    wait(sc, timeout, clauses::rollout_completes(), move |t| {
        rollout_gap(t, &owned, n)
    })
    .await?;
    status_settled(sc, set).await
}

/// Waits until the set's status says exactly what its pods are.
async fn status_settled(sc: &mut Scenario, set: &str) -> anyhow::Result<()> {
    let set = set.to_string();
    wait(
        sc,
        STATUS_SETTLES_WITHIN,
        clauses::status_settles(),
        move |t| {
            crate::history::status_truth::settled_gap(&state_before(t, t.next_seq()).now(), &set)
        },
    )
    .await
}

/// Waits until the set is rolled out with every replica available (ready
/// for minReadySeconds), judged from the pods the recorder saw, and then
/// until the controller's status says exactly so: the calm state a scenario
/// starts from. The pods decide whether the set is settled; the status is
/// then required to follow, so that the next step acts on a controller that
/// has seen the same state, and a controller whose status stops short of
/// its pods fails here, under its own clause.
pub async fn set_settled(sc: &mut Scenario, set: &str, timeout: Duration) -> anyhow::Result<()> {
    let owned = set.to_string();
    wait(sc, timeout, clauses::rollout_completes(), move |t| {
        rollout_gap(t, &owned, None).or_else(|| {
            let state = state_before(t, t.next_seq()).now();
            let scope = state.scope_of(&crate::history::SetScope::new(&owned, 1));
            let unavailable = state.unavailable_names(&scope);
            (!unavailable.is_empty()).then(|| {
                format!(
                    "pods not yet available (ready for minReadySeconds): {}",
                    unavailable.join(", ")
                )
            })
        })
    })
    .await?;
    status_settled(sc, set).await
}

/// Waits until the set's status reports `available` available replicas
/// and the pods agree: ready for the minReadySeconds the spec names now,
/// judged at the present moment.
pub async fn status_available(
    sc: &mut Scenario,
    set: &str,
    available: i64,
    timeout: Duration,
) -> anyhow::Result<()> {
    let set = set.to_string();
    wait(sc, timeout, clauses::status_truth(), move |t| {
        let state = state_before(t, t.next_seq()).now();
        let scope = state.scope_of(&crate::history::SetScope::new(&set, 0));
        let pods = state.available_in(&scope) as i64;
        if pods != available {
            return Some(format!(
                "{pods} pods of {set} are available (ready for {}s)",
                scope.min_ready.as_secs()
            ));
        }
        let reported = status_int(&state, &set, "availableReplicas");
        (reported != available).then(|| {
            format!("{set} reports {reported} available replicas; {available} are available")
        })
    })
    .await
}

/// Waits until a field of a pod's latest recorded state reads `want`.
pub async fn pod_field(
    sc: &mut Scenario,
    pod: &str,
    pointer: &str,
    want: &str,
    timeout: Duration,
) -> anyhow::Result<()> {
    let clause = super::context::field_clause(pointer);
    let (pod, pointer, want) = (pod.to_string(), pointer.to_string(), want.to_string());
    wait(sc, timeout, clause, move |t| {
        match super::checks::field(t, crate::history::Kind::Pod, &pod, &pointer) {
            Some(have) if have == want => None,
            have => Some(format!(
                "pod {pod}: {pointer} is {}, expected {want:?}",
                have.map(|h| format!("{h:?}"))
                    .unwrap_or_else(|| "unset".into())
            )),
        }
    })
    .await
}

/// How a metric's value is compared with the one wanted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compare {
    /// Equal to it.
    Exactly,
    /// Equal to it or more.
    AtLeast,
}

/// The clause a metric's check encodes, by the metric's name.
fn metric_clause(metric: &str) -> crate::history::Clause {
    if metric.starts_with("statefulset_max_unavailable")
        || metric.starts_with("statefulset_unavailable_replicas")
    {
        clauses::max_unavailable_metrics()
    } else if metric.starts_with("statefulset_unavailability_violation") {
        clauses::unavailability_violation()
    } else if metric.starts_with("workqueue_") {
        clauses::workqueue_metrics()
    } else {
        clauses::enforced_metrics()
    }
}

/// The value of `metric` (of `set`, in the scenario's namespace), or why
/// there is none.
fn metric_value(
    text: Option<String>,
    metric: &str,
    of: Option<(&str, &str)>,
) -> Result<f64, String> {
    let whose = of.map(|(_, s)| format!(" of {s}")).unwrap_or_default();
    let Some(text) = text else {
        return Err("the controller's metrics cannot be read on this target".into());
    };
    super::scrape::sample(&text, metric, of)
        .ok_or_else(|| format!("the controller reports no {metric}{whose}"))
}

/// Waits until the controller's metrics report `want` for `metric` of
/// `set` (the metrics are read at every re-judgement: they change without
/// an object changing).
pub async fn metric_reports(
    sc: &mut Scenario,
    metric: &str,
    set: Option<&str>,
    compare: Compare,
    want: f64,
    timeout: Duration,
) -> anyhow::Result<()> {
    let env = sc.env.clone();
    let namespace = sc.namespace.clone();
    let (metric, set) = (metric.to_string(), set.map(str::to_string));
    wait(sc, timeout, metric_clause(&metric), move |_| {
        let of = set.as_deref().map(|s| (namespace.as_str(), s));
        let whose = set
            .as_deref()
            .map(|s| format!(" of {s}"))
            .unwrap_or_default();
        match metric_value(env.controller_metrics(), &metric, of) {
            Err(why) => Some(why),
            Ok(v) if compare == Compare::Exactly && (v - want).abs() < f64::EPSILON => None,
            Ok(v) if compare == Compare::AtLeast && v >= want => None,
            Ok(v) => Some(format!("the controller reports {metric}{whose} as {v}")),
        }
    })
    .await
}

/// Checks that the controller has counted nothing in the counter `metric`
/// of `set`: no sample, or 0. A counter only grows, so its value now is a
/// statement about every sync so far.
pub async fn metric_never_counted(
    sc: &mut Scenario,
    metric: &str,
    set: &str,
) -> anyhow::Result<()> {
    let Some(text) = sc.env.controller_metrics() else {
        anyhow::bail!("the controller's metrics cannot be read on this target");
    };
    let of = (sc.namespace.as_str(), set);
    match kepspec_core::scrape::sample(&text, metric, Some(of)) {
        None => Ok(()),
        Some(v) if v.abs() < f64::EPSILON => Ok(()),
        Some(v) => {
            let t = sc.timeline().await?;
            let gap = format!("the controller reports {metric} of {set} as {v}");
            Err(fail_at_end(sc, &t, &metric_clause(metric), gap))
        }
    }
}

/// Checks that `metric`, over the whole controller, is at most `max` now:
/// no sample counts as nothing observed. For a histogram's sum or count,
/// which only grow, its value now bounds every observation so far.
pub async fn metric_at_most(sc: &mut Scenario, metric: &str, max: f64) -> anyhow::Result<()> {
    let Some(text) = sc.env.controller_metrics() else {
        anyhow::bail!("the controller's metrics cannot be read on this target");
    };
    match kepspec_core::scrape::sample(&text, metric, None) {
        Some(v) if v > max => {
            let t = sc.timeline().await?;
            let gap = format!("the controller reports {metric} as {v}");
            Err(fail_at_end(sc, &t, &metric_clause(metric), gap))
        }
        _ => Ok(()),
    }
}

/// Waits, up to `timeout`, for `metric` to keep one value for `period`
/// (read every quarter second): a counter that settles once there is
/// nothing left to retry. A sync already under way when the wait begins
/// may still move it; a counter that never stops moving fails.
pub async fn metric_steady(
    sc: &mut Scenario,
    metric: &str,
    period: Duration,
    timeout: Duration,
) -> anyhow::Result<()> {
    let read = |sc: &Scenario| metric_value(sc.env.controller_metrics(), metric, None);
    let deadline = tokio::time::Instant::now() + timeout;
    let gap = loop {
        let first = match read(sc) {
            Ok(v) => v,
            Err(why) => break why,
        };
        let since = tokio::time::Instant::now();
        let mut moved = None;
        while moved.is_none() && since.elapsed() < period {
            tokio::time::sleep(Duration::from_millis(250)).await;
            match read(sc) {
                Ok(now) if (now - first).abs() >= f64::EPSILON => moved = Some(now),
                Ok(_) => {}
                Err(why) => return Err(anyhow::anyhow!(why)),
            }
        }
        let Some(now) = moved else {
            return Ok(());
        };
        if tokio::time::Instant::now() >= deadline {
            break format!(
                "{metric} did not keep one value for {:.0}s within {:.0}s (last: from {first} to {now})",
                period.as_secs_f64(),
                timeout.as_secs_f64()
            );
        }
    };
    let t = sc.timeline().await?;
    Err(fail_at_end(sc, &t, &metric_clause(metric), gap))
}

/// Waits until a pod's container waits with the given reason.
pub async fn pod_waiting(
    sc: &mut Scenario,
    pod: &str,
    reason: &str,
    timeout: Duration,
) -> anyhow::Result<()> {
    let (pod, reason) = (pod.to_string(), reason.to_string());
    wait(sc, timeout, clauses::pod_state(), move |t| {
        match t.of_object(Kind::Pod, &pod).last() {
            None => Some(format!("pod {pod} has not been observed")),
            Some(e) => {
                let f = e.pod_facts();
                (f.waiting_reason != Some(reason.as_str())).then(|| {
                    format!(
                        "pod {pod} is {} waiting reason {}",
                        f.phase.unwrap_or("?"),
                        f.waiting_reason.unwrap_or("none")
                    )
                })
            }
        }
    })
    .await
}

/// Waits until the set reports a condition: the spec's, or one the target
/// declares in its place (then the scenario passes with that deviation).
/// Without a reason only the status is checked.
pub async fn condition(
    sc: &mut Scenario,
    set: &str,
    type_: &str,
    status: &str,
    reason: Option<&str>,
    timeout: Duration,
) -> anyhow::Result<()> {
    let alternatives = reason
        .map(|r| super::deviations::condition(&sc.env.profile, type_, status, r))
        .unwrap_or_default();
    let (set_, type_s, status_s, reason_s) = (
        set.to_string(),
        type_.to_string(),
        status.to_string(),
        reason.map(str::to_string),
    );
    let alts = alternatives.clone();
    let matched = move |t: &Timeline| -> Option<Option<String>> {
        let last = latest_set(t, &set_)?;
        let kep = ConditionSpec {
            type_: &type_s,
            status: &status_s,
            reason: reason_s.as_deref(),
            message: None,
        };
        if kep.matches(last) {
            return Some(None);
        }
        alts.iter().find_map(|a| {
            ConditionSpec {
                type_: &type_s,
                status: &a.status,
                reason: Some(&a.reason),
                message: a.message.as_deref(),
            }
            .matches(last)
            .then(|| Some(a.label.clone()))
        })
    };
    let probe_matched = matched.clone();
    let (set_d, type_d, status_d) = (set.to_string(), type_.to_string(), status.to_string());
    let reason_d = reason.map(str::to_string);
    let labels: Vec<String> = alternatives.iter().map(|a| a.label.clone()).collect();
    let waited = wait(sc, timeout, clauses::progressing_condition(), move |t| {
        if probe_matched(t).is_some() {
            return None;
        }
        let observed = latest_set(t, &set_d)
            .map(crate::history::signals::describe_conditions)
            .unwrap_or_else(|| "nothing (never observed)".into());
        Some(format!(
            "the spec expects {set_d} to report {type_d}={status_d}{}; {}; observed {observed}",
            reason_d
                .as_deref()
                .map(|r| format!(" ({r})"))
                .unwrap_or_default(),
            super::deviations::declared(&labels)
        ))
    })
    .await;
    waited?;
    let t = sc.timeline().await?;
    if let Some(Some(label)) = matched(&t) {
        sc.deviations.push(label);
    }
    Ok(())
}

/// Waits until exactly `n` pods of the set exist at the update revision
/// (ready or not).
pub async fn pods_at_update_revision(
    sc: &mut Scenario,
    set: &str,
    n: usize,
    timeout: Duration,
) -> anyhow::Result<()> {
    let set = set.to_string();
    wait(sc, timeout, clauses::rollout_completes(), move |t| {
        let Some(revision) = update_revision(t, &set) else {
            return Some(not_reported(&set));
        };
        let state = state_before(t, t.next_seq());
        let at: Vec<&str> = state
            .pods_of(&set)
            .filter(|p| p.revision == Some(revision))
            .map(|p| p.name())
            .collect();
        (at.len() != n).then(|| {
            format!(
                "{} pods at revision {revision}: {}",
                at.len(),
                at.join(", ")
            )
        })
    })
    .await
}

/// Waits until the scheduler reports a pod unschedulable.
pub async fn pod_unschedulable(
    sc: &mut Scenario,
    pod: &str,
    timeout: Duration,
) -> anyhow::Result<()> {
    let pod = pod.to_string();
    wait(sc, timeout, clauses::pod_state(), move |t| {
        match t.of_object(Kind::Pod, &pod).last() {
            None => Some(format!("pod {pod} has not been observed")),
            Some(e) => {
                let unschedulable = e
                    .object
                    .lookup("/status/conditions")
                    .and_then(Value::as_array)
                    .is_some_and(|cs| {
                        cs.iter().any(|c| {
                            c.get("type").and_then(Value::as_str) == Some("PodScheduled")
                                && c.get("status").and_then(Value::as_str) == Some("False")
                                && c.get("reason").and_then(Value::as_str) == Some("Unschedulable")
                        })
                    });
                (!unschedulable).then(|| {
                    format!("pod {pod} has no condition PodScheduled=False (Unschedulable)")
                })
            }
        }
    })
    .await
}

/// Waits until a pod is terminating (or gone).
pub async fn pod_terminating(
    sc: &mut Scenario,
    pod: &str,
    timeout: Duration,
) -> anyhow::Result<()> {
    let pod = pod.to_string();
    let baseline = sc.baseline_mark();
    // Whose promise a missing deletion breaks depends on the set: a
    // Recreate's Phase 1; otherwise what the scenario's narrative expects.
    let recreate = crate::history::views::split_ordinal(&pod)
        .and_then(|(set, _)| sc.sets.get(set))
        .is_some_and(|s| s.strategy.as_deref() == Some("Recreate"));
    let clause = if recreate {
        clauses::recreate_deletes_all()
    } else {
        clauses::scenario_narrative()
    };
    wait(sc, timeout, clause, move |t| {
        let from = baseline.resolve(t);
        let deleted = t.of_object(Kind::Pod, &pod).any(|e| {
            e.seq >= from
                && (e.change == crate::history::Change::Deleted || e.pod_facts().terminating)
        });
        (!deleted).then(|| format!("pod {pod} has not been deleted"))
    })
    .await
}

/// Waits until a pod exists (any state).
pub async fn pod_exists(sc: &mut Scenario, pod: &str, timeout: Duration) -> anyhow::Result<()> {
    let pod = pod.to_string();
    wait(sc, timeout, clauses::ordered_creation(), move |t| {
        let state = state_before(t, t.next_seq());
        (!state.pods.contains_key(pod.as_str())).then(|| format!("pod {pod} does not exist"))
    })
    .await
}

/// Waits until a pod exists at the set's update revision (any readiness).
pub async fn pod_at_update_revision(
    sc: &mut Scenario,
    set: &str,
    pod: &str,
    timeout: Duration,
) -> anyhow::Result<()> {
    let (set, pod) = (set.to_string(), pod.to_string());
    wait(sc, timeout, clauses::rollout_completes(), move |t| {
        let Some(revision) = update_revision(t, &set) else {
            return Some(not_reported(&set));
        };
        let state = state_before(t, t.next_seq());
        match state.pods.get(pod.as_str()) {
            Some(p) if p.revision == Some(revision) && !p.terminating => None,
            Some(p) => Some(format!(
                "pod {pod} is at revision {}, not {revision}",
                p.revision.unwrap_or("none")
            )),
            None => Some(format!("pod {pod} does not exist")),
        }
    })
    .await
}

/// Which of the set's revisions a pod is expected at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Which {
    /// status.updateRevision
    Update,
    /// status.currentRevision
    Current,
    /// A revision the scenario remembered (by its ControllerRevision name),
    /// whatever the status reports now.
    Remembered(String),
}

/// Waits until a pod is running and ready (and not terminating) at the
/// set's update or current revision, a new pod object after the first change.
pub async fn pod_ready_at(
    sc: &mut Scenario,
    set: &str,
    pod: &str,
    which: Which,
    timeout: Duration,
) -> anyhow::Result<()> {
    let (set, pod) = (set.to_string(), pod.to_string());
    let baseline = sc.baseline_mark();
    // A pod that must come back at the current revision is one a partition
    // keeps; one at the update revision, the rollout's.
    let clause = match which {
        Which::Update => clauses::rollout_completes(),
        Which::Current | Which::Remembered(_) => clauses::partition_keeps_lower_ordinals(),
    };
    wait(sc, timeout, clause, move |t| {
        let from = baseline.resolve(t);
        let revision = match &which {
            Which::Update => update_revision(t, &set),
            Which::Current => latest_set(t, &set)
                .and_then(|o| o.lookup("/status/currentRevision"))
                .and_then(Value::as_str),
            Which::Remembered(name) => Some(name.as_str()),
        };
        let Some(revision) = revision else {
            return Some(format!(
                "{set} status does not yet report the revision of its current generation"
            ));
        };
        let state = state_before(t, t.next_seq());
        if state
            .pods
            .get(pod.as_str())
            .is_some_and(|p| p.created_seq < from)
        {
            return Some(format!("pod {pod} has not been replaced yet"));
        }
        match state.pods.get(pod.as_str()) {
            Some(p) if p.revision == Some(revision) && p.ready && !p.terminating => None,
            Some(p) => Some(format!(
                "pod {pod} is at revision {}{}",
                p.revision.unwrap_or("none"),
                if p.ready { "" } else { ", not ready" }
            )),
            None => Some(format!("pod {pod} does not exist")),
        }
    })
    .await
}

/// Waits until a claim exists or is gone.
pub async fn claim_presence(
    sc: &mut Scenario,
    claim: &str,
    present: bool,
    timeout: Duration,
) -> anyhow::Result<()> {
    let claim = claim.to_string();
    wait(sc, timeout, clauses::pvc_retention(), move |t| {
        let state = state_before(t, t.next_seq());
        let exists = state.claims.contains_key(claim.as_str());
        (exists != present).then(|| {
            format!(
                "claim {claim} {}",
                if exists {
                    "still exists"
                } else {
                    "does not exist"
                }
            )
        })
    })
    .await
}

/// For `hold`, the claim is never deleted (no deletion recorded from this
/// moment on, so a claim deleted and created again within the window fails)
/// and exists at the end.
pub async fn claim_kept_for(sc: &mut Scenario, claim: &str, hold: Duration) -> anyhow::Result<()> {
    let from = sc.mark_now().await.seq;
    tokio::time::sleep(hold).await;
    claim_presence(sc, claim, true, Duration::ZERO).await?;
    let t = sc.timeline().await?;
    let deleted = t.entries().iter().find(|e| {
        e.seq >= from
            && e.kind == Kind::PersistentVolumeClaim
            && e.name == claim
            && e.change == crate::history::Change::Deleted
    });
    match deleted {
        None => Ok(()),
        Some(e) => {
            let v = Violation::at_entry(
                &t,
                &clauses::pvc_retention(),
                e.seq,
                Breach::new(
                    format!("claim {claim} was deleted (and created again) within {hold:?}"),
                    vec![claim.to_string()],
                ),
            );
            super::checks::keep(sc, Err(v))
        }
    }
}

/// Waits until the set's status promotes the update revision to current
/// (the rollout-complete rule of upstream's status arithmetic).
pub async fn current_is_update(
    sc: &mut Scenario,
    set: &str,
    timeout: Duration,
) -> anyhow::Result<()> {
    let set = set.to_string();
    wait(sc, timeout, clauses::rollout_completes(), move |t| {
        let Some(update) = update_revision(t, &set) else {
            return Some(not_reported(&set));
        };
        let current = latest_set(t, &set)
            .and_then(|o| o.lookup("/status/currentRevision"))
            .and_then(Value::as_str);
        (current != Some(update)).then(|| {
            format!(
                "currentRevision {}, updateRevision {update}",
                current.unwrap_or("unset")
            )
        })
    })
    .await
}

/// Waits until every ControllerRevision the set owns is one its status
/// names (current or update revision) or one of its pods runs: what
/// upstream's `truncateHistory` keeps under `revisionHistoryLimit: 0`.
pub async fn history_only_live(
    sc: &mut Scenario,
    set: &str,
    timeout: Duration,
) -> anyhow::Result<()> {
    let set = set.to_string();
    wait(sc, timeout, clauses::revision_history_limit(), move |t| {
        let state = state_before(t, t.next_seq());
        let Some(entry) = state.sets.get(set.as_str()) else {
            return Some(format!("{set} has not been observed"));
        };
        let named = |field: &str| entry.object.lookup(field).and_then(Value::as_str);
        let status = [named("/status/currentRevision"), named("/status/updateRevision")];
        let unused: Vec<&str> = state
            .revisions
            .iter()
            .filter(|(_, e)| controlled_by(&e.object, &set))
            .map(|(name, _)| *name)
            .filter(|name| {
                !status.contains(&Some(name))
                    && !state
                        .pods
                        .values()
                        .any(|p| p.parent == Some(set.as_str()) && p.revision == Some(name))
            })
            .collect();
        (!unused.is_empty()).then(|| {
            format!(
                "ControllerRevision {} of {set} is kept though neither its status nor a pod names it",
                unused.join(", ")
            )
        })
    })
    .await
}

/// Waits until the ControllerRevision `name` has revision number `number`.
pub async fn revision_number(
    sc: &mut Scenario,
    name: &str,
    number: i64,
    timeout: Duration,
) -> anyhow::Result<()> {
    let name = name.to_string();
    wait(sc, timeout, clauses::revision_number(), move |t| {
        let state = state_before(t, t.next_seq());
        let Some(entry) = state.revisions.get(name.as_str()) else {
            return Some(format!("ControllerRevision {name} does not exist"));
        };
        match entry.object.lookup("/revision").and_then(Value::as_i64) {
            Some(n) if n == number => None,
            Some(n) => Some(format!(
                "ControllerRevision {name} has revision number {n}, not {number}"
            )),
            None => Some(format!("ControllerRevision {name} has no revision number")),
        }
    })
    .await
}

/// True when `obj`'s controller reference names the set `set`.
pub(crate) fn controlled_by(obj: &Value, set: &str) -> bool {
    obj.lookup("/metadata/ownerReferences")
        .and_then(Value::as_array)
        .is_some_and(|owners| {
            owners.iter().any(|o| {
                o.get("controller").and_then(Value::as_bool) == Some(true)
                    && o.get("name").and_then(Value::as_str) == Some(set)
            })
        })
}

/// Waits until a pod's Ready condition has the given value (the kubelet has
/// acted on a readiness-gate change).
pub async fn pod_readiness(
    sc: &mut Scenario,
    pod: &str,
    ready: bool,
    timeout: Duration,
) -> anyhow::Result<()> {
    let pod = pod.to_string();
    wait(sc, timeout, clauses::pod_state(), move |t| {
        let state = state_before(t, t.next_seq());
        match state.pods.get(pod.as_str()) {
            Some(p) if p.ready == ready => None,
            Some(_) => Some(format!(
                "pod {pod} is {}ready",
                if ready { "not " } else { "" }
            )),
            None => Some(format!("pod {pod} does not exist")),
        }
    })
    .await
}

/// Waits until the set's status counts exactly the ready pods the timeline
/// shows: the controller has observed the latest readiness changes. Steps
/// that change readiness use it so the next step acts on a settled view, as
/// a person watching `kubectl get sts` would.
pub async fn status_counts_ready(
    sc: &mut Scenario,
    set: &str,
    timeout: Duration,
) -> anyhow::Result<()> {
    let set = set.to_string();
    wait(sc, timeout, clauses::rollout_completes(), move |t| {
        let state = state_before(t, t.next_seq());
        let ready = state
            .pods_of(&set)
            .filter(|p| p.ready && !p.terminating)
            .count() as i64;
        let reported = status_int(&state, &set, "readyReplicas");
        (reported != ready)
            .then(|| format!("{set} reports {reported} ready replicas, {ready} pods are ready"))
    })
    .await
}

/// Waits until pod `pod` of the set is terminating (as the recorder saw it)
/// and the controller's status no longer counts it among the current and
/// updated replicas (which count only pods that are not terminating): a
/// change the next step relies on the controller having seen.
pub async fn pod_terminating_seen(
    sc: &mut Scenario,
    set: &str,
    pod: &str,
    timeout: Duration,
) -> anyhow::Result<()> {
    let (set, pod) = (set.to_string(), pod.to_string());
    wait(sc, timeout, clauses::pod_state(), move |t| {
        let state = state_before(t, t.next_seq());
        match state.pods.get(pod.as_str()) {
            None => return Some(format!("pod {pod} does not exist")),
            Some(p) if !p.terminating => return Some(format!("pod {pod} is not terminating")),
            Some(_) => {}
        }
        let live = state.pods_of(&set).filter(|p| !p.terminating).count() as i64;
        let counted = status_int(&state, &set, "currentReplicas")
            .max(status_int(&state, &set, "updatedReplicas"));
        (counted > live).then(|| {
            format!("pod {pod} is terminating, but the controller's status still counts {counted} current or updated replicas ({live} are not terminating)")
        })
    })
    .await
}

/// Waits until pod `pod` of the set is not ready (as the recorder saw it)
/// and the controller's status no longer counts it ready: a change the
/// next step relies on the controller having seen.
pub async fn pod_unready_seen(
    sc: &mut Scenario,
    set: &str,
    pod: &str,
    timeout: Duration,
) -> anyhow::Result<()> {
    let (set, pod) = (set.to_string(), pod.to_string());
    wait(sc, timeout, clauses::pod_state(), move |t| {
        let state = state_before(t, t.next_seq());
        match state.pods.get(pod.as_str()) {
            None => return Some(format!("pod {pod} does not exist")),
            Some(p) if p.ready => return Some(format!("pod {pod} is still ready")),
            Some(_) => {}
        }
        let ready = state.pods_of(&set).filter(|p| p.ready).count() as i64;
        let reported = status_int(&state, &set, "readyReplicas");
        (reported > ready).then(|| {
            format!("pod {pod} is not ready, but the controller's status still reports {reported} ready replicas ({ready} are)")
        })
    })
    .await
}

/// Waits until the set's status reports `replicas` replicas of which
/// `ready` are ready, and the pods agree: what a controller whose last
/// action failed must still record (upstream issue #108837).
/// Waits until the set's status observes its latest generation: the
/// controller has synced the latest spec (and whatever it did in that sync
/// is in the history).
pub async fn observed_latest_generation(
    sc: &mut Scenario,
    set: &str,
    timeout: Duration,
) -> anyhow::Result<()> {
    let set = set.to_string();
    wait(sc, timeout, clauses::status_truth(), move |t| {
        let state = state_before(t, t.next_seq());
        let object = state.sets.get(set.as_str()).map(|e| &*e.object);
        let generation = object
            .and_then(|o| o.lookup("/metadata/generation"))
            .and_then(serde_json::Value::as_i64)
            .unwrap_or(0);
        let observed = object
            .and_then(|o| o.lookup("/status/observedGeneration"))
            .and_then(serde_json::Value::as_i64)
            .unwrap_or(0);
        (observed < generation).then(|| {
            format!("{set} status observed generation {observed}, the set is at {generation}")
        })
    })
    .await
}

pub async fn status_reports(
    sc: &mut Scenario,
    set: &str,
    replicas: i64,
    ready: i64,
    timeout: Duration,
) -> anyhow::Result<()> {
    let set = set.to_string();
    wait(sc, timeout, clauses::status_truth(), move |t| {
        // Upstream's status counts a terminating pod among the replicas
        // (upstream-statefulset-facts, "Status"), ready if it still is.
        let state = state_before(t, t.next_seq());
        let pods: Vec<_> = state.pods_of(&set).collect();
        let pods_ready = pods.iter().filter(|p| p.ready).count() as i64;
        if pods.len() as i64 != replicas || pods_ready != ready {
            let terminating = pods.iter().filter(|p| p.terminating).count();
            return Some(format!(
                "{} pods of {set} exist ({terminating} terminating) and {pods_ready} are ready",
                pods.len()
            ));
        }
        let (r, rr) = (
            status_int(&state, &set, "replicas"),
            status_int(&state, &set, "readyReplicas"),
        );
        (r != replicas || rr != ready).then(|| {
            format!(
                "{set} reports {r} replicas and {rr} ready replicas; {replicas} and {ready} exist"
            )
        })
    })
    .await
}

#[cfg(test)]
mod tests;
