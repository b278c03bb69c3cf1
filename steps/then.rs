//! `Then` steps: what must have happened, checked over the recorded history.

use std::time::Duration;

use crate::harness::{checks, waits, Scenario};
use crate::history::rules::PredecessorWait;
use cucumber::{then, when, Parameter};

use super::world::KepWorld;

/// A comma-separated list of pod names: `web-2, web-1, web-0`.
#[derive(Debug, Default, Parameter)]
#[param(
    name = "names",
    regex = r"[a-z0-9][a-z0-9.-]*(?:, [a-z0-9][a-z0-9.-]*)*"
)]
pub struct Names(pub Vec<String>);

impl std::str::FromStr for Names {
    type Err = std::convert::Infallible;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(Self(s.split(", ").map(str::to_string).collect()))
    }
}

fn secs(n: u64) -> Duration {
    Duration::from_secs(n)
}

#[then(expr = "within {int} seconds pod {string} is waiting with reason {string}")]
async fn pod_waiting(w: &mut KepWorld, n: u64, pod: String, reason: String) -> anyhow::Result<()> {
    waits::pod_waiting(w.sc()?, &pod, &reason, secs(n)).await
}

#[then(expr = "within {int} seconds pod {string} is unschedulable")]
async fn pod_unschedulable(w: &mut KepWorld, n: u64, pod: String) -> anyhow::Result<()> {
    waits::pod_unschedulable(w.sc()?, &pod, secs(n)).await
}

#[then(expr = "within {int} seconds pod {string} is terminating")]
async fn pod_terminating(w: &mut KepWorld, n: u64, pod: String) -> anyhow::Result<()> {
    waits::pod_terminating(w.sc()?, &pod, secs(n)).await
}

#[when(
    expr = "within {int} seconds all {int} pods of {string} run the update revision and are ready"
)]
#[then(
    expr = "within {int} seconds all {int} pods of {string} run the update revision and are ready"
)]
async fn rolled_out(w: &mut KepWorld, n: u64, count: usize, set: String) -> anyhow::Result<()> {
    waits::set_rolled_out(w.sc()?, &set, Some(count), secs(n)).await
}

#[then(expr = "within {int} seconds {int} pod(s) of {string} exist(s) at the update revision")]
async fn at_update_revision(
    w: &mut KepWorld,
    n: u64,
    count: usize,
    set: String,
) -> anyhow::Result<()> {
    waits::pods_at_update_revision(w.sc()?, &set, count, secs(n)).await
}

#[then(expr = "the events of {string} reported every old pod deleted before any pod was created")]
async fn deletions_then_creations(w: &mut KepWorld, set: String) -> anyhow::Result<()> {
    checks::deletions_then_creations(w.sc()?, &set).await
}

#[then(expr = "the status of {string} reported 0 available replicas during the update")]
async fn reported_downtime(w: &mut KepWorld, set: String) -> anyhow::Result<()> {
    checks::reported_downtime(w.sc()?, &set).await
}

#[then(
    expr = "every pod of {string} created since the first change is of the revision it ended at"
)]
async fn created_at_final_revision(w: &mut KepWorld, set: String) -> anyhow::Result<()> {
    checks::created_only_at_final_revision(w.sc()?, &set).await
}

#[then(expr = "no pod of the update revision was created while a pod of another revision existed")]
async fn no_mixing(w: &mut KepWorld) -> anyhow::Result<()> {
    checks::no_mixed_revisions(w.sc()?).await
}

#[then(
    regex = r#"^the pods of "([^"]+)" were replaced (all at once|one at a time, highest ordinal first)$"#
)]
async fn replaced_how(w: &mut KepWorld, set: String, how: String) -> anyhow::Result<()> {
    let sc = w.sc()?;
    if how == "all at once" {
        return checks::deleted_all_at_once(sc, &set).await;
    }
    let replicas = sc.sets.get(&set).map(|s| s.replicas).ok_or_else(|| {
        super::world::input_error(format!(
            "no StatefulSet {set:?} was created by this scenario"
        ))
    })?;
    let order: Vec<String> = (0..replicas).rev().map(|i| format!("{set}-{i}")).collect();
    checks::deleted_in_order(sc, &order).await?;
    checks::at_most_unavailable(sc, &set, 1).await
}

#[then(expr = "every pod of {string} was being deleted before any of them was gone")]
async fn deleted_at_once(w: &mut KepWorld, set: String) -> anyhow::Result<()> {
    checks::deleted_all_at_once(w.sc()?, &set).await
}

#[then(expr = "pods were created in the order {names}")]
async fn created_in_order(w: &mut KepWorld, names: Names) -> anyhow::Result<()> {
    checks::created_in_order(w.sc()?, &names.0).await
}

#[then(expr = "pods were deleted in the order {names}")]
async fn deleted_in_order(w: &mut KepWorld, names: Names) -> anyhow::Result<()> {
    checks::deleted_in_order(w.sc()?, &names.0).await
}

#[then(
    expr = "every pod of {string} was created only after its predecessors were running and ready"
)]
async fn after_predecessors_ready(w: &mut KepWorld, set: String) -> anyhow::Result<()> {
    checks::created_after_predecessors(w.sc()?, &set, PredecessorWait::RunningAndReady).await
}

#[then(
    expr = "every pod of {string} was created only after its predecessors had been ready for minReadySeconds"
)]
async fn after_predecessors_available(w: &mut KepWorld, set: String) -> anyhow::Result<()> {
    checks::created_after_predecessors(w.sc()?, &set, PredecessorWait::Available).await
}

#[then(expr = "every PersistentVolumeClaim of {string} kept its uid")]
async fn claims_kept(w: &mut KepWorld, set: String) -> anyhow::Result<()> {
    checks::claims_kept(w.sc()?, &set).await
}

#[then(expr = "at no moment were more than {int} pod(s) of {string} unavailable")]
async fn at_most_unavailable(w: &mut KepWorld, max: usize, set: String) -> anyhow::Result<()> {
    checks::at_most_unavailable(w.sc()?, &set, max).await
}

#[then(expr = "the observedGeneration of {string} never went back")]
async fn observed_generation_monotonic(w: &mut KepWorld, set: String) -> anyhow::Result<()> {
    checks::observed_generation_monotonic(w.sc()?, &set).await
}

#[then(expr = "{string} has condition {string} with status {string} and reason {string}")]
async fn has_condition(
    w: &mut KepWorld,
    set: String,
    type_: String,
    status: String,
    reason: String,
) -> anyhow::Result<()> {
    waits::condition(w.sc()?, &set, &type_, &status, Some(&reason), secs(30)).await
}

#[then(
    expr = "{string} had condition {string} with status {string} and reason {string} during the update"
)]
async fn had_condition(
    w: &mut KepWorld,
    set: String,
    type_: String,
    status: String,
    reason: String,
) -> anyhow::Result<()> {
    checks::condition_seen(w.sc()?, &set, &type_, &status, &reason).await
}

#[then(
    expr = "{string} had condition {string} with status {string} and reason {string} before any pod was created again"
)]
async fn had_condition_first(
    w: &mut KepWorld,
    set: String,
    type_: String,
    status: String,
    reason: String,
) -> anyhow::Result<()> {
    checks::condition_seen_before_creation(w.sc()?, &set, &type_, &status, &reason).await
}

#[then(
    expr = "from the moment the controller observed the change, every status of {string} carried a Progressing condition"
)]
async fn progressing_throughout(w: &mut KepWorld, set: String) -> anyhow::Result<()> {
    crate::harness::conditions::progressing_throughout(w.sc()?, &set).await
}

#[then(
    expr = "the Progressing condition of {string} told the rollout in progress from the rollout finished"
)]
async fn progressing_tells_the_end(w: &mut KepWorld, set: String) -> anyhow::Result<()> {
    crate::harness::conditions::progressing_tells_the_end(w.sc()?, &set).await
}

#[then(
    expr = "from the moment the controller observed the change, no status of {string} carried a Progressing condition"
)]
async fn progressing_absent(w: &mut KepWorld, set: String) -> anyhow::Result<()> {
    crate::harness::conditions::progressing_absent(w.sc()?, &set).await
}

#[then(
    expr = "from the moment the controller observed the change, no status of {string} carried condition {string}"
)]
async fn condition_absent(w: &mut KepWorld, set: String, kind: String) -> anyhow::Result<()> {
    crate::harness::conditions::condition_absent(w.sc()?, &set, &kind).await
}

#[then(expr = "the event {string} was recorded for {string} at most {int} time(s)")]
async fn event_at_most(
    w: &mut KepWorld,
    reason: String,
    set: String,
    times: usize,
) -> anyhow::Result<()> {
    checks::event_at_most(w.sc()?, &set, &reason, times).await
}

#[then(expr = "the event {string} was recorded for {string} exactly {int} time(s)")]
async fn event_times(
    w: &mut KepWorld,
    reason: String,
    set: String,
    times: usize,
) -> anyhow::Result<()> {
    checks::event_recorded(w.sc()?, &set, &reason, Some(times)).await
}

#[then(expr = "for {int} seconds no pod of {string} is created or deleted")]
async fn untouched_for(w: &mut KepWorld, n: u64, set: String) -> anyhow::Result<()> {
    // Observed from the moment this step begins.
    waits::controller_observed(w.sc()?, Scenario::default_wait()).await?;
    let from = w.sc()?.mark_now().await;
    tokio::time::sleep(secs(n)).await;
    checks::pods_untouched(w.sc()?, &set, from).await
}

#[then(expr = "for {int} seconds pod {string} is neither deleted nor replaced")]
async fn kept_for(w: &mut KepWorld, n: u64, pod: String) -> anyhow::Result<()> {
    // Observed from the moment this step begins.
    waits::controller_observed(w.sc()?, Scenario::default_wait()).await?;
    let from = w.sc()?.mark_now().await;
    tokio::time::sleep(secs(n)).await;
    checks::pod_kept(w.sc()?, &pod, from).await
}

#[then(expr = "pod {string} was neither deleted nor replaced")]
async fn kept_since_baseline(w: &mut KepWorld, pod: String) -> anyhow::Result<()> {
    // Over the whole history since the scenario's first change (or since
    // "the checks that follow look only at what happens from here on").
    let from = w.sc()?.baseline_mark();
    checks::pod_kept(w.sc()?, &pod, from).await
}

#[then(expr = "for {int} seconds no further pod of the update revision of {string} is created")]
async fn none_at_update_for(w: &mut KepWorld, n: u64, set: String) -> anyhow::Result<()> {
    // Observed from the moment this step begins.
    waits::controller_observed(w.sc()?, Scenario::default_wait()).await?;
    let from = w.sc()?.mark_now().await;
    tokio::time::sleep(secs(n)).await;
    checks::none_at_update_revision(w.sc()?, &set, from).await
}

#[then(
    expr = "the update of {string} completed within its pods' termination and startup time plus {int} seconds"
)]
async fn slo(w: &mut KepWorld, set: String, slack: u64) -> anyhow::Result<()> {
    checks::completed_within_slo(w.sc()?, &set, secs(slack)).await
}

#[then(expr = "the request is accepted")]
async fn accepted(w: &mut KepWorld) -> anyhow::Result<()> {
    match &w.sc()?.last_refusal {
        None => Ok(()),
        Some(r) => anyhow::bail!("the request was refused: {r}"),
    }
}

#[then(expr = "the request is refused with code {int} and a message containing {string}")]
async fn refused(w: &mut KepWorld, code: u16, text: String) -> anyhow::Result<()> {
    checks::refused(w.sc()?, code, &text)
}

#[then(expr = "at some moment {int} pod(s) of {string} were unavailable at once")]
async fn budget_used(w: &mut KepWorld, n: usize, set: String) -> anyhow::Result<()> {
    checks::budget_used(w.sc()?, &set, n).await
}

#[then(expr = "pods of {string} below ordinal {int} were neither deleted nor replaced")]
async fn below_partition(w: &mut KepWorld, set: String, partition: i32) -> anyhow::Result<()> {
    checks::below_partition_untouched(w.sc()?, &set, partition).await
}

#[then(expr = "pod {string} of {string} runs the update revision")]
async fn runs_update(w: &mut KepWorld, pod: String, set: String) -> anyhow::Result<()> {
    checks::pod_revision(w.sc()?, &pod, &set, true).await
}

#[then(expr = "pod {string} of {string} runs the current revision")]
async fn runs_current(w: &mut KepWorld, pod: String, set: String) -> anyhow::Result<()> {
    checks::pod_revision(w.sc()?, &pod, &set, false).await
}

#[then(
    expr = "within {int} seconds pod {string} of {string} runs the update revision and is ready"
)]
async fn pod_ready_at_update(
    w: &mut KepWorld,
    n: u64,
    pod: String,
    set: String,
) -> anyhow::Result<()> {
    waits::pod_ready_at(w.sc()?, &set, &pod, waits::Which::Update, secs(n)).await
}

#[then(
    expr = "within {int} seconds pod {string} of {string} runs the current revision and is ready"
)]
async fn pod_ready_at_current(
    w: &mut KepWorld,
    n: u64,
    pod: String,
    set: String,
) -> anyhow::Result<()> {
    waits::pod_ready_at(w.sc()?, &set, &pod, waits::Which::Current, secs(n)).await
}

#[then(expr = "within {int} seconds the PersistentVolumeClaim {string} is gone")]
async fn claim_gone(w: &mut KepWorld, n: u64, claim: String) -> anyhow::Result<()> {
    waits::claim_presence(w.sc()?, &claim, false, secs(n)).await
}

#[then(expr = "within {int} seconds the PersistentVolumeClaim {string} exists")]
async fn claim_exists(w: &mut KepWorld, n: u64, claim: String) -> anyhow::Result<()> {
    waits::claim_presence(w.sc()?, &claim, true, secs(n)).await
}

#[then(expr = "for {int} seconds the PersistentVolumeClaim {string} is kept")]
async fn claim_kept_for(w: &mut KepWorld, n: u64, claim: String) -> anyhow::Result<()> {
    waits::claim_kept_for(w.sc()?, &claim, secs(n)).await
}

/// The revision remembered under `label`; an input error when none was.
fn remembered(sc: &Scenario, label: &str) -> anyhow::Result<String> {
    sc.remembered.get(label).cloned().ok_or_else(|| {
        super::world::input_error(format!("no revision was remembered as {label:?}"))
    })
}

#[then(
    expr = "within {int} seconds pod {string} of {string} runs the revision remembered as {string} and is ready"
)]
async fn pod_ready_at_remembered(
    w: &mut KepWorld,
    n: u64,
    pod: String,
    set: String,
    label: String,
) -> anyhow::Result<()> {
    let sc = w.sc()?;
    let revision = remembered(sc, &label)?;
    waits::pod_ready_at(sc, &set, &pod, waits::Which::Remembered(revision), secs(n)).await
}

#[then(
    expr = "at no moment did {string} report another current revision than the one remembered as {string}"
)]
async fn current_kept(w: &mut KepWorld, set: String, label: String) -> anyhow::Result<()> {
    let sc = w.sc()?;
    let revision = remembered(sc, &label)?;
    checks::current_revision_kept(sc, &set, &revision).await
}

#[then(expr = "at no moment did a pod of {string} run the revision remembered as {string}")]
async fn revision_never_run(w: &mut KepWorld, set: String, label: String) -> anyhow::Result<()> {
    let sc = w.sc()?;
    let revision = remembered(sc, &label)?;
    checks::revision_never_run(sc, &set, &revision).await
}

#[then(
    expr = "within {int} seconds the only ControllerRevisions of {string} are the ones its status or its pods name"
)]
async fn history_only_live(w: &mut KepWorld, n: u64, set: String) -> anyhow::Result<()> {
    waits::history_only_live(w.sc()?, &set, secs(n)).await
}

#[then(
    expr = "at no moment was a ControllerRevision of {string} deleted while its status or one of its pods named it"
)]
async fn live_revisions_kept(w: &mut KepWorld, set: String) -> anyhow::Result<()> {
    checks::live_revisions_kept(w.sc()?, &set).await
}

#[then(expr = "within {int} seconds the revision remembered as {string} has revision number {int}")]
async fn revision_number(
    w: &mut KepWorld,
    n: u64,
    label: String,
    number: i64,
) -> anyhow::Result<()> {
    let sc = w.sc()?;
    let revision = remembered(sc, &label)?;
    waits::revision_number(sc, &revision, number, secs(n)).await
}

#[then(
    expr = "every ControllerRevision of {string} got its revision number one above the highest of its other revisions"
)]
async fn revision_numbers_next(w: &mut KepWorld, set: String) -> anyhow::Result<()> {
    checks::revision_numbers_next(w.sc()?, &set).await
}

#[then(expr = "the update revision of {string} is the one remembered as {string}")]
async fn is_remembered(w: &mut KepWorld, set: String, label: String) -> anyhow::Result<()> {
    let sc = w.sc()?;
    let want = remembered(sc, &label)?;
    let t = sc.timeline().await?;
    match waits::update_revision(&t, &set) {
        Some(have) if have == want => Ok(()),
        have => anyhow::bail!(
            "{set}'s update revision is {}, expected {want} (remembered as {label:?})",
            have.unwrap_or("unknown")
        ),
    }
}

#[then(expr = "{string} reports its current revision equal to its update revision")]
async fn current_is_update(w: &mut KepWorld, set: String) -> anyhow::Result<()> {
    waits::current_is_update(w.sc()?, &set, secs(30)).await
}

#[then(expr = "within {int} seconds {string} has observed its latest generation")]
async fn observed_generation_within(w: &mut KepWorld, n: u64, set: String) -> anyhow::Result<()> {
    waits::observed_latest_generation(w.sc()?, &set, secs(n)).await
}

#[then(expr = "{string} has observed its latest generation")]
async fn observed_generation(w: &mut KepWorld, set: String) -> anyhow::Result<()> {
    let sc = w.sc()?;
    let t = sc.timeline().await?;
    let kind = crate::history::Kind::StatefulSet;
    let generation = checks::field(&t, kind, &set, "/metadata/generation").unwrap_or_default();
    checks::field_is(sc, kind, &set, "/status/observedGeneration", &generation).await
}

#[then(expr = "within {int} seconds the controller reports {string} of {string} as {int}")]
async fn metric_reports(
    w: &mut KepWorld,
    n: u64,
    metric: String,
    set: String,
    value: i64,
) -> anyhow::Result<()> {
    let exactly = waits::Compare::Exactly;
    waits::metric_reports(w.sc()?, &metric, Some(&set), exactly, value as f64, secs(n)).await
}

#[then(expr = "the controller never counted {string} of {string}")]
async fn metric_never_counted(w: &mut KepWorld, metric: String, set: String) -> anyhow::Result<()> {
    waits::metric_never_counted(w.sc()?, &metric, &set).await
}

#[then(expr = "within {int} seconds the controller reports {string} as {int}")]
async fn metric_reports_overall(
    w: &mut KepWorld,
    n: u64,
    metric: String,
    value: i64,
) -> anyhow::Result<()> {
    let exactly = waits::Compare::Exactly;
    waits::metric_reports(w.sc()?, &metric, None, exactly, value as f64, secs(n)).await
}

#[then(expr = "within {int} seconds the controller reports {string} as at least {int}")]
async fn metric_reports_at_least(
    w: &mut KepWorld,
    n: u64,
    metric: String,
    value: i64,
) -> anyhow::Result<()> {
    let at_least = waits::Compare::AtLeast;
    waits::metric_reports(w.sc()?, &metric, None, at_least, value as f64, secs(n)).await
}

#[then(expr = "the controller reports {string} as at most {int}")]
async fn metric_at_most(w: &mut KepWorld, metric: String, value: i64) -> anyhow::Result<()> {
    waits::metric_at_most(w.sc()?, &metric, value as f64).await
}

#[then(expr = "within {int} seconds the controller's {string} keeps one value for {int} seconds")]
async fn metric_steady(
    w: &mut KepWorld,
    within: u64,
    metric: String,
    n: u64,
) -> anyhow::Result<()> {
    waits::metric_steady(w.sc()?, &metric, secs(n), secs(within)).await
}

#[then(
    expr = "the scale subresource of {string} reports {int} replica(s) and the selector {string}"
)]
async fn scale_reports(
    w: &mut KepWorld,
    set: String,
    replicas: i32,
    selector: String,
) -> anyhow::Result<()> {
    let scale = w.sc()?.read_scale(&set).await?;
    let spec = scale.spec.as_ref().and_then(|s| s.replicas);
    let status = scale.status.as_ref().map(|s| s.replicas);
    let served = scale.status.as_ref().and_then(|s| s.selector.clone());
    anyhow::ensure!(
        spec == Some(replicas) && status == Some(replicas) && served.as_deref() == Some(selector.as_str()),
        "the scale of {set} reports spec.replicas {spec:?}, status.replicas {status:?}, status.selector {served:?}; expected {replicas}, {replicas} and {selector:?}"
    );
    Ok(())
}

#[then(expr = "within {int} seconds the status of {string} reports {int} available replica(s)")]
async fn status_available(
    w: &mut KepWorld,
    n: u64,
    set: String,
    available: i64,
) -> anyhow::Result<()> {
    waits::status_available(w.sc()?, &set, available, secs(n)).await
}

#[then(expr = "within {int} seconds pod {string} has {string} set to {string}")]
async fn pod_field_within(
    w: &mut KepWorld,
    n: u64,
    pod: String,
    pointer: String,
    value: String,
) -> anyhow::Result<()> {
    waits::pod_field(w.sc()?, &pod, &pointer, &value, secs(n)).await
}

#[then(expr = "pod {string} has {string} set to {string}")]
async fn pod_field(
    w: &mut KepWorld,
    pod: String,
    pointer: String,
    value: String,
) -> anyhow::Result<()> {
    checks::field_is(w.sc()?, crate::history::Kind::Pod, &pod, &pointer, &value).await
}

#[then(expr = "the PersistentVolumeClaim {string} has {string} set to {string}")]
async fn claim_field(
    w: &mut KepWorld,
    claim: String,
    pointer: String,
    value: String,
) -> anyhow::Result<()> {
    checks::field_is(
        w.sc()?,
        crate::history::Kind::PersistentVolumeClaim,
        &claim,
        &pointer,
        &value,
    )
    .await
}

#[then(expr = "the StatefulSet {string} has {string} set to {string}")]
async fn set_field(
    w: &mut KepWorld,
    set: String,
    pointer: String,
    value: String,
) -> anyhow::Result<()> {
    checks::field_is(
        w.sc()?,
        crate::history::Kind::StatefulSet,
        &set,
        &pointer,
        &value,
    )
    .await
}

#[then(expr = "the StatefulSet {string} has {string} unset")]
async fn set_field_unset(w: &mut KepWorld, set: String, pointer: String) -> anyhow::Result<()> {
    checks::field_unset(w.sc()?, crate::history::Kind::StatefulSet, &set, &pointer).await
}

#[then(expr = "no Warning event was recorded for {string}")]
async fn no_warnings(w: &mut KepWorld, set: String) -> anyhow::Result<()> {
    checks::no_warning_events(w.sc()?, &set).await
}

#[then(expr = "no ControllerRevision of {string} was created since the first change")]
async fn no_revision_created(w: &mut KepWorld, set: String) -> anyhow::Result<()> {
    checks::no_revision_created(w.sc()?, &set).await
}

#[then(expr = "no pod of {string} was terminated out of order")]
async fn terminated_in_order(w: &mut KepWorld, set: String) -> anyhow::Result<()> {
    checks::terminated_in_order(w.sc()?, &set).await
}

#[then(
    expr = "every pod of {string} was replaced only once each higher ordinal ran its revision and was Ready"
)]
async fn enforced_sequence(w: &mut KepWorld, set: String) -> anyhow::Result<()> {
    checks::enforced_order(w.sc()?, &set, false).await
}

#[then(expr = "no pod of {string} was replaced while its highest ordinal was not Ready")]
async fn enforced_safety(w: &mut KepWorld, set: String) -> anyhow::Result<()> {
    checks::enforced_order(w.sc()?, &set, true).await
}

#[then(expr = "a pod of {string} was deleted while an earlier replacement was still unavailable")]
async fn budget_refilled(w: &mut KepWorld, set: String) -> anyhow::Result<()> {
    checks::budget_refilled(w.sc()?, &set).await
}

#[then(expr = "pods {names} were each gone before the next one was deleted")]
async fn one_after_another(w: &mut KepWorld, names: Names) -> anyhow::Result<()> {
    checks::deleted_one_after_another(w.sc()?, &names.0).await
}

#[then(expr = "pods of {string} were deleted without waiting for each other")]
async fn deleted_concurrently(w: &mut KepWorld, set: String) -> anyhow::Result<()> {
    checks::deleted_concurrently(w.sc()?, &set).await
}

#[then(expr = "every PersistentVolumeClaim of {string} kept its volume")]
async fn claims_kept_volume(w: &mut KepWorld, set: String) -> anyhow::Result<()> {
    checks::claims_kept_volume(w.sc()?, &set).await
}

#[then(
    expr = "within {int} seconds pod {string} of {string} is terminating and the controller has seen it"
)]
async fn terminating_seen(
    w: &mut KepWorld,
    n: u64,
    pod: String,
    set: String,
) -> anyhow::Result<()> {
    waits::pod_terminating_seen(w.sc()?, &set, &pod, secs(n)).await
}

#[then(
    expr = "within {int} seconds pod {string} of {string} is not ready and the controller has seen it"
)]
async fn unready_seen(w: &mut KepWorld, n: u64, pod: String, set: String) -> anyhow::Result<()> {
    waits::pod_unready_seen(w.sc()?, &set, &pod, secs(n)).await
}

#[then(
    expr = "within {int} seconds the status of {string} reports {int} replica(s), {int} of them ready"
)]
async fn status_reports(
    w: &mut KepWorld,
    n: u64,
    set: String,
    replicas: i64,
    ready: i64,
) -> anyhow::Result<()> {
    waits::status_reports(w.sc()?, &set, replicas, ready, secs(n)).await
}

#[then(expr = "within {int} seconds a watch of {string} saw the condition {string}")]
async fn condition_watched(
    w: &mut KepWorld,
    n: u64,
    set: String,
    type_: String,
) -> anyhow::Result<()> {
    crate::harness::status_writes::condition_arrives(w.sc()?, &set, &type_, secs(n)).await
}

#[then(
    expr = "a list of StatefulSets in every namespace selected by {string} holds {string} and no other of this scenario"
)]
async fn list_holds(w: &mut KepWorld, labels: String, set: String) -> anyhow::Result<()> {
    crate::harness::collections::list_holds(w.sc()?, &labels, Some(&set), secs(0)).await
}

#[then(
    expr = "within {int} seconds a list of StatefulSets in every namespace selected by {string} holds none of this scenario"
)]
async fn list_holds_none(w: &mut KepWorld, n: u64, labels: String) -> anyhow::Result<()> {
    crate::harness::collections::list_holds(w.sc()?, &labels, None, secs(n)).await
}

#[then(
    expr = "within {int} seconds pods {names} of {string} exist, and after {int} more seconds no other pod of it was ever created"
)]
async fn only_these_created(
    w: &mut KepWorld,
    n: u64,
    names: Names,
    set: String,
    hold: u64,
) -> anyhow::Result<()> {
    crate::harness::created::only_these(w.sc()?, &set, names.0, secs(n), secs(hold)).await
}
