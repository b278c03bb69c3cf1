//! The kubelet's decisions for one pod, without I/O: container lifecycles
//! driven by the clock (pull, start, exit, restart back-off, preStop,
//! grace period), from which `podstatus` renders the status.
//!
//! [`sync`] advances a [`PodRuntime`] to `now` and says what to write and
//! when to look again; the caller performs the writes and sets the timer.

use super::clock::{backoff, container_id, plus};
use super::events::{self, PodEvent};
use super::images::{process_of, ImageBehaviour, ImageCatalog, Process};
use super::podstatus;
use super::termination::{plan_stop, stopped};
use super::Timings;
use jiff::Timestamp;
use k8s_openapi::api::core::v1::{Container, Pod};
use std::collections::BTreeMap;

/// How a container ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Terminated {
    /// Exit code (137 when killed at the end of the grace period).
    pub exit_code: i32,
    /// `Completed` for 0, `Error` otherwise.
    pub reason: String,
    /// When the container started.
    pub started: Timestamp,
    /// When it ended.
    pub finished: Timestamp,
    /// The runtime's id of the ended container.
    pub container_id: String,
}

/// Where a container is in its lifecycle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum ContainerState {
    /// Waiting `ContainerCreating` (pulling/creating) since the time.
    Creating(Timestamp),
    /// Waiting `ErrImagePull` since the time (the attempt number).
    ErrImagePull(Timestamp, u32),
    /// Waiting `ImagePullBackOff` until the time (the attempt number).
    ImagePullBackOff(Timestamp, u32),
    /// Running since the time; exits by itself at the optional time.
    Running(Timestamp, Option<(Timestamp, i32)>),
    /// Terminated and about to be restarted (shown as terminated).
    Exited(Terminated),
    /// Waiting `CrashLoopBackOff` until the time.
    CrashLoopBackOff(Timestamp),
    /// Terminated for good (restart policy, or the pod is terminating).
    Stopped(Terminated),
}

/// The kubelet's record of one container.
#[derive(Clone, Debug)]
pub(super) struct ContainerRuntime {
    /// Container name.
    pub name: String,
    /// The image the current container was created from (as in the spec).
    pub image: String,
    /// After an image change, until a container of `image` is created (its
    /// pull may fail for ever): the image of the exited container the
    /// runtime still holds. The status reports that container's image,
    /// imageID and containerID meanwhile (kubelet's
    /// `convertToAPIContainerStatuses` converts the runtime's newest
    /// container, and a failed start only sets its `state`).
    pub previous_image: Option<String>,
    /// Lifecycle state.
    pub state: ContainerState,
    /// Restarts so far.
    pub restart_count: i32,
    /// The previous termination, if any.
    pub last_terminated: Option<Terminated>,
    /// Time at which a terminating container stops, once decided.
    pub stop_at: Option<(Timestamp, i32)>,
}

/// The kubelet's record of one pod.
#[derive(Clone, Debug)]
pub(super) struct PodRuntime {
    /// The pod's uid.
    pub uid: String,
    /// When the kubelet admitted the pod (`status.startTime`).
    pub admitted: Timestamp,
    /// The node's IP.
    pub host_ip: String,
    /// The pod's IP.
    pub pod_ip: String,
    /// Per container, in spec order.
    pub containers: Vec<ContainerRuntime>,
    /// Per ephemeral container, in the order they were added.
    pub ephemeral: Vec<ContainerRuntime>,
    /// Last status and transition time of each pod condition written.
    pub conditions: BTreeMap<String, (bool, Timestamp)>,
    /// When the kubelet saw the deletion.
    pub terminating_since: Option<Timestamp>,
    /// When the pod's volumes were mounted (every claim bound).
    pub mounted_at: Option<Timestamp>,
    /// A sync found a claim not yet bound.
    pub waited_for_volumes: bool,
}

/// Inputs besides the pod and its runtime.
pub(super) struct KubeletContext<'a> {
    /// Images the node can run.
    pub catalog: &'a ImageCatalog,
    /// Delays.
    pub timings: &'a Timings,
    /// The clock.
    pub now: Timestamp,
    /// Whether every claim the pod mounts is bound; until then its
    /// containers stay `ContainerCreating` (volumes cannot be mounted).
    pub volumes_ready: bool,
}

/// What to do after a sync.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct SyncResult {
    /// The status to write through the `status` subresource (a strategic
    /// merge patch body: conditions merge by type).
    pub status: serde_json::Value,
    /// When the pod needs another sync without any watch event.
    pub next_wake: Option<Timestamp>,
    /// All containers have stopped after a deletion: remove the pod
    /// (DELETE with gracePeriodSeconds=0).
    pub remove: bool,
    /// Events to record, in order.
    pub events: Vec<PodEvent>,
}

impl PodRuntime {
    /// A runtime for a pod the kubelet admits at `now`.
    pub(super) fn new(pod: &Pod, now: Timestamp, host_ip: &str, pod_ip: &str) -> Self {
        let uid = pod.metadata.uid.clone().unwrap_or_default();
        let containers = spec_containers(pod)
            .iter()
            .map(|c| ContainerRuntime {
                name: c.name.clone(),
                image: c.image.clone().unwrap_or_default(),
                previous_image: None,
                state: ContainerState::Creating(now),
                restart_count: 0,
                last_terminated: None,
                stop_at: None,
            })
            .collect();
        PodRuntime {
            uid,
            admitted: now,
            host_ip: host_ip.to_string(),
            pod_ip: pod_ip.to_string(),
            containers,
            ephemeral: Vec::new(),
            conditions: BTreeMap::new(),
            terminating_since: None,
            mounted_at: None,
            waited_for_volumes: false,
        }
    }
}

/// The pod's containers (empty when it has no spec).
pub(super) fn spec_containers(pod: &Pod) -> &[Container] {
    pod.spec
        .as_ref()
        .map(|s| s.containers.as_slice())
        .unwrap_or_default()
}

/// The pod's ephemeral containers as containers (the fields they share).
pub(super) fn ephemeral_containers(pod: &Pod) -> Vec<Container> {
    let list = pod
        .spec
        .as_ref()
        .and_then(|s| s.ephemeral_containers.as_ref());
    list.into_iter()
        .flatten()
        .map(|e| Container {
            name: e.name.clone(),
            image: e.image.clone(),
            command: e.command.clone(),
            args: e.args.clone(),
            stdin: e.stdin,
            ..Container::default()
        })
        .collect()
}

fn restart_policy(pod: &Pod) -> &str {
    pod.spec
        .as_ref()
        .and_then(|s| s.restart_policy.as_deref())
        .unwrap_or("Always")
}

/// Advances the pod to `ctx.now` and renders its status.
pub(super) fn sync(pod: &Pod, rt: &mut PodRuntime, ctx: &KubeletContext<'_>) -> SyncResult {
    let now = ctx.now;
    let terminating = pod.metadata.deletion_timestamp.is_some();
    if terminating && rt.terminating_since.is_none() {
        rt.terminating_since = Some(now);
    }
    let grace = pod
        .metadata
        .deletion_grace_period_seconds
        .or_else(|| {
            pod.spec
                .as_ref()
                .and_then(|s| s.termination_grace_period_seconds)
        })
        .unwrap_or(30)
        .max(0);
    let policy = restart_policy(pod).to_string();
    let mut events = Vec::new();
    let pod_ref = format!(
        "{}_{}({})",
        pod.metadata.name.as_deref().unwrap_or_default(),
        pod.metadata.namespace.as_deref().unwrap_or_default(),
        rt.uid
    );
    if rt.mounted_at.is_none() {
        if !ctx.volumes_ready {
            rt.waited_for_volumes = true;
        } else if rt.waited_for_volumes {
            // Pulling starts once the volumes are mounted.
            rt.mounted_at = Some(now);
            for c in &mut rt.containers {
                if let ContainerState::Creating(since) = &mut c.state {
                    *since = now;
                }
            }
        } else {
            rt.mounted_at = Some(rt.admitted);
        }
    }
    let mut wakes: Vec<Timestamp> = Vec::new();
    let pod_ctx = PodStep {
        uid: rt.uid.clone(),
        pod_ref,
        terminating_since: rt.terminating_since,
        mounted: rt.mounted_at.is_some(),
        grace,
        now,
    };
    for container in spec_containers(pod) {
        let Some(c) = rt.containers.iter_mut().find(|c| c.name == container.name) else {
            continue;
        };
        let spec_image = container.image.clone().unwrap_or_default();
        if !terminating && spec_image != c.image {
            replace_image(c, &spec_image, &rt.uid, now);
        }
        wakes.extend(pod_ctx.step(c, container, &policy, ctx, &mut events));
    }
    // Ephemeral containers (`kubectl debug`) start once added, in a pod
    // not being deleted, and are never restarted (the kubelet's
    // `ShouldContainerBeRestarted` skips them); they stop with the pod.
    for container in ephemeral_containers(pod) {
        if !rt.ephemeral.iter().any(|c| c.name == container.name) {
            if terminating {
                continue;
            }
            rt.ephemeral.push(ContainerRuntime {
                name: container.name.clone(),
                image: container.image.clone().unwrap_or_default(),
                previous_image: None,
                state: ContainerState::Creating(now),
                restart_count: 0,
                last_terminated: None,
                stop_at: None,
            });
        }
        let Some(c) = rt.ephemeral.iter_mut().find(|c| c.name == container.name) else {
            continue;
        };
        wakes.extend(pod_ctx.step(c, &container, "Never", ctx, &mut events));
    }
    let all_stopped = rt
        .containers
        .iter()
        .chain(&rt.ephemeral)
        .all(|c| matches!(c.state, ContainerState::Stopped(_)));
    let remove = rt.terminating_since.is_some() && all_stopped;
    let status = podstatus::render(pod, rt, ctx);
    let ready_wake = podstatus::next_readiness_change(pod, rt, now);
    SyncResult {
        status,
        next_wake: wakes.into_iter().chain(ready_wake).min(),
        remove,
        events,
    }
}

/// What every container of one pod's sync shares.
struct PodStep {
    uid: String,
    pod_ref: String,
    terminating_since: Option<Timestamp>,
    mounted: bool,
    grace: i64,
    now: Timestamp,
}

impl PodStep {
    /// Plans the container's stop once the pod is terminating, then
    /// applies its transitions due by now; the time of its next one.
    fn step(
        &self,
        c: &mut ContainerRuntime,
        container: &Container,
        policy: &str,
        ctx: &KubeletContext<'_>,
        events: &mut Vec<PodEvent>,
    ) -> Option<Timestamp> {
        let image = ctx
            .catalog
            .lookup(container.image.as_deref().unwrap_or_default());
        if let Some(since) = self.terminating_since {
            let sigterm_ignored = image.is_some_and(|i| i.ignores_sigterm);
            let was_running = c.stop_at.is_none() && matches!(c.state, ContainerState::Running(..));
            plan_stop(
                c,
                container,
                since,
                self.grace,
                sigterm_ignored,
                ctx.timings,
            );
            if was_running {
                events.push(events::killing(&c.name));
            }
        } else if !self.mounted {
            return None;
        }
        let step = Step {
            uid: &self.uid,
            pod_ref: &self.pod_ref,
            spec: container,
            image,
            policy,
            timings: ctx.timings,
        };
        advance(c, &step, self.now, events)
    }
}

struct Step<'a> {
    uid: &'a str,
    pod_ref: &'a str,
    spec: &'a Container,
    image: Option<&'a ImageBehaviour>,
    policy: &'a str,
    timings: &'a Timings,
}

/// The container is stopped and one of `image` is pulled and created; the
/// restart count goes up once it is (kuberuntime's `startContainer`).
fn replace_image(c: &mut ContainerRuntime, image: &str, uid: &str, now: Timestamp) {
    if let ContainerState::Running(started, _) = c.state {
        c.last_terminated = Some(Terminated {
            exit_code: 0,
            reason: "Completed".into(),
            started,
            finished: now,
            container_id: container_id(uid, &c.name, c.restart_count),
        });
    }
    if c.previous_image.is_none() && c.last_terminated.is_some() {
        c.previous_image = Some(c.image.clone());
    }
    c.image = image.to_string();
    c.state = ContainerState::Creating(now);
}

/// Applies every transition due by `now`; returns the next one's time.
fn advance(
    c: &mut ContainerRuntime,
    step: &Step<'_>,
    now: Timestamp,
    events: &mut Vec<PodEvent>,
) -> Option<Timestamp> {
    let t = step.timings;
    // Bounded: each pass either moves forward in time or returns.
    for _ in 0..64 {
        if let Some((stop, code)) = c.stop_at {
            if !matches!(c.state, ContainerState::Stopped(_)) {
                if stop > now {
                    return Some(stop);
                }
                c.state = ContainerState::Stopped(stopped(c, step.uid, stop, code));
                continue;
            }
            return None;
        }
        let (due, next) = match &c.state {
            ContainerState::Creating(since) => match step.image {
                Some(_) => {
                    let at = plus(*since, t.pull + t.start);
                    (at, ContainerState::Running(at, exit_time(step, at)))
                }
                None => {
                    let at = plus(*since, t.pull);
                    (at, ContainerState::ErrImagePull(at, 1))
                }
            },
            ContainerState::ErrImagePull(since, attempt) => {
                let at = plus(*since, t.start);
                (
                    at,
                    ContainerState::ImagePullBackOff(
                        plus(at, backoff(t.pull_backoff, *attempt)),
                        *attempt,
                    ),
                )
            }
            ContainerState::ImagePullBackOff(until, attempt) => (
                *until,
                ContainerState::ErrImagePull(plus(*until, t.pull), attempt + 1),
            ),
            ContainerState::Running(_, None) => return None,
            ContainerState::Running(started, Some((at, code))) => {
                let ended = Terminated {
                    exit_code: *code,
                    reason: if *code == 0 { "Completed" } else { "Error" }.into(),
                    started: *started,
                    finished: *at,
                    container_id: container_id(step.uid, &c.name, c.restart_count),
                };
                let restart = match step.policy {
                    "Never" => false,
                    "OnFailure" => *code != 0,
                    _ => true,
                };
                let next = if restart {
                    ContainerState::Exited(ended)
                } else {
                    ContainerState::Stopped(ended)
                };
                (*at, next)
            }
            ContainerState::Exited(ended) => {
                let at = plus(ended.finished, t.start);
                if c.restart_count == 0 {
                    (at, ContainerState::Running(at, None))
                } else {
                    let until = plus(at, backoff(t.crash_backoff, c.restart_count.unsigned_abs()));
                    (at, ContainerState::CrashLoopBackOff(until))
                }
            }
            ContainerState::CrashLoopBackOff(until) => {
                (*until, ContainerState::Running(*until, None))
            }
            ContainerState::Stopped(_) => return None,
        };
        if due > now {
            return Some(due);
        }
        let before = c.state.clone();
        apply(c, step, next, due);
        events.extend(events::on_transition(
            &c.name,
            &c.image,
            &before,
            &c.state,
            step.pod_ref,
        ));
    }
    Some(now)
}

fn apply(c: &mut ContainerRuntime, step: &Step<'_>, next: ContainerState, due: Timestamp) {
    match (&c.state, next) {
        (ContainerState::Exited(ended), ContainerState::Running(at, _)) => {
            c.last_terminated = Some(ended.clone());
            c.restart_count += 1;
            c.state = ContainerState::Running(at, exit_time(step, at));
        }
        (ContainerState::Exited(ended), next @ ContainerState::CrashLoopBackOff(_)) => {
            c.last_terminated = Some(ended.clone());
            c.state = next;
        }
        (ContainerState::CrashLoopBackOff(_), ContainerState::Running(..)) => {
            c.restart_count += 1;
            c.state = ContainerState::Running(due, exit_time(step, due));
        }
        (ContainerState::Creating(_), next @ ContainerState::Running(..))
            if c.previous_image.is_some() =>
        {
            // The container of the new image is created.
            c.previous_image = None;
            c.restart_count += 1;
            c.state = next;
        }
        (_, next) => c.state = next,
    }
}

fn exit_time(step: &Step<'_>, started: Timestamp) -> Option<(Timestamp, i32)> {
    let image = step.image?;
    let command = step.spec.command.clone().unwrap_or_default();
    let args = step.spec.args.clone().unwrap_or_default();
    // An image's own entrypoint (a shell, for busybox) given an open stdin
    // (`kubectl debug -i`, `kubectl run -i`) waits on it rather than exit.
    if command.is_empty() && args.is_empty() && step.spec.stdin == Some(true) {
        return None;
    }
    match process_of(&command, &args, image) {
        Process::Forever => None,
        Process::Exits { after, code } => Some((plus(started, after), code)),
    }
}
