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

/// Where the controller's requests break a slow-start batch: the first
/// creation of `partner` must come before the controller's second attempt
/// to create `failing` (upstream's `slowStartBatch` starts every pod of a
/// batch and waits for all of them before the sync ends, so a creation that
/// fails is only tried again by a later sync). `None` when it holds.
pub fn partner_after_retry(
    records: &[RequestRecord],
    partner: &str,
    failing: &str,
) -> Option<String> {
    fn creates<'a>(
        records: &'a [RequestRecord],
        name: &'a str,
    ) -> impl Iterator<Item = &'a RequestRecord> {
        records.iter().filter(move |r| {
            r.verb == "create" && r.resource == "pods" && r.subresource.is_empty() && r.name == name
        })
    }
    let Some(first) = creates(records, partner).next() else {
        return Some(format!(
            "the controller never asked to create pod {partner}"
        ));
    };
    let retry = creates(records, failing).nth(1)?;
    (retry.seq < first.seq).then(|| {
        format!(
            "the controller asked a second time to create pod {failing} (request {}) before it first asked to create pod {partner}, its partner in the batch (request {})",
            retry.seq, first.seq
        )
    })
}

/// Since the scenario began, pod `partner` was asked for before the
/// controller's second attempt to create pod `failing`.
pub async fn partner_before_retry(
    sc: &mut Scenario,
    partner: &str,
    failing: &str,
) -> anyhow::Result<()> {
    let Some(mark) = sc.request_start else {
        anyhow::bail!(
            "the cluster keeps no request log (embedded only); tag the scenario @embedded-only"
        );
    };
    let records = controller_requests(sc, mark)?;
    let Some(gap) = partner_after_retry(&records, partner, failing) else {
        return Ok(());
    };
    let t = sc.timeline().await?;
    let last = t.next_seq().saturating_sub(1);
    let v = Violation::at_entry(
        &t,
        &clauses::slow_start(),
        last,
        Breach::new(gap, vec![partner.to_string(), failing.to_string()]),
    );
    super::checks::keep(sc, Err(v))
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

    #[test]
    fn a_batch_partner_is_asked_for_before_the_failed_pod_is_tried_again() {
        let numbered = |rs: Vec<RequestRecord>| {
            rs.into_iter()
                .enumerate()
                .map(|(i, r)| RequestRecord {
                    seq: i as u64 + 1,
                    ..r
                })
                .collect::<Vec<_>>()
        };
        let create = |name| rec("create", "pods", "", name);
        // One sync asks for web-1 and web-2 at once; the next tries web-1 again.
        let upstream = numbered(vec![
            create("web-0"),
            create("web-1"),
            create("web-2"),
            create("web-1"),
        ]);
        assert_eq!(partner_after_retry(&upstream, "web-2", "web-1"), None);
        // Stops at the failure, and asks for web-2 only with the retry.
        let sequential = numbered(vec![
            create("web-0"),
            create("web-1"),
            create("web-1"),
            create("web-2"),
        ]);
        let gap = partner_after_retry(&sequential, "web-2", "web-1").expect("a gap");
        assert!(gap.contains("(request 3)") && gap.contains("(request 4)"));
        let never = numbered(vec![create("web-0"), create("web-1")]);
        assert!(partner_after_retry(&never, "web-2", "web-1").is_some());
    }
}
