//! Tests of the CI recipe: ci/github-actions.yml runs the spec through the
//! GitHub Action (action.yml, `uses: ./`) on targets and node images kepspec
//! accepts, and uploads the report also when scenarios fail. The
//! `kepspec run` the action executes (ci/action.sh) is parsed with the
//! command line for every row of the matrix in tests/action.rs.

use serde_json::Value;

use super::super::gating::Version;
use super::super::*;
use super::root;

// ---- the CI recipe ---------------------------------------------------------

#[test]
fn the_github_workflow_runs_the_action_on_targets_kepspec_accepts() {
    let text = std::fs::read_to_string(root().join("ci/github-actions.yml")).unwrap();
    let wf: Value = crate::yaml::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
    assert!(wf["on"].get("push").is_some() && wf["on"].get("pull_request").is_some());
    for (job_name, job) in wf["jobs"].as_object().unwrap() {
        let matrix = &job["strategy"]["matrix"];
        let steps = job["steps"].as_array().unwrap();
        // The action runs kepspec; no step of the workflow does.
        assert!(
            steps.iter().any(|s| s["uses"] == "./"),
            "{job_name}: no step uses the action"
        );
        assert!(
            steps
                .iter()
                .filter_map(|s| s["run"].as_str())
                .all(|script| !script.contains("kepspec run")),
            "{job_name}: `kepspec run` belongs in ci/action.sh"
        );
        // Targets and node images agree with what kepspec accepts.
        for t in matrix["target"].as_array().into_iter().flatten() {
            let t = t.as_str().unwrap();
            Profile::resolve(&t.parse().unwrap()).unwrap();
        }
        for inc in matrix["include"].as_array().into_iter().flatten() {
            if let (Some(k), Some(img)) = (inc["kubernetes"].as_str(), inc["node-image"].as_str()) {
                assert_eq!(Version::of_node_image(img), Version::parse(k).ok(), "{img}");
            }
        }
        let upload = steps
            .iter()
            .find(|s| {
                s["uses"]
                    .as_str()
                    .is_some_and(|u| u.starts_with("actions/upload-artifact@"))
            })
            .expect("the report is uploaded");
        assert_eq!(upload["with"]["path"], "out/");
        assert!(upload["if"]
            .as_str()
            .is_some_and(|c| c.contains("always()")));
    }
}
