//! The pod rows of `kubectl get pods` (READY, STATUS, RESTARTS and the wide columns).

use serde_json::{json, Value};

use super::table::{age, human_duration, or_none, s};

fn pod_status(p: &Value) -> String {
    let st = &p["status"];
    let mut reason = st["reason"]
        .as_str()
        .or_else(|| st["phase"].as_str())
        .unwrap_or("")
        .to_string();
    let statuses = st["containerStatuses"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    for c in statuses.iter().rev() {
        if let Some(r) = c["state"]["waiting"]["reason"]
            .as_str()
            .filter(|r| !r.is_empty())
        {
            reason = r.to_string();
        } else if let Some(t) = c["state"].get("terminated") {
            reason = match t["reason"].as_str().filter(|r| !r.is_empty()) {
                Some(r) => r.to_string(),
                None if t["signal"].as_i64().unwrap_or(0) != 0 => format!("Signal:{}", t["signal"]),
                None => format!("ExitCode:{}", t["exitCode"].as_i64().unwrap_or(0)),
            };
        }
    }
    if p["metadata"].get("deletionTimestamp").is_some() {
        reason = if st["reason"] == "NodeLost" {
            "Unknown".into()
        } else {
            "Terminating".into()
        };
    }
    reason
}

pub(super) fn pod_cells(p: &Value, now: jiff::Timestamp) -> Vec<Value> {
    let total = p["spec"]["containers"].as_array().map_or(0, Vec::len);
    let statuses = p["status"]["containerStatuses"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let ready = statuses.iter().filter(|c| c["ready"] == true).count();
    let restarts: i64 = statuses
        .iter()
        .map(|c| c["restartCount"].as_i64().unwrap_or(0))
        .sum();
    let last = statuses
        .iter()
        .filter_map(|c| c["lastState"]["terminated"]["finishedAt"].as_str())
        .filter_map(|t| t.parse::<jiff::Timestamp>().ok())
        .max();
    let restarts = match last {
        Some(t) if restarts > 0 => format!(
            "{restarts} ({} ago)",
            human_duration(now.as_second() - t.as_second())
        ),
        _ => restarts.to_string(),
    };
    vec![
        json!(p["metadata"]["name"]),
        json!(format!("{ready}/{total}")),
        json!(pod_status(p)),
        json!(restarts),
        json!(age(&p["metadata"]["creationTimestamp"], now)),
        json!(or_none(s(&p["status"]["podIP"]))),
        json!(or_none(s(&p["spec"]["nodeName"]))),
        json!(or_none(s(&p["status"]["nominatedNodeName"]))),
        json!(readiness_gates(p)),
    ]
}

/// `<none>` or `<true gates>/<gates>`, as kubectl's wide pod listing.
fn readiness_gates(p: &Value) -> String {
    let gates: Vec<&str> = p["spec"]["readinessGates"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|g| g["conditionType"].as_str())
        .collect();
    if gates.is_empty() {
        return "<none>".into();
    }
    let conds = p["status"]["conditions"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let ok = gates
        .iter()
        .filter(|g| {
            conds
                .iter()
                .any(|c| c["type"] == **g && c["status"] == "True")
        })
        .count();
    format!("{ok}/{}", gates.len())
}
