//! The Events the scheduler and the kubelet record about a pod, worded as
//! upstream's, and their core/v1 Event objects.

use super::images::normalize;
use super::kubelet::ContainerState;
use super::podstatus::ts;
use jiff::Timestamp;
use k8s_openapi::api::core::v1::Pod;
use serde_json::{json, Value};

/// One event about a pod.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct PodEvent {
    /// `Normal` or `Warning`.
    pub type_: &'static str,
    /// The reason, e.g. `BackOff`.
    pub reason: &'static str,
    /// The message.
    pub message: String,
    /// `spec.containers{name}` for container events.
    pub field_path: Option<String>,
}

fn container_event(
    type_: &'static str,
    reason: &'static str,
    container: &str,
    message: String,
) -> PodEvent {
    PodEvent {
        type_,
        reason,
        message,
        field_path: Some(format!("spec.containers{{{container}}}")),
    }
}

fn start_events(container: &str, image: &str) -> Vec<PodEvent> {
    vec![
        container_event(
            "Normal",
            "Pulled",
            container,
            format!("Container image \"{image}\" already present on machine"),
        ),
        container_event(
            "Normal",
            "Created",
            container,
            format!("Created container: {container}"),
        ),
        container_event(
            "Normal",
            "Started",
            container,
            format!("Started container {container}"),
        ),
    ]
}

fn pull_failed(container: &str, image: &str) -> Vec<PodEvent> {
    let full = normalize(image);
    vec![
        container_event("Normal", "Pulling", container, format!("Pulling image \"{image}\"")),
        container_event(
            "Warning",
            "Failed",
            container,
            format!("Failed to pull image \"{image}\": rpc error: code = NotFound desc = failed to pull and unpack image \"{full}\": failed to resolve reference \"{full}\": {full}: not found"),
        ),
        container_event("Warning", "Failed", container, "Error: ErrImagePull".to_string()),
    ]
}

/// The kubelet's events for a container moving from `from` to `to`;
/// `pod_ref` is `name_namespace(uid)`.
pub(super) fn on_transition(
    container: &str,
    image: &str,
    from: &ContainerState,
    to: &ContainerState,
    pod_ref: &str,
) -> Vec<PodEvent> {
    use ContainerState as S;
    match (from, to) {
        (S::Creating(_) | S::Exited(_) | S::CrashLoopBackOff(_), S::Running(..)) => {
            start_events(container, image)
        }
        (S::Creating(_) | S::ImagePullBackOff(..), S::ErrImagePull(..)) => {
            pull_failed(container, image)
        }
        (S::ErrImagePull(..), S::ImagePullBackOff(..)) => vec![
            container_event(
                "Normal",
                "BackOff",
                container,
                format!("Back-off pulling image \"{image}\""),
            ),
            container_event(
                "Warning",
                "Failed",
                container,
                "Error: ImagePullBackOff".to_string(),
            ),
        ],
        (S::Exited(_), S::CrashLoopBackOff(_)) => vec![container_event(
            "Warning",
            "BackOff",
            container,
            format!("Back-off restarting failed container {container} in pod {pod_ref}"),
        )],
        _ => Vec::new(),
    }
}

/// The kubelet's event when it starts stopping a running container.
pub(super) fn killing(container: &str) -> PodEvent {
    container_event(
        "Normal",
        "Killing",
        container,
        format!("Stopping container {container}"),
    )
}

/// The scheduler's event for a binding.
pub(super) fn scheduled(namespace: &str, name: &str, node: &str) -> PodEvent {
    PodEvent {
        type_: "Normal",
        reason: "Scheduled",
        message: format!("Successfully assigned {namespace}/{name} to {node}"),
        field_path: None,
    }
}

/// The scheduler's event for a pod that fits no node.
pub(super) fn failed_scheduling(message: &str) -> PodEvent {
    PodEvent {
        type_: "Warning",
        reason: "FailedScheduling",
        message: message.to_string(),
        field_path: None,
    }
}

/// Who records an event.
#[derive(Clone, Debug)]
pub(super) struct Source<'a> {
    /// `kubelet` or `default-scheduler`.
    pub component: &'a str,
    /// The node, for the kubelet.
    pub host: Option<&'a str>,
}

/// A core/v1 Event object for the pod.
pub(super) fn event_object(
    pod: &Pod,
    ev: &PodEvent,
    source: &Source<'_>,
    name: &str,
    first: Timestamp,
    last: Timestamp,
    count: i32,
) -> Value {
    let mut involved = json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "namespace": pod.metadata.namespace.clone().unwrap_or_default(),
        "name": pod.metadata.name.clone().unwrap_or_default(),
        "uid": pod.metadata.uid.clone().unwrap_or_default(),
    });
    if let Some(rv) = &pod.metadata.resource_version {
        involved["resourceVersion"] = json!(rv);
    }
    if let Some(fp) = &ev.field_path {
        involved["fieldPath"] = json!(fp);
    }
    let mut src = json!({"component": source.component});
    if let Some(h) = source.host {
        src["host"] = json!(h);
    }
    json!({
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": name, "namespace": pod.metadata.namespace.clone().unwrap_or_default()},
        "involvedObject": involved,
        "reason": ev.reason,
        "message": ev.message,
        "source": src,
        "firstTimestamp": ts(first),
        "lastTimestamp": ts(last),
        "count": count,
        "type": ev.type_,
        "reportingComponent": source.component,
        "reportingInstance": source.host.unwrap_or(source.component),
    })
}

#[cfg(test)]
mod tests {
    use super::super::kubelet::Terminated;
    use super::*;

    #[test]
    fn container_transitions() {
        let t: Timestamp = "2026-01-01T00:00:00Z".parse().unwrap();
        let started = on_transition(
            "app",
            "pause:3.10",
            &ContainerState::Creating(t),
            &ContainerState::Running(t, None),
            "p",
        );
        let reasons: Vec<&str> = started.iter().map(|e| e.reason).collect();
        assert_eq!(reasons, vec!["Pulled", "Created", "Started"]);
        assert_eq!(started[1].message, "Created container: app");
        assert_eq!(
            started[0].field_path.as_deref(),
            Some("spec.containers{app}")
        );
        let failed = on_transition(
            "app",
            "x:1",
            &ContainerState::Creating(t),
            &ContainerState::ErrImagePull(t, 1),
            "p",
        );
        assert_eq!(failed[2].message, "Error: ErrImagePull");
        let back = on_transition(
            "app",
            "x:1",
            &ContainerState::ErrImagePull(t, 1),
            &ContainerState::ImagePullBackOff(t, 1),
            "p",
        );
        assert_eq!(back[0].message, "Back-off pulling image \"x:1\"");
        let ended = Terminated {
            exit_code: 1,
            reason: "Error".into(),
            started: t,
            finished: t,
            container_id: String::new(),
        };
        let crash = on_transition(
            "app",
            "x:1",
            &ContainerState::Exited(ended),
            &ContainerState::CrashLoopBackOff(t),
            "web-0_ns(u)",
        );
        assert_eq!(
            crash[0].message,
            "Back-off restarting failed container app in pod web-0_ns(u)"
        );
        assert!(on_transition(
            "app",
            "x",
            &ContainerState::Running(t, None),
            &ContainerState::Running(t, None),
            "p"
        )
        .is_empty());
    }

    #[test]
    fn event_objects() {
        let pod: Pod = serde_json::from_value(
            json!({"metadata": {"name": "web-0", "namespace": "ns", "uid": "u"}}),
        )
        .unwrap();
        let t: Timestamp = "2026-01-01T00:00:00Z".parse().unwrap();
        let ev = scheduled("ns", "web-0", "kind-worker");
        let obj = event_object(
            &pod,
            &ev,
            &Source {
                component: "default-scheduler",
                host: None,
            },
            "web-0.1",
            t,
            t,
            1,
        );
        assert_eq!(
            obj["message"],
            "Successfully assigned ns/web-0 to kind-worker"
        );
        assert_eq!(obj["involvedObject"]["uid"], "u");
        assert_eq!(obj["source"], json!({"component": "default-scheduler"}));
        assert_eq!(obj["count"], 1);
        assert_eq!(killing("app").message, "Stopping container app");
        assert_eq!(failed_scheduling("m").type_, "Warning");
    }
}
