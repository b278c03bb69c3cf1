//! Steps on PersistentVolumeClaims' owners: the references the retention
//! policy works through, and their order against the pods' deletion.

use std::time::Duration;

use crate::harness::claim_refs;
use crate::harness::claims as owners;
use crate::history::Kind;
use cucumber::{given, then, when, Parameter};

use super::world::KepWorld;

/// `nothing`, `the StatefulSet "web"`, `pod "web-2"`, or several joined by
/// ` and `.
#[derive(Debug, Default, Parameter)]
#[param(
    name = "owners",
    regex = r#"nothing|(?:the StatefulSet|pod) "[^"]+"(?: and (?:the StatefulSet|pod) "[^"]+")*"#
)]
pub struct Owners(pub String);

impl std::str::FromStr for Owners {
    type Err = std::convert::Infallible;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(Self(s.to_string()))
    }
}

#[then(expr = "every PersistentVolumeClaim of {string} names the cluster's default StorageClass")]
async fn default_storage_class(w: &mut KepWorld, set: String) -> anyhow::Result<()> {
    crate::harness::storage::default_class(w.sc()?, &set).await
}

#[then(expr = "within {int} seconds the PersistentVolumeClaim {string} is owned by {owners}")]
async fn owned_by(w: &mut KepWorld, n: u64, claim: String, want: Owners) -> anyhow::Result<()> {
    let want = owners::parse_owners(&want.0)?;
    owners::claim_owned_by(w.sc()?, &claim, want, Vec::new(), Duration::from_secs(n)).await
}

#[then(
    expr = "within {int} seconds the PersistentVolumeClaim {string} is owned by {owners} besides the owner it was given"
)]
async fn owned_by_besides(
    w: &mut KepWorld,
    n: u64,
    claim: String,
    want: Owners,
) -> anyhow::Result<()> {
    let want = owners::parse_owners(&want.0)?;
    let sc = w.sc()?;
    let (given, _) = claim_refs::given(sc, &claim)?;
    owners::claim_owned_by(sc, &claim, want, given, Duration::from_secs(n)).await
}

#[then(
    expr = "the PersistentVolumeClaim {string} named pod {string} as an owner before the pod was deleted"
)]
async fn owned_before_deleted(w: &mut KepWorld, claim: String, pod: String) -> anyhow::Result<()> {
    owners::check(
        w.sc()?,
        owners::owned_before_deleted,
        (Kind::Pod, &pod),
        &claim,
        &pod,
    )
    .await
}

#[then(expr = "the PersistentVolumeClaim {string} was not deleted before pod {string} was gone")]
async fn outlived(w: &mut KepWorld, claim: String, pod: String) -> anyhow::Result<()> {
    owners::check(
        w.sc()?,
        owners::claim_outlived_pod,
        (Kind::Pod, &pod),
        &claim,
        &pod,
    )
    .await
}

#[given(expr = "the PersistentVolumeClaim {string} has the finalizer {string}")]
#[when(expr = "the PersistentVolumeClaim {string} gets the finalizer {string}")]
async fn claim_finalizer(w: &mut KepWorld, claim: String, finalizer: String) -> anyhow::Result<()> {
    let sc = w.sc()?;
    let mut finalizers = sc.claim_finalizers(&claim).await?;
    finalizers.push(finalizer);
    Ok(sc.set_claim_finalizers(&claim, finalizers).await?)
}

#[when(expr = "the finalizer {string} is removed from the PersistentVolumeClaim {string}")]
async fn claim_unfinalize(
    w: &mut KepWorld,
    finalizer: String,
    claim: String,
) -> anyhow::Result<()> {
    let sc = w.sc()?;
    let finalizers: Vec<String> = sc
        .claim_finalizers(&claim)
        .await?
        .into_iter()
        .filter(|f| *f != finalizer)
        .collect();
    Ok(sc.set_claim_finalizers(&claim, finalizers).await?)
}

#[given(expr = "a ConfigMap {string} is created")]
#[when(expr = "a ConfigMap {string} is created")]
async fn create_config_map(w: &mut KepWorld, name: String) -> anyhow::Result<()> {
    Ok(w.sc()?.create_config_map(&name).await?)
}

#[when(expr = "the PersistentVolumeClaim {string} is controlled by the ConfigMap {string}")]
async fn claim_controlled_by(w: &mut KepWorld, claim: String, cm: String) -> anyhow::Result<()> {
    Ok(w.sc()?.set_claim_controller(&claim, Some(&cm)).await?)
}

#[when(expr = "the ownerReferences of the PersistentVolumeClaim {string} are removed")]
async fn claim_orphaned(w: &mut KepWorld, claim: String) -> anyhow::Result<()> {
    Ok(w.sc()?.set_claim_controller(&claim, None).await?)
}

#[when(expr = "the PersistentVolumeClaim {string} is deleted")]
async fn delete_claim(w: &mut KepWorld, claim: String) -> anyhow::Result<()> {
    Ok(w.sc()?.delete_claim(&claim).await?)
}

#[then(
    expr = "no pod {string} was created while the PersistentVolumeClaim {string} was being deleted"
)]
async fn no_pod_while_deleting(w: &mut KepWorld, pod: String, claim: String) -> anyhow::Result<()> {
    owners::check(
        w.sc()?,
        owners::no_pod_while_claim_deleting,
        (Kind::PersistentVolumeClaim, &claim),
        &claim,
        &pod,
    )
    .await
}

#[then(
    expr = "no pod {string} of {string} was created while the PersistentVolumeClaim {string} named an earlier pod of that name"
)]
async fn no_pod_on_stale_claim(
    w: &mut KepWorld,
    pod: String,
    set: String,
    claim: String,
) -> anyhow::Result<()> {
    owners::check_stale_claim(w.sc()?, &set, &claim, &pod).await
}

#[then(
    expr = "within {int} seconds the PersistentVolumeClaim {string} exists again, bound, as a new object"
)]
async fn claim_recreated(w: &mut KepWorld, n: u64, claim: String) -> anyhow::Result<()> {
    crate::harness::storage::recreated(w.sc()?, &claim, Duration::from_secs(n)).await
}

#[when(
    expr = "the PersistentVolumeClaim {string} is given the ConfigMap {string} as an owner that is not its controller"
)]
async fn give_external(w: &mut KepWorld, claim: String, cm: String) -> anyhow::Result<()> {
    let given = claim_refs::Given::External(cm);
    Ok(claim_refs::give(w.sc()?, &claim, &given).await?)
}

#[when(
    expr = "the PersistentVolumeClaim {string} is given a StatefulSet {string} that does not exist as its controller, and the finalizer {string}"
)]
#[when(
    expr = "the PersistentVolumeClaim {string} is given an earlier StatefulSet {string} of another uid as its controller, and the finalizer {string}"
)]
async fn give_stale(
    w: &mut KepWorld,
    claim: String,
    set: String,
    finalizer: String,
) -> anyhow::Result<()> {
    let given = claim_refs::Given::StaleSet(set, finalizer);
    Ok(claim_refs::give(w.sc()?, &claim, &given).await?)
}

#[when(
    expr = "the PersistentVolumeClaim {string} is given the StatefulSet {string} as an owner that is not its controller"
)]
async fn give_not_controller(w: &mut KepWorld, claim: String, set: String) -> anyhow::Result<()> {
    let given = claim_refs::Given::NotController(set);
    Ok(claim_refs::give(w.sc()?, &claim, &given).await?)
}

#[when(
    expr = "the PersistentVolumeClaim {string} is given pod {string} as an owner that is not its controller"
)]
async fn give_pod_not_controller(
    w: &mut KepWorld,
    claim: String,
    pod: String,
) -> anyhow::Result<()> {
    let given = claim_refs::Given::PodNotController(pod);
    Ok(claim_refs::give(w.sc()?, &claim, &given).await?)
}

#[when(
    expr = "the PersistentVolumeClaim {string} is given the ConfigMap {string} as its controller and the StatefulSet {string} as an owner that is not its controller"
)]
async fn give_controlled_beside_set(
    w: &mut KepWorld,
    claim: String,
    cm: String,
    set: String,
) -> anyhow::Result<()> {
    let given = claim_refs::Given::ControlledBesideSet(cm, set);
    Ok(claim_refs::give(w.sc()?, &claim, &given).await?)
}

#[then(
    expr = "within {int} seconds the PersistentVolumeClaim {string} names only the ConfigMap it was given"
)]
async fn only_config_map_left(w: &mut KepWorld, n: u64, claim: String) -> anyhow::Result<()> {
    claim_refs::only_config_map_left(w.sc()?, &claim, Duration::from_secs(n)).await
}

#[then(
    expr = "every version of the PersistentVolumeClaim {string} since it was given ownerReferences keeps them unchanged"
)]
async fn given_refs_kept(w: &mut KepWorld, claim: String) -> anyhow::Result<()> {
    claim_refs::check_kept(w.sc()?, &claim, false).await
}

#[then(
    expr = "every version of the PersistentVolumeClaim {string} since it was given ownerReferences has exactly those"
)]
async fn given_refs_only(w: &mut KepWorld, claim: String) -> anyhow::Result<()> {
    claim_refs::check_kept(w.sc()?, &claim, true).await
}
