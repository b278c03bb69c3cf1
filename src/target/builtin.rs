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
                fields: BTreeMap::new(),
                stand_in: None,
                kind_config: None,
            },
            source: None,
            fields: FieldMap::default(),
            selection: None,
            exclusions: Vec::new(),
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
        p
    }

    /// Upstream kube-controller-manager on apps/v1 StatefulSet: every
    /// scenario (version and gate limits are applied by [`Self::skip_reason`]),
    /// nothing to install. The merged upstream code names the Recreate
    /// completion reason `RecreateCompleted` where KEP-3541 says
    /// `RecreateComplete`.
    pub fn upstream() -> Profile {
        let mut p = Self::builtin(
            "upstream",
            "kube-controller-manager's StatefulSet controller",
        );
        p.spec
            .reasons
            .insert("RecreateComplete".into(), "RecreateCompleted".into());
        p.spec.kind_config = Some(PathBuf::from(DEFAULT_KIND_CONFIG));
        p
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
