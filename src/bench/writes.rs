//! Counting a client's writes in the embedded cluster's request log.

use std::collections::BTreeMap;

use crate::sim::faults::RequestRecord;

/// The verbs that change state.
const WRITE_VERBS: [&str; 5] = ["create", "update", "patch", "delete", "deletecollection"];

/// A client's write requests, by what they wrote.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WriteCounts {
    /// Every write.
    pub total: usize,
    /// `create pods`.
    pub pod_creates: usize,
    /// `delete pods`.
    pub pod_deletes: usize,
    /// Writes of `statefulsets/status`.
    pub status_writes: usize,
    /// Writes of `controllerrevisions`.
    pub revisions: usize,
    /// Writes of events (core/v1 or events.k8s.io).
    pub events: usize,
    /// Any other write, as `verb resource[/subresource]`.
    pub other: BTreeMap<String, usize>,
}

impl WriteCounts {
    /// Counts the writes of requests after `after_seq` whose user agent is `agent`.
    pub fn of(records: &[RequestRecord], agent: &str, after_seq: u64) -> WriteCounts {
        WriteCounts::tally(
            records
                .iter()
                .filter(|r| r.seq > after_seq && r.user_agent == agent),
        )
    }

    /// Counts the writes among `records` (reads are left out).
    pub fn tally<'r>(records: impl IntoIterator<Item = &'r RequestRecord>) -> WriteCounts {
        let mut c = WriteCounts::default();
        let writes = records
            .into_iter()
            .filter(|r| WRITE_VERBS.contains(&r.verb.as_str()));
        for r in writes {
            c.total += 1;
            match (r.verb.as_str(), r.resource.as_str(), r.subresource.as_str()) {
                ("create", "pods", "") => c.pod_creates += 1,
                ("delete", "pods", "") => c.pod_deletes += 1,
                (_, "statefulsets", "status") => c.status_writes += 1,
                (_, "controllerrevisions", _) => c.revisions += 1,
                (_, "events", _) => c.events += 1,
                (verb, resource, sub) => {
                    let key = if sub.is_empty() {
                        format!("{verb} {resource}")
                    } else {
                        format!("{verb} {resource}/{sub}")
                    };
                    *c.other.entry(key).or_default() += 1;
                }
            }
        }
        c
    }

    /// `3 pod creates, 3 pod deletes, ...` (only the non-zero ones).
    pub fn breakdown(&self) -> String {
        let mut parts: Vec<String> = [
            ("pod deletes", self.pod_deletes),
            ("pod creates", self.pod_creates),
            ("status writes", self.status_writes),
            ("revision writes", self.revisions),
            ("events", self.events),
        ]
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(what, n)| format!("{n} {what}"))
        .collect();
        parts.extend(self.other.iter().map(|(k, n)| format!("{n} {k}")));
        parts.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(seq: u64, agent: &str, verb: &str, resource: &str, sub: &str) -> RequestRecord {
        RequestRecord {
            seq,
            verb: verb.to_string(),
            resource: resource.to_string(),
            subresource: sub.to_string(),
            user_agent: agent.to_string(),
            ..RequestRecord::default()
        }
    }

    #[test]
    fn counts_only_the_agents_writes_after_the_mark() {
        let log = vec![
            rec(1, "ctl", "create", "pods", ""),
            rec(2, "ctl", "delete", "pods", ""),
            rec(3, "ctl", "delete", "pods", ""),
            rec(4, "ctl", "watch", "pods", ""),
            rec(5, "me", "delete", "pods", ""),
            rec(6, "ctl", "create", "pods", ""),
            rec(7, "ctl", "update", "statefulsets", "status"),
            rec(8, "ctl", "create", "controllerrevisions", ""),
            rec(9, "ctl", "create", "events", ""),
            rec(10, "ctl", "patch", "pods", "status"),
            rec(11, "ctl", "list", "pods", ""),
        ];
        let c = WriteCounts::of(&log, "ctl", 1);
        assert_eq!(c.total, 7);
        assert_eq!((c.pod_deletes, c.pod_creates), (2, 1));
        assert_eq!((c.status_writes, c.revisions, c.events), (1, 1, 1));
        assert_eq!(c.other.get("patch pods/status"), Some(&1));
        assert_eq!(
            c.breakdown(),
            "2 pod deletes, 1 pod creates, 1 status writes, 1 revision writes, 1 events, 1 patch pods/status"
        );
    }
}
