//! The built-in profiles, so every target is a profile: the bundled
//! controller and upstream kube-controller-manager, both on apps/v1
//! StatefulSet.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::error::ProfileError;
use super::fields::FieldMap;
use super::profile::{
    Metadata, Profile, ProfileSpec, ResourceRef, Supports, API_VERSION, DEFAULT_KIND_CONFIG, KIND,
};
use crate::cli::TargetChoice;

impl Profile {
    fn builtin(name: &str, description: &str) -> Profile {
        let mut p = Profile {
            api_version: API_VERSION.into(),
            kind: KIND.into(),
            metadata: Metadata {
                name: name.into(),
                description: Some(description.into()),
            },
            spec: ProfileSpec {
                resource: ResourceRef {
                    group: "apps".into(),
                    version: "v1".into(),
                    kind: "StatefulSet".into(),
                    plural: "statefulsets".into(),
                },
                install: Vec::new(),
                ready: None,
                supports: Supports::default(),
                reasons: BTreeMap::new(),
                deviations: Vec::new(),
                fields: BTreeMap::new(),
                stand_in: None,
                kind_config: None,
            },
            source: None,
            fields: FieldMap::default(),
            selection: None,
            exclusions: Vec::new(),
            deviations: Default::default(),
        };
        // Built-in profiles are valid by construction; checking fills the
        // derived fields the same way as for files.
        let _ = p.check(Path::new(name));
        p
    }

    /// The bundled controller on apps/v1 StatefulSet: every scenario.
    /// Installed on kind by the kind plan itself (`clusters/kind/bundled.yaml`).
    pub fn bundled() -> Profile {
        let mut p = Self::builtin(
            "bundled",
            "the bundled StatefulSet controller (reference implementation)",
        );
        p.spec.kind_config = Some(PathBuf::from("clusters/kind/bundled.yaml"));
        // The reference implementation also reproduces upstream's
        // documented limitations, to contrast them with the KEPs.
        p.spec.supports.limitations = true;
        p
    }

    /// Upstream kube-controller-manager on apps/v1 StatefulSet: the profile
    /// `clusters/targets/upstream.yaml`, compiled in, so `--target upstream`
    /// and the file can never disagree. It claims every scenario but the
    /// KEP-3541 draft's (version
    /// and gate limits are applied by [`Self::skip_reason`]), installs
    /// nothing, declares where v1.37 deviates from KEP-3541, and is stood in
    /// for on the embedded cluster by the bundled controller behaving as v1.37.
    pub fn upstream() -> Profile {
        const TEXT: &str = include_str!("../../clusters/targets/upstream.yaml");
        match Self::parse(TEXT, Path::new("clusters/targets/upstream.yaml")) {
            Ok(p) => p,
            // A test parses the file; this is never reached in a build
            // that passed it.
            Err(e) => {
                tracing::error!("the built-in upstream profile does not parse: {e}");
                let mut p = Self::builtin(
                    "upstream",
                    "kube-controller-manager's StatefulSet controller",
                );
                p.spec.kind_config = Some(PathBuf::from(DEFAULT_KIND_CONFIG));
                p
            }
        }
    }

    /// The first shipped profile (`clusters/targets/*.yaml` in the bundle)
    /// that declares deviation `id`, with that declaration.
    pub fn shipped_deviation(id: &str) -> Option<(String, super::deviation::Deviation)> {
        static SHIPPED: std::sync::OnceLock<Vec<Profile>> = std::sync::OnceLock::new();
        let shipped = SHIPPED.get_or_init(|| {
            crate::bundle::under(Path::new("clusters/targets"))
                .iter()
                .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
                .filter_map(|p| Self::load(p).ok())
                .collect()
        });
        shipped.iter().find_map(|p| {
            p.deviations()
                .get(id)
                .map(|d| (p.name().to_string(), d.clone()))
        })
    }

    /// The profile for a `--target` choice.
    pub fn resolve(choice: &TargetChoice) -> Result<Profile, ProfileError> {
        match choice {
            TargetChoice::Bundled => Ok(Self::bundled()),
            TargetChoice::Upstream => Ok(Self::upstream()),
            TargetChoice::Profile(path) => Self::load(path),
        }
    }
}
