//! A pod's controller reference, as upstream's e2e test "should adopt
//! matching orphans and release non-matching pods" changes and reads it:
//! the steps strip a pod's ownerReferences or its labels and put the labels
//! back; the wait reads the controller reference from what the recorder
//! saw (kind, name and the set's current uid).

use kepspec_core::Lookup as _;
use std::time::Duration;

use kube::api::{Patch, PatchParams};
use kube::ResourceExt;
use serde_json::{json, Value};

use super::clauses;
use super::scenario::{RequestError, Scenario};
use super::waits::wait;
use crate::history::Kind;

/// The controller ownerReference of a recorded object, if it has one.
fn controller_of(obj: &Value) -> Option<&Value> {
    obj.lookup("/metadata/ownerReferences")
        .and_then(Value::as_array)
        .and_then(|refs| refs.iter().find(|r| r["controller"] == true))
}

/// Patches a pod's metadata with a merge patch, as a change of the scenario.
async fn patch_meta(
    sc: &mut Scenario,
    pod: &str,
    meta: Value,
    what: &str,
) -> Result<(), RequestError> {
    sc.note_change().await;
    let patched = sc
        .pods_api()
        .patch(
            pod,
            &PatchParams::default(),
            &Patch::Merge(&json!({ "metadata": meta })),
        )
        .await
        .map_err(|e| RequestError::from_kube(format!("{what} of pod {pod}"), e))?;
    sc.wrote(Kind::Pod, &patched.metadata);
    Ok(())
}

/// Removes every ownerReference of a pod (it becomes an orphan).
pub async fn orphan(sc: &mut Scenario, pod: &str) -> Result<(), RequestError> {
    patch_meta(
        sc,
        pod,
        json!({"ownerReferences": null}),
        "remove the ownerReferences",
    )
    .await
}

/// The key under which a pod's labels are remembered while removed.
fn remembered(pod: &str) -> String {
    format!("labels of pod {pod}")
}

/// Removes every label of a pod, remembering them.
pub async fn remove_labels(sc: &mut Scenario, pod: &str) -> Result<(), RequestError> {
    let current = sc
        .pods_api()
        .get(pod)
        .await
        .map_err(|e| RequestError::from_kube(format!("read pod {pod}"), e))?;
    let labels = serde_json::to_string(current.labels()).unwrap_or_default();
    sc.remembered.insert(remembered(pod), labels);
    patch_meta(sc, pod, json!({"labels": null}), "remove the labels").await
}

/// Puts back the labels [`remove_labels`] removed.
pub async fn restore_labels(sc: &mut Scenario, pod: &str) -> Result<(), RequestError> {
    let labels: Value = sc
        .remembered
        .get(&remembered(pod))
        .and_then(|l| serde_json::from_str(l).ok())
        .ok_or_else(|| RequestError {
            what: format!("restore the labels of pod {pod}"),
            message: "no step of this scenario removed them".into(),
            code: None,
        })?;
    patch_meta(sc, pod, json!({ "labels": labels }), "restore the labels").await
}

/// Waits until the pod's controller reference names the set `set` (its
/// kind, name and current uid), or, with `None`, until it has none.
pub async fn controlled_by(
    sc: &mut Scenario,
    pod: &str,
    set: Option<&str>,
    timeout: Duration,
) -> anyhow::Result<()> {
    let kind = sc.resource.kind.clone();
    let (pod, set) = (pod.to_string(), set.map(str::to_string));
    wait(sc, timeout, clauses::controller_reference(), move |t| {
        let Some(p) = t.of_object(Kind::Pod, &pod).last() else {
            return Some(format!("pod {pod} has not been observed"));
        };
        let controller = controller_of(&p.object);
        let describe = |r: &Value| {
            format!(
                "{} {} (uid {})",
                r["kind"].as_str().unwrap_or("?"),
                r["name"].as_str().unwrap_or("?"),
                r["uid"].as_str().unwrap_or("?")
            )
        };
        match (&set, controller) {
            (None, None) => None,
            (None, Some(r)) => Some(format!("pod {pod} is controlled by {}", describe(r))),
            (Some(set), r) => {
                let uid = t
                    .of_object(Kind::StatefulSet, set)
                    .last()
                    .and_then(|e| e.object.lookup("/metadata/uid"))
                    .and_then(Value::as_str)
                    .map(str::to_string);
                let ok = r.is_some_and(|r| {
                    r["kind"] == kind.as_str()
                        && r["name"] == set.as_str()
                        && uid.as_deref().is_some_and(|u| r["uid"] == u)
                });
                (!ok).then(|| match r {
                    Some(r) => format!("pod {pod} is controlled by {}", describe(r)),
                    None => format!("pod {pod} has no controller"),
                })
            }
        }
    })
    .await
}

/// Since the scenario's first change, the pod was neither deleted nor
/// created again: adopting or releasing it touched only its metadata.
pub async fn kept(sc: &mut Scenario, pod: &str) -> anyhow::Result<()> {
    use crate::history::checks::{never, Breach};
    use crate::history::Change;
    let t = sc.timeline().await?;
    let from = sc.baseline(&t);
    let result = never(&t, &clauses::controller_reference(), from, |_, e| {
        let replaced = e.kind == Kind::Pod
            && e.name == pod
            && (matches!(e.change, Change::Added | Change::Deleted)
                || e.object.lookup("/metadata/deletionTimestamp").is_some());
        replaced.then(|| Breach::new(format!("pod {pod} was deleted or created again"), vec![]))
    });
    super::checks::keep(sc, result)
}

/// Moves the lastTransitionTime of a pod's Ready condition `by` into the
/// past, as upstream's integration test TestStatefulSetAvailable writes
/// pod status: the pod then counts as available for that long already.
pub async fn backdate_ready(
    sc: &mut Scenario,
    pod: &str,
    by: Duration,
) -> Result<(), RequestError> {
    let what = format!("backdate the Ready condition of pod {pod}");
    let at = jiff::Timestamp::now()
        .checked_sub(jiff::SignedDuration::try_from(by).unwrap_or_default())
        .unwrap_or(jiff::Timestamp::UNIX_EPOCH);
    sc.note_change().await;
    let patch = json!({"status": {"conditions": [{
        "type": "Ready", "status": "True", "lastTransitionTime": at.to_string()}]}});
    let patched = sc
        .pods_api()
        .patch_status(pod, &PatchParams::default(), &Patch::Strategic(&patch))
        .await
        .map_err(|e| RequestError::from_kube(what, e))?;
    sc.wrote(Kind::Pod, &patched.metadata);
    Ok(())
}

/// Creates pod `name` with the labels the selector of set `set` matches,
/// owned by nothing, or with `controller` (a ConfigMap of the scenario's
/// namespace) as its controller. Owned by nothing, it is a stray whose name
/// does not make it a member of the set (upstream's `isMemberOf`: the name is
/// `<set>-<ordinal>`); with another controller, its name may well be a
/// member's.
pub async fn stray_pod(
    sc: &mut Scenario,
    name: &str,
    set: &str,
    controller: Option<&str>,
) -> Result<(), RequestError> {
    let what = match controller {
        None => format!("create pod {name} with the labels of {set}"),
        Some(cm) => {
            format!("create pod {name} with the labels of {set}, controlled by ConfigMap {cm}")
        }
    };
    let obj = sc
        .sets_api()
        .get(set)
        .await
        .map_err(|e| RequestError::from_kube(format!("read StatefulSet {set}"), e))?;
    let labels = obj
        .data
        .lookup("/spec/selector/matchLabels")
        .cloned()
        .unwrap_or_else(|| json!({}));
    let owners = match controller {
        None => Value::Null,
        Some(cm) => {
            let mut r = sc
                .config_map_reference(cm, &format!("read ConfigMap {cm}"))
                .await?;
            r["controller"] = json!(true);
            r["blockOwnerDeletion"] = json!(true);
            json!([r])
        }
    };
    sc.create_pod(
        what,
        json!({
            "metadata": {"name": name, "labels": labels, "ownerReferences": owners},
            "spec": {"containers": [{"name": "app", "image": super::setspec::DEFAULT_IMAGE}]},
        }),
    )
    .await?;
    Ok(())
}

/// Waits `window`, then checks that every version of `pod` recorded after
/// the scenario's last write to it has the controller reference that write
/// left it with (the same owner uid, or none): nobody adopted, released or
/// took it over meanwhile. The window starts at that write, not at this
/// step, so a controller quick enough to act between the two is judged too.
pub async fn controller_kept(sc: &mut Scenario, pod: &str, window: Duration) -> anyhow::Result<()> {
    use crate::history::checks::{no_entry, Breach};
    let Some(&written) = sc.written.get(&(Kind::Pod, pod.to_string())) else {
        anyhow::bail!(
            "no step of this scenario wrote pod {pod}, so it was left with no controller reference to keep"
        );
    };
    tokio::time::sleep(window).await;
    let t = sc.timeline().await?;
    let uid_of = |obj: &Value| {
        controller_of(obj)
            .and_then(|r| r["uid"].as_str())
            .map(str::to_string)
    };
    let Some(base) = t
        .of_object(Kind::Pod, pod)
        .filter(|e| e.rv_number().is_some_and(|rv| rv <= written))
        .last()
    else {
        anyhow::bail!(
            "the recorder never saw pod {pod} as the scenario last wrote it (resourceVersion {written})"
        );
    };
    let left = uid_of(&base.object);
    let from = t.seq_after_rv(written, base.seq + 1);
    let describe = |u: &Option<String>| match u {
        Some(u) => format!("the controller with uid {u}"),
        None => "no controller".to_string(),
    };
    let result = no_entry(&t, &clauses::controller_reference(), from, |e| {
        if e.kind != Kind::Pod || e.name != pod {
            return None;
        }
        let now = uid_of(&e.object);
        (now != left).then(|| {
            Breach::new(
                format!(
                    "pod {pod} went from {} to {}",
                    describe(&left),
                    describe(&now)
                ),
                vec![pod.to_string()],
            )
        })
    });
    super::checks::keep(sc, result)
}

/// Waits `window`, then checks that no recorded version of `pod` had a
/// controller reference.
pub async fn never_controlled(
    sc: &mut Scenario,
    pod: &str,
    window: Duration,
) -> anyhow::Result<()> {
    tokio::time::sleep(window).await;
    let t = sc.timeline().await?;
    let adopted = t.of_object(Kind::Pod, pod).find_map(|e| {
        controller_of(&e.object).map(|r| {
            (
                e.seq,
                r["kind"].as_str().unwrap_or("?").to_string(),
                r["name"].as_str().unwrap_or("?").to_string(),
            )
        })
    });
    let result = match adopted {
        None if t.of_object(Kind::Pod, pod).next().is_none() => {
            Err(crate::history::Violation::at_entry(
                &t,
                &clauses::controller_reference(),
                t.next_seq().saturating_sub(1),
                crate::history::Breach::new(format!("pod {pod} has not been observed"), vec![]),
            ))
        }
        None => Ok(()),
        Some((seq, kind, name)) => Err(crate::history::Violation::at_entry(
            &t,
            &clauses::controller_reference(),
            seq,
            crate::history::Breach::new(
                format!("pod {pod} was adopted: controlled by {kind} {name}"),
                vec![pod.to_string()],
            ),
        )),
    };
    super::checks::keep(sc, result)
}
