//! The planner's public types: what it reads, what it decides, its errors.

use std::time::Duration;

use jiff::Timestamp;
use k8s_openapi::api::apps::v1::{ControllerRevision, StatefulSet, StatefulSetStatus};
use k8s_openapi::api::core::v1::{PersistentVolumeClaim, Pod};
use serde_json::Value;

use super::super::revision::RevisionError;

/// Controller-side feature gates.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ControllerGates {
    /// KEP-3541 `StatefulSetRecreateStrategy`: off, `Recreate` behaves as
    /// RollingUpdate with partition 0 and maxUnavailable 1.
    pub statefulset_recreate_strategy: bool,
    /// KEP-961 `MaxUnavailableStatefulSet`: off, `maxUnavailable` is ignored
    /// and pods are replaced one at a time.
    pub max_unavailable_statefulset: bool,
    /// The KEP-3541 draft's `EnforcedRollingUpdateInStatefulSet`: off,
    /// `EnforcedRollingUpdate` behaves as RollingUpdate (upstream treats
    /// every type but OnDelete so). No release has it: off by default.
    pub enforced_rolling_update_in_statefulset: bool,
}

pub use kepspec_core::names::ENFORCED_GATE;

impl Default for ControllerGates {
    fn default() -> Self {
        Self {
            statefulset_recreate_strategy: true,
            max_unavailable_statefulset: true,
            enforced_rolling_update_in_statefulset: false,
        }
    }
}

impl ControllerGates {
    /// The gates of kube-controller-manager of `version` set up for the
    /// spec: each gate the spec exercises on where the release has it.
    pub fn for_version(version: kepspec_core::Version) -> Self {
        let exists =
            |name: &str| kepspec_core::gating::gate(name).is_some_and(|g| g.at(version).is_some());
        Self {
            statefulset_recreate_strategy: exists("StatefulSetRecreateStrategy"),
            max_unavailable_statefulset: exists("MaxUnavailableStatefulSet"),
            enforced_rolling_update_in_statefulset: false,
        }
    }

    /// Parses `--feature-gates` text for a controller of `version`,
    /// starting from [`Self::for_version`].
    pub fn parse_for(spec: &str, version: kepspec_core::Version) -> Result<Self, String> {
        let mut gates = Self::for_version(version);
        let given = Self::parse(spec)?;
        for item in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let name = item.split_once('=').map(|(n, _)| n.trim()).unwrap_or(item);
            if kepspec_core::gating::gate(name).is_some_and(|g| g.at(version).is_none()) {
                return Err(format!("unrecognized feature gate: {name}"));
            }
            match name {
                "StatefulSetRecreateStrategy" => {
                    gates.statefulset_recreate_strategy = given.statefulset_recreate_strategy
                }
                ENFORCED_GATE => {
                    gates.enforced_rolling_update_in_statefulset =
                        given.enforced_rolling_update_in_statefulset
                }
                _ => gates.max_unavailable_statefulset = given.max_unavailable_statefulset,
            }
        }
        Ok(gates)
    }

    /// Parses `--feature-gates` text such as
    /// `StatefulSetRecreateStrategy=false,MaxUnavailableStatefulSet=true`;
    /// gates not named keep their defaults.
    pub fn parse(spec: &str) -> Result<Self, String> {
        let mut gates = Self::default();
        for item in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (name, value) = item
                .split_once('=')
                .ok_or_else(|| format!("missing bool value for {item}"))?;
            let value: bool = value
                .trim()
                .parse()
                .map_err(|_| format!("invalid value of {name}={value}, err: strconv.ParseBool"))?;
            match name.trim() {
                "StatefulSetRecreateStrategy" => gates.statefulset_recreate_strategy = value,
                "MaxUnavailableStatefulSet" => gates.max_unavailable_statefulset = value,
                ENFORCED_GATE => gates.enforced_rolling_update_in_statefulset = value,
                other => return Err(format!("unrecognized feature gate: {other}")),
            }
        }
        Ok(gates)
    }
}

/// What the controller sees of one StatefulSet.
#[derive(Clone, Copy, Debug)]
pub struct Observed<'a> {
    /// The set as served by the apiserver (needed for exact revision hashing).
    pub set_raw: &'a Value,
    /// Typed view of the same object.
    pub set: &'a StatefulSet,
    /// Pods owned by the set (controller ownerRef uid == set uid), shared
    /// with the watch cache.
    pub pods: &'a [std::sync::Arc<Pod>],
    /// PersistentVolumeClaims in the namespace.
    pub claims: &'a [PersistentVolumeClaim],
    /// ControllerRevisions owned by the set.
    pub revisions: &'a [ControllerRevision],
    /// Time of this sync.
    pub now: Timestamp,
}

/// Where a sync found the set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Phase {
    /// The set has a deletionTimestamp: only its status is maintained.
    Deleting,
    /// RollingUpdate (also Recreate with its gate off). `max_unavailable` is
    /// `None` when the MaxUnavailableStatefulSet gate is off.
    RollingUpdate {
        /// Ordinals below `start + partition` keep the current revision.
        partition: i32,
        /// Budget of unavailable replicas, already scaled from a percentage.
        max_unavailable: Option<i32>,
    },
    /// OnDelete: pods are replaced only when someone deletes them.
    OnDelete,
    /// Recreate (KEP-3541), in one of its phases.
    Recreate(RecreatePhase),
    /// The KEP-3541 draft's EnforcedRollingUpdate.
    EnforcedRollingUpdate {
        /// Ordinals below `start + partition` keep the current revision.
        partition: i32,
        /// The draft's safety halt holds the rollout: the highest ordinal
        /// runs the update revision and is failing (see
        /// [`super::enforced::failing`]) while lower replicas wait.
        safety_halt: bool,
    },
}

/// The phases of KEP-3541's "Proposed Recreate Strategy Algorithm".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecreatePhase {
    /// Some pod of another revision is not yet deleted.
    NeedsDeletion,
    /// Pods of other revisions are terminating.
    WaitingTermination,
    /// No old pod remains; fewer than `replicas` pods of the update revision.
    ReadyForCreation,
    /// Every replica exists at the update revision.
    Complete,
}

/// Actions performed at once, as upstream's `slowStartBatch` runs a
/// Parallel set's pods (stateful_set_control.go, `runForAll`): every lane at
/// the same time, each lane's actions in order; a failed lane ends the sync
/// once the whole batch is done.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Batch {
    /// Each lane: a range of [`Plan::actions`] (one pod's actions), in
    /// order, the lanes one after the other and none empty.
    pub lanes: Vec<std::ops::Range<usize>>,
}

impl Batch {
    /// The first action of the batch.
    pub fn start(&self) -> usize {
        self.lanes.first().map_or(0, |l| l.start)
    }

    /// One past the batch's last action.
    pub fn end(&self) -> usize {
        self.lanes.last().map_or(0, |l| l.end)
    }
}

/// The decision of one sync.
#[derive(Clone, Debug)]
pub struct Plan {
    /// To perform in order; the executor stops at the first failure and requeues.
    pub actions: Vec<Action>,
    /// Runs of `actions` performed in slow-start batches (a Parallel set's
    /// creations and scale-down); every other action goes alone, in order.
    pub batches: Vec<Batch>,
    /// Desired status, written if it differs from the observed one
    /// (see [`super::status::needs_update`]).
    pub status: StatefulSetStatus,
    /// Sync again after this long even without a change (minReadySeconds).
    pub requeue_after: Option<Duration>,
    /// Where the set stands.
    pub phase: Phase,
}

/// One API call to make.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// Create this ControllerRevision. On AlreadyExists with different data
    /// the executor may write `status.collisionCount + 1` and requeue.
    CreateRevision(ControllerRevision),
    /// Raise the `revision` number of an existing revision (rollback).
    UpdateRevisionNumber {
        /// Revision name.
        name: String,
        /// New revision number.
        revision: i64,
    },
    /// Delete a revision no longer needed by the history limit.
    DeleteRevision {
        /// Revision name.
        name: String,
    },
    /// Create a claim for a pod (before the pod).
    CreateClaim {
        /// The claim.
        claim: PersistentVolumeClaim,
        /// Name of the pod it is for (for the event message).
        pod: String,
    },
    /// Create a pod.
    CreatePod(Pod),
    /// Delete a pod (use `uid` as precondition).
    DeletePod {
        /// Pod name.
        name: String,
        /// Pod uid.
        uid: String,
        /// Why.
        reason: DeleteReason,
    },
    /// Replace a pod whose identity or storage drifted from the set.
    UpdatePod(Pod),
    /// Replace a claim whose ownerReferences disagree with the retention policy.
    UpdateClaim(PersistentVolumeClaim),
    /// A JSON merge patch of a pod: an OpenKruise in-place update (its
    /// revision, recorded in the event, when it starts one).
    PatchPod {
        /// Pod name.
        name: String,
        /// The merge patch.
        patch: Value,
        /// The update revision of an in-place update this patch starts.
        in_place_revision: Option<String>,
    },
    /// Set conditions of a pod's status (a strategic merge patch by type),
    /// as OpenKruise sets `InPlaceUpdateReady`.
    SetPodConditions {
        /// Pod name.
        name: String,
        /// The conditions.
        conditions: Vec<k8s_openapi::api::core::v1::PodCondition>,
    },
    /// Record an event on the set.
    Event(EventSpec),
}

/// Why a pod is deleted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeleteReason {
    /// Phase Failed or Succeeded: it is recreated once gone.
    Failed,
    /// Its ordinal is out of range.
    ScaleDown,
    /// Replaced by the rolling update.
    RollingUpdate,
    /// Deleted by the Recreate strategy.
    Recreate,
    /// An Advanced StatefulSet pod labelled `apps.kruise.io/specified-delete`.
    SpecifiedDelete,
    /// Replaced by EnforcedRollingUpdate although it was not Available (a
    /// replacement RollingUpdate would have waited for).
    ForcedReplacement,
}

/// Event type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventType {
    /// Normal.
    Normal,
    /// Warning.
    Warning,
}

/// An event to record on the set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventSpec {
    /// Normal or Warning.
    pub type_: EventType,
    /// CamelCase reason.
    pub reason: String,
    /// Message.
    pub message: String,
}

/// Reason of the event emitted when a Recreate rollout starts deleting pods.
pub const RECREATE_STARTED: &str = "RecreateStarted";
/// Message of the `RecreateStarted` event (KEP-3541 pseudo-code).
pub const RECREATE_STARTED_MESSAGE: &str = "Deleting all pods for Recreate update";

/// A set the controller cannot act on. The message suits a Warning event.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    /// No `.metadata.name`.
    #[error("StatefulSet has no name")]
    MissingName,
    /// An empty selector would select every pod.
    #[error("StatefulSet {0} has an empty selector: it would select every pod")]
    EmptySelector(String),
    /// The selector cannot be evaluated.
    #[error("StatefulSet {set} has an invalid selector: {message}")]
    InvalidSelector {
        /// Set name.
        set: String,
        /// What is wrong.
        message: String,
    },
    /// The selector does not select the pods the template makes.
    #[error("StatefulSet {0}: selector does not match template labels")]
    SelectorMismatch(String),
    /// `maxUnavailable` is neither an integer nor a percentage.
    #[error("StatefulSet {set}: invalid maxUnavailable: {message}")]
    InvalidMaxUnavailable {
        /// Set name.
        set: String,
        /// What is wrong.
        message: String,
    },
    /// Revision data cannot be built or read.
    #[error("StatefulSet {set}: {source}")]
    Revision {
        /// Set name.
        set: String,
        /// The underlying problem.
        source: RevisionError,
    },
}

impl PlanError {
    /// The Warning event to record for this error.
    pub fn event(&self) -> EventSpec {
        EventSpec {
            type_: EventType::Warning,
            reason: "FailedSync".to_string(),
            message: self.to_string(),
        }
    }
}
