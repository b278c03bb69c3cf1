//! What the swimlane picture shows of the StatefulSets themselves: their
//! status counts and their `Progressing` condition over time, and which
//! revision is the old one and which the new (pure functions of a
//! timeline).

use crate::history::{Kind, Timeline};
use serde_json::Value;
use std::collections::HashMap;
use std::time::Duration;

/// One stretch of time over which a set's reported value stayed the same.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Segment {
    /// When the value was first reported.
    pub from: Duration,
    /// When it changed (`None`: it held to the end).
    pub to: Option<Duration>,
    /// The short text drawn in the lane.
    pub label: String,
    /// The whole value, for the tooltip.
    pub title: String,
    /// For a condition, its `status` (`True`, `False`, `Unknown`).
    pub status: Option<String>,
}

/// The lanes of one set: its status counts and its Progressing condition
/// (empty when the set never reported one).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct SetLanes {
    /// metadata.name of the set.
    pub name: String,
    /// The status counts as they changed.
    pub status: Vec<Segment>,
    /// The Progressing condition as it changed.
    pub progressing: Vec<Segment>,
}

fn int(v: &Value, key: &str) -> i64 {
    v.get(key).and_then(Value::as_i64).unwrap_or(0)
}

fn status_segment(set: &Value) -> (String, String) {
    let st = &set["status"];
    let desired = set["spec"]["replicas"].as_i64().unwrap_or(1);
    let label = format!(
        "ready {}/{desired} · updated {} · available {}",
        int(st, "readyReplicas"),
        int(st, "updatedReplicas"),
        int(st, "availableReplicas")
    );
    let title = format!(
        "replicas {}, readyReplicas {}, availableReplicas {}, currentReplicas {}, updatedReplicas {}, currentRevision {}, updateRevision {}, observedGeneration {} (generation {})",
        int(st, "replicas"),
        int(st, "readyReplicas"),
        int(st, "availableReplicas"),
        int(st, "currentReplicas"),
        int(st, "updatedReplicas"),
        st["currentRevision"].as_str().unwrap_or("none"),
        st["updateRevision"].as_str().unwrap_or("none"),
        int(st, "observedGeneration"),
        int(&set["metadata"], "generation"),
    );
    (label, title)
}

fn progressing(set: &Value) -> Option<(String, String, String)> {
    let c = set["status"]["conditions"]
        .as_array()?
        .iter()
        .find(|c| c["type"] == "Progressing")?;
    let status = c["status"].as_str().unwrap_or("Unknown").to_string();
    let reason = c["reason"].as_str().unwrap_or_default();
    let label = if reason.is_empty() {
        status.clone()
    } else {
        format!("{status} {reason}")
    };
    let title = format!(
        "Progressing={status} reason={reason} message={}",
        c["message"].as_str().unwrap_or_default()
    );
    Some((label, title, status))
}

/// Appends a segment when the value differs from the open one, closing it.
/// A condition's segment lasts while its status and reason do (its message
/// may change within one); a status segment while every count does.
fn push(segs: &mut Vec<Segment>, at: Duration, value: Option<(String, String, Option<String>)>) {
    let same = match (segs.last(), &value) {
        (Some(last), Some((label, title, status))) if last.to.is_none() => {
            if status.is_some() {
                &last.label == label
            } else {
                &last.title == title
            }
        }
        (Some(last), None) => last.to.is_some(),
        (None, None) => true,
        _ => false,
    };
    if same {
        return;
    }
    if let Some(last) = segs.last_mut().filter(|l| l.to.is_none()) {
        last.to = Some(at);
    }
    if let Some((label, title, status)) = value {
        segs.push(Segment {
            from: at,
            to: None,
            label,
            title,
            status,
        });
    }
}

/// The lanes of every set in the timeline, in order of first appearance.
pub(crate) fn set_lanes(t: &Timeline) -> Vec<SetLanes> {
    let mut out: Vec<SetLanes> = Vec::new();
    for e in t.of_kind(Kind::StatefulSet) {
        let i = match out.iter().position(|l| l.name == e.name) {
            Some(i) => i,
            None => {
                out.push(SetLanes {
                    name: e.name.clone(),
                    status: Vec::new(),
                    progressing: Vec::new(),
                });
                out.len() - 1
            }
        };
        let lanes = &mut out[i];
        if e.change == crate::history::Change::Deleted {
            push(&mut lanes.status, e.at, None);
            push(&mut lanes.progressing, e.at, None);
            continue;
        }
        let (label, title) = status_segment(&e.object);
        push(&mut lanes.status, e.at, Some((label, title, None)));
        let cond = progressing(&e.object).map(|(l, t, s)| (l, t, Some(s)));
        push(&mut lanes.progressing, e.at, cond);
    }
    out
}

/// The part each revision played in the run, by revision name: the set's
/// first current revision is `old`, its last update revision `new`; any
/// other revision a set reported is `intermediate`.
pub(crate) fn revision_roles(t: &Timeline) -> HashMap<String, &'static str> {
    let mut first_current: HashMap<&str, &str> = HashMap::new();
    let mut last_update: HashMap<&str, &str> = HashMap::new();
    let mut seen: Vec<&str> = Vec::new();
    for e in t.of_kind(Kind::StatefulSet) {
        let st = &e.object["status"];
        for key in ["currentRevision", "updateRevision"] {
            if let Some(r) = st[key].as_str().filter(|r| !r.is_empty()) {
                if !seen.contains(&r) {
                    seen.push(r);
                }
            }
        }
        if let Some(r) = st["currentRevision"].as_str().filter(|r| !r.is_empty()) {
            first_current.entry(e.name.as_str()).or_insert(r);
        }
        if let Some(r) = st["updateRevision"].as_str().filter(|r| !r.is_empty()) {
            last_update.insert(e.name.as_str(), r);
        }
    }
    let mut roles = HashMap::new();
    for r in seen {
        let old = first_current.values().any(|x| *x == r);
        let new = last_update.values().any(|x| *x == r);
        let role = match (old, new) {
            (true, true) => "old and new",
            (true, false) => "old",
            (false, true) => "new",
            (false, false) => "intermediate",
        };
        roles.insert(r.to_string(), role);
    }
    roles
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::fixture::TimelineBuilder;
    use serde_json::json;

    #[test]
    fn status_segments_change_only_when_the_status_does() {
        let mut b = TimelineBuilder::new();
        b.set_status(
            "web",
            json!({"readyReplicas": 1, "currentRevision": "web-a", "updateRevision": "web-a"}),
        );
        b.at(1.0).set_status(
            "web",
            json!({"readyReplicas": 1, "currentRevision": "web-a", "updateRevision": "web-a"}),
        );
        b.at(2.0).set_status(
            "web",
            json!({"readyReplicas": 0, "currentRevision": "web-a", "updateRevision": "web-b",
                "conditions": [{"type": "Progressing", "status": "True", "reason": "RolloutInProgress"}]}),
        );
        b.at(3.0).set_status(
            "web",
            json!({"readyReplicas": 1, "updatedReplicas": 1, "currentRevision": "web-b", "updateRevision": "web-b"}),
        );
        let t = b.build();
        let lanes = set_lanes(&t);
        assert_eq!(lanes.len(), 1);
        let status = &lanes[0].status;
        assert_eq!(status.len(), 3, "{status:?}");
        assert_eq!(status[0].to, Some(Duration::from_secs(2)));
        assert!(
            status[1].label.starts_with("ready 0/"),
            "{}",
            status[1].label
        );
        assert!(status[2].title.contains("updateRevision web-b"));
        let p = &lanes[0].progressing;
        assert_eq!(p.len(), 1, "{p:?}");
        assert_eq!(p[0].label, "True RolloutInProgress");
        assert_eq!(
            (p[0].from, p[0].to),
            (Duration::from_secs(2), Some(Duration::from_secs(3)))
        );
        let roles = revision_roles(&t);
        assert_eq!(roles.get("web-a"), Some(&"old"));
        assert_eq!(roles.get("web-b"), Some(&"new"));
    }

    #[test]
    fn a_revision_set_aside_in_the_middle_is_intermediate() {
        let mut b = TimelineBuilder::new();
        b.set_status(
            "web",
            json!({"currentRevision": "web-a", "updateRevision": "web-b"}),
        );
        b.at(1.0).set_status(
            "web",
            json!({"currentRevision": "web-a", "updateRevision": "web-c"}),
        );
        let roles = revision_roles(&b.build());
        assert_eq!(roles.get("web-a"), Some(&"old"));
        assert_eq!(roles.get("web-b"), Some(&"intermediate"));
        assert_eq!(roles.get("web-c"), Some(&"new"));
    }
}
