//! Waits and checks for OpenKruise Advanced StatefulSet's own features
//! (`features/vendors/openkruise/`), each naming the sentence of its
//! documentation it encodes (source `openkruise-advanced-statefulset` in spec/sources.yaml).

use kepspec_core::Lookup as _;
use std::time::Duration;

use super::checks::{keep, scope_of};
use super::clauses::{in_place_grace_clause, in_place_ready_clause};
use super::scenario::Scenario;
use super::waits::wait;
use crate::history::checks::{always, no_entry, Breach, Violation};
use crate::history::views::state_before;
use crate::history::{Clause, Kind};

/// Waits until the pods of `set` are exactly `names` (a terminating pod
/// still counts: it is gone once deleted).
pub async fn pods_are(
    sc: &mut Scenario,
    set: &str,
    names: &[String],
    timeout: Duration,
) -> anyhow::Result<()> {
    let clause = {
        let t = sc.timeline().await?;
        super::context::range_clause(super::checks::latest(&t, Kind::StatefulSet, set).as_ref())
    };
    let set = set.to_string();
    let mut want: Vec<String> = names.to_vec();
    want.sort();
    wait(sc, timeout, clause, move |t| {
        let state = state_before(t, t.next_seq());
        let mut have: Vec<String> = state.pods_of(&set).map(|p| p.name().to_string()).collect();
        have.sort();
        (have != want).then(|| format!("the pods of {set} are [{}]", have.join(", ")))
    })
    .await
}

/// No pod named `pod` was ever recorded, from the scenario's start.
pub async fn never_created(sc: &mut Scenario, pod: &str) -> anyhow::Result<()> {
    let t = sc.timeline().await?;
    let set = crate::history::views::split_ordinal(pod).map(|(s, _)| s);
    let clause = super::context::range_clause(
        set.and_then(|s| super::checks::latest(&t, Kind::StatefulSet, s))
            .as_ref(),
    );
    let result = no_entry(&t, &clause, 0, |e| {
        (e.kind == Kind::Pod && e.name == pod)
            .then(|| Breach::new(format!("pod {pod} was created"), vec![pod.to_string()]))
    });
    keep(sc, result)
}

/// At no moment since the scenario's first change did more than `max` pods
/// of `set` exist without being available (created and not yet ready, not
/// ready, or terminating): the rate limit of `scaleStrategy.maxUnavailable`
/// and the protection of specified deletion. Pods not yet created do not
/// count, unlike the rolling update's budget over `[0, replicas)`.
pub async fn existing_unavailable_at_most(
    sc: &mut Scenario,
    set: &str,
    max: usize,
    clause: Clause,
) -> anyhow::Result<()> {
    let t = sc.timeline().await?;
    let scope = scope_of(&t, set);
    let from = sc.baseline(&t);
    let result = always(&t, &clause, from, |s, _| {
        let scope = s.scope_of(&scope);
        let down: Vec<String> = s
            .pods_of(&scope.set)
            .filter(|p| !p.available(s.at, scope.min_ready))
            .map(|p| p.name().to_string())
            .collect();
        if down.len() <= max {
            return Ok(());
        }
        Err(Breach::new(
            format!(
                "{} existing pods of {} unavailable at once (at most {max}): {}",
                down.len(),
                scope.set,
                down.join(", ")
            ),
            down,
        ))
    });
    keep(sc, result)
}

/// Container name and image, in the order listed.
type Images = Vec<(String, String)>;

/// The images of a pod's containers by name: the spec's, and the status's.
fn images(pod: &serde_json::Value, at: &str) -> Images {
    pod.lookup(at)
        .and_then(serde_json::Value::as_array)
        .into_iter()
        .flatten()
        .map(|c| {
            let field = |k: &str| c.get(k).and_then(serde_json::Value::as_str).unwrap_or("");
            (field("name").to_string(), short_image(field("image")))
        })
        .collect()
}

/// An image without the registry and repository a kubelet adds
/// (`docker.io/library/busybox:1.36` is `busybox:1.36`).
fn short_image(image: &str) -> String {
    image
        .strip_prefix("docker.io/library/")
        .or_else(|| image.strip_prefix("docker.io/"))
        .unwrap_or(image)
        .to_string()
}

fn condition<'v>(pod: &'v serde_json::Value, type_: &str) -> Option<&'v serde_json::Value> {
    pod.lookup("/status/conditions")?
        .as_array()?
        .iter()
        .find(|c| c.get("type").and_then(serde_json::Value::as_str) == Some(type_))
}

fn condition_status<'v>(pod: &'v serde_json::Value, type_: &str) -> Option<&'v str> {
    condition(pod, type_)?.get("status")?.as_str()
}

/// At no moment was the condition `condition` (`Ready`, or
/// `InPlaceUpdateReady`) of a pod of `set` True while one of its containers
/// ran another image than its spec names (OpenKruise, "In-Place Update":
/// the pod stays not ready, and the gate False, until the update is
/// finished).
pub async fn never_true_on_another_image(
    sc: &mut Scenario,
    set: &str,
    condition: &str,
) -> anyhow::Result<()> {
    let t = sc.timeline().await?;
    let from = sc.baseline(&t);
    let clause = in_place_ready_clause();
    let result = no_entry(&t, &clause, from, |e| {
        if e.kind != Kind::Pod || crate::history::views::ordinal_of(set, &e.name).is_none() {
            return None;
        }
        if condition_status(&e.object, condition) != Some("True") {
            return None;
        }
        let spec = images(&e.object, "/spec/containers");
        let running = images(&e.object, "/status/containerStatuses");
        let stale: Vec<String> = running
            .iter()
            .filter(|(name, image)| spec.iter().any(|(n, i)| n == name && i != image))
            .map(|(name, image)| format!("{name} runs {image}"))
            .collect();
        (!stale.is_empty()).then(|| {
            Breach::new(
                format!("{} had {condition} True while {}", e.name, stale.join(", ")),
                vec![e.name.clone()],
            )
        })
    });
    keep(sc, result)
}

/// With no grace period, every in-place update of a pod of `set` changed
/// its container images in the same write that set its revision label
/// (Kruise's `updatePodInPlace` patches both at once; only a grace period
/// puts the images in a later write): no version of a pod changed the one
/// without the other. At least one such update happened.
pub async fn in_place_in_one_write(sc: &mut Scenario, set: &str) -> anyhow::Result<()> {
    let t = sc.timeline().await?;
    let from = sc.baseline(&t);
    match split_in_place_writes(&t, set, from) {
        Err((seq, b)) => keep(
            sc,
            Err(Violation::at_entry(&t, &in_place_grace_clause(), seq, b)),
        ),
        Ok(0) => anyhow::bail!("no pod of {set} was updated in place; nothing to check"),
        Ok(_) => Ok(()),
    }
}

/// The in-place updates of pods of `set` from entry `from` on (a version of
/// a pod, the same uid, with another revision label or other images than
/// the version before), or the first that changed the one without the
/// other.
fn split_in_place_writes(
    t: &crate::history::Timeline,
    set: &str,
    from: u64,
) -> Result<usize, (u64, Breach)> {
    // Per pod uid: its revision label and its spec's images.
    let mut last: std::collections::HashMap<&str, (&str, Images)> = Default::default();
    let mut updates = 0;
    for e in t.entries() {
        if e.kind != Kind::Pod || crate::history::views::ordinal_of(set, &e.name).is_none() {
            continue;
        }
        let revision = crate::history::views::revision_label(&e.object).unwrap_or("");
        let spec = images(&e.object, "/spec/containers");
        if let Some((was, before)) = last.get(e.uid.as_str()) {
            let relabelled = *was != revision;
            let reimaged = *before != spec;
            if (relabelled || reimaged) && e.seq >= from {
                updates += 1;
                if relabelled != reimaged {
                    let what = if relabelled {
                        format!("took the revision label {revision} with its images unchanged")
                    } else {
                        format!("changed its images with its revision label still {revision}")
                    };
                    return Err((
                        e.seq,
                        Breach::new(format!("{} {what}", e.name), vec![e.name.clone()]),
                    ));
                }
            }
        }
        last.insert(&e.uid, (revision, spec));
    }
    Ok(updates)
}

/// Every change of a container image of a pod of `set` in place (the same
/// pod) was made while its `InPlaceUpdateReady` condition was False, at
/// least `grace` after it turned False; at least one such change happened.
pub async fn in_place_changes_waited(
    sc: &mut Scenario,
    set: &str,
    grace: Duration,
) -> anyhow::Result<()> {
    let t = sc.timeline().await?;
    let from = sc.baseline(&t);
    let clause = if grace.is_zero() {
        in_place_ready_clause()
    } else {
        in_place_grace_clause()
    };
    // The watch may deliver the status write a little after it was made,
    // and later than the image write after it when the machine is busy: a
    // condition turned False is placed no later than its own
    // lastTransitionTime says (whole seconds, the controller's clock), so
    // only an image change sure to be early fails.
    let slack = Duration::from_millis(500);
    let written_at = |pod: &serde_json::Value| -> Option<Duration> {
        let origin = t.origin?;
        let when: jiff::Timestamp = condition(pod, crate::controller::plan::IN_PLACE_UPDATE_READY)?
            .get("lastTransitionTime")?
            .as_str()?
            .parse()
            .ok()?;
        Duration::try_from(when.duration_since(origin)).ok()
    };
    // Per pod uid: its spec's images, and since when InPlaceUpdateReady was False.
    let mut last: std::collections::HashMap<String, (Images, Option<Duration>)> =
        Default::default();
    let mut changes = 0;
    let mut breach: Option<(u64, Breach)> = None;
    for e in t.entries() {
        if e.kind != Kind::Pod || crate::history::views::ordinal_of(set, &e.name).is_none() {
            continue;
        }
        let spec = images(&e.object, "/spec/containers");
        let unready = condition_status(&e.object, crate::controller::plan::IN_PLACE_UPDATE_READY)
            == Some("False");
        let previous = last.get(&e.uid).cloned();
        let false_since = match (&previous, unready) {
            (_, false) => None,
            (Some((_, Some(since))), true) => Some(*since),
            (_, true) => Some(written_at(&e.object).map_or(e.at, |w| w.min(e.at))),
        };
        if let Some((before, since)) = previous {
            if before != spec && e.seq >= from && breach.is_none() {
                changes += 1;
                let waited = since.map(|s| e.at.saturating_sub(s));
                let ok = unready && waited.is_some_and(|w| w + slack >= grace);
                if !ok {
                    let why = match waited {
                        Some(w) if unready => format!(
                            "{:.1}s after InPlaceUpdateReady turned False (at least {}s)",
                            w.as_secs_f64(),
                            grace.as_secs()
                        ),
                        _ => "while InPlaceUpdateReady was not False".to_string(),
                    };
                    breach = Some((
                        e.seq,
                        Breach::new(
                            format!("{} changed its images {why}", e.name),
                            vec![e.name.clone()],
                        ),
                    ));
                }
            }
        }
        last.insert(e.uid.clone(), (spec, false_since));
    }
    if let Some((seq, b)) = breach {
        return keep(sc, Err(Violation::at_entry(&t, &clause, seq, b)));
    }
    if changes == 0 {
        anyhow::bail!("no pod of {set} changed an image in place; nothing to check");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::history::fixture::TimelineBuilder;

    #[test]
    fn an_in_place_update_sets_the_revision_label_and_the_images_in_one_write() {
        let check = super::split_in_place_writes;
        let mut b = TimelineBuilder::new();
        b.create_pod("web-0", "a")
            .pod_write("web-0", "a", Some("app:1"));
        b.create_pod("web-1", "a")
            .pod_write("web-1", "a", Some("app:1"));
        let from = b.timeline().next_seq();
        b.pod_write("web-0", "b", Some("app:2"));
        assert!(matches!(check(b.timeline(), "web", from), Ok(1)));
        // The label first, the images in a later write, as with a grace period.
        let split = b.timeline().next_seq();
        b.pod_write("web-1", "b", None)
            .pod_write("web-1", "b", Some("app:2"));
        let t = b.build();
        let Err((seq, breach)) = check(&t, "web", from) else {
            panic!("the split write passed");
        };
        assert_eq!(seq, split);
        assert_eq!(
            breach.message,
            "web-1 took the revision label b with its images unchanged"
        );
        // A check from after the last write sees no update.
        assert!(matches!(check(&t, "web", t.next_seq()), Ok(0)));
        // Other sets' pods are not looked at.
        assert!(matches!(check(&t, "db", from), Ok(0)));
    }
}
