//! Renders a pod's status the way the kubelet reports it: phase,
//! conditions, container statuses, IPs and start time.

use super::clock::{backoff, container_id, hex_id, plus};
use super::images::normalize;
use super::kubelet::{ContainerRuntime, ContainerState, KubeletContext, PodRuntime, Terminated};
use jiff::Timestamp;
use k8s_openapi::api::core::v1::Pod;
use serde_json::{json, Map, Value};
use std::time::Duration;

/// Kubernetes' RFC 3339 rendering of a time (seconds precision).
pub(super) fn ts(t: Timestamp) -> String {
    t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// Go's `time.Duration.String()` for the durations the kubelet prints
/// (the one rendering the protobuf transcoder uses for metav1.Duration).
pub(super) fn go_duration(d: Duration) -> String {
    crate::proto::to_json::go_duration(i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
}

/// `<repository>@sha256:<digest>` for an image reference.
fn image_id(image: &str) -> String {
    let full = normalize(image);
    let repo = match full.rsplit_once('/') {
        Some((head, last)) => format!("{head}/{}", last.split([':', '@']).next().unwrap_or(last)),
        None => full.clone(),
    };
    format!("{repo}@sha256:{}", hex_id(&full))
}

fn terminated_json(t: &Terminated) -> Value {
    let mut m = json!({
        "exitCode": t.exit_code,
        "reason": t.reason,
        "startedAt": ts(t.started),
        "finishedAt": ts(t.finished),
    });
    if t.reason == "ContainerStatusUnknown" {
        m["message"] = json!("The container could not be located when the pod was terminated");
    } else {
        m["containerID"] = json!(t.container_id);
    }
    m
}

fn readiness_delay(pod: &Pod, name: &str) -> Option<Duration> {
    let c = pod
        .spec
        .as_ref()?
        .containers
        .iter()
        .find(|c| c.name == name)?;
    let probe = c.readiness_probe.as_ref()?;
    Some(Duration::from_secs(
        probe
            .initial_delay_seconds
            .unwrap_or(0)
            .max(0)
            .unsigned_abs()
            .into(),
    ))
}

fn container_ready(pod: &Pod, rt_state: &ContainerState, name: &str, now: Timestamp) -> bool {
    match rt_state {
        ContainerState::Running(started, _) => match readiness_delay(pod, name) {
            Some(d) => plus(*started, d) <= now,
            None => true,
        },
        _ => false,
    }
}

/// When a running container's readiness probe first passes, if still ahead.
pub(super) fn next_readiness_change(
    pod: &Pod,
    rt: &PodRuntime,
    now: Timestamp,
) -> Option<Timestamp> {
    rt.containers
        .iter()
        .filter_map(|c| match c.state {
            ContainerState::Running(started, _) => {
                let at = plus(started, readiness_delay(pod, &c.name)?);
                (at > now).then_some(at)
            }
            _ => None,
        })
        .min()
}

/// Renders the status patch of the pod for its runtime at `ctx.now`,
/// recording condition transitions in the runtime.
pub(super) fn render(pod: &Pod, rt: &mut PodRuntime, ctx: &KubeletContext<'_>) -> Value {
    let now = ctx.now;
    let pod_name = pod.metadata.name.clone().unwrap_or_default();
    let namespace = pod.metadata.namespace.clone().unwrap_or_default();
    let mut statuses = Vec::new();
    let mut unready = Vec::new();
    let (mut running, mut waiting, mut stopped, mut succeeded) = (0, 0, 0, 0);
    for c in &rt.containers {
        let ready = container_ready(pod, &c.state, &c.name, now);
        if !ready {
            unready.push(c.name.clone());
        }
        let (state, mut id, ran) = state_json(c, rt, ctx, &pod_name, &namespace);
        // What the runtime's newest container was created from: the exited
        // one while a container of a new image is not yet created.
        let (image, reported_id) = match &c.previous_image {
            Some(previous) => {
                id = id.or_else(|| c.last_terminated.as_ref().map(|t| t.container_id.clone()));
                (previous.as_str(), image_id(previous))
            }
            None if ran || c.last_terminated.is_some() => (c.image.as_str(), image_id(&c.image)),
            None => (c.image.as_str(), String::new()),
        };
        match &c.state {
            ContainerState::Running(..) => running += 1,
            ContainerState::Exited(t) | ContainerState::Stopped(t) => {
                stopped += 1;
                if t.exit_code == 0 {
                    succeeded += 1;
                }
            }
            _ if c.last_terminated.is_some() => stopped += 1,
            _ => waiting += 1,
        }
        let mut s = json!({
            "name": c.name,
            "image": normalize(image),
            "imageID": reported_id,
            "ready": ready,
            "started": matches!(c.state, ContainerState::Running(..)),
            "restartCount": c.restart_count,
            "state": state,
            "lastState": c.last_terminated.as_ref().map_or(json!({}), |t| json!({"terminated": terminated_json(t)})),
        });
        if let Some(id) = id.filter(|i| !i.is_empty()) {
            s["containerID"] = json!(id);
        }
        statuses.push(s);
    }

    let policy = pod
        .spec
        .as_ref()
        .and_then(|s| s.restart_policy.as_deref())
        .unwrap_or("Always");
    let terminal_after_delete = rt.terminating_since.is_some() && running == 0 && waiting == 0;
    let phase = if waiting > 0 {
        "Pending"
    } else if running > 0 {
        "Running"
    } else if stopped > 0 {
        if policy == "Always" && !terminal_after_delete {
            "Running"
        } else if stopped == succeeded {
            "Succeeded"
        } else if policy == "Never" || terminal_after_delete {
            "Failed"
        } else {
            "Running"
        }
    } else {
        "Pending"
    };
    let terminal = phase == "Succeeded" || phase == "Failed";

    let containers_ready = unready.is_empty();
    let unready_msg = format!("containers with unready status: [{}]", unready.join(" "));
    let gate_problems = readiness_gate_problems(pod);
    let mut conditions = Vec::new();
    conditions.push(condition(
        rt,
        "PodReadyToStartContainers",
        !terminal,
        None,
        now,
    ));
    conditions.push(condition(rt, "Initialized", true, None, now));
    let ready_reason = if terminal {
        Some(("PodCompleted".to_string(), String::new()))
    } else if !containers_ready {
        Some(("ContainersNotReady".to_string(), unready_msg.clone()))
    } else if !gate_problems.is_empty() {
        Some((
            "ReadinessGatesNotReady".to_string(),
            gate_problems.join(", "),
        ))
    } else {
        None
    };
    conditions.push(condition(
        rt,
        "Ready",
        ready_reason.is_none(),
        ready_reason.clone(),
        now,
    ));
    let cr_reason = if terminal {
        Some(("PodCompleted".to_string(), String::new()))
    } else if containers_ready {
        None
    } else {
        Some(("ContainersNotReady".to_string(), unready_msg))
    };
    conditions.push(condition(
        rt,
        "ContainersReady",
        cr_reason.is_none(),
        cr_reason,
        now,
    ));
    let scheduled = pod
        .status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .is_some_and(|cs| {
            cs.iter()
                .any(|c| c.type_ == "PodScheduled" && c.status == "True")
        });
    if !scheduled {
        conditions.push(condition(rt, "PodScheduled", true, None, now));
    }

    let mut status = Map::new();
    status.insert("phase".into(), json!(phase));
    status.insert("conditions".into(), Value::Array(conditions));
    status.insert("hostIP".into(), json!(rt.host_ip));
    status.insert("hostIPs".into(), json!([{"ip": rt.host_ip}]));
    status.insert("podIP".into(), json!(rt.pod_ip));
    status.insert("podIPs".into(), json!([{"ip": rt.pod_ip}]));
    status.insert("startTime".into(), json!(ts(rt.admitted)));
    status.insert("containerStatuses".into(), Value::Array(statuses));
    if !rt.ephemeral.is_empty() {
        status.insert(
            "ephemeralContainerStatuses".into(),
            Value::Array(ephemeral_statuses(pod, rt, ctx)),
        );
    }
    if let Some(inits) = pod.spec.as_ref().and_then(|s| s.init_containers.as_ref()) {
        let list: Vec<Value> = inits
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let image = c.image.clone().unwrap_or_default();
                let done = Terminated {
                    exit_code: 0,
                    reason: "Completed".into(),
                    started: rt.admitted,
                    finished: rt.admitted,
                    container_id: container_id(&rt.uid, &format!("init-{i}-{}", c.name), 0),
                };
                json!({
                    "name": c.name, "image": normalize(&image), "imageID": image_id(&image),
                    "containerID": done.container_id, "ready": true, "started": false, "restartCount": 0,
                    "state": {"terminated": terminated_json(&done)}, "lastState": {}
                })
            })
            .collect();
        status.insert("initContainerStatuses".into(), Value::Array(list));
    }
    Value::Object(status)
}

/// A container's `state`, its runtime id, and whether it ever ran.
fn state_json(
    c: &ContainerRuntime,
    rt: &PodRuntime,
    ctx: &KubeletContext<'_>,
    pod_name: &str,
    namespace: &str,
) -> (Value, Option<String>, bool) {
    match &c.state {
        ContainerState::Creating(_) => (
            json!({"waiting": {"reason": "ContainerCreating"}}),
            None,
            false,
        ),
        ContainerState::ErrImagePull(..) => {
            let full = normalize(&c.image);
            let msg = format!("rpc error: code = NotFound desc = failed to pull and unpack image \"{full}\": failed to resolve reference \"{full}\": {full}: not found");
            (
                json!({"waiting": {"reason": "ErrImagePull", "message": msg}}),
                None,
                false,
            )
        }
        ContainerState::ImagePullBackOff(..) => {
            let msg = format!("Back-off pulling image \"{}\"", c.image);
            (
                json!({"waiting": {"reason": "ImagePullBackOff", "message": msg}}),
                None,
                false,
            )
        }
        ContainerState::Running(started, _) => (
            json!({"running": {"startedAt": ts(*started)}}),
            Some(container_id(&rt.uid, &c.name, c.restart_count)),
            true,
        ),
        ContainerState::Exited(t) | ContainerState::Stopped(t) => (
            json!({"terminated": terminated_json(t)}),
            Some(t.container_id.clone()),
            t.reason != "ContainerStatusUnknown",
        ),
        ContainerState::CrashLoopBackOff(_) => {
            let delay = backoff(ctx.timings.crash_backoff, c.restart_count.unsigned_abs());
            let msg = format!(
                "back-off {} restarting failed container={} pod={}_{}({})",
                go_duration(delay),
                c.name,
                pod_name,
                namespace,
                rt.uid
            );
            let id = c.last_terminated.as_ref().map(|t| t.container_id.clone());
            (
                json!({"waiting": {"reason": "CrashLoopBackOff", "message": msg}}),
                id,
                true,
            )
        }
    }
}

/// The ephemeral containers' statuses, sorted by name as the kubelet sorts
/// them: never ready and without `started` (the prober manager tracks
/// neither for ephemeral containers), waiting `ContainerCreating` (or
/// `PodInitializing` in a pod with init containers) until they run.
fn ephemeral_statuses(pod: &Pod, rt: &PodRuntime, ctx: &KubeletContext<'_>) -> Vec<Value> {
    let pod_name = pod.metadata.name.clone().unwrap_or_default();
    let namespace = pod.metadata.namespace.clone().unwrap_or_default();
    let has_init = pod
        .spec
        .as_ref()
        .and_then(|s| s.init_containers.as_ref())
        .is_some_and(|i| !i.is_empty());
    let mut list: Vec<&ContainerRuntime> = rt.ephemeral.iter().collect();
    list.sort_by(|a, b| a.name.cmp(&b.name));
    list.into_iter()
        .map(|c| {
            let (mut state, id, ran) = state_json(c, rt, ctx, &pod_name, &namespace);
            if has_init && matches!(c.state, ContainerState::Creating(_)) {
                state = json!({"waiting": {"reason": "PodInitializing"}});
            }
            let mut s = json!({
                "name": c.name,
                "image": normalize(&c.image),
                "imageID": if ran { image_id(&c.image) } else { String::new() },
                "ready": false,
                "restartCount": c.restart_count,
                "state": state,
                "lastState": {},
            });
            if let Some(id) = id.filter(|i| !i.is_empty()) {
                s["containerID"] = json!(id);
            }
            s
        })
        .collect()
}

fn condition(
    rt: &mut PodRuntime,
    type_: &str,
    ok: bool,
    reason: Option<(String, String)>,
    now: Timestamp,
) -> Value {
    let entry = rt.conditions.entry(type_.to_string()).or_insert((ok, now));
    if entry.0 != ok {
        *entry = (ok, now);
    }
    let mut c = json!({
        "type": type_,
        "status": if ok { "True" } else { "False" },
        "lastTransitionTime": ts(entry.1),
    });
    // Absent fields are sent as null so that a strategic merge patch removes
    // what an earlier write set (the kubelet's two-way patch does the same).
    let (reason, message) = reason.unwrap_or_default();
    c["reason"] = if reason.is_empty() {
        Value::Null
    } else {
        json!(reason)
    };
    c["message"] = if message.is_empty() {
        Value::Null
    } else {
        json!(message)
    };
    c
}

/// Messages of the readiness gates whose condition is not True
/// (`GeneratePodReadyCondition`).
pub(super) fn readiness_gate_problems(pod: &Pod) -> Vec<String> {
    let gates = pod
        .spec
        .as_ref()
        .and_then(|s| s.readiness_gates.as_ref())
        .cloned()
        .unwrap_or_default();
    let conditions = pod
        .status
        .as_ref()
        .and_then(|s| s.conditions.clone())
        .unwrap_or_default();
    gates
        .iter()
        .filter_map(
            |g| match conditions.iter().find(|c| c.type_ == g.condition_type) {
                None => Some(format!(
                    "corresponding condition of pod readiness gate \"{}\" does not exist.",
                    g.condition_type
                )),
                Some(c) if c.status != "True" => Some(format!(
                    "the status of pod readiness gate \"{}\" is not \"True\", but {}",
                    g.condition_type, c.status
                )),
                Some(_) => None,
            },
        )
        .collect()
}
