//! Steps that inject faults through the embedded apiserver (scenarios tagged
//! `@isolated @embedded-only`): controller restarts at exact requests,
//! failed, delayed and cut-off requests, stale views, and the crash-point
//! hook of `kepspec explore`.

use std::time::Duration;

use crate::explore::crash_point;
use crate::harness::faults::{self, MustFire, Target};
use crate::harness::{checks, Scenario};
use crate::run::runner::INPUT_ERROR;
use crate::sim::faults::Occurrence;
use crate::sim::stale::Lag;
use cucumber::{given, then, when};

use super::world::KepWorld;

fn input(msg: String) -> anyhow::Error {
    anyhow::anyhow!("{INPUT_ERROR} {msg}")
}

#[given(expr = "the controller may crash after any of its writes")]
#[when(expr = "the controller may crash after any of its writes")]
async fn crash_points(w: &mut KepWorld) -> anyhow::Result<()> {
    crash_point::after_any_write(w.sc()?, "the controller may crash after any of its writes").await
}

#[given(expr = "the controller restarts right after it {word} {word} {string}")]
#[when(expr = "the controller restarts right after it {word} {word} {string}")]
async fn restart_after_object(
    w: &mut KepWorld,
    verb: String,
    kind: String,
    name: String,
) -> anyhow::Result<()> {
    let target = Target::object(&verb, &kind, &name).map_err(input)?;
    let words = format!("the controller restarts right after it {verb} {kind} {name:?}");
    faults::restart_after(w.sc()?, &words, &target, Occurrence::Nth(1)).await
}

#[given(
    expr = "every time the controller {word} {word} {string}, the request fails with code {int}"
)]
#[when(
    expr = "every time the controller {word} {word} {string}, the request fails with code {int}"
)]
async fn fail_every_object(
    w: &mut KepWorld,
    verb: String,
    kind: String,
    name: String,
    code: u16,
) -> anyhow::Result<()> {
    let target = Target::object(&verb, &kind, &name).map_err(input)?;
    let words = format!(
        "every time the controller {verb} {kind} {name:?}, the request fails with code {code}"
    );
    faults::fail(w.sc()?, &words, &target, Occurrence::Every, code)
}

#[given(expr = "the controller restarts right after its {word} status write")]
#[when(expr = "the controller restarts right after its {word} status write")]
async fn restart_after_status(w: &mut KepWorld, nth: String) -> anyhow::Result<()> {
    let n = faults::ordinal(&nth).map_err(input)?;
    let words = format!("the controller restarts right after its {nth} status write");
    faults::restart_after(
        w.sc()?,
        &words,
        &Target::status_writes(),
        Occurrence::Nth(n),
    )
    .await
}

#[given(expr = "{int}% of the controller's writes fail with code {int}")]
#[when(expr = "{int}% of the controller's writes fail with code {int}")]
async fn fail_fraction(w: &mut KepWorld, percent: u32, code: u16) -> anyhow::Result<()> {
    if !(1..=100).contains(&percent) {
        return Err(input(format!(
            "{percent}% is not a fraction between 1% and 100%"
        )));
    }
    let words = format!("{percent}% of the controller's writes fail with code {code}");
    let select = Occurrence::Fraction {
        per_mille: percent * 10,
        seed: u64::from(code),
    };
    faults::fail(w.sc()?, &words, &Target::writes(), select, code)
}

#[given(expr = "the controller's {word} write fails with code {int}")]
#[when(expr = "the controller's {word} write fails with code {int}")]
async fn fail_nth(w: &mut KepWorld, nth: String, code: u16) -> anyhow::Result<()> {
    let n = faults::ordinal(&nth).map_err(input)?;
    let words = format!("the controller's {nth} write fails with code {code}");
    faults::fail(w.sc()?, &words, &Target::writes(), Occurrence::Nth(n), code)
}

#[given(
    expr = "the garbage collector leaves the scenario's objects alone for {int} seconds at most"
)]
#[when(
    expr = "the garbage collector leaves the scenario's objects alone for {int} seconds at most"
)]
async fn hold_collector(w: &mut KepWorld, secs: u64) -> anyhow::Result<()> {
    let words = format!(
        "the garbage collector leaves the scenario's objects alone for {secs} seconds at most"
    );
    faults::hold_collector(w.sc()?, &words, Duration::from_secs(secs))
}

#[when(expr = "the garbage collector takes up the scenario's objects again")]
async fn release_collector(w: &mut KepWorld) -> anyhow::Result<()> {
    faults::release_collector(w.sc()?)
}

#[given(expr = "every {int}th write of the controller is delayed by {int} milliseconds")]
#[when(expr = "every {int}th write of the controller is delayed by {int} milliseconds")]
async fn delay_kth(w: &mut KepWorld, k: u64, ms: u64) -> anyhow::Result<()> {
    if k == 0 {
        return Err(input("every 0th write selects nothing".into()));
    }
    let words = format!("every {k}th write of the controller is delayed by {ms} milliseconds");
    faults::delay(
        w.sc()?,
        &words,
        &Target::writes(),
        Occurrence::EveryKth(k),
        Duration::from_millis(ms),
    )
}

#[given(expr = "every watch of the controller is dropped after {int} milliseconds")]
#[when(expr = "every watch of the controller is dropped after {int} milliseconds")]
async fn drop_watches(w: &mut KepWorld, ms: u64) -> anyhow::Result<()> {
    let words = format!("every watch of the controller is dropped after {ms} milliseconds");
    faults::end_watches(w.sc()?, &words, Duration::from_millis(ms), false).await
}

#[given(expr = "every watch of the controller is closed with 410 after {int} milliseconds")]
#[when(expr = "every watch of the controller is closed with 410 after {int} milliseconds")]
async fn expire_watches(w: &mut KepWorld, ms: u64) -> anyhow::Result<()> {
    let words = format!("every watch of the controller is closed with 410 after {ms} milliseconds");
    faults::end_watches(w.sc()?, &words, Duration::from_millis(ms), true).await
}

/// Serves the controller a stale view for `secs` seconds: of every resource,
/// or of `resource` alone (one lagging informer).
fn stale(
    w: &mut KepWorld,
    words: &str,
    lag: Lag,
    secs: u64,
    resource: Option<&str>,
) -> anyhow::Result<()> {
    let lasting = Duration::from_secs(secs);
    faults::stale_view(w.sc()?, words, lag, lasting, MustFire::Acted, resource)
}

#[given(expr = "the controller's view lags {int} resource versions behind for {int} seconds")]
#[when(expr = "the controller's view lags {int} resource versions behind for {int} seconds")]
async fn stale_by_versions(w: &mut KepWorld, n: u64, secs: u64) -> anyhow::Result<()> {
    let words =
        format!("the controller's view lags {n} resource versions behind for {secs} seconds");
    stale(w, &words, Lag::Versions(n), secs, None)
}

#[given(expr = "the controller's view lags {int} milliseconds behind for {int} seconds")]
#[when(expr = "the controller's view lags {int} milliseconds behind for {int} seconds")]
async fn stale_by_time(w: &mut KepWorld, ms: u64, secs: u64) -> anyhow::Result<()> {
    let words = format!("the controller's view lags {ms} milliseconds behind for {secs} seconds");
    stale(w, &words, Lag::Time(Duration::from_millis(ms)), secs, None)
}

#[given(expr = "the controller's view of {word} lags {int} milliseconds behind for {int} seconds")]
#[when(expr = "the controller's view of {word} lags {int} milliseconds behind for {int} seconds")]
async fn stale_resource_by_time(
    w: &mut KepWorld,
    resource: String,
    ms: u64,
    secs: u64,
) -> anyhow::Result<()> {
    let words = format!(
        "the controller's view of {resource} lags {ms} milliseconds behind for {secs} seconds"
    );
    let lag = Lag::Time(Duration::from_millis(ms));
    stale(w, &words, lag, secs, Some(&resource))
}

#[when(
    expr = "the controller restarts seeing the cluster as it was right after the last change to {string}, for {int} seconds"
)]
async fn restart_onto_past(w: &mut KepWorld, set: String, secs: u64) -> anyhow::Result<()> {
    let words = format!(
        "the controller restarts seeing the cluster as it was right after the last change to {set:?}, for {secs} seconds"
    );
    faults::restart_onto_past(w.sc()?, &words, &set, Duration::from_secs(secs)).await
}

#[when(expr = "the node of pod {string} goes NotReady for {int} second(s)")]
async fn node_not_ready(w: &mut KepWorld, pod: String, secs: u64) -> anyhow::Result<()> {
    faults::node_not_ready_for(w.sc()?, &pod, Duration::from_secs(secs))
        .await
        .map(|_| ())
}

#[then(expr = "every injected fault was triggered")]
async fn all_triggered(w: &mut KepWorld) -> anyhow::Result<()> {
    faults::check_all_triggered(w.sc()?)
}

#[when(expr = "the apiserver stops serving the controller")]
async fn outage_begins(w: &mut KepWorld) -> anyhow::Result<()> {
    crate::harness::outage::begin(w.sc()?)
}

#[when(expr = "the apiserver serves the controller again")]
async fn outage_ends(w: &mut KepWorld) -> anyhow::Result<()> {
    crate::harness::outage::end(w.sc()?)
}

#[then(
    expr = "for {int} seconds no pod of {string} is created or deleted while the controller is refused"
)]
async fn untouched_in_outage(w: &mut KepWorld, n: u64, set: String) -> anyhow::Result<()> {
    // From the moment the controller has been refused: it has seen the
    // change and cannot act on it.
    crate::harness::outage::until_refused(w.sc()?, Scenario::default_wait()).await?;
    let from = w.sc()?.mark_now().await;
    tokio::time::sleep(Duration::from_secs(n)).await;
    let clause = crate::harness::clauses::apiserver_unavailable();
    checks::pods_untouched_citing(w.sc()?, &set, from, Some(clause)).await
}
