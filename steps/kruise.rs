//! Steps of OpenKruise Advanced StatefulSet's own features
//! (`features/vendors/openkruise/`, tag `@kruise`).

use std::time::Duration;

use crate::harness::{checks, clauses, kruise};
use cucumber::{then, when};

use super::then::Names;
use super::world::KepWorld;

#[when(expr = "the label {string} of pod {string} is set to {string}")]
async fn set_label(
    w: &mut KepWorld,
    label: String,
    pod: String,
    value: String,
) -> anyhow::Result<()> {
    Ok(w.sc()?.set_pod_label(&pod, &label, Some(&value)).await?)
}

#[then(expr = "within {int} seconds the pods of {string} are {names}")]
async fn pods_are(w: &mut KepWorld, n: u64, set: String, names: Names) -> anyhow::Result<()> {
    kruise::pods_are(w.sc()?, &set, &names.0, Duration::from_secs(n)).await
}

#[then(expr = "no pod {string} was ever created")]
async fn never_created(w: &mut KepWorld, pod: String) -> anyhow::Result<()> {
    kruise::never_created(w.sc()?, &pod).await
}

#[then(expr = "at no moment were more than {int} created pod(s) of {string} unavailable")]
async fn created_unavailable(w: &mut KepWorld, max: usize, set: String) -> anyhow::Result<()> {
    kruise::existing_unavailable_at_most(w.sc()?, &set, max, clauses::scale_clause()).await
}

#[then(
    expr = "at no moment did specified deletion leave more than {int} pod(s) of {string} unavailable"
)]
async fn specified_unavailable(w: &mut KepWorld, max: usize, set: String) -> anyhow::Result<()> {
    checks::at_most_unavailable_under(w.sc()?, &set, max, clauses::specified_delete_clause()).await
}

#[then(expr = "no pod of {string} was ready while a container ran another image than its spec's")]
async fn never_ready_stale(w: &mut KepWorld, set: String) -> anyhow::Result<()> {
    kruise::never_true_on_another_image(w.sc()?, &set, "Ready").await
}

#[then(
    expr = "no pod of {string} had InPlaceUpdateReady True while a container ran another image than its spec's"
)]
async fn gate_true_stale(w: &mut KepWorld, set: String) -> anyhow::Result<()> {
    kruise::never_true_on_another_image(
        w.sc()?,
        &set,
        crate::controller::plan::IN_PLACE_UPDATE_READY,
    )
    .await
}

#[then(
    expr = "every in-place update of {string} changed images only while InPlaceUpdateReady was False"
)]
async fn in_place_unready(w: &mut KepWorld, set: String) -> anyhow::Result<()> {
    kruise::in_place_changes_waited(w.sc()?, &set, Duration::ZERO).await
}

#[then(
    expr = "every in-place update of {string} changed images in the same write as its revision label"
)]
async fn in_place_one_write(w: &mut KepWorld, set: String) -> anyhow::Result<()> {
    kruise::in_place_in_one_write(w.sc()?, &set).await
}

#[then(
    expr = "every in-place update of {string} changed images at least {int} second(s) after InPlaceUpdateReady turned False"
)]
async fn in_place_grace(w: &mut KepWorld, set: String, n: u64) -> anyhow::Result<()> {
    kruise::in_place_changes_waited(w.sc()?, &set, Duration::from_secs(n)).await
}
