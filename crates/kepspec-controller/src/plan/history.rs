//! Step 1 and the end of a sync: the current and update ControllerRevisions
//! (upstream's `getStatefulSetRevisions`) and trimming the history
//! (upstream's `truncateHistory`).

use std::collections::BTreeSet;

use k8s_openapi::api::apps::v1::ControllerRevision;
use k8s_openapi::api::apps::v1::StatefulSet;
use k8s_openapi::api::core::v1::{Pod, PodTemplateSpec};

use super::super::{pods, revision};
use super::{Action, Observed, PlanError};

/// The revisions a sync works with.
#[derive(Clone, Debug)]
pub(super) struct Revisions {
    pub(super) current_name: String,
    pub(super) update_name: String,
    /// Template of the current revision (to create pods below the partition).
    pub(super) current_template: PodTemplateSpec,
    pub(super) collision_count: i32,
    /// Revision actions to perform first.
    pub(super) actions: Vec<Action>,
    /// Observed revisions, sorted oldest first.
    pub(super) sorted: Vec<ControllerRevision>,
}

fn name_of(r: &ControllerRevision) -> String {
    r.metadata.name.clone().unwrap_or_default()
}

/// Finds or makes the update revision and finds the current one.
pub(super) fn resolve(obs: &Observed<'_>, set_name: &str) -> Result<Revisions, PlanError> {
    let set = obs.set;
    let wrap = |source| PlanError::Revision {
        set: set_name.to_string(),
        source,
    };
    let mut sorted = obs.revisions.to_vec();
    revision::sort_revisions(&mut sorted);
    let mut collision_count = set
        .status
        .as_ref()
        .and_then(|s| s.collision_count)
        .unwrap_or(0);
    let data = revision::revision_data(obs.set_raw).map_err(wrap)?;
    let next = revision::next_revision_number(&sorted);

    let key = revision::data_key(&data);
    let equal: Vec<&ControllerRevision> = sorted
        .iter()
        .filter(|r| revision::data_key(&r.data.0) == key)
        .collect();
    let mut actions = Vec::new();
    let update_name = match (equal.last(), sorted.last()) {
        // The newest revision already holds this template.
        (Some(found), Some(latest)) if name_of(found) == name_of(latest) => name_of(found),
        // An older revision holds it: roll back by raising its number.
        (Some(found), _) => {
            actions.push(Action::UpdateRevisionNumber {
                name: name_of(found),
                revision: next,
            });
            name_of(found)
        }
        // A new template: create a revision, stepping past taken names.
        (None, _) => {
            let taken: BTreeSet<String> = sorted.iter().map(name_of).collect();
            let mut candidate = revision::new_revision(set, data.clone(), next, collision_count);
            while taken.contains(&name_of(&candidate)) {
                collision_count = collision_count.saturating_add(1);
                candidate = revision::new_revision(set, data.clone(), next, collision_count);
            }
            let name = name_of(&candidate);
            actions.push(Action::CreateRevision(candidate));
            name
        }
    };

    let observed_current = set.status.as_ref().and_then(|s| s.current_revision.clone());
    let current = observed_current.as_ref().and_then(|name| {
        sorted
            .iter()
            .find(|r| r.metadata.name.as_ref() == Some(name))
    });
    let (current_name, current_template) = match current {
        Some(found) if name_of(found) != update_name => (
            name_of(found),
            revision::revision_template(found).map_err(wrap)?,
        ),
        _ => (update_name.clone(), set.spec.template.clone()),
    };
    Ok(Revisions {
        current_name,
        update_name,
        current_template,
        collision_count,
        actions,
        sorted,
    })
}

/// Deletes the oldest revisions not in use (not current, not update, not the
/// revision of any pod) beyond `revisionHistoryLimit` (default 10).
pub(super) fn truncate(set: &StatefulSet, revisions: &Revisions, pods: &[&Pod]) -> Vec<Action> {
    let mut live: BTreeSet<&str> = BTreeSet::new();
    live.insert(&revisions.current_name);
    live.insert(&revisions.update_name);
    live.extend(pods.iter().map(|p| pods::pod_revision(p)));
    let history: Vec<String> = revisions
        .sorted
        .iter()
        .map(name_of)
        .filter(|name| !live.contains(name.as_str()))
        .collect();
    let limit = usize::try_from(set.spec.revision_history_limit.unwrap_or(10).max(0)).unwrap_or(0);
    let excess = history.len().saturating_sub(limit);
    history
        .into_iter()
        .take(excess)
        .map(|name| Action::DeleteRevision { name })
        .collect()
}
