//! The checks [`Profile::load`] runs after parsing: every problem names the
//! field at fault.

use std::path::Path;

use cucumber::gherkin::tagexpr::TagOperation;

use super::error::ProfileError;
use super::fields::FieldMap;
use super::profile::{Profile, API_VERSION, KIND, PLACEHOLDERS};

fn is_dns_label(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 63
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && !s.starts_with('-')
        && !s.ends_with('-')
}

fn check_placeholders(arg: &str) -> Result<(), String> {
    let mut rest = arg;
    while let Some(start) = rest.find("${") {
        let after = &rest[start + 2..];
        let end = after
            .find('}')
            .ok_or_else(|| format!("`{arg}`: `${{` without a closing `}}`"))?;
        let name = &after[..end];
        if !PLACEHOLDERS.contains(&name) {
            return Err(format!(
                "`{arg}`: unknown placeholder `${{{name}}}` (known: ${{KUBECONFIG}}, ${{ROOT}})"
            ));
        }
        rest = &after[end + 1..];
    }
    Ok(())
}

fn check_command(file: &Path, field: &str, argv: &[String]) -> Result<(), ProfileError> {
    if argv.is_empty() || argv[0].trim().is_empty() {
        return Err(ProfileError::field(
            file,
            field,
            "a command needs at least a program",
        ));
    }
    for (j, arg) in argv.iter().enumerate() {
        check_placeholders(arg)
            .map_err(|m| ProfileError::field(file, format!("{field}[{j}]"), m))?;
    }
    Ok(())
}

impl Profile {
    pub(super) fn check(&mut self, file: &Path) -> Result<(), ProfileError> {
        let err = |field: &str, msg: String| ProfileError::field(file, field, msg);
        if self.api_version != API_VERSION {
            return Err(err(
                "apiVersion",
                format!("expected `{API_VERSION}`, found `{}`", self.api_version),
            ));
        }
        if self.kind != KIND {
            return Err(err(
                "kind",
                format!("expected `{KIND}`, found `{}`", self.kind),
            ));
        }
        if !is_dns_label(&self.metadata.name) {
            return Err(err(
                "metadata.name",
                format!(
                    "`{}` is not a DNS label (lowercase letters, digits and `-`, at most 63)",
                    self.metadata.name
                ),
            ));
        }
        let r = &self.spec.resource;
        for (name, value) in [
            ("version", &r.version),
            ("kind", &r.kind),
            ("plural", &r.plural),
        ] {
            if value.trim().is_empty() {
                return Err(err(
                    &format!("spec.resource.{name}"),
                    "must not be empty".into(),
                ));
            }
        }
        if !is_dns_label(&r.plural) {
            return Err(err(
                "spec.resource.plural",
                format!("`{}` is not a lowercase resource name", r.plural),
            ));
        }
        if !r.kind.starts_with(|c: char| c.is_ascii_uppercase()) {
            return Err(err(
                "spec.resource.kind",
                format!("`{}` is not a Kind (it starts with a capital)", r.kind),
            ));
        }
        for (i, argv) in self.spec.install.iter().enumerate() {
            check_command(file, &format!("spec.install[{i}]"), argv)?;
        }
        if let Some(ready) = &self.spec.ready {
            check_command(file, "spec.ready.command", &ready.command)?;
            if ready.timeout_seconds == 0 {
                return Err(err(
                    "spec.ready.timeoutSeconds",
                    "must be at least 1".into(),
                ));
            }
        }
        if let Some(tags) = &self.spec.supports.tags {
            let op = tags.parse::<TagOperation>().map_err(|e| {
                err(
                    "spec.supports.tags",
                    format!("invalid tag expression `{tags}`: {e}"),
                )
            })?;
            self.selection = Some(op);
        }
        self.exclusions.clear();
        for (i, ex) in self.spec.supports.exclude.iter().enumerate() {
            let re = regex::Regex::new(&ex.scenario).map_err(|e| {
                err(
                    &format!("spec.supports.exclude[{i}].scenario"),
                    format!("invalid regex: {e}"),
                )
            })?;
            if ex.reason.trim().is_empty() {
                return Err(err(
                    &format!("spec.supports.exclude[{i}].reason"),
                    "say why the target does not claim these scenarios".into(),
                ));
            }
            self.exclusions.push((re, ex.reason.clone()));
        }
        for (from, to) in &self.spec.reasons {
            if from.trim().is_empty() || to.trim().is_empty() {
                return Err(err(
                    &format!("spec.reasons.{from}"),
                    "reasons must not be empty".into(),
                ));
            }
        }
        self.fields = FieldMap::new(&self.spec.fields)
            .map_err(|(key, msg)| err(&format!("spec.fields.\"{key}\""), msg))?;
        if let Some(stand_in) = &self.spec.stand_in {
            if stand_in.crds.is_empty() && !self.is_apps_v1() {
                return Err(err(
                    "spec.standIn.crds",
                    "name at least one CustomResourceDefinition manifest".into(),
                ));
            }
            if let Some(b) = &stand_in.behave_as {
                b.parse::<crate::controller::Implementation>()
                    .map_err(|e| err("spec.standIn.behaveAs", e))?;
            }
        }
        let mut ids = std::collections::BTreeSet::new();
        for (i, d) in self.spec.deviations.iter().enumerate() {
            d.check()
                .map_err(|m| err(&format!("spec.deviations[{i}]"), m))?;
            if !ids.insert(d.id.clone()) {
                return Err(err(
                    &format!("spec.deviations[{i}].id"),
                    format!("`{}` is declared twice", d.id),
                ));
            }
        }
        self.deviations = super::deviation::Deviations(self.spec.deviations.clone());
        Ok(())
    }
}
