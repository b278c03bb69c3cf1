//! Tests of profile parsing, checks and field mapping.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::json;

use super::super::*;
use super::tags;

// ---- profile errors -----------------------------------------------------

const GOOD: &str = "apiVersion: kepspec.io/v1alpha1
kind: TargetProfile
metadata: {name: demo}
spec:
  resource: {group: example.com, version: v1, kind: Set, plural: sets}
";

fn parse(text: &str) -> Result<Profile, ProfileError> {
    Profile::parse(text, Path::new("clusters/targets/x.yaml"))
}

fn err(text: &str) -> String {
    parse(text).unwrap_err().to_string()
}

#[test]
fn a_minimal_profile_takes_the_defaults() {
    let p = parse(GOOD).unwrap();
    assert_eq!(p.name(), "demo");
    assert_eq!(p.api_resource().api_version, "example.com/v1");
    assert!(p.selection().is_none() && p.fields().is_empty());
    assert!(!p.has_stand_in());
    assert!(p.crds().unwrap().is_empty());
    assert_eq!(p.kind_config(), Path::new("clusters/kind/upstream.yaml"));
    assert_eq!(
        p.source.as_deref(),
        Some(Path::new("clusters/targets/x.yaml"))
    );
}

#[test]
fn a_missing_field_is_named_with_file_path_and_place() {
    let text = GOOD.replace("kind: Set, ", "");
    let e = parse(&text).unwrap_err();
    assert_eq!(e.file, Path::new("clusters/targets/x.yaml"));
    assert!(e.location.is_some());
    let msg = e.to_string();
    assert!(msg.starts_with("clusters/targets/x.yaml:5:"), "{msg}");
    assert!(msg.contains("spec.resource: missing field `kind`"), "{msg}");
}

#[test]
fn unknown_fields_are_named() {
    let msg = err(&format!("{GOOD}  supports: {{tagz: \"@base\"}}\n"));
    assert!(msg.contains("spec.supports: unknown field `tagz`"), "{msg}");
    let msg = err(&format!("{GOOD}  conditionReasons: {{}}\n"));
    assert!(
        msg.contains("spec: unknown field `conditionReasons`"),
        "{msg}"
    );
    let msg = err(&GOOD.replace(
        "metadata: {name: demo}",
        "metadata: {name: demo, labels: {}}",
    ));
    assert!(msg.contains("metadata: unknown field `labels`"), "{msg}");
}

#[test]
fn bad_yaml_has_a_line_and_column() {
    let e = parse("apiVersion: kepspec.io/v1alpha1\nkind: [TargetProfile\n").unwrap_err();
    let (line, _) = e.location.expect("a location");
    assert!(line >= 2, "{e}");
    assert!(
        e.to_string()
            .starts_with(&format!("clusters/targets/x.yaml:{line}:")),
        "{e}"
    );
}

#[test]
fn checks_name_the_field_at_fault() {
    let cases: Vec<(String, &str)> = vec![
        (
            GOOD.replace("kepspec.io/v1alpha1", "v1"),
            "apiVersion: expected `kepspec.io/v1alpha1`",
        ),
        (
            GOOD.replace("TargetProfile", "Profile"),
            "kind: expected `TargetProfile`",
        ),
        (
            GOOD.replace("name: demo", "name: Demo_1"),
            "metadata.name: `Demo_1` is not a DNS label",
        ),
        (
            GOOD.replace("kind: Set", "kind: set"),
            "spec.resource.kind: `set` is not a Kind",
        ),
        (
            GOOD.replace("version: v1", "version: ''"),
            "spec.resource.version: must not be empty",
        ),
        (
            format!("{GOOD}  supports: {{tags: \"@a and\"}}\n"),
            "spec.supports.tags: invalid tag expression `@a and`",
        ),
        (
            format!("{GOOD}  supports: {{exclude: [{{scenario: \"(\", reason: r}}]}}\n"),
            "spec.supports.exclude[0].scenario: invalid regex",
        ),
        (
            format!("{GOOD}  supports: {{exclude: [{{scenario: x, reason: ''}}]}}\n"),
            "spec.supports.exclude[0].reason: say why",
        ),
        (
            format!("{GOOD}  install: [[]]\n"),
            "spec.install[0]: a command needs at least a program",
        ),
        (
            format!("{GOOD}  install: [[kubectl, --kubeconfig, \"${{KUBE_CONFIG}}\"]]\n"),
            "spec.install[0][2]: `${KUBE_CONFIG}`: unknown placeholder",
        ),
        (
            format!("{GOOD}  ready: {{command: [kubectl], timeoutSeconds: 0}}\n"),
            "spec.ready.timeoutSeconds: must be at least 1",
        ),
        (
            format!("{GOOD}  fields: {{metadata.name: spec.name}}\n"),
            "spec.fields.\"metadata.name\": `metadata.name` must start with `spec.` or `status.`",
        ),
        (
            format!("{GOOD}  fields: {{spec.a: spec.x, spec.a.b: spec.y}}\n"),
            "spec.fields.\"spec.a\": overlaps `spec.a.b`",
        ),
        (
            format!("{GOOD}  reasons: {{A: ''}}\n"),
            "spec.reasons.A: reasons must not be empty",
        ),
        (
            format!("{GOOD}  standIn: {{crds: []}}\n"),
            "spec.standIn.crds: name at least one",
        ),
    ];
    for (text, expected) in cases {
        let msg = err(&text);
        assert!(
            msg.starts_with("clusters/targets/x.yaml: ") && msg.contains(expected),
            "expected `{expected}` in `{msg}`"
        );
    }
}

#[test]
fn crds_must_serve_the_profile_resource() {
    let dir = tempfile::tempdir().unwrap();
    let crd = |group: &str| {
        format!(
            "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {{name: sets.{group}}}\nspec:\n  group: {group}\n  scope: Namespaced\n  names: {{kind: Set, plural: sets}}\n  versions: [{{name: v1, served: true, storage: true}}]\n"
        )
    };
    std::fs::write(dir.path().join("other.yaml"), crd("other.io")).unwrap();
    std::fs::write(
        dir.path().join("both.yaml"),
        format!("{}---\n{}", crd("other.io"), crd("example.com")),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("bad.yaml"),
        "apiVersion: v1\nkind: ConfigMap\n",
    )
    .unwrap();
    // The profile stands in a folder of its own; its CRD paths are relative
    // to it, wherever kepspec runs.
    let with = |file: &str| {
        Profile::parse(
            &format!("{GOOD}  standIn: {{crds: [../{file}]}}\n"),
            &dir.path().join("profiles").join("x.yaml"),
        )
        .unwrap()
    };
    let e = with("other.yaml").crds().unwrap_err().to_string();
    assert!(
        e.contains("spec.standIn.crds: no CustomResourceDefinition serves example.com/v1 Set"),
        "{e}"
    );
    assert_eq!(with("both.yaml").crds().unwrap().len(), 2);
    let e = with("bad.yaml").crds().unwrap_err().to_string();
    assert!(
        e.contains("bad.yaml: expected apiVersion apiextensions.k8s.io/v1"),
        "{e}"
    );
    let e = with("none.yaml").crds().unwrap_err().to_string();
    assert!(e.contains("none.yaml: cannot read"), "{e}");
}

#[test]
fn a_yaml_error_in_a_crd_manifest_names_file_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let crd = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: sets.example.com}\nspec:\n  group: example.com\n  scope: Namespaced\n  names: {kind: Set, plural: sets}\n  versions: [{name: v1, served: true, storage: true}]\n";
    // The second document's `names` mapping is indented one space short.
    let broken = format!("{crd}---\n{}", crd.replace("  names:", " names:"));
    std::fs::write(dir.path().join("broken.yaml"), broken).unwrap();
    let p = Profile::parse(
        &format!("{GOOD}  standIn: {{crds: [broken.yaml]}}\n"),
        &dir.path().join("x.yaml"),
    )
    .unwrap();
    let e = p.crds().unwrap_err();
    assert_eq!(e.file, dir.path().join("broken.yaml"));
    assert_eq!(e.location, Some((16, 2)), "{e}");
    assert_eq!(
        e.to_string(),
        format!(
            "{}:16:2: while parsing a block mapping, did not find expected key",
            dir.path().join("broken.yaml").display()
        )
    );
}

#[test]
fn selection_combines_with_the_users_tags_and_exclusions_say_why() {
    let p = parse(&format!(
        "{GOOD}  supports:\n    tags: \"@base\"\n    exclude: [{{scenario: \"^slow \", reason: too slow}}]\n"
    ))
    .unwrap();
    assert_eq!(p.selection_with(None).as_deref(), Some("@base"));
    assert_eq!(
        p.selection_with(Some("@identity or @scaling")).as_deref(),
        Some("(@base) and (@identity or @scaling)")
    );
    assert_eq!(
        Profile::bundled().selection_with(Some("@x")).as_deref(),
        Some("@x")
    );
    assert!(p.claims_tags(&tags(&["@base", "@identity"])));
    assert!(p.claims_tags(&tags(&["base"])));
    assert!(!p.claims_tags(&tags(&["kep-961"])));
    assert_eq!(p.exclusion("slow scaling"), Some("too slow"));
    assert_eq!(p.exclusion("fast scaling"), None);
    let facts = ClusterFacts {
        embedded: true,
        version: Version::new(1, 37),
        version_source: "test".into(),
        gates: FeatureGates::default(),
    };
    assert_eq!(
        p.skip_reason("slow scaling", &tags(&["base"]), &facts)
            .as_deref(),
        Some("not claimed by target demo: too slow")
    );
    assert_eq!(
        p.skip_reason("fast scaling", &tags(&["base"]), &facts),
        None
    );
}

// ---- field mapping --------------------------------------------------------

#[test]
fn fields_move_to_the_target_and_back() {
    let p = parse(&format!(
        "{GOOD}  fields:\n    spec.updateStrategy.rollingUpdate.maxUnavailable: spec.rollout.budget\n    status.readyReplicas: status.ready\n"
    ))
    .unwrap();
    let apps = json!({
        "apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "web"},
        "spec": {"replicas": 3, "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 2, "partition": 1}}},
        "status": {"readyReplicas": 3}
    });
    let vendor = p.to_target(apps.clone());
    assert_eq!(vendor["apiVersion"], "example.com/v1");
    assert_eq!(vendor["kind"], "Set");
    assert_eq!(vendor["spec"]["rollout"]["budget"], 2);
    assert_eq!(
        vendor["spec"]["updateStrategy"]["rollingUpdate"],
        json!({"partition": 1})
    );
    assert_eq!(vendor["status"], json!({"ready": 3}));
    let back = p.from_target(vendor);
    assert_eq!(back["spec"], apps["spec"]);
    assert_eq!(back["status"], apps["status"]);
    // A merge patch has no apiVersion/kind and gets none.
    let patch = p.to_target(
        json!({"spec": {"updateStrategy": {"rollingUpdate": {"maxUnavailable": null}}}}),
    );
    assert_eq!(patch, json!({"spec": {"rollout": {"budget": null}}}));
    assert_eq!(
        p.fields()
            .pointer_to_target("/spec/updateStrategy/rollingUpdate/maxUnavailable"),
        "/spec/rollout/budget"
    );
    assert_eq!(
        p.fields().pointer_to_target("/spec/replicas"),
        "/spec/replicas"
    );
}

#[test]
fn a_blocked_destination_leaves_the_field_in_place() {
    let map: BTreeMap<String, String> = [("spec.a".to_string(), "spec.b.c".to_string())].into();
    let fields = FieldMap::new(&map).unwrap();
    let mut obj = json!({"spec": {"a": 1, "b": "scalar"}});
    fields.to_target(&mut obj);
    assert_eq!(obj, json!({"spec": {"a": 1, "b": "scalar"}}));
    let mut obj = json!({"spec": {"x": 1}});
    fields.to_target(&mut obj);
    assert_eq!(
        obj,
        json!({"spec": {"x": 1}}),
        "absent fields are left alone"
    );
}
