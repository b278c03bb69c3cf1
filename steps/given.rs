//! `Given` steps: the state a scenario starts from.

use crate::harness::{waits, Scenario, SetSpec};
use cucumber::gherkin::Step;
use cucumber::{given, Parameter};
use kepspec_core::Lookup as _;

use super::world::{input_error, KepWorld};

/// The free-form tail of `a StatefulSet "web" with 3 replicas...`:
/// `, update strategy "Recreate" and a volume claim "data"`.
#[derive(Debug, Default, Parameter)]
#[param(name = "settings", regex = r"(?:,| and) .*|")]
pub struct Settings(pub String);

impl std::str::FromStr for Settings {
    type Err = std::convert::Infallible;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(Self(s.to_string()))
    }
}

/// Parses a YAML docstring into JSON, naming the problem.
pub fn docstring_yaml(step: &Step) -> anyhow::Result<serde_json::Value> {
    let text = step
        .docstring()
        .ok_or_else(|| input_error("the step needs a YAML docstring"))?;
    crate::yaml::from_str(text)
        .map_err(|e| input_error(format!("the docstring is not valid YAML: {e}")))
}

#[given(expr = "a StatefulSet {string} with {int} replica(s){settings}")]
async fn a_statefulset(
    w: &mut KepWorld,
    name: String,
    replicas: i32,
    settings: Settings,
) -> anyhow::Result<()> {
    let mut spec = SetSpec::new(&name, replicas);
    spec.apply_settings(&settings.0).map_err(input_error)?;
    w.sc()?.create_set(spec).await?;
    Ok(())
}

#[given(expr = "a StatefulSet from this manifest:")]
async fn a_statefulset_from_manifest(w: &mut KepWorld, step: &Step) -> anyhow::Result<()> {
    let obj = docstring_yaml(step)?;
    let name = obj
        .lookup("/metadata/name")
        .and_then(|n| n.as_str())
        .ok_or_else(|| input_error("the manifest has no metadata.name"))?
        .to_string();
    w.sc()?.create_required_set(&name, obj).await?;
    Ok(())
}

#[given(expr = "all pods of {string} are running and ready")]
async fn all_pods_ready(w: &mut KepWorld, set: String) -> anyhow::Result<()> {
    waits::set_settled(w.sc()?, &set, Scenario::default_wait()).await
}

#[given(expr = "pod {string} has the finalizer {string}")]
async fn pod_has_finalizer(w: &mut KepWorld, pod: String, finalizer: String) -> anyhow::Result<()> {
    let sc = w.sc()?;
    let mut finalizers = sc.pod_finalizers(&pod).await?;
    finalizers.push(finalizer);
    sc.set_pod_finalizers(&pod, finalizers).await?;
    Ok(())
}
