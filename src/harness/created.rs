//! Which pods of a set were ever created: a Parallel set creates in
//! slow-start batches (1, 2, 4, ... pods), and a batch in which a creation
//! fails is the last of its sync, so while one pod's creation keeps failing
//! the pods of later batches are never created (upstream's `slowStartBatch`
//! in stateful_set_control.go).

#![allow(clippy::result_large_err)]

use std::time::Duration;

use super::checks::keep;
use super::clauses;
use super::scenario::Scenario;
use super::waits::wait;
use crate::history::checks::{Breach, Violation};
use crate::history::views::state_before;
use crate::history::{Change, Kind, Timeline};

/// Whether `pod` is named as a pod of `set` (`<set>-<ordinal>`).
fn of_set(pod: &str, set: &str) -> bool {
    pod.strip_prefix(set)
        .and_then(|rest| rest.strip_prefix('-'))
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Every pod of `set` ever created is one of `names`, and each of `names`
/// was created.
pub fn only_created(t: &Timeline, set: &str, names: &[String]) -> Result<(), Violation> {
    let clause = clauses::slow_start();
    let created = |e: &crate::history::Entry| {
        e.kind == Kind::Pod && e.change == Change::Added && of_set(&e.name, set)
    };
    if let Some(e) = t
        .entries()
        .iter()
        .find(|e| created(e) && !names.contains(&e.name))
    {
        return Err(Violation::at_entry(
            t,
            &clause,
            e.seq,
            Breach::new(
                format!(
                    "{} was created, but only {} should ever be",
                    e.name,
                    names.join(", ")
                ),
                vec![e.name.clone()],
            ),
        ));
    }
    let missing: Vec<&String> = names
        .iter()
        .filter(|n| !t.entries().iter().any(|e| created(e) && &e.name == *n))
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    let last = t.next_seq().saturating_sub(1);
    let missing: Vec<String> = missing.into_iter().cloned().collect();
    Err(Violation::at_entry(
        t,
        &clause,
        last,
        Breach::new(format!("{} was never created", missing.join(", ")), missing),
    ))
}

/// Waits until each of `names` exists, holds for `hold`, and then checks
/// [`only_created`] over the whole history.
pub async fn only_these(
    sc: &mut Scenario,
    set: &str,
    names: Vec<String>,
    timeout: Duration,
    hold: Duration,
) -> anyhow::Result<()> {
    let wanted = names.clone();
    wait(sc, timeout, clauses::slow_start(), move |t| {
        let state = state_before(t, t.next_seq());
        let missing: Vec<&str> = wanted
            .iter()
            .filter(|n| !state.pods.contains_key(n.as_str()))
            .map(String::as_str)
            .collect();
        (!missing.is_empty()).then(|| format!("{} does not exist", missing.join(", ")))
    })
    .await?;
    tokio::time::sleep(hold).await;
    let t = sc.timeline().await?;
    keep(sc, only_created(&t, set, &names))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::fixture::TimelineBuilder;

    fn names(n: &[&str]) -> Vec<String> {
        n.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_pods_of_a_later_batch_fail_it_and_a_missing_one_too() {
        let mut b = TimelineBuilder::new();
        b.create_pod("web-0", "r1").create_pod("web-2", "r1");
        assert!(only_created(b.timeline(), "web", &names(&["web-0", "web-2"])).is_ok());
        // A controller that stops at the failed creation never makes web-2.
        let mut seq = TimelineBuilder::new();
        seq.create_pod("web-0", "r1");
        let err = only_created(seq.timeline(), "web", &names(&["web-0", "web-2"]))
            .expect_err("web-2 missing");
        assert!(err.message.contains("web-2 was never created"));
        // A controller that creates every pod at once.
        b.create_pod("web-3", "r1").create_pod("web-10", "r1");
        let err = only_created(b.timeline(), "web", &names(&["web-0", "web-2"]))
            .expect_err("web-3 created");
        assert!(err.message.starts_with("web-3 was created"));
        // Pods of another set do not count.
        let mut other = TimelineBuilder::new();
        other
            .create_pod("web-0", "r1")
            .create_pod("web-2", "r1")
            .create_pod("webx-3", "r1");
        assert!(only_created(other.timeline(), "web", &names(&["web-0", "web-2"])).is_ok());
    }
}
