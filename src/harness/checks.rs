//! Checks over a scenario's whole recorded history, each tied to the clause
//! it encodes. Each failure is kept on the scenario for the report's picture.

use kepspec_core::Lookup as _;
use std::time::Duration;

use serde_json::Value;

use super::clauses;
use super::scenario::{Mark, Scenario};
use super::waits::{rollout_gap_in, update_revision};
use crate::history::checks::Breach;
use crate::history::rules::{self, ConditionSpec, DeletionMark, EventSpec};
use crate::history::views::{ordinal_of, pod_lives, scan, state_before};
use crate::history::{Change, Kind, SetScope, Timeline, Violation};
use std::ops::ControlFlow;

/// Records the first violation of a scenario and turns it into its error.
pub(crate) fn keep(sc: &mut Scenario, result: Result<(), Violation>) -> anyhow::Result<()> {
    result.map_err(|v| {
        let err = anyhow::anyhow!("{v}");
        if sc.last_violation.is_none() {
            sc.last_violation = Some(v);
        }
        err
    })
}

/// The set's scope (replicas, ordinals, minReadySeconds) from its latest recorded spec.
pub fn scope_of(t: &Timeline, set: &str) -> SetScope {
    let obj = t
        .of_object(Kind::StatefulSet, set)
        .last()
        .map(|e| &*e.object);
    let int = |p: &str| obj.and_then(|o| o.lookup(p)).and_then(Value::as_i64);
    let mut scope = SetScope::new(set, int("/spec/replicas").unwrap_or(1) as i32);
    scope.ordinal_start = int("/spec/ordinals/start").unwrap_or(0) as i32;
    // Availability counts from the Ready condition's lastTransitionTime, as
    // controllers count it (see `history::views::State`).
    let min_ready = int("/spec/minReadySeconds").unwrap_or(0).max(0) as u64;
    scope.min_ready = Duration::from_secs(min_ready);
    scope.reserved = obj
        .map(crate::history::views::reserved_ordinals)
        .unwrap_or_default();
    scope
}

/// KEP-3541: no pod of the update revision was created while a pod of another revision existed.
pub async fn no_mixed_revisions(sc: &mut Scenario) -> anyhow::Result<()> {
    let t = sc.timeline().await?;
    let sets: Vec<String> = sc.sets.keys().cloned().collect();
    if sets.is_empty() {
        anyhow::bail!("the scenario created no StatefulSet; nothing to check");
    }
    for set in sets {
        // Every creation since the first change (or the scenario's later
        // mark) counts, whatever its revision: a rollback mid-Recreate must
        // not mix either.
        let from = sc.baseline(&t);
        let result =
            rules::no_mixed_revisions(&t, &clauses::recreate_no_mixing(), from, &set, None);
        keep(sc, result)?;
    }
    Ok(())
}

/// KEP-3541: every pod of `set` created since the first change (or the
/// scenario's later mark) is of the update revision the set ended at.
pub async fn created_only_at_final_revision(sc: &mut Scenario, set: &str) -> anyhow::Result<()> {
    let t = sc.timeline().await?;
    let from = sc.baseline(&t);
    let state = state_before(&t, t.next_seq());
    let Some(update) = state
        .sets
        .get(set)
        .and_then(|e| e.object.lookup("/status/updateRevision"))
        .and_then(serde_json::Value::as_str)
        .map(str::to_string)
    else {
        anyhow::bail!("{set} reports no update revision; nothing to check");
    };
    let result = rules::created_only_at(
        &t,
        &clauses::recreate_creates_update_revision(),
        from,
        set,
        &update,
    );
    keep(sc, result)
}

/// KEP-3541: every claim of the set that existed before the first change kept its uid.
pub async fn claims_kept(sc: &mut Scenario, set: &str) -> anyhow::Result<()> {
    let t = sc.timeline().await?;
    let from = sc.baseline(&t);
    let claims = state_before(&t, from)
        .claims
        .keys()
        .filter(|n| rules::is_claim_of(set, n))
        .count();
    if claims == 0 {
        // A check over nothing proves nothing.
        anyhow::bail!(
            "{set} had no PersistentVolumeClaims before the first change; nothing to check"
        );
    }
    keep(
        sc,
        rules::claims_kept_uid(&t, &clauses::pvc_preservation(), from, Some(set)),
    )
}

/// Every pod of the set that existed at the first change was terminating
/// before any of them was gone: the deletion was issued for all at once.
pub async fn deleted_all_at_once(sc: &mut Scenario, set: &str) -> anyhow::Result<()> {
    let t = sc.timeline().await?;
    let from = sc.baseline(&t);
    let old: Vec<String> = state_before(&t, from)
        .pods_of(set)
        .map(|p| p.name().to_string())
        .collect();
    if old.is_empty() {
        anyhow::bail!("{set} had no pods before the first change; nothing to check");
    }
    let mut pending: Vec<&str> = old.iter().map(String::as_str).collect();
    let uids: Vec<String> = state_before(&t, from)
        .pods_of(set)
        .map(|p| p.uid().to_string())
        .collect();
    for e in t
        .entries()
        .iter()
        .filter(|e| e.seq >= from && e.kind == Kind::Pod && uids.contains(&e.uid))
    {
        if e.pod_facts().terminating || e.change == Change::Deleted {
            pending.retain(|n| *n != e.name);
        }
        if e.change == Change::Deleted && !pending.is_empty() {
            let breach = Breach::new(
                format!(
                    "{} was gone while {} had not been deleted yet",
                    e.name,
                    pending.join(", ")
                ),
                pending.iter().map(|s| s.to_string()).collect(),
            );
            let violation =
                Violation::at_entry(&t, &clauses::recreate_deletes_all(), e.seq, breach);
            return keep(sc, Err(violation));
        }
    }
    if !pending.is_empty() {
        let breach = Breach::new(format!("{} never deleted", pending.join(", ")), vec![]);
        return keep(
            sc,
            Err(Violation::at_entry(
                &t,
                &clauses::recreate_deletes_all(),
                t.next_seq(),
                breach,
            )),
        );
    }
    Ok(())
}

/// Pods were created (first appearance after the first change) in this order.
pub async fn created_in_order(sc: &mut Scenario, names: &[String]) -> anyhow::Result<()> {
    let t = sc.timeline().await?;
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    keep(
        sc,
        rules::created_in_order(&t, &clauses::ordered_creation(), sc.baseline(&t), &names),
    )
}

/// Pods were deleted (deletion requested) in this order.
pub async fn deleted_in_order(sc: &mut Scenario, names: &[String]) -> anyhow::Result<()> {
    let t = sc.timeline().await?;
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    keep(
        sc,
        rules::deleted_in_order(
            &t,
            &clauses::ordered_deletion(),
            sc.baseline(&t),
            &names,
            DeletionMark::Requested,
        ),
    )
}

/// OrderedReady: every pod was created only once its predecessors were
/// Running and Ready (and, with `wait` Available, for minReadySeconds).
pub async fn created_after_predecessors(
    sc: &mut Scenario,
    set: &str,
    wait: rules::PredecessorWait,
) -> anyhow::Result<()> {
    let t = sc.timeline().await?;
    let scope = scope_of(&t, set);
    keep(
        sc,
        rules::created_after_predecessors_ready(&t, &clauses::ordered_creation(), 0, &scope, wait),
    )
}

/// At no moment since the first change were more than `max` pods unavailable.
pub async fn at_most_unavailable(sc: &mut Scenario, set: &str, max: usize) -> anyhow::Result<()> {
    at_most_unavailable_under(sc, set, max, clauses::max_unavailable()).await
}

/// [`at_most_unavailable`], naming `clause` when it fails.
pub async fn at_most_unavailable_under(
    sc: &mut Scenario,
    set: &str,
    max: usize,
    clause: crate::history::Clause,
) -> anyhow::Result<()> {
    let t = sc.timeline().await?;
    let scope = scope_of(&t, set);
    keep(
        sc,
        rules::at_most_unavailable(&t, &clause, sc.baseline(&t), &scope, max),
    )
}

/// The set's observedGeneration never went down.
pub async fn observed_generation_monotonic(sc: &mut Scenario, set: &str) -> anyhow::Result<()> {
    let t = sc.timeline().await?;
    keep(
        sc,
        rules::observed_generation_monotonic(&t, &clauses::observed_generation(), set),
    )
}

/// The set had the condition at some moment since the first change (or a
/// condition the target declares in its place).
pub async fn condition_seen(
    sc: &mut Scenario,
    set: &str,
    type_: &str,
    status: &str,
    reason: &str,
) -> anyhow::Result<()> {
    condition_seen_by(sc, set, type_, status, reason, rules::condition_seen).await
}

/// [`condition_seen`], in a state recorded before the first pod of the set
/// was created since the first change.
pub async fn condition_seen_before_creation(
    sc: &mut Scenario,
    set: &str,
    type_: &str,
    status: &str,
    reason: &str,
) -> anyhow::Result<()> {
    condition_seen_by(
        sc,
        set,
        type_,
        status,
        reason,
        rules::condition_seen_before_creation,
    )
    .await
}

type ConditionRule = fn(
    &crate::history::Timeline,
    &crate::history::Clause,
    u64,
    &str,
    &ConditionSpec<'_>,
) -> Result<(), crate::history::Violation>;

async fn condition_seen_by(
    sc: &mut Scenario,
    set: &str,
    type_: &str,
    status: &str,
    reason: &str,
    rule: ConditionRule,
) -> anyhow::Result<()> {
    let t = sc.timeline().await?;
    let from = sc.baseline(&t);
    let spec = ConditionSpec {
        type_,
        status,
        reason: Some(reason),
        message: None,
    };
    let kep = rule(&t, &clauses::progressing_condition(), from, set, &spec);
    if kep.is_ok() {
        return keep(sc, kep);
    }
    let alternatives = super::deviations::condition(&sc.env.profile, type_, status, reason);
    for a in &alternatives {
        let alt = ConditionSpec {
            type_,
            status: &a.status,
            reason: Some(&a.reason),
            message: a.message.as_deref(),
        };
        if rule(&t, &clauses::progressing_condition(), from, set, &alt).is_ok() {
            sc.deviations.push(a.label.clone());
            return Ok(());
        }
    }
    let labels: Vec<String> = alternatives.iter().map(|a| a.label.clone()).collect();
    keep(
        sc,
        kep.map_err(|mut v| {
            v.message = format!("{}; {}", v.message, super::deviations::declared(&labels));
            v
        }),
    )
}

/// An event with this reason about the set was recorded since the first
/// change (exactly `times` times when given), or what the target declares
/// in its place.
pub async fn event_recorded(
    sc: &mut Scenario,
    set: &str,
    reason: &str,
    times: Option<usize>,
) -> anyhow::Result<()> {
    let t = sc.timeline().await?;
    let from = sc.baseline(&t);
    let spec = EventSpec {
        reason,
        involved: Some(set),
        type_: None,
    };
    let clause = clauses::event_of(reason);
    let kep = rules::event_recorded(&t, &clause, from, &spec, times);
    if kep.is_ok() {
        return keep(sc, kep);
    }
    let alternative = super::deviations::event(&sc.env.profile, reason);
    if let Some((label, target)) = &alternative {
        let ok = match target {
            // Declared as not emitted: none may be.
            None => rules::event_occurrences(&t, from, &spec) == 0,
            Some(other) => {
                let alt = EventSpec {
                    reason: other,
                    involved: Some(set),
                    type_: None,
                };
                rules::event_recorded(&t, &clause, from, &alt, times).is_ok()
            }
        };
        if ok {
            sc.deviations.push(label.clone());
            return Ok(());
        }
    }
    let labels: Vec<String> = alternative.into_iter().map(|(l, _)| l).collect();
    keep(
        sc,
        kep.map_err(|mut v| {
            v.message = format!("{}; {}", v.message, super::deviations::declared(&labels));
            v
        }),
    )
}

/// An event with this reason about the set was recorded at most `times`
/// times since the first change (a declared alternative counts instead).
pub async fn event_at_most(
    sc: &mut Scenario,
    set: &str,
    reason: &str,
    times: usize,
) -> anyhow::Result<()> {
    let t = sc.timeline().await?;
    let from = sc.baseline(&t);
    let reason_used = match super::deviations::event(&sc.env.profile, reason) {
        Some((_, Some(other))) => other,
        _ => reason.to_string(),
    };
    let spec = EventSpec {
        reason: &reason_used,
        involved: Some(set),
        type_: None,
    };
    let n = rules::event_occurrences(&t, from, &spec);
    if n <= times {
        return Ok(());
    }
    let v = Violation::at_entry(
        &t,
        &clauses::event_of(reason),
        t.next_seq(),
        Breach::new(
            format!("event {reason_used} for {set} expected at most {times} time(s), observed {n} time(s)"),
            vec![],
        ),
    );
    keep(sc, Err(v))
}

/// The first violation `check` finds for any StatefulSet of the history.
fn first_for_each_set(
    t: &Timeline,
    check: impl Fn(&Timeline, &crate::history::Clause, &str) -> Result<(), Violation>,
) -> Option<Violation> {
    let mut sets: Vec<&str> = t
        .entries()
        .iter()
        .filter(|e| e.kind == Kind::StatefulSet)
        .map(|e| e.name.as_str())
        .collect();
    sets.sort_unstable();
    sets.dedup();
    sets.into_iter()
        .find_map(|set| check(t, &clauses::status_truth(), set).err())
}

/// Every status of every set in the history was true of its pods when it
/// was written (`history::status_truth`): checked after every scenario.
pub fn status_lies(t: &Timeline) -> Option<Violation> {
    first_for_each_set(t, crate::history::status_truth::status_truthful)
}

/// Some set's status did not catch up with pods that rested for
/// [`crate::history::status_quiet::QUIET`].
pub fn status_lags(t: &Timeline) -> Option<Violation> {
    first_for_each_set(t, crate::history::status_quiet::converges_when_quiet)
}

/// The last refused request was refused with `code` and a message holding
/// `text` (or the wording the target declares in its place).
pub fn refused(sc: &mut Scenario, code: u16, text: &str) -> anyhow::Result<()> {
    let Some(r) = &sc.last_refusal else {
        anyhow::bail!("the request was accepted; expected a refusal with code {code}");
    };
    if r.code == Some(code) && r.message.contains(text) {
        return Ok(());
    }
    let alternative = super::deviations::refusal(&sc.env.profile, text);
    if let Some((label, other)) = &alternative {
        if r.code == Some(code) && r.message.contains(other.as_str()) {
            sc.deviations.push(label.clone());
            return Ok(());
        }
    }
    let labels: Vec<String> = alternative.into_iter().map(|(l, _)| l).collect();
    anyhow::bail!(
        "the spec expects code {code} and a message containing {text:?}; {}; got code {:?}: {}",
        super::deviations::declared(&labels),
        r.code,
        r.message
    )
}

/// No pod of the set was deleted, and none created, since the mark `from`.
pub async fn pods_untouched(sc: &mut Scenario, set: &str, from: Mark) -> anyhow::Result<()> {
    pods_untouched_citing(sc, set, from, None).await
}

/// [`pods_untouched`], citing `clause`, or else what holds the pods still
/// when the window begins.
pub async fn pods_untouched_citing(
    sc: &mut Scenario,
    set: &str,
    from: Mark,
    clause: Option<crate::history::Clause>,
) -> anyhow::Result<()> {
    let t = sc.timeline().await?;
    let from = from.resolve(&t);
    // The promise a quiet window checks depends on what holds the pods
    // still when it begins: a partition, OnDelete, a waiting rollout, ...
    let clause =
        clause.unwrap_or_else(|| super::context::held(&state_before(&t, from), set).clause());
    let result = crate::history::checks::never(&t, &clause, from, |_, e| {
        if e.kind != Kind::Pod || ordinal_of(set, &e.name).is_none() {
            return None;
        }
        match e.change {
            Change::Added => Some(Breach::new(
                format!("{} was created", e.name),
                vec![e.name.clone()],
            )),
            Change::Deleted => Some(Breach::new(
                format!("{} was deleted", e.name),
                vec![e.name.clone()],
            )),
            Change::Modified if e.pod_facts().terminating => Some(Breach::new(
                format!("{} was deleted", e.name),
                vec![e.name.clone()],
            )),
            Change::Modified => None,
        }
    });
    keep(sc, result)
}

/// Pod `pod` keeps the uid it had at the mark `from` and is not deleted.
pub async fn pod_kept(sc: &mut Scenario, pod: &str, from: Mark) -> anyhow::Result<()> {
    let t = sc.timeline().await?;
    let from = from.resolve(&t);
    let Some(uid) = state_before(&t, from)
        .pods
        .get(pod)
        .map(|p| p.uid().to_string())
    else {
        anyhow::bail!("pod {pod} did not exist when the checked span began; nothing to check");
    };
    // A pod below the partition is kept by the partition; any other by the
    // rollout waiting on a pod that is not ready.
    let set = crate::history::views::split_ordinal(pod).map(|(s, o)| (s.to_string(), o));
    let partition = set.as_ref().and_then(|(s, _)| {
        latest(&t, Kind::StatefulSet, s)?
            .lookup("/spec/updateStrategy/rollingUpdate/partition")?
            .as_i64()
    });
    let recreate = set.as_ref().is_some_and(|(s, _)| {
        latest(&t, Kind::StatefulSet, s).is_some_and(|o| {
            o.lookup("/spec/updateStrategy/type")
                .and_then(Value::as_str)
                == Some("Recreate")
        })
    });
    let in_place = set.as_ref().is_some_and(|(s, _)| {
        latest(&t, Kind::StatefulSet, s).is_some_and(|o| {
            o.lookup("/spec/updateStrategy/rollingUpdate/podUpdatePolicy")
                .and_then(Value::as_str)
                .is_some_and(|p| p.starts_with("InPlace"))
        })
    });
    let clause = match (set, partition) {
        _ if in_place => clauses::in_place_clause(),
        _ if recreate => clauses::recreate_old_revision_only(),
        (Some((_, o)), Some(p)) if i64::from(o) < p => clauses::partition(),
        _ => clauses::rolling_update_stuck(),
    };
    let result = crate::history::checks::never(&t, &clause, from, |_, e| {
        (e.kind == Kind::Pod
            && e.name == pod
            && (e.uid != uid || e.change == Change::Deleted || e.pod_facts().terminating))
            .then(|| {
                Breach::new(
                    format!("{pod} (uid {uid}) was deleted or replaced"),
                    vec![pod.to_string()],
                )
            })
    });
    keep(sc, result)
}

/// Pods below the partition kept their uid and were never deleted.
pub async fn partition_untouched(
    sc: &mut Scenario,
    set: &str,
    partition: i32,
) -> anyhow::Result<()> {
    let t = sc.timeline().await?;
    keep(
        sc,
        rules::partition_untouched(&t, &clauses::partition(), sc.baseline(&t), set, partition),
    )
}

/// KEP-3541's SLO: the update completed within the longest termination of
/// an old pod plus the longest startup (creation to Ready) of a new pod plus
/// `slack`, all measured on the recorded history.
pub async fn completed_within_slo(
    sc: &mut Scenario,
    set: &str,
    slack: Duration,
) -> anyhow::Result<()> {
    let t = sc.timeline().await?;
    let from = sc.baseline(&t);
    let start = t.get(from).map(|e| e.at).unwrap_or_default();
    let clause = clauses::recreate_slo();
    let done = scan(&t, from, |state, e| {
        if rollout_gap_in(state, set, None).is_none() {
            ControlFlow::Break(e)
        } else {
            ControlFlow::Continue(())
        }
    });
    let Some(done) = done else {
        let breach = Breach::new("the update never completed".to_string(), vec![]);
        return keep(
            sc,
            Err(Violation::at_entry(&t, &clause, t.next_seq(), breach)),
        );
    };
    let lives: Vec<_> = pod_lives(&t)
        .into_iter()
        .filter(|l| ordinal_of(set, &l.name).is_some())
        .collect();
    let termination = lives
        .iter()
        .filter_map(|l| Some(l.gone?.saturating_sub(l.terminating?)))
        .max()
        .unwrap_or_default();
    let startup = lives
        .iter()
        .filter(|l| l.first_seq >= from)
        .filter_map(|l| Some(l.ready.first()?.0.saturating_sub(l.created)))
        .max()
        .unwrap_or_default();
    let took = done.at.saturating_sub(start);
    let bound = termination + startup + slack;
    if took <= bound {
        return Ok(());
    }
    let breach = Breach::new(
        format!(
            "the update took {:.1}s; termination {:.1}s + startup {:.1}s + {:.0}s allows {:.1}s",
            took.as_secs_f64(),
            termination.as_secs_f64(),
            startup.as_secs_f64(),
            slack.as_secs_f64(),
            bound.as_secs_f64()
        ),
        vec![],
    );
    keep(sc, Err(Violation::at_entry(&t, &clause, done.seq, breach)))
}

/// No pod of the set's update revision was created since the mark `from`.
pub async fn none_at_update_revision(
    sc: &mut Scenario,
    set: &str,
    from: Mark,
) -> anyhow::Result<()> {
    let t = sc.timeline().await?;
    let from = from.resolve(&t);
    let Some(revision) = update_revision(&t, set).map(str::to_string) else {
        anyhow::bail!("{set} does not report the update revision of its current generation");
    };
    // Recreate holds new pods back while old ones exist; otherwise what
    // holds the set's pods when the window begins (a partition, a waiting
    // rollout, a claim being deleted, ...).
    let recreate = latest(&t, Kind::StatefulSet, set)
        .and_then(|o| o.lookup("/spec/updateStrategy/type").cloned())
        .is_some_and(|v| v == "Recreate");
    let clause = if recreate {
        clauses::recreate_no_mixing()
    } else {
        super::context::held(&state_before(&t, from), set).clause()
    };
    let result = crate::history::checks::never(&t, &clause, from, |_, e| {
        (e.kind == Kind::Pod
            && e.change == Change::Added
            && ordinal_of(set, &e.name).is_some()
            && e.pod_facts().revision == Some(revision.as_str()))
        .then(|| {
            Breach::new(
                format!("{} of the update revision {revision} was created", e.name),
                vec![e.name.clone()],
            )
        })
    });
    keep(sc, result)
}

/// The largest number of the set's pods unavailable at once since the first
/// change, each moment judged against the spec in force at that moment (as
/// [`rules::at_most_unavailable`] judges it), not the final one.
pub fn peak_unavailable(t: &Timeline, scope: &SetScope, from: u64) -> (usize, u64) {
    let mut peak = (0, from);
    let _: Option<()> = scan(t, from, |state, e| {
        let n = state.unavailable_in(&state.scope_of(scope));
        if n > peak.0 {
            peak = (n, e.seq);
        }
        ControlFlow::Continue(())
    });
    peak
}

/// At some moment since the first change, `n` pods of the set were
/// unavailable at once: the budget was used, not only respected.
pub async fn budget_used(sc: &mut Scenario, set: &str, n: usize) -> anyhow::Result<()> {
    let t = sc.timeline().await?;
    let scope = scope_of(&t, set);
    let (peak, seq) = peak_unavailable(&t, &scope, sc.baseline(&t));
    if peak == n {
        return Ok(());
    }
    let breach = Breach::new(
        format!("at most {peak} pods were unavailable at once, expected {n} at some moment"),
        vec![],
    );
    keep(
        sc,
        Err(Violation::at_entry(
            &t,
            &clauses::max_unavailable(),
            seq,
            breach,
        )),
    )
}

/// Pods below the partition kept their uid since the first change.
pub async fn below_partition_untouched(
    sc: &mut Scenario,
    set: &str,
    partition: i32,
) -> anyhow::Result<()> {
    partition_untouched(sc, set, partition).await
}

/// A pod (as it is at the end) runs the set's update revision (or, with
/// `update` false, the set's current revision).
pub async fn pod_revision(
    sc: &mut Scenario,
    pod: &str,
    set: &str,
    update: bool,
) -> anyhow::Result<()> {
    let t = sc.timeline().await?;
    let obj = t
        .entries()
        .iter()
        .rev()
        .find(|e| e.kind == Kind::StatefulSet && e.name == set)
        .map(|e| e.object.clone());
    let field = if update {
        "/status/updateRevision"
    } else {
        "/status/currentRevision"
    };
    let want = obj
        .as_ref()
        .and_then(|o| o.lookup(field))
        .and_then(Value::as_str)
        .map(str::to_string);
    let state = state_before(&t, t.next_seq());
    let have = state
        .pods
        .get(pod)
        .and_then(|p| p.revision)
        .map(str::to_string);
    match (want, have) {
        (Some(w), Some(h)) if w == h => Ok(()),
        (w, h) => anyhow::bail!(
            "pod {pod} runs revision {}, expected the {} revision {}",
            h.unwrap_or_else(|| "(no pod)".into()),
            if update { "update" } else { "current" },
            w.unwrap_or_else(|| "(unknown)".into())
        ),
    }
}

/// The latest recorded state of an object.
pub fn latest(t: &Timeline, kind: Kind, name: &str) -> Option<Value> {
    t.entries()
        .iter()
        .rev()
        .find(|e| e.kind == kind && e.name == name)
        .filter(|e| e.change != Change::Deleted)
        .map(|e| Value::clone(&e.object))
}

/// A field of the latest recorded state of an object, as text.
pub fn field(t: &Timeline, kind: Kind, name: &str, pointer: &str) -> Option<String> {
    let v = latest(t, kind, name)?;
    match v.lookup(pointer)? {
        Value::String(s) => Some(s.clone()),
        Value::Null => None,
        other => Some(other.to_string()),
    }
}

/// Checks that a field of the latest state of an object has a value.
pub async fn field_is(
    sc: &mut Scenario,
    kind: Kind,
    name: &str,
    pointer: &str,
    want: &str,
) -> anyhow::Result<()> {
    let t = sc.timeline().await?;
    match field(&t, kind, name, pointer) {
        Some(have) if have == want => Ok(()),
        have => anyhow::bail!(
            "{} {name}: {pointer} is {}, expected {want:?}",
            kind.word(),
            have.map(|h| format!("{h:?}"))
                .unwrap_or_else(|| "unset".into())
        ),
    }
}

/// Checks that a field of the latest state of an object is absent.
pub async fn field_unset(
    sc: &mut Scenario,
    kind: Kind,
    name: &str,
    pointer: &str,
) -> anyhow::Result<()> {
    let t = sc.timeline().await?;
    if latest(&t, kind, name).is_none() {
        anyhow::bail!("{} {name} was not observed", kind.word());
    }
    match field(&t, kind, name, pointer) {
        None => Ok(()),
        Some(v) => anyhow::bail!(
            "{} {name}: {pointer} is {v:?}, expected it unset",
            kind.word()
        ),
    }
}

/// No Warning event about the set was recorded in the whole scenario.
pub async fn no_warning_events(sc: &mut Scenario, set: &str) -> anyhow::Result<()> {
    let t = sc.timeline().await?;
    let clause = clauses::skew_no_warnings();
    let result = crate::history::checks::never(&t, &clause, 0, |_, e| {
        let o = &e.object;
        let warning = e.kind == Kind::Event
            && o.get("type").and_then(Value::as_str) == Some("Warning")
            && o.lookup("/involvedObject/name").and_then(Value::as_str) == Some(set);
        warning.then(|| {
            let reason = o.get("reason").and_then(Value::as_str).unwrap_or("");
            let message = o.get("message").and_then(Value::as_str).unwrap_or("");
            Breach::new(format!("Warning {reason}: {message}"), vec![])
        })
    });
    keep(sc, result)
}

/// No ControllerRevision of the set was created since the first change
/// (only a template change makes one).
pub async fn no_revision_created(sc: &mut Scenario, set: &str) -> anyhow::Result<()> {
    let t = sc.timeline().await?;
    let from = sc.baseline(&t);
    let prefix = format!("{set}-");
    let result = crate::history::checks::never(
        &t,
        &clauses::no_rollout_without_template_change(),
        from,
        |_, e| {
            (e.kind == Kind::ControllerRevision
                && e.change == Change::Added
                && e.name.starts_with(&prefix))
            .then(|| Breach::new(format!("ControllerRevision {} was created", e.name), vec![]))
        },
    );
    keep(sc, result)
}

/// From the baseline on, the set never reported another current revision
/// than `revision` (a partition keeps the pods below it at the revision
/// they had, however many template changes follow).
pub async fn current_revision_kept(
    sc: &mut Scenario,
    set: &str,
    revision: &str,
) -> anyhow::Result<()> {
    let t = sc.timeline().await?;
    let from = sc.baseline(&t);
    let result = crate::history::checks::no_entry(
        &t,
        &clauses::partition_keeps_lower_ordinals(),
        from,
        |e| {
            if e.kind != Kind::StatefulSet || e.name != set {
                return None;
            }
            let reported = e
                .object
                .lookup("/status/currentRevision")
                .and_then(Value::as_str)?;
            (reported != revision).then(|| {
                Breach::new(
                    format!("{set} reported current revision {reported}, expected {revision}"),
                    vec![],
                )
            })
        },
    );
    keep(sc, result)
}

/// From the baseline on, no pod of the set carried `revision` (a
/// ControllerRevision whose data is not the set's template).
pub async fn revision_never_run(
    sc: &mut Scenario,
    set: &str,
    revision: &str,
) -> anyhow::Result<()> {
    let t = sc.timeline().await?;
    let from = sc.baseline(&t);
    let prefix = format!("{set}-");
    let result =
        crate::history::checks::no_entry(&t, &clauses::revision_name_collision(), from, |e| {
            (e.kind == Kind::Pod
                && e.name.starts_with(&prefix)
                && e.pod_facts().revision == Some(revision))
            .then(|| {
                Breach::new(
                    format!(
                        "pod {} carries revision {revision}, whose data is another template",
                        e.name
                    ),
                    vec![e.name.clone()],
                )
            })
        });
    keep(sc, result)
}

/// From the baseline on, no ControllerRevision of the set was deleted while
/// its status named it (current or update revision) or a pod of the set
/// that was not terminating ran it.
pub async fn live_revisions_kept(sc: &mut Scenario, set: &str) -> anyhow::Result<()> {
    let t = sc.timeline().await?;
    let from = sc.baseline(&t);
    let result =
        crate::history::checks::never(&t, &clauses::revision_history_limit(), from, |s, e| {
            if e.kind != Kind::ControllerRevision
                || e.change != Change::Deleted
                || !super::waits::controlled_by(&e.object, set)
            {
                return None;
            }
            let name = e.name.as_str();
            let named_by_status = s.sets.get(set).is_some_and(|entry| {
                ["/status/currentRevision", "/status/updateRevision"]
                    .iter()
                    .any(|f| entry.object.lookup(f).and_then(Value::as_str) == Some(name))
            });
            let runners: Vec<String> = s
                .pods
                .iter()
                .filter(|(_, p)| {
                    p.parent == Some(set) && p.revision == Some(name) && !p.terminating
                })
                .map(|(pod, _)| pod.to_string())
                .collect();
            if named_by_status || !runners.is_empty() {
                let by = if runners.is_empty() {
                    format!("{set}'s status names it")
                } else {
                    format!("{} still run it", runners.join(", "))
                };
                Some(Breach::new(
                    format!("ControllerRevision {name} was deleted while {by}"),
                    runners,
                ))
            } else {
                None
            }
        });
    keep(sc, result)
}

/// Over the whole history, every ControllerRevision of the set got its
/// revision number, when created or when a rollback reused it, one above
/// the highest of the set's other revisions then (upstream's
/// `nextRevision`); a number no one changed is not judged again.
pub async fn revision_numbers_next(sc: &mut Scenario, set: &str) -> anyhow::Result<()> {
    let t = sc.timeline().await?;
    let mut numbers: std::collections::BTreeMap<&str, i64> = Default::default();
    let result = crate::history::checks::no_entry(&t, &clauses::revision_number(), 0, |e| {
        if e.kind != Kind::ControllerRevision || !super::waits::controlled_by(&e.object, set) {
            return None;
        }
        let name = e.name.as_str();
        if e.change == Change::Deleted {
            numbers.remove(name);
            return None;
        }
        let number = e.object.lookup("/revision").and_then(Value::as_i64)?;
        if numbers.insert(name, number) == Some(number) {
            return None;
        }
        let highest = numbers
            .iter()
            .filter(|(other, _)| **other != name)
            .map(|(_, n)| *n)
            .max()
            .unwrap_or(0);
        (number != highest + 1).then(|| {
            Breach::new(
                format!(
                    "ControllerRevision {name} got revision number {number}; the highest of {set}'s other revisions was {highest}, so the next number is {}",
                    highest + 1
                ),
                vec![],
            )
        })
    });
    keep(sc, result)
}

/// A pacing rule of `crate::history::pacing`, judged over the rollout to
/// the set's current update revision.
type PacingRule =
    fn(&Timeline, &crate::history::Clause, u64, &SetScope, &str) -> Result<(), Violation>;

async fn rollout_paced(sc: &mut Scenario, set: &str, rule: PacingRule) -> anyhow::Result<()> {
    let t = sc.timeline().await?;
    let Some(revision) = update_revision(&t, set).map(str::to_string) else {
        anyhow::bail!("{set} does not report the update revision of its current generation");
    };
    let scope = scope_of(&t, set);
    let result = rule(
        &t,
        &clauses::max_unavailable(),
        sc.baseline(&t),
        &scope,
        &revision,
    );
    keep(sc, result)
}

/// KEP-3541 "Clear Events": since the scenario's change, the set's events
/// reported every pod it had then deleted, before any pod created.
pub async fn deletions_then_creations(sc: &mut Scenario, set: &str) -> anyhow::Result<()> {
    let t = sc.timeline().await?;
    let from = sc.baseline(&t);
    let state = crate::history::views::state_before(&t, from);
    let mut old: Vec<String> = state.pods_of(set).map(|p| p.name().to_string()).collect();
    old.sort();
    if old.is_empty() {
        anyhow::bail!("{set} had no pod when the scenario's change began");
    }
    let result = crate::history::signals::deletions_then_creations(
        &t,
        &clauses::recreate_events(),
        from,
        set,
        &old,
    );
    keep(sc, result)
}

/// KEP-3541: some status written since the scenario's change reported no
/// available and no ready replica.
pub async fn reported_downtime(sc: &mut Scenario, set: &str) -> anyhow::Result<()> {
    let t = sc.timeline().await?;
    let result = crate::history::status_truth::reported_downtime(
        &t,
        &clauses::recreate_downtime(),
        sc.baseline(&t),
        set,
    );
    keep(sc, result)
}

/// KEP-961 with OrderedReady: no pod of the set terminated out of order
/// during the rollout to the current update revision.
pub async fn terminated_in_order(sc: &mut Scenario, set: &str) -> anyhow::Result<()> {
    rollout_paced(sc, set, crate::history::pacing::terminated_in_order).await
}

/// KEP-961 with Parallel: the budget was refilled before the earlier
/// replacements were all available.
pub async fn budget_refilled(sc: &mut Scenario, set: &str) -> anyhow::Result<()> {
    rollout_paced(
        sc,
        set,
        crate::history::pacing::budget_refilled_continuously,
    )
    .await
}

/// OrderedReady: each of `names` was gone before the next one was deleted.
pub async fn deleted_one_after_another(sc: &mut Scenario, names: &[String]) -> anyhow::Result<()> {
    let t = sc.timeline().await?;
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    keep(
        sc,
        crate::history::pacing::deleted_one_after_another(
            &t,
            &clauses::ordered_termination(),
            sc.baseline(&t),
            &refs,
        ),
    )
}

/// Parallel: some two pods of the set were terminating at once.
pub async fn deleted_concurrently(sc: &mut Scenario, set: &str) -> anyhow::Result<()> {
    let t = sc.timeline().await?;
    keep(
        sc,
        crate::history::pacing::deleted_concurrently(
            &t,
            &clauses::parallel_termination(),
            sc.baseline(&t),
            set,
        ),
    )
}

/// Every claim of the set that was bound before the first change stayed
/// bound to the same volume.
pub async fn claims_kept_volume(sc: &mut Scenario, set: &str) -> anyhow::Result<()> {
    let t = sc.timeline().await?;
    let from = sc.baseline(&t);
    let before: Vec<(String, String)> = state_before(&t, from)
        .claims
        .iter()
        .filter(|(n, _)| rules::is_claim_of(set, n))
        .filter_map(|(n, e)| {
            Some((
                n.to_string(),
                e.object.lookup("/spec/volumeName")?.as_str()?.to_string(),
            ))
        })
        .collect();
    if before.is_empty() {
        anyhow::bail!(
            "{set} had no bound PersistentVolumeClaims before the first change; nothing to check"
        );
    }
    let result = crate::history::checks::never(&t, &clauses::pvc_preservation(), from, |_, e| {
        if e.kind != Kind::PersistentVolumeClaim {
            return None;
        }
        let (_, volume) = before.iter().find(|(n, _)| *n == e.name)?;
        let now = e.object.lookup("/spec/volumeName").and_then(Value::as_str);
        let phase = e.object.lookup("/status/phase").and_then(Value::as_str);
        (e.change == Change::Deleted || now != Some(volume.as_str()) || phase != Some("Bound"))
            .then(|| {
                Breach::new(
                    format!(
                        "claim {} left volume {volume} (now {}, phase {})",
                        e.name,
                        now.unwrap_or("none"),
                        phase.unwrap_or("none")
                    ),
                    vec![],
                )
            })
    });
    keep(sc, result)
}

/// The KEP-3541 draft: every replacement waited for each higher ordinal to
/// be Ready at its revision (the draft's sequence), or, with `safety`, for
/// the highest ordinal to be Ready (the draft's Safety SLO).
pub async fn enforced_order(sc: &mut Scenario, set: &str, safety: bool) -> anyhow::Result<()> {
    use crate::history::sequence;
    let t = sc.timeline().await?;
    let scope = scope_of(&t, set);
    let from = sc.baseline(&t);
    let result = if safety {
        sequence::no_replacement_below_unready_highest(
            &t,
            &clauses::enforced_safety(),
            from,
            &scope,
        )
    } else {
        sequence::replaced_in_sequence(&t, &clauses::enforced_sequence(), from, &scope)
    };
    keep(sc, result)
}
