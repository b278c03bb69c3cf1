//! Steps of the comparison of strategies over stuck pods (the KEP-3541
//! draft's "Comparison with Existing Solutions", executed).

use crate::harness::comparison;
use cucumber::{then, when};

use super::world::KepWorld;

fn secs(n: u64) -> std::time::Duration {
    std::time::Duration::from_secs(n)
}

#[when(
    regex = r#"^"([^"]+)" is changed to a template that leaves its pods (in ImagePullBackOff|unschedulable|in CrashLoopBackOff|never ready)$"#
)]
async fn break_template(w: &mut KepWorld, set: String, how: String) -> anyhow::Result<()> {
    comparison::break_template(w.sc()?, &set, &how).await
}

#[when(regex = r#"^a fix that (works|is broken too) is applied to "([^"]+)"$"#)]
async fn fix(w: &mut KepWorld, which: String, set: String) -> anyhow::Result<()> {
    comparison::fix(w.sc()?, &set, which == "works").await
}

#[then(expr = "within {int} seconds a pod of {string} created since the change is stuck")]
async fn some_pod_stuck(w: &mut KepWorld, n: u64, set: String) -> anyhow::Result<()> {
    comparison::some_pod_stuck(w.sc()?, &set, secs(n)).await
}

#[then(expr = "{string} recovers within {int} seconds")]
async fn recovers(w: &mut KepWorld, set: String, n: u64) -> anyhow::Result<()> {
    comparison::recovers(w.sc()?, &set, secs(n)).await
}

#[then(expr = "{string} stays stuck")]
async fn stays_stuck(w: &mut KepWorld, set: String) -> anyhow::Result<()> {
    comparison::stays_stuck(w.sc()?, &set, secs(60)).await
}

#[then(
    regex = r#"^the replacements of "([^"]+)" (kept the reverse ordinal sequence|never mixed revisions)$"#
)]
async fn guarantee(w: &mut KepWorld, set: String, which: String) -> anyhow::Result<()> {
    comparison::guarantee(w.sc()?, &set, which.starts_with("kept")).await
}
