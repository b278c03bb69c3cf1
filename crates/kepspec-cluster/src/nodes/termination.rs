//! Stopping a terminating pod's containers: preStop hooks, SIGTERM and the
//! grace period.

use super::clock::{container_id, plus};
use super::images::{process_of, ImageBehaviour, Process};
use super::kubelet::{ContainerRuntime, ContainerState, Terminated};
use super::Timings;
use jiff::Timestamp;
use k8s_openapi::api::core::v1::Container;
use std::time::Duration;

/// Decides once when a container of a terminating pod stops: after its
/// preStop hook (capped by the grace period) for a running container,
/// at once otherwise; a process ignoring SIGTERM is killed at the end of
/// the grace period with 137; one that traps SIGTERM with `exit N` ends
/// with N (see [`super::images::sigterm_exit_code`]).
pub(super) fn plan_stop(
    c: &mut ContainerRuntime,
    spec: &Container,
    since: Timestamp,
    grace: i64,
    sigterm_ignored: bool,
    timings: &Timings,
) {
    if c.stop_at.is_some() {
        return;
    }
    let deadline = plus(since, Duration::from_secs(grace.unsigned_abs()));
    c.stop_at = Some(match c.state {
        ContainerState::Running(..) => {
            if sigterm_ignored {
                (deadline, 137)
            } else {
                let hook = pre_stop_duration(spec).unwrap_or_default();
                let stop = plus(plus(since, hook), timings.stop);
                if stop > deadline {
                    (deadline, 137)
                } else {
                    let command = spec.command.as_deref().unwrap_or_default();
                    let args = spec.args.as_deref().unwrap_or_default();
                    (stop, super::images::sigterm_exit_code(command, args))
                }
            }
        }
        _ => (since, 0),
    });
}

/// The time a preStop hook takes: `sleep: {seconds}` or an exec of
/// `sleep N` / `sh -c "sleep N"`.
pub(super) fn pre_stop_duration(spec: &Container) -> Option<Duration> {
    let hook = spec.lifecycle.as_ref()?.pre_stop.as_ref()?;
    if let Some(sleep) = &hook.sleep {
        return Some(Duration::from_secs(sleep.seconds.max(0).unsigned_abs()));
    }
    let command = hook.exec.as_ref()?.command.as_ref()?;
    let forever = ImageBehaviour {
        entrypoint: Process::Forever,
        ignores_sigterm: false,
    };
    match process_of(command, &[], &forever) {
        Process::Exits { after, .. } => Some(after),
        Process::Forever => None,
    }
}

pub(super) fn stopped(c: &ContainerRuntime, uid: &str, at: Timestamp, code: i32) -> Terminated {
    match &c.state {
        ContainerState::Running(started, _) => Terminated {
            exit_code: code,
            reason: if code == 0 { "Completed" } else { "Error" }.into(),
            started: *started,
            finished: at,
            container_id: container_id(uid, &c.name, c.restart_count),
        },
        ContainerState::Exited(ended) => ended.clone(),
        _ => Terminated {
            exit_code: 137,
            reason: "ContainerStatusUnknown".into(),
            started: at,
            finished: at,
            container_id: String::new(),
        },
    }
}
