//! Kubelet decisions over simulated time: what the status says at each
//! moment, and when the pod is removed.

use super::super::images::ImageCatalog;
use super::super::kubelet::{sync, KubeletContext, PodRuntime, SyncResult};
use super::super::termination::pre_stop_duration;
use super::super::Timings;
use jiff::Timestamp;
use k8s_openapi::api::core::v1::Pod;
use serde_json::{json, Value};
use std::time::Duration;

fn timings() -> Timings {
    Timings {
        schedule: Duration::from_millis(10),
        pull: Duration::from_secs(1),
        start: Duration::from_secs(1),
        crash_backoff: Duration::from_secs(10),
        pull_backoff: Duration::from_secs(10),
        stop: Duration::from_secs(1),
        bind_volume: Duration::from_secs(1),
    }
}

fn catalog() -> ImageCatalog {
    ImageCatalog::new(&[
        "registry.k8s.io/pause:3.10".to_string(),
        "busybox:1.36 exit=0".to_string(),
        "example.com/stubborn:1 sigterm=ignore".to_string(),
    ])
}

fn t0() -> Timestamp {
    "2026-11-22T01:00:00Z".parse().unwrap()
}

fn at(secs: f64) -> Timestamp {
    super::super::clock::plus(t0(), Duration::from_secs_f64(secs))
}

fn pod(containers: Value) -> Value {
    json!({
        "metadata": {"name": "web-0", "namespace": "ns", "uid": "u-1"},
        "spec": {"containers": containers, "restartPolicy": "Always", "terminationGracePeriodSeconds": 30, "nodeName": "kind-worker"},
        "status": {"phase": "Pending"}
    })
}

fn typed(v: &Value) -> Pod {
    serde_json::from_value(v.clone()).unwrap()
}

struct Run {
    pod: Value,
    rt: PodRuntime,
    catalog: ImageCatalog,
    timings: Timings,
    volumes_ready: bool,
}

impl Run {
    fn new(pod: Value) -> Self {
        let rt = PodRuntime::new(&typed(&pod), t0(), "172.18.0.2", "10.244.1.2");
        Run {
            pod,
            rt,
            catalog: catalog(),
            timings: timings(),
            volumes_ready: true,
        }
    }

    fn at(&mut self, secs: f64) -> SyncResult {
        let ctx = KubeletContext {
            catalog: &self.catalog,
            timings: &self.timings,
            now: at(secs),
            volumes_ready: self.volumes_ready,
        };
        let r = sync(&typed(&self.pod), &mut self.rt, &ctx);
        // Apply the status like the server would (conditions by type).
        let mut status = r.status.clone();
        let gates: Vec<Value> = self.pod["status"]["conditions"]
            .as_array()
            .cloned()
            .unwrap_or_default()
            .into_iter()
            .filter(|c| {
                !status["conditions"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|m| m["type"] == c["type"])
            })
            .collect();
        status["conditions"].as_array_mut().unwrap().extend(gates);
        self.pod["status"] = status;
        r
    }

    fn container(&self) -> &Value {
        &self.pod["status"]["containerStatuses"][0]
    }

    fn condition(&self, t: &str) -> Value {
        self.pod["status"]["conditions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["type"] == t)
            .cloned()
            .unwrap_or(Value::Null)
    }
}

#[test]
fn a_known_image_runs_and_the_pod_becomes_ready() {
    let mut run = Run::new(pod(
        json!([{"name": "app", "image": "registry.k8s.io/pause:3.10"}]),
    ));
    let r = run.at(0.0);
    assert_eq!(r.next_wake, Some(at(2.0)));
    assert_eq!(run.pod["status"]["phase"], "Pending");
    assert_eq!(
        run.container()["state"],
        json!({"waiting": {"reason": "ContainerCreating"}})
    );
    assert_eq!(run.container()["imageID"], "");
    assert_eq!(run.condition("Ready")["reason"], "ContainersNotReady");
    assert_eq!(
        run.condition("Ready")["message"],
        "containers with unready status: [app]"
    );
    assert_eq!(run.pod["status"]["hostIP"], "172.18.0.2");
    assert_eq!(run.pod["status"]["podIP"], "10.244.1.2");
    assert_eq!(run.pod["status"]["startTime"], "2026-11-22T01:00:00Z");

    let r = run.at(2.0);
    assert_eq!(r.next_wake, None);
    assert_eq!(run.pod["status"]["phase"], "Running");
    let c = run.container();
    assert_eq!(
        c["state"],
        json!({"running": {"startedAt": "2026-11-22T01:00:02Z"}})
    );
    assert_eq!(c["ready"], true);
    assert_eq!(c["started"], true);
    assert_eq!(c["restartCount"], 0);
    assert_eq!(c["image"], "registry.k8s.io/pause:3.10");
    assert!(c["imageID"]
        .as_str()
        .unwrap()
        .starts_with("registry.k8s.io/pause@sha256:"));
    assert!(c["containerID"]
        .as_str()
        .unwrap()
        .starts_with("containerd://"));
    assert_eq!(run.condition("Ready")["status"], "True");
    assert_eq!(
        run.condition("Ready")["lastTransitionTime"],
        "2026-11-22T01:00:02Z"
    );
    assert_eq!(run.condition("ContainersReady")["status"], "True");
    assert_eq!(run.condition("Initialized")["status"], "True");
    assert_eq!(run.condition("PodReadyToStartContainers")["status"], "True");
    assert_eq!(run.condition("PodScheduled")["status"], "True");
    // Nothing changes later: the same status is rendered.
    let again = run.at(100.0);
    assert_eq!(again.status, run.at(200.0).status);
}

#[test]
fn an_unknown_image_backs_off() {
    let mut run = Run::new(pod(
        json!([{"name": "app", "image": "registry.k8s.io/pause:no-such-tag"}]),
    ));
    run.at(0.0);
    let r = run.at(1.0);
    assert_eq!(
        run.container()["state"]["waiting"]["reason"],
        "ErrImagePull"
    );
    assert_eq!(
        run.container()["state"]["waiting"]["message"],
        "rpc error: code = NotFound desc = failed to pull and unpack image \"registry.k8s.io/pause:no-such-tag\": failed to resolve reference \"registry.k8s.io/pause:no-such-tag\": registry.k8s.io/pause:no-such-tag: not found"
    );
    assert_eq!(r.next_wake, Some(at(2.0)));
    let r = run.at(2.0);
    assert_eq!(
        run.container()["state"],
        json!({"waiting": {"reason": "ImagePullBackOff", "message": "Back-off pulling image \"registry.k8s.io/pause:no-such-tag\""}})
    );
    assert_eq!(run.pod["status"]["phase"], "Pending");
    assert_eq!(r.next_wake, Some(at(12.0)), "first back-off is the base");
    run.at(13.0);
    let r = run.at(14.0);
    assert_eq!(
        run.container()["state"]["waiting"]["reason"],
        "ImagePullBackOff"
    );
    assert_eq!(r.next_wake, Some(at(34.0)), "then it doubles");
}

#[test]
fn a_crashing_container_loops_with_growing_back_off() {
    let mut run = Run::new(pod(
        json!([{"name": "app", "image": "busybox:1.36", "command": ["sh", "-c", "exit 1"]}]),
    ));
    run.at(2.0);
    let c = run.container();
    assert_eq!(c["state"]["terminated"]["exitCode"], 1);
    assert_eq!(c["state"]["terminated"]["reason"], "Error");
    assert_eq!(c["restartCount"], 0);
    assert_eq!(run.pod["status"]["phase"], "Running");
    // First restart is immediate, then it crashes again.
    run.at(3.0);
    assert_eq!(run.container()["restartCount"], 1);
    assert_eq!(run.container()["lastState"]["terminated"]["exitCode"], 1);
    let r = run.at(4.0);
    let c = run.container();
    assert_eq!(c["state"]["waiting"]["reason"], "CrashLoopBackOff");
    assert_eq!(
        c["state"]["waiting"]["message"],
        "back-off 10s restarting failed container=app pod=web-0_ns(u-1)"
    );
    assert_eq!(c["ready"], false);
    assert_eq!(r.next_wake, Some(at(14.0)));
    run.at(14.0);
    assert_eq!(run.container()["restartCount"], 2);
    run.at(15.0);
    assert_eq!(
        run.container()["state"]["waiting"]["message"],
        "back-off 20s restarting failed container=app pod=web-0_ns(u-1)"
    );
}

#[test]
fn restart_policy_never_fails_the_pod() {
    let mut p =
        pod(json!([{"name": "app", "image": "busybox:1.36", "command": ["sh", "-c", "exit 3"]}]));
    p["spec"]["restartPolicy"] = json!("Never");
    let mut run = Run::new(p);
    let r = run.at(5.0);
    assert_eq!(run.pod["status"]["phase"], "Failed");
    assert_eq!(run.container()["state"]["terminated"]["exitCode"], 3);
    assert_eq!(r.next_wake, None);
    assert!(!r.remove, "only deleted pods are removed");
    assert_eq!(run.condition("Ready")["reason"], "PodCompleted");
}

#[test]
fn readiness_gates_drive_ready() {
    let mut p = pod(json!([{"name": "app", "image": "registry.k8s.io/pause:3.10"}]));
    p["spec"]["readinessGates"] = json!([{"conditionType": "example.com/ready"}]);
    let mut run = Run::new(p);
    run.at(2.0);
    assert_eq!(run.condition("ContainersReady")["status"], "True");
    assert_eq!(run.condition("Ready")["status"], "False");
    assert_eq!(run.condition("Ready")["reason"], "ReadinessGatesNotReady");
    assert_eq!(
        run.condition("Ready")["message"],
        "corresponding condition of pod readiness gate \"example.com/ready\" does not exist."
    );
    run.pod["status"]["conditions"]
        .as_array_mut()
        .unwrap()
        .push(json!({"type": "example.com/ready", "status": "False"}));
    run.at(3.0);
    assert_eq!(
        run.condition("Ready")["message"],
        "the status of pod readiness gate \"example.com/ready\" is not \"True\", but False"
    );
    for c in run.pod["status"]["conditions"].as_array_mut().unwrap() {
        if c["type"] == "example.com/ready" {
            c["status"] = json!("True");
        }
    }
    run.at(4.0);
    assert_eq!(run.condition("Ready")["status"], "True");
    assert_eq!(
        run.condition("Ready")["lastTransitionTime"],
        "2026-11-22T01:00:04Z"
    );
}

#[test]
fn readiness_probe_delay_is_honoured() {
    let mut run = Run::new(pod(
        json!([{"name": "app", "image": "registry.k8s.io/pause:3.10",
        "readinessProbe": {"exec": {"command": ["true"]}, "initialDelaySeconds": 5}}]),
    ));
    let r = run.at(2.0);
    assert_eq!(run.container()["ready"], false);
    assert_eq!(r.next_wake, Some(at(7.0)));
    run.at(7.0);
    assert_eq!(run.container()["ready"], true);
}

fn terminate(run: &mut Run, grace: i64) {
    run.pod["metadata"]["deletionTimestamp"] = json!("2026-11-22T01:01:00Z");
    run.pod["metadata"]["deletionGracePeriodSeconds"] = json!(grace);
}

#[test]
fn pre_stop_sleep_delays_removal() {
    let mut run = Run::new(pod(
        json!([{"name": "app", "image": "registry.k8s.io/pause:3.10",
        "lifecycle": {"preStop": {"exec": {"command": ["sh", "-c", "sleep 5"]}}}}]),
    ));
    run.at(2.0);
    terminate(&mut run, 30);
    let r = run.at(10.0);
    assert!(!r.remove);
    assert_eq!(r.next_wake, Some(at(16.0)), "preStop 5s + stop 1s");
    assert_eq!(
        run.container()["state"]["running"]["startedAt"],
        "2026-11-22T01:00:02Z"
    );
    let r = run.at(16.0);
    assert!(r.remove);
    assert_eq!(run.container()["state"]["terminated"]["exitCode"], 0);
    assert_eq!(
        run.container()["state"]["terminated"]["reason"],
        "Completed"
    );
    assert_eq!(run.pod["status"]["phase"], "Succeeded");
}

#[test]
fn grace_period_caps_pre_stop() {
    let mut run = Run::new(pod(
        json!([{"name": "app", "image": "registry.k8s.io/pause:3.10",
        "lifecycle": {"preStop": {"sleep": {"seconds": 100}}}}]),
    ));
    run.at(2.0);
    terminate(&mut run, 3);
    let r = run.at(10.0);
    assert_eq!(r.next_wake, Some(at(13.0)));
    let r = run.at(13.0);
    assert!(r.remove);
    assert_eq!(run.container()["state"]["terminated"]["exitCode"], 137);
    assert_eq!(run.pod["status"]["phase"], "Failed");
}

#[test]
fn a_process_ignoring_sigterm_is_killed_at_the_deadline() {
    let mut run = Run::new(pod(
        json!([{"name": "app", "image": "example.com/stubborn:1"}]),
    ));
    run.at(2.0);
    terminate(&mut run, 4);
    assert_eq!(run.at(10.0).next_wake, Some(at(14.0)));
    assert!(run.at(14.0).remove);
}

#[test]
fn a_stuck_pod_is_removed_at_once_when_deleted() {
    let mut run = Run::new(pod(
        json!([{"name": "app", "image": "registry.k8s.io/pause:no-such-tag"}]),
    ));
    run.at(3.0);
    terminate(&mut run, 30);
    let r = run.at(4.0);
    assert!(r.remove);
    let c = run.container();
    assert_eq!(c["state"]["terminated"]["reason"], "ContainerStatusUnknown");
    assert_eq!(c["state"]["terminated"]["exitCode"], 137);
}

#[test]
fn pre_stop_forms() {
    let c =
        |v: Value| -> k8s_openapi::api::core::v1::Container { serde_json::from_value(v).unwrap() };
    assert_eq!(
        pre_stop_duration(&c(
            json!({"name": "a", "lifecycle": {"preStop": {"exec": {"command": ["sleep", "7"]}}}})
        )),
        Some(Duration::from_secs(7))
    );
    assert_eq!(
        pre_stop_duration(&c(
            json!({"name": "a", "lifecycle": {"preStop": {"sleep": {"seconds": 2}}}})
        )),
        Some(Duration::from_secs(2))
    );
    assert_eq!(pre_stop_duration(&c(json!({"name": "a"}))), None);
}

#[test]
fn an_image_change_restarts_the_container() {
    let mut run = Run::new(pod(
        json!([{"name": "app", "image": "registry.k8s.io/pause:3.10"}]),
    ));
    run.at(2.0);
    run.pod["spec"]["containers"][0]["image"] = json!("busybox:1.36");
    run.pod["spec"]["containers"][0]["command"] = json!(["sleep", "3600"]);
    run.at(3.0);
    // Until the new container is created, the status is the old one's.
    assert_eq!(run.container()["restartCount"], 0);
    assert_eq!(
        run.container()["state"]["waiting"]["reason"],
        "ContainerCreating"
    );
    assert_eq!(run.container()["image"], "registry.k8s.io/pause:3.10");
    let old_id = run.container()["imageID"].clone();
    assert_ne!(old_id, "");
    run.at(5.0);
    assert_eq!(run.container()["image"], "docker.io/library/busybox:1.36");
    assert_ne!(run.container()["imageID"], old_id);
    assert_eq!(run.container()["restartCount"], 1);
    assert_eq!(run.container()["ready"], true);
}

/// An in-place image change to an image that cannot be pulled: the kubelet
/// keeps reporting the exited container's image, imageID and containerID,
/// and its restart count, while the pull fails (kubelet_pods.go
/// `convertToAPIContainerStatuses`: a failed start sets only `state`).
#[test]
fn a_new_image_that_cannot_be_pulled_leaves_the_old_containers_status() {
    let mut run = Run::new(pod(
        json!([{"name": "app", "image": "registry.k8s.io/pause:3.10"}]),
    ));
    run.at(2.0);
    let before = run.container().clone();
    run.pod["spec"]["containers"][0]["image"] = json!("registry.k8s.io/pause:no-such-tag");
    run.at(3.0);
    run.at(5.0);
    let c = run.container().clone();
    assert_eq!(c["state"]["waiting"]["reason"], "ImagePullBackOff");
    assert_eq!(c["image"], before["image"]);
    assert_eq!(c["imageID"], before["imageID"]);
    assert_eq!(c["containerID"], before["containerID"]);
    assert_eq!(c["restartCount"], 0);
    assert_eq!(
        c["lastState"]["terminated"]["containerID"],
        before["containerID"]
    );
    assert_eq!(c["ready"], false);
}

#[test]
fn durations_print_like_go() {
    use super::super::podstatus::go_duration;
    assert_eq!(go_duration(Duration::from_millis(100)), "100ms");
    assert_eq!(go_duration(Duration::from_secs(10)), "10s");
    assert_eq!(go_duration(Duration::from_millis(1500)), "1.5s");
    assert_eq!(go_duration(Duration::from_secs(300)), "5m0s");
    assert_eq!(go_duration(Duration::from_secs(80)), "1m20s");
}

#[test]
fn containers_wait_for_their_volumes() {
    let mut run = Run::new(pod(
        json!([{"name": "app", "image": "registry.k8s.io/pause:3.10"}]),
    ));
    run.volumes_ready = false;
    let r = run.at(5.0);
    assert_eq!(r.next_wake, None, "a claim event wakes it, not a timer");
    assert_eq!(
        run.container()["state"]["waiting"]["reason"],
        "ContainerCreating"
    );
    run.volumes_ready = true;
    assert_eq!(
        run.at(6.0).next_wake,
        Some(at(8.0)),
        "pull and start count from the mount"
    );
    run.at(8.0);
    assert_eq!(run.container()["ready"], true);
}

/// `kubectl debug`: an ephemeral container added to a running pod is
/// pulled and started, reported in `ephemeralContainerStatuses` (never
/// ready, no `started`), and changes neither the phase nor readiness; one
/// whose process exits stays terminated (ephemeral containers are never
/// restarted); both stop when the pod is deleted.
#[test]
fn ephemeral_containers_run_once_beside_the_pod() {
    let mut run = Run::new(pod(
        json!([{"name": "app", "image": "registry.k8s.io/pause:3.10"}]),
    ));
    run.at(3.0);
    assert_eq!(run.condition("Ready")["status"], "True");
    run.pod["spec"]["ephemeralContainers"] = json!([
        {"name": "debugger", "image": "busybox:1.36", "stdin": true, "tty": true},
        {"name": "check", "image": "busybox:1.36", "command": ["true"]}
    ]);
    run.at(4.0);
    let statuses = run.pod["status"]["ephemeralContainerStatuses"].clone();
    assert_eq!(statuses[0]["name"], "check", "sorted by name");
    assert_eq!(
        statuses[1]["state"],
        json!({"waiting": {"reason": "ContainerCreating"}})
    );
    assert_eq!(statuses[1]["imageID"], "");
    run.at(6.5);
    let statuses = run.pod["status"]["ephemeralContainerStatuses"].clone();
    let debugger = &statuses[1];
    assert!(
        debugger["state"]["running"]["startedAt"].is_string(),
        "{debugger}"
    );
    assert_eq!(
        (debugger["ready"].clone(), debugger.get("started")),
        (json!(false), None)
    );
    assert!(debugger["containerID"]
        .as_str()
        .is_some_and(|i| i.starts_with("containerd://")));
    assert_eq!(statuses[0]["state"]["terminated"]["exitCode"], 0);
    assert_eq!(run.pod["status"]["phase"], "Running");
    assert_eq!(
        run.condition("Ready")["status"],
        "True",
        "ephemeral containers are not counted"
    );
    run.at(60.0);
    let statuses = run.pod["status"]["ephemeralContainerStatuses"].clone();
    assert_eq!(statuses[0]["restartCount"], 0, "never restarted");
    assert!(statuses[0]["state"]["terminated"].is_object());
    assert!(statuses[1]["state"]["running"].is_object());
    run.pod["metadata"]["deletionTimestamp"] = json!("2026-11-22T01:01:00Z");
    run.pod["metadata"]["deletionGracePeriodSeconds"] = json!(30);
    let mut removed = false;
    for t in 61..100 {
        if run.at(f64::from(t)).remove {
            removed = true;
            break;
        }
    }
    assert!(
        removed,
        "the pod is removed once its ephemeral containers stopped too"
    );
    let statuses = run.pod["status"]["ephemeralContainerStatuses"].clone();
    assert!(statuses[1]["state"]["terminated"].is_object(), "{statuses}");
}
