//! The YAML a scenario carries, checked before any cluster is touched, as
//! `kubectl --validate=strict` would check it: it must parse, every field
//! must exist in apps/v1 StatefulSet (a misspelt `updateStratgy` would
//! otherwise be dropped by the server and the scenario test something else),
//! and a set the scenario needs (Given) must decode with the right types.
//! Numbers in step text must fit the int32 fields they fill. Every problem
//! names the feature file and the line in it.

use cucumber::gherkin;
use kepspec_core::Lookup as _;
use serde_json::Value;

use super::features::InputProblem;
use crate::sim::schema as typed;
use crate::sim::schema::{builtins, ResourceInfo};

/// What a step's docstring is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Doc {
    /// A set the scenario creates and relies on: types must be right.
    Required,
    /// A set submitted to see whether the server refuses it: only its
    /// field names are checked (a wrong value may be the point).
    Submitted,
    /// A merge patch of a set: field names are checked.
    Patch,
}

fn doc_of(step: &str) -> Option<Doc> {
    if step == "a StatefulSet from this manifest:" {
        Some(Doc::Required)
    } else if step == "a StatefulSet is submitted from this manifest:" {
        Some(Doc::Submitted)
    } else if step.ends_with("with this merge patch:") {
        Some(Doc::Patch)
    } else {
        None
    }
}

fn statefulset() -> Option<ResourceInfo> {
    builtins()
        .into_iter()
        .find(|i| i.group == "apps" && i.kind == "StatefulSet")
}

/// A complete set a patch is applied to before its fields are checked.
fn base_set() -> Value {
    serde_json::json!({
        "apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "x"},
        "spec": {"selector": {"matchLabels": {"app": "x"}},
            "template": {"metadata": {"labels": {"app": "x"}},
                "spec": {"containers": [{"name": "app", "image": "x"}]}}}
    })
}

/// The problems of every step of a parsed feature; `text` is the file's
/// content (for the lines of docstrings).
pub(crate) fn check(feature: &gherkin::Feature, text: &str) -> Vec<InputProblem> {
    let path = feature
        .path
        .as_ref()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for (step, _) in super::features::steps_of(feature) {
        // Backgrounds are listed once per scenario after outline expansion.
        if !seen.insert((
            step.position.line,
            step.value.clone(),
            step.docstring.clone(),
        )) {
            continue;
        }
        if let Some(p) = out_of_range(&step.value) {
            out.push(InputProblem {
                place: format!("{path}:{}", step.position.line),
                message: p,
            });
        }
        let (Some(kind), Some(doc)) = (doc_of(&step.value), step.docstring.as_deref()) else {
            continue;
        };
        let first = docstring_first_line(&lines, step.position.line);
        // The parser keeps the newline after the opening delimiter.
        let (first, doc) = match doc.strip_prefix('\n') {
            Some(rest) => (first, rest),
            None => (first, doc),
        };
        let kruise = kruise_doc(feature, doc);
        out.extend(
            check_doc(kind, doc, kruise)
                .into_iter()
                .map(|(offset, message)| InputProblem {
                    place: format!("{path}:{}", first + offset),
                    message,
                }),
        );
    }
    out
}

/// The file line (1-based) of a docstring's first content line: the line
/// after the first `"""` or ```` ``` ```` below the step.
fn docstring_first_line(lines: &[&str], step_line: usize) -> usize {
    lines
        .iter()
        .enumerate()
        .skip(step_line)
        .find(|(_, l)| {
            let t = l.trim_start();
            t.starts_with("\"\"\"") || t.starts_with("```")
        })
        .map(|(i, _)| i + 2)
        .unwrap_or(step_line + 1)
}

/// Whether a docstring is an OpenKruise Advanced StatefulSet: a manifest
/// that says so, or a patch in a feature tagged `@kruise`.
fn kruise_doc(feature: &gherkin::Feature, doc: &str) -> bool {
    let group = crate::controller::KRUISE_GROUP;
    let said = doc.lines().any(|l| {
        l.trim_start()
            .strip_prefix("apiVersion:")
            .is_some_and(|v| v.trim().starts_with(&format!("{group}/")))
    });
    said || feature
        .tags
        .iter()
        .any(|t| t.trim_start_matches('@') == "kruise")
}

/// The structural schema of `apps.kruise.io/v1beta1 StatefulSet`, from the
/// CRD the stand-in installs (Kruise's own, chart 1.7.5).
fn kruise_schema() -> Option<Value> {
    const CRD: &str = include_str!("../../clusters/crds/apps.kruise.io_statefulsets.yaml");
    let crd: Value = crate::yaml::from_str(CRD).ok()?;
    let version = crd
        .lookup("/spec/versions")?
        .as_array()?
        .iter()
        .find(|v| v.get("name").and_then(Value::as_str) == Some("v1beta1"))?
        .as_object()?;
    crate::sim::schema::schema_of(version)
}

/// An Advanced StatefulSet docstring checked against Kruise's schema:
/// unknown fields always, value types for a set the scenario needs.
fn check_kruise_doc(kind: Doc, value: &Value, doc: &str) -> Vec<(usize, String)> {
    let Some(schema) = kruise_schema() else {
        return vec![(0, "the OpenKruise StatefulSet schema does not load".into())];
    };
    let mut whole = base_set();
    whole["apiVersion"] = Value::from("apps.kruise.io/v1beta1");
    match kind {
        Doc::Patch => json_patch::merge(&mut whole, value),
        Doc::Required | Doc::Submitted => whole = value.clone(),
    }
    let mut out: Vec<(usize, String)> = crate::sim::schema::custom_unknown_paths(&schema, &whole)
        .into_iter()
        .map(|path| {
            (
                line_of(doc, &path),
                format!("unknown field {path:?} in apps.kruise.io/v1beta1 StatefulSet (its CRD's schema would prune it)"),
            )
        })
        .collect();
    if kind == Doc::Required {
        out.extend(
            crate::sim::schema::custom_type_errors(&schema, &whole)
                .into_iter()
                .map(|e| (line_of(doc, &e.field), format!("the manifest is not a valid apps.kruise.io/v1beta1 StatefulSet: {}: {}", e.field, e.message()))),
        );
    }
    out
}

/// Problems of one docstring, each with its line offset in the docstring (0-based).
fn check_doc(kind: Doc, doc: &str, kruise: bool) -> Vec<(usize, String)> {
    let value: Value = match crate::yaml::from_str(doc) {
        Ok(v) => v,
        Err(e) => {
            let line = e.location().map_or(0, |(l, _)| l.saturating_sub(1));
            return vec![(line, format!("the docstring is not valid YAML: {e}"))];
        }
    };
    if !value.is_object() {
        return vec![(0, "the docstring is not a YAML mapping".into())];
    }
    if kruise {
        return check_kruise_doc(kind, &value, doc);
    }
    let Some(info) = statefulset() else {
        return Vec::new();
    };
    let whole = match kind {
        Doc::Patch => {
            let mut base = base_set();
            json_patch::merge(&mut base, &value);
            base
        }
        Doc::Required | Doc::Submitted => value.clone(),
    };
    let typed = match typed::round_trip(&info, &whole) {
        Some(Ok(t)) => t,
        Some(Err(e)) if kind == Doc::Required => {
            return vec![(
                0,
                format!("the manifest is not a valid StatefulSet: {}", e.message),
            )];
        }
        // A wrong value in a submitted manifest may be what the scenario
        // tests; its field names are still checked below, field by field.
        Some(Err(_)) | None => return unknown_by_shape(&whole, doc),
    };
    typed::unknown_paths(&value, &typed)
        .into_iter()
        .map(|path| (line_of(doc, &path), unknown(&path)))
        .collect()
}

fn unknown(path: &str) -> String {
    format!(
        "unknown field {path:?} in apps/v1 StatefulSet (as kubectl --validate=strict reports it)"
    )
}

/// For a manifest that does not decode: the unknown fields found by
/// decoding it with every wrong value replaced by its field's default.
fn unknown_by_shape(whole: &Value, doc: &str) -> Vec<(usize, String)> {
    let Some(info) = statefulset() else {
        return Vec::new();
    };
    let mut cleaned = whole.clone();
    strip_scalars(&mut cleaned);
    let mut base = base_set();
    json_patch::merge(&mut base, &cleaned);
    match typed::round_trip(&info, &base) {
        Some(Ok(typed)) => typed::unknown_paths(&cleaned, &typed)
            .into_iter()
            .map(|p| (line_of(doc, &p), unknown(&p)))
            .collect(),
        _ => Vec::new(),
    }
}

/// Replaces every scalar with null (null fields are not checked), keeping
/// the shape of objects and arrays of objects.
fn strip_scalars(v: &mut Value) {
    match v {
        Value::Object(m) => m.values_mut().for_each(strip_scalars),
        Value::Array(a) if a.iter().all(Value::is_object) => a.iter_mut().for_each(strip_scalars),
        _ => *v = Value::Null,
    }
}

/// The docstring line (0-based) where the field at `path` is written:
/// each segment is looked for below the line of the one before it.
fn line_of(doc: &str, path: &str) -> usize {
    let lines: Vec<&str> = doc.lines().collect();
    let mut cursor = 0;
    for seg in path.split('.') {
        let key = seg.split('[').next().unwrap_or(seg);
        let found = lines.iter().enumerate().skip(cursor).find(|(_, l)| {
            let t = l.trim_start().trim_start_matches("- ").trim_start();
            t.starts_with(&format!("{key}:"))
                || t.contains(&format!("{{{key}:"))
                || t.contains(&format!(", {key}:"))
        });
        if let Some((i, _)) = found {
            cursor = i;
        }
    }
    cursor
}

/// A number in step text too large for the int32 fields steps fill.
fn out_of_range(step: &str) -> Option<String> {
    let re = regex::Regex::new(r"-?\d+").ok()?;
    let found = re.find_iter(step).find_map(|m| {
        let fits = m
            .as_str()
            .parse::<i64>()
            .is_ok_and(|n| i32::try_from(n).is_ok());
        (!fits).then(|| {
            format!(
                "the number {} is out of range: counts in steps fill int32 fields (at most {})",
                m.as_str(),
                i32::MAX
            )
        })
    });
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use cucumber::gherkin::GherkinEnv;

    fn problems(text: &str) -> Vec<String> {
        let mut f = gherkin::Feature::parse(text, GherkinEnv::default()).unwrap();
        f.path = Some("features/x.feature".into());
        check(&f, text).into_iter().map(|p| p.to_string()).collect()
    }

    const MANIFEST: &str = "Feature: x\n  Scenario: y\n    Given a StatefulSet from this manifest:\n      \"\"\"\n      apiVersion: apps/v1\n      kind: StatefulSet\n      metadata:\n        name: web\n      spec:\n        replicas: 1\n        updateStratgy:\n          type: Recreate\n        selector:\n          matchLabels: {app: web}\n        template:\n          metadata:\n            labels: {app: web}\n          spec:\n            containers:\n              - name: app\n                image: x\n      \"\"\"\n";

    #[test]
    fn a_misspelt_field_is_named_with_the_feature_line() {
        assert_eq!(
            problems(MANIFEST),
            vec!["features/x.feature:11: unknown field \"spec.updateStratgy\" in apps/v1 StatefulSet (as kubectl --validate=strict reports it)"]
        );
    }

    #[test]
    fn invalid_yaml_is_named_with_the_feature_line() {
        let text = MANIFEST.replace("        replicas: 1\n", "        replicas: [1\n");
        let p = problems(&text);
        assert_eq!(p.len(), 1, "{p:?}");
        assert!(p[0].starts_with("features/x.feature:1"), "{p:?}");
        assert!(p[0].contains("not valid YAML"), "{p:?}");
    }

    #[test]
    fn a_yaml_error_names_the_docstring_line_and_column() {
        // Docstring line 5 (the feature's line 9), column 5: the `:` after
        // a `c` indented under the plain scalar `web`.
        let text = MANIFEST.replace("        name: web\n", "        name: web\n         c: d\n");
        assert_eq!(
            problems(&text),
            vec!["features/x.feature:9: the docstring is not valid YAML: mapping values are not allowed in this context at line 5 column 5"]
        );
    }

    #[test]
    fn a_required_set_must_decode_but_a_submitted_one_may_be_wrong() {
        let good = MANIFEST.replace("updateStratgy", "updateStrategy");
        assert!(problems(&good).is_empty());
        let wrong = good.replace("replicas: 1", "replicas: three");
        let p = problems(&wrong);
        assert!(p[0].contains("cannot unmarshal string"), "{p:?}");
        let submitted = wrong.replace(
            "Given a StatefulSet from",
            "When a StatefulSet is submitted from",
        );
        assert!(problems(&submitted).is_empty());
        let submitted_typo = submitted.replace("updateStrategy", "updateStratgy");
        assert_eq!(problems(&submitted_typo).len(), 1);
    }

    #[test]
    fn a_patch_is_checked_against_a_whole_set() {
        let text = "Feature: x\n  Scenario: y\n    When \"web\" is changed with this merge patch:\n      \"\"\"\n      spec:\n        template:\n          spec:\n            terminationGracePeriodSecond: 3\n      \"\"\"\n";
        assert_eq!(
            problems(text),
            vec!["features/x.feature:8: unknown field \"spec.template.spec.terminationGracePeriodSecond\" in apps/v1 StatefulSet (as kubectl --validate=strict reports it)"]
        );
    }

    #[test]
    fn numbers_beyond_int32_are_input_errors() {
        let text = "Feature: x\n  Scenario: y\n    Given a StatefulSet \"web\" with 99999999999999999999 replicas\n";
        let p = problems(text);
        assert_eq!(p.len(), 1);
        assert!(
            p[0].starts_with(
                "features/x.feature:3: the number 99999999999999999999 is out of range"
            ),
            "{p:?}"
        );
        assert!(out_of_range("a StatefulSet \"web\" with 3 replicas").is_none());
    }
}
