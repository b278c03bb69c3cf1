//! Checkers of what the controller reports: StatefulSet conditions and
//! events (re-exported from [`super::rules`]).

// `Violation` is the documented error of every checker.
#![allow(clippy::result_large_err)]

use super::checks::{Breach, Clause, Violation};
use super::timeline::{Change, Kind, Timeline};
use kepspec_core::Lookup as _;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// A condition expected on a StatefulSet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConditionSpec<'a> {
    /// condition type, e.g. `Progressing`.
    pub type_: &'a str,
    /// `True`, `False` or `Unknown`.
    pub status: &'a str,
    /// Expected reason, if any.
    pub reason: Option<&'a str>,
    /// Expected message, if any.
    pub message: Option<&'a str>,
}

impl ConditionSpec<'_> {
    /// True when `obj`'s status.conditions has a matching condition.
    pub fn matches(&self, obj: &Value) -> bool {
        obj.lookup("/status/conditions")
            .and_then(Value::as_array)
            .is_some_and(|cs| {
                cs.iter().any(|c| {
                    let s = |k: &str| c.get(k).and_then(Value::as_str);
                    s("type") == Some(self.type_)
                        && s("status") == Some(self.status)
                        && self.reason.is_none_or(|r| s("reason") == Some(r))
                        && self.message.is_none_or(|m| s("message") == Some(m))
                })
            })
    }

    /// `Type=Status (Reason)`, as messages name the expected condition.
    pub fn describe(&self) -> String {
        format!(
            "{}={}{}",
            self.type_,
            self.status,
            self.reason.map(|r| format!(" ({r})")).unwrap_or_default()
        )
    }
}

/// The conditions of `obj`, as `Type=Status (Reason)`.
pub(crate) fn describe_conditions(obj: &Value) -> String {
    let list: Vec<String> = obj
        .lookup("/status/conditions")
        .and_then(Value::as_array)
        .map(|cs| {
            cs.iter()
                .map(|c| {
                    let s = |k: &str| c.get(k).and_then(Value::as_str).unwrap_or("");
                    format!("{}={} ({})", s("type"), s("status"), s("reason"))
                })
                .collect()
        })
        .unwrap_or_default();
    if list.is_empty() {
        "no conditions".to_string()
    } else {
        list.join(", ")
    }
}

/// The last recorded state of StatefulSet `set` has the condition.
pub fn condition_at_end(
    t: &Timeline,
    clause: &Clause,
    set: &str,
    cond: &ConditionSpec<'_>,
) -> Result<(), Violation> {
    let last = t.of_object(Kind::StatefulSet, set).last();
    let (seq, msg) = match last {
        Some(e) if e.change != Change::Deleted && cond.matches(&e.object) => return Ok(()),
        Some(e) => (
            e.seq,
            format!("{set} has {}", describe_conditions(&e.object)),
        ),
        None => (t.next_seq(), format!("{set} was never observed")),
    };
    let msg = format!("expected condition {}; {msg}", cond.describe());
    Err(Violation::at_entry(
        t,
        clause,
        seq,
        Breach::new(msg, vec![]),
    ))
}

/// Whether `e` is a recorded state of StatefulSet `set` with the condition.
fn is_state_with(e: &super::timeline::Entry, set: &str, cond: &ConditionSpec<'_>) -> bool {
    e.kind == Kind::StatefulSet && e.name == set && cond.matches(&e.object)
}

/// Some state of StatefulSet `set` at or after `from_seq` had the condition.
pub fn condition_seen(
    t: &Timeline,
    clause: &Clause,
    from_seq: u64,
    set: &str,
    cond: &ConditionSpec<'_>,
) -> Result<(), Violation> {
    let skip = usize::try_from(from_seq).unwrap_or(usize::MAX);
    let seen = t
        .entries()
        .iter()
        .skip(skip)
        .any(|e| is_state_with(e, set, cond));
    if seen {
        return Ok(());
    }
    let msg = format!("condition {} never observed on {set}", cond.describe());
    Err(Violation::at_entry(
        t,
        clause,
        t.next_seq(),
        Breach::new(msg, vec![]),
    ))
}

/// Some state of StatefulSet `set` at or after `from_seq`, recorded before
/// the first pod of the set created after `from_seq`, had the condition: a
/// condition set in a rollout's first phase (KEP-3541's Phase 1 sets
/// `RecreateInProgress` before any pod is created again).
pub fn condition_seen_before_creation(
    t: &Timeline,
    clause: &Clause,
    from_seq: u64,
    set: &str,
    cond: &ConditionSpec<'_>,
) -> Result<(), Violation> {
    let skip = usize::try_from(from_seq).unwrap_or(usize::MAX);
    let entries = t.entries().iter().skip(skip);
    let first_created = entries
        .clone()
        .find(|e| {
            e.kind == Kind::Pod
                && e.change == Change::Added
                && super::views::ordinal_of(set, &e.name).is_some()
        })
        .map(|e| (e.seq, e.name.clone()));
    let until = first_created.as_ref().map_or(u64::MAX, |(seq, _)| *seq);
    let seen = entries
        .take_while(|e| e.seq < until)
        .any(|e| is_state_with(e, set, cond));
    if seen {
        return Ok(());
    }
    let what = format!("condition {}", cond.describe());
    let (seq, msg, pods) = match first_created {
        Some((seq, pod)) => (
            seq,
            format!("{what} was not reported on {set} before {pod} was created"),
            vec![pod],
        ),
        None => (
            t.next_seq(),
            format!("{what} never observed on {set}"),
            vec![],
        ),
    };
    Err(Violation::at_entry(t, clause, seq, Breach::new(msg, pods)))
}

/// An expected event.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct EventSpec<'a> {
    /// Event reason, e.g. `RecreateStarted`.
    pub reason: &'a str,
    /// involvedObject.name (any when `None`).
    pub involved: Option<&'a str>,
    /// `Normal` or `Warning` (any when `None`).
    pub type_: Option<&'a str>,
}

impl EventSpec<'_> {
    /// True when the event object matches (core/v1 or events.k8s.io/v1).
    pub fn matches(&self, ev: &Value) -> bool {
        let s = |p: &str| ev.lookup(p).and_then(Value::as_str);
        let involved = s("/involvedObject/name").or_else(|| s("/regarding/name"));
        s("/reason") == Some(self.reason)
            && self.involved.is_none_or(|n| involved == Some(n))
            && self.type_.is_none_or(|ty| s("/type") == Some(ty))
    }
}

/// How many times matching events occurred at or after `from_seq` (repeats
/// aggregated into one Event object count through `count`/`series.count`).
pub fn event_occurrences(t: &Timeline, from_seq: u64, spec: &EventSpec<'_>) -> usize {
    let skip = usize::try_from(from_seq).unwrap_or(usize::MAX);
    let mut counts: BTreeMap<&str, u64> = BTreeMap::new();
    for e in t.entries().iter().skip(skip) {
        if e.kind == Kind::Event && e.change != Change::Deleted && spec.matches(&e.object) {
            let n = e
                .object
                .get("count")
                .and_then(Value::as_u64)
                .or_else(|| e.object.lookup("/series/count").and_then(Value::as_u64))
                .unwrap_or(1)
                .max(1);
            let c = counts.entry(e.name.as_str()).or_insert(0);
            *c = (*c).max(n);
        }
    }
    usize::try_from(counts.values().sum::<u64>()).unwrap_or(usize::MAX)
}

/// The pod an event of `set` reports deleted or created ("delete Pod web-0
/// in StatefulSet web successful", upstream's event message), by reason.
fn pod_event<'e>(ev: &'e Value, set: &str) -> Option<(&'e str, &'e str)> {
    let s = |p: &str| ev.lookup(p).and_then(Value::as_str);
    let involved = s("/involvedObject/name").or_else(|| s("/regarding/name"))?;
    if involved != set {
        return None;
    }
    let reason = s("/reason")?;
    let verb = match reason {
        "SuccessfulDelete" => "delete Pod ",
        "SuccessfulCreate" => "create Pod ",
        _ => return None,
    };
    let message = s("/message").or_else(|| s("/note"))?;
    let pod = message.strip_prefix(verb)?.split_whitespace().next()?;
    Some((reason, pod))
}

/// KEP-3541's "Clear Events" during a Recreate: since `from_seq`, a
/// `SuccessfulDelete` event of `set` names each of `old` before any
/// `SuccessfulCreate` event names a pod, and some `SuccessfulCreate` follows
/// (the deletion phase, then the recreation phase).
pub(crate) fn deletions_then_creations(
    t: &Timeline,
    clause: &Clause,
    from_seq: u64,
    set: &str,
    old: &[String],
) -> Result<(), Violation> {
    let skip = usize::try_from(from_seq).unwrap_or(usize::MAX);
    let sets = SetReference::of(t, set);
    let mut deleted: Vec<&str> = Vec::new();
    let mut created = false;
    for e in t.entries().iter().skip(skip) {
        if e.kind != Kind::Event || e.change == Change::Deleted {
            continue;
        }
        let event = pod_event(&e.object, set);
        if let Some((reason, pod)) = event {
            let why = sets.gap(&e.object).or_else(|| {
                let type_ = e.object.get("type").and_then(Value::as_str).unwrap_or("");
                (type_ != "Normal").then(|| {
                    format!(
                        "it has type {type_:?}, where upstream records every Successful event as Normal (stateful_pod_control.go, recordPodEvent)"
                    )
                })
            });
            if let Some(why) = why {
                return Err(Violation::at_entry(
                    t,
                    clause,
                    e.seq,
                    Breach::new(
                        format!("the {reason} event of {set} about {pod}: {why}"),
                        vec![pod.to_string()],
                    ),
                ));
            }
        }
        match event {
            Some(("SuccessfulDelete", pod)) => deleted.push(pod),
            Some((_, pod)) if !created => {
                created = true;
                let missing: Vec<&str> = old
                    .iter()
                    .map(String::as_str)
                    .filter(|o| !deleted.contains(o))
                    .collect();
                if !missing.is_empty() {
                    return Err(Violation::at_entry(
                        t,
                        clause,
                        e.seq,
                        Breach::new(
                            format!(
                                "an event reported {pod} created before any event reported the deletion of {}",
                                missing.join(", ")
                            ),
                            vec![pod.to_string()],
                        ),
                    ));
                }
            }
            _ => {}
        }
    }
    let missing: Vec<&str> = old
        .iter()
        .map(String::as_str)
        .filter(|o| !deleted.contains(o))
        .collect();
    let gap = if !missing.is_empty() {
        format!(
            "no SuccessfulDelete event of {set} reported the deletion of {}",
            missing.join(", ")
        )
    } else if !created {
        format!("no SuccessfulCreate event of {set} reported the recreation")
    } else {
        return Ok(());
    };
    Err(Violation::at_entry(
        t,
        clause,
        t.next_seq().saturating_sub(1),
        Breach::new(gap, vec![]),
    ))
}

/// The first event at or after `from_seq` that matches `spec` by the set's
/// name but whose reference is not to a StatefulSet of that name as the
/// history recorded it (kind, namespace, and the uid of one of its
/// incarnations).
fn misreferenced_event(
    t: &Timeline,
    clause: &Clause,
    from_seq: u64,
    spec: &EventSpec<'_>,
    set: &str,
) -> Result<(), Violation> {
    let sets = SetReference::of(t, set);
    let skip = usize::try_from(from_seq).unwrap_or(usize::MAX);
    for e in t.entries().iter().skip(skip) {
        if e.kind != Kind::Event || e.change == Change::Deleted || !spec.matches(&e.object) {
            continue;
        }
        if let Some(why) = sets.gap(&e.object) {
            return Err(Violation::at_entry(
                t,
                clause,
                e.seq,
                Breach::new(
                    format!(
                        "event {} names {set} but {why}, so `kubectl describe statefulset {set}` does not show it",
                        spec.reason
                    ),
                    vec![],
                ),
            ));
        }
    }
    Ok(())
}

/// What an event's reference must carry to be about the StatefulSets named
/// `set`, as the history recorded them across their incarnations (a set
/// deleted and created again under the same name has a new uid): their kind,
/// namespace and uids. With no incarnation recorded only the kind is known.
struct SetReference {
    kind: String,
    /// `None` when no incarnation was recorded.
    namespace: Option<String>,
    uids: BTreeSet<String>,
}

fn str_at(v: &Value, path: &str) -> String {
    v.lookup(path)
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string()
}

impl SetReference {
    fn of(t: &Timeline, set: &str) -> Self {
        let mut states = t.of_object(Kind::StatefulSet, set).map(|e| &*e.object);
        let first = states.next();
        let kind = first
            .map(|s| str_at(s, "/kind"))
            .filter(|k| !k.is_empty())
            .unwrap_or_else(|| "StatefulSet".to_string());
        let namespace = first.map(|s| str_at(s, "/metadata/namespace"));
        let uids = first
            .into_iter()
            .chain(states)
            .map(|s| str_at(s, "/metadata/uid"))
            .collect();
        Self {
            kind,
            namespace,
            uids,
        }
    }

    /// What keeps `ev`'s reference from naming one of the incarnations, or
    /// `None` when it names one.
    fn gap(&self, ev: &Value) -> Option<String> {
        let reference = ev.get("involvedObject").or_else(|| ev.get("regarding"))?;
        let kind = str_at(reference, "/kind");
        if kind != self.kind {
            return Some(format!(
                "its reference has kind {kind:?}, not {:?}",
                self.kind
            ));
        }
        let expected_namespace = self.namespace.as_deref()?;
        let namespace = str_at(reference, "/namespace");
        if namespace != expected_namespace {
            return Some(format!(
                "its reference has namespace {namespace:?}, not {expected_namespace:?}"
            ));
        }
        let uid = str_at(reference, "/uid");
        if self.uids.contains(&uid) {
            return None;
        }
        Some(format!(
            "its reference has uid {uid:?}, which no StatefulSet of that name had"
        ))
    }
}

/// Matching events occurred at or after `from_seq`, exactly `times` times
/// when given, at least once otherwise.
///
/// Every matching event must also refer to the set the way
/// `kubectl describe statefulset` looks events up: kubectl's `searchEvents`
/// (staging/src/k8s.io/kubectl/pkg/describe/describe.go) selects
/// `involvedObject.name`, `.namespace`, `.kind` and `.uid` of the object,
/// so an event that names the set but carries another kind, namespace or
/// uid is one its users never see.
pub fn event_recorded(
    t: &Timeline,
    clause: &Clause,
    from_seq: u64,
    spec: &EventSpec<'_>,
    times: Option<usize>,
) -> Result<(), Violation> {
    if let Some(set) = spec.involved {
        misreferenced_event(t, clause, from_seq, spec, set)?;
    }
    let n = event_occurrences(t, from_seq, spec);
    let ok = match times {
        Some(k) => n == k,
        None => n > 0,
    };
    if ok {
        return Ok(());
    }
    let want = times.map_or("at least once".to_string(), |k| format!("{k} time(s)"));
    let msg = format!(
        "event {} {}expected {want}, observed {n} time(s)",
        spec.reason,
        spec.involved
            .map(|i| format!("for {i} "))
            .unwrap_or_default()
    );
    Err(Violation::at_entry(
        t,
        clause,
        t.next_seq(),
        Breach::new(msg, vec![]),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::fixture::TimelineBuilder;

    fn judge(events: &[(&str, &str)]) -> Result<(), Violation> {
        let mut b = TimelineBuilder::new();
        for (reason, pod) in events {
            let verb = if *reason == "SuccessfulDelete" {
                "delete"
            } else {
                "create"
            };
            b.event(
                "web",
                "Normal",
                reason,
                &format!("{verb} Pod {pod} in StatefulSet web successful"),
            );
        }
        let old = vec!["web-0".to_string(), "web-1".to_string()];
        deletions_then_creations(b.timeline(), &Clause::from("t"), 0, "web", &old)
    }

    #[test]
    fn events_show_every_deletion_before_any_creation() {
        let (d, c) = ("SuccessfulDelete", "SuccessfulCreate");
        assert!(judge(&[(d, "web-1"), (d, "web-0"), (c, "web-0"), (c, "web-1")]).is_ok());
        // A rolling replacement's events interleave.
        let v = judge(&[(d, "web-1"), (c, "web-1"), (d, "web-0"), (c, "web-0")]).unwrap_err();
        assert!(
            v.message
                .contains("web-1 created before any event reported the deletion of web-0"),
            "{v}"
        );
        // Deletions without events, or no recreation phase.
        let v = judge(&[(d, "web-1"), (c, "web-0")]).unwrap_err();
        assert!(v.message.contains("deletion of web-0"), "{v}");
        let v = judge(&[(d, "web-1"), (d, "web-0")]).unwrap_err();
        assert!(v.message.contains("no SuccessfulCreate event"), "{v}");
        // Claim events are not pod events.
        let v = judge(&[(d, "web-1"), (d, "web-0"), (c, "x")]);
        assert!(v.is_ok());
    }

    #[test]
    fn pod_events_are_normal_and_about_the_set() {
        let judge = |type_: &str, reference: Value| {
            let mut b = TimelineBuilder::new();
            b.set_status("web", serde_json::json!({}));
            for (reason, verb, pod) in [
                ("SuccessfulDelete", "delete", "web-0"),
                ("SuccessfulCreate", "create", "web-0"),
            ] {
                b.event_with_reference(
                    reference.clone(),
                    type_,
                    reason,
                    &format!("{verb} Pod {pod} in StatefulSet web successful"),
                );
            }
            let old = vec!["web-0".to_string()];
            deletions_then_creations(b.timeline(), &Clause::from("t"), 0, "web", &old)
        };
        let about = serde_json::json!({"kind": "StatefulSet", "name": "web", "uid": "web#1"});
        judge("Normal", about.clone()).unwrap();
        let v = judge("", about).unwrap_err();
        assert!(
            v.message
                .contains("SuccessfulDelete event of web about web-0: it has type \"\""),
            "{v}"
        );
        let v = judge(
            "Normal",
            serde_json::json!({"kind": "StatefulSet", "name": "web", "uid": "other"}),
        )
        .unwrap_err();
        assert!(
            v.message.contains("which no StatefulSet of that name had"),
            "{v}"
        );
    }

    #[test]
    fn an_event_counts_only_when_it_refers_to_the_set_as_kubectl_describe_finds_it() {
        let spec = EventSpec {
            reason: "RecreateStarted",
            involved: Some("web"),
            type_: None,
        };
        let judge = |reference: Value| {
            let mut b = TimelineBuilder::new();
            b.set_status("web", serde_json::json!({}));
            b.event_with_reference(reference, "Normal", "RecreateStarted", "");
            event_recorded(b.timeline(), &Clause::from("t"), 0, &spec, Some(1))
        };
        let mut b = TimelineBuilder::new();
        b.set_status("web", serde_json::json!({}));
        b.event("web", "Normal", "RecreateStarted", "");
        event_recorded(b.timeline(), &Clause::from("t"), 0, &spec, Some(1)).unwrap();
        let v =
            judge(serde_json::json!({"kind": "Pod", "name": "web", "uid": "web#1"})).unwrap_err();
        assert!(
            v.message.contains(r#"kind "Pod", not "StatefulSet""#),
            "{v}"
        );
        let v = judge(serde_json::json!({"name": "web", "uid": "web#1"})).unwrap_err();
        assert!(v.message.contains(r#"kind "", not "StatefulSet""#), "{v}");
        let v = judge(serde_json::json!({"kind": "StatefulSet", "name": "web"})).unwrap_err();
        assert!(v.message.contains("uid \"\", which no StatefulSet"), "{v}");
        let v = judge(serde_json::json!({"kind": "StatefulSet", "name": "web", "uid": "web#1", "namespace": "other"}))
            .unwrap_err();
        assert!(v.message.contains(r#"namespace "other", not """#), "{v}");
        assert!(
            v.message.contains("kubectl describe statefulset web"),
            "{v}"
        );
    }
}
