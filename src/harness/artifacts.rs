//! What a failed scenario leaves for its reader: the last recorded state of
//! the StatefulSet, its pods, claims, ControllerRevisions and the events, as
//! YAML files, next to the report (as `kubectl get -o yaml` would show them
//! at the end of the scenario).

use std::path::Path;

use crate::history::views::state_before;
use crate::history::Timeline;

/// Writes `statefulsets.yaml`, `pods.yaml`, `persistentvolumeclaims.yaml`,
/// `controllerrevisions.yaml`, `events.yaml` and `timeline.txt` into `dir`.
pub(crate) fn write(dir: &Path, t: &Timeline) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let state = state_before(t, t.next_seq());
    let list = |items: Vec<&serde_json::Value>| -> std::io::Result<String> {
        let doc = serde_json::json!({ "apiVersion": "v1", "kind": "List", "items": items });
        crate::yaml::to_string(&doc).map_err(std::io::Error::other)
    };
    let files = [
        (
            "statefulsets.yaml",
            list(state.sets.values().map(|e| &*e.object).collect())?,
        ),
        (
            "pods.yaml",
            list(state.pods.values().map(|p| &*p.entry.object).collect())?,
        ),
        (
            "persistentvolumeclaims.yaml",
            list(state.claims.values().map(|e| &*e.object).collect())?,
        ),
        (
            "controllerrevisions.yaml",
            list(state.revisions.values().map(|e| &*e.object).collect())?,
        ),
        (
            "events.yaml",
            list(state.events.values().map(|e| &*e.object).collect())?,
        ),
    ];
    for (name, text) in files {
        std::fs::write(dir.join(name), text)?;
    }
    // Numbered as failure messages name entries (`timeline entry #64`).
    let lines: Vec<String> = t
        .entries()
        .iter()
        .map(|e| format!("#{} {}", e.seq, Timeline::render_line(e)))
        .collect();
    std::fs::write(dir.join("timeline.txt"), lines.join("\n") + "\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::fixture::TimelineBuilder;

    #[test]
    fn writes_the_final_objects_as_yaml_lists() {
        let mut b = TimelineBuilder::new();
        b.ready_set("web", 2, "web-aaa");
        b.at(1.0).delete_pod("web-1");
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), &b.build()).unwrap();
        let pods: serde_json::Value =
            crate::yaml::from_str(&std::fs::read_to_string(dir.path().join("pods.yaml")).unwrap())
                .unwrap();
        let names: Vec<&str> = pods["items"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|p| p["metadata"]["name"].as_str())
            .collect();
        assert_eq!(names, vec!["web-0"]);
        assert!(std::fs::read_to_string(dir.path().join("timeline.txt"))
            .unwrap()
            .contains("web-1"));
    }
}
