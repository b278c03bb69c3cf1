//! The StatefulSets a scenario creates from words: `a StatefulSet "web" with 3
//! replicas, update strategy "Recreate" and a volume claim "data"`. Pure: the
//! words become a [`SetSpec`], the spec becomes the object's JSON.

use serde_json::{json, Value};
use std::fmt;

/// The image every scenario's pods run unless a step says otherwise; present
/// on kind nodes and in the embedded cluster's image catalog.
pub(crate) const DEFAULT_IMAGE: &str = "registry.k8s.io/pause:3.10";

/// The readiness gate through which scenarios make pods ready or not ready,
/// on the embedded cluster and on kind alike.
pub(crate) const READINESS_GATE: &str = "kepspec.io/ready";

/// Everything a scenario can say about a set in its `Given` step.
#[derive(Clone, Debug, PartialEq)]
pub struct SetSpec {
    /// metadata.name
    pub name: String,
    /// spec.replicas
    pub replicas: i32,
    /// spec.updateStrategy.type (None: the apiserver's default)
    pub strategy: Option<String>,
    /// spec.podManagementPolicy
    pub pod_management_policy: Option<String>,
    /// spec.updateStrategy.rollingUpdate.maxUnavailable
    pub max_unavailable: Option<Value>,
    /// spec.updateStrategy.rollingUpdate.partition
    pub partition: Option<i32>,
    /// spec.minReadySeconds
    pub min_ready_seconds: Option<i32>,
    /// volumeClaimTemplates names
    pub claims: Vec<String>,
    /// The preStop sleep, in seconds, that makes termination observable.
    pub termination_seconds: Option<i64>,
    /// Whether readiness is held by the scenario's readiness gate.
    pub readiness_gate: bool,
    /// spec.ordinals.start
    pub ordinals_start: Option<i32>,
    /// spec.persistentVolumeClaimRetentionPolicy (whenDeleted, whenScaled)
    pub retention: Option<(String, String)>,
    /// The container image.
    pub image: String,
}

impl SetSpec {
    /// A set with the given name and replicas and nothing else said.
    pub fn new(name: &str, replicas: i32) -> Self {
        Self {
            name: name.to_string(),
            replicas,
            strategy: None,
            pod_management_policy: None,
            max_unavailable: None,
            partition: None,
            min_ready_seconds: None,
            claims: Vec::new(),
            termination_seconds: None,
            readiness_gate: false,
            ordinals_start: None,
            retention: None,
            image: DEFAULT_IMAGE.to_string(),
        }
    }

    /// The set as apps/v1 JSON.
    pub fn to_object(&self) -> Value {
        let labels = json!({ "app": self.name });
        let mut container = json!({ "name": "app", "image": self.image });
        if let Some(secs) = self.termination_seconds {
            container["lifecycle"] = json!({ "preStop": { "sleep": { "seconds": secs } } });
        }
        if !self.claims.is_empty() {
            container["volumeMounts"] = Value::Array(
                self.claims
                    .iter()
                    .map(|c| json!({ "name": c, "mountPath": format!("/data/{c}") }))
                    .collect(),
            );
        }
        let mut pod_spec = json!({ "containers": [container] });
        if let Some(secs) = self.termination_seconds {
            // Room for the preStop hook to finish inside the grace period.
            pod_spec["terminationGracePeriodSeconds"] = json!(secs + 30);
        }
        if self.readiness_gate {
            pod_spec["readinessGates"] = json!([{ "conditionType": READINESS_GATE }]);
        }
        let mut spec = json!({
            "replicas": self.replicas,
            "serviceName": self.name,
            "selector": { "matchLabels": labels },
            "template": { "metadata": { "labels": labels }, "spec": pod_spec },
        });
        if let Some(p) = &self.pod_management_policy {
            spec["podManagementPolicy"] = json!(p);
        }
        if self.strategy.is_some() || self.max_unavailable.is_some() || self.partition.is_some() {
            let mut strategy = json!({});
            if let Some(t) = &self.strategy {
                strategy["type"] = json!(t);
            }
            if self.max_unavailable.is_some() || self.partition.is_some() {
                let mut ru = json!({});
                if let Some(m) = &self.max_unavailable {
                    ru["maxUnavailable"] = m.clone();
                }
                if let Some(p) = self.partition {
                    ru["partition"] = json!(p);
                }
                // The KEP-3541 draft's strategy has a block of its own.
                let block = if self.strategy.as_deref() == Some("EnforcedRollingUpdate") {
                    "enforcedRollingUpdate"
                } else {
                    "rollingUpdate"
                };
                strategy[block] = ru;
            }
            spec["updateStrategy"] = strategy;
        }
        if let Some(m) = self.min_ready_seconds {
            spec["minReadySeconds"] = json!(m);
        }
        if let Some(start) = self.ordinals_start {
            spec["ordinals"] = json!({ "start": start });
        }
        if let Some((deleted, scaled)) = &self.retention {
            spec["persistentVolumeClaimRetentionPolicy"] =
                json!({ "whenDeleted": deleted, "whenScaled": scaled });
        }
        if !self.claims.is_empty() {
            spec["volumeClaimTemplates"] = Value::Array(
                self.claims
                    .iter()
                    .map(|c| {
                        json!({
                            "metadata": { "name": c },
                            "spec": {
                                "accessModes": ["ReadWriteOnce"],
                                "resources": { "requests": { "storage": "1Gi" } }
                            }
                        })
                    })
                    .collect(),
            );
        }
        json!({
            "apiVersion": "apps/v1",
            "kind": "StatefulSet",
            "metadata": { "name": self.name, "labels": labels },
            "spec": spec,
        })
    }

    /// Applies the settings phrase that follows `with N replicas` in a step:
    /// `, update strategy "Recreate" and a volume claim "data"`.
    pub fn apply_settings(&mut self, settings: &str) -> Result<(), SettingsError> {
        for phrase in split_settings(settings) {
            self.apply_phrase(&phrase)?;
        }
        Ok(())
    }

    fn apply_phrase(&mut self, phrase: &str) -> Result<(), SettingsError> {
        let (words, value) = match (phrase.find('"'), phrase.rfind('"')) {
            (Some(a), Some(b)) if b > a => (phrase[..a].trim(), Some(phrase[a + 1..b].to_string())),
            _ => (phrase.trim(), None),
        };
        let need =
            |v: Option<String>| v.ok_or_else(|| SettingsError::new(phrase, "needs a quoted value"));
        let int = |v: Option<String>| -> Result<i32, SettingsError> {
            let v = need(v)?;
            v.parse()
                .map_err(|_| SettingsError::new(phrase, "needs a whole number"))
        };
        match words {
            "update strategy" => self.strategy = Some(need(value)?),
            "pod management policy" => self.pod_management_policy = Some(need(value)?),
            "a volume claim" => self.claims.push(need(value)?),
            "max unavailable" => {
                let v = need(value)?;
                self.max_unavailable = Some(match v.parse::<i64>() {
                    Ok(n) => json!(n),
                    Err(_) => json!(v),
                });
            }
            "partition" => self.partition = Some(int(value)?),
            "min ready seconds" => self.min_ready_seconds = Some(int(value)?),
            "ordinals starting at" => self.ordinals_start = Some(int(value)?),
            "termination taking seconds" => self.termination_seconds = Some(i64::from(int(value)?)),
            "image" => self.image = need(value)?,
            "readiness held by the readiness gate" if value.is_none() => self.readiness_gate = true,
            "retention policy" => {
                let v = need(value)?;
                let (d, s) = v.split_once('/').ok_or_else(|| {
                    SettingsError::new(
                        phrase,
                        "needs \"whenDeleted/whenScaled\", e.g. \"Delete/Retain\"",
                    )
                })?;
                self.retention = Some((d.to_string(), s.to_string()));
            }
            _ => {
                return Err(SettingsError::new(
                    phrase,
                    "is not a setting this step knows",
                ))
            }
        }
        Ok(())
    }
}

/// Splits `, a "x", b "y" and c "z"` into its phrases, ignoring commas and
/// ` and ` inside quotes.
fn split_settings(settings: &str) -> Vec<String> {
    let mut phrases = Vec::new();
    let mut current = String::new();
    let mut quoted = false;
    let mut rest = settings;
    while let Some(c) = rest.chars().next() {
        if c == '"' {
            quoted = !quoted;
        }
        if !quoted && (c == ',' || rest.starts_with(" and ")) {
            if !current.trim().is_empty() {
                phrases.push(current.trim().to_string());
            }
            current.clear();
            rest = if c == ',' { &rest[1..] } else { &rest[5..] };
            continue;
        }
        current.push(c);
        rest = &rest[c.len_utf8()..];
    }
    if !current.trim().is_empty() {
        phrases.push(current.trim().to_string());
    }
    // "termination taking "5" seconds" reads better than the canonical key.
    phrases
        .into_iter()
        .map(|p| match p.strip_prefix("termination taking ") {
            Some(rest) if rest.ends_with(" seconds") => {
                format!(
                    "termination taking seconds {}",
                    rest.trim_end_matches(" seconds")
                )
            }
            _ => p,
        })
        .collect()
}

/// A settings phrase the step does not understand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SettingsError {
    /// The phrase as written.
    pub phrase: String,
    /// What is wrong with it.
    pub problem: String,
}

impl SettingsError {
    fn new(phrase: &str, problem: &str) -> Self {
        Self {
            phrase: phrase.to_string(),
            problem: problem.to_string(),
        }
    }
}

impl fmt::Display for SettingsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "setting `{}` {}; known settings: update strategy \"..\", pod management policy \"..\", a volume claim \"..\", \
             max unavailable \"..\", partition \"..\", min ready seconds \"..\", ordinals starting at \"..\", \
             termination taking \"..\" seconds, image \"..\", retention policy \"whenDeleted/whenScaled\", \
             readiness held by the readiness gate",
            self.phrase, self.problem
        )
    }
}

impl std::error::Error for SettingsError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_design_example() {
        let mut s = SetSpec::new("web", 3);
        s.apply_settings(r#", update strategy "Recreate" and a volume claim "data""#)
            .unwrap();
        assert_eq!(s.strategy.as_deref(), Some("Recreate"));
        assert_eq!(s.claims, vec!["data".to_string()]);
        let obj = s.to_object();
        assert_eq!(obj["spec"]["updateStrategy"]["type"], "Recreate");
        assert_eq!(
            obj["spec"]["volumeClaimTemplates"][0]["metadata"]["name"],
            "data"
        );
        assert_eq!(
            obj["spec"]["template"]["spec"]["containers"][0]["volumeMounts"][0]["name"],
            "data"
        );
    }

    #[test]
    fn parses_numbers_percentages_and_flags() {
        let mut s = SetSpec::new("web", 5);
        s.apply_settings(
            r#", pod management policy "Parallel", max unavailable "50%", partition "2", termination taking "3" seconds and readiness held by the readiness gate"#,
        )
        .unwrap();
        assert_eq!(s.max_unavailable, Some(json!("50%")));
        assert_eq!(s.partition, Some(2));
        assert_eq!(s.termination_seconds, Some(3));
        assert!(s.readiness_gate);
        let obj = s.to_object();
        assert_eq!(
            obj["spec"]["updateStrategy"]["rollingUpdate"]["maxUnavailable"],
            "50%"
        );
        assert_eq!(
            obj["spec"]["template"]["spec"]["readinessGates"][0]["conditionType"],
            READINESS_GATE
        );
        assert_eq!(
            obj["spec"]["template"]["spec"]["containers"][0]["lifecycle"]["preStop"]["sleep"]
                ["seconds"],
            3
        );
        let mut n = SetSpec::new("web", 5);
        n.apply_settings(r#" and max unavailable "2""#).unwrap();
        assert_eq!(n.max_unavailable, Some(json!(2)));
    }

    #[test]
    fn quoted_commas_and_ands_stay_in_their_phrase() {
        let mut s = SetSpec::new("web", 1);
        s.apply_settings(r#", image "a, b and c""#).unwrap();
        assert_eq!(s.image, "a, b and c");
    }

    #[test]
    fn unknown_or_malformed_settings_are_named() {
        let mut s = SetSpec::new("web", 1);
        let err = s.apply_settings(r#", colour "blue""#).unwrap_err();
        assert_eq!(err.phrase, r#"colour "blue""#);
        assert!(err.to_string().contains("is not a setting"));
        let err = s.apply_settings(r#", partition "two""#).unwrap_err();
        assert!(err.to_string().contains("whole number"));
        let err = s
            .apply_settings(r#", retention policy "Delete""#)
            .unwrap_err();
        assert!(err.to_string().contains("whenDeleted/whenScaled"));
    }

    #[test]
    fn nothing_said_leaves_defaults_to_the_apiserver() {
        let obj = SetSpec::new("web", 2).to_object();
        assert!(obj["spec"].get("updateStrategy").is_none());
        assert!(obj["spec"].get("podManagementPolicy").is_none());
        assert_eq!(
            obj["spec"]["template"]["spec"]["containers"][0]["image"],
            DEFAULT_IMAGE
        );
    }
}
