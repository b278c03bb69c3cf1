//! `When` steps: what a user (or the cluster) does.

use cucumber::gherkin::Step;
use cucumber::when;

use super::given::docstring_yaml;
use super::world::{input_error, KepWorld};

#[when(expr = "the image of {string} is changed to {string}")]
async fn change_image(w: &mut KepWorld, set: String, image: String) -> anyhow::Result<()> {
    Ok(w.sc()?.set_image(&set, &image).await?)
}

#[when(expr = "the environment variable {string} of {string} is set to {string}")]
async fn change_env(
    w: &mut KepWorld,
    var: String,
    set: String,
    value: String,
) -> anyhow::Result<()> {
    Ok(w.sc()?.set_env(&set, &var, &value).await?)
}

#[when(expr = "the CPU request of {string} is changed to {string}")]
async fn change_cpu(w: &mut KepWorld, set: String, cpu: String) -> anyhow::Result<()> {
    Ok(w.sc()?.set_cpu_request(&set, &cpu).await?)
}

#[when(expr = "the annotation {string} of the pods of {string} is set to {string}")]
async fn template_annotation(
    w: &mut KepWorld,
    key: String,
    set: String,
    value: String,
) -> anyhow::Result<()> {
    let patch = serde_json::json!({ "spec": { "template": { "metadata": { "annotations": { key: value } } } } });
    Ok(w.sc()?.patch_set(&set, patch).await?)
}

#[when(expr = "an attempt is made to change the pod management policy of {string} to {string}")]
async fn attempt_policy(w: &mut KepWorld, set: String, policy: String) -> anyhow::Result<()> {
    let sc = w.sc()?;
    let patch = serde_json::json!({ "spec": { "podManagementPolicy": policy } });
    sc.last_refusal = sc.patch_set(&set, patch).await.err();
    Ok(())
}

#[when(expr = "a readiness gate that nothing satisfies is added to {string}")]
async fn add_gate(w: &mut KepWorld, set: String) -> anyhow::Result<()> {
    Ok(w.sc()?.set_template_readiness_gate(&set, true).await?)
}

#[when(expr = "the readiness gate is removed from {string}")]
async fn remove_gate(w: &mut KepWorld, set: String) -> anyhow::Result<()> {
    Ok(w.sc()?.set_template_readiness_gate(&set, false).await?)
}

#[when(expr = "the update strategy of {string} is changed to {string}")]
async fn change_strategy(w: &mut KepWorld, set: String, strategy: String) -> anyhow::Result<()> {
    Ok(w.sc()?.set_strategy(&set, &strategy).await?)
}

#[when(expr = "{string} is scaled to {int} replica(s) through its scale subresource")]
async fn scale_subresource(w: &mut KepWorld, set: String, replicas: i32) -> anyhow::Result<()> {
    Ok(w.sc()?.scale_subresource(&set, replicas).await?)
}

#[when(expr = "the manifest of {string} is applied again, as kubectl apply does")]
async fn apply_again(w: &mut KepWorld, set: String) -> anyhow::Result<()> {
    Ok(w.sc()?.apply_again(&set).await?)
}

#[when(
    expr = "the condition {string} with reason {string} is added to the status of {string} through its status subresource"
)]
async fn add_status_condition(
    w: &mut KepWorld,
    type_: String,
    reason: String,
    set: String,
) -> anyhow::Result<()> {
    Ok(w.sc()?.add_status_condition(&set, &type_, &reason).await?)
}

#[when(
    expr = "the status of {string} is patched through its status subresource to the condition {string}"
)]
async fn patch_status_condition(
    w: &mut KepWorld,
    set: String,
    type_: String,
) -> anyhow::Result<()> {
    Ok(w.sc()?.patch_status_condition(&set, &type_).await?)
}

#[when(expr = "the StatefulSets labelled {string} are deleted as a collection")]
async fn delete_collection(w: &mut KepWorld, labels: String) -> anyhow::Result<()> {
    Ok(w.sc()?.delete_sets_collection(&labels).await?)
}

#[when(expr = "{string} is scaled to {int} replica(s)")]
async fn scale(w: &mut KepWorld, set: String, replicas: i32) -> anyhow::Result<()> {
    Ok(w.sc()?.scale(&set, replicas).await?)
}

#[when(expr = "{string} is changed with this merge patch:")]
async fn merge_patch(w: &mut KepWorld, set: String, step: &Step) -> anyhow::Result<()> {
    let patch = docstring_yaml(step)?;
    Ok(w.sc()?.patch_set(&set, patch).await?)
}

#[when(expr = "an attempt is made to change {string} with this merge patch:")]
async fn attempt_merge_patch(w: &mut KepWorld, set: String, step: &Step) -> anyhow::Result<()> {
    let patch = docstring_yaml(step)?;
    let sc = w.sc()?;
    sc.last_refusal = sc.patch_set(&set, patch).await.err();
    Ok(())
}

#[when(expr = "an attempt is made to replace the spec of {string} with the spec of this manifest:")]
async fn attempt_replace_spec(w: &mut KepWorld, set: String, step: &Step) -> anyhow::Result<()> {
    let manifest = docstring_yaml(step)?;
    let spec = manifest
        .get("spec")
        .cloned()
        .ok_or_else(|| super::world::input_error("the manifest has no spec"))?;
    let sc = w.sc()?;
    sc.last_refusal = sc.replace_spec(&set, spec).await.err();
    Ok(())
}

#[when(expr = "{string} is restarted with kubectl rollout restart")]
async fn rollout_restart(w: &mut KepWorld, set: String) -> anyhow::Result<()> {
    Ok(w.sc()?.rollout_restart(&set).await?)
}

#[when(expr = "the label {string} is removed from pod {string}")]
async fn remove_label(w: &mut KepWorld, label: String, pod: String) -> anyhow::Result<()> {
    Ok(w.sc()?.remove_pod_label(&pod, &label).await?)
}

#[when(expr = "pod {string} is deleted")]
async fn delete_pod(w: &mut KepWorld, pod: String) -> anyhow::Result<()> {
    Ok(w.sc()?.delete_pod(&pod).await?)
}

#[when(expr = "pod {string} is made ready")]
async fn make_ready(w: &mut KepWorld, pod: String) -> anyhow::Result<()> {
    set_readiness_settled(w.sc()?, &pod, true).await
}

#[when(expr = "pod {string} is made not ready")]
async fn make_not_ready(w: &mut KepWorld, pod: String) -> anyhow::Result<()> {
    set_readiness_settled(w.sc()?, &pod, false).await
}

/// Changes a pod's readiness gate once the controller's status reports the
/// ready pods as they are, then waits until the kubelet has acted on it and
/// the status shows the change. Settling first matters: a stale status can
/// equal the count after the change by coincidence, and the next step would
/// act before the controller has seen it.
async fn set_readiness_settled(
    sc: &mut crate::harness::Scenario,
    pod: &str,
    ready: bool,
) -> anyhow::Result<()> {
    let wait = crate::harness::Scenario::default_wait();
    let set = set_of(pod)?;
    crate::harness::waits::status_counts_ready(sc, &set, wait).await?;
    sc.set_readiness(pod, ready).await?;
    crate::harness::waits::pod_readiness(sc, pod, ready, wait).await?;
    crate::harness::waits::status_counts_ready(sc, &set, wait).await
}

#[when(expr = "the finalizer {string} is removed from pod {string}")]
async fn remove_finalizer(w: &mut KepWorld, finalizer: String, pod: String) -> anyhow::Result<()> {
    let sc = w.sc()?;
    let finalizers: Vec<String> = sc
        .pod_finalizers(&pod)
        .await?
        .into_iter()
        .filter(|f| *f != finalizer)
        .collect();
    Ok(sc.set_pod_finalizers(&pod, finalizers).await?)
}

#[when(regex = r#"^a StatefulSet "([^"]+)" with (\d+) replicas?((?:,| and) .*)? is submitted$"#)]
async fn submit_settings(
    w: &mut KepWorld,
    name: String,
    replicas: i32,
    settings: String,
) -> anyhow::Result<()> {
    let mut spec = crate::harness::SetSpec::new(&name, replicas);
    spec.apply_settings(&settings)
        .map_err(super::world::input_error)?;
    Ok(w.sc()?.submit_set_object(spec.to_object()).await?)
}

#[when(expr = "the checks that follow look only at what happens from here on")]
async fn new_phase(w: &mut KepWorld) -> anyhow::Result<()> {
    let sc = w.sc()?;
    sc.baseline = Some(sc.mark_now().await);
    sc.request_mark = crate::harness::requests::log_position(sc);
    Ok(())
}

#[when(expr = "a StatefulSet is submitted from this manifest:")]
async fn submit(w: &mut KepWorld, step: &Step) -> anyhow::Result<()> {
    let obj = docstring_yaml(step)?;
    Ok(w.sc()?.submit_set_object(obj).await?)
}

#[when(expr = "pods {names} are made ready in turn as they appear at the update revision")]
async fn ready_in_turn(w: &mut KepWorld, names: super::then::Names) -> anyhow::Result<()> {
    let sc = w.sc()?;
    for pod in &names.0 {
        let set = set_of(pod)?;
        crate::harness::waits::pod_at_update_revision(
            sc,
            &set,
            pod,
            crate::harness::Scenario::default_wait(),
        )
        .await?;
        sc.set_readiness(pod, true).await?;
    }
    Ok(())
}

/// The set a pod name belongs to (`web-2` -> `web`).
fn set_of(pod: &str) -> anyhow::Result<String> {
    crate::history::views::split_ordinal(pod)
        .map(|(set, _)| set.to_string())
        .ok_or_else(|| {
            input_error(format!(
                "`{pod}` is not a StatefulSet pod name (<set>-<ordinal>)"
            ))
        })
}

#[when(expr = "the partition of {string} is set to {int}")]
async fn set_partition(w: &mut KepWorld, set: String, partition: i32) -> anyhow::Result<()> {
    Ok(w.sc()?.set_partition(&set, partition).await?)
}

#[when(expr = "the max unavailable of {string} is set to {string}")]
async fn set_max_unavailable(w: &mut KepWorld, set: String, value: String) -> anyhow::Result<()> {
    Ok(w.sc()?.set_max_unavailable(&set, &value).await?)
}

#[when(expr = "pod {string} fails")]
async fn fail_pod(w: &mut KepWorld, pod: String) -> anyhow::Result<()> {
    Ok(w.sc()?.fail_pod(&pod).await?)
}

#[when(expr = "pod {string} succeeds")]
async fn succeed_pod(w: &mut KepWorld, pod: String) -> anyhow::Result<()> {
    Ok(w.sc()?.succeed_pod(&pod).await?)
}

#[when(expr = "the StatefulSet {string} is deleted")]
async fn delete_set(w: &mut KepWorld, set: String) -> anyhow::Result<()> {
    Ok(w.sc()?.delete_set(&set, false).await?)
}

#[when(expr = "the StatefulSet {string} is deleted in the foreground")]
async fn delete_set_foreground(w: &mut KepWorld, set: String) -> anyhow::Result<()> {
    Ok(w.sc()?.delete_set(&set, true).await?)
}

#[when(
    expr = "a revision of {string} with another template takes the name that setting {string} to {string} would give, remembered as {string}"
)]
async fn take_revision_name(
    w: &mut KepWorld,
    set: String,
    var: String,
    value: String,
    label: String,
) -> anyhow::Result<()> {
    let sc = w.sc()?;
    let taken = sc.take_revision_name(&set, &var, &value).await?;
    sc.remembered.insert(label, taken);
    Ok(())
}

#[when(expr = "the current revision of {string} is remembered as {string}")]
async fn remember_current(w: &mut KepWorld, set: String, label: String) -> anyhow::Result<()> {
    remember_revision(
        w,
        &set,
        label,
        "current",
        crate::harness::waits::current_revision,
    )
    .await
}

#[when(expr = "the update revision of {string} is remembered as {string}")]
async fn remember(w: &mut KepWorld, set: String, label: String) -> anyhow::Result<()> {
    remember_revision(
        w,
        &set,
        label,
        "update",
        crate::harness::waits::update_revision,
    )
    .await
}

/// Remembers under `label` the revision `read` finds the set reporting for
/// its current generation (`which` names it in the error).
async fn remember_revision(
    w: &mut KepWorld,
    set: &str,
    label: String,
    which: &str,
    read: for<'t> fn(&'t crate::history::Timeline, &str) -> Option<&'t str>,
) -> anyhow::Result<()> {
    let sc = w.sc()?;
    let t = sc.timeline().await?;
    let rev = read(&t, set)
        .ok_or_else(|| {
            anyhow::anyhow!("{set} does not report the {which} revision of its current generation")
        })?
        .to_string();
    sc.remembered.insert(label, rev);
    Ok(())
}
