//! Conversion between the two served forms of Events: `events.k8s.io/v1`
//! Events are stored as core/v1 Events (one storage, as upstream), so both
//! APIs see the same objects.

use serde_json::{json, Map, Value};

use super::resources::ResourceInfo;

/// `(events.k8s.io/v1 field, core/v1 field)` pairs that only differ in name.
const RENAMED: &[(&str, &str)] = &[
    ("regarding", "involvedObject"),
    ("note", "message"),
    ("reportingController", "reportingComponent"),
    ("deprecatedSource", "source"),
    ("deprecatedFirstTimestamp", "firstTimestamp"),
    ("deprecatedLastTimestamp", "lastTimestamp"),
    ("deprecatedCount", "count"),
];

/// Whether `info` is the `events.k8s.io` view of core Events.
pub(crate) fn is_events_v1(info: &ResourceInfo) -> bool {
    info.group == "events.k8s.io" && info.plural == "events"
}

fn rename(
    obj: &Value,
    pairs: impl Iterator<Item = (&'static str, &'static str)>,
) -> Map<String, Value> {
    let mut m = obj.as_object().cloned().unwrap_or_default();
    for (from, to) in pairs {
        if let Some(v) = m.remove(from) {
            m.insert(to.to_string(), v);
        }
    }
    m
}

/// A stored core/v1 Event as `events.k8s.io/v1`.
pub(crate) fn core_to_events_v1(core: &Value) -> Value {
    let mut m = rename(core, RENAMED.iter().map(|(v1, c)| (*c, *v1)));
    m.insert("apiVersion".into(), json!("events.k8s.io/v1"));
    m.insert("kind".into(), json!("Event"));
    Value::Object(m)
}

/// An `events.k8s.io/v1` Event in its stored core/v1 form.
pub(crate) fn events_v1_to_core(ev: &Value) -> Value {
    let mut m = rename(ev, RENAMED.iter().copied());
    m.insert("apiVersion".into(), json!("v1"));
    m.insert("kind".into(), json!("Event"));
    Value::Object(m)
}

/// The stored (core/v1) name of an `events.k8s.io/v1` field path, for field selectors.
pub(crate) fn core_field(field: &str) -> String {
    for (v1, core) in RENAMED {
        if field == *v1 {
            return core.to_string();
        }
        if let Some(rest) = field.strip_prefix(&format!("{v1}.")) {
            return format!("{core}.{rest}");
        }
    }
    field.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_keeps_every_field() {
        let core = json!({"apiVersion": "v1", "kind": "Event", "metadata": {"name": "e"},
            "involvedObject": {"kind": "Pod", "name": "web-0"}, "message": "m", "reason": "Created",
            "source": {"component": "kubelet"}, "count": 2, "type": "Normal", "reportingComponent": "x"});
        let v1 = core_to_events_v1(&core);
        assert_eq!(v1["regarding"]["name"], "web-0");
        assert_eq!(v1["note"], "m");
        assert_eq!(v1["deprecatedCount"], 2);
        assert_eq!(v1["apiVersion"], "events.k8s.io/v1");
        assert_eq!(events_v1_to_core(&v1), core);
        assert_eq!(core_field("regarding.name"), "involvedObject.name");
        assert_eq!(core_field("reason"), "reason");
    }
}
