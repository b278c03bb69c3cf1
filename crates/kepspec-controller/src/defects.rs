//! Deliberate controller defects, each breaking one clause of the spec, so a
//! test can show that every scenario is able to fail. Compiled only with the
//! `defects` cargo feature; a release build has no way to switch one on.
//!
//! A defect distorts what the controller *sees* (before [`plan`]) or what it
//! *does* (after), never the decision core itself, which stays exactly the
//! code that runs in production. The defect is chosen with the environment
//! variable `KEPSPEC_DEFECT`.
//!
//! [`plan`]: super::plan::plan

use kepspec_core::Lookup as _;
use std::str::FromStr;
use std::sync::Arc;

use k8s_openapi::api::apps::v1::{StatefulSet, StatefulSetSpec, StatefulSetStatus};
use k8s_openapi::api::core::v1::{PersistentVolumeClaim, Pod};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

use super::plan::{
    Action, ControllerGates, DeleteReason, Phase, Plan, RecreatePhase, RECREATE_STARTED,
};
use super::pods;

/// The environment variable that selects a defect.
pub const VARIABLE: &str = "KEPSPEC_DEFECT";

/// One deliberate defect and the clause it breaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Defect {
    /// KEP-3541 Phase 2: creates new pods while old ones are still terminating.
    CreateBeforeGone,
    /// KEP-3541 Phase 1: leaves old pods with ordinals >= replicas alone.
    SkipOrphans,
    /// KEP-3541 Phase 1: deletes old pods one at a time, each after the
    /// previous one is gone, instead of all at once.
    OneAtATimeRecreate,
    /// KEP-3541 "Clear Events": no RecreateStarted event.
    NoRecreateStartedEvent,
    /// KEP-3541 "Status Conditions": no Progressing condition.
    NoProgressingCondition,
    /// KEP-3541 PVC Preservation: deletes the claims of the pods it deletes.
    DeleteClaims,
    /// KEP-961: one more pod than maxUnavailable allows.
    BudgetOffByOne,
    /// KEP-961 / minReadySeconds: counts a pod available as soon as it is ready.
    IgnoreMinReadySeconds,
    /// Partitioned rolling updates: updates pods below the partition.
    IgnorePartition,
    /// OrderedReady: creates and deletes without waiting for predecessors.
    NoPredecessorWait,
    /// KEP-3541 skew: acts on Recreate although its gate is off.
    IgnoreRecreateGate,
    /// KEP-961 skew: uses maxUnavailable although its gate is off.
    IgnoreMaxUnavailableGate,
    /// Rolling updates: treats RollingUpdate as Recreate.
    RollingUpdateAsRecreate,
    /// Failed pods: never replaced.
    KeepFailedPods,
    /// KEP-3541 PVC Preservation, on resume: on its first sync of a set after
    /// a start, deletes the claims of pods it does not see running (taking
    /// them for leftovers). Harmless in a run without restarts; caught by a
    /// restart between a Recreate deletion and the recreation.
    ResumeDeletesClaims,
    /// KEP-5647 / stale caches: lists with `resourceVersion=0`, accepting
    /// whatever a (possibly lagging) apiserver cache holds, so a restarted
    /// controller can act on a view older than one it already acted on.
    RelistFromCache,
    /// Status after a failed action (kubernetes#108837): returns at the first
    /// failed action without recording the status it computed.
    NoStatusOnFailure,
    /// Status truth: reports every replica ready, whatever the pods say.
    StatusClaimsReady,
    /// OrderedReady scale-down: takes a terminating condemned pod for gone,
    /// so it deletes the next one before the previous one has terminated.
    DeleteNextBeforeGone,
    /// KEP-3541 "Clear Events": emits RecreateStarted before the status
    /// recording the rollout is written, so a lost status write repeats it.
    EventBeforeStatus,
    /// KEP-3541 Phase 1: while old pods remain, deletes every pod of the
    /// set, those already at the update revision too.
    RecreateDeletesUpdated,
    /// KEP-3541 triggers: takes a pod of the update revision that was ready
    /// and is no longer for a stuck one, and recreates it (the
    /// "readiness signals" design sig-apps rejected).
    RecreateUnready,
    /// KEP-3541 "Clear Events": emits RecreateStarted again whenever a
    /// Recreate set's sync creates a pod.
    RecreateStartedOnCreate,
    /// KEP-3541 SLI: keeps reporting the counts of before while a Recreate
    /// deletes, waits or creates (its condition and revisions move on), and
    /// counts again only once every replica exists, so the status never
    /// shows the downtime.
    SilentRecreate,
    /// KEP-3541 "Clear Events": emits RecreateStarted for the first Recreate
    /// of a set only, not for a later rollout.
    RecreateStartedOncePerSet,
    /// KEP-3541 draft: treats EnforcedRollingUpdate as RollingUpdate
    /// although its gate is on.
    EnforcedAsRolling,
    /// KEP-3541 draft skew: acts on EnforcedRollingUpdate although its gate
    /// is off.
    IgnoreEnforcedGate,
    /// KEP-3541 draft: forces through every ordinal, taking each new pod
    /// for Ready (no wait, no safety halt).
    EnforcedNoWait,
    /// KEP-3541 draft: the OrderedReady walk of an EnforcedRollingUpdate
    /// set passes over every pod, as under Parallel, not only the ones the
    /// rollout will replace ("Before a scaling operation is applied to a
    /// Pod, all of its predecessors must be Running and Ready").
    EnforcedWalkPassesAll,
    /// KEP-3541 draft: emits ForcedReplacement for every replacement, the
    /// healthy ones too.
    ForcedEveryDeletion,
    /// KEP-3541 draft "Monitoring Requirements": counts a safety halt
    /// whenever the highest ordinal runs the update revision while lower
    /// ordinals wait, a pod that is only starting too.
    HaltWhileStarting,
    /// KEP-3541 draft "Monitoring Requirements": takes only a waiting
    /// container or a Failed pod for a failure, so an unschedulable highest
    /// ordinal is no safety halt.
    UnschedulableNoHalt,
    /// Status: keeps counting a pod of the current revision as current while
    /// it terminates (upstream counts only pods not being deleted).
    CurrentCountsTerminating,
    /// Status after a Recreate: never moves `currentRevision` to the update
    /// revision (nor `currentReplicas` to the updated count), as upstream's
    /// RollingUpdate-only `completeRollingUpdate` would leave it; upstream's
    /// Recreate e2e tests require the promotion "on update completion".
    RecreateNeverPromotes,
    /// KEP-3541 Goal 6: a Progressing condition for every strategy that never
    /// changes (True, reason Progressing), so it tells nothing of progress.
    ConstantProgressing,
    /// KEP-3541 Phase 2: deletes the orphans (ordinals >= replicas) but does
    /// not wait for them to be gone before creating the new pods.
    OrphansNotAwaited,
    /// KEP-961: takes a percentage maxUnavailable of the staged pods
    /// (replicas - partition) instead of the desired pods.
    PercentOfStaged,
    /// KEP-3541 draft: creates a missing pod below the enforcedRollingUpdate
    /// block's partition at the update revision, where a partition keeps
    /// lower ordinals at the current one.
    EnforcedPartitionAtUpdate,
    /// KEP-3541 draft: counts a replacement as forced (event and counter)
    /// only when the pod was failing (ImagePullBackOff and the like), not
    /// when it ran but was not Ready.
    ForcedOnlyWhenFailing,
    /// KEP-3541 draft: keeps the StatefulSetUpdateStrategy condition after
    /// the set switched to another strategy.
    StrategyConditionStays,
    /// KEP-3541 draft skew: with the controller's gate off, falls back to
    /// RollingUpdate but keeps the enforcedRollingUpdate block's partition
    /// (upstream's controller never reads that block).
    GateOffKeepsEnforcedPartition,
    /// With MaxUnavailableStatefulSet off, the one-at-a-time rolling update
    /// waits for Running and Ready only, not for minReadySeconds.
    LegacyLoopReadyOnly,
    /// With MaxUnavailableStatefulSet off, runs KEP-961's budget path with
    /// a budget of 1 instead of the rolling update of before KEP-961: it
    /// counts unavailable pods below the partition too.
    GateOffBudgetOfOne,
    /// With MaxUnavailableStatefulSet off, the rolling update ignores
    /// `partition` and replaces the pods below it too.
    GateOffIgnoresPartition,
    /// With MaxUnavailableStatefulSet off, a Parallel set's rolling update
    /// replaces every pod above the partition at once, highest first, as if
    /// `podManagementPolicy` governed updates too (KEP-961: "The `Parallel`
    /// mode only supports scale up and tear down of StatefulSets and
    /// currently doesn't apply to Rolling Updates").
    GateOffParallelUpdate,
    /// Adoption by the selector alone, without upstream's name rule
    /// (`isMemberOf`).
    AdoptBySelector,
    /// Adoption (upstream's `ClaimObject`): takes a pod another controller
    /// controls for its own when its selector and name rule match it.
    ClaimOthersPods,
    /// Adoption (upstream's `ClaimObject`): releases a pod its selector no
    /// longer matches while the set is being deleted.
    ReleaseWhileDeleting,
    /// Adoption (upstream's `ClaimObject`): adopts a matching orphan that is
    /// itself being deleted.
    AdoptTerminatingOrphan,
    /// Adoption: adopts on its cached view of the set alone, without
    /// reading the set again first (upstream's `RecheckDeletionTimestamp`).
    AdoptWithoutRecheck,
    /// KEP-3541 Phase 1: reports RecreateInProgress only once it creates
    /// pods again, keeping the condition it had while it deletes and waits.
    LateRecreateInProgress,
    /// PersistentVolumeClaim retention, crash safety: deletes a condemned pod
    /// before it makes the pod its claims' owner (the claims still go, by the
    /// garbage collector, once the reference is set).
    ClaimOwnerAfterDelete,
    /// PersistentVolumeClaim retention: sets no ownerReferences on claims and
    /// deletes a condemned pod's claims itself, with the pod, under
    /// whenScaled Delete.
    ClaimsWithoutOwners,
    /// PersistentVolumeClaim ownership: treats every ownerReference of a
    /// claim that names neither its set nor one of its pods as absent, so
    /// its claim updates replace them (upstream's
    /// `updateClaimOwnerRefForSetAndPod` keeps them, and leaves a claim
    /// another controller controls alone).
    ClaimOwnerTakeover,
    /// Retention: takes a claim's owner reference for its set's by the name
    /// alone, whatever its apiVersion and kind (upstream's `matchesRef`
    /// compares all three), so another owner named like the set reads as a
    /// stale reference to it and the claim is left alone.
    OwnerByName,
    /// Retention: leaves its own reference on a claim that another
    /// controller controls (upstream's `updateClaimOwnerRefForSetAndPod`
    /// scrubs the set's and the pod's references from such a claim).
    OwnRefBesideForeignController,
    /// Retention: under whenScaled Delete, does not see that another object
    /// controls a claim and adds the claim's pod as its controller beside
    /// that one (upstream's `updateClaimOwnerRefForSetAndPod` leaves such a
    /// claim alone; kube-apiserver refuses a second controller reference,
    /// so the claim update fails in every sync).
    SecondClaimController,
    /// Retention: takes a claim's reference to its pod for a controller
    /// reference whatever its `controller` flag, so a flag cleared on the
    /// pod's reference is never restored (upstream's `hasNonControllerOwner`
    /// finds the set's and the pod's references alike).
    PodFlagNotRestored,
    /// Retention: does not see a claim's reference to an earlier set of
    /// its name (same apiVersion, kind and name, another uid), so it takes
    /// the claim for its own and replaces that reference with its own
    /// (upstream's `hasStaleOwnerRef`: such a claim "should not be
    /// touched").
    StaleRefTakenOver,
    /// PersistentVolumeClaim retention: does not see a claim's reference to
    /// a pod that no longer exists, so under whenScaled Delete it creates a
    /// pod again at once on the claim the garbage collector is about to
    /// delete (upstream's `PodClaimIsStale` makes the pod wait).
    StaleClaimIgnored,
    /// PersistentVolumeClaim retention: takes a claim's owner of another
    /// kind named like one of the set's pods for that pod, so under
    /// whenScaled Delete the pod waits for ever on a claim it holds stale
    /// (upstream's `matchesRef` compares group, kind and name).
    StaleByName,
    /// Parallel pod management: performs a sync's creations and deletions one
    /// by one, stopping at the first that fails, instead of in slow-start
    /// batches (so a failing creation holds back every higher ordinal).
    NoSlowStart,
    /// Parallel pod management: performs only a sync's first slow-start
    /// batch at once and the rest one by one, stopping at the first failure;
    /// a failing creation's batch partners wait for the next sync, which
    /// starts its own batch with them.
    FirstBatchOnly,
    /// Events: writes the set's events with a reference that has no uid
    /// (built from the set's name and namespace by hand), so
    /// `kubectl describe statefulset`, which looks events up by the set's
    /// uid as well, never shows them.
    EventsWithoutUid,
    /// OrderedReady scale-down: never deletes a condemned pod that is not
    /// Running and Ready, the first unhealthy one included, so a scale-down
    /// past an unready pod never finishes (the hang of kubernetes#123918).
    CondemnedWaitsForReady,
    /// The KEP-3541 draft's PVC deletion race: takes a claim being deleted
    /// for a live one, so it creates the pod again at once.
    IgnoreClaimDeletion,
    /// minReadySeconds: takes a set that names none (0) for 10 seconds.
    UnsetMinReadyAsTen,
    /// KEP-3541 Phase 1: takes a pod of an old revision that is already
    /// terminating for a live one and sends it another DELETE on every sync.
    RedeleteTerminating,
    /// Identity: gives each new pod the set's name as its subdomain instead
    /// of `serviceName`.
    SubdomainIsSetName,
    /// KEP-3541 Phase 3: creates a Recreate's new pods one at a time, each
    /// after its predecessor is ready, under Parallel too.
    RecreateIgnoresParallel,
    /// Stable storage: writes `storageClassName: ""` on a claim whose
    /// template names no class (a zero value for an unset pointer), which
    /// asks for no class and keeps the cluster's default away.
    EmptyStorageClass,
    /// Adoption: neither adopts orphans nor releases pods it no longer
    /// matches; sees only what it already controls.
    NoAdoption,
    /// Claims: never creates the missing claim of a pod that exists (a
    /// Pending pod whose claim was deleted waits for it forever).
    NoMissingClaims,
    /// Revisions: takes the revision before the newest one for the current
    /// revision while a rollout is under way, so after a second template
    /// change the abandoned revision in between becomes current and pods
    /// below the partition come back at its template.
    CurrentIsPrevious,
    /// Revisions (upstream's `truncateHistory`): applies
    /// `revisionHistoryLimit` to every revision but the update revision,
    /// deleting ones the status or the pods still name.
    HistoryLimitCountsLive,
    /// Revisions (upstream's `CreateControllerRevision`): steps past a
    /// revision name taken by other data but writes the collisionCount it
    /// read, not the raised one, to its status.
    CollisionCountUnwritten,
    /// Revisions (upstream's `truncateHistory`): never deletes a revision,
    /// whatever `revisionHistoryLimit` says.
    HistoryNeverTruncated,
    /// Revisions: reuses the earlier revision on a rollback without raising
    /// its number to one above the highest (upstream's `nextRevision`).
    RollbackKeepsNumber,
    /// KEP-5647 / stale caches: decides on its caches whatever they hold,
    /// without waiting for them to see its own last writes.
    IgnoreOwnWrites,
    /// KEP-5647 / stale caches, in adoption: does not count its adoptions
    /// and releases among its own writes, and keeps whatever its adoption
    /// patch returned, so a sync on a pod cache older than its last
    /// adoption adopts again and acts on a pod whose labels are gone.
    AdoptOnStaleCache,
    /// OpenKruise "Paused update": ignores `rollingUpdate.paused`.
    KruiseIgnorePaused,
    /// OpenKruise "Ordinals reserve(skip)": ignores `reserveOrdinals`.
    KruiseCreateReserved,
    /// OpenKruise "Scaling with rate limiting": ignores
    /// `scaleStrategy.maxUnavailable`.
    KruiseNoScaleLimit,
    /// OpenKruise "Specified Pod Deletion": deletes every labelled pod at
    /// once, whatever `maxUnavailable` allows.
    KruiseSpecifiedDeleteUnbounded,
    /// OpenKruise "In-Place Update": ignores `podUpdatePolicy`, recreating
    /// every pod.
    KruiseInPlaceRecreates,
    /// OpenKruise "In-Place Update": changes the images without first
    /// setting `InPlaceUpdateReady` False.
    KruiseInPlaceStillReady,
    /// OpenKruise "In-Place Update": patches a pod in place without the
    /// template's labels and annotations.
    KruiseInPlaceDropsMetadata,
    /// OpenKruise "In-Place Update": counts an in-place update finished,
    /// and sets `InPlaceUpdateReady` True, once every container reports an
    /// imageID, whether or not it is of the new image.
    KruiseInPlaceDoneEarly,
    /// OpenKruise "In-Place Update": ignores `gracePeriodSeconds`.
    KruiseIgnoreGrace,
    /// OpenKruise "Priority strategy": ignores `unorderedUpdate`.
    KruiseIgnorePriority,
    /// OpenKruise "Lifecycle hook": ignores `lifecycle.preDelete`.
    KruiseIgnorePreDelete,
    /// OpenKruise "Start ordinal": ignores `ordinals.start`, as Kruise does
    /// with its StatefulSetStartOrdinal gate off.
    KruiseIgnoreStartOrdinal,
}

impl Defect {
    /// Every defect, with its name.
    pub const ALL: [(&'static str, Defect); 92] = [
        ("create-before-gone", Defect::CreateBeforeGone),
        ("skip-orphans", Defect::SkipOrphans),
        ("one-at-a-time-recreate", Defect::OneAtATimeRecreate),
        ("no-recreate-started-event", Defect::NoRecreateStartedEvent),
        ("no-progressing-condition", Defect::NoProgressingCondition),
        ("delete-claims", Defect::DeleteClaims),
        ("budget-off-by-one", Defect::BudgetOffByOne),
        ("ignore-min-ready-seconds", Defect::IgnoreMinReadySeconds),
        ("ignore-partition", Defect::IgnorePartition),
        ("no-predecessor-wait", Defect::NoPredecessorWait),
        ("ignore-recreate-gate", Defect::IgnoreRecreateGate),
        (
            "ignore-max-unavailable-gate",
            Defect::IgnoreMaxUnavailableGate,
        ),
        (
            "rolling-update-as-recreate",
            Defect::RollingUpdateAsRecreate,
        ),
        ("keep-failed-pods", Defect::KeepFailedPods),
        ("resume-deletes-claims", Defect::ResumeDeletesClaims),
        ("relist-from-cache", Defect::RelistFromCache),
        ("no-status-on-failure", Defect::NoStatusOnFailure),
        ("status-claims-ready", Defect::StatusClaimsReady),
        ("delete-next-before-gone", Defect::DeleteNextBeforeGone),
        ("event-before-status", Defect::EventBeforeStatus),
        ("recreate-deletes-updated", Defect::RecreateDeletesUpdated),
        ("recreate-unready", Defect::RecreateUnready),
        (
            "recreate-started-on-create",
            Defect::RecreateStartedOnCreate,
        ),
        ("silent-recreate", Defect::SilentRecreate),
        (
            "recreate-started-once-per-set",
            Defect::RecreateStartedOncePerSet,
        ),
        ("enforced-as-rolling", Defect::EnforcedAsRolling),
        ("ignore-enforced-gate", Defect::IgnoreEnforcedGate),
        ("enforced-no-wait", Defect::EnforcedNoWait),
        ("enforced-walk-passes-all", Defect::EnforcedWalkPassesAll),
        ("forced-every-deletion", Defect::ForcedEveryDeletion),
        ("halt-while-starting", Defect::HaltWhileStarting),
        ("unschedulable-no-halt", Defect::UnschedulableNoHalt),
        (
            "current-counts-terminating",
            Defect::CurrentCountsTerminating,
        ),
        ("recreate-never-promotes", Defect::RecreateNeverPromotes),
        ("constant-progressing", Defect::ConstantProgressing),
        ("orphans-not-awaited", Defect::OrphansNotAwaited),
        ("percent-of-staged", Defect::PercentOfStaged),
        (
            "enforced-partition-at-update",
            Defect::EnforcedPartitionAtUpdate,
        ),
        ("forced-only-when-failing", Defect::ForcedOnlyWhenFailing),
        ("strategy-condition-stays", Defect::StrategyConditionStays),
        (
            "gate-off-keeps-enforced-partition",
            Defect::GateOffKeepsEnforcedPartition,
        ),
        ("legacy-loop-ready-only", Defect::LegacyLoopReadyOnly),
        ("gate-off-budget-of-one", Defect::GateOffBudgetOfOne),
        (
            "gate-off-ignores-partition",
            Defect::GateOffIgnoresPartition,
        ),
        ("gate-off-parallel-update", Defect::GateOffParallelUpdate),
        ("adopt-by-selector", Defect::AdoptBySelector),
        ("late-recreate-in-progress", Defect::LateRecreateInProgress),
        ("claim-owner-after-delete", Defect::ClaimOwnerAfterDelete),
        ("claims-without-owners", Defect::ClaimsWithoutOwners),
        ("claim-owner-takeover", Defect::ClaimOwnerTakeover),
        ("owner-by-name", Defect::OwnerByName),
        (
            "own-ref-beside-foreign-controller",
            Defect::OwnRefBesideForeignController,
        ),
        ("second-claim-controller", Defect::SecondClaimController),
        ("pod-flag-not-restored", Defect::PodFlagNotRestored),
        ("stale-ref-taken-over", Defect::StaleRefTakenOver),
        ("stale-claim-ignored", Defect::StaleClaimIgnored),
        ("stale-by-name", Defect::StaleByName),
        ("no-slow-start", Defect::NoSlowStart),
        ("first-batch-only", Defect::FirstBatchOnly),
        ("events-without-uid", Defect::EventsWithoutUid),
        ("condemned-waits-for-ready", Defect::CondemnedWaitsForReady),
        ("ignore-claim-deletion", Defect::IgnoreClaimDeletion),
        ("unset-min-ready-as-ten", Defect::UnsetMinReadyAsTen),
        ("redelete-terminating", Defect::RedeleteTerminating),
        ("subdomain-is-set-name", Defect::SubdomainIsSetName),
        ("recreate-ignores-parallel", Defect::RecreateIgnoresParallel),
        ("empty-storage-class", Defect::EmptyStorageClass),
        ("no-adoption", Defect::NoAdoption),
        ("no-missing-claims", Defect::NoMissingClaims),
        ("current-is-previous", Defect::CurrentIsPrevious),
        ("history-limit-counts-live", Defect::HistoryLimitCountsLive),
        ("collision-count-unwritten", Defect::CollisionCountUnwritten),
        ("history-never-truncated", Defect::HistoryNeverTruncated),
        ("rollback-keeps-number", Defect::RollbackKeepsNumber),
        ("ignore-own-writes", Defect::IgnoreOwnWrites),
        ("adopt-on-stale-cache", Defect::AdoptOnStaleCache),
        ("claim-others-pods", Defect::ClaimOthersPods),
        ("release-while-deleting", Defect::ReleaseWhileDeleting),
        ("adopt-terminating-orphan", Defect::AdoptTerminatingOrphan),
        ("adopt-without-recheck", Defect::AdoptWithoutRecheck),
        ("kruise-ignore-paused", Defect::KruiseIgnorePaused),
        ("kruise-create-reserved", Defect::KruiseCreateReserved),
        ("kruise-no-scale-limit", Defect::KruiseNoScaleLimit),
        (
            "kruise-specified-delete-unbounded",
            Defect::KruiseSpecifiedDeleteUnbounded,
        ),
        ("kruise-in-place-recreates", Defect::KruiseInPlaceRecreates),
        (
            "kruise-in-place-still-ready",
            Defect::KruiseInPlaceStillReady,
        ),
        (
            "kruise-in-place-drops-metadata",
            Defect::KruiseInPlaceDropsMetadata,
        ),
        ("kruise-in-place-done-early", Defect::KruiseInPlaceDoneEarly),
        ("kruise-ignore-grace", Defect::KruiseIgnoreGrace),
        ("kruise-ignore-priority", Defect::KruiseIgnorePriority),
        ("kruise-ignore-pre-delete", Defect::KruiseIgnorePreDelete),
        (
            "kruise-ignore-start-ordinal",
            Defect::KruiseIgnoreStartOrdinal,
        ),
    ];

    /// The target profile a defect is caught under: an OpenKruise defect
    /// breaks the stand-in of `apps.kruise.io/v1beta1`, which only the
    /// OpenKruise profile exercises; every other defect, the bundled target.
    pub fn target(name: &str) -> Option<&'static str> {
        name.starts_with("kruise-")
            .then_some("clusters/targets/openkruise-advanced-statefulset.yaml")
    }

    /// The defect selected by `KEPSPEC_DEFECT`, if any.
    pub fn active() -> Option<Defect> {
        std::env::var(VARIABLE).ok().and_then(|v| v.parse().ok())
    }

    /// The defect's name, as `KEPSPEC_DEFECT` spells it.
    pub fn name(self) -> &'static str {
        Defect::ALL
            .iter()
            .find(|(_, d)| *d == self)
            .map(|(n, _)| *n)
            .unwrap_or("unknown")
    }
}

impl FromStr for Defect {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Defect::ALL
            .iter()
            .find(|(n, _)| *n == s)
            .map(|(_, d)| *d)
            .ok_or_else(|| format!("unknown defect {s:?}"))
    }
}

fn is_enforced_type(spec: &k8s_openapi::api::apps::v1::StatefulSetSpec) -> bool {
    spec.update_strategy
        .as_ref()
        .and_then(|u| u.type_.as_deref())
        == Some(super::plan::ENFORCED_TYPE)
}

fn is_enforced(set: &StatefulSet) -> bool {
    is_enforced_type(&set.spec)
}

/// Removes action `i`, keeping the slow-start batches' ranges on the
/// actions they named.
fn remove_action(plan: &mut Plan, i: usize) {
    plan.actions.remove(i);
    for batch in &mut plan.batches {
        for lane in &mut batch.lanes {
            if lane.start > i {
                lane.start -= 1;
            }
            if lane.end > i {
                lane.end -= 1;
            }
        }
        batch.lanes.retain(|l| !l.is_empty());
    }
    plan.batches.retain(|b| !b.lanes.is_empty());
}

/// A RollingUpdate set (the default strategy when none is named).
fn is_rolling(set: &StatefulSet) -> bool {
    set.spec
        .update_strategy
        .as_ref()
        .and_then(|u| u.type_.as_deref())
        .is_none_or(|t| t == "RollingUpdate")
}

fn is_recreate(set: &StatefulSet) -> bool {
    set.spec
        .update_strategy
        .as_ref()
        .and_then(|u| u.type_.as_deref())
        == Some("Recreate")
}

/// Runs KEP-961's budget path with `budget` though the controller's
/// MaxUnavailableStatefulSet gate is off (the gate-off defects).
fn budget_despite_gate(
    spec: &mut StatefulSetSpec,
    gates: &mut ControllerGates,
    budget: IntOrString,
) {
    gates.max_unavailable_statefulset = true;
    spec.update_strategy
        .get_or_insert_with(Default::default)
        .rolling_update
        .get_or_insert_with(Default::default)
        .max_unavailable = Some(budget);
}

/// Distorts what the controller sees.
pub fn distort_input(
    defect: Defect,
    set: &mut StatefulSet,
    pods_seen: &mut Vec<Arc<Pod>>,
    gates: &mut ControllerGates,
) {
    let update_revision = set
        .status
        .as_ref()
        .and_then(|s| s.update_revision.clone())
        .unwrap_or_default();
    let end = pods::start_ordinal(set) + pods::spec_replicas(set);
    let recreate = is_recreate(set);
    let rolling = is_rolling(set);
    let spec = &mut set.spec;
    match defect {
        Defect::CreateBeforeGone => {
            // Terminating pods of another revision look gone.
            pods_seen
                .retain(|p| !(pods::is_terminating(p) && pods::pod_revision(p) != update_revision));
        }
        Defect::RecreateIgnoresParallel => {
            if recreate {
                spec.pod_management_policy = Some("OrderedReady".into());
            }
        }
        Defect::RedeleteTerminating => {
            if recreate {
                for p in pods_seen.iter_mut() {
                    if pods::is_terminating(p) && pods::pod_revision(p) != update_revision {
                        Arc::make_mut(p).metadata.deletion_timestamp = None;
                    }
                }
            }
        }
        Defect::SkipOrphans => {
            if recreate {
                pods_seen.retain(|p| pods::ordinal(p).is_none_or(|o| o < end));
            }
        }
        Defect::OrphansNotAwaited => {
            if recreate {
                pods_seen.retain(|p| {
                    !(pods::is_terminating(p) && pods::ordinal(p).is_some_and(|o| o >= end))
                });
            }
        }
        Defect::LegacyLoopReadyOnly => {
            if rolling && !gates.max_unavailable_statefulset {
                spec.min_ready_seconds = None;
            }
        }
        Defect::GateOffBudgetOfOne => {
            if rolling && !gates.max_unavailable_statefulset {
                budget_despite_gate(spec, gates, IntOrString::Int(1));
            }
        }
        Defect::GateOffIgnoresPartition => {
            if rolling && !gates.max_unavailable_statefulset {
                if let Some(r) = spec
                    .update_strategy
                    .as_mut()
                    .and_then(|u| u.rolling_update.as_mut())
                {
                    r.partition = Some(0);
                }
            }
        }
        Defect::GateOffParallelUpdate => {
            if rolling
                && !gates.max_unavailable_statefulset
                && spec.pod_management_policy.as_deref() == Some("Parallel")
            {
                budget_despite_gate(spec, gates, IntOrString::String("100%".into()));
            }
        }
        Defect::PercentOfStaged => {
            let replicas = pods::spec_replicas(set);
            if let Some(r) = set
                .spec
                .update_strategy
                .as_mut()
                .and_then(|u| u.rolling_update.as_mut())
            {
                let partition = r.partition.unwrap_or(0).clamp(0, replicas);
                if let Some(IntOrString::String(p)) = r.max_unavailable.as_ref() {
                    if let Ok(percent) = p.trim_end_matches('%').parse::<i32>() {
                        let staged = replicas - partition;
                        r.max_unavailable = Some(IntOrString::Int((staged * percent / 100).max(1)));
                    }
                }
            }
        }
        Defect::BudgetOffByOne => {
            if let Some(IntOrString::Int(n)) = spec
                .update_strategy
                .as_mut()
                .and_then(|u| u.rolling_update.as_mut())
                .and_then(|r| r.max_unavailable.as_mut())
            {
                *n += 1i32;
            }
        }
        Defect::IgnoreMinReadySeconds => spec.min_ready_seconds = Some(0),
        Defect::UnsetMinReadyAsTen => {
            if spec.min_ready_seconds.unwrap_or(0) == 0 {
                spec.min_ready_seconds = Some(10);
            }
        }
        Defect::IgnorePartition => {
            if let Some(r) = spec
                .update_strategy
                .as_mut()
                .and_then(|u| u.rolling_update.as_mut())
            {
                r.partition = Some(0);
            }
        }
        Defect::NoPredecessorWait => spec.pod_management_policy = Some("Parallel".into()),
        Defect::IgnoreRecreateGate => gates.statefulset_recreate_strategy = true,
        Defect::IgnoreMaxUnavailableGate => gates.max_unavailable_statefulset = true,
        Defect::RollingUpdateAsRecreate => {
            if let Some(u) = spec.update_strategy.as_mut() {
                if u.type_.as_deref().unwrap_or("RollingUpdate") == "RollingUpdate" {
                    u.type_ = Some("Recreate".into());
                    u.rolling_update = None;
                }
            }
        }
        Defect::ResumeDeletesClaims => resume::note_sync(set, pods_seen),
        Defect::RecreateDeletesUpdated => {
            if recreate
                && pods_seen
                    .iter()
                    .any(|p| pods::pod_revision(p) != update_revision)
            {
                for p in pods_seen.iter_mut() {
                    mark_old(Arc::make_mut(p));
                }
            }
        }
        Defect::RecreateUnready => {
            if recreate {
                for p in pods_seen.iter_mut() {
                    if pods::pod_revision(p) == update_revision
                        && !pods::is_terminating(p)
                        && once_ready::went_unready(p)
                    {
                        mark_old(Arc::make_mut(p));
                    }
                }
            }
        }
        Defect::DeleteNextBeforeGone => {
            pods_seen.retain(|p| {
                !(pods::is_terminating(p) && pods::ordinal(p).is_some_and(|o| o >= end))
            });
        }
        Defect::EnforcedAsRolling => gates.enforced_rolling_update_in_statefulset = false,
        Defect::IgnoreEnforcedGate => gates.enforced_rolling_update_in_statefulset = true,
        Defect::EnforcedNoWait => {
            let enforced = is_enforced_type(spec);
            for p in pods_seen.iter_mut().filter(|p| {
                enforced && pods::pod_revision(p) == update_revision && !pods::is_terminating(p)
            }) {
                look_ready(Arc::make_mut(p));
            }
        }
        Defect::EnforcedWalkPassesAll => {
            if is_enforced_type(spec) {
                spec.pod_management_policy = Some("Parallel".into());
            }
        }
        // Changes how the watches list (see `run::watcher_config`).
        Defect::RelistFromCache => {}
        Defect::OneAtATimeRecreate
        | Defect::SilentRecreate
        | Defect::NoRecreateStartedEvent
        | Defect::NoProgressingCondition
        | Defect::DeleteClaims
        | Defect::KeepFailedPods
        | Defect::NoStatusOnFailure
        | Defect::StatusClaimsReady
        | Defect::EventBeforeStatus
        | Defect::RecreateStartedOnCreate
        | Defect::RecreateStartedOncePerSet
        | Defect::ForcedEveryDeletion
        | Defect::HaltWhileStarting
        | Defect::UnschedulableNoHalt
        | Defect::EnforcedPartitionAtUpdate
        | Defect::ForcedOnlyWhenFailing
        | Defect::StrategyConditionStays
        | Defect::GateOffKeepsEnforcedPartition
        | Defect::CurrentCountsTerminating
        | Defect::RecreateNeverPromotes
        | Defect::ConstantProgressing
        | Defect::LateRecreateInProgress
        | Defect::AdoptBySelector
        | Defect::ClaimOwnerAfterDelete
        | Defect::ClaimsWithoutOwners
        | Defect::ClaimOwnerTakeover
        | Defect::OwnerByName
        | Defect::OwnRefBesideForeignController
        | Defect::SecondClaimController
        | Defect::PodFlagNotRestored
        | Defect::StaleRefTakenOver
        | Defect::StaleClaimIgnored
        | Defect::StaleByName
        | Defect::NoSlowStart
        | Defect::FirstBatchOnly
        | Defect::EventsWithoutUid
        | Defect::CondemnedWaitsForReady
        | Defect::IgnoreClaimDeletion
        | Defect::SubdomainIsSetName
        | Defect::EmptyStorageClass
        | Defect::NoAdoption
        | Defect::NoMissingClaims
        | Defect::CurrentIsPrevious
        | Defect::HistoryLimitCountsLive
        | Defect::CollisionCountUnwritten
        | Defect::HistoryNeverTruncated
        | Defect::RollbackKeepsNumber
        | Defect::IgnoreOwnWrites
        | Defect::AdoptOnStaleCache
        | Defect::ClaimOthersPods
        | Defect::ReleaseWhileDeleting
        | Defect::AdoptTerminatingOrphan
        | Defect::AdoptWithoutRecheck
        | Defect::KruiseIgnorePaused
        | Defect::KruiseCreateReserved
        | Defect::KruiseNoScaleLimit
        | Defect::KruiseSpecifiedDeleteUnbounded
        | Defect::KruiseInPlaceRecreates
        | Defect::KruiseInPlaceStillReady
        | Defect::KruiseInPlaceDropsMetadata
        | Defect::KruiseInPlaceDoneEarly
        | Defect::KruiseIgnoreGrace
        | Defect::KruiseIgnorePriority
        | Defect::KruiseIgnorePreDelete
        | Defect::KruiseIgnoreStartOrdinal => {}
    }
}

/// Distorts what the controller sees of the set's history, and what it does
/// with it: `revisions` are the set's ControllerRevisions as observed.
pub fn distort_revisions(
    defect: Defect,
    set: &mut StatefulSet,
    revisions: &[k8s_openapi::api::apps::v1::ControllerRevision],
) {
    if defect != Defect::CurrentIsPrevious {
        return;
    }
    let Some(status) = set.status.as_mut() else {
        return;
    };
    if status.current_revision == status.update_revision {
        return;
    }
    let mut sorted = revisions.to_vec();
    super::revision::sort_revisions(&mut sorted);
    if let Some(previous) = sorted.iter().rev().nth(1) {
        status.current_revision = previous.metadata.name.clone();
    }
}

/// Adds what a defect deletes of the history to the plan.
pub fn distort_history(
    defect: Defect,
    plan: &mut Plan,
    set: &StatefulSet,
    revisions: &[k8s_openapi::api::apps::v1::ControllerRevision],
) {
    if defect != Defect::HistoryLimitCountsLive {
        return;
    }
    let update = plan.status.update_revision.clone().unwrap_or_default();
    let mut sorted = revisions.to_vec();
    super::revision::sort_revisions(&mut sorted);
    let names: Vec<String> = sorted
        .iter()
        .filter_map(|r| r.metadata.name.clone())
        .filter(|name| *name != update)
        .collect();
    let limit = usize::try_from(set.spec.revision_history_limit.unwrap_or(10).max(0)).unwrap_or(0);
    let excess = names.len().saturating_sub(limit);
    for name in names.into_iter().take(excess) {
        let action = Action::DeleteRevision { name };
        if !plan.actions.contains(&action) {
            plan.actions.push(action);
        }
    }
}

/// Distorts the set as served, for the fields only the vendor kinds have.
pub fn distort_raw(defect: Defect, raw: &mut serde_json::Value) {
    let drop = |raw: &mut serde_json::Value, parent: &str, field: &str| {
        if let Some(obj) = raw.pointer_mut(parent).and_then(|v| v.as_object_mut()) {
            obj.remove(field);
        }
    };
    match defect {
        Defect::KruiseIgnorePaused => drop(raw, "/spec/updateStrategy/rollingUpdate", "paused"),
        Defect::KruiseCreateReserved => drop(raw, "/spec", "reserveOrdinals"),
        Defect::KruiseNoScaleLimit => drop(raw, "/spec", "scaleStrategy"),
        Defect::KruiseInPlaceRecreates => {
            drop(raw, "/spec/updateStrategy/rollingUpdate", "podUpdatePolicy")
        }
        Defect::KruiseIgnoreGrace => drop(
            raw,
            "/spec/updateStrategy/rollingUpdate",
            "inPlaceUpdateStrategy",
        ),
        Defect::KruiseIgnorePriority => {
            drop(raw, "/spec/updateStrategy/rollingUpdate", "unorderedUpdate")
        }
        Defect::KruiseIgnorePreDelete => drop(raw, "/spec", "lifecycle"),
        // The block's partition as a rollingUpdate one: the same walk with
        // the gate on, a partitioned RollingUpdate with it off.
        Defect::GateOffKeepsEnforcedPartition => {
            let enforced = raw
                .lookup("/spec/updateStrategy/type")
                .and_then(|t| t.as_str())
                == Some(super::plan::ENFORCED_TYPE);
            let partition = raw
                .lookup("/spec/updateStrategy/enforcedRollingUpdate/partition")
                .cloned();
            if let (true, Some(p)) = (enforced, partition) {
                raw["spec"]["updateStrategy"]["rollingUpdate"] =
                    serde_json::json!({"partition": p});
            }
        }
        Defect::KruiseIgnoreStartOrdinal if super::plan::is_kruise(raw) => {
            drop(raw, "/spec", "ordinals")
        }
        _ => {}
    }
}

/// Makes a pod look Running and Ready for a long time.
fn look_ready(p: &mut Pod) {
    use k8s_openapi::api::core::v1::{PodCondition, PodStatus};
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
    let status = p.status.get_or_insert_with(PodStatus::default);
    status.phase = Some("Running".into());
    let conditions = status.conditions.get_or_insert_with(Vec::new);
    conditions.retain(|c| c.type_ != "Ready");
    conditions.push(PodCondition {
        type_: "Ready".into(),
        status: "True".into(),
        last_transition_time: Some(Time(jiff::Timestamp::UNIX_EPOCH)),
        ..PodCondition::default()
    });
}

/// Locks a defect's state, also after a panic elsewhere poisoned it.
fn lock<T>(m: &std::sync::Mutex<Option<T>>) -> std::sync::MutexGuard<'_, Option<T>> {
    match m.lock() {
        Ok(g) => g,
        Err(p) => p.into_inner(),
    }
}

/// Makes a pod look like one of an old revision.
fn mark_old(p: &mut Pod) {
    p.metadata
        .labels
        .get_or_insert_with(Default::default)
        .insert(
            "controller-revision-hash".into(),
            "defect-old-revision".into(),
        );
}

/// Pods (by uid) seen ready, for [`Defect::RecreateUnready`], and sets that
/// started a Recreate.
mod once_ready {
    use std::collections::HashSet;
    use std::sync::Mutex;

    use k8s_openapi::api::core::v1::Pod;

    use super::{lock, pods};

    static SEEN_READY: Mutex<Option<HashSet<String>>> = Mutex::new(None);
    static STARTED: Mutex<Option<HashSet<String>>> = Mutex::new(None);

    /// Whether the set with this uid starts its first Recreate (for
    /// [`super::Defect::RecreateStartedOncePerSet`]).
    pub(super) fn first_start(set_uid: &str) -> bool {
        let mut started = lock(&STARTED);
        started
            .get_or_insert_with(HashSet::new)
            .insert(set_uid.to_string())
    }

    /// Whether this pod was seen ready before and is not ready now.
    pub(super) fn went_unready(p: &Pod) -> bool {
        let uid = p.metadata.uid.clone().unwrap_or_default();
        let mut seen = lock(&SEEN_READY);
        let seen = seen.get_or_insert_with(HashSet::new);
        if pods::is_running_and_ready(p) {
            seen.insert(uid);
            false
        } else {
            seen.contains(&uid)
        }
    }
}

/// Distorts what the controller does.
pub fn distort_plan(defect: Defect, plan: &mut Plan, pods_seen: &[Arc<Pod>], set: &StatefulSet) {
    let observed: Option<&StatefulSetStatus> = set.status.as_ref();
    match defect {
        Defect::CollisionCountUnwritten => {
            plan.status.collision_count = observed.and_then(|s| s.collision_count);
        }
        Defect::HistoryNeverTruncated => {
            plan.actions
                .retain(|a| !matches!(a, Action::DeleteRevision { .. }));
        }
        Defect::RollbackKeepsNumber => {
            plan.actions
                .retain(|a| !matches!(a, Action::UpdateRevisionNumber { .. }));
        }
        Defect::RecreateStartedOncePerSet => {
            let emits = plan
                .actions
                .iter()
                .any(|a| matches!(a, Action::Event(e) if e.reason == RECREATE_STARTED));
            let uid = set.metadata.uid.clone().unwrap_or_default();
            if emits && !once_ready::first_start(&uid) {
                plan.actions
                    .retain(|a| !matches!(a, Action::Event(e) if e.reason == RECREATE_STARTED));
            }
        }
        Defect::SilentRecreate => {
            if matches!(plan.phase, Phase::Recreate(p) if p != RecreatePhase::Complete) {
                let before = observed.cloned().unwrap_or_default();
                plan.status.replicas = before.replicas;
                plan.status.ready_replicas = before.ready_replicas;
                plan.status.available_replicas = before.available_replicas;
                plan.status.current_replicas = before.current_replicas;
                plan.status.updated_replicas = before.updated_replicas;
            }
        }
        Defect::OneAtATimeRecreate => {
            let mut allowed = !pods_seen.iter().any(|p| pods::is_terminating(p));
            plan.actions.retain(|a| match a {
                Action::DeletePod {
                    reason: DeleteReason::Recreate,
                    ..
                } => std::mem::replace(&mut allowed, false),
                _ => true,
            });
        }
        Defect::NoRecreateStartedEvent => {
            plan.actions
                .retain(|a| !matches!(a, Action::Event(e) if e.reason == RECREATE_STARTED));
        }
        Defect::NoProgressingCondition => plan.status.conditions = None,
        Defect::ConstantProgressing => {
            for c in plan.status.conditions.iter_mut().flatten() {
                if c.type_.as_deref() == Some("Progressing") {
                    c.status = Some("True".into());
                    c.reason = Some("Progressing".into());
                    c.message = Some("the StatefulSet is progressing".into());
                    c.last_transition_time = observed
                        .and_then(|s| s.conditions.as_deref())
                        .and_then(|cs| cs.iter().find(|o| o.type_ == c.type_))
                        .and_then(|o| o.last_transition_time.clone())
                        .or_else(|| c.last_transition_time.clone());
                }
            }
        }
        Defect::LateRecreateInProgress => {
            if matches!(
                plan.phase,
                Phase::Recreate(RecreatePhase::NeedsDeletion | RecreatePhase::WaitingTermination)
            ) {
                let before: Vec<_> = observed
                    .and_then(|s| s.conditions.clone())
                    .unwrap_or_default();
                plan.status.conditions = (!before.is_empty()).then_some(before);
            }
        }
        Defect::RecreateStartedOnCreate => {
            let recreating = plan.status.conditions.as_ref().is_some_and(|c| {
                c.iter().any(|c| {
                    c.reason
                        .as_deref()
                        .is_some_and(|r| r.starts_with("Recreate"))
                })
            });
            let creates = plan
                .actions
                .iter()
                .any(|a| matches!(a, Action::CreatePod(_)));
            let emits = plan
                .actions
                .iter()
                .any(|a| matches!(a, Action::Event(e) if e.reason == RECREATE_STARTED));
            if recreating && creates && !emits {
                plan.actions.push(Action::Event(super::plan::EventSpec {
                    type_: super::plan::EventType::Normal,
                    reason: RECREATE_STARTED.into(),
                    message: super::plan::RECREATE_STARTED_MESSAGE.into(),
                }));
            }
        }
        Defect::ForcedEveryDeletion => {
            if matches!(plan.phase, Phase::EnforcedRollingUpdate { .. }) {
                let healthy: Vec<String> = plan
                    .actions
                    .iter()
                    .filter_map(|a| match a {
                        Action::DeletePod {
                            name,
                            reason: DeleteReason::RollingUpdate,
                            ..
                        } => Some(name.clone()),
                        _ => None,
                    })
                    .collect();
                for name in healthy {
                    plan.actions.push(Action::Event(super::plan::EventSpec {
                        type_: super::plan::EventType::Normal,
                        reason: super::plan::FORCED_REPLACEMENT.into(),
                        message: format!("Forced replacement of pod {name}"),
                    }));
                }
            }
        }
        Defect::HaltWhileStarting => {
            if let Phase::EnforcedRollingUpdate { safety_halt, .. } = &mut plan.phase {
                let update = plan.status.update_revision.as_deref().unwrap_or_default();
                let top = highest_live(pods_seen);
                let waiting = pods_seen.iter().any(|p| pods::pod_revision(p) != update);
                if top.is_some_and(|p| pods::pod_revision(p) == update) && waiting {
                    *safety_halt = true;
                }
            }
        }
        Defect::UnschedulableNoHalt => {
            if let Phase::EnforcedRollingUpdate { safety_halt, .. } = &mut plan.phase {
                let waiting_or_failed = highest_live(pods_seen).is_some_and(|p| {
                    let status = p.status.as_ref();
                    status.and_then(|s| s.phase.as_deref()) == Some("Failed")
                        || status
                            .and_then(|s| s.container_statuses.as_deref())
                            .unwrap_or(&[])
                            .iter()
                            .any(|c| c.state.as_ref().and_then(|s| s.waiting.as_ref()).is_some())
                });
                if !waiting_or_failed {
                    *safety_halt = false;
                }
            }
        }
        Defect::EnforcedPartitionAtUpdate if is_enforced(set) => {
            // Under EnforcedRollingUpdate a pod is created at another
            // revision than the update one only below the block's partition.
            let update = plan.status.update_revision.clone().unwrap_or_default();
            for a in &mut plan.actions {
                if let Action::CreatePod(pod) = a {
                    if pods::pod_revision(pod) != update {
                        if let Some(ordinal) = pods::ordinal(pod) {
                            *pod = pods::new_pod(set, &set.spec.template, ordinal, &update);
                        }
                    }
                }
            }
        }
        Defect::ForcedOnlyWhenFailing if is_enforced(set) => {
            let not_failing: Vec<String> = plan
                .actions
                .iter_mut()
                .filter_map(|a| match a {
                    Action::DeletePod { name, reason, .. }
                        if *reason == DeleteReason::ForcedReplacement
                            && !pods_seen.iter().any(|p| {
                                p.metadata.name.as_deref() == Some(name.as_str())
                                    && super::plan::failing(p)
                            }) =>
                    {
                        *reason = DeleteReason::RollingUpdate;
                        Some(name.clone())
                    }
                    _ => None,
                })
                .collect();
            for name in not_failing {
                let event = plan.actions.iter().position(|a| {
                    matches!(a, Action::Event(e) if e.reason == super::plan::FORCED_REPLACEMENT
                        && e.message.contains(&format!(" pod {name},")))
                });
                if let Some(i) = event {
                    remove_action(plan, i);
                }
            }
        }
        Defect::StrategyConditionStays if !is_enforced(set) => {
            let kept = observed
                .and_then(|s| s.conditions.as_deref())
                .unwrap_or(&[])
                .iter()
                .find(|c| c.type_.as_deref() == Some(super::plan::ENFORCED_CONDITION))
                .cloned();
            if let Some(kept) = kept {
                let conditions = plan.status.conditions.get_or_insert_with(Vec::new);
                if !conditions.iter().any(|c| c.type_ == kept.type_) {
                    conditions.push(kept);
                }
            }
        }
        Defect::RecreateNeverPromotes if is_recreate(set) => {
            let before = observed.cloned().unwrap_or_default();
            if before.current_revision.is_some()
                && plan.status.current_revision != before.current_revision
            {
                let kept = before.current_revision.clone().unwrap_or_default();
                let current = pods_seen
                    .iter()
                    .filter(|p| !pods::is_terminating(p) && pods::pod_revision(p) == kept)
                    .count();
                plan.status.current_replicas = Some(i32::try_from(current).unwrap_or(0));
                plan.status.current_revision = before.current_revision;
            }
        }
        Defect::CurrentCountsTerminating => {
            let current = plan.status.current_revision.clone().unwrap_or_default();
            let terminating = pods_seen
                .iter()
                .filter(|p| pods::is_terminating(p) && pods::pod_revision(p) == current)
                .count();
            if let Some(n) = plan.status.current_replicas.as_mut() {
                *n += i32::try_from(terminating).unwrap_or(0);
            }
        }
        Defect::KruiseInPlaceDropsMetadata => {
            let own = |k: &String| k == pods::REVISION_LABEL || k.starts_with("apps.kruise.io/");
            for a in &mut plan.actions {
                if let Action::PatchPod {
                    patch,
                    in_place_revision: Some(_),
                    ..
                } = a
                {
                    for field in ["labels", "annotations"] {
                        if let Some(map) = patch
                            .get_mut("metadata")
                            .and_then(|m| m.get_mut(field))
                            .and_then(serde_json::Value::as_object_mut)
                        {
                            map.retain(|k, _| own(k));
                        }
                    }
                }
            }
        }
        Defect::KruiseInPlaceDoneEarly => {
            use super::plan::{in_place_condition, in_place_gated, IN_PLACE_GRACE_ANNOTATION};
            use k8s_openapi::api::core::v1::PodCondition;
            for p in pods_seen {
                let gated = in_place_gated(p);
                let not_true = in_place_condition(p).is_some_and(|c| c.status != "True");
                let held = p
                    .metadata
                    .annotations
                    .as_ref()
                    .is_some_and(|a| a.contains_key(IN_PLACE_GRACE_ANNOTATION));
                let statuses = p
                    .status
                    .as_ref()
                    .and_then(|s| s.container_statuses.as_ref())
                    .map_or(&[][..], Vec::as_slice);
                let reported =
                    !statuses.is_empty() && statuses.iter().all(|c| !c.image_id.is_empty());
                let name = p.metadata.name.clone().unwrap_or_default();
                let already = plan
                    .actions
                    .iter()
                    .any(|a| matches!(a, Action::SetPodConditions { name: n, .. } if *n == name));
                if gated && not_true && !held && reported && !already && !pods::is_terminating(p) {
                    plan.actions.push(Action::SetPodConditions {
                        name,
                        conditions: vec![PodCondition {
                            type_: super::plan::IN_PLACE_UPDATE_READY.into(),
                            status: "True".into(),
                            ..PodCondition::default()
                        }],
                    });
                }
            }
        }
        Defect::KruiseInPlaceStillReady => {
            plan.actions.retain(|a| {
                !matches!(a, Action::SetPodConditions { conditions, .. }
                    if conditions.iter().any(|c| c.status == "False"))
            });
        }
        Defect::KruiseSpecifiedDeleteUnbounded => {
            let deleting: Vec<String> = plan
                .actions
                .iter()
                .filter_map(|a| match a {
                    Action::DeletePod { name, .. } => Some(name.clone()),
                    _ => None,
                })
                .collect();
            for p in pods_seen {
                let name = p.metadata.name.clone().unwrap_or_default();
                let labelled = p
                    .metadata
                    .labels
                    .as_ref()
                    .is_some_and(|l| l.contains_key(super::plan::SPECIFIED_DELETE));
                if labelled && !pods::is_terminating(p) && !deleting.contains(&name) {
                    plan.actions.push(Action::DeletePod {
                        name,
                        uid: p.metadata.uid.clone().unwrap_or_default(),
                        reason: DeleteReason::SpecifiedDelete,
                    });
                }
            }
        }
        Defect::NoSlowStart => plan.batches.clear(),
        Defect::FirstBatchOnly => plan.batches.retain(|b| b.start() == 0),
        Defect::StatusClaimsReady => {
            plan.status.ready_replicas = Some(plan.status.replicas);
            plan.status.available_replicas = Some(plan.status.replicas);
        }
        Defect::ClaimOwnerAfterDelete => {
            // Every claim update after every other action: the deletions
            // of condemned pods go first.
            plan.actions
                .sort_by_key(|a| matches!(a, Action::UpdateClaim(_)));
        }
        Defect::NoMissingClaims => {
            plan.actions.retain(|a| match a {
                Action::CreateClaim { pod, .. } => !pods_seen
                    .iter()
                    .any(|p| p.metadata.name.as_deref() == Some(pod.as_str())),
                _ => true,
            });
        }
        Defect::EmptyStorageClass => {
            for a in &mut plan.actions {
                if let Action::CreateClaim { claim, .. } = a {
                    if let Some(spec) = claim.spec.as_mut() {
                        spec.storage_class_name.get_or_insert_with(String::new);
                    }
                }
            }
        }
        Defect::SubdomainIsSetName => {
            let name = set.metadata.name.clone();
            for a in &mut plan.actions {
                if let Action::CreatePod(pod) = a {
                    if let Some(spec) = pod.spec.as_mut() {
                        spec.subdomain = name.clone();
                    }
                }
            }
        }
        Defect::CondemnedWaitsForReady => {
            let ordered = set.spec.pod_management_policy.as_deref() != Some("Parallel");
            plan.actions.retain(|a| match a {
                Action::DeletePod {
                    name,
                    reason: DeleteReason::ScaleDown,
                    ..
                } if ordered => pods_seen
                    .iter()
                    .find(|p| p.metadata.name.as_deref() == Some(name.as_str()))
                    .is_none_or(|p| pods::is_running_and_ready(p)),
                _ => true,
            });
        }
        Defect::ClaimsWithoutOwners => {
            plan.actions
                .retain(|a| !matches!(a, Action::UpdateClaim(_)));
            for a in &mut plan.actions {
                if let Action::CreateClaim { claim, .. } = a {
                    claim.metadata.owner_references = None;
                }
            }
        }
        Defect::OwnRefBesideForeignController => {
            let set_uid = set.metadata.uid.as_deref().unwrap_or_default();
            plan.actions.retain(|a| match a {
                Action::UpdateClaim(claim) => !claim
                    .metadata
                    .owner_references
                    .as_deref()
                    .unwrap_or(&[])
                    .iter()
                    .any(|r| r.controller == Some(true) && r.uid != set_uid && r.kind != "Pod"),
                _ => true,
            });
        }
        Defect::KeepFailedPods => {
            plan.actions.retain(|a| {
                !matches!(
                    a,
                    Action::DeletePod {
                        reason: DeleteReason::Failed,
                        ..
                    }
                )
            });
        }
        _ => {}
    }
}

/// The pod of the highest ordinal among those seen that are not being
/// deleted.
fn highest_live(pods_seen: &[Arc<Pod>]) -> Option<&Arc<Pod>> {
    pods_seen
        .iter()
        .filter(|p| !pods::is_terminating(p))
        .max_by_key(|p| pods::ordinal(p))
}

/// With [`Defect::OwnerByName`], the claims as that controller sees them:
/// every reference named like the set reads as one to an apps/v1
/// StatefulSet.
pub fn owners_by_name(claims: &mut [PersistentVolumeClaim], set_name: &str) {
    for c in claims {
        for r in c.metadata.owner_references.iter_mut().flatten() {
            if r.name == set_name {
                r.api_version = "apps/v1".into();
                r.kind = "StatefulSet".into();
            }
        }
    }
}

/// Whether the set's retention policy is whenScaled Delete.
fn scaled_delete(set: &StatefulSet) -> bool {
    set.spec
        .persistent_volume_claim_retention_policy
        .as_ref()
        .and_then(|p| p.when_scaled.as_deref())
        == Some("Delete")
}

/// With [`Defect::StaleRefTakenOver`], the claims as that controller sees
/// them: a reference to an apps/v1 StatefulSet of the set's name with
/// another uid is dropped.
pub fn forget_earlier_sets(claims: &mut [PersistentVolumeClaim], set: &StatefulSet) {
    let name = set.metadata.name.as_deref().unwrap_or_default();
    let uid = set.metadata.uid.as_deref().unwrap_or_default();
    for c in claims {
        if let Some(refs) = c.metadata.owner_references.as_mut() {
            refs.retain(|r| {
                !(r.api_version == "apps/v1"
                    && r.kind == "StatefulSet"
                    && r.name == name
                    && r.uid != uid)
            });
        }
    }
}

/// With [`Defect::StaleClaimIgnored`], the claims as that controller sees
/// them: a reference to a pod none of `pods` is named like is dropped.
pub fn forget_absent_pods(claims: &mut [PersistentVolumeClaim], pods: &[Arc<Pod>]) {
    let present = |name: &str| {
        pods.iter()
            .any(|p| p.metadata.name.as_deref() == Some(name))
    };
    for c in claims {
        if let Some(refs) = c.metadata.owner_references.as_mut() {
            refs.retain(|r| !(r.api_version == "v1" && r.kind == "Pod" && !present(&r.name)));
        }
    }
}

/// With [`Defect::StaleByName`], the claims as that controller sees them:
/// an owner of any kind named like a pod of `set` reads as that pod.
pub fn others_named_like_pods(claims: &mut [PersistentVolumeClaim], set: &StatefulSet) {
    let name = set.metadata.name.as_deref().unwrap_or_default();
    let like_pod = |owner: &str| {
        owner
            .strip_prefix(name)
            .and_then(|rest| rest.strip_prefix('-'))
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    };
    for r in claims
        .iter_mut()
        .flat_map(|c| c.metadata.owner_references.iter_mut().flatten())
        .filter(|r| r.kind != "Pod" && like_pod(&r.name))
    {
        r.kind = "Pod".into();
        r.api_version = "v1".into();
    }
}

/// With [`Defect::PodFlagNotRestored`], the claims as that controller sees
/// them: every reference to a pod reads as its controller.
pub fn pod_refs_as_controllers(claims: &mut [PersistentVolumeClaim]) {
    for r in claims
        .iter_mut()
        .flat_map(|c| c.metadata.owner_references.iter_mut().flatten())
        .filter(|r| r.api_version == "v1" && r.kind == "Pod")
    {
        r.controller = Some(true);
    }
}

/// With [`Defect::SecondClaimController`], the claims as that controller
/// sees them under whenScaled Delete: a reference marked as the controller
/// that is neither the set nor a pod seen reads as a plain owner. Returns the uids of the references it demoted, for
/// [`second_claim_controller`] to mark again in the updates it plans.
pub fn demote_foreign_controllers(
    claims: &mut [PersistentVolumeClaim],
    set: &StatefulSet,
    pods_seen: &[Arc<Pod>],
) -> Vec<String> {
    let scaled_delete = scaled_delete(set);
    if !scaled_delete {
        return Vec::new();
    }
    let set_uid = set.metadata.uid.as_deref().unwrap_or_default();
    let mut demoted = Vec::new();
    for r in claims
        .iter_mut()
        .flat_map(|c| c.metadata.owner_references.iter_mut().flatten())
    {
        let ours = r.uid == set_uid
            || pods_seen
                .iter()
                .any(|p| p.metadata.uid.as_deref() == Some(&r.uid));
        if r.controller == Some(true) && !ours {
            r.controller = Some(false);
            demoted.push(r.uid.clone());
        }
    }
    demoted
}

/// With [`Defect::SecondClaimController`], the claim updates a plan sends:
/// the references [`demote_foreign_controllers`] hid are marked as the
/// controller again, beside the pod the plan made the controller.
pub fn second_claim_controller(plan: &mut Plan, demoted: &[String]) {
    for a in &mut plan.actions {
        if let Action::UpdateClaim(claim) = a {
            for r in claim.metadata.owner_references.iter_mut().flatten() {
                if demoted.contains(&r.uid) {
                    r.controller = Some(true);
                }
            }
        }
    }
}

/// With [`Defect::ClaimOwnerTakeover`], the claims as that controller sees
/// them: references to anything but the set (`set_uid`) and the pods seen
/// are dropped.
pub fn forget_foreign_owners(
    claims: &mut [PersistentVolumeClaim],
    set_uid: &str,
    pods_seen: &[Arc<Pod>],
) {
    for c in claims {
        if let Some(refs) = c.metadata.owner_references.as_mut() {
            refs.retain(|r| {
                r.uid == set_uid
                    || pods_seen
                        .iter()
                        .any(|p| p.metadata.uid.as_deref() == Some(&r.uid))
            });
        }
    }
}

/// The claims to delete along with the pods a plan deletes
/// ([`Defect::DeleteClaims`]): `<template>-<pod>`.
/// With [`Defect::ClaimsWithoutOwners`], the claims of the pods a scale-down
/// deletes under whenScaled Delete.
pub fn claims_to_delete(
    defect: Defect,
    plan: &Plan,
    claims: &[String],
    set: &StatefulSet,
) -> Vec<String> {
    if defect == Defect::ResumeDeletesClaims {
        return resume::leftover_claims(claims);
    }
    let scaled_delete = scaled_delete(set);
    let only_scale_down = match defect {
        Defect::DeleteClaims => false,
        Defect::ClaimsWithoutOwners if scaled_delete => true,
        _ => return Vec::new(),
    };
    let deleted: Vec<&str> = plan
        .actions
        .iter()
        .filter_map(|a| match a {
            Action::DeletePod { name, reason, .. }
                if !only_scale_down || *reason == DeleteReason::ScaleDown =>
            {
                Some(name.as_str())
            }
            _ => None,
        })
        .collect();
    claims
        .iter()
        .filter(|c| deleted.iter().any(|p| c.ends_with(&format!("-{p}"))))
        .cloned()
        .collect()
}

/// State for [`Defect::ResumeDeletesClaims`]: which controller start (the
/// task that runs its syncs) synced a set last, and the pods seen running at
/// the first sync of a set after a start, until the claims are chosen.
mod resume {
    use std::collections::HashMap;
    use std::sync::Mutex;

    use k8s_openapi::api::apps::v1::StatefulSet;
    use k8s_openapi::api::core::v1::Pod;

    use super::{lock, pods};

    type Starts = HashMap<String, tokio::task::Id>;
    type Resumed = HashMap<tokio::task::Id, Vec<String>>;

    static STARTS: Mutex<Option<Starts>> = Mutex::new(None);
    static RESUMED: Mutex<Option<Resumed>> = Mutex::new(None);

    /// Notes a sync; on the first one of this set by this start, remembers
    /// the pods seen running.
    pub(super) fn note_sync(set: &StatefulSet, pods_seen: &[std::sync::Arc<Pod>]) {
        let Some(task) = tokio::task::try_id() else {
            return;
        };
        let key = format!(
            "{}/{}",
            set.metadata.namespace.as_deref().unwrap_or_default(),
            set.metadata.name.as_deref().unwrap_or_default()
        );
        let mut starts = lock(&STARTS);
        if starts.get_or_insert_with(HashMap::new).insert(key, task) == Some(task) {
            return;
        }
        let running = pods_seen
            .iter()
            .filter(|p| !pods::is_terminating(p))
            .filter_map(|p| p.metadata.name.clone())
            .collect();
        lock(&RESUMED)
            .get_or_insert_with(HashMap::new)
            .insert(task, running);
    }

    /// The claims of pods not seen running at the first sync after a start.
    pub(super) fn leftover_claims(claims: &[String]) -> Vec<String> {
        let Some(task) = tokio::task::try_id() else {
            return Vec::new();
        };
        let Some(running) = lock(&RESUMED).as_mut().and_then(|r| r.remove(&task)) else {
            return Vec::new();
        };
        claims
            .iter()
            .filter(|c| !running.iter().any(|p| c.ends_with(&format!("-{p}"))))
            .cloned()
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_defect_has_a_unique_name_that_parses() {
        for (name, defect) in Defect::ALL {
            assert_eq!(name.parse::<Defect>(), Ok(defect));
        }
        let mut names: Vec<&str> = Defect::ALL.iter().map(|(n, _)| *n).collect();
        names.dedup();
        assert_eq!(names.len(), Defect::ALL.len());
        assert!("no-such-defect".parse::<Defect>().is_err());
    }
}
