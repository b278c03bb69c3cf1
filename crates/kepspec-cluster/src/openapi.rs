//! OpenAPI v3 schemas of the built-in kinds, for `/openapi/v3/<group
//! version>`'s `components.schemas`, as kube-apiserver publishes them:
//! every definition named by its Go package path
//! (`io.k8s.api.apps.v1.StatefulSet`), with the field descriptions of the
//! Go types, references as `#/components/schemas/<name>` (a described
//! reference wrapped in `allOf`), and each kind's own schema carrying
//! `x-kubernetes-group-version-kind`, which `kubectl explain` looks it up by
//! (staging/src/k8s.io/kubectl/pkg/explain/v2/templates/plaintext.tmpl).
//!
//! The schemas come from k8s-openapi's, generated from the same upstream
//! OpenAPI document. Not carried (listed in docs/src/embedded-cluster.md): the strategic
//! merge extensions (`x-kubernetes-patch-merge-key`, `-patch-strategy`)
//! and the list-type markers; the operations do not declare request bodies,
//! so kubectl computes apply patches from its compiled-in types, as it does
//! against a server without OpenAPI, and never from these schemas.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use schemars::generate::{SchemaGenerator, SchemaSettings};
use serde_json::{json, Map, Value};

use super::typed::{with_kind, BuiltIn, KindVisitor, BUILT_IN};

/// The definitions of each group-version, by (group, version).
type ByVersion = BTreeMap<(&'static str, &'static str), Map<String, Value>>;

/// The definitions of every built-in kind of `group/version` and of every
/// type they use, or an empty map for a group-version without built-in
/// kinds.
pub(crate) fn schemas(group: &str, version: &str) -> Map<String, Value> {
    static ALL: OnceLock<ByVersion> = OnceLock::new();
    ALL.get_or_init(generate)
        .get(&(group, version))
        .cloned()
        .unwrap_or_default()
}

/// Adds `T`'s schema and those it refers to; gives `T`'s name.
struct Add<'a>(&'a mut SchemaGenerator);

impl KindVisitor for Add<'_> {
    type Out = String;
    fn visit<T: BuiltIn>(self) -> String {
        self.0.subschema_for::<T>();
        T::schema_name().into_owned()
    }
}

fn generate() -> ByVersion {
    let mut out = BTreeMap::new();
    let mut versions: Vec<(&str, &str)> = BUILT_IN.iter().map(|(g, v, _)| (*g, *v)).collect();
    versions.sort_unstable();
    versions.dedup();
    for (group, version) in versions {
        let mut generator = SchemaGenerator::new(SchemaSettings::openapi3());
        let mut named = Vec::new();
        for (_, _, kind) in BUILT_IN
            .iter()
            .filter(|(g, v, _)| (*g, *v) == (group, version))
        {
            if let Some(name) = with_kind(group, version, kind, Add(&mut generator)) {
                named.push((name, *kind));
            }
        }
        let mut defs = generator.take_definitions(true);
        for (name, kind) in named {
            if let Some(Value::Object(schema)) = defs.get_mut(&name) {
                schema.insert(
                    "x-kubernetes-group-version-kind".into(),
                    json!([{"group": group, "kind": kind, "version": version}]),
                );
            }
        }
        out.insert((group, version), defs);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kind_is_found_by_its_group_version_kind_with_its_references_resolvable() {
        let defs = schemas("apps", "v1");
        let set = &defs["io.k8s.api.apps.v1.StatefulSet"];
        assert_eq!(
            set["x-kubernetes-group-version-kind"],
            json!([{"group": "apps", "kind": "StatefulSet", "version": "v1"}])
        );
        assert!(set["description"]
            .as_str()
            .is_some_and(|d| d.starts_with("StatefulSet represents")));
        // A described reference is wrapped in allOf, as kube-apiserver's.
        let spec = &set["properties"]["spec"];
        assert_eq!(
            spec["allOf"][0]["$ref"],
            "#/components/schemas/io.k8s.api.apps.v1.StatefulSetSpec"
        );
        // Every reference points at a definition of the same document.
        let text = serde_json::to_string(&defs).unwrap();
        for r in text.split("\"$ref\":\"").skip(1) {
            let target = r.split('"').next().unwrap();
            let name = target.trim_start_matches("#/components/schemas/");
            assert!(defs.contains_key(name), "{target} is not defined");
        }
        assert!(defs.contains_key("io.k8s.api.core.v1.PodTemplateSpec"));
    }

    #[test]
    fn the_core_group_and_unknown_versions() {
        let core = schemas("", "v1");
        assert_eq!(
            core["io.k8s.api.core.v1.Pod"]["x-kubernetes-group-version-kind"][0]["kind"],
            "Pod"
        );
        assert!(schemas("example.com", "v1").is_empty());
    }
}
