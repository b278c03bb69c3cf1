//! What the controller asked of the apiserver, as the embedded apiserver
//! logs every request: KEP-3541's "Scalability" answer says a Recreate makes
//! no new kinds of API calls, N pod deletions and N pod creations, and its
//! Phase 1 deletes only pods not already being deleted. A re-sent DELETE
//! changes no recorded object, so only the request log shows it.

use std::collections::BTreeMap;

use super::clauses;
use super::env::CONTROLLER_AGENT;
use super::scenario::Scenario;
use crate::bench::writes::WriteCounts;
use crate::history::checks::{Breach, Violation};
use crate::sim::faults::RequestRecord;

/// The newest entry of the embedded apiserver's request log (None on other
/// clusters).
pub fn log_position(sc: &Scenario) -> Option<u64> {
    let cluster = sc.env.embedded.as_ref()?;
    Some(cluster.faults().last_seq())
}

/// The controller's requests in the scenario's namespace since `mark`.
fn controller_requests(sc: &Scenario, mark: u64) -> anyhow::Result<Vec<RequestRecord>> {
    let cluster = sc.env.embedded.as_ref().ok_or_else(|| {
        anyhow::anyhow!(
            "this check reads the embedded apiserver's request log; tag the scenario @embedded-only"
        )
    })?;
    let (first, requests) = cluster.faults().requests_after(mark, |r| {
        r.namespace == sc.namespace && r.user_agent.starts_with(CONTROLLER_AGENT)
    });
    if first.is_some_and(|seq| seq > mark.saturating_add(1)) {
        anyhow::bail!(
            "the embedded apiserver's request log no longer reaches back to the change (it keeps the newest requests only); tag the scenario @isolated"
        );
    }
    Ok(requests)
}

/// What a rollout's writes may hold besides pod deletions and creations:
/// the set's status, its ControllerRevisions and events.
pub fn unexpected_writes(
    counts: &WriteCounts,
    deletions: usize,
    creations: usize,
) -> Option<String> {
    let mut wrong = Vec::new();
    if counts.pod_deletes != deletions {
        wrong.push(format!(
            "{} pod deletions, not {deletions}",
            counts.pod_deletes
        ));
    }
    if counts.pod_creates != creations {
        wrong.push(format!(
            "{} pod creations, not {creations}",
            counts.pod_creates
        ));
    }
    if !counts.other.is_empty() {
        let other: Vec<String> = counts
            .other
            .iter()
            .map(|(k, n)| format!("{n} {k}"))
            .collect();
        wrong.push(format!("writes of other kinds: {}", other.join(", ")));
    }
    (!wrong.is_empty()).then(|| format!("{} ({})", wrong.join("; "), counts.breakdown()))
}

/// Pods the controller sent more than one DELETE since the mark.
pub fn deleted_twice(records: &[RequestRecord]) -> Vec<(String, usize)> {
    let mut per_pod: BTreeMap<&str, usize> = BTreeMap::new();
    for r in records
        .iter()
        .filter(|r| r.verb == "delete" && r.resource == "pods" && r.subresource.is_empty())
    {
        *per_pod.entry(r.name.as_str()).or_default() += 1;
    }
    per_pod
        .into_iter()
        .filter(|(_, n)| *n > 1)
        .map(|(p, n)| (p.to_string(), n))
        .collect()
}

/// Since the change (or "the checks that follow look only at what happens
/// from here on"), the controller's writes were exactly `deletions` pod
/// deletions and `creations` pod creations besides status, revision and
/// event writes, and no pod was sent a DELETE twice.
pub async fn writes_were(
    sc: &mut Scenario,
    deletions: usize,
    creations: usize,
) -> anyhow::Result<()> {
    let Some(mark) = sc.request_mark else {
        anyhow::bail!("no change was made, or the cluster keeps no request log (embedded only)");
    };
    let records = controller_requests(sc, mark)?;
    let t = sc.timeline().await?;
    let last = t.next_seq().saturating_sub(1);
    if let Some((pod, n)) = deleted_twice(&records).into_iter().next() {
        let v = Violation::at_entry(
            &t,
            &clauses::recreate_deletes_live_pods_only(),
            last,
            Breach::new(
                format!("the controller sent {n} DELETEs for pod {pod}, one of them to a pod already being deleted"),
                vec![pod],
            ),
        );
        return super::checks::keep(sc, Err(v));
    }
    let counts = WriteCounts::tally(&records);
    if let Some(gap) = unexpected_writes(&counts, deletions, creations) {
        let v = Violation::at_entry(
            &t,
            &clauses::recreate_scalability(),
            last,
            Breach::new(gap, vec![]),
        );
        return super::checks::keep(sc, Err(v));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(verb: &str, resource: &str, sub: &str, name: &str) -> RequestRecord {
        RequestRecord {
            seq: 1,
            at: None,
            verb: verb.into(),
            group: String::new(),
            resource: resource.into(),
            namespace: "ns".into(),
            name: name.into(),
            subresource: sub.into(),
            path: String::new(),
            user_agent: CONTROLLER_AGENT.into(),
        }
    }

    #[test]
    fn a_recreate_writes_pods_status_revisions_and_events_only() {
        let good = vec![
            rec("delete", "pods", "", "web-0"),
            rec("delete", "pods", "", "web-1"),
            rec("create", "pods", "", "web-0"),
            rec("create", "pods", "", "web-1"),
            rec("update", "statefulsets", "status", "web"),
            rec("create", "controllerrevisions", "", "web-1"),
            rec("create", "events", "", "e"),
            rec("get", "pods", "", "web-0"),
        ];
        assert_eq!(unexpected_writes(&WriteCounts::tally(&good), 2, 2), None);
        assert!(deleted_twice(&good).is_empty());

        let mut bad = good.clone();
        bad.push(rec("delete", "pods", "", "web-1"));
        bad.push(rec("patch", "pods", "", "web-0"));
        assert_eq!(deleted_twice(&bad), vec![("web-1".to_string(), 2)]);
        let gap = unexpected_writes(&WriteCounts::tally(&bad), 2, 2).expect("a gap");
        assert!(gap.contains("3 pod deletions, not 2") && gap.contains("1 patch pods"));
    }
}
