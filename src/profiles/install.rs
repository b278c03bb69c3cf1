//! What a profile asks of a cluster: the commands that install the target
//! and wait for it, the kind configuration, and the CRDs the bundled
//! controller needs to stand in for it.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::error::ProfileError;
use super::profile::{Profile, ReadyCheck, DEFAULT_KIND_CONFIG};
use crate::cluster::kind::Command;

impl Profile {
    /// The install commands as written (placeholders not substituted).
    pub fn install_commands(&self) -> Vec<Vec<String>> {
        self.spec.install.clone()
    }

    /// The readiness command as written, with its timeout.
    pub fn ready_command(&self) -> Option<&ReadyCheck> {
        self.spec.ready.as_ref()
    }

    /// The programs the install and readiness commands run, for a tools check.
    pub fn required_programs(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let ready = self.spec.ready.iter().map(|r| &r.command);
        for argv in self.spec.install.iter().chain(ready) {
            if let Some(p) = argv.first() {
                if !out.contains(p) {
                    out.push(p.clone());
                }
            }
        }
        out
    }

    /// Install, then readiness, as commands for `cluster::kind::execute`,
    /// with `${KUBECONFIG}` and `${ROOT}` substituted. The readiness command
    /// is stopped after `spec.ready.timeoutSeconds`.
    pub fn setup_commands(&self, kubeconfig: &Path, root: &Path) -> Vec<Command> {
        let kc = kubeconfig.display().to_string();
        let rt = root.display().to_string();
        let subst = |a: &String| a.replace("${KUBECONFIG}", &kc).replace("${ROOT}", &rt);
        let make = |argv: &Vec<String>, purpose: String| Command {
            program: argv.first().map(&subst).unwrap_or_default(),
            args: argv.iter().skip(1).map(&subst).collect(),
            purpose,
            timeout: None,
            expect: None,
            save_as: None,
        };
        let n = self.spec.install.len();
        let mut out: Vec<Command> = self
            .spec
            .install
            .iter()
            .enumerate()
            .map(|(i, argv)| make(argv, format!("install {} ({}/{n})", self.name(), i + 1)))
            .collect();
        if let Some(ready) = &self.spec.ready {
            let mut wait = make(
                &ready.command,
                format!("wait for {} to be ready", self.name()),
            );
            wait.timeout = Some(ready.timeout());
            out.push(wait);
        }
        out
    }

    /// A path the profile names: relative to the profile file's folder (a
    /// built-in profile's to the spec's root), `.` and `..` resolved.
    pub fn resolve_path(&self, rel: &Path) -> PathBuf {
        if rel.is_absolute() {
            return rel.to_path_buf();
        }
        let base = self
            .source
            .as_deref()
            .and_then(Path::parent)
            .unwrap_or(Path::new(""));
        crate::bundle::normalize(&base.join(rel))
    }

    /// The kind configuration for `--cluster kind`: the profile's
    /// `kindConfig` (relative to the profile), else the default one of the
    /// spec. Read it with [`crate::bundle::read_to_string`]: it may be
    /// bundled rather than on disk.
    pub fn kind_config(&self) -> PathBuf {
        match self.spec.kind_config.as_deref() {
            Some(rel) => self.resolve_path(rel),
            None => PathBuf::from(DEFAULT_KIND_CONFIG),
        }
    }

    /// Whether the bundled controller can stand in on the embedded cluster.
    pub fn has_stand_in(&self) -> bool {
        self.spec.stand_in.is_some() || self.name() == "bundled"
    }

    /// The CRD manifests of `spec.standIn.crds` (relative to the profile), each
    /// file one or more YAML documents. Checks that every document is an
    /// apiextensions.k8s.io/v1 CustomResourceDefinition and that one of them
    /// serves the profile's resource.
    pub fn crds(&self) -> Result<Vec<Value>, ProfileError> {
        let profile_file = self
            .source
            .clone()
            .unwrap_or_else(|| PathBuf::from(self.name()));
        let Some(stand_in) = self.spec.stand_in.as_ref().filter(|s| !s.crds.is_empty()) else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        for rel in &stand_in.crds {
            let file = self.resolve_path(rel);
            let text = crate::bundle::read_to_string(&file)
                .map_err(|e| ProfileError::file(&file, format!("cannot read: {e}")))?;
            let docs: Vec<Value> =
                crate::yaml::documents(&text).map_err(|e| ProfileError::yaml(&file, &e))?;
            for value in docs {
                check_crd(&file, &value)?;
                out.push(value);
            }
        }
        let r = &self.spec.resource;
        let serves = out.iter().any(|crd| {
            let spec = &crd["spec"];
            spec["group"] == r.group.as_str()
                && spec["names"]["plural"] == r.plural.as_str()
                && spec["names"]["kind"] == r.kind.as_str()
                && spec["versions"].as_array().is_some_and(|vs| {
                    vs.iter()
                        .any(|v| v["name"] == r.version.as_str() && v["served"] != false)
                })
        });
        if !serves {
            return Err(ProfileError::field(
                &profile_file,
                "spec.standIn.crds",
                format!(
                    "no CustomResourceDefinition serves {}/{} {} ({})",
                    r.group, r.version, r.kind, r.plural
                ),
            ));
        }
        Ok(out)
    }
}

fn check_crd(file: &Path, crd: &Value) -> Result<(), ProfileError> {
    if crd["apiVersion"] != "apiextensions.k8s.io/v1" || crd["kind"] != "CustomResourceDefinition" {
        return Err(ProfileError::file(
            file,
            "expected apiVersion apiextensions.k8s.io/v1, kind CustomResourceDefinition",
        ));
    }
    let spec = &crd["spec"];
    let (Some(group), Some(plural)) = (spec["group"].as_str(), spec["names"]["plural"].as_str())
    else {
        return Err(ProfileError::field(
            file,
            "spec",
            "needs group and names.plural",
        ));
    };
    let expected = format!("{plural}.{group}");
    if crd["metadata"]["name"] != expected.as_str() {
        return Err(ProfileError::field(
            file,
            "metadata.name",
            format!("must be `{expected}`"),
        ));
    }
    if spec["versions"].as_array().is_none_or(|v| v.is_empty()) {
        return Err(ProfileError::field(
            file,
            "spec.versions",
            "needs at least one version",
        ));
    }
    Ok(())
}
