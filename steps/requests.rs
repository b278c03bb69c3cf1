//! Steps on the controller's requests, read from the embedded apiserver's
//! request log.

use crate::harness::requests;
use cucumber::then;

use super::world::KepWorld;

#[then(
    expr = "since the change the controller deleted {int} pods once each, created {int}, and wrote nothing but status, ControllerRevisions and events"
)]
async fn writes_were(w: &mut KepWorld, deletions: usize, creations: usize) -> anyhow::Result<()> {
    requests::writes_were(w.sc()?, deletions, creations).await
}

#[then(
    expr = "the controller asked to create pod {string} before it asked a second time to create pod {string}"
)]
async fn partner_before_retry(
    w: &mut KepWorld,
    partner: String,
    failing: String,
) -> anyhow::Result<()> {
    requests::partner_before_retry(w.sc()?, &partner, &failing).await
}
